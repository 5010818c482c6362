/* CPWC — compressed tree-structured page walk cache. See gmmu/cpwc.h. */
#include "gmmu/cpwc.h"

#include <stdlib.h>
#include <string.h>

#define MASK_WORDS (GMMU_PWC_CPWC_MAX_BLOCKS / 64u)
#define NO_OWNER (-1)

typedef struct l4_entry {
    uint64_t base;
    uint16_t tag;
    uint8_t valid;
} l4_entry;

typedef struct l3_entry {
    uint64_t base;
    uint64_t mask[MASK_WORDS]; /* l2_blocks-bit vector; block b is bit (l2_blocks - 1 - b) */
    uint16_t tag;
    uint8_t valid;
} l3_entry;

typedef struct l2_entry {
    uint64_t base;
    uint64_t stamp; /* LRU: last use, FIFO: fill */
    uint16_t tag;
    uint8_t valid;
} l2_entry;

struct gmmu_cpwc {
    uint32_t l4n, l3n, nb, be;
    unsigned l4_bits, l3_lo_bits; /* slot bits taken from the L4 and the L3 index */
    gmmu_pwc_repl repl;
    uint64_t clock;
    l4_entry *l4;
    l3_entry *l3;
    l2_entry *l2;   /* block b: l2[b * be .. b * be + be - 1] */
    int32_t *owner; /* per block: owning L3 slot or NO_OWNER; mirrors the masks */
};

gmmu_status gmmu_cpwc_validate(const gmmu_pwc_config *cfg, gmmu_error *err)
{
    const uint32_t l4 = cfg->cpwc.l4_entries, l3 = cfg->cpwc.l3_entries;
    if (l4 < 1 || l4 > 512 || !gmmu_is_pow2_u64(l4))
        return gmmu_error_set(err, "cpwc.l4_entries", "%u entries: must be a power of two 1..512",
                              l4);
    if (l3 < l4 || l3 % l4 != 0 || !gmmu_is_pow2_u64(l3) || l3 / l4 > 512)
        return gmmu_error_set(err, "cpwc.l3_entries",
                              "%u entries: must be a power of two, l4_entries (%u) .. 512 x "
                              "l4_entries", l3, l4);
    if (cfg->cpwc.l2_blocks < 1 || cfg->cpwc.l2_blocks > GMMU_PWC_CPWC_MAX_BLOCKS)
        return gmmu_error_set(err, "cpwc.l2_blocks", "%u blocks: allowed 1..%u",
                              cfg->cpwc.l2_blocks, GMMU_PWC_CPWC_MAX_BLOCKS);
    if (cfg->cpwc.block_entries < 1 || cfg->cpwc.block_entries > GMMU_PWC_MAX_ENTRIES)
        return gmmu_error_set(err, "cpwc.block_entries", "%u entries: allowed 1..%u",
                              cfg->cpwc.block_entries, GMMU_PWC_MAX_ENTRIES);
    if (cfg->cpwc.lookup_cycles < 1 || cfg->cpwc.lookup_cycles > GMMU_PWC_MAX_LATENCY)
        return gmmu_error_set(err, "cpwc.lookup_cycles", "%u cycles: allowed 1..%u",
                              cfg->cpwc.lookup_cycles, GMMU_PWC_MAX_LATENCY);
    if (cfg->cpwc.mux_cycles > GMMU_PWC_MAX_LATENCY - cfg->cpwc.lookup_cycles)
        return gmmu_error_set(err, "cpwc.mux_cycles",
                              "%u cycles: lookup_cycles + mux_cycles must be <= %u",
                              cfg->cpwc.mux_cycles, GMMU_PWC_MAX_LATENCY);
    return GMMU_OK;
}

uint64_t gmmu_cpwc_bits(const gmmu_pwc_config *cfg)
{
    const uint64_t e = GMMU_PWC_CPWC_ENTRY_BITS;
    const uint64_t nb = cfg->cpwc.l2_blocks;
    return cfg->cpwc.l4_entries * e + cfg->cpwc.l3_entries * (e + nb) +
           nb * cfg->cpwc.block_entries * e;
}

