#include "gmmu/ccws.h"

#include <stdlib.h>
#include <string.h>

static bool pow2(uint32_t x) { return x && !(x & (x - 1u)); }

void gmmu_ccws_config_default(gmmu_ccws_config *c, uint32_t warps)
{
    memset(c, 0, sizeof *c);
    c->warps = warps;
    c->vta_entries = 16;
    c->vta_ways = 8;
    c->base_score = 100;
    c->hit_score = 100;
    c->decay = 1;
    c->cache_weight = 1;
    c->tlb_weight = 1;
}

gmmu_status gmmu_ccws_config_check(const gmmu_ccws_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "ccws", "config is NULL");
    if (c->warps == 0 || c->warps > GMMU_CCWS_MAX_WARPS)
        return gmmu_error_set(err, "warps", "%u warps out of range 1..%u", c->warps,
                              GMMU_CCWS_MAX_WARPS);
    if (c->vta_entries == 0 || c->vta_entries > GMMU_CCWS_MAX_VTA)
        return gmmu_error_set(err, "vta_entries", "%u VTA entries per warp out of range 1..%u",
                              c->vta_entries, GMMU_CCWS_MAX_VTA);
    if (c->vta_ways == 0 || c->vta_entries % c->vta_ways)
        return gmmu_error_set(err, "vta_ways", "%u ways do not divide %u entries", c->vta_ways,
                              c->vta_entries);
    if (c->base_score == 0 || c->base_score > (1u << 20))
        return gmmu_error_set(err, "base_score", "base score %u out of range 1..1048576",
                              c->base_score);
    if (c->hit_score == 0 || c->hit_score > (1u << 20))
        return gmmu_error_set(err, "hit_score", "hit score %u out of range 1..1048576", c->hit_score);
    if (c->decay > (1u << 20))
        return gmmu_error_set(err, "decay", "decay %u out of range 0..1048576", c->decay);
    if (!pow2(c->cache_weight) || c->cache_weight > 1024)
        return gmmu_error_set(err, "cache_weight", "weight %u is not a power of two in 1..1024",
                              c->cache_weight);
    if (!pow2(c->tlb_weight) || c->tlb_weight > 1024)
        return gmmu_error_set(err, "tlb_weight", "weight %u is not a power of two in 1..1024",
                              c->tlb_weight);
    for (unsigned d = 0; d < GMMU_CCWS_DEPTHS; d++)
        if (c->depth_weight[d] && (!pow2(c->depth_weight[d]) || c->depth_weight[d] > 1024))
            return gmmu_error_set(err, "depth_weight",
                                  "depth %u weight %u is not 0 or a power of two in 1..1024", d,
                                  c->depth_weight[d]);
    return GMMU_OK;
}

static gmmu_status ccws_init_into(gmmu_ccws *s, const gmmu_ccws_config *c, gmmu_error *err)
{
    if (!s)
        return gmmu_error_set(err, "ccws", "state is NULL");
    gmmu_status st = gmmu_ccws_config_check(c, err);
    if (st != GMMU_OK)
        return st;
    memset(s, 0, sizeof *s);
    s->cfg = *c;
    s->sets = c->vta_entries / c->vta_ways;
    for (uint32_t w = 0; w < c->warps; w++)
        s->score[w] = c->base_score;
    return GMMU_OK;
}

void gmmu_ccws_reset_warp(gmmu_ccws *s, uint32_t w)
{
    if (w >= s->cfg.warps)
        return;
    memset(s->stamp[w], 0, sizeof s->stamp[w]);
    s->score[w] = s->cfg.base_score;
}

static uint32_t set_of(const gmmu_ccws *s, uint64_t tag)
{
    uint64_t h = tag ^ (tag >> 17) ^ (tag >> 31);
    return (uint32_t)(h % s->sets);
}

void gmmu_ccws_lost(gmmu_ccws *s, uint32_t owner, uint64_t tag)
{
    if (owner >= s->cfg.warps)
        return;
    s->lost++;
    const uint32_t ways = s->cfg.vta_ways, base = set_of(s, tag) * ways;
    uint32_t *st = s->stamp[owner];
    uint32_t victim = base;
    for (uint32_t i = base; i < base + ways; i++) {
        if (st[i] && s->tag[owner][i] == tag) { /* already there: refresh */
            victim = i;
            break;
        }
        if (st[i] < st[victim])
            victim = i; /* empty (0) or least recent */
    }
    s->tag[owner][victim] = tag;
    st[victim] = ++s->clock;
}

bool gmmu_ccws_probe(gmmu_ccws *s, uint32_t w, uint64_t tag, uint32_t weight)
{
    if (w >= s->cfg.warps)
        return false;
    s->probes++;
    const uint32_t ways = s->cfg.vta_ways, base = set_of(s, tag) * ways;
    for (uint32_t i = base; i < base + ways; i++)
        if (s->stamp[w][i] && s->tag[w][i] == tag) {
            s->stamp[w][i] = 0; /* back in the cache/TLB: no longer lost */
            s->score[w] += (uint64_t)s->cfg.hit_score * weight;
            s->vta_hits++;
            return true;
        }
    return false;
}

void gmmu_ccws_depth_hit(gmmu_ccws *s, uint32_t w, uint32_t depth)
{
    if (w >= s->cfg.warps || depth >= GMMU_CCWS_DEPTHS || !s->cfg.depth_weight[depth])
        return;
    s->score[w] += s->cfg.depth_weight[depth];
    s->depth_hits++;
}

void gmmu_ccws_tick(gmmu_ccws *s, uint64_t n)
{
    const uint64_t dec = n * s->cfg.decay, base = s->cfg.base_score;
    for (uint32_t w = 0; w < s->cfg.warps; w++)
        s->score[w] = s->score[w] > base + dec ? s->score[w] - dec : base;
}

uint64_t gmmu_ccws_pool(const gmmu_ccws *s, uint64_t active)
{
    uint32_t order[GMMU_CCWS_MAX_WARPS], n = 0;
    for (uint32_t w = 0; w < s->cfg.warps; w++)
        if (active >> w & 1u) {
            /* insertion sort: score descending, then warp index ascending */
            uint32_t i = n++;
            while (i > 0 && s->score[order[i - 1]] < s->score[w]) {
                order[i] = order[i - 1];
                i--;
            }
            order[i] = w;
        }
    const uint64_t cutoff = (uint64_t)n * s->cfg.base_score;
    uint64_t pool = 0, sum = 0;
    for (uint32_t i = 0; i < n; i++) {
        sum += s->score[order[i]];
        if (i > 0 && sum > cutoff)
            break;
        pool |= 1ull << order[i];
    }
    return pool;
}

uint64_t gmmu_ccws_state_bits(const gmmu_ccws_config *c, unsigned tag_bits, unsigned score_bits)
{
    unsigned lru = 0;
    while ((1u << lru) < c->vta_ways)
        lru++;
    return (uint64_t)c->warps * ((uint64_t)c->vta_entries * (tag_bits + 1u + lru) + score_bits);
}

gmmu_status gmmu_ccws_create(const gmmu_ccws_config *cfg, gmmu_ccws **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "ccws", "output pointer is NULL");
    *out = NULL;
    gmmu_ccws *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = ccws_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        /* nothing allocated yet */
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_ccws_destroy(gmmu_ccws *x)
{
    if (!x)
        return;
    free(x);
}
