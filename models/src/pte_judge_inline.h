/* gmmu — gmmu_pte_judge's rule as inline functions, for the walkers in
 * models/src that judge entries per read (gmmu_walk_from, gmmu_walk_step).
 * gmmu_pte_judge (pagetable.c) is gmmu_pte_judge_inline out of line; the
 * rule is in gmmu/pagetable.h. It is split into its steps so that a walk
 * that sets no A/D bits can judge the form of each entry as it reads it
 * (steps 1 and 2, which end the walk) and the permissions once, at the leaf,
 * over the entries it read (steps 3 and 4, which never end it early): the
 * same verdicts, with the permission state out of the read loop
 * (docs/performance.md, "Walker"). */
#ifndef GMMU_PTE_JUDGE_INLINE_H
#define GMMU_PTE_JUDGE_INLINE_H

#include "gmmu/pagetable.h"

#include <stdbool.h>
#include <stdint.h>

#define GMMU_PTE_PAT_LARGE (1ull << 12) /* PAT of a 2 MiB / 1 GiB leaf */

/* The frame of a leaf at `level` (gmmu_pte_leaf_frame), inline for the
 * walks' last step. */
static inline uint64_t gmmu_pte_leaf_frame_inline(unsigned level, uint64_t pte)
{
    const unsigned shift = 12u + 9u * (level - 1u);
    return pte & GMMU_PTE_ADDR_MASK & ~((1ull << shift) - 1);
}

/* Steps 1 and 2: not present, then reserved bits. GMMU_PTE_NEXT (a table
 * pointer), GMMU_PTE_LEAF (level 1 or PS) or GMMU_PTE_FAULT. */
static inline gmmu_pte_verdict gmmu_pte_form_inline(unsigned level, uint64_t pte, gmmu_fault *fault,
                                                    unsigned *fault_level)
{
    /* 1. Not present: a translation fault, whatever the levels above allow. */
    if (__builtin_expect(!(pte & GMMU_PTE_P), 0)) {
        *fault = GMMU_FAULT_NOT_PRESENT;
        *fault_level = level;
        return GMMU_PTE_FAULT;
    }
    /* 2. Reserved bits: PS at level 4; bits 12..shift-1 of a large leaf
     * (bit 12 is PAT, the rest must be 0). */
    const bool is_leaf = level == 1 || (pte & GMMU_PTE_PS);
    if (is_leaf && level > 1) {
        const unsigned shift = 12u + 9u * (level - 1u);
        const uint64_t low = pte & GMMU_PTE_ADDR_MASK & ((1ull << shift) - 1) & ~GMMU_PTE_PAT_LARGE;
        if (level == 4 || low) {
            *fault = GMMU_FAULT_RESERVED;
            *fault_level = level;
            return GMMU_PTE_FAULT;
        }
    }
    return is_leaf ? GMMU_PTE_LEAF : GMMU_PTE_NEXT;
}

/* Step 3 for a well-formed entry: the first entry that denies the access is
 * remembered; an upper entry's W, U and NX accumulate. */
static inline void gmmu_pte_perm_inline(unsigned level, uint64_t pte, unsigned access, bool is_leaf,
                                        gmmu_walk_perm *p)
{
    const uint64_t need = ((access & GMMU_ACC_USER) ? GMMU_PTE_U : 0) |
                          ((access & GMMU_ACC_WRITE) ? GMMU_PTE_W : 0);
    if (__builtin_expect((pte & need) != need, 0) && p->denied == GMMU_FAULT_NONE) {
        p->denied = ((access & GMMU_ACC_USER) && !(pte & GMMU_PTE_U)) ? GMMU_FAULT_USER
                                                                       : GMMU_FAULT_WRITE;
        p->denied_level = (uint8_t)level;
    }
    if (!is_leaf) {
        p->wu &= pte;
        p->nx |= pte & GMMU_PTE_NX;
    }
}

/* Step 4, at a well-formed leaf: a remembered denial is the fault. */
static inline gmmu_pte_verdict gmmu_pte_leaf_inline(const gmmu_walk_perm *p, gmmu_fault *fault,
                                                    unsigned *fault_level)
{
    if (p->denied != GMMU_FAULT_NONE) {
        *fault = (gmmu_fault)p->denied;
        *fault_level = p->denied_level;
        return GMMU_PTE_FAULT;
    }
    return GMMU_PTE_LEAF;
}

static inline gmmu_pte_verdict gmmu_pte_judge_inline(unsigned level, uint64_t pte, unsigned access,
                                                     gmmu_walk_perm *p, gmmu_fault *fault,
                                                     unsigned *fault_level)
{
    const gmmu_pte_verdict v = gmmu_pte_form_inline(level, pte, fault, fault_level);
    if (v == GMMU_PTE_FAULT)
        return v;
    gmmu_pte_perm_inline(level, pte, access, v == GMMU_PTE_LEAF, p);
    if (v == GMMU_PTE_NEXT)
        return v;
    return gmmu_pte_leaf_inline(p, fault, fault_level);
}

#endif
