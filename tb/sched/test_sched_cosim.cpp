// gmmu walk-scheduler bench: rtl/walk_sched.sv in lock-step with the C model.
// Seeds: GMMU_SEED=<n> re-runs every random test with that seed; GMMU_CYCLES=<n>
// sets the cycles of each random run (cosim_long.sh). A mismatch prints the
// cycle, the seed and a field-by-field diff, then re-runs the case with an FST
// waveform written beside the test binary's build folder.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "rtl_walk_sched.h"
#include "sched_mem.h"
#include "sched_seq.h"

using sched_tb::RunResult;

namespace {

uint64_t EnvU64(const char *name, uint64_t dflt)
{
    const char *s = std::getenv(name);
    return s && *s ? std::strtoull(s, nullptr, 0) : dflt;
}

std::string TestName()
{
    const auto *ti = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string n = std::string(ti->test_suite_name()) + "." + ti->name();
    for (char &c : n)
        if (c == '/')
            c = '_';
    return n;
}

std::string CovFile() { return std::string(GMMU_SCHED_COV_DIR) + "/" + TestName() + ".dat"; }
std::string FstFile() { return std::string(GMMU_SCHED_FST_DIR) + "/" + TestName() + ".fst"; }

gmmu_ws_config Find(const std::string &name)
{
    for (const auto &c : gmmu::RtlWalkSched::Available())
        if (gmmu::RtlWalkSched::Name(c) == name)
            return c;
    ADD_FAILURE() << "configuration " << name << " is not compiled into gmmu_rtl_sched";
    return gmmu_ws_config{};
}

uint64_t VaOf(unsigned i4, unsigned i3, unsigned i2, unsigned i1)
{
    return ((uint64_t)i4 << 39) | ((uint64_t)i3 << 30) | ((uint64_t)i2 << 21) | ((uint64_t)i1 << 12);
}

// ---- figure 8 of Pichai et al. (pichai-asplos14 §6.3) ---------------------------

struct Figure8 : ::testing::Test {
    sched_tb::SparseMem mem;
    gmmu_mem_ops ops{};
    gmmu_pt *pt = nullptr; // owned
    ~Figure8() override { gmmu_pt_destroy(pt); }
    std::vector<gmmu_ws_alloc> allocs;
    std::vector<gmmu_walk_result> walks;

