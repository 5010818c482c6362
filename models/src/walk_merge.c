#include "gmmu/walk_merge.h"

#include "gmmu/tlb.h"

#include <stdlib.h>
#include <string.h>

/* The page sizes a walk may end at, smallest first. */
static const uint8_t k_shifts[] = {12, 21, 30};

static void wm_release(gmmu_walk_merge *x);

static gmmu_status wm_init_into(gmmu_walk_merge *m, uint32_t slots, gmmu_error *err)
{
    if (!m)
        return gmmu_error_set(err, "walk_merge", "no struct");
    memset(m, 0, sizeof *m);
    if (!gmmu_is_pow2_u64(slots) || slots < 2 || slots > (1u << 20))
        return gmmu_error_set(err, "slots", "%u is not a power of two in 2..2^20", slots);
    /* Slots start on cache lines: a probe (a random slot, by the hash) then
     * touches one line, not two (a slot is 64 bytes on LP64 hosts). */
    const size_t line = 64, bytes = ((size_t)slots * sizeof *m->slots + line - 1) / line * line;
    m->slots = aligned_alloc(line, bytes);
    if (!m->slots)
        return GMMU_ENOMEM;
    memset(m->slots, 0, bytes);
    m->nslots = slots;
    m->slot_bits = gmmu_log2_u64(slots);
    return GMMU_OK;
}

static void wm_release(gmmu_walk_merge *m)
{
    if (!m)
        return;
    free(m->slots);
    m->slots = NULL;
    m->nslots = 0;
}

/* Fibonacci hashing of (asid, page, size): the product's top bits pick the
 * slot. 4 KiB pages hash as (asid << 52 | vpn); larger pages mix their size
 * in so a 2 MiB page and the 4 KiB page with the same number differ. */
static uint32_t slot_of(const gmmu_walk_merge *m, uint16_t asid, uint64_t vpn, uint8_t shift)
{
    uint64_t key = ((uint64_t)asid << 52) | vpn;
    if (shift != 12)
        key ^= (uint64_t)shift << 44;
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - m->slot_bits));
}

void gmmu_wm_record(gmmu_walk_merge *m, uint16_t asid, uint64_t root, const gmmu_wm_walk *w,
                    uint64_t ready)
{
    const uint8_t shift = w->page_shift;
    const uint64_t vpn = w->va >> shift;
    gmmu_wm_slot *s = &m->slots[slot_of(m, asid, vpn, shift)];
    if (s->valid && !(s->asid == asid && s->root == root && s->vpn == vpn &&
                      s->walk.page_shift == shift))
        m->st.overwrites++;
    s->valid = true;
    s->asid = asid;
    s->root = root;
    s->vpn = vpn;
    s->ready = ready;
    s->walk = *w;
    for (uint32_t i = 0; i < sizeof k_shifts / sizeof k_shifts[0]; i++)
        if (k_shifts[i] == shift)
            m->sizes_seen |= 1u << i;
    m->st.records++;
}

bool gmmu_wm_merge(gmmu_walk_merge *m, uint16_t asid, uint64_t root, uint64_t va, unsigned access,
                   uint64_t now, gmmu_wm_walk *out, uint64_t *ready)
{
    m->st.lookups++;
    for (size_t i = 0; i < sizeof k_shifts / sizeof k_shifts[0]; i++) {
        if (!(m->sizes_seen >> i & 1u))
            continue; /* no walk of this size recorded: no slot can hold one */
        const uint8_t shift = k_shifts[i];
        const uint64_t vpn = va >> shift;
        const gmmu_wm_slot *s = &m->slots[slot_of(m, asid, vpn, shift)];
        if (!s->valid || s->asid != asid || s->root != root || s->vpn != vpn ||
            s->walk.page_shift != shift || s->ready <= now)
            continue;
        if (gmmu_tlb_needs_walk(s->walk.perms, access))
            return false; /* the walker decides (read-only / clean page, or no U) */
        const uint64_t off = (1ull << shift) - 1;
        *out = s->walk;
        out->va = va;
        out->pa = (s->walk.pa & ~off) | (va & off);
        *ready = s->ready;
        m->st.merges++;
        return true;
    }
    return false;
}

void gmmu_wm_invalidate(gmmu_walk_merge *m, bool all_asids, uint16_t asid, uint64_t lo,
                        uint64_t hi)
{
    for (uint32_t i = 0; i < m->nslots; i++) {
        gmmu_wm_slot *s = &m->slots[i];
        if (!s->valid || (!all_asids && s->asid != asid))
            continue;
        const uint64_t first = s->vpn << s->walk.page_shift;
        const uint64_t last = first + ((1ull << s->walk.page_shift) - 1);
        if (last < lo || first > hi)
            continue;
        s->valid = false;
        m->st.invalidated++;
    }
}

void gmmu_wm_clear(gmmu_walk_merge *m)
{
    memset(m->slots, 0, (size_t)m->nslots * sizeof *m->slots);
    m->sizes_seen = 0;
}

gmmu_status gmmu_wm_create(const gmmu_wm_config *cfg, gmmu_walk_merge **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "walk_merge", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "cfg", "config is NULL");
    gmmu_walk_merge *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = wm_init_into(x, cfg->slots, err);
    if (s != GMMU_OK) {
        wm_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_wm_destroy(gmmu_walk_merge *x)
{
    if (!x)
        return;
    wm_release(x);
    free(x);
}
