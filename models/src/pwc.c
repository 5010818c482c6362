/* Page-walk caches: the common interface over TPC, STC, UPTC and CPWC, and
 * the cycle-step pipeline of TPC and CPWC. See gmmu/pwc.h. */
#include "gmmu/pwc.h"

#include "gmmu/cpwc.h"
#include "gmmu/stc.h"
#include "gmmu/tpc.h"
#include "gmmu/uptc.h"

#include <stdlib.h>
#include <string.h>

typedef struct pipe_slot {
    uint64_t base;
    uint64_t root;
    uint8_t valid;
    uint8_t start_level;
} pipe_slot;

struct gmmu_pwc {
    gmmu_pwc_config cfg;
    uint64_t bits;
    unsigned latency; /* TPC/STC/CPWC lookup latency; UPTC: 3-probe maximum */
    gmmu_pwc_stats st;
    union {
        gmmu_tpc *tpc;
        gmmu_stc *stc;
        gmmu_uptc *uptc;
        gmmu_cpwc *cpwc;
    } m;
    pipe_slot pipe[GMMU_PWC_MAX_LATENCY]; /* cycle step: pipe[i] was accepted i+1 cycles ago */
};

/* ---- names ------------------------------------------------------------------ */
const char *gmmu_pwc_kind_name(gmmu_pwc_kind kind)
{
    switch (kind) {
    case GMMU_PWC_NONE: return "none";
    case GMMU_PWC_TPC: return "tpc";
    case GMMU_PWC_STC: return "stc";
    case GMMU_PWC_UPTC: return "uptc";
    case GMMU_PWC_CPWC: return "cpwc";
    }
    return "unknown";
}

static int name_eq(const char *a, const char *b)
{
    for (; *a && *b; a++, b++) {
        char x = (*a >= 'A' && *a <= 'Z') ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b)
            return 0;
    }
    return *a == 0 && *b == 0;
}

gmmu_status gmmu_pwc_kind_parse(const char *s, gmmu_pwc_kind *out)
{
    if (!s || !out)
        return GMMU_EINVAL;
    for (int k = GMMU_PWC_NONE; k <= GMMU_PWC_CPWC; k++)
        if (name_eq(s, gmmu_pwc_kind_name((gmmu_pwc_kind)k))) {
            *out = (gmmu_pwc_kind)k;
            return GMMU_OK;
        }
    return GMMU_EINVAL;
}

/* ---- configuration ---------------------------------------------------------- */
gmmu_status gmmu_pwc_config_default(gmmu_pwc_kind kind, gmmu_pwc_config *cfg)
{
    if (!cfg || kind < GMMU_PWC_NONE || kind > GMMU_PWC_CPWC)
        return GMMU_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    cfg->kind = kind;
    cfg->replacement = GMMU_PWC_REPL_LRU;
    /* Every kind's geometry is filled, so switching `kind` alone works. */
    cfg->tpc.entries = 24;
    cfg->tpc.hit_cycles = 1;
    cfg->stc.entries[0] = 2;
    cfg->stc.entries[1] = 4;
    cfg->stc.entries[2] = 52;
    cfg->stc.hit_cycles = 1;
    cfg->uptc.entries = 38;
    cfg->uptc.probe_cycles = 1;
    cfg->cpwc.l4_entries = 2;
    cfg->cpwc.l3_entries = 4;
    cfg->cpwc.l2_blocks = 62;
    cfg->cpwc.block_entries = 1;
    cfg->cpwc.lookup_cycles = 1;
    cfg->cpwc.mux_cycles = 1;
    return GMMU_OK;
}

