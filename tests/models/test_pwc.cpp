// Page-walk caches behind the common interface (gmmu/pwc.h): storage
// formulas, budgets, config validation, fills from real walks (large pages,
// faults), invalidation, and the randomized check that every base a PWC
// returns is the one a full walk of a real page table uses.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <random>
#include <vector>

#include "pwc_test_util.h"

using namespace pwctest;

namespace {

gmmu_pwc_config cfg_of(gmmu_pwc_kind kind)
{
    gmmu_pwc_config c;
    EXPECT_EQ(gmmu_pwc_config_default(kind, &c), GMMU_OK);
    return c;
}

// ---- storage accounting -------------------------------------------------------

TEST(PwcBitsTest, TpcIs220BitsPerEntry)
{
    for (uint32_t n : {1u, 2u, 24u, 64u, 300u}) {
        gmmu_pwc_config c = cfg_of(GMMU_PWC_TPC);
        c.tpc.entries = n;
        auto p = make_pwc(c);
        ASSERT_TRUE(p);
        EXPECT_EQ(gmmu_pwc_bits(p.get()), 220ull * n);
    }
}

TEST(PwcBitsTest, CpwcWithOneEntryBlocksMatchesPaperFormula)
{
    for (uint32_t n = 1; n <= GMMU_PWC_CPWC_MAX_BLOCKS; n++) {
        gmmu_pwc_config c = cfg_of(GMMU_PWC_CPWC);
        c.cpwc.l2_blocks = n;
        c.cpwc.block_entries = 1;
        ASSERT_EQ(gmmu_pwc_config_bits(&c), (6ull + n) * 74 + 4ull * n) << n;
    }
}

TEST(PwcBitsTest, OtherGeometriesAreCountedEntryByEntry)
{
    gmmu_pwc_config c = cfg_of(GMMU_PWC_CPWC);
    c.cpwc.l2_blocks = 4; // the paper's worked example: 4 blocks of 8, 4-bit masks
    c.cpwc.block_entries = 8;
    EXPECT_EQ(gmmu_pwc_config_bits(&c), 2u * 74 + 4u * (74 + 4) + 32u * 74);
    c.cpwc.l4_entries = 4;
    c.cpwc.l3_entries = 16;
    EXPECT_EQ(gmmu_pwc_config_bits(&c), 4u * 74 + 16u * (74 + 4) + 32u * 74);

    gmmu_pwc_config s = cfg_of(GMMU_PWC_STC);
    s.stc.entries[0] = 2;
    s.stc.entries[1] = 4;
    s.stc.entries[2] = 10;
    EXPECT_EQ(gmmu_pwc_config_bits(&s), 2u * 74 + 4u * 83 + 10u * 92);

    gmmu_pwc_config u = cfg_of(GMMU_PWC_UPTC);
    u.uptc.entries = 10;
    EXPECT_EQ(gmmu_pwc_config_bits(&u), 10u * 138);
    EXPECT_EQ(gmmu_pwc_config_bits(&(c = cfg_of(GMMU_PWC_NONE))), 0u);
}

TEST(PwcBitsTest, PaperBudgetHolds24TpcAnd62CpwcEntries)
{
    gmmu_pwc_config c;
    gmmu_error err{};
    ASSERT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_TPC, 5280, &c, &err), GMMU_OK);
    EXPECT_EQ(c.tpc.entries, 24u);
    EXPECT_EQ(gmmu_pwc_config_bits(&c), 5280u);
    ASSERT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_CPWC, 5280, &c, &err), GMMU_OK);
    EXPECT_EQ(c.cpwc.l2_blocks * c.cpwc.block_entries, 62u);
    EXPECT_EQ(c.cpwc.block_entries, 1u);
    EXPECT_EQ(gmmu_pwc_config_bits(&c), 5280u);
    ASSERT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_STC, 5280, &c, &err), GMMU_OK);
    EXPECT_EQ(c.stc.entries[2], 52u);
    ASSERT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_UPTC, 5280, &c, &err), GMMU_OK);
    EXPECT_EQ(c.uptc.entries, 38u);
    // The defaults are the 5,280-bit geometries.
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC, GMMU_PWC_CPWC}) {
        gmmu_pwc_config d = cfg_of(k), b;
        ASSERT_EQ(gmmu_pwc_config_for_bits(k, 5280, &b, nullptr), GMMU_OK);
        EXPECT_EQ(gmmu_pwc_config_bits(&d), gmmu_pwc_config_bits(&b)) << gmmu_pwc_kind_name(k);
    }
}

