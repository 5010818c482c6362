// SM issue model: scheme mechanics, fault-vs-fault-free equality of memory
// and registers for every scheme, block switching, config validation.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/sm_issue.h"
}

namespace {

// Fixed seeds keep the tests deterministic; GMMU_TEST_SEED=N re-runs a case
// with another seed (the seed is printed either way).
uint64_t test_seed(uint64_t fixed)
{
    const char *e = std::getenv("GMMU_TEST_SEED");
    return e && *e ? std::strtoull(e, nullptr, 0) : fixed;
}


uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

// A memory, a block scheduler and a translation with fixed latencies, where
// a seeded fraction of pages starts not present (a fault with a seeded
// resolution delay on first touch; later touches until then merge into it).
struct Env {
    std::unordered_map<uint64_t, uint64_t> mem; // va >> 3 -> value
    std::map<uint32_t, std::vector<uint64_t>> regs; // block id -> final registers
    uint32_t grid = 0, next = 0;
    uint32_t tlb_cycles = 10, data_cycles = 120;
    std::map<uint64_t, std::pair<uint32_t, uint32_t>> page_lat; // page -> (tlb, data) cycles
    // A tiny fully associative LRU L1 (l1_lines > 0) reporting misses and
    // victims with their allocating (block, warp), as the platform's does.
    unsigned l1_lines = 0;
    std::vector<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>> l1; // MRU first
    // The same for a fully associative LRU TLB of 4 KiB pages (tlb_pages > 0).
    unsigned tlb_pages = 0;
    std::vector<std::pair<uint64_t, std::pair<uint32_t, uint32_t>>> tlb; // MRU first
    // faults
    uint64_t seed = 0;
    unsigned fault_pct = 0;          // % of pages not present at start
    uint64_t fault_min = 3000, fault_span = 5000;
    uint32_t queue_pos = 0;          // reported position in the pending queue
    std::unordered_map<uint64_t, uint64_t> ready; // page -> cycle it is present
    uint64_t faults = 0;
    std::vector<gmmu_sm_trace_event> tr;
    bool keep_trace = false;

    static gmmu_status translate(void *ctx, const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs)
    {
        auto *e = static_cast<Env *>(ctx);
        rs->tlb_cycles = e->tlb_cycles;
        rs->data_cycles = e->data_cycles;
        uint64_t page = rq->va >> 12;
        if (e->l1_lines) {
            const uint64_t line = rq->va >> 7;
            auto it = std::find_if(e->l1.begin(), e->l1.end(),
                                   [&](const auto &x) { return x.first == line; });
            if (it == e->l1.end()) {
                rs->l1_miss = true;
                rs->l1_addr = rq->va;
                if (e->l1.size() == e->l1_lines) {
                    rs->l1_victim = true;
                    rs->l1_victim_addr = e->l1.back().first << 7;
                    rs->l1_victim_block = e->l1.back().second.first;
                    rs->l1_victim_warp = e->l1.back().second.second;
                    e->l1.pop_back();
                }
                e->l1.insert(e->l1.begin(), {line, {rq->block_id, rq->warp}});
            } else {
                auto x = *it;
                e->l1.erase(it);
                e->l1.insert(e->l1.begin(), x);
            }
        }
        if (e->tlb_pages) {
            auto it = std::find_if(e->tlb.begin(), e->tlb.end(),
                                   [&](const auto &x) { return x.first == page; });
            if (it == e->tlb.end()) {
                rs->tlb_miss = true;
                if (e->tlb.size() == e->tlb_pages) {
                    rs->tlb_victim = true;
                    rs->tlb_victim_va = e->tlb.back().first << 12;
                    rs->tlb_victim_block = e->tlb.back().second.first;
                    rs->tlb_victim_warp = e->tlb.back().second.second;
                    e->tlb.pop_back();
                }
                e->tlb.insert(e->tlb.begin(), {page, {rq->block_id, rq->warp}});
            } else {
                rs->tlb_hit_depth = uint32_t(it - e->tlb.begin());
                auto x = *it;
                e->tlb.erase(it);
                e->tlb.insert(e->tlb.begin(), x);
            }
        }
        auto pl = e->page_lat.find(page);
        if (pl != e->page_lat.end()) {
            rs->tlb_cycles = pl->second.first;
            rs->data_cycles = pl->second.second;
        }
        if (e->fault_pct) {
            auto it = e->ready.find(page);
            if (it == e->ready.end()) {
                bool absent = mix(page ^ e->seed) % 100 < e->fault_pct;
                uint64_t r = absent ? rq->now + e->fault_min + mix(page + e->seed) % e->fault_span : 0;
                it = e->ready.emplace(page, r).first;
            }
            if (rq->now < it->second) {
                rs->fault = true;
                rs->fault_ready = it->second;
                rs->fault_queue_pos = e->queue_pos;
                e->faults++;
            }
        }
        return GMMU_OK;
    }
    static gmmu_status read64(void *ctx, uint64_t va, uint64_t *v)
    {
        auto *e = static_cast<Env *>(ctx);
        auto it = e->mem.find(va >> 3);
        *v = it == e->mem.end() ? gmmu_kernel_input_value(va) : it->second;
        return GMMU_OK;
    }
    static gmmu_status write64(void *ctx, uint64_t va, uint64_t v)
    {
        static_cast<Env *>(ctx)->mem[va >> 3] = v;
        return GMMU_OK;
    }
    static gmmu_status next_block(void *ctx, uint32_t, bool *got, uint32_t *id)
    {
        auto *e = static_cast<Env *>(ctx);
        *got = e->next < e->grid;
        if (*got)
            *id = e->next++;
        return GMMU_OK;
    }
    static gmmu_status block_done(void *ctx, uint32_t, uint32_t id, const uint64_t *r, uint32_t nw,
                                  uint32_t nr)
    {
        static_cast<Env *>(ctx)->regs[id].assign(r, r + (size_t)nw * nr * 32);
        return GMMU_OK;
    }
    static void trace(void *ctx, const gmmu_sm_trace_event *ev)
    {
        auto *e = static_cast<Env *>(ctx);
        if (e->keep_trace)
            e->tr.push_back(*ev);
    }
    // Per instruction (pc): calls, lanes, 4 KiB pages, 2 MiB pages, span, the
    // most 4 KiB pages of one call.
    std::map<uint32_t, std::array<uint64_t, 6>> by_pc;
    static void shape(void *ctx, uint32_t pc, uint32_t lanes, const gmmu_sm_shape *sh)
    {
        auto &v = static_cast<Env *>(ctx)->by_pc[pc];
        v[0]++;
        v[1] += lanes;
        v[2] += sh->pages_4k;
        v[3] += sh->pages_2m;
        v[4] += sh->span;
        v[5] = std::max<uint64_t>(v[5], sh->pages_4k);
    }
    gmmu_sm_env env()
    {
        return gmmu_sm_env{&translate, &read64, &write64, &next_block, &block_done, &trace, &shape, this};
    }
};

struct SmRun {
    Env env;
    gmmu_sm *sm = nullptr;
    uint64_t end = 0;
    SmRun() = default;
    ~SmRun() { gmmu_sm_destroy(sm); }
    SmRun(const SmRun &) = delete;
    SmRun &operator=(const SmRun &) = delete;
};

std::unique_ptr<gmmu_kernel> kernel(const char *name, uint32_t grid = 0, uint32_t iters = 0)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_kernel_params p{grid, iters};
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_build(k.get(), name, &p, &err), GMMU_OK) << err.field << ": " << err.msg;
    return k;
}

gmmu_sm_config cfg_for(gmmu_fault_scheme s, uint32_t oplog = 16384)
{
    gmmu_sm_config c;
    gmmu_sm_config_tanasic17(&c);
    c.scheme = s;
    c.oplog_bytes = oplog;
    return c;
}

void run(SmRun &r, const gmmu_sm_config &c, const gmmu_kernel *k)
{
    r.env.grid = k->grid_blocks;
    gmmu_error err{};
    gmmu_sm_env e = r.env.env();
    ASSERT_EQ(gmmu_sm_create(&c, &e, &r.sm, &err), GMMU_OK) << err.field << ": " << err.msg;
    ASSERT_EQ(gmmu_sm_launch(r.sm, k, 0, &err), GMMU_OK) << err.field << ": " << err.msg;
    ASSERT_EQ(gmmu_sm_run(r.sm, 1ull << 34, &r.end), GMMU_OK);
    ASSERT_EQ(r.env.regs.size(), k->grid_blocks);
}

const gmmu_fault_scheme kSchemes[] = {GMMU_SCHEME_STALL, GMMU_SCHEME_WD_COMMIT,
                                      GMMU_SCHEME_WD_LASTCHECK, GMMU_SCHEME_REPLAY_QUEUE,
                                      GMMU_SCHEME_OPLOG};

// ---- names ------------------------------------------------------------------

TEST(SmIssueTest, SchemeNamesParseAndRoundTrip)
{
    const char *names[] = {"stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog"};
    for (unsigned i = 0; i < 5; i++) {
        gmmu_fault_scheme s;
        ASSERT_EQ(gmmu_fault_scheme_parse(names[i], &s), GMMU_OK);
        EXPECT_EQ((unsigned)s, i);
        EXPECT_STREQ(gmmu_fault_scheme_name(s), names[i]);
    }
    gmmu_fault_scheme s;
    EXPECT_EQ(gmmu_fault_scheme_parse("wd", &s), GMMU_EINVAL);
    EXPECT_EQ(gmmu_fault_scheme_parse("OPLOG", &s), GMMU_EINVAL);
}

// ---- configs ------------------------------------------------------------------