gmmu_status gmmu_pwc_config_validate(const gmmu_pwc_config *cfg, gmmu_error *err)
{
    if (!cfg)
        return gmmu_error_set(err, "cfg", "config pointer is NULL");
    if (cfg->replacement != GMMU_PWC_REPL_LRU && cfg->replacement != GMMU_PWC_REPL_FIFO)
        return gmmu_error_set(err, "replacement", "%d: allowed lru (0), fifo (1)",
                              (int)cfg->replacement);
    switch (cfg->kind) {
    case GMMU_PWC_NONE: return GMMU_OK;
    case GMMU_PWC_TPC: return gmmu_tpc_validate(cfg, err);
    case GMMU_PWC_STC: return gmmu_stc_validate(cfg, err);
    case GMMU_PWC_UPTC: return gmmu_uptc_validate(cfg, err);
    case GMMU_PWC_CPWC: return gmmu_cpwc_validate(cfg, err);
    }
    return gmmu_error_set(err, "kind", "%d: allowed none, tpc, stc, uptc, cpwc", (int)cfg->kind);
}

uint64_t gmmu_pwc_config_bits(const gmmu_pwc_config *cfg)
{
    if (gmmu_pwc_config_validate(cfg, NULL) != GMMU_OK)
        return 0;
    switch (cfg->kind) {
    case GMMU_PWC_NONE: return 0;
    case GMMU_PWC_TPC: return gmmu_tpc_bits(cfg);
    case GMMU_PWC_STC: return gmmu_stc_bits(cfg);
    case GMMU_PWC_UPTC: return gmmu_uptc_bits(cfg);
    case GMMU_PWC_CPWC: return gmmu_cpwc_bits(cfg);
    }
    return 0;
}

gmmu_status gmmu_pwc_config_for_bits(gmmu_pwc_kind kind, uint64_t bits, gmmu_pwc_config *cfg,
                                     gmmu_error *err)
{
    if (!cfg)
        return gmmu_error_set(err, "cfg", "config pointer is NULL");
    if (gmmu_pwc_config_default(kind, cfg) != GMMU_OK)
        return gmmu_error_set(err, "kind", "%d: allowed none, tpc, stc, uptc, cpwc", (int)kind);
    uint64_t n = 0, fixed = 0, per = 0;
    switch (kind) {
    case GMMU_PWC_NONE: return GMMU_OK;
    case GMMU_PWC_TPC:
        per = GMMU_PWC_TPC_ENTRY_BITS;
        break;
    case GMMU_PWC_UPTC:
        per = GMMU_PWC_UPTC_ENTRY_BITS;
        break;
    case GMMU_PWC_STC:
        fixed = cfg->stc.entries[0] * (uint64_t)GMMU_PWC_STC_ENTRY_BITS(4u) +
                cfg->stc.entries[1] * (uint64_t)GMMU_PWC_STC_ENTRY_BITS(3u);
        per = GMMU_PWC_STC_ENTRY_BITS(2u);
        break;
    case GMMU_PWC_CPWC:
        /* bits = l4*74 + l3*74 + nb * (l3 + block_entries*74) */
        fixed = (cfg->cpwc.l4_entries + cfg->cpwc.l3_entries) * (uint64_t)GMMU_PWC_CPWC_ENTRY_BITS;
        for (;;) {
            per = cfg->cpwc.l3_entries + cfg->cpwc.block_entries * (uint64_t)GMMU_PWC_CPWC_ENTRY_BITS;
            n = bits > fixed ? (bits - fixed) / per : 0;
            if (n <= GMMU_PWC_CPWC_MAX_BLOCKS || cfg->cpwc.block_entries >= GMMU_PWC_MAX_ENTRIES)
                break;
            cfg->cpwc.block_entries *= 2;
        }
        if (n > GMMU_PWC_CPWC_MAX_BLOCKS)
            n = GMMU_PWC_CPWC_MAX_BLOCKS;
        if (n < 1)
            return gmmu_error_set(err, "bits", "%llu bits hold no CPWC (minimum %llu)",
                                  (unsigned long long)bits, (unsigned long long)(fixed + per));
        cfg->cpwc.l2_blocks = (uint32_t)n;
        return GMMU_OK;
    }
    n = bits > fixed ? (bits - fixed) / per : 0;
    if (n > GMMU_PWC_MAX_ENTRIES)
        n = GMMU_PWC_MAX_ENTRIES;
    if (n < 1)
        return gmmu_error_set(err, "bits", "%llu bits hold no %s (minimum %llu)",
                              (unsigned long long)bits, gmmu_pwc_kind_name(kind),
                              (unsigned long long)(fixed + per));
    if (kind == GMMU_PWC_TPC)
        cfg->tpc.entries = (uint32_t)n;
    else if (kind == GMMU_PWC_UPTC)
        cfg->uptc.entries = (uint32_t)n;
    else
        cfg->stc.entries[2] = (uint32_t)n;
    return GMMU_OK;
}

