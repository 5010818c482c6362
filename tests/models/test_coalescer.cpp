#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

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

// Issue 46 item 3: the coalescer finds a lane's page by hashing (no scan of
// the pages found so far, no allocation). Against the definition, on random
// warps (pages from a small pool so that lanes far apart share pages, any
// active mask, any lane count): the same pages in order of first lane, the
// same lane masks and the same page of every active lane.
TEST(CoalescerTest, RandomWarpsGroupAsTheDefinitionSays)
{
    std::mt19937_64 rng(46);
    for (int i = 0; i < 20000; i++) {
        const unsigned shift = 12 + unsigned(rng() % 10);
        const unsigned pool = 1 + unsigned(rng() % 40);
        uint64_t pages[40];
        for (unsigned k = 0; k < pool; k++)
            pages[k] = rng() & 0xFFFFFFFFFull;
        uint64_t va[32];
        for (unsigned l = 0; l < 32; l++)
            va[l] = (pages[rng() % pool] << shift) | (rng() & ((1ull << shift) - 1));
        const uint32_t nlanes = 1 + unsigned(rng() % 32);
        const uint32_t active = rng() % 4 ? uint32_t(rng()) : 0xFFFFFFFFu;
        gmmu_coalesced c;
        ASSERT_EQ(gmmu_coalesce(va, nlanes, active, shift, &c), GMMU_OK);
        std::vector<uint64_t> want;
        std::vector<uint32_t> mask;
        for (unsigned l = 0; l < nlanes; l++) {
            if (!(active >> l & 1))
                continue;
            const uint64_t vpn = va[l] >> shift;
            size_t p = std::find(want.begin(), want.end(), vpn) - want.begin();
            if (p == want.size()) {
                want.push_back(vpn);
                mask.push_back(0);
            }
            mask[p] |= 1u << l;
            ASSERT_EQ(c.lane_page[l], p) << "warp " << i << " lane " << l;
        }
        ASSERT_EQ(c.npages, want.size()) << "warp " << i;
        for (size_t p = 0; p < want.size(); p++) {
            ASSERT_EQ(c.vpn[p], want[p]);
            ASSERT_EQ(c.lane_mask[p], mask[p]);
        }
    }
}