TEST(SmIssueTest, Tanasic17MachineMatchesTableOne)
{
    gmmu_machine_config m;
    gmmu_machine_config_tanasic17(&m);
    gmmu_error err{};
    ASSERT_EQ(gmmu_machine_config_check(&m, &err), GMMU_OK) << err.field;
    EXPECT_EQ(m.num_sms, 16u);
    EXPECT_EQ(m.clock_mhz, 1000u);
    EXPECT_EQ(m.sm.max_blocks, 16u);
    EXPECT_EQ(m.sm.max_warps, 64u);
    EXPECT_EQ(m.sm.regfile_bytes, 256u * 1024u);
    EXPECT_EQ(m.sm.shared_bytes, 32u * 1024u);
    EXPECT_EQ(m.sm.issue_width, 2u);
    EXPECT_EQ(m.sm.math_per_cycle, 2u);
    EXPECT_EQ(m.sm.sfu_per_cycle, 1u);
    EXPECT_EQ(m.sm.ldst_per_cycle, 1u);
    EXPECT_EQ(m.l1_tlb_entries, 32u);
    EXPECT_EQ(m.l1_tlb_ways, 8u);
    EXPECT_EQ(m.l1_latency, 40u);
    EXPECT_EQ(m.l2_tlb_entries, 1024u);
    EXPECT_EQ(m.l2_tlb_latency, 70u);
    EXPECT_EQ(m.l2_latency, 70u);
    EXPECT_EQ(m.walkers, 64u);
    EXPECT_EQ(m.walk_latency, 500u);
    EXPECT_EQ(m.dram_latency, 200u);
    EXPECT_EQ(m.dram_bytes_per_cycle, 256u);
}

struct BadField {
    const char *field;
    void (*mutate)(gmmu_sm_config *);
};

TEST(SmIssueTest, BadConfigsNameTheField)
{
    const BadField cases[] = {
        {"max_blocks", [](gmmu_sm_config *c) { c->max_blocks = 0; }},
        {"max_warps", [](gmmu_sm_config *c) { c->max_warps = 1000; }},
        {"issue_width", [](gmmu_sm_config *c) { c->issue_width = 0; }},
        {"issue_cycles", [](gmmu_sm_config *c) { c->issue_cycles = 33; }},
        {"ldst_per_cycle", [](gmmu_sm_config *c) { c->ldst_per_cycle = 2; }},
        {"alu_latency", [](gmmu_sm_config *c) { c->alu_latency = 0; }},
        {"inflight_max", [](gmmu_sm_config *c) { c->inflight_max = 1; }},
        {"fault_scheme", [](gmmu_sm_config *c) { c->scheme = (gmmu_fault_scheme)9; }},
        {"oplog_bytes",
         [](gmmu_sm_config *c) {
             c->scheme = GMMU_SCHEME_OPLOG;
             c->oplog_bytes = 1000;
         }},
        {"replay_queue_entries", [](gmmu_sm_config *c) { c->replay_queue_entries = 65; }},
        {"block_switch",
         [](gmmu_sm_config *c) {
             c->scheme = GMMU_SCHEME_STALL;
             c->block_switch = true;
         }},
        {"ctx_bytes_per_cycle", [](gmmu_sm_config *c) { c->ctx_bytes_per_cycle = 0; }},
    };
    for (const auto &bc : cases) {
        gmmu_sm_config c;
        gmmu_sm_config_tanasic17(&c);
        bc.mutate(&c);
        gmmu_error err{};
        EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_EINVAL) << bc.field;
        EXPECT_STREQ(err.field, bc.field);
        Env e;
        gmmu_sm_env env = e.env();
        gmmu_sm *sm = nullptr;
        gmmu_error err2{};
        EXPECT_EQ(gmmu_sm_create(&c, &env, &sm, &err2), GMMU_EINVAL);
        EXPECT_STREQ(err2.field, bc.field);
    }
}

TEST(SmIssueTest, LogTooSmallForOccupancyIsRejectedAtLaunch)
{
    // 16 resident blocks x one store (512 B) = 8 KB is the minimum useful log.
    auto k = kernel("sgemm-like", 16, 1);
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_OPLOG, 4096);
    Env e;
    e.grid = 16;
    gmmu_sm_env env = e.env();
    gmmu_sm *sm = nullptr;
    gmmu_error err{};
    ASSERT_EQ(gmmu_sm_create(&c, &env, &sm, &err), GMMU_OK);
    EXPECT_EQ(gmmu_sm_launch(sm, k.get(), 0, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "oplog_bytes");
    gmmu_sm_destroy(sm);
    c.oplog_bytes = 8192;
    ASSERT_EQ(gmmu_sm_create(&c, &env, &sm, &err), GMMU_OK);
    EXPECT_EQ(gmmu_sm_launch(sm, k.get(), 0, &err), GMMU_OK);
    EXPECT_EQ(sm->st.resident_blocks, 16u);
    EXPECT_EQ(sm->st.oplog_partition_bytes, 512u);
    gmmu_sm_destroy(sm);
}

TEST(SmIssueTest, OccupancyFollowsRegistersWarpsAndSharedMemory)
{
    gmmu_sm_config c;
    gmmu_sm_config_tanasic17(&c);
    auto lbm = kernel("lbm-like");
    // 128 registers x 8 B x 32 lanes = 32 KB per warp: 8 warps = 2 blocks of 4.
    EXPECT_EQ(gmmu_sm_occupancy(&c, lbm.get()), 2u);
    EXPECT_EQ(gmmu_sm_occupancy(&c, lbm.get()) * lbm->warps_per_block, 8u);
    EXPECT_EQ(gmmu_sm_occupancy(&c, kernel("sgemm-like").get()), 16u);
    EXPECT_EQ(gmmu_sm_occupancy(&c, kernel("histo-like").get()), 8u);   // 64 warps / 8
    EXPECT_EQ(gmmu_sm_occupancy(&c, kernel("stencil-like").get()), 10u); // 24 regs
}

