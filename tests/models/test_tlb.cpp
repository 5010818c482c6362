// Unit tests of the TLB golden model (models/src/tlb.c): geometry, coverage
// and multi-page fills, replacement, LRU depth, ASIDs, invalidation, the
// generation rule and the prefetch counters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <list>
#include <random>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/tlb.h"
}

namespace {

gmmu_tlb_config cfg(uint32_t entries, uint32_t ways, gmmu_tlb_repl repl = GMMU_TLB_REPL_LRU,
                    uint32_t page_shift = 12)
{
    gmmu_tlb_config c{};
    c.entries = entries;
    c.ways = ways;
    c.page_shift = page_shift;
    c.repl = repl;
    c.lookup_cycles = 1;
    c.seed = 1;
    return c;
}

struct Tlb {
    gmmu_tlb *t = nullptr;
    explicit Tlb(const gmmu_tlb_config &c)
    {
        gmmu_error err{};
        EXPECT_EQ(gmmu_tlb_create(&c, &t, &err), GMMU_OK) << err.field << ": " << err.msg;
    }
    ~Tlb() { gmmu_tlb_destroy(t); }
    Tlb(const Tlb &) = delete;
    Tlb &operator=(const Tlb &) = delete;
    const gmmu_tlb_stats &st() const { return *gmmu_tlb_stats_of(t); }
    bool hit(uint64_t vpn, uint16_t asid = 0)
    {
        gmmu_tlb_result r{};
        EXPECT_EQ(gmmu_tlb_lookup(t, asid, vpn, &r), GMMU_OK);
        return r.hit;
    }
    gmmu_tlb_result look(uint64_t vpn, uint16_t asid = 0)
    {
        gmmu_tlb_result r{};
        EXPECT_EQ(gmmu_tlb_lookup(t, asid, vpn, &r), GMMU_OK);
        return r;
    }
    bool fill(uint64_t vpn, uint64_t ppn = 0, uint16_t asid = 0, gmmu_tlb_entry *victim = nullptr)
    {
        gmmu_tlb_fill_out out{};
        EXPECT_EQ(gmmu_tlb_fill_ex(t, asid, vpn, ppn ? ppn : vpn + 0x1000, 0, 0, 0, &out), GMMU_OK);
        if (out.nvictims && victim)
            *victim = out.victims[0];
        return out.nvictims != 0;
    }
    bool present(uint64_t vpn, uint16_t asid = 0) { return gmmu_tlb_probe(t, asid, vpn, nullptr); }
};

std::string bad_field(gmmu_tlb_config c)
{
    gmmu_error err{};
    gmmu_tlb *t = nullptr;
    if (gmmu_tlb_create(&c, &t, &err) == GMMU_OK) {
        gmmu_tlb_destroy(t);
        return "(accepted)";
    }
    EXPECT_EQ(t, nullptr);
    return err.field;
}

TEST(TlbTest, ConfigValidationNamesTheBadField)
{
    auto c = cfg(64, 8);
    EXPECT_EQ(bad_field(c), "(accepted)");
    c = cfg(0, 1);
    EXPECT_EQ(bad_field(c), "entries");
    c = cfg(16, 17);
    EXPECT_EQ(bad_field(c), "ways");
    c = cfg(65, 8);
    c.sets = 10; // 9 x 8 = 72 >= 65: no way left for the last set
    EXPECT_EQ(bad_field(c), "sets");
    c = cfg(64, 8, GMMU_TLB_REPL_LRU, 11);
    EXPECT_EQ(bad_field(c), "page_shift");
    c = cfg(64, 8, GMMU_TLB_REPL_LRU, 17);
    c.coverage_shift = 16;
    EXPECT_EQ(bad_field(c), "coverage_shift");
    c.coverage_shift = 21;
    EXPECT_EQ(bad_field(c), "(accepted)");
    c.fill_pages = 3;
    EXPECT_EQ(bad_field(c), "fill_pages");
    c.fill_pages = 128;
    EXPECT_EQ(bad_field(c), "fill_pages");
    c = cfg(48, 6, GMMU_TLB_REPL_PLRU);
    EXPECT_EQ(bad_field(c), "replacement");
    c = cfg(65, 8, GMMU_TLB_REPL_PLRU);
    c.sets = 7;
    EXPECT_EQ(bad_field(c), "replacement");
    c = cfg(64, 8);
    c.index = static_cast<gmmu_tlb_index>(9);
    EXPECT_EQ(bad_field(c), "index");
    c = cfg(64, 8);
    c.lookup_cycles = 2000000;
    EXPECT_EQ(bad_field(c), "lookup_cycles");
    EXPECT_EQ(gmmu_tlb_create(&c, nullptr, nullptr), GMMU_EINVAL);
}

TEST(TlbTest, NonUniformSixtyFiveEntrySets)
{
    auto c = cfg(65, 8);
    c.sets = 7; // Mei & Chu: 6 sets x 8 ways + 1 set x 17 ways
    Tlb t(c);
    EXPECT_EQ(gmmu_tlb_sets(t.t), 7u);
    for (uint32_t s = 0; s < 6; s++)
        EXPECT_EQ(gmmu_tlb_set_ways(t.t, s), 8u) << "set " << s;
    EXPECT_EQ(gmmu_tlb_set_ways(t.t, 6), 17u);
    // 17 pages of the big set fit without eviction; the 18th evicts.
    for (uint64_t i = 0; i < 17; i++) {
        EXPECT_EQ(gmmu_tlb_set_of(t.t, 6 + 7 * i), 6u);
        EXPECT_FALSE(t.fill(6 + 7 * i)) << i;
    }
    EXPECT_TRUE(t.fill(6 + 7 * 17));
    // A small set holds 8.
    for (uint64_t i = 0; i < 8; i++)
        EXPECT_FALSE(t.fill(7 * i)) << i;
    EXPECT_TRUE(t.fill(7 * 8));

    // Without `sets` the old rule applies: 65 / 8 = 8 sets, last set 9 ways.
    Tlb old(cfg(65, 8));
    EXPECT_EQ(gmmu_tlb_sets(old.t), 8u);
    EXPECT_EQ(gmmu_tlb_set_ways(old.t, 7), 9u);
}

TEST(TlbTest, ResidueIndexFillsAllSixtyFiveEntriesWithConsecutivePages)
{
    auto c = cfg(65, 8);
    c.sets = 7;
    c.index = GMMU_TLB_INDEX_RESIDUE;
    Tlb t(c);
    std::vector<uint32_t> per_set(7);
    for (uint64_t v = 0; v < 65; v++)
        per_set[gmmu_tlb_set_of(t.t, 1000 + v)]++;
    for (uint32_t s = 0; s < 7; s++)
        EXPECT_EQ(per_set[s], gmmu_tlb_set_ways(t.t, s)) << "set " << s;
    for (uint64_t v = 0; v < 65; v++)
        EXPECT_FALSE(t.fill(1000 + v));
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 65u);
    for (uint64_t v = 0; v < 65; v++)
        EXPECT_TRUE(t.hit(1000 + v));

    // Pointer chase over 66 pages, twice: only the set that received two
    // residues-alike pages thrashes (the paper's "noise" at the boundary).
    Tlb u(c);
    for (int pass = 0; pass < 2; pass++) {
        uint32_t misses = 0;
        for (uint64_t v = 0; v < 66; v++)
            if (!u.hit(v)) {
                misses++;
                u.fill(v);
            }
        if (pass == 1) {
            EXPECT_EQ(misses, 9u); // the 9 pages of the 8-way set holding residue 0
        }
    }

    // MODULO indexing cannot hold 65 consecutive pages in 6x8 + 1x17.
    auto m = c;
    m.index = GMMU_TLB_INDEX_MODULO;
    Tlb mod(m);
    uint32_t ev = 0;
    for (uint64_t v = 0; v < 65; v++)
        ev += mod.fill(1000 + v);
    EXPECT_GT(ev, 0u);
}

TEST(TlbTest, ResidueIndexWithSmallLastSetCoversEveryEntry)
{
    auto c = cfg(30, 8);
    c.sets = 4; // 8 + 8 + 8 + 6
    c.index = GMMU_TLB_INDEX_RESIDUE;
    Tlb t(c);
    EXPECT_EQ(gmmu_tlb_set_ways(t.t, 3), 6u);
    for (uint64_t v = 0; v < 30; v++)
        EXPECT_FALSE(t.fill(v * 7 + 7 * 30)) << v; // 30 tags with distinct residues mod 30
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 30u);
}

TEST(TlbTest, ThousandThirtyTwoEntriesHoldThatManyConsecutivePages)
{
    Tlb t(cfg(1032, 8)); // 129 sets of 8
    EXPECT_EQ(gmmu_tlb_sets(t.t), 129u);
    for (uint64_t v = 0; v < 1032; v++)
        EXPECT_FALSE(t.fill(v));
    EXPECT_TRUE(t.fill(1032));
    uint32_t hits = 0;
    for (uint64_t v = 0; v < 1033; v++)
        hits += t.hit(v);
    EXPECT_EQ(hits, 1032u); // page 0 was the LRU of its set
}

