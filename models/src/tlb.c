/* gmmu — set-associative TLB golden model (gmmu/tlb.h). The state is in
 * tlb_internal.h; the fingerprint fast path, taken by the usual geometries,
 * is in tlb_fast.h, and every operation here falls back to a general path
 * that scans a set way by way. */
#include "gmmu/pagetable.h"
#include "tlb_fast.h"
#include "tlb_internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void free_arrays(gmmu_tlb *t)
{
    free(t->e);
    free(t->plru);
    free(t->fp);
    free(t->rank8);
    free(t->rank32);
    free(t->vmask);
    t->vmask = NULL;
    t->e = NULL;
    t->plru = NULL;
    t->fp = NULL;
    t->rank8 = NULL;
    t->rank32 = NULL;
    t->fast = false;
}

/* ---- recency stack ----------------------------------------------------------
 * Each set keeps a permutation rank[0..nways): 0 = most recently used (hit or
 * filled), free entries at the bottom. The LRU-stack depth of a hit is its
 * rank; the LRU victim of a full set is the entry of rank nways - 1. */

static inline uint32_t set_of_index(const gmmu_tlb *t, uint32_t i)
{
    uint32_t s = i / t->cfg.ways;
    return s < t->sets ? s : t->sets - 1;
}

static void reset_ranks(gmmu_tlb *t)
{
    for (uint32_t i = 0; i < t->cfg.entries; i++) {
        uint32_t r = i - set_of_index(t, i) * t->cfg.ways;
        if (t->rank8)
            t->rank8[i] = (uint8_t)r;
        else
            t->rank32[i] = r;
    }
}

static inline uint32_t rank_get(const gmmu_tlb *t, uint32_t i)
{
    return t->rank8 ? t->rank8[i] : t->rank32[i];
}

static inline uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void store64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, sizeof v);
}

/* Move way w (rank d) of the set at `base` to the top of the stack. */
static inline void rank_touch(gmmu_tlb *t, uint32_t base, uint32_t nways, uint32_t w, uint32_t d)
{
    if (t->rank8) {
        uint8_t *r = t->rank8 + base;
        /* SWAR, 8 ranks (< 128) per word: byte x gets +1 iff x <= d - 1. */
        const uint64_t cmp = LANES * (0x80u | (d - 1));
        const uint64_t dmask = d ? ~0ull : 0;
        for (uint32_t k = 0; k < nways; k += 8) {
            uint64_t v = load64(r + k);
            uint64_t inc = ((cmp - v) & HIGHS & dmask) >> 7;
            if (nways - k < 8)
                inc &= (1ull << (8 * (nways - k))) - 1; /* bytes of the next set */
            store64(r + k, v + inc);
        }
        r[w] = 0;
    } else {
        uint32_t *r = t->rank32 + base;
        for (uint32_t k = 0; k < nways; k++)
            r[k] += r[k] < d;
        r[w] = 0;
    }
}

/* Move way w to the bottom (it was just freed). */
static void rank_drop(gmmu_tlb *t, uint32_t base, uint32_t nways, uint32_t w)
{
    const uint32_t d = rank_get(t, base + w);
    for (uint32_t k = 0; k < nways; k++) {
        uint32_t i = base + k, x = rank_get(t, i);
        if (x > d) {
            if (t->rank8)
                t->rank8[i] = (uint8_t)(x - 1);
            else
                t->rank32[i] = x - 1;
        }
    }
    if (t->rank8)
        t->rank8[base + w] = (uint8_t)(nways - 1);
    else
        t->rank32[base + w] = nways - 1;
}



static void tlb_release(gmmu_tlb *t);

