// Lost-locality scoring (CCWS, TA-CCWS, TCWS): VTAs, scores, decay and the
// throttled pool, by hand-computed examples.
#include <gtest/gtest.h>

#include <memory>
#include <string>

extern "C" {
#include "gmmu/ccws.h"
}

namespace {

using Ccws = std::unique_ptr<gmmu_ccws, void (*)(gmmu_ccws *)>;

Ccws make(uint32_t warps, uint32_t entries = 16, uint32_t ways = 8)
{
    gmmu_ccws_config c;
    gmmu_ccws_config_default(&c, warps);
    c.vta_entries = entries;
    c.vta_ways = ways;
    gmmu_ccws *s = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_ccws_create(&c, &s, &err), GMMU_OK) << err.field << ": " << err.msg;
    return Ccws(s, &gmmu_ccws_destroy);
}

TEST(CcwsTest, AllWarpsAtBaseAreAllInThePool)
{
    const Ccws s = make(4);
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0xFu), 0xFu);
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0x5u), 0x5u); // only active warps count
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0), 0u);
}

TEST(CcwsTest, AVtaHitRaisesTheScoreAndPushesTheLowestWarpsOut)
{
    const Ccws s = make(4);
    gmmu_ccws_lost(s.get(), 2, 0x1000); // warp 2 lost line 0x1000
    EXPECT_FALSE(gmmu_ccws_probe(s.get(), 1, 0x1000, 1)); // not warp 1's
    EXPECT_TRUE(gmmu_ccws_probe(s.get(), 2, 0x1000, 1));
    EXPECT_FALSE(gmmu_ccws_probe(s.get(), 2, 0x1000, 1)); // left the VTA on the hit
    EXPECT_EQ(s->score[2], 200u);
    // Sorted: w2 (200), w0, w1, w3 (100 each): sums 200, 300, 400 | 500 > 400.
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0xFu), 0x7u); // warp 3 throttled
    // A second hit: w2 = 300; sums 300, 400 | 500: warps 1 and 3 out.
    gmmu_ccws_lost(s.get(), 2, 0x2000);
    EXPECT_TRUE(gmmu_ccws_probe(s.get(), 2, 0x2000, 1));
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0xFu), 0x5u);
    EXPECT_EQ(s->vta_hits, 2u);
    EXPECT_EQ(s->probes, 4u);
}

TEST(CcwsTest, ScoresDecayToBaseAndTheHighestWarpIsAlwaysIn)
{
    const Ccws s = make(2);
    gmmu_ccws_lost(s.get(), 1, 7);
    ASSERT_TRUE(gmmu_ccws_probe(s.get(), 1, 7, 8)); // weight 8: +800
    EXPECT_EQ(s->score[1], 900u);
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0x3u), 0x2u); // 900 alone exceeds 200: w1 in, w0 out
    gmmu_ccws_tick(s.get(), 750);
    EXPECT_EQ(s->score[1], 150u);
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0x3u), 0x2u); // 150 + 100 > 200
    gmmu_ccws_tick(s.get(), 1000);
    EXPECT_EQ(s->score[1], 100u); // floor
    EXPECT_EQ(s->score[0], 100u);
    EXPECT_EQ(gmmu_ccws_pool(s.get(), 0x3u), 0x3u);
}

TEST(CcwsTest, VtaIsSetAssociativeLru)
{
    // 2 entries, 1 way -> 2 sets of 1: a second tag in the same set replaces the first.
    const Ccws s = make(1, 2, 2); // 1 set of 2 ways
    gmmu_ccws_lost(s.get(), 0, 10);
    gmmu_ccws_lost(s.get(), 0, 20);
    gmmu_ccws_lost(s.get(), 0, 10); // refresh 10: 20 is now least recent
    gmmu_ccws_lost(s.get(), 0, 30); // evicts 20
    EXPECT_TRUE(gmmu_ccws_probe(s.get(), 0, 10, 1));
    EXPECT_FALSE(gmmu_ccws_probe(s.get(), 0, 20, 1));
    EXPECT_TRUE(gmmu_ccws_probe(s.get(), 0, 30, 1));
    gmmu_ccws_lost(s.get(), 0, 40);
    gmmu_ccws_reset_warp(s.get(), 0); // a new block in the slot: nothing lost, base score
    EXPECT_FALSE(gmmu_ccws_probe(s.get(), 0, 40, 1));
    EXPECT_EQ(s->score[0], 100u);
}