TEST(TlbTest, FullyAssociativeHoldsAnyPages)
{
    Tlb t(cfg(16, 16));
    for (uint64_t i = 0; i < 16; i++)
        EXPECT_FALSE(t.fill(i * 4096 + 3)); // all congruent mod any small power of two
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 16u);
    gmmu_tlb_entry v{};
    EXPECT_TRUE(t.fill(99, 0, 0, &v));
    EXPECT_EQ(v.vpn, 3u); // least recently used
}

TEST(TlbTest, DirectMappedConflictsEvictEachOther)
{
    Tlb t(cfg(16, 1));
    EXPECT_FALSE(t.fill(3));
    EXPECT_FALSE(t.fill(4));
    gmmu_tlb_entry v{};
    EXPECT_TRUE(t.fill(19, 0, 0, &v));
    EXPECT_EQ(v.vpn, 3u);
    EXPECT_FALSE(t.present(3));
    EXPECT_TRUE(t.present(4));
}

// Fill A,B,C,D into one 4-way set, touch A, then E: LRU evicts B.
TEST(TlbTest, LruEvictsLeastRecentlyUsed)
{
    Tlb t(cfg(4, 4, GMMU_TLB_REPL_LRU));
    for (uint64_t v : {10, 11, 12, 13})
        t.fill(v);
    EXPECT_TRUE(t.hit(10));
    gmmu_tlb_entry v{};
    EXPECT_TRUE(t.fill(14, 0, 0, &v));
    EXPECT_EQ(v.vpn, 11u);
    EXPECT_TRUE(t.present(10));
}

// Same sequence under tree-PLRU: after fills of ways 0..3 and a touch of way
// 0, the root points right and the right node points at way 2, so C goes —
// not B as true LRU would choose.
TEST(TlbTest, PlruEvictsPseudoLeastRecent)
{
    Tlb t(cfg(4, 4, GMMU_TLB_REPL_PLRU));
    for (uint64_t v : {10, 11, 12, 13})
        t.fill(v);
    EXPECT_TRUE(t.hit(10));
    gmmu_tlb_entry v{};
    EXPECT_TRUE(t.fill(14, 0, 0, &v));
    EXPECT_EQ(v.vpn, 12u);
    EXPECT_TRUE(t.present(11));
    // Next victim: root now points left (way 2 just filled), left node -> way 1.
    EXPECT_TRUE(t.fill(15, 0, 0, &v));
    EXPECT_EQ(v.vpn, 11u);
}

TEST(TlbTest, FifoEvictsOldestFillDespiteHits)
{
    Tlb t(cfg(4, 4, GMMU_TLB_REPL_FIFO));
    for (uint64_t v : {10, 11, 12, 13})
        t.fill(v);
    for (int i = 0; i < 5; i++)
        EXPECT_TRUE(t.hit(10));
    gmmu_tlb_entry v{};
    EXPECT_TRUE(t.fill(14, 0, 0, &v));
    EXPECT_EQ(v.vpn, 10u);
    EXPECT_TRUE(t.fill(15, 0, 0, &v));
    EXPECT_EQ(v.vpn, 11u);
}

std::vector<uint64_t> random_victims(uint64_t seed, int n)
{
    auto c = cfg(8, 8, GMMU_TLB_REPL_RANDOM);
    c.seed = seed;
    Tlb t(c);
    for (uint64_t v = 0; v < 8; v++)
        t.fill(v);
    std::vector<uint64_t> out;
    for (int i = 0; i < n; i++) {
        gmmu_tlb_entry v{};
        EXPECT_TRUE(t.fill(100 + i, 0, 0, &v));
        out.push_back(v.vpn);
    }
    return out;
}

TEST(TlbTest, RandomReplacementIsSeededAndReproducible)
{
    const uint64_t seed = 12345;
    std::printf("seed=%llu\n", (unsigned long long)seed);
    auto a = random_victims(seed, 64), b = random_victims(seed, 64);
    auto c = random_victims(seed + 1, 64);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    // Not LRU or FIFO: the first victims are not simply 0,1,2,...
    std::vector<uint64_t> fifo_order{0, 1, 2, 3, 4, 5, 6, 7};
    EXPECT_NE(std::vector<uint64_t>(a.begin(), a.begin() + 8), fifo_order);
}

TEST(TlbTest, LruDepthReportsStackPositionOfEveryHit)
{
    for (auto repl : {GMMU_TLB_REPL_LRU, GMMU_TLB_REPL_PLRU, GMMU_TLB_REPL_FIFO}) {
        Tlb t(cfg(8, 8, repl));
        for (uint64_t v = 0; v < 8; v++)
            t.fill(v);
        EXPECT_EQ(t.look(7).lru_depth, 0u) << repl;
        EXPECT_EQ(t.look(0).lru_depth, 7u) << repl;
        EXPECT_EQ(t.look(0).lru_depth, 0u) << repl;
        EXPECT_EQ(t.look(7).lru_depth, 1u) << repl;
        EXPECT_EQ(t.look(3).lru_depth, 5u) << repl; // order now 7,0,6,5,4,3,...
    }
}

// Random trace against a straightforward reference (std::list per set, MRU
// first): hit/miss, victim and LRU depth must agree exactly, on the 65-entry
// non-uniform geometry and with ASIDs.
TEST(TlbTest, LruMatchesReferenceModelOnRandomTrace)
{
    const uint64_t seed = 20260501;
    std::printf("seed=%llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    // Geometries: non-uniform residue-indexed (general path), 4x16 and 1x24
    // (fast path, whole and partial fingerprint words), 200-way fully
    // associative (32-bit ranks), 129 sets of 8 (modulo, general path),
    // 100-way fully associative (general path, byte ranks, partial word).
    for (int geo = 0; geo < 6; geo++) {
        gmmu_tlb_config c = geo == 0   ? cfg(65, 8)
                            : geo == 1 ? cfg(64, 16)
                            : geo == 2 ? cfg(24, 24)
                            : geo == 3 ? cfg(200, 200)
                            : geo == 4 ? cfg(1032, 8)
                                       : cfg(100, 100);
        if (geo == 0) {
            c.sets = 7;
            c.index = GMMU_TLB_INDEX_RESIDUE;
        }
        const uint64_t span = geo >= 3 ? 1500 : 200;
        Tlb t(c);
        std::vector<std::list<std::pair<uint16_t, uint64_t>>> ref(gmmu_tlb_sets(t.t));
        for (int i = 0; i < 20000; i++) {
            uint64_t vpn = rng() % span;
            uint16_t asid = uint16_t(rng() % 2 ? 0x101 : 0); // fingerprints of both ASIDs agree
            uint32_t s = gmmu_tlb_set_of(t.t, vpn);
            auto &l = ref[s];
            auto it = std::find(l.begin(), l.end(), std::make_pair(asid, vpn));
            gmmu_tlb_result r = t.look(vpn, asid);
            ASSERT_EQ(r.hit, it != l.end()) << "geo " << geo << " step " << i;
            if (r.hit) {
                ASSERT_EQ(r.lru_depth, uint32_t(std::distance(l.begin(), it)));
                ASSERT_EQ(r.ppn, vpn + 0x1000);
                l.splice(l.begin(), l, it);
            } else {
                gmmu_tlb_entry v{};
                bool ev = t.fill(vpn, 0, asid, &v);
                ASSERT_EQ(ev, l.size() == gmmu_tlb_set_ways(t.t, s));
                if (ev) {
                    ASSERT_EQ(v.vpn, l.back().second);
                    ASSERT_EQ(v.asid, l.back().first);
                    l.pop_back();
                }
                l.emplace_front(asid, vpn);
            }
        }
    }
}

// The lookup filters ways by an 8-bit fingerprint; equal fingerprints of
// different pages or ASIDs must still miss.
TEST(TlbTest, FingerprintCollisionsNeverHit)
{
    Tlb t(cfg(16, 4)); // 4 sets: fingerprint from tag bits above bit 2
    const uint64_t a = 0x10, b = a ^ (0x101ull << 2);
    ASSERT_EQ(gmmu_tlb_set_of(t.t, a), gmmu_tlb_set_of(t.t, b));
    t.fill(a, 0x500, 0);
    EXPECT_FALSE(t.hit(b, 0));
    EXPECT_FALSE(t.hit(a, 0x101));
    EXPECT_EQ(t.look(a, 0).ppn, 0x500u);
    t.fill(b, 0x600, 0);
    t.fill(a, 0x700, 0x101);
    EXPECT_EQ(t.look(b, 0).ppn, 0x600u);
    EXPECT_EQ(t.look(a, 0x101).ppn, 0x700u);
    EXPECT_EQ(t.look(a, 0).ppn, 0x500u);
}

TEST(TlbTest, FillOfPresentPageRefreshesInPlace)
{
    Tlb t(cfg(4, 4));
    for (uint64_t v : {1, 2, 3, 4})
        t.fill(v);
    EXPECT_FALSE(t.fill(2, 0x777));
    EXPECT_EQ(t.st().evictions, 0u);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 4u);
    EXPECT_EQ(t.look(2).ppn, 0x777u);
}