TEST(SmIssueTest, KernelBuilderAndEnvErrorsNameTheField)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_build(k.get(), "lbm", nullptr, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.name");
    gmmu_kernel_params p{0, 1000};
    EXPECT_EQ(gmmu_kernel_build(k.get(), "sgemm-like", &p, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.iters");
    ASSERT_EQ(gmmu_kernel_build(k.get(), "tiny", nullptr, &err), GMMU_OK);
    k->code[0].src[0] = 200; // beyond nregs
    EXPECT_EQ(gmmu_kernel_check(k.get(), &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.code");
    for (unsigned i = 0; i < gmmu_kernel_count(); i++) {
        auto kk = std::make_unique<gmmu_kernel>();
        EXPECT_EQ(gmmu_kernel_build(kk.get(), gmmu_kernel_name(i), nullptr, &err), GMMU_OK)
            << gmmu_kernel_name(i) << ": " << err.msg;
    }
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_OPLOG);
    Env e;
    gmmu_sm_env env = e.env();
    env.translate = nullptr;
    gmmu_sm *sm = nullptr;
    EXPECT_EQ(gmmu_sm_create(&c, &env, &sm, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "env");
}

TEST(SmIssueTest, StepRejectsTimeGoingBackwards)
{
    auto k = kernel("tiny", 1, 1);
    Env e;
    e.grid = 1;
    gmmu_sm_env env = e.env();
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_REPLAY_QUEUE);
    gmmu_sm *sm = nullptr;
    ASSERT_EQ(gmmu_sm_create(&c, &env, &sm, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_sm_launch(sm, k.get(), 100, nullptr), GMMU_OK);
    EXPECT_EQ(gmmu_sm_step(sm, 50), GMMU_EINVAL);
    EXPECT_EQ(gmmu_sm_step(sm, 100), GMMU_OK);
    EXPECT_GT(gmmu_sm_next_cycle(sm), 100u);
    EXPECT_FALSE(gmmu_sm_done(sm));
    uint64_t end = 0;
    EXPECT_EQ(gmmu_sm_run(sm, 1ull << 30, &end), GMMU_OK);
    EXPECT_TRUE(gmmu_sm_done(sm));
    EXPECT_EQ(gmmu_sm_next_cycle(sm), UINT64_MAX);
    gmmu_sm_destroy(sm);
}

// gmmu_sm_launch_next: a program's next launch once the last is done and
// not before it ended; the counters go on (a second launch of the same
// kernel doubles them), where gmmu_sm_launch starts them over.
TEST(SmIssueTest, LaunchNextRunsTheNextLaunchAndKeepsCounting)
{
    auto k = kernel("tiny", 2, 1);
    Env e;
    e.grid = 2;
    gmmu_sm_env env = e.env();
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    gmmu_sm *sm = nullptr;
    gmmu_error err{};
    ASSERT_EQ(gmmu_sm_create(&c, &env, &sm, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_sm_launch(sm, k.get(), 0, nullptr), GMMU_OK);
    EXPECT_EQ(gmmu_sm_launch_next(sm, k.get(), 0, &err), GMMU_EINVAL); // still running
    EXPECT_NE(std::string(err.msg).find("has not finished"), std::string::npos) << err.msg;
    uint64_t end1 = 0, end2 = 0;
    ASSERT_EQ(gmmu_sm_run(sm, 1ull << 30, &end1), GMMU_OK);
    const gmmu_sm_stats one = sm->st;
    ASSERT_GT(one.committed, 0u);
    EXPECT_EQ(gmmu_sm_launch_next(sm, k.get(), end1 - 1, &err), GMMU_EINVAL); // before the end
    e.next = 0; // the second launch's blocks, from the first
    ASSERT_EQ(gmmu_sm_launch_next(sm, k.get(), end1 + 10, &err), GMMU_OK) << err.msg;
    EXPECT_FALSE(gmmu_sm_done(sm));
    ASSERT_EQ(gmmu_sm_run(sm, 1ull << 30, &end2), GMMU_OK);
    EXPECT_EQ(sm->st.committed, 2 * one.committed);
    EXPECT_EQ(sm->st.mem_insns, 2 * one.mem_insns);
    EXPECT_EQ(sm->st.blocks_done, 2 * one.blocks_done);
    EXPECT_GE(end2, end1 + 10 + (end1 - 0) / 2); // the second launch ran after the first ended
    e.next = 0;
    ASSERT_EQ(gmmu_sm_launch(sm, k.get(), end2, nullptr), GMMU_OK);
    EXPECT_EQ(sm->st.committed, 0u); // a first launch starts the counters over
    gmmu_sm_destroy(sm);
}

// ---- mechanics ----------------------------------------------------------------

// Cycle of the first trace event of kind at pc (any warp of block 0).
uint64_t when(const Env &e, gmmu_sm_trace_kind kind, uint32_t pc)
{
    for (const auto &ev : e.tr)
        if (ev.kind == kind && ev.pc == pc && ev.block_id == 0 && ev.warp == 0)
            return ev.cycle;
    return UINT64_MAX;
}

// tiny: pc 4 = LD r7,[r4]; pc 5 = ADDI r4 (independent of the load's result).
TEST(SmIssueTest, WdCommitBlocksFetchUntilCommitAndLastcheckUntilTlbCheck)
{
    auto k = kernel("tiny", 1, 1);
    ASSERT_EQ(k->code[4].op, GMMU_OP_LD);
    ASSERT_EQ(k->code[5].op, GMMU_OP_ADDI);
    uint64_t base_issue = 0;
    for (auto s : {GMMU_SCHEME_STALL, GMMU_SCHEME_WD_COMMIT, GMMU_SCHEME_WD_LASTCHECK}) {
        SmRun r;
        r.env.keep_trace = true;
        run(r, cfg_for(s), k.get());
        uint64_t ld_check = when(r.env, GMMU_SM_TR_LASTCHECK, 4);
        uint64_t ld_commit = when(r.env, GMMU_SM_TR_COMMIT, 4);
        uint64_t add_issue = when(r.env, GMMU_SM_TR_ISSUE, 5);
        ASSERT_NE(ld_commit, UINT64_MAX);
        ASSERT_LT(ld_check + 100, ld_commit); // 120-cycle data latency
        if (s == GMMU_SCHEME_STALL) {
            base_issue = add_issue;
            EXPECT_LT(add_issue, ld_check); // baseline: no barrier
        } else if (s == GMMU_SCHEME_WD_COMMIT) {
            EXPECT_GE(add_issue, ld_commit);
            EXPECT_GT(r.sm->st.stall_wd, 0u);
        } else {
            EXPECT_GE(add_issue, ld_check);
            EXPECT_LT(add_issue, ld_commit);
        }
    }
    EXPECT_GT(base_issue, 0u);
}

TEST(SmIssueTest, ReplayQueueHoldsSourcesUntilLastTlbCheck)
{
    // ADDI r4 overwrites the load's address register: under the replay queue
    // it waits for the load's last TLB check (WAR), under oplog it does not.
    auto k = kernel("tiny", 1, 1);
    SmRun rq, ol;
    rq.env.keep_trace = ol.env.keep_trace = true;
    rq.env.tlb_cycles = ol.env.tlb_cycles = 60;
    run(rq, cfg_for(GMMU_SCHEME_REPLAY_QUEUE), k.get());
    run(ol, cfg_for(GMMU_SCHEME_OPLOG), k.get());
    EXPECT_GE(when(rq.env, GMMU_SM_TR_ISSUE, 5), when(rq.env, GMMU_SM_TR_LASTCHECK, 4));
    EXPECT_GT(rq.sm->st.stall_war, 0u);
    EXPECT_LT(when(ol.env, GMMU_SM_TR_ISSUE, 5), when(ol.env, GMMU_SM_TR_LASTCHECK, 4));
}

TEST(SmIssueTest, OplogLoadTakesOneEntryStoreTwoAndFullPartitionStallsIssue)
{
    // One block resident per SM (max_blocks = 1): its partition is the whole log.
    auto k = kernel("lbm-like", 1, 1);
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_OPLOG, 1024); // 4 entries
    c.max_blocks = 1;
    SmRun r;
    r.env.keep_trace = true;
    r.env.tlb_cycles = 200;
    run(r, c, k.get());
    EXPECT_EQ(r.sm->st.oplog_partition_bytes, 1024u);
    // Per warp 19 loads (1 entry each) then 19 stores (2 entries each). With 4
    // entries for the block and a 200-cycle TLB check, issue stalls on a full
    // partition.
    EXPECT_GT(r.sm->st.stall_oplog_full, 0u);
    unsigned full = 0;
    for (const auto &ev : r.env.tr)
        full += ev.kind == GMMU_SM_TR_OPLOG_FULL;
    EXPECT_GT(full, 0u);
    // At most 4 loads or 2 stores between issue and last TLB check at any time.
    int outstanding_entries = 0, peak = 0;
    for (const auto &ev : r.env.tr) {
        if (ev.pc >= k->ninsns)
            continue;
        gmmu_op op = (gmmu_op)k->code[ev.pc].op;
        if (!gmmu_op_is_global(op))
            continue;
        if (ev.kind == GMMU_SM_TR_ISSUE)
            outstanding_entries += (int)gmmu_op_log_entries(op);
        if (ev.kind == GMMU_SM_TR_LASTCHECK)
            outstanding_entries -= (int)gmmu_op_log_entries(op);
        peak = std::max(peak, outstanding_entries);
    }
    EXPECT_EQ(peak, 4);
    EXPECT_EQ(outstanding_entries, 0);
    EXPECT_EQ(gmmu_op_log_entries(GMMU_OP_LD) * GMMU_OPLOG_ENTRY_BYTES, 256u);
    EXPECT_EQ(gmmu_op_log_entries(GMMU_OP_ST) * GMMU_OPLOG_ENTRY_BYTES, 512u);
    // A log holding every operand of the block's cell (4 warps x (19 + 2 x 19)
    // = 228 entries) removes the stalls.
    SmRun big;
    c.oplog_bytes = 65536;
    big.env.tlb_cycles = 200;
    run(big, c, k.get());
    EXPECT_EQ(big.sm->st.stall_oplog_full, 0u);
    EXPECT_LT(big.end, r.end);
}

// ---- faults: results equal to the fault-free run ------------------------------

struct Snapshot {
    std::unordered_map<uint64_t, uint64_t> mem;
    std::map<uint32_t, std::vector<uint64_t>> regs;
};

void expect_same(const Snapshot &a, const Env &b, const std::string &what)
{
    EXPECT_EQ(a.mem.size(), b.mem.size()) << what;
    size_t diff = 0;
    for (const auto &kv : a.mem) {
        auto it = b.mem.find(kv.first);
        if (it == b.mem.end() || it->second != kv.second)
            diff++;
    }
    EXPECT_EQ(diff, 0u) << what << ": memory words differ";
    ASSERT_EQ(a.regs.size(), b.regs.size()) << what;
    size_t rdiff = 0;
    for (const auto &kv : a.regs)
        rdiff += kv.second != b.regs.at(kv.first);
    EXPECT_EQ(rdiff, 0u) << what << ": blocks with different registers";
}

Snapshot reference(const gmmu_kernel *k)
{
    SmRun r;
    run(r, cfg_for(GMMU_SCHEME_STALL), k);
    EXPECT_EQ(r.sm->st.faults, 0u);
    return Snapshot{r.env.mem, r.env.regs};
}

TEST(SmIssueTest, FaultyRunsEndWithFaultFreeMemoryAndRegistersEveryScheme)
{
    const uint64_t seed = test_seed(0xC0FFEEull);
    std::printf("seed %llu\n", (unsigned long long)seed);
    for (const char *name : {"tiny", "lbm-like", "histo-like", "spmv-like"}) {
        auto k = kernel(name, std::string(name) == "tiny" ? 6 : 10, 2);
        Snapshot ref = reference(k.get());
        ASSERT_FALSE(ref.mem.empty());
        for (auto s : kSchemes) {
            SmRun r;
            r.env.seed = seed;
            // tiny touches ~5 pages: make them all absent so every seed faults.
            r.env.fault_pct = std::string(name) == "tiny" ? 100 : 40;
            run(r, cfg_for(s, 32768), k.get());
            std::string what = std::string(name) + "/" + gmmu_fault_scheme_name(s) + " seed " +
                               std::to_string(seed);
            EXPECT_GT(r.sm->st.faults, 0u) << what;
            if (s != GMMU_SCHEME_STALL)
                EXPECT_GT(r.sm->st.replayed, 0u) << what;
            else
                EXPECT_GT(r.sm->st.fault_retries, 0u) << what;
            expect_same(ref, r.env, what);
        }
    }
}

// ---- control flow ---------------------------------------------------------------

// The divergent kernels with short trip counts (kernel name, iters).
const std::pair<const char *, uint32_t> kDivergentKernels[] = {
    {"bfs-like", 8}, {"mummer-like", 12}, {"memcached-like", 1},
    {"kmeans-like", 3}, {"streamcluster-like", 2}, {"pathfinder-like", 6}};

// An independent reference: every thread run alone, one instruction at a
// time, with its own pc (no warps, no stack). Kernels are race-free and
// reductions commute, so memory and registers must equal the SM's.
// Global memory of the reference run: words read keep their input value;
// written ones (as the SM's memory holds them) are listed in `written`.
struct InterpMem {
    std::map<uint64_t, uint64_t> word;
    std::set<uint64_t> written;
};

uint64_t *interp_word(void *ctx, uint64_t va, bool write)
{
    auto *m = static_cast<InterpMem *>(ctx);
    auto it = m->word.find(va >> 3);
    if (it == m->word.end())
        it = m->word.emplace(va >> 3, gmmu_kernel_input_value(va)).first;
    if (write)
        m->written.insert(va >> 3);
    return &it->second;
}

Snapshot interpret(const gmmu_kernel *k)
{
    Snapshot out;
    InterpMem mem;
    const uint32_t W = k->warps_per_block, R = k->nregs;
    for (uint32_t b = 0; b < k->grid_blocks; b++) {
        std::vector<uint64_t> regs((size_t)W * R * 32, 0);
        gmmu_error err{};
        EXPECT_EQ(gmmu_kernel_ref_block(k, b, regs.data(), interp_word, &mem, 1u << 20, nullptr, &err),
                  GMMU_OK)
            << err.msg;
        out.regs[b] = regs;
    }
    for (uint64_t w : mem.written)
        out.mem[w] = mem.word.at(w);
    return out;
}

TEST(SmIssueTest, DivergentKernelsMatchAThreadByThreadInterpreter)
{
    // bfs-like: frontier skip + data-dependent loop + nested if; mummer-like:
    // pointer chase of per-lane depth; memcached-like: chains of 0..3 items;
    // kmeans-like: the nearest-cluster if; streamcluster-like: if/else of a
    // store and a shared reduction; pathfinder-like: an if/else per row.
    for (auto [name, iters] : kDivergentKernels) {
        auto k = kernel(name, 6, iters);
        Snapshot ref = interpret(k.get());
        SmRun r;
        run(r, cfg_for(GMMU_SCHEME_OPLOG), k.get());
        expect_same(ref, r.env, name);
        EXPECT_GT(r.sm->st.branches, 0u) << name;
        EXPECT_GT(r.sm->st.divergent_branches, 0u) << name;
        EXPECT_LT(r.sm->st.divergent_branches, r.sm->st.branches) << name;
        // Page divergence: coalesced kernels touch one page per instruction,
        // memcached-like's hashed buckets and items many.
        EXPECT_GE(r.sm->st.mem_pages, r.sm->st.mem_insns) << name;
        if (std::string(name) == "pathfinder-like") {
            EXPECT_EQ(r.sm->st.mem_pages, r.sm->st.mem_insns) << name;
        }
        if (std::string(name) == "memcached-like") {
            EXPECT_GT(r.sm->st.mem_pages, 4 * r.sm->st.mem_insns) << name;
        }
    }
    // Nested divergence leaves a waiting entry per level: bfs-like's frontier
    // test, its loop and the if inside it.
    auto k = kernel("bfs-like", 6, 8);
    SmRun r;
    run(r, cfg_for(GMMU_SCHEME_STALL), k.get());
    EXPECT_GE(r.sm->st.simt_peak_depth, 3u);
}

TEST(SmIssueTest, IssueCyclesHoldTheIssueStageAndKeepTheResults)
{
    // A narrower pipeline (issue_cycles 4: 8 lanes) issues one instruction
    // every 4 cycles at issue width 1: the run takes at least 4 cycles per
    // instruction issued, more than at 1 cycle, and computes the same.
    for (const char *name : {"sgemm-like", "kmeans-like"}) {
        auto k = kernel(name, 4);
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        c.issue_width = 1;
        SmRun one;
        run(one, c, k.get());
        c.issue_cycles = 4;
        SmRun four;
        run(four, c, k.get());
        EXPECT_EQ(four.sm->st.issued, one.sm->st.issued) << name;
        EXPECT_GE(four.end, 4 * four.sm->st.issued) << name;
        EXPECT_LT(one.end, 4 * one.sm->st.issued) << name;
        EXPECT_GT(four.end, one.end) << name;
        EXPECT_EQ(four.env.regs, one.env.regs) << name;
        EXPECT_EQ(four.env.mem, one.env.mem) << name;
    }
}

TEST(SmIssueTest, InactiveLanesSendNoRequests)
{
    // 0: ANDI r6 = lane & 1   1: BRNZ r6 -> 3 (odd lanes skip the load)
    // 2: LD r7 = [r0 * 8 * 16 + base] (one line per lane)   3: exit
    auto k = std::make_unique<gmmu_kernel>();
    std::snprintf(k->name, sizeof k->name, "half");
    k->nregs = 8;
    k->warps_per_block = 1;
    k->grid_blocks = 1;
    gmmu_insn code[5] = {};
    code[0] = {(uint8_t)GMMU_OP_ANDI, 6, {3, 0, 0}, 1};
    code[1] = {(uint8_t)GMMU_OP_BRNZ, 0, {6, 0, 0}, 4};
    code[2] = {(uint8_t)GMMU_OP_SHLI, 7, {0, 0, 0}, 7};
    code[3] = {(uint8_t)GMMU_OP_LD, 7, {7, 0, 0}, 0x100000000000ll};
    k->ninsns = 4;
    for (int i = 0; i < 4; i++)
        k->code[i] = code[i];
    SmRun r;
    run(r, cfg_for(GMMU_SCHEME_STALL), k.get());
    EXPECT_EQ(r.sm->st.requests, 16u); // 16 even lanes, one 128-B line each
    EXPECT_EQ(r.sm->st.divergent_branches, 1u);
    const auto &regs = r.env.regs.at(0);
    for (uint32_t l = 0; l < 32; l++) {
        uint64_t v = regs[7 * 32 + l];
        uint64_t want = l & 1 ? 0u : gmmu_kernel_input_value(0x100000000000ull + (uint64_t)l * 128u);
        EXPECT_EQ(v, want) << "lane " << l << (l & 1 ? " (inactive) wrote its destination" : "");
    }
}

TEST(SmIssueTest, WithoutOverlapEveryLineWaitsForTheInstructionsLastTranslation)
{
    // One warp, one load over two pages (lanes 0..15 on page A, 16..31 on
    // page B). A: translated in 10 cycles, data 2000; B: 1000 and 100.
    auto k = std::make_unique<gmmu_kernel>();
    std::snprintf(k->name, sizeof k->name, "two-pages");
    k->nregs = 8;
    k->warps_per_block = 1;
    k->grid_blocks = 1;
    const int64_t base = 0x100000000000ll;
    k->code[0] = {(uint8_t)GMMU_OP_SHRI, 6, {3, 0, 0}, 4};  // lane >> 4
    k->code[1] = {(uint8_t)GMMU_OP_SHLI, 6, {6, 0, 0}, 12}; // a page apart
    k->code[2] = {(uint8_t)GMMU_OP_LD, 7, {6, 0, 0}, base};
    k->ninsns = 3;
    uint64_t sent = 0, end[2] = {0, 0};
    for (int ov = 0; ov < 2; ov++) {
        SmRun r;
        r.env.page_lat[uint64_t(base) >> 12] = {10, 2000};
        r.env.page_lat[(uint64_t(base) >> 12) + 1] = {1000, 100};
        r.env.keep_trace = true;
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        c.overlap_lines = ov == 1;
        run(r, c, k.get());
        EXPECT_EQ(r.sm->st.requests, 2u);
        for (const auto &ev : r.env.tr) {
            if (ev.kind == GMMU_SM_TR_COMMIT && ev.pc == 2)
                end[ov] = ev.cycle;
            if (ev.kind == GMMU_SM_TR_OPREAD && ev.pc == 2)
                sent = ev.cycle + c.coalesce_cycles; // A's line reaches the TLB, B's a cycle later
        }
    }
    // Overlap: A's data runs under B's translation: A ends last, at sent + 10 + 2000.
    EXPECT_EQ(end[1], sent + 10 + 2000);
    // Without: both start at B's translation (sent + 1 + 1000); A's 2000 after that.
    EXPECT_EQ(end[0], sent + 1 + 1000 + 2000);
}

// ---- warp order -----------------------------------------------------------------

std::vector<uint32_t> issue_order(gmmu_warp_order o, uint32_t blocks)
{
    // Per warp: 4 independent MOVIs (no hazards): only the order decides.
    auto k = std::make_unique<gmmu_kernel>();
    std::snprintf(k->name, sizeof k->name, "movis");
    k->nregs = 8;
    k->warps_per_block = 2;
    k->grid_blocks = blocks;
    for (uint32_t i = 0; i < 4; i++)
        k->code[i] = {(uint8_t)GMMU_OP_MOVI, (uint8_t)(4 + i), {0, 0, 0}, (int64_t)i};
    k->ninsns = 4;
    SmRun r;
    r.env.keep_trace = true;
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.issue_width = 1;
    c.math_per_cycle = 1;
    c.order = o;
    run(r, c, k.get());
    std::vector<uint32_t> who; // block * 2 + warp, in issue order
    for (const auto &ev : r.env.tr)
        if (ev.kind == GMMU_SM_TR_ISSUE)
            who.push_back(ev.block_id * 2 + ev.warp);
    return who;
}

TEST(SmIssueTest, GreedyThenOldestStaysOnAWarpUntilItCannotIssue)
{
    // GTO: warp 0 issues all 4, then the oldest other: warp 1, then block 1's.
    EXPECT_EQ(issue_order(GMMU_ORDER_GTO, 2),
              (std::vector<uint32_t>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3}));
    // LRR: the rotation's start moves by one warp each cycle.
    std::vector<uint32_t> lrr = issue_order(GMMU_ORDER_LRR, 2);
    ASSERT_EQ(lrr.size(), 16u);
    EXPECT_EQ(std::vector<uint32_t>(lrr.begin(), lrr.begin() + 4), (std::vector<uint32_t>{0, 1, 2, 3}));
    gmmu_warp_order o;
    EXPECT_EQ(gmmu_warp_order_parse("gto", &o), GMMU_OK);
    EXPECT_EQ(o, GMMU_ORDER_GTO);
    EXPECT_STREQ(gmmu_warp_order_name(GMMU_ORDER_LRR), "lrr");
    EXPECT_EQ(gmmu_warp_order_parse("ccws2", &o), GMMU_EINVAL);
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.order = (gmmu_warp_order)7;
    gmmu_error err{};
    EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "order");
}

TEST(SmIssueTest, GtoRunsEveryKernelToTheSameResultUnderFaults)
{
    const uint64_t seed = test_seed(0x6707ull);
    for (auto [name, iters] : {std::pair<const char *, uint32_t>{"bfs-like", 8}, {"tiny", 4}}) {
        auto k = kernel(name, 6, iters);
        Snapshot ref = interpret(k.get());
        for (auto s : {GMMU_SCHEME_STALL, GMMU_SCHEME_OPLOG}) {
            SmRun r;
            r.env.seed = seed;
            r.env.fault_pct = 40;
            gmmu_sm_config c = cfg_for(s, 32768);
            c.order = GMMU_ORDER_GTO;
            run(r, c, k.get());
            expect_same(ref, r.env, std::string(name) + " gto");
        }
    }
}

// ---- throttling (CCWS, TA-CCWS) ------------------------------------------------------

TEST(SmIssueTest, PageDivergenceCountsDistinctPagesOfActiveLanes)
{
    uint64_t a[32] = {};
    for (unsigned l = 0; l < 32; l++)
        a[l] = 0x10000000ull + 8u * l; // one page
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0xFFFFFFFFu), 1u);
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0u), 0u);
    for (unsigned l = 0; l < 32; l++)
        a[l] = 0x10000000ull + 4096ull * (l % 5) + 8u * l; // pages 0..4, repeating
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0xFFFFFFFFu), 5u);
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0x3u), 2u);    // lanes 0, 1
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0x21u), 1u);   // lanes 0, 5: both page 0
    a[31] = 0x10000fffull;                             // the last byte of page 0
    EXPECT_EQ(gmmu_sm_distinct_pages(a, 0x80000001u), 1u);
}

