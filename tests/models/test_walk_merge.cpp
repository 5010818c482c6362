// Unit tests of the walks-in-flight table (models/src/walk_merge.c): a
// request merges into a walk of the page that walk actually translated, of
// any size, in its own context only, while the walk is in flight; writes to
// read-only or clean pages walk themselves; invalidation drops what it covers.
#include <gtest/gtest.h>

#include <map>
#include <random>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/walk_merge.h"
}

namespace {

struct Table {
    gmmu_walk_merge *m = nullptr;
    explicit Table(uint32_t slots = 4096)
    {
        const gmmu_wm_config c{slots};
        gmmu_error err{};
        EXPECT_EQ(gmmu_wm_create(&c, &m, &err), GMMU_OK) << err.field;
    }
    ~Table() { gmmu_wm_destroy(m); }
    Table(const Table &) = delete;
    Table &operator=(const Table &) = delete;
};

constexpr uint64_t RW = GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_A | GMMU_PTE_D;

gmmu_wm_walk walk(uint64_t va, uint64_t pa, unsigned shift, uint64_t perms = RW)
{
    gmmu_wm_walk w{};
    w.va = va;
    w.pa = pa;
    w.page_shift = uint8_t(shift);
    w.perms = perms;
    w.contig_log2 = 3;
    return w;
}

void record(Table &t, uint16_t asid, uint64_t root, gmmu_wm_walk w, uint64_t ready)
{
    gmmu_wm_record(t.m, asid, root, &w, ready);
}

} // namespace

TEST(WalkMergeTest, MergesIntoAWalkOfTheSamePageWhileInFlight)
{
    Table t;
    record(t, 1, 0x1000, walk(0x7000'0000'1234, 0x5'0000'1234, 12), 100);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    ASSERT_TRUE(gmmu_wm_merge(t.m, 1, 0x1000, 0x7000'0000'1ff8, false, 50, &out, &ready));
    EXPECT_EQ(ready, 100u);
    EXPECT_EQ(out.va, 0x7000'0000'1ff8u) << "the requester keeps its own VA";
    EXPECT_EQ(out.pa, 0x5'0000'1ff8u);
    EXPECT_EQ(out.page_shift, 12);
    EXPECT_EQ(out.contig_log2, 3);
    // Not once the walk is ready, not for the next page.
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 0x1000, 0x7000'0000'1000, false, 100, &out, &ready));
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 0x1000, 0x7000'0000'2000, false, 50, &out, &ready));
    EXPECT_EQ(t.m->st.merges, 1u);
}

TEST(WalkMergeTest, LargePagesMergeAnywhereInsideThem)
{
    Table t;
    // A 2 MiB walk and a 1 GiB walk: any 4 KiB page inside them merges.
    record(t, 2, 0x2000, walk(0x7f00'0020'0000, 0x4000'0000, 21), 500);
    record(t, 2, 0x2000, walk(0x7e00'4000'0000, 0x8000'0000, 30), 500);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    ASSERT_TRUE(gmmu_wm_merge(t.m, 2, 0x2000, 0x7f00'003f'f010, false, 10, &out, &ready));
    EXPECT_EQ(out.pa, 0x4000'0000u + 0x1f'f010);
    EXPECT_EQ(out.page_shift, 21);
    ASSERT_TRUE(gmmu_wm_merge(t.m, 2, 0x2000, 0x7e00'7fff'fff8, false, 10, &out, &ready));
    EXPECT_EQ(out.pa, 0x8000'0000u + 0x3fff'fff8);
    EXPECT_EQ(out.page_shift, 30);
    EXPECT_FALSE(gmmu_wm_merge(t.m, 2, 0x2000, 0x7f00'0040'0000, false, 10, &out, &ready))
        << "the next 2 MiB page";
}

TEST(WalkMergeTest, NeverAcrossContexts)
{
    Table t;
    record(t, 1, 0x1000, walk(0x40'0000, 0x9000, 12), 100);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    EXPECT_FALSE(gmmu_wm_merge(t.m, 2, 0x1000, 0x40'0000, false, 0, &out, &ready)) << "other ASID";
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 0x3000, 0x40'0000, false, 0, &out, &ready)) << "other root";
    EXPECT_TRUE(gmmu_wm_merge(t.m, 1, 0x1000, 0x40'0000, false, 0, &out, &ready));
}

TEST(WalkMergeTest, WritesToReadOnlyOrCleanPagesWalkThemselves)
{
    Table t;
    const uint64_t ro = RW & ~GMMU_PTE_W, clean = RW & ~GMMU_PTE_D;
    record(t, 1, 1, walk(0x1000, 0xa000, 12, ro), 100);
    record(t, 1, 1, walk(0x2000, 0xb000, 12, clean), 100);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 1, 0x1000, true, 0, &out, &ready));
    EXPECT_TRUE(gmmu_wm_merge(t.m, 1, 1, 0x1000, false, 0, &out, &ready));
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 1, 0x2000, true, 0, &out, &ready));
    EXPECT_TRUE(gmmu_wm_merge(t.m, 1, 1, 0x2000, false, 0, &out, &ready));
}

TEST(WalkMergeTest, AnUnprivilegedRequestNeverMergesIntoASupervisorWalk)
{
    Table t;
    record(t, 1, 0x1000, walk(0x4000, 0x9000, 12, RW & ~GMMU_PTE_U), 100);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 0x1000, 0x4008, GMMU_ACC_USER, 50, &out, &ready));
    EXPECT_TRUE(gmmu_wm_merge(t.m, 1, 0x1000, 0x4008, 0, 50, &out, &ready))
        << "a privileged request of the same context may";
}