// K80 L1 reading: 128 KiB pages, one entry covers a 2 MiB aligned run when
// the driver allocated it contiguously.
TEST(TlbTest, CoverageEntryMapsContiguousRegion)
{
    auto c = cfg(16, 16, GMMU_TLB_REPL_LRU, 17);
    c.coverage_shift = 21;
    Tlb t(c);
    gmmu_tlb_fill_out out{};
    ASSERT_EQ(gmmu_tlb_fill_ex(t.t, 0, 0x25, 0x1005, 7, GMMU_TLB_FILL_CONTIG, 0, &out), GMMU_OK);
    EXPECT_EQ(out.installed, 1u);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 1u);
    for (uint64_t v = 0x20; v < 0x30; v++) {
        auto r = t.look(v);
        EXPECT_TRUE(r.hit) << v;
        EXPECT_EQ(r.ppn, 0x1000 + (v - 0x20));
        EXPECT_EQ(r.perms, 7u);
    }
    EXPECT_FALSE(t.hit(0x30));
    EXPECT_FALSE(t.hit(0x1f));
    EXPECT_EQ(t.st().coverage_fills, 1u);
    // First frame of the run would be negative: rejected.
    EXPECT_EQ(gmmu_tlb_fill_ex(t.t, 0, 0x45, 0x2, 0, GMMU_TLB_FILL_CONTIG, 0, nullptr),
              GMMU_EINVAL);
}

TEST(TlbTest, NonContiguousFillOfCoverageTlbMapsOnePage)
{
    auto c = cfg(16, 16, GMMU_TLB_REPL_LRU, 17);
    c.coverage_shift = 21;
    Tlb t(c);
    t.fill(0x25, 0x1005);
    EXPECT_TRUE(t.hit(0x25));
    EXPECT_FALSE(t.hit(0x26));
    // A contiguous fill of the same region replaces the single-page entry.
    gmmu_tlb_fill_ex(t.t, 0, 0x26, 0x1006, 0, GMMU_TLB_FILL_CONTIG, 0, nullptr);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 1u);
    EXPECT_TRUE(t.hit(0x25));
    EXPECT_TRUE(t.hit(0x2f));
}

// Reach = entries x coverage: a 16-entry TLB of 2 MiB coverage over 128 KiB
// pages holds a 32 MiB stride-128KiB chase, and not 34 MiB.
TEST(TlbTest, CoverageReachIsEntriesTimesRegion)
{
    auto c = cfg(16, 16, GMMU_TLB_REPL_LRU, 17);
    c.coverage_shift = 21;
    for (uint64_t mib : {32, 34}) {
        Tlb t(c);
        uint64_t pages = mib * 8; // 128 KiB pages
        uint32_t misses = 0;
        for (int pass = 0; pass < 2; pass++)
            for (uint64_t v = 0; v < pages; v++)
                if (!t.hit(v)) {
                    if (pass == 1)
                        misses++;
                    gmmu_tlb_fill_ex(t.t, 0, v, v + 0x10000, 0, GMMU_TLB_FILL_CONTIG, 0,
                                     nullptr);
                }
        if (mib == 32) {
            EXPECT_EQ(misses, 0u);
        } else {
            EXPECT_EQ(misses, 17u); // LRU over 17 regions: every region misses once
        }
    }
}

// The paper's method on a K80-like L2 TLB (65 entries as 6x8 + 1x17, 2 MiB
// coverage over 128 KiB pages, residue indexing): a two-pass pointer chase
// at stride s over distance d misses on its second pass only past the
// reach of 130 MiB at s = P and P/2, and past 260 MiB at s = 2P.
TEST(TlbTest, PointerChaseFindsK80L2ReachAtEveryStride)
{
    auto c = cfg(65, 8, GMMU_TLB_REPL_LRU, 17);
    c.sets = 7;
    c.index = GMMU_TLB_INDEX_RESIDUE;
    c.coverage_shift = 21;
    auto second_pass_misses = [&](uint64_t stride, uint64_t distance) {
        Tlb t(c);
        uint32_t misses = 0;
        for (int pass = 0; pass < 2; pass++)
            for (uint64_t va = 0; va < distance; va += stride) {
                uint64_t vpn = va >> 17;
                if (!t.hit(vpn)) {
                    misses += pass;
                    gmmu_tlb_fill_ex(t.t, 0, vpn, vpn + 0x100000, 0, GMMU_TLB_FILL_CONTIG, 0,
                                     nullptr);
                }
            }
        return misses;
    };
    const uint64_t MiB = 1ull << 20;
    EXPECT_EQ(second_pass_misses(2 * MiB, 130 * MiB), 0u);
    EXPECT_EQ(second_pass_misses(1 * MiB, 130 * MiB), 0u);
    EXPECT_GT(second_pass_misses(2 * MiB, 132 * MiB), 0u);
    EXPECT_GT(second_pass_misses(1 * MiB, 132 * MiB), 0u);
    EXPECT_EQ(second_pass_misses(4 * MiB, 260 * MiB), 0u);
    EXPECT_GT(second_pass_misses(4 * MiB, 264 * MiB), 0u);
}

// fill_pages = 16 (the K80/P100 "16 contiguous pages per miss" reading):
// one miss installs 16 separate entries; they then count against capacity.
TEST(TlbTest, MultiPageFillInstallsSeparateEntries)
{
    auto c = cfg(64, 64, GMMU_TLB_REPL_LRU, 17);
    c.fill_pages = 16;
    Tlb t(c);
    gmmu_tlb_fill_out out{};
    gmmu_tlb_fill_ex(t.t, 0, 0x25, 0x1005, 0, GMMU_TLB_FILL_CONTIG, 0, &out);
    EXPECT_EQ(out.installed, 16u);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 16u);
    for (uint64_t v = 0x20; v < 0x30; v++)
        EXPECT_EQ(t.look(v).ppn, 0x1000 + (v - 0x20)) << v;
    EXPECT_EQ(t.st().coverage_fills, 0u);
    // The missing page itself is the most recent of the group.
    gmmu_tlb_entry e{};
    ASSERT_TRUE(gmmu_tlb_probe(t.t, 0, 0x25, &e));
    EXPECT_EQ(e.span_shift, 0u);
    // One page can be invalidated alone.
    EXPECT_TRUE(gmmu_tlb_invalidate_page(t.t, 0, 0x27));
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 15u);
    // A non-contiguous fill installs one page only.
    gmmu_tlb_fill_ex(t.t, 0, 0x45, 0x2000, 0, 0, 0, &out);
    EXPECT_EQ(out.installed, 1u);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 16u);
}

TEST(TlbTest, MultiPageFillReportsEveryVictim)
{
    auto c = cfg(16, 16);
    c.fill_pages = 8;
    Tlb t(c);
    for (uint64_t v = 0; v < 16; v++)
        t.fill(100 + v);
    gmmu_tlb_fill_out out{};
    gmmu_tlb_fill_ex(t.t, 0, 0x203, 0x5003, 0, GMMU_TLB_FILL_CONTIG, 0, &out);
    EXPECT_EQ(out.installed, 8u);
    ASSERT_EQ(out.nvictims, 8u);
    for (uint32_t i = 0; i < 8; i++)
        EXPECT_EQ(out.victims[i].vpn, 100 + i); // LRU order
}

TEST(TlbTest, CoverageCombinedWithMultiFillInstallsGroupOfRegions)
{
    auto c = cfg(64, 64, GMMU_TLB_REPL_LRU, 16); // 64 KiB pages
    c.coverage_shift = 21;                       // 2 MiB entries (32 pages)
    c.fill_pages = 4;                            // 4 regions per miss
    Tlb t(c);
    gmmu_tlb_fill_out out{};
    gmmu_tlb_fill_ex(t.t, 0, 5 * 32 + 3, 0x4000 + 5 * 32 + 3, 0, GMMU_TLB_FILL_CONTIG, 0, &out);
    EXPECT_EQ(out.installed, 4u);
    for (uint64_t v = 4 * 32; v < 8 * 32; v++)
        EXPECT_EQ(t.look(v).ppn, 0x4000 + v) << v;
    EXPECT_FALSE(t.hit(8 * 32));
}

TEST(TlbTest, RangeInvalidationRemovesOverlappingCoverageEntries)
{
    auto c = cfg(16, 16, GMMU_TLB_REPL_LRU, 17);
    c.coverage_shift = 21;
    Tlb t(c);
    gmmu_tlb_fill_ex(t.t, 0, 0x20, 0x1000, 0, GMMU_TLB_FILL_CONTIG, 0, nullptr); // 0x20..0x2f
    gmmu_tlb_fill_ex(t.t, 0, 0x40, 0x2000, 0, GMMU_TLB_FILL_CONTIG, 0, nullptr); // 0x40..0x4f
    gmmu_tlb_fill_ex(t.t, 1, 0x20, 0x3000, 0, GMMU_TLB_FILL_CONTIG, 0, nullptr); // other ASID
    // Range covering only the last 128 KiB page of the first region.
    uint64_t lo = 0x2Full << 17, hi = (0x30ull << 17) - 1;
    EXPECT_EQ(gmmu_tlb_invalidate_range(t.t, 0, lo, hi), 1u);
    EXPECT_FALSE(t.hit(0x20));
    EXPECT_TRUE(t.hit(0x40));
    EXPECT_TRUE(t.hit(0x20, 1));
    // A range between the regions removes nothing.
    EXPECT_EQ(gmmu_tlb_invalidate_range(t.t, 0, 0x30ull << 17, (0x40ull << 17) - 1), 0u);
    // Invalidating one page of a coverage entry drops the whole entry.
    EXPECT_TRUE(gmmu_tlb_invalidate_page(t.t, 0, 0x4c));
    EXPECT_FALSE(t.hit(0x40));
}

