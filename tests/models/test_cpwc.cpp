// CPWC: the paper's worked example, the dependency invalidation, the block
// policy, and the cycle-step interface (shared with TPC) against the
// functional interface and real walks.
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "pwc_test_util.h"

using namespace pwctest;

namespace {

gmmu_pwc_config cpwc_cfg(uint32_t l4, uint32_t l3, uint32_t blocks, uint32_t per_block)
{
    gmmu_pwc_config c;
    EXPECT_EQ(gmmu_pwc_config_default(GMMU_PWC_CPWC, &c), GMMU_OK);
    c.cpwc.l4_entries = l4;
    c.cpwc.l3_entries = l3;
    c.cpwc.l2_blocks = blocks;
    c.cpwc.block_entries = per_block;
    return c;
}

gmmu_cpwc_entry_view l4e(const gmmu_pwc *p, unsigned s)
{
    gmmu_cpwc_entry_view v;
    EXPECT_EQ(gmmu_cpwc_l4_entry(gmmu_pwc_cpwc(p), s, &v), GMMU_OK);
    return v;
}
gmmu_cpwc_entry_view l3e(const gmmu_pwc *p, unsigned s)
{
    gmmu_cpwc_entry_view v;
    EXPECT_EQ(gmmu_cpwc_l3_entry(gmmu_pwc_cpwc(p), s, &v), GMMU_OK);
    return v;
}
gmmu_cpwc_entry_view l2e(const gmmu_pwc *p, unsigned b, unsigned w)
{
    gmmu_cpwc_entry_view v;
    EXPECT_EQ(gmmu_cpwc_l2_entry(gmmu_pwc_cpwc(p), b, w, &v), GMMU_OK);
    return v;
}

// Lookup, walk the rest, fill: returns the lookup result and the reads.
struct Access {
    gmmu_pwc_hit hit;
    unsigned reads;
};
Access access(Space &sp, gmmu_pwc *p, uint64_t va)
{
    Access a{};
    EXPECT_EQ(gmmu_pwc_lookup(p, sp.pt->root, va, &a.hit), GMMU_OK);
    gmmu_walk_result w = sp.walk_from(a.hit.table_base, a.hit.start_level, va);
    a.reads = w.nreads;
    EXPECT_EQ(gmmu_pwc_fill(p, va, &w), GMMU_OK);
    return a;
}

// ---- the paper's worked example -----------------------------------------------------

const uint64_t kVa[3] = {0x7F72B010F1F0ull, 0x7F72BC30F1F0ull, 0x7FF2FC30F1F0ull};

TEST(CpwcTest, WorkedExampleFromPaper)
{
    // Indices as in the paper's table 3.
    const unsigned idx[3][3] = {{254, 458, 384}, {254, 458, 481}, {255, 459, 481}};
    for (int i = 0; i < 3; i++)
        for (unsigned l = 4; l >= 2; l--)
            ASSERT_EQ(gmmu_va_index(kVa[i], l), idx[i][4 - l]);

    Space sp;
    for (uint64_t va : kVa)
        ASSERT_EQ(sp.map(va), GMMU_OK);
    auto p = make_pwc(cpwc_cfg(2, 4, 4, 8)); // 2 L4, 4 L3, 32 L2 in 4 blocks of 8
    ASSERT_TRUE(p);

    Access a0 = access(sp, p.get(), kVa[0]);
    EXPECT_EQ(a0.hit.start_level, 4u); // miss
    EXPECT_EQ(a0.reads, 4u);
    Access a1 = access(sp, p.get(), kVa[1]);
    EXPECT_EQ(a1.hit.start_level, 2u); // L4+L3 hit, L2 miss
    EXPECT_EQ(a1.reads, 2u);
    Access a2 = access(sp, p.get(), kVa[2]);
    EXPECT_EQ(a2.hit.start_level, 4u); // miss
    EXPECT_EQ(a2.reads, 4u);

    gmmu_walk_result w[3];
    for (int i = 0; i < 3; i++)
        w[i] = sp.walk(kVa[i]);
    // L4 PWC: slot 0 = 254, slot 1 = 255.
    EXPECT_TRUE(l4e(p.get(), 0).valid);
    EXPECT_EQ(l4e(p.get(), 0).tag, 254u);
    EXPECT_EQ(l4e(p.get(), 0).base, w[0].table_base[3]);
    EXPECT_TRUE(l4e(p.get(), 1).valid);
    EXPECT_EQ(l4e(p.get(), 1).tag, 255u);
    EXPECT_EQ(l4e(p.get(), 1).base, w[2].table_base[3]);
    // L3 PWC: slot 0b00 = 458, mask 0b1000 (block 1); slot 0b11 = 459, mask 0b0100 (block 2).
    EXPECT_TRUE(l3e(p.get(), 0).valid);
    EXPECT_EQ(l3e(p.get(), 0).tag, 458u);
    EXPECT_EQ(l3e(p.get(), 0).base, w[0].table_base[2]);
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0b1000u);
    EXPECT_FALSE(l3e(p.get(), 1).valid);
    EXPECT_FALSE(l3e(p.get(), 2).valid);
    EXPECT_TRUE(l3e(p.get(), 3).valid);
    EXPECT_EQ(l3e(p.get(), 3).tag, 459u);
    EXPECT_EQ(l3e(p.get(), 3).base, w[2].table_base[2]);
    EXPECT_EQ(l3e(p.get(), 3).mask[0], 0b0100u);
    // L2 PWC: block 1 (index 0) = 384, 481; block 2 (index 1) = 481; the rest empty.
    EXPECT_TRUE(l2e(p.get(), 0, 0).valid);
    EXPECT_EQ(l2e(p.get(), 0, 0).tag, 384u);
    EXPECT_EQ(l2e(p.get(), 0, 0).base, w[0].table_base[1]);
    EXPECT_TRUE(l2e(p.get(), 0, 1).valid);
    EXPECT_EQ(l2e(p.get(), 0, 1).tag, 481u);
    EXPECT_EQ(l2e(p.get(), 0, 1).base, w[1].table_base[1]);
    EXPECT_TRUE(l2e(p.get(), 1, 0).valid);
    EXPECT_EQ(l2e(p.get(), 1, 0).tag, 481u);
    EXPECT_EQ(l2e(p.get(), 1, 0).base, w[2].table_base[1]);
    unsigned valid = 0;
    for (unsigned b = 0; b < 4; b++)
        for (unsigned e = 0; e < 8; e++)
            valid += l2e(p.get(), b, e).valid;
    EXPECT_EQ(valid, 3u);
    const gmmu_pwc_stats *st = gmmu_pwc_get_stats(p.get());
    EXPECT_EQ(st->lookups, 3u);
    EXPECT_EQ(st->misses, 2u);
    EXPECT_EQ(st->hit_l3, 1u);
    EXPECT_EQ(st->evictions, 0u);

