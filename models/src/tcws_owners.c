/* gmmu — TCWS's owner map of the L1 TLB (gmmu/tcws_owners.h): an
 * open-addressing hash table (linear probing, deletion by backward shift)
 * that doubles when half full. */
#include "gmmu/tcws_owners.h"

#include <stdlib.h>

typedef struct slot {
    uint64_t key;
    uint32_t owner;
    uint32_t used;
} slot;

struct gmmu_tcws_owners {
    uint32_t limit; /* more than this many pages at a fill: emptied */
    uint32_t n;
    uint32_t log2cap;
    slot *s;
};

static uint64_t key_of(uint16_t asid, uint64_t vpn)
{
    return (uint64_t)asid << 52 | (vpn & ((1ull << 52) - 1));
}

static uint32_t home(const gmmu_tcws_owners *o, uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - o->log2cap));
}

gmmu_status gmmu_tcws_owners_create(const gmmu_tcws_owners_config *cfg, gmmu_tcws_owners **out,
                                    gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "tcws_owners", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "tcws_owners", "config is NULL");
    if (cfg->tlb_entries == 0 || cfg->tlb_entries > GMMU_TLB_MAX_ENTRIES)
        return gmmu_error_set(err, "tlb_entries", "TLB entries %u out of range 1..%u",
                              cfg->tlb_entries, GMMU_TLB_MAX_ENTRIES);
    gmmu_tcws_owners *o = calloc(1, sizeof *o);
    if (!o)
        return GMMU_ENOMEM;
    o->limit = 4u * cfg->tlb_entries;
    o->log2cap = 6;
    o->s = calloc(1u << o->log2cap, sizeof *o->s);
    if (!o->s) {
        free(o);
        return GMMU_ENOMEM;
    }
    *out = o;
    return GMMU_OK;
}

void gmmu_tcws_owners_destroy(gmmu_tcws_owners *o)
{
    if (!o)
        return;
    free(o->s);
    free(o);
}

static slot *find(const gmmu_tcws_owners *o, uint64_t key)
{
    const uint32_t mask = (1u << o->log2cap) - 1;
    for (uint32_t i = home(o, key);; i = (i + 1) & mask) {
        if (!o->s[i].used)
            return NULL;
        if (o->s[i].key == key)
            return &o->s[i];
    }
}

static void erase(gmmu_tcws_owners *o, slot *gone)
{
    const uint32_t mask = (1u << o->log2cap) - 1;
    uint32_t hole = (uint32_t)(gone - o->s);
    for (uint32_t i = (hole + 1) & mask; o->s[i].used; i = (i + 1) & mask) {
        /* Move slot i into the hole unless its home lies cyclically in (hole, i]. */
        const uint32_t h = home(o, o->s[i].key);
        const bool stays = hole <= i ? (h > hole && h <= i) : (h > hole || h <= i);
        if (!stays) {
            o->s[hole] = o->s[i];
            hole = i;
        }
    }
    o->s[hole].used = 0;
    o->n--;
}

static bool grow(gmmu_tcws_owners *o)
{
    const uint32_t old_cap = 1u << o->log2cap;
    slot *old = o->s, *s = calloc((size_t)old_cap * 2, sizeof *s);
    if (!s)
        return false;
    o->s = s;
    o->log2cap++;
    const uint32_t mask = old_cap * 2 - 1;
    for (uint32_t j = 0; j < old_cap; j++) {
        if (!old[j].used)
            continue;
        uint32_t i = home(o, old[j].key);
        while (s[i].used)
            i = (i + 1) & mask;
        s[i] = old[j];
    }
    free(old);
    return true;
}

static void put(gmmu_tcws_owners *o, uint64_t key, uint32_t owner)
{
    slot *e = find(o, key);
    if (e) {
        e->owner = owner;
        return;
    }
    if (2u * (o->n + 1) > (1u << o->log2cap) && !grow(o))
        return; /* out of memory: the page goes unrecorded (its eviction is not reported) */
    const uint32_t mask = (1u << o->log2cap) - 1;
    uint32_t i = home(o, key);
    while (o->s[i].used)
        i = (i + 1) & mask;
    o->s[i].key = key;
    o->s[i].owner = owner;
    o->s[i].used = 1;
    o->n++;
}

bool gmmu_tcws_owners_fill(gmmu_tcws_owners *o, const gmmu_tlb_entry *victims, uint32_t nvictims,
                           uint16_t asid, uint64_t vpn, bool has_owner, uint32_t owner,
                           bool reported, gmmu_tcws_victim *report)
{
    bool now = false;
    for (uint32_t v = 0; v < nvictims; v++) {
        slot *e = find(o, key_of(victims[v].asid, victims[v].vpn));
        if (!e)
            continue;
        if (!reported && !now) {
            report->vpn = victims[v].vpn;
            report->owner = e->owner;
            now = true;
        }
        erase(o, e);
    }
    if (o->n > o->limit) {
        for (uint32_t i = 0; i < (1u << o->log2cap); i++)
            o->s[i].used = 0;
        o->n = 0;
    }
    if (has_owner)
        put(o, key_of(asid, vpn), owner);
    return now;
}

uint32_t gmmu_tcws_owners_size(const gmmu_tcws_owners *o) { return o ? o->n : 0; }
