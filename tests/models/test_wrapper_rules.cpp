// Small decisions the TLM wrappers ask the C models for (issue 42 item 4):
// TLB port timing and DMI write grants (tlb_translate.cpp, tlb.cpp), the
// order a warp's pages go to the data side (tlb_front.cpp), and the warp
// scheduler's issue order, throttle and compaction (sm_core_config.cpp).
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/sm_issue.h"
#include "gmmu/tlb.h"
#include "gmmu/xlate_timing.h"
}

namespace {

TEST(TlbPortCycles, OneLookupPerPortPerCycleAfterTheFirstFullLatency)
{
    EXPECT_EQ(gmmu_tlb_port_cycles(3, 0, 4), 3u); // an empty batch: the lookup latency
    EXPECT_EQ(gmmu_tlb_port_cycles(3, 1, 4), 3u);
    EXPECT_EQ(gmmu_tlb_port_cycles(3, 4, 4), 3u); // four ports: four lookups in the first cycle
    EXPECT_EQ(gmmu_tlb_port_cycles(3, 5, 4), 4u);
    EXPECT_EQ(gmmu_tlb_port_cycles(3, 32, 4), 10u);
    EXPECT_EQ(gmmu_tlb_port_cycles(1, 32, 1), 32u);
    EXPECT_EQ(gmmu_tlb_port_cycles(1, 32, 32), 1u);
}

TEST(TlbDmi, WriteDmiOnlyWhereThePteIsWritable)
{
    EXPECT_TRUE(gmmu_tlb_dmi_writable(GMMU_PTE_P | GMMU_PTE_W));
    EXPECT_TRUE(gmmu_tlb_dmi_writable(GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX));
    EXPECT_FALSE(gmmu_tlb_dmi_writable(GMMU_PTE_P | GMMU_PTE_U | GMMU_PTE_D));
    EXPECT_FALSE(gmmu_tlb_dmi_writable(0));
}

std::vector<uint32_t> order_of(const std::vector<uint64_t> &at)
{
    std::vector<uint32_t> o(at.size(), 99);
    gmmu_warp_dispatch_order(at.data(), uint32_t(at.size()), o.data());
    return o;
}

TEST(WarpDispatchOrder, EarliestFirstTiesInCoalescingOrder)
{
    EXPECT_EQ(order_of({}), std::vector<uint32_t>{});
    EXPECT_EQ(order_of({5}), std::vector<uint32_t>({0}));
    EXPECT_EQ(order_of({30, 10, 20}), std::vector<uint32_t>({1, 2, 0}));
    EXPECT_EQ(order_of({7, 3, 7, 3, 1}), std::vector<uint32_t>({4, 1, 3, 0, 2}));
    std::vector<uint64_t> desc(32);
    for (unsigned i = 0; i < 32; i++)
        desc[i] = 100 - i;
    const auto o = order_of(desc);
    for (unsigned i = 0; i < 32; i++)
        EXPECT_EQ(o[i], 31 - i);
}

gmmu_sm_config scheduled(const char *name, gmmu_status want = GMMU_OK)
{
    gmmu_sm_config c;
    gmmu_sm_config_tanasic17(&c);
    c.order = GMMU_ORDER_LRR;
    c.throttle = GMMU_THROTTLE_CCWS; // stale values the parse must overwrite
    c.compaction = GMMU_COMPACT_TBC;
    EXPECT_EQ(gmmu_warp_scheduler_parse(name, &c), want) << name;
    return c;
}

TEST(WarpSchedulerParse, PlainOrdersHaveNoThrottleAndNoCompaction)
{
    const struct {
        const char *name;
        gmmu_warp_order order;
    } plain[] = {{"lrr", GMMU_ORDER_LRR}, {"gto", GMMU_ORDER_GTO}, {"oldest", GMMU_ORDER_OLDEST}};
    for (auto &p : plain) {
        const gmmu_sm_config c = scheduled(p.name);
        EXPECT_EQ(c.order, p.order) << p.name;
        EXPECT_EQ(c.throttle, GMMU_THROTTLE_NONE) << p.name;
        EXPECT_EQ(c.compaction, GMMU_COMPACT_NONE) << p.name;
    }
}

TEST(WarpSchedulerParse, ThrottlesRunOverGreedyThenOldest)
{
    const struct {
        const char *name;
        gmmu_throttle throttle;
    } th[] = {{"ccws", GMMU_THROTTLE_CCWS},
              {"ta-ccws", GMMU_THROTTLE_TA_CCWS},
              {"tcws", GMMU_THROTTLE_TCWS}};
    for (auto &t : th) {
        const gmmu_sm_config c = scheduled(t.name);
        EXPECT_EQ(c.order, GMMU_ORDER_GTO) << t.name;
        EXPECT_EQ(c.throttle, t.throttle) << t.name;
        EXPECT_EQ(c.compaction, GMMU_COMPACT_NONE) << t.name;
    }
}

TEST(WarpSchedulerParse, CompactionUsesTheAgeBasedPriority)
{
    gmmu_sm_config c = scheduled("tbc");
    EXPECT_EQ(c.order, GMMU_ORDER_OLDEST);
    EXPECT_EQ(c.compaction, GMMU_COMPACT_TBC);
    EXPECT_EQ(c.throttle, GMMU_THROTTLE_NONE);
    c = scheduled("tlb-tbc");
    EXPECT_EQ(c.order, GMMU_ORDER_OLDEST);
    EXPECT_EQ(c.compaction, GMMU_COMPACT_TLB_TBC);
    EXPECT_EQ(c.throttle, GMMU_THROTTLE_NONE);
}

// Which schedulers make the SM ask its L1 TLB and data cache for the
// CCWS/TCWS sideband (sched_sideband_ext): exactly those that read it, the
// throttles (VTAs probed on misses, victims) and TLB-aware compaction (TLB
// hits and victims); plain orders and plain TBC do not pay for it.
TEST(WarpSchedulerParse, OnlyThrottlesAndTlbAwareCompactionNeedTheSideband)
{
    for (const char *name : {"ccws", "ta-ccws", "tcws", "tlb-tbc"}) {
        const gmmu_sm_config c = scheduled(name);
        EXPECT_TRUE(gmmu_sm_needs_sideband(&c)) << name;
    }
    for (const char *name : {"lrr", "gto", "oldest", "tbc"}) {
        const gmmu_sm_config c = scheduled(name);
        EXPECT_FALSE(gmmu_sm_needs_sideband(&c)) << name;
    }
}

TEST(WarpSchedulerParse, UnknownNamesAreRefusedAndLeaveTheConfig)
{
    for (const char *bad : {"", "GTO", "ccws ", "round-robin"}) {
        const gmmu_sm_config c = scheduled(bad, GMMU_EINVAL);
        EXPECT_EQ(c.order, GMMU_ORDER_LRR) << bad;
        EXPECT_EQ(c.throttle, GMMU_THROTTLE_CCWS) << bad;
        EXPECT_EQ(c.compaction, GMMU_COMPACT_TBC) << bad;
    }
    EXPECT_EQ(gmmu_warp_scheduler_parse(nullptr, nullptr), GMMU_EINVAL);
}

} // namespace
