// Thread block compaction: the block-wide stack, the compactor (TLB-agnostic
// and TLB-aware) and the Common Page Matrix, by hand-computed examples.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "gmmu/tbc.h"
}

namespace {

constexpr uint8_t X = GMMU_TBC_NO_THREAD;

// ---- block-wide stack -------------------------------------------------------------

TEST(TbcStackTest, ResetHoldsEveryThreadOfTheBlock)
{
    gmmu_tbc_stack s;
    ASSERT_EQ(gmmu_tbc_reset(&s, 3, 10), GMMU_OK);
    ASSERT_EQ(s.n, 1u);
    const gmmu_tbc_entry *t = gmmu_tbc_top(&s);
    EXPECT_EQ(t->pc, 0u);
    EXPECT_EQ(t->rpc, 10u);
    for (uint32_t w = 0; w < 3; w++)
        EXPECT_EQ(t->mask[w], 0xFFFFFFFFu);
    EXPECT_EQ(gmmu_tbc_reset(&s, 0, 10), GMMU_EINVAL);
    EXPECT_EQ(gmmu_tbc_reset(&s, GMMU_TBC_MAX_WARPS + 1, 10), GMMU_EINVAL);
    EXPECT_EQ(gmmu_tbc_reset(&s, 2, 0), GMMU_EINVAL);
}

// if/else:  2: BRNZ -> 5   3: (else) 4: JMP 6   5: (then)   6: join   (exit 8)
TEST(TbcStackTest, DivergentBranchPushesTakenThenFallThroughWithBlockWideMasks)
{
    gmmu_tbc_stack s;
    ASSERT_EQ(gmmu_tbc_reset(&s, 2, 8), GMMU_OK);
    EXPECT_TRUE(gmmu_tbc_converged(&s));
    const uint32_t taken[2] = {0x0000FFFFu, 0x00000001u};
    bool regroup = false;
    ASSERT_EQ(gmmu_tbc_branch(&s, 2, taken, 5, 6, &regroup), GMMU_OK);
    EXPECT_TRUE(regroup);
    EXPECT_FALSE(gmmu_tbc_converged(&s)); // a barrier here could never release
    ASSERT_EQ(s.n, 3u);
    EXPECT_EQ(s.e[0].pc, 6u); // waiting at the join with every thread
    EXPECT_EQ(s.e[0].mask[0], 0xFFFFFFFFu);
    EXPECT_EQ(s.e[1].pc, 5u); // taken
    EXPECT_EQ(s.e[1].rpc, 6u);
    EXPECT_EQ(s.e[1].mask[0], 0x0000FFFFu);
    EXPECT_EQ(s.e[1].mask[1], 0x00000001u);
    EXPECT_EQ(s.e[2].pc, 3u); // fall-through runs first
    EXPECT_EQ(s.e[2].mask[0], 0xFFFF0000u);
    EXPECT_EQ(s.e[2].mask[1], 0xFFFFFFFEu);
    EXPECT_EQ(s.splits, 1u);
    // the else path reaches the join, then the then path; then the block is whole
    ASSERT_EQ(gmmu_tbc_reconverge(&s), GMMU_OK);
    EXPECT_EQ(s.n, 2u);
    EXPECT_EQ(gmmu_tbc_top(&s)->pc, 5u);
    EXPECT_FALSE(gmmu_tbc_converged(&s));
    ASSERT_EQ(gmmu_tbc_reconverge(&s), GMMU_OK);
    EXPECT_EQ(s.n, 1u);
    EXPECT_EQ(gmmu_tbc_top(&s)->pc, 6u);
    EXPECT_TRUE(gmmu_tbc_converged(&s)); // whole again: a barrier may release
    EXPECT_EQ(s.reconverged, 2u);
    EXPECT_EQ(s.peak, 3u);
    ASSERT_EQ(gmmu_tbc_reconverge(&s), GMMU_OK); // the exit
    EXPECT_TRUE(gmmu_tbc_done(&s));
    EXPECT_FALSE(gmmu_tbc_converged(&s));
    EXPECT_EQ(gmmu_tbc_reconverge(&s), GMMU_EINVAL);
}

TEST(TbcStackTest, UniformBranchMovesTheTopWithoutRegrouping)
{
    gmmu_tbc_stack s;
    ASSERT_EQ(gmmu_tbc_reset(&s, 2, 8), GMMU_OK);
    const uint32_t all[2] = {0xFFFFFFFFu, 0xFFFFFFFFu}, none[2] = {0, 0};
    bool regroup = true;
    ASSERT_EQ(gmmu_tbc_branch(&s, 1, all, 4, 5, &regroup), GMMU_OK);
    EXPECT_FALSE(regroup);
    EXPECT_EQ(gmmu_tbc_top(&s)->pc, 4u);
    ASSERT_EQ(gmmu_tbc_branch(&s, 4, none, 0, 8, &regroup), GMMU_OK);
    EXPECT_FALSE(regroup);
    EXPECT_EQ(gmmu_tbc_top(&s)->pc, 5u);
    EXPECT_EQ(s.splits, 0u);
    // a uniform branch straight to the top's reconvergence pc ends the entry
    ASSERT_EQ(gmmu_tbc_branch(&s, 5, all, 8, 8, &regroup), GMMU_OK);
    EXPECT_TRUE(regroup);
    EXPECT_TRUE(gmmu_tbc_done(&s));
}

// A loop exit (taken = back edge, rpc = the exit pc) under an entry with the
// same rpc replaces the top instead of keeping a second waiting entry.
TEST(TbcStackTest, SplitAtTheTopsOwnReconvergencePcReplacesTheTop)
{
    gmmu_tbc_stack s;
    ASSERT_EQ(gmmu_tbc_reset(&s, 1, 8), GMMU_OK);
    const uint32_t t1[1] = {0x0000000Fu};
    bool regroup = false;
    // 3: BRNZ -> 8 (exit), ipdom 8: the taken lanes leave; the rest go on
    ASSERT_EQ(gmmu_tbc_branch(&s, 3, t1, 8, 8, &regroup), GMMU_OK);
    EXPECT_TRUE(regroup);
    ASSERT_EQ(s.n, 1u);
    EXPECT_EQ(gmmu_tbc_top(&s)->pc, 4u);
    EXPECT_EQ(gmmu_tbc_top(&s)->mask[0], 0xFFFFFFF0u);
}

TEST(TbcStackTest, RefusesLanesThatAreNotActiveAndDepthBeyondTheLimit)
{
    gmmu_tbc_stack s;
    ASSERT_EQ(gmmu_tbc_reset(&s, 8, 1000), GMMU_OK);
    const uint32_t half[1] = {0x0000FFFFu};
    bool regroup = false;
    // nested ifs, each with its own join: every level keeps a waiting entry
    // and pushes both paths (the block's lowest thread takes each branch)
    gmmu_status st = GMMU_OK;
    uint32_t n_before = 0;
    for (uint32_t k = 0; k < 255 && st == GMMU_OK; k++) {
        uint32_t sub[8] = {0};
        const gmmu_tbc_entry *top = gmmu_tbc_top(&s);
        for (uint32_t w = 0; w < 8; w++)
            if (top->mask[w]) {
                sub[w] = top->mask[w] & (0u - top->mask[w]);
                break;
            }
        n_before = s.n;
        st = gmmu_tbc_branch(&s, top->pc, sub, 300 + k, 999 - k, &regroup);
    }
    EXPECT_EQ(st, GMMU_ENOMEM);
    EXPECT_EQ(s.n, n_before); // nothing changed
    EXPECT_LE(s.n, GMMU_TBC_DEPTH);
    gmmu_tbc_stack t;
    ASSERT_EQ(gmmu_tbc_reset(&t, 1, 10), GMMU_OK);
    ASSERT_EQ(gmmu_tbc_branch(&t, 0, half, 5, 6, &regroup), GMMU_OK); // fall-through on top
    const uint32_t outside[1] = {0x00000001u};                        // lane 0 took the branch
    EXPECT_EQ(gmmu_tbc_branch(&t, 1, outside, 3, 4, &regroup), GMMU_EINVAL);
}

// ---- compaction -------------------------------------------------------------------

std::vector<uint8_t> compact(const std::vector<uint32_t> &mask, const gmmu_cpm *cpm, uint32_t *n)
{
    std::vector<uint8_t> home(mask.size() * 32);
    *n = gmmu_tbc_compact(mask.data(), uint32_t(mask.size()), cpm, 0, home.data());
    return home;
}

TEST(TbcCompactTest, AFullBlockCompactsIntoItsStaticWarps)
{
    uint32_t n = 0;
    auto home = compact({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, nullptr, &n);
    EXPECT_EQ(n, 3u);
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t l = 0; l < 32; l++)
            EXPECT_EQ(home[k * 32 + l], k);
}

TEST(TbcCompactTest, ThreadsKeepTheirLanesAndFillTheLowestDynamicWarp)
{
    uint32_t n = 0;
    // warp 0 lanes 0,2; warp 1 lanes 1,3: one dynamic warp of four lanes
    auto home = compact({0x5u, 0xAu}, nullptr, &n);
    EXPECT_EQ(n, 1u);
    EXPECT_EQ(home[0], 0);
    EXPECT_EQ(home[1], 1);
    EXPECT_EQ(home[2], 0);
    EXPECT_EQ(home[3], 1);
    EXPECT_EQ(home[4], X);
    EXPECT_EQ(home[32 + 0], X); // warp 1 is empty
    // lane 0 is used by all three warps: three dynamic warps, lowest warp first
    home = compact({0x3u, 0x1u, 0x1u}, nullptr, &n);
    EXPECT_EQ(n, 3u);
    EXPECT_EQ(home[0], 0);
    EXPECT_EQ(home[1], 0);
    EXPECT_EQ(home[32], 1);
    EXPECT_EQ(home[33], X);
    EXPECT_EQ(home[64], 2);
    home = compact({0, 0}, nullptr, &n);
    EXPECT_EQ(n, 0u);
}

gmmu_cpm *make_cpm(uint32_t warps, uint32_t bits)
{
    gmmu_cpm *m = nullptr;
    gmmu_cpm_config c = {warps, bits, 2, 16, 0};
    EXPECT_EQ(gmmu_cpm_create(&c, &m, nullptr), GMMU_OK);
    return m;
}

TEST(TbcCompactTest, TlbAwareCompactionGroupsOnlyWarpsWithSaturatedCounters)
{
    gmmu_cpm *m = make_cpm(2, 1);
    uint32_t n = 0;
    // counters clear: warp 1's threads may not join warp 0's; lane 1 and 3
    // wait for the second dynamic warp, where they are forced (one warp left)
    auto home = compact({0x5u, 0xAu}, m, &n);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(home[0], 0);
    EXPECT_EQ(home[1], X);
    EXPECT_EQ(home[2], 0);
    EXPECT_EQ(home[3], X);
    EXPECT_EQ(home[32 + 1], 1);
    EXPECT_EQ(home[32 + 3], 1);
    // warp 1 hit a page warp 0 used: counter [1][0] saturates at 1 bit
    gmmu_cpm_access(m, 7, 0, false, 0);
    gmmu_cpm_access(m, 7, 1, true, 1);
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 0, 1), 0u);
    // the row is the candidate's: warp 1 may join warp 0's lane 0, but then
    // warp 0's lane 2 may not join warp 1's lanes ([0][1] is clear)
    home = compact({0x5u, 0xAu}, m, &n);
    EXPECT_EQ(n, 2u);
    EXPECT_EQ(home[0], 0);
    EXPECT_EQ(home[1], 1);
    EXPECT_EQ(home[2], X);
    EXPECT_EQ(home[3], 1);
    EXPECT_EQ(home[32 + 2], 0);
    gmmu_cpm_access(m, 7, 0, true, 2); // [0][1] saturates too
    home = compact({0x5u, 0xAu}, m, &n);
    EXPECT_EQ(n, 1u); // the TLB-agnostic grouping again
    EXPECT_EQ(home[2], 0);
    gmmu_cpm_destroy(m);
}