gmmu_status gmmu_cpwc_create(const gmmu_pwc_config *cfg, gmmu_cpwc **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "out", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_cpwc_validate(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_cpwc *c = calloc(1, sizeof *c);
    if (!c)
        return GMMU_ENOMEM;
    c->l4n = cfg->cpwc.l4_entries;
    c->l3n = cfg->cpwc.l3_entries;
    c->nb = cfg->cpwc.l2_blocks;
    c->be = cfg->cpwc.block_entries;
    c->l4_bits = gmmu_log2_u64(c->l4n);
    c->l3_lo_bits = gmmu_log2_u64(c->l3n / c->l4n);
    c->repl = cfg->replacement;
    c->l4 = calloc(c->l4n, sizeof *c->l4);
    c->l3 = calloc(c->l3n, sizeof *c->l3);
    c->l2 = calloc((size_t)c->nb * c->be, sizeof *c->l2);
    c->owner = malloc(c->nb * sizeof *c->owner);
    if (!c->l4 || !c->l3 || !c->l2 || !c->owner) {
        gmmu_cpwc_destroy(c);
        return GMMU_ENOMEM;
    }
    for (uint32_t b = 0; b < c->nb; b++)
        c->owner[b] = NO_OWNER;
    *out = c;
    return GMMU_OK;
}

void gmmu_cpwc_destroy(gmmu_cpwc *c)
{
    if (!c)
        return;
    free(c->l4);
    free(c->l3);
    free(c->l2);
    free(c->owner);
    free(c);
}

/* ---- slots and masks -------------------------------------------------------- */
static unsigned l4_slot(const gmmu_cpwc *c, unsigned i4) { return i4 & (c->l4n - 1u); }

static unsigned l3_slot(const gmmu_cpwc *c, unsigned i4, unsigned i3)
{
    return (l4_slot(c, i4) << c->l3_lo_bits) | (i3 & ((1u << c->l3_lo_bits) - 1u));
}

unsigned gmmu_cpwc_l4_slot(const gmmu_cpwc *c, uint64_t va)
{
    return l4_slot(c, gmmu_va_index(va, 4));
}

unsigned gmmu_cpwc_l3_slot(const gmmu_cpwc *c, uint64_t va)
{
    return l3_slot(c, gmmu_va_index(va, 4), gmmu_va_index(va, 3));
}

static unsigned mask_pos(const gmmu_cpwc *c, uint32_t block) { return c->nb - 1u - block; }

static void mask_set(gmmu_cpwc *c, l3_entry *e, uint32_t block)
{
    unsigned p = mask_pos(c, block);
    e->mask[p / 64u] |= 1ull << (p % 64u);
}

static void mask_clear(gmmu_cpwc *c, l3_entry *e, uint32_t block)
{
    unsigned p = mask_pos(c, block);
    e->mask[p / 64u] &= ~(1ull << (p % 64u));
}

static int mask_test(const gmmu_cpwc *c, const l3_entry *e, uint32_t block)
{
    unsigned p = mask_pos(c, block);
    return (int)((e->mask[p / 64u] >> (p % 64u)) & 1u);
}

static l2_entry *block_entries(gmmu_cpwc *c, uint32_t b) { return &c->l2[(size_t)b * c->be]; }

/* ---- dropping entries and their dependents ---------------------------------- */
/* Drop every entry of block b and release it from its owner; *count += valid
 * entries dropped. */
static void drop_block(gmmu_cpwc *c, uint32_t b, uint64_t *count)
{
    l2_entry *e = block_entries(c, b);
    for (uint32_t w = 0; w < c->be; w++) {
        if (e[w].valid)
            ++*count;
        memset(&e[w], 0, sizeof e[w]);
    }
    if (c->owner[b] != NO_OWNER)
        mask_clear(c, &c->l3[c->owner[b]], b);
    c->owner[b] = NO_OWNER;
}

/* Drop the blocks owned by L3 slot s3 (its dependents). */
static void drop_l3_dependents(gmmu_cpwc *c, unsigned s3, uint64_t *count)
{
    for (uint32_t b = 0; b < c->nb; b++)
        if (c->owner[b] == (int32_t)s3)
            drop_block(c, b, count);
}

static void drop_l3(gmmu_cpwc *c, unsigned s3, uint64_t *self, uint64_t *deps)
{
    if (!c->l3[s3].valid)
        return;
    drop_l3_dependents(c, s3, deps);
    memset(&c->l3[s3], 0, sizeof c->l3[s3]);
    ++*self;
}

/* Drop the L3 entries of L4 slot s4's slots and their blocks. */
static void drop_l4_dependents(gmmu_cpwc *c, unsigned s4, uint64_t *deps)
{
    unsigned first = s4 << c->l3_lo_bits, n = 1u << c->l3_lo_bits;
    for (unsigned s3 = first; s3 < first + n; s3++)
        drop_l3(c, s3, deps, deps);
}

/* ---- lookup --------------------------------------------------------------------- */
gmmu_status gmmu_cpwc_match(gmmu_cpwc *c, uint64_t va, bool touch, gmmu_pwc_path *path)
{
    if (!c || !path)
        return GMMU_EINVAL;
    const unsigned i4 = gmmu_va_index(va, 4), i3 = gmmu_va_index(va, 3),
                   i2 = gmmu_va_index(va, 2);
    path->va = va;
    path->known = 0;
    /* Step 1 (parallel): L4, L3, every block. */
    const l4_entry *e4 = &c->l4[l4_slot(c, i4)];
    const unsigned s3 = l3_slot(c, i4, i3);
    const l3_entry *e3 = &c->l3[s3];
    if (!(e4->valid && e4->tag == i4))
        return GMMU_OK;
    path->base[3] = e4->base;
    path->known |= 1u << 3;
    if (!(e3->valid && e3->tag == i3))
        return GMMU_OK;
    path->base[2] = e3->base;
    path->known |= 1u << 2;
    /* Step 2 (mux): the L3 entry's mask picks the block results. Blocks are
     * owned by one L3 entry and fills keep tags unique among an owner's
     * blocks, so at most one selected block hits. */
    for (uint32_t b = 0; b < c->nb; b++) {
        if (!mask_test(c, e3, b))
            continue;
        l2_entry *e = block_entries(c, b);
        for (uint32_t w = 0; w < c->be; w++)
            if (e[w].valid && e[w].tag == i2) {
                path->base[1] = e[w].base;
                path->known |= 1u << 1;
                if (touch && c->repl == GMMU_PWC_REPL_LRU)
                    e[w].stamp = ++c->clock;
                return GMMU_OK;
            }
    }
    return GMMU_OK;
}

/* ---- fill ------------------------------------------------------------------------ */
static uint64_t block_stamp(gmmu_cpwc *c, uint32_t b)
{
    uint64_t s = 0;
    l2_entry *e = block_entries(c, b);
    for (uint32_t w = 0; w < c->be; w++)
        if (e[w].valid && e[w].stamp > s)
            s = e[w].stamp;
    return s;
}

static l2_entry *place_l2(gmmu_cpwc *c, unsigned s3, gmmu_pwc_stats *st)
{
    /* (1) a free entry in a block s3 owns */
    for (uint32_t b = 0; b < c->nb; b++) {
        if (c->owner[b] != (int32_t)s3)
            continue;
        l2_entry *e = block_entries(c, b);
        for (uint32_t w = 0; w < c->be; w++)
            if (!e[w].valid)
                return &e[w];
    }
    /* (2) the lowest-numbered free block */
    for (uint32_t b = 0; b < c->nb; b++)
        if (c->owner[b] == NO_OWNER) {
            c->owner[b] = (int32_t)s3;
            mask_set(c, &c->l3[s3], b);
            return block_entries(c, b);
        }
    /* (3) the least recently used (LRU) / filled (FIFO) block */
    uint32_t vb = 0;
    uint64_t vs = UINT64_MAX;
    for (uint32_t b = 0; b < c->nb; b++) {
        uint64_t s = block_stamp(c, b);
        if (s < vs) {
            vs = s;
            vb = b;
        }
    }
    l2_entry *e = block_entries(c, vb);
    if (c->owner[vb] == (int32_t)s3) {
        l2_entry *v = &e[0];
        for (uint32_t w = 1; w < c->be; w++)
            if (e[w].stamp < v->stamp)
                v = &e[w];
        st->evictions++;
        return v;
    }
    drop_block(c, vb, &st->evictions);
    c->owner[vb] = (int32_t)s3;
    mask_set(c, &c->l3[s3], vb);
    return e;
}

gmmu_status gmmu_cpwc_fill(gmmu_cpwc *c, const gmmu_pwc_path *path, gmmu_pwc_stats *st)
{
    if (!c || !path || !st)
        return GMMU_EINVAL;
    const uint64_t va = path->va;
    const unsigned i4 = gmmu_va_index(va, 4), i3 = gmmu_va_index(va, 3),
                   i2 = gmmu_va_index(va, 2);
    const unsigned s4 = l4_slot(c, i4), s3 = l3_slot(c, i4, i3);
    l4_entry *e4 = &c->l4[s4];
    l3_entry *e3 = &c->l3[s3];

    if (path->known & (1u << 3)) {
        uint64_t base = path->base[3] & ~0xFFFull;
        if (!(e4->valid && e4->tag == i4 && e4->base == base)) {
            if (e4->valid) {
                st->evictions++;
                drop_l4_dependents(c, s4, &st->dependent_invalidations);
            }
            e4->valid = 1;
            e4->tag = (uint16_t)i4;
            e4->base = base;
            st->entries_written++;
        }
    }
    if (!(e4->valid && e4->tag == i4))
        return GMMU_OK; /* no L4 entry to hang the rest on */

    if (path->known & (1u << 2)) {
        uint64_t base = path->base[2] & ~0xFFFull;
        if (!(e3->valid && e3->tag == i3 && e3->base == base)) {
            if (e3->valid) {
                st->evictions++;
                drop_l3_dependents(c, s3, &st->dependent_invalidations);
            }
            memset(e3, 0, sizeof *e3);
            e3->valid = 1;
            e3->tag = (uint16_t)i3;
            e3->base = base;
            st->entries_written++;
        }
    }
    if (!(e3->valid && e3->tag == i3) || !(path->known & (1u << 1)))
        return GMMU_OK;

    uint64_t base = path->base[1] & ~0xFFFull;
    for (uint32_t b = 0; b < c->nb; b++) {
        if (c->owner[b] != (int32_t)s3)
            continue;
        l2_entry *e = block_entries(c, b);
        for (uint32_t w = 0; w < c->be; w++)
            if (e[w].valid && e[w].tag == i2) {
                e[w].base = base;
                if (c->repl == GMMU_PWC_REPL_LRU)
                    e[w].stamp = ++c->clock;
                return GMMU_OK;
            }
    }
    l2_entry *e = place_l2(c, s3, st);
    e->valid = 1;
    e->tag = (uint16_t)i2;
    e->base = base;
    e->stamp = ++c->clock;
    st->entries_written++;
    return GMMU_OK;
}

/* ---- invalidation ---------------------------------------------------------------- */
void gmmu_cpwc_invalidate_all(gmmu_cpwc *c, gmmu_pwc_stats *st)
{
    if (!c)
        return;
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->l4n; s++) {
        n += c->l4[s].valid;
        memset(&c->l4[s], 0, sizeof c->l4[s]);
    }
    for (uint32_t s = 0; s < c->l3n; s++) {
        n += c->l3[s].valid;
        memset(&c->l3[s], 0, sizeof c->l3[s]);
    }
    for (uint32_t b = 0; b < c->nb; b++) {
        l2_entry *e = block_entries(c, b);
        for (uint32_t w = 0; w < c->be; w++) {
            n += e[w].valid;
            memset(&e[w], 0, sizeof e[w]);
        }
        c->owner[b] = NO_OWNER;
    }
    if (st)
        st->entries_invalidated += n;
}

