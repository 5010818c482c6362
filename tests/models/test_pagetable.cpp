#include <gtest/gtest.h>

#include <random>

#include "test_mem.h"

namespace {

struct PageTableTest : ::testing::Test {
    TestMem mem;
    gmmu_pt *pt = nullptr;
    gmmu_mem_ops ops{};
    void SetUp() override
    {
        ops = mem.ops();
        ASSERT_EQ(gmmu_pt_create(&ops, &TestMem::alloc, &mem, &pt, nullptr), GMMU_OK);
    }
    void TearDown() override { gmmu_pt_destroy(pt); }
};

TEST_F(PageTableTest, Maps4KPageAndWalksWithFourReads)
{
    const uint64_t va = 0x7F72B010F1F0ull & ~0xFFFull;
    ASSERT_EQ(gmmu_pt_map(pt, va, 0x40000000ull, 12, GMMU_MAP_W | GMMU_MAP_U, nullptr), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va | 0x1F0, GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(r.pa, 0x400001F0ull);
    EXPECT_EQ(r.page_shift, 12u);
    ASSERT_EQ(r.nreads, 4u);
    // Every read is the PTE at table base + 8 * index of its level.
    for (unsigned i = 0; i < 4; i++) {
        unsigned level = 4 - i;
        EXPECT_EQ(r.read_level[i], level);
        EXPECT_EQ(r.read_pa[i], r.table_base[level] + 8ull * gmmu_va_index(va, level));
    }
    EXPECT_EQ(r.table_base[4], pt->root);
    EXPECT_EQ(pt->table_pages, 4u);
}

TEST_F(PageTableTest, LargePagesStopTheWalkEarly)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x40000000ull, 0x80000000ull, 30, GMMU_MAP_U, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_pt_map(pt, 0x200000ull, 0x600000ull, 21, GMMU_MAP_U, nullptr), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x40000000ull + 0x12345678ull, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(r.nreads, 2u);
    EXPECT_EQ(r.page_shift, 30u);
    EXPECT_EQ(r.pa, 0x80000000ull + 0x12345678ull);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x2ABCDEull, 0, &r), GMMU_OK);
    EXPECT_EQ(r.nreads, 3u);
    EXPECT_EQ(r.page_shift, 21u);
    EXPECT_EQ(r.pa, 0x6ABCDEull);
    EXPECT_TRUE(r.pte & GMMU_PTE_PS);
}

TEST_F(PageTableTest, UnmappedAndNonCanonicalAreFaultsNotErrors)
{
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x1000, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(r.fault_level, 4u);
    EXPECT_EQ(r.nreads, 1u);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x0000800000000000ull, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONCANONICAL);
    EXPECT_EQ(r.nreads, 0u);
    // Upper-half canonical addresses are fine to map.
    ASSERT_EQ(gmmu_pt_map(pt, 0xFFFF800000000000ull, 0x1000000, 12, 0, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0xFFFF800000000008ull, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(r.pa, 0x1000008ull);
}

TEST_F(PageTableTest, PermissionBitsAreEnforced)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x10000, 0x20000, 12, 0, nullptr), GMMU_OK); // read-only, supervisor
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x10000, GMMU_ACC_WRITE, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_WRITE);
    EXPECT_EQ(r.fault_level, 1u);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x10000, GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_USER);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x10000, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
}