TEST(CcwsTest, TcwsDepthWeightsScoreDeeperHitsMore)
{
    gmmu_ccws_config c;
    gmmu_ccws_config_default(&c, 2);
    c.vta_entries = 8; // TCWS: 8 entries per warp
    c.vta_ways = 8;
    c.hit_score = 10;
    c.depth_weight[0] = 1;
    c.depth_weight[1] = 2;
    c.depth_weight[2] = 4;
    c.depth_weight[3] = 8; // LRU(1,2,4,8) for a 4-way TLB
    gmmu_ccws *raw = nullptr;
    ASSERT_EQ(gmmu_ccws_create(&c, &raw, nullptr), GMMU_OK);
    const Ccws s(raw, &gmmu_ccws_destroy);
    gmmu_ccws_depth_hit(s.get(), 0, 0);
    gmmu_ccws_depth_hit(s.get(), 0, 3);
    gmmu_ccws_depth_hit(s.get(), 1, 2);
    gmmu_ccws_depth_hit(s.get(), 1, 7); // weight 0: no score
    EXPECT_EQ(s->score[0], 100u + 1u + 8u); // a TLB hit adds its depth's weight
    EXPECT_EQ(s->score[1], 100u + 4u);
    EXPECT_EQ(s->depth_hits, 3u);
    // TA-CCWS weights pass through probe: 4:1.
    gmmu_ccws_lost(s.get(), 1, 0xABC);
    ASSERT_TRUE(gmmu_ccws_probe(s.get(), 1, 0xABC, 4));
    EXPECT_EQ(s->score[1], 104u + 40u); // a VTA hit: hit_score x weight
}

TEST(CcwsTest, StateBitsCountTagsValidLruAndScores)
{
    gmmu_ccws_config c;
    gmmu_ccws_config_default(&c, 48);
    // CCWS: 16 x (line tag 25 + valid 1 + LRU 3) + score 10 per warp.
    EXPECT_EQ(gmmu_ccws_state_bits(&c, 25, 10), 48u * (16u * 29u + 10u));
    c.vta_entries = 8; // TCWS: 8 page tags of 36 bits, fully associative
    c.vta_ways = 8;
    EXPECT_EQ(gmmu_ccws_state_bits(&c, 36, 10), 48u * (8u * 40u + 10u));
}

TEST(CcwsTest, BadConfigsNameTheField)
{
    struct Case {
        void (*mutate)(gmmu_ccws_config &);
        const char *field;
    } cases[] = {
        {[](gmmu_ccws_config &c) { c.warps = 65; }, "warps"},
        {[](gmmu_ccws_config &c) { c.vta_entries = 0; }, "vta_entries"},
        {[](gmmu_ccws_config &c) { c.vta_ways = 3; }, "vta_ways"},
        {[](gmmu_ccws_config &c) { c.base_score = 0; }, "base_score"},
        {[](gmmu_ccws_config &c) { c.hit_score = 0; }, "hit_score"},
        {[](gmmu_ccws_config &c) { c.tlb_weight = 3; }, "tlb_weight"},
        {[](gmmu_ccws_config &c) { c.cache_weight = 0; }, "cache_weight"},
        {[](gmmu_ccws_config &c) { c.depth_weight[2] = 6; }, "depth_weight"},
    };
    for (const auto &k : cases) {
        gmmu_ccws_config c;
        gmmu_ccws_config_default(&c, 8);
        k.mutate(c);
        gmmu_error err{};
        EXPECT_EQ(gmmu_ccws_config_check(&c, &err), GMMU_EINVAL) << k.field;
        EXPECT_STREQ(err.field, k.field);
    }
}

} // namespace