// With access_shape, env.shape receives every global memory instruction
// the SM performs, by pc: its calls add up to the SM's own shape counters,
// and only global loads, stores and reductions are reported. Without the
// key it is never called.
TEST(SmIssueTest, AccessShapeReportsEachMemoryInstructionByPc)
{
    auto k = kernel("memcached-like", 8);
    for (bool on : {true, false}) {
        SmRun r;
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        c.access_shape = on;
        run(r, c, k.get());
        if (!on) {
            EXPECT_TRUE(r.env.by_pc.empty());
            continue;
        }
        std::array<uint64_t, 6> sum{};
        for (const auto &[pc, v] : r.env.by_pc) {
            ASSERT_LT(pc, k->ninsns);
            EXPECT_TRUE(gmmu_op_is_global(gmmu_op(k->code[pc].op))) << "pc " << pc;
            EXPECT_LE(v[1], 32u * v[0]);      // lanes
            EXPECT_LE(v[3], v[2]);            // a 2 MiB page holds its 4 KiB pages
            for (int i = 0; i < 5; i++)
                sum[i] += v[i];
            sum[5] = std::max(sum[5], v[5]);
        }
        EXPECT_GE(r.env.by_pc.size(), 3u); // the key, the bucket, the chain and the value loads
        EXPECT_EQ(sum[0], r.sm->st.mem_insns);
        EXPECT_EQ(sum[2], r.sm->st.mem_pages);
        EXPECT_EQ(sum[3], r.sm->st.mem_pages_2m);
        EXPECT_EQ(sum[4], r.sm->st.mem_span_bytes);
        EXPECT_EQ(sum[5], r.sm->st.mem_pages_max);
    }
}

