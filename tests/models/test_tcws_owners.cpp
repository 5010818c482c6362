// TCWS's owner map of the L1 TLB (models/src/tcws_owners.c): who filled each
// entry, the one victim an access reports, and the flush past 4 x entries.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <vector>

extern "C" {
#include "gmmu/tcws_owners.h"
}

namespace {

using owners_ptr = std::unique_ptr<gmmu_tcws_owners, void (*)(gmmu_tcws_owners *)>;

owners_ptr make(uint32_t entries)
{
    gmmu_tcws_owners_config c{entries};
    gmmu_tcws_owners *o = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_tcws_owners_create(&c, &o, &err), GMMU_OK) << err.field << ": " << err.msg;
    return owners_ptr(o, &gmmu_tcws_owners_destroy);
}

gmmu_tlb_entry victim(uint16_t asid, uint64_t vpn)
{
    gmmu_tlb_entry e{};
    e.asid = asid;
    e.vpn = vpn;
    e.valid = true;
    return e;
}

// A fill with no victims.
void fill(gmmu_tcws_owners *o, uint16_t asid, uint64_t vpn, uint32_t owner)
{
    gmmu_tcws_victim v{};
    EXPECT_FALSE(gmmu_tcws_owners_fill(o, nullptr, 0, asid, vpn, true, owner, false, &v));
}

TEST(TcwsOwners, OwnerIdsAreBlockAndWarpWithinTheirFields)
{
    uint32_t id = 0;
    EXPECT_TRUE(gmmu_tcws_owner_of(3, 5, &id));
    EXPECT_EQ(id, 3u << 6 | 5u);
    EXPECT_TRUE(gmmu_tcws_owner_of((1u << 26) - 1, 63, &id));
    EXPECT_EQ(id, 0xffffffffu);
    EXPECT_FALSE(gmmu_tcws_owner_of(0, 64, &id));
    EXPECT_FALSE(gmmu_tcws_owner_of(1u << 26, 0, &id));
}

TEST(TcwsOwners, CreateRefusesABadEntryCount)
{
    gmmu_tcws_owners_config c{0};
    gmmu_tcws_owners *o = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_tcws_owners_create(&c, &o, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "tlb_entries");
    EXPECT_EQ(o, nullptr);
    gmmu_tcws_owners_destroy(nullptr);
}

TEST(TcwsOwners, AFillReportsItsFirstKnownVictimAndForgetsEveryVictim)
{
    auto o = make(16);
    fill(o.get(), 1, 0x10, 7);
    fill(o.get(), 1, 0x11, 8);
    fill(o.get(), 2, 0x10, 9); // another address space, same page number
    const gmmu_tlb_entry vs[] = {victim(1, 0x99), victim(1, 0x11), victim(1, 0x10)};
    gmmu_tcws_victim v{};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), vs, 3, 1, 0x20, true, 4, false, &v));
    EXPECT_EQ(v.vpn, 0x11u); // 0x99 had no known owner: the first known one
    EXPECT_EQ(v.owner, 8u);
    EXPECT_EQ(gmmu_tcws_owners_size(o.get()), 2u); // (2, 0x10) and the new (1, 0x20)
    // Both victims are forgotten: evicting them again reports nothing.
    const gmmu_tlb_entry again[] = {victim(1, 0x10), victim(1, 0x11)};
    EXPECT_FALSE(gmmu_tcws_owners_fill(o.get(), again, 2, 1, 0x21, true, 4, false, &v));
    // The other address space's page is still known, and the new page too.
    const gmmu_tlb_entry other[] = {victim(2, 0x10), victim(1, 0x20)};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), other, 2, 1, 0x22, true, 4, false, &v));
    EXPECT_EQ(v.owner, 9u);
}

TEST(TcwsOwners, AnAccessReportsOneVictimOnly)
{
    auto o = make(16);
    fill(o.get(), 1, 0x10, 7);
    fill(o.get(), 1, 0x11, 8);
    const gmmu_tlb_entry vs[] = {victim(1, 0x10)};
    gmmu_tcws_victim v{};
    v.owner = 1234;
    // This access reported a victim at an earlier fill: nothing new, yet forgotten.
    EXPECT_FALSE(gmmu_tcws_owners_fill(o.get(), vs, 1, 1, 0x30, true, 3, true, &v));
    EXPECT_EQ(v.owner, 1234u);
    EXPECT_FALSE(gmmu_tcws_owners_fill(o.get(), vs, 1, 1, 0x31, true, 3, false, &v));
}

TEST(TcwsOwners, ARefillTakesTheNewOwnerAndAnOwnerlessFillRecordsNothing)
{
    auto o = make(16);
    fill(o.get(), 1, 0x10, 7);
    fill(o.get(), 1, 0x10, 8);
    gmmu_tcws_victim v{};
    EXPECT_FALSE(gmmu_tcws_owners_fill(o.get(), nullptr, 0, 1, 0x40, false, 0, false, &v));
    EXPECT_EQ(gmmu_tcws_owners_size(o.get()), 1u);
    const gmmu_tlb_entry vs[] = {victim(1, 0x40), victim(1, 0x10)};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), vs, 2, 1, 0x41, false, 0, false, &v));
    EXPECT_EQ(v.vpn, 0x10u);
    EXPECT_EQ(v.owner, 8u);
}