TEST(PwcBitsTest, ForBitsIsTheLargestGeometryThatFits)
{
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC, GMMU_PWC_CPWC}) {
        uint64_t prev = 0;
        for (uint64_t bits = 600; bits <= 40000; bits += 97) {
            gmmu_pwc_config c;
            ASSERT_EQ(gmmu_pwc_config_for_bits(k, bits, &c, nullptr), GMMU_OK) << bits;
            uint64_t used = gmmu_pwc_config_bits(&c);
            ASSERT_LE(used, bits) << gmmu_pwc_kind_name(k);
            ASSERT_GE(used, prev) << gmmu_pwc_kind_name(k);
            prev = used;
            // One more unit of the scaled field would not fit (unless capped).
            gmmu_pwc_config more = c;
            if (k == GMMU_PWC_TPC)
                more.tpc.entries++;
            else if (k == GMMU_PWC_STC)
                more.stc.entries[2]++;
            else if (k == GMMU_PWC_UPTC)
                more.uptc.entries++;
            else if (c.cpwc.l2_blocks < GMMU_PWC_CPWC_MAX_BLOCKS)
                more.cpwc.l2_blocks++;
            else
                continue;
            ASSERT_GT(gmmu_pwc_config_bits(&more), bits) << gmmu_pwc_kind_name(k) << " " << bits;
        }
    }
    gmmu_pwc_config c;
    gmmu_error err{};
    EXPECT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_TPC, 219, &c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "bits");
    EXPECT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_CPWC, 400, &c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "bits");
}

// ---- configuration errors ----------------------------------------------------------

struct BadField {
    gmmu_pwc_kind kind;
    const char *field;
    void (*spoil)(gmmu_pwc_config &);
};

TEST(PwcConfigTest, BadConfigsNameTheField)
{
    const BadField cases[] = {
        {GMMU_PWC_TPC, "kind", [](gmmu_pwc_config &c) { c.kind = (gmmu_pwc_kind)9; }},
        {GMMU_PWC_TPC, "replacement", [](gmmu_pwc_config &c) { c.replacement = (gmmu_pwc_repl)5; }},
        {GMMU_PWC_TPC, "tpc.entries", [](gmmu_pwc_config &c) { c.tpc.entries = 0; }},
        {GMMU_PWC_TPC, "tpc.entries", [](gmmu_pwc_config &c) { c.tpc.entries = 5000; }},
        {GMMU_PWC_TPC, "tpc.hit_cycles", [](gmmu_pwc_config &c) { c.tpc.hit_cycles = 0; }},
        {GMMU_PWC_STC, "stc.entries[1]", [](gmmu_pwc_config &c) { c.stc.entries[1] = 0; }},
        {GMMU_PWC_STC, "stc.ways[2]", [](gmmu_pwc_config &c) { c.stc.ways[2] = 5; }},
        {GMMU_PWC_STC, "stc.ways[0]", [](gmmu_pwc_config &c) { c.stc.ways[0] = 3; }},
        {GMMU_PWC_STC, "stc.hit_cycles", [](gmmu_pwc_config &c) { c.stc.hit_cycles = 9; }},
        {GMMU_PWC_UPTC, "uptc.entries", [](gmmu_pwc_config &c) { c.uptc.entries = 0; }},
        {GMMU_PWC_UPTC, "uptc.ways", [](gmmu_pwc_config &c) { c.uptc.ways = 7; }},
        {GMMU_PWC_UPTC, "uptc.probe_cycles", [](gmmu_pwc_config &c) { c.uptc.probe_cycles = 0; }},
        {GMMU_PWC_CPWC, "cpwc.l4_entries", [](gmmu_pwc_config &c) { c.cpwc.l4_entries = 3; }},
        {GMMU_PWC_CPWC, "cpwc.l3_entries", [](gmmu_pwc_config &c) { c.cpwc.l3_entries = 1; }},
        {GMMU_PWC_CPWC, "cpwc.l3_entries", [](gmmu_pwc_config &c) { c.cpwc.l3_entries = 6; }},
        {GMMU_PWC_CPWC, "cpwc.l2_blocks", [](gmmu_pwc_config &c) { c.cpwc.l2_blocks = 257; }},
        {GMMU_PWC_CPWC, "cpwc.l2_blocks", [](gmmu_pwc_config &c) { c.cpwc.l2_blocks = 0; }},
        {GMMU_PWC_CPWC, "cpwc.block_entries", [](gmmu_pwc_config &c) { c.cpwc.block_entries = 0; }},
        {GMMU_PWC_CPWC, "cpwc.lookup_cycles", [](gmmu_pwc_config &c) { c.cpwc.lookup_cycles = 0; }},
        {GMMU_PWC_CPWC, "cpwc.mux_cycles", [](gmmu_pwc_config &c) { c.cpwc.mux_cycles = 8; }},
    };
    for (const BadField &b : cases) {
        gmmu_pwc_config c = cfg_of(b.kind);
        b.spoil(c);
        gmmu_pwc *p = reinterpret_cast<gmmu_pwc *>(0x1);
        gmmu_error err{};
        EXPECT_EQ(gmmu_pwc_create(&c, &p, &err), GMMU_EINVAL) << b.field;
        EXPECT_EQ(p, nullptr) << b.field;
        EXPECT_STREQ(err.field, b.field);
        EXPECT_GT(std::strlen(err.msg), 0u) << b.field;
    }
    // Fields of other kinds are not checked.
    gmmu_pwc_config c = cfg_of(GMMU_PWC_TPC);
    c.cpwc.l4_entries = 3;
    auto p = make_pwc(c);
    EXPECT_TRUE(p);
    EXPECT_EQ(gmmu_pwc_create(nullptr, nullptr, nullptr), GMMU_EINVAL);
}