    // Now every one of them hits all three levels: 1 read each.
    for (uint64_t va : kVa) {
        Access a = access(sp, p.get(), va);
        EXPECT_EQ(a.hit.start_level, 1u);
        EXPECT_EQ(a.reads, 1u);
    }
}

TEST(CpwcTest, WorkedExampleThroughTheCycleInterface)
{
    Space sp;
    for (uint64_t va : kVa)
        ASSERT_EQ(sp.map(va), GMMU_OK);
    auto p = make_pwc(cpwc_cfg(2, 4, 4, 8));
    const unsigned L = gmmu_pwc_latency(p.get());
    ASSERT_EQ(L, 2u);
    const unsigned want_level[3] = {4, 2, 4};
    for (int i = 0; i < 3; i++) {
        gmmu_pwc_cycle_in in{};
        gmmu_pwc_cycle_out out{};
        in.lookup_valid = 1;
        in.lookup_va = kVa[i];
        in.lookup_root = sp.pt->root;
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
        EXPECT_FALSE(out.hit_valid);
        in = {};
        for (unsigned c = 1; c < L; c++) {
            ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
            EXPECT_FALSE(out.hit_valid);
        }
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
        ASSERT_TRUE(out.hit_valid);
        EXPECT_EQ(out.start_level, want_level[i]);
        gmmu_walk_result w = sp.walk(kVa[i]);
        EXPECT_EQ(out.table_base, w.table_base[out.start_level]);
        // The walker fills the bases it walked (and, for the L3 table, the one
        // it started from).
        in = {};
        in.fill_valid = 1;
        in.fill_va = kVa[i];
        in.fill_base_l3 = w.table_base[3];
        in.fill_base_l2 = w.table_base[2];
        in.fill_base_l1 = w.table_base[1];
        in.fill_levels = out.start_level == 4 ? 7 : 3;
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
    }
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0b1000u);
    EXPECT_EQ(l3e(p.get(), 3).mask[0], 0b0100u);
    EXPECT_EQ(l2e(p.get(), 0, 1).tag, 481u);
    EXPECT_EQ(l2e(p.get(), 1, 0).tag, 481u);
}

