/* STC — split translation cache. See gmmu/stc.h. */
#include "gmmu/stc.h"

#include <stdlib.h>
#include <string.h>

typedef struct stc_entry {
    uint64_t base;
    uint64_t stamp;
    uint32_t tag;
    uint8_t valid;
} stc_entry;

typedef struct stc_store {
    uint32_t entries, ways, sets;
    stc_entry *e; /* set-major: set s holds e[s * ways .. s * ways + ways - 1] */
} stc_store;

struct gmmu_stc {
    stc_store st[3];
    gmmu_pwc_repl repl;
    uint64_t clock;
};

static const char *const entries_field[3] = {"stc.entries[0]", "stc.entries[1]", "stc.entries[2]"};
static const char *const ways_field[3] = {"stc.ways[0]", "stc.ways[1]", "stc.ways[2]"};

gmmu_status gmmu_stc_validate(const gmmu_pwc_config *cfg, gmmu_error *err)
{
    for (unsigned j = 0; j < 3; j++) {
        uint32_t n = cfg->stc.entries[j], w = cfg->stc.ways[j];
        if (n < 1 || n > GMMU_PWC_MAX_ENTRIES)
            return gmmu_error_set(err, entries_field[j], "%u entries: allowed 1..%u", n,
                                  GMMU_PWC_MAX_ENTRIES);
        if (w != 0 && (w > n || n % w != 0 || !gmmu_is_pow2_u64(n / w)))
            return gmmu_error_set(err, ways_field[j],
                                  "%u ways: must be 0 (fully associative) or divide %u entries "
                                  "into a power-of-two number of sets", w, n);
    }
    if (cfg->stc.hit_cycles < 1 || cfg->stc.hit_cycles > GMMU_PWC_MAX_LATENCY)
        return gmmu_error_set(err, "stc.hit_cycles", "%u cycles: allowed 1..%u",
                              cfg->stc.hit_cycles, GMMU_PWC_MAX_LATENCY);
    return GMMU_OK;
}

uint64_t gmmu_stc_bits(const gmmu_pwc_config *cfg)
{
    uint64_t b = 0;
    for (unsigned j = 0; j < 3; j++)
        b += (uint64_t)cfg->stc.entries[j] * GMMU_PWC_STC_ENTRY_BITS(4u - j);
    return b;
}

gmmu_status gmmu_stc_create(const gmmu_pwc_config *cfg, gmmu_stc **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "out", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_stc_validate(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_stc *c = calloc(1, sizeof *c);
    if (!c)
        return GMMU_ENOMEM;
    for (unsigned j = 0; j < 3; j++) {
        stc_store *st = &c->st[j];
        st->entries = cfg->stc.entries[j];
        st->ways = cfg->stc.ways[j] ? cfg->stc.ways[j] : st->entries;
        st->sets = st->entries / st->ways;
        st->e = calloc(st->entries, sizeof *st->e);
        if (!st->e) {
            gmmu_stc_destroy(c);
            return GMMU_ENOMEM;
        }
    }
    c->repl = cfg->replacement;
    *out = c;
    return GMMU_OK;
}

void gmmu_stc_destroy(gmmu_stc *s)
{
    if (!s)
        return;
    for (unsigned j = 0; j < 3; j++)
        free(s->st[j].e);
    free(s);
}

/* Tag of store j for va: the L4..L(4-j) indices concatenated. */
static uint32_t tag_of(uint64_t va, unsigned j)
{
    uint32_t t = 0;
    for (unsigned k = 0; k <= j; k++)
        t = (t << 9) | gmmu_va_index(va, 4u - k);
    return t;
}

static stc_entry *find(stc_store *st, uint32_t tag)
{
    stc_entry *set = &st->e[(tag & (st->sets - 1u)) * st->ways];
    for (uint32_t w = 0; w < st->ways; w++)
        if (set[w].valid && set[w].tag == tag)
            return &set[w];
    return NULL;
}

gmmu_status gmmu_stc_match(gmmu_stc *s, uint64_t va, bool touch, gmmu_pwc_path *path)
{
    if (!s || !path)
        return GMMU_EINVAL;
    path->va = va;
    path->known = 0;
    for (unsigned j = 0; j < 3; j++) {
        stc_entry *e = find(&s->st[j], tag_of(va, j));
        if (!e)
            continue;
        path->base[3 - j] = e->base;
        path->known |= 1u << (3 - j);
        if (touch && s->repl == GMMU_PWC_REPL_LRU)
            e->stamp = ++s->clock;
    }
    return GMMU_OK;
}

gmmu_status gmmu_stc_fill(gmmu_stc *s, const gmmu_pwc_path *path, gmmu_pwc_stats *st)
{
    if (!s || !path || !st)
        return GMMU_EINVAL;
    for (unsigned j = 0; j < 3; j++) {
        unsigned level = 3 - j; /* table whose base store j holds */
        if (!(path->known & (1u << level)))
            continue;
        uint32_t tag = tag_of(path->va, j);
        stc_store *sp = &s->st[j];
        stc_entry *e = find(sp, tag);
        if (!e) {
            stc_entry *set = &sp->e[(tag & (sp->sets - 1u)) * sp->ways];
            for (uint32_t w = 0; w < sp->ways && !e; w++)
                if (!set[w].valid)
                    e = &set[w];
            if (!e) {
                e = &set[0];
                for (uint32_t w = 1; w < sp->ways; w++)
                    if (set[w].stamp < e->stamp)
                        e = &set[w];
                st->evictions++;
            }
            e->valid = 1;
            e->tag = tag;
            st->entries_written++;
        } else if (s->repl == GMMU_PWC_REPL_FIFO) {
            e->base = path->base[level] & ~0xFFFull;
            continue; /* FIFO keeps the fill time of the first fill */
        }
        e->base = path->base[level] & ~0xFFFull;
        e->stamp = ++s->clock;
    }
    return GMMU_OK;
}

void gmmu_stc_invalidate_all(gmmu_stc *s, gmmu_pwc_stats *st)
{
    if (!s)
        return;
    for (unsigned j = 0; j < 3; j++)
        for (uint32_t i = 0; i < s->st[j].entries; i++) {
            if (s->st[j].e[i].valid && st)
                st->entries_invalidated++;
            memset(&s->st[j].e[i], 0, sizeof s->st[j].e[i]);
        }
}

void gmmu_stc_invalidate_range(gmmu_stc *s, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st)
{
    if (!s)
        return;
    for (unsigned j = 0; j < 3; j++)
        for (uint32_t i = 0; i < s->st[j].entries; i++) {
            stc_entry *e = &s->st[j].e[i];
            if (!e->valid)
                continue;
            /* Rebuild the prefix VA from the concatenated tag. */
            uint64_t va48 = (uint64_t)e->tag << (39 - 9 * j);
            if (gmmu_pwc_region_hit(4 - j, va48, lo48, hi48)) {
                memset(e, 0, sizeof *e);
                if (st)
                    st->entries_invalidated++;
            }
        }
}

gmmu_status gmmu_stc_entry(const gmmu_stc *s, unsigned store, uint32_t i, gmmu_stc_entry_view *v)
{
    if (!s || !v || store > 2 || i >= s->st[store].entries)
        return GMMU_EINVAL;
    const stc_entry *e = &s->st[store].e[i];
    v->valid = e->valid != 0;
    v->tag = e->tag;
    v->base = e->base;
    return GMMU_OK;
}