static gmmu_status tlb_init(gmmu_tlb *t, const gmmu_tlb_config *cfg, gmmu_error *err)
{
    gmmu_status s = gmmu_tlb_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->sets = cfg->sets ? cfg->sets : cfg->entries / cfg->ways;
    t->last_set_ways = cfg->entries - (t->sets - 1) * cfg->ways;
    t->min_ways = t->last_set_ways < cfg->ways ? t->last_set_ways : cfg->ways;
    t->cov_k = cfg->coverage_shift ? cfg->coverage_shift - cfg->page_shift : 0;
    /* A mask is exact when sets is a power of two and either the index is
     * MODULO or the sets are uniform (RESIDUE then reduces to MODULO). */
    t->set_pow2 = gmmu_is_pow2_u64(t->sets) &&
                  (cfg->index == GMMU_TLB_INDEX_MODULO || t->last_set_ways == cfg->ways);
    t->set_mask = t->sets - 1;
    t->e = calloc(cfg->entries, sizeof *t->e);
    t->plru = calloc(t->sets, sizeof *t->plru);
    /* 16 bytes of padding: the fast path reads the byte arrays 16 at a time. */
    t->fp = calloc((size_t)cfg->entries + GROUP, 1);
    if (t->last_set_ways <= RANK8_MAX_WAYS && cfg->ways <= RANK8_MAX_WAYS)
        t->rank8 = calloc((size_t)cfg->entries + GROUP, 1);
    else
        t->rank32 = calloc(cfg->entries, sizeof *t->rank32);
    if (!t->e || !t->plru || !t->fp || (!t->rank8 && !t->rank32)) {
        free_arrays(t);
        return GMMU_ENOMEM;
    }
    reset_ranks(t);
    t->fp_shift = t->set_pow2 ? gmmu_log2_u64(t->sets) : 0;
    if (!fast_setup(t)) {
        free_arrays(t);
        return GMMU_ENOMEM;
    }
    t->rng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ull;
    for (unsigned i = 0; i < GMMU_TLB_MAX_LARGE && cfg->large[i].entries; i++) {
        gmmu_tlb_config lc;
        gmmu_tlb_large_config(cfg, i, &lc);
        gmmu_tlb *l = calloc(1, sizeof *l);
        if (!l || tlb_init(l, &lc, err) != GMMU_OK) {
            free(l);
            tlb_release(t);
            return GMMU_ENOMEM;
        }
        t->large[t->nlarge++] = l;
    }
    return GMMU_OK;
}

/* Free what tlb_init allocated (not t itself). */
static void tlb_release(gmmu_tlb *t)
{
    for (uint32_t i = 0; i < t->nlarge; i++) {
        tlb_release(t->large[i]);
        free(t->large[i]);
        t->large[i] = NULL;
    }
    t->nlarge = 0;
    free_arrays(t);
}

gmmu_status gmmu_tlb_create(const gmmu_tlb_config *cfg, gmmu_tlb **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "tlb", "output pointer is NULL");
    *out = NULL;
    gmmu_tlb *t = calloc(1, sizeof *t);
    if (!t)
        return GMMU_ENOMEM;
    const gmmu_status s = tlb_init(t, cfg, err);
    if (s != GMMU_OK) {
        free(t);
        return s;
    }
    *out = t;
    return GMMU_OK;
}

void gmmu_tlb_destroy(gmmu_tlb *t)
{
    if (!t)
        return;
    tlb_release(t);
    free(t);
}

const gmmu_tlb_stats *gmmu_tlb_stats_of(const gmmu_tlb *t)
{
    return t ? &t->st : NULL;
}

const gmmu_tlb_config *gmmu_tlb_config_of(const gmmu_tlb *t)
{
    return t ? &t->cfg : NULL;
}

uint32_t gmmu_tlb_sets(const gmmu_tlb *t)
{
    return t ? t->sets : 0;
}

bool gmmu_tlb_fast_path(const gmmu_tlb *t)
{
    return t && t->fast;
}

gmmu_status gmmu_tlb_use_general_path(gmmu_tlb *t)
{
    if (!t || gmmu_tlb_occupancy(t) != 0)
        return GMMU_EINVAL;
    t->fast = false; /* the general path keeps no valid-way mask */
    for (uint32_t i = 0; i < t->nlarge; i++)
        t->large[i]->fast = false;
    return GMMU_OK;
}

const gmmu_tlb *gmmu_tlb_large_array(const gmmu_tlb *t, unsigned shift)
{
    if (!t)
        return NULL;
    for (uint32_t i = 0; i < t->nlarge; i++)
        if (t->cfg.large[i].shift == shift)
            return t->large[i];
    return NULL;
}

/* TLB pages per page of large-page array i (log2). */
static inline uint32_t large_d(const gmmu_tlb *t, uint32_t i)
{
    return t->cfg.large[i].shift - t->cfg.page_shift;
}

