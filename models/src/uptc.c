/* UPTC — unified page table cache. See gmmu/uptc.h. */
#include "gmmu/uptc.h"

#include <stdlib.h>
#include <string.h>

typedef struct uptc_entry {
    uint64_t table;
    uint64_t next;
    uint64_t stamp;
    uint16_t index;
    uint8_t valid;
} uptc_entry;

struct gmmu_uptc {
    uint32_t entries, ways, sets;
    gmmu_pwc_repl repl;
    uint64_t clock;
    uptc_entry *e;
};

gmmu_status gmmu_uptc_validate(const gmmu_pwc_config *cfg, gmmu_error *err)
{
    uint32_t n = cfg->uptc.entries, w = cfg->uptc.ways;
    if (n < 1 || n > GMMU_PWC_MAX_ENTRIES)
        return gmmu_error_set(err, "uptc.entries", "%u entries: allowed 1..%u", n,
                              GMMU_PWC_MAX_ENTRIES);
    if (w != 0 && (w > n || n % w != 0 || !gmmu_is_pow2_u64(n / w)))
        return gmmu_error_set(err, "uptc.ways",
                              "%u ways: must be 0 (fully associative) or divide %u entries into "
                              "a power-of-two number of sets", w, n);
    if (cfg->uptc.probe_cycles < 1 || cfg->uptc.probe_cycles > GMMU_PWC_MAX_LATENCY)
        return gmmu_error_set(err, "uptc.probe_cycles", "%u cycles: allowed 1..%u",
                              cfg->uptc.probe_cycles, GMMU_PWC_MAX_LATENCY);
    return GMMU_OK;
}

uint64_t gmmu_uptc_bits(const gmmu_pwc_config *cfg)
{
    return (uint64_t)cfg->uptc.entries * GMMU_PWC_UPTC_ENTRY_BITS;
}

gmmu_status gmmu_uptc_create(const gmmu_pwc_config *cfg, gmmu_uptc **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "out", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_uptc_validate(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_uptc *u = calloc(1, sizeof *u);
    if (!u)
        return GMMU_ENOMEM;
    u->entries = cfg->uptc.entries;
    u->ways = cfg->uptc.ways ? cfg->uptc.ways : u->entries;
    u->sets = u->entries / u->ways;
    u->repl = cfg->replacement;
    u->e = calloc(u->entries, sizeof *u->e);
    if (!u->e) {
        free(u);
        return GMMU_ENOMEM;
    }
    *out = u;
    return GMMU_OK;
}

void gmmu_uptc_destroy(gmmu_uptc *u)
{
    if (!u)
        return;
    free(u->e);
    free(u);
}

static uptc_entry *set_of(gmmu_uptc *u, uint64_t table, unsigned index)
{
    uint32_t set = (uint32_t)(((table >> 12) ^ index) & (u->sets - 1u));
    return &u->e[set * u->ways];
}

static uptc_entry *find(gmmu_uptc *u, uint64_t table, unsigned index)
{
    uptc_entry *set = set_of(u, table, index);
    for (uint32_t w = 0; w < u->ways; w++)
        if (set[w].valid && set[w].table == table && set[w].index == index)
            return &set[w];
    return NULL;
}

gmmu_status gmmu_uptc_match(gmmu_uptc *u, uint64_t root, uint64_t va, bool touch,
                            gmmu_pwc_path *path, unsigned *probes)
{
    if (!u || !path || !probes)
        return GMMU_EINVAL;
    path->va = va;
    path->known = 1u << 4;
    path->base[4] = root;
    *probes = 0;
    uint64_t table = root;
    for (unsigned level = 4; level >= 2; level--) {
        ++*probes;
        uptc_entry *e = find(u, table, gmmu_va_index(va, level));
        if (!e)
            break;
        if (touch && u->repl == GMMU_PWC_REPL_LRU)
            e->stamp = ++u->clock;
        table = e->next;
        path->base[level - 1] = table;
        path->known |= 1u << (level - 1);
    }
    return GMMU_OK;
}

gmmu_status gmmu_uptc_fill(gmmu_uptc *u, const gmmu_pwc_path *path, gmmu_pwc_stats *st)
{
    if (!u || !path || !st)
        return GMMU_EINVAL;
    for (unsigned level = 4; level >= 2; level--) {
        unsigned need = (1u << level) | (1u << (level - 1));
        if ((path->known & need) != need)
            continue;
        uint64_t table = path->base[level] & ~0xFFFull;
        unsigned index = gmmu_va_index(path->va, level);
        uptc_entry *e = find(u, table, index);
        if (!e) {
            uptc_entry *set = set_of(u, table, index);
            for (uint32_t w = 0; w < u->ways && !e; w++)
                if (!set[w].valid)
                    e = &set[w];
            if (!e) {
                e = &set[0];
                for (uint32_t w = 1; w < u->ways; w++)
                    if (set[w].stamp < e->stamp)
                        e = &set[w];
                st->evictions++;
            }
            e->valid = 1;
            e->table = table;
            e->index = (uint16_t)index;
            e->stamp = ++u->clock;
            st->entries_written++;
        } else if (u->repl == GMMU_PWC_REPL_LRU) {
            e->stamp = ++u->clock;
        }
        e->next = path->base[level - 1] & ~0xFFFull;
    }
    return GMMU_OK;
}

void gmmu_uptc_invalidate_all(gmmu_uptc *u, gmmu_pwc_stats *st)
{
    if (!u)
        return;
    for (uint32_t i = 0; i < u->entries; i++) {
        if (u->e[i].valid && st)
            st->entries_invalidated++;
        memset(&u->e[i], 0, sizeof u->e[i]);
    }
}

uint32_t gmmu_uptc_entries(const gmmu_uptc *u) { return u ? u->entries : 0; }

gmmu_status gmmu_uptc_entry(const gmmu_uptc *u, uint32_t i, gmmu_uptc_entry_view *v)
{
    if (!u || !v || i >= u->entries)
        return GMMU_EINVAL;
    const uptc_entry *e = &u->e[i];
    v->valid = e->valid != 0;
    v->table = e->table;
    v->index = e->index;
    v->next = e->next;
    return GMMU_OK;
}
