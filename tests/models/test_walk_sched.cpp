// Tests of the comparator-tree page-walk scheduler (models/include/gmmu/walk_sched.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "test_mem.h"

extern "C" {
#include "gmmu/line_cache.h"
#include "gmmu/walk_engine.h"
#include "gmmu/walk_sched.h"
#include "gmmu/walk_step.h"
}

namespace {

uint64_t VaOf(unsigned i4, unsigned i3, unsigned i2, unsigned i1)
{
    return ((uint64_t)i4 << 39) | ((uint64_t)i3 << 30) | ((uint64_t)i2 << 21) | ((uint64_t)i1 << 12);
}

uint64_t SeedFromEnv(uint64_t dflt)
{
    const char *s = std::getenv("GMMU_SEED");
    return s ? std::strtoull(s, nullptr, 0) : dflt;
}

// Memory behind gmmu_walk_sched_run: reads the TestMem image, records every
// read, latency fixed or uniformly random in [lat_min, lat_max].
struct RunMem {
    TestMem *mem = nullptr;
    std::vector<uint64_t> reads;
    uint32_t lat_min = 10, lat_max = 10;
    std::mt19937_64 rng{1};
    bool fail = false;
    static gmmu_status fn(void *ctx, uint64_t pa, uint64_t *data, uint32_t *lat)
    {
        auto *m = static_cast<RunMem *>(ctx);
        if (m->fail)
            return GMMU_EMEM;
        m->reads.push_back(pa);
        *lat = m->lat_min == m->lat_max
                   ? m->lat_min
                   : m->lat_min + (uint32_t)(m->rng() % (m->lat_max - m->lat_min + 1));
        return TestMem::read64(m->mem, pa, data);
    }
};

gmmu_ws_config Cfg(gmmu_ws_variant v, unsigned walkers = 1, unsigned mshrs = 32)
{
    gmmu_ws_config c;
    gmmu_ws_config_default(&c);
    c.variant = v;
    c.walkers = walkers;
    c.mshrs = mshrs;
    return c;
}

gmmu_ws_alloc Alloc(uint64_t va, uint64_t table_base, unsigned start_level = 4, unsigned access = 0)
{
    gmmu_ws_alloc a{};
    a.va = va;
    a.table_base = table_base;
    a.valid = 1;
    a.start_level = (uint8_t)start_level;
    a.access = (uint8_t)access;
    return a;
}

// Field-by-field comparison with the serial reference walker.
void ExpectSameAsWalk(const gmmu_ws_result &r, const gmmu_walk_result &w, const std::string &what)
{
    EXPECT_EQ(r.fault, w.fault) << what;
    EXPECT_EQ(r.fault_level, w.fault_level) << what;
    EXPECT_EQ(r.pa, w.pa) << what;
    EXPECT_EQ(r.page_shift, w.page_shift) << what;
    EXPECT_EQ(r.pte, w.pte) << what;
    EXPECT_EQ(r.nreads, w.nreads) << what;
    for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++) {
        EXPECT_EQ(r.table_base[l], w.table_base[l]) << what << " table_base[" << l << "]";
        // the run loop learns the entries from the responses
        EXPECT_EQ(r.level_pte[l], w.level_pte[l]) << what << " level_pte[" << l << "]";
    }
}

// A scheduler the test owns: Create() makes it from a config (the previous one,
// if any, is destroyed), and it is destroyed with the handle.
struct Sched : std::unique_ptr<gmmu_walk_sched, void (*)(gmmu_walk_sched *)> {
    Sched() : unique_ptr(nullptr, &gmmu_walk_sched_destroy) {}
    gmmu_status Create(const gmmu_ws_config &cfg, gmmu_error *err = nullptr)
    {
        gmmu_walk_sched *p = nullptr;
        const gmmu_status s = gmmu_walk_sched_create(&cfg, &p, err);
        reset(p);
        return s;
    }
};

struct WalkSchedTest : ::testing::Test {
    TestMem mem;
    gmmu_pt *pt = nullptr;
    gmmu_mem_ops ops{};
    void SetUp() override
    {
        ops = mem.ops();
        ASSERT_EQ(gmmu_pt_create(&ops, &TestMem::alloc, &mem, &pt, nullptr), GMMU_OK);
    }
    void TearDown() override { gmmu_pt_destroy(pt); }
    void Map4K(uint64_t va, uint64_t pa, uint64_t flags = GMMU_MAP_U | GMMU_MAP_W)
    {
        ASSERT_EQ(gmmu_pt_map(pt, va, pa, 12, flags, nullptr), GMMU_OK);
    }
    gmmu_walk_result Walk(const gmmu_ws_alloc &a)
    {
        gmmu_walk_result w;
        EXPECT_EQ(gmmu_walk_from(&ops, a.table_base, a.start_level, a.va, a.access, &w), GMMU_OK);
        return w;
    }
    // Runs allocs through a fresh scheduler of cfg; returns results, fills
    // *ws_out (stats) and *reads (PA order).
    std::vector<gmmu_ws_result> Run(const gmmu_ws_config &cfg, const std::vector<gmmu_ws_alloc> &allocs,
                                    RunMem &rm, Sched &sched, uint64_t *cycles = nullptr,
                                    gmmu_line_cache *lc = nullptr)
    {
        gmmu_error err{};
        EXPECT_EQ(sched.Create(cfg, &err), GMMU_OK) << err.field << ": " << err.msg;
        gmmu_walk_sched *ws = sched.get();
        gmmu_walk_sched_attach_line_cache(ws, lc);
        rm.mem = &mem;
        rm.reads.clear();
        std::vector<gmmu_ws_result> res(allocs.size());
        uint64_t cyc = 0;
        EXPECT_EQ(gmmu_walk_sched_run(ws, allocs.data(), (unsigned)allocs.size(), &RunMem::fn, &rm,
                                      res.data(), &cyc),
                  GMMU_OK);
        if (cycles)
            *cycles = cyc;
        return res;
    }
};

// ---- figure 8 ----------------------------------------------------------------

struct Figure8 : WalkSchedTest {
    std::vector<gmmu_ws_alloc> allocs;
    std::vector<gmmu_walk_result> walks;
    void SetUp() override
    {
        WalkSchedTest::SetUp();
        const uint64_t vas[3] = {VaOf(0xb9, 0x0c, 0xac, 0x03), VaOf(0xb9, 0x0c, 0xac, 0x04),
                                 VaOf(0xb9, 0x0c, 0xad, 0x05)};
        for (unsigned i = 0; i < 3; i++) {
            Map4K(vas[i], 0x40000000ull + 0x1000ull * i);
            allocs.push_back(Alloc(vas[i] | 0x123, pt->root));
            walks.push_back(Walk(allocs.back()));
            ASSERT_EQ(walks.back().nreads, 4u);
        }
    }
    // The paper's scheduled order: PML4[b9]; PDP[0c]; PD[ac], PD[ad]; PT_a[03], PT_a[04]; PT_b[05].
    std::vector<uint64_t> PaperOrder() const
    {
        const auto &a = walks[0], &b = walks[1], &c = walks[2];
        return {a.table_base[4] + 8 * 0xb9, a.table_base[3] + 8 * 0x0c, a.table_base[2] + 8 * 0xac,
                c.table_base[2] + 8 * 0xad, a.table_base[1] + 8 * 0x03, b.table_base[1] + 8 * 0x04,
                c.table_base[1] + 8 * 0x05};
    }
};

TEST_F(Figure8, SerialWalkerIssuesTwelveReadsWalkByWalk)
{
    RunMem rm;
    Sched ws;
    uint64_t cycles = 0;
    auto res = Run(Cfg(GMMU_WS_SERIAL), allocs, rm, ws, &cycles);
    std::vector<uint64_t> expect;
    for (auto &w : walks)
        expect.insert(expect.end(), w.read_pa, w.read_pa + w.nreads);
    ASSERT_EQ(rm.reads.size(), 12u);
    EXPECT_EQ(rm.reads, expect);
    EXPECT_EQ(ws->st.refs_issued, 12u);
    EXPECT_EQ(ws->st.refs_merged, 0u);
    for (unsigned i = 0; i < 3; i++)
        ExpectSameAsWalk(res[i], walks[i], "walk " + std::to_string(i));
    // Cycle-exact (docs/walk_scheduler.md): latency 10, 1-cycle turnaround, a
    // walk takes 4 x 11 cycles and the next starts the cycle the previous ends.
    EXPECT_EQ(res[0].done_cycle, 45u);
    EXPECT_EQ(res[1].done_cycle, 89u);
    EXPECT_EQ(res[2].done_cycle, 133u);
    EXPECT_EQ(cycles, 134u);
}

TEST_F(Figure8, TreeSchedulerIssuesSevenReadsInThePapersOrder)
{
    RunMem rm;
    Sched ws;
    uint64_t cycles = 0;
    auto res = Run(Cfg(GMMU_WS_TREE), allocs, rm, ws, &cycles);
    ASSERT_EQ(rm.reads.size(), 7u);
    EXPECT_EQ(rm.reads, PaperOrder());
    EXPECT_EQ(ws->st.refs_issued, 7u);
    EXPECT_EQ(ws->st.refs_walked, 12u);
    EXPECT_EQ(ws->st.refs_merged, 5u);
    EXPECT_EQ(ws->st.same_line_back_to_back, 2u); // PD[ac]->PD[ad], PT_a[03]->PT_a[04]
    EXPECT_EQ(ws->st.line_groups, 5u);            // L4 1, L3 1, L2 1, L1 2
    EXPECT_EQ(ws->st.scan_passes, 5u);            // the tree: one pass per line group
    for (unsigned i = 0; i < 3; i++)
        ExpectSameAsWalk(res[i], walks[i], "walk " + std::to_string(i));
    // Scans of levels 3..1 ran while PML4 was in flight (cycles 2..5), so each
    // level costs exactly latency + 1 turnaround: 2 + 11 + 11 + 11(+1 PD[ad]) + ...
    EXPECT_EQ(res[0].done_cycle, 45u);
    EXPECT_EQ(res[1].done_cycle, 46u);
    EXPECT_EQ(res[2].done_cycle, 47u);
    EXPECT_EQ(cycles, 48u);
}

TEST_F(Figure8, PairwiseSchedulerIssuesTheSameSevenReadsWithFewerPasses)
{
    RunMem rm;
    Sched ws;
    auto res = Run(Cfg(GMMU_WS_PAIRWISE), allocs, rm, ws);
    EXPECT_EQ(rm.reads, PaperOrder());
    EXPECT_EQ(ws->st.scan_passes, 4u); // one pass per level
    EXPECT_EQ(ws->st.line_groups, 5u);
    for (unsigned i = 0; i < 3; i++)
        ExpectSameAsWalk(res[i], walks[i], "walk " + std::to_string(i));
}