/* An entry of large-page array i in TLB pages. */
static void large_entry_out(const gmmu_tlb *t, uint32_t i, gmmu_tlb_entry *e)
{
    const uint32_t d = large_d(t, i);
    e->vpn <<= d;
    e->ppn <<= d;
    e->span_shift = (uint8_t)d;
    e->large_shift = (uint8_t)t->cfg.large[i].shift;
}

/* ---- geometry ------------------------------------------------------------ */

static uint32_t set_of_tag_slow(const gmmu_tlb *t, uint64_t tag)
{
    if (t->cfg.index == GMMU_TLB_INDEX_MODULO || t->last_set_ways == t->cfg.ways)
        return (uint32_t)(tag % t->sets);
    /* RESIDUE with one set differing: residues [0, S*m) interleave over all
     * sets; the rest belong to the set(s) with more ways. */
    uint64_t x = tag % t->cfg.entries, interleaved = (uint64_t)t->sets * t->min_ways;
    if (x < interleaved)
        return (uint32_t)(x % t->sets);
    x -= interleaved;
    if (t->last_set_ways > t->cfg.ways)
        return t->sets - 1;
    return (uint32_t)(x % (t->sets - 1)); /* last set is the small one */
}

static inline uint32_t set_of_tag(const gmmu_tlb *t, uint64_t tag)
{
    if (t->set_pow2)
        return (uint32_t)(tag & t->set_mask);
    return set_of_tag_slow(t, tag);
}

static inline uint32_t nways_of(const gmmu_tlb *t, uint32_t set)
{
    return set == t->sets - 1 ? t->last_set_ways : t->cfg.ways;
}


uint32_t gmmu_tlb_set_of(const gmmu_tlb *t, uint64_t vpn)
{
    if (!t || !t->e)
        return 0;
    return set_of_tag(t, vpn >> t->cov_k);
}

uint32_t gmmu_tlb_set_ways(const gmmu_tlb *t, uint32_t set)
{
    if (!t || !t->e || set >= t->sets)
        return 0;
    return nways_of(t, set);
}

uint32_t gmmu_tlb_occupancy(const gmmu_tlb *t)
{
    uint32_t n = 0;
    if (!t || !t->e)
        return 0;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        n += t->e[i].valid;
    for (uint32_t i = 0; i < t->nlarge; i++)
        n += gmmu_tlb_occupancy(t->large[i]);
    return n;
}

uint64_t gmmu_tlb_generation(const gmmu_tlb *t)
{
    return t ? t->gen : 0;
}

/* ---- tree-PLRU ------------------------------------------------------------ */


static uint32_t plru_victim(uint64_t bits, uint32_t ways)
{
    uint32_t node = 1, lo = 0, hi = ways;
    while (hi - lo > 1) {
        uint32_t mid = (lo + hi) / 2;
        if (bits & (1ull << node)) {
            node = 2 * node + 1;
            lo = mid;
        } else {
            node = 2 * node;
            hi = mid;
        }
    }
    return lo;
}

/* ---- lookup ----------------------------------------------------------------- */


static inline uint64_t gather_highs(uint64_t z)
{
    return ((z >> 7) * 0x0102040810204080ull) >> 56; /* byte high bits -> 8-bit mask */
}



/* General lookup: any geometry (non-uniform sets, non-power-of-two set
 * counts, sets of more than 64 ways, 32-bit ranks). Same filter as the fast
 * path, in groups of 64 ways, with the flags gathered in way order. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static gmmu_status lookup_general(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r)
{
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = set_of_tag(t, tag);
    const uint32_t nways = nways_of(t, set);
    const uint32_t base = set * t->cfg.ways;
    const uint64_t pat = LANES * fingerprint(t, tag, asid);
    const uint8_t *fp = t->fp + base;
    const uint64_t now = ++t->clock;
    t->st.accesses++;
    r->cycles = t->cfg.lookup_cycles;
    for (uint32_t g = 0; g < nways; g += 64) {
        /* Candidate bit mask of up to 64 ways, built without data-dependent
         * branches: the high bit of every matching byte, gathered 8 at a
         * time by a multiply. */
        const uint32_t gend = nways - g < 64 ? nways : g + 64;
        uint64_t m = 0;
        for (uint32_t k = g; k < gend; k += 8) {
            const uint64_t x = load64(fp + k) ^ pat;
            uint64_t z = (x - LANES) & ~x & HIGHS;
            if (gend - k < 8)
                z &= (1ull << (8 * (gend - k))) - 1;
            m |= gather_highs(z) << (k - g);
        }
        while (m) {
            const uint32_t w = g + ctz64(m);
            m &= m - 1;
            gmmu_tlb_entry *e = &t->e[base + w];
            if (!entry_maps(e, asid, vpn))
                continue;
            r->hit = true;
            r->ppn = e->ppn + (vpn - e->vpn);
            r->perms = e->perms;
            r->ready = e->ready;
            r->leaf_shift = e->leaf_shift;
            const uint32_t depth = rank_get(t, base + w);
            r->lru_depth = depth;
            rank_touch(t, base, nways, w, depth);
            hit_update(t, e, set, nways, w, now);
            return GMMU_OK;
        }
    }
    miss_update(t, r);
    return GMMU_OK;
}