/* ---- lifetime --------------------------------------------------------------- */
gmmu_status gmmu_pwc_create(const gmmu_pwc_config *cfg, gmmu_pwc **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "out", "output pointer is NULL");
    *out = NULL;
    gmmu_status s = gmmu_pwc_config_validate(cfg, err);
    if (s != GMMU_OK)
        return s;
    gmmu_pwc *p = calloc(1, sizeof *p);
    if (!p)
        return GMMU_ENOMEM;
    p->cfg = *cfg;
    p->bits = gmmu_pwc_config_bits(cfg);
    switch (cfg->kind) {
    case GMMU_PWC_NONE:
        p->latency = 0;
        break;
    case GMMU_PWC_TPC:
        p->latency = cfg->tpc.hit_cycles;
        s = gmmu_tpc_create(cfg, &p->m.tpc, err);
        break;
    case GMMU_PWC_STC:
        p->latency = cfg->stc.hit_cycles;
        s = gmmu_stc_create(cfg, &p->m.stc, err);
        break;
    case GMMU_PWC_UPTC:
        p->latency = 3u * cfg->uptc.probe_cycles;
        s = gmmu_uptc_create(cfg, &p->m.uptc, err);
        break;
    case GMMU_PWC_CPWC:
        p->latency = cfg->cpwc.lookup_cycles + cfg->cpwc.mux_cycles;
        s = gmmu_cpwc_create(cfg, &p->m.cpwc, err);
        break;
    }
    if (s != GMMU_OK) {
        free(p);
        return s;
    }
    *out = p;
    return GMMU_OK;
}

void gmmu_pwc_destroy(gmmu_pwc *p)
{
    if (!p)
        return;
    switch (p->cfg.kind) {
    case GMMU_PWC_NONE: break;
    case GMMU_PWC_TPC: gmmu_tpc_destroy(p->m.tpc); break;
    case GMMU_PWC_STC: gmmu_stc_destroy(p->m.stc); break;
    case GMMU_PWC_UPTC: gmmu_uptc_destroy(p->m.uptc); break;
    case GMMU_PWC_CPWC: gmmu_cpwc_destroy(p->m.cpwc); break;
    }
    free(p);
}

/* ---- shared lookup / fill ------------------------------------------------------ */
/* Match va; *probes gets UPTC's probe count. The deepest known table is where
 * a walk starts. */
static gmmu_status match(gmmu_pwc *p, uint64_t root, uint64_t va, bool touch,
                         gmmu_pwc_path *path, unsigned *probes)
{
    *probes = 0;
    path->va = va;
    path->known = 0;
    switch (p->cfg.kind) {
    case GMMU_PWC_NONE: return GMMU_OK;
    case GMMU_PWC_TPC: return gmmu_tpc_match(p->m.tpc, va, touch, path);
    case GMMU_PWC_STC: return gmmu_stc_match(p->m.stc, va, touch, path);
    case GMMU_PWC_UPTC: return gmmu_uptc_match(p->m.uptc, root, va, touch, path, probes);
    case GMMU_PWC_CPWC: return gmmu_cpwc_match(p->m.cpwc, va, touch, path);
    }
    return GMMU_EINVAL;
}

static void start_of(const gmmu_pwc_path *path, uint64_t root, unsigned *level, uint64_t *base)
{
    for (unsigned k = 1; k <= 3; k++)
        if (path->known & (1u << k)) {
            *level = k;
            *base = path->base[k];
            return;
        }
    *level = 4;
    *base = root;
}