void gmmu_cpwc_invalidate_range(gmmu_cpwc *c, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st)
{
    if (!c)
        return;
    uint64_t n = 0;
    for (uint32_t s4 = 0; s4 < c->l4n; s4++) {
        l4_entry *e4 = &c->l4[s4];
        if (e4->valid && gmmu_pwc_region_hit(4, gmmu_pwc_prefix_va(e4->tag, 0, 0), lo48, hi48)) {
            drop_l4_dependents(c, s4, &n);
            memset(e4, 0, sizeof *e4);
            n++;
        }
    }
    for (uint32_t s3 = 0; s3 < c->l3n; s3++) {
        l3_entry *e3 = &c->l3[s3];
        if (!e3->valid)
            continue;
        unsigned i4 = c->l4[s3 >> c->l3_lo_bits].tag; /* valid: L3 entries depend on it */
        if (gmmu_pwc_region_hit(3, gmmu_pwc_prefix_va(i4, e3->tag, 0), lo48, hi48))
            drop_l3(c, s3, &n, &n);
    }
    for (uint32_t b = 0; b < c->nb; b++) {
        if (c->owner[b] == NO_OWNER)
            continue;
        unsigned s3 = (unsigned)c->owner[b];
        unsigned i4 = c->l4[s3 >> c->l3_lo_bits].tag, i3 = c->l3[s3].tag;
        l2_entry *e = block_entries(c, b);
        for (uint32_t w = 0; w < c->be; w++)
            if (e[w].valid &&
                gmmu_pwc_region_hit(2, gmmu_pwc_prefix_va(i4, i3, e[w].tag), lo48, hi48)) {
                memset(&e[w], 0, sizeof e[w]);
                n++;
            }
    }
    if (st)
        st->entries_invalidated += n;
}