/* The general path lives in its own function so that the fast path does not
 * pay for its register saves. */
/* After a miss of the main array: the large-page arrays. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static gmmu_status lookup_large(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r)
{
    for (uint32_t i = 0; i < t->nlarge; i++) {
        const uint32_t d = large_d(t, i);
        gmmu_tlb_result lr;
        gmmu_tlb_lookup(t->large[i], asid, vpn >> d, &lr);
        if (!lr.hit)
            continue;
        *r = lr;
        r->ppn = (lr.ppn << d) | (vpn & ((1ull << d) - 1));
        r->page_shift = (uint8_t)t->cfg.large[i].shift;
        t->st.misses--; /* the TLB as a whole hit */
        t->st.hits++;
        return GMMU_OK;
    }
    return GMMU_OK;
}

gmmu_status gmmu_tlb_lookup(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r)
{
    if (!t || !r)
        return GMMU_EINVAL;
    r->page_shift = (uint8_t)t->cfg.page_shift;
    if (t->fast) { /* only set by a successful init */
        lookup_fast(t, asid, vpn, r);
    } else {
        if (!t->e)
            return GMMU_EINVAL;
        lookup_general(t, asid, vpn, r);
    }
    if (r->hit || !t->nlarge)
        return GMMU_OK;
    return lookup_large(t, asid, vpn, r);
}

/* A hit that the model serves, taken in one step: the fingerprint filter
 * finds the way, the permission check runs before anything changes, and only
 * then are the lookup's effects applied, the same ones lookup_fast applies
 * to a hit (access and hit counters, recency, LRU stamp, prefetch credit).
 * Anything else (a miss, a hit the walker must decide, a large-page array,
 * the general geometry) returns false with nothing changed, and the caller
 * asks gmmu_tlb_answer_access, which then does the whole lookup once. */
bool gmmu_tlb_serve_hit(gmmu_tlb *t, uint16_t asid, uint64_t vpn, unsigned access, gmmu_tlb_answer *a)
{
    if (!t || !a || !t->fast)
        return false;
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = (uint32_t)(tag & t->set_mask);
    const int w = fast_find(t, set, fingerprint(t, tag, asid), asid, vpn);
    if (w < 0)
        return false;
    const uint32_t base = set * t->cfg.ways;
    gmmu_tlb_entry *e = &t->e[base + (uint32_t)w];
    if (gmmu_tlb_needs_walk(e->perms, access))
        return false;
    a->verdict = GMMU_TLB_SERVED;
    a->ppn = e->ppn + (vpn - e->vpn);
    a->perms = e->perms;
    a->ready = e->ready;
    a->span_shift = t->cov_k ? e->span_shift : 0;
    a->page_shift = (uint8_t)t->cfg.page_shift;
    a->leaf_shift = e->leaf_shift < a->page_shift ? a->page_shift : e->leaf_shift;
    t->st.accesses++;
    a->lru_depth = fast_hit(t, set, (uint32_t)w);
    return true;
}

bool gmmu_tlb_probe_main(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out)
{
    if (!t || !t->e)
        return false;
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = set_of_tag(t, tag);
    const uint32_t nways = nways_of(t, set);
    const gmmu_tlb_entry *b = t->e + (uint64_t)set * t->cfg.ways;
    if (t->fast) { /* the lookup's filter, valid ways only */
        const int w = fast_find(t, set, fingerprint(t, tag, asid), asid, vpn);
        if (w >= 0 && out)
            *out = b[w];
        return w >= 0;
    }
    for (uint32_t w = 0; w < nways; w++)
        if (entry_maps(&b[w], asid, vpn)) {
            if (out)
                *out = b[w];
            return true;
        }
    return false;
}

