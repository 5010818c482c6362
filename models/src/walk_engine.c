/* gmmu — the walk engine (models/include/gmmu/walk_engine.h): the timing of
 * every walker kind, permissions and A/D write-back, the PWC port; and the
 * cross-batch MSHR and walker choices of walk_sched.h. */
#include "gmmu/walk_engine.h"
#include "gmmu/walk_step.h"

#include <stdlib.h>
#include <string.h>

#define WE_SLOTS (GMMU_WS_MAX_WALKERS > GMMU_WS_MAX_MSHRS ? GMMU_WS_MAX_WALKERS : GMMU_WS_MAX_MSHRS)

struct gmmu_walk_engine {
    gmmu_we_config cfg;
    gmmu_line_cache *lc;
    uint64_t free_at[WE_SLOTS]; /* SERIAL: each walker's free tick; else each MSHR's */
    unsigned nfree;
    /* scratch of gmmu_we_batch, grown on demand */
    gmmu_ws_alloc *allocs;
    gmmu_ws_result *res;
    uint64_t *done_at;
    unsigned cap;
};

gmmu_status gmmu_we_config_check(const gmmu_we_config *cfg, gmmu_error *err)
{
    if (!cfg)
        return gmmu_error_set(err, "config", "walk engine config pointer is NULL");
    if (cfg->kind != GMMU_WS_SERIAL && cfg->kind != GMMU_WS_TREE && cfg->kind != GMMU_WS_PAIRWISE)
        return gmmu_error_set(err, "variant", "variant = %d, allowed serial(0), tree(1), pairwise(2)",
                              (int)cfg->kind);
    gmmu_status s = gmmu_ws_walkers_check(cfg->kind, cfg->walkers, err);
    if (s != GMMU_OK)
        return s;
    if (cfg->kind != GMMU_WS_SERIAL && (cfg->mshrs < 1 || cfg->mshrs > GMMU_WS_MAX_MSHRS))
        return gmmu_error_set(err, "mshrs", "mshrs = %u, allowed 1..%u", cfg->mshrs,
                              GMMU_WS_MAX_MSHRS);
    if (cfg->clock == 0)
        return gmmu_error_set(err, "clock", "clock = 0 ticks per cycle, must be > 0");
    return GMMU_OK;
}

gmmu_status gmmu_we_create(const gmmu_we_config *cfg, gmmu_line_cache *lc, gmmu_walk_engine **out,
                           gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "engine", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_we_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_walk_engine *e = calloc(1, sizeof *e);
    if (!e)
        return GMMU_ENOMEM;
    e->cfg = *cfg;
    e->lc = lc;
    e->nfree = cfg->kind == GMMU_WS_SERIAL ? cfg->walkers : cfg->mshrs;
    *out = e;
    return GMMU_OK;
}

void gmmu_we_destroy(gmmu_walk_engine *e)
{
    if (!e)
        return;
    free(e->allocs);
    free(e->res);
    free(e->done_at);
    free(e);
}

static bool walk_ok(const gmmu_we_walk *w)
{
    return w->start_level >= 1 && w->start_level <= 4 && !(w->table & 0xFFFull) &&
           !(w->table & ~GMMU_PTE_ADDR_MASK) &&
           !(w->access & ~(unsigned)(GMMU_ACC_WRITE | GMMU_ACC_USER));
}

static gmmu_fault failed_fault(gmmu_status s)
{
    return s == GMMU_EMEM ? GMMU_FAULT_BUS_ERROR : GMMU_FAULT_NOT_PRESENT;
}

/* ---- SERIAL ------------------------------------------------------------------ */
typedef struct serial_walk {
    gmmu_walk_engine *e;
    const gmmu_we_mem *mem;
    uint64_t t; /* tick the next access is issued */
} serial_walk;

static gmmu_status serial_read(void *ctx, uint64_t pa, uint64_t *val)
{
    serial_walk *sw = ctx;
    uint32_t lat = 0;
    if (sw->mem->read(sw->mem->ctx, pa, sw->t, val, &lat) != GMMU_OK)
        return GMMU_EMEM;
    if (sw->e->lc) {
        uint32_t l2 = lat;
        (void)gmmu_line_cache_access(sw->e->lc, pa, sw->t / sw->e->cfg.clock, lat ? lat : 1, &l2,
                                     NULL);
        lat = l2;
    }
    sw->t += (uint64_t)lat * sw->e->cfg.clock;
    return GMMU_OK;
}

