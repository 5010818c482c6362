#include "gmmu/fault_handler.h"

#include <stdlib.h>
#include <string.h>

void gmmu_fault_handler_config_default(gmmu_fault_handler_config *c, gmmu_link link)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->clock_mhz = 1000;
    c->granularity_shift = 16;
    c->cpu_transfer_ns = link == GMMU_LINK_PCIE ? 25000 : 12000;
    c->cpu_alloc_ns = link == GMMU_LINK_PCIE ? 12000 : 10000;
    c->cpu_servers = 1;
    c->local_first_touch = false;
    c->local_ns = 20000;
    c->local_servers = 1024;
    c->max_pending = 65536;
}

gmmu_status gmmu_fault_handler_config_check(const gmmu_fault_handler_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "fault_handler", "fault handler config is NULL");
    if (c->clock_mhz == 0 || c->clock_mhz > 100000)
        return gmmu_error_set(err, "clock_mhz", "clock %u MHz out of range 1..100000", c->clock_mhz);
    if (c->granularity_shift < 12 || c->granularity_shift > 30)
        return gmmu_error_set(err, "granularity_shift", "fault granularity 2^%u out of range 4 KiB..1 GiB",
                              c->granularity_shift);
    if (c->cpu_transfer_ns == 0 || c->cpu_transfer_ns > 100000000)
        return gmmu_error_set(err, "cpu_transfer_ns", "CPU transfer cost %u ns out of range 1..1e8",
                              c->cpu_transfer_ns);
    if (c->cpu_alloc_ns == 0 || c->cpu_alloc_ns > 100000000)
        return gmmu_error_set(err, "cpu_alloc_ns", "CPU allocation cost %u ns out of range 1..1e8",
                              c->cpu_alloc_ns);
    if (c->cpu_servers == 0 || c->cpu_servers > GMMU_FH_MAX_SERVERS)
        return gmmu_error_set(err, "cpu_servers", "CPU servers %u out of range 1..%u", c->cpu_servers,
                              GMMU_FH_MAX_SERVERS);
    if (c->local_ns == 0 || c->local_ns > 100000000)
        return gmmu_error_set(err, "local_ns", "local handler cost %u ns out of range 1..1e8",
                              c->local_ns);
    if (c->local_servers == 0 || c->local_servers > GMMU_FH_MAX_SERVERS)
        return gmmu_error_set(err, "local_servers", "local handlers %u out of range 1..%u",
                              c->local_servers, GMMU_FH_MAX_SERVERS);
    if (c->max_pending == 0 || c->max_pending > (1u << 20))
        return gmmu_error_set(err, "max_pending", "pending-fault capacity %u out of range 1..1048576",
                              c->max_pending);
    return GMMU_OK;
}

static uint64_t ns_to_cyc(uint32_t ns, uint32_t mhz) { return ((uint64_t)ns * mhz + 999u) / 1000u; }

static void fault_handler_release(gmmu_fault_handler *x);

static gmmu_status fault_handler_init_into(gmmu_fault_handler *fh, const gmmu_fault_handler_config *c,
                                    gmmu_error *err)
{
    if (!fh)
        return gmmu_error_set(err, "fault_handler", "fault handler pointer is NULL");
    gmmu_status s = gmmu_fault_handler_config_check(c, err);
    if (s != GMMU_OK)
        return s;
    memset(fh, 0, sizeof *fh);
    fh->cfg = *c;
    fh->cpu_transfer_cyc = ns_to_cyc(c->cpu_transfer_ns, c->clock_mhz);
    fh->cpu_alloc_cyc = ns_to_cyc(c->cpu_alloc_ns, c->clock_mhz);
    fh->local_cyc = ns_to_cyc(c->local_ns, c->clock_mhz);
    fh->cpu_free = calloc(c->cpu_servers, sizeof *fh->cpu_free);
    fh->local_free = calloc(c->local_servers, sizeof *fh->local_free);
    fh->pend = calloc(c->max_pending, sizeof *fh->pend);
    if (!fh->cpu_free || !fh->local_free || !fh->pend) {
        fault_handler_release(fh);
        return GMMU_ENOMEM;
    }
    return GMMU_OK;
}