// ---- dependency invalidation ------------------------------------------------------------

TEST(CpwcTest, ReplacingAnL4EntryDropsItsL3EntriesAndBlocks)
{
    Space sp;
    const uint64_t a = va_of(254, 458, 384, 1), b = va_of(252, 458, 384, 1);
    ASSERT_EQ(sp.map(a), GMMU_OK);
    ASSERT_EQ(sp.map(va_of(252, 1, 0, 0)), GMMU_OK); // PML4[252] present, PDPT[458] not
    auto p = make_pwc(cpwc_cfg(2, 4, 4, 8));
    EXPECT_EQ(access(sp, p.get(), a).hit.start_level, 4u);
    gmmu_walk_result wb = sp.walk(b);
    ASSERT_EQ(wb.fault_level, 3u);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), b, &wb), GMMU_OK); // L4 slot 0: 254 -> 252
    EXPECT_EQ(l4e(p.get(), 0).tag, 252u);
    EXPECT_FALSE(l3e(p.get(), 0).valid);
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0u);
    EXPECT_FALSE(l2e(p.get(), 0, 0).valid);
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->dependent_invalidations, 2u); // L3 458 + L2 384
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->evictions, 1u);

    // b gets the same L3 and L2 indices as a, in other tables: the PWC must
    // not hand out a's tables for it.
    ASSERT_EQ(sp.map(b), GMMU_OK);
    gmmu_walk_result full = sp.walk(b);
    Access x = access(sp, p.get(), b);
    EXPECT_EQ(x.hit.start_level, 3u);
    EXPECT_EQ(x.hit.table_base, full.table_base[3]);
    EXPECT_EQ(x.reads, 3u);
    EXPECT_EQ(access(sp, p.get(), b).hit.table_base, full.table_base[1]);
}

TEST(CpwcTest, ReplacingAnL3EntryDropsItsBlocks)
{
    Space sp;
    const uint64_t a = va_of(254, 458, 384, 1), c = va_of(254, 462, 384, 1); // same L3 slot 0b00
    ASSERT_EQ(sp.map(a), GMMU_OK);
    ASSERT_EQ(sp.map(va_of(254, 462, 1, 0)), GMMU_OK); // PDPT[462] present, PD[384] not
    auto p = make_pwc(cpwc_cfg(2, 4, 4, 8));
    access(sp, p.get(), a);
    ASSERT_EQ(l3e(p.get(), 0).mask[0], 0b1000u);
    gmmu_walk_result wc = sp.walk(c);
    ASSERT_EQ(wc.fault_level, 2u);
    ASSERT_EQ(gmmu_pwc_fill(p.get(), c, &wc), GMMU_OK); // L3 slot 0: 458 -> 462
    EXPECT_EQ(l3e(p.get(), 0).tag, 462u);
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0u);
    EXPECT_FALSE(l2e(p.get(), 0, 0).valid);
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->dependent_invalidations, 1u);

    ASSERT_EQ(sp.map(c), GMMU_OK);
    gmmu_walk_result full = sp.walk(c);
    Access x = access(sp, p.get(), c);
    EXPECT_EQ(x.hit.start_level, 2u);
    EXPECT_EQ(x.hit.table_base, full.table_base[2]);
    Access y = access(sp, p.get(), c); // now cached under 462, in a block it owns
    EXPECT_EQ(y.hit.start_level, 1u);
    EXPECT_EQ(y.hit.table_base, full.table_base[1]);
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0b1000u);
}

// ---- block policy -----------------------------------------------------------------------

