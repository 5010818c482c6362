// Differential fuzzing of the page-walk caches (models/src/pwc.c: TPC, STC,
// UPTC, CPWC) against the page tables themselves. Two address spaces share
// one memory and one PWC (flushed on a context switch as the walker does,
// gmmu_pwc_context_enter); the input maps and unmaps pages, re-points page
// directories at copies of their tables, takes W away from directory
// entries, fills from walks, looks up and invalidates. Every change to a
// table above the leaves is followed by the range invalidation that covers
// it, as a driver must. The invariant: whatever a lookup vouches for (start
// at level L from table T) is exactly the table a walk of the current
// tables from the root uses at level L, every entry it skips is permissive
// (W, U, no NX), and the walk from T gives the full walk's outcome.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
}

#include "fuzz_input.h"
#include "fuzz_mem.h"

namespace {

[[noreturn]] void mismatch(const char *what, uint64_t va)
{
    std::fprintf(stderr, "fuzz_pwc: %s (va 0x%llx)\n", what, (unsigned long long)va);
    std::abort();
}

using memory = gmmu_fuzz::sparse_memory;

// VAs from a small space so that paths share prefixes: 2 x 4 x 8 x 8 pages.
uint64_t pick_va(gmmu_fuzz::input &in)
{
    const uint64_t i4 = in.below(2), i3 = in.below(4), i2 = in.below(8), i1 = in.below(8);
    return (i4 << 39) | (i3 << 30) | (i2 << 21) | (i1 << 12) | (uint64_t(in.below(512)) << 3);
}

uint64_t region_lo(uint64_t va, unsigned level) // VA region one entry of `level` maps
{
    return va & ~((1ull << (12 + 9 * (level - 1))) - 1);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_fuzz::input in(data, size);
    const gmmu_pwc_kind kind = gmmu_pwc_kind(1 + in.below(4));
    gmmu_pwc_config cfg{};
    // The default geometry, or the largest that fits a small budget (more evictions).
    if (in.below(2) == 0 || gmmu_pwc_config_for_bits(kind, 300 + in.below(6000), &cfg, nullptr) != GMMU_OK)
        if (gmmu_pwc_config_default(kind, &cfg) != GMMU_OK)
            mismatch("no default config", 0);
    cfg.replacement = in.below(2) ? GMMU_PWC_REPL_FIFO : GMMU_PWC_REPL_LRU;
    gmmu_pwc *pwc = nullptr;
    if (gmmu_pwc_create(&cfg, &pwc, nullptr) != GMMU_OK)
        mismatch("create refused a valid config", 0);
    memory mem;
    gmmu_mem_ops ops = mem.ops();
    gmmu_pt *pt[2] = {};
    for (auto &t : pt)
        if (gmmu_pt_create(&ops, &memory::alloc, &mem, &t, nullptr) != GMMU_OK)
            mismatch("pt init", 0);
    gmmu_pwc_context ctx{};
    auto enter = [&](unsigned c) {
        if (gmmu_pwc_context_enter(&ctx, kind, pt[c]->root))
            gmmu_pwc_invalidate_all(pwc);
    };
    auto invalidate_region = [&](uint64_t lo, uint64_t hi) {
        // Ranges or all, as the input says (both must be enough).
        if (in.below(4) == 0)
            gmmu_pwc_invalidate_all(pwc);
        else
            gmmu_pwc_invalidate_range(pwc, lo, hi);
    };
    unsigned steps = 0;
    while (in.more() && steps++ < 4000) {
        const unsigned op = in.below(8);
        const unsigned c = in.below(2);
        const uint64_t va = pick_va(in);
        gmmu_walk_result full;
        if (gmmu_walk(&ops, pt[c]->root, va, GMMU_ACC_USER, &full) != GMMU_OK)
            mismatch("reference walk failed", va);
        switch (op) {
        case 0: { // map a 4 KiB or 2 MiB page (upper entries permissive)
            const bool large = in.below(4) == 0;
            const uint64_t pa = (uint64_t(1 + in.below(1u << 16)) << 21);
            gmmu_pt_map(pt[c], large ? region_lo(va, 2) : va & ~0xfffull, pa, large ? 21 : 12,
                        GMMU_MAP_W | GMMU_MAP_U, nullptr);
            break;
        }
        case 1: // unmap the leaf (tables above stay: nothing cached changes)
            gmmu_pt_unmap(pt[c], va);
            break;
        case 2:
        case 3: { // re-point a directory entry (level 4 or 3 entry) at a copy of its table
            const unsigned level = 4 - (op - 2); // 4: PML4 entry, 3: PDPT entry
            if (full.nreads < 5 - level || !(full.level_pte[level] & GMMU_PTE_P) ||
                (full.level_pte[level] & GMMU_PTE_PS))
                break;
            const uint64_t entry_pa = full.table_base[level] + 8 * ((va >> (3 + 9 * level)) & 511);
            const uint64_t old_table = full.level_pte[level] & GMMU_PTE_ADDR_MASK;
            uint64_t fresh;
            memory::alloc(&mem, &fresh);
            for (unsigned i = 0; i < 512; i++) {
                uint64_t v;
                memory::rd(&mem, old_table + 8 * i, &v);
                if (v)
                    memory::wr(&mem, fresh + 8 * i, v);
            }
            memory::wr(&mem, entry_pa, (full.level_pte[level] & ~GMMU_PTE_ADDR_MASK) | fresh);
            const uint64_t lo = region_lo(va, level);
            invalidate_region(lo, lo + (1ull << (12 + 9 * (level - 1))) - 1);
            break;
        }
        case 4: { // take W (or U) away from a directory entry, then invalidate its region
            const unsigned level = 2 + in.below(3);
            if (full.nreads < 5 - level || !(full.level_pte[level] & GMMU_PTE_P) ||
                (full.level_pte[level] & GMMU_PTE_PS))
                break;
            const uint64_t entry_pa = full.table_base[level] + 8 * ((va >> (3 + 9 * level)) & 511);
            const uint64_t bit = in.below(2) ? GMMU_PTE_W : GMMU_PTE_U;
            memory::wr(&mem, entry_pa, full.level_pte[level] & ~bit);
            const uint64_t lo = region_lo(va, level);
            invalidate_region(lo, lo + (1ull << (12 + 9 * (level - 1))) - 1);
            break;
        }
        case 5: { // an unrelated invalidation
            const uint64_t a = pick_va(in), b = pick_va(in);
            gmmu_pwc_invalidate_range(pwc, a < b ? a : b, a < b ? b : a);
            break;
        }
        default: { // lookup, check, walk from the hit, fill
            enter(c);
            gmmu_pwc_hit hit;
            if (gmmu_pwc_lookup(pwc, pt[c]->root, va, &hit) != GMMU_OK)
                mismatch("lookup failed", va);
            const unsigned l = hit.start_level;
            if (l < 1 || l > 4)
                mismatch("start level out of range", va);
            if (l == 4) {
                if (hit.table_base != pt[c]->root)
                    mismatch("a miss must start from the root", va);
            } else {
                // The full walk must reach level l through permissive entries.
                for (unsigned k = 4; k > l; k--) {
                    const uint64_t e = full.level_pte[k];
                    if (full.nreads < 5 - k || !(e & GMMU_PTE_P) || (e & GMMU_PTE_PS))
                        mismatch("hit below an entry that is not a present directory", va);
                    if (!gmmu_pte_permissive(e))
                        mismatch("hit skips a restricting entry", va);
                }
                if (hit.table_base != full.table_base[l])
                    mismatch("hit names another table than the current one", va);
            }
            gmmu_walk_result part;
            if (gmmu_walk_from(&ops, hit.table_base, l, va, GMMU_ACC_USER, &part) != GMMU_OK)
                mismatch("walk from the hit failed", va);
            if (part.fault != full.fault || (full.fault == GMMU_FAULT_NONE && part.pa != full.pa))
                mismatch("walk from the hit disagrees with the full walk", va);
            if (in.below(4) != 0) {
                enter(c);
                if (gmmu_pwc_fill(pwc, va, &full) != GMMU_OK)
                    mismatch("fill failed", va);
            }
            break;
        }
        }
    }
    gmmu_pwc_destroy(pwc);
    for (auto *t : pt)
        gmmu_pt_destroy(t);
    return 0;
}
