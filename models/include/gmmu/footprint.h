/* gmmu — footprint counter: how many distinct pages a stream of addresses
 * touched, at 4 KiB and at 2 MiB. An SM with sm.access_shape counts the
 * pages its global memory instructions touch (gmmu_sm_stats.touched_4k,
 * touched_2m); a TLB private to that SM misses at least once on each of
 * them, so touched / TLB lookups is the miss rate of a TLB that never
 * evicts (the first-touch floor of docs/results/kernels.md).
 *
 *   - a page is counted at its first touch and never again (no eviction,
 *     no reset but gmmu_footprint_clear);
 *   - addresses are virtual and keyed without an address space: one
 *     counter per context;
 *   - the sets grow as pages are first touched (doubling, at most half
 *     full); a failed growth is reported once (gmmu_footprint_add returns
 *     GMMU_ENOMEM) and the counts stop growing from then on. */
#ifndef GMMU_FOOTPRINT_H
#define GMMU_FOOTPRINT_H

#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_footprint gmmu_footprint;

/* Lifecycle (docs/architecture.md): create returns an empty counter
 * (GMMU_ENOMEM if it cannot); destroy frees it (NULL is a no-op). */
gmmu_status gmmu_footprint_create(gmmu_footprint **out, gmmu_error *err);
void gmmu_footprint_destroy(gmmu_footprint *f);

/* Count the pages of the active lanes (bit l of mask: lane l) of addr[32]. */
gmmu_status gmmu_footprint_add(gmmu_footprint *f, const uint64_t addr[32], uint32_t mask);
/* Distinct 4 KiB and 2 MiB pages touched so far. */
uint64_t gmmu_footprint_pages_4k(const gmmu_footprint *f);
uint64_t gmmu_footprint_pages_2m(const gmmu_footprint *f);
void gmmu_footprint_clear(gmmu_footprint *f);

#ifdef __cplusplus
}
#endif

#endif
