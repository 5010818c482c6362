#include "gmmu/tlb_mshr.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_tlb_mshr_config_check(const gmmu_tlb_mshr_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "config", "TLB MSHR config is NULL");
    if (c->ports == 0 || c->ports > 1024)
        return gmmu_error_set(err, "ports", "TLB ports %u out of range 1..1024", c->ports);
    if (c->mshrs == 0 || c->mshrs > 4096)
        return gmmu_error_set(err, "mshrs", "TLB MSHRs %u out of range 1..4096", c->mshrs);
    if (c->max_outstanding > c->mshrs)
        return gmmu_error_set(err, "max_outstanding",
                              "outstanding-miss limit %u out of range 0..mshrs (%u)",
                              c->max_outstanding, c->mshrs);
    if (c->targets > (1u << 20))
        return gmmu_error_set(err, "targets", "MSHR targets %u out of range 0..1048576",
                              c->targets);
    if (c->merge_pages > (1u << 20) || (c->merge_pages > 1 && !gmmu_is_pow2_u64(c->merge_pages)))
        return gmmu_error_set(err, "merge_pages",
                              "merge group %u pages must be 0, 1 or a power of two up to 2^20",
                              c->merge_pages);
    if (c->miss_cycles > 100000000u)
        return gmmu_error_set(err, "miss_cycles", "miss latency %u out of range 0..100000000",
                              c->miss_cycles);
    return GMMU_OK;
}

static void tlb_mshr_release(gmmu_tlb_mshr *x);

static gmmu_status tlb_mshr_init_into(gmmu_tlb_mshr *m, const gmmu_tlb_mshr_config *cfg,
                               gmmu_error *err)
{
    if (!m)
        return gmmu_error_set(err, "mshr", "MSHR pointer is NULL");
    gmmu_status s = gmmu_tlb_mshr_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    m->limit = cfg->max_outstanding ? cfg->max_outstanding : cfg->mshrs;
    m->group_shift = cfg->merge_pages > 1 ? gmmu_log2_u64(cfg->merge_pages) : 0;
    m->e = calloc(cfg->mshrs, sizeof *m->e);
    return m->e ? GMMU_OK : GMMU_ENOMEM;
}

static void tlb_mshr_release(gmmu_tlb_mshr *m)
{
    if (!m)
        return;
    free(m->e);
    m->e = NULL;
}

void gmmu_tlb_mshr_reset(gmmu_tlb_mshr *m)
{
    if (!m || !m->e)
        return;
    memset(m->e, 0, m->cfg.mshrs * sizeof *m->e);
    m->cont = false;
}

static inline bool pending(const gmmu_tlb_mshr_entry *e, uint64_t c)
{
    return e->busy && e->done > c;
}

uint32_t gmmu_tlb_mshr_in_flight(const gmmu_tlb_mshr *m, uint64_t now)
{
    uint32_t n = 0;
    if (!m || !m->e)
        return 0;
    for (uint32_t k = 0; k < m->cfg.mshrs; k++)
        n += pending(&m->e[k], now);
    return n;
}

/* Latest completion among MSHRs pending at c (c if none). */
static uint64_t last_done(const gmmu_tlb_mshr *m, uint64_t c)
{
    uint64_t d = c;
    for (uint32_t k = 0; k < m->cfg.mshrs; k++)
        if (pending(&m->e[k], c) && m->e[k].done > d)
            d = m->e[k].done;
    return d;
}

/* Latest completion among MSHRs pending at c that an earlier batch than
 * `batch` allocated (c if none). */
static uint64_t last_done_before(const gmmu_tlb_mshr *m, uint64_t c, uint64_t batch)
{
    uint64_t d = c;
    for (uint32_t k = 0; k < m->cfg.mshrs; k++)
        if (pending(&m->e[k], c) && m->e[k].batch != batch && m->e[k].done > d)
            d = m->e[k].done;
    return d;
}

