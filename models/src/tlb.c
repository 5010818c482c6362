#include "gmmu/tlb.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_tlb_config_check(const gmmu_tlb_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "config", "TLB config is NULL");
    if (c->entries == 0 || c->entries > (1u << 24))
        return gmmu_error_set(err, "entries", "TLB entries %u out of range 1..16777216", c->entries);
    if (c->ways == 0 || c->ways > c->entries)
        return gmmu_error_set(err, "ways", "TLB ways %u out of range 1..entries (%u)", c->ways,
                              c->entries);
    if (c->page_shift < 12 || c->page_shift > 32)
        return gmmu_error_set(err, "page_shift", "TLB page size 2^%u out of range 4 KiB..4 GiB",
                              c->page_shift);
    if (c->repl > GMMU_TLB_REPL_RANDOM)
        return gmmu_error_set(err, "replacement", "unknown replacement policy %d", (int)c->repl);
    if (c->repl == GMMU_TLB_REPL_PLRU &&
        (!gmmu_is_pow2_u64(c->ways) || c->entries % c->ways != 0 || c->ways > 64))
        return gmmu_error_set(err, "replacement",
                              "tree-PLRU needs power-of-two ways (<= 64) dividing entries");
    if (c->lookup_cycles > 1000000)
        return gmmu_error_set(err, "lookup_cycles", "lookup latency %u out of range 0..1000000",
                              c->lookup_cycles);
    return GMMU_OK;
}

gmmu_status gmmu_tlb_init(gmmu_tlb *t, const gmmu_tlb_config *cfg, gmmu_error *err)
{
    if (!t)
        return gmmu_error_set(err, "tlb", "TLB pointer is NULL");
    gmmu_status s = gmmu_tlb_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(t, 0, sizeof *t);
    t->cfg = *cfg;
    t->sets = cfg->entries / cfg->ways;
    t->last_set_ways = cfg->entries - (t->sets - 1) * cfg->ways;
    t->e = calloc(cfg->entries, sizeof *t->e);
    t->plru = calloc(t->sets, sizeof *t->plru);
    if (!t->e || !t->plru) {
        free(t->e);
        free(t->plru);
        t->e = NULL;
        t->plru = NULL;
        return GMMU_ENOMEM;
    }
    t->rng = cfg->seed ? cfg->seed : 0x9E3779B97F4A7C15ull;
    return GMMU_OK;
}

void gmmu_tlb_destroy(gmmu_tlb *t)
{
    if (!t)
        return;
    free(t->e);
    free(t->plru);
    t->e = NULL;
    t->plru = NULL;
}

static inline uint32_t set_of(const gmmu_tlb *t, uint64_t vpn)
{
    return t->sets == 1 ? 0 : (uint32_t)(vpn % t->sets);
}

static inline gmmu_tlb_entry *set_base(const gmmu_tlb *t, uint32_t set, uint32_t *nways)
{
    *nways = set == t->sets - 1 ? t->last_set_ways : t->cfg.ways;
    return t->e + (uint64_t)set * t->cfg.ways;
}

/* Tree-PLRU: bit i of the tree is node i (heap order, root = 1). A set bit
 * means "the victim is in the right half". Touching way w points every node
 * on its path away from w. */
static void plru_touch(uint64_t *bits, uint32_t ways, uint32_t way)
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

gmmu_status gmmu_tlb_lookup(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r)
{
    if (!t || !t->e || !r)
        return GMMU_EINVAL;
    uint32_t set = set_of(t, vpn), nways;
    gmmu_tlb_entry *b = set_base(t, set, &nways);
    t->st.accesses++;
    t->clock++;
    r->cycles = t->cfg.lookup_cycles;
    for (uint32_t w = 0; w < nways; w++) {
        gmmu_tlb_entry *e = &b[w];
        if (e->valid && e->vpn == vpn && e->asid == asid) {
            r->hit = true;
            r->ppn = e->ppn;
            r->perms = e->perms;
            uint32_t depth = 0;
            for (uint32_t k = 0; k < nways; k++)
                depth += b[k].valid && b[k].stamp > e->stamp && t->cfg.repl == GMMU_TLB_REPL_LRU;
            r->lru_depth = depth;
            if (t->cfg.repl == GMMU_TLB_REPL_LRU)
                e->stamp = t->clock;
            else if (t->cfg.repl == GMMU_TLB_REPL_PLRU)
                plru_touch(&t->plru[set], nways, w);
            t->st.hits++;
            return GMMU_OK;
        }
    }
    r->hit = false;
    r->ppn = 0;
    r->perms = 0;
    r->lru_depth = 0;
    t->st.misses++;
    return GMMU_OK;
}