TEST_F(Figure8, SlowTreePassesDelayTheSecondLineGroupButNotPairwise)
{
    // 3-cycle passes, memory latency 1: the comparator is the bottleneck.
    RunMem rm;
    rm.lat_min = rm.lat_max = 1;
    gmmu_ws_config tree = Cfg(GMMU_WS_TREE), pair = Cfg(GMMU_WS_PAIRWISE);
    tree.scan_pass_cycles = pair.scan_pass_cycles = 3;
    Sched ws;
    uint64_t ct = 0, cp = 0;
    auto rt = Run(tree, allocs, rm, ws, &ct);
    EXPECT_EQ(ws->st.scan_busy_cycles, 15u); // 5 passes x 3
    auto rp = Run(pair, allocs, rm, ws, &cp);
    EXPECT_EQ(ws->st.scan_busy_cycles, 12u); // 4 passes x 3
    EXPECT_GT(ct, cp);
    for (unsigned i = 0; i < 3; i++) {
        ExpectSameAsWalk(rt[i], walks[i], "tree walk " + std::to_string(i));
        ExpectSameAsWalk(rp[i], walks[i], "pairwise walk " + std::to_string(i));
    }
}

TEST_F(Figure8, LineCacheSeesBackToBackSameLineReadsAsHits)
{
    gmmu_line_cache_config lcc;
    gmmu_line_cache_config_default(&lcc);
    lcc.hit_cycles = 5;
    gmmu_line_cache *lc = nullptr;
    ASSERT_EQ(gmmu_line_cache_create(&lcc, &lc, nullptr), GMMU_OK);
    RunMem rm;
    rm.lat_min = rm.lat_max = 100;
    Sched ws;
    Run(Cfg(GMMU_WS_TREE), allocs, rm, ws, nullptr, lc);
    EXPECT_EQ(lc->st.accesses, 7u);
    EXPECT_EQ(lc->st.hits, 2u); // PD[ad] and PT_a[04]
    EXPECT_EQ(lc->st.hits_pending, 2u); // issued back to back: the line was still on its way
    gmmu_line_cache_flush(lc);
    lc->st = {};
    Run(Cfg(GMMU_WS_SERIAL), allocs, rm, ws, nullptr, lc);
    EXPECT_EQ(lc->st.accesses, 12u);
    EXPECT_EQ(lc->st.misses, 5u); // the same 5 lines
    gmmu_line_cache_destroy(lc);
}

// ---- randomized equivalence --------------------------------------------------

// A page table with shared upper levels: a few 2 MiB regions of 4 KiB pages
// (some not present, some read-only or supervisor), 2 MiB and 1 GiB pages.
struct World {
    TestMem mem;
    gmmu_pt *pt = nullptr;
    gmmu_mem_ops ops{};
    std::vector<uint64_t> va_pool; // VAs to draw MSHRs from (mapped and not)
    ~World() { gmmu_pt_destroy(pt); }
    World(const World &) = delete;
    World &operator=(const World &) = delete;
    explicit World(std::mt19937_64 &rng)
    {
        ops = mem.ops();
        gmmu_pt_create(&ops, &TestMem::alloc, &mem, &pt, nullptr);
        uint64_t base = ((1 + rng() % 200) << 39) | ((rng() % 500) << 30);
        unsigned regions = 1 + (unsigned)(rng() % 6);
        for (unsigned r = 0; r < regions; r++) {
            uint64_t reg = base + ((rng() % 3) << 30) + ((rng() % 8) << 21);
            unsigned npages = 1 + (unsigned)(rng() % 40);
            for (unsigned p = 0; p < npages; p++) {
                uint64_t va = reg + ((rng() % 96) << 12);
                uint64_t flags = (rng() % 8 ? GMMU_MAP_U : 0) | (rng() % 3 ? GMMU_MAP_W : 0);
                uint64_t pa = (0x100000ull + (rng() % 0xFFFFF)) << 12;
                if (gmmu_pt_map(pt, va, pa, 12, flags, nullptr) == GMMU_OK && rng() % 10 == 0)
                    gmmu_pt_update_leaf(pt, va, 0, GMMU_PTE_P);
                va_pool.push_back(va | (rng() & 0xFFF));
            }
            // an unmapped neighbour page and an unmapped 2 MiB region in the same PD
            va_pool.push_back(reg + (200ull << 12));
            va_pool.push_back(reg + (1ull << 21) * (8 + rng() % 8));
        }
        if (rng() % 2) { // a 2 MiB page next to the 4 KiB regions
            uint64_t va = base + (20ull << 21);
            if (gmmu_pt_map(pt, va, 0x200000000ull, 21, GMMU_MAP_U | GMMU_MAP_W, nullptr) == GMMU_OK)
                for (int i = 0; i < 4; i++)
                    va_pool.push_back(va + (rng() & 0x1FFFFF));
        }
        if (rng() % 2) { // a 1 GiB page in the PDP slot after the regions
            uint64_t va = (base & ~((1ull << 30) - 1)) + (3ull << 30);
            if (gmmu_pt_map(pt, va, 0x4000000000ull, 30, GMMU_MAP_U, nullptr) == GMMU_OK)
                for (int i = 0; i < 4; i++)
                    va_pool.push_back(va + (rng() & 0x3FFFFFFF));
        }
    }
};

std::vector<gmmu_ws_alloc> DrawMshrs(World &w, std::mt19937_64 &rng, unsigned n, bool mixed_start)
{
    std::vector<gmmu_ws_alloc> v;
    for (unsigned i = 0; i < n; i++) {
        uint64_t va = w.va_pool[rng() % w.va_pool.size()];
        if (rng() % 64 == 0)
            va = (1ull << 47) | (rng() & 0xFFFFFFFFFull); // non-canonical
        unsigned access = (unsigned)(rng() % 4) & (GMMU_ACC_WRITE | GMMU_ACC_USER);
        gmmu_ws_alloc a = Alloc(va, w.pt->root, 4, access);
        if (mixed_start && rng() % 2) {
            // as if a page-walk cache had supplied the table of a lower level
            gmmu_walk_result full;
            gmmu_walk_from(&w.ops, w.pt->root, 4, va, 0, &full);
            unsigned lowest = full.fault ? full.fault_level : 5 - full.nreads;
            if (full.fault != GMMU_FAULT_NONCANONICAL && lowest <= 3) {
                unsigned start = lowest + (unsigned)(rng() % (4 - lowest));
                a.start_level = (uint8_t)start;
                a.table_base = full.table_base[start];
            }
        }
        v.push_back(a);
    }
    return v;
}

TEST(WalkSchedRandom, ScheduledWalksEqualSerialWalksAndIssueEachDistinctReferenceOnce)
{
    const uint64_t seed = SeedFromEnv(0x5eed0001);
    std::printf("[ seed ] GMMU_SEED=0x%llx\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    const gmmu_ws_config cfgs[] = {Cfg(GMMU_WS_SERIAL), Cfg(GMMU_WS_SERIAL, 8), Cfg(GMMU_WS_TREE),
                                   Cfg(GMMU_WS_PAIRWISE)};
    for (int trial = 0; trial < 200; trial++) {
        World w(rng);
        unsigned n = 1 + (unsigned)(rng() % 32);
        auto allocs = DrawMshrs(w, rng, n, false);
        // distinct (level, table, index) references = distinct PTE addresses read
        std::set<uint64_t> distinct;
        uint64_t serial_reads = 0;
        std::vector<gmmu_walk_result> ref(n);
        for (unsigned i = 0; i < n; i++) {
            ASSERT_EQ(gmmu_walk_from(&w.ops, allocs[i].table_base, allocs[i].start_level, allocs[i].va,
                                     allocs[i].access, &ref[i]),
                      GMMU_OK);
            for (unsigned k = 0; k < ref[i].nreads; k++)
                distinct.insert(ref[i].read_pa[k]);
            serial_reads += ref[i].nreads;
        }
        for (const auto &cfg : cfgs) {
            Sched ws;
            ASSERT_EQ(ws.Create(cfg), GMMU_OK);
            RunMem rm;
            rm.mem = &w.mem;
            rm.lat_min = rm.lat_max = 1000; // every scan ends before the first read returns
            std::vector<gmmu_ws_result> res(n);
            ASSERT_EQ(gmmu_walk_sched_run(ws.get(), allocs.data(), n, &RunMem::fn, &rm, res.data(), nullptr),
                      GMMU_OK);
            std::string what = "seed 0x" + std::to_string(seed) + " trial " + std::to_string(trial) +
                               " variant " + std::to_string(cfg.variant) + "/" +
                               std::to_string(cfg.walkers);
            for (unsigned i = 0; i < n; i++)
                ExpectSameAsWalk(res[i], ref[i], what + " mshr " + std::to_string(i));
            EXPECT_EQ(ws->st.refs_walked, serial_reads) << what;
            if (cfg.variant == GMMU_WS_SERIAL)
                EXPECT_EQ(ws->st.refs_issued, serial_reads) << what;
            else
                EXPECT_EQ(ws->st.refs_issued, distinct.size()) << what;
            EXPECT_EQ(ws->st.refs_walked, ws->st.refs_issued - ws->st.refs_wasted + ws->st.refs_merged) << what;
            EXPECT_EQ(ws->st.walks, n) << what;
            EXPECT_TRUE(gmmu_walk_sched_idle(ws.get())) << what;
            if (HasFailure())
                return;
        }
    }
}

