/* gmmu — UPTC, unified page table cache (AMD).
 *
 * One store for entries of all levels, tagged by the PTE's position (base of
 * its table, index) and holding the next table's base: valid 1 + base 64 +
 * index 9 + data 64 = 138 bits. No prefix is stored twice, but a lookup must
 * probe sequentially: (root, L4 index) gives the L3 table, (L3 table, L3
 * index) the L2 table, (L2 table, L2 index) the L1 table; it stops at the
 * first miss. Latency = probes x probe_cycles (1..3 probes).
 *
 * Entries carry no VA, so a VA-range invalidation flushes the whole UPTC. */
#ifndef GMMU_UPTC_H
#define GMMU_UPTC_H

#include "gmmu/pwc.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_uptc gmmu_uptc;

typedef struct gmmu_uptc_entry_view {
    bool valid;
    uint64_t table;   /* tag: base of the table holding the PTE */
    uint16_t index;   /* tag: index of the PTE in that table */
    uint64_t next;    /* data: base of the table the PTE points to */
} gmmu_uptc_entry_view;

gmmu_status gmmu_uptc_validate(const gmmu_pwc_config *cfg, gmmu_error *err);
uint64_t gmmu_uptc_bits(const gmmu_pwc_config *cfg); /* entries x 138 */
gmmu_status gmmu_uptc_create(const gmmu_pwc_config *cfg, gmmu_uptc **out, gmmu_error *err);
void gmmu_uptc_destroy(gmmu_uptc *u);
/* Sequential probes from root; *probes gets the number of probes made. */
gmmu_status gmmu_uptc_match(gmmu_uptc *u, uint64_t root, uint64_t va, bool touch,
                            gmmu_pwc_path *path, unsigned *probes);
gmmu_status gmmu_uptc_fill(gmmu_uptc *u, const gmmu_pwc_path *path, gmmu_pwc_stats *st);
void gmmu_uptc_invalidate_all(gmmu_uptc *u, gmmu_pwc_stats *st);
uint32_t gmmu_uptc_entries(const gmmu_uptc *u);
gmmu_status gmmu_uptc_entry(const gmmu_uptc *u, uint32_t i, gmmu_uptc_entry_view *v);

const gmmu_uptc *gmmu_pwc_uptc(const gmmu_pwc *p);

#ifdef __cplusplus
}
#endif
#endif
