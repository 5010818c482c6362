/* gmmu — the TLB's rules that need no set scan (gmmu/tlb.h): configuration
 * checks, when a cached translation must be walked again, the verdict of an
 * access, and how a walk's leaf is filled. The arrays and their lookups are
 * in tlb.c. */
#include "gmmu/pagetable.h"
#include "tlb_internal.h"

#include <stdio.h>
#include <string.h>

bool gmmu_tlb_write_needs_walk(uint64_t perms)
{
    if (!(perms & GMMU_PTE_W))
        return true;
    return (perms & GMMU_PTE_A) && !(perms & GMMU_PTE_D);
}

/* The configuration of large-page array i: its own geometry, the main
 * array's policy and latency. */
void gmmu_tlb_large_config(const gmmu_tlb_config *c, unsigned i, gmmu_tlb_config *s)
{
    memset(s, 0, sizeof *s);
    s->entries = c->large[i].entries;
    s->ways = c->large[i].ways;
    s->page_shift = c->large[i].shift;
    s->repl = c->repl;
    s->lookup_cycles = c->lookup_cycles;
    s->seed = c->seed ^ (0x9E3779B97F4A7C15ull * (i + 1));
}

gmmu_status gmmu_tlb_config_check(const gmmu_tlb_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "config", "TLB config is NULL");
    if (c->entries == 0 || c->entries > GMMU_TLB_MAX_ENTRIES)
        return gmmu_error_set(err, "entries", "TLB entries %u out of range 1..%u", c->entries,
                              GMMU_TLB_MAX_ENTRIES);
    if (c->ways == 0 || c->ways > c->entries || c->ways > GMMU_TLB_MAX_WAYS)
        return gmmu_error_set(err, "ways", "TLB ways %u out of range 1..min(entries (%u), %u)",
                              c->ways, c->entries, GMMU_TLB_MAX_WAYS);
    if (c->sets != 0 && (uint64_t)(c->sets - 1) * c->ways >= c->entries)
        return gmmu_error_set(err, "sets",
                              "TLB sets %u: %u sets of %u ways leave no way for the last set "
                              "(entries %u); allowed 1..%u",
                              c->sets, c->sets - 1, c->ways, c->entries,
                              (c->entries - 1) / c->ways + 1);
    if (c->page_shift < 12 || c->page_shift > 32)
        return gmmu_error_set(err, "page_shift", "TLB page size 2^%u out of range 4 KiB..4 GiB",
                              c->page_shift);
    if (c->coverage_shift != 0 &&
        (c->coverage_shift < c->page_shift || c->coverage_shift > c->page_shift + 20 ||
         c->coverage_shift > 40))
        return gmmu_error_set(err, "coverage_shift",
                              "TLB coverage 2^%u out of range 0 or page_shift (%u)..min(page_shift "
                              "+ 20, 40)",
                              c->coverage_shift, c->page_shift);
    if (c->fill_pages > GMMU_TLB_MAX_FILL_PAGES ||
        (c->fill_pages > 1 && !gmmu_is_pow2_u64(c->fill_pages)))
        return gmmu_error_set(err, "fill_pages",
                              "TLB fill_pages %u must be 0, 1 or a power of two up to %u",
                              c->fill_pages, GMMU_TLB_MAX_FILL_PAGES);
    if (c->repl > GMMU_TLB_REPL_RANDOM)
        return gmmu_error_set(err, "replacement", "unknown replacement policy %d", (int)c->repl);
    if (c->index > GMMU_TLB_INDEX_RESIDUE)
        return gmmu_error_set(err, "index", "unknown set-index function %d", (int)c->index);
    if (c->repl == GMMU_TLB_REPL_PLRU) {
        uint32_t sets = c->sets ? c->sets : c->entries / c->ways;
        if (!gmmu_is_pow2_u64(c->ways) || (uint64_t)sets * c->ways != c->entries || c->ways > 64)
            return gmmu_error_set(err, "replacement",
                                  "tree-PLRU needs power-of-two ways (<= 64) and equal sets");
    }
    if (c->lookup_cycles > 1000000)
        return gmmu_error_set(err, "lookup_cycles", "lookup latency %u out of range 0..1000000",
                              c->lookup_cycles);
    uint32_t prev = c->page_shift;
    bool ended = false;
    for (unsigned i = 0; i < GMMU_TLB_MAX_LARGE; i++) {
        const gmmu_tlb_large *l = &c->large[i];
        char field[80]; /* "large%u." + a gmmu_error field (64) */
        if (l->entries == 0) {
            ended = true;
            continue;
        }
        snprintf(field, sizeof field, "large%u.entries", i);
        if (ended)
            return gmmu_error_set(err, field, "large-page array %u follows an empty one", i);
        snprintf(field, sizeof field, "large%u.shift", i);
        if (l->shift <= prev || l->shift > 32)
            return gmmu_error_set(err, field,
                                  "large page 2^%u out of range: above 2^%u (the TLB page or the "
                                  "previous array's page), at most 2^32",
                                  l->shift, prev);
        gmmu_tlb_config s;
        gmmu_tlb_large_config(c, i, &s);
        gmmu_error e2 = {{0}, {0}};
        if (gmmu_tlb_config_check(&s, &e2) != GMMU_OK) {
            snprintf(field, sizeof field, "large%u.%s", i, e2.field);
            return gmmu_error_set(err, field, "large-page array %u: %s", i, e2.msg);
        }
        prev = l->shift;
    }
    return GMMU_OK;
}

