/* gmmu — STC, split translation cache (Intel's paging-structure caches).
 *
 * Three independent stores, looked up in parallel; the deepest hit wins:
 *   store 0: tag = L4 index               -> base of the L3 table (74 bits/entry)
 *   store 1: tag = L4, L3 indices         -> base of the L2 table (83 bits/entry)
 *   store 2: tag = L4, L3, L2 indices     -> base of the L1 table (92 bits/entry)
 * Each store is set-associative (ways == 0: fully associative); the set is
 * chosen by the low bits of the store's last index. Entries of different
 * stores never depend on each other, so replacement needs no cross-store
 * invalidation; the L4/L3 prefixes are still stored again in every entry. */
#ifndef GMMU_STC_H
#define GMMU_STC_H

#include "gmmu/pwc.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_stc gmmu_stc;

typedef struct gmmu_stc_entry_view {
    bool valid;
    uint32_t tag;   /* concatenated indices, L4 first (9, 18 or 27 bits) */
    uint64_t base;
} gmmu_stc_entry_view;

gmmu_status gmmu_stc_validate(const gmmu_pwc_config *cfg, gmmu_error *err);
uint64_t gmmu_stc_bits(const gmmu_pwc_config *cfg);
gmmu_status gmmu_stc_create(const gmmu_pwc_config *cfg, gmmu_stc **out, gmmu_error *err);
void gmmu_stc_destroy(gmmu_stc *s);
gmmu_status gmmu_stc_match(gmmu_stc *s, uint64_t va, bool touch, gmmu_pwc_path *path);
gmmu_status gmmu_stc_fill(gmmu_stc *s, const gmmu_pwc_path *path, gmmu_pwc_stats *st);
void gmmu_stc_invalidate_all(gmmu_stc *s, gmmu_pwc_stats *st);
void gmmu_stc_invalidate_range(gmmu_stc *s, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st);
/* store 0..2 (L4, L3, L2 prefixes), entry i < cfg.stc.entries[store] */
gmmu_status gmmu_stc_entry(const gmmu_stc *s, unsigned store, uint32_t i, gmmu_stc_entry_view *v);

const gmmu_stc *gmmu_pwc_stc(const gmmu_pwc *p);

#ifdef __cplusplus
}
#endif
#endif