TEST(TbcCompactTest, TlbAwareCompactionNeverNeedsMoreWarpsThanTheBlockHas)
{
    gmmu_cpm *m = make_cpm(4, 3);
    uint32_t n = 0;
    // every lane used by 3 of 4 warps, no counter set: still at most 4 warps
    auto home = compact({0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu, 0}, m, &n);
    EXPECT_LE(n, 4u);
    std::vector<uint32_t> placed(4, 0);
    for (uint32_t k = 0; k < 4; k++)
        for (uint32_t l = 0; l < 32; l++)
            if (home[k * 32 + l] != X)
                placed[home[k * 32 + l]] |= 1u << l;
    EXPECT_EQ(placed[0], 0xFFFFFFFFu);
    EXPECT_EQ(placed[1], 0xFFFFFFFFu);
    EXPECT_EQ(placed[2], 0xFFFFFFFFu);
    EXPECT_EQ(placed[3], 0u);
    // warp 0 alone first (nothing may join it), then forced: 1 and 2 share
    // no counters either, but two warps are left for two threads per lane
    EXPECT_EQ(home[0], 0);
    EXPECT_EQ(home[32], 1);
    EXPECT_EQ(home[64], 2);
    gmmu_cpm_destroy(m);
}

TEST(TbcCompactTest, TheCompactorFormsOneDynamicWarpPerCycle)
{
    const uint32_t mask[3] = {0x3u, 0x1u, 0x5u}; // lane 0 in all three warps
    gmmu_tbc_compactor c;
    ASSERT_EQ(gmmu_tbc_compactor_start(&c, mask, 3, nullptr, 0), GMMU_OK);
    std::vector<uint8_t> all(3 * 32);
    uint32_t n = 0;
    uint8_t home[32];
    while (gmmu_tbc_compactor_step(&c, home)) {
        std::copy(home, home + 32, all.begin() + n * 32);
        n++;
    }
    EXPECT_TRUE(gmmu_tbc_compactor_done(&c));
    EXPECT_EQ(n, 3u);
    // cycle 0: lanes 0 (warp 0), 1 (warp 0), 2 (warp 2); cycle 1: lane 0 of
    // warp 1; cycle 2: lane 0 of warp 2
    EXPECT_EQ(all[0], 0);
    EXPECT_EQ(all[1], 0);
    EXPECT_EQ(all[2], 2);
    EXPECT_EQ(all[32], 1);
    EXPECT_EQ(all[33], X);
    EXPECT_EQ(all[64], 2);
    uint32_t m = 0;
    auto once = compact({0x3u, 0x1u, 0x5u}, nullptr, &m);
    EXPECT_EQ(m, n);
    EXPECT_EQ(once, all);
    EXPECT_FALSE(gmmu_tbc_compactor_step(&c, home)); // done stays done
    EXPECT_EQ(gmmu_tbc_compactor_start(&c, mask, 0, nullptr, 0), GMMU_EINVAL);
    EXPECT_EQ(gmmu_tbc_compactor_start(&c, nullptr, 3, nullptr, 0), GMMU_EINVAL);
}

