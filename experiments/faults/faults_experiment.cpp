// Preemptible GPU faults (tanasic-micro17): a standalone 16-SM machine built
// from the C golden models (gmmu_sm per SM, gmmu_fault_handler for fault
// resolution) plus a simple memory system in this file: per-SM L1 TLB and L1
// cache, shared L2 TLB, 64 walkers with a fixed 500-cycle walk, shared L2
// cache, DRAM with latency and bandwidth. Everything is table 1 of the paper
// (gmmu_machine_config_tanasic17).
//
//   faults_experiment perf   [--kernels a,b] [--grid-scale N]
//       fault-free cycles of every scheme (stall, wd-commit, wd-lastcheck,
//       replay-queue, oplog 8/16/20/32 KB) per kernel, CSV on stdout.
//   faults_experiment faults [--kernels a,b]
//       demand paging (inputs CPU-resident, outputs first-touch) on NVLink
//       and PCIe: replay-queue SM with the CPU path, with block switching,
//       with ideal (1-cycle) switching, and with GPU-local first-touch
//       handling. CSV on stdout.
//
// Every run checks its data: the hash of final memory and registers must
// equal the fault-free run's; a mismatch is an error (exit 1).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/fault_handler.h"
#include "gmmu/sm_issue.h"
}

namespace {

// An L1 miss holds its MSHR (booked in 16-cycle windows) for the L1 + L2
// latency (110 cycles) on an L2 hit, plus the DRAM latency (310) on a miss.
constexpr uint32_t kMshrWindowsL2 = 7;
constexpr uint32_t kMshrWindowsDram = 20;

struct MemStats {
    uint64_t l1tlb_hits = 0, l1tlb_misses = 0, l2tlb_misses = 0, l1_hits = 0, l2_hits = 0, l2_misses = 0;
};

// Set-associative LRU array whose lines carry the cycle they become valid
// (a fill in flight merges later misses to the same line, like an MSHR).
struct Assoc {
    uint32_t sets = 1, ways = 1;
    std::vector<uint64_t> tag, ready, stamp;
    uint64_t clk = 0;
    void init(uint32_t entries, uint32_t w)
    {
        ways = w;
        sets = entries / w;
        tag.assign((size_t)sets * ways, 0);
        ready.assign(tag.size(), 0);
        stamp.assign(tag.size(), 0);
    }
    // Hit: *rdy = valid time. Miss: fill with ready = fill_ready.
    bool access(uint64_t key, uint64_t fill_ready, uint64_t *rdy)
    {
        uint64_t h = key * 0x9E3779B97F4A7C15ull;
        uint32_t set = (uint32_t)((h >> 32) % sets);
        size_t b = (size_t)set * ways, victim = b;
        clk++;
        for (size_t i = b; i < b + ways; i++) {
            if (tag[i] == key + 1) {
                stamp[i] = clk;
                *rdy = ready[i];
                return true;
            }
            if (stamp[i] < stamp[victim])
                victim = i;
        }
        tag[victim] = key + 1;
        ready[victim] = fill_ready;
        stamp[victim] = clk;
        return false;
    }
};

// Occupancy calendar: windows of 2^shift cycles, each with a capacity; a
// booking at time t takes the first window at or after t with room left, so
// a booking far in the future never delays an earlier one (requests reach the
// memory system slightly out of time order). Ring of windows; bookings more
// than the ring ahead saturate at its end.
struct Calendar {
    unsigned shift = 6;
    uint32_t cap = 1;
    std::vector<uint32_t> used;
    std::vector<uint64_t> win; // window number held by each ring slot
    void init(unsigned s, uint32_t c, size_t ring)
    {
        shift = s;
        cap = c;
        used.assign(ring, 0);
        win.assign(ring, UINT64_MAX);
    }
    uint32_t &slot(uint64_t w)
    {
        size_t i = (size_t)(w % used.size());
        if (win[i] != w) {
            win[i] = w;
            used[i] = 0;
        }
        return used[i];
    }
    // Book `n` consecutive windows starting at or after t; returns the start cycle.
    uint64_t book(uint64_t t, uint32_t n = 1)
    {
        uint64_t w = t >> shift;
        for (uint64_t tries = 0; tries < used.size(); tries++, w++) {
            bool room = true;
            for (uint32_t j = 0; j < n && room; j++)
                room = slot(w + j) < cap;
            if (room) {
                for (uint32_t j = 0; j < n; j++)
                    slot(w + j)++;
                return std::max(t, w << shift);
            }
        }
        return w << shift;
    }
};

struct Region {
    uint64_t base = 0, bytes = 0;
    gmmu_region_kind kind = GMMU_REGION_INPUT;
    std::vector<uint64_t> words;
    std::vector<uint64_t> present; // per 64 KiB: cycle it is present (0 = resident)
};

struct RunCfg {
    gmmu_sm_config sm;
    bool demand = false; // data starts CPU-resident / untouched
    gmmu_fault_handler_config fh;
};

struct RunOut {
    uint64_t cycles = 0;
    uint64_t hash = 0;
    gmmu_sm_stats sum{};
    gmmu_fault_handler_stats fst{};
    MemStats mem{};
};

struct Machine;

struct SmCtx {
    Machine *m;
    uint32_t id;
};

struct Machine {
    gmmu_machine_config mc;
    const gmmu_kernel *k;
    RunCfg rc;
    std::vector<Region> reg;
    std::vector<Assoc> l1tlb, l1;
    std::vector<Calendar> mshr; // per SM: L1 misses outstanding per 16-cycle window
    Calendar dram_cal;          // lines per 64-cycle window (256 B/clk)
    MemStats st;
    Assoc l2tlb, l2;
    std::vector<uint64_t> walker_free;
    uint32_t next_block = 0;
    uint64_t reg_hash = 0;
    gmmu_fault_handler fh{};
    std::vector<SmCtx> ctx;

