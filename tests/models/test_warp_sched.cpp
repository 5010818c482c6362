// Warp scheduling (models/src/warp_sched.c): the earliest-ready warp, ties
// round-robin from the warp after the last one that issued.
#include <gtest/gtest.h>

#include <algorithm>
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

// The picker keeps the ready times and finished flags itself and must choose
// exactly as the scan over the same arrays, whatever the sequence of
// updates: random sets (ties frequent), finishes, and picks from random rr,
// for warp counts on and off a power of two.
TEST(WarpPicker, ChoosesAsTheScanOverTheSameState)
{
    uint64_t x = 0x5eed;
    auto rnd = [&](uint64_t m) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return (x >> 33) % m;
    };
    for (unsigned n : {1u, 2u, 3u, 5u, 8u, 31u, 32u, 33u, 64u, 100u}) {
        SCOPED_TRACE(n);
        gmmu_warp_picker *p = nullptr;
        const gmmu_warp_picker_config cfg{n};
        ASSERT_EQ(gmmu_warp_picker_create(&cfg, &p, nullptr), GMMU_OK);
        std::vector<uint64_t> ready(n, 0);
        std::vector<uint8_t> fin(n, 0);
        for (int step = 0; step < 20000; step++) {
            const unsigned w = unsigned(rnd(n));
            const uint64_t r = rnd(100);
            if (r == 0) {
                gmmu_warp_picker_finish(p, w);
                fin[w] = 1;
            } else if (r == 1) {
                // the largest time is legal and must not read as finished
                gmmu_warp_picker_set(p, w, UINT64_MAX);
                if (!fin[w])
                    ready[w] = UINT64_MAX;
            } else {
                const uint64_t t = rnd(6);
                gmmu_warp_picker_set(p, w, t);
                if (!fin[w])
                    ready[w] = t;
            }
            if (step % 500 == 499) // start over: finished warps stay finished otherwise
                for (unsigned k = 0; k < n; k++)
                    if (fin[k] && rnd(2)) {
                        gmmu_warp_picker_destroy(p);
                        ASSERT_EQ(gmmu_warp_picker_create(&cfg, &p, nullptr), GMMU_OK);
                        std::fill(ready.begin(), ready.end(), 0);
                        std::fill(fin.begin(), fin.end(), 0);
                        break;
                    }
            const unsigned rr = unsigned(rnd(n));
            ASSERT_EQ(gmmu_warp_picker_pick(p, rr),
                      gmmu_warp_pick_earliest(ready.data(), fin.data(), n, rr))
                << "step " << step << " rr " << rr;
            for (unsigned k = 0; k < n; k++)
                ASSERT_EQ(gmmu_warp_picker_ready(p, k), ready[k]);
        }
        gmmu_warp_picker_destroy(p);
    }
}

TEST(WarpPicker, EdgeCases)
{
    gmmu_warp_picker *p = nullptr;
    gmmu_error err{};
    const gmmu_warp_picker_config big{GMMU_WARP_PICKER_MAX_WARPS + 1};
    EXPECT_EQ(gmmu_warp_picker_create(&big, &p, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "warps");
    const gmmu_warp_picker_config cfg{3};
    ASSERT_EQ(gmmu_warp_picker_create(&cfg, &p, nullptr), GMMU_OK);
    EXPECT_EQ(gmmu_warp_picker_pick(p, 3), 3u); // rr out of range
    EXPECT_EQ(gmmu_warp_picker_pick(p, 1), 1u); // all ready at 0: rotation from rr
    gmmu_warp_picker_set(p, 7, 5);              // out of range: ignored
    gmmu_warp_picker_finish(p, 1);
    gmmu_warp_picker_set(p, 1, 0); // a finished warp stays finished
    EXPECT_EQ(gmmu_warp_picker_pick(p, 1), 2u);
    gmmu_warp_picker_finish(p, 0);
    gmmu_warp_picker_finish(p, 2);
    EXPECT_EQ(gmmu_warp_picker_pick(p, 0), 3u); // every warp finished
    EXPECT_EQ(gmmu_warp_picker_pick(nullptr, 0), 0u);
    EXPECT_EQ(gmmu_warp_picker_ready(p, 9), 0u);
    gmmu_warp_picker_destroy(p);
}