static void count_lookup(gmmu_pwc *p, unsigned level, unsigned cycles)
{
    p->st.lookups++;
    p->st.lookup_cycles += cycles;
    switch (level) {
    case 4: p->st.misses++; break;
    case 3: p->st.hit_l4++; break;
    case 2: p->st.hit_l3++; break;
    default: p->st.hit_l2++; break;
    }
}

gmmu_status gmmu_pwc_lookup(gmmu_pwc *p, uint64_t root, uint64_t va, gmmu_pwc_hit *hit)
{
    if (!p || !hit)
        return GMMU_EINVAL;
    gmmu_pwc_path path;
    unsigned probes = 0;
    if (gmmu_va_canonical(va)) { /* a non-canonical VA never hits: the walk faults */
        gmmu_status s = match(p, root, va, true, &path, &probes);
        if (s != GMMU_OK)
            return s;
    } else {
        path.known = 0;
    }
    start_of(&path, root, &hit->start_level, &hit->table_base);
    hit->reads_left = hit->start_level;
    hit->cycles = p->cfg.kind == GMMU_PWC_UPTC ? probes * p->cfg.uptc.probe_cycles : p->latency;
    count_lookup(p, hit->start_level, hit->cycles);
    return GMMU_OK;
}

gmmu_status gmmu_pwc_path_from_walk(uint64_t va, const gmmu_walk_result *w, gmmu_pwc_path *path)
{
    if (!w || !path)
        return GMMU_EINVAL;
    memset(path, 0, sizeof *path);
    path->va = va;
    if (w->nreads == 0 || w->fault == GMMU_FAULT_NONCANONICAL)
        return GMMU_OK;
    unsigned start = w->read_level[0], deepest;
    if (w->fault == GMMU_FAULT_NONE)
        deepest = w->page_shift == GMMU_PAGE_1G_SHIFT   ? 3u
                  : w->page_shift == GMMU_PAGE_2M_SHIFT ? 2u
                                                        : 1u;
    else
        deepest = w->fault_level;
    if (start < 1 || start > 4 || deepest < 1 || deepest > start)
        return GMMU_EINVAL;
    /* The table at level k may be cached only if every entry above it that
     * this walk read is permissive (the levels above `start` were skipped
     * through the PWC, which holds permissive prefixes only). */
    for (unsigned k = start; k >= deepest; k--) {
        path->base[k] = w->table_base[k];
        path->known |= 1u << k;
        if (k == deepest || !gmmu_pte_permissive(w->level_pte[k]))
            break;
    }
    return GMMU_OK;
}

int gmmu_pwc_context_enter(gmmu_pwc_context *c, gmmu_pwc_kind kind, uint64_t root)
{
    if (!c)
        return 0;
    const int flush = c->bound && c->root != root && kind != GMMU_PWC_NONE &&
                      kind != GMMU_PWC_UPTC;
    if (flush)
        c->flushes++;
    c->bound = 1;
    c->root = root;
    return flush;
}

static gmmu_status fill_path(gmmu_pwc *p, const gmmu_pwc_path *path)
{
    switch (p->cfg.kind) {
    case GMMU_PWC_NONE: return GMMU_OK;
    case GMMU_PWC_TPC: return gmmu_tpc_fill(p->m.tpc, path, &p->st);
    case GMMU_PWC_STC: return gmmu_stc_fill(p->m.stc, path, &p->st);
    case GMMU_PWC_UPTC: return gmmu_uptc_fill(p->m.uptc, path, &p->st);
    case GMMU_PWC_CPWC: return gmmu_cpwc_fill(p->m.cpwc, path, &p->st);
    }
    return GMMU_EINVAL;
}

