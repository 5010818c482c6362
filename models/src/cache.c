#include "gmmu/cache.h"

#include <stdlib.h>
#include <string.h>

void gmmu_cache_config_default(gmmu_cache_config *c)
{
    memset(c, 0, sizeof *c);
    c->bytes = 32768;
    c->ways = 4;
    c->line_bytes = 128;
    c->hit_cycles = 40;
    c->write_allocate = false;
}

gmmu_status gmmu_cache_config_check(const gmmu_cache_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "cache", "config is NULL");
    if (!gmmu_is_pow2_u64(c->line_bytes) || c->line_bytes < 32 || c->line_bytes > 4096)
        return gmmu_error_set(err, "line_bytes", "line size %u must be a power of two in 32..4096",
                              c->line_bytes);
    if (!gmmu_is_pow2_u64(c->bytes) || c->bytes < 1024 || c->bytes > (1ull << 30))
        return gmmu_error_set(err, "bytes", "capacity %llu must be a power of two in 1 KiB..1 GiB",
                              (unsigned long long)c->bytes);
    if (c->bytes < c->line_bytes)
        return gmmu_error_set(err, "bytes", "capacity %llu is smaller than a line (%u)",
                              (unsigned long long)c->bytes, c->line_bytes);
    const uint64_t nlines = c->bytes / c->line_bytes;
    if (c->ways == 0 || c->ways > 64 || nlines % c->ways != 0)
        return gmmu_error_set(err, "ways", "%u ways must be 1..64 and divide the %llu lines",
                              c->ways, (unsigned long long)nlines);
    if (c->hit_cycles > 100000)
        return gmmu_error_set(err, "hit_cycles", "hit latency %u out of range 0..100000",
                              c->hit_cycles);
    if (c->index_cycles > c->hit_cycles)
        return gmmu_error_set(err, "index_cycles", "index latency %u exceeds the hit latency %u",
                              c->index_cycles, c->hit_cycles);
    return GMMU_OK;
}

gmmu_status gmmu_cache_vipt_check(const gmmu_cache_config *c, unsigned page_shift,
                                  gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "cache", "config is NULL");
    if (!c->vipt)
        return GMMU_OK;
    const uint64_t way = c->ways ? c->bytes / c->ways : c->bytes;
    if (page_shift >= 64 || way > (1ull << page_shift))
        return gmmu_error_set(err, "vipt",
                              "one way holds %llu bytes, more than the %llu-byte page: the set "
                              "index would need translated address bits",
                              (unsigned long long)way,
                              (unsigned long long)(page_shift >= 64 ? 0 : 1ull << page_shift));
    return GMMU_OK;
}

uint64_t gmmu_cache_index_overlap(const gmmu_cache_config *c, uint64_t xlate_cycles)
{
    if (!c || !c->vipt)
        return 0;
    return xlate_cycles < c->index_cycles ? xlate_cycles : c->index_cycles;
}

static void cache_release(gmmu_cache *x);

static gmmu_status cache_init_into(gmmu_cache *c, const gmmu_cache_config *cfg, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "cache", "cache is NULL");
    memset(c, 0, sizeof *c);
    gmmu_status s = gmmu_cache_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    c->cfg = *cfg;
    c->line_shift = gmmu_log2_u64(cfg->line_bytes);
    c->sets = (uint32_t)(cfg->bytes / cfg->line_bytes / cfg->ways);
    c->lines = calloc((size_t)c->sets * cfg->ways, sizeof *c->lines);
    if (!c->lines) {
        gmmu_error_set(err, "bytes", "out of memory for %u lines", c->sets * cfg->ways);
        return GMMU_ENOMEM;
    }
    return GMMU_OK;
}

static void cache_release(gmmu_cache *c)
{
    if (!c)
        return;
    free(c->lines);
    c->lines = NULL;
}

