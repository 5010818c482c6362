// Preemptible GPU page faults on the platform: sm_core (sm.model=issue)
// driving gmmu_sm through TLM, the fault_handler component, demand paging of
// the kernel workload, block switching, and the data check.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gmmu/components/fault_handler.h"
#include "gmmu/gpu/platform.h"
#include "gmmu/gpu/sm_core_config.h"

#include "sim_run.h"

namespace {

using nlohmann::json;

gmmu::config cfg_of(std::vector<std::string> sets)
{
    std::vector<std::string> base = {"sm.count=4"};
    base.insert(base.end(), sets.begin(), sets.end());
    return gmmu::config::load("tanasic17", base);
}

gmmu::fault_handler *handler_of(gmmu::gpu_platform &gpu)
{
    for (auto &e : gpu.extras)
        if (auto *f = dynamic_cast<gmmu::fault_handler *>(e.get()))
            return f;
    return nullptr;
}

json stats_of(const gmmu::stats_provider &s)
{
    json j;
    s.dump_stats(j);
    return j;
}

json sm_sum(gmmu::gpu_platform &gpu)
{
    json sum = json::object();
    for (auto &s : gpu.sms) {
        const json one = stats_of(*s);
        for (auto &[k, v] : one.items())
            if (v.is_number_unsigned())
                sum[k] = sum.value(k, uint64_t(0)) + v.get<uint64_t>();
    }
    return sum;
}

SimRun sim(const std::string &args)
{
    return run_gmmu_sim(args, "--config tanasic17 --workload kernel");
}

std::string outdir(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / "gmmu_faults_platform" / name;
    std::filesystem::create_directories(d);
    return d.string();
}

json load(const std::string &path)
{
    std::ifstream in(path);
    return json::parse(in);
}

// ---- scheme selection -------------------------------------------------------------

TEST(FaultsPlatformTest, SchemeKeySelectsTheIssueSmAndItsScheme)
{
    gmmu::config cfg = cfg_of({"workload.kernel=tiny", "sm.fault_scheme=oplog",
                               "sm.oplog_bytes=8192"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    ASSERT_EQ(gpu.sms.size(), 4u);
    auto *core = dynamic_cast<gmmu::sm_core *>(gpu.sms[0].get());
    ASSERT_NE(core, nullptr);
    ASSERT_NE(handler_of(gpu), nullptr);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    json s = stats_of(*core);
    EXPECT_EQ(s["scheme"], "oplog");
    // tiny: 16 resident blocks share 8 KiB = 512 B (2 entries) each.
    EXPECT_EQ(s["oplog_partition_bytes"], 512u);
    EXPECT_GT(r.warp_accesses, 0u);
    EXPECT_GT(r.sim_time_ns, 0.0);
    EXPECT_EQ(r.mismatches, 0u);
}

TEST(FaultsPlatformTest, FaultFreeRunMapsEveryPageBeforeTheRun)
{
    gmmu::config cfg = cfg_of({"workload.kernel=stencil-like", "workload.grid_blocks=16"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    auto *src = dynamic_cast<gmmu::kernel_source *>(wl.get());
    ASSERT_NE(src, nullptr);
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < src->kernel().nregions; i++) {
        bytes += src->kernel().region[i].bytes;
        EXPECT_TRUE(gpu.drv->is_mapped(src->kernel().region[i].base));
    }
    EXPECT_EQ(stats_of(*gpu.drv)["bytes_mapped"], bytes);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(stats_of(*handler_of(gpu))["reports"], 0u);
    EXPECT_EQ(sm_sum(gpu)["faults"], 0u);
}

// ---- the seed: block placement and inputs (docs/faults_platform.md) ----------------

std::vector<uint32_t> handed_out(uint64_t seed)
{
    gmmu::config cfg = cfg_of({"workload.kernel=stencil-like", "workload.grid_blocks=64"});
    auto wl = gmmu::make_workload("kernel", cfg, seed);
    auto *src = dynamic_cast<gmmu::kernel_source *>(wl.get());
    std::vector<uint32_t> ids;
    bool got = true;
    for (unsigned sm = 0; got; sm = (sm + 1) % 4) {
        uint32_t id = 0;
        src->next_block(sm, &got, &id);
        if (got)
            ids.push_back(id);
    }
    return ids;
}

TEST(FaultsPlatformTest, SeedOneHandsBlocksOutInIdOrderOtherSeedsShuffleThem)
{
    std::vector<uint32_t> ids(64);
    for (uint32_t b = 0; b < 64; b++)
        ids[b] = b;
    EXPECT_EQ(handed_out(1), ids); // first wave round robin, then in order
    const std::vector<uint32_t> s2 = handed_out(2), s3 = handed_out(3);
    EXPECT_NE(s2, ids);
    EXPECT_NE(s3, ids);
    EXPECT_NE(s2, s3);
    std::vector<uint32_t> sorted = s2; // every block exactly once
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, ids);
    EXPECT_EQ(handed_out(2), s2); // reproducible
}

TEST(FaultsPlatformTest, SeedChangesTheInputsAndTheRunStillMatchesItsReference)
{
    std::string hash[2];
    for (int i = 0; i < 2; i++) {
        const std::string d = outdir(std::string("seed") + (i ? "2" : "1"));
        SimRun r = sim("--set sm.count=4 --set workload.kernel=histo-like --set workload.grid_blocks=24"
                       " --set workload.faults=true --set sm.fault_scheme=replay-queue --quiet --seed " +
                       std::string(i ? "2" : "1") + " --out " + d);
        ASSERT_EQ(r.status, 0) << r.out; // the in-run data check passed
        json k = load(d + "/kernel.json");
        EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]);
        hash[i] = k["memory_hash"].dump();
    }
    EXPECT_NE(hash[0], hash[1]); // other inputs, other histogram
}

// ---- a fault resolved and replayed ------------------------------------------------

TEST(FaultsPlatformTest, FaultIsResolvedByMappingAndReplayedWithCorrectData)
{
    gmmu::config cfg = cfg_of({"workload.kernel=stencil-like", "workload.grid_blocks=16",
                               "workload.faults=true", "sm.fault_scheme=replay-queue"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    auto *src = dynamic_cast<gmmu::kernel_source *>(wl.get());
    const gmmu_region in = src->kernel().region[0];
    ASSERT_EQ(in.kind, GMMU_REGION_INPUT);
    EXPECT_FALSE(gpu.drv->is_mapped(in.base)); // demand paging: nothing mapped up front
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    json fh = stats_of(*handler_of(gpu));
    json sm = sm_sum(gpu);
    EXPECT_GT(fh["regions_migrated"].get<uint64_t>(), 0u);
    EXPECT_GT(fh["regions_first_touch"].get<uint64_t>(), 0u);
    EXPECT_EQ(fh["regions_resolved"], fh["faults"]);
    EXPECT_GT(sm["faults"].get<uint64_t>(), 0u);
    EXPECT_GT(sm["replayed"].get<uint64_t>(), 0u);
    // The first input region was migrated: its GPU copy holds the CPU data.
    ASSERT_TRUE(gpu.drv->is_mapped(in.base));
    for (uint64_t off = 0; off < 65536; off += 4096 + 8) {
        uint64_t pa = gpu.drv->translate(in.base + off);
        EXPECT_EQ(gpu.mem->read64(pa), gmmu_kernel_input_value(in.base + off)) << off;
    }
    // Every block's registers and every word matched the reference run.
    EXPECT_EQ(r.mismatches, 0u);
    EXPECT_GT(r.lanes_checked, in.bytes / 8);
    // A fault costs what the CPU path says: at least one 12-us migration.
    EXPECT_GT(r.sim_time_ns, 12000.0);
}

TEST(FaultsPlatformTest, CorruptedMigrationFailsTheDataCheck)
{
    gmmu::config cfg = cfg_of({"workload.kernel=stencil-like", "workload.grid_blocks=16",
                               "workload.faults=true", "sm.fault_scheme=oplog"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::fault_handler *fh = handler_of(gpu);
    // Flip one word of every region the handler makes present.
    fh->on_resolved = [&](uint64_t lo, uint64_t) {
        uint64_t pa = gpu.drv->translate(lo + 64);
        gpu.mem->write64(pa, gpu.mem->read64(pa) ^ 1);
    };
    gmmu::run_result r = gpu.run();
    EXPECT_FALSE(r.ok);
    EXPECT_GT(r.mismatches, 0u);
    EXPECT_NE(r.error.find("data check failed"), std::string::npos) << r.error;
}

TEST(FaultsPlatformTest, LocalHandlingResolvesFirstTouchFaultsOnTheGpu)
{
    gmmu::config cfg = cfg_of({"workload.kernel=stencil-like", "workload.grid_blocks=16",
                               "workload.faults=true", "sm.fault_scheme=replay-queue",
                               "fault.local_first_touch=true"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    json fh = stats_of(*handler_of(gpu));
    EXPECT_GT(fh["local"].get<uint64_t>(), 0u);
    EXPECT_EQ(fh["local"], fh["regions_first_touch"]);
    EXPECT_EQ(fh["cpu_alloc"], 0u);
    EXPECT_GT(fh["cpu_migrate"].get<uint64_t>(), 0u);
}

// ---- every scheme: faults end exactly like the fault-free run ---------------------

class EveryScheme : public ::testing::TestWithParam<const char *> {};

TEST_P(EveryScheme, RunWithFaultsEndsWithTheFaultFreeMemoryAndRegisters)
{
    const std::string scheme = GetParam();
    for (const char *kernel : {"tiny", "stencil-like", "bfs-like"}) {
        const std::string common = std::string(" --set sm.count=4 --set workload.kernel=") +
                                   kernel + " --set workload.grid_blocks=" +
                                   (std::string(kernel) == "tiny" ? "8" : "24") + " --quiet";
        const std::string d0 = outdir(scheme + "_" + kernel + "_free");
        const std::string d1 = outdir(scheme + "_" + kernel + "_faults");
        SimRun ref = sim("--set sm.fault_scheme=stall" + common + " --out " + d0);
        ASSERT_EQ(ref.status, 0) << ref.out;
        SimRun run = sim("--set sm.fault_scheme=" + scheme + " --set workload.faults=true" +
                         common + " --out " + d1);
        ASSERT_EQ(run.status, 0) << run.out;
        json a = load(d0 + "/kernel.json"), b = load(d1 + "/kernel.json");
        EXPECT_FALSE(a["demand_paging"].get<bool>());
        EXPECT_TRUE(b["demand_paging"].get<bool>());
        EXPECT_EQ(a["memory_hash"], b["memory_hash"]) << kernel;
        EXPECT_EQ(a["register_hash"], b["register_hash"]) << kernel;
        EXPECT_EQ(a["memory_hash"], a["reference_memory_hash"]) << kernel;
        json s = load(d1 + "/stats.json");
        EXPECT_GT(s["gpu"]["fault_handler"]["faults"].get<uint64_t>(), 0u) << kernel;
        EXPECT_EQ(s["gpu"]["sm0"]["scheme"], scheme);
        EXPECT_GT(s["sim_time_ns"].get<double>(), load(d0 + "/stats.json")["sim_time_ns"].get<double>());
    }
}

INSTANTIATE_TEST_SUITE_P(FaultsPlatform, EveryScheme,
                         ::testing::Values("stall", "wd-commit", "wd-lastcheck", "replay-queue",
                                           "oplog"),
                         [](const ::testing::TestParamInfo<const char *> &i) {
                             std::string n = i.param;
                             for (auto &c : n)
                                 if (c == '-')
                                     c = '_';
                             return n;
                         });

// ---- fault costs ---------------------------------------------------------------------

TEST(FaultsPlatformTest, CpuPathCostsFollowTheLink)
{
    // tiny: one input region (a migration) and two output regions (first
    // touches), faulted one after the other: PCIe costs (25 + 2 x 12 us)
    // exceed NVLink's (12 + 2 x 10 us) by exactly 17 us of simulated time.
    double ns[2];
    const char *links[2] = {"nvlink", "pcie"};
    for (int i = 0; i < 2; i++) {
        const std::string d = outdir(std::string("link_") + links[i]);
        SimRun r = sim(std::string("--set workload.kernel=tiny --set sm.count=4 "
                                   "--set workload.faults=true --set sm.fault_scheme=replay-queue "
                                   "--set fault.link=") + links[i] + " --quiet --out " + d);
        ASSERT_EQ(r.status, 0) << r.out;
        json s = load(d + "/stats.json");
        EXPECT_EQ(s["gpu"]["fault_handler"]["regions_migrated"], 1u);
        EXPECT_EQ(s["gpu"]["fault_handler"]["regions_first_touch"], 2u);
        EXPECT_EQ(s["gpu"]["fault_handler"]["peak_pending"], 1u);
        ns[i] = s["sim_time_ns"].get<double>();
    }
    EXPECT_GT(ns[0], 32000.0);
    EXPECT_NEAR(ns[1] - ns[0], 17000.0, 1.0);
}

// ---- block switching ---------------------------------------------------------------

TEST(FaultsPlatformTest, BlockSwitchingOwnsAtMostMaxExtraBlocksAndKeepsTheData)
{
    gmmu::config cfg = cfg_of({"workload.kernel=sgemm-like", "workload.grid_blocks=256",
                               "workload.faults=true", "sm.fault_scheme=replay-queue",
                               "sm.block_switch=true", "sm.switch_threshold=0",
                               "fault.cpu_servers=4"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    uint64_t peak = 0, outs = 0, restores = 0, ctx = 0;
    for (auto &s : gpu.sms) {
        json j = stats_of(*s);
        peak = std::max(peak, j["peak_extra_blocks"].get<uint64_t>());
        outs += j["switch_outs"].get<uint64_t>();
        restores += j["restores"].get<uint64_t>();
        ctx += j["ctx_cycles"].get<uint64_t>();
    }
    EXPECT_EQ(peak, 4u); // the limit, reached under pressure
    EXPECT_GT(outs, 0u);
    EXPECT_GT(restores, 0u);
    EXPECT_GT(ctx, 0u);
    EXPECT_EQ(r.mismatches, 0u);
}

TEST(FaultsPlatformTest, BlockSwitchLimitFollowsTheKey)
{
    gmmu::config cfg = cfg_of({"workload.kernel=sgemm-like", "workload.grid_blocks=256",
                               "workload.faults=true", "sm.fault_scheme=oplog",
                               "sm.block_switch=true", "sm.switch_threshold=0",
                               "sm.max_extra_blocks=2", "fault.cpu_servers=4"});
    auto wl = gmmu::make_workload("kernel", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    uint64_t peak = 0, outs = 0;
    for (auto &s : gpu.sms) {
        json j = stats_of(*s);
        peak = std::max(peak, j["peak_extra_blocks"].get<uint64_t>());
        outs += j["switch_outs"].get<uint64_t>();
    }
    EXPECT_EQ(peak, 2u);
    EXPECT_GT(outs, 0u);
    EXPECT_EQ(r.mismatches, 0u);
}

// ---- warp schedulers ---------------------------------------------------------------

TEST(FaultsPlatformTest, EveryWarpSchedulerKeepsTheDataUnderEveryScheme)
{
    // The schedulers only reorder issue; every combination must end with the
    // reference memory and registers. CCWS's counters show it was active.
    for (const char *ws : {"gto", "oldest", "ccws", "ta-ccws", "tcws", "tbc", "tlb-tbc"})
        for (const char *scheme : {"stall", "wd-commit", "replay-queue", "oplog"}) {
            const std::string d = outdir(std::string("ws_") + ws + "_" + scheme);
            SimRun r = sim(std::string("--set sm.count=4 --set workload.kernel=bfs-like") +
                           " --set workload.grid_blocks=16 --set workload.faults=true" +
                           " --set sm.warp_scheduler=" + ws + " --set sm.fault_scheme=" + scheme +
                           " --quiet --out " + d);
            ASSERT_EQ(r.status, 0) << ws << "/" << scheme << "\n" << r.out;
            json k = load(d + "/kernel.json");
            EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << ws << "/" << scheme;
            EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << ws << "/" << scheme;
            json s = load(d + "/stats.json");
            uint64_t lost = 0;
            for (auto &[name, v] : s["gpu"].items())
                if (name.rfind("sm", 0) == 0 && v.is_object() && v.contains("lines_lost"))
                    lost += v["lines_lost"].get<uint64_t>();
            const std::string w = ws;
            if (w == "ccws" || w == "ta-ccws" || w == "tcws") {
                EXPECT_GT(lost, 0u) << ws << "/" << scheme;
            } else {
                EXPECT_EQ(lost, 0u);
            }
            uint64_t compactions = 0;
            for (auto &[name, v] : s["gpu"].items())
                if (name.rfind("sm", 0) == 0 && v.is_object() && v.contains("compactions"))
                    compactions += v["compactions"].get<uint64_t>();
            EXPECT_EQ(compactions > 0, w == "tbc" || w == "tlb-tbc") << ws << "/" << scheme;
        }
}

// TCWS on a machine whose L1 TLB is timed by its MSHR model (pichai14): the
// TLB reports the owners of the entries it evicts and the LRU depth of its
// hits there too, so pages are lost to VTAs, found again and scored.
TEST(FaultsPlatformTest, TcwsSeesVictimsAndHitDepthsOfTheMshrTlb)
{
    const std::string d = outdir("tcws_pichai14");
    SimRun r = run_gmmu_sim("--config pichai14 --set sm.model=issue --workload kernel"
                            " --set workload.kernel=bfs-like --set workload.grid_blocks=32"
                            " --set sm.count=2 --set sm.warp_scheduler=tcws --quiet --out " + d);
    ASSERT_EQ(r.status, 0) << r.out;
    json s = load(d + "/stats.json");
    EXPECT_EQ(s["data_check"]["mismatches"], 0u);
    uint64_t lost = 0, vta = 0, throttled = 0;
    for (const char *sm : {"sm0", "sm1"}) {
        lost += s["gpu"][sm]["lines_lost"].get<uint64_t>();
        vta += s["gpu"][sm]["vta_hits"].get<uint64_t>();
        throttled += s["gpu"][sm]["stall_throttled"].get<uint64_t>();
    }
    EXPECT_GT(lost, 0u);
    EXPECT_GT(vta, 0u);
    EXPECT_GT(throttled, 0u);
    // Hits below the MRU entry carry their depth: weighting them 0 changes the run.
    const std::string d0 = outdir("tcws_pichai14_d0");
    r = run_gmmu_sim("--config pichai14 --set sm.model=issue --workload kernel"
                     " --set workload.kernel=bfs-like --set workload.grid_blocks=32"
                     " --set sm.count=2 --set sm.warp_scheduler=tcws --set sm.tcws.weight_d1=0"
                     " --set sm.tcws.weight_d2=0 --set sm.tcws.weight_d3=0 --quiet --out " + d0);
    ASSERT_EQ(r.status, 0) << r.out;
    json s0 = load(d0 + "/stats.json");
    EXPECT_NE(s0["gpu"]["sm0"]["stall_throttled"], s["gpu"]["sm0"]["stall_throttled"]);
}

// Thread block compaction on pichai14 with a divergent kernel: dynamic warps
// fill more lanes than per-warp stacks and mix pages of different warps
// (page divergence after compaction above the same lanes' divergence in
// their static warps); the TLB-aware compactor keeps warps with unrelated
// pages apart, so its dynamic warps touch fewer pages.
TEST(FaultsPlatformTest, TbcFillsLanesAndMixesPagesTlbAwareTbcKeepsThemApart)
{
    auto run = [](const std::string &ws) {
        const std::string d = outdir("tbc_" + ws);
        SimRun r = run_gmmu_sim("--config pichai14 --set sm.model=issue --workload kernel"
                                " --set workload.kernel=bfs-like --set workload.grid_blocks=32"
                                " --set sm.count=2 --set sm.warp_scheduler=" + ws +
                                " --quiet --out " + d);
        EXPECT_EQ(r.status, 0) << ws << "\n" << r.out;
        json s = load(d + "/stats.json");
        EXPECT_EQ(s["data_check"]["mismatches"], 0u) << ws;
        return s["gpu"]["sm0"];
    };
    json base = run("oldest"), tbc = run("tbc"), aware = run("tlb-tbc");
    EXPECT_EQ(base["compactions"], 0u);
    EXPECT_EQ(base["page_divergence_avg"], base["page_divergence_static_avg"]);
    EXPECT_GT(tbc["compactions"].get<uint64_t>(), 0u);
    EXPECT_GT(tbc["simd_utilization"].get<double>(), 1.5 * base["simd_utilization"].get<double>());
    EXPECT_LT(tbc["issued"].get<uint64_t>(), base["issued"].get<uint64_t>());
    EXPECT_GT(tbc["page_divergence_avg"].get<double>(),
              1.5 * tbc["page_divergence_static_avg"].get<double>());
    EXPECT_GT(aware["compactions"].get<uint64_t>(), 0u);
    EXPECT_LT(aware["page_divergence_avg"].get<double>(), tbc["page_divergence_avg"].get<double>());
    EXPECT_GT(aware["dynamic_warps"].get<uint64_t>(), tbc["dynamic_warps"].get<uint64_t>());
    // 48 x 47 three-bit counters plus 128 TLB entries x 2 six-bit warp ids
    EXPECT_EQ(aware["cpm_state_bits"], 8304u);
    EXPECT_EQ(tbc["cpm_state_bits"], 0u);
}

// ---- kernel files ------------------------------------------------------------------

TEST(FaultsPlatformTest, AKernelFileRunsAndBadFilesNameFileAndLine)
{
    const std::string ex = std::string(GMMU_SOURCE_DIR) + "/examples/kernels/clamp_sum.gk";
    const std::string d = outdir("kernel_file");
    SimRun r = sim("--set sm.count=4 --set workload.kernel_file=" + ex +
                   " --set workload.faults=true --set sm.fault_scheme=oplog --quiet --out " + d);
    ASSERT_EQ(r.status, 0) << r.out;
    json k = load(d + "/kernel.json");
    EXPECT_EQ(k["kernel"], "clamp-sum");
    EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]);
    json s = load(d + "/stats.json");
    EXPECT_GT(s["gpu"]["sm0"]["divergent_branches"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["data_check"]["mismatches"], 0u);

    const std::string bad = outdir("kernel_file_bad") + "/bad.gk";
    {
        std::ofstream f(bad);
        f << "kernel bad\nregs 8\ncode\n  addi r4, r0, 1\n  brnz r4, missing\n";
    }
    r = sim("--set workload.kernel_file=" + bad + " --quiet --out " + outdir("kf1"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(bad + ":5: branch to undefined label 'missing'"), std::string::npos) << r.out;
    r = sim("--set workload.kernel_file=" + outdir("kernel_file_bad") + " --quiet --out " + outdir("kf2"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("not a regular file"), std::string::npos) << r.out;
    r = sim("--set workload.kernel_file=/nonexistent.gk --quiet --out " + outdir("kf3"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("workload.kernel_file"), std::string::npos) << r.out;
}

// The real kernels (examples/kernels/*.gk with an input generator,
// docs/kernels.md) pass the data check under the fault schemes and warp
// schedulers: each kernel its first 2 blocks at the full footprint (over
// 1 GiB of generated input), once with demand paging and once without, the
// eight runs between them covering every scheduler and every scheme.
TEST(FaultsPlatformTest, RealKernelsPassTheDataCheckUnderSchemesAndSchedulers)
{
#if defined(__SANITIZE_ADDRESS__)
    // Fifteen runs over 1.1-1.5 GiB footprints, ~50x slower under ASan: the
    // sanitizer build checks the generators (KernelInputsTest, small
    // sizes) and a program of several launches (countdown) instead.
    GTEST_SKIP() << "1 GiB footprints: the normal build runs them";
#endif
    const char *kernels[] = {"kmeans", "streamcluster", "pathfinder", "memcached"};
    const char *schemes[] = {"stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog"};
    const char *scheds[] = {"lrr", "gto", "oldest", "ccws", "ta-ccws", "tcws", "tbc", "tlb-tbc"};
    for (unsigned i = 0; i < 4; i++)
        for (unsigned f = 0; f < 2; f++) {
            const std::string ex = std::string(GMMU_SOURCE_DIR) + "/examples/kernels/" + kernels[i] + ".gk";
            const char *scheme = schemes[(i + 3 * f) % 5], *ws = scheds[2 * i + f];
            const std::string what = std::string(kernels[i]) + "/" + scheme + "/" + ws + (f ? "" : "/faults");
            const std::string d = outdir(std::string("real_") + kernels[i] + (f ? "_nofault" : "_fault"));
            SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + ex + " --set workload.grid_blocks=2" +
                           (f ? "" : " --set workload.faults=true") + " --set sm.fault_scheme=" + scheme +
                           " --set sm.warp_scheduler=" + ws + " --quiet --out " + d);
            ASSERT_EQ(r.status, 0) << what << "\n" << r.out;
            json s = load(d + "/stats.json");
            EXPECT_EQ(s["data_check"]["mismatches"], 0u) << what;
            json k = load(d + "/kernel.json");
            EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << what;
            EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << what;
            EXPECT_GT(s["gpu"]["sm0"]["mem_insns"].get<uint64_t>(), 0u) << what;
            if (!f) {
                EXPECT_GT(s["gpu"]["fault_handler"]["faults"].get<uint64_t>(), 0u) << what;
            }
        }
    // The barrier kernels under thread block compaction (docs/simt.md,
    // "Barriers under compaction"), hotspot and backprop (PICLE's) among
    // them, mummergpu, whose block-wide reconvergence stack goes deeper than
    // a warp's, and lud (three launches of three block shapes): 2 blocks,
    // demand paging.
    const struct {
        const char *name, *ws, *scheme;
    } compacted[] = {{"streamcluster", "tbc", "stall"},      {"pathfinder", "tlb-tbc", "oplog"},
                     {"hotspot", "tbc", "wd-lastcheck"},     {"backprop", "tlb-tbc", "wd-lastcheck"},
                     {"mummergpu", "tbc", "replay-queue"}, {"lud", "tlb-tbc", "oplog"}};
    for (const auto &c : compacted) {
        const std::string what = std::string(c.name) + "/" + c.scheme + "/" + c.ws;
        const std::string d = outdir(std::string("real_") + c.name + "_" + c.ws);
        SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + std::string(GMMU_SOURCE_DIR) +
                       "/examples/kernels/" + c.name + ".gk --set workload.grid_blocks=2 --set workload.faults=true " +
                       "--set sm.fault_scheme=" + c.scheme + " --set sm.warp_scheduler=" + c.ws + " --quiet --out " + d);
        ASSERT_EQ(r.status, 0) << what << "\n" << r.out;
        json k = load(d + "/kernel.json");
        const std::string nm = c.name;
        EXPECT_EQ(k["launches"], nm == "backprop" ? 2u : nm == "lud" ? 3u : 1u) << what;
        EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << what;
        EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << what;
        json s = load(d + "/stats.json");
        EXPECT_EQ(s["data_check"]["mismatches"], 0u) << what;
        EXPECT_GT(s["gpu"]["sm0"]["block_syncs"].get<uint64_t>(), 0u) << what;
        if (nm == "mummergpu") {
            EXPECT_GT(s["gpu"]["sm0"]["simt_peak_depth"].get<uint64_t>(), 32u) << what;
        }
        if (nm == "lud") { // the window keeps lud_diagonal's one block: 1 + 2 + 2 blocks
            EXPECT_EQ(s["gpu"]["sm0"]["blocks_done"].get<uint64_t>() + s["gpu"]["sm1"]["blocks_done"].get<uint64_t>(),
                      5u) << what;
        }
    }
    // bfs, a program: its first 2 blocks of each launch (the window ends the
    // search after one level), with demand paging.
    const std::string d = outdir("real_bfs");
    SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + std::string(GMMU_SOURCE_DIR) +
                   "/examples/kernels/bfs.gk --set workload.grid_blocks=2 --set workload.faults=true "
                   "--set sm.fault_scheme=oplog --set sm.warp_scheduler=gto --quiet --out " + d);
    ASSERT_EQ(r.status, 0) << r.out;
    json k = load(d + "/kernel.json");
    EXPECT_EQ(k["kernel"], "bfs");
    EXPECT_EQ(k["launches"], 2u);
    EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]);
    EXPECT_EQ(k["register_hash"], k["reference_register_hash"]);
    EXPECT_EQ(load(d + "/stats.json")["data_check"]["mismatches"], 0u);
}

// GMMU_INPUTS_CACHE (docs/kernels.md, "Simulation cost"): a slow
// generator's inputs (mummergpu's) are kept in the folder and read back by
// the next run of the same generator, arguments, seed and layout; the
// outputs are the same with the cache, without it, and when a damaged
// cache file is ignored and written again. Other seeds get their own file.
TEST(FaultsPlatformTest, SlowInputsAreCachedAndReadBack)
{
    namespace fs = std::filesystem;
    const std::string gk = std::string(GMMU_SOURCE_DIR) + "/tests/kernels/mummer-small.gk";
    const std::string cache = outdir("inputs_cache");
    fs::remove_all(cache);
    fs::create_directories(cache);
    auto files = [&] { // the inputs' files (the reference runs' records beside them: the next test)
        std::vector<fs::path> v;
        for (const auto &e : fs::directory_iterator(cache))
            if (e.path().filename().string().rfind("inputs-", 0) == 0)
                v.push_back(e.path());
        return v;
    };
    auto run = [&](const std::string &name, const std::string &env, unsigned seed) {
        const std::string d = outdir("inputs_cache_" + name);
        SimRun r = run_gmmu_sim("--set sm.count=2 --set workload.grid_blocks=1 --set workload.kernel_file=" + gk + " --seed " +
                                    std::to_string(seed) + " --quiet --out " + d,
                                "--config tanasic17 --workload kernel", env);
        EXPECT_EQ(r.status, 0) << name << "\n" << r.out;
        json k = load(d + "/kernel.json");
        EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << name;
        return std::make_pair(k["memory_hash"].get<uint64_t>(), k["register_hash"].get<uint64_t>());
    };
    const std::string env = "env GMMU_INPUTS_CACHE=" + cache + " ";
    const auto plain = run("none", "", 3);
    EXPECT_TRUE(files().empty());
    const auto first = run("write", env, 3);
    ASSERT_EQ(files().size(), 1u);
    const fs::path f = files()[0];
    const auto size = fs::file_size(f);
    EXPECT_GT(size, 4u * 1024 * 1024); // the two textures and the rest
    // The key and each input region are padded to 4 KiB pages, so that a
    // run maps the regions rather than reading them; the checksum ends it.
    EXPECT_EQ((size - 8) % 4096, 0u);
    const auto second = run("read", env, 3);
    EXPECT_EQ(first, plain);
    EXPECT_EQ(second, plain);
    // A damaged file (cut short) is ignored and written again.
    fs::resize_file(f, size / 2);
    EXPECT_EQ(run("damaged", env, 3), plain);
    EXPECT_EQ(fs::file_size(f), size);
    // A changed word (the file's size and key intact) fails the checksum:
    // ignored and written again too.
    const auto good = [&] {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }();
    {
        std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
        io.seekp(-16, std::ios::end);
        const uint64_t junk = 0x5a5a5a5a5a5a5a5aull;
        io.write(reinterpret_cast<const char *>(&junk), 8);
    }
    EXPECT_EQ(run("flipped", env, 3), plain);
    {
        std::ifstream in(f, std::ios::binary);
        EXPECT_TRUE(std::string(std::istreambuf_iterator<char>(in), {}) == good);
    }
    // Another seed: its own file.
    run("seed4", env, 4);
    EXPECT_EQ(files().size(), 2u);
}

// GMMU_INPUTS_CACHE also keeps each reference run's record (docs/kernels.md,
// "Simulation cost"): a run with the same program, window, seed and binary
// reads it instead of running the reference again. Every output is the
// same with the record, without it, and when a damaged record is ignored
// and written again (stats.json but for its wall-time columns, kernel.json
// whole). `gmmu-sim --check` with a record leaves the inputs and the
// reference run out (no inputs file appears); without one it builds them
// and leaves the record for the runs. A bad config is refused either way.
TEST(FaultsPlatformTest, ReferenceRunIsRecordedAndReadBack)
{
    namespace fs = std::filesystem;
    const std::string gk = std::string(GMMU_SOURCE_DIR) + "/tests/kernels/mummer-small.gk";
    const std::string cache = outdir("reference_cache");
    fs::remove_all(cache);
    fs::create_directories(cache);
    auto files = [&](const std::string &prefix) {
        std::vector<fs::path> v;
        for (const auto &e : fs::directory_iterator(cache))
            if (e.path().filename().string().rfind(prefix, 0) == 0)
                v.push_back(e.path());
        return v;
    };
    auto slurp = [](const std::string &f) {
        std::ifstream in(f, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), {});
    };
    const std::string args = "--set sm.count=2 --set workload.grid_blocks=2 --set workload.kernel_file=" + gk;
    auto run = [&](const std::string &name, const std::string &env, unsigned seed) {
        const std::string d = outdir("reference_cache_" + name);
        SimRun r = run_gmmu_sim(args + " --seed " + std::to_string(seed) + " --quiet --out " + d,
                                "--config tanasic17 --workload kernel", env);
        EXPECT_EQ(r.status, 0) << name << "\n" << r.out;
        json st = load(d + "/stats.json");
        st.erase("wall_s");
        st.erase("warp_accesses_per_wall_s");
        return st.dump() + slurp(d + "/kernel.json");
    };
    auto check = [&](const std::string &env, unsigned seed, const std::string &extra = "") {
        return run_gmmu_sim("--check " + args + extra + " --seed " + std::to_string(seed),
                            "--config tanasic17 --workload kernel", env);
    };
    const std::string env = "env GMMU_INPUTS_CACHE=" + cache + " ";
    const std::string plain = run("none", "", 3);
    EXPECT_TRUE(files("reference-").empty());
    EXPECT_EQ(run("write", env, 3), plain);
    ASSERT_EQ(files("reference-").size(), 1u);
    const fs::path f = files("reference-")[0];
    const std::string good = slurp(f.string());
    EXPECT_GT(good.size(), 100u);
    EXPECT_EQ(run("read", env, 3), plain);
    // A damaged record (cut short, or a word changed) is ignored and written again.
    fs::resize_file(f, good.size() / 2);
    EXPECT_EQ(run("damaged", env, 3), plain);
    EXPECT_TRUE(slurp(f.string()) == good);
    {
        std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
        io.seekp(-16, std::ios::end);
        const uint64_t junk = 0x5a5a5a5a5a5a5a5aull;
        io.write(reinterpret_cast<const char *>(&junk), 8);
    }
    EXPECT_EQ(run("flipped", env, 3), plain);
    EXPECT_TRUE(slurp(f.string()) == good);
    // A check that finds the record builds no inputs: none are written.
    for (const fs::path &p : files("inputs-"))
        fs::remove(p);
    SimRun c = check(env, 3);
    EXPECT_EQ(c.status, 0) << c.out;
    EXPECT_TRUE(files("inputs-").empty());
    // Another seed has no record: the check builds its inputs and
    // reference run and leaves both for the runs.
    c = check(env, 4);
    EXPECT_EQ(c.status, 0) << c.out;
    EXPECT_EQ(files("inputs-").size(), 1u);
    EXPECT_EQ(files("reference-").size(), 2u);
    // A bad config is still refused (one line, exit 2), record or not.
    for (const std::string &e : {env, std::string()}) {
        c = check(e, 3, " --set sm.model=simt");
        EXPECT_EQ(c.status, 2) << c.out;
        c = check(e, 3, " --set l1_tlb.ways=4096");
        EXPECT_EQ(c.status, 2) << c.out;
    }
}

// sm.access_shape: the shape counters are written only with the key, and
// count what the kernel does (clamp_sum's per-thread 128-byte rows: a warp
// access spans 31 x 128 + 8 bytes over 1-2 pages, never more).
TEST(FaultsPlatformTest, AccessShapeStatsOnlyWithTheKey)
{
    const std::string ex = std::string(GMMU_SOURCE_DIR) + "/examples/kernels/clamp_sum.gk";
    const std::string on = outdir("shape_on"), off = outdir("shape_off");
    SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + ex + " --set sm.access_shape=true --quiet --out " + on);
    ASSERT_EQ(r.status, 0) << r.out;
    r = sim("--set sm.count=2 --set workload.kernel_file=" + ex + " --quiet --out " + off);
    ASSERT_EQ(r.status, 0) << r.out;
    json a = load(on + "/stats.json")["gpu"]["sm0"], b = load(off + "/stats.json")["gpu"]["sm0"];
    EXPECT_FALSE(b.contains("page_divergence_max"));
    EXPECT_FALSE(b.contains("span_max_bytes"));
    EXPECT_EQ(a["mem_insns"], b["mem_insns"]); // counting changes nothing else
    EXPECT_GE(a["page_divergence_max"].get<uint64_t>(), 1u);
    EXPECT_LE(a["page_divergence_max"].get<uint64_t>(), 2u);
    EXPECT_EQ(a["page_divergence_2m_max"].get<uint64_t>(), 1u);
    EXPECT_EQ(a["span_max_bytes"].get<uint64_t>(), 31u * 128u + 8u);
    // The pages the SM touched: at least one, and each one missed at least
    // once in the SM's private L1 TLB (which may miss more: it evicts).
    EXPECT_FALSE(b.contains("pages_touched"));
    const uint64_t touched = a["pages_touched"].get<uint64_t>();
    EXPECT_GE(touched, 1u);
    EXPECT_LE(a["pages_touched_2m"].get<uint64_t>(), touched);
    EXPECT_GE(load(on + "/stats.json")["gpu"]["l1_tlb0"]["misses"].get<uint64_t>(), touched);
    // kernel.json breaks the same instructions down by line of the kernel
    // file: with the key only, and adding up to the SMs' counters.
    EXPECT_FALSE(load(off + "/kernel.json").contains("by_instruction"));
    const json by = load(on + "/kernel.json")["by_instruction"];
    ASSERT_TRUE(by.is_array());
    ASSERT_FALSE(by.empty());
    uint64_t count = 0, pages = 0;
    for (const json &r : by) {
        EXPECT_GT(r["line"].get<uint64_t>(), 0u); // a line of clamp_sum.gk
        EXPECT_TRUE(r["op"] == "ld" || r["op"] == "st" || r["op"] == "red") << r.dump();
        EXPECT_LE(r["pages"].get<uint64_t>(), 2u * r["count"].get<uint64_t>());
        count += r["count"].get<uint64_t>();
        pages += r["pages"].get<uint64_t>();
    }
    const json st = load(on + "/stats.json")["gpu"];
    EXPECT_EQ(count, st["sm0"]["mem_insns"].get<uint64_t>() + st["sm1"]["mem_insns"].get<uint64_t>());
    const double div = (st["sm0"]["page_divergence_avg"].get<double>() * st["sm0"]["mem_insns"].get<double>() +
                        st["sm1"]["page_divergence_avg"].get<double>() * st["sm1"]["mem_insns"].get<double>());
    EXPECT_NEAR(double(pages), div, 1e-6 * div);
}

// A program of two kernels and a host loop (tests/kernels/countdown.gk):
// 7 iterations of two launches, each launch finished on every SM before
// the next starts, under demand paging, fault schemes and schedulers; the
// data check compares every launch's registers and the final memory with
// the reference run's same sequence of launches.
TEST(FaultsPlatformTest, AProgramOfSeveralLaunchesRunsItsHostLoop)
{
    const std::string ex = std::string(GMMU_SOURCE_DIR) + "/tests/kernels/countdown.gk";
    struct Run {
        const char *scheme, *ws;
        bool faults;
    } runs[] = {{"stall", "lrr", false}, {"oplog", "gto", true}, {"replay-queue", "tbc", true},
                {"wd-commit", "tcws", true}};
    for (const Run &x : runs) {
        const std::string what = std::string(x.scheme) + "/" + x.ws + (x.faults ? "/faults" : "");
        const std::string d = outdir(std::string("countdown_") + x.scheme);
        SimRun r = sim("--set sm.count=3 --set workload.kernel_file=" + ex + " --set sm.fault_scheme=" + x.scheme +
                       " --set sm.warp_scheduler=" + x.ws + (x.faults ? " --set workload.faults=true" : "") +
                       " --quiet --out " + d);
        ASSERT_EQ(r.status, 0) << what << "\n" << r.out;
        json k = load(d + "/kernel.json");
        EXPECT_EQ(k["kernel"], "countdown");
        EXPECT_EQ(k["launches"], 14u) << what;
        EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << what;
        EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << what;
        json s = load(d + "/stats.json");
        EXPECT_EQ(s["data_check"]["mismatches"], 0u) << what;
        uint64_t blocks = 0;
        for (int i = 0; i < 3; i++)
            blocks += s["gpu"]["sm" + std::to_string(i)]["blocks_done"].get<uint64_t>();
        EXPECT_EQ(blocks, 8u * 14u) << what; // every launch's 8 blocks
    }
    // A host loop that never ends is refused before the run, at its line.
    const std::string bad = outdir("countdown_bad") + "/runaway.gk";
    {
        std::ifstream in(ex);
        std::stringstream b;
        b << in.rdbuf();
        std::string t = b.str();
        t.replace(t.find("repeat_while @2 64"), 18, "repeat_while @2 3 ");
        std::ofstream f(bad);
        f << t;
    }
    SimRun r = sim("--set workload.kernel_file=" + bad + " --quiet --out " + outdir("countdown_bad_run"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(bad + ":14: the host loop ran 3 iterations and its word is still set"), std::string::npos)
        << r.out;
}

// Shared memory and barriers (docs/simt.md): tests/kernels/shared_bar.gk
// passes the data check on the issue SM under two fault schemes and two
// warp schedulers with demand paging; its shared accesses reach neither the
// TLBs nor the TLM path (only its 2 global instructions per warp, 4 lines,
// make requests). Bad shared/barrier kernels name FILE:LINE.
TEST(FaultsPlatformTest, SharedMemoryAndBarrierKernelPassesTheDataCheck)
{
    const std::string ex = std::string(GMMU_SOURCE_DIR) + "/tests/kernels/shared_bar.gk";
    for (const char *scheme : {"stall", "replay-queue"})
        for (const char *ws : {"lrr", "gto"}) {
            const std::string d = outdir(std::string("shared_bar_") + scheme + "_" + ws);
            SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + ex +
                           " --set workload.faults=true --set sm.fault_scheme=" + scheme +
                           " --set sm.warp_scheduler=" + ws + " --quiet --out " + d);
            ASSERT_EQ(r.status, 0) << scheme << "/" << ws << "\n" << r.out;
            json s = load(d + "/stats.json");
            EXPECT_EQ(s["data_check"]["mismatches"], 0u) << scheme << "/" << ws;
            EXPECT_GT(s["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
            json k = load(d + "/kernel.json");
            EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << scheme << "/" << ws;
            EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << scheme << "/" << ws;
            EXPECT_GT(s["gpu"]["sm0"]["faults"].get<uint64_t>(), 0u);
        }
    // Without faults: 16 blocks x 4 warps x (1 ld + 1 st) global instructions
    // of 2 lines each; the 11 shared accesses per warp add nothing.
    const std::string d = outdir("shared_bar_nofault");
    SimRun r = sim("--set sm.count=2 --set workload.kernel_file=" + ex + " --quiet --out " + d);
    ASSERT_EQ(r.status, 0) << r.out;
    json g = load(d + "/stats.json")["gpu"];
    const uint64_t insns = g["sm0"]["mem_insns"].get<uint64_t>() + g["sm1"]["mem_insns"].get<uint64_t>();
    const uint64_t reqs = g["sm0"]["tlm_requests"].get<uint64_t>() + g["sm1"]["tlm_requests"].get<uint64_t>();
    EXPECT_EQ(insns, 16u * 4u * 2u);
    EXPECT_EQ(reqs, 16u * 4u * 2u * 2u);

    struct Bad {
        std::string text, want;
    } bad[] = {
        {"kernel b1\nshared 64\ncode\n  andi r4, r3, 1\n  brnz r4, 3\n  bar\n  addi r5, r5, 1\n",
         ":6: kernel 'b1' instruction 2: bar in divergent code"},
        {"kernel b2\nshared 64\ncode\n  lds r4, r3, 64\n",
         ":4: kernel 'b2' instruction 0 (lds) accesses shared offset 64, outside 0..63"},
        {"kernel b3\nshared 512\ncode\n  shli r4, r3, 3\n  sts r4, r3, 0\n  lds r5, r4, 8\n",
         ":5: kernel 'b3' instruction 1 (sts): shared offset 8 is written and accessed by two threads"},
        {"kernel b4\nshared 64\ncode\n  lds r4, 7, 0\n", ":4: expected a register"},
        {"kernel b5\ncode\n  sts r4, r4, 0\n", ": kernel 'b5' instruction 0: shared memory access"},
        {"kernel b6\nshared 64\ncode\n  movi r6, 0\nl: andi r4, r3, 1\n  xor r4, r4, r6\n"
         "  brnz r4, s\n  bar\ns: addi r6, r6, 1\n  movi r7, 2\n  sltu r8, r6, r7\n  brnz r8, l\n",
         ":8: kernel 'b6' instruction 4: bar in divergent code (block 0 warp 0 reaches it with only "
         "some lanes active)"},
    };
    int i = 0;
    for (const auto &b : bad) {
        const std::string path = outdir("shared_bad") + "/b" + std::to_string(++i) + ".gk";
        {
            std::ofstream f(path);
            f << b.text;
        }
        r = sim("--set workload.kernel_file=" + path + " --quiet --out " + outdir("shared_bad_out"));
        EXPECT_EQ(r.status, 2) << b.text << "\n" << r.out;
        EXPECT_NE(r.out.find(path + b.want), std::string::npos) << r.out << "\nwant " << path + b.want;
    }
    // Under compaction too (docs/simt.md, "Barriers under compaction").
    for (const char *ws : {"tbc", "tlb-tbc"}) {
        const std::string dt = outdir(std::string("shared_bar_") + ws);
        r = sim("--set sm.count=2 --set workload.kernel_file=" + ex + " --set workload.faults=true" +
                " --set sm.fault_scheme=replay-queue --set sm.warp_scheduler=" + ws + " --quiet --out " + dt);
        ASSERT_EQ(r.status, 0) << ws << "\n" << r.out;
        json k = load(dt + "/kernel.json");
        EXPECT_EQ(k["memory_hash"], k["reference_memory_hash"]) << ws;
        EXPECT_EQ(k["register_hash"], k["reference_register_hash"]) << ws;
        EXPECT_GT(load(dt + "/stats.json")["gpu"]["sm0"]["block_syncs"].get<uint64_t>(), 0u) << ws;
    }
    // A BAR that one warp branches over splits the block under compaction:
    // the run stops and says where.
    const std::string bd = outdir("shared_bad") + "/block_divergent.gk";
    {
        std::ofstream f(bd);
        f << "kernel bd\nwarps_per_block 2\ngrid 2\nshared 512\ncode\n  brnz r2, skip\n"
             "  shli r5, r3, 3\n  sts r5, r0, 0\n  bar\nskip: addi r8, r0, 1\n";
    }
    r = sim("--set workload.kernel_file=" + bd + " --set sm.warp_scheduler=tbc --quiet --out " +
            outdir("shared_bar_bd"));
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("instruction 3: bar in divergent code (under compaction"), std::string::npos)
        << r.out;
}

// ---- the no-MMU twin -----------------------------------------------------------------

TEST(FaultsPlatformTest, IssueSmWithoutMmuComputesTheSameKernel)
{
    // mmu.bypass: the kernel's data at PA = VA, no TLB, no walks; the same
    // final memory and registers as through the MMU (divergent kernel too).
    for (const char *kernel : {"spmv-like", "memcached-like"}) {
        const std::string common = std::string(" --set sm.count=4 --set workload.kernel=") + kernel +
                                   " --set workload.grid_blocks=16 --quiet";
        const std::string d0 = outdir(std::string("mmu_") + kernel);
        const std::string d1 = outdir(std::string("nommu_") + kernel);
        SimRun a = sim(common + " --out " + d0);
        ASSERT_EQ(a.status, 0) << a.out;
        SimRun b = sim(common + " --set mmu.bypass=true --out " + d1);
        ASSERT_EQ(b.status, 0) << b.out;
        json ka = load(d0 + "/kernel.json"), kb = load(d1 + "/kernel.json");
        EXPECT_EQ(ka["memory_hash"], kb["memory_hash"]) << kernel;
        EXPECT_EQ(ka["register_hash"], kb["register_hash"]) << kernel;
        EXPECT_EQ(kb["memory_hash"], kb["reference_memory_hash"]) << kernel;
        json sa = load(d0 + "/stats.json"), sb = load(d1 + "/stats.json");
        EXPECT_EQ(sb["data_check"]["mismatches"], 0u);
        EXPECT_GT(sb["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
        EXPECT_TRUE(sa["gpu"].contains("ptw")) << kernel;
        EXPECT_FALSE(sb["gpu"].contains("ptw")) << kernel; // no walker, no TLBs
        EXPECT_EQ(sa["gpu"]["sm0"]["issued"], sb["gpu"]["sm0"]["issued"]) << kernel;
    }
}

// ---- bad keys ------------------------------------------------------------------------

TEST(FaultsPlatformTest, BadKeysNameTheKey)
{
    struct Case {
        std::string args, key;
    } cases[] = {
        {"--set sm.fault_scheme=eager", "sm.fault_scheme"},
        {"--set sm.fault_scheme=oplog --set sm.oplog_bytes=1024", "sm.oplog_bytes"},
        {"--set sm.oplog_bytes=100", "sm.oplog_bytes"},
        {"--set fault.link=usb", "fault.link"},
        {"--set fault.granularity_bytes=70000", "fault.granularity_bytes"},
        {"--set sm.block_switch=true", "sm.block_switch"},
        {"--set workload.kernel=nbody", "workload.kernel"},
        {"--set sm.model=simple", "sm.model"},
        {"--set sm.max_extra_blocks=65", "sm.max_extra_blocks"},
        {"--set workload.faults=true --set mmu.bypass=true", "workload.faults"},
        {"--set sm.warp_scheduler=ccws2", "sm.warp_scheduler"},
        {"--set sm.warp_scheduler=ta-ccws --set sm.ccws.tlb_weight=3", "sm.ccws.tlb_weight"},
        {"--set sm.warp_scheduler=ccws --set sm.ccws.vta_ways=3", "sm.ccws.vta_ways"},
        {"--set sm.ccws.vta_entries=65", "sm.ccws.vta_entries"},
        {"--set sm.warp_scheduler=tcws --set sm.tcws.weight_d2=6", "sm.tcws.weight_d2"},
        {"--set sm.tcws.epw=0", "sm.tcws.epw"},
        {"--set sm.warp_scheduler=tbc2", "sm.warp_scheduler"},
        {"--set sm.warp_scheduler=tlb-tbc --set sm.tbc.cpm_bits=9", "sm.tbc.cpm_bits"},
        {"--set sm.tbc.cpm_history=0", "sm.tbc.cpm_history"},
        {"--set sm.tbc.cpm_flush_cycles=-1", "sm.tbc.cpm_flush_cycles"},
    };
    for (const Case &c : cases) {
        SimRun r = sim(c.args + " --out " + outdir("bad"));
        EXPECT_EQ(r.status, 2) << c.args << "\n" << r.out;
        EXPECT_NE(r.out.find(c.key), std::string::npos) << c.args << "\n" << r.out;
    }
}

} // namespace