TEST(TlbTest, AsidsIsolateTranslationsAndInvalidateSeparately)
{
    Tlb t(cfg(32, 4));
    t.fill(5, 0x100, 1);
    t.fill(5, 0x200, 2);
    EXPECT_EQ(t.look(5, 1).ppn, 0x100u);
    EXPECT_EQ(t.look(5, 2).ppn, 0x200u);
    EXPECT_FALSE(t.hit(5, 3));
    t.fill(6, 0, 1);
    EXPECT_EQ(gmmu_tlb_invalidate_asid(t.t, 1), 2u);
    EXPECT_FALSE(t.present(5, 1));
    EXPECT_TRUE(t.present(5, 2));
    EXPECT_EQ(t.st().invalidations, 2u);
    gmmu_tlb_invalidate_all(t.t);
    EXPECT_EQ(gmmu_tlb_occupancy(t.t), 0u);
    EXPECT_EQ(t.st().invalidations, 3u);
    EXPECT_FALSE(t.fill(5, 0, 2)); // freed slots are reused, no eviction
}

// A walk samples the generation at its start; a shootdown while it is in
// flight makes its fill stale, and the stale translation must not return.
TEST(TlbTest, FlushDuringWalkDropsTheStaleFill)
{
    Tlb t(cfg(16, 4));
    for (int kind = 0; kind < 4; kind++) {
        uint64_t gen = gmmu_tlb_generation(t.t);
        switch (kind) { // the shootdown, while the walk is in flight
        case 0: gmmu_tlb_invalidate_all(t.t); break;
        case 1: gmmu_tlb_invalidate_asid(t.t, 0); break;
        case 2: gmmu_tlb_invalidate_page(t.t, 0, 9); break;
        case 3: gmmu_tlb_invalidate_range(t.t, 0, 9ull << 12, (10ull << 12) - 1); break;
        }
        EXPECT_NE(gmmu_tlb_generation(t.t), gen);
        gmmu_tlb_fill_out out{};
        ASSERT_EQ(gmmu_tlb_fill_ex(t.t, 0, 9, 0x99, 0, GMMU_TLB_FILL_CHECK_GEN, gen, &out), GMMU_OK);
        EXPECT_TRUE(out.dropped) << kind;
        EXPECT_EQ(out.installed, 0u);
        EXPECT_EQ(out.nvictims, 0u);
        EXPECT_FALSE(t.present(9)) << kind;
        gmmu_tlb_fill_ex(t.t, 0, 9, 0x99, 0, GMMU_TLB_FILL_CHECK_GEN, gen, &out);
        EXPECT_TRUE(out.dropped);
        EXPECT_FALSE(t.present(9));
    }
    EXPECT_EQ(t.st().stale_fills_dropped, 8u);
    // A walk that saw no invalidation fills normally.
    gmmu_tlb_fill_out out{};
    gmmu_tlb_fill_ex(t.t, 0, 9, 0x99, 0, GMMU_TLB_FILL_CHECK_GEN, gmmu_tlb_generation(t.t), &out);
    EXPECT_FALSE(out.dropped);
    EXPECT_TRUE(t.present(9));
}

TEST(TlbTest, PrefetchCountersTrackUseAndPollution)
{
    Tlb t(cfg(4, 4));
    const uint32_t P = GMMU_TLB_FILL_PREFETCH;
    gmmu_tlb_fill_ex(t.t, 0, 1, 0x11, 0, P, 0, nullptr);
    gmmu_tlb_entry e{};
    ASSERT_TRUE(gmmu_tlb_probe(t.t, 0, 1, &e));
    EXPECT_TRUE(e.prefetched);
    EXPECT_EQ(t.st().prefetch_fills, 1u);
    EXPECT_TRUE(t.hit(1));
    EXPECT_TRUE(t.hit(1));
    EXPECT_EQ(t.st().prefetch_hits, 1u); // first use only
    // Redundant prefetch of a present translation: no change.
    gmmu_tlb_fill_out out{};
    gmmu_tlb_fill_ex(t.t, 0, 1, 0x11, 0, P, 0, &out);
    EXPECT_EQ(out.installed, 0u);
    EXPECT_EQ(t.st().prefetch_redundant, 1u);
    ASSERT_TRUE(gmmu_tlb_probe(t.t, 0, 1, &e));
    EXPECT_FALSE(e.prefetched);
    // Fill the rest: 2 demand (one hit later), 3 prefetched and never used.
    t.fill(2);
    t.fill(3);
    EXPECT_TRUE(t.hit(2));
    gmmu_tlb_fill_ex(t.t, 0, 4, 0x44, 0, P, 0, nullptr); // set full now: 1,2,3,4
    // Least recent first: 1 (last hit before the fills of 2 and 3), 3, 2, 4.
    // Prefetch evicting 1 (hit twice): a useful victim.
    gmmu_tlb_fill_ex(t.t, 0, 5, 0x55, 0, P, 0, &out);
    ASSERT_EQ(out.nvictims, 1u);
    EXPECT_EQ(out.victims[0].vpn, 1u);
    EXPECT_EQ(t.st().prefetch_victim_useful, 1u);
    // Prefetch evicting 3 (never hit): not a useful victim.
    gmmu_tlb_fill_ex(t.t, 0, 6, 0x66, 0, P, 0, &out);
    EXPECT_EQ(out.victims[0].vpn, 3u);
    EXPECT_EQ(t.st().prefetch_victim_useful, 1u);
    // Demand fills now evict 2 then the unused prefetch 4.
    t.fill(7);
    t.fill(8);
    EXPECT_EQ(t.st().prefetch_evicted_unused, 1u);
    EXPECT_EQ(t.st().prefetch_fills, 4u);
}

TEST(TlbTest, NullArgumentsAreErrors)
{
    gmmu_tlb_result r{};
    EXPECT_EQ(gmmu_tlb_lookup(nullptr, 0, 0, &r), GMMU_EINVAL);
    EXPECT_EQ(gmmu_tlb_fill_ex(nullptr, 0, 0, 0, 0, 0, 0, nullptr), GMMU_EINVAL);
    EXPECT_FALSE(gmmu_tlb_probe(nullptr, 0, 0, nullptr));
    EXPECT_EQ(gmmu_tlb_stats_of(nullptr), nullptr);
    EXPECT_EQ(gmmu_tlb_use_general_path(nullptr), GMMU_EINVAL);
    gmmu_tlb_destroy(nullptr); // ignored
    auto c = cfg(64, 8);
    gmmu_error err{};
    EXPECT_EQ(gmmu_tlb_create(&c, nullptr, &err), GMMU_EINVAL);
    EXPECT_EQ(gmmu_tlb_create(nullptr, nullptr, &err), GMMU_EINVAL);
    gmmu_tlb *t = reinterpret_cast<gmmu_tlb *>(uintptr_t(1));
    EXPECT_NE(gmmu_tlb_create(nullptr, &t, &err), GMMU_OK);
    EXPECT_EQ(t, nullptr) << "a refused create leaves no handle";
    // The general path can only be chosen while the TLB is empty.
    Tlb k(c);
    k.fill(3);
    EXPECT_EQ(gmmu_tlb_use_general_path(k.t), GMMU_EINVAL);
    EXPECT_TRUE(gmmu_tlb_fast_path(k.t));
}

} // namespace

namespace {

TEST(TlbTest, ReadyTimeOfAFillInFlightIsReturnedByHitsUntilTheEntryIsRefilled)
{
    for (uint32_t ways : {4u, 128u}) { // the fast and the general lookup path
        gmmu_tlb_config c{};
        c.entries = 128;
        c.ways = ways;
        c.page_shift = 12;
        c.lookup_cycles = 1;
        Tlb k(c);
        k.fill(7);
        EXPECT_EQ(k.look(7).ready, 0u); // a plain fill is there at once
        EXPECT_TRUE(gmmu_tlb_set_ready(k.t, 0, 7, 5000));
        gmmu_tlb_result r = k.look(7);
        EXPECT_TRUE(r.hit);
        EXPECT_EQ(r.ready, 5000u);
        EXPECT_FALSE(gmmu_tlb_set_ready(k.t, 0, 8, 1)); // no entry maps page 8
        EXPECT_FALSE(gmmu_tlb_set_ready(k.t, 1, 7, 1)); // nor page 7 of ASID 1
        EXPECT_EQ(k.look(8).ready, 0u);                  // a miss has no ready time
        gmmu_tlb_invalidate_page(k.t, 0, 7);
        k.fill(7);
        EXPECT_EQ(k.look(7).ready, 0u); // a refill starts over
    }
}

} // namespace