static gmmu_status serial_write(void *ctx, uint64_t pa, uint64_t val)
{
    serial_walk *sw = ctx;
    uint64_t ticks = 0;
    gmmu_status s = sw->mem->write(sw->mem->ctx, pa, val, sw->t, &ticks);
    sw->t += ticks;
    return s == GMMU_OK ? GMMU_OK : GMMU_EMEM;
}

gmmu_status gmmu_we_serial(gmmu_walk_engine *e, const gmmu_we_mem *mem, const gmmu_we_walk *wk,
                           uint64_t req, gmmu_we_done *out)
{
    /* A walk the tables refuse (unaligned table, bad level) is out->status
     * GMMU_EINVAL, as gmmu_walk_from says. */
    if (!e || !mem || !mem->read || !wk || !out || e->cfg.kind != GMMU_WS_SERIAL ||
        (e->cfg.set_ad && !mem->write))
        return GMMU_EINVAL;
    const unsigned k = gmmu_ws_pick_walker(e->free_at, e->nfree);
    const uint64_t start = req > e->free_at[k] ? req : e->free_at[k];
    serial_walk sw = {e, mem, start + (wk->pwc_hit ? (uint64_t)wk->pwc_cycles * e->cfg.clock : 0)};
    const gmmu_mem_ops ops = {&serial_read, &serial_write, &sw};
    const unsigned access = wk->access | (e->cfg.set_ad ? GMMU_ACC_SET_AD : 0u);
    out->walker = (int)k;
    out->start = start;
    out->status = (e->cfg.outcome_only ? gmmu_walk_outcome : gmmu_walk_from)(
        &ops, wk->table, wk->start_level, wk->va, access, &out->w);
    out->done = sw.t;
    if (out->status != GMMU_OK) {
        out->w.fault = failed_fault(out->status);
        return GMMU_OK; /* the walker is free again at once (no time held) */
    }
    if (e->cfg.fixed_walk_cycles)
        out->done = start + (uint64_t)e->cfg.fixed_walk_cycles * e->cfg.clock;
    e->free_at[k] = out->done;
    return GMMU_OK;
}

/* ---- TREE / PAIRWISE --------------------------------------------------------- */
uint32_t gmmu_pwc_port_cycles(const gmmu_we_walk *wk, unsigned n)
{
    uint32_t hits = 0, lat = 0;
    if (!wk)
        return 0;
    for (unsigned i = 0; i < n; i++) {
        if (!wk[i].pwc_hit)
            continue;
        hits++;
        if (wk[i].pwc_cycles > lat)
            lat = wk[i].pwc_cycles;
    }
    return hits ? lat + hits - 1 : 0;
}

typedef struct batch_mem {
    const gmmu_we_mem *mem;
    uint64_t at; /* every read of the batch is timed at its base */
} batch_mem;

static gmmu_status batch_read(void *ctx, uint64_t pa, uint64_t *data, uint32_t *lat)
{
    batch_mem *bm = ctx;
    uint32_t l = 0;
    if (bm->mem->read(bm->mem->ctx, pa, bm->at, data, &l) != GMMU_OK)
        return GMMU_EMEM;
    *lat = l ? l : 1;
    return GMMU_OK;
}

static bool grow(gmmu_walk_engine *e, unsigned n)
{
    if (n <= e->cap)
        return true;
    unsigned cap = e->cap ? e->cap : 16;
    while (cap < n)
        cap *= 2;
    gmmu_ws_alloc *a = realloc(e->allocs, cap * sizeof *a);
    if (a)
        e->allocs = a;
    gmmu_ws_result *r = realloc(e->res, cap * sizeof *r);
    if (r)
        e->res = r;
    uint64_t *d = realloc(e->done_at, cap * sizeof *d);
    if (d)
        e->done_at = d;
    if (!a || !r || !d)
        return false;
    e->cap = cap;
    return true;
}