TEST(CpwcTest, FullOwnerClaimsFreeBlocksThenLruBlockIsTakenOver)
{
    Space sp;
    // One L4 slot, two L3 slots (chosen by the L3-index low bit), 2 blocks of 2.
    for (unsigned i2 : {1u, 2u, 3u})
        ASSERT_EQ(sp.map(va_of(0, 0, i2, 0)), GMMU_OK);
    ASSERT_EQ(sp.map(va_of(0, 1, 5, 0)), GMMU_OK);
    auto p = make_pwc(cpwc_cfg(1, 2, 2, 2));
    for (unsigned i2 : {1u, 2u, 3u})
        access(sp, p.get(), va_of(0, 0, i2, 0));
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0b11u); // block 0 full, block 1 claimed
    EXPECT_EQ(l2e(p.get(), 1, 0).tag, 3u);
    // Touch block 0 so that block 1 is the least recently used one.
    EXPECT_EQ(access(sp, p.get(), va_of(0, 0, 1, 0)).hit.start_level, 1u);
    // The walk from the L3 table fills the L3 entry and the L2 entry; L3 slot 1
    // has no block and none is free: it takes over block 1, the LRU block.
    EXPECT_EQ(access(sp, p.get(), va_of(0, 1, 5, 0)).hit.start_level, 3u);
    EXPECT_EQ(l3e(p.get(), 0).mask[0], 0b10u);
    EXPECT_EQ(l3e(p.get(), 1).mask[0], 0b01u);
    EXPECT_EQ(l2e(p.get(), 1, 0).tag, 5u);
    EXPECT_FALSE(l2e(p.get(), 1, 1).valid);
    EXPECT_EQ(gmmu_pwc_get_stats(p.get())->evictions, 1u);
    gmmu_pwc_hit h{};
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 1, 5, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u);
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 0, 3, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 2u); // gone with block 1
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 0, 2, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u); // still in block 0
    ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 0, 1, 0), &h), GMMU_OK);
    EXPECT_EQ(h.start_level, 1u);
}

TEST(CpwcTest, OwnBlockReplacesItsLeastRecentlyUsedEntry)
{
    for (gmmu_pwc_repl repl : {GMMU_PWC_REPL_LRU, GMMU_PWC_REPL_FIFO}) {
        Space sp;
        for (unsigned i2 : {1u, 2u, 3u})
            ASSERT_EQ(sp.map(va_of(0, 0, i2, 0)), GMMU_OK);
        gmmu_pwc_config c = cpwc_cfg(1, 1, 1, 2);
        c.replacement = repl;
        auto p = make_pwc(c);
        access(sp, p.get(), va_of(0, 0, 1, 0));
        access(sp, p.get(), va_of(0, 0, 2, 0));
        EXPECT_EQ(access(sp, p.get(), va_of(0, 0, 1, 0)).hit.start_level, 1u);
        access(sp, p.get(), va_of(0, 0, 3, 0)); // LRU evicts 2, FIFO evicts 1
        unsigned kept = repl == GMMU_PWC_REPL_LRU ? 1u : 2u;
        unsigned gone = repl == GMMU_PWC_REPL_LRU ? 2u : 1u;
        gmmu_pwc_hit h{};
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 0, kept, 0), &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 1u);
        ASSERT_EQ(gmmu_pwc_lookup(p.get(), sp.pt->root, va_of(0, 0, gone, 0), &h), GMMU_OK);
        EXPECT_EQ(h.start_level, 2u);
    }
}

TEST(CpwcTest, MaskOrderHoldsBeyondSixtyFourBlocks)
{
    Space sp;
    auto p = make_pwc(cpwc_cfg(2, 4, 100, 1));
    // 71 L2 regions under one L3 entry: blocks 0..70 claimed in order.
    for (unsigned i2 = 0; i2 < 71; i2++) {
        ASSERT_EQ(sp.map(va_of(2, 2, i2, 0)), GMMU_OK);
        access(sp, p.get(), va_of(2, 2, i2, 0));
    }
    gmmu_cpwc_entry_view v = l3e(p.get(), 0);
    // block b <-> bit (99 - b): blocks 0..70 are bits 99..29.
    EXPECT_EQ(v.mask[1], 0xFFFFFFFFFull);          // bits 64..99
    EXPECT_EQ(v.mask[0], ~0ull << 29);             // bits 29..63
    for (unsigned i2 = 0; i2 < 71; i2++)
        EXPECT_EQ(access(sp, p.get(), va_of(2, 2, i2, 0)).hit.start_level, 1u);
}

