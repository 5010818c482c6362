/* gmmu — lost-locality scoring for cache- and TLB-conscious warp scheduling:
 * CCWS (Rogers et al., MICRO'12, as pichai-asplos14 §7 describes it), its
 * TLB-aware variant TA-CCWS and TLB-conscious TCWS (pichai-asplos14 §7.2).
 *
 * Per warp: a victim tag array (VTA, set-associative, LRU) of tags the warp
 * lost, and a lost-locality score (LLS).
 *  - CCWS / TA-CCWS: tags are L1 data-cache line addresses. When the L1
 *    evicts a line, its tag goes into the VTA of the warp that allocated it
 *    (gmmu_ccws_lost). When a warp misses in the L1, its VTA is probed
 *    (gmmu_ccws_probe): a hit means the warp lost that line to other warps'
 *    traffic; the entry leaves the VTA and the warp's score rises by
 *    hit_score x weight. CCWS uses weight 1; TA-CCWS passes tlb_weight when
 *    the access also missed the TLB and cache_weight when it did not.
 *  - TCWS: tags are virtual page numbers; VTAs are filled by TLB evictions
 *    and probed on TLB misses. TLB hits also score: a hit at LRU depth d of
 *    its set (0 = most recent) adds depth_weight[d] points
 *    (gmmu_ccws_depth_hit), deeper = closer to eviction.
 *  - Every cycle every score above base_score falls by decay (to base).
 *  - The pool (gmmu_ccws_pool): the active warps sorted by score, highest
 *    first (ties: lower warp index first); a warp may issue global memory
 *    instructions while the running sum of scores down to and including it
 *    stays within the cutoff, n_active x base_score. With every score at
 *    base all warps are in; one warp's extra score pushes the lowest-scored
 *    warps out. The highest-scored warp is always in.
 * Fixed capacity (GMMU_CCWS_MAX_WARPS x GMMU_CCWS_MAX_VTA tags), no
 * allocation; a cycle-step interface for a later RTL twin. */
#ifndef GMMU_CCWS_H
#define GMMU_CCWS_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_CCWS_MAX_WARPS 64u
#define GMMU_CCWS_MAX_VTA 64u
#define GMMU_CCWS_DEPTHS 8u

typedef struct gmmu_ccws_config {
    uint32_t warps;        /* 1..64 */
    uint32_t vta_entries;  /* per warp, 1..64 (CCWS: 16; TCWS: entries per warp, EPW) */
    uint32_t vta_ways;     /* divides vta_entries (CCWS: 8) */
    uint32_t base_score;   /* score of a warp that lost nothing, >= 1 */
    uint32_t hit_score;    /* added per VTA hit at weight 1, >= 1 */
    uint32_t decay;        /* score lost per cycle above base */
    uint32_t cache_weight; /* TA-CCWS: weight of a VTA hit whose access hit the TLB (power of two) */
    uint32_t tlb_weight;   /* ... and of one that also missed the TLB (power of two) */
    uint32_t depth_weight[GMMU_CCWS_DEPTHS]; /* TCWS: per LRU depth of a TLB hit; 0 = no score;
                                                powers of two */
} gmmu_ccws_config;

typedef struct gmmu_ccws {
    gmmu_ccws_config cfg;
    uint32_t sets;
    uint64_t score[GMMU_CCWS_MAX_WARPS];
    uint64_t tag[GMMU_CCWS_MAX_WARPS][GMMU_CCWS_MAX_VTA];   /* [set * ways + way] */
    uint32_t stamp[GMMU_CCWS_MAX_WARPS][GMMU_CCWS_MAX_VTA]; /* LRU: larger = more recent; 0 = empty */
    uint32_t clock;
    /* statistics */
    uint64_t lost, probes, vta_hits, depth_hits, throttled_cycles;
} gmmu_ccws;

/* CCWS defaults (16-entry 8-way VTAs, base 100, hit 100, decay 1, weights
 * 1:1, no depth weights); checked. */
void gmmu_ccws_config_default(gmmu_ccws_config *c, uint32_t warps);
gmmu_status gmmu_ccws_config_check(const gmmu_ccws_config *c, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_ccws_create(const gmmu_ccws_config *cfg, gmmu_ccws **out, gmmu_error *err);
void gmmu_ccws_destroy(gmmu_ccws *s);
/* Warp w starts anew (a new block in its slot): empty VTA, base score. */
void gmmu_ccws_reset_warp(gmmu_ccws *s, uint32_t w);
/* Tag lost by warp owner (its line or page was evicted): into its VTA. */
void gmmu_ccws_lost(gmmu_ccws *s, uint32_t owner, uint64_t tag);
/* Warp w missed tag; true if the VTA had it (score += hit_score x weight). */
bool gmmu_ccws_probe(gmmu_ccws *s, uint32_t w, uint64_t tag, uint32_t weight);
/* TCWS: warp w hit its TLB at LRU depth d (+ depth_weight[d] points). */
void gmmu_ccws_depth_hit(gmmu_ccws *s, uint32_t w, uint32_t depth);
/* Advance n cycles: decay. */
void gmmu_ccws_tick(gmmu_ccws *s, uint64_t n);
/* The warps of `active` (bit w) that may issue global memory instructions. */
uint64_t gmmu_ccws_pool(const gmmu_ccws *s, uint64_t active);
/* Hardware state in bits: VTA tags (tag_bits each, + a valid bit and
 * log2(ways) LRU bits per entry) and one score_bits counter per warp. */
uint64_t gmmu_ccws_state_bits(const gmmu_ccws_config *c, unsigned tag_bits, unsigned score_bits);

#ifdef __cplusplus
}
#endif
#endif
