// PICLE / Valkyrie in the platform: LDT updates, eviction pushes, peer probes.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "gmmu/components/stats.h"
#include "gmmu/gpu/platform.h"
#include "sim_run.h"

namespace {

nlohmann::json run(std::vector<std::string> sets, const char *wl_name = "random-sample")
{
    std::vector<std::string> base = {"sm.count=8", "sm.warps=4", "workload.accesses=32",
                                     "workload.region_bytes=131072", "ptw.walkers=8",
                                     "ptw.fixed_walk_latency=0"};
    base.insert(base.end(), sets.begin(), sets.end());
    gmmu::config cfg = gmmu::config::load("picle", base);
    auto wl = gmmu::make_workload(wl_name, cfg, 11);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    EXPECT_TRUE(r.ok) << r.error;
    return gmmu::collect_stats()["gpu"];
}

uint64_t sum_l1(const nlohmann::json &g, const char *key)
{
    uint64_t n = 0;
    for (auto &[k, v] : g.items())
        if (k.rfind("l1_tlb", 0) == 0)
            n += v[key].get<uint64_t>();
    return n;
}

TEST(PicleTest, L2EvictionsArePushedIntoTheL1sOfSharingCus)
{
    nlohmann::json g = run({});
    ASSERT_TRUE(g.contains("ldt"));
    EXPECT_EQ(g["ldt"]["updates"].get<uint64_t>(), sum_l1(g, "accesses")); // every L1 access
    EXPECT_GT(g["ldt"]["prefetches_issued"].get<uint64_t>(), 0u);
    uint64_t received = 0, used = 0;
    for (auto &[k, v] : g.items())
        if (k.rfind("l1_tlb", 0) == 0 && v.contains("prefetch")) {
            received += v["prefetch"]["received"].get<uint64_t>();
            used += v["prefetch"]["used_before_eviction"].get<uint64_t>();
        }
    EXPECT_EQ(received, g["ldt"]["prefetches_issued"].get<uint64_t>());
    EXPECT_GT(used, 0u); // some pushed translations saved a miss
}

TEST(PicleTest, WithoutPicleThereIsNoLdtAndNoPrefetch)
{
    nlohmann::json g = run({"picle.enabled=false"});
    EXPECT_FALSE(g.contains("ldt"));
    EXPECT_FALSE(g["l1_tlb0"].contains("prefetch"));
}

TEST(PicleTest, ValkyrieProbesFillFromPeerL1s)
{
    nlohmann::json g = run({"picle.probe=true"});
    EXPECT_GT(g["ldt"]["probes"].get<uint64_t>(), 0u);
    EXPECT_GT(g["ldt"]["probe_hits"].get<uint64_t>(), 0u);
    uint64_t from_peer = 0;
    for (auto &[k, v] : g.items())
        if (k.rfind("l1_tlb", 0) == 0 && v.contains("prefetch"))
            from_peer += v["prefetch"]["filled_from_peer_probe"].get<uint64_t>();
    EXPECT_EQ(from_peer, g["ldt"]["probe_hits"].get<uint64_t>());
    // A probe hit saves the L2 lookup: the L2 sees fewer requests than L1 misses.
    EXPECT_LT(g["l2_tlb"]["accesses"].get<uint64_t>(), sum_l1(g, "misses"));
}

// Issue 41, item 1, on PICLE's paths: an L1 entry filled by a Valkyrie peer
// probe or pushed by the LDT is a piece of a 2 MiB leaf (4 KiB TLB pages),
// and remembers that leaf like a walk's fill does, so one invalidation by
// VA at each leaf's base empties every L1.
TEST(PicleTest, PeerAndPushedFillsRememberTheirLeafForInvalidationByVa)
{
    std::vector<std::string> sets = {"sm.count=8", "sm.warps=4", "workload.accesses=32",
                                     "workload.region_bytes=8388608", "ptw.walkers=8",
                                     "ptw.fixed_walk_latency=0", "picle.probe=true",
                                     "page_size=2097152", "l1_tlb.page_bytes=4096",
                                     "l2_tlb.page_bytes=4096"};
    gmmu::config cfg = gmmu::config::load("picle", sets);
    auto wl = gmmu::make_workload("random-sample", cfg, 11);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    nlohmann::json g = gmmu::collect_stats()["gpu"];
    ASSERT_GT(g["ldt"]["probe_hits"].get<uint64_t>(), 0u);
    ASSERT_GT(g["ldt"]["prefetches_issued"].get<uint64_t>(), 0u);
    const uint64_t base = uint64_t(cfg.i("workload.base_va")), bytes = uint64_t(cfg.i("workload.region_bytes"));
    uint32_t held = 0;
    for (auto &l1 : gpu.l1) {
        auto *t = const_cast<gmmu_tlb *>(l1->model());
        held += gmmu_tlb_occupancy(t);
        for (uint64_t va = base; va < base + bytes; va += 2097152)
            gmmu_tlb_invalidate_range_all_asids(t, va, va + 4096);
        EXPECT_EQ(gmmu_tlb_occupancy(t), 0u) << l1->name();
    }
    EXPECT_GT(held, 0u);
}

// The L1 TLB miss rate of one gmmu-sim run (a child process: one SystemC
// elaboration per process) on the picle machine.
double l1_miss_rate(const std::string &args, int seed)
{
    const std::string out = "picle_dir_" + std::to_string(getpid()) + "_" + std::to_string(seed);
    SimRun r = run_gmmu_sim("--config picle --quiet --seed " + std::to_string(seed) + " --out " +
                            out + " " + args);
    EXPECT_EQ(r.status, 0) << r.out;
    std::ifstream in(out + "/stats.json");
    nlohmann::json g = nlohmann::json::parse(in)["gpu"];
    std::filesystem::remove_all(out);
    return double(sum_l1(g, "misses")) / double(sum_l1(g, "accesses"));
}

// PICLE's effect on the L1 TLB miss rate over seeds 1..n: the mean change
// (points of miss rate) and its standard error, from the runs' own spread.
struct effect {
    double mean, sem;
};
effect picle_effect(const std::string &workload, int n)
{
    double sum = 0, sum2 = 0;
    for (int seed = 1; seed <= n; ++seed) {
        const double d = 100.0 * (l1_miss_rate(workload + " --set picle.enabled=true", seed) -
                                  l1_miss_rate(workload + " --set picle.enabled=false", seed));
        sum += d;
        sum2 += d * d;
    }
    const double mean = sum / n, var = (sum2 - n * mean * mean) / (n - 1);
    return {mean, std::sqrt(std::max(var, 0.0) / n)};
}

// The two directions of docs/results/picle.md, each required to stand out of
// the seed-to-seed spread by three standard errors (same workloads as the
// experiment). Eight seeds; four in the sanitizer build, where each run is
// ~50x slower (the effects are over ten points, the spread about one).
#if defined(__SANITIZE_ADDRESS__)
constexpr int kSeeds = 4;
#else
constexpr int kSeeds = 8;
#endif
TEST(PicleTest, SharedHotSetLowersTheL1MissRateBeyondSeedNoise)
{
    const effect e = picle_effect("--workload shared-hot --set sm.warps=1 --set workload.hot_pages=8 "
                                  "--set workload.hot_percent=50 --set workload.accesses=256",
                                  kSeeds);
    EXPECT_LT(e.mean + 3 * e.sem, 0.0) << "change " << e.mean << " points, s.e. " << e.sem;
}

TEST(PicleTest, PrivateLoopWithSharedStreamIsPollutedBeyondSeedNoise)
{
    const effect e = picle_effect("--workload shared-hot --set sm.warps=1 --set workload.hot_percent=50 "
                                  "--set workload.hot_order=sequential --set workload.hot_pages=4096 "
                                  "--set workload.private_pages=4 --set workload.accesses=256",
                                  kSeeds);
    EXPECT_GT(e.mean - 3 * e.sem, 0.0) << "change " << e.mean << " points, s.e. " << e.sem;
}

TEST(PicleTest, PicleNeedsAnL2)
{
    EXPECT_THROW(gmmu::config::load("picle", {"l2_tlb.enabled=false"}), gmmu::config_error);
}

} // namespace