// ---- cycle-step interface ----------------------------------------------------------------

gmmu_pwc_cycle_in fill_in(Space &sp, uint64_t va)
{
    gmmu_walk_result w = sp.walk(va);
    gmmu_pwc_path path;
    EXPECT_EQ(gmmu_pwc_path_from_walk(va, &w, &path), GMMU_OK);
    gmmu_pwc_cycle_in in{};
    in.fill_valid = 1;
    in.fill_va = va;
    in.fill_levels = (uint8_t)((path.known >> 1) & 7u);
    in.fill_base_l1 = path.base[1];
    in.fill_base_l2 = path.base[2];
    in.fill_base_l3 = path.base[3];
    return in;
}

TEST(PwcCycleTest, ResultAppearsExactlyLatencyCyclesLaterAndLookupSeesStateBeforeFill)
{
    for (unsigned mux : {0u, 1u, 3u}) {
        for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_CPWC}) {
            Space sp;
            const uint64_t va = va_of(9, 9, 9, 9);
            ASSERT_EQ(sp.map(va), GMMU_OK);
            gmmu_pwc_config c;
            gmmu_pwc_config_default(k, &c);
            c.cpwc.mux_cycles = mux;
            c.tpc.hit_cycles = 1 + mux;
            auto p = make_pwc(c);
            const unsigned L = gmmu_pwc_latency(p.get());
            ASSERT_EQ(L, 1 + mux);
            gmmu_walk_result w = sp.walk(va);
            // cycle 0: lookup + fill of the same VA; cycle 1: lookup again.
            gmmu_pwc_cycle_in in = fill_in(sp, va);
            in.lookup_valid = 1;
            in.lookup_va = va;
            in.lookup_root = sp.pt->root;
            std::vector<gmmu_pwc_cycle_out> outs;
            for (unsigned cyc = 0; cyc < L + 3; cyc++) {
                gmmu_pwc_cycle_out out{};
                ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
                outs.push_back(out);
                if (cyc == 0) {
                    in = {};
                    in.lookup_valid = 1;
                    in.lookup_va = va;
                    in.lookup_root = sp.pt->root;
                } else {
                    in = {};
                }
            }
            for (unsigned cyc = 0; cyc < outs.size(); cyc++) {
                bool want = cyc == L || cyc == L + 1;
                EXPECT_EQ(outs[cyc].hit_valid, want) << "cycle " << cyc << " L " << L;
            }
            EXPECT_EQ(outs[L].start_level, 4u); // read before the same-cycle fill
            EXPECT_EQ(outs[L].table_base, sp.pt->root);
            EXPECT_EQ(outs[L + 1].start_level, 1u);
            EXPECT_EQ(outs[L + 1].table_base, w.table_base[1]);
            EXPECT_EQ(gmmu_pwc_get_stats(p.get())->lookups, 2u);
        }
    }
}

TEST(PwcCycleTest, InvalidationSquashesLookupsInFlight)
{
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_CPWC}) {
        Space sp;
        const uint64_t va = va_of(9, 9, 9, 9);
        ASSERT_EQ(sp.map(va), GMMU_OK);
        gmmu_pwc_config c;
        gmmu_pwc_config_default(k, &c);
        c.tpc.hit_cycles = 2;
        auto p = make_pwc(c);
        ASSERT_EQ(gmmu_pwc_latency(p.get()), 2u);
        gmmu_pwc_cycle_out out{};
        gmmu_pwc_cycle_in in = fill_in(sp, va);
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK); // cycle 0: fill
        in = {};
        in.lookup_valid = 1;
        in.lookup_va = va;
        in.lookup_root = sp.pt->root;
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK); // cycle 1: lookup (hits)
        in.inv_valid = 1;                                      // cycle 2: lookup + invalidate
        in.inv_all = 0;
        in.inv_lo = va;
        in.inv_hi = va;
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK);
        EXPECT_FALSE(out.hit_valid);
        in = {};
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK); // cycle 3: cycle-1 lookup
        ASSERT_TRUE(out.hit_valid);
        EXPECT_EQ(out.start_level, 4u);
        EXPECT_EQ(out.table_base, sp.pt->root);
        ASSERT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_OK); // cycle 4: cycle-2 lookup
        ASSERT_TRUE(out.hit_valid);
        EXPECT_EQ(out.start_level, 4u);
        EXPECT_EQ(gmmu_pwc_get_stats(p.get())->squashed, 2u) << gmmu_pwc_kind_name(k);
    }
}