bool gmmu_tlb_needs_walk(uint64_t perms, unsigned access)
{
    if ((access & GMMU_ACC_WRITE) && gmmu_tlb_write_needs_walk(perms))
        return true;
    return (access & GMMU_ACC_USER) && !(perms & GMMU_PTE_U);
}

bool gmmu_tlb_dmi_writable(uint64_t perms) { return (perms & GMMU_PTE_W) != 0; }

gmmu_tlb_verdict gmmu_tlb_answer_access(gmmu_tlb *t, uint16_t asid, uint64_t vpn, unsigned access,
                                        bool debug, gmmu_tlb_answer *a)
{
    memset(a, 0, sizeof *a);
    bool hit;
    if (debug) {
        gmmu_tlb_entry e;
        hit = gmmu_tlb_probe(t, asid, vpn, &e);
        if (hit) {
            a->ppn = e.ppn + (vpn - e.vpn);
            a->perms = e.perms;
            a->span_shift = e.large_shift ? 0 : e.span_shift;
            a->page_shift = e.large_shift ? e.large_shift : (uint8_t)t->cfg.page_shift;
            a->leaf_shift = e.leaf_shift;
        }
    } else {
        gmmu_tlb_result r;
        gmmu_tlb_lookup(t, asid, vpn, &r);
        hit = r.hit;
        a->ppn = r.ppn;
        a->perms = r.perms;
        a->ready = r.ready;
        a->page_shift = r.page_shift;
        a->leaf_shift = r.leaf_shift;
        a->lru_depth = r.lru_depth;
        gmmu_tlb_entry e;
        if (hit && t->cov_k && r.page_shift == t->cfg.page_shift && gmmu_tlb_probe_main(t, asid, vpn, &e))
            a->span_shift = e.span_shift;
    }
    if (hit && a->leaf_shift < a->page_shift)
        a->leaf_shift = a->page_shift; /* the entry is its own leaf */
    if (!hit)
        a->verdict = GMMU_TLB_MISSED;
    else if (gmmu_tlb_needs_walk(a->perms, access))
        a->verdict = GMMU_TLB_REWALK;
    else
        a->verdict = GMMU_TLB_SERVED;
    return a->verdict;
}

bool gmmu_tlb_fill_plan(const gmmu_tlb *t, unsigned page_shift, unsigned contig_log2,
                        uint32_t *flags)
{
    const unsigned shift = t->cfg.page_shift;
    *flags = 0;
    if (page_shift < shift)
        return false;
    /* Entries smaller than the leaf remember it (fill_one keeps it only
     * when it is larger than the entry). */
    const uint32_t leaf = page_shift < 64 ? GMMU_TLB_FILL_LEAF(page_shift) : 0;
    for (uint32_t i = t->nlarge; i-- > 0;)
        if (page_shift >= t->cfg.large[i].shift) {
            *flags = GMMU_TLB_FILL_LARGE(i) | (page_shift > t->cfg.large[i].shift ? leaf : 0);
            return true;
        }
    if (page_shift > shift)
        *flags = leaf;
    /* Bytes (log2) a contiguous fill installs. */
    const unsigned unit = t->cfg.coverage_shift ? t->cfg.coverage_shift : shift;
    const unsigned block = unit + gmmu_log2_u64(t->cfg.fill_pages ? t->cfg.fill_pages : 1);
    if (block > shift && page_shift + contig_log2 >= block)
        *flags |= GMMU_TLB_FILL_CONTIG;
    return true;
}