// ---- access decisions ---------------------------------------------------------

TEST(TlbDecisionTest, VerdictsServeMissOrSendAWriteToTheWalker)
{
    Tlb tl(cfg(16, 4));
    const uint64_t rw = GMMU_PTE_W | GMMU_PTE_A | GMMU_PTE_D, ro = GMMU_PTE_A,
                   clean = GMMU_PTE_W | GMMU_PTE_A;
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x10, 0x90, rw, 0, 0, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x11, 0x91, ro, 0, 0, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x12, 0x92, clean, 0, 0, nullptr), GMMU_OK);
    gmmu_tlb_answer a;
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x10, true, false, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(a.ppn, 0x90u);
    EXPECT_EQ(a.perms, rw);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x11, false, false, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x11, true, false, &a), GMMU_TLB_REWALK)
        << "a write to a read-only entry: the walker decides";
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x12, true, false, &a), GMMU_TLB_REWALK)
        << "a first write to a clean page: the walker sets D";
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 2, 0x10, false, false, &a), GMMU_TLB_MISSED)
        << "another ASID";
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x13, false, false, &a), GMMU_TLB_MISSED);
    // A debug answer changes no counter.
    const gmmu_tlb_stats before = tl.st();
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x10, false, true, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x13, false, true, &a), GMMU_TLB_MISSED);
    EXPECT_EQ(std::memcmp(&before, &tl.st(), sizeof before), 0);
}

TEST(TlbDecisionTest, AnUnprivilegedAccessToAnEntryWithoutUGoesToTheWalker)
{
    // A privileged context's walk may fill a supervisor page (no U); an
    // unprivileged access of the same ASID must not be served from it.
    Tlb tl(cfg(16, 4));
    const uint64_t sup = GMMU_PTE_W | GMMU_PTE_A | GMMU_PTE_D,
                   user = sup | GMMU_PTE_U;
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x20, 0xa0, sup, 0, 0, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x21, 0xa1, user, 0, 0, nullptr), GMMU_OK);
    gmmu_tlb_answer a;
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x20, 0, false, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x20, GMMU_ACC_WRITE, false, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x20, GMMU_ACC_USER, false, &a), GMMU_TLB_REWALK);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x20, GMMU_ACC_USER | GMMU_ACC_WRITE, true, &a),
              GMMU_TLB_REWALK);
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, 0x21, GMMU_ACC_USER | GMMU_ACC_WRITE, false, &a),
              GMMU_TLB_SERVED);
    EXPECT_TRUE(gmmu_tlb_needs_walk(sup, GMMU_ACC_USER));
    EXPECT_FALSE(gmmu_tlb_needs_walk(sup, 0));
    EXPECT_TRUE(gmmu_tlb_needs_walk(GMMU_PTE_U, GMMU_ACC_USER | GMMU_ACC_WRITE));
}

TEST(TlbDecisionTest, DebugAndTimedAnswersAgreeInsideACoverageEntry)
{
    // A coverage entry spans 16 pages: every page inside it translates to
    // its own frame, by a lookup and by a side-effect-free debug answer.
    gmmu_tlb_config c = cfg(16, 4);
    c.coverage_shift = 16;
    Tlb tl(c);
    const uint64_t perms = GMMU_PTE_W | GMMU_PTE_A | GMMU_PTE_D;
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 0, 0x125, 0x7125, perms, GMMU_TLB_FILL_CONTIG, 0, nullptr),
              GMMU_OK);
    for (uint64_t vpn = 0x120; vpn < 0x130; vpn++) {
        gmmu_tlb_answer d, l;
        ASSERT_EQ(gmmu_tlb_answer_access(tl.t, 0, vpn, false, true, &d), GMMU_TLB_SERVED) << vpn;
        ASSERT_EQ(gmmu_tlb_answer_access(tl.t, 0, vpn, false, false, &l), GMMU_TLB_SERVED) << vpn;
        EXPECT_EQ(d.ppn, 0x7000 + vpn) << "debug answer, page " << vpn;
        EXPECT_EQ(l.ppn, 0x7000 + vpn) << "lookup, page " << vpn;
        EXPECT_EQ(d.span_shift, 4);
        EXPECT_EQ(l.span_shift, 4);
    }
}

TEST(TlbDecisionTest, FillPlanCachesOnlyWhatFitsAndTrustsTheContiguityHint)
{
    gmmu_tlb_config c = cfg(64, 4, GMMU_TLB_REPL_LRU, 16); // 64 KiB TLB pages
    c.coverage_shift = 18;                                   // 256 KiB coverage entries
    c.fill_pages = 2;                                        // a contiguous fill: 512 KiB
    Tlb tl(c);
    uint32_t flags = 99;
    EXPECT_FALSE(gmmu_tlb_fill_plan(tl.t, 12, 7, &flags)) << "4 KiB page under a 64 KiB TLB page";
    EXPECT_EQ(flags, 0u);
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 16, 0, &flags));
    EXPECT_EQ(flags, 0u) << "no hint: one entry";
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 16, 2, &flags));
    EXPECT_EQ(flags, 0u) << "the hint covers 256 KiB, the fill would install 512 KiB";
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 16, 3, &flags));
    EXPECT_EQ(flags, uint32_t(GMMU_TLB_FILL_CONTIG));
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 21, 0, &flags));
    EXPECT_EQ(flags, uint32_t(GMMU_TLB_FILL_CONTIG) | GMMU_TLB_FILL_LEAF(21))
        << "a 2 MiB page holds the whole block; its entries remember their leaf";
    // Single-page entries, one per fill: never contiguous.
    Tlb plain(cfg(16, 4));
    EXPECT_TRUE(gmmu_tlb_fill_plan(plain.t, 21, 7, &flags));
    EXPECT_EQ(flags, GMMU_TLB_FILL_LEAF(21));
}

// ---- the fingerprint fast path equals the general path --------------------------

TEST(TlbFastPathTest, FastPathEqualsTheGeneralPathOnRandomTraffic)
{
    // Geometries the fast path takes (power-of-two sets of <= 64 ways); the
    // twin is forced onto the general path. Every lookup, fill and
    // invalidation must give the same answer, victims and counters.
    struct geo {
        uint32_t entries, ways, cov;
        gmmu_tlb_repl repl;
    };
    for (geo g : {geo{64, 4, 0, GMMU_TLB_REPL_LRU}, geo{512, 16, 0, GMMU_TLB_REPL_PLRU},
                  geo{32, 32, 0, GMMU_TLB_REPL_FIFO}, geo{256, 8, 16, GMMU_TLB_REPL_RANDOM},
                  geo{128, 64, 0, GMMU_TLB_REPL_LRU}, geo{64, 1, 0, GMMU_TLB_REPL_LRU},
                  geo{256, 8, 16, GMMU_TLB_REPL_LRU}}) {
        gmmu_tlb_config c = cfg(g.entries, g.ways, g.repl);
        c.coverage_shift = g.cov;
        Tlb fast(c), plain(c);
        ASSERT_TRUE(gmmu_tlb_fast_path(fast.t)) << g.entries << "x" << g.ways;
        ASSERT_EQ(gmmu_tlb_use_general_path(plain.t), GMMU_OK);
        ASSERT_FALSE(gmmu_tlb_fast_path(plain.t));
        std::mt19937_64 rng(g.entries * 131 + g.ways);
        for (int i = 0; i < 60000; i++) {
            const uint16_t asid = uint16_t(rng() % 3);
            const uint64_t vpn = 0x40000 + rng() % (g.entries * 2);
            const unsigned op = unsigned(rng() % 10);
            if (op < 5) {
                gmmu_tlb_result a{}, b{};
                ASSERT_EQ(gmmu_tlb_lookup(fast.t, asid, vpn, &a), GMMU_OK);
                ASSERT_EQ(gmmu_tlb_lookup(plain.t, asid, vpn, &b), GMMU_OK);
                ASSERT_EQ(a.hit, b.hit) << "op " << i;
                ASSERT_EQ(a.ppn, b.ppn) << "op " << i;
                ASSERT_EQ(a.perms, b.perms) << "op " << i;
                ASSERT_EQ(a.lru_depth, b.lru_depth) << "op " << i;
            } else if (op < 9) {
                uint32_t flags = (g.cov && rng() % 2) ? GMMU_TLB_FILL_CONTIG : 0u;
                if (rng() % 4 == 0) // prefetches: redundant ones change nothing
                    flags |= GMMU_TLB_FILL_PREFETCH;
                const uint64_t ppn = (vpn ^ 0x5000) + 1000 * asid;
                gmmu_tlb_fill_out a{}, b{};
                ASSERT_EQ(gmmu_tlb_fill_ex(fast.t, asid, vpn, ppn, GMMU_PTE_W, flags, 0, &a), GMMU_OK);
                ASSERT_EQ(gmmu_tlb_fill_ex(plain.t, asid, vpn, ppn, GMMU_PTE_W, flags, 0, &b), GMMU_OK);
                ASSERT_EQ(a.installed, b.installed) << "op " << i;
                ASSERT_EQ(a.nvictims, b.nvictims) << "op " << i;
                for (uint32_t v = 0; v < a.nvictims; v++) {
                    ASSERT_EQ(a.victims[v].vpn, b.victims[v].vpn) << "op " << i;
                    ASSERT_EQ(a.victims[v].asid, b.victims[v].asid) << "op " << i;
                }
            } else {
                const unsigned kind = unsigned(rng() % 20); // ASID flushes rarely: they empty the TLB
                switch (kind < 10 ? 0 : kind < 19 ? 1 : 2) {
                case 0:
                    gmmu_tlb_invalidate_page(fast.t, asid, vpn);
                    gmmu_tlb_invalidate_page(plain.t, asid, vpn);
                    break;
                case 1:
                    gmmu_tlb_invalidate_range(fast.t, asid, vpn << 12, (vpn + 7) << 12);
                    gmmu_tlb_invalidate_range(plain.t, asid, vpn << 12, (vpn + 7) << 12);
                    break;
                default:
                    gmmu_tlb_invalidate_asid(fast.t, asid);
                    gmmu_tlb_invalidate_asid(plain.t, asid);
                    break;
                }
            }
            ASSERT_EQ(gmmu_tlb_occupancy(fast.t), gmmu_tlb_occupancy(plain.t)) << "op " << i;
        }
        EXPECT_EQ(std::memcmp(&fast.st(), &plain.st(), sizeof(gmmu_tlb_stats)), 0) << "every counter";
        EXPECT_EQ(fast.st().hits, plain.st().hits);
        EXPECT_EQ(fast.st().evictions, plain.st().evictions);
        EXPECT_GT(fast.st().hits, 1000u) << "too few hits to compare";
    }
}