bool gmmu_tlb_probe(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out)
{
    if (gmmu_tlb_probe_main(t, asid, vpn, out))
        return true;
    if (!t)
        return false;
    for (uint32_t i = 0; i < t->nlarge; i++) {
        gmmu_tlb_entry e;
        if (!gmmu_tlb_probe_main(t->large[i], asid, vpn >> large_d(t, i), &e))
            continue;
        if (out) {
            *out = e;
            large_entry_out(t, i, out);
        }
        return true;
    }
    return false;
}

static bool set_ready_main(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ready)
{
    if (!t || !t->e)
        return false;
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = set_of_tag(t, tag);
    const uint32_t nways = nways_of(t, set);
    gmmu_tlb_entry *b = t->e + (uint64_t)set * t->cfg.ways;
    if (t->fast) { /* the lookup's filter, valid ways only */
        const int w = fast_find(t, set, fingerprint(t, tag, asid), asid, vpn);
        if (w >= 0)
            b[w].ready = ready;
        return w >= 0;
    }
    for (uint32_t w = 0; w < nways; w++)
        if (entry_maps(&b[w], asid, vpn)) {
            b[w].ready = ready;
            return true;
        }
    return false;
}

bool gmmu_tlb_set_ready(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ready)
{
    if (set_ready_main(t, asid, vpn, ready))
        return true;
    if (!t)
        return false;
    for (uint32_t i = 0; i < t->nlarge; i++)
        if (set_ready_main(t->large[i], asid, vpn >> large_d(t, i), ready))
            return true;
    return false;
}

/* ---- fill ------------------------------------------------------------------- */

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

static void clear_slot(gmmu_tlb *t, uint32_t base, uint32_t nways, uint32_t w)
{
    t->e[base + w].valid = false;
    t->e[base + w].prefetched = false;
    if (t->fast)
        fast_clear(t, base, nways, w);
    else
        rank_drop(t, base, nways, w);
}

/* An entry of the set that overlaps pages [vpn, last] of asid: 0 = it does not
 * (or is invalid); 1 = it did and was cleared; 2 = the fill is a prefetch of
 * the translation the entry already holds (nothing to do). */
static inline int take_overlap(gmmu_tlb *t, uint32_t base, uint32_t nways, uint32_t w,
                               uint16_t asid, uint64_t vpn, uint64_t last, uint64_t ppn,
                               bool prefetch)
{
    const gmmu_tlb_entry *e = &t->e[base + w];
    if (!e->valid || e->asid != asid)
        return 0;
    const uint64_t elast = e->vpn + ((1ull << e->span_shift) - 1);
    if (e->vpn > last || elast < vpn)
        return 0;
    if (prefetch && e->vpn <= vpn && elast >= last && e->ppn + (vpn - e->vpn) == ppn)
        return 2;
    clear_slot(t, base, nways, w);
    return 1;
}

static void clear_index(gmmu_tlb *t, uint32_t i)
{
    const uint32_t set = set_of_index(t, i), base = set * t->cfg.ways;
    clear_slot(t, base, nways_of(t, set), i - base);
}

/* Install one entry mapping pages [vpn, vpn + 2^span) -> [ppn, ...), its
 * translation arriving at `ready` (0: with the fill). vpn is
 * aligned to the span; leaf: log2 bytes of the page-table leaf it comes from
 * (0: not known, the entry is its own leaf). Returns whether an entry was written; a valid victim
 * goes to *victim and sets *evicted. */