/* ---- inspection ------------------------------------------------------------------- */
gmmu_status gmmu_cpwc_l4_entry(const gmmu_cpwc *c, unsigned slot, gmmu_cpwc_entry_view *v)
{
    if (!c || !v || slot >= c->l4n)
        return GMMU_EINVAL;
    memset(v, 0, sizeof *v);
    v->valid = c->l4[slot].valid != 0;
    v->tag = c->l4[slot].tag;
    v->base = c->l4[slot].base;
    return GMMU_OK;
}

gmmu_status gmmu_cpwc_l3_entry(const gmmu_cpwc *c, unsigned slot, gmmu_cpwc_entry_view *v)
{
    if (!c || !v || slot >= c->l3n)
        return GMMU_EINVAL;
    memset(v, 0, sizeof *v);
    v->valid = c->l3[slot].valid != 0;
    v->tag = c->l3[slot].tag;
    v->base = c->l3[slot].base;
    memcpy(v->mask, c->l3[slot].mask, sizeof v->mask);
    return GMMU_OK;
}

gmmu_status gmmu_cpwc_l2_entry(const gmmu_cpwc *c, unsigned block, unsigned way,
                               gmmu_cpwc_entry_view *v)
{
    if (!c || !v || block >= c->nb || way >= c->be)
        return GMMU_EINVAL;
    const l2_entry *e = &c->l2[(size_t)block * c->be + way];
    memset(v, 0, sizeof *v);
    v->valid = e->valid != 0;
    v->tag = e->tag;
    v->base = e->base;
    return GMMU_OK;
}
