#include "gmmu/line_cache.h"

#include <stdlib.h>
#include <string.h>

#define LC_EMPTY (~0ull)

void gmmu_line_cache_config_default(gmmu_line_cache_config *cfg)
{
    if (!cfg)
        return;
    cfg->lines = 128;
    cfg->ways = 4;
    cfg->line_bytes = 128;
    cfg->hit_cycles = 1;
    cfg->miss_cycles = 0;
}

gmmu_status gmmu_line_cache_config_check(const gmmu_line_cache_config *cfg, gmmu_error *err)
{
    if (!cfg)
        return gmmu_error_set(err, "config", "line cache config pointer is NULL");
    if (cfg->lines < 1 || cfg->lines > (1u << 24))
        return gmmu_error_set(err, "lines", "lines = %u, allowed 1..%u", cfg->lines, 1u << 24);
    if (cfg->ways < 1 || cfg->ways > cfg->lines)
        return gmmu_error_set(err, "ways", "ways = %u, allowed 1..lines (%u)", cfg->ways,
                              cfg->lines);
    if (cfg->lines % cfg->ways)
        return gmmu_error_set(err, "ways", "lines (%u) is not a multiple of ways (%u)",
                              cfg->lines, cfg->ways);
    if (!gmmu_is_pow2_u64(cfg->lines / cfg->ways))
        return gmmu_error_set(err, "lines", "sets = lines / ways = %u is not a power of two",
                              cfg->lines / cfg->ways);
    if (cfg->line_bytes < 8 || cfg->line_bytes > 4096 || !gmmu_is_pow2_u64(cfg->line_bytes))
        return gmmu_error_set(err, "line_bytes",
                              "line_bytes = %u, allowed a power of two in 8..4096",
                              cfg->line_bytes);
    if (cfg->hit_cycles < 1 || cfg->hit_cycles > 1000000)
        return gmmu_error_set(err, "hit_cycles", "hit_cycles = %u, allowed 1..1000000",
                              cfg->hit_cycles);
    if (cfg->miss_cycles > 1000000)
        return gmmu_error_set(err, "miss_cycles", "miss_cycles = %u, allowed 0..1000000",
                              cfg->miss_cycles);
    return GMMU_OK;
}

static void line_cache_release(gmmu_line_cache *x);

static gmmu_status line_cache_init_into(gmmu_line_cache *lc, const gmmu_line_cache_config *cfg,
                                 gmmu_error *err)
{
    if (!lc)
        return gmmu_error_set(err, "lc", "line cache pointer is NULL");
    gmmu_status s = gmmu_line_cache_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(lc, 0, sizeof *lc);
    lc->cfg = *cfg;
    lc->sets = cfg->lines / cfg->ways;
    lc->line_shift = gmmu_log2_u64(cfg->line_bytes);
    lc->tag = malloc((size_t)cfg->lines * sizeof *lc->tag);
    lc->stamp = calloc(cfg->lines, sizeof *lc->stamp);
    lc->ready = calloc(cfg->lines, sizeof *lc->ready);
    if (!lc->tag || !lc->stamp || !lc->ready) {
        line_cache_release(lc);
        return GMMU_ENOMEM;
    }
    gmmu_line_cache_flush(lc);
    return GMMU_OK;
}

static void line_cache_release(gmmu_line_cache *lc)
{
    if (!lc)
        return;
    free(lc->tag);
    free(lc->stamp);
    free(lc->ready);
    lc->tag = lc->stamp = lc->ready = NULL;
}

void gmmu_line_cache_flush(gmmu_line_cache *lc)
{
    if (!lc || !lc->tag)
        return;
    for (uint32_t i = 0; i < lc->cfg.lines; i++) {
        lc->tag[i] = LC_EMPTY;
        lc->stamp[i] = 0;
        lc->ready[i] = 0;
    }
}

static uint32_t set_base(const gmmu_line_cache *lc, uint64_t line)
{
    return (uint32_t)(line & (lc->sets - 1)) * lc->cfg.ways;
}

gmmu_status gmmu_line_cache_access(gmmu_line_cache *lc, uint64_t pa, uint64_t now,
                                   uint32_t mem_latency, uint32_t *latency, bool *hit)
{
    if (!lc || !lc->tag || !latency)
        return GMMU_EINVAL;
    uint64_t line = pa >> lc->line_shift;
    uint32_t base = set_base(lc, line);
    lc->clock++;
    lc->st.accesses++;
    uint32_t victim = base;
    for (uint32_t w = 0; w < lc->cfg.ways; w++) {
        uint32_t i = base + w;
        if (lc->tag[i] == line) {
            lc->stamp[i] = lc->clock;
            lc->st.hits++;
            uint64_t lat = lc->cfg.hit_cycles;
            if (lc->ready[i] > now) {
                lc->st.hits_pending++;
                if (lc->ready[i] - now > lat)
                    lat = lc->ready[i] - now;
            }
            *latency = (uint32_t)lat;
            if (hit)
                *hit = true;
            return GMMU_OK;
        }
        /* victim: an empty way first, else the least recently used */
        if (lc->tag[victim] != LC_EMPTY &&
            (lc->tag[i] == LC_EMPTY || lc->stamp[i] < lc->stamp[victim]))
            victim = i;
    }
    lc->st.misses++;
    if (lc->tag[victim] != LC_EMPTY)
        lc->st.evictions++;
    uint64_t lat = (uint64_t)lc->cfg.miss_cycles + mem_latency;
    if (lat < 1)
        lat = 1;
    if (lat > UINT32_MAX)
        lat = UINT32_MAX;
    lc->tag[victim] = line;
    lc->stamp[victim] = lc->clock;
    lc->ready[victim] = now + lat;
    *latency = (uint32_t)lat;
    if (hit)
        *hit = false;
    return GMMU_OK;
}

bool gmmu_line_cache_probe(const gmmu_line_cache *lc, uint64_t pa)
{
    if (!lc || !lc->tag)
        return false;
    uint64_t line = pa >> lc->line_shift;
    uint32_t base = set_base(lc, line);
    for (uint32_t w = 0; w < lc->cfg.ways; w++)
        if (lc->tag[base + w] == line)
            return true;
    return false;
}

gmmu_status gmmu_line_cache_create(const gmmu_line_cache_config *cfg, gmmu_line_cache **out,
                                   gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "lc", "output pointer is NULL");
    *out = NULL;
    gmmu_line_cache *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = line_cache_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        line_cache_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_line_cache_destroy(gmmu_line_cache *x)
{
    if (!x)
        return;
    line_cache_release(x);
    free(x);
}