// Hand-computed: 48 warp slots. CCWS, 16 entries 8-way: per warp
// 16 x (41-bit line tag + valid + 3 LRU bits) + a 16-bit score = 736 bits;
// TCWS, 8 entries 8-way: 8 x (36-bit page tag + 1 + 3) + 16 = 336 bits.
TEST(SmIssueTest, ThrottleStateBitsCountEveryWarpSlot)
{
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.max_warps = 48;
    gmmu_ccws_config_default(&c.ccws, 1);
    c.throttle = GMMU_THROTTLE_NONE;
    EXPECT_EQ(gmmu_sm_throttle_state_bits(&c), 0u);
    c.throttle = GMMU_THROTTLE_CCWS;
    EXPECT_EQ(gmmu_sm_throttle_state_bits(&c), 48u * 736u);
    c.throttle = GMMU_THROTTLE_TA_CCWS;
    EXPECT_EQ(gmmu_sm_throttle_state_bits(&c), 48u * 736u);
    c.throttle = GMMU_THROTTLE_TCWS;
    c.ccws.vta_entries = c.ccws.vta_ways = 8;
    EXPECT_EQ(gmmu_sm_throttle_state_bits(&c), 48u * 336u);
    EXPECT_EQ(gmmu_sm_throttle_state_bits(nullptr), 0u);
}

TEST(SmIssueTest, CcwsThrottlesWarpsThatLoseLinesAndKeepsTheResults)
{
    // spmv-like gathers within a block-local window: warps re-reference
    // lines other warps evict from a 64-line L1.
    auto k = kernel("spmv-like", 8, 8);
    Snapshot ref = interpret(k.get());
    for (auto t : {GMMU_THROTTLE_NONE, GMMU_THROTTLE_CCWS, GMMU_THROTTLE_TA_CCWS, GMMU_THROTTLE_TCWS}) {
        SmRun r;
        r.env.l1_lines = 64;
        r.env.tlb_pages = 8;
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        c.order = GMMU_ORDER_GTO;
        c.throttle = t;
        gmmu_ccws_config_default(&c.ccws, 1);
        c.ccws.tlb_weight = 4;
        if (t == GMMU_THROTTLE_TCWS) { // 8 page tags per warp, LRU(1,2,4,8)
            c.ccws.vta_entries = c.ccws.vta_ways = 8;
            c.ccws.depth_weight[0] = 1;
            c.ccws.depth_weight[1] = 2;
            c.ccws.depth_weight[2] = 4;
            c.ccws.depth_weight[3] = 8;
        }
        run(r, c, k.get());
        expect_same(ref, r.env, "throttle " + std::to_string(t));
        if (t == GMMU_THROTTLE_NONE) {
            EXPECT_EQ(r.sm->st.vta_hits + r.sm->st.lines_lost + r.sm->st.stall_throttled, 0u);
        } else {
            EXPECT_GT(r.sm->st.lines_lost, 0u);
            EXPECT_GT(r.sm->st.vta_hits, 0u);
            EXPECT_GT(r.sm->st.stall_throttled, 0u);
        }
        uint64_t held = 0, issued = 0;
        for (uint32_t g = 0; g < GMMU_SM_MAX_WARP_SLOTS; g++) {
            held += r.sm->st.held_by_slot[g];
            issued += r.sm->st.issued_by_slot[g];
        }
        EXPECT_EQ(held, r.sm->st.stall_throttled);
        EXPECT_EQ(issued, r.sm->st.issued);
    }
    // Too many resident warps for the 64-warp scoring: refused at launch.
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.throttle = GMMU_THROTTLE_CCWS;
    gmmu_ccws_config_default(&c.ccws, 1);
    c.max_warps = 128;
    c.max_blocks = 64;
    c.regfile_bytes = 1u << 20;
    Env e;
    gmmu_sm_env env = e.env();
    gmmu_sm *sm = nullptr;
    gmmu_error err{};
    ASSERT_EQ(gmmu_sm_create(&c, &env, &sm, &err), GMMU_OK) << err.msg;
    auto big = kernel("spmv-like", 64, 2);
    EXPECT_EQ(gmmu_sm_launch(sm, big.get(), 0, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "throttle");
    gmmu_sm_destroy(sm);
    c.ccws.tlb_weight = 3;
    EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "tlb_weight");
}

TEST(SmIssueTest, DivergentKernelsSurviveFaultsUnderEveryScheme)
{
    const uint64_t seed = test_seed(0xD1CEull);
    std::printf("seed %llu\n", (unsigned long long)seed);
    for (auto [name, iters] : kDivergentKernels) {
        // pathfinder-like's 16 registers let 6 blocks be resident at once:
        // it needs more blocks than fit for a block to switch in.
        auto k = kernel(name, std::string(name) == "pathfinder-like" ? 16 : 6, iters);
        Snapshot ref = interpret(k.get());
        for (auto s : kSchemes) {
            for (bool sw : {false, true}) {
                if (sw && s == GMMU_SCHEME_STALL)
                    continue;
                SmRun r;
                r.env.seed = seed;
                r.env.fault_pct = 40;
                r.env.queue_pos = 1; // beyond the threshold: every fault switches
                gmmu_sm_config c = cfg_for(s, 32768);
                c.block_switch = sw;
                c.switch_threshold = 0;
                run(r, c, k.get());
                std::string what = std::string(name) + "/" + gmmu_fault_scheme_name(s) +
                                   (sw ? "+switch" : "") + " seed " + std::to_string(seed);
                EXPECT_GT(r.sm->st.faults, 0u) << what;
                if (s != GMMU_SCHEME_STALL) {
                    EXPECT_GT(r.sm->st.replayed, 0u) << what;
                }
                if (sw) {
                    EXPECT_GT(r.sm->st.switch_outs, 0u) << what;
                }
                expect_same(ref, r.env, what);
            }
        }
    }
}

TEST(SmIssueTest, OplogReplayReadsLoggedOperandsNotOverwrittenRegisters)
{
    // tiny overwrites the load's address, the store's address and the store's
    // data right after they are read. A replay that re-read registers would
    // load/store the next iteration's addresses and data: memory would differ.
    auto k = kernel("tiny", 4, 6);
    Snapshot ref = reference(k.get());
    SmRun r;
    r.env.seed = 7;
    r.env.fault_pct = 100; // every page faults once
    r.env.keep_trace = true;
    run(r, cfg_for(GMMU_SCHEME_OPLOG, 8192), k.get());
    EXPECT_GT(r.sm->st.replayed, 0u);
    // Sources were released at operand read: the ADDI that overwrites a
    // faulted load's address register (pc + 1) committed before the replay.
    unsigned overwritten_before_replay = 0;
    for (const auto &f : r.env.tr) {
        if (f.kind != GMMU_SM_TR_FAULT || k->code[f.pc].op != GMMU_OP_LD)
            continue;
        uint64_t add_commit = UINT64_MAX, replay = UINT64_MAX;
        for (const auto &ev : r.env.tr) {
            if (ev.block_id != f.block_id || ev.warp != f.warp)
                continue;
            if (ev.kind == GMMU_SM_TR_COMMIT && ev.pc == f.pc + 1 && add_commit == UINT64_MAX)
                add_commit = ev.cycle;
            if (ev.kind == GMMU_SM_TR_REPLAY_ISSUE && ev.pc == f.pc && ev.cycle > f.cycle &&
                replay == UINT64_MAX)
                replay = ev.cycle;
        }
        ASSERT_NE(replay, UINT64_MAX);
        overwritten_before_replay += add_commit < replay;
    }
    EXPECT_GT(overwritten_before_replay, 0u);
    expect_same(ref, r.env, "oplog replay");
}

TEST(SmIssueTest, StallSchemeTreatsAFaultAsALongTlbMiss)
{
    auto k = kernel("tiny", 2, 2);
    SmRun r;
    r.env.fault_pct = 100;
    r.env.fault_min = 9000;
    r.env.fault_span = 1;
    run(r, cfg_for(GMMU_SCHEME_STALL), k.get());
    EXPECT_GT(r.sm->st.faults, 0u);
    EXPECT_EQ(r.sm->st.replayed, 0u); // nothing squashed
    EXPECT_GT(r.end, 9000u);
}

