// Warp scheduling (models/src/warp_sched.c): the earliest-ready warp, ties
// round-robin from the warp after the last one that issued.
#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "gmmu/warp_sched.h"
}

TEST(WarpSched, EarliestReadyWarpTiesRoundRobin)
{
    const uint64_t ready[] = {5, 3, 3, 9};
    const uint8_t none[] = {0, 0, 0, 0};
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, none, 4, 0), 1u);
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, none, 4, 2), 2u); // tie: rotation starts at 2
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, none, 4, 3), 1u); // 3, 0, 1 (first of the tie)
    const uint8_t fin[] = {0, 1, 1, 0};
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, fin, 4, 0), 0u);
    const uint8_t all[] = {1, 1, 1, 1};
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, all, 4, 1), 4u);
}

TEST(WarpSched, BadArgumentsPickNone)
{
    const uint64_t ready[] = {1, 2};
    const uint8_t fin[] = {0, 0};
    EXPECT_EQ(gmmu_warp_pick_earliest(nullptr, fin, 2, 0), 2u);
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, nullptr, 2, 0), 2u);
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, fin, 0, 0), 0u);
    EXPECT_EQ(gmmu_warp_pick_earliest(ready, fin, 2, 2), 2u);
}

// Against the plain definition on random states: the chosen warp is
// unfinished, no unfinished warp is ready earlier, and among the equally
// ready ones it is the first in rotation order from rr.
TEST(WarpSched, MatchesTheDefinitionOnRandomStates)
{
    uint64_t x = 0x2026;
    auto rnd = [&](unsigned m) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return unsigned((x >> 33) % m);
    };
    for (int t = 0; t < 5000; t++) {
        const unsigned n = 1 + rnd(48);
        std::vector<uint64_t> ready(n);
        std::vector<uint8_t> fin(n);
        for (unsigned i = 0; i < n; i++) {
            ready[i] = rnd(5);
            fin[i] = rnd(4) == 0;
        }
        const unsigned rr = rnd(n);
        const unsigned w = gmmu_warp_pick_earliest(ready.data(), fin.data(), n, rr);
        unsigned expect = n;
        for (unsigned k = 0; k < n; k++) {
            const unsigned c = (rr + k) % n;
            if (fin[c])
                continue;
            if (expect == n || ready[c] < ready[expect])
                expect = c;
        }
        ASSERT_EQ(w, expect) << "n " << n << " rr " << rr;
    }
}
