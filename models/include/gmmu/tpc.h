/* gmmu — TPC, the translation-path cache (baseline of the CPWC paper).
 *
 * Fully associative; an entry holds one walk path: valid (1 bit), the L4, L3
 * and L2 indices (3 x 9) and the bases of the L3, L2 and L1 tables (3 x 64)
 * = 220 bits. A lookup matches the longest prefix over all entries: L4 -> 3
 * reads left, L4+L3 -> 2, L4+L3+L2 -> 1.
 *
 * Partial paths (1 GiB / 2 MiB leaves, walks that faulted) are stored in the
 * same entry format: bit 0 of each 64-bit base field says whether that part
 * is valid. Table bases are 4 KiB aligned, so the paper's 64-bit base fields
 * have 12 spare low bits; this costs no storage beyond the 220 bits.
 *
 * Use through gmmu_pwc (pwc.h); these calls are the per-mechanism layer. */
#ifndef GMMU_TPC_H
#define GMMU_TPC_H

#include "gmmu/pwc.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_tpc gmmu_tpc;

typedef struct gmmu_tpc_entry_view {
    bool valid;
    unsigned depth;       /* parts valid: 1 = L4, 2 = L4+L3, 3 = L4+L3+L2 */
    uint16_t idx[3];      /* [0] = L4 index, [1] = L3, [2] = L2 */
    uint64_t base[3];     /* [0] = L3-table base, [1] = L2-table, [2] = L1-table (bit 0 cleared) */
} gmmu_tpc_entry_view;

gmmu_status gmmu_tpc_validate(const gmmu_pwc_config *cfg, gmmu_error *err);
uint64_t gmmu_tpc_bits(const gmmu_pwc_config *cfg); /* entries x 220 */
gmmu_status gmmu_tpc_create(const gmmu_pwc_config *cfg, gmmu_tpc **out, gmmu_error *err);
void gmmu_tpc_destroy(gmmu_tpc *t);
/* Longest-prefix match of va. path->base[k]/known get the table bases the
 * matching entry gives (k = 3..start level). touch: update recency. */
gmmu_status gmmu_tpc_match(gmmu_tpc *t, uint64_t va, bool touch, gmmu_pwc_path *path);
gmmu_status gmmu_tpc_fill(gmmu_tpc *t, const gmmu_pwc_path *path, gmmu_pwc_stats *st);
void gmmu_tpc_invalidate_all(gmmu_tpc *t, gmmu_pwc_stats *st);
/* lo48 <= hi48, bits 47:0 of canonical VAs */
void gmmu_tpc_invalidate_range(gmmu_tpc *t, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st);
uint32_t gmmu_tpc_entries(const gmmu_tpc *t);
gmmu_status gmmu_tpc_entry(const gmmu_tpc *t, uint32_t i, gmmu_tpc_entry_view *v);

/* The TPC inside a gmmu_pwc (NULL if it is another kind). */
const gmmu_tpc *gmmu_pwc_tpc(const gmmu_pwc *p);

#ifdef __cplusplus
}
#endif
#endif