static bool fill_one(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn, uint64_t perms,
                     uint32_t span, uint32_t leaf, bool prefetch, uint64_t ready,
                     gmmu_tlb_entry *victim, bool *evicted)
{
    const uint64_t tag = vpn >> t->cov_k;
    const uint32_t set = set_of_tag(t, tag);
    const uint32_t nways = nways_of(t, set);
    const uint32_t base = set * t->cfg.ways;
    gmmu_tlb_entry *b = t->e + base;
    const uint64_t last = vpn + ((1ull << span) - 1);
    uint32_t slot = nways;

    const uint8_t f = fingerprint(t, tag, asid);

    *evicted = false;
    /* Entries overlapping the new one (same ASID) are replaced: at most one
     * entry ever maps a page. A prefetch of a translation already present
     * changes nothing. An entry lies inside one coverage region (its span is
     * one page or the whole region), so an overlapping entry has the new
     * entry's tag and ASID, hence its fingerprint: the fast path checks only
     * the valid ways whose fingerprint matches, in way order like the full
     * scan of the general path. */
    if (t->fast) {
        uint64_t m = fast_candidates(t, set, f);
        while (m) {
            const uint32_t w = ctz64(m);
            m &= m - 1;
            const int o = take_overlap(t, base, nways, w, asid, vpn, last, ppn, prefetch);
            if (o == 2) {
                t->st.prefetch_redundant++;
                return false;
            }
            if (o == 1 && slot == nways)
                slot = w;
        }
    } else {
        for (uint32_t w = 0; w < nways; w++) {
            const int o = take_overlap(t, base, nways, w, asid, vpn, last, ppn, prefetch);
            if (o == 2) {
                t->st.prefetch_redundant++;
                return false;
            }
            if (o == 1 && slot == nways)
                slot = w;
        }
    }
    const uint64_t now = ++t->clock;
    t->st.fills++;
    if (slot == nways) {
        if (t->fast) {
            slot = fast_free_way(t, set, nways);
        } else {
            for (uint32_t w = 0; w < nways; w++)
                if (!b[w].valid) {
                    slot = w;
                    break;
                }
        }
    }
    if (slot == nways) {
        switch (t->cfg.repl) {
        case GMMU_TLB_REPL_PLRU:
            slot = plru_victim(t->plru[set], nways);
            break;
        case GMMU_TLB_REPL_RANDOM:
            slot = (uint32_t)(xorshift(&t->rng) % nways);
            break;
        case GMMU_TLB_REPL_LRU:
            if (t->fast) {
                slot = fast_lru_way(t, base, nways);
                break;
            }
            for (uint32_t w = 0; w < nways; w++)
                if (rank_get(t, base + w) == nways - 1) {
                    slot = w;
                    break;
                }
            break;
        case GMMU_TLB_REPL_FIFO:
        default: {
            uint64_t best = UINT64_MAX;
            for (uint32_t w = 0; w < nways; w++)
                if (b[w].stamp < best) {
                    best = b[w].stamp;
                    slot = w;
                }
            break;
        }
        }
        gmmu_tlb_entry *v = &b[slot];
        if (v->prefetched)
            t->st.prefetch_evicted_unused++;
        if (prefetch && v->hits > 0)
            t->st.prefetch_victim_useful++;
        *victim = *v;
        *evicted = true;
        t->st.evictions++;
    }
    gmmu_tlb_entry *e = &b[slot];
    e->vpn = vpn;
    e->ppn = ppn;
    e->perms = perms;
    e->asid = asid;
    e->valid = true;
    e->stamp = now;
    e->prefetched = prefetch;
    e->span_shift = (uint8_t)span;
    e->large_shift = 0;
    e->leaf_shift = leaf > t->cfg.page_shift + span ? (uint8_t)leaf : 0;
    t->pieces |= e->leaf_shift != 0;
    e->hits = 0;
    e->ready = ready;
    t->fp[base + slot] = f;
    if (t->fast) {
        fast_install(t, base, set, slot);
    } else {
        rank_touch(t, base, nways, slot, rank_get(t, base + slot));
    }
    if (t->cfg.repl == GMMU_TLB_REPL_PLRU)
        plru_touch(&t->plru[set], nways, slot);
    if (prefetch)
        t->st.prefetch_fills++;
    if (span)
        t->st.coverage_fills++;
    return true;
}

static gmmu_status fill_core(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                             uint64_t perms, uint32_t flags, uint64_t gen, uint64_t ready,
                             bool *ready_set, gmmu_tlb_fill_out *out);

gmmu_status gmmu_tlb_fill_ex(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                             uint64_t perms, uint32_t flags, uint64_t gen,
                             gmmu_tlb_fill_out *out)
{
    bool ready_set = false;
    return fill_core(t, asid, vpn, ppn, perms, flags, gen, 0, &ready_set, out);
}