// ---- block switching ------------------------------------------------------------

TEST(SmIssueTest, BlockSwitchingBringsAtMostFourExtraBlocksAndKeepsResults)
{
    const uint64_t seed = test_seed(0xB10Cull);
    std::printf("seed %llu\n", (unsigned long long)seed);
    auto k = kernel("sgemm-like", 64, 2);
    Snapshot ref = reference(k.get());
    for (auto s : {GMMU_SCHEME_REPLAY_QUEUE, GMMU_SCHEME_OPLOG, GMMU_SCHEME_WD_LASTCHECK}) {
        gmmu_sm_config c = cfg_for(s, 16384);
        c.block_switch = true;
        c.switch_threshold = 0;
        SmRun r;
        r.env.seed = seed;
        r.env.fault_pct = 60;
        r.env.fault_min = 20000;
        r.env.fault_span = 20000;
        r.env.queue_pos = 50; // always past the threshold
        run(r, c, k.get());
        std::string what = std::string(gmmu_fault_scheme_name(s)) + " seed " + std::to_string(seed);
        EXPECT_GT(r.sm->st.switch_outs, 0u) << what;
        EXPECT_GT(r.sm->st.restores, 0u) << what;
        EXPECT_EQ(r.sm->st.peak_extra_blocks, 4u) << what;
        EXPECT_LE(r.sm->st.peak_offchip, 4u + 16u) << what;
        EXPECT_GT(r.sm->st.ctx_cycles, 0u) << what;
        expect_same(ref, r.env, "block switching " + what);
    }
}

TEST(SmIssueTest, BlockSwitchingWaitsBelowThreshold)
{
    auto k = kernel("sgemm-like", 32, 2);
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_REPLAY_QUEUE);
    c.block_switch = true;
    c.switch_threshold = 100;
    SmRun r;
    r.env.fault_pct = 60;
    r.env.queue_pos = 100; // not above the threshold
    run(r, c, k.get());
    EXPECT_GT(r.sm->st.faults, 0u);
    EXPECT_EQ(r.sm->st.switch_outs, 0u);
}

TEST(SmIssueTest, ContextSaveIncludesTheOperandLogShare)
{
    // Same faults, same switches: the oplog scheme's contexts are larger by
    // the partition (16 KB / 16 blocks = 1 KB each way).
    auto k = kernel("sgemm-like", 48, 2);
    uint64_t ctx[2] = {0, 0}, sw[2] = {0, 0};
    int i = 0;
    for (uint32_t bytes : {8192u, 32768u}) {
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_OPLOG, bytes);
        c.block_switch = true;
        c.switch_threshold = 0;
        c.ctx_fixed_cycles = 0;
        c.ctx_bytes_per_cycle = 1;
        SmRun r;
        r.env.seed = 3;
        r.env.fault_pct = 50;
        r.env.queue_pos = 10;
        run(r, c, k.get());
        ctx[i] = r.sm->st.ctx_cycles;
        sw[i] = r.sm->st.switch_outs + r.sm->st.restores;
        i++;
    }
    ASSERT_GT(sw[0], 0u);
    ASSERT_GT(sw[1], 0u);
    // Per save or restore: registers (4 warps x 16 regs x 256 B) + 2 KB shared
    // + the partition (512 B or 2 KB) + replay-queue entries.
    double per0 = (double)ctx[0] / (double)sw[0], per1 = (double)ctx[1] / (double)sw[1];
    EXPECT_GE(per0, 16384 + 2048 + 512);
    EXPECT_GE(per1, 16384 + 2048 + 2048);
    EXPECT_GT(per1 - per0, 1400.0);
}

} // namespace

namespace {

// lbm-like's 19 distribution arrays are padded as Parboil pads its lattice:
// whole pages apart, but not a power-of-two number of them, so the same cell's
// pages spread over a TLB's sets instead of piling into one or two.
TEST(SmIssueTest, LbmLikeArraysArePaddedToANonPowerOfTwoPageStride)
{
    auto k = kernel("lbm-like");
    int64_t first = -1, second = -1;
    for (uint32_t i = 0; i < k->ninsns && second < 0; i++) {
        const gmmu_insn &in = k->code[i];
        if (in.op == GMMU_OP_ADDI && in.dst == 29 && first < 0)
            first = in.imm;
        else if (in.op == GMMU_OP_ADDI && in.dst == 30 && first >= 0)
            second = in.imm;
    }
    ASSERT_GE(first, 0);
    ASSERT_GT(second, first);
    const uint64_t stride = uint64_t(second - first);
    EXPECT_EQ(stride % 4096u, 0u);
    const uint64_t pages = stride / 4096u;
    EXPECT_NE(pages & (pages - 1), 0u) << pages << " pages";
    // 128 sets (the tanasic17 L2 TLB): the 19 arrays' same-index pages land
    // in 19 different sets.
    std::set<uint64_t> sets;
    for (uint64_t q = 0; q < 19; q++)
        sets.insert((q * pages) % 128u);
    EXPECT_EQ(sets.size(), 19u);
}

// ---- thread block compaction -----------------------------------------------------

// Two warps; lanes whose (lane ^ warp) is even load one line each, the rest
// exit: warp 0's even lanes and warp 1's odd lanes fill one dynamic warp.
// Thread t reads line t: warp 0's lines are on one page, warp 1's on the next.
std::unique_ptr<gmmu_kernel> checkerboard_kernel()
{
    auto k = std::make_unique<gmmu_kernel>();
    std::snprintf(k->name, sizeof k->name, "checker");
    k->nregs = 9;
    k->warps_per_block = 2;
    k->grid_blocks = 1;
    const gmmu_insn code[] = {
        {(uint8_t)GMMU_OP_XOR, 6, {2, 3, 0}, 0},             // 0: r6 = warp ^ lane
        {(uint8_t)GMMU_OP_ANDI, 6, {6, 0, 0}, 1},            // 1: r6 &= 1
        {(uint8_t)GMMU_OP_SHLI, 8, {0, 0, 0}, 7},            // 2: r8 = thread * 128
        {(uint8_t)GMMU_OP_BRNZ, 0, {6, 0, 0}, 5},            // 3: odd -> exit
        {(uint8_t)GMMU_OP_LD, 7, {8, 0, 0}, 0x100000000000ll}, // 4: r7 = [r8 + base]
    };
    k->ninsns = 5;
    for (int i = 0; i < 5; i++)
        k->code[i] = code[i];
    return k;
}

TEST(SmIssueTest, TbcCompactsThreadsOfTwoWarpsIntoOneDynamicWarp)
{
    auto k = checkerboard_kernel();
    SmRun base;
    run(base, cfg_for(GMMU_SCHEME_STALL), k.get());
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.compaction = GMMU_COMPACT_TBC;
    c.order = GMMU_ORDER_OLDEST;
    SmRun r;
    run(r, c, k.get());
    // per-warp stacks: 2 warps x 5 instructions; TBC: 2 x 4, then one load
    EXPECT_EQ(base.sm->st.issued, 10u);
    EXPECT_EQ(r.sm->st.issued, 9u);
    EXPECT_EQ(base.sm->st.active_lanes, r.sm->st.active_lanes); // same work, fewer issues
    EXPECT_EQ(r.sm->st.compactions, 1u);
    EXPECT_EQ(r.sm->st.dynamic_warps, 1u);
    EXPECT_EQ(r.sm->st.mixed_warps, 1u);
    EXPECT_EQ(r.sm->st.block_syncs, 2u); // the branch, then the exit
    // per warp slot: dynamic warp 0 issued the load too
    EXPECT_EQ(r.sm->st.issued_by_slot[0], 5u);
    EXPECT_EQ(r.sm->st.issued_by_slot[1], 4u);
    EXPECT_EQ(base.sm->st.issued_by_slot[0], 5u);
    EXPECT_EQ(base.sm->st.issued_by_slot[1], 5u);
    EXPECT_EQ(r.sm->st.held_by_slot[0] + r.sm->st.held_by_slot[1], r.sm->st.stall_sync);
    EXPECT_EQ(r.sm->st.divergent_branches, 1u);
    // the dynamic warp's load touches both warps' pages; each static warp's
    // share touches one
    EXPECT_EQ(r.sm->st.mem_insns, 1u);
    EXPECT_EQ(r.sm->st.mem_pages, 2u);
    EXPECT_EQ(r.sm->st.mem_static_warps, 2u);
    EXPECT_EQ(r.sm->st.mem_static_pages, 2u);
    EXPECT_EQ(base.sm->st.mem_pages, 2u);
    EXPECT_EQ(base.sm->st.mem_insns, 2u);
    expect_same(Snapshot{base.env.mem, base.env.regs}, r.env, "tbc");
    const auto &regs = r.env.regs.at(0);
    for (uint32_t w = 0; w < 2; w++)
        for (uint32_t l = 0; l < 32; l++) {
            const bool loads = ((w ^ l) & 1u) == 0;
            const uint64_t t = w * 32 + l;
            EXPECT_EQ(regs[(w * 9 + 7) * 32 + l],
                      loads ? gmmu_kernel_input_value(0x100000000000ull + t * 128u) : 0u)
                << "warp " << w << " lane " << l;
        }
}

TEST(SmIssueTest, TlbAwareTbcKeepsWarpsApartUntilTheirCountersSaturate)
{
    auto k = checkerboard_kernel();
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.compaction = GMMU_COMPACT_TLB_TBC;
    c.order = GMMU_ORDER_OLDEST;
    SmRun r;
    r.env.tlb_pages = 16;
    run(r, c, k.get());
    // a fresh matrix: warp 1's threads may not join warp 0's; they are
    // forced into the second dynamic warp
    EXPECT_EQ(r.sm->st.dynamic_warps, 2u);
    EXPECT_EQ(r.sm->st.mixed_warps, 0u);
    EXPECT_EQ(r.sm->st.issued, 10u);
    EXPECT_EQ(r.sm->st.mem_pages, 2u);
    EXPECT_EQ(r.sm->st.mem_insns, 2u); // one page each
    EXPECT_EQ(r.sm->st.mem_static_warps, 2u);
}

TEST(SmIssueTest, CompactionKeepsEveryKernelsResultsUnderEverySchemeAndSwitching)
{
    const uint64_t seed = test_seed(0x7BCull);
    std::printf("seed %llu\n", (unsigned long long)seed);
    for (auto [name, iters] : kDivergentKernels) {
        auto k = kernel(name, std::string(name) == "pathfinder-like" ? 16 : 6, iters);
        Snapshot ref = interpret(k.get());
        for (auto comp : {GMMU_COMPACT_TBC, GMMU_COMPACT_TLB_TBC})
            for (auto s : kSchemes)
                for (bool sw : {false, true}) {
                    if (sw && s == GMMU_SCHEME_STALL)
                        continue;
                    SmRun r;
                    r.env.seed = seed;
                    r.env.fault_pct = 40;
                    r.env.queue_pos = 1;
                    r.env.tlb_pages = 16;
                    gmmu_sm_config c = cfg_for(s, 32768);
                    c.compaction = comp;
                    c.order = GMMU_ORDER_OLDEST;
                    c.block_switch = sw;
                    c.switch_threshold = 0;
                    run(r, c, k.get());
                    std::string what = std::string(name) + "/" +
                                       (comp == GMMU_COMPACT_TBC ? "tbc/" : "tlb-tbc/") +
                                       gmmu_fault_scheme_name(s) + (sw ? "+switch" : "") +
                                       " seed " + std::to_string(seed);
                    EXPECT_GT(r.sm->st.faults, 0u) << what;
                    EXPECT_GT(r.sm->st.compactions, 0u) << what;
                    if (sw) {
                        EXPECT_GT(r.sm->st.switch_outs, 0u) << what;
                    }
                    expect_same(ref, r.env, what);
                }
    }
}

TEST(SmIssueTest, CompactionRefusesThrottlesAndBadMatrices)
{
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    c.compaction = GMMU_COMPACT_TBC;
    c.throttle = GMMU_THROTTLE_CCWS;
    gmmu_ccws_config_default(&c.ccws, 1);
    gmmu_error err{};
    EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "compaction");
    c = cfg_for(GMMU_SCHEME_STALL);
    c.compaction = GMMU_COMPACT_TLB_TBC;
    c.cpm.counter_bits = 9;
    EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "counter_bits");
    c.cpm.counter_bits = 3;
    EXPECT_EQ(gmmu_sm_config_check(&c, &err), GMMU_OK);
    // a block of more warps than the block-wide masks hold
    auto k = kernel("tiny", 1, 1);
    k->warps_per_block = 33;
    c.max_warps = 64;
    c.regfile_bytes = 64u << 20;
    SmRun r;
    gmmu_sm_env e = r.env.env();
    ASSERT_EQ(gmmu_sm_create(&c, &e, &r.sm, &err), GMMU_OK);
    EXPECT_NE(gmmu_sm_launch(r.sm, k.get(), 0, &err), GMMU_OK);
    EXPECT_STREQ(err.field, "compaction");
}

