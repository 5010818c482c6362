#include <gtest/gtest.h>

extern "C" {
#include "gmmu/coalescer.h"
}

TEST(CoalescerTest, ContiguousWarpTouchesOnePage)
{
    uint64_t va[32];
    for (int i = 0; i < 32; i++)
        va[i] = 0x10000 + 8 * i;
    gmmu_coalesced c;
    ASSERT_EQ(gmmu_coalesce(va, 32, 0xFFFFFFFFu, 12, &c), GMMU_OK);
    EXPECT_EQ(c.npages, 1u);
    EXPECT_EQ(c.vpn[0], 0x10u);
    EXPECT_EQ(c.lane_mask[0], 0xFFFFFFFFu);
}

TEST(CoalescerTest, ScatteredLanesGiveFullPageDivergence)
{
    uint64_t va[32];
    for (int i = 0; i < 32; i++)
        va[i] = (uint64_t)(31 - i) << 12;
    gmmu_coalesced c;
    ASSERT_EQ(gmmu_coalesce(va, 32, 0xFFFFFFFFu, 12, &c), GMMU_OK);
    EXPECT_EQ(c.npages, 32u);
    for (unsigned i = 0; i < 32; i++) {
        EXPECT_EQ(c.vpn[i], 31u - i);
        EXPECT_EQ(c.lane_page[i], i);
    }
}

TEST(CoalescerTest, InactiveLanesAreIgnoredAndPagesGroupAcrossLanes)
{
    uint64_t va[4] = {0x1000, 0x5000, 0x1008, 0x9000};
    gmmu_coalesced c;
    ASSERT_EQ(gmmu_coalesce(va, 4, 0x7u, 12, &c), GMMU_OK); // lane 3 inactive
    ASSERT_EQ(c.npages, 2u);
    EXPECT_EQ(c.lane_mask[0], 0x5u);
    EXPECT_EQ(c.lane_mask[1], 0x2u);
    EXPECT_EQ(c.lane_page[2], 0u);
    // Larger pages merge more lanes.
    ASSERT_EQ(gmmu_coalesce(va, 4, 0xFu, 21, &c), GMMU_OK);
    EXPECT_EQ(c.npages, 1u);
}

TEST(CoalescerTest, BadArgumentsAreRejected)
{
    uint64_t va[1] = {0};
    gmmu_coalesced c;
    EXPECT_EQ(gmmu_coalesce(va, 33, 1, 12, &c), GMMU_EINVAL);
    EXPECT_EQ(gmmu_coalesce(va, 1, 1, 11, &c), GMMU_EINVAL);
    EXPECT_EQ(gmmu_coalesce(nullptr, 1, 1, 12, &c), GMMU_EINVAL);
}