/* Earliest completion among MSHRs pending at c. */
static uint64_t first_done(const gmmu_tlb_mshr *m, uint64_t c)
{
    uint64_t d = UINT64_MAX;
    for (uint32_t k = 0; k < m->cfg.mshrs; k++)
        if (pending(&m->e[k], c) && m->e[k].done < d)
            d = m->e[k].done;
    return d;
}

/* Pending MSHR for this page (exact) or, failing that, for its merge group. */
static int find_mshr(const gmmu_tlb_mshr *m, uint16_t asid, uint64_t vpn, uint64_t group,
                     uint64_t c, bool *exact)
{
    int g = -1;
    for (uint32_t k = 0; k < m->cfg.mshrs; k++) {
        const gmmu_tlb_mshr_entry *e = &m->e[k];
        if (!pending(e, c) || e->asid != asid)
            continue;
        if (e->vpn == vpn) {
            *exact = true;
            return (int)k;
        }
        if (g < 0 && e->group == group)
            g = (int)k;
    }
    *exact = false;
    return g;
}

gmmu_status gmmu_tlb_access_batch(gmmu_tlb_mshr *m, gmmu_tlb *t, uint16_t asid,
                                  gmmu_tlb_access *acc, uint32_t n, uint64_t now,
                                  gmmu_tlb_miss_fn miss, void *ctx, gmmu_tlb_batch_result *res)
{
    if (!m || !m->e || !t || (n && !acc))
        return GMMU_EINVAL;
    gmmu_tlb_batch_result r;
    memset(&r, 0, sizeof r);
    r.first_issue = r.last_issue = r.done = now;
    const uint32_t lookup = gmmu_tlb_config_of(t)->lookup_cycles;
    uint64_t c = now;
    uint32_t used = 0; /* ports taken in cycle c */
    gmmu_status status = GMMU_OK;

    m->st.batches++;
    if (!m->cont)
        m->batch_id++;
    m->cont = false;
    for (uint32_t i = 0; i < n && status == GMMU_OK; i++) {
        gmmu_tlb_access *a = &acc[i];
        const uint64_t vpn = a->vpn, group = vpn >> m->group_shift;
        gmmu_tlb_result fr;
        bool looked = false, replay = false, after_fill = false;
        m->st.requests++;
        for (;;) {
            if (!m->cfg.hits_under_miss) { /* blocking: wait out every miss */
                uint64_t d = m->cfg.batch_issues_through ? last_done_before(m, c, m->batch_id)
                                                         : last_done(m, c);
                if (d > c) {
                    r.stall_cycles += d - c;
                    c = d;
                    used = 0;
                }
            }
            if (used == m->cfg.ports) {
                c++;
                used = 0;
            }
            used++;
            a->issue = c;
            if (i == 0 && !replay)
                r.first_issue = c;
            if (replay) {
                r.replays++;
                m->st.replays++;
            }
            if (!looked) {
                gmmu_tlb_lookup(t, asid, vpn, &fr);
                looked = true;
            }
            bool exact = false;
            int k = after_fill ? -1 : find_mshr(m, asid, vpn, group, c, &exact);
            if (k >= 0 && (exact || !fr.hit)) {
                gmmu_tlb_mshr_entry *e = &m->e[k];
                if (m->cfg.targets && e->targets >= m->cfg.targets) {
                    /* MSHR full of targets: wait for its fill, then hit. */
                    r.stall_cycles += e->done - c;
                    c = e->done;
                    used = 0;
                    replay = after_fill = true;
                    continue;
                }
                e->targets++;
                a->kind = GMMU_TLB_ACCESS_MERGED;
                a->mshr = (uint32_t)k;
                a->done = e->done;
                a->ppn = a->perms = 0;
                a->lru_depth = 0;
                r.merges++;
                m->st.merges++;
                break;
            }
            if (fr.hit || after_fill) {
                a->kind = GMMU_TLB_ACCESS_HIT;
                a->done = c + lookup;
                a->mshr = 0;
                a->ppn = fr.hit ? fr.ppn : 0;
                a->perms = fr.hit ? fr.perms : 0;
                a->lru_depth = fr.hit ? fr.lru_depth : 0;
                if (!fr.hit) { /* the fill we waited for: read it without side effects */
                    gmmu_tlb_entry te;
                    if (gmmu_tlb_probe(t, asid, vpn, &te)) {
                        a->ppn = te.ppn + (vpn - te.vpn);
                        a->perms = te.perms;
                    }
                }
                r.hits++;
                m->st.hits++;
                break;
            }
            /* A miss that needs an MSHR. */
            uint32_t in_flight = 0, slot = m->cfg.mshrs;
            for (uint32_t s = 0; s < m->cfg.mshrs; s++) {
                if (pending(&m->e[s], c))
                    in_flight++;
                else if (slot == m->cfg.mshrs)
                    slot = s;
            }
            if (in_flight >= m->limit) {
                uint64_t d = first_done(m, c);
                r.stall_cycles += d - c;
                c = d;
                used = 0;
                replay = true;
                continue;
            }
            uint32_t lat = m->cfg.miss_cycles;
            if (miss) {
                status = miss(ctx, asid, vpn, c, &lat);
                if (status != GMMU_OK)
                    break;
            }
            gmmu_tlb_mshr_entry *e = &m->e[slot];
            e->busy = true;
            e->asid = asid;
            e->vpn = vpn;
            e->group = group;
            e->done = c + lookup + lat;
            e->targets = 1;
            e->batch = m->batch_id;
            a->kind = GMMU_TLB_ACCESS_MISS;
            a->mshr = slot;
            a->done = e->done;
            a->ppn = a->perms = 0;
            a->lru_depth = 0;
            r.misses++;
            m->st.misses++;
            if (in_flight + 1 > m->st.max_in_flight)
                m->st.max_in_flight = in_flight + 1;
            break;
        }
        if (status != GMMU_OK)
            break;
        r.last_issue = a->issue;
        if (a->done > r.done)
            r.done = a->done;
    }
    m->st.stall_cycles += r.stall_cycles;
    if (res)
        *res = r;
    return status;
}