TEST(PwcConfigTest, KindNamesRoundTrip)
{
    for (gmmu_pwc_kind k :
         {GMMU_PWC_NONE, GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC, GMMU_PWC_CPWC}) {
        gmmu_pwc_kind back = GMMU_PWC_NONE;
        ASSERT_EQ(gmmu_pwc_kind_parse(gmmu_pwc_kind_name(k), &back), GMMU_OK);
        EXPECT_EQ(back, k);
    }
    gmmu_pwc_kind k = GMMU_PWC_NONE;
    EXPECT_EQ(gmmu_pwc_kind_parse("CPWC", &k), GMMU_OK);
    EXPECT_EQ(k, GMMU_PWC_CPWC);
    EXPECT_EQ(gmmu_pwc_kind_parse("cpwcx", &k), GMMU_EINVAL);
    EXPECT_EQ(gmmu_pwc_kind_parse("tp", &k), GMMU_EINVAL);
    EXPECT_EQ(gmmu_pwc_kind_parse(nullptr, &k), GMMU_EINVAL);
}

// ---- behaviour common to all kinds ------------------------------------------------------

const gmmu_pwc_kind kAllKinds[] = {GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC, GMMU_PWC_CPWC};

TEST(PwcTest, MissReturnsRootThenHitSkipsThreeReads)
{
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        const uint64_t va = va_of(254, 458, 384, 15, 0x1F0);
        ASSERT_EQ(sp.map(va), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 4u);
        EXPECT_EQ(h.table_base, sp.pt->root);
        EXPECT_EQ(h.reads_left, 4u);
        gmmu_walk_result w = sp.walk(va);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va + 0x1000 * 3, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 1u) << gmmu_pwc_kind_name(k);
        EXPECT_EQ(h.table_base, w.table_base[1]);
        EXPECT_EQ(h.reads_left, 1u);
        const gmmu_pwc_stats *st = gmmu_pwc_get_stats(p.get());
        EXPECT_EQ(st->lookups, 2u);
        EXPECT_EQ(st->misses, 1u);
        EXPECT_EQ(st->hit_l2, 1u);
        EXPECT_EQ(st->fills, 1u);
        // Latency: UPTC probes sequentially (1 probe on the miss, 3 on the hit).
        if (k == GMMU_PWC_UPTC)
            EXPECT_EQ(h.cycles, 3u);
        else if (k == GMMU_PWC_CPWC)
            EXPECT_EQ(h.cycles, 2u); // parallel compare + mux step
        else
            EXPECT_EQ(h.cycles, 1u);
        EXPECT_EQ(st->lookup_cycles, (k == GMMU_PWC_UPTC ? 1u : h.cycles) + h.cycles);
    }
}