    Region *region_of(uint64_t va)
    {
        for (auto &r : reg)
            if (va >= r.base && va - r.base < r.bytes)
                return &r;
        return nullptr;
    }

    uint64_t dram(uint64_t now) { return dram_cal.book(now) - now + mc.dram_latency; }

    gmmu_status translate(uint32_t sm, const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs)
    {
        const uint64_t now = rq->now, vpn = rq->va >> 12;
        Region *r = region_of(rq->va);
        if (!r)
            return GMMU_EFAULT; // a kernel bug: outside every region
        // Demand paging: a page not present faults after the walk finds it missing.
        uint64_t &present = r->present[(rq->va - r->base) >> 16];
        if (present > now) {
            gmmu_fault_ticket t;
            gmmu_fault_kind kind = r->kind == GMMU_REGION_INPUT ? GMMU_FAULT_MIGRATE
                                                                : GMMU_FAULT_FIRST_TOUCH;
            gmmu_status st = gmmu_fault_handler_raise(&fh, now, rq->va, kind, &t);
            if (st != GMMU_OK)
                return st;
            present = t.ready;
            rs->fault = true;
            rs->fault_ready = t.ready;
            rs->fault_queue_pos = t.queue_pos;
            rs->tlb_cycles = mc.l1_tlb_latency + mc.l2_tlb_latency + mc.walk_latency;
            return GMMU_OK;
        }
        uint64_t rdy, t = now + mc.l1_tlb_latency;
        if (!l1tlb[sm].access(vpn, 0, &rdy)) {
            st.l1tlb_misses++;
            t += mc.l2_tlb_latency;
            uint64_t done;
            if (!l2tlb.access(vpn, 0, &done)) {
                st.l2tlb_misses++;
                auto w = std::min_element(walker_free.begin(), walker_free.end());
                uint64_t start = std::max(*w, t);
                done = start + mc.walk_latency;
                *w = done;
                l2tlb.access(vpn, done, &rdy); // re-touch: set the fill's ready time
                uint64_t h = vpn * 0x9E3779B97F4A7C15ull;
                size_t b = (size_t)((h >> 32) % l2tlb.sets) * l2tlb.ways;
                for (size_t i = b; i < b + l2tlb.ways; i++)
                    if (l2tlb.tag[i] == vpn + 1)
                        l2tlb.ready[i] = done;
            }
            t = std::max(t, done);
            size_t b = (size_t)(((vpn * 0x9E3779B97F4A7C15ull) >> 32) % l1tlb[sm].sets) * l1tlb[sm].ways;
            for (size_t i = b; i < b + l1tlb[sm].ways; i++)
                if (l1tlb[sm].tag[i] == vpn + 1)
                    l1tlb[sm].ready[i] = t;
        } else {
            st.l1tlb_hits++;
            t = std::max(t, rdy);
        }
        rs->tlb_cycles = (uint32_t)(t - now);
        // Data: virtual L1 (loads allocate), L2, DRAM. Stores are accepted at
        // the L1 (write-through); reductions execute at the L2.
        const uint64_t line = rq->va >> 7, tc = t;
        uint64_t d;
        gmmu_op op = (gmmu_op)k->code[rq->pc].op;
        if (op == GMMU_OP_LD && l1[sm].access(line, 0, &rdy)) {
            st.l1_hits++;
            d = std::max<uint64_t>(mc.l1_latency, rdy > tc ? rdy - tc : 0);
        } else if (op == GMMU_OP_ST) {
            d = mc.l1_latency;
            l2.access(line, tc + mc.l1_latency + mc.l2_latency, &rdy);
        } else {
            uint64_t issue = tc;
            bool l2hit = l2.access(line, 0, &rdy);
            if (op == GMMU_OP_LD) // an L1 miss holds one of the SM's MSHRs until the fill
                issue = mshr[sm].book(tc, l2hit ? kMshrWindowsL2 : kMshrWindowsDram);
            uint64_t at_l2 = issue + mc.l1_latency + mc.l2_latency;
            if (l2hit) {
                st.l2_hits++;
                d = std::max(at_l2, rdy) - tc;
            } else {
                st.l2_misses++;
                d = at_l2 - tc + dram(at_l2);
                size_t b = (size_t)(((line * 0x9E3779B97F4A7C15ull) >> 32) % l2.sets) * l2.ways;
                for (size_t i = b; i < b + l2.ways; i++)
                    if (l2.tag[i] == line + 1)
                        l2.ready[i] = tc + d;
            }
            if (op == GMMU_OP_LD) {
                size_t b = (size_t)(((line * 0x9E3779B97F4A7C15ull) >> 32) % l1[sm].sets) * l1[sm].ways;
                for (size_t i = b; i < b + l1[sm].ways; i++)
                    if (l1[sm].tag[i] == line + 1)
                        l1[sm].ready[i] = tc + d;
            }
        }
        rs->data_cycles = (uint32_t)d;
        return GMMU_OK;
    }