/* The fill; *ready_set: the entry written took `ready` (else the caller sets
 * it with gmmu_tlb_set_ready, which finds whatever entry maps vpn). */
static gmmu_status fill_core(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                             uint64_t perms, uint32_t flags, uint64_t gen, uint64_t ready,
                             bool *ready_set, gmmu_tlb_fill_out *out)
{
    if (!t || !t->e)
        return GMMU_EINVAL;
    if (out) {
        out->dropped = false;
        out->installed = 0;
        out->nvictims = 0;
    }
    if ((flags & GMMU_TLB_FILL_CHECK_GEN) && gen != t->gen) {
        t->st.stale_fills_dropped++;
        if (out)
            out->dropped = true;
        return GMMU_OK;
    }
    const bool prefetch = (flags & GMMU_TLB_FILL_PREFETCH) != 0;
    for (uint32_t i = 0; i < GMMU_TLB_MAX_LARGE; i++) {
        if (!(flags & GMMU_TLB_FILL_LARGE(i)))
            continue;
        if (i >= t->nlarge)
            return GMMU_EINVAL;
        const uint32_t d = large_d(t, i);
        gmmu_tlb_fill_out lo;
        gmmu_status s = gmmu_tlb_fill_ex(t->large[i], asid, vpn >> d, ppn >> d, perms,
                                         flags & (GMMU_TLB_FILL_PREFETCH | GMMU_TLB_FILL_LEAF(63)),
                                         0, &lo);
        if (out && s == GMMU_OK) {
            out->installed = lo.installed;
            for (uint32_t v = 0; v < lo.nvictims; v++) {
                out->victims[out->nvictims] = lo.victims[v];
                large_entry_out(t, i, &out->victims[out->nvictims++]);
            }
        }
        return s;
    }
    gmmu_tlb_entry victim;
    bool evicted;
    const uint32_t leaf = GMMU_TLB_FILL_LEAF_OF(flags);
    if (!(flags & GMMU_TLB_FILL_CONTIG)) {
        /* The entry written is the one entry of the main array that maps
         * vpn, the one gmmu_tlb_set_ready would find: it takes `ready` now. */
        bool wrote = fill_one(t, asid, vpn, ppn, perms, 0, leaf, prefetch, ready, &victim, &evicted);
        if (out) {
            out->installed = wrote;
            if (evicted)
                out->victims[out->nvictims++] = victim;
        }
        *ready_set = wrote;
        return GMMU_OK;
    }
    /* Contiguous: fill_pages units of 2^cov_k pages, aligned group. */
    const uint32_t k = t->cov_k;
    const uint32_t units = t->cfg.fill_pages > 1 ? t->cfg.fill_pages : 1;
    const uint64_t group_pages = (uint64_t)units << k;
    const uint64_t off = vpn & (group_pages - 1);
    if (ppn < off)
        return GMMU_EINVAL;
    const uint64_t gvpn = vpn - off, gppn = ppn - off;
    const uint32_t own = (uint32_t)(off >> k);
    for (uint32_t n = 0; n < units; n++) {
        uint32_t u = (own + 1 + n) % units; /* vpn's own unit last */
        uint64_t uoff = (uint64_t)u << k;
        bool wrote =
            fill_one(t, asid, gvpn + uoff, gppn + uoff, perms, k, leaf, prefetch, 0, &victim, &evicted);
        if (out) {
            out->installed += wrote;
            if (evicted)
                out->victims[out->nvictims++] = victim;
        }
    }
    return GMMU_OK;
}

gmmu_status gmmu_tlb_fill_ready(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                                uint64_t perms, uint32_t flags, uint64_t gen, uint64_t ready,
                                gmmu_tlb_fill_out *out)
{
    bool ready_set = false;
    const gmmu_status s = fill_core(t, asid, vpn, ppn, perms, flags, gen, ready, &ready_set, out);
    if (ready && !ready_set)
        gmmu_tlb_set_ready(t, asid, vpn, ready);
    return s;
}

/* ---- invalidation ----------------------------------------------------------- */

void gmmu_tlb_invalidate_all(gmmu_tlb *t)
{
    if (!t || !t->e)
        return;
    t->gen++;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        if (t->e[i].valid) {
            t->e[i].valid = false;
            t->e[i].prefetched = false;
            t->st.invalidations++;
        }
    reset_ranks(t);
    if (t->vmask)
        memset(t->vmask, 0, t->sets * sizeof *t->vmask);
    for (uint32_t i = 0; i < t->nlarge; i++)
        gmmu_tlb_invalidate_all(t->large[i]);
}

