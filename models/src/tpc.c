/* TPC — translation-path cache. See gmmu/tpc.h. */
#include "gmmu/tpc.h"

#include <stdlib.h>
#include <string.h>

#define PART_VALID 1ull /* bit 0 of a base field: that part of the path is valid */

typedef struct tpc_entry {
    uint64_t base[3];   /* bases of the L3, L2, L1 tables | PART_VALID */
    uint64_t stamp;     /* LRU: last use, FIFO: fill */
    uint16_t idx[3];    /* L4, L3, L2 indices */
    uint8_t valid;
} tpc_entry;

struct gmmu_tpc {
    uint32_t n;
    gmmu_pwc_repl repl;
    uint64_t clock;
    tpc_entry *e;
};

gmmu_status gmmu_tpc_validate(const gmmu_pwc_config *cfg, gmmu_error *err)
{
    if (cfg->tpc.entries < 1 || cfg->tpc.entries > GMMU_PWC_MAX_ENTRIES)
        return gmmu_error_set(err, "tpc.entries", "%u entries: allowed 1..%u", cfg->tpc.entries,
                              GMMU_PWC_MAX_ENTRIES);
    if (cfg->tpc.hit_cycles < 1 || cfg->tpc.hit_cycles > GMMU_PWC_MAX_LATENCY)
        return gmmu_error_set(err, "tpc.hit_cycles", "%u cycles: allowed 1..%u",
                              cfg->tpc.hit_cycles, GMMU_PWC_MAX_LATENCY);
    return GMMU_OK;
}

uint64_t gmmu_tpc_bits(const gmmu_pwc_config *cfg)
{
    return (uint64_t)cfg->tpc.entries * GMMU_PWC_TPC_ENTRY_BITS;
}

gmmu_status gmmu_tpc_create(const gmmu_pwc_config *cfg, gmmu_tpc **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "out", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_tpc_validate(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_tpc *t = calloc(1, sizeof *t);
    if (!t)
        return GMMU_ENOMEM;
    t->e = calloc(cfg->tpc.entries, sizeof *t->e);
    if (!t->e) {
        free(t);
        return GMMU_ENOMEM;
    }
    t->n = cfg->tpc.entries;
    t->repl = cfg->replacement;
    *out = t;
    return GMMU_OK;
}

void gmmu_tpc_destroy(gmmu_tpc *t)
{
    if (!t)
        return;
    free(t->e);
    free(t);
}

static unsigned depth_of(const tpc_entry *e)
{
    if (!e->valid)
        return 0;
    unsigned d = 0;
    while (d < 3 && (e->base[d] & PART_VALID))
        d++;
    return d;
}

/* Prefix length (0..3) over which entry e and the indices agree, limited to
 * the entry's valid parts. */
static unsigned match_len(const tpc_entry *e, const unsigned idx[3])
{
    unsigned d = depth_of(e), m = 0;
    while (m < d && e->idx[m] == idx[m])
        m++;
    return m;
}

static void va_indices(uint64_t va, unsigned idx[3])
{
    idx[0] = gmmu_va_index(va, 4);
    idx[1] = gmmu_va_index(va, 3);
    idx[2] = gmmu_va_index(va, 2);
}

gmmu_status gmmu_tpc_match(gmmu_tpc *t, uint64_t va, bool touch, gmmu_pwc_path *path)
{
    if (!t || !path)
        return GMMU_EINVAL;
    unsigned idx[3];
    va_indices(va, idx);
    unsigned best = 0;
    uint32_t best_i = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        unsigned m = match_len(&t->e[i], idx);
        if (m > best) {
            best = m;
            best_i = i;
        }
    }
    path->va = va;
    path->known = 0;
    if (best == 0)
        return GMMU_OK;
    tpc_entry *e = &t->e[best_i];
    for (unsigned j = 0; j < best; j++) {
        path->base[3 - j] = e->base[j] & ~PART_VALID;
        path->known |= 1u << (3 - j);
    }
    if (touch && t->repl == GMMU_PWC_REPL_LRU)
        e->stamp = ++t->clock;
    return GMMU_OK;
}

gmmu_status gmmu_tpc_fill(gmmu_tpc *t, const gmmu_pwc_path *path, gmmu_pwc_stats *st)
{
    if (!t || !path || !st)
        return GMMU_EINVAL;
    /* A TPC entry is a path from the top: cache the known prefix. */
    unsigned d = 0;
    while (d < 3 && (path->known & (1u << (3 - d))))
        d++;
    if (d == 0)
        return GMMU_OK;
    unsigned idx[3];
    va_indices(path->va, idx);

    tpc_entry *cover = NULL, *extend = NULL, *inv = NULL, *victim = NULL;
    for (uint32_t i = 0; i < t->n; i++) {
        tpc_entry *e = &t->e[i];
        if (!e->valid) {
            if (!inv)
                inv = e;
            continue;
        }
        unsigned m = match_len(e, idx);
        if (m >= d) {
            cover = e;
            break;
        }
        if (m == depth_of(e) && !extend)
            extend = e; /* a shorter path that is a prefix of this one */
        if (!victim || e->stamp < victim->stamp)
            victim = e;
    }
    if (cover) {
        if (t->repl == GMMU_PWC_REPL_LRU)
            cover->stamp = ++t->clock;
        return GMMU_OK;
    }
    tpc_entry *e = extend ? extend : inv ? inv : victim;
    if (!extend && !inv)
        st->evictions++;
    unsigned from = extend ? depth_of(extend) : 0;
    if (!extend)
        memset(e, 0, sizeof *e);
    e->valid = 1;
    for (unsigned j = from; j < d; j++) {
        e->idx[j] = (uint16_t)idx[j];
        e->base[j] = (path->base[3 - j] & ~0xFFFull) | PART_VALID;
    }
    e->stamp = ++t->clock;
    st->entries_written++;
    return GMMU_OK;
}

void gmmu_tpc_invalidate_all(gmmu_tpc *t, gmmu_pwc_stats *st)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        if (t->e[i].valid && st)
            st->entries_invalidated++;
        memset(&t->e[i], 0, sizeof t->e[i]);
    }
}

void gmmu_tpc_invalidate_range(gmmu_tpc *t, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        tpc_entry *e = &t->e[i];
        unsigned d = depth_of(e);
        if (d == 0)
            continue;
        uint64_t va48 = gmmu_pwc_prefix_va(e->idx[0], e->idx[1], e->idx[2]);
        unsigned keep = d;
        for (unsigned j = 0; j < d; j++)
            if (gmmu_pwc_region_hit(4 - j, va48, lo48, hi48)) {
                keep = j;
                break;
            }
        if (keep == d)
            continue;
        if (st)
            st->entries_invalidated++;
        if (keep == 0) {
            memset(e, 0, sizeof *e);
            continue;
        }
        for (unsigned j = keep; j < 3; j++) {
            e->base[j] = 0;
            e->idx[j] = 0;
        }
    }
}

uint32_t gmmu_tpc_entries(const gmmu_tpc *t) { return t ? t->n : 0; }

gmmu_status gmmu_tpc_entry(const gmmu_tpc *t, uint32_t i, gmmu_tpc_entry_view *v)
{
    if (!t || !v || i >= t->n)
        return GMMU_EINVAL;
    const tpc_entry *e = &t->e[i];
    v->valid = e->valid != 0;
    v->depth = depth_of(e);
    for (unsigned j = 0; j < 3; j++) {
        v->idx[j] = e->idx[j];
        v->base[j] = e->base[j] & ~PART_VALID;
    }
    return GMMU_OK;
}
