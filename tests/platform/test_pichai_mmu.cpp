// The augmented GPU MMU of pichai-asplos14 in the platform: intra-warp
// overlap of TLB hits with the data cache, the virtually indexed L1, PTE
// reads through the data caches, blocking TLBs, the access-time model, and
// the refusal of configurations that cannot be built.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "sim_run.h"

namespace {

std::string out_dir(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / "gmmu_pichai" / name;
    std::filesystem::create_directories(d.parent_path());
    return d.string();
}

// Runs pichai14 (or cfg) small, returns stats.json.
nlohmann::json run(const std::string &name, const std::string &args,
                   const std::string &cfg = "pichai14")
{
    const std::string out = out_dir(name);
    SimRun r = run_gmmu_sim("--config " + cfg + " --set sm.count=2 --set sm.warps=8 " + args +
                            " --quiet --out " + out);
    EXPECT_EQ(r.status, 0) << r.out;
    std::ifstream in(out + "/stats.json");
    return nlohmann::json::parse(in, nullptr, false);
}

const std::string mixed = "--workload random-sample --set workload.region_bytes=2097152 "
                          "--set workload.accesses=8";

double t_ns(const nlohmann::json &s) { return s.value("sim_time_ns", 0.0); }

TEST(PichaiMmuTest, OverlapSendsEachPagesLanesOnItsOwnAndIsNeverLater)
{
    auto on = run("overlap_on", mixed + " --set sm.overlap_cache_access=true");
    auto off = run("overlap_off", mixed + " --set sm.overlap_cache_access=false");
    EXPECT_EQ(on["data_check"]["mismatches"], 0);
    EXPECT_GT(on["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
    EXPECT_GT(on["gpu"]["l1_tlb0"]["overlapped_warps"].get<uint64_t>(), 0u);
    EXPECT_FALSE(off["gpu"]["l1_tlb0"].contains("overlapped_warps"));
    // One warp alone (no other warp's traffic to reorder): each page's lanes
    // leave no later than with the warp's last translation.
    const std::string one = mixed + " --set sm.count=1 --set sm.warps=1";
    auto on1 = run("overlap_on1", one + " --set sm.overlap_cache_access=true");
    auto off1 = run("overlap_off1", one + " --set sm.overlap_cache_access=false");
    EXPECT_EQ(on1["gpu"]["l1_tlb0"]["misses"], off1["gpu"]["l1_tlb0"]["misses"]);
    EXPECT_LE(t_ns(on1), t_ns(off1));
}

TEST(PichaiMmuTest, ViptHidesTheCacheIndexUnderTheTlbLookup)
{
    const std::string base = "--workload stream --set workload.region_bytes=1048576 "
                             "--set l1_tlb.lookup_cycles=6 --set l1_cache.index_cycles=6";
    auto vipt = run("vipt", base + " --set l1_cache.indexing=vipt");
    auto pipt = run("pipt", base + " --set l1_cache.indexing=pipt");
    EXPECT_GT(vipt["gpu"]["l1_cache0"]["vipt_hidden_cycles"].get<uint64_t>(), 0u);
    EXPECT_FALSE(pipt["gpu"]["l1_cache0"].contains("vipt_hidden_cycles"));
    EXPECT_LT(t_ns(vipt), t_ns(pipt));
    // No TLB, nothing to hide under: indexing makes no difference.
    auto bv = run("bypass_vipt", base + " --set mmu.bypass=true --set l1_cache.indexing=vipt");
    auto bp = run("bypass_pipt", base + " --set mmu.bypass=true --set l1_cache.indexing=pipt");
    EXPECT_EQ(t_ns(bv), t_ns(bp));
}

TEST(PichaiMmuTest, WalkReadsThroughTheL2AreCountedThereAndHitSometimes)
{
    auto l2 = run("via_l2", mixed + " --set ptw.via=l2_cache");
    const auto &c = l2["gpu"]["l2_cache"];
    const uint64_t hits = c["pte_read_hits"], misses = c["pte_read_misses"];
    EXPECT_EQ(hits + misses, l2["gpu"]["ptw0"]["pt_reads"].get<uint64_t>() +
                                 l2["gpu"]["ptw1"]["pt_reads"].get<uint64_t>()); // a walker per SM
    EXPECT_GT(hits, 0u); // upper levels are shared by every walk
    EXPECT_EQ(l2["data_check"]["mismatches"], 0);
    auto mem = run("via_mem", mixed + " --set ptw.via=memory");
    EXPECT_FALSE(mem["gpu"]["l2_cache"].contains("pte_read_hits"));
    EXPECT_LT(t_ns(l2), t_ns(mem)); // cached upper levels beat 200-cycle memory
    auto l1 = run("via_l1", mixed + " --set ptw.via=l1_cache");
    EXPECT_GT(l1["gpu"]["l1_cache0"]["pte_accesses"].get<uint64_t>(), 0u);
    EXPECT_GT(l1["gpu"]["l1_cache1"]["pte_accesses"].get<uint64_t>(), 0u);
}

TEST(PichaiMmuTest, BlockingTlbStallsOtherWarpsAndWarpWideLookupsLetMoreWalkersHelp)
{
    auto naive = run("naive", mixed, "pichai14-naive");
    auto hum = run("naive_hum", mixed + " --set l1_tlb.hits_under_miss=true", "pichai14-naive");
    // Blocking: later warps' lookups wait for every earlier miss.
    EXPECT_GT(naive["gpu"]["l1_tlb0"]["mshr"]["stall_cycles"].get<uint64_t>(),
              hum["gpu"]["l1_tlb0"]["mshr"]["stall_cycles"].get<uint64_t>());
    EXPECT_GT(naive["gpu"]["l1_tlb0"]["mshr"]["max_in_flight"].get<uint64_t>(), 1u); // a warp's misses together
    auto eight = run("naive8", mixed, "pichai14-8ptw");
    EXPECT_LT(t_ns(eight), t_ns(naive)); // a warp's misses walk side by side
}

// Every lane a different page, 48 warps on a core with 32 TLB MSHRs: the
// misses queue for MSHRs and for the walker. The two waits stand for one
// backlog; counting both (or starting a walk in the future, pushing the
// walker's queue ahead of the warps still to come) made run time grow far
// faster than the warps (43 s simulated for 48 warps).
TEST(PichaiMmuTest, RunTimeGrowsNoFasterThanTheWarpsWhenMshrsAndTheWalkerAreTheBottleneck)
{
    const std::string mc = "--workload pichai-bench --set workload.bench=memcached "
                           "--set workload.region_bytes=268435456 --set workload.accesses=8 "
                           "--set sm.count=1";
    for (const char *cfg : {"pichai14", "pichai14-naive"}) {
        auto w12 = run(std::string("scale12") + cfg, mc + " --set sm.warps=12", cfg);
        auto w48 = run(std::string("scale48") + cfg, mc + " --set sm.warps=48", cfg);
        EXPECT_LT(t_ns(w48), 4.5 * t_ns(w12)) << cfg;
        EXPECT_EQ(w48["data_check"]["mismatches"], 0);
    }
}

TEST(PichaiMmuTest, ScaledAccessTimeGrowsWithEntriesAndPorts)
{
    auto small = run("scaled128", mixed + " --set l1_tlb.entries=128 --set l1_tlb.ports=4");
    auto big = run("scaled512", mixed + " --set l1_tlb.entries=512 --set l1_tlb.ports=32");
    EXPECT_EQ(small["gpu"]["l1_tlb0"]["lookup_cycles"], 1);
    EXPECT_EQ(big["gpu"]["l1_tlb0"]["lookup_cycles"], 1 + 2 + 3);
    auto ideal = run("ideal", mixed, "pichai14-ideal");
    EXPECT_FALSE(ideal["gpu"]["l1_tlb0"].contains("lookup_cycles")); // fixed model
    EXPECT_LT(t_ns(ideal), t_ns(big)); // same geometry, no access-time penalty
}

// The six benchmarks keep the property docs/pichai_mmu.md gives them:
// scattered lanes for bfs (frontier neighbours), mummergpu (deep tree
// nodes) and memcached (buckets of distinct keys), one page per warp access
// for kmeans, streamcluster and pathfinder; every value read back is right.
TEST(PichaiMmuTest, BenchmarksHaveTheirDocumentedPageDivergence)
{
    const struct {
        const char *bench;
        double lo, hi;
    } want[] = {{"bfs", 3.0, 8.0},          {"kmeans", 1.0, 1.1},      {"mummergpu", 8.0, 20.0},
                {"streamcluster", 1.0, 1.1}, {"pathfinder", 1.0, 1.01}, {"memcached", 20.0, 32.0}};
    for (const auto &w : want) {
        auto st = run(std::string("bench_") + w.bench,
                      std::string("--workload pichai-bench --set workload.bench=") + w.bench +
                          " --set workload.region_bytes=1073741824 --set workload.accesses=96");
        const double div = st["gpu"]["l1_tlb0"]["page_divergence_avg"];
        EXPECT_GE(div, w.lo) << w.bench;
        EXPECT_LE(div, w.hi) << w.bench;
        EXPECT_EQ(st["data_check"]["mismatches"], 0) << w.bench;
        EXPECT_GT(st["data_check"]["lanes_checked"].get<uint64_t>(), 0u) << w.bench;
    }
    // Non-memory cycles separate a warp's accesses: more of them, longer run.
    auto none = run("bench_c0", "--workload pichai-bench --set workload.bench=kmeans "
                                "--set workload.compute_percent=0 --set mmu.bypass=true");
    auto more = run("bench_c400", "--workload pichai-bench --set workload.bench=kmeans "
                                  "--set workload.compute_percent=400 --set mmu.bypass=true");
    EXPECT_LT(t_ns(none), t_ns(more));
}

TEST(PichaiMmuTest, NonMemoryWorkOnThePipelineSerializesTheWarpsOfAnSm)
{
    // kmeans at 400%: 12 non-memory cycles after each of 96 accesses of each
    // of 48 warps. On the pipeline they alone keep one SM busy 48 x 96 x 12
    // cycles (at 1.4 GHz); beside each other they hide under the accesses'
    // latency.
    const std::string k = "--set sm.warps=48 --workload pichai-bench --set workload.bench=kmeans "
                          "--set workload.region_bytes=1073741824 --set workload.accesses=96 "
                          "--set workload.compute_percent=400 --set mmu.bypass=true";
    auto par = run("pipe_off", k);
    auto pipe = run("pipe_on", k + " --set sm.compute_on_pipeline=true");
    const double busy_ns = 48.0 * 96 * 12 / 1.4;
    EXPECT_EQ(pipe["gpu"]["sm0"]["pipeline_compute_cycles"].get<uint64_t>(), 48u * 96 * 12);
    EXPECT_FALSE(par["gpu"]["sm0"].contains("pipeline_compute_cycles"));
    EXPECT_GE(t_ns(pipe), busy_ns);
    EXPECT_LT(t_ns(par), busy_ns);
    EXPECT_EQ(pipe["data_check"]["mismatches"], 0);
    EXPECT_EQ(pipe["gpu"]["sm0"]["warp_accesses"], par["gpu"]["sm0"]["warp_accesses"]);
    // No non-memory work: the two are the same machine.
    auto par0 = run("pipe_off0", k + " --set workload.compute_percent=0");
    auto pipe0 = run("pipe_on0", k + " --set workload.compute_percent=0 --set sm.compute_on_pipeline=true");
    EXPECT_EQ(t_ns(par0), t_ns(pipe0));
}

TEST(PichaiMmuTest, IssueSmLineRequestsOfOneInstructionAreOneWarpAccessToABlockingTlb)
{
    // The issue SM sends an instruction as one request per 128-B line. The
    // naive blocking TLB with warp-wide lookups takes them as one warp
    // access, so an instruction's misses reach the walkers together and 8
    // walkers beat one on a kernel with many pages per instruction (with a
    // batch per line they came out equal).
    const std::string k = "--workload kernel --set workload.kernel=memcached-like "
                          "--set sm.model=issue";
    auto one = run("cont_naive", k, "pichai14-naive");
    auto eight = run("cont_8ptw", k, "pichai14-8ptw");
    EXPECT_GT(one["gpu"]["l1_tlb0"]["continued_batches"].get<uint64_t>(), 0u);
    EXPECT_LT(t_ns(eight), 0.9 * t_ns(one));
    EXPECT_EQ(eight["data_check"]["mismatches"], 0);
    // Hits under misses: nothing to continue, no counter.
    auto aug = run("cont_aug", k);
    EXPECT_FALSE(aug["gpu"]["l1_tlb0"].contains("continued_batches"));
}

TEST(PichaiMmuTest, ImpossibleConfigurationsAreRefusedNamingTheKey)
{
    const struct {
        const char *args, *key;
    } bad[] = {
        {"--set l1_cache.ways=4", "l1_cache.indexing"},       // 8 KiB ways over 4 KiB pages
        {"--set l2_cache.enabled=false", "ptw.via"},          // via=l2_cache without an L2
        {"--set ptw.via=l1_cache --set l2_tlb.enabled=true", "ptw.via"},
        {"--set ptw.via=l1_cache --set ptw.per_tlb=false", "ptw.via"},
        {"--set l1_tlb.latency_model=cacti", "l1_tlb.latency_model"},
        {"--set l1_cache.index_cycles=41", "l1_cache.index_cycles"},
        {"--set ptw.via=disk", "ptw.via"},
        {"--set sm.model=issue --set sm.compute_on_pipeline=true", "sm.compute_on_pipeline"},
        {"--set sm.issue_cycles=4", "sm.issue_cycles"}, // the simple SM
        {"--set sm.model=issue --set sm.issue_cycles=33", "sm.issue_cycles"},
        {"--workload pichai-bench --set workload.bench=hmmer", "workload.bench"},
        {"--workload pichai-bench --set workload.region_bytes=8388608", "workload.region_bytes"},
    };
    for (const auto &b : bad) {
        const std::string args = b.args;
        const std::string wl = args.find("--workload") == std::string::npos ? "--workload random-sample " : "";
        SimRun r = run_gmmu_sim("--config pichai14 " + wl + args +
                                " --quiet --out " + out_dir("bad"));
        EXPECT_EQ(r.status, 2) << b.args << ": " << r.out;
        EXPECT_NE(r.out.find(std::string("'") + b.key + "'"), std::string::npos) << b.args << ": " << r.out;
    }
}

} // namespace