TEST(TlbFastPathTest, ServeHitDoesWhatAnswerAccessDoesOrNothing)
{
    // Two twins: `fast` asks gmmu_tlb_serve_hit first and gmmu_tlb_answer_access
    // only when it declines; `plain` always asks gmmu_tlb_answer_access. Every
    // answer, counter, victim (the replacement state's verdict) and LRU depth
    // must agree; serve_hit must serve every main-array hit whose access the
    // entry allows, and decline misses, walker decisions and large-page hits
    // without changing anything (the counters would differ).
    struct geo {
        uint32_t entries, ways, cov;
        gmmu_tlb_repl repl;
        bool large;
    };
    for (geo g : {geo{32, 32, 0, GMMU_TLB_REPL_LRU, false}, geo{512, 16, 0, GMMU_TLB_REPL_LRU, true},
                  geo{64, 4, 0, GMMU_TLB_REPL_PLRU, false}, geo{256, 8, 16, GMMU_TLB_REPL_LRU, false},
                  geo{128, 64, 0, GMMU_TLB_REPL_FIFO, true}, geo{96, 32, 0, GMMU_TLB_REPL_LRU, false}}) {
        gmmu_tlb_config c = cfg(g.entries, g.ways, g.repl);
        c.coverage_shift = g.cov;
        if (g.large)
            c.large[0] = {21, 8, 8};
        Tlb fast(c), plain(c);
        std::mt19937_64 rng(g.entries * 7 + g.ways);
        uint64_t served = 0, declined_hits = 0;
        for (int i = 0; i < 60000; i++) {
            const uint16_t asid = uint16_t(rng() % 2);
            const uint64_t vpn = 0x40000 + rng() % (g.entries * 2);
            const unsigned op = unsigned(rng() % 10);
            if (op < 6) {
                const unsigned access = unsigned(rng() % 4); // write and user bits
                gmmu_tlb_answer a{}, b{};
                gmmu_tlb_verdict va;
                const gmmu_tlb_stats before = fast.st();
                if (gmmu_tlb_serve_hit(fast.t, asid, vpn, access, &a)) {
                    va = a.verdict;
                    served++;
                } else {
                    ASSERT_EQ(std::memcmp(&before, &fast.st(), sizeof before), 0) << "declined, yet changed: op " << i;
                    va = gmmu_tlb_answer_access(fast.t, asid, vpn, access, false, &a);
                    declined_hits += va == GMMU_TLB_SERVED;
                }
                const gmmu_tlb_verdict vb = gmmu_tlb_answer_access(plain.t, asid, vpn, access, false, &b);
                ASSERT_EQ(va, vb) << "op " << i;
                ASSERT_EQ(a.ppn, b.ppn) << "op " << i;
                ASSERT_EQ(a.perms, b.perms) << "op " << i;
                ASSERT_EQ(a.ready, b.ready) << "op " << i;
                ASSERT_EQ(a.span_shift, b.span_shift) << "op " << i;
                ASSERT_EQ(a.page_shift, b.page_shift) << "op " << i;
                ASSERT_EQ(a.leaf_shift, b.leaf_shift) << "op " << i;
                ASSERT_EQ(a.lru_depth, b.lru_depth) << "op " << i;
            } else if (op < 9) {
                uint32_t flags = (g.cov && rng() % 2) ? GMMU_TLB_FILL_CONTIG : 0u;
                flags |= rng() % 5 == 0 ? GMMU_TLB_FILL_PREFETCH : 0u;
                uint64_t fv = vpn;
                if (g.large && rng() % 4 == 0) {
                    flags |= GMMU_TLB_FILL_LARGE(0);
                    fv = (0x40000 + (rng() % 8) * 512) | (vpn & 511);
                }
                const uint64_t perms = (rng() % 2 ? GMMU_PTE_W : 0) | (rng() % 3 ? GMMU_PTE_U : 0);
                const uint64_t ppn = (fv ^ 0x5000) + 4096 * asid;
                gmmu_tlb_fill_out a{}, b{};
                ASSERT_EQ(gmmu_tlb_fill_ex(fast.t, asid, fv, ppn, perms, flags, 0, &a), GMMU_OK);
                ASSERT_EQ(gmmu_tlb_fill_ex(plain.t, asid, fv, ppn, perms, flags, 0, &b), GMMU_OK);
                ASSERT_EQ(a.nvictims, b.nvictims) << "op " << i;
                for (uint32_t v = 0; v < a.nvictims; v++)
                    ASSERT_EQ(a.victims[v].vpn, b.victims[v].vpn) << "op " << i;
                if (rng() % 4 == 0) { // a fill still on its way
                    const uint64_t ready = 1000 + uint64_t(i);
                    ASSERT_EQ(gmmu_tlb_set_ready(fast.t, asid, fv, ready), gmmu_tlb_set_ready(plain.t, asid, fv, ready));
                }
            } else {
                gmmu_tlb_invalidate_page(fast.t, asid, vpn);
                gmmu_tlb_invalidate_page(plain.t, asid, vpn);
            }
        }
        EXPECT_EQ(std::memcmp(&fast.st(), &plain.st(), sizeof(gmmu_tlb_stats)), 0) << "every counter";
        const bool takes = gmmu_tlb_fast_path(fast.t);
        if (takes) {
            EXPECT_GT(served, 5000u) << g.entries << "x" << g.ways;
            if (!g.large) {
                EXPECT_EQ(declined_hits, 0u) << "a served main-array hit was declined";
            }
        } else {
            EXPECT_EQ(served, 0u) << "the general geometry never takes it";
        }
    }
}

