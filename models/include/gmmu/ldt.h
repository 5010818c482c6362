/* gmmu — Locality Detection Table of PICLE / Valkyrie inter-CU TLB
 * prefetching (garg-picle).
 *
 * The LDT sits beside the shared L2 TLB. It holds, per page, a hashed tag
 * and a bitmap of the CUs whose L1 TLB accessed the page:
 *   - every L1 TLB access calls gmmu_ldt_update(asid, vpn, cu);
 *   - every L2 TLB eviction calls gmmu_ldt_on_evict(asid, vpn, ...), which
 *     returns the CUs to push the evicted translation into (their L1 TLBs
 *     fill it with GMMU_TLB_FILL_PREFETCH, so the TLB counts use and
 *     pollution);
 *   - gmmu_ldt_sharers() answers "which peer L1 TLBs touched this page" for
 *     Valkyrie's probing of peers before the L2 (not built by PICLE).
 * The table is set-associative with LRU replacement. The tag is a hash of
 * (asid, vpn) cut to tag_bits, so two pages can alias: hardware cannot tell,
 * and neither does the model's behaviour; the model additionally keeps the
 * full key of every entry only to count aliasing (stats.alias_*). */
#ifndef GMMU_LDT_H
#define GMMU_LDT_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_LDT_MAX_CUS 1024u
#define GMMU_LDT_NO_CU UINT32_MAX

typedef struct gmmu_ldt_config {
    uint32_t entries;       /* 1..1048576 */
    uint32_t ways;          /* 1..entries, dividing entries (ways == entries: fully associative) */
    uint32_t cus;           /* CUs tracked (bitmap width), 1..1024 */
    uint32_t tag_bits;      /* stored hashed-tag width, 1..32; 0 = 16 */
    uint64_t seed;          /* hash seed */
    uint32_t lookup_cycles; /* reported by gmmu_ldt_on_evict (the caller adds it to the push) */
    uint32_t update_cycles; /* reported by gmmu_ldt_update (off the L1 critical path) */
} gmmu_ldt_config;

typedef struct gmmu_ldt_stats {
    uint64_t updates;      /* L1 accesses recorded */
    uint64_t update_hits;  /* ... that found their entry */
    uint64_t allocations;  /* entries allocated */
    uint64_t replacements; /* valid entries replaced (sharing history lost) */
    uint64_t lookups;      /* L2 evictions looked up */
    uint64_t lookup_hits;  /* ... that found an entry */
    uint64_t pushes;       /* CUs returned by on_evict: prefetches issued */
    uint64_t alias_updates; /* updates that matched another page's tag (model-only count) */
    uint64_t alias_hits;    /* eviction lookups that matched another page's tag */
} gmmu_ldt_stats;

typedef struct gmmu_ldt {
    gmmu_ldt_config cfg;
    uint32_t sets, words; /* words: 64-bit bitmap words per entry */
    uint32_t *tag;
    uint64_t *key;   /* full (asid, vpn) key, for alias accounting only */
    uint64_t *stamp; /* LRU: last use; 0 = free */
    uint64_t *bits;  /* CU bitmaps, `words` per entry */
    uint64_t clock;
    gmmu_ldt_stats st;
} gmmu_ldt;

gmmu_status gmmu_ldt_config_check(const gmmu_ldt_config *cfg, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_ldt_create(const gmmu_ldt_config *cfg, gmmu_ldt **out, gmmu_error *err);
void gmmu_ldt_destroy(gmmu_ldt *l);
void gmmu_ldt_clear(gmmu_ldt *l);

/* An L1 TLB access by `cu` to page (asid, vpn): set the CU's bit, allocating
 * the entry (LRU victim) if absent. *cycles (if non-NULL) = update_cycles. */
gmmu_status gmmu_ldt_update(gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t cu,
                            uint32_t *cycles);

/* The L2 TLB evicted (asid, vpn): write the CUs of its bitmap in ascending
 * order to cus[0..*n) (cap must be >= cfg.cus) and count them as pushes.
 * *n = 0 when the page has no entry. The entry stays (its sharers are still
 * the page's sharers). *cycles (if non-NULL) = lookup_cycles. */
gmmu_status gmmu_ldt_on_evict(gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t *cus,
                              uint32_t cap, uint32_t *n, uint32_t *cycles);

/* CUs recorded for (asid, vpn) other than `self` (GMMU_LDT_NO_CU: none
 * excluded), without touching state or counters: the probe targets of
 * Valkyrie. Same output rules as on_evict. */
gmmu_status gmmu_ldt_sharers(const gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t self,
                             uint32_t *cus, uint32_t cap, uint32_t *n);

/* Storage of the table in bits: entries x (valid + tag_bits + cus), plus
 * per-set LRU state of ceil(log2(ways)) bits per entry. */
uint64_t gmmu_ldt_storage_bits(const gmmu_ldt_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