    uint64_t *word(uint64_t va)
    {
        Region *r = region_of(va);
        return r ? &r->words[(va - r->base) >> 3] : nullptr;
    }

    static gmmu_status c_translate(void *c, const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs)
    {
        auto *x = static_cast<SmCtx *>(c);
        return x->m->translate(x->id, rq, rs);
    }
    static gmmu_status c_read(void *c, uint64_t va, uint64_t *v)
    {
        uint64_t *w = static_cast<SmCtx *>(c)->m->word(va);
        if (!w)
            return GMMU_EMEM;
        *v = *w;
        return GMMU_OK;
    }
    static gmmu_status c_write(void *c, uint64_t va, uint64_t v)
    {
        uint64_t *w = static_cast<SmCtx *>(c)->m->word(va);
        if (!w)
            return GMMU_EMEM;
        *w = v;
        return GMMU_OK;
    }
    // The global block scheduler: at launch, block b goes to SM b mod num_sms
    // (round robin, as GPUs distribute the first wave); afterwards an SM that
    // frees a slot takes the next pending block.
    uint32_t launch_waves = 0;
    std::vector<uint32_t> launch_count;
    static gmmu_status c_next(void *c, uint32_t sm, bool *got, uint32_t *id)
    {
        Machine *m = static_cast<SmCtx *>(c)->m;
        if (m->launch_count[sm] < m->launch_waves) {
            uint32_t b = m->launch_count[sm]++ * m->mc.num_sms + sm;
            *got = b < m->k->grid_blocks;
            if (*got)
                *id = b;
            return GMMU_OK;
        }
        *got = m->next_block < m->k->grid_blocks;
        if (*got)
            *id = m->next_block++;
        return GMMU_OK;
    }
    static gmmu_status c_done(void *c, uint32_t, uint32_t id, const uint64_t *r, uint32_t nw,
                              uint32_t nr)
    {
        Machine *m = static_cast<SmCtx *>(c)->m;
        uint64_t h = 0xcbf29ce484222325ull ^ id;
        for (size_t i = 0; i < (size_t)nw * nr * 32; i++)
            h = (h ^ r[i]) * 0x100000001b3ull;
        m->reg_hash += h * (2 * (uint64_t)id + 1); // order-independent
        return GMMU_OK;
    }
};

bool run(const gmmu_kernel *k, const RunCfg &rc, RunOut *out)
{
    auto m = std::make_unique<Machine>();
    gmmu_machine_config_tanasic17(&m->mc);
    m->mc.sm = rc.sm;
    m->k = k;
    m->rc = rc;
    gmmu_error err{};
    if (gmmu_machine_config_check(&m->mc, &err) != GMMU_OK) {
        std::fprintf(stderr, "config: %s: %s\n", err.field, err.msg);
        return false;
    }
    for (uint32_t i = 0; i < k->nregions; i++) {
        Region r;
        r.base = k->region[i].base;
        r.bytes = k->region[i].bytes;
        r.kind = k->region[i].kind;
        r.words.resize(r.bytes / 8);
        for (size_t w = 0; w < r.words.size(); w++)
            r.words[w] = gmmu_kernel_input_value(r.base + 8 * w);
        r.present.assign((r.bytes + 0xFFFF) >> 16, rc.demand ? UINT64_MAX : 0);
        m->reg.push_back(std::move(r));
    }
    const gmmu_machine_config &mc = m->mc;
    m->l1tlb.resize(mc.num_sms);
    m->l1.resize(mc.num_sms);
    m->mshr.resize(mc.num_sms);
    for (auto &c : m->mshr)
        c.init(4, mc.l1_mshrs, 1u << 14);
    m->dram_cal.init(6, 64u * mc.dram_bytes_per_cycle / mc.line_bytes, 1u << 14);
    for (uint32_t s = 0; s < mc.num_sms; s++) {
        m->l1tlb[s].init(mc.l1_tlb_entries, mc.l1_tlb_ways);
        m->l1[s].init(mc.l1_bytes / mc.line_bytes, mc.l1_ways);
    }
    m->l2tlb.init(mc.l2_tlb_entries, mc.l2_tlb_ways);
    m->l2.init(mc.l2_bytes / mc.line_bytes, mc.l2_ways);
    m->walker_free.assign(mc.walkers, 0);
    if (gmmu_fault_handler_init(&m->fh, &rc.fh, &err) != GMMU_OK) {
        std::fprintf(stderr, "fault handler: %s: %s\n", err.field, err.msg);
        return false;
    }
    m->launch_waves = gmmu_sm_occupancy(&rc.sm, k);
    m->launch_count.assign(mc.num_sms, 0);
    m->next_block = std::min(k->grid_blocks, m->launch_waves * mc.num_sms);
    std::vector<gmmu_sm> sms(mc.num_sms);
    m->ctx.resize(mc.num_sms);
    bool ok = true;
    for (uint32_t s = 0; s < mc.num_sms && ok; s++) {
        m->ctx[s] = SmCtx{m.get(), s};
        gmmu_sm_env env{&Machine::c_translate, &Machine::c_read, &Machine::c_write, &Machine::c_next,
                        &Machine::c_done, nullptr, &m->ctx[s]};
        gmmu_sm_config c = rc.sm;
        c.sm_id = s;
        std::memset(&sms[s], 0, sizeof sms[s]);
        ok = gmmu_sm_init(&sms[s], &c, &env, &err) == GMMU_OK &&
             gmmu_sm_launch(&sms[s], k, 0, &err) == GMMU_OK;
        if (!ok)
            std::fprintf(stderr, "sm %u: %s: %s\n", s, err.field, err.msg);
    }
    // Global time: step every SM due at the earliest next cycle.
    while (ok) {
        uint64_t t = UINT64_MAX;
        for (auto &sm : sms)
            t = std::min(t, gmmu_sm_next_cycle(&sm));
        if (t == UINT64_MAX)
            break;
        for (auto &sm : sms)
            if (gmmu_sm_next_cycle(&sm) == t) {
                gmmu_status st = gmmu_sm_step(&sm, t);
                if (st != GMMU_OK) {
                    std::fprintf(stderr, "sm step at %" PRIu64 ": %s\n", t, gmmu_status_str(st));
                    ok = false;
                    break;
                }
            }
    }
    *out = RunOut{};
    for (auto &sm : sms) {
        const gmmu_sm_stats &s = sm.st;
        out->cycles = std::max(out->cycles, s.end_cycle);
        gmmu_sm_stats &a = out->sum;
        a.issued += s.issued;
        a.replayed += s.replayed;
        a.faults += s.faults;
        a.stall_wd += s.stall_wd;
        a.stall_war += s.stall_war;
        a.stall_oplog_full += s.stall_oplog_full;
        a.switch_outs += s.switch_outs;
        a.restores += s.restores;
        a.ctx_cycles += s.ctx_cycles;
        a.extra_blocks += s.extra_blocks;
        a.peak_extra_blocks = std::max(a.peak_extra_blocks, s.peak_extra_blocks);
        a.resident_blocks = s.resident_blocks;
        a.oplog_partition_bytes = s.oplog_partition_bytes;
        a.blocks_done += s.blocks_done;
        gmmu_sm_destroy(&sm);
    }
    out->fst = m->fh.st;
    out->mem = m->st;
    gmmu_fault_handler_destroy(&m->fh);
    if (ok && out->sum.blocks_done != k->grid_blocks) {
        std::fprintf(stderr, "%s: %" PRIu64 " of %u blocks finished\n", k->name, out->sum.blocks_done,
                     k->grid_blocks);
        ok = false;
    }
    uint64_t h = m->reg_hash;
    for (auto &r : m->reg)
        for (uint64_t w : r.words)
            h = (h ^ w) * 0x100000001b3ull;
    out->hash = h;
    return ok;
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> v;
    size_t a = 0;
    while (a <= s.size()) {
        size_t b = s.find(',', a);
        if (b == std::string::npos)
            b = s.size();
        if (b > a)
            v.push_back(s.substr(a, b - a));
        a = b + 1;
    }
    return v;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2 || (std::strcmp(argv[1], "perf") != 0 && std::strcmp(argv[1], "faults") != 0)) {
        std::fprintf(stderr, "usage: %s perf|faults [--kernels a,b,...] [--grid-scale N] [--cpu-servers N] [--oplog-variants]\n", argv[0]);
        return 2;
    }
    const bool perf = std::strcmp(argv[1], "perf") == 0;
    std::vector<std::string> kernels = perf ? split("lbm-like,sgemm-like,stencil-like,histo-like,spmv-like,mriq-like")
                                            : split("sgemm-like,stencil-like,histo-like,lbm-like,spmv-like,mriq-like");
    uint32_t cpu_servers = 1;
    uint32_t grid_scale = 1;
    bool oplog_variants = false;
    for (int i = 2; i < argc; i++) {
        if (std::strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) {
            kernels = split(argv[++i]);
        } else if (std::strcmp(argv[i], "--oplog-variants") == 0) {
            oplog_variants = true;
        } else if (std::strcmp(argv[i], "--grid-scale") == 0 && i + 1 < argc) {
            grid_scale = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
            if (grid_scale == 0 || grid_scale > 64) {
                std::fprintf(stderr, "--grid-scale: %u out of range 1..64\n", grid_scale);
                return 2;
            }
        } else if (std::strcmp(argv[i], "--cpu-servers") == 0 && i + 1 < argc) {
            cpu_servers = (uint32_t)std::strtoul(argv[++i], nullptr, 10);
        } else {
            std::fprintf(stderr, "unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    if (perf)
        std::printf("kernel,scheme,oplog_bytes,cycles,issued,stall_wd,stall_war,stall_oplog_full,resident_blocks,"
                    "oplog_partition_bytes,l1tlb_miss_pct,l2tlb_miss_pct,l1_hit_pct\n");
    else
        std::printf("kernel,link,variant,cycles,faults_gpu,faults_served,merged,local,switch_outs,restores,"
                    "extra_blocks,peak_extra_blocks,fault_free_cycles,ctx_cycles\n");
    int rc = 0;
    for (const auto &name : kernels) {
        auto k = std::make_unique<gmmu_kernel>();
        gmmu_error err{};
        gmmu_kernel_params kp{};
        if (gmmu_kernel_build(k.get(), name.c_str(), nullptr, &err) == GMMU_OK && grid_scale > 1) {
            kp.grid_blocks = k->grid_blocks * grid_scale;
            gmmu_kernel_build(k.get(), name.c_str(), &kp, &err);
        }
        if (err.msg[0]) {
            std::fprintf(stderr, "%s: %s\n", err.field, err.msg);
            return 2;
        }
        RunCfg base;
        gmmu_sm_config_tanasic17(&base.sm);
        gmmu_fault_handler_config_default(&base.fh, GMMU_LINK_NVLINK);
        RunOut ref;
        if (!run(k.get(), base, &ref))
            return 1;
        if (perf) {
            struct V {
                gmmu_fault_scheme s;
                uint32_t log;
            };
            const V vs[] = {{GMMU_SCHEME_STALL, 0},          {GMMU_SCHEME_WD_COMMIT, 0},
                            {GMMU_SCHEME_WD_LASTCHECK, 0},   {GMMU_SCHEME_REPLAY_QUEUE, 0},
                            {GMMU_SCHEME_OPLOG, 8192},       {GMMU_SCHEME_OPLOG, 16384},
                            {GMMU_SCHEME_OPLOG, 20480},      {GMMU_SCHEME_OPLOG, 32768}};
            for (const V &v : vs) {
                RunCfg c = base;
                c.sm.scheme = v.s;
                c.sm.oplog_bytes = v.log ? v.log : 16384;
                RunOut o;
                if (v.s == GMMU_SCHEME_STALL)
                    o = ref;
                else if (!run(k.get(), c, &o))
                    return 1;
                if (o.hash != ref.hash) {
                    std::fprintf(stderr, "%s %s: data differs from the stall run\n", name.c_str(),
                                 gmmu_fault_scheme_name(v.s));
                    rc = 1;
                }
                const MemStats &ms = o.mem;
                double tlbacc = (double)(ms.l1tlb_hits + ms.l1tlb_misses);
                double ldacc = (double)(ms.l1_hits + ms.l2_hits + ms.l2_misses);
                std::printf("%s,%s,%u,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                            ",%u,%u,%.2f,%.2f,%.2f\n",
                            name.c_str(), gmmu_fault_scheme_name(v.s), v.log, o.cycles, o.sum.issued,
                            o.sum.stall_wd, o.sum.stall_war, o.sum.stall_oplog_full,
                            o.sum.resident_blocks, o.sum.oplog_partition_bytes,
                            100.0 * (double)ms.l1tlb_misses / tlbacc, 100.0 * (double)ms.l2tlb_misses / tlbacc,
                            100.0 * (double)ms.l1_hits / ldacc);
                std::fflush(stdout);
            }
            continue;
        }
        for (gmmu_link link : {GMMU_LINK_NVLINK, GMMU_LINK_PCIE}) {
            struct V {
                const char *name;
                bool sw, ideal, local, oplog;
            };
            const V vs[] = {{"cpu", false, false, false, false},
                            {"switch", true, false, false, false},
                            {"switch-ideal", true, true, false, false},
                            {"local", false, false, true, false},
                            {"switch+local", true, false, true, false},
                            {"oplog", false, false, false, true},
                            {"oplog+switch", true, false, false, true}};
            for (const V &v : vs) {
                if (v.oplog && !oplog_variants)
                    continue;
                RunCfg c = base;
                c.demand = true;
                // The paper's use-case baseline is the replay queue; the oplog
                // variants (16 KB) carry their log partition in the context.
                c.sm.scheme = v.oplog ? GMMU_SCHEME_OPLOG : GMMU_SCHEME_REPLAY_QUEUE;
                c.sm.oplog_bytes = 16384;
                c.sm.block_switch = v.sw;
                if (v.ideal) {
                    c.sm.ctx_fixed_cycles = 1;
                    c.sm.ctx_bytes_per_cycle = 65536;
                }
                gmmu_fault_handler_config_default(&c.fh, link);
                c.fh.local_first_touch = v.local;
                c.fh.cpu_servers = cpu_servers;
                RunOut o;
                if (!run(k.get(), c, &o))
                    return 1;
                if (o.hash != ref.hash) {
                    std::fprintf(stderr, "%s %s: data differs from the fault-free run\n", name.c_str(),
                                 v.name);
                    rc = 1;
                }
                std::printf("%s,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                            ",%" PRIu64 ",%" PRIu64 ",%u,%" PRIu64 ",%" PRIu64 "\n",
                            name.c_str(), link == GMMU_LINK_NVLINK ? "nvlink" : "pcie", v.name, o.cycles,
                            o.sum.faults, o.fst.faults, o.fst.merged, o.fst.local, o.sum.switch_outs,
                            o.sum.restores, o.sum.extra_blocks, o.sum.peak_extra_blocks, ref.cycles,
                            o.sum.ctx_cycles);
                std::fflush(stdout);
            }
        }
    }
    return rc;
}
