/* gmmu — one step of an x86-64 page walk (models/include/gmmu/walk_step.h). */
#include "gmmu/walk_step.h"
#include "pte_judge_inline.h"

void gmmu_walk_step(uint64_t pte, unsigned level, unsigned access, gmmu_walk_perm *p,
                    gmmu_walk_step_out *out)
{
    out->fault = GMMU_FAULT_NONE;
    out->fault_level = 0;
    out->leaf = true;
    out->ad_write = false;
    out->pte = pte;
    out->page_shift = 0;
    out->next_table = 0;
    /* The checks are gmmu_pte_judge's, the one rule of every walker:
     * not-present and reserved bits here, a permission denial remembered in
     * *p and reported at the leaf (docs/smmu.md, "The order of a walk"). */
    gmmu_fault f = GMMU_FAULT_NONE;
    unsigned fl = 0;
    const gmmu_pte_verdict v = gmmu_pte_judge_inline(level, pte, access, p, &f, &fl);
    if (v == GMMU_PTE_FAULT) {
        out->fault = f;
        out->fault_level = fl;
        return;
    }
    const bool is_leaf = v == GMMU_PTE_LEAF;
    /* A/D as gmmu_walk_from: not on or below an entry that denied the access. */
    if ((access & GMMU_ACC_SET_AD) && p->denied == GMMU_FAULT_NONE) {
        const uint64_t want = GMMU_PTE_A | ((is_leaf && (access & GMMU_ACC_WRITE)) ? GMMU_PTE_D : 0);
        if ((pte & want) != want) {
            out->pte = pte | want;
            out->ad_write = true;
        }
    }
    if (!is_leaf) {
        out->leaf = false;
        out->next_table = pte & GMMU_PTE_ADDR_MASK;
        return;
    }
    out->page_shift = 12u + 9u * (level - 1u);
}

uint64_t gmmu_walk_perms(const uint64_t level_pte[GMMU_PT_LEVELS + 1], unsigned start_level,
                         unsigned leaf_level)
{
    if (!level_pte || start_level > GMMU_PT_LEVELS || leaf_level < 1 || leaf_level > start_level)
        return 0;
    uint64_t acc_wu = GMMU_PTE_W | GMMU_PTE_U, acc_nx = 0;
    for (unsigned l = start_level; l > leaf_level; l--) {
        acc_wu &= level_pte[l];
        acc_nx |= level_pte[l] & GMMU_PTE_NX;
    }
    const uint64_t leaf = level_pte[leaf_level];
    return (acc_wu & leaf) | ((acc_nx | leaf) & GMMU_PTE_NX) | (leaf & (GMMU_PTE_A | GMMU_PTE_D));
}
