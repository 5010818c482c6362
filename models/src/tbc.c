#include "gmmu/tbc.h"
#include "gmmu/simt_stack.h"

#include <stdlib.h>
#include <string.h>

/* ---- block-wide stack ------------------------------------------------------ */

gmmu_status gmmu_tbc_reset(gmmu_tbc_stack *s, uint32_t nwarps, uint32_t exit_pc)
{
    if (!s || nwarps == 0 || nwarps > GMMU_TBC_MAX_WARPS || exit_pc == 0)
        return GMMU_EINVAL;
    memset(s, 0, sizeof *s);
    s->nwarps = nwarps;
    s->e[0].pc = 0;
    s->e[0].rpc = exit_pc;
    for (uint32_t w = 0; w < nwarps; w++)
        s->e[0].mask[w] = 0xFFFFFFFFu;
    s->n = 1;
    s->peak = 1;
    return GMMU_OK;
}

static void pop_reconverged(gmmu_tbc_stack *s)
{
    while (s->n > 0 && s->e[s->n - 1].pc == s->e[s->n - 1].rpc) {
        s->n--;
        if (s->n > 0)
            s->reconverged++;
    }
}

gmmu_status gmmu_tbc_branch(gmmu_tbc_stack *s, uint32_t pc, const uint32_t *taken, uint32_t target,
                            uint32_t rpc, bool *regroup)
{
    if (!s || !taken || !regroup || s->n == 0)
        return GMMU_EINVAL;
    gmmu_tbc_entry *top = &s->e[s->n - 1];
    bool any_taken = false, any_fall = false;
    for (uint32_t w = 0; w < s->nwarps; w++) {
        if (taken[w] & ~top->mask[w])
            return GMMU_EINVAL;
        any_taken |= taken[w] != 0;
        any_fall |= (top->mask[w] & ~taken[w]) != 0;
    }
    /* The per-warp stack's rule, block-wide (gmmu/simt_stack.h). */
    const gmmu_simt_split d = gmmu_simt_divergence(s->n, pc, top->rpc, any_taken, any_fall, target, rpc);
    *regroup = false;
    if (!d.divergent) { /* uniform: the block moves as one */
        uint32_t n0 = s->n;
        top->pc = d.top_pc;
        s->branches++;
        pop_reconverged(s);
        *regroup = s->n != n0;
        return GMMU_OK;
    }
    if (d.depth > GMMU_TBC_DEPTH)
        return GMMU_ENOMEM;
    s->branches++;
    s->splits++;
    gmmu_tbc_entry saved = *top;
    if (!d.reuse)
        top->pc = rpc;
    s->n = d.base;
    if (d.push_taken) {
        gmmu_tbc_entry *e = &s->e[s->n++];
        e->pc = target;
        e->rpc = rpc;
        for (uint32_t w = 0; w < s->nwarps; w++)
            e->mask[w] = taken[w];
    }
    if (d.push_fall) {
        gmmu_tbc_entry *e = &s->e[s->n++];
        e->pc = d.fall_pc;
        e->rpc = rpc;
        for (uint32_t w = 0; w < s->nwarps; w++)
            e->mask[w] = saved.mask[w] & ~taken[w];
    }
    if (s->n > s->peak)
        s->peak = s->n;
    pop_reconverged(s);
    *regroup = true;
    return GMMU_OK;
}

bool gmmu_tbc_converged(const gmmu_tbc_stack *s)
{
    if (!s || s->n == 0)
        return false;
    const gmmu_tbc_entry *top = &s->e[s->n - 1];
    for (uint32_t w = 0; w < s->nwarps; w++)
        if (top->mask[w] != s->e[0].mask[w])
            return false;
    return true;
}

gmmu_status gmmu_tbc_reconverge(gmmu_tbc_stack *s)
{
    if (!s || s->n == 0)
        return GMMU_EINVAL;
    s->e[s->n - 1].pc = s->e[s->n - 1].rpc;
    pop_reconverged(s);
    return GMMU_OK;
}

/* ---- Common Page Matrix ------------------------------------------------------ */