// Issue 41, item 4: the walk reaches the leaf before permissions are judged
// (x86 and SMMUv3): a not-present PTE under a read-only or supervisor PDE is a
// not-present (translation) fault, not a permission fault.
TEST_F(PageTableTest, ANotPresentLeafUnderARestrictivePdeIsATranslationFault)
{
    const uint64_t va = 0x40000000ull;
    ASSERT_EQ(gmmu_pt_map(pt, va, 0x20000, 12, GMMU_MAP_W | GMMU_MAP_U, nullptr), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, 0, &r), GMMU_OK);
    const uint64_t pde_pa = r.read_pa[2], pte_pa = r.read_pa[3];
    uint64_t pde = 0;
    TestMem::read64(&mem, pde_pa, &pde);
    TestMem::write64(&mem, pte_pa, 0); // the PTE: not present
    // A write under a read-only PDE.
    TestMem::write64(&mem, pde_pa, pde & ~GMMU_PTE_W);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, GMMU_ACC_WRITE | GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(r.fault_level, 1u);
    EXPECT_EQ(r.nreads, 4u) << "the walk went down to the leaf";
    // An unprivileged read under a supervisor PDE.
    TestMem::write64(&mem, pde_pa, pde & ~GMMU_PTE_U);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(r.fault_level, 1u);
    // With the leaf present, the same accesses are permission faults, named
    // at the first entry that denies them; nothing is written (A/D).
    TestMem::write64(&mem, pte_pa, 0x20000 | GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, GMMU_ACC_USER | GMMU_ACC_SET_AD, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_USER);
    EXPECT_EQ(r.fault_level, 2u);
    uint64_t leaf = 0;
    TestMem::read64(&mem, pte_pa, &leaf);
    EXPECT_FALSE(leaf & GMMU_PTE_A) << "a faulting access sets no A below the denying entry";
    TestMem::write64(&mem, pde_pa, pde & ~GMMU_PTE_W);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, GMMU_ACC_WRITE | GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_WRITE);
    EXPECT_EQ(r.fault_level, 2u);
    // A reserved leaf under... the PDE itself as a 2 MiB leaf with frame bit
    // 13 set and no W: reserved before permission.
    TestMem::write64(&mem, pde_pa, 0x402000 | GMMU_PTE_P | GMMU_PTE_U | GMMU_PTE_PS);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, va, GMMU_ACC_WRITE | GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_RESERVED);
    EXPECT_EQ(r.fault_level, 2u);
}

// The same order, entry by entry, as gmmu_pte_judge states it.
TEST(PteJudgeTest, TranslationFaultsComeBeforePermissionFaults)
{
    gmmu_walk_perm p;
    gmmu_walk_perm_init(&p);
    gmmu_fault f = GMMU_FAULT_NONE;
    unsigned fl = 0;
    const uint64_t ro_pde = 0x5000 | GMMU_PTE_P | GMMU_PTE_U;
    EXPECT_EQ(gmmu_pte_judge(2, ro_pde, GMMU_ACC_WRITE, &p, &f, &fl), GMMU_PTE_NEXT)
        << "a denying upper entry does not end the walk";
    EXPECT_EQ(p.denied, GMMU_FAULT_WRITE);
    EXPECT_EQ(gmmu_pte_judge(1, 0, GMMU_ACC_WRITE, &p, &f, &fl), GMMU_PTE_FAULT);
    EXPECT_EQ(f, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(fl, 1u);
    gmmu_walk_perm_init(&p);
    gmmu_pte_judge(2, ro_pde, GMMU_ACC_WRITE, &p, &f, &fl);
    EXPECT_EQ(gmmu_pte_judge(1, 0x9000 | GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U, GMMU_ACC_WRITE, &p,
                             &f, &fl),
              GMMU_PTE_FAULT);
    EXPECT_EQ(f, GMMU_FAULT_WRITE);
    EXPECT_EQ(fl, 2u) << "the first entry that denies";
    gmmu_walk_perm_init(&p);
    EXPECT_EQ(gmmu_pte_judge(1, 0x9000 | GMMU_PTE_P, GMMU_ACC_USER, &p, &f, &fl), GMMU_PTE_FAULT);
    EXPECT_EQ(f, GMMU_FAULT_USER);
    gmmu_walk_perm_init(&p);
    EXPECT_EQ(gmmu_pte_judge(1, 0x9000 | GMMU_PTE_P, 0, &p, &f, &fl), GMMU_PTE_LEAF);
}

// Issue 41, item 3: bit 12 of a 2 MiB or 1 GiB leaf is PAT, as x86 defines
// it, not a frame bit; the bits between it and the page size stay reserved.
TEST_F(PageTableTest, ThePatBitOfALargeLeafIsAcceptedAndTheBitsAboveItAreReserved)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x40000000ull, 0x80000000ull, 30, GMMU_MAP_W | GMMU_MAP_U, nullptr),
              GMMU_OK);
    ASSERT_EQ(gmmu_pt_map(pt, 0x200000ull, 0x600000ull, 21, GMMU_MAP_W | GMMU_MAP_U, nullptr),
              GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x40000000ull, 0, &r), GMMU_OK);
    const uint64_t pdpte_pa = r.read_pa[1];
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x200000ull, 0, &r), GMMU_OK);
    const uint64_t pde_pa = r.read_pa[2];
    struct Case {
        uint64_t entry_pa, va, frame;
        unsigned shift;
    } cases[] = {{pde_pa, 0x2ABCDEull, 0x600000ull, 21},
                 {pdpte_pa, 0x40000000ull + 0x12345678ull, 0x80000000ull, 30}};
    for (const Case &c : cases) {
        uint64_t e = 0;
        TestMem::read64(&mem, c.entry_pa, &e);
        TestMem::write64(&mem, c.entry_pa, e | (1ull << 12)); // PAT
        ASSERT_EQ(gmmu_walk(&ops, pt->root, c.va, GMMU_ACC_WRITE | GMMU_ACC_USER, &r), GMMU_OK);
        EXPECT_EQ(r.fault, GMMU_FAULT_NONE) << c.shift;
        EXPECT_EQ(r.page_shift, c.shift);
        EXPECT_EQ(r.pa, c.frame | (c.va & ((1ull << c.shift) - 1))) << "PAT is not a frame bit";
        for (unsigned b : {13u, c.shift - 1}) {
            TestMem::write64(&mem, c.entry_pa, e | (1ull << 12) | (1ull << b));
            ASSERT_EQ(gmmu_walk(&ops, pt->root, c.va, 0, &r), GMMU_OK);
            EXPECT_EQ(r.fault, GMMU_FAULT_RESERVED) << "bit " << b << " of a 2^" << c.shift;
        }
        TestMem::write64(&mem, c.entry_pa, e);
    }
}