// gmmu_ws_run_device is the loop the platform runs over the C model and the
// RTL: without the idle-cycle skip (a device with no quiescent()) it gives
// the same results and cycles as gmmu_walk_sched_run, and the counters it
// keeps from the outputs equal the model's own, across consecutive runs.
TEST(WalkSchedRandom, RunDeviceCountsFromOutputsWhatTheModelCounts)
{
    const uint64_t seed = SeedFromEnv(0x5eed0005);
    std::printf("[ seed ] GMMU_SEED=0x%llx\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 60; trial++) {
        World w(rng);
        gmmu_ws_config cfg = Cfg(rng() % 2 ? GMMU_WS_TREE : GMMU_WS_PAIRWISE, 1,
                                 1 + (unsigned)(rng() % 32));
        cfg.scan_pass_cycles = 1 + (unsigned)(rng() % 3);
        Sched a, b;
        ASSERT_EQ(a.Create(cfg), GMMU_OK);
        ASSERT_EQ(b.Create(cfg), GMMU_OK);
        gmmu_ws_device dev;
        gmmu_walk_sched_device(b.get(), &dev);
        dev.quiescent = nullptr; // step every cycle
        gmmu_ws_run_stats st{};
        const uint32_t lat_max = 1 + (uint32_t)(rng() % 80);
        const uint64_t mem_seed = rng();
        for (int run = 0; run < 3; run++) {
            unsigned n = 1 + (unsigned)(rng() % 70);
            auto allocs = DrawMshrs(w, rng, n, true);
            RunMem ra, rb;
            ra.mem = rb.mem = &w.mem;
            ra.lat_min = rb.lat_min = 1;
            ra.lat_max = rb.lat_max = lat_max;
            ra.rng.seed(mem_seed + run);
            rb.rng.seed(mem_seed + run);
            std::vector<gmmu_ws_result> res_a(n), res_b(n);
            uint64_t ca = 0, cb = 0;
            ASSERT_EQ(gmmu_walk_sched_run(a.get(), allocs.data(), n, &RunMem::fn, &ra, res_a.data(), &ca),
                      GMMU_OK);
            ASSERT_EQ(gmmu_ws_run_device(&dev, nullptr, allocs.data(), n, &RunMem::fn, &rb,
                                         res_b.data(), &cb, &st),
                      GMMU_OK);
            std::string what = "trial " + std::to_string(trial) + " run " + std::to_string(run);
            EXPECT_EQ(ca, cb) << what;
            for (unsigned i = 0; i < n; i++) {
                EXPECT_EQ(res_a[i].alloc_cycle, res_b[i].alloc_cycle) << what << " walk " << i;
                EXPECT_EQ(res_a[i].done_cycle, res_b[i].done_cycle) << what << " walk " << i;
                EXPECT_EQ(res_a[i].pa, res_b[i].pa) << what << " walk " << i;
                EXPECT_EQ(res_a[i].fault, res_b[i].fault) << what << " walk " << i;
            }
            EXPECT_EQ(a->st.cycles, b->st.cycles) << what;
            EXPECT_EQ(st.cycles, b->st.cycles) << what;
            EXPECT_EQ(st.runs, (uint64_t)run + 1) << what;
            EXPECT_EQ(st.walks, b->st.walks) << what;
            EXPECT_EQ(st.faults, b->st.faults) << what;
            EXPECT_EQ(st.allocs, b->st.allocs) << what;
            EXPECT_EQ(st.refs_issued, b->st.refs_issued) << what;
            EXPECT_EQ(st.refs_walked, b->st.refs_walked) << what;
            EXPECT_EQ(st.same_line_back_to_back, b->st.same_line_back_to_back) << what;
            EXPECT_EQ(st.max_inflight, b->st.max_inflight) << what;
            EXPECT_EQ(st.refs_walked - st.refs_issued, b->st.refs_merged - b->st.refs_wasted) << what;
            EXPECT_TRUE(gmmu_walk_sched_quiescent(b.get())) << what;
            if (HasFailure())
                return;
        }
    }
}

TEST(WalkSchedRandom, MixedStartLevelsAndRandomLatenciesStillTranslateExactly)
{
    const uint64_t seed = SeedFromEnv(0x5eed0002);
    std::printf("[ seed ] GMMU_SEED=0x%llx\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 200; trial++) {
        World w(rng);
        unsigned n = 1 + (unsigned)(rng() % 100); // more walks than MSHRs
        auto allocs = DrawMshrs(w, rng, n, true);
        gmmu_ws_config cfg = Cfg((gmmu_ws_variant)(rng() % 3), 1, 1 + (unsigned)(rng() % 40));
        if (cfg.variant == GMMU_WS_SERIAL)
            cfg.walkers = 1 + (unsigned)(rng() % 8);
        cfg.scan_pass_cycles = 1 + (unsigned)(rng() % 3);
        cfg.retire_width = 1 + (unsigned)(rng() % GMMU_WS_RETIRE_MAX);
        Sched ws;
        ASSERT_EQ(ws.Create(cfg), GMMU_OK);
        RunMem rm;
        rm.mem = &w.mem;
        rm.lat_min = 1;
        rm.lat_max = 1 + (uint32_t)(rng() % 60);
        rm.rng.seed(rng());
        std::vector<gmmu_ws_result> res(n);
        ASSERT_EQ(gmmu_walk_sched_run(ws.get(), allocs.data(), n, &RunMem::fn, &rm, res.data(), nullptr), GMMU_OK);
        uint64_t serial_reads = 0;
        for (unsigned i = 0; i < n; i++) {
            gmmu_walk_result ref;
            ASSERT_EQ(gmmu_walk_from(&w.ops, allocs[i].table_base, allocs[i].start_level, allocs[i].va,
                                     allocs[i].access, &ref),
                      GMMU_OK);
            serial_reads += ref.nreads;
            ExpectSameAsWalk(res[i], ref, "seed trial " + std::to_string(trial) + " mshr " + std::to_string(i));
            EXPECT_LT(res[i].mshr, cfg.mshrs);
        }
        EXPECT_EQ(ws->st.refs_walked, serial_reads);
        EXPECT_LE(ws->st.refs_issued, serial_reads);
        EXPECT_EQ(ws->st.refs_walked, ws->st.refs_issued - ws->st.refs_wasted + ws->st.refs_merged);
        if (HasFailure()) {
            std::printf("failed at trial %d (seed 0x%llx)\n", trial, (unsigned long long)seed);
            return;
        }
    }
}

// ---- cycle-step interface --------------------------------------------------------

// Drives the step interface by hand: responses delayed at random and
// delivered in random order, mem_ready dropping at random, allocations
// retried while the MSHRs are full.
struct StepDriver {
    gmmu_walk_sched *ws;
    TestMem *mem;
    std::mt19937_64 rng;
    unsigned max_delay = 40;
    unsigned ready_percent = 80;
    struct Pend { uint64_t ready; uint16_t tag; uint64_t data; };
    std::vector<Pend> pend;
    std::vector<gmmu_ws_req> reqs;
    std::vector<gmmu_ws_done> done; // index = alloc index
    std::vector<uint64_t> done_cycle;
    std::function<int(const std::vector<Pend> &, uint64_t)> pick; // which ready response to return

    StepDriver(gmmu_walk_sched *w, TestMem *m, uint64_t seed) : ws(w), mem(m), rng(seed) {}

    void RunAll(const std::vector<gmmu_ws_alloc> &allocs)
    {
        done.assign(allocs.size(), gmmu_ws_done{});
        done_cycle.assign(allocs.size(), 0);
        std::map<unsigned, size_t> owner;
        size_t next = 0, completed = 0;
        for (uint64_t cyc = 0; completed < allocs.size(); cyc++) {
            ASSERT_LT(cyc, 1000000u) << "scheduler stuck";
            gmmu_ws_in in{};
            gmmu_ws_out out{};
            for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX && next + k < allocs.size(); k++)
                in.alloc[k] = allocs[next + k];
            std::vector<int> ready;
            for (size_t p = 0; p < pend.size(); p++)
                if (pend[p].ready <= cyc)
                    ready.push_back((int)p);
            if (!ready.empty()) {
                int p = pick ? pick(pend, cyc) : ready[rng() % ready.size()];
                if (p >= 0) {
                    in.resp.valid = 1;
                    in.resp.tag = pend[p].tag;
                    in.resp.data = pend[p].data;
                    pend.erase(pend.begin() + p);
                }
            }
            in.mem_ready = (rng() % 100) < ready_percent;
            ASSERT_EQ(gmmu_walk_sched_step(ws, &in, &out), GMMU_OK);
            for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX && next < allocs.size(); k++) {
                if (!in.alloc[k].valid)
                    break;
                if (!out.alloc_accepted[k])
                    break; // accepted in order: the rest wait
                owner[out.alloc_mshr[k]] = next++;
            }
            if (out.req.valid) {
                EXPECT_TRUE(in.mem_ready) << "request while mem_ready was low";
                reqs.push_back(out.req);
                uint64_t data = 0;
                ASSERT_EQ(TestMem::read64(mem, out.req.pa, &data), GMMU_OK);
                pend.push_back({cyc + 1 + rng() % max_delay, out.req.tag, data});
            }
            for (unsigned d = 0; d < out.n_done; d++) {
                size_t idx = owner.at(out.done[d].mshr);
                done[idx] = out.done[d];
                done_cycle[idx] = cyc;
                completed++;
            }
        }
    }
};

void ExpectDoneSameAsWalk(const gmmu_ws_done &d, const gmmu_walk_result &w, const std::string &what)
{
    EXPECT_EQ(d.valid, 1) << what;
    EXPECT_EQ(d.fault, (uint8_t)w.fault) << what;
    EXPECT_EQ(d.fault_level, w.fault_level) << what;
    EXPECT_EQ(d.pa, w.pa) << what;
    EXPECT_EQ(d.page_shift, w.page_shift) << what;
    EXPECT_EQ(d.pte, w.pte) << what;
    for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
        EXPECT_EQ(d.table_base[l], w.table_base[l]) << what << " table_base[" << l << "]";
}

TEST(WalkSchedStep, DelayedOutOfOrderResponsesAndBackpressure)
{
    const uint64_t seed = SeedFromEnv(0x5eed0003);
    std::printf("[ seed ] GMMU_SEED=0x%llx\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 150; trial++) {
        World w(rng);
        unsigned n = 1 + (unsigned)(rng() % 80);
        auto allocs = DrawMshrs(w, rng, n, true);
        gmmu_ws_config cfg = Cfg((gmmu_ws_variant)(trial % 3), 1, 1 + (unsigned)(rng() % 32));
        if (cfg.variant == GMMU_WS_SERIAL)
            cfg.walkers = 1 + (unsigned)(rng() % 4);
        Sched ws;
        ASSERT_EQ(ws.Create(cfg), GMMU_OK);
        StepDriver drv(ws.get(), &w.mem, rng());
        drv.max_delay = 1 + (unsigned)(rng() % 100);
        drv.ready_percent = 50 + (unsigned)(rng() % 51);
        drv.RunAll(allocs);
        if (HasFatalFailure())
            return;
        for (unsigned i = 0; i < n; i++) {
            gmmu_walk_result ref;
            gmmu_walk_from(&w.ops, allocs[i].table_base, allocs[i].start_level, allocs[i].va,
                           allocs[i].access, &ref);
            ExpectDoneSameAsWalk(drv.done[i], ref, "trial " + std::to_string(trial) + " mshr " + std::to_string(i));
        }
        EXPECT_EQ(ws->st.refs_walked, ws->st.refs_issued - ws->st.refs_wasted + ws->st.refs_merged);
        EXPECT_EQ(ws->st.refs_issued, drv.reqs.size());
        EXPECT_TRUE(gmmu_walk_sched_idle(ws.get()));
        if (HasFailure()) {
            std::printf("failed at trial %d (seed 0x%llx)\n", trial, (unsigned long long)seed);
            return;
        }
    }
}

