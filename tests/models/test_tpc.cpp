// TPC: full-path entries, longest-prefix match, partial (large-page) entries.
#include <gtest/gtest.h>

#include "pwc_test_util.h"

using namespace pwctest;

namespace {

gmmu_tpc_entry_view entry(const gmmu_pwc *p, uint32_t i)
{
    gmmu_tpc_entry_view v;
    EXPECT_EQ(gmmu_tpc_entry(gmmu_pwc_tpc(p), i, &v), GMMU_OK);
    return v;
}

TEST(TpcTest, WorkedExampleStoresOneFullPathPerEntry)
{
    const uint64_t va[3] = {0x7F72B010F1F0ull, 0x7F72BC30F1F0ull, 0x7FF2FC30F1F0ull};
    Space sp;
    for (uint64_t v : va)
        ASSERT_EQ(sp.map(v), GMMU_OK);
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_TPC, &c);
    auto p = make_pwc(c);
    const unsigned want[3] = {4, 2, 4};
    for (int i = 0; i < 3; i++) {
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va[i], &h), GMMU_OK);
        EXPECT_EQ(h.start_level, want[i]);
        gmmu_walk_result w = sp.walk_from(h.table_base, h.start_level, va[i]);
        EXPECT_EQ(w.nreads, want[i]);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va[i], &w), GMMU_OK);
    }
    // Three entries, each repeating the L4 (and L3) part: the redundancy CPWC removes.
    for (uint32_t i = 0; i < 3; i++) {
        gmmu_tpc_entry_view e = entry(p.get(), i);
        gmmu_walk_result w = sp.walk(va[i]);
        EXPECT_TRUE(e.valid);
        EXPECT_EQ(e.depth, 3u);
        for (unsigned j = 0; j < 3; j++) {
            EXPECT_EQ(e.idx[j], gmmu_va_index(va[i], 4 - j));
            EXPECT_EQ(e.base[j], w.table_base[3 - j]);
        }
    }
    EXPECT_FALSE(entry(p.get(), 3).valid);
}

TEST(TpcTest, LargePagePathIsExtendedWhenAFullPathArrives)
{
    Space sp;
    const uint64_t big = va_of(4, 4, 4, 0), small = va_of(4, 4, 5, 3);
    ASSERT_EQ(sp.map(big, 21), GMMU_OK);
    ASSERT_EQ(sp.map(small), GMMU_OK);
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_TPC, &c);
    auto p = make_pwc(c);
    gmmu_walk_result w = sp.walk(big);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), big, &w), GMMU_OK);
    EXPECT_EQ(entry(p.get(), 0).depth, 2u); // L4 + L3 parts only
    w = sp.walk(small);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), small, &w), GMMU_OK);
    EXPECT_EQ(entry(p.get(), 0).depth, 3u); // the same entry, extended
    EXPECT_EQ(entry(p.get(), 0).idx[2], 5u);
    EXPECT_FALSE(entry(p.get(), 1).valid);
    gmmu_pwc_hit h{};
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, big + 0x5000, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 2u); // prefix match on L4+L3, never the 4 KiB path's PT
}

TEST(TpcTest, LruEntryIsReplaced)
{
    Space sp;
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_TPC, &c);
    c.tpc.entries = 2;
    auto p = make_pwc(c);
    for (unsigned i2 : {1u, 2u, 3u})
        ASSERT_EQ(sp.map(va_of(1, 1, i2, 0)), GMMU_OK);
    gmmu_walk_result w;
    gmmu_pwc_hit h{};
    for (unsigned i2 : {1u, 2u}) {
        w = sp.walk(va_of(1, 1, i2, 0));
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va_of(1, 1, i2, 0), &w), GMMU_OK);
    }
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(1, 1, 1, 0), &h), GMMU_OK);
    w = sp.walk(va_of(1, 1, 3, 0));
    ASSERT_EQ(gmmu_pwc_fill(p.get(), va_of(1, 1, 3, 0), &w), GMMU_OK);
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->evictions, 1u);
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(1, 1, 1, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u);
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(1, 1, 2, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 2u); // evicted; the L4+L3 prefix still matches another entry
}

} // namespace