// ---- Common Page Matrix --------------------------------------------------------

TEST(CpmTest, HitsCountAgainstTheLastTwoOtherUsersAndSaturate)
{
    gmmu_cpm *m = make_cpm(4, 3);
    gmmu_cpm_access(m, 9, 0, false, 0); // fill: history [0]
    gmmu_cpm_access(m, 9, 1, true, 1);  // [1][0] = 1; history [1, 0]
    gmmu_cpm_access(m, 9, 2, true, 2);  // [2][1], [2][0] = 1; history [2, 1]
    gmmu_cpm_access(m, 9, 3, true, 3);  // [3][2], [3][1] = 1, not [3][0]
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 2, 1), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 2, 0), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 2), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 1), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 0), 0u);
    // a repeated user moves to the front and does not count against itself
    gmmu_cpm_access(m, 9, 3, true, 4); // history [3, 2]: [3][2] = 2
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 2), 2u);
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 3), 0u);
    for (int i = 0; i < 20; i++)
        gmmu_cpm_access(m, 9, 3, true, 5);
    EXPECT_EQ(gmmu_cpm_counter(m, 3, 2), 7u);
    EXPECT_TRUE(gmmu_cpm_saturated(m, 3, 2));
    EXPECT_FALSE(gmmu_cpm_saturated(m, 2, 3));
    EXPECT_TRUE(gmmu_cpm_saturated(m, 1, 1));
    gmmu_cpm_destroy(m);
}