static gmmu_cache_line *find(const gmmu_cache *c, uint64_t line, gmmu_cache_line **set_out)
{
    gmmu_cache_line *set = c->lines + (size_t)(line % c->sets) * c->cfg.ways;
    if (set_out)
        *set_out = set;
    for (uint32_t w = 0; w < c->cfg.ways; w++)
        if (set[w].tag == line + 1)
            return &set[w];
    return NULL;
}

void gmmu_cache_access(gmmu_cache *c, uint64_t addr, bool write, uint64_t now,
                       gmmu_cache_result *out)
{
    gmmu_cache_access_by(c, addr, write, now, GMMU_CACHE_NO_OWNER, out);
}

void gmmu_cache_access_by(gmmu_cache *c, uint64_t addr, bool write, uint64_t now, uint32_t owner,
                          gmmu_cache_result *out)
{
    if (!out)
        return;
    if (!c || !c->lines) { /* not initialized: a miss that allocates nothing */
        memset(out, 0, sizeof *out);
        return;
    }
    const uint64_t line = addr >> c->line_shift;
    gmmu_cache_line *set;
    gmmu_cache_line *e = find(c, line, &set);
    memset(out, 0, sizeof *out);
    c->clock++;
    if (e && now < e->alloc) {
        /* Requested before the fetch that allocated the line: a miss of its own. */
        e->stamp = c->clock;
        if (write)
            c->st.write_misses++;
        else
            c->st.read_misses++;
        if (!write || c->cfg.write_allocate) {
            e->alloc = now;
            e->ready = now;
            e->owner = owner;
            if (write)
                e->dirty = true;
        }
        return;
    }
    if (e) {
        out->hit = true;
        out->ready = now + c->cfg.hit_cycles;
        if (e->ready > out->ready) {
            out->ready = e->ready;
            c->st.hits_under_fill++;
        }
        e->stamp = c->clock;
        if (write) {
            c->st.write_hits++;
            if (c->cfg.write_allocate)
                e->dirty = true;
        } else {
            c->st.read_hits++;
        }
        return;
    }
    if (write)
        c->st.write_misses++;
    else
        c->st.read_misses++;
    if (write && !c->cfg.write_allocate)
        return;
    gmmu_cache_line *v = &set[0];
    for (uint32_t w = 0; w < c->cfg.ways; w++) {
        if (!set[w].tag) {
            v = &set[w];
            break;
        }
        if (set[w].stamp < v->stamp)
            v = &set[w];
    }
    if (v->tag) {
        c->st.evictions++;
        out->evicted = true;
        out->evicted_addr = (v->tag - 1) << c->line_shift;
        out->evicted_owner = v->owner;
        if (v->dirty) {
            c->st.writebacks++;
            out->writeback = true;
            out->writeback_addr = (v->tag - 1) << c->line_shift;
        }
    }
    v->tag = line + 1;
    v->ready = now;
    v->alloc = now;
    v->stamp = c->clock;
    v->owner = owner;
    v->dirty = write;
}

void gmmu_cache_fill_ready(gmmu_cache *c, uint64_t addr, uint64_t ready)
{
    if (!c || !c->lines)
        return;
    gmmu_cache_line *e = find(c, addr >> c->line_shift, NULL);
    if (e)
        e->ready = ready;
}

bool gmmu_cache_probe(const gmmu_cache *c, uint64_t addr)
{
    if (!c || !c->lines)
        return false;
    return find(c, addr >> c->line_shift, NULL) != NULL;
}

void gmmu_cache_invalidate_all(gmmu_cache *c)
{
    if (!c || !c->lines)
        return;
    memset(c->lines, 0, (size_t)c->sets * c->cfg.ways * sizeof *c->lines);
}

gmmu_status gmmu_cache_create(const gmmu_cache_config *cfg, gmmu_cache **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "cache", "output pointer is NULL");
    *out = NULL;
    gmmu_cache *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = cache_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        cache_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_cache_destroy(gmmu_cache *x)
{
    if (!x)
        return;
    cache_release(x);
    free(x);
}