TEST(WalkMergeTest, InvalidationDropsWhatItCoversOnly)
{
    Table t;
    record(t, 1, 1, walk(0x20'0000, 0xa0'0000, 21), 100);
    record(t, 1, 1, walk(0x80'0000, 0xb000, 12), 100);
    record(t, 2, 1, walk(0x80'0000, 0xc000, 12), 100);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    // A range inside the 2 MiB page drops that page's walk.
    gmmu_wm_invalidate(t.m, true, 0, 0x30'0000, 0x30'0fff);
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 1, 0x20'0000, false, 0, &out, &ready));
    // ASID 1 only: ASID 2's walk of the same page stays.
    gmmu_wm_invalidate(t.m, false, 1, 0, ~0ull);
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 1, 0x80'0000, false, 0, &out, &ready));
    EXPECT_TRUE(gmmu_wm_merge(t.m, 2, 1, 0x80'0000, false, 0, &out, &ready));
    EXPECT_EQ(t.m->st.invalidated, 2u);
    gmmu_wm_clear(t.m);
    EXPECT_FALSE(gmmu_wm_merge(t.m, 2, 1, 0x80'0000, false, 0, &out, &ready));
}

TEST(WalkMergeTest, AgreesWithAPlainListOfWalksOnRandomTraffic)
{
    // Reference: every recorded walk kept; a merge must find a live walk of
    // the request's page and context, and must give exactly its outcome. The
    // table may miss a merge (a slot overwritten) but never invent one.
    Table t(64);
    struct ref_walk { uint16_t asid; uint64_t root; gmmu_wm_walk w; uint64_t ready; };
    std::vector<ref_walk> ref;
    std::mt19937_64 rng(7);
    uint64_t now = 0, merges = 0;
    for (int i = 0; i < 20000; i++) {
        now += rng() % 4;
        const uint16_t asid = uint16_t(rng() % 3);
        const uint64_t root = 0x1000 * (1 + rng() % 2);
        const unsigned shift = (rng() % 4 == 0) ? 21 : 12;
        const uint64_t va = (rng() % (1ull << 26)) & ~7ull;
        if (rng() % 2) {
            const uint64_t page = va & ~((1ull << shift) - 1);
            gmmu_wm_walk w = walk(va, (page ^ 0x5550'0000'0000ull) | (va & ((1ull << shift) - 1)), shift);
            const uint64_t ready = now + 1 + rng() % 50;
            record(t, asid, root, w, ready);
            ref.push_back({asid, root, w, ready});
        } else {
            gmmu_wm_walk out{};
            uint64_t ready = 0;
            if (!gmmu_wm_merge(t.m, asid, root, va, false, now, &out, &ready))
                continue;
            merges++;
            bool found = false;
            for (auto it = ref.rbegin(); it != ref.rend() && !found; ++it) {
                const unsigned s = it->w.page_shift;
                if (it->asid == asid && it->root == root && (it->w.va >> s) == (va >> s) &&
                    it->ready == ready && it->ready > now) {
                    found = true;
                    EXPECT_EQ(out.pa, (it->w.pa & ~((1ull << s) - 1)) | (va & ((1ull << s) - 1)));
                    EXPECT_EQ(out.page_shift, s);
                }
            }
            EXPECT_TRUE(found) << "merged into a walk that is not in flight for this page and context";
        }
    }
    EXPECT_GT(merges, 100u);
}

TEST(WalkMergeTest, OverwritesCountOnlyAnotherWalksSlot)
{
    // Two slots: of three different walks, at least one lands on a slot
    // another holds (an overwrite); recording a walk over its own slot, or
    // over a slot emptied by an invalidation, is not one.
    Table t(2);
    record(t, 1, 0x1000, walk(0x10000, 0x90000, 12), 10);
    record(t, 1, 0x1000, walk(0x10000, 0x90000, 12), 20);
    EXPECT_EQ(t.m->st.overwrites, 0u);
    record(t, 1, 0x1000, walk(0x20000, 0xA0000, 12), 10);
    record(t, 1, 0x1000, walk(0x30000, 0xB0000, 12), 10);
    EXPECT_GE(t.m->st.overwrites, 1u);
    const uint64_t before = t.m->st.overwrites;
    gmmu_wm_invalidate(t.m, true, 0, 0, ~0ull);
    EXPECT_GE(t.m->st.invalidated, 1u);
    record(t, 1, 0x1000, walk(0x20000, 0xA0000, 12), 10);
    EXPECT_EQ(t.m->st.overwrites, before);
    gmmu_wm_walk out{};
    uint64_t ready = 0;
    ASSERT_TRUE(gmmu_wm_merge(t.m, 1, 0x1000, 0x20008, 0, 5, &out, &ready));
    EXPECT_EQ(out.pa, 0xA0008u);
    // The same page in another context (ASID or table root): no merge.
    EXPECT_FALSE(gmmu_wm_merge(t.m, 2, 0x1000, 0x20008, 0, 5, &out, &ready));
    EXPECT_FALSE(gmmu_wm_merge(t.m, 1, 0x2000, 0x20008, 0, 5, &out, &ready));
}

TEST(WalkMergeTest, RefusesABadSize)
{
    gmmu_walk_merge *m = nullptr;
    gmmu_error err{};
    const gmmu_wm_config c{3000};
    EXPECT_EQ(gmmu_wm_create(&c, &m, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "slots");
    EXPECT_EQ(m, nullptr);
    EXPECT_EQ(gmmu_wm_create(nullptr, &m, &err), GMMU_EINVAL);
}