// gmmu_tlb_fill_ready is gmmu_tlb_fill_ex followed by gmmu_tlb_set_ready,
// whatever the fill does: one entry written, a coverage group, a large-page
// array, a redundant prefetch, a stale fill dropped. Twins, one per way of
// doing it; every later answer (its ready time included), victim and
// counter must agree.
TEST(TlbFillReadyTest, FillReadyIsFillThenSetReady)
{
    struct geo {
        uint32_t entries, ways, cov;
        bool large;
        bool general;
    };
    for (geo g : {geo{32, 32, 0, false, false}, geo{512, 16, 0, true, false}, geo{256, 8, 16, false, false},
                  geo{96, 32, 0, false, false}, geo{64, 4, 0, true, true}}) {
        gmmu_tlb_config c = cfg(g.entries, g.ways);
        c.coverage_shift = g.cov;
        if (g.large)
            c.large[0] = {21, 8, 8};
        Tlb fused(c), plain(c);
        if (g.general) {
            ASSERT_EQ(gmmu_tlb_use_general_path(fused.t), GMMU_OK);
            ASSERT_EQ(gmmu_tlb_use_general_path(plain.t), GMMU_OK);
        }
        std::mt19937_64 rng(g.entries * 5 + g.ways);
        uint64_t ready_hits = 0;
        for (int i = 0; i < 40000; i++) {
            const uint16_t asid = uint16_t(rng() % 2);
            const uint64_t vpn = 0x40000 + rng() % (g.entries * 2);
            const unsigned op = unsigned(rng() % 10);
            if (op < 5) {
                gmmu_tlb_answer a{}, b{};
                const gmmu_tlb_verdict va = gmmu_tlb_answer_access(fused.t, asid, vpn, 0, false, &a);
                const gmmu_tlb_verdict vb = gmmu_tlb_answer_access(plain.t, asid, vpn, 0, false, &b);
                ASSERT_EQ(va, vb) << "op " << i;
                ASSERT_EQ(a.ppn, b.ppn) << "op " << i;
                ASSERT_EQ(a.ready, b.ready) << "op " << i;
                ASSERT_EQ(a.lru_depth, b.lru_depth) << "op " << i;
                ready_hits += va == GMMU_TLB_SERVED && a.ready != 0;
            } else if (op < 9) {
                uint32_t flags = (g.cov && rng() % 2) ? GMMU_TLB_FILL_CONTIG : 0u;
                flags |= rng() % 6 == 0 ? GMMU_TLB_FILL_PREFETCH : 0u;
                flags |= rng() % 2 ? GMMU_TLB_FILL_CHECK_GEN : 0u;
                uint64_t fv = vpn;
                if (g.large && rng() % 4 == 0) {
                    flags |= GMMU_TLB_FILL_LARGE(0);
                    fv = (0x40000 + (rng() % 8) * 512) | (vpn & 511);
                }
                const uint64_t gen = gmmu_tlb_generation(plain.t) - (rng() % 5 == 0 ? 1 : 0); // some stale
                const uint64_t ppn = (fv ^ 0x5000) + 4096 * asid;
                const uint64_t ready = rng() % 3 ? 0 : 1000 + uint64_t(i);
                gmmu_tlb_fill_out a{}, b{};
                ASSERT_EQ(gmmu_tlb_fill_ready(fused.t, asid, fv, ppn, GMMU_PTE_W, flags, gen, ready, &a), GMMU_OK);
                ASSERT_EQ(gmmu_tlb_fill_ex(plain.t, asid, fv, ppn, GMMU_PTE_W, flags, gen, &b), GMMU_OK);
                if (ready)
                    gmmu_tlb_set_ready(plain.t, asid, fv, ready);
                ASSERT_EQ(a.dropped, b.dropped) << "op " << i;
                ASSERT_EQ(a.installed, b.installed) << "op " << i;
                ASSERT_EQ(a.nvictims, b.nvictims) << "op " << i;
                for (uint32_t v = 0; v < a.nvictims; v++)
                    ASSERT_EQ(a.victims[v].vpn, b.victims[v].vpn) << "op " << i;
            } else {
                gmmu_tlb_invalidate_page(fused.t, asid, vpn);
                gmmu_tlb_invalidate_page(plain.t, asid, vpn);
            }
        }
        EXPECT_EQ(std::memcmp(&fused.st(), &plain.st(), sizeof(gmmu_tlb_stats)), 0) << "every counter";
        EXPECT_GT(ready_hits, 500u) << "too few hits on entries still on their way";
    }
}

// ---- large-page arrays ---------------------------------------------------------

namespace {
gmmu_tlb_config mixed_cfg()
{
    gmmu_tlb_config c = cfg(16, 4);
    c.large[0] = {21, 4, 4}; // 2 MiB, fully associative
    c.large[1] = {30, 2, 2}; // 1 GiB
    return c;
}
constexpr uint64_t k2m = 512, k1g = 512 * 512; // TLB pages per large page
} // namespace

TEST(TlbLargePageTest, PagesOfThreeSizesLiveSideBySide)
{
    Tlb tl(mixed_cfg());
    uint32_t f = 0;
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 12, 0, &f));
    EXPECT_EQ(f, 0u);
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 21, 0, &f));
    EXPECT_EQ(f, GMMU_TLB_FILL_LARGE(0));
    EXPECT_TRUE(gmmu_tlb_fill_plan(tl.t, 30, 0, &f));
    EXPECT_EQ(f, GMMU_TLB_FILL_LARGE(1));
    // Without a 1 GiB array, a 1 GiB page is cached as 2 MiB pieces that
    // remember their leaf.
    gmmu_tlb_config no1g = mixed_cfg();
    no1g.large[1] = {};
    Tlb two(no1g);
    EXPECT_TRUE(gmmu_tlb_fill_plan(two.t, 30, 0, &f));
    EXPECT_EQ(f, GMMU_TLB_FILL_LARGE(0) | GMMU_TLB_FILL_LEAF(30));
    const uint64_t rw = GMMU_PTE_W | GMMU_PTE_U;
    // A 4 KiB page, a 2 MiB page (filled from an address inside it) and a
    // 1 GiB page.
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, 0x10, 0x90, rw, 0, 0, nullptr), GMMU_OK);
    const uint64_t v2 = 3 * k2m, p2 = 40 * k2m;
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, v2 + 7, p2 + 7, rw, GMMU_TLB_FILL_LARGE(0), 0, nullptr),
              GMMU_OK);
    const uint64_t v1 = 5 * k1g, p1 = 2 * k1g;
    ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, v1 + 12345, p1 + 12345, rw, GMMU_TLB_FILL_LARGE(1), 0,
                               nullptr),
              GMMU_OK);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 3u);
    gmmu_tlb_result r;
    gmmu_tlb_lookup(tl.t, 1, 0x10, &r);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.page_shift, 12);
    for (uint64_t off : {uint64_t(0), uint64_t(1), uint64_t(300), k2m - 1}) {
        gmmu_tlb_lookup(tl.t, 1, v2 + off, &r);
        ASSERT_TRUE(r.hit) << off;
        EXPECT_EQ(r.ppn, p2 + off);
        EXPECT_EQ(r.page_shift, 21);
    }
    gmmu_tlb_lookup(tl.t, 1, v2 + k2m, &r);
    EXPECT_FALSE(r.hit) << "the next 2 MiB page";
    gmmu_tlb_lookup(tl.t, 2, v2, &r);
    EXPECT_FALSE(r.hit) << "another ASID";
    for (uint64_t off : {uint64_t(0), k2m + 3, k1g - 1}) {
        gmmu_tlb_lookup(tl.t, 1, v1 + off, &r);
        ASSERT_TRUE(r.hit) << off;
        EXPECT_EQ(r.ppn, p1 + off);
        EXPECT_EQ(r.page_shift, 30);
    }
    EXPECT_EQ(tl.st().hits, 1u + 4u + 3u);
    EXPECT_EQ(tl.st().misses, 2u);
    // A probe and a debug answer report the large entry in TLB pages.
    gmmu_tlb_entry e;
    ASSERT_TRUE(gmmu_tlb_probe(tl.t, 1, v2 + 9, &e));
    EXPECT_EQ(e.vpn, v2);
    EXPECT_EQ(e.ppn, p2);
    EXPECT_EQ(e.large_shift, 21);
    gmmu_tlb_answer a;
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, v2 + 9, GMMU_ACC_USER, true, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(a.ppn, p2 + 9);
    EXPECT_EQ(a.page_shift, 21);
    EXPECT_EQ(a.span_shift, 0) << "not a coverage entry";
    EXPECT_EQ(gmmu_tlb_answer_access(tl.t, 1, v1 + 1, GMMU_ACC_USER, false, &a), GMMU_TLB_SERVED);
    EXPECT_EQ(a.page_shift, 30);
}

TEST(TlbLargePageTest, InvalidationReachesEveryArray)
{
    Tlb tl(mixed_cfg());
    const uint64_t rw = GMMU_PTE_W | GMMU_PTE_U;
    auto fill_all = [&] {
        gmmu_tlb_fill_ex(tl.t, 1, 0x10, 0x90, rw, 0, 0, nullptr);
        gmmu_tlb_fill_ex(tl.t, 1, 3 * k2m, 40 * k2m, rw, GMMU_TLB_FILL_LARGE(0), 0, nullptr);
        gmmu_tlb_fill_ex(tl.t, 2, 5 * k1g, 2 * k1g, rw, GMMU_TLB_FILL_LARGE(1), 0, nullptr);
    };
    fill_all();
    EXPECT_TRUE(gmmu_tlb_invalidate_page(tl.t, 1, 3 * k2m + 100)) << "any page inside";
    EXPECT_FALSE(gmmu_tlb_probe(tl.t, 1, 3 * k2m, nullptr));
    EXPECT_TRUE(gmmu_tlb_probe(tl.t, 1, 0x10, nullptr));
    // A 4 KiB range inside the 1 GiB page drops it whole.
    const uint64_t va = (5 * k1g + 77) << 12;
    EXPECT_EQ(gmmu_tlb_invalidate_range(tl.t, 2, va, va + 4095), 1u);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 1u);
    fill_all();
    EXPECT_EQ(gmmu_tlb_invalidate_asid(tl.t, 1), 2u);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 1u);
    fill_all();
    EXPECT_EQ(gmmu_tlb_invalidate_range_all_asids(tl.t, 0, ~0ull), 3u);
    fill_all();
    const uint64_t gen = gmmu_tlb_generation(tl.t);
    gmmu_tlb_invalidate_all(tl.t);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 0u);
    // A fill that started before the invalidation is dropped, large or not.
    gmmu_tlb_fill_out out;
    gmmu_tlb_fill_ex(tl.t, 1, 3 * k2m, 40 * k2m, rw,
                     GMMU_TLB_FILL_LARGE(0) | GMMU_TLB_FILL_CHECK_GEN, gen, &out);
    EXPECT_TRUE(out.dropped);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 0u);
}

