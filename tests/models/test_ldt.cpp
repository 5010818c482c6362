// Unit tests of the PICLE/Valkyrie Locality Detection Table (models/src/ldt.c)
// and of its use with the TLB model's prefetch counters.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "gmmu/ldt.h"
#include "gmmu/tlb.h"
}

namespace {

gmmu_ldt_config lcfg(uint32_t entries, uint32_t ways, uint32_t cus, uint32_t tag_bits = 16)
{
    gmmu_ldt_config c{};
    c.entries = entries;
    c.ways = ways;
    c.cus = cus;
    c.tag_bits = tag_bits;
    c.seed = 42;
    c.lookup_cycles = 3;
    c.update_cycles = 1;
    return c;
}

struct Ldt {
    gmmu_ldt *l = nullptr;
    explicit Ldt(const gmmu_ldt_config &c)
    {
        gmmu_error err{};
        EXPECT_EQ(gmmu_ldt_create(&c, &l, &err), GMMU_OK) << err.field << ": " << err.msg;
    }
    ~Ldt() { gmmu_ldt_destroy(l); }
    Ldt(const Ldt &) = delete;
    Ldt &operator=(const Ldt &) = delete;
    void touch(uint64_t vpn, uint32_t cu, uint16_t asid = 0)
    {
        EXPECT_EQ(gmmu_ldt_update(l, asid, vpn, cu, nullptr), GMMU_OK);
    }
    std::vector<uint32_t> evict(uint64_t vpn, uint16_t asid = 0)
    {
        std::vector<uint32_t> cus(l->cfg.cus);
        uint32_t n = 99;
        EXPECT_EQ(gmmu_ldt_on_evict(l, asid, vpn, cus.data(), l->cfg.cus, &n, nullptr), GMMU_OK);
        cus.resize(n);
        return cus;
    }
};

std::string bad_field(gmmu_ldt_config c)
{
    gmmu_error err{};
    return gmmu_ldt_config_check(&c, &err) == GMMU_OK ? "(accepted)" : err.field;
}

TEST(LdtTest, ConfigValidationNamesTheBadField)
{
    EXPECT_EQ(bad_field(lcfg(64, 4, 64)), "(accepted)");
    EXPECT_EQ(bad_field(lcfg(0, 1, 64)), "entries");
    EXPECT_EQ(bad_field(lcfg(64, 5, 64)), "ways");
    EXPECT_EQ(bad_field(lcfg(64, 4, 0)), "cus");
    EXPECT_EQ(bad_field(lcfg(64, 4, 2000)), "cus");
    EXPECT_EQ(bad_field(lcfg(64, 4, 64, 33)), "tag_bits");
    auto c = lcfg(64, 4, 64);
    c.update_cycles = 2000000;
    EXPECT_EQ(bad_field(c), "update_cycles");
    gmmu_ldt *l = nullptr;
    EXPECT_EQ(gmmu_ldt_create(nullptr, &l, nullptr), GMMU_EINVAL);
    EXPECT_EQ(l, nullptr);
}

TEST(LdtTest, EveryL1AccessAddsItsCuToThePageBitmap)
{
    Ldt t(lcfg(64, 4, 100));
    for (uint32_t cu : {3u, 0u, 63u, 64u, 99u, 3u})
        t.touch(0x1234, cu);
    EXPECT_EQ(t.evict(0x1234), (std::vector<uint32_t>{0, 3, 63, 64, 99}));
    EXPECT_EQ(t.l->st.updates, 6u);
    EXPECT_EQ(t.l->st.update_hits, 5u);
    EXPECT_EQ(t.l->st.allocations, 1u);
    EXPECT_EQ(t.l->st.pushes, 5u);
    EXPECT_EQ(t.l->st.lookup_hits, 1u);
    // The entry stays after the eviction lookup.
    EXPECT_EQ(t.evict(0x1234).size(), 5u);
    // Pages and address spaces are tracked apart.
    t.touch(0x1235, 7);
    t.touch(0x1234, 8, 1);
    EXPECT_EQ(t.evict(0x1235), (std::vector<uint32_t>{7}));
    EXPECT_EQ(t.evict(0x1234, 1), (std::vector<uint32_t>{8}));
    EXPECT_EQ(gmmu_ldt_update(t.l, 0, 1, 100, nullptr), GMMU_EINVAL); // CU out of range
}

TEST(LdtTest, EvictionOfAnUntrackedPagePushesNothing)
{
    Ldt t(lcfg(16, 4, 8));
    t.touch(5, 1);
    uint32_t cycles = 0, n = 9;
    std::vector<uint32_t> cus(8);
    EXPECT_EQ(gmmu_ldt_on_evict(t.l, 0, 6, cus.data(), 8, &n, &cycles), GMMU_OK);
    EXPECT_EQ(n, 0u);
    EXPECT_EQ(cycles, 3u);
    EXPECT_EQ(t.l->st.lookups, 1u);
    EXPECT_EQ(t.l->st.lookup_hits, 0u);
    EXPECT_EQ(gmmu_ldt_on_evict(t.l, 0, 5, cus.data(), 7, &n, nullptr), GMMU_EINVAL); // cap < cus
}

TEST(LdtTest, LruReplacementForgetsTheLeastRecentPage)
{
    Ldt t(lcfg(4, 4, 8)); // fully associative
    for (uint64_t p = 0; p < 4; p++)
        t.touch(100 + p, uint32_t(p));
    t.touch(100, 5); // page 100 becomes most recent
    t.touch(200, 6); // replaces page 101
    EXPECT_EQ(t.l->st.replacements, 1u);
    EXPECT_TRUE(t.evict(101).empty());
    EXPECT_EQ(t.evict(100), (std::vector<uint32_t>{0, 5}));
    EXPECT_EQ(t.evict(200), (std::vector<uint32_t>{6}));
    // A replaced entry starts with an empty bitmap.
    t.touch(101, 7);
    EXPECT_EQ(t.evict(101), (std::vector<uint32_t>{7}));
}

// The tag is a hash cut to tag_bits: with a 1-bit tag and one entry, some
// other page matches page A's entry and inherits its sharers; with 32 bits
// it does not.
TEST(LdtTest, HashedTagsAliasAndAreCounted)
{
    Ldt narrow(lcfg(1, 1, 8, 1));
    narrow.touch(0xA, 2);
    uint64_t other = 0;
    for (uint64_t v = 0xB; v < 0x100 && !other; v++)
        if (!narrow.evict(v).empty())
            other = v;
    ASSERT_NE(other, 0u);
    EXPECT_EQ(narrow.evict(other), (std::vector<uint32_t>{2}));
    EXPECT_GE(narrow.l->st.alias_hits, 1u);

    Ldt wide(lcfg(1, 1, 8, 32));
    wide.touch(0xA, 2);
    EXPECT_TRUE(wide.evict(other).empty());
    EXPECT_EQ(wide.l->st.alias_hits, 0u);
}

TEST(LdtTest, SharersExcludeSelfAndChangeNothing)
{
    Ldt t(lcfg(16, 4, 8));
    t.touch(9, 1);
    t.touch(9, 2);
    t.touch(9, 5);
    const gmmu_ldt_stats before = t.l->st;
    std::vector<uint32_t> cus(8);
    uint32_t n = 0;
    ASSERT_EQ(gmmu_ldt_sharers(t.l, 0, 9, 2, cus.data(), 8, &n), GMMU_OK);
    cus.resize(n);
    EXPECT_EQ(cus, (std::vector<uint32_t>{1, 5}));
    EXPECT_EQ(std::memcmp(&before, &t.l->st, sizeof before), 0);
    gmmu_ldt_clear(t.l);
    EXPECT_TRUE(t.evict(9).empty());
}

TEST(LdtTest, StorageBitsCountTagBitmapValidAndLru)
{
    auto c = lcfg(64, 4, 64, 16);
    EXPECT_EQ(gmmu_ldt_storage_bits(&c), 64u * (1 + 16 + 64 + 2));
    c = lcfg(16, 1, 64, 12);
    EXPECT_EQ(gmmu_ldt_storage_bits(&c), 16u * (1 + 12 + 64));
}

// A small PICLE machine (garg-picle's geometry: L1 TLB 4 sets x 1
// way per CU, shared L2 TLB 16 sets x 1 way) driving the LDT.
struct Picle {
    std::vector<gmmu_tlb *> l1;
    gmmu_tlb *l2 = nullptr;
    Ldt ldt;
    bool prefetch;
    explicit Picle(uint32_t cus, bool on) : l1(cus), ldt(lcfg(64, 4, cus)), prefetch(on)
    {
        gmmu_tlb_config c{};
        c.page_shift = 12;
        c.entries = 4;
        c.ways = 1;
        for (auto &t : l1)
            EXPECT_EQ(gmmu_tlb_create(&c, &t, nullptr), GMMU_OK);
        c.entries = 16;
        EXPECT_EQ(gmmu_tlb_create(&c, &l2, nullptr), GMMU_OK);
    }
    ~Picle()
    {
        for (auto &t : l1)
            gmmu_tlb_destroy(t);
        gmmu_tlb_destroy(l2);
    }
    // Returns whether the L1 TLB of `cu` hit.
    bool access(uint32_t cu, uint64_t vpn)
    {
        const uint64_t ppn = vpn + 0x10000;
        if (prefetch)
            ldt.touch(vpn, cu);
        gmmu_tlb_result r{};
        gmmu_tlb_lookup(l1[cu], 0, vpn, &r);
        if (r.hit)
            return true;
        gmmu_tlb_lookup(l2, 0, vpn, &r);
        if (!r.hit) {
            gmmu_tlb_fill_out out{};
            gmmu_tlb_fill_ex(l2, 0, vpn, ppn, 0, 0, 0, &out);
            for (uint32_t v = 0; prefetch && v < out.nvictims; v++)
                for (uint32_t target : ldt.evict(out.victims[v].vpn))
                    gmmu_tlb_fill_ex(l1[target], 0, out.victims[v].vpn, out.victims[v].ppn,
                                     out.victims[v].perms, GMMU_TLB_FILL_PREFETCH, 0, nullptr);
        }
        gmmu_tlb_fill_ex(l1[cu], 0, vpn, ppn, 0, 0, 0, nullptr);
        return false;
    }
};

TEST(LdtTest, PushAfterL2EvictionTurnsAPeerL1MissIntoAHit)
{
    const uint64_t P = 0x40;
    for (bool on : {false, true}) {
        Picle m(4, on);
        m.access(0, P);
        m.access(1, P);
        m.access(1, P + 4);  // CU1's L1 loses P (same set)
        m.access(0, P + 16); // L2 loses P (same set): the LDT pushes P to CUs 0 and 1
        bool hit = m.access(1, P);
        EXPECT_EQ(hit, on);
        if (on) {
            EXPECT_EQ(m.ldt.l->st.pushes, 2u);
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_fills, 1u);
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[0])->prefetch_redundant, 1u); // CU0 still had P
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_hits, 1u);      // used before eviction
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_victim_useful, 0u);
        }
    }
}

// Pollution: the push replaces an entry CU1 was reusing; CU1 then misses on
// it, and the pushed translation is evicted unused.
TEST(LdtTest, PushIntoAFullL1CanEvictAUsefulEntry)
{
    const uint64_t P = 0x40;
    uint32_t misses[2] = {0, 0};
    for (bool on : {false, true}) {
        Picle m(4, on);
        m.access(1, P);
        m.access(1, P + 4);
        m.access(1, P + 4); // a hit: P+4 is useful
        m.access(0, P + 16);
        misses[on] += !m.access(1, P + 4);
        m.access(1, P + 8); // same L1 set again
        if (on) {
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_fills, 1u);
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_victim_useful, 1u);
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_evicted_unused, 1u);
            EXPECT_EQ(gmmu_tlb_stats_of(m.l1[1])->prefetch_hits, 0u);
        }
    }
    EXPECT_EQ(misses[0], 0u);
    EXPECT_EQ(misses[1], 1u);
}

} // namespace
