// L1 translation front-end timing (models/src/xlate_timing.c): TLB access
// time against entries and ports, and when a warp's pages reach the cache.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "gmmu/xlate_timing.h"
}

TEST(XlateTiming, FixedModelIgnoresSizeAndPorts)
{
    for (uint32_t e : {16u, 128u, 512u, 4096u})
        for (uint32_t p : {1u, 3u, 4u, 32u})
            EXPECT_EQ(gmmu_tlb_access_cycles(GMMU_TLB_LATENCY_FIXED, 2, 5, e, p), 2u);
}

TEST(XlateTiming, ScaledModelAddsAStepPerDoublingAbove128EntriesAnd4Ports)
{
    const auto sc = [](uint32_t e, uint32_t p) {
        return gmmu_tlb_access_cycles(GMMU_TLB_LATENCY_SCALED, 2, 1, e, p);
    };
    EXPECT_EQ(sc(64, 3), 2u);   // small and few ports: base
    EXPECT_EQ(sc(128, 4), 2u);  // the reference TLB: base
    EXPECT_EQ(sc(129, 4), 3u);  // rounded up
    EXPECT_EQ(sc(256, 4), 3u);
    EXPECT_EQ(sc(512, 4), 4u);
    EXPECT_EQ(sc(128, 8), 3u);
    EXPECT_EQ(sc(128, 32), 5u);
    EXPECT_EQ(sc(512, 32), 7u); // the ideal TLB's geometry at its real cost
    EXPECT_EQ(gmmu_tlb_access_cycles(GMMU_TLB_LATENCY_SCALED, 2, 3, 512, 32), 2u + 3u * 5u);
    // Monotone in both.
    for (uint32_t e = 1; e < 5000; e += 7)
        EXPECT_LE(sc(e, 4), sc(e + 7, 4));
    EXPECT_EQ(gmmu_tlb_access_cycles(GMMU_TLB_LATENCY_SCALED, UINT32_MAX, 1, 512, 4), UINT32_MAX);
}

TEST(XlateTiming, WithoutOverlapEveryPageWaitsForTheLastTranslation)
{
    const uint64_t ready[] = {4, 40, 7};
    uint64_t at[3] = {};
    EXPECT_EQ(gmmu_warp_dispatch_times(ready, 3, false, at), 40u);
    EXPECT_EQ(at[0], 40u);
    EXPECT_EQ(at[1], 40u);
    EXPECT_EQ(at[2], 40u);
}

TEST(XlateTiming, WithOverlapEachPageGoesWhenItsTranslationIsKnown)
{
    const uint64_t ready[] = {4, 40, 7};
    uint64_t at[3] = {};
    EXPECT_EQ(gmmu_warp_dispatch_times(ready, 3, true, at), 40u);
    EXPECT_EQ(at[0], 4u);
    EXPECT_EQ(at[1], 40u);
    EXPECT_EQ(at[2], 7u);
    EXPECT_EQ(gmmu_warp_dispatch_times(ready, 0, true, at), 0u);
}
