/* gmmu — the TLB model's fingerprint fast path (included by tlb.c only).
 *
 * Taken by TLBs of the usual geometry: a power-of-two number of uniform sets
 * of at most 64 ways, byte ranks. Each entry has an 8-bit fingerprint of its
 * (tag, ASID) (tlb_internal.h: fingerprint); a set's fingerprints and LRU
 * ranks are compared and updated 16 at a time (SSE2 where the host has it, a
 * plain loop otherwise), and a per-set bit mask keeps which ways are valid.
 * Every function here has a general counterpart in tlb.c that scans the set
 * way by way; tests/models/test_tlb.cpp (TlbFastPathTest) runs both on the
 * same random traffic and requires the same answers, victims and counters. */
#ifndef GMMU_TLB_FAST_H
#define GMMU_TLB_FAST_H

#include "tlb_internal.h"

#include <stdlib.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- fast-path byte groups -------------------------------------------------
 * The fast path (uniform power-of-two sets of <= 64 ways, byte ranks) keeps a
 * set's fingerprints and ranks as `chunks` groups of 16 bytes and works on a
 * whole group at once (SSE2 where the host has it, a plain loop otherwise).
 * Groups may reach into the next set's bytes (or the 16 bytes of padding at
 * the end of the arrays): compare results are masked with way_mask, and rank
 * updates leave bytes outside the set unchanged. */

#define GROUP 16u

/* Bit w of the result: byte w of the set's `chunks` groups equals v. */
static inline uint64_t group_match(const uint8_t *p, uint8_t v, uint32_t chunks)
{
    uint64_t m = 0;
#if defined(__SSE2__)
    const __m128i pat = _mm_set1_epi8((char)v);
    for (uint32_t c = 0; c < chunks; c++) {
        const __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + GROUP * c));
        m |= (uint64_t)(uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, pat)) << (GROUP * c);
    }
#else
    for (uint32_t k = 0; k < GROUP * chunks; k++)
        m |= (uint64_t)(p[k] == v) << k;
#endif
    return m;
}

#if defined(__SSE2__)
/* -1 in the first `lanes` bytes of a group, 0 after: a rank update of the
 * set's last group leaves the next set's bytes alone. */