bool gmmu_tlb_probe(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out)
{
    if (!t || !t->e)
        return false;
    uint32_t nways;
    const gmmu_tlb_entry *b = set_base(t, set_of(t, vpn), &nways);
    for (uint32_t w = 0; w < nways; w++)
        if (b[w].valid && b[w].vpn == vpn && b[w].asid == asid) {
            if (out)
                *out = b[w];
            return true;
        }
    return false;
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *s = x;
    return x;
}

gmmu_status gmmu_tlb_fill(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn, uint64_t perms,
                          gmmu_tlb_entry *victim, bool *evicted)
{
    if (!t || !t->e)
        return GMMU_EINVAL;
    uint32_t set = set_of(t, vpn), nways;
    gmmu_tlb_entry *b = set_base(t, set, &nways);
    if (evicted)
        *evicted = false;
    t->clock++;
    t->st.fills++;
    uint32_t slot = nways;
    for (uint32_t w = 0; w < nways; w++)
        if (b[w].valid && b[w].vpn == vpn && b[w].asid == asid) {
            slot = w; /* refresh in place */
            break;
        }
    if (slot == nways)
        for (uint32_t w = 0; w < nways; w++)
            if (!b[w].valid) {
                slot = w;
                break;
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
        if (victim)
            *victim = b[slot];
        if (evicted)
            *evicted = true;
        t->st.evictions++;
    }
    gmmu_tlb_entry *e = &b[slot];
    e->vpn = vpn;
    e->ppn = ppn;
    e->perms = perms;
    e->asid = asid;
    e->valid = true;
    e->stamp = t->clock;
    if (t->cfg.repl == GMMU_TLB_REPL_PLRU)
        plru_touch(&t->plru[set], nways, slot);
    return GMMU_OK;
}

void gmmu_tlb_invalidate_all(gmmu_tlb *t)
{
    if (!t || !t->e)
        return;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        if (t->e[i].valid) {
            t->e[i].valid = false;
            t->st.invalidations++;
        }
}

bool gmmu_tlb_invalidate_page(gmmu_tlb *t, uint16_t asid, uint64_t vpn)
{
    if (!t || !t->e)
        return false;
    uint32_t nways;
    gmmu_tlb_entry *b = set_base(t, set_of(t, vpn), &nways);
    for (uint32_t w = 0; w < nways; w++)
        if (b[w].valid && b[w].vpn == vpn && b[w].asid == asid) {
            b[w].valid = false;
            t->st.invalidations++;
            return true;
        }
    return false;
}

uint32_t gmmu_tlb_invalidate_asid(gmmu_tlb *t, uint16_t asid)
{
    uint32_t n = 0;
    if (!t || !t->e)
        return 0;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        if (t->e[i].valid && t->e[i].asid == asid) {
            t->e[i].valid = false;
            n++;
        }
    t->st.invalidations += n;
    return n;
}

uint32_t gmmu_tlb_invalidate_range(gmmu_tlb *t, uint16_t asid, uint64_t va_lo, uint64_t va_hi)
{
    uint32_t n = 0;
    if (!t || !t->e || va_hi < va_lo)
        return 0;
    uint64_t lo = va_lo >> t->cfg.page_shift, hi = va_hi >> t->cfg.page_shift;
    for (uint32_t i = 0; i < t->cfg.entries; i++)
        if (t->e[i].valid && t->e[i].asid == asid && t->e[i].vpn >= lo && t->e[i].vpn <= hi) {
            t->e[i].valid = false;
            n++;
        }
    t->st.invalidations += n;
    return n;
}