TEST(PwcTest, NoneKindAlwaysWalksFromTheRoot)
{
    Space sp;
    const uint64_t va = va_of(1, 2, 3, 4);
    ASSERT_EQ(sp.map(va), GMMU_OK);
    auto p = make_pwc(cfg_of(GMMU_PWC_NONE));
    gmmu_walk_result w = sp.walk(va);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
    gmmu_pwc_hit h{};
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 4u);
    EXPECT_EQ(h.table_base, sp.pt->root);
    EXPECT_EQ(h.cycles, 0u);
    EXPECT_EQ(gmmu_pwc_bits(p.get()), 0u);
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    EXPECT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_EINVAL);
}

TEST(PwcTest, LargePagesCacheOnlyTablesAWalkReuses)
{
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        const uint64_t va2m = va_of(3, 5, 7, 0), va1g = va_of(3, 9, 0, 0);
        ASSERT_EQ(sp.map(va2m, 21), GMMU_OK);
        ASSERT_EQ(sp.map(va1g, 30), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        gmmu_walk_result w = sp.walk(va2m);
        ASSERT_EQ(w.page_shift, 21u);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va2m, &w), GMMU_OK);
        gmmu_pwc_hit h{};
        // Another address in the same 2 MiB page: start at the PD (1 read).
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va2m + 0x12345, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 2u) << gmmu_pwc_kind_name(k);
        EXPECT_EQ(h.table_base, w.table_base[2]);
        gmmu_walk_result rest = sp.walk_from(h.table_base, h.start_level, va2m + 0x12345);
        EXPECT_EQ(rest.nreads, 1u);
        EXPECT_EQ(rest.pa, w.pa + 0x12345);

        gmmu_walk_result g = sp.walk(va1g);
        ASSERT_EQ(g.page_shift, 30u);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va1g, &g), GMMU_OK);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va1g + 0x3456789, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 3u) << gmmu_pwc_kind_name(k);
        EXPECT_EQ(h.table_base, g.table_base[3]);
    }
}

TEST(PwcTest, FaultingWalksCacheOnlyTheTablesTheyReached)
{
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        ASSERT_EQ(sp.map(va_of(3, 5, 7, 1)), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        // PT exists, PTE not present: the PT base is still reusable.
        const uint64_t va_pte = va_of(3, 5, 7, 2);
        gmmu_walk_result w = sp.walk(va_pte);
        ASSERT_EQ(w.fault, GMMU_FAULT_NOT_PRESENT);
        ASSERT_EQ(w.fault_level, 1u);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va_pte, &w), GMMU_OK);
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_pte, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 1u);
        EXPECT_EQ(h.table_base, w.table_base[1]);
        // PDE not present: nothing below the PD may be cached.
        const uint64_t va_pde = va_of(3, 5, 8, 0);
        w = sp.walk(va_pde);
        ASSERT_EQ(w.fault_level, 2u);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va_pde, &w), GMMU_OK);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_pde, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 2u) << gmmu_pwc_kind_name(k);
        // Non-canonical: nothing cached, never a hit.
        w = sp.walk(0x0000800000000000ull);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), 0x0000800000000000ull, &w), GMMU_OK);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, 0x0000800000000000ull | (va_pte & 0x7FFFFFFFFFFFull), &h),
                  GMMU_OK);
        EXPECT_EQ(h.start_level, 4u);
    }
}

