#include "gmmu/ldt.h"
#include "gmmu/rng.h"
#include "bitops.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_ldt_config_check(const gmmu_ldt_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "config", "LDT config is NULL");
    if (c->entries == 0 || c->entries > (1u << 20))
        return gmmu_error_set(err, "entries", "LDT entries %u out of range 1..1048576",
                              c->entries);
    if (c->ways == 0 || c->ways > c->entries || c->entries % c->ways != 0)
        return gmmu_error_set(err, "ways", "LDT ways %u must divide entries (%u)", c->ways,
                              c->entries);
    if (c->cus == 0 || c->cus > GMMU_LDT_MAX_CUS)
        return gmmu_error_set(err, "cus", "LDT CU count %u out of range 1..%u", c->cus,
                              GMMU_LDT_MAX_CUS);
    if (c->tag_bits > 32)
        return gmmu_error_set(err, "tag_bits", "LDT tag width %u out of range 0..32 (0 = 16)",
                              c->tag_bits);
    if (c->lookup_cycles > 1000000 || c->update_cycles > 1000000)
        return gmmu_error_set(err, c->lookup_cycles > 1000000 ? "lookup_cycles" : "update_cycles",
                              "LDT latency out of range 0..1000000");
    return GMMU_OK;
}

static void free_arrays(gmmu_ldt *l)
{
    free(l->tag);
    free(l->key);
    free(l->stamp);
    free(l->bits);
    l->tag = NULL;
    l->key = NULL;
    l->stamp = NULL;
    l->bits = NULL;
}

static void ldt_release(gmmu_ldt *x);

static gmmu_status ldt_init_into(gmmu_ldt *l, const gmmu_ldt_config *cfg, gmmu_error *err)
{
    if (!l)
        return gmmu_error_set(err, "ldt", "LDT pointer is NULL");
    gmmu_status s = gmmu_ldt_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(l, 0, sizeof *l);
    l->cfg = *cfg;
    if (!l->cfg.tag_bits)
        l->cfg.tag_bits = 16;
    l->sets = cfg->entries / cfg->ways;
    l->words = (cfg->cus + 63) / 64;
    l->tag = calloc(cfg->entries, sizeof *l->tag);
    l->key = calloc(cfg->entries, sizeof *l->key);
    l->stamp = calloc(cfg->entries, sizeof *l->stamp);
    l->bits = calloc((size_t)cfg->entries * l->words, sizeof *l->bits);
    if (!l->tag || !l->key || !l->stamp || !l->bits) {
        free_arrays(l);
        return GMMU_ENOMEM;
    }
    return GMMU_OK;
}

static void ldt_release(gmmu_ldt *l)
{
    if (l)
        free_arrays(l);
}

void gmmu_ldt_clear(gmmu_ldt *l)
{
    if (!l || !l->tag)
        return;
    memset(l->stamp, 0, l->cfg.entries * sizeof *l->stamp);
    memset(l->bits, 0, (size_t)l->cfg.entries * l->words * sizeof *l->bits);
}

/* splitmix64 finaliser over (asid, vpn, seed). */
static uint64_t hash_key(const gmmu_ldt *l, uint64_t key)
{
    return gmmu_mix64(key ^ l->cfg.seed ^ GMMU_SPLITMIX64_GAMMA);
}

static inline uint64_t full_key(uint16_t asid, uint64_t vpn)
{
    /* Exact for vpn < 2^48 (VAs below 2^60); used for alias counting only. */
    return vpn ^ ((uint64_t)asid << 48);
}

/* Set and stored tag of a page. The set uses the low hash bits, the tag the
 * high ones, so pages of one set differ in their tags unless they alias. */
static void place(const gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t *set, uint32_t *tag)
{
    uint64_t h = hash_key(l, full_key(asid, vpn));
    *set = (uint32_t)(h % l->sets);
    uint32_t tb = l->cfg.tag_bits;
    *tag = (uint32_t)((h >> 32) & (tb >= 32 ? 0xFFFFFFFFu : ((1u << tb) - 1)));
}

static int find(const gmmu_ldt *l, uint32_t set, uint32_t tag)
{
    const uint32_t base = set * l->cfg.ways;
    for (uint32_t w = 0; w < l->cfg.ways; w++)
        if (l->stamp[base + w] && l->tag[base + w] == tag)
            return (int)(base + w);
    return -1;
}

