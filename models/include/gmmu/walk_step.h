/* gmmu — one step of an x86-64 page walk, as a pure function: what a walker
 * does with the entry it read at one level (the checks, gmmu_pte_judge's,
 * as gmmu_walk_from; the A/D write-back; where the walk goes next), and the permissions
 * of a translation accumulated over the entries a walk read.
 *
 * Walkers that read the entries themselves in some other order (the walk
 * scheduler's MSHRs, docs/walk_scheduler.md) apply these rules to the
 * entries their walks consumed, so every walker kind decides permissions and
 * A/D bits the same way as gmmu_walk_from, once. */
#ifndef GMMU_WALK_STEP_H
#define GMMU_WALK_STEP_H

#include "gmmu/pagetable.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_walk_step_out {
    gmmu_fault fault;    /* != NONE: the walk ends here with this fault */
    unsigned fault_level; /* its level (a permission fault: the first denying entry's) */
    bool leaf;           /* the walk ends here (a leaf, or a fault) */
    bool ad_write;       /* with GMMU_ACC_SET_AD: the entry is written back as `pte` */
    uint64_t pte;        /* the entry after its A/D update (the input when none) */
    unsigned page_shift; /* a translation's page size (leaf without fault), else 0 */
    uint64_t next_table; /* !leaf: the table of level - 1 */
} gmmu_walk_step_out;

/* What a walker does with `pte`, read at `level` (4..1) for an `access`
 * (GMMU_ACC_WRITE | GMMU_ACC_USER | GMMU_ACC_SET_AD), in gmmu_pte_judge's
 * order (gmmu/pagetable.h), the one rule of every walker: not present, then
 * reserved bits (PS at level 4; a large leaf's frame bits below its size,
 * PAT = bit 12 accepted) fault here; a permission denial (U, then W) is
 * remembered in *p (gmmu_walk_perm_init before the first level the walk
 * reads) and is the fault only at a present, well-formed leaf. Then the A/D
 * update (A on every level passed, D on the leaf of a write), none on or
 * below an entry that denied the access. */
void gmmu_walk_step(uint64_t pte, unsigned level, unsigned access, gmmu_walk_perm *p,
                    gmmu_walk_step_out *out);

/* Permissions of a translation from the entries a walk read (level_pte[l]
 * for l = start_level down to leaf_level; the leaf's after its A/D update):
 * W and U only if every entry has them, NX if any has it, A and D the
 * leaf's. Equal to gmmu_walk_result.perms of the same walk. */
uint64_t gmmu_walk_perms(const uint64_t level_pte[GMMU_PT_LEVELS + 1], unsigned start_level,
                         unsigned leaf_level);

#ifdef __cplusplus
}
#endif
#endif