/* gmmu_walk_result of scheduled walk r (what gmmu_walk_from reports). */
static void result_of(const gmmu_ws_result *r, unsigned start_level, gmmu_walk_result *w)
{
    memset(w, 0, sizeof *w);
    w->fault = r->fault;
    w->fault_level = r->fault_level;
    w->pa = r->pa;
    w->page_shift = r->page_shift;
    w->pte = r->pte;
    w->nreads = r->nreads;
    for (unsigned i = 0; i < r->nreads && i < GMMU_PT_LEVELS; i++) {
        const unsigned l = start_level - i;
        w->read_level[i] = l;
        w->read_pa[i] = r->table_base[l] + 8ull * gmmu_va_index(r->va, l);
    }
    memcpy(w->table_base, r->table_base, sizeof w->table_base);
    memcpy(w->level_pte, r->level_pte, sizeof w->level_pte);
}

/* The A/D write-backs of walk d (start_level down to where it ended), issued
 * from d->done on; each written entry is updated in the later walks that read
 * it, so the batch writes it once. */
static gmmu_status write_back(const gmmu_we_mem *mem, gmmu_we_done *out, const gmmu_we_walk *wk,
                              unsigned i, unsigned n)
{
    gmmu_we_done *d = &out[i];
    const unsigned access = wk[i].access | GMMU_ACC_SET_AD;
    gmmu_walk_perm perm; /* no A/D on or below an entry that denied the access */
    gmmu_walk_perm_init(&perm);
    for (unsigned j = 0; j < d->w.nreads; j++) {
        const unsigned l = d->w.read_level[j];
        gmmu_walk_step_out o;
        gmmu_walk_step(d->w.level_pte[l], l, access, &perm, &o);
        if (o.ad_write) {
            const uint64_t pa = d->w.read_pa[j];
            uint64_t ticks = 0;
            const gmmu_status s = mem->write(mem->ctx, pa, o.pte, d->done, &ticks);
            d->done += ticks;
            if (s != GMMU_OK)
                return GMMU_EMEM;
            d->w.level_pte[l] = o.pte;
            for (unsigned x = i + 1; x < n; x++)
                for (unsigned y = 0; y < out[x].w.nreads; y++)
                    if (out[x].w.read_pa[y] == pa)
                        out[x].w.level_pte[out[x].w.read_level[y]] = o.pte;
        }
        if (o.leaf) {
            if (d->w.fault == GMMU_FAULT_NONE)
                d->w.pte = o.pte;
            break;
        }
    }
    return GMMU_OK;
}

gmmu_status gmmu_we_batch(gmmu_walk_engine *e, const gmmu_ws_device *dev, gmmu_ws_run_stats *st,
                          const gmmu_we_mem *mem, const gmmu_we_walk *wk, unsigned n, uint64_t req,
                          gmmu_we_done *out)
{
    if (!e || !dev || !mem || !mem->read || (n && (!wk || !out)) || e->cfg.kind == GMMU_WS_SERIAL ||
        (e->cfg.set_ad && !mem->write))
        return GMMU_EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (!walk_ok(&wk[i]))
            return GMMU_EINVAL;
    if (n == 0)
        return GMMU_OK;
    if (!grow(e, n))
        return GMMU_ENOMEM;
    const uint64_t clock = e->cfg.clock;
    const uint64_t port = gmmu_pwc_port_cycles(wk, n); /* the batch's PWC hits, pipelined */
    const uint64_t start = gmmu_ws_batch_start(e->free_at, e->nfree, n, req);
    const uint64_t base = start + port * clock;
    for (unsigned i = 0; i < n; i++) {
        gmmu_ws_alloc *a = &e->allocs[i];
        memset(a, 0, sizeof *a);
        a->va = wk[i].va;
        a->table_base = wk[i].table;
        a->valid = 1;
        a->start_level = wk[i].start_level;
        a->access = wk[i].access;
    }
    batch_mem bm = {mem, base};
    uint64_t cycles = 0;
    const gmmu_status s =
        gmmu_ws_run_device(dev, e->lc, e->allocs, n, &batch_read, &bm, e->res, &cycles, st);
    for (unsigned i = 0; i < n; i++) {
        gmmu_we_done *d = &out[i];
        d->status = s;
        d->walker = -1;
        d->start = start;
        if (s != GMMU_OK) {
            memset(&d->w, 0, sizeof d->w);
            d->w.fault = failed_fault(s);
            d->done = base;
            continue;
        }
        result_of(&e->res[i], wk[i].start_level, &d->w);
        d->done = base + (e->res[i].done_cycle + 1) * clock;
    }
    if (s != GMMU_OK)
        return s;
    for (unsigned i = 0; i < n; i++) {
        gmmu_we_done *d = &out[i];
        if (e->cfg.set_ad && d->w.fault != GMMU_FAULT_NONCANONICAL &&
            write_back(mem, out, wk, i, n) != GMMU_OK) {
            d->status = GMMU_EMEM;
            d->w.fault = GMMU_FAULT_BUS_ERROR;
        }
        if (d->w.fault == GMMU_FAULT_NONE) {
            const unsigned leaf = 1u + (d->w.page_shift - 12u) / 9u;
            d->w.perms = gmmu_walk_perms(d->w.level_pte, wk[i].start_level, leaf);
        }
        if (e->cfg.fixed_walk_cycles)
            d->done = start + (uint64_t)e->cfg.fixed_walk_cycles * clock;
        e->done_at[i] = d->done;
    }
    gmmu_ws_batch_hold(e->free_at, e->nfree, e->done_at, n);
    return GMMU_OK;
}

