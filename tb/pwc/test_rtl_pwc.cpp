// gmmu — CPWC and TPC RTL in lock-step with the C models (label "cosim").
//
// Every test prints its seed; GMMU_TEST_SEED=<n> re-runs one seed,
// GMMU_COSIM_CYCLES=<n> changes the cycles per random run (make cosim-long).
// A failure prints cycle, seed and a field-by-field diff and writes an FST of
// the failing run next to the test binary.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pwc_bench.h"
#include "rtl_cpwc.h"

namespace {

// GMMU_TEST_SEED re-runs one seed; GMMU_COSIM_SEED_BASE shifts the
// default seeds (make cosim-long runs other seeds than CI).
std::vector<uint64_t> seeds(std::vector<uint64_t> dflt)
{
    if (const char *s = std::getenv("GMMU_TEST_SEED"))
        return {std::strtoull(s, nullptr, 0)};
    if (const char *s = std::getenv("GMMU_COSIM_SEED_BASE"))
        for (auto &x : dflt)
            x += std::strtoull(s, nullptr, 0) * 1000;
    return dflt;
}

uint64_t cycles(uint64_t dflt)
{
    if (const char *s = std::getenv("GMMU_COSIM_CYCLES"))
        return std::strtoull(s, nullptr, 0);
    return dflt;
}

std::string test_name()
{
    const auto *t = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string n = std::string(t->test_suite_name()) + "." + t->name();
    for (auto &c : n)
        if (c == '/' || c == '.')
            c = '_';
    return n;
}

pwcbench::RunOpts opts(uint64_t seed, uint64_t n, int reset_values, unsigned k)
{
    pwcbench::RunOpts o;
    o.seed = seed;
    o.cycles = n;
    o.reset_values = reset_values;
    if (const char *e = std::getenv("GMMU_COSIM_STATE_EVERY"))
        o.state_every = unsigned(std::strtoul(e, nullptr, 0));
    o.fst_dir = GMMU_PWC_OUT_DIR;
    o.coverage = std::string(GMMU_PWC_OUT_DIR) + "/cov/" + test_name() + "_" +
                 std::to_string(seed) + "_" + std::to_string(reset_values) + "_" +
                 std::to_string(k) + ".dat";
    return o;
}

bool run_one(const std::string &variant, const pwcbench::RunOpts &o)
{
    std::printf("[ seed     ] GMMU_TEST_SEED=%llu\n", (unsigned long long)o.seed);
    pwcbench::RunResult r = pwcbench::run_random(variant, o);
    std::printf("%s\n", pwcbench::summary(variant, o, r).c_str());
    EXPECT_TRUE(r.ok) << pwcbench::summary(variant, o, r);
    if (r.ok) {
        EXPECT_GE(r.cycles, o.cycles); // the run plus the drain cycles
    }
    return r.ok;
}

} // namespace

TEST(CpwcRtlTest, WorkedExampleFromPaper)
{
    pwcbench::RunOpts o = opts(1, 0, 0, 0);
    pwcbench::RunResult r = pwcbench::run_worked_example("cpwc_example", o);
    std::printf("%s\n", pwcbench::summary("cpwc_example", o, r).c_str());
    EXPECT_TRUE(r.ok) << r.why;
}

TEST(CpwcRtlTest, WorkedExampleUnderEveryResetValue)
{
    uint64_t h = 0;
    for (int rv = 0; rv <= 2; rv++) {
        pwcbench::RunOpts o = opts(7, 0, rv, 0);
        pwcbench::RunResult r = pwcbench::run_worked_example("cpwc_example", o);
        ASSERT_TRUE(r.ok) << "reset values " << rv << ": " << r.why;
        if (rv == 0)
            h = r.trace_hash;
        EXPECT_EQ(r.trace_hash, h) << "reset values " << rv << " changed the outputs";
    }
}

// Lock-step random runs: every output of every cycle, the storage, the
// lookup latency, and every hit against a real walk.
class PwcRtlRandom : public ::testing::TestWithParam<std::string> {};

TEST_P(PwcRtlRandom, LockStepWithCModel)
{
    const std::string v = GetParam();
    // >= 10^6 cycles per block over the variants of that block
    const uint64_t per_seed =
        cycles(v == "cpwc_paper" ? 150000 : v == "tpc_paper" ? 200000 : v == "tpc_fifo" ? 150000 : 100000);
    unsigned k = 0;
    for (uint64_t s : seeds({11, 12, 13}))
        if (!run_one(v, opts(s, per_seed, 2, k++)))
            break;
}

TEST_P(PwcRtlRandom, ResetValuesZeroOneRandomGiveIdenticalResults)
{
    const std::string v = GetParam();
    for (uint64_t s : seeds({21})) {
        uint64_t h = 0;
        for (int rv = 0; rv <= 2; rv++) {
            pwcbench::RunOpts o = opts(s, cycles(20000), rv, 0);
            std::printf("[ seed     ] GMMU_TEST_SEED=%llu reset values %d\n", (unsigned long long)s, rv);
            pwcbench::RunResult r = pwcbench::run_random(v, o);
            std::printf("%s\n", pwcbench::summary(v, o, r).c_str());
            ASSERT_TRUE(r.ok) << pwcbench::summary(v, o, r);
            if (rv == 0)
                h = r.trace_hash;
            EXPECT_EQ(r.trace_hash, h) << "reset values " << rv << " changed the outputs";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, PwcRtlRandom,
                         ::testing::Values("cpwc_paper", "cpwc_example", "cpwc_fifo", "tpc_paper",
                                           "tpc_fifo"),
                         [](const ::testing::TestParamInfo<std::string> &i) { return i.param; });

TEST(RtlPwcTest, FactoryServesOnlyBuiltGeometries)
{
    for (const auto &v : gmmu::rtl_pwc_variants()) {
        std::string why;
        auto r = gmmu::make_rtl_pwc(v.cfg, {}, &why);
        ASSERT_NE(r, nullptr) << v.name << ": " << why;
        EXPECT_EQ(r->variant(), v.name);
    }
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_CPWC, &c);
    c.cpwc.l2_blocks = 61;
    std::string why;
    EXPECT_EQ(gmmu::make_rtl_pwc(c, {}, &why), nullptr);
    EXPECT_NE(why.find("cpwc_paper"), std::string::npos) << why;
    gmmu_pwc_config_default(GMMU_PWC_STC, &c);
    EXPECT_EQ(gmmu::make_rtl_pwc(c, {}, &why), nullptr);
}

TEST(RtlPwcTest, DefaultConfigsHaveRtlTwins)
{
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_CPWC}) {
        gmmu_pwc_config c;
        gmmu_pwc_config_default(k, &c);
        EXPECT_NE(gmmu::make_rtl_pwc(c), nullptr) << gmmu_pwc_kind_name(k);
    }
}

TEST(RtlPwcTest, StepRejectsWhatTheModelRejects)
{
    auto r = gmmu::make_rtl_pwc("cpwc_paper");
    ASSERT_NE(r, nullptr);
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    EXPECT_EQ(r->step(&in, &out), GMMU_OK);
    in.fill_levels = 8;
    EXPECT_EQ(r->step(&in, &out), GMMU_EINVAL);
    in.fill_levels = 0;
    in.lookup_valid = 2;
    EXPECT_EQ(r->step(&in, &out), GMMU_EINVAL);
    EXPECT_EQ(r->step(nullptr, &out), GMMU_EINVAL);
}
