// The global quantum (sim.quantum_ns, tlm_quantumkeeper in the SMs) trades
// timing accuracy for speed. What a run computes must not depend on it: the
// instructions executed, the lanes checked (all correct), the bytes written,
// the pages mapped. Timing counters (simulated time, TLB hits, walks) may
// move a little, because SMs that run ahead inside a quantum reach the shared
// TLBs and the walker in another order; docs/architecture.md ("Timing
// conventions") gives the measured size of that.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim_run.h"

namespace {

nlohmann::json run(const std::string &args, unsigned quantum_ns)
{
    const std::string out = ::testing::TempDir() + "gmmu_quantum_" + std::to_string(quantum_ns);
    SimRun r = run_gmmu_sim(args + " --set sim.quantum_ns=" + std::to_string(quantum_ns) +
                            " --quiet --out " + out);
    EXPECT_EQ(r.status, 0) << r.out;
    std::ifstream f(out + "/stats.json");
    return f ? nlohmann::json::parse(f) : nlohmann::json::object();
}

void expect_same_work(const std::string &args)
{
    const nlohmann::json a = run(args, 1), b = run(args, 1000), c = run(args, 100000);
    for (const nlohmann::json *s : {&b, &c}) {
        EXPECT_EQ((*s)["warp_accesses"], a["warp_accesses"]) << args;
        EXPECT_EQ((*s)["data_check"]["lanes_checked"], a["data_check"]["lanes_checked"]) << args;
        EXPECT_EQ((*s)["data_check"]["mismatches"], 0) << args;
        EXPECT_EQ((*s)["gpu"]["memory"]["lane_writes"], a["gpu"]["memory"]["lane_writes"]) << args;
        EXPECT_EQ((*s)["gpu"]["memory"]["bytes_written"], a["gpu"]["memory"]["bytes_written"]) << args;
        EXPECT_EQ((*s)["gpu"]["driver"]["bytes_mapped"], a["gpu"]["driver"]["bytes_mapped"]) << args;
    }
    EXPECT_GT(a["data_check"]["lanes_checked"].get<uint64_t>(), 0u) << args;
}

} // namespace

TEST(QuantumTest, WhatARunComputesDoesNotDependOnTheQuantum)
{
    expect_same_work("--config default --workload random-sample --set workload.region_bytes=16777216 "
                     "--set workload.accesses=8");
    expect_same_work("--config k80 --workload tlb-share --set workload.share_levels=16:131072 "
                     "--set workload.share_sms=0,1,5");
    expect_same_work("--config tanasic17 --workload kernel --set workload.kernel=tiny "
                     "--set workload.faults=true --set sm.fault_scheme=oplog");
}