uint64_t gmmu_tlb_mshr_first_miss_cycle(const gmmu_tlb_mshr *m, uint64_t now)
{
    if (!m || !m->e)
        return now;
    uint64_t c = now;
    /* The next batch's first lookup: a blocking TLB waits out the misses in
     * flight (all of them belong to earlier batches, unless the next batch
     * continues the last one). */
    if (!m->cfg.hits_under_miss)
        c = m->cont && m->cfg.batch_issues_through ? last_done_before(m, c, m->batch_id)
                                                   : last_done(m, c);
    /* Its first miss then waits while every usable MSHR is busy. */
    while (gmmu_tlb_mshr_in_flight(m, c) >= m->limit)
        c = first_done(m, c);
    return c;
}

uint32_t gmmu_tlb_mshr_miss_latency(uint64_t ask, uint64_t issue, uint32_t lookup_cycles,
                                    uint64_t ready, uint64_t queued)
{
    const uint64_t asked = (ask < issue ? ask : issue) + lookup_cycles;
    const uint64_t looked = issue + lookup_cycles;
    const uint64_t own = ready > asked + queued ? ready - asked - queued : 1;
    const uint64_t arrives = ready > looked + own ? ready : looked + own;
    return (uint32_t)(arrives > looked ? arrives - looked : 1);
}

void gmmu_tlb_mshr_continue_batch(gmmu_tlb_mshr *m)
{
    if (m)
        m->cont = true;
}

bool gmmu_tlb_mshr_pending(const gmmu_tlb_mshr *m, uint16_t asid, uint64_t vpn, uint64_t now)
{
    bool exact = false;
    return find_mshr(m, asid, vpn, vpn >> m->group_shift, now, &exact) >= 0 && exact;
}

gmmu_status gmmu_tlb_mshr_create(const gmmu_tlb_mshr_config *cfg, gmmu_tlb_mshr **out,
                                 gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "mshr", "output pointer is NULL");
    *out = NULL;
    gmmu_tlb_mshr *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = tlb_mshr_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        tlb_mshr_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_tlb_mshr_destroy(gmmu_tlb_mshr *x)
{
    if (!x)
        return;
    tlb_mshr_release(x);
    free(x);
}
