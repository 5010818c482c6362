#include "gmmu/footprint.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* One open-addressing set of page numbers + 1 (0 marks an empty slot),
 * linear probing, at most half full. */
typedef struct page_set {
    uint64_t *key;
    uint32_t log2cap;
    uint64_t n;
} page_set;

struct gmmu_footprint {
    page_set p4, p2;
    bool full; /* a growth failed: the counts no longer grow */
};

enum { START_LOG2 = 10 };

static bool set_init(page_set *s)
{
    s->log2cap = START_LOG2;
    s->n = 0;
    s->key = calloc((size_t)1 << s->log2cap, sizeof *s->key);
    return s->key != NULL;
}

static inline uint64_t slot_of(uint64_t k, uint32_t log2cap)
{
    return (k * 0x9E3779B97F4A7C15ull) >> (64 - log2cap);
}

/* Insert k (nonzero) into a table known to have room. Returns whether it was new. */
static bool put(uint64_t *key, uint32_t log2cap, uint64_t k)
{
    const uint64_t mask = ((uint64_t)1 << log2cap) - 1;
    for (uint64_t i = slot_of(k, log2cap);; i = (i + 1) & mask) {
        if (key[i] == k)
            return false;
        if (!key[i]) {
            key[i] = k;
            return true;
        }
    }
}

static bool grow(page_set *s)
{
    const uint32_t nl = s->log2cap + 1;
    if (nl > 40)
        return false;
    uint64_t *nk = calloc((size_t)1 << nl, sizeof *nk);
    if (!nk)
        return false;
    const uint64_t cap = (uint64_t)1 << s->log2cap;
    for (uint64_t i = 0; i < cap; i++)
        if (s->key[i])
            put(nk, nl, s->key[i]);
    free(s->key);
    s->key = nk;
    s->log2cap = nl;
    return true;
}

static gmmu_status add_page(gmmu_footprint *f, page_set *s, uint64_t page)
{
    if (2 * (s->n + 1) > ((uint64_t)1 << s->log2cap) && !grow(s)) {
        const bool first = !f->full;
        f->full = true;
        return first ? GMMU_ENOMEM : GMMU_OK;
    }
    s->n += put(s->key, s->log2cap, page + 1);
    return GMMU_OK;
}

gmmu_status gmmu_footprint_create(gmmu_footprint **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "footprint", "output pointer is NULL");
    *out = NULL;
    gmmu_footprint *f = calloc(1, sizeof *f);
    if (!f || !set_init(&f->p4) || !set_init(&f->p2)) {
        gmmu_footprint_destroy(f);
        return GMMU_ENOMEM;
    }
    *out = f;
    return GMMU_OK;
}

void gmmu_footprint_destroy(gmmu_footprint *f)
{
    if (!f)
        return;
    free(f->p4.key);
    free(f->p2.key);
    free(f);
}

gmmu_status gmmu_footprint_add(gmmu_footprint *f, const uint64_t addr[32], uint32_t mask)
{
    if (!f || !addr)
        return GMMU_EINVAL;
    if (f->full)
        return GMMU_OK;
    /* Consecutive lanes mostly share a page: look each page up once per run. */
    uint64_t last4 = UINT64_MAX, last2 = UINT64_MAX;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        const uint64_t q4 = addr[l] >> 12, q2 = addr[l] >> 21;
        gmmu_status st = GMMU_OK;
        if (q4 != last4)
            st = add_page(f, &f->p4, q4);
        if (st == GMMU_OK && q2 != last2)
            st = add_page(f, &f->p2, q2);
        if (st != GMMU_OK || f->full)
            return st;
        last4 = q4;
        last2 = q2;
    }
    return GMMU_OK;
}

uint64_t gmmu_footprint_pages_4k(const gmmu_footprint *f) { return f ? f->p4.n : 0; }

uint64_t gmmu_footprint_pages_2m(const gmmu_footprint *f) { return f ? f->p2.n : 0; }

void gmmu_footprint_clear(gmmu_footprint *f)
{
    if (!f)
        return;
    memset(f->p4.key, 0, ((size_t)1 << f->p4.log2cap) * sizeof *f->p4.key);
    memset(f->p2.key, 0, ((size_t)1 << f->p2.log2cap) * sizeof *f->p2.key);
    f->p4.n = f->p2.n = 0;
}
