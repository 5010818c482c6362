/* gmmu — TCWS's owner map of the L1 TLB (components/tlb.h, track_owners):
 * which warp's miss brought each entry in, so that a fill's victims can be
 * charged to the warp that lost them (gmmu/ccws.h, GMMU_THROTTLE_TCWS).
 *
 *   - owner: block << 6 | warp of the access whose miss filled the entry
 *     (gmmu_tcws_owner_of; warps >= 64 or blocks >= 2^26 have none, and
 *     their fills are not recorded);
 *   - a fill forgets every victim it evicted; the first victim with a known
 *     owner is reported to the access, unless the access reported one
 *     already (an access reports at most one victim, its first);
 *   - entries dropped by an invalidation are never reported to the map, so
 *     it is emptied when, at a fill, it holds more than 4 x tlb_entries
 *     pages; the filled page is recorded after that;
 *   - a page is keyed by asid << 52 | (vpn mod 2^52): ASIDs that differ only
 *     above bit 11 share keys. */
#ifndef GMMU_TCWS_OWNERS_H
#define GMMU_TCWS_OWNERS_H

#include "gmmu/status.h"
#include "gmmu/tlb.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_tcws_owners_config {
    uint32_t tlb_entries; /* the L1 TLB's entries, 1..GMMU_TLB_MAX_ENTRIES */
} gmmu_tcws_owners_config;

typedef struct gmmu_tcws_owners gmmu_tcws_owners;

/* A victim reported to an access: its page and who had filled it. */
typedef struct gmmu_tcws_victim {
    uint64_t vpn;
    uint32_t owner;
} gmmu_tcws_victim;

/* Lifecycle (docs/architecture.md): create checks cfg (named in err) and
 * returns an empty map; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_tcws_owners_create(const gmmu_tcws_owners_config *cfg, gmmu_tcws_owners **out,
                                    gmmu_error *err);
void gmmu_tcws_owners_destroy(gmmu_tcws_owners *o);

/* The owner id of warp `warp` of block `block`; false when it has none. */
static inline bool gmmu_tcws_owner_of(uint32_t block, uint32_t warp, uint32_t *owner)
{
    if (warp >= 64u || block >= (1u << 26))
        return false;
    *owner = block << 6 | warp;
    return true;
}

/* A fill of page (asid, vpn) by an access whose owner is `owner` (has_owner
 * false: none) evicted victims[0..nvictims). Returns true and sets *report
 * when this fill reports a victim (the first one with a known owner, and
 * only if !reported, the access's earlier fills reported none). */
bool gmmu_tcws_owners_fill(gmmu_tcws_owners *o, const gmmu_tlb_entry *victims, uint32_t nvictims,
                           uint16_t asid, uint64_t vpn, bool has_owner, uint32_t owner,
                           bool reported, gmmu_tcws_victim *report);

/* Pages recorded now. */
uint32_t gmmu_tcws_owners_size(const gmmu_tcws_owners *o);

#ifdef __cplusplus
}
#endif

#endif