TEST_F(Figure8, ResponsesInReverseOrderReorderTheNextLevel)
{
    Sched ws;
    gmmu_ws_config cfg = Cfg(GMMU_WS_TREE);
    ASSERT_EQ(ws.Create(cfg), GMMU_OK);
    StepDriver drv(ws.get(), &mem, 7);
    drv.ready_percent = 100;
    drv.max_delay = 1;
    // Hold a lone response up to 3 cycles; with two pending, return the newest.
    drv.pick = [](const std::vector<StepDriver::Pend> &p, uint64_t now) -> int {
        if (p.size() >= 2)
            return (int)p.size() - 1;
        return now - p[0].ready >= 3 ? 0 : -1;
    };
    drv.RunAll(allocs);
    auto order = PaperOrder();
    ASSERT_EQ(drv.reqs.size(), 7u);
    // PD[ad] is answered before PD[ac], so PT_b[05] goes before PT_a[03], PT_a[04].
    std::vector<uint64_t> got;
    for (auto &r : drv.reqs)
        got.push_back(r.pa);
    EXPECT_EQ(std::vector<uint64_t>(got.begin(), got.begin() + 4),
              std::vector<uint64_t>(order.begin(), order.begin() + 4));
    EXPECT_EQ(got[4], order[6]);
    EXPECT_EQ(got[5], order[4]);
    EXPECT_EQ(got[6], order[5]);
    for (unsigned i = 0; i < 3; i++)
        ExpectDoneSameAsWalk(drv.done[i], walks[i], "walk " + std::to_string(i));
    EXPECT_EQ(drv.reqs[0].level, 4);
    EXPECT_EQ(drv.reqs[6].level, 1);
}

TEST_F(WalkSchedTest, SameLineReferencesStayBackToBackWhenAnOlderReferenceBecomesReady)
{
    // m0 -> PT table T1 (under PD[1]), m1, m2 -> T2 (under PD[2]). The L1 scan
    // makes T1[5] first (older), then T2[3], T2[4]. PD[2] answers one cycle
    // before PD[1]: T2[3] issues, then T1[5] is ready and older, but the line
    // lock finishes T2's line first.
    std::vector<gmmu_ws_alloc> allocs;
    const uint64_t vas[3] = {VaOf(1, 1, 1, 5), VaOf(1, 1, 2, 3), VaOf(1, 1, 2, 4)};
    for (unsigned i = 0; i < 3; i++) {
        Map4K(vas[i], 0x80000000ull + 0x1000ull * i);
        allocs.push_back(Alloc(vas[i], pt->root));
    }
    Sched ws;
    gmmu_ws_config cfg = Cfg(GMMU_WS_TREE);
    ASSERT_EQ(ws.Create(cfg), GMMU_OK);
    gmmu_walk_result w0 = Walk(allocs[0]), w1 = Walk(allocs[1]);
    const uint64_t pd1 = w0.read_pa[2], pd2 = w1.read_pa[2];
    StepDriver drv(ws.get(), &mem, 1);
    drv.ready_percent = 100;
    drv.max_delay = 1;
    // Return PD[1] only once PD[2] has been returned (one cycle apart).
    bool pd2_back = false;
    drv.pick = [&](const std::vector<StepDriver::Pend> &p, uint64_t now) -> int {
        for (size_t i = 0; i < p.size(); i++) {
            if (p[i].ready > now)
                continue;
            const gmmu_ws_slot &s = ws->s[p[i].tag];
            uint64_t spa = s.key + 8ull * s.index;
            if (spa == pd1 && !pd2_back)
                continue;
            if (spa == pd2)
                pd2_back = true;
            return (int)i;
        }
        return -1;
    };
    drv.RunAll(allocs);
    std::vector<uint64_t> got;
    for (auto &r : drv.reqs)
        got.push_back(r.pa);
    gmmu_walk_result w2 = Walk(allocs[2]);
    ASSERT_EQ(got.size(), 7u); // PML4, PDP, PD[1], PD[2], then the PT reads
    EXPECT_EQ(got[2], pd1);
    EXPECT_EQ(got[3], pd2);
    EXPECT_EQ(got[4], w1.read_pa[3]); // T2[3]
    EXPECT_EQ(got[5], w2.read_pa[3]); // T2[4]: same line, back to back
    EXPECT_EQ(got[6], w0.read_pa[3]); // T1[5], older, waits
    EXPECT_EQ(ws->st.same_line_back_to_back, 2u);
}

TEST_F(WalkSchedTest, LaterAllocationsMergeWithReadsStillInFlight)
{
    // 8 walks under one PT table; allocations arrive 4 per cycle, and the
    // second four are scanned after PML4 went out: they join the in-flight
    // reads instead of repeating them.
    std::vector<gmmu_ws_alloc> allocs;
    for (unsigned i = 0; i < 8; i++) {
        uint64_t va = VaOf(3, 7, 9, 16 * i);
        Map4K(va, 0x90000000ull + 0x1000ull * i);
        allocs.push_back(Alloc(va, pt->root));
    }
    RunMem rm;
    rm.lat_min = rm.lat_max = 50;
    Sched ws;
    auto res = Run(Cfg(GMMU_WS_TREE), allocs, rm, ws);
    EXPECT_GE(ws->st.scans, 5u); // more than one scan of level 4 happened
    EXPECT_EQ(rm.reads.size(), 3u + 8u); // PML4, PDP, PD once; 8 distinct PT lines
    EXPECT_EQ(ws->st.refs_merged, 3u * 7u);
    for (unsigned i = 0; i < 8; i++)
        ExpectSameAsWalk(res[i], Walk(allocs[i]), "walk " + std::to_string(i));
}

TEST_F(WalkSchedTest, MshrFullRejectsAllocationsUntilAWalkRetires)
{
    const uint64_t va0 = VaOf(5, 5, 5, 5);
    Map4K(va0, 0xA0000000ull);
    Sched ws;
    gmmu_ws_config cfg = Cfg(GMMU_WS_TREE, 1, 2);
    ASSERT_EQ(ws.Create(cfg), GMMU_OK);
    gmmu_ws_in in{};
    gmmu_ws_out out{};
    for (unsigned k = 0; k < 4; k++)
        in.alloc[k] = Alloc(va0 + 0x1000ull * k, pt->root);
    in.mem_ready = 1;
    ASSERT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_OK);
    EXPECT_EQ(out.alloc_accepted[0], 1);
    EXPECT_EQ(out.alloc_accepted[1], 1);
    EXPECT_EQ(out.alloc_accepted[2], 0);
    EXPECT_EQ(out.alloc_accepted[3], 0);
    EXPECT_EQ(out.alloc_mshr[0], 0);
    EXPECT_EQ(out.alloc_mshr[1], 1);
    EXPECT_EQ(ws->st.alloc_rejects, 2u);
    EXPECT_EQ(gmmu_walk_sched_free_mshrs(ws.get()), 0u);
    // Keep offering; answer reads immediately; the third walk gets an MSHR
    // only in the cycle after one of the first two is reported.
    gmmu_ws_in in2{};
    in2.alloc[0] = Alloc(va0 + 0x2000, pt->root);
    in2.mem_ready = 1;
    uint64_t retire_cycle = 0, accept_cycle = 0;
    std::vector<std::pair<uint16_t, uint64_t>> pend;
    for (uint64_t cyc = 1; cyc < 200 && !accept_cycle; cyc++) {
        gmmu_ws_in cur = in2;
        if (!pend.empty()) {
            cur.resp.valid = 1;
            cur.resp.tag = pend.front().first;
            cur.resp.data = pend.front().second;
            pend.erase(pend.begin());
        }
        ASSERT_EQ(gmmu_walk_sched_step(ws.get(), &cur, &out), GMMU_OK);
        if (out.req.valid) {
            uint64_t d = 0;
            TestMem::read64(&mem, out.req.pa, &d);
            pend.push_back({out.req.tag, d});
        }
        if (out.alloc_accepted[0])
            accept_cycle = cyc;
        else
            EXPECT_EQ(retire_cycle, 0u) << "an MSHR was free but the allocation was refused";
        if (out.n_done && !retire_cycle)
            retire_cycle = cyc;
    }
    ASSERT_NE(retire_cycle, 0u);
    EXPECT_EQ(accept_cycle, retire_cycle + 1);
}

TEST_F(WalkSchedTest, RunFeedsMoreWalksThanMshrs)
{
    std::vector<gmmu_ws_alloc> allocs;
    for (unsigned i = 0; i < 100; i++) {
        uint64_t va = VaOf(2, 1 + i % 2, i % 5, i);
        Map4K(va, 0xB0000000ull + 0x1000ull * i);
        allocs.push_back(Alloc(va, pt->root));
    }
    for (auto v : {GMMU_WS_SERIAL, GMMU_WS_TREE, GMMU_WS_PAIRWISE}) {
        RunMem rm;
        Sched ws;
        auto res = Run(Cfg(v, 1, 4), allocs, rm, ws);
        for (unsigned i = 0; i < allocs.size(); i++) {
            ExpectSameAsWalk(res[i], Walk(allocs[i]), "walk " + std::to_string(i));
            EXPECT_LT(res[i].mshr, 4u);
            EXPECT_GE(res[i].done_cycle, res[i].alloc_cycle);
        }
        EXPECT_EQ(ws->st.walks, 100u);
    }
}

TEST_F(WalkSchedTest, RunEqualsSteppingByHand)
{
    // gmmu_walk_sched_run skips idle cycles; the result must be what plain
    // stepping gives with the same in-order memory of fixed latency.
    std::vector<gmmu_ws_alloc> allocs;
    for (unsigned i = 0; i < 40; i++) {
        uint64_t va = VaOf(4, i % 3, (i * 7) % 11, (i * 13) % 50);
        if (gmmu_pt_map(pt, va, 0xC0000000ull + 0x1000ull * i, 12, GMMU_MAP_U, nullptr) != GMMU_OK)
            continue;
        allocs.push_back(Alloc(va, pt->root));
    }
    for (auto v : {GMMU_WS_SERIAL, GMMU_WS_TREE, GMMU_WS_PAIRWISE}) {
        gmmu_ws_config cfg = Cfg(v, v == GMMU_WS_SERIAL ? 3 : 1, 8);
        RunMem rm;
        rm.lat_min = rm.lat_max = 23;
        Sched a, b;
        uint64_t cycles = 0;
        auto res = Run(cfg, allocs, rm, a, &cycles);
        ASSERT_EQ(b.Create(cfg), GMMU_OK);
        StepDriver drv(b.get(), &mem, 1);
        drv.ready_percent = 100;
        // Fixed latency 23: StepDriver marks a response ready at issue + 1
        // (max_delay 1); return it 22 cycles later, i.e. at issue + 23.
        drv.max_delay = 1;
        drv.pick = [&](const std::vector<StepDriver::Pend> &p, uint64_t now) -> int {
            for (size_t i = 0; i < p.size(); i++)
                if (p[i].ready + 22 == now)
                    return (int)i;
            return -1;
        };
        drv.RunAll(allocs);
        for (size_t i = 0; i < allocs.size(); i++) {
            EXPECT_EQ(res[i].done_cycle, drv.done_cycle[i]) << "variant " << v << " walk " << i;
            EXPECT_EQ(res[i].pa, drv.done[i].pa);
        }
        EXPECT_EQ(a->st.refs_issued, b->st.refs_issued);
        EXPECT_EQ(a->st.scan_busy_cycles, b->st.scan_busy_cycles);
        EXPECT_EQ(a->st.same_line_back_to_back, b->st.same_line_back_to_back);
        EXPECT_EQ(cycles, b->st.cycles);
    }
}