gmmu_status gmmu_ldt_update(gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t cu,
                            uint32_t *cycles)
{
    if (!l || !l->tag || cu >= l->cfg.cus)
        return GMMU_EINVAL;
    uint32_t set, tag;
    place(l, asid, vpn, &set, &tag);
    const uint64_t key = full_key(asid, vpn);
    l->st.updates++;
    l->clock++;
    int i = find(l, set, tag);
    if (i >= 0) {
        l->st.update_hits++;
        if (l->key[i] != key) {
            l->st.alias_updates++;
            l->key[i] = key;
        }
    } else {
        const uint32_t base = set * l->cfg.ways;
        uint64_t best = UINT64_MAX;
        for (uint32_t w = 0; w < l->cfg.ways; w++)
            if (l->stamp[base + w] < best) { /* a free entry (stamp 0) wins */
                best = l->stamp[base + w];
                i = (int)(base + w);
            }
        if (best != 0)
            l->st.replacements++;
        l->st.allocations++;
        l->tag[i] = tag;
        l->key[i] = key;
        memset(&l->bits[(size_t)i * l->words], 0, l->words * sizeof *l->bits);
    }
    l->stamp[i] = l->clock;
    l->bits[(size_t)i * l->words + cu / 64] |= 1ull << (cu % 64);
    if (cycles)
        *cycles = l->cfg.update_cycles;
    return GMMU_OK;
}


static uint32_t list_cus(const gmmu_ldt *l, int i, uint32_t self, uint32_t *cus)
{
    uint32_t n = 0;
    const uint64_t *b = &l->bits[(size_t)i * l->words];
    for (uint32_t w = 0; w < l->words; w++)
        for (uint64_t m = b[w]; m; m &= m - 1) {
            uint32_t cu = w * 64 + ctz64(m);
            if (cu != self)
                cus[n++] = cu;
        }
    return n;
}

gmmu_status gmmu_ldt_on_evict(gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t *cus,
                              uint32_t cap, uint32_t *n, uint32_t *cycles)
{
    if (!l || !l->tag || !cus || !n || cap < l->cfg.cus)
        return GMMU_EINVAL;
    uint32_t set, tag;
    place(l, asid, vpn, &set, &tag);
    l->st.lookups++;
    if (cycles)
        *cycles = l->cfg.lookup_cycles;
    *n = 0;
    int i = find(l, set, tag);
    if (i < 0)
        return GMMU_OK;
    l->st.lookup_hits++;
    if (l->key[i] != full_key(asid, vpn))
        l->st.alias_hits++;
    l->stamp[i] = ++l->clock;
    *n = list_cus(l, i, GMMU_LDT_NO_CU, cus);
    l->st.pushes += *n;
    return GMMU_OK;
}

gmmu_status gmmu_ldt_sharers(const gmmu_ldt *l, uint16_t asid, uint64_t vpn, uint32_t self,
                             uint32_t *cus, uint32_t cap, uint32_t *n)
{
    if (!l || !l->tag || !cus || !n || cap < l->cfg.cus)
        return GMMU_EINVAL;
    uint32_t set, tag;
    place(l, asid, vpn, &set, &tag);
    int i = find(l, set, tag);
    *n = i < 0 ? 0 : list_cus(l, i, self, cus);
    return GMMU_OK;
}

uint64_t gmmu_ldt_storage_bits(const gmmu_ldt_config *cfg)
{
    if (!cfg || gmmu_ldt_config_check(cfg, NULL) != GMMU_OK)
        return 0;
    uint64_t tb = cfg->tag_bits ? cfg->tag_bits : 16;
    uint64_t lru = cfg->ways > 1 ? gmmu_log2_u64(cfg->ways - 1) + 1 : 0; /* ceil(log2(ways)) */
    return (uint64_t)cfg->entries * (1 + tb + cfg->cus + lru);
}

gmmu_status gmmu_ldt_create(const gmmu_ldt_config *cfg, gmmu_ldt **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "ldt", "output pointer is NULL");
    *out = NULL;
    gmmu_ldt *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = ldt_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        ldt_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_ldt_destroy(gmmu_ldt *x)
{
    if (!x)
        return;
    ldt_release(x);
    free(x);
}