    void SetUp() override
    {
        ops = mem.ops();
        ASSERT_EQ(gmmu_pt_create(&ops, &sched_tb::SparseMem::alloc, &mem, &pt, nullptr), GMMU_OK);
        const uint64_t vas[3] = {VaOf(0xb9, 0x0c, 0xac, 0x03), VaOf(0xb9, 0x0c, 0xac, 0x04),
                                 VaOf(0xb9, 0x0c, 0xad, 0x05)};
        for (unsigned i = 0; i < 3; i++) {
            ASSERT_EQ(gmmu_pt_map(pt, vas[i], 0x40000000ull + 0x1000ull * i, 12,
                                  GMMU_MAP_U | GMMU_MAP_W, nullptr),
                      GMMU_OK);
            gmmu_ws_alloc a{};
            a.va = vas[i] | 0x123;
            a.table_base = pt->root;
            a.start_level = 4;
            a.valid = 1;
            allocs.push_back(a);
            gmmu_walk_result w;
            ASSERT_EQ(gmmu_walk_from(&ops, a.table_base, 4, a.va, 0, &w), GMMU_OK);
            ASSERT_EQ(w.nreads, 4u);
            walks.push_back(w);
        }
    }
    std::vector<uint64_t> PaperOrder() const
    {
        const auto &a = walks[0], &b = walks[1], &c = walks[2];
        return {a.table_base[4] + 8 * 0xb9, a.table_base[3] + 8 * 0x0c, a.table_base[2] + 8 * 0xac,
                c.table_base[2] + 8 * 0xad, a.table_base[1] + 8 * 0x03, b.table_base[1] + 8 * 0x04,
                c.table_base[1] + 8 * 0x05};
    }
    RunResult Run(const std::string &cfg, unsigned latency)
    {
        RunResult r = sched_tb::RunDirected(Find(cfg), mem, allocs, latency, "", CovFile());
        if (!r.ok) {
            ADD_FAILURE() << r.msg;
            sched_tb::RunDirected(Find(cfg), mem, allocs, latency, FstFile());
            std::printf("waveform of the failing run: %s\n", FstFile().c_str());
        }
        return r;
    }
    static std::vector<uint64_t> Pas(const RunResult &r)
    {
        std::vector<uint64_t> v;
        for (const auto &q : r.reqs)
            v.push_back(q.second);
        return v;
    }
};

TEST_F(Figure8, TreeRtlIssuesSevenReadsInThePapersOrderInLockStep)
{
    RunResult r = Run("tree32p1r4", 10);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(Pas(r), PaperOrder());
    ASSERT_EQ(r.dones.size(), 3u);
    // completion cycles of the C model's figure-8 test (tests/models/test_walk_sched.cpp)
    EXPECT_EQ(r.dones[0].first, 45u);
    EXPECT_EQ(r.dones[1].first, 46u);
    EXPECT_EQ(r.dones[2].first, 47u);
    EXPECT_EQ(r.st.refs_walked, 12u);
    EXPECT_EQ(r.st.same_line_back_to_back, 2u);
}

TEST_F(Figure8, PairwiseRtlIssuesTheSameSevenReadsInLockStep)
{
    RunResult r = Run("pair8p1r4", 10);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(Pas(r), PaperOrder());
    EXPECT_EQ(r.st.scan_passes, 4u);
}

TEST_F(Figure8, SerialRtlIssuesTwelveReadsWalkByWalkInLockStep)
{
    RunResult r = Run("serial8w1r4", 10);
    ASSERT_TRUE(r.ok);
    std::vector<uint64_t> expect;
    for (auto &w : walks)
        expect.insert(expect.end(), w.read_pa, w.read_pa + w.nreads);
    EXPECT_EQ(Pas(r), expect);
    ASSERT_EQ(r.dones.size(), 3u);
    EXPECT_EQ(r.dones[0].first, 45u);
    EXPECT_EQ(r.dones[1].first, 89u);
    EXPECT_EQ(r.dones[2].first, 133u);
}

// Three walkers, idle, and the three walks allocated in one cycle: all three
// are dispatched in the next cycle (cover point c_dispatch_two_walkers, which
// the random runs never reach: they keep the 8 MSHRs full, so a walker
// frees only when a response ends its walk, one a cycle, and the oldest
// waiting walk takes it at once).
TEST_F(Figure8, SerialThreeIdleWalkersTakeThreeWalksInOneCycleInLockStep)
{
    RunResult r = Run("serial8w3r3", 10);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.reqs.size(), 12u) << "a serial walk reads every level itself";
    ASSERT_EQ(r.dones.size(), 3u);
    // one walker (SerialRtlIssuesTwelveReadsWalkByWalkInLockStep) ends at
    // 45 / 89 / 133; three run side by side, sharing the one read port
    EXPECT_LT(r.dones[2].first, 60u);
    // the RTL's own count of cycles that dispatched two or more walks
    std::FILE *f = std::fopen(CovFile().c_str(), "r");
    ASSERT_NE(f, nullptr) << CovFile();
    std::string text;
    char buf[4096];
    for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;)
        text.append(buf, n);
    std::fclose(f);
    const size_t at = text.find("c_dispatch_two_walkers' ");
    ASSERT_NE(at, std::string::npos);
    EXPECT_GE(std::strtoull(text.c_str() + at + 24, nullptr, 10), 1ull);
}

TEST_F(Figure8, SlowTreePassesStillIssueSevenReadsInLockStep)
{
    RunResult r = Run("tree4p3r1", 1);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(Pas(r), PaperOrder());
    EXPECT_EQ(r.st.scan_busy_cycles, 15u); // 5 passes x 3 cycles
}

// ---- seeded random lock-step, every compiled configuration -----------------------

class SchedRandom : public ::testing::TestWithParam<gmmu_ws_config> {};

// Cycles per configuration in CI (>= 10^6 over all configurations, see
// docs/rtl_walk_sched.md): the Verilated model's cost grows with MSHRs x slots,
// so the 4-MSHR configurations run most of the cycles and the pichai14 one
// (32 MSHRs, 128 slots) the fewest.
uint64_t DefaultCycles(const gmmu_ws_config &c)
{
    return c.mshrs >= 32 ? 20000 : c.mshrs >= 8 ? 120000 : 260000;
}