TEST_F(PageTableTest, WalkerSetsAccessedAndDirty)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x10000, 0x20000, 12, GMMU_MAP_W | GMMU_MAP_U, nullptr), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x10000, GMMU_ACC_SET_AD, &r), GMMU_OK);
    uint64_t leaf = 0;
    TestMem::read64(&mem, r.read_pa[3], &leaf);
    EXPECT_TRUE(leaf & GMMU_PTE_A);
    EXPECT_FALSE(leaf & GMMU_PTE_D);
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x10000, GMMU_ACC_SET_AD | GMMU_ACC_WRITE, &r), GMMU_OK);
    TestMem::read64(&mem, r.read_pa[3], &leaf);
    EXPECT_TRUE(leaf & GMMU_PTE_D);
    ASSERT_EQ(gmmu_pt_update_leaf(pt, 0x10000, 0, GMMU_PTE_A | GMMU_PTE_D), GMMU_OK);
    TestMem::read64(&mem, r.read_pa[3], &leaf);
    EXPECT_FALSE(leaf & (GMMU_PTE_A | GMMU_PTE_D));
}

TEST_F(PageTableTest, BadArgumentsNameTheField)
{
    gmmu_error err{};
    EXPECT_EQ(gmmu_pt_map(pt, 0x10001000, 0x20000, 21, 0, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "va");
    EXPECT_EQ(gmmu_pt_map(pt, 0x10000, 0x20000, 13, 0, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "page_shift");
    EXPECT_EQ(gmmu_pt_map(pt, 0x0000800000000000ull, 0x20000, 12, 0, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "va");
    EXPECT_EQ(gmmu_pt_map(pt, 0x10000, 0x20000, 12, GMMU_PTE_PS, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "flags");
    gmmu_pt *bad = nullptr;
    EXPECT_EQ(gmmu_pt_create(nullptr, &TestMem::alloc, &mem, &bad, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "mem");
    EXPECT_EQ(bad, nullptr);
}

TEST_F(PageTableTest, DoubleMapAndOverlapAreRefused)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x200000, 0x200000, 21, 0, nullptr), GMMU_OK);
    EXPECT_EQ(gmmu_pt_map(pt, 0x201000, 0x300000, 12, 0, nullptr), GMMU_EEXIST);
    EXPECT_EQ(gmmu_pt_map(pt, 0x200000, 0x400000, 21, 0, nullptr), GMMU_EEXIST);
    ASSERT_EQ(gmmu_pt_unmap(pt, 0x200123), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, pt->root, 0x200000, 0, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(r.fault_level, 2u);
}

TEST_F(PageTableTest, MemoryErrorIsReportedNotCrashed)
{
    ASSERT_EQ(gmmu_pt_map(pt, 0x10000, 0x20000, 12, 0, nullptr), GMMU_OK);
    mem.fail_reads = true;
    gmmu_walk_result r;
    EXPECT_EQ(gmmu_walk(&ops, pt->root, 0x10000, 0, &r), GMMU_EMEM);
    EXPECT_EQ(gmmu_walk(nullptr, pt->root, 0x10000, 0, &r), GMMU_EINVAL);
    EXPECT_EQ(gmmu_walk_from(&ops, pt->root, 5, 0x10000, 0, &r), GMMU_EINVAL);
}

TEST_F(PageTableTest, RandomMappingsWalkToWhatWasMapped)
{
    std::mt19937_64 rng(12345);
    std::unordered_map<uint64_t, uint64_t> want;
    uint64_t next_pa = 0x100000000ull;
    for (int i = 0; i < 3000; i++) {
        uint64_t vpn = rng() & ((1ull << 35) - 1);
        if (want.count(vpn))
            continue;
        ASSERT_EQ(gmmu_pt_map(pt, vpn << 12, next_pa, 12, GMMU_MAP_U, nullptr), GMMU_OK);
        want[vpn] = next_pa;
        next_pa += 4096;
    }
    for (auto &kv : want) {
        gmmu_walk_result r;
        ASSERT_EQ(gmmu_walk(&ops, pt->root, (kv.first << 12) | 0x88, GMMU_ACC_USER, &r), GMMU_OK);
        ASSERT_EQ(r.fault, GMMU_FAULT_NONE);
        ASSERT_EQ(r.pa, kv.second | 0x88);
    }
}

} // namespace

TEST_F(PageTableTest, SetFrameMovesAPageAndKeepsItsFlags)
{
    const uint64_t va = 0x7f00'0020'0000ull;
    ASSERT_EQ(gmmu_pt_map(pt, va, 0x4000'0000, 21, GMMU_MAP_W | GMMU_MAP_U | GMMU_MAP_CONTIG(2),
                          nullptr),
              GMMU_OK);
    ASSERT_EQ(gmmu_pt_map(pt, 0x1000, 0x9000, 12, GMMU_MAP_U, nullptr), GMMU_OK);
    // Not present while it moves; the frame still changes.
    ASSERT_EQ(gmmu_pt_update_leaf(pt, va, 0, GMMU_PTE_P), GMMU_OK);
    unsigned shift = 0;
    EXPECT_EQ(gmmu_pt_set_frame(pt, va + 0x1234, 0x1000, &shift), GMMU_EINVAL) << "not 2 MiB aligned";
    ASSERT_EQ(gmmu_pt_set_frame(pt, va + 0x1234, 0x8000'0000, &shift), GMMU_OK);
    EXPECT_EQ(shift, 21u);
    ASSERT_EQ(gmmu_pt_update_leaf(pt, va, GMMU_PTE_P, 0), GMMU_OK);
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&pt->mem, pt->root, va + 0x1234, GMMU_ACC_WRITE | GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(r.pa, 0x8000'1234ull);
    EXPECT_EQ(r.page_shift, 21u);
    EXPECT_EQ(r.pte & GMMU_PTE_CONTIG_MASK, uint64_t(GMMU_MAP_CONTIG(2))) << "flags kept";
    ASSERT_EQ(gmmu_pt_set_frame(pt, 0x1abc, 0xa000, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_walk(&pt->mem, pt->root, 0x1abc, GMMU_ACC_USER, &r), GMMU_OK);
    EXPECT_EQ(r.pa, 0xaabcull);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_EQ(gmmu_pt_set_frame(pt, 0x5000, 0xa000, nullptr), GMMU_EFAULT) << "nothing mapped";
}

// Issue 46 item 4: gmmu_walk_from judges each entry's form as it reads it and
// its permissions at the leaf (no A/D to set), and gmmu_walk_outcome does the
// same without the per-read record. Both against the rule itself: a walk that
// calls gmmu_pte_judge at every level (the documented order), over random
// entries (P, W, U, PS, NX, A, D and the low frame bits of a large leaf each
// set at random), every access kind. Fails if the deferred permission
// replay or the form check differs from the judge in any verdict, level,
// entry or permission.
namespace {
struct RefWalk {
    gmmu_fault fault = GMMU_FAULT_NONE;
    unsigned fault_level = 0, nreads = 0, page_shift = 0;
    uint64_t pa = 0, pte = 0, perms = 0;
};

RefWalk judged_walk(TestMem &m, uint64_t table, uint64_t va, unsigned access)
{
    RefWalk w;
    gmmu_walk_perm p;
    gmmu_walk_perm_init(&p);
    for (unsigned level = 4; level >= 1; level--) {
        uint64_t pte = 0;
        TestMem::read64(&m, table + 8 * gmmu_va_index(va, level), &pte);
        w.nreads++;
        const uint64_t up_wu = p.wu, up_nx = p.nx;
        gmmu_fault f = GMMU_FAULT_NONE;
        unsigned fl = 0;
        const gmmu_pte_verdict v = gmmu_pte_judge(level, pte, access, &p, &f, &fl);
        if (v == GMMU_PTE_FAULT) {
            w.fault = f;
            w.fault_level = fl;
            return w;
        }
        if (v == GMMU_PTE_LEAF) {
            w.page_shift = 12 + 9 * (level - 1);
            w.pte = pte;
            w.pa = gmmu_pte_leaf_frame(level, pte) | (va & ((1ull << w.page_shift) - 1));
            w.perms = (up_wu & pte) | ((up_nx | pte) & GMMU_PTE_NX) | (pte & (GMMU_PTE_A | GMMU_PTE_D));
            return w;
        }
        table = pte & GMMU_PTE_ADDR_MASK;
    }
    return w;
}
} // namespace

TEST(WalkOutcomeTest, JudgedAtTheLeafEqualsJudgedAtEveryLevel)
{
    std::mt19937_64 rng(46);
    TestMem m;
    // Tables 0x100000.. (one per level, chained through entry `idx`): each
    // level's entry at the VA's index is random; the others are 0.
    int checked = 0, faults[7] = {};
    for (int i = 0; i < 20000; i++) {
        m.words.clear();
        const uint64_t va = (rng() & 0x7FFFFFFFF000ull) | (rng() & 0xFF8);
        uint64_t table = 0x100000;
        for (unsigned level = 4; level >= 1; level--) {
            const uint64_t next = 0x100000 + (5 - level) * 0x1000;
            uint64_t pte = next;
            if (rng() % 16)
                pte |= GMMU_PTE_P;
            if (rng() % 4)
                pte |= GMMU_PTE_W;
            if (rng() % 4)
                pte |= GMMU_PTE_U;
            if (rng() % 3 == 0)
                pte |= GMMU_PTE_PS;
            if (rng() % 4 == 0)
                pte |= GMMU_PTE_NX;
            if (rng() % 2)
                pte |= GMMU_PTE_A | (rng() % 2 ? GMMU_PTE_D : 0);
            if ((pte & GMMU_PTE_PS) && rng() % 2) // a large frame, maybe with PAT / reserved bits
                pte = (pte & ~GMMU_PTE_ADDR_MASK) | (0x40000000ull | ((rng() % 4) << 12));
            m.words[(table + 8 * gmmu_va_index(va, level)) >> 3] = pte;
            table = next;
        }
        for (unsigned access = 0; access < 4; access++) {
            const RefWalk ref = judged_walk(m, 0x100000, va, access);
            gmmu_walk_result full, lean;
            const gmmu_mem_ops ops = m.ops();
            ASSERT_EQ(gmmu_walk_from(&ops, 0x100000, 4, va, access, &full), GMMU_OK);
            ASSERT_EQ(gmmu_walk_outcome(&ops, 0x100000, 4, va, access, &lean), GMMU_OK);
            for (const gmmu_walk_result *w : {&full, &lean}) {
                ASSERT_EQ(w->fault, ref.fault) << "walk " << i << " access " << access;
                ASSERT_EQ(w->fault_level, ref.fault_level) << "walk " << i;
                ASSERT_EQ(w->nreads, ref.nreads) << "walk " << i;
                if (ref.fault == GMMU_FAULT_NONE) {
                    ASSERT_EQ(w->page_shift, ref.page_shift);
                    ASSERT_EQ(w->pa, ref.pa);
                    ASSERT_EQ(w->pte, ref.pte);
                    ASSERT_EQ(w->perms, ref.perms);
                }
            }
            // The record: gmmu_walk_from's every read, gmmu_walk_outcome's none.
            uint64_t t = 0x100000;
            for (unsigned k = 0; k < full.nreads; k++) {
                const unsigned level = 4 - k;
                ASSERT_EQ(full.read_level[k], level);
                ASSERT_EQ(full.table_base[level], t);
                ASSERT_EQ(full.read_pa[k], t + 8 * gmmu_va_index(va, level));
                ASSERT_EQ(full.level_pte[level], m.words[full.read_pa[k] >> 3]);
                ASSERT_EQ(lean.read_pa[k], 0u);
                ASSERT_EQ(lean.table_base[level], 0u);
                ASSERT_EQ(lean.level_pte[level], 0u);
                t = full.level_pte[level] & GMMU_PTE_ADDR_MASK;
            }
            faults[ref.fault]++;
            checked++;
        }
    }
    // Every kind of outcome the rule gives was met.
    EXPECT_EQ(checked, 80000);
    for (gmmu_fault f : {GMMU_FAULT_NONE, GMMU_FAULT_NOT_PRESENT, GMMU_FAULT_WRITE, GMMU_FAULT_USER,
                         GMMU_FAULT_RESERVED})
        EXPECT_GT(faults[f], 100) << gmmu_fault_str(f);
}

// With GMMU_ACC_SET_AD the outcome walk writes the same A/D bits as
// gmmu_walk_from (a copy of the same memory each).
TEST(WalkOutcomeTest, SetsTheSameAccessedAndDirtyBits)
{
    std::mt19937_64 rng(4646);
    for (int i = 0; i < 2000; i++) {
        TestMem a;
        const uint64_t va = rng() & 0x7FFFFFFFFFF8ull;
        uint64_t table = 0x100000;
        for (unsigned level = 4; level >= 1; level--) {
            const uint64_t next = 0x100000 + (5 - level) * 0x1000;
            uint64_t pte = next | GMMU_PTE_P;
            if (rng() % 5)
                pte |= GMMU_PTE_W;
            if (rng() % 5)
                pte |= GMMU_PTE_U;
            if (rng() % 2)
                pte |= GMMU_PTE_A;
            a.words[(table + 8 * gmmu_va_index(va, level)) >> 3] = pte;
            table = next;
        }
        TestMem b = a;
        const unsigned access = GMMU_ACC_SET_AD | unsigned(rng() % 4);
        const gmmu_mem_ops oa = a.ops(), ob = b.ops();
        gmmu_walk_result ra, rb;
        ASSERT_EQ(gmmu_walk_from(&oa, 0x100000, 4, va, access, &ra), GMMU_OK);
        ASSERT_EQ(gmmu_walk_outcome(&ob, 0x100000, 4, va, access, &rb), GMMU_OK);
        ASSERT_EQ(ra.fault, rb.fault);
        ASSERT_EQ(ra.pte, rb.pte);
        ASSERT_EQ(ra.perms, rb.perms);
        ASSERT_EQ(a.words, b.words);
        ASSERT_EQ(a.writes, b.writes);
    }
}
