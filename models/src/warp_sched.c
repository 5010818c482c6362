#include "gmmu/warp_sched.h"

#include "bitops.h"

#include <stddef.h>
#include <stdlib.h>

unsigned gmmu_warp_pick_earliest(const uint64_t *ready, const uint8_t *finished, unsigned n,
                                 unsigned rr)
{
    if (!ready || !finished || n == 0 || rr >= n)
        return n;
    unsigned w = n;
    unsigned c = rr;
    for (unsigned k = 0; k < n; k++) {
        if (!finished[c] && (w == n || ready[c] < ready[w]))
            w = c;
        if (++c == n)
            c = 0;
    }
    return w;
}

/* ---- gmmu_warp_picker: a tournament tree ---------------------------------
 * Leaves size..2*size-1 hold the warps' keys (size = warps rounded up to a
 * power of two; padding and finished warps hold UINT64_MAX); node i holds
 * the smaller of its children's, so node 1 is the earliest ready time. A
 * pick finds the first leaf at or after rr holding that minimum, else the
 * first one from leaf 0: the rotation-order tie-break of
 * gmmu_warp_pick_earliest. A warp whose real ready time is UINT64_MAX is
 * indistinguishable from a finished one in the tree: when the minimum is
 * UINT64_MAX the pick falls back to the scan over the kept arrays. */

struct gmmu_warp_picker {
    unsigned warps, size;
    uint64_t *tree;    /* 2 * size nodes, node 0 unused */
    uint64_t *ready;   /* per warp */
    uint8_t *finished; /* per warp */
};

gmmu_status gmmu_warp_picker_create(const gmmu_warp_picker_config *cfg, gmmu_warp_picker **out,
                                    gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "warp_picker", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "cfg", "config is NULL");
    if (cfg->warps < 1 || cfg->warps > GMMU_WARP_PICKER_MAX_WARPS)
        return gmmu_error_set(err, "warps", "must be 1..%u, got %u", GMMU_WARP_PICKER_MAX_WARPS,
                              cfg->warps);
    gmmu_warp_picker *p = calloc(1, sizeof *p);
    if (!p)
        return GMMU_ENOMEM;
    p->warps = cfg->warps;
    p->size = 1;
    while (p->size < p->warps)
        p->size *= 2;
    p->tree = malloc(2 * (size_t)p->size * sizeof *p->tree);
    p->ready = calloc(p->warps, sizeof *p->ready);
    p->finished = calloc(p->warps, sizeof *p->finished);
    if (!p->tree || !p->ready || !p->finished) {
        gmmu_warp_picker_destroy(p);
        return GMMU_ENOMEM;
    }
    for (unsigned i = 0; i < p->size; i++)
        p->tree[p->size + i] = i < p->warps ? 0 : UINT64_MAX;
    for (unsigned i = p->size - 1; i >= 1; i--) {
        const uint64_t a = p->tree[2 * i], b = p->tree[2 * i + 1];
        p->tree[i] = a < b ? a : b;
    }
    *out = p;
    return GMMU_OK;
}

void gmmu_warp_picker_destroy(gmmu_warp_picker *p)
{
    if (!p)
        return;
    free(p->tree);
    free(p->ready);
    free(p->finished);
    free(p);
}

/* The climb carries the new minimum up in a register and loads only the
 * siblings: reloading the node just stored would put a store-to-load
 * forward on every level's path. */
static void picker_leaf(gmmu_warp_picker *p, unsigned w, uint64_t key)
{
    unsigned i = p->size + w;
    uint64_t v = key;
    p->tree[i] = v;
    for (; i > 1; i /= 2) {
        const uint64_t s = p->tree[i ^ 1];
        v = s < v ? s : v;
        p->tree[i / 2] = v;
    }
}

void gmmu_warp_picker_set(gmmu_warp_picker *p, unsigned w, uint64_t ready)
{
    if (!p || w >= p->warps || p->finished[w])
        return;
    p->ready[w] = ready;
    picker_leaf(p, w, ready);
}

void gmmu_warp_picker_finish(gmmu_warp_picker *p, unsigned w)
{
    if (!p || w >= p->warps || p->finished[w])
        return;
    p->finished[w] = 1;
    picker_leaf(p, w, UINT64_MAX);
}

uint64_t gmmu_warp_picker_ready(const gmmu_warp_picker *p, unsigned w)
{
    return p && w < p->warps ? p->ready[w] : 0;
}

unsigned gmmu_warp_picker_pick(const gmmu_warp_picker *p, unsigned rr)
{
    if (!p || rr >= p->warps)
        return p ? p->warps : 0;
    const uint64_t m = p->tree[1];
    if (m == UINT64_MAX)
        return gmmu_warp_pick_earliest(p->ready, p->finished, p->warps, rr);
    /* The first subtree at or right of leaf rr whose minimum is m: leaf rr
     * itself, else the right sibling of the lowest node on rr's path to the
     * root that is a left child and whose sibling holds m (those siblings
     * cover the leaves after rr in order, level by level); none: the first
     * leaf holding m from leaf 0, below the root. After the check of leaf
     * rr, every level of the path is looked at, without a branch on the
     * times (only on whether any level matched): a climb that stops at
     * the first match mispredicts when warps wait on translations and their
     * ready times spread (docs/performance.md, Platform). */
    const unsigned leaf = p->size + rr;
    if (p->tree[leaf] == m)
        return rr; /* warps not waiting: rr's turn, the usual case */
    uint64_t found = 0;
    unsigned k = 1;
    for (unsigned n = leaf; n > 1; n >>= 1, k++)
        found |= (uint64_t)(!(n & 1) & (p->tree[n | 1] == m)) << k;
    unsigned i = 1;
    if (found) {
        const unsigned lvl = ctz64(found);
        i = lvl ? (leaf >> (lvl - 1)) | 1 : leaf;
    }
    while (i < p->size) /* leftmost leaf holding m */
        i = 2 * i + (p->tree[2 * i] != m);
    return i - p->size;
}
