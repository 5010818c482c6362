/* gmmu — one step of an x86-64 page walk (models/include/gmmu/walk_step.h). */
#include "gmmu/walk_step.h"

void gmmu_walk_step(uint64_t pte, unsigned level, unsigned access, gmmu_walk_step_out *out)
{
    const bool write = (access & GMMU_ACC_WRITE) != 0;
    const bool user = (access & GMMU_ACC_USER) != 0;
    out->fault = GMMU_FAULT_NONE;
    out->leaf = true;
    out->ad_write = false;
    out->pte = pte;
    out->page_shift = 0;
    out->next_table = 0;
    if (!(pte & GMMU_PTE_P)) {
        out->fault = GMMU_FAULT_NOT_PRESENT;
        return;
    }
    const bool is_leaf = level == 1 || (pte & GMMU_PTE_PS);
    if ((pte & GMMU_PTE_PS) && level == 4) {
        out->fault = GMMU_FAULT_RESERVED;
        return;
    }
    if (user && !(pte & GMMU_PTE_U)) {
        out->fault = GMMU_FAULT_USER;
        return;
    }
    if (write && !(pte & GMMU_PTE_W)) {
        out->fault = GMMU_FAULT_WRITE;
        return;
    }
    if (access & GMMU_ACC_SET_AD) {
        const uint64_t want = GMMU_PTE_A | ((is_leaf && write) ? GMMU_PTE_D : 0);
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
    const unsigned shift = 12u + 9u * (level - 1u);
    if ((pte & GMMU_PTE_ADDR_MASK) & ((1ull << shift) - 1)) {
        out->fault = GMMU_FAULT_RESERVED;
        return;
    }
    out->page_shift = shift;
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