// ---- shared memory and barriers ------------------------------------------------

std::unique_ptr<gmmu_kernel> parse_kernel(const std::string &text)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_parse(k.get(), text.data(), text.size(), &err), GMMU_OK) << err.msg;
    return k;
}

std::unique_ptr<gmmu_kernel> shared_bar_kernel()
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/tests/kernels/shared_bar.gk");
    std::stringstream b;
    b << in.rdbuf();
    return parse_kernel(b.str());
}

// A producer/consumer through shared memory across warps, a barrier per
// phase inside a uniform loop: under four fault schemes (block switching
// once) and two warp schedulers, with faults on 40% of the pages, the SM
// ends with the reference interpreter's memory and registers. A BAR that
// did not wait lets a warp read its neighbour's word before it is written.
TEST(SmIssueTest, SharedMemoryAndBarriersMatchTheInterpreterUnderSchemesAndSchedulers)
{
    auto k = shared_bar_kernel();
    ASSERT_EQ(k->shared_bytes, 1024u);
    k->grid_blocks = 24; // more than the 16 resident: blocks can switch in
    Snapshot ref = interpret(k.get());
    const uint64_t seed = test_seed(0x5BA5ull);
    const gmmu_fault_scheme schemes[] = {GMMU_SCHEME_STALL, GMMU_SCHEME_WD_COMMIT,
                                         GMMU_SCHEME_REPLAY_QUEUE, GMMU_SCHEME_OPLOG};
    for (auto sc : schemes)
        for (auto order : {GMMU_ORDER_LRR, GMMU_ORDER_GTO})
            for (bool sw : {false, true}) {
                if (sw && (sc == GMMU_SCHEME_STALL || order == GMMU_ORDER_GTO))
                    continue;
                SmRun r;
                r.env.seed = seed;
                r.env.fault_pct = 40;
                r.env.queue_pos = 1;
                gmmu_sm_config c = cfg_for(sc, 32768);
                c.order = order;
                c.block_switch = sw;
                c.switch_threshold = 0;
                run(r, c, k.get());
                const std::string what = std::string(gmmu_fault_scheme_name(sc)) +
                                         (order == GMMU_ORDER_GTO ? "/gto" : "/lrr") +
                                         (sw ? "+switch" : "") + " seed " + std::to_string(seed);
                EXPECT_GT(r.sm->st.faults, 0u) << what;
                // Per block 7 barriers (1, then 2 per round x 3 rounds) and
                // per warp 11 shared accesses (sts, lds, 3 per round).
                EXPECT_EQ(r.sm->st.barriers, 24u * 7u) << what;
                EXPECT_EQ(r.sm->st.shared_accesses, 24u * 4u * (1u + 1u + 3u * 3u)) << what;
                EXPECT_GT(r.sm->st.stall_bar, 0u) << what;
                if (sw) {
                    EXPECT_GT(r.sm->st.switch_outs, 0u) << what;
                }
                expect_same(ref, r.env, what);
            }
}

// Shared memory is never translated: a kernel of shared accesses and
// barriers alone sends no request to the TLB (env.translate), and its
// results are the interpreter's.
TEST(SmIssueTest, SharedMemoryIsNeverTranslated)
{
    auto k = parse_kernel("kernel sh\nwarps_per_block 2\ngrid 4\nshared 512\ncode\n"
                          " shli r4, r2, 5\n add r4, r4, r3\n shli r5, r4, 3\n"
                          " sts r5, r0, 0\n bar\n xor r6, r5, r5\n addi r6, r6, 8\n"
                          " add r6, r6, r5\n andi r6, r6, 511\n lds r7, r6, 0\n");
    Snapshot ref = interpret(k.get());
    SmRun r;
    r.env.fault_pct = 100;
    run(r, cfg_for(GMMU_SCHEME_REPLAY_QUEUE), k.get());
    EXPECT_EQ(r.sm->st.requests, 0u);
    EXPECT_EQ(r.sm->st.faults, 0u);
    EXPECT_EQ(r.sm->st.shared_accesses, 4u * 2u * 2u);
    EXPECT_EQ(r.env.mem.size(), 0u);
    expect_same(ref, r.env, "shared only");
    // Lane l of warp 0 read thread l+1's r0; the last thread wraps to 0.
    const auto &regs = r.env.regs.at(1); // block 1: r0 = 64 + thread
    EXPECT_EQ(regs[(0 * 16 + 7) * 32 + 5], 64u + 6u);
    EXPECT_EQ(regs[(1 * 16 + 7) * 32 + 31], 64u + 0u);
}

// A warp that exits does not hold its block's barrier: warp 0 leaves at
// once, the others meet at the barrier and finish.
TEST(SmIssueTest, ExitedWarpsDoNotHoldTheBarrier)
{
    auto k = parse_kernel("kernel ex\nwarps_per_block 3\ngrid 2\nshared 1024\ncode\n"
                          " movi r4, 1\n sltu r4, r2, r4\n brnz r4, 12\n"
                          " shli r5, r2, 5\n add r5, r5, r3\n shli r5, r5, 3\n sts r5, r0, 0\n"
                          " bar\n xor r6, r5, r5\n addi r6, r6, 768\n xor r6, r6, r5\n lds r7, r6, 0\n");
    Snapshot ref = interpret(k.get());
    SmRun r;
    run(r, cfg_for(GMMU_SCHEME_STALL), k.get());
    EXPECT_EQ(r.sm->st.barriers, 2u);
    expect_same(ref, r.env, "exit");
}

// A BAR in divergent code (docs/simt.md, "Barriers") is an error for the
// interpreter (naming the instruction) and stops the SM (GMMU_EINVAL).
TEST(SmIssueTest, BarInDivergentCodeIsAnError)
{
    auto k = parse_kernel("kernel dv\nshared 256\ncode\n andi r4, r3, 1\n brnz r4, 3\n bar\n"
                          " addi r5, r5, 1\n");
    std::vector<uint64_t> regs(16 * 32);
    InterpMem mem;
    gmmu_kernel_ref_stop why{};
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), interp_word, &mem, 100, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_BAR_DIVERGENT);
    EXPECT_EQ(why.pc, 2u);
    EXPECT_NE(std::string(err.msg).find("instruction 2: bar in divergent code"), std::string::npos)
        << err.msg;
    SmRun r;
    r.env.grid = 1;
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    gmmu_sm_env e = r.env.env();
    ASSERT_EQ(gmmu_sm_create(&c, &e, &r.sm, &err), GMMU_OK);
    ASSERT_EQ(gmmu_sm_launch(r.sm, k.get(), 0, &err), GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_sm_run(r.sm, 1ull << 20, &r.end), GMMU_EINVAL);
    // Every lane reaches the BAR once, at the same instruction, but even lanes
    // in the loop's first trip and odd lanes in its second: the per-thread
    // phases agree, the warp does not. The interpreter replays the lanes'
    // branches through the SIMT stack and refuses it as the SM does.
    auto loop = parse_kernel("kernel lp\nshared 64\ncode\n movi r6, 0\nl: andi r4, r3, 1\n"
                             " xor r4, r4, r6\n brnz r4, s\n bar\ns: addi r6, r6, 1\n movi r7, 2\n"
                             " sltu r8, r6, r7\n brnz r8, l\n");
    EXPECT_EQ(gmmu_kernel_ref_block(loop.get(), 0, regs.data(), interp_word, &mem, 100, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_BAR_DIVERGENT);
    EXPECT_EQ(why.pc, 4u);
    EXPECT_NE(std::string(err.msg).find("only some lanes active"), std::string::npos) << err.msg;
    SmRun r3;
    r3.env.grid = 1;
    e = r3.env.env();
    ASSERT_EQ(gmmu_sm_create(&c, &e, &r3.sm, &err), GMMU_OK);
    ASSERT_EQ(gmmu_sm_launch(r3.sm, loop.get(), 0, &err), GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_sm_run(r3.sm, 1ull << 20, &r3.end), GMMU_EINVAL);
    // Reconverged first (the if ends before the bar): fine for both.
    auto ok = parse_kernel("kernel cv\nshared 256\ncode\n andi r4, r3, 1\n brnz r4, 3\n"
                           " addi r5, r5, 1\n bar\n addi r5, r5, 1\n");
    Snapshot ref = interpret(ok.get());
    SmRun r2;
    run(r2, cfg_for(GMMU_SCHEME_STALL), ok.get());
    EXPECT_EQ(r2.sm->st.barriers, 1u);
    expect_same(ref, r2.env, "reconverged");
}

