/* gmmu — set-associative data cache: tags, LRU and fill timing.
 *
 * A timing model: it holds no data (the platform keeps data in memory and
 * moves it functionally). Each line carries the cycle its fill arrives, so a
 * hit on a line still being filled completes with the fill (the merge an
 * MSHR would do). The set index is the line number modulo the sets. Writes
 * either allocate (write-back caches such as a GPU L2: the line is marked
 * dirty and its eviction reports a write-back) or do not (write-through,
 * no-allocate L1s: a write hit updates the line, a write miss leaves the
 * cache unchanged). Times are absolute cycles. See docs/architecture.md. */
#ifndef GMMU_CACHE_H
#define GMMU_CACHE_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_cache_config {
    uint64_t bytes;         /* capacity, a power of two, 1 KiB..1 GiB */
    uint32_t ways;          /* associativity, 1..64, dividing bytes / line_bytes */
    uint32_t line_bytes;    /* line size, a power of two, 32..4096 */
    uint32_t hit_cycles;    /* tag + data latency, 0..100000 */
    bool write_allocate;    /* true: write-back, write-allocate; false: write-through, no-allocate */
    /* Virtually indexed, physically tagged (an L1 looked up in parallel
     * with its TLB): the first index_cycles of hit_cycles select the set
     * from untranslated address bits and overlap the translation; the tag
     * compare waits for the physical address. Needs bytes / ways <= the
     * page (gmmu_cache_vipt_check). false: physically indexed. */
    bool vipt;
    uint32_t index_cycles;  /* 0..hit_cycles */
} gmmu_cache_config;

typedef struct gmmu_cache_stats {
    uint64_t read_hits, read_misses, write_hits, write_misses;
    uint64_t hits_under_fill; /* hits that waited for a fill still in flight */
    uint64_t evictions, writebacks;
} gmmu_cache_stats;

typedef struct gmmu_cache_line {
    uint64_t tag;   /* line number + 1; 0 = invalid */
    uint64_t ready; /* cycle the fill arrives */
    uint64_t alloc; /* cycle of the miss that is fetching it */
    uint64_t stamp; /* LRU: last use */
    uint32_t owner; /* who allocated it (gmmu_cache_access_by); GMMU_CACHE_NO_OWNER if unknown */
    bool dirty;
} gmmu_cache_line;

#define GMMU_CACHE_NO_OWNER 0xFFFFFFFFu

typedef struct gmmu_cache {
    gmmu_cache_config cfg;
    uint32_t sets;
    unsigned line_shift;
    gmmu_cache_line *lines; /* sets x ways */
    uint64_t clock;         /* LRU counter */
    gmmu_cache_stats st;
} gmmu_cache;

/* Result of one access. */
typedef struct gmmu_cache_result {
    bool hit;
    uint64_t ready;          /* hit: cycle the data is there (>= now + hit_cycles) */
    bool writeback;          /* the allocation evicted a dirty line ... */
    uint64_t writeback_addr; /* ... at this byte address */
    bool evicted;            /* the allocation evicted a valid line (dirty or not) ... */
    uint64_t evicted_addr;   /* ... at this byte address, */
    uint32_t evicted_owner;  /* ... allocated by this owner (CCWS's victim tag arrays) */
} gmmu_cache_result;

void gmmu_cache_config_default(gmmu_cache_config *c); /* 32 KiB, 4-way, 128 B, 40 cycles */
gmmu_status gmmu_cache_config_check(const gmmu_cache_config *c, gmmu_error *err);
/* A VIPT cache's set index must come from the page offset: bytes / ways
 * (one way) at most 1 << page_shift. OK for a physically indexed cache. */
gmmu_status gmmu_cache_vipt_check(const gmmu_cache_config *c, unsigned page_shift,
                                  gmmu_error *err);
/* Cycles of this cache's hit time hidden under a translation that took
 * xlate_cycles from the access's issue: min(index_cycles, xlate_cycles)
 * for a VIPT cache, 0 otherwise. The access then costs
 * max(translation, index) + (hit_cycles - index_cycles), not their sum. */
uint64_t gmmu_cache_index_overlap(const gmmu_cache_config *c, uint64_t xlate_cycles);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_cache_create(const gmmu_cache_config *cfg, gmmu_cache **out, gmmu_error *err);
void gmmu_cache_destroy(gmmu_cache *c);

/* Access the line holding byte address `addr` at cycle `now`. A hit touches
 * LRU (a write hit marks the line dirty under write_allocate). An access
 * stamped earlier than the miss that allocated the line (accesses of a
 * loosely-timed simulation arrive out of time order) cannot use that fetch:
 * it is a miss, the line stays where it is and now belongs to this earlier
 * fetch (gmmu_cache_fill_ready sets its arrival). A miss that
 * allocates (every read; writes under write_allocate) replaces the LRU way;
 * the caller fetches the line and reports when it arrives with
 * gmmu_cache_fill_ready() (until then the line is ready at `now`). */
void gmmu_cache_access(gmmu_cache *c, uint64_t addr, bool write, uint64_t now,
                       gmmu_cache_result *out);
/* The same, naming who accesses: a line it allocates records `owner`, and an
 * eviction reports the victim's owner. gmmu_cache_access uses
 * GMMU_CACHE_NO_OWNER. */
void gmmu_cache_access_by(gmmu_cache *c, uint64_t addr, bool write, uint64_t now, uint32_t owner,
                          gmmu_cache_result *out);
/* The fill of the line holding `addr` arrives at cycle `ready` (no effect if
 * the line is no longer cached). */
void gmmu_cache_fill_ready(gmmu_cache *c, uint64_t addr, uint64_t ready);
/* True if the line holding `addr` is cached (no state change). */
bool gmmu_cache_probe(const gmmu_cache *c, uint64_t addr);
void gmmu_cache_invalidate_all(gmmu_cache *c);
/* NULL or uninitialized caches are tolerated by every call: an access is a
 * miss that allocates nothing, a probe finds nothing. */

#ifdef __cplusplus
}
#endif
#endif