static uint32_t invalidate_range(gmmu_tlb *t, bool any_asid, uint16_t asid, uint64_t va_lo,
                                 uint64_t va_hi);

/* Whether any array holds (or held) pieces of larger leaves. */
static bool has_pieces(const gmmu_tlb *t)
{
    bool any = t->pieces;
    for (uint32_t i = 0; i < t->nlarge; i++)
        any |= t->large[i]->pieces;
    return any;
}

bool gmmu_tlb_invalidate_page(gmmu_tlb *t, uint16_t asid, uint64_t vpn)
{
    if (!t || !t->e)
        return false;
    if (has_pieces(t)) {
        /* The page's leaf may have left pieces in other sets: scan. */
        const uint64_t lo = vpn << t->cfg.page_shift;
        return invalidate_range(t, false, asid, lo, lo + ((1ull << t->cfg.page_shift) - 1)) != 0;
    }
    t->gen++;
    bool any = false;
    for (uint32_t i = 0; i < t->nlarge; i++)
        any |= gmmu_tlb_invalidate_page(t->large[i], asid, vpn >> large_d(t, i));
    const uint32_t set = set_of_tag(t, vpn >> t->cov_k);
    const uint32_t nways = nways_of(t, set), base = set * t->cfg.ways;
    for (uint32_t w = 0; w < nways; w++)
        if (entry_maps(&t->e[base + w], asid, vpn)) {
            clear_slot(t, base, nways, w);
            t->st.invalidations++;
            return true; /* fills keep at most one entry per page in an array */
        }
    return any;
}

uint32_t gmmu_tlb_invalidate_asid(gmmu_tlb *t, uint16_t asid)
{
    uint32_t n = 0;
    if (!t || !t->e)
        return 0;
    t->gen++;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        if (t->e[i].valid && t->e[i].asid == asid) {
            clear_index(t, i);
            n++;
        }
    t->st.invalidations += n;
    for (uint32_t i = 0; i < t->nlarge; i++)
        n += gmmu_tlb_invalidate_asid(t->large[i], asid);
    return n;
}

static uint32_t invalidate_range(gmmu_tlb *t, bool any_asid, uint16_t asid, uint64_t va_lo,
                                 uint64_t va_hi)
{
    uint32_t n = 0;
    if (!t || !t->e || va_hi < va_lo)
        return 0;
    t->gen++;
    const uint32_t ps = t->cfg.page_shift;
    for (uint32_t i = 0; i < t->cfg.entries; i++) {
        const gmmu_tlb_entry *e = &t->e[i];
        if (!e->valid || (!any_asid && e->asid != asid))
            continue;
        if (gmmu_tlb_entry_in_range(e, ps, va_lo, va_hi)) {
            clear_index(t, i);
            n++;
        }
    }
    t->st.invalidations += n;
    for (uint32_t i = 0; i < t->nlarge; i++)
        n += invalidate_range(t->large[i], any_asid, asid, va_lo, va_hi);
    return n;
}

uint32_t gmmu_tlb_invalidate_range(gmmu_tlb *t, uint16_t asid, uint64_t va_lo, uint64_t va_hi)
{
    return invalidate_range(t, false, asid, va_lo, va_hi);
}

uint32_t gmmu_tlb_invalidate_range_all_asids(gmmu_tlb *t, uint64_t va_lo, uint64_t va_hi)
{
    return invalidate_range(t, true, 0, va_lo, va_hi);
}

bool gmmu_tlb_entry_in_range(const gmmu_tlb_entry *e, unsigned page_shift, uint64_t va_lo,
                             uint64_t va_hi)
{
    /* The bytes the entry answers for: its pages, or its whole leaf. */
    uint64_t first = e->vpn << page_shift;
    uint64_t last = first + ((1ull << (page_shift + e->span_shift)) - 1);
    if (e->leaf_shift > page_shift + e->span_shift && e->leaf_shift < 64) {
        const uint64_t leaf_mask = (1ull << e->leaf_shift) - 1;
        first &= ~leaf_mask;
        last = first + leaf_mask;
    }
    return first <= va_hi && last >= va_lo;
}