gmmu_status gmmu_cpm_config_check(const gmmu_cpm_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "cpm", "CPM config is NULL");
    if (c->warps == 0 || c->warps > 256)
        return gmmu_error_set(err, "warps", "CPM warps %u out of range 1..256", c->warps);
    if (c->counter_bits == 0 || c->counter_bits > 8)
        return gmmu_error_set(err, "counter_bits", "CPM counter bits %u out of range 1..8",
                              c->counter_bits);
    if (c->history == 0 || c->history > 8)
        return gmmu_error_set(err, "history", "CPM history %u out of range 1..8", c->history);
    if (c->pages == 0 || c->pages > 65536)
        return gmmu_error_set(err, "pages", "CPM pages %u out of range 1..65536", c->pages);
    return GMMU_OK;
}

static void cpm_release(gmmu_cpm *x);

static gmmu_status cpm_init_into(gmmu_cpm *m, const gmmu_cpm_config *c, gmmu_error *err)
{
    if (!m)
        return gmmu_error_set(err, "cpm", "CPM is NULL");
    memset(m, 0, sizeof *m);
    gmmu_status st = gmmu_cpm_config_check(c, err);
    if (st != GMMU_OK)
        return st;
    m->cfg = *c;
    m->cnt = calloc((size_t)c->warps * c->warps, 1);
    m->page = calloc(c->pages, sizeof *m->page);
    m->used = calloc(c->pages, sizeof *m->used);
    m->hist = calloc((size_t)c->pages * c->history, 1);
    m->nhist = calloc(c->pages, 1);
    if (!m->cnt || !m->page || !m->used || !m->hist || !m->nhist) {
        cpm_release(m);
        return GMMU_ENOMEM;
    }
    return GMMU_OK;
}

static void cpm_release(gmmu_cpm *m)
{
    if (!m)
        return;
    free(m->cnt);
    free(m->page);
    free(m->used);
    free(m->hist);
    free(m->nhist);
    memset(m, 0, sizeof *m);
}

static uint32_t cpm_find(const gmmu_cpm *m, uint64_t vpn)
{
    for (uint32_t i = 0; i < m->cfg.pages; i++)
        if (m->used[i] && m->page[i] == vpn)
            return i;
    return UINT32_MAX;
}

static uint32_t cpm_alloc(gmmu_cpm *m, uint64_t vpn)
{
    uint32_t v = 0;
    for (uint32_t i = 0; i < m->cfg.pages; i++) {
        if (!m->used[i]) {
            v = i;
            break;
        }
        if (m->used[i] < m->used[v])
            v = i;
    }
    m->page[v] = vpn;
    m->nhist[v] = 0;
    return v;
}

static void cpm_push(gmmu_cpm *m, uint32_t i, uint32_t warp)
{
    uint8_t *h = m->hist + (size_t)i * m->cfg.history;
    uint32_t n = m->nhist[i], k = 0;
    while (k < n && h[k] != warp)
        k++;
    if (k == n && n < m->cfg.history)
        n++;
    if (k >= n)
        k = n - 1;
    memmove(h + 1, h, k);
    h[0] = (uint8_t)warp;
    m->nhist[i] = (uint8_t)n;
}

void gmmu_cpm_access(gmmu_cpm *m, uint64_t vpn, uint32_t warp, bool tlb_hit, uint64_t now)
{
    if (!m || !m->cnt || warp >= m->cfg.warps)
        return;
    if (m->cfg.flush_cycles && now >= m->last_flush + m->cfg.flush_cycles) {
        memset(m->cnt, 0, (size_t)m->cfg.warps * m->cfg.warps);
        m->last_flush = now - (now - m->last_flush) % m->cfg.flush_cycles;
        m->flushes++;
    }
    uint32_t i = cpm_find(m, vpn);
    if (i == UINT32_MAX || !tlb_hit) {
        if (i == UINT32_MAX)
            i = cpm_alloc(m, vpn);
        m->nhist[i] = 0;
    } else {
        const uint8_t max = (uint8_t)((1u << m->cfg.counter_bits) - 1u);
        const uint8_t *h = m->hist + (size_t)i * m->cfg.history;
        for (uint32_t k = 0; k < m->nhist[i]; k++) {
            if (h[k] == warp)
                continue;
            uint8_t *c = &m->cnt[(size_t)warp * m->cfg.warps + h[k]];
            if (*c < max) {
                (*c)++;
                m->updates++;
                if (*c == max)
                    m->saturations++;
            }
        }
    }
    cpm_push(m, i, warp);
    m->used[i] = ++m->stamp;
}

void gmmu_cpm_evict(gmmu_cpm *m, uint64_t vpn)
{
    if (!m || !m->cnt)
        return;
    uint32_t i = cpm_find(m, vpn);
    if (i != UINT32_MAX) {
        m->used[i] = 0;
        m->nhist[i] = 0;
    }
}

