// The components' builders (issue 42 item 2): a component built from
// key=value pairs through its spec, as an SoC of its own builds it
// (examples/soc_smmu), and a bad key's error the same one line as gmmu-sim's.
#include <gtest/gtest.h>

#include "gmmu/components/ptw_spec.h"
#include "sim_run.h"

namespace {

gmmu::config from_pairs(const std::vector<std::string> &sets)
{
    gmmu::config c = gmmu::config::defaults();
    for (const std::string &kv : sets) {
        const size_t eq = kv.find('=');
        c.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return c;
}

TEST(Builders, WalkerFromKeyValuePairsHasTheirWalkersAndPwc)
{
    const gmmu::config c = from_pairs({"ptw.walkers=3", "ptw.pwc=tpc"});
    std::unique_ptr<gmmu::ptw> w = gmmu::ptw_builder(c, sc_core::sc_time(1, sc_core::SC_NS)).build("builders_ptw");
    nlohmann::json st;
    w->dump_stats(st);
    EXPECT_EQ(st["walkers"], 3) << st.dump();
    EXPECT_EQ(st["pwc"]["kind"], "tpc") << st.dump();
}

// A rule between two walker keys: the builder throws the line gmmu-sim prints.
TEST(Builders, BadKeyGivesTheSameOneLineErrorAsGmmuSim)
{
    const gmmu::config c = from_pairs({"ptw.pwc_impl=rtl"}); // ptw.pwc=none has no RTL twin
    std::string built;
    try {
        gmmu::ptw_builder(c, sc_core::sc_time(1, sc_core::SC_NS)).build("builders_bad_ptw");
    } catch (const gmmu::config_error &e) {
        built = e.what();
    }
    ASSERT_EQ(built, "config key 'ptw.pwc_impl': only ptw.pwc=tpc or cpwc have RTL twins");
    const SimRun r = run_gmmu_sim("--workload random-sample --set ptw.pwc_impl=rtl --quiet");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out, "gmmu-sim: error: " + built + "\n");
}

// A rule between two TLB levels' groups is config validation, not the
// platform constructor's: loading the config fails with it.
TEST(Builders, TlbGroupsSplitAcrossLevelsFailWhenTheConfigIsValidated)
{
    std::string err;
    try {
        gmmu::config::from_text("{}", "t.json",
                                {"sm.count=4", "l1_tlb.shared_by=2", "l2_tlb.enabled=true", "l2_tlb.groups=0;1-3"});
    } catch (const gmmu::config_error &e) {
        err = e.what();
    }
    EXPECT_EQ(err, "config key 'l2_tlb.groups': SMs sharing one l1_tlb instance must share one l2_tlb "
                   "instance (SM 0 and 1 are split)");
}

} // namespace
