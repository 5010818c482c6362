/* gmmu — set-associative TLB golden model.
 *
 * Geometry: `entries` split into sets of `ways`; entries need not be a
 * multiple of ways (the remainder forms one larger last set, e.g. 65 = 6x8 +
 * 1x17 with sets=7). ways == entries gives a fully associative TLB, ways == 1
 * direct-mapped. An entry maps one TLB page of 2^page_shift bytes (the
 * translation of a larger page-table page is cached as the TLB page that
 * contains the address). */
#ifndef GMMU_TLB_H
#define GMMU_TLB_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gmmu_tlb_repl {
    GMMU_TLB_REPL_LRU = 0,
    GMMU_TLB_REPL_PLRU = 1,  /* tree pseudo-LRU (ways per set a power of two) */
    GMMU_TLB_REPL_FIFO = 2,
    GMMU_TLB_REPL_RANDOM = 3 /* xorshift, seeded from config.seed */
} gmmu_tlb_repl;

typedef struct gmmu_tlb_config {
    uint32_t entries;      /* >= 1 */
    uint32_t ways;         /* 1..entries; sets = entries / ways (remainder to the last set) */
    uint32_t page_shift;   /* 12..32: TLB page size */
    gmmu_tlb_repl repl;
    uint32_t lookup_cycles; /* latency of a lookup (hit or miss detect) */
    uint64_t seed;         /* for GMMU_TLB_REPL_RANDOM */
} gmmu_tlb_config;

typedef struct gmmu_tlb_entry {
    uint64_t vpn;      /* VA >> page_shift */
    uint64_t ppn;      /* PA >> page_shift */
    uint64_t perms;    /* leaf PTE permission bits (GMMU_PTE_W/U/NX/D) */
    uint64_t stamp;    /* LRU: last use; FIFO: fill time */
    uint16_t asid;
    bool valid;
} gmmu_tlb_entry;

typedef struct gmmu_tlb_stats {
    uint64_t accesses, hits, misses, fills, evictions, invalidations;
} gmmu_tlb_stats;

typedef struct gmmu_tlb {
    gmmu_tlb_config cfg;
    uint32_t sets;
    uint32_t last_set_ways; /* ways of the last set (>= cfg.ways) */
    gmmu_tlb_entry *e;      /* entries, set-major */
    uint64_t *plru;         /* tree-PLRU bits per set */
    uint64_t clock;
    uint64_t rng;
    gmmu_tlb_stats st;
} gmmu_tlb;

/* Result of a lookup. */
typedef struct gmmu_tlb_result {
    bool hit;
    uint64_t ppn;
    uint64_t perms;
    uint32_t lru_depth; /* 0 = MRU position of its set, on a hit */
    uint32_t cycles;
} gmmu_tlb_result;

gmmu_status gmmu_tlb_config_check(const gmmu_tlb_config *cfg, gmmu_error *err);
gmmu_status gmmu_tlb_init(gmmu_tlb *t, const gmmu_tlb_config *cfg, gmmu_error *err);
void gmmu_tlb_destroy(gmmu_tlb *t);

/* Look up VPN (VA >> page_shift) for asid; updates replacement state and stats. */
gmmu_status gmmu_tlb_lookup(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r);
/* Look up without touching state or counters. */
bool gmmu_tlb_probe(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out);
/* Insert a translation (replacing an existing one for the same vpn/asid).
 * If an entry was evicted, *victim (if non-NULL) gets it and *evicted = true. */
gmmu_status gmmu_tlb_fill(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn, uint64_t perms,
                          gmmu_tlb_entry *victim, bool *evicted);
void gmmu_tlb_invalidate_all(gmmu_tlb *t);
/* Invalidate the entry mapping vpn for asid; returns whether one was removed. */
bool gmmu_tlb_invalidate_page(gmmu_tlb *t, uint16_t asid, uint64_t vpn);
uint32_t gmmu_tlb_invalidate_asid(gmmu_tlb *t, uint16_t asid);
/* Invalidate every entry of asid overlapping [va_lo, va_hi]; returns count. */
uint32_t gmmu_tlb_invalidate_range(gmmu_tlb *t, uint16_t asid, uint64_t va_lo, uint64_t va_hi);

#ifdef __cplusplus
}
#endif
#endif