TEST_F(WalkSchedTest, SharedLargePageCompletesManyWalksRetiredAtRetireWidth)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x40000000ull, 0x200000000ull, 21, GMMU_MAP_U, nullptr), GMMU_OK);
    std::vector<gmmu_ws_alloc> allocs;
    for (unsigned i = 0; i < 8; i++)
        allocs.push_back(Alloc(0x40000000ull + 0x3000ull * i + 8 * i, pt->root));
    for (unsigned width : {1u, 4u}) {
        gmmu_ws_config cfg = Cfg(GMMU_WS_TREE);
        cfg.retire_width = width;
        RunMem rm;
        Sched ws;
        auto res = Run(cfg, allocs, rm, ws);
        EXPECT_EQ(rm.reads.size(), 3u); // PML4, PDP, PD (leaf) once for all
        std::set<uint64_t> cycles;
        for (unsigned i = 0; i < 8; i++) {
            ExpectSameAsWalk(res[i], Walk(allocs[i]), "walk " + std::to_string(i));
            EXPECT_EQ(res[i].page_shift, 21u);
            cycles.insert(res[i].done_cycle);
        }
        EXPECT_EQ(cycles.size(), 8u / width);
        EXPECT_EQ(*cycles.rbegin() - *cycles.begin(), 8u / width - 1);
    }
}

TEST_F(WalkSchedTest, NaiveWalkersOverlapIndependentWalks)
{
    std::vector<gmmu_ws_alloc> allocs;
    for (unsigned i = 0; i < 8; i++) {
        uint64_t va = VaOf(10 + 20 * i, i, i, i); // nothing shared
        Map4K(va, 0xD0000000ull + 0x1000ull * i);
        allocs.push_back(Alloc(va, pt->root));
    }
    RunMem rm;
    rm.lat_min = rm.lat_max = 100;
    Sched ws;
    uint64_t c1 = 0, c8 = 0, ct = 0;
    Run(Cfg(GMMU_WS_SERIAL, 1), allocs, rm, ws, &c1);
    EXPECT_EQ(c1, 2u + 8u * 4u * 101u);
    Run(Cfg(GMMU_WS_SERIAL, 8), allocs, rm, ws, &c8);
    EXPECT_EQ(ws->st.refs_issued, 32u);
    EXPECT_LT(c8, 4u * 101u + 20u);
    Run(Cfg(GMMU_WS_TREE), allocs, rm, ws, &ct);
    EXPECT_EQ(ws->st.refs_issued, 32u); // nothing to merge
    EXPECT_LT(ct, 4u * 101u + 40u);
}

TEST_F(WalkSchedTest, MemReadyLowHoldsTheRequest)
{
    const uint64_t va = VaOf(6, 6, 6, 6);
    Map4K(va, 0xE0000000ull);
    Sched ws;
    gmmu_ws_config cfg = Cfg(GMMU_WS_TREE);
    ASSERT_EQ(ws.Create(cfg), GMMU_OK);
    gmmu_ws_in in{};
    gmmu_ws_out out{};
    in.alloc[0] = Alloc(va, pt->root);
    ASSERT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_OK); // cycle 0: allocate
    in = gmmu_ws_in{};
    for (int c = 1; c <= 5; c++) { // mem_ready low: no request, stall counted from cycle 2
        ASSERT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_OK);
        EXPECT_EQ(out.req.valid, 0);
    }
    EXPECT_EQ(ws->st.mem_stall_cycles, 4u);
    in.mem_ready = 1;
    ASSERT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_OK);
    EXPECT_EQ(out.req.valid, 1);
    EXPECT_EQ(out.req.level, 4);
    EXPECT_EQ(out.req.pa, pt->root + 8 * 6);
}

TEST_F(WalkSchedTest, MalformedInputsAreRejectedWithoutSideEffects)
{
    Sched ws;
    gmmu_ws_config cfg = Cfg(GMMU_WS_TREE);
    ASSERT_EQ(ws.Create(cfg), GMMU_OK);
    gmmu_ws_out out{};
    const gmmu_ws_alloc bad[] = {Alloc(0x1000, pt->root, 0), Alloc(0x1000, pt->root, 5),
                                 Alloc(0x1000, pt->root + 8), Alloc(0x1000, pt->root, 4, GMMU_ACC_SET_AD)};
    for (const auto &a : bad) {
        gmmu_ws_in in{};
        in.alloc[1] = a;
        EXPECT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_EINVAL);
    }
    gmmu_ws_in in{};
    in.resp.valid = 1;
    in.resp.tag = 3; // nothing in flight
    EXPECT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_EINVAL);
    in.resp.tag = 0xFFFF;
    EXPECT_EQ(gmmu_walk_sched_step(ws.get(), &in, &out), GMMU_EINVAL);
    EXPECT_EQ(ws->cycle, 0u);
    EXPECT_EQ(ws->st.allocs, 0u);
    EXPECT_TRUE(gmmu_walk_sched_idle(ws.get()));
    EXPECT_EQ(gmmu_walk_sched_step(ws.get(), nullptr, &out), GMMU_EINVAL);
    // run: bad alloc, busy scheduler, failing memory
    RunMem rm;
    rm.mem = &mem;
    gmmu_ws_result r[2];
    gmmu_ws_alloc a2[2] = {Alloc(0x1000, pt->root), Alloc(0x1000, pt->root, 7)};
    EXPECT_EQ(gmmu_walk_sched_run(ws.get(), a2, 2, &RunMem::fn, &rm, r, nullptr), GMMU_EINVAL);
    Map4K(0x5000, 0xF000);
    rm.fail = true;
    EXPECT_EQ(gmmu_walk_sched_run(ws.get(), a2, 1, &RunMem::fn, &rm, r, nullptr), GMMU_EMEM);
    gmmu_ws_in one{};
    one.alloc[0] = Alloc(0x5000, pt->root);
    Sched ws2;
    ASSERT_EQ(ws2.Create(cfg), GMMU_OK);
    ASSERT_EQ(gmmu_walk_sched_step(ws2.get(), &one, &out), GMMU_OK);
    rm.fail = false;
    EXPECT_EQ(gmmu_walk_sched_run(ws2.get(), a2, 1, &RunMem::fn, &rm, r, nullptr), GMMU_EBUSY);
}

TEST_F(WalkSchedTest, NonCanonicalVaFaultsWithoutReads)
{
    std::vector<gmmu_ws_alloc> allocs = {Alloc(0x0000800000000000ull, pt->root)};
    RunMem rm;
    Sched ws;
    auto res = Run(Cfg(GMMU_WS_TREE), allocs, rm, ws);
    EXPECT_EQ(res[0].fault, GMMU_FAULT_NONCANONICAL);
    EXPECT_EQ(rm.reads.size(), 0u);
    ExpectSameAsWalk(res[0], Walk(allocs[0]), "non-canonical");
}

// Issue 41 item 4 through the schedulers (serial, tree, pairwise): the same
// fault, level and entries as gmmu_walk_from, whose order is gmmu_pte_judge's.
TEST_F(WalkSchedTest, TranslationFaultsBeatUpperLevelDenialsAndLargeLeafPatIsAccepted)
{
    const uint64_t va_ro = VaOf(3, 1, 5, 7), va_ro_ok = VaOf(3, 1, 5, 8);
    const uint64_t va_sup = VaOf(3, 1, 6, 7), va_sup_ok = VaOf(3, 1, 6, 8);
    const uint64_t va_2m = VaOf(3, 1, 9, 0);
    for (uint64_t va : {va_ro, va_ro_ok, va_sup, va_sup_ok})
        Map4K(va, 0x7000000ull + (va & 0xFFFFF000ull));
    ASSERT_EQ(gmmu_pt_map(pt, va_2m, 0x200000000ull, 21, GMMU_MAP_U | GMMU_MAP_W, nullptr), GMMU_OK);
    auto entry = [&](uint64_t va, unsigned level) {
        gmmu_walk_result w;
        EXPECT_EQ(gmmu_walk_from(&ops, pt->root, 4, va, 0, &w), GMMU_OK);
        return w.table_base[level] + 8ull * gmmu_va_index(va, level);
    };
    auto edit = [&](uint64_t pa, uint64_t set, uint64_t clear) {
        uint64_t v = 0;
        TestMem::read64(&mem, pa, &v);
        TestMem::write64(&mem, pa, (v | set) & ~clear);
    };
    const uint64_t pte_ro = entry(va_ro, 1), pte_sup = entry(va_sup, 1);
    const uint64_t pde_ro = entry(va_ro, 2), pde_sup = entry(va_sup, 2), pde_2m = entry(va_2m, 2);
    edit(pte_ro, 0, GMMU_PTE_P);
    edit(pte_sup, 0, GMMU_PTE_P);
    edit(pde_ro, 0, GMMU_PTE_W);
    edit(pde_sup, 0, GMMU_PTE_U);
    edit(pde_2m, 1ull << 12, 0); // PAT
    const std::vector<gmmu_ws_alloc> allocs = {
        Alloc(va_ro | 0x10, pt->root, 4, GMMU_ACC_WRITE),    // repro 1: not present
        Alloc(va_sup | 0x10, pt->root, 4, GMMU_ACC_USER),    // repro 2: not present
        Alloc(va_ro_ok | 0x10, pt->root, 4, GMMU_ACC_WRITE), // present: the PDE's write fault
        Alloc(va_sup_ok | 0x10, pt->root, 4, GMMU_ACC_USER), // present: the PDE's user fault
        Alloc(va_2m | 0x12345, pt->root, 4, GMMU_ACC_WRITE | GMMU_ACC_USER),
        Alloc(va_ro_ok | 0x10, pt->root, 4, 0), // a read passes the read-only PDE
    };
    const gmmu_fault want[] = {GMMU_FAULT_NOT_PRESENT, GMMU_FAULT_NOT_PRESENT, GMMU_FAULT_WRITE,
                               GMMU_FAULT_USER, GMMU_FAULT_NONE, GMMU_FAULT_NONE};
    const unsigned want_level[] = {1, 1, 2, 2, 0, 0};
    std::vector<gmmu_walk_result> ref;
    for (unsigned i = 0; i < allocs.size(); i++) {
        ref.push_back(Walk(allocs[i]));
        EXPECT_EQ(ref[i].fault, want[i]) << "gmmu_walk_from, walk " << i;
        EXPECT_EQ(ref[i].fault_level, want_level[i]) << "gmmu_walk_from, walk " << i;
    }
    EXPECT_EQ(ref[4].pa, 0x200000000ull | 0x12345);
    for (const auto &cfg : {Cfg(GMMU_WS_SERIAL), Cfg(GMMU_WS_TREE), Cfg(GMMU_WS_PAIRWISE)}) {
        RunMem rm;
        Sched sched;
        const auto res = Run(cfg, allocs, rm, sched);
        for (unsigned i = 0; i < allocs.size(); i++) {
            const std::string what = "variant " + std::to_string(cfg.variant) + " walk " + std::to_string(i);
            EXPECT_EQ(res[i].fault, want[i]) << what;
            EXPECT_EQ(res[i].fault_level, want_level[i]) << what;
            EXPECT_EQ(res[i].nreads, i == 4 ? 3u : 4u) << what << ": every walk reads down to its leaf";
            ExpectSameAsWalk(res[i], ref[i], what);
        }
        EXPECT_EQ(res[4].pa, 0x200000000ull | 0x12345) << "PAT is not part of the frame";
        EXPECT_EQ(res[4].page_shift, 21u);
    }
}