TEST_P(SchedRandom, RtlMatchesCModelEveryCycle)
{
    const gmmu_ws_config cfg = GetParam();
    const std::string name = gmmu::RtlWalkSched::Name(cfg);
    uint64_t dflt_seed = 0x5c4ed000;
    for (char c : name)
        dflt_seed = dflt_seed * 131 + (unsigned char)c;
    const uint64_t seed = EnvU64("GMMU_SEED", dflt_seed & 0xFFFFFFFF);
    const uint64_t cycles = EnvU64("GMMU_CYCLES", DefaultCycles(cfg));
    std::printf("[ seed ] %s GMMU_SEED=0x%llx GMMU_CYCLES=%llu\n", name.c_str(), (unsigned long long)seed,
                (unsigned long long)cycles);
    auto t0 = std::chrono::steady_clock::now();
    RunResult r = sched_tb::RunRandom(cfg, seed, cycles, 0, "", UINT64_MAX, CovFile());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ cycles ] %s: %llu cycles in %.2f s (%.0f cycles/s, C model and RTL), %llu reads, "
                "%llu walks, %llu merged\n",
                name.c_str(), (unsigned long long)r.cycles, s, r.cycles / (s > 0 ? s : 1),
                (unsigned long long)r.st.refs_issued, (unsigned long long)r.st.walks,
                (unsigned long long)r.st.refs_merged);
    if (!r.ok) {
        ADD_FAILURE() << r.msg;
        const std::string fst = FstFile();
        sched_tb::RunRandom(cfg, seed, cycles, 0, fst, r.fail_cycle + 2);
        std::printf("waveform of the failing run (to cycle %llu): %s\n",
                    (unsigned long long)r.fail_cycle + 2, fst.c_str());
        return;
    }
    EXPECT_GT(r.st.walks, r.cycles / 200) << "the random traffic should keep the scheduler busy";
    EXPECT_EQ(r.st.refs_walked, r.st.refs_issued - r.st.refs_wasted + r.st.refs_merged);
    if (cfg.variant != GMMU_WS_SERIAL) {
        EXPECT_GT(r.st.refs_merged, 0u);
    }
}

std::string CfgName(const ::testing::TestParamInfo<gmmu_ws_config> &i)
{
    return gmmu::RtlWalkSched::Name(i.param);
}

INSTANTIATE_TEST_SUITE_P(Configs, SchedRandom, ::testing::ValuesIn(gmmu::RtlWalkSched::Available()),
                         CfgName);

// ---- X checking: flops start at 0, 1 or random; reset makes the runs identical ----

TEST(SchedReset, ZeroOneAndRandomInitialValuesGiveIdenticalRuns)
{
    const uint64_t seed = EnvU64("GMMU_SEED", 0x2e5e7);
    for (const char *name : {"tree8p2r2", "pair4p2r2", "serial8w3r3"}) {
        const gmmu_ws_config cfg = Find(name);
        uint64_t hash[3] = {0, 0, 0};
        for (int rr = 0; rr < 3; rr++) {
            RunResult r = sched_tb::RunRandom(cfg, seed, 20000, rr);
            ASSERT_TRUE(r.ok) << "rand_reset " << rr << ": " << r.msg;
            hash[rr] = r.out_hash;
        }
        EXPECT_EQ(hash[0], hash[1]) << name;
        EXPECT_EQ(hash[0], hash[2]) << name;
    }
}

// ---- the wrapper rejects what the C model rejects ----------------------------------

TEST(SchedWrapper, MalformedInputsAndUnknownConfigsAreRejected)
{
    gmmu_ws_config cfg = Find("tree8p2r2");
    std::string err;
    auto rtl = gmmu::RtlWalkSched::Create(cfg, &err);
    ASSERT_TRUE(rtl) << err;
    gmmu_ws_in in{};
    gmmu_ws_out out{};
    in.alloc[0].valid = 1;
    in.alloc[0].start_level = 5;
    EXPECT_EQ(rtl->Step(&in, &out), GMMU_EINVAL);
    in.alloc[0].start_level = 4;
    in.alloc[0].table_base = 0x1234;
    EXPECT_EQ(rtl->Step(&in, &out), GMMU_EINVAL);
    in = gmmu_ws_in{};
    in.resp.valid = 1;
    in.resp.tag = 3; // nothing in flight
    EXPECT_EQ(rtl->Step(&in, &out), GMMU_EINVAL);
    EXPECT_EQ(rtl->Cycles(), 0u);
    gmmu_ws_config odd = cfg;
    odd.mshrs = 7;
    EXPECT_EQ(gmmu::RtlWalkSched::Create(odd, &err), nullptr);
    EXPECT_NE(err.find("tree7p2r2"), std::string::npos) << err;
}

} // namespace