static inline __m128i tail_mask(uint32_t lanes)
{
    return _mm_cmpgt_epi8(_mm_set1_epi8((char)lanes),
                          _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
}
#endif

/* Ranks of a set (n ways, n <= 64, so every rank < 128) below d move down one
 * place (+1): a hit or fill of the way of rank d. */
static inline void group_rank_up(uint8_t *rk, uint32_t d, uint32_t chunks, uint32_t tail_lanes)
{
#if defined(__SSE2__)
    const __m128i dv = _mm_set1_epi8((char)d);
    for (uint32_t c = 0; c < chunks; c++) {
        __m128i *q = (__m128i *)(void *)(rk + GROUP * c);
        const __m128i v = _mm_loadu_si128(q);
        __m128i lt = _mm_cmpgt_epi8(dv, v); /* -1 where v < d */
        if (c == chunks - 1 && tail_lanes < GROUP)
            lt = _mm_and_si128(lt, tail_mask(tail_lanes));
        _mm_storeu_si128(q, _mm_sub_epi8(v, lt));
    }
#else
    const uint32_t n = GROUP * (chunks - 1) + tail_lanes;
    for (uint32_t k = 0; k < n; k++)
        rk[k] = (uint8_t)(rk[k] + (rk[k] < d));
#endif
}

/* Ranks above d move up one place (-1): the way of rank d was freed. */
static inline void group_rank_down(uint8_t *rk, uint32_t d, uint32_t chunks, uint32_t tail_lanes)
{
#if defined(__SSE2__)
    const __m128i dv = _mm_set1_epi8((char)d);
    for (uint32_t c = 0; c < chunks; c++) {
        __m128i *q = (__m128i *)(void *)(rk + GROUP * c);
        const __m128i v = _mm_loadu_si128(q);
        __m128i gt = _mm_cmpgt_epi8(v, dv); /* -1 where v > d */
        if (c == chunks - 1 && tail_lanes < GROUP)
            gt = _mm_and_si128(gt, tail_mask(tail_lanes));
        _mm_storeu_si128(q, _mm_add_epi8(v, gt));
    }
#else
    const uint32_t n = GROUP * (chunks - 1) + tail_lanes;
    for (uint32_t k = 0; k < n; k++)
        rk[k] = (uint8_t)(rk[k] - (rk[k] > d));
#endif
}


/* Set up the fast path's layout if the geometry allows it (after the entry,
 * fingerprint and rank arrays exist). Returns false when out of memory. */
static bool fast_setup(gmmu_tlb *t)
{
    const gmmu_tlb_config *cfg = &t->cfg;
    if (!(t->set_pow2 && t->last_set_ways == cfg->ways && cfg->ways <= 64 && t->rank8))
        return true; /* the general path */
    t->vmask = calloc(t->sets, sizeof *t->vmask);
    if (!t->vmask)
        return false;
    t->fast = true;
    t->chunks = (cfg->ways + GROUP - 1) / GROUP;
    t->tail_lanes = cfg->ways - GROUP * (t->chunks - 1);
    t->way_mask = cfg->ways == 64 ? ~0ull : (1ull << cfg->ways) - 1;
    return true;
}

/* The valid ways of `set` whose fingerprint is f (bit w: way w). */
static inline uint64_t fast_candidates(const gmmu_tlb *t, uint32_t set, uint8_t f)
{
    return group_match(t->fp + (uint64_t)set * t->cfg.ways, f, t->chunks) & t->vmask[set];
}

/* The way of `set` that maps (asid, vpn), or -1. */
static inline int fast_find(const gmmu_tlb *t, uint32_t set, uint8_t f, uint16_t asid, uint64_t vpn)
{
    const gmmu_tlb_entry *b = t->e + (uint64_t)set * t->cfg.ways;
    uint64_t m = fast_candidates(t, set, f);
    while (m) {
        const uint32_t w = ctz64(m);
        m &= m - 1;
        if (entry_maps(&b[w], asid, vpn))
            return (int)w;
    }
    return -1;
}

/* The lowest free way of `set`, or nways if it is full. */
static inline uint32_t fast_free_way(const gmmu_tlb *t, uint32_t set, uint32_t nways)
{
    const uint64_t free_ways = ~t->vmask[set] & t->way_mask;
    return free_ways ? ctz64(free_ways) : nways;
}

/* The least recently used way of the full set at `base` (rank nways - 1). */
static inline uint32_t fast_lru_way(const gmmu_tlb *t, uint32_t base, uint32_t nways)
{
    return ctz64(group_match(t->rank8 + base, (uint8_t)(nways - 1), t->chunks) & t->way_mask);
}

/* Way w of the set at `base` was freed: it leaves the valid mask and drops
 * to the bottom of the recency stack. */
static inline void fast_clear(gmmu_tlb *t, uint32_t base, uint32_t nways, uint32_t w)
{
    uint8_t *rk = t->rank8 + base;
    const uint32_t d = rk[w];
    t->vmask[base / t->cfg.ways] &= ~(1ull << w);
    group_rank_down(rk, d, t->chunks, t->tail_lanes);
    rk[w] = (uint8_t)(nways - 1);
}

/* Way `slot` of `set` was just filled: valid, most recently used. */
static inline void fast_install(gmmu_tlb *t, uint32_t base, uint32_t set, uint32_t slot)
{
    uint8_t *rk = t->rank8 + base;
    group_rank_up(rk, rk[slot], t->chunks, t->tail_lanes);
    rk[slot] = 0;
    t->vmask[set] |= 1ull << slot;
}

/* The effects of a hit on way w of `set` (not its counting as an access):
 * the way goes to the top of the recency stack, its entry is stamped and
 * counted. Returns its LRU depth before the hit. Shared by lookup_fast and
 * gmmu_tlb_serve_hit, so the two cannot drift apart. */
static inline uint32_t fast_hit(gmmu_tlb *t, uint32_t set, uint32_t w)
{
    const uint32_t base = set * t->cfg.ways;
    uint8_t *rk = t->rank8 + base;
    const uint32_t d = rk[w];
    switch (t->chunks) { /* constant group counts unrolled: <= 16 and 32 ways are the usual TLBs */
    case 1: group_rank_up(rk, d, 1, t->tail_lanes); break;
    case 2: group_rank_up(rk, d, 2, t->tail_lanes); break;
    default: group_rank_up(rk, d, t->chunks, t->tail_lanes); break;
    }
    rk[w] = 0;
    hit_update(t, &t->e[base + w], set, t->cfg.ways, w, ++t->clock);
    return d;
}

/* Hot path, for the usual geometry (uniform power-of-two set count, <= 64
 * ways, byte ranks). The filter compares the set's 8-bit fingerprints 16 at
 * a time (one SSE2 compare and movemask per group) into a bit mask of
 * candidate ways without a branch per way; only candidates touch the entry
 * array, where valid bit, ASID and page are checked. */
static inline gmmu_status lookup_fast(gmmu_tlb *t, uint16_t asid, uint64_t vpn,
                                      gmmu_tlb_result *r)
{
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = (uint32_t)(tag & t->set_mask);
    const uint32_t base = set * t->cfg.ways;
    const uint8_t f = fingerprint(t, tag, asid);
    const uint8_t *fp = t->fp + base;
    uint64_t m;
    r->cycles = t->cfg.lookup_cycles;
    t->st.accesses++;
    switch (t->chunks) { /* constant group counts unrolled: <= 16 and 32 ways are the usual TLBs */
    case 1: m = group_match(fp, f, 1); break;
    case 2: m = group_match(fp, f, 2); break;
    default: m = group_match(fp, f, t->chunks); break;
    }
    m &= t->way_mask;
    while (m) {
        const uint32_t w = ctz64(m);
        m &= m - 1;
        gmmu_tlb_entry *e = &t->e[base + w];
        if (!entry_maps(e, asid, vpn))
            continue;
        r->hit = true;
        r->ppn = e->ppn + (vpn - e->vpn);
        r->perms = e->perms;
        r->ready = e->ready;
        r->leaf_shift = e->leaf_shift;
        r->lru_depth = fast_hit(t, set, w);
        return GMMU_OK;
    }
    t->clock++;
    miss_update(t, r);
    return GMMU_OK;
}

#endif
