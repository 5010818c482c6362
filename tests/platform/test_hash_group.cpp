// hash-group: karnagel-damon17's hash-based grouping as a workload. The
// grouping must be a real one (every input counted once, decisions taken from
// the loaded key words), and its TLB-conscious passes must keep the hash
// table accesses of a pass inside one TLB scope.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "gmmu/components/stats.h"
#include "gmmu/gpu/platform.h"

namespace {

std::string out_dir(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / ("gmmu_hash_group_" + name);
    std::filesystem::create_directories(d);
    return d.string();
}

nlohmann::json load(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

int sim(const std::string &args)
{
    std::string cmd = std::string(GMMU_SIM_BIN) + " " + args + " --quiet > /dev/null 2>&1";
    int st = std::system(cmd.c_str());
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

TEST(HashGroupTest, EveryInputIsCountedOnceAndProbesFollowTheLoadedKeys)
{
    // A small table (4096 buckets, 2048 groups) so that buckets collide and
    // linear probing and compare-and-swap failures happen.
    gmmu::config cfg = gmmu::config::load(
        "default", {"sm.count=4", "sm.warps=8", "workload.region_bytes=65536", "workload.accesses=8"});
    auto wl = gmmu::make_workload("hash-group", cfg, 3);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.mismatches, 0u);
    const std::string dir = out_dir("small");
    std::string err;
    ASSERT_TRUE(wl->finish(dir, err)) << err;
    nlohmann::json j = load(dir + "/hash_group.json");
    const uint64_t inputs = 4 * 8 * 8 * 32;
    EXPECT_EQ(j["inputs"].get<uint64_t>(), inputs);
    EXPECT_EQ(j["inserts"].get<uint64_t>(), inputs);
    EXPECT_EQ(j["count_sum"].get<uint64_t>(), inputs);
    // 8192 draws from 2048 values: almost every group appears.
    EXPECT_GT(j["groups_found"].get<uint64_t>(), 1900u);
    EXPECT_LE(j["groups_found"].get<uint64_t>(), 2048u);
    EXPECT_GT(j["linear_probe_steps"].get<uint64_t>(), 0u);
    EXPECT_GT(j["group_phase_ns"].get<double>(), 0.0);
    // Every probe load was checked against the data written before it.
    EXPECT_GT(r.lanes_checked, inputs);
}

// Issue 41, item 17: with two contexts every context holds its own table
// (its own frames at the same VAs); the probes are checked against that
// context's table, and every input is counted once in its own.
TEST(HashGroupTest, EachContextGroupsItsOwnInputsInItsOwnTable)
{
    gmmu::config cfg = gmmu::config::load("default", {"sm.count=4", "sm.warps=8", "contexts=2",
                                                      "workload.region_bytes=65536",
                                                      "workload.accesses=8"});
    auto wl = gmmu::make_workload("hash-group", cfg, 3);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.mismatches, 0u);
    const std::string dir = out_dir("contexts");
    std::string err;
    ASSERT_TRUE(wl->finish(dir, err)) << err;
    nlohmann::json j = load(dir + "/hash_group.json");
    const uint64_t inputs = 4 * 8 * 8 * 32;
    EXPECT_EQ(j["contexts"].get<uint64_t>(), 2u);
    EXPECT_EQ(j["inserts"].get<uint64_t>(), inputs);
    EXPECT_EQ(j["count_sum"].get<uint64_t>(), inputs);
    // 4096 draws from 2048 values in each context: each table finds ~1770
    // groups of its own, more than one shared table could hold.
    EXPECT_GT(j["groups_found"].get<uint64_t>(), 2048u + 1000u);
    EXPECT_LE(j["groups_found"].get<uint64_t>(), 2u * 2048u);
}

TEST(HashGroupTest, TlbConsciousPassesStayInsideTheL2Reach)
{
    // k80: the L2 TLBs reach 130 MB; a 1 GiB table misses them, 128 MiB
    // scopes keep each pass inside them. Same groups either way.
    const std::string common = "--config k80 --workload hash-group --set sm.warps=4 "
                               "--set workload.region_bytes=1073741824 --set workload.accesses=4";
    const std::string plain = out_dir("plain"), scoped = out_dir("scoped");
    ASSERT_EQ(sim(common + " --out " + plain), 0);
    ASSERT_EQ(sim(common + " --set workload.tlb_scope=134217728 --out " + scoped), 0);
    auto l2_misses = [](const nlohmann::json &st) {
        uint64_t m = 0;
        for (auto &[k, v] : st["gpu"].items())
            if (k.rfind("l2_tlb", 0) == 0)
                m += v["misses"].get<uint64_t>();
        return m;
    };
    nlohmann::json a = load(plain + "/stats.json"), b = load(scoped + "/stats.json");
    nlohmann::json ha = load(plain + "/hash_group.json"), hb = load(scoped + "/hash_group.json");
    EXPECT_EQ(ha["scopes"].get<uint64_t>(), 1u);
    EXPECT_EQ(hb["scopes"].get<uint64_t>(), 8u);
    EXPECT_EQ(ha["groups_found"], hb["groups_found"]);
    EXPECT_EQ(ha["count_sum"], hb["count_sum"]);
    // Misses of the L3-backed L2: the plain run misses on most table
    // accesses, the scoped one only when a pass first touches its pages.
    EXPECT_LT(l2_misses(b) * 2, l2_misses(a)) << l2_misses(b) << " vs " << l2_misses(a);
}

} // namespace

namespace {

// random-sample's TLB-conscious passes are kernel launches: a warp starts pass
// p+1 only after every warp finished pass p, so a TLB that holds one scope
// misses only on the first touch of each page of each pass.
TEST(RandomSampleScopeTest, PassesAreSeparatedSoEachPassMissesOnlyItsOwnPages)
{
    // 64 MiB of 2 MiB pages, 16 MiB scopes: 8 pages per pass, 4 passes per
    // phase, 2 phases. One shared 8-entry L2 TLB holds exactly one scope.
    gmmu::config cfg = gmmu::config::load(
        "default", {"page_size=2097152", "sm.count=4", "sm.warps=8", "workload.region_bytes=67108864",
                    "workload.accesses=32", "workload.tlb_scope=16777216", "l1_tlb.entries=1",
                    "l1_tlb.ways=1", "l2_tlb.entries=8", "l2_tlb.ways=8"});
    auto wl = gmmu::make_workload("random-sample", cfg, 5);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.lanes_checked, 4u * 8 * 32 * 32); // every sample read back once
    nlohmann::json j = gmmu::collect_stats();
    EXPECT_EQ(j["gpu"]["l2_tlb"]["misses"].get<uint64_t>(), 8u * 4 * 2);
}

} // namespace