TEST(PwcCycleTest, RejectsKindsWithoutCycleModelAndBadFlags)
{
    for (gmmu_pwc_kind k : {GMMU_PWC_STC, GMMU_PWC_UPTC}) {
        gmmu_pwc_config c;
        gmmu_pwc_config_default(k, &c);
        auto p = make_pwc(c);
        gmmu_pwc_cycle_in in{};
        gmmu_pwc_cycle_out out{};
        EXPECT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_EINVAL);
    }
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_CPWC, &c);
    auto p = make_pwc(c);
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    in.fill_levels = 8;
    EXPECT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_EINVAL);
    in = {};
    in.lookup_valid = 2;
    EXPECT_EQ(gmmu_pwc_step(p.get(), &in, &out), GMMU_EINVAL);
}

struct Pending {
    unsigned due;
    uint64_t va;
    unsigned start;
    uint64_t base;
};

#ifdef __SANITIZE_ADDRESS__
constexpr unsigned kCycles = 60000;
#else
constexpr unsigned kCycles = 200000;
#endif

// The cycle interface and the functional interface are one model: a random
// cycle stream (lookups, fills, invalidations, page-table changes) gives the
// same results L cycles later as the functional calls made in the same
// order, and every hit is the table a real walk uses.
TEST(PwcCycleTest, CycleStreamMatchesFunctionalCallsAndRealWalks)
{
    const uint64_t seed = test_seed(777);
    std::mt19937_64 rng(seed);
    std::vector<gmmu_pwc_config> cfgs;
    gmmu_pwc_config c;
    gmmu_pwc_config_default(GMMU_PWC_TPC, &c);
    cfgs.push_back(c);
    c.tpc.entries = 4;
    c.tpc.hit_cycles = 3;
    c.replacement = GMMU_PWC_REPL_FIFO;
    cfgs.push_back(c);
    cfgs.push_back(cpwc_cfg(2, 4, 62, 1));
    cfgs.push_back(cpwc_cfg(2, 4, 4, 8));
    c = cpwc_cfg(1, 2, 3, 2);
    c.cpwc.mux_cycles = 0;
    cfgs.push_back(c);

    for (const gmmu_pwc_config &cfg : cfgs) {
        Space sp;
        std::vector<uint64_t> vas;
        for (unsigned i4 : {0u, 1u, 2u, 300u})
            for (unsigned i3 : {0u, 1u, 2u, 3u, 6u})
                for (unsigned i2 = 0; i2 < 40; i2 += 1 + rng() % 3) {
                    uint64_t va = va_of(i4, i3, i2, rng() % 512);
                    if (rng() % 8 == 0)
                        sp.map(va, 21);
                    else if (rng() % 8 != 0)
                        sp.map(va);
                    vas.push_back(va);
                }
        auto ps = make_pwc(cfg), pf = make_pwc(cfg);
        ASSERT_TRUE(ps && pf);
        const unsigned L = gmmu_pwc_latency(ps.get());
        std::deque<Pending> pend;
        size_t last = 0;
        auto pick = [&]() {
            last = rng() % 4 == 0 ? rng() % vas.size() : (last + vas.size() + rng() % 5 - 2) % vas.size();
            return vas[last];
        };
        for (unsigned cyc = 0; cyc < kCycles + L; cyc++) {
            bool draining = cyc >= kCycles;
            // Real walk for the result due this cycle, before any change.
            gmmu_walk_result due_walk{};
            if (!pend.empty() && pend.front().due == cyc)
                due_walk = sp.walk(pend.front().va);
            gmmu_pwc_cycle_in in{};
            uint64_t r = rng();
            if (!draining && r % 3000 == 0) {
                uint64_t va = pick();
                unsigned level = 2 + rng() % 3;
                if (sp.repoint(va, level)) {
                    unsigned shift = 12 + 9 * (level - 1);
                    in.inv_valid = 1;
                    in.inv_lo = va & ~((1ull << shift) - 1);
                    in.inv_hi = in.inv_lo + (1ull << shift) - 1;
                }
            } else if (!draining && r % 3000 == 1) {
                in.inv_valid = 1;
                in.inv_all = 1;
            }
            if (!draining && rng() % 10 < 3) {
                gmmu_pwc_cycle_in f = fill_in(sp, pick());
                in.fill_valid = 1;
                in.fill_va = f.fill_va;
                in.fill_levels = f.fill_levels;
                in.fill_base_l1 = f.fill_base_l1;
                in.fill_base_l2 = f.fill_base_l2;
                in.fill_base_l3 = f.fill_base_l3;
            }
            if (!draining && rng() % 10 < 7) {
                in.lookup_valid = 1;
                in.lookup_va = pick() | (rng() & 0xFF8);
                in.lookup_root = sp.pt->root;
            }
            gmmu_pwc_cycle_out out{};
            ASSERT_EQ(gmmu_pwc_step(ps.get(), &in, &out), GMMU_OK);
            // Output check.
            if (!pend.empty() && pend.front().due == cyc) {
                Pending e = pend.front();
                pend.pop_front();
                ASSERT_TRUE(out.hit_valid) << "cycle " << cyc << " seed " << seed;
                ASSERT_EQ(out.start_level, e.start) << "cycle " << cyc << " seed " << seed;
                ASSERT_EQ(out.table_base, e.base) << "cycle " << cyc << " seed " << seed;
                if (out.start_level != 4) {
                    ASSERT_GE(out.start_level, deepest_level(due_walk));
                    ASSERT_EQ(out.table_base, due_walk.table_base[out.start_level])
                        << "cycle " << cyc << " seed " << seed;
                }
            } else {
                ASSERT_FALSE(out.hit_valid) << "cycle " << cyc;
            }
            // The same operations, functionally, in the documented order.
            if (in.lookup_valid) {
                gmmu_pwc_hit h{};
                ASSERT_EQ(gmmu_pwc_lookup(pf.get(), in.lookup_root, in.lookup_va, &h), GMMU_OK);
                pend.push_back({cyc + L, in.lookup_va, h.start_level, h.table_base});
            }
            if (in.fill_valid) {
                gmmu_pwc_path path{};
                path.va = in.fill_va;
                const uint64_t b[3] = {in.fill_base_l1, in.fill_base_l2, in.fill_base_l3};
                for (unsigned k = 1; k <= 3; k++)
                    if (in.fill_levels & (1u << (k - 1))) {
                        path.base[k] = b[k - 1];
                        path.known |= 1u << k;
                    }
                ASSERT_EQ(gmmu_pwc_fill_path(pf.get(), &path), GMMU_OK);
            }
            if (in.inv_valid) {
                if (in.inv_all)
                    gmmu_pwc_invalidate_all(pf.get());
                else
                    gmmu_pwc_invalidate_range(pf.get(), in.inv_lo, in.inv_hi);
                for (Pending &e : pend) {
                    e.start = 4;
                    e.base = sp.pt->root;
                }
            }
        }
        ASSERT_TRUE(pend.empty());
        const gmmu_pwc_stats *a = gmmu_pwc_get_stats(ps.get()), *b = gmmu_pwc_get_stats(pf.get());
        EXPECT_EQ(a->lookups, b->lookups);
        EXPECT_EQ(a->fills, b->fills);
        EXPECT_EQ(a->entries_written, b->entries_written);
        EXPECT_EQ(a->evictions, b->evictions);
        EXPECT_EQ(a->dependent_invalidations, b->dependent_invalidations);
        EXPECT_EQ(a->entries_invalidated, b->entries_invalidated);
        EXPECT_EQ(a->lookup_cycles, b->lookup_cycles);
        EXPECT_GT(a->hit_l2, a->lookups / 20) << gmmu_pwc_kind_name(cfg.kind);
        // Squashed hits become misses: the per-level counts differ by exactly those.
        EXPECT_EQ(a->misses, b->misses + a->squashed);
    }
}

} // namespace