// Shared memory under thread block compaction: a dynamic warp's lanes
// address their own threads' words (registers through the home map).
TEST(SmIssueTest, SharedMemoryUnderCompactionKeepsTheResults)
{
    auto k = parse_kernel("kernel tb\nwarps_per_block 2\ngrid 4\nshared 512\ncode\n"
                          " shli r4, r2, 5\n add r4, r4, r3\n shli r5, r4, 3\n andi r6, r3, 1\n"
                          " brnz r6, odd\n sts r5, r0, 0\n jmp join\nodd: addi r7, r0, 100\n"
                          " sts r5, r7, 0\njoin: lds r8, r5, 0\n");
    Snapshot ref = interpret(k.get());
    for (const char *ws : {"tbc", "tlb-tbc"}) {
        SmRun r;
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        ASSERT_EQ(gmmu_warp_scheduler_parse(ws, &c), GMMU_OK);
        run(r, c, k.get());
        EXPECT_GT(r.sm->st.compactions, 0u) << ws;
        EXPECT_EQ(r.sm->st.requests, 0u) << ws;
        expect_same(ref, r.env, ws);
    }
}

// Barriers under thread block compaction (docs/simt.md, "Barriers under
// compaction"): the block's dynamic warps meet at the BAR, which releases
// once every one of them has issued it. shared_bar.gk (a barrier per phase
// in a uniform loop) and a kernel whose if/else regroups the block before
// its barrier end with the interpreter's results under four fault schemes,
// with faults on 40% of the pages, and both compaction schedulers. A BAR
// that did not wait lets a dynamic warp read a word its neighbour has not
// written yet.
TEST(SmIssueTest, BarriersUnderCompactionMatchTheInterpreter)
{
    auto k = shared_bar_kernel();
    k->grid_blocks = 24;
    // Lanes swap their words through shared memory across an if/else that
    // splits every warp: the block regroups, reconverges, then meets.
    auto split = parse_kernel("kernel sp\nwarps_per_block 4\ngrid 8\nshared 1024\ncode\n"
                              " shli r4, r2, 5\n add r4, r4, r3\n shli r5, r4, 3\n andi r6, r3, 1\n"
                              " brnz r6, odd\n addi r7, r0, 7\n jmp join\nodd: shli r7, r0, 1\n"
                              "join: sts r5, r7, 0\n bar\n movi r11, 1016\n xor r8, r5, r11\n lds r9, r8, 0\n"
                              " add r9, r9, r7\n bar\n sts r5, r9, 0\n bar\n movi r11, 8\n xor r8, r5, r11\n"
                              " lds r10, r8, 0\n");
    const gmmu_fault_scheme schemes[] = {GMMU_SCHEME_STALL, GMMU_SCHEME_WD_COMMIT,
                                         GMMU_SCHEME_REPLAY_QUEUE, GMMU_SCHEME_OPLOG};
    const uint64_t seed = test_seed(0x7BC5ull);
    for (gmmu_kernel *kk : {k.get(), split.get()}) {
        Snapshot ref = interpret(kk);
        const uint64_t per_block = kk == k.get() ? 7u : 3u;
        for (const char *ws : {"tbc", "tlb-tbc"})
            for (auto sc : schemes) {
                SmRun r;
                r.env.seed = seed;
                r.env.fault_pct = 40;
                r.env.queue_pos = 1;
                gmmu_sm_config c = cfg_for(sc, 32768);
                ASSERT_EQ(gmmu_warp_scheduler_parse(ws, &c), GMMU_OK);
                run(r, c, kk);
                const std::string what = std::string(kk->name) + " " + ws + "/" +
                                         gmmu_fault_scheme_name(sc) + " seed " + std::to_string(seed);
                // The uniform loop synchronises the block at its back edge
                // without regrouping; the if/else regroups it.
                EXPECT_GT(r.sm->st.block_syncs, 0u) << what;
                if (kk == split.get()) {
                    EXPECT_GT(r.sm->st.compactions, 0u) << what;
                }
                EXPECT_EQ(r.sm->st.barriers, uint64_t(kk->grid_blocks) * per_block) << what;
                EXPECT_GT(r.sm->st.stall_bar, 0u) << what;
                expect_same(ref, r.env, what);
            }
    }
}

// Warp 0 meets a BAR that warp 1 branches over. Without compaction that is
// a barrier of one warp (the other exits and no longer holds it), and the
// results are the interpreter's. Under compaction the branch splits the
// block: warp 0's threads reach the BAR on the top entry while warp 1's
// wait on another, so the barrier could never release (pre-Volta hardware
// hangs there): the SM stops with GMMU_EINVAL and says why.
TEST(SmIssueTest, BarInBlockDivergentCodeStopsCompaction)
{
    auto k = parse_kernel("kernel bd\nwarps_per_block 2\ngrid 2\nshared 512\ncode\n"
                          " brnz r2, skip\n shli r5, r3, 3\n sts r5, r0, 0\n bar\n movi r9, 8\n xor r6, r5, r9\n"
                          " lds r7, r6, 0\nskip: addi r8, r0, 1\n");
    Snapshot ref = interpret(k.get());
    SmRun plain;
    run(plain, cfg_for(GMMU_SCHEME_STALL), k.get());
    EXPECT_EQ(plain.sm->st.barriers, 2u);
    expect_same(ref, plain.env, "lrr");
    EXPECT_STREQ(gmmu_sm_failure(plain.sm), "");
    SmRun r;
    r.env.grid = k->grid_blocks;
    gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
    ASSERT_EQ(gmmu_warp_scheduler_parse("tbc", &c), GMMU_OK);
    gmmu_error err{};
    gmmu_sm_env e = r.env.env();
    ASSERT_EQ(gmmu_sm_create(&c, &e, &r.sm, &err), GMMU_OK) << err.msg;
    ASSERT_EQ(gmmu_sm_launch(r.sm, k.get(), 0, &err), GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_sm_run(r.sm, 1ull << 20, &r.end), GMMU_EINVAL);
    EXPECT_NE(std::string(gmmu_sm_failure(r.sm)).find("instruction 3: bar in divergent code (under "
                                                      "compaction"),
              std::string::npos)
        << gmmu_sm_failure(r.sm);
}

// A reconvergence stack deeper than it holds stops the SM with
// GMMU_ENOMEM, and gmmu_sm_failure names the block and the branch: 70
// nested branches, each splitting one thread off onto a path of its own
// (two entries a level: warp 0's 31 splits pass a warp's 32 entries, the
// block's 70 the block-wide stack's 128 under compaction).
TEST(SmIssueTest, AStackTooDeepStopsTheSmAndSaysWhere)
{
    std::string text = "kernel deep\nregs 24\nwarps_per_block 4\ncode\n movi r20, 1\n shli r4, r2, 5\n add r4, r4, r3\n";
    const int levels = 70;
    for (int k = 0; k < levels; k++)
        text += " movi r5, " + std::to_string(k) + "\n xor r6, r4, r5\n sltu r6, r6, r20\n brnz r6, t" +
                std::to_string(k) + "\n";
    text += " addi r7, r0, 1\n";
    for (int k = levels - 1; k >= 0; k--)
        text += "j" + std::to_string(k) + ": addi r7, r7, 1\n";
    text += " jmp end\n";
    for (int k = 0; k < levels; k++) // a taken path of its own: an entry on the stack
        text += "t" + std::to_string(k) + ": addi r7, r7, 3\n jmp j" + std::to_string(k) + "\n";
    text += "end:\n";
    auto k = parse_kernel(text);
    for (const char *ws : {"lrr", "tbc"}) {
        SmRun r;
        r.env.grid = 1;
        gmmu_sm_config c = cfg_for(GMMU_SCHEME_STALL);
        ASSERT_EQ(gmmu_warp_scheduler_parse(ws, &c), GMMU_OK);
        gmmu_error err{};
        gmmu_sm_env e = r.env.env();
        ASSERT_EQ(gmmu_sm_create(&c, &e, &r.sm, &err), GMMU_OK) << err.msg;
        ASSERT_EQ(gmmu_sm_launch(r.sm, k.get(), 0, &err), GMMU_OK) << err.msg;
        EXPECT_EQ(gmmu_sm_run(r.sm, 1ull << 22, &r.end), GMMU_ENOMEM) << ws;
        const std::string why = gmmu_sm_failure(r.sm);
        EXPECT_NE(why.find(std::string(ws) == "lrr" ? "the warp's reconvergence stack would be deeper than 32"
                                                    : "block-wide reconvergence stack of compaction would be "
                                                      "deeper than 128"),
                  std::string::npos)
            << ws << ": " << why;
    }
}

} // namespace