gmmu_status gmmu_pwc_fill_path(gmmu_pwc *p, const gmmu_pwc_path *path)
{
    if (!p || !path || (path->known & ~0x1Eu))
        return GMMU_EINVAL;
    gmmu_pwc_path full = *path;
    /* A walk that started below the root (after a hit) knows only the lower
     * tables; the upper bases are those of the PWC entries that gave the hit,
     * as the walker's registers would hold them. Take them only when they
     * agree with the walk's own top table. */
    unsigned top = 0;
    for (unsigned k = 3; k >= 1; k--)
        if (full.known & (1u << k)) {
            top = k;
            break;
        }
    if (top >= 1 && !(full.known & (1u << 4)) && p->cfg.kind != GMMU_PWC_UPTC && p->cfg.kind != GMMU_PWC_NONE) {
        gmmu_pwc_path up;
        unsigned probes;
        gmmu_status s = match(p, 0, path->va, false, &up, &probes);
        if (s != GMMU_OK)
            return s;
        if ((up.known & (1u << top)) && (up.base[top] & ~0xFFFull) == (full.base[top] & ~0xFFFull))
            for (unsigned k = top + 1; k <= 3; k++)
                if (up.known & (1u << k)) {
                    full.base[k] = up.base[k];
                    full.known |= 1u << k;
                }
    }
    p->st.fills++;
    return fill_path(p, &full);
}

gmmu_status gmmu_pwc_fill(gmmu_pwc *p, uint64_t va, const gmmu_walk_result *w)
{
    if (!p || !w)
        return GMMU_EINVAL;
    gmmu_pwc_path path;
    gmmu_status s = gmmu_pwc_path_from_walk(va, w, &path);
    if (s != GMMU_OK)
        return s;
    return gmmu_pwc_fill_path(p, &path);
}

/* ---- invalidation ----------------------------------------------------------------- */
static void squash_pipe(gmmu_pwc *p)
{
    for (unsigned i = 0; i < GMMU_PWC_MAX_LATENCY; i++)
        if (p->pipe[i].valid && p->pipe[i].start_level != 4) {
            p->pipe[i].start_level = 4;
            p->pipe[i].base = p->pipe[i].root;
            p->st.squashed++;
        }
}

void gmmu_pwc_invalidate_all(gmmu_pwc *p)
{
    if (!p)
        return;
    p->st.invalidations++;
    switch (p->cfg.kind) {
    case GMMU_PWC_NONE: break;
    case GMMU_PWC_TPC: gmmu_tpc_invalidate_all(p->m.tpc, &p->st); break;
    case GMMU_PWC_STC: gmmu_stc_invalidate_all(p->m.stc, &p->st); break;
    case GMMU_PWC_UPTC: gmmu_uptc_invalidate_all(p->m.uptc, &p->st); break;
    case GMMU_PWC_CPWC: gmmu_cpwc_invalidate_all(p->m.cpwc, &p->st); break;
    }
    squash_pipe(p);
}

void gmmu_pwc_invalidate_range(gmmu_pwc *p, uint64_t va_lo, uint64_t va_hi)
{
    if (!p)
        return;
    const uint64_t m48 = (1ull << 48) - 1u;
    uint64_t lo = va_lo & m48, hi = va_hi & m48;
    if (lo > hi) { /* crosses the canonical hole or reversed: be safe */
        gmmu_pwc_invalidate_all(p);
        return;
    }
    p->st.invalidations++;
    switch (p->cfg.kind) {
    case GMMU_PWC_NONE: break;
    case GMMU_PWC_TPC: gmmu_tpc_invalidate_range(p->m.tpc, lo, hi, &p->st); break;
    case GMMU_PWC_STC: gmmu_stc_invalidate_range(p->m.stc, lo, hi, &p->st); break;
    case GMMU_PWC_UPTC: gmmu_uptc_invalidate_all(p->m.uptc, &p->st); break;
    case GMMU_PWC_CPWC: gmmu_cpwc_invalidate_range(p->m.cpwc, lo, hi, &p->st); break;
    }
    squash_pipe(p);
}

