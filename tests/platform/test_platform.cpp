// End-to-end platform tests, in-process (one SystemC elaboration per test).
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "gmmu/components/stats.h"
#include "gmmu/gpu/platform.h"

using namespace sc_core;

namespace {

gmmu::config small_config(std::vector<std::string> extra = {})
{
    std::vector<std::string> sets = {"sm.count=2", "sm.warps=8", "workload.region_bytes=4194304",
                                     "workload.accesses=16"};
    sets.insert(sets.end(), extra.begin(), extra.end());
    return gmmu::config::load("default", sets);
}

TEST(PlatformTest, EveryTranslationMatchesAnIndependentWalk)
{
    gmmu::config cfg = small_config();
    auto wl = gmmu::make_workload("random-sample", cfg, 7);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    uint64_t checked = 0, wrong = 0;
    for (auto &l1 : gpu.l1)
        l1->on_translate = [&](uint16_t, uint64_t va, uint64_t pa, bool) {
            checked++;
            wrong += gpu.drv->translate(va) != pa; // functional walk of the real tables
        };
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(checked, 2u * 8 * 16 * 2 * 32); // every lane of every access
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(r.mismatches, 0u);
    EXPECT_EQ(r.lanes_checked, 2u * 8 * 16 * 32); // read-back phase
    EXPECT_GT(r.sim_time_ns, 0.0);
}

// workload.phases=read (issue 43, item 3): the read phase alone, the same
// samples as write-read's read-back (EveryTranslationMatchesAnIndependentWalk
// sees both phases: twice the translations), and no store; a measured
// read-throughput kernel runs like this.
TEST(PlatformTest, ReadPhaseAloneLoadsTheSamplesOnceWithoutStores)
{
    gmmu::config cfg = small_config({"workload.phases=read"});
    auto wl = gmmu::make_workload("random-sample", cfg, 7);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    uint64_t translated = 0, wrong = 0;
    for (auto &l1 : gpu.l1)
        l1->on_translate = [&](uint16_t, uint64_t va, uint64_t pa, bool) {
            translated++;
            wrong += gpu.drv->translate(va) != pa;
        };
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(wrong, 0u);
    EXPECT_EQ(translated, 2u * 8 * 16 * 32); // every lane of every access, once
    nlohmann::json j = gmmu::collect_stats();
    uint64_t loads = 0, stores = 0;
    for (const char *sm : {"sm0", "sm1"}) {
        loads += j["gpu"][sm]["loads"].get<uint64_t>();
        stores += j["gpu"][sm]["stores"].get<uint64_t>();
    }
    EXPECT_EQ(loads, 2u * 8 * 16);
    EXPECT_EQ(stores, 0u);
}

TEST(PlatformTest, ReadPhaseAloneIsRefusedForOtherWorkloads)
{
    gmmu::config cfg = small_config({"workload.phases=read"});
    try {
        (void)gmmu::make_workload("stream", cfg, 1);
        FAIL() << "stream accepted workload.phases=read";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'workload.phases'"), std::string::npos) << e.what();
    }
}

TEST(PlatformTest, AliasedPageIsCaughtByTheDataCheck)
{
    gmmu::config cfg = small_config({"sm.count=1", "sm.warps=1"});
    auto wl = gmmu::make_workload("stream", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    // Corrupt the page tables: make page 1 of the region point at page 0's frame.
    const uint64_t base = uint64_t(cfg.i("workload.base_va"));
    gmmu_mem_ops ops = gpu.drv->mem_ops();
    gmmu_walk_result w0, w1;
    ASSERT_EQ(gmmu_walk(&ops, gpu.drv->root(), base, 0, &w0), GMMU_OK);
    ASSERT_EQ(gmmu_walk(&ops, gpu.drv->root(), base + 4096, 0, &w1), GMMU_OK);
    gpu.mem->write64(w1.read_pa[3], (w0.pte & GMMU_PTE_ADDR_MASK) | (w1.pte & ~GMMU_PTE_ADDR_MASK));
    gmmu::run_result r = gpu.run();
    EXPECT_FALSE(r.ok);
    EXPECT_GT(r.mismatches, 0u);
    EXPECT_NE(r.error.find("data check failed"), std::string::npos) << r.error;
}

TEST(PlatformTest, UnmappedAccessStopsTheRunWithAFault)
{
    std::string path = ::testing::TempDir() + "/unmapped.trace";
    std::ofstream(path) << "0 0 W 0x7f0000000000\n";
    gmmu::config cfg = small_config({"workload.path=" + path});
    auto wl = gmmu::make_workload("trace", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    ASSERT_EQ(gmmu_pt_unmap(const_cast<gmmu_pt *>(&gpu.drv->table()), 0x7f0000000000ull), GMMU_OK);
    gmmu::run_result r = gpu.run();
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("not-present fault"), std::string::npos) << r.error;
}

TEST(PlatformTest, StatsNestUnderHierarchicalNames)
{
    // An L2 TLB that holds the whole region: every page is walked exactly once.
    gmmu::config cfg = small_config({"l2_tlb.entries=2048"});
    auto wl = gmmu::make_workload("stream", cfg, 1);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    nlohmann::json j = gmmu::collect_stats();
    ASSERT_TRUE(j.contains("gpu"));
    const auto &g = j["gpu"];
    for (const char *k : {"l1_tlb0", "l1_tlb1", "l2_tlb"}) {
        ASSERT_TRUE(g.contains(k)) << k;
        EXPECT_EQ(g[k]["accesses"].get<uint64_t>(),
                  g[k]["hits"].get<uint64_t>() + g[k]["misses"].get<uint64_t>());
    }
    EXPECT_EQ(g["l2_tlb"]["accesses"].get<uint64_t>(),
              g["l1_tlb0"]["misses"].get<uint64_t>() + g["l1_tlb1"]["misses"].get<uint64_t>());
    EXPECT_EQ(g["ptw"]["walks"].get<uint64_t>() + g["ptw"]["inflight_merges"].get<uint64_t>(),
              g["l2_tlb"]["misses"].get<uint64_t>());
    EXPECT_EQ(g["ptw"]["pt_reads"].get<uint64_t>(), 4 * g["ptw"]["walks"].get<uint64_t>());
    EXPECT_EQ(g["ptw"]["walks"].get<uint64_t>(), (4u << 20) / 4096);
}

TEST(PlatformTest, WithoutL2TheL1MissesGoStraightToTheWalker)
{
    gmmu::config cfg = small_config({"l2_tlb.enabled=false"});
    auto wl = gmmu::make_workload("random-sample", cfg, 3);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    nlohmann::json j = gmmu::collect_stats();
    EXPECT_FALSE(j["gpu"].contains("l2_tlb"));
    // Every L1 miss is either walked or merged with a walk still in flight.
    EXPECT_EQ(j["gpu"]["ptw"]["walks"].get<uint64_t>() +
                  j["gpu"]["ptw"]["inflight_merges"].get<uint64_t>(),
              j["gpu"]["l1_tlb0"]["misses"].get<uint64_t>() +
                  j["gpu"]["l1_tlb1"]["misses"].get<uint64_t>());
}

TEST(PlatformTest, LargePagesNeedFewerWalksAndReads)
{
    gmmu::config cfg = small_config({"page_size=2097152"});
    auto wl = gmmu::make_workload("random-sample", cfg, 3);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    nlohmann::json j = gmmu::collect_stats();
    // 4 MiB region = two 2 MiB pages: each L1 TLB misses at most twice.
    EXPECT_LE(j["gpu"]["l1_tlb0"]["misses"].get<uint64_t>(), 2u);
    EXPECT_EQ(j["gpu"]["ptw"]["pt_reads"].get<uint64_t>(),
              3 * j["gpu"]["ptw"]["walks"].get<uint64_t>());
}

TEST(PlatformTest, BypassTwinRunsTheSameWorkloadWithoutTranslation)
{
    gmmu::config cfg = small_config({"mmu.bypass=true"});
    auto wl = gmmu::make_workload("random-sample", cfg, 7);
    gmmu::gpu_platform gpu("gpu", cfg, *wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_TRUE(gpu.l1.empty());
    EXPECT_EQ(r.lanes_checked, 2u * 8 * 16 * 32);
    nlohmann::json j = gmmu::collect_stats();
    EXPECT_FALSE(j["gpu"].contains("ptw"));
}

TEST(PlatformTest, DataCheckerExpectsPatternOnlyAfterAStore)
{
    gmmu::data_checker c;
    EXPECT_TRUE(c.check(0x1000, 0));
    EXPECT_FALSE(c.check(0x1000, gmmu::data_pattern(0x1000))); // not stored yet
    c.stored(0x1000);
    EXPECT_TRUE(c.check(0x1000, gmmu::data_pattern(0x1000)));
    EXPECT_FALSE(c.check(0x1000, 0));
    EXPECT_TRUE(c.check(0x1008, 0)); // the neighbouring word was not stored
    EXPECT_EQ(c.mismatches, 2u);
}

} // namespace

namespace {

// A two-SM pointer chase: SM 0 writes a chain of pointers (explicit data), SM 1
// waits until SM 0 is done, then follows the chain using the loaded values.
class chase_workload : public gmmu::workload {
  public:
    static constexpr unsigned n = 64;
    uint64_t base = 0x7f0000000000ull;
    unsigned written = 0, followed = 0;
    uint64_t cur = 0;
    std::vector<uint64_t> visited;
    std::string name() const override { return "test-chase"; }
    void setup(gmmu::driver &drv, unsigned page_shift) override { drv.map(base, n * 4096, page_shift); }
    bool next(unsigned, unsigned, gmmu::warp_op &) override { return false; }
    gmmu::next_status poll(unsigned sm, unsigned warp, gmmu::warp_op &op) override
    {
        if (warp != 0)
            return gmmu::next_status::done;
        op.nlanes = 1;
        op.active = 1;
        if (sm == 0) {
            if (written == n)
                return gmmu::next_status::done;
            op.write = true;
            op.explicit_data = true;
            op.va[0] = base + uint64_t(written) * 4096 * 7 % (n * 4096); // 7 is coprime to 64
            op.data[0] = base + uint64_t(written + 1) * 4096 * 7 % (n * 4096);
            written++;
            return gmmu::next_status::issue;
        }
        if (written < n)
            return gmmu::next_status::wait;
        if (followed == n)
            return gmmu::next_status::done;
        op.write = false;
        op.va[0] = followed == 0 ? base : cur;
        followed++;
        return gmmu::next_status::issue;
    }
    void completed(unsigned sm, unsigned, const gmmu::warp_op &op, const uint64_t *data,
                   const sc_core::sc_time &, const sc_core::sc_time &) override
    {
        if (sm == 1 && !op.write) {
            cur = data[0];
            visited.push_back(op.va[0]);
        }
    }
};

TEST(PlatformTest, PointerChaseFollowsExplicitDataAcrossWaitingSms)
{
    gmmu::config cfg = small_config({"sm.count=2", "sm.warps=1"});
    chase_workload wl;
    gmmu::gpu_platform gpu("gpu", cfg, wl);
    gmmu::run_result r = gpu.run();
    ASSERT_TRUE(r.ok) << r.error;
    ASSERT_EQ(wl.visited.size(), chase_workload::n);
    std::set<uint64_t> distinct(wl.visited.begin(), wl.visited.end());
    EXPECT_EQ(distinct.size(), chase_workload::n); // the chain visits every page once
    EXPECT_EQ(r.lanes_checked, chase_workload::n);
    EXPECT_EQ(r.mismatches, 0u);
}

} // namespace