TEST(TlbLargePageTest, VictimsOfALargeArrayAreReportedInTlbPages)
{
    Tlb tl(mixed_cfg());
    gmmu_tlb_fill_out out;
    for (uint64_t k = 0; k < 5; k++)
        gmmu_tlb_fill_ex(tl.t, 0, k * k2m, (100 + k) * k2m, GMMU_PTE_U, GMMU_TLB_FILL_LARGE(0),
                         0, &out);
    ASSERT_EQ(out.nvictims, 1u) << "4 entries: the fifth fill evicts the LRU one";
    EXPECT_EQ(out.victims[0].vpn, 0u);
    EXPECT_EQ(out.victims[0].ppn, 100 * k2m);
    EXPECT_EQ(out.victims[0].span_shift, 9);
    EXPECT_EQ(out.victims[0].large_shift, 21);
    Tlb plain(cfg(16, 4));
    EXPECT_EQ(gmmu_tlb_fill_ex(plain.t, 0, 0, 0, 0, GMMU_TLB_FILL_LARGE(0), 0, nullptr),
              GMMU_EINVAL) << "no such array";
}

TEST(TlbLargePageTest, ConfigErrorsNameTheArrayAndField)
{
    gmmu_error err{};
    gmmu_tlb_config c = mixed_cfg();
    c.large[0].shift = 12;
    EXPECT_EQ(gmmu_tlb_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "large0.shift");
    c = mixed_cfg();
    c.large[1].shift = 21;
    EXPECT_EQ(gmmu_tlb_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "large1.shift") << "not above the previous array";
    c = mixed_cfg();
    c.large[0].ways = 8;
    EXPECT_EQ(gmmu_tlb_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "large0.ways");
    c = mixed_cfg();
    c.large[0].entries = 0;
    EXPECT_EQ(gmmu_tlb_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "large1.entries");
    c = mixed_cfg();
    EXPECT_EQ(gmmu_tlb_config_check(&c, &err), GMMU_OK);
}

// ---- an invalidation removes every piece of the leaf it touches ------------------
// A TLB with no array for a leaf's size caches it as pieces (4 KiB pieces of a
// 2 MiB page, 2 MiB pieces of a 1 GiB page). One invalidation by VA of any
// byte of the leaf, as Linux's SMMUv3 driver sends per block, must remove
// every piece, in every array, and leave other leaves alone.
TEST(TlbLeafTest, AnInvalidationOfOneByteOfALeafRemovesEveryPieceOfIt)
{
    for (bool general : {false, true}) {
        Tlb tl(cfg(64, 4));
        if (general) {
            ASSERT_EQ(gmmu_tlb_use_general_path(tl.t), GMMU_OK);
        }
        const uint64_t rw = GMMU_PTE_W | GMMU_PTE_U;
        const uint64_t leaf_va = 0x40200000ull, leaf_pa = 0x80000000ull;
        uint32_t flags = 0;
        ASSERT_TRUE(gmmu_tlb_fill_plan(tl.t, 21, 0, &flags));
        auto fill_pieces = [&] {
            for (uint64_t off : {0x0ull, 0x1000ull, 0x1ff000ull, 0x80000ull})
                ASSERT_EQ(gmmu_tlb_fill_ex(tl.t, 1, (leaf_va + off) >> 12, (leaf_pa + off) >> 12,
                                           rw, flags, 0, nullptr),
                          GMMU_OK);
            // Neighbours: the next 2 MiB page's piece, a 4 KiB page below,
            // and the same leaf's VA in another ASID.
            gmmu_tlb_fill_ex(tl.t, 1, (leaf_va + 0x200000) >> 12, 0x999, rw, flags, 0, nullptr);
            gmmu_tlb_fill_ex(tl.t, 1, (leaf_va - 0x1000) >> 12, 0x998, rw, 0, 0, nullptr);
            gmmu_tlb_fill_ex(tl.t, 2, (leaf_va + 0x1000) >> 12, 0x997, rw, flags, 0, nullptr);
            ASSERT_EQ(gmmu_tlb_occupancy(tl.t), 7u);
        };
        gmmu_tlb_entry e;
        fill_pieces();
        ASSERT_TRUE(gmmu_tlb_probe(tl.t, 1, (leaf_va + 0x1000) >> 12, &e));
        EXPECT_EQ(e.leaf_shift, 21) << "a 4 KiB piece remembers its 2 MiB leaf";
        // TLBI by VA of the leaf's first 4 KiB: the four pieces go.
        EXPECT_EQ(gmmu_tlb_invalidate_range(tl.t, 1, leaf_va, leaf_va + 0xfff), 4u) << general;
        for (uint64_t off : {0x0ull, 0x1000ull, 0x1ff000ull, 0x80000ull})
            EXPECT_FALSE(gmmu_tlb_probe(tl.t, 1, (leaf_va + off) >> 12, nullptr)) << off;
        EXPECT_TRUE(gmmu_tlb_probe(tl.t, 1, (leaf_va + 0x200000) >> 12, nullptr));
        EXPECT_TRUE(gmmu_tlb_probe(tl.t, 1, (leaf_va - 0x1000) >> 12, nullptr));
        EXPECT_TRUE(gmmu_tlb_probe(tl.t, 2, (leaf_va + 0x1000) >> 12, nullptr));
        // By a byte in the leaf's last page, of a page whose piece is absent.
        gmmu_tlb_invalidate_all(tl.t);
        fill_pieces();
        gmmu_tlb_invalidate_page(tl.t, 1, (leaf_va + 0x1fe000) >> 12);
        EXPECT_FALSE(gmmu_tlb_probe(tl.t, 1, leaf_va >> 12, nullptr));
        EXPECT_FALSE(gmmu_tlb_probe(tl.t, 1, (leaf_va + 0x1ff000) >> 12, nullptr));
        EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 3u);
        // Every ASID.
        gmmu_tlb_invalidate_all(tl.t);
        fill_pieces();
        EXPECT_EQ(gmmu_tlb_invalidate_range_all_asids(tl.t, leaf_va + 0x5000, leaf_va + 0x5fff),
                  5u);
    }
}

TEST(TlbLeafTest, PiecesOfAOneGigabytePageInTheTwoMegabyteArrayGoTogether)
{
    gmmu_tlb_config c = cfg(16, 4);
    c.large[0] = {21, 8, 8};
    Tlb tl(c);
    uint32_t flags = 0;
    ASSERT_TRUE(gmmu_tlb_fill_plan(tl.t, 30, 0, &flags));
    const uint64_t va = 0x80000000ull; // a 1 GiB page
    for (uint64_t k : {0ull, 1ull, 511ull})
        gmmu_tlb_fill_ex(tl.t, 0, (va + (k << 21)) >> 12, (0x40000000ull + (k << 21)) >> 12,
                         GMMU_PTE_W, flags, 0, nullptr);
    gmmu_tlb_fill_ex(tl.t, 0, (va + (1ull << 30)) >> 12, 0x1234, GMMU_PTE_W, flags, 0, nullptr);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 4u);
    gmmu_tlb_entry e;
    ASSERT_TRUE(gmmu_tlb_probe(tl.t, 0, (va + (1ull << 21)) >> 12, &e));
    EXPECT_EQ(e.large_shift, 21);
    EXPECT_EQ(e.leaf_shift, 30);
    EXPECT_EQ(gmmu_tlb_invalidate_range(tl.t, 0, va + 0x3000, va + 0x3fff), 3u);
    EXPECT_EQ(gmmu_tlb_occupancy(tl.t), 1u) << "the next 1 GiB page stays";
}

TEST(TlbLeafTest, AnAnswerCarriesTheLeafSizeToTheLevelAbove)
{
    Tlb tl(cfg(16, 4));
    uint32_t flags = 0;
    ASSERT_TRUE(gmmu_tlb_fill_plan(tl.t, 21, 0, &flags));
    gmmu_tlb_fill_ex(tl.t, 0, 0x40201, 0x80001, GMMU_PTE_W | GMMU_PTE_U, flags, 0, nullptr);
    gmmu_tlb_fill_ex(tl.t, 0, 0x7, 0x8, GMMU_PTE_W | GMMU_PTE_U, 0, 0, nullptr);
    for (bool debug : {true, false}) {
        gmmu_tlb_answer a;
        ASSERT_EQ(gmmu_tlb_answer_access(tl.t, 0, 0x40201, GMMU_ACC_USER, debug, &a),
                  GMMU_TLB_SERVED);
        EXPECT_EQ(a.page_shift, 12);
        EXPECT_EQ(a.leaf_shift, 21) << debug;
        ASSERT_EQ(gmmu_tlb_answer_access(tl.t, 0, 0x7, GMMU_ACC_USER, debug, &a), GMMU_TLB_SERVED);
        EXPECT_EQ(a.leaf_shift, 12) << "a whole 4 KiB leaf";
    }
    gmmu_tlb_entry e{};
    e.vpn = 0x40201;
    e.leaf_shift = 21;
    EXPECT_TRUE(gmmu_tlb_entry_in_range(&e, 12, 0x403ff000, 0x403ff000));
    EXPECT_FALSE(gmmu_tlb_entry_in_range(&e, 12, 0x40400000, 0x40400fff));
    e.leaf_shift = 0;
    EXPECT_FALSE(gmmu_tlb_entry_in_range(&e, 12, 0x40200000, 0x40200fff));
}