uint32_t gmmu_cpm_counter(const gmmu_cpm *m, uint32_t row, uint32_t col)
{
    if (!m || !m->cnt || row >= m->cfg.warps || col >= m->cfg.warps)
        return 0;
    return m->cnt[(size_t)row * m->cfg.warps + col];
}

bool gmmu_cpm_saturated(const gmmu_cpm *m, uint32_t row, uint32_t col)
{
    if (row == col)
        return true;
    return gmmu_cpm_counter(m, row, col) == (1u << m->cfg.counter_bits) - 1u;
}

uint64_t gmmu_cpm_state_bits(const gmmu_cpm_config *c, uint32_t tlb_entries)
{
    if (!c || c->warps == 0)
        return 0;
    uint32_t id_bits = 0;
    while ((1u << id_bits) < c->warps)
        id_bits++;
    return (uint64_t)c->warps * (c->warps - 1u) * c->counter_bits +
           (uint64_t)tlb_entries * c->history * id_bits;
}

/* ---- compaction ------------------------------------------------------------- */

gmmu_status gmmu_tbc_compactor_start(gmmu_tbc_compactor *c, const uint32_t *mask, uint32_t nwarps,
                                     const gmmu_cpm *cpm, uint32_t cpm_base)
{
    if (!c || !mask || nwarps == 0 || nwarps > GMMU_TBC_MAX_WARPS)
        return GMMU_EINVAL;
    memset(c, 0, sizeof *c);
    c->nwarps = nwarps;
    c->cpm = cpm;
    c->cpm_base = cpm_base;
    for (uint32_t w = 0; w < nwarps; w++) {
        c->left[w] = mask[w];
        for (uint32_t l = 0; l < 32; l++)
            c->rem[l] += mask[w] >> l & 1u;
        c->total += (uint32_t)__builtin_popcount(mask[w]);
    }
    return GMMU_OK;
}

bool gmmu_tbc_compactor_step(gmmu_tbc_compactor *c, uint8_t home[32])
{
    if (!c || !home || gmmu_tbc_compactor_done(c))
        return false;
    const uint32_t k = c->formed++;
    uint32_t members[GMMU_TBC_MAX_WARPS], nm = 0;
    memset(home, GMMU_TBC_NO_THREAD, 32);
    for (uint32_t l = 0; l < 32; l++) {
        if (c->rem[l] == 0)
            continue;
        /* TLB-aware: a lane with as many threads left as dynamic warps left
         * to form must place one now. */
        const bool forced = !c->cpm || c->rem[l] >= c->nwarps - k;
        uint32_t pick = GMMU_TBC_NO_THREAD;
        for (uint32_t w = 0; w < c->nwarps && pick == GMMU_TBC_NO_THREAD; w++) {
            if (!(c->left[w] >> l & 1u))
                continue;
            bool ok = true;
            for (uint32_t j = 0; !forced && j < nm && ok; j++)
                ok = gmmu_cpm_saturated(c->cpm, c->cpm_base + w, c->cpm_base + members[j]);
            if (ok)
                pick = w;
        }
        if (pick == GMMU_TBC_NO_THREAD)
            continue;
        home[l] = (uint8_t)pick;
        c->left[pick] &= ~(1u << l);
        c->rem[l]--;
        c->total--;
        uint32_t j = 0;
        while (j < nm && members[j] != pick)
            j++;
        if (j == nm)
            members[nm++] = pick;
    }
    return true;
}

uint32_t gmmu_tbc_compact(const uint32_t *mask, uint32_t nwarps, const gmmu_cpm *cpm, uint32_t cpm_base,
                          uint8_t *home)
{
    gmmu_tbc_compactor c;
    if (!home || gmmu_tbc_compactor_start(&c, mask, nwarps, cpm, cpm_base) != GMMU_OK)
        return 0;
    memset(home, GMMU_TBC_NO_THREAD, (size_t)nwarps * 32u);
    while (gmmu_tbc_compactor_step(&c, home + (size_t)c.formed * 32u))
        ;
    return c.formed;
}

gmmu_status gmmu_cpm_create(const gmmu_cpm_config *cfg, gmmu_cpm **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "cpm", "output pointer is NULL");
    *out = NULL;
    gmmu_cpm *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = cpm_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        cpm_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_cpm_destroy(gmmu_cpm *x)
{
    if (!x)
        return;
    cpm_release(x);
    free(x);
}