static void fault_handler_release(gmmu_fault_handler *fh)
{
    if (!fh)
        return;
    free(fh->cpu_free);
    free(fh->local_free);
    free(fh->pend);
    fh->cpu_free = fh->local_free = NULL;
    fh->pend = NULL;
}

static void prune(gmmu_fault_handler *fh, uint64_t now)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < fh->npend; i++)
        if (fh->pend[i].ready > now)
            fh->pend[j++] = fh->pend[i];
    fh->npend = j;
}

uint32_t gmmu_fault_handler_pending(gmmu_fault_handler *fh, uint64_t now)
{
    if (!fh || !fh->pend)
        return 0;
    prune(fh, now);
    return fh->npend;
}

/* Earliest-free server; its index to *idx. */
static uint32_t pick(const uint64_t *free_at, uint32_t n)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; i++)
        if (free_at[i] < free_at[best])
            best = i;
    return best;
}

static uint32_t position(const gmmu_fault_handler *fh, uint64_t ready)
{
    uint32_t pos = 0;
    for (uint32_t i = 0; i < fh->npend; i++)
        if (fh->pend[i].ready < ready)
            pos++;
    return pos;
}

gmmu_status gmmu_fault_handler_raise(gmmu_fault_handler *fh, uint64_t now, uint64_t va,
                                     gmmu_fault_kind kind, gmmu_fault_ticket *t)
{
    if (!fh || !fh->pend || !t || kind > GMMU_FAULT_FIRST_TOUCH)
        return GMMU_EINVAL;
    prune(fh, now);
    uint64_t region = va >> fh->cfg.granularity_shift;
    memset(t, 0, sizeof *t);
    for (uint32_t i = 0; i < fh->npend; i++)
        if (fh->pend[i].region == region) {
            t->ready = fh->pend[i].ready;
            t->queue_pos = position(fh, t->ready);
            t->merged = true;
            fh->st.merged++;
            return GMMU_OK;
        }
    if (fh->npend >= fh->cfg.max_pending) {
        fh->st.full++;
        return GMMU_EBUSY;
    }
    uint64_t cost;
    uint64_t *srv;
    if (kind == GMMU_FAULT_FIRST_TOUCH && fh->cfg.local_first_touch) {
        uint32_t i = pick(fh->local_free, fh->cfg.local_servers);
        srv = &fh->local_free[i];
        cost = fh->local_cyc;
        t->local = true;
        fh->st.local++;
    } else {
        uint32_t i = pick(fh->cpu_free, fh->cfg.cpu_servers);
        srv = &fh->cpu_free[i];
        cost = kind == GMMU_FAULT_MIGRATE ? fh->cpu_transfer_cyc : fh->cpu_alloc_cyc;
        if (kind == GMMU_FAULT_MIGRATE)
            fh->st.cpu_migrate++;
        else
            fh->st.cpu_alloc++;
    }
    uint64_t start = *srv > now ? *srv : now;
    *srv = start + cost;
    t->ready = start + cost;
    t->queue_pos = position(fh, t->ready);
    fh->pend[fh->npend].region = region;
    fh->pend[fh->npend].ready = t->ready;
    fh->npend++;
    if (fh->npend > fh->st.peak_pending)
        fh->st.peak_pending = fh->npend;
    fh->st.faults++;
    fh->st.busy_cycles += cost;
    return GMMU_OK;
}

gmmu_status gmmu_fault_handler_create(const gmmu_fault_handler_config *cfg,
                                      gmmu_fault_handler **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "fault_handler", "output pointer is NULL");
    *out = NULL;
    gmmu_fault_handler *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = fault_handler_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        fault_handler_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_fault_handler_destroy(gmmu_fault_handler *x)
{
    if (!x)
        return;
    fault_handler_release(x);
    free(x);
}