TEST(PwcTest, PartialHitFillCompletesThePathFromOwnEntries)
{
    // After an L4+L3 hit the walk starts at the PD and knows only the PD and PT
    // bases; the fill must still create a full entry (TPC needs the whole path).
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        const uint64_t a = va_of(254, 458, 384, 15), b = va_of(254, 458, 481, 15);
        ASSERT_EQ(sp.map(a), GMMU_OK);
        ASSERT_EQ(sp.map(b), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        gmmu_walk_result w = sp.walk(a);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), a, &w), GMMU_OK);
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, b, &h), GMMU_OK);
        ASSERT_EQ(h.start_level, 2u);
        gmmu_walk_result wb = sp.walk_from(h.table_base, 2, b);
        EXPECT_EQ(wb.nreads, 2u);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), b, &wb), GMMU_OK);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, b, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 1u) << gmmu_pwc_kind_name(k);
        EXPECT_EQ(h.table_base, wb.table_base[1]);
    }
}

TEST(UptcTest, ProbesAreSequentialAndStopAtTheFirstMiss)
{
    Space sp;
    const uint64_t a = va_of(1, 2, 3, 4), b = va_of(1, 2, 9, 4), c = va_of(1, 7, 3, 4);
    for (uint64_t va : {a, b, c})
        ASSERT_EQ(sp.map(va), GMMU_OK);
    gmmu_pwc_config cfg = cfg_of(GMMU_PWC_UPTC);
    cfg.uptc.probe_cycles = 2;
    auto p = make_pwc(cfg);
    gmmu_walk_result w = sp.walk(a);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), a, &w), GMMU_OK);
    gmmu_pwc_hit h{};
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, a, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u);
    EXPECT_EQ(h.cycles, 6u); // 3 probes
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, b, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 2u);
    EXPECT_EQ(h.cycles, 6u); // L4 hit, L3 hit, L2 probe misses
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, c, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 3u);
    EXPECT_EQ(h.cycles, 4u); // L4 hit, L3 probe misses
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(2, 2, 3, 4), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 4u);
    EXPECT_EQ(h.cycles, 2u); // the first probe misses
    // One entry per (table, index): 3 entries for the path, none repeated.
    uint32_t valid = 0;
    for (uint32_t i = 0; i < gmmu_uptc_entries(gmmu_pwc_uptc(p.get())); i++) {
        gmmu_uptc_entry_view v;
        ASSERT_EQ(gmmu_uptc_entry(gmmu_pwc_uptc(p.get()), i, &v), GMMU_OK);
        valid += v.valid;
    }
    EXPECT_EQ(valid, 3u);
}

TEST(StcTest, StoresAreIndependentAndTheDeepestHitWins)
{
    Space sp;
    const uint64_t a = va_of(1, 2, 3, 4), b = va_of(5, 2, 3, 4);
    for (uint64_t va : {a, b})
        ASSERT_EQ(sp.map(va), GMMU_OK);
    gmmu_pwc_config cfg = cfg_of(GMMU_PWC_STC);
    cfg.stc.entries[0] = 1; // one L4-store entry: b's fill evicts a's
    auto p = make_pwc(cfg);
    for (uint64_t va : {a, b}) {
        gmmu_walk_result w = sp.walk(va);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
    }
    gmmu_stc_entry_view v;
    ASSERT_EQ(gmmu_stc_entry(gmmu_pwc_stc(p.get()), 0, 0, &v), GMMU_OK);
    EXPECT_EQ(v.tag, 5u);
    // a's L4-store entry is gone, its L4+L3+L2 entry is not and still wins.
    gmmu_pwc_hit h{};
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, a, &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u);
    EXPECT_EQ(h.table_base, sp.walk(a).table_base[1]);
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->evictions, 1u);
}

// ---- invalidation ----------------------------------------------------------------------

TEST(PwcInvalidateTest, AllDropsEverything)
{
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        const uint64_t va = va_of(7, 8, 9, 10);
        ASSERT_EQ(sp.map(va), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        gmmu_walk_result w = sp.walk(va);
        ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
        gmmu_pwc_invalidate_all(p.get());
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 4u) << gmmu_pwc_kind_name(k);
        EXPECT_EQ(gmmu_pwc_get_stats(p.get())->invalidations, 1u);
        EXPECT_EQ(gmmu_pwc_get_stats(p.get())->entries_invalidated, k == GMMU_PWC_TPC ? 1u : 3u);
    }
}