/* ---- cross-batch choices (declared in walk_sched.h) -------------------------- */
unsigned gmmu_ws_pick_walker(const uint64_t *free_at, unsigned n)
{
    unsigned k = 0;
    if (!free_at)
        return 0;
    for (unsigned i = 1; i < n; i++)
        if (free_at[i] < free_at[k])
            k = i;
    return k;
}

/* The k-th smallest (1 <= k <= n) of v[0..n-1], n <= GMMU_WS_MAX_MSHRS: the
 * k smallest values kept in order (or, when k is past the middle, the
 * n - k + 1 largest, whose smallest is the same value), so that a small k
 * or a large one costs one pass, not a sort. */
static uint64_t kth_smallest(const uint64_t *v, unsigned n, unsigned k)
{
    uint64_t s[GMMU_WS_MAX_MSHRS];
    const bool low = k <= n - k + 1;
    const unsigned keep = low ? k : n - k + 1;
    unsigned have = 0;
    for (unsigned i = 0; i < n; i++) {
        const uint64_t x = v[i];
        if (have == keep && (low ? x >= s[keep - 1] : x <= s[keep - 1]))
            continue;
        unsigned j = have < keep ? have++ : keep - 1;
        while (j > 0 && (low ? s[j - 1] > x : s[j - 1] < x)) {
            s[j] = s[j - 1];
            j--;
        }
        s[j] = x;
    }
    return s[keep - 1];
}

uint64_t gmmu_ws_batch_start(const uint64_t *free_at, unsigned nslots, unsigned n, uint64_t req)
{
    if (!free_at || nslots == 0 || n == 0)
        return req;
    if (nslots > GMMU_WS_MAX_MSHRS)
        nslots = GMMU_WS_MAX_MSHRS;
    const uint64_t t = kth_smallest(free_at, nslots, n < nslots ? n : nslots);
    return t > req ? t : req;
}

void gmmu_ws_batch_hold(uint64_t *free_at, unsigned nslots, const uint64_t *done, unsigned n)
{
    if (!free_at || !done || nslots == 0 || n == 0)
        return;
    if (nslots > GMMU_WS_MAX_MSHRS)
        nslots = GMMU_WS_MAX_MSHRS;
    const unsigned k = n < nslots ? n : nslots;
    /* The k latest done times, largest first. */
    uint64_t late[GMMU_WS_MAX_MSHRS];
    unsigned have = 0;
    for (unsigned i = 0; i < n; i++) {
        if (have == k && done[i] <= late[k - 1])
            continue;
        unsigned j = have < k ? have++ : k - 1;
        while (j > 0 && late[j - 1] < done[i]) {
            late[j] = late[j - 1];
            j--;
        }
        late[j] = done[i];
    }
    /* The k MSHRs free first (lowest index on a tie) take them. */
    uint64_t taken = 0; /* bit i: MSHR i already given a done time */
    for (unsigned m = 0; m < k; m++) {
        unsigned best = nslots;
        for (unsigned i = 0; i < nslots; i++)
            if (!(taken >> i & 1) && (best == nslots || free_at[i] < free_at[best]))
                best = i;
        taken |= 1ull << best;
        free_at[best] = late[m];
    }
}

