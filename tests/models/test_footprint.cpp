// Unit tests of the footprint counter (models/src/footprint.c): distinct
// 4 KiB and 2 MiB pages of the active lanes, against a std::set.
#include <gtest/gtest.h>

#include <random>
#include <set>

extern "C" {
#include "gmmu/footprint.h"
}

TEST(FootprintTest, CountsDistinctPagesOfActiveLanesAsASetDoes)
{
    gmmu_footprint *f = nullptr;
    gmmu_error err{};
    ASSERT_EQ(gmmu_footprint_create(&f, &err), GMMU_OK);
    std::set<uint64_t> p4, p2;
    std::mt19937_64 rng(11);
    for (int i = 0; i < 20000; i++) {
        uint64_t a[32];
        const uint64_t base = rng() % (1ull << 40);
        const unsigned kind = unsigned(rng() % 3);
        for (unsigned l = 0; l < 32; l++) // coalesced, strided, or scattered
            a[l] = kind == 0 ? base + 8 * l : kind == 1 ? base + 4096 * l : rng() % (1ull << 40);
        const uint32_t mask = rng() % 4 == 0 ? uint32_t(rng()) : ~0u;
        for (unsigned l = 0; l < 32; l++)
            if (mask >> l & 1u) {
                p4.insert(a[l] >> 12);
                p2.insert(a[l] >> 21);
            }
        ASSERT_EQ(gmmu_footprint_add(f, a, mask), GMMU_OK);
    }
    EXPECT_EQ(gmmu_footprint_pages_4k(f), p4.size());
    EXPECT_EQ(gmmu_footprint_pages_2m(f), p2.size());
    EXPECT_GT(p4.size(), 100000u); // the sets grew many times
    gmmu_footprint_clear(f);
    EXPECT_EQ(gmmu_footprint_pages_4k(f), 0u);
    const uint64_t zero[32] = {};
    ASSERT_EQ(gmmu_footprint_add(f, zero, 1u), GMMU_OK); // page 0 is a page like any other
    EXPECT_EQ(gmmu_footprint_pages_4k(f), 1u);
    EXPECT_EQ(gmmu_footprint_pages_2m(f), 1u);
    gmmu_footprint_destroy(f);
}

TEST(FootprintTest, InactiveLanesAndRepeatsCountNothing)
{
    gmmu_footprint *f = nullptr;
    ASSERT_EQ(gmmu_footprint_create(&f, nullptr), GMMU_OK);
    uint64_t a[32];
    for (unsigned l = 0; l < 32; l++)
        a[l] = 0x200000ull * l; // every lane its own 2 MiB page
    ASSERT_EQ(gmmu_footprint_add(f, a, 0), GMMU_OK);
    EXPECT_EQ(gmmu_footprint_pages_4k(f), 0u);
    ASSERT_EQ(gmmu_footprint_add(f, a, 0x5u), GMMU_OK);
    ASSERT_EQ(gmmu_footprint_add(f, a, 0x5u), GMMU_OK);
    EXPECT_EQ(gmmu_footprint_pages_4k(f), 2u);
    EXPECT_EQ(gmmu_footprint_pages_2m(f), 2u);
    EXPECT_EQ(gmmu_footprint_add(nullptr, a, 1u), GMMU_EINVAL);
    EXPECT_EQ(gmmu_footprint_add(f, nullptr, 1u), GMMU_EINVAL);
    gmmu_footprint_destroy(f);
    gmmu_footprint_destroy(nullptr);
    EXPECT_EQ(gmmu_footprint_create(nullptr, nullptr), GMMU_EINVAL);
}
