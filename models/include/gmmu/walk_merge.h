/* gmmu — walks in flight, for merging a request into a walk of its page.
 *
 * A walker records every walk it completes (its outcome and the time the
 * outcome is ready). A later request whose page is the page a recorded walk
 * translated, in the same context (ASID and table root), and which arrives
 * before that walk is ready, takes the walk's outcome instead of walking
 * again: it is ready when the walk is. The page is the one the walk actually
 * translated, of any size (4 KiB, 2 MiB, 1 GiB): a request is looked up at
 * each page size a walk may have ended at.
 *
 * A write does not merge into a walk whose leaf is read-only or not yet
 * dirty, nor an unprivileged request into a walk whose translation lacks U
 * (gmmu_tlb_needs_walk): the walker decides the access itself.
 * Faulting walks are not recorded.
 *
 * The table is direct-mapped (a hash of context and page picks the slot):
 * recording over an occupied slot only loses a merge opportunity. Times are
 * the caller's units (the TLM walker uses simulated picoseconds).
 */
#ifndef GMMU_WALK_MERGE_H
#define GMMU_WALK_MERGE_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The outcome of a walk, as a merged request receives it. */
typedef struct gmmu_wm_walk {
    uint64_t va;          /* the walked address (a merged request keeps its own) */
    uint64_t pa;          /* translation of va */
    uint64_t perms;       /* leaf permission bits accumulated over the walk */
    uint8_t page_shift;   /* 12, 21 or 30: the page the walk translated */
    uint8_t contig_log2;  /* leaf PTE contiguity hint */
    uint8_t level_hit;    /* where the walk's requester was answered (0 = walk) */
} gmmu_wm_walk;

typedef struct gmmu_wm_slot {
    uint64_t vpn;         /* va >> page_shift */
    uint64_t root;
    uint64_t ready;       /* absolute time the walk's outcome is ready */
    gmmu_wm_walk walk;
    uint16_t asid;
    bool valid;
} gmmu_wm_slot;

typedef struct gmmu_wm_stats {
    uint64_t lookups, merges, records, overwrites, invalidated;
} gmmu_wm_stats;

typedef struct gmmu_walk_merge {
    gmmu_wm_slot *slots;
    uint32_t nslots;      /* power of two */
    uint32_t slot_bits;   /* log2(nslots) */
    uint32_t sizes_seen;  /* bit i: a walk of the i-th page size (4 KiB, 2 MiB, 1 GiB) was
                             recorded since the last clear; a merge probes only those sizes */
    gmmu_wm_stats st;
} gmmu_walk_merge;

typedef struct gmmu_wm_config {
    uint32_t slots; /* walks tracked at once: a power of two, 2..2^20 */
} gmmu_wm_config;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_wm_create(const gmmu_wm_config *cfg, gmmu_walk_merge **out, gmmu_error *err);
void gmmu_wm_destroy(gmmu_walk_merge *m);

/* Record a completed walk of context (asid, root), ready at `ready`. */
void gmmu_wm_record(gmmu_walk_merge *m, uint16_t asid, uint64_t root, const gmmu_wm_walk *w,
                    uint64_t ready);

/* A request of (asid, root) for `va` arriving at `now`: if a walk of its page
 * is still in flight (ready > now) and may serve it, fill *out with that
 * walk's outcome for the request's own va, *ready with the walk's ready time,
 * and return true. access: GMMU_ACC_WRITE / GMMU_ACC_USER bits. */
bool gmmu_wm_merge(gmmu_walk_merge *m, uint16_t asid, uint64_t root, uint64_t va, unsigned access,
                   uint64_t now, gmmu_wm_walk *out, uint64_t *ready);

/* Drop the walks whose page overlaps [lo, hi] (inclusive); all_asids false
 * limits it to `asid`. */
void gmmu_wm_invalidate(gmmu_walk_merge *m, bool all_asids, uint16_t asid, uint64_t lo,
                        uint64_t hi);
void gmmu_wm_clear(gmmu_walk_merge *m);

#ifdef __cplusplus
}
#endif
#endif