/* ---- accessors -------------------------------------------------------------------- */
uint64_t gmmu_pwc_bits(const gmmu_pwc *p) { return p ? p->bits : 0; }
const gmmu_pwc_stats *gmmu_pwc_get_stats(const gmmu_pwc *p) { return p ? &p->st : NULL; }
void gmmu_pwc_reset_stats(gmmu_pwc *p)
{
    if (p)
        memset(&p->st, 0, sizeof p->st);
}
const gmmu_pwc_config *gmmu_pwc_get_config(const gmmu_pwc *p) { return p ? &p->cfg : NULL; }
unsigned gmmu_pwc_latency(const gmmu_pwc *p) { return p ? p->latency : 0; }

const gmmu_tpc *gmmu_pwc_tpc(const gmmu_pwc *p)
{
    return p && p->cfg.kind == GMMU_PWC_TPC ? p->m.tpc : NULL;
}
const gmmu_stc *gmmu_pwc_stc(const gmmu_pwc *p)
{
    return p && p->cfg.kind == GMMU_PWC_STC ? p->m.stc : NULL;
}
const gmmu_uptc *gmmu_pwc_uptc(const gmmu_pwc *p)
{
    return p && p->cfg.kind == GMMU_PWC_UPTC ? p->m.uptc : NULL;
}
const gmmu_cpwc *gmmu_pwc_cpwc(const gmmu_pwc *p)
{
    return p && p->cfg.kind == GMMU_PWC_CPWC ? p->m.cpwc : NULL;
}

/* ---- cycle step ----------------------------------------------------------------------- */
gmmu_status gmmu_pwc_step(gmmu_pwc *p, const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out)
{
    if (!p || !in || !out)
        return GMMU_EINVAL;
    if (p->cfg.kind != GMMU_PWC_TPC && p->cfg.kind != GMMU_PWC_CPWC)
        return GMMU_EINVAL;
    if (in->lookup_valid > 1 || in->fill_valid > 1 || in->inv_valid > 1 || in->inv_all > 1 ||
        in->fill_levels > 7)
        return GMMU_EINVAL;
    const unsigned L = p->latency;

    /* Registered outputs: the lookup accepted L cycles ago. */
    memset(out, 0, sizeof *out);
    const pipe_slot *o = &p->pipe[L - 1];
    if (o->valid) {
        out->hit_valid = 1;
        out->start_level = o->start_level;
        out->table_base = o->base;
        count_lookup(p, o->start_level, L);
    }
    for (unsigned i = L - 1; i > 0; i--)
        p->pipe[i] = p->pipe[i - 1];
    memset(&p->pipe[0], 0, sizeof p->pipe[0]);

    /* 1. lookup on the state before this cycle's fill / invalidate */
    if (in->lookup_valid) {
        gmmu_pwc_path path;
        unsigned probes, level;
        uint64_t base;
        path.known = 0;
        if (gmmu_va_canonical(in->lookup_va)) {
            gmmu_status s = match(p, in->lookup_root, in->lookup_va, true, &path, &probes);
            if (s != GMMU_OK)
                return s;
        }
        start_of(&path, in->lookup_root, &level, &base);
        p->pipe[0].valid = 1;
        p->pipe[0].start_level = (uint8_t)level;
        p->pipe[0].base = base;
        p->pipe[0].root = in->lookup_root;
    }
    /* 2. fill */
    if (in->fill_valid) {
        gmmu_pwc_path path;
        memset(&path, 0, sizeof path);
        path.va = in->fill_va;
        const uint64_t b[3] = {in->fill_base_l1, in->fill_base_l2, in->fill_base_l3};
        for (unsigned k = 1; k <= 3; k++)
            if (in->fill_levels & (1u << (k - 1))) {
                path.base[k] = b[k - 1];
                path.known |= 1u << k;
            }
        p->st.fills++;
        gmmu_status s = fill_path(p, &path);
        if (s != GMMU_OK)
            return s;
    }
    /* 3. invalidate (squashes everything in flight, this cycle's lookup too) */
    if (in->inv_valid) {
        if (in->inv_all)
            gmmu_pwc_invalidate_all(p);
        else
            gmmu_pwc_invalidate_range(p, in->inv_lo, in->inv_hi);
    }
    return GMMU_OK;
}