TEST(WalkSchedConfig, BadFieldsAreNamed)
{
    struct Case { const char *field; std::function<void(gmmu_ws_config &)> set; };
    const Case cases[] = {
        {"variant", [](gmmu_ws_config &c) { c.variant = (gmmu_ws_variant)3; }},
        {"mshrs", [](gmmu_ws_config &c) { c.mshrs = 0; }},
        {"mshrs", [](gmmu_ws_config &c) { c.mshrs = GMMU_WS_MAX_MSHRS + 1; }},
        {"walkers", [](gmmu_ws_config &c) { c.walkers = 2; }}, // tree drives one walker
        {"walkers", [](gmmu_ws_config &c) { c.variant = GMMU_WS_SERIAL; c.walkers = 0; }},
        {"walkers", [](gmmu_ws_config &c) { c.variant = GMMU_WS_SERIAL; c.walkers = GMMU_WS_MAX_WALKERS + 1; }},
        {"scan_pass_cycles", [](gmmu_ws_config &c) { c.scan_pass_cycles = 0; }},
        {"scan_pass_cycles", [](gmmu_ws_config &c) { c.scan_pass_cycles = 17; }},
        {"retire_width", [](gmmu_ws_config &c) { c.retire_width = 0; }},
        {"retire_width", [](gmmu_ws_config &c) { c.retire_width = GMMU_WS_RETIRE_MAX + 1; }},
    };
    for (const auto &k : cases) {
        gmmu_ws_config c;
        gmmu_ws_config_default(&c);
        k.set(c);
        gmmu_error err{};
        Sched ws;
        EXPECT_EQ(ws.Create(c, &err), GMMU_EINVAL) << k.field;
        EXPECT_STREQ(err.field, k.field);
        EXPECT_STRNE(err.msg, "");
    }
    gmmu_ws_config c;
    gmmu_ws_config_default(&c);
    EXPECT_EQ(gmmu_ws_config_check(&c, nullptr), GMMU_OK);
    EXPECT_EQ(c.mshrs, 32u);
    EXPECT_EQ(c.variant, GMMU_WS_TREE);
    EXPECT_EQ(gmmu_ws_config_check(nullptr, nullptr), GMMU_EINVAL);
}

} // namespace

// Serial walkers: the one that frees up first takes the walk; ties go to the
// lowest index (reproducible timing: idle walkers are taken in order).
TEST(WalkSchedPickWalker, EarliestFreeLowestIndexOnTies)
{
    const uint64_t a[] = {30, 10, 20, 10};
    EXPECT_EQ(gmmu_ws_pick_walker(a, 4), 1u);
    const uint64_t idle[] = {0, 0, 0};
    EXPECT_EQ(gmmu_ws_pick_walker(idle, 3), 0u);
    const uint64_t last[] = {5, 5, 5, 4};
    EXPECT_EQ(gmmu_ws_pick_walker(last, 4), 3u);
    EXPECT_EQ(gmmu_ws_pick_walker(a, 1), 0u);
    EXPECT_EQ(gmmu_ws_pick_walker(a, 0), 0u);
    EXPECT_EQ(gmmu_ws_pick_walker(nullptr, 4), 0u);
    // against a plain scan on random times
    uint64_t x = 12345;
    for (int t = 0; t < 1000; t++) {
        uint64_t v[8];
        const unsigned n = 1 + unsigned(t % 8);
        for (unsigned i = 0; i < n; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            v[i] = (x >> 33) % 4;
        }
        unsigned best = 0;
        for (unsigned i = 0; i < n; i++)
            if (v[i] < v[best])
                best = i;
        EXPECT_EQ(gmmu_ws_pick_walker(v, n), best);
    }
}

// MSHRs shared across batches: a batch starts when as many MSHRs as it has
// walks (at most all of them) are free, and its last walks hold the MSHRs
// that were free first.
TEST(WalkSchedBatchMshrs, ABatchStartsWhenItHasItsMshrs)
{
    const uint64_t f[] = {50, 10, 30, 20};
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 1, 0), 10u);  // one walk: the first free MSHR
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 2, 0), 20u);  // two: the second
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 3, 25), 30u); // three, requested at 25
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 4, 0), 50u);
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 9, 0), 50u);  // more walks than MSHRs: all of them
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 2, 60), 60u); // never before the request
    EXPECT_EQ(gmmu_ws_batch_start(f, 4, 0, 7), 7u);
    EXPECT_EQ(gmmu_ws_batch_start(nullptr, 4, 2, 7), 7u);
    EXPECT_EQ(gmmu_ws_batch_start(f, 0, 2, 7), 7u);
    // One MSHR: batches follow each other, as a scheduler busy until its last walk.
    const uint64_t one[] = {40};
    EXPECT_EQ(gmmu_ws_batch_start(one, 1, 3, 0), 40u);
}

// The start is the k-th smallest free time (k: the batch's walks, at most
// the MSHRs), whichever side of the middle k is and with ties: against a
// sorted copy on random free times.
TEST(WalkSchedBatchMshrs, TheStartIsTheKthFreeTimeOnRandomTimes)
{
    std::mt19937_64 rng(11);
    for (int round = 0; round < 4000; round++) {
        const unsigned n = 1 + unsigned(rng() % GMMU_WS_MAX_MSHRS);
        std::vector<uint64_t> f(n);
        const uint64_t spread = round % 2 ? 8 : 1000; // few distinct values: ties
        for (auto &x : f)
            x = rng() % spread;
        std::vector<uint64_t> sorted = f;
        std::sort(sorted.begin(), sorted.end());
        const unsigned walks = 1 + unsigned(rng() % (n + 3));
        const uint64_t req = rng() % spread;
        const uint64_t want = std::max(sorted[std::min(walks, n) - 1], req);
        ASSERT_EQ(gmmu_ws_batch_start(f.data(), n, walks, req), want) << "n " << n << " walks " << walks;
    }
}

TEST(WalkSchedBatchMshrs, TheLastWalksHoldTheMshrsFreeFirst)
{
    uint64_t f[] = {50, 10, 30, 20};
    const uint64_t done2[] = {70, 90};
    gmmu_ws_batch_hold(f, 4, done2, 2); // MSHRs 1 (10) and 3 (20) take 90 and 70
    EXPECT_EQ(f[0], 50u);
    EXPECT_EQ(f[1], 90u);
    EXPECT_EQ(f[2], 30u);
    EXPECT_EQ(f[3], 70u);
    // A batch larger than the MSHRs: only its 4 latest walks still hold one.
    uint64_t g[] = {0, 0, 0, 0};
    const uint64_t done6[] = {5, 60, 7, 80, 65, 9};
    gmmu_ws_batch_hold(g, 4, done6, 6);
    uint64_t sorted[4] = {g[0], g[1], g[2], g[3]};
    std::sort(sorted, sorted + 4);
    EXPECT_EQ(sorted[0], 9u);
    EXPECT_EQ(sorted[1], 60u);
    EXPECT_EQ(sorted[2], 65u);
    EXPECT_EQ(sorted[3], 80u);
    // Ties among the free MSHRs: the lowest index first.
    uint64_t h[] = {0, 0, 0};
    const uint64_t d1[] = {42};
    gmmu_ws_batch_hold(h, 3, d1, 1);
    EXPECT_EQ(h[0], 42u);
    EXPECT_EQ(h[1], 0u);
    EXPECT_EQ(h[2], 0u);
    gmmu_ws_batch_hold(h, 3, nullptr, 1); // nothing to hold: unchanged
    gmmu_ws_batch_hold(h, 3, d1, 0);
    EXPECT_EQ(h[0], 42u);
}

// Against a plain model on random batches: the MSHRs as a list of busy-until
// times, a batch taking the k earliest, each then busy until one of the k
// latest walk ends; the start is the latest of the k taken (or the request).
TEST(WalkSchedBatchMshrs, MatchesAPlainModelOnRandomBatches)
{
    std::mt19937_64 rng(7);
    for (int t = 0; t < 200; t++) {
        const unsigned nslots = 1 + unsigned(rng() % 64);
        std::vector<uint64_t> f(nslots), ref(nslots);
        uint64_t now = 0;
        for (int b = 0; b < 50; b++) {
            now += rng() % 40;
            const unsigned n = 1 + unsigned(rng() % 80);
            std::vector<uint64_t> sorted_ref = ref;
            std::sort(sorted_ref.begin(), sorted_ref.end());
            const unsigned k = std::min(n, nslots);
            const uint64_t want_start = std::max(now, sorted_ref[k - 1]);
            const uint64_t start = gmmu_ws_batch_start(f.data(), nslots, n, now);
            ASSERT_EQ(start, want_start);
            std::vector<uint64_t> done(n);
            for (auto &d : done)
                d = start + 1 + rng() % 500;
            gmmu_ws_batch_hold(f.data(), nslots, done.data(), n);
            std::vector<uint64_t> late = done;
            std::sort(late.rbegin(), late.rend());
            for (unsigned i = 0; i < k; i++)
                sorted_ref[i] = late[i];
            ref = sorted_ref;
            std::vector<uint64_t> got = f;
            std::sort(got.begin(), got.end());
            std::sort(ref.begin(), ref.end());
            ASSERT_EQ(got, ref);
        }
    }
}