TEST(TcwsOwners, TheMapIsEmptiedWhenAFillFindsItPastFourTimesTheEntries)
{
    auto o = make(2); // flushed when it holds more than 8 pages at a fill
    for (uint64_t p = 0; p < 9; p++)
        fill(o.get(), 1, p, uint32_t(p));
    EXPECT_EQ(gmmu_tcws_owners_size(o.get()), 9u); // 8 at the ninth fill: not past the limit
    fill(o.get(), 1, 100, 100);                   // 9 > 8: emptied, then 100 recorded
    EXPECT_EQ(gmmu_tcws_owners_size(o.get()), 1u);
    const gmmu_tlb_entry vs[] = {victim(1, 3), victim(1, 100)};
    gmmu_tcws_victim v{};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), vs, 2, 1, 101, true, 1, false, &v));
    EXPECT_EQ(v.vpn, 100u);
}

TEST(TcwsOwners, KeysCompareAsidBelowBit12AndVpnBelowBit52)
{
    auto o = make(16);
    fill(o.get(), 0x1001, 5, 77);
    const gmmu_tlb_entry vs[] = {victim(0x0001, 5 | (1ull << 52))};
    gmmu_tcws_victim v{};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), vs, 1, 1, 6, false, 0, false, &v));
    EXPECT_EQ(v.owner, 77u);
}

// White box: the table starts with 64 slots, a key's home slot is its
// Fibonacci hash (models/src/tcws_owners.c). A deletion at the last slot
// must leave an entry at slot 0 that is at its own home where it is.
TEST(TcwsOwners, ADeletionAtTheTableEndKeepsEntriesAtTheirHomeAfterTheWrap)
{
    auto home = [](uint64_t vpn) { return unsigned((vpn * 0x9E3779B97F4A7C15ull) >> 58); };
    uint64_t at_end = 0, at_zero = 0;
    while (home(at_end) != 63)
        at_end++;
    while (home(at_zero) != 0)
        at_zero++;
    auto o = make(1);
    fill(o.get(), 0, at_end, 1);
    fill(o.get(), 0, at_zero, 2);
    const gmmu_tlb_entry first[] = {victim(0, at_end)};
    gmmu_tcws_victim v{};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), first, 1, 0, at_end, false, 0, false, &v));
    const gmmu_tlb_entry second[] = {victim(0, at_zero)};
    ASSERT_TRUE(gmmu_tcws_owners_fill(o.get(), second, 1, 0, at_end, false, 0, false, &v));
    EXPECT_EQ(v.owner, 2u);
}

// Against a std::map with the same rules, on random traffic that grows the
// table and deletes across its wrap-around.
TEST(TcwsOwners, RandomTrafficMatchesAReferenceMap)
{
    const uint32_t entries = 64;
    auto o = make(entries);
    std::map<uint64_t, uint32_t> ref;
    std::mt19937_64 rng(42);
    auto key = [](uint16_t a, uint64_t p) { return uint64_t(a) << 52 | (p & ((1ull << 52) - 1)); };
    for (int step = 0; step < 200000; step++) {
        std::vector<gmmu_tlb_entry> vs;
        const unsigned nv = unsigned(rng() % 4);
        for (unsigned k = 0; k < nv; k++)
            vs.push_back(victim(uint16_t(rng() % 3), rng() % 400));
        const uint16_t asid = uint16_t(rng() % 3);
        const uint64_t vpn = rng() % 400;
        const bool has = rng() % 8 != 0, reported = rng() % 4 == 0;
        const uint32_t owner = uint32_t(rng());
        // the reference
        bool want = false;
        gmmu_tcws_victim wv{};
        for (auto &e : vs) {
            auto it = ref.find(key(e.asid, e.vpn));
            if (it == ref.end())
                continue;
            if (!reported && !want) {
                want = true;
                wv = {e.vpn, it->second};
            }
            ref.erase(it);
        }
        if (ref.size() > 4u * entries)
            ref.clear();
        if (has)
            ref[key(asid, vpn)] = owner;
        gmmu_tcws_victim v{};
        const bool got = gmmu_tcws_owners_fill(o.get(), vs.data(), uint32_t(vs.size()), asid, vpn,
                                               has, owner, reported, &v);
        ASSERT_EQ(got, want) << "step " << step;
        if (got) {
            ASSERT_EQ(v.vpn, wv.vpn) << "step " << step;
            ASSERT_EQ(v.owner, wv.owner) << "step " << step;
        }
        ASSERT_EQ(gmmu_tcws_owners_size(o.get()), ref.size()) << "step " << step;
    }
}

} // namespace