TEST(PwcInvalidateTest, RangeDropsEntriesCoveringItAndKeepsOthers)
{
    for (gmmu_pwc_kind k : kAllKinds) {
        Space sp;
        const uint64_t in = va_of(7, 8, 9, 10), near = va_of(7, 8, 11, 10), far = va_of(9, 8, 9, 10);
        for (uint64_t va : {in, near, far})
            ASSERT_EQ(sp.map(va), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        for (uint64_t va : {in, near, far}) {
            gmmu_walk_result w = sp.walk(va);
            ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
        }
        // One page of `in`: every entry whose region contains it goes (its L4,
        // L4+L3 and L4+L3+L2 entries).
        gmmu_pwc_invalidate_range(p.get(), in, in + 0xFFF);
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, in, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 4u) << gmmu_pwc_kind_name(k);
        // Another L4 index is untouched, except in the UPTC (no VA in its tags:
        // a range invalidation flushes it).
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, far, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, k == GMMU_PWC_UPTC ? 4u : 1u) << gmmu_pwc_kind_name(k);
        // Same L4/L3, other 2 MiB region: only the STC keeps a separate
        // full-prefix entry; TPC entries and CPWC L2 entries hang on the
        // dropped L4 prefix.
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, near, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, k == GMMU_PWC_STC ? 1u : 4u) << gmmu_pwc_kind_name(k);
    }
}

TEST(PwcInvalidateTest, RangeInUpperHalfAndAcrossTheHole)
{
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_CPWC}) {
        Space sp;
        const uint64_t hi = va_of(300, 1, 2, 3), lo = va_of(1, 1, 2, 3);
        ASSERT_EQ(sp.map(hi), GMMU_OK);
        ASSERT_EQ(sp.map(lo), GMMU_OK);
        auto p = make_pwc(cfg_of(k));
        for (uint64_t va : {hi, lo}) {
            gmmu_walk_result w = sp.walk(va);
            ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
        }
        gmmu_pwc_hit h{};
        gmmu_pwc_invalidate_range(p.get(), hi, hi);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, hi, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 4u);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, lo, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 1u);
        // lo > hi on bits 47:0 (range across the canonical hole): flush all.
        gmmu_pwc_invalidate_range(p.get(), 0xFFFF800000000000ull, 0x1000);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, lo, &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 4u);
    }
}

TEST(PwcInvalidateTest, RepointedTableIsNeverReturnedAfterInvalidation)
{
    // A directory is replaced by a copy at a new frame (old frame zeroed). With
    // the range invalidation every kind returns the new base; without it the
    // stale base would come back.
    for (gmmu_pwc_kind k : kAllKinds) {
        for (unsigned level : {4u, 3u, 2u}) {
            Space sp;
            const uint64_t va = va_of(5, 6, 7, 8);
            ASSERT_EQ(sp.map(va), GMMU_OK);
            auto p = make_pwc(cfg_of(k));
            gmmu_walk_result w = sp.walk(va);
            ASSERT_EQ(gmmu_pwc_fill(p.get(), va, &w), GMMU_OK);
            ASSERT_TRUE(sp.repoint(va, level));
            gmmu_pwc_hit h{};
            ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va, &h), GMMU_OK);
            ASSERT_EQ(h.start_level, 1u); // stale until invalidated: the caller's duty
            unsigned shift = 12 + 9 * (level - 1);
            uint64_t lo = va & ~((1ull << shift) - 1);
            gmmu_pwc_invalidate_range(p.get(), lo, lo + (1ull << shift) - 1);
            gmmu_walk_result now = sp.walk(va);
            ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va, &h), GMMU_OK);
            EXPECT_GE(h.start_level, level) << gmmu_pwc_kind_name(k) << " level " << level;
            EXPECT_EQ(h.table_base, h.start_level == 4 ? sp.pt->root : now.table_base[h.start_level]);
            gmmu_walk_result rest = sp.walk_from(h.table_base, h.start_level, va);
            EXPECT_EQ(rest.fault, GMMU_FAULT_NONE);
            EXPECT_EQ(rest.pa, now.pa);
        }
    }
}

// ---- randomized check against real walks --------------------------------------------------

