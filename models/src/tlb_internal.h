/* gmmu — the TLB model's state and the helpers its two files share
 * (tlb.c: the model; tlb_fast.h: the fingerprint fast path). Private to
 * models/src: users see gmmu_tlb as an opaque handle (gmmu/tlb.h). */
#ifndef GMMU_TLB_INTERNAL_H
#define GMMU_TLB_INTERNAL_H

#include "bitops.h"
#include "gmmu/tlb.h"

#include <stddef.h>
#include <string.h>

/* The SWAR code maps byte k of a loaded word to array element k. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gmmu tlb.c assumes a little-endian host"
#endif

#define RANK8_MAX_WAYS 128u
#define LANES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

struct gmmu_tlb {
    gmmu_tlb_config cfg;
    uint32_t sets;
    uint32_t last_set_ways; /* ways of the last set */
    gmmu_tlb_entry *e;      /* entries, set-major */
    uint64_t *plru;         /* tree-PLRU bits per set */
    uint64_t clock;
    uint64_t rng;
    gmmu_tlb_stats st;
    /* Internal state (read-only for users): the lookup filter, recency ranks,
     * the invalidation generation and the fast path's layout. */
    uint8_t *fp;          /* per entry: 8-bit fingerprint of (tag, asid), the lookup filter */
    uint8_t *rank8;       /* per entry: position in its set's recency stack (0 = MRU; free
                           * entries at the bottom), when every set has <= 128 ways */
    uint32_t *rank32;     /* the same for larger sets */
    uint64_t gen;         /* invalidation generation, see gmmu_tlb_generation() */
    uint64_t set_mask;    /* sets - 1 when sets is a power of two and the index is a mask */
    bool set_pow2;
    uint32_t cov_k;       /* coverage_shift - page_shift (0: no coverage entries) */
    uint32_t min_ways;    /* smaller of ways and last_set_ways (RESIDUE index) */
    bool fast;            /* uniform power-of-two sets of <= 64 ways: specialised lookup
                           * and fill */
    uint32_t chunks;      /* 16-byte groups per set in fp/rank8 (fast path) */
    uint32_t tail_lanes;  /* ways in a set's last 16-byte group (fast path) */
    uint64_t way_mask;    /* bit w set for every way w of a set (fast path) */
    uint64_t *vmask;      /* per set: bit w = way w valid (fast path) */
    uint32_t fp_shift;    /* tag bits above the set index feed the fingerprint */
    struct gmmu_tlb *large[GMMU_TLB_MAX_LARGE]; /* large-page arrays (their stats are theirs) */
    uint32_t nlarge;
    bool pieces;          /* an entry was ever filled as a piece of a larger leaf
                           * (leaf_shift != 0): invalidate_page scans for its siblings */
};

/* 8-bit filter of (tag, asid): the tag bits just above the set index (the
 * bits that tell apart the tags of one set) folded with the ASID. Cheap on
 * purpose: it sits on the lookup's critical path. Collisions cost a check of
 * the entry, never a wrong answer. */
static inline uint8_t fingerprint(const gmmu_tlb *t, uint64_t tag, uint16_t asid)
{
    const uint64_t x = tag >> t->fp_shift;
    return (uint8_t)(x ^ (x >> 8) ^ asid ^ (asid >> 8));
}

/* asid and valid are adjacent: one 32-bit load checks both (the byte after
 * valid, `prefetched`, is masked off). */
_Static_assert(offsetof(gmmu_tlb_entry, valid) == offsetof(gmmu_tlb_entry, asid) + 2,
               "asid and valid must be adjacent");

static inline bool entry_maps(const gmmu_tlb_entry *e, uint16_t asid, uint64_t vpn)
{
    uint32_t av;
    memcpy(&av, &e->asid, sizeof av);
    const uint32_t want = (uint32_t)asid | 0x10000u; /* valid == true (byte 1) */
    /* One test instead of three branches. */
    return (((vpn ^ e->vpn) >> e->span_shift) | (uint64_t)((av & 0xFFFFFFu) ^ want)) == 0;
}

/* Bit i of the tree is node i (heap order, root = 1). A set bit means "the
 * victim is in the right half". Touching way w points every node on its path
 * away from w. */
static inline void plru_touch(uint64_t *bits, uint32_t ways, uint32_t way)
{
    uint32_t node = 1, lo = 0, hi = ways;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (way < mid) {
            *bits |= 1ull << node; /* victim to the right */
            node = 2 * node;
            hi = mid;
        } else {
            *bits &= ~(1ull << node);
            node = 2 * node + 1;
            lo = mid;
        }
    }
}

/* Hit bookkeeping shared by both lookup paths. */
static inline void hit_update(gmmu_tlb *t, gmmu_tlb_entry *e, uint32_t set, uint32_t nways,
                              uint32_t w, uint64_t now)
{
    if (t->cfg.repl == GMMU_TLB_REPL_LRU)
        e->stamp = now;
    else if (t->cfg.repl == GMMU_TLB_REPL_PLRU)
        plru_touch(&t->plru[set], nways, w);
    e->hits += e->hits != UINT32_MAX; /* saturating */
    if (e->prefetched) {
        e->prefetched = false;
        t->st.prefetch_hits++;
    }
    t->st.hits++;
}


/* Miss bookkeeping shared by both lookup paths. */
static inline void miss_update(gmmu_tlb *t, gmmu_tlb_result *r)
{
    r->hit = false;
    r->ppn = 0;
    r->perms = 0;
    r->ready = 0;
    r->leaf_shift = 0;
    r->lru_depth = 0;
    t->st.misses++;
}

/* Shared between tlb.c and tlb_policy.c. */
/* The configuration of large-page array i: its own geometry, the main
 * array's policy and latency. */
void gmmu_tlb_large_config(const gmmu_tlb_config *c, unsigned i, gmmu_tlb_config *s);
/* A read-only probe of the main array (no recency, no counters). */
bool gmmu_tlb_probe_main(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out);

#endif