// ---- one walk step, the walk engine (models/include/gmmu/walk_{step,engine}.h) ----
namespace {

// gmmu_walk_step applied level by level is gmmu_walk_from: the same fault,
// leaf, A/D write-backs (each entry's new value) and permissions.
TEST(WalkStep, LevelByLevelEqualsWalkFromWithAndWithoutAD)
{
    std::mt19937_64 rng(SeedFromEnv(0x5eed0042));
    for (int trial = 0; trial < 30; trial++) {
        World w(rng);
        for (auto a : DrawMshrs(w, rng, 16, true)) {
            for (unsigned ad : {0u, (unsigned)GMMU_ACC_SET_AD}) {
                // the reference on a copy of the memory (SET_AD writes)
                TestMem ref_mem = w.mem;
                gmmu_mem_ops ref_ops = ref_mem.ops();
                gmmu_walk_result ref;
                ASSERT_EQ(gmmu_walk_from(&ref_ops, a.table_base, a.start_level, a.va, a.access | ad, &ref),
                          GMMU_OK);
                if (ref.fault == GMMU_FAULT_NONCANONICAL)
                    continue;
                TestMem mine = w.mem;
                uint64_t table = a.table_base, level_pte[5] = {};
                gmmu_walk_step_out o{};
                gmmu_walk_perm perm;
                gmmu_walk_perm_init(&perm);
                unsigned level = a.start_level;
                for (;; level--) {
                    uint64_t pte = 0, pa = table + 8ull * gmmu_va_index(a.va, level);
                    TestMem::read64(&mine, pa, &pte);
                    gmmu_walk_step(pte, level, a.access | ad, &perm, &o);
                    if (o.ad_write)
                        TestMem::write64(&mine, pa, o.pte);
                    level_pte[level] = o.pte;
                    if (o.leaf)
                        break;
                    table = o.next_table;
                }
                EXPECT_EQ(o.fault, ref.fault);
                EXPECT_EQ(level, ref.read_level[ref.nreads - 1]) << "the walk ends where gmmu_walk_from's does";
                if (ref.fault != GMMU_FAULT_NONE) {
                    EXPECT_EQ(o.fault_level, ref.fault_level);
                }
                EXPECT_EQ(mine.words, ref_mem.words) << "A/D write-backs";
                if (ref.fault == GMMU_FAULT_NONE) {
                    EXPECT_EQ(o.page_shift, ref.page_shift);
                    EXPECT_EQ(o.pte, ref.pte);
                    EXPECT_EQ(gmmu_walk_perms(level_pte, a.start_level, level), ref.perms);
                }
                if (HasFailure())
                    return;
            }
        }
    }
}

// Issue 41 item 4: one order for every walker (gmmu_pte_judge's). A
// not-present entry is a translation fault even under an upper level that
// denies the access; a denial is carried to the leaf and reported there
// with its own level; bit 12 (PAT) of a 2 MiB leaf is not a reserved bit.
TEST(WalkStep, DenialIsCarriedToThePresentLeaf)
{
    const uint64_t P = GMMU_PTE_P, W = GMMU_PTE_W, U = GMMU_PTE_U, PS = GMMU_PTE_PS;
    const uint64_t table = 0x5000, frame2m = 0x40000000;
    gmmu_walk_perm perm;
    gmmu_walk_step_out o{};
    // write under a read-only PDE: the walk goes on to the PTE
    gmmu_walk_perm_init(&perm);
    gmmu_walk_step(P | U | table, 2, GMMU_ACC_WRITE, &perm, &o);
    EXPECT_EQ(o.fault, GMMU_FAULT_NONE);
    EXPECT_FALSE(o.leaf);
    EXPECT_EQ(o.next_table, table);
    gmmu_walk_perm q = perm;
    gmmu_walk_step(U | W, 1, GMMU_ACC_WRITE, &perm, &o); // not present
    EXPECT_EQ(o.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(o.fault_level, 1u);
    gmmu_walk_step(P | U | W | 0x9000, 1, GMMU_ACC_WRITE, &q, &o); // present: the PDE's denial
    EXPECT_EQ(o.fault, GMMU_FAULT_WRITE);
    EXPECT_EQ(o.fault_level, 2u);
    // user read under a supervisor PDE
    gmmu_walk_perm_init(&perm);
    gmmu_walk_step(P | W | table, 2, GMMU_ACC_USER, &perm, &o);
    EXPECT_FALSE(o.leaf);
    gmmu_walk_step(0, 1, GMMU_ACC_USER, &perm, &o);
    EXPECT_EQ(o.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(o.fault_level, 1u);
    // a denying entry and those below it get no A bit
    gmmu_walk_perm_init(&perm);
    gmmu_walk_step(P | U | table, 2, GMMU_ACC_WRITE | GMMU_ACC_SET_AD, &perm, &o);
    EXPECT_FALSE(o.ad_write);
    // PAT (bit 12) of a 2 MiB leaf: a translation; bit 13 stays reserved
    gmmu_walk_perm_init(&perm);
    gmmu_walk_step(P | W | U | PS | frame2m | (1ull << 12), 2, 0, &perm, &o);
    EXPECT_EQ(o.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(o.page_shift, 21u);
    gmmu_walk_perm_init(&perm);
    gmmu_walk_step(P | W | U | PS | frame2m | (1ull << 13), 2, 0, &perm, &o);
    EXPECT_EQ(o.fault, GMMU_FAULT_RESERVED);
}

TEST(WalkStep, PermsAccumulateWUAndNX)
{
    const uint64_t P = GMMU_PTE_P, W = GMMU_PTE_W, U = GMMU_PTE_U, NX = GMMU_PTE_NX;
    uint64_t pte[5] = {0, P | W | U | GMMU_PTE_A | GMMU_PTE_D, P | U | NX, P | W | U, P | W | U};
    EXPECT_EQ(gmmu_walk_perms(pte, 4, 1), U | NX | GMMU_PTE_A | GMMU_PTE_D);
    EXPECT_EQ(gmmu_walk_perms(pte, 1, 1), W | U | GMMU_PTE_A | GMMU_PTE_D);
    EXPECT_EQ(gmmu_walk_perms(pte, 4, 3), W | U);
    EXPECT_EQ(gmmu_walk_perms(pte, 1, 2), 0u); // leaf below the start: no walk
}

TEST(WalkPwcPort, HitsArePipelinedThroughOnePort)
{
    auto walk = [](bool hit, uint32_t cycles) {
        gmmu_we_walk w{};
        w.pwc_hit = hit;
        w.pwc_cycles = cycles;
        return w;
    };
    const gmmu_we_walk wk[4] = {walk(true, 3), walk(false, 50), walk(true, 5), walk(true, 2)};
    EXPECT_EQ(gmmu_pwc_port_cycles(wk, 4), 5u + 3u - 1u); // slowest hit + one per further hit
    EXPECT_EQ(gmmu_pwc_port_cycles(wk, 1), 3u);
    EXPECT_EQ(gmmu_pwc_port_cycles(wk + 1, 1), 0u); // a lookup that gave no start holds no port
    EXPECT_EQ(gmmu_pwc_port_cycles(wk, 0), 0u);
    const gmmu_we_walk zero[2] = {walk(true, 0), walk(true, 0)};
    EXPECT_EQ(gmmu_pwc_port_cycles(zero, 2), 1u);
}

TEST(WalkLimit, OneLimitForEveryWalkerKind)
{
    gmmu_error err{};
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_SERIAL, 64, &err), GMMU_OK); // named configs k80/p100
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_SERIAL, GMMU_WS_MAX_WALKERS, &err), GMMU_OK);
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_SERIAL, GMMU_WS_MAX_WALKERS + 1, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "walkers");
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_SERIAL, 0, &err), GMMU_EINVAL);
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_TREE, 2, &err), GMMU_EINVAL);
    EXPECT_EQ(gmmu_ws_walkers_check(GMMU_WS_PAIRWISE, 1, &err), GMMU_OK);
    // the step model runs the most walkers the limit allows
    gmmu_ws_config c = Cfg(GMMU_WS_SERIAL, GMMU_WS_MAX_WALKERS, GMMU_WS_MAX_MSHRS);
    Sched ws;
    ASSERT_EQ(ws.Create(c), GMMU_OK);
    // the engine takes its walkers through the same check
    gmmu_we_config ec{GMMU_WS_SERIAL, GMMU_WS_MAX_WALKERS + 1, 0, 1000, 0, false, false};
    gmmu_walk_engine *e = nullptr;
    EXPECT_EQ(gmmu_we_create(&ec, nullptr, &e, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "walkers");
    ec.walkers = 64;
    ASSERT_EQ(gmmu_we_create(&ec, nullptr, &e, &err), GMMU_OK);
    gmmu_we_destroy(e);
}

// Memory behind the engine: fixed read latency in cycles, write latency in
// ticks; records (pa, tick) of every access.
struct EngMem {
    TestMem *mem = nullptr;
    uint32_t read_cycles = 10;
    uint64_t write_ticks = 3000;
    std::vector<std::pair<uint64_t, uint64_t>> reads, writes;
    bool fail = false;
    static gmmu_status rd(void *ctx, uint64_t pa, uint64_t at, uint64_t *data, uint32_t *lat)
    {
        auto *m = static_cast<EngMem *>(ctx);
        if (m->fail)
            return GMMU_EMEM;
        m->reads.push_back({pa, at});
        *lat = m->read_cycles;
        return TestMem::read64(m->mem, pa, data);
    }
    static gmmu_status wr(void *ctx, uint64_t pa, uint64_t v, uint64_t at, uint64_t *ticks)
    {
        auto *m = static_cast<EngMem *>(ctx);
        m->writes.push_back({pa, at});
        *ticks = m->write_ticks;
        return TestMem::write64(m->mem, pa, v);
    }
    gmmu_we_mem ops() { return gmmu_we_mem{&rd, &wr, this}; }
};

struct Engine : std::unique_ptr<gmmu_walk_engine, void (*)(gmmu_walk_engine *)> {
    Engine(const gmmu_we_config &c, gmmu_line_cache *lc = nullptr) : unique_ptr(nullptr, &gmmu_we_destroy)
    {
        gmmu_walk_engine *e = nullptr;
        EXPECT_EQ(gmmu_we_create(&c, lc, &e, nullptr), GMMU_OK);
        reset(e);
    }
};