// A page table with a few L4 values (both canonical halves), L3 values that
// collide in small direct-mapped stores, many L2 regions, 4 KiB, 2 MiB and
// 1 GiB leaves and holes, plus the list of VAs to draw from.
struct RandomSpace {
    Space sp;
    std::vector<uint64_t> vas;
    explicit RandomSpace(std::mt19937_64 &rng)
    {
        const unsigned l4s[] = {0, 1, 3, 254, 255, 256, 511};
        const unsigned l3s[] = {0, 1, 2, 4, 5, 64, 458};
        for (unsigned i4 : l4s)
            for (unsigned i3 : l3s) {
                unsigned kind = rng() % 16;
                if (kind == 0) { // 1 GiB leaf
                    sp.map(va_of(i4, i3, 0, 0), 30);
                    for (int n = 0; n < 3; n++)
                        vas.push_back(va_of(i4, i3, rng() % 512, rng() % 512));
                    continue;
                }
                if (kind == 1) { // unmapped 1 GiB region (fault at level 3)
                    vas.push_back(va_of(i4, i3, rng() % 512, 0));
                    continue;
                }
                for (int r = 0; r < 10; r++) {
                    unsigned i2 = rng() % 48;
                    unsigned t = rng() % 10;
                    if (t < 7) {
                        for (int n = 0; n < 3; n++) {
                            unsigned i1 = rng() % 512;
                            sp.map(va_of(i4, i3, i2, i1)); // EEXIST on repeats is fine
                            vas.push_back(va_of(i4, i3, i2, i1));
                        }
                        vas.push_back(va_of(i4, i3, i2, rng() % 512)); // maybe a hole
                    } else if (t < 9) {
                        sp.map(va_of(i4, i3, i2, 0), 21);
                        vas.push_back(va_of(i4, i3, i2, rng() % 512));
                    } else {
                        vas.push_back(va_of(i4, i3, i2 + 100, 0)); // PDE not present
                    }
                }
            }
    }
};

struct CheckResult {
    uint64_t lookups = 0, hits = 0;
};

// n lookups on p: each result is checked against a full walk, the rest of
// the walk from the returned table must give the same translation, and the
// partial walk fills the PWC. Now and then a directory is repointed (and the
// range invalidated) or everything is invalidated.
::testing::AssertionResult check_against_walks(RandomSpace &rs, gmmu_pwc *p, std::mt19937_64 &rng,
                                               uint64_t n, CheckResult &res)
{
    Space &sp = rs.sp;
    size_t last = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = rng();
        if (r % 4096 == 0) {
            uint64_t va = rs.vas[rng() % rs.vas.size()];
            unsigned level = 2 + rng() % 3;
            if (sp.repoint(va, level)) {
                unsigned shift = 12 + 9 * (level - 1);
                uint64_t lo = va & ~((1ull << shift) - 1);
                gmmu_pwc_invalidate_range(p, lo, lo + (1ull << shift) - 1);
            }
        } else if (r % 4096 == 1) {
            gmmu_pwc_invalidate_all(p);
        }
        // Locality: mostly a neighbour of the last VA (the list is grouped by
        // region), sometimes anywhere.
        if (rng() % 4 == 0)
            last = rng() % rs.vas.size();
        else
            last = (last + rs.vas.size() + rng() % 9 - 4) % rs.vas.size();
        uint64_t va = rs.vas[last] | ((rng() % 512) * 8);
        gmmu_pwc_hit h{};
        if (gmmu_pwc_lookup(p, sp.pt->root, va, &h) != GMMU_OK)
            return ::testing::AssertionFailure() << "lookup failed";
        gmmu_walk_result full = sp.walk(va);
        res.lookups++;
        if (h.start_level != 4) {
            res.hits++;
            if (h.start_level < deepest_level(full) || h.table_base != full.table_base[h.start_level])
                return ::testing::AssertionFailure()
                       << "lookup " << i << " va 0x" << std::hex << va << ": PWC start level "
                       << std::dec << h.start_level << " base 0x" << std::hex << h.table_base
                       << ", full walk base 0x" << full.table_base[h.start_level] << std::dec
                       << " (deepest level " << deepest_level(full) << ")";
        } else if (h.table_base != sp.pt->root) {
            return ::testing::AssertionFailure() << "miss did not return the root";
        }
        if (h.reads_left != h.start_level)
            return ::testing::AssertionFailure() << "reads_left != start_level";
        gmmu_walk_result rest = sp.walk_from(h.table_base, h.start_level, va);
        if (rest.fault != full.fault || rest.pa != full.pa ||
            rest.nreads != full.nreads - (4 - h.start_level))
            return ::testing::AssertionFailure() << "walk from the PWC result differs at lookup " << i;
        if (gmmu_pwc_fill(p, va, &rest) != GMMU_OK)
            return ::testing::AssertionFailure() << "fill failed";
    }
    return ::testing::AssertionSuccess();
}