TEST(CpmTest, MissesAndEvictionsStartAPageHistoryAfresh)
{
    gmmu_cpm *m = make_cpm(3, 3);
    gmmu_cpm_access(m, 4, 0, false, 0);
    gmmu_cpm_access(m, 4, 1, false, 1); // a miss: the TLB refilled the entry
    gmmu_cpm_access(m, 4, 2, true, 2);  // history was [1] only
    EXPECT_EQ(gmmu_cpm_counter(m, 2, 1), 1u);
    EXPECT_EQ(gmmu_cpm_counter(m, 2, 0), 0u);
    gmmu_cpm_evict(m, 4);
    gmmu_cpm_access(m, 4, 0, true, 3); // a page it no longer knows
    EXPECT_EQ(gmmu_cpm_counter(m, 0, 1), 0u);
    EXPECT_EQ(gmmu_cpm_counter(m, 0, 2), 0u);
    gmmu_cpm_access(m, 4, 1, true, 4);
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 1u);
    gmmu_cpm_destroy(m);
}

TEST(CpmTest, TheTableKeepsTheMostRecentlyUsedPagesAndFlushesPeriodically)
{
    gmmu_cpm *m = nullptr;
    gmmu_cpm_config c = {2, 3, 2, 2, 500};
    ASSERT_EQ(gmmu_cpm_create(&c, &m, nullptr), GMMU_OK);
    gmmu_cpm_access(m, 1, 0, false, 0);
    gmmu_cpm_access(m, 2, 0, false, 1);
    gmmu_cpm_access(m, 1, 0, true, 2); // page 1 is now the more recent
    gmmu_cpm_access(m, 3, 0, false, 3); // evicts page 2
    gmmu_cpm_access(m, 1, 1, true, 4);
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 1u);
    gmmu_cpm_access(m, 2, 1, true, 5); // page 2 is gone: no count
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 1u);
    gmmu_cpm_access(m, 1, 1, true, 499);
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 2u);
    gmmu_cpm_access(m, 7, 0, false, 500); // cycle 500: every counter clears
    EXPECT_EQ(gmmu_cpm_counter(m, 1, 0), 0u);
    EXPECT_EQ(m->flushes, 1u);
    gmmu_cpm_access(m, 7, 0, false, 1600); // two periods later: one flush, aligned
    EXPECT_EQ(m->flushes, 2u);
    EXPECT_EQ(m->last_flush, 1500u);
    gmmu_cpm_destroy(m);
}

TEST(CpmTest, StateBitsAreCountersPlusTheTlbHistory)
{
    gmmu_cpm_config c = {48, 3, 2, 128, 500};
    // 48 x 47 x 3 = 6768 counter bits (846 B), 128 entries x 2 x 6-bit ids
    EXPECT_EQ(gmmu_cpm_state_bits(&c, 128), 6768u + 1536u);
    gmmu_cpm_config bad = c;
    bad.counter_bits = 0;
    gmmu_error err{};
    EXPECT_EQ(gmmu_cpm_config_check(&bad, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "counter_bits");
    bad = c;
    bad.warps = 300;
    EXPECT_EQ(gmmu_cpm_config_check(&bad, &err), GMMU_EINVAL);
}

} // namespace
