/* gmmu — page-table-line cache: a small set-associative, LRU cache of the
 * lines (default 128 bytes = 16 PTEs) that page walks read.
 *
 * Timing: a miss fills its line at now + miss latency; an access to a line
 * whose fill is still in flight counts as a hit ("hit_pending") and returns
 * when the fill does, never earlier than the hit latency. So two reads of one
 * line issued back to back cost one memory access and the second one hits.
 * The cache holds tags only: data always comes from the caller's memory. */
#ifndef GMMU_LINE_CACHE_H
#define GMMU_LINE_CACHE_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_line_cache_config {
    uint32_t lines;       /* total lines, a multiple of ways, >= 1 */
    uint32_t ways;        /* 1..lines; sets = lines / ways, a power of two */
    uint32_t line_bytes;  /* power of two, 8..4096 (default 128) */
    uint32_t hit_cycles;  /* latency of a hit, >= 1 */
    uint32_t miss_cycles; /* lookup cost added to the memory latency on a miss */
} gmmu_line_cache_config;

typedef struct gmmu_line_cache_stats {
    uint64_t accesses, hits, misses;
    uint64_t hits_pending; /* hits on a line whose fill had not completed */
    uint64_t evictions;
} gmmu_line_cache_stats;

typedef struct gmmu_line_cache {
    gmmu_line_cache_config cfg;
    uint32_t sets;
    uint32_t line_shift;
    uint64_t *tag;    /* per line: line address (pa >> line_shift), ~0 when empty */
    uint64_t *stamp;  /* per line: LRU clock of the last access */
    uint64_t *ready;  /* per line: cycle the fill completes */
    uint64_t clock;
    gmmu_line_cache_stats st;
} gmmu_line_cache;

/* 128 lines (16 KiB), 4 ways, 128-byte lines, hit 1 cycle, miss lookup 0. */
void gmmu_line_cache_config_default(gmmu_line_cache_config *cfg);
gmmu_status gmmu_line_cache_config_check(const gmmu_line_cache_config *cfg, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_line_cache_create(const gmmu_line_cache_config *cfg, gmmu_line_cache **out,
                                   gmmu_error *err);
void gmmu_line_cache_destroy(gmmu_line_cache *lc);
/* Empty the cache (counters kept). */
void gmmu_line_cache_flush(gmmu_line_cache *lc);

/* Access the line holding pa at cycle `now`. On a miss the line is filled,
 * evicting the set's LRU line, and the latency is miss_cycles + mem_latency.
 * On a hit the latency is max(hit_cycles, fill completion - now).
 * *hit (optional) tells which. */
gmmu_status gmmu_line_cache_access(gmmu_line_cache *lc, uint64_t pa, uint64_t now,
                                   uint32_t mem_latency, uint32_t *latency, bool *hit);
/* Is the line of pa present (no state or counter change)? */
bool gmmu_line_cache_probe(const gmmu_line_cache *lc, uint64_t pa);

#ifdef __cplusplus
}
#endif
#endif