std::vector<gmmu_pwc_config> property_configs()
{
    std::vector<gmmu_pwc_config> v;
    gmmu_pwc_config c;
    v.push_back(cfg_of(GMMU_PWC_TPC));
    c = cfg_of(GMMU_PWC_TPC);
    c.tpc.entries = 4;
    c.replacement = GMMU_PWC_REPL_FIFO;
    v.push_back(c);
    v.push_back(cfg_of(GMMU_PWC_STC));
    c = cfg_of(GMMU_PWC_STC);
    c.stc.entries[0] = 2;
    c.stc.ways[0] = 1;
    c.stc.entries[1] = 4;
    c.stc.ways[1] = 2;
    c.stc.entries[2] = 16;
    c.stc.ways[2] = 4;
    v.push_back(c);
    v.push_back(cfg_of(GMMU_PWC_UPTC));
    c = cfg_of(GMMU_PWC_UPTC);
    c.uptc.entries = 16;
    c.uptc.ways = 4;
    c.replacement = GMMU_PWC_REPL_FIFO;
    v.push_back(c);
    v.push_back(cfg_of(GMMU_PWC_CPWC));
    c = cfg_of(GMMU_PWC_CPWC); // the paper's example geometry
    c.cpwc.l2_blocks = 4;
    c.cpwc.block_entries = 8;
    v.push_back(c);
    c = cfg_of(GMMU_PWC_CPWC); // tiny: constant L4/L3 replacement and block stealing
    c.cpwc.l4_entries = 1;
    c.cpwc.l3_entries = 2;
    c.cpwc.l2_blocks = 3;
    c.cpwc.block_entries = 2;
    v.push_back(c);
    c = cfg_of(GMMU_PWC_CPWC);
    c.cpwc.l4_entries = 4;
    c.cpwc.l3_entries = 16;
    c.cpwc.l2_blocks = 8;
    c.cpwc.block_entries = 4;
    c.cpwc.mux_cycles = 0;
    c.replacement = GMMU_PWC_REPL_FIFO;
    v.push_back(c);
    c = cfg_of(GMMU_PWC_CPWC);
    c.cpwc.l2_blocks = 200;
    v.push_back(c);
    return v;
}

#ifdef __SANITIZE_ADDRESS__
constexpr uint64_t kLookupsPerConfig = 100000;
#else
constexpr uint64_t kLookupsPerConfig = 200000;
#endif

TEST(PwcPropertyTest, EveryReturnedBaseIsTheOneARealWalkUses)
{
    const uint64_t seed = test_seed(20241122);
    std::mt19937_64 rng(seed);
    RandomSpace rs(rng);
    ASSERT_GT(rs.vas.size(), 1000u);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t total = 0;
    for (const gmmu_pwc_config &c : property_configs()) {
        auto p = make_pwc(c);
        ASSERT_TRUE(p);
        CheckResult res;
        ASSERT_TRUE(check_against_walks(rs, p.get(), rng, kLookupsPerConfig, res))
            << "kind " << gmmu_pwc_kind_name(c.kind) << ", seed " << seed;
        const gmmu_pwc_stats *st = gmmu_pwc_get_stats(p.get());
        EXPECT_EQ(st->lookups, res.lookups);
        EXPECT_EQ(st->hit_l4 + st->hit_l3 + st->hit_l2, res.hits);
        // The PWC is exercised, not bypassed: hits at every depth.
        EXPECT_GT(st->hit_l2, res.lookups / 100) << gmmu_pwc_kind_name(c.kind);
        EXPECT_GT(st->hit_l3 + st->hit_l4, 0u) << gmmu_pwc_kind_name(c.kind);
        total += res.lookups;
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ property ] %llu lookups checked against full walks in %.2f s\n",
                (unsigned long long)total, secs);
    EXPECT_GE(total, 1000000u);
}

} // namespace