gmmu_we_walk WalkOf(const gmmu_ws_alloc &a, bool hit = false, uint32_t pwc_cycles = 0)
{
    gmmu_we_walk w{};
    w.va = a.va;
    w.table = a.table_base;
    w.start_level = a.start_level;
    w.access = a.access;
    w.pwc_hit = hit;
    w.pwc_cycles = pwc_cycles;
    return w;
}

// The address of a temporary, alive to the end of the full expression.
const gmmu_we_walk *Ptr(const gmmu_we_walk &w) { return &w; }

// Serial: a walk reads one entry after the other from its start; the walker
// that frees first takes the next walk; the PWC hit's cycles come first; A/D
// write-backs take their time inside the walk; fixed_walk_cycles overrides.
TEST_F(Figure8, EngineSerialAddsUpEachWalksAccesses)
{
    const uint64_t clk = 1000;
    EngMem em;
    em.mem = &mem;
    gmmu_we_mem ops = em.ops();
    Engine e(gmmu_we_config{GMMU_WS_SERIAL, 2, 0, clk, 0, false, false});
    gmmu_we_done d[3];
    ASSERT_EQ(gmmu_we_serial(e.get(), &ops, Ptr(WalkOf(allocs[0])), 500, &d[0]), GMMU_OK);
    EXPECT_EQ(d[0].walker, 0);
    EXPECT_EQ(d[0].start, 500u);
    EXPECT_EQ(d[0].done, 500u + 4 * 10 * clk);
    ASSERT_EQ(em.reads.size(), 4u);
    for (unsigned k = 0; k < 4; k++)
        EXPECT_EQ(em.reads[k], std::make_pair(walks[0].read_pa[k], 500u + k * 10 * clk));
    EXPECT_EQ(d[0].w.pa, walks[0].pa);
    EXPECT_EQ(d[0].w.perms, walks[0].perms);
    // walker 1 is idle: the second walk starts at its request; a 7-cycle PWC hit first
    ASSERT_EQ(gmmu_we_serial(e.get(), &ops, Ptr(WalkOf(allocs[1], true, 7)), 600, &d[1]), GMMU_OK);
    EXPECT_EQ(d[1].walker, 1);
    EXPECT_EQ(d[1].done, 600u + 7 * clk + 4 * 10 * clk);
    // both busy: the third waits for walker 0
    ASSERT_EQ(gmmu_we_serial(e.get(), &ops, Ptr(WalkOf(allocs[2])), 700, &d[2]), GMMU_OK);
    EXPECT_EQ(d[2].walker, 0);
    EXPECT_EQ(d[2].start, d[0].done);
    // fixed length and A/D write-backs (4 A bits, each 3000 ticks inside the walk)
    Engine f(gmmu_we_config{GMMU_WS_SERIAL, 1, 0, clk, 25, false, false});
    ASSERT_EQ(gmmu_we_serial(f.get(), &ops, Ptr(WalkOf(allocs[0])), 0, &d[0]), GMMU_OK);
    EXPECT_EQ(d[0].done, 25 * clk);
    Engine ad(gmmu_we_config{GMMU_WS_SERIAL, 1, 0, clk, 0, true, false});
    em.reads.clear();
    ASSERT_EQ(gmmu_we_serial(ad.get(), &ops, Ptr(WalkOf(allocs[0])), 0, &d[0]), GMMU_OK);
    EXPECT_EQ(em.writes.size(), 4u);
    EXPECT_EQ(d[0].done, 4 * 10 * clk + 4 * 3000u);
    EXPECT_TRUE(d[0].w.perms & GMMU_PTE_A);
    // a failed read: a bus error when it failed, the walker not held
    em.fail = true;
    ASSERT_EQ(gmmu_we_serial(e.get(), &ops, Ptr(WalkOf(allocs[0])), 0, &d[0]), GMMU_OK);
    EXPECT_EQ(d[0].status, GMMU_EMEM);
    EXPECT_EQ(d[0].w.fault, GMMU_FAULT_BUS_ERROR);
}

// outcome_only (issue 46 item 4): the same reads at the same times, the same
// outcome and walker choice, and no per-read record (it fills only a PWC).
TEST_F(Figure8, EngineSerialOutcomeOnlyKeepsTheOutcomeNotTheRecord)
{
    const uint64_t clk = 1000;
    EngMem ea, eb;
    ea.mem = &mem;
    eb.mem = &mem;
    gmmu_we_mem oa = ea.ops(), ob = eb.ops();
    Engine full(gmmu_we_config{GMMU_WS_SERIAL, 2, 0, clk, 0, false, false});
    Engine lean(gmmu_we_config{GMMU_WS_SERIAL, 2, 0, clk, 0, false, true});
    for (unsigned i = 0; i < 3; i++) {
        gmmu_we_done a, b;
        ASSERT_EQ(gmmu_we_serial(full.get(), &oa, Ptr(WalkOf(allocs[i], i == 1, 7)), 100 * i, &a), GMMU_OK);
        ASSERT_EQ(gmmu_we_serial(lean.get(), &ob, Ptr(WalkOf(allocs[i], i == 1, 7)), 100 * i, &b), GMMU_OK);
        EXPECT_EQ(a.walker, b.walker);
        EXPECT_EQ(a.start, b.start);
        EXPECT_EQ(a.done, b.done);
        EXPECT_EQ(a.w.fault, b.w.fault);
        EXPECT_EQ(a.w.pa, b.w.pa);
        EXPECT_EQ(a.w.perms, b.w.perms);
        EXPECT_EQ(a.w.nreads, b.w.nreads);
        EXPECT_EQ(a.w.read_pa[0], walks[i].read_pa[0]);
        EXPECT_EQ(b.w.read_pa[0], 0u);
        EXPECT_EQ(b.w.table_base[4], 0u);
    }
    EXPECT_EQ(ea.reads, eb.reads);
}

// Scheduled: one batch through the C model's step device; every walk's
// entries, permissions and end time come from the run, A/D bits are written
// back once per entry, and the memory afterwards is what serial walkers
// with A/D write-back leave.
TEST(WalkEngineBatch, PermissionsAndADWithoutASecondWalk)
{
    std::mt19937_64 rng(SeedFromEnv(0x5eed0043));
    const uint64_t clk = 1000;
    for (int trial = 0; trial < 60; trial++) {
        World w(rng);
        const unsigned n = 1 + (unsigned)(rng() % 40);
        auto allocs = DrawMshrs(w, rng, n, true);
        for (bool ad : {false, true}) {
            TestMem serial_mem = w.mem; // serial walkers with A/D in this order
            gmmu_mem_ops sops = serial_mem.ops();
            std::vector<gmmu_walk_result> ref(n);
            for (unsigned i = 0; i < n; i++)
                ASSERT_EQ(gmmu_walk_from(&sops, allocs[i].table_base, allocs[i].start_level, allocs[i].va,
                                         allocs[i].access | (ad ? GMMU_ACC_SET_AD : 0u), &ref[i]),
                          GMMU_OK);
            TestMem bm = w.mem;
            EngMem em;
            em.mem = &bm;
            gmmu_we_mem ops = em.ops();
            gmmu_ws_config cfg = Cfg(rng() % 2 ? GMMU_WS_TREE : GMMU_WS_PAIRWISE, 1, 8);
            Sched ws;
            ASSERT_EQ(ws.Create(cfg), GMMU_OK);
            gmmu_ws_device dev;
            gmmu_walk_sched_device(ws.get(), &dev);
            Engine e(gmmu_we_config{cfg.variant, 1, cfg.mshrs, clk, 0, ad, false});
            std::vector<gmmu_we_walk> wk;
            for (auto &a : allocs)
                wk.push_back(WalkOf(a));
            std::vector<gmmu_we_done> out(n);
            gmmu_ws_run_stats st{};
            ASSERT_EQ(gmmu_we_batch(e.get(), &dev, &st, &ops, wk.data(), n, 5000, out.data()), GMMU_OK);
            const uint64_t reads_before_ad = em.reads.size();
            EXPECT_EQ(reads_before_ad, st.refs_issued) << "no second walk";
            for (unsigned i = 0; i < n; i++) {
                EXPECT_EQ(out[i].status, GMMU_OK);
                EXPECT_EQ(out[i].w.fault, ref[i].fault) << i;
                EXPECT_EQ(out[i].w.pa, ref[i].pa) << i;
                EXPECT_EQ(out[i].w.pte, ref[i].pte) << i;
                EXPECT_EQ(out[i].w.perms, ref[i].perms) << i;
                EXPECT_GE(out[i].done, out[i].start + clk) << i;
            }
            EXPECT_EQ(bm.words, serial_mem.words) << "A/D bits as serial walkers leave them";
            // as many write-backs as the serial walkers make: an entry whose
            // bits an earlier walk of the batch set is not written again
            EXPECT_EQ(em.writes.size(), serial_mem.writes - w.mem.writes);
            if (!ad) {
                EXPECT_TRUE(em.writes.empty());
            }
            if (HasFailure())
                return;
        }
    }
}

// The batch's timing: reads at the base (start + PWC port cycles), walk i
// ends at base + its done cycle + 1, write-backs add their ticks to the walk.
TEST_F(Figure8, EngineBatchTimesWalksFromThePortAndTheRun)
{
    const uint64_t clk = 1000;
    EngMem em;
    em.mem = &mem;
    gmmu_we_mem ops = em.ops();
    Sched ws;
    ASSERT_EQ(ws.Create(Cfg(GMMU_WS_TREE)), GMMU_OK);
    gmmu_ws_device dev;
    gmmu_walk_sched_device(ws.get(), &dev);
    Engine e(gmmu_we_config{GMMU_WS_TREE, 1, 32, clk, 0, false, false});
    std::vector<gmmu_we_walk> wk = {WalkOf(allocs[0], true, 4), WalkOf(allocs[1], true, 2),
                                    WalkOf(allocs[2])};
    gmmu_we_done out[3];
    ASSERT_EQ(gmmu_we_batch(e.get(), &dev, nullptr, &ops, wk.data(), 3, 100, out), GMMU_OK);
    const uint64_t base = 100 + (4 + 2 - 1) * clk;
    for (auto &r : em.reads)
        EXPECT_EQ(r.second, base);
    // the same walks stepped alone give the done cycles
    RunMem rm;
    rm.mem = &mem;
    Sched ref;
    ASSERT_EQ(ref.Create(Cfg(GMMU_WS_TREE)), GMMU_OK);
    std::vector<gmmu_ws_result> res(3);
    ASSERT_EQ(gmmu_walk_sched_run(ref.get(), allocs.data(), 3, &RunMem::fn, &rm, res.data(), nullptr), GMMU_OK);
    for (unsigned i = 0; i < 3; i++) {
        EXPECT_EQ(out[i].start, 100u);
        EXPECT_EQ(out[i].done, base + (res[i].done_cycle + 1) * clk) << i;
    }
}

} // namespace
