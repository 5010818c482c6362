/* gmmu — comparator-tree page-walk scheduler golden model.
 * Rules and cycle costs: docs/walk_scheduler.md. */
#include "gmmu/walk_sched.h"
#include "gmmu/walk_step.h"

#include <stdlib.h>
#include <string.h>

#define NO_WALKER 0xFFu     /* walker_mshr[w]: walker w idle */
#define NO_WALKER16 0xFFFFu /* gmmu_ws_mshr.walker: no walker bound */

void gmmu_ws_config_default(gmmu_ws_config *cfg)
{
    if (!cfg)
        return;
    cfg->variant = GMMU_WS_TREE;
    cfg->mshrs = 32;
    cfg->walkers = 1;
    cfg->scan_pass_cycles = 1;
    cfg->retire_width = GMMU_WS_RETIRE_MAX;
}

gmmu_status gmmu_ws_config_check(const gmmu_ws_config *cfg, gmmu_error *err)
{
    if (!cfg)
        return gmmu_error_set(err, "config", "walk scheduler config pointer is NULL");
    if (cfg->variant != GMMU_WS_SERIAL && cfg->variant != GMMU_WS_TREE &&
        cfg->variant != GMMU_WS_PAIRWISE)
        return gmmu_error_set(err, "variant", "variant = %d, allowed serial(0), tree(1), pairwise(2)",
                              (int)cfg->variant);
    if (cfg->mshrs < 1 || cfg->mshrs > GMMU_WS_MAX_MSHRS)
        return gmmu_error_set(err, "mshrs", "mshrs = %u, allowed 1..%u", cfg->mshrs,
                              GMMU_WS_MAX_MSHRS);
    gmmu_status ws = gmmu_ws_walkers_check(cfg->variant, cfg->walkers, err);
    if (ws != GMMU_OK)
        return ws;
    if (cfg->scan_pass_cycles < 1 || cfg->scan_pass_cycles > 16)
        return gmmu_error_set(err, "scan_pass_cycles", "scan_pass_cycles = %u, allowed 1..16",
                              cfg->scan_pass_cycles);
    if (cfg->retire_width < 1 || cfg->retire_width > GMMU_WS_RETIRE_MAX)
        return gmmu_error_set(err, "retire_width", "retire_width = %u, allowed 1..%u",
                              cfg->retire_width, GMMU_WS_RETIRE_MAX);
    return GMMU_OK;
}

gmmu_status gmmu_ws_walkers_check(gmmu_ws_variant variant, uint32_t walkers, gmmu_error *err)
{
    if (variant == GMMU_WS_SERIAL) {
        if (walkers < 1 || walkers > GMMU_WS_MAX_WALKERS)
            return gmmu_error_set(err, "walkers", "walkers = %u, allowed 1..%u", walkers,
                                  GMMU_WS_MAX_WALKERS);
    } else if (walkers != 1) {
        return gmmu_error_set(err, "walkers",
                              "walkers = %u, the tree and pairwise schedulers drive one walker (1)",
                              walkers);
    }
    return GMMU_OK;
}

void gmmu_walk_sched_reset(gmmu_walk_sched *ws)
{
    gmmu_ws_config cfg = ws->cfg;
    gmmu_line_cache *lc = ws->lc;
    memset(ws, 0, sizeof *ws);
    ws->cfg = cfg;
    ws->lc = lc;
    ws->nslots = 4u * cfg.mshrs;
    ws->free_slots = ws->nslots;
    ws->last_scan_level = 1; /* the first scan is at level 4 */
    for (unsigned w = 0; w < GMMU_WS_MAX_WALKERS; w++)
        ws->walker_mshr[w] = NO_WALKER;
    for (unsigned i = 0; i < GMMU_WS_MAX_MSHRS; i++)
        ws->m[i].walker = NO_WALKER16;
}

static gmmu_status walk_sched_init_into(gmmu_walk_sched *ws, const gmmu_ws_config *cfg, gmmu_error *err)
{
    if (!ws)
        return gmmu_error_set(err, "ws", "walk scheduler pointer is NULL");
    gmmu_status s = gmmu_ws_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    ws->cfg = *cfg;
    ws->lc = NULL;
    gmmu_walk_sched_reset(ws);
    return GMMU_OK;
}

void gmmu_walk_sched_attach_line_cache(gmmu_walk_sched *ws, gmmu_line_cache *lc)
{
    if (ws)
        ws->lc = lc;
}

unsigned gmmu_walk_sched_free_mshrs(const gmmu_walk_sched *ws)
{
    unsigned n = 0;
    for (unsigned i = 0; i < ws->cfg.mshrs; i++)
        n += !ws->m[i].valid;
    return n;
}

bool gmmu_walk_sched_idle(const gmmu_walk_sched *ws)
{
    return gmmu_walk_sched_free_mshrs(ws) == ws->cfg.mshrs && ws->inflight == 0;
}

/* ---- slots --------------------------------------------------------------------- */

/* The first slot at or after `from` that is not FREE (free: that is FREE),
 * or GMMU_WS_MAX_SLOTS: the busy mask in index order, so a search visits
 * the slots a way-by-way loop would, in the same order. */
/* Zero n bytes (a constant) as 64-byte pieces: GCC inlines a memset of 128
 * bytes or more as `rep stos`, whose start-up cost was a fifth of a step
 * (its output, 328 bytes, is cleared every cycle); the pieces compile to
 * plain vector stores. */
static inline void zero_bytes(void *p, size_t n)
{
    unsigned char *b = (unsigned char *)p;
    size_t i = 0;
    for (; i + 64 <= n; i += 64)
        memset(b + i, 0, 64);
    memset(b + i, 0, n - i);
}

static unsigned busy_next(const gmmu_walk_sched *ws, unsigned from, bool busy)
{
    for (unsigned w = from / 64; w < GMMU_WS_MAX_SLOTS / 64; w++) {
        uint64_t bits = busy ? ws->busy[w] : ~ws->busy[w];
        if (w == from / 64)
            bits &= ~0ull << (from % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return GMMU_WS_MAX_SLOTS;
}

static uint16_t slot_new(gmmu_walk_sched *ws, unsigned level, bool known, uint64_t key,
                         unsigned index)
{
    for (unsigned i = busy_next(ws, 0, false); i < ws->nslots; i = busy_next(ws, i + 1, false)) {
        gmmu_ws_slot *s = &ws->s[i];
        memset(s, 0, sizeof *s);
        s->state = GMMU_WS_SLOT_QUEUED;
        s->level = (uint8_t)level;
        s->known = known;
        s->key = key;
        s->index = (uint16_t)index;
        s->seq = ws->slot_seq++;
        s->ready_cycle = ws->cycle + 1;
        ws->free_slots--;
        ws->queued[i / 64] |= 1ull << (i % 64);
        ws->busy[i / 64] |= 1ull << (i % 64);
        return (uint16_t)i;
    }
    return GMMU_WS_NO_SLOT; /* not reached: scans reserve slots before they start */
}

static void slot_free(gmmu_walk_sched *ws, uint16_t id)
{
    ws->s[id].state = GMMU_WS_SLOT_FREE;
    ws->free_slots++;
    ws->queued[id / 64] &= ~(1ull << (id % 64));
    ws->busy[id / 64] &= ~(1ull << (id % 64));
}

/* An MSHR gives up a reference it will not consume (its walk ended above). */
static void slot_release(gmmu_walk_sched *ws, uint16_t id)
{
    gmmu_ws_slot *s = &ws->s[id];
    if (s->refcount)
        s->refcount--;
    if (s->refcount)
        return;
    if (s->state == GMMU_WS_SLOT_QUEUED) {
        ws->st.refs_cancelled++;
        slot_free(ws, id);
    } else if (s->state == GMMU_WS_SLOT_INFLIGHT) {
        s->state = GMMU_WS_SLOT_ORPHAN;
    }
}

/* The QUEUED slots in index order: for (i = first; i < nslots; i = next). */
static unsigned queued_next(const gmmu_walk_sched *ws, unsigned from)
{
    for (unsigned w = from / 64; w < GMMU_WS_MAX_SLOTS / 64; w++) {
        uint64_t bits = ws->queued[w];
        if (w == from / 64)
            bits &= ~0ull << (from % 64);
        if (bits)
            return w * 64 + (unsigned)__builtin_ctzll(bits);
    }
    return GMMU_WS_MAX_SLOTS;
}

static uint64_t slot_pa(const gmmu_ws_slot *s)
{
    return s->key + 8ull * s->index;
}

/* ---- walks --------------------------------------------------------------------- */

static void walk_finish(gmmu_walk_sched *ws, gmmu_ws_mshr *m, unsigned level)
{
    m->done = 1;
    ws->done_mask |= 1ull << (m - ws->m);
    m->next_scan = 0;
    for (unsigned k = 1; k < level; k++) {
        if (m->ref[k] != GMMU_WS_NO_SLOT) {
            slot_release(ws, m->ref[k]);
            m->ref[k] = GMMU_WS_NO_SLOT;
        }
    }
    if (m->walker != NO_WALKER16) {
        ws->walker_mshr[m->walker] = NO_WALKER;
        m->walker = NO_WALKER16;
    }
}

static void walk_fault(gmmu_walk_sched *ws, gmmu_ws_mshr *m, unsigned level, gmmu_fault f,
                       unsigned fault_level)
{
    m->fault = (uint8_t)f;
    m->fault_level = (uint8_t)fault_level;
    walk_finish(ws, m, level);
}

/* Consume the PTE of m's current level: gmmu_walk_step(), the rules of
 * gmmu_walk_from() (gmmu_pte_judge's order). A permission denial does not end
 * the walk: its kind and level wait in m->fault / m->fault_level while the
 * walk goes on (the RTL's m_fault_q and m_dlvl_q), and are the fault once a
 * present, well-formed leaf is reached; a not-present or reserved entry
 * below replaces them. Returns true when the walk continues. */
static bool walk_consume(gmmu_walk_sched *ws, gmmu_ws_mshr *m, uint64_t pte)
{
    unsigned level = m->level;
    slot_release(ws, m->ref[level]);
    m->ref[level] = GMMU_WS_NO_SLOT;
    m->nreads++;
    ws->st.refs_walked++;
    gmmu_walk_perm perm;
    gmmu_walk_perm_init(&perm);
    perm.denied = m->fault;
    perm.denied_level = m->fault_level;
    gmmu_walk_step_out o;
    gmmu_walk_step(pte, level, m->access, &perm, &o); /* access never has SET_AD here */
    m->fault = perm.denied;
    m->fault_level = perm.denied_level;
    if (o.fault != GMMU_FAULT_NONE) {
        walk_fault(ws, m, level, o.fault, o.fault_level);
        return false;
    }
    if (o.leaf) {
        m->page_shift = (uint8_t)o.page_shift;
        m->pte = pte;
        m->pa = gmmu_pte_leaf_frame(level, pte) | (m->va & ((1ull << o.page_shift) - 1));
        walk_finish(ws, m, level);
        return false;
    }
    m->level = (uint8_t)(level - 1);
    m->table = o.next_table;
    m->tb[level - 1] = m->table;
    return true;
}

/* SERIAL: the walker of m asks for the PTE of m's current level. */
static void serial_next_read(gmmu_walk_sched *ws, gmmu_ws_mshr *m)
{
    unsigned level = m->level;
    uint16_t id = slot_new(ws, level, true, m->table, gmmu_va_index(m->va, level));
    ws->s[id].refcount = 1;
    m->ref[level] = id;
}

/* ---- phases of a cycle ------------------------------------------------------------ */

static void phase_response(gmmu_walk_sched *ws, const gmmu_ws_resp *r)
{
    uint16_t tag = r->tag;
    gmmu_ws_slot *s = &ws->s[tag];
    ws->inflight--;
    if (s->state == GMMU_WS_SLOT_ORPHAN) {
        ws->st.refs_wasted++;
        slot_free(ws, tag);
        return;
    }
    unsigned level = s->level;
    unsigned consumers = 0;
    for (uint64_t left = ws->valid_mask & ~ws->done_mask; left; left &= left - 1) {
        gmmu_ws_mshr *m = &ws->m[__builtin_ctzll(left)];
        if (m->level != level || m->ref[level] != tag)
            continue;
        consumers++;
        if (walk_consume(ws, m, r->data) && ws->cfg.variant == GMMU_WS_SERIAL)
            serial_next_read(ws, m);
    }
    if (consumers)
        ws->st.refs_merged += consumers - 1u;
    else
        ws->st.refs_wasted++;
    /* The tables named "the one this read returns" are now known. */
    if (level > 1) {
        for (unsigned i = queued_next(ws, 0); i < ws->nslots; i = queued_next(ws, i + 1)) {
            gmmu_ws_slot *c = &ws->s[i];
            if (c->state == GMMU_WS_SLOT_QUEUED && !c->known && c->level == level - 1 &&
                c->key == tag) {
                c->known = 1;
                c->key = r->data & GMMU_PTE_ADDR_MASK;
                c->ready_cycle = ws->cycle + 1;
            }
        }
    }
    slot_free(ws, tag);
}

static void phase_retire(gmmu_walk_sched *ws, gmmu_ws_out *out)
{
    for (uint64_t left = ws->done_mask; left && out->n_done < ws->cfg.retire_width; left &= left - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(left);
        gmmu_ws_mshr *m = &ws->m[i];
        gmmu_ws_done *d = &out->done[out->n_done++];
        d->valid = 1;
        d->fault = m->fault;
        d->fault_level = m->fault_level;
        d->page_shift = m->page_shift;
        d->mshr = (uint8_t)i;
        d->nreads = m->nreads;
        d->va = m->va;
        d->pa = m->pa;
        d->pte = m->pte;
        memcpy(d->table_base, m->tb, sizeof d->table_base);
        ws->st.walks++;
        ws->st.faults += m->fault != GMMU_FAULT_NONE;
        m->valid = 0;
        ws->valid_mask &= ~(1ull << i);
        ws->done_mask &= ~(1ull << i);
        ws->scan_mask &= ~(1ull << i);
    }
}

static void phase_issue(gmmu_walk_sched *ws, bool mem_ready, gmmu_ws_out *out)
{
    int best = -1, best_line = -1;
    for (unsigned i = queued_next(ws, 0); i < ws->nslots; i = queued_next(ws, i + 1)) {
        const gmmu_ws_slot *s = &ws->s[i];
        if (s->state != GMMU_WS_SLOT_QUEUED || !s->known || s->ready_cycle > ws->cycle)
            continue;
        if (best < 0 || s->seq < ws->s[best].seq)
            best = (int)i;
        if (ws->have_last && (slot_pa(s) >> 7) == ws->last_line &&
            (best_line < 0 || s->seq < ws->s[best_line].seq))
            best_line = (int)i;
    }
    if (best < 0)
        return;
    if (!mem_ready) {
        ws->st.mem_stall_cycles++;
        return;
    }
    /* Line lock: finish the line of the previous request first. */
    uint16_t id = (uint16_t)(best_line >= 0 ? best_line : best);
    gmmu_ws_slot *s = &ws->s[id];
    s->state = GMMU_WS_SLOT_INFLIGHT;
    ws->queued[id / 64] &= ~(1ull << (id % 64));
    uint64_t pa = slot_pa(s);
    out->req.valid = 1;
    out->req.level = s->level;
    out->req.tag = id;
    out->req.pa = pa;
    ws->st.refs_issued++;
    if (ws->have_last && (pa >> 7) == ws->last_line)
        ws->st.same_line_back_to_back++;
    ws->have_last = 1;
    ws->last_line = pa >> 7;
    ws->inflight++;
    if (ws->inflight > ws->st.max_inflight)
        ws->st.max_inflight = ws->inflight;
}

/* How MSHR m names the table of `level` at scan time: by PA once known,
 * otherwise by the slot of the upper-level read that will return it. */
static void scan_key(const gmmu_ws_mshr *m, unsigned level, uint8_t *known, uint64_t *key)
{
    if (level == m->start_level) {
        *known = 1;
        *key = m->tb[level];
    } else if (m->level == level) {
        *known = 1;
        *key = m->table;
    } else {
        *known = 0;
        *key = m->ref[level + 1];
    }
}

static bool scan_eligible(const gmmu_walk_sched *ws, unsigned i, unsigned level)
{
    const gmmu_ws_mshr *m = &ws->m[i];
    return m->valid && !m->done && m->next_scan == level;
}

/* One comparator pass: the lowest-numbered MSHR still in the scan leads; every
 * MSHR whose reference falls in the leader's line joins the group; the
 * group's distinct indices become references in index order, each merged
 * into a live reference with the same (level, table, index) if there is one. */
static void scan_pass_one_group(gmmu_walk_sched *ws)
{
    unsigned level = ws->scan_level;
    int leader = -1;
    for (uint64_t left = ws->scan_mask; left; left &= left - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(left);
        if (scan_eligible(ws, i, level)) {
            leader = (int)i;
            break;
        }
        ws->scan_mask &= ~(1ull << i);
    }
    if (leader < 0)
        return;
    uint8_t lknown;
    uint64_t lkey;
    scan_key(&ws->m[leader], level, &lknown, &lkey);
    unsigned lline = gmmu_va_index(ws->m[leader].va, level) >> 4;
    uint64_t members = 0;
    uint32_t lows = 0;
    for (uint64_t left = ws->scan_mask & (~0ull << leader); left; left &= left - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(left);
        if (!scan_eligible(ws, i, level))
            continue;
        uint8_t kn;
        uint64_t key;
        scan_key(&ws->m[i], level, &kn, &key);
        unsigned idx = gmmu_va_index(ws->m[i].va, level);
        if (kn != lknown || key != lkey || (idx >> 4) != lline)
            continue;
        members |= 1ull << i;
        lows |= 1u << (idx & 15u);
    }
    ws->scan_mask &= ~members;
    ws->st.line_groups++;
    for (unsigned low = 0; low < 16; low++) {
        if (!((lows >> low) & 1u))
            continue;
        unsigned index = (lline << 4) | low;
        uint16_t id = GMMU_WS_NO_SLOT;
        for (unsigned i = busy_next(ws, 0, true); i < ws->nslots; i = busy_next(ws, i + 1, true)) {
            gmmu_ws_slot *s = &ws->s[i];
            if (s->level == level && s->known == lknown &&
                s->key == lkey && s->index == index) {
                id = (uint16_t)i;
                if (s->state == GMMU_WS_SLOT_ORPHAN)
                    s->state = GMMU_WS_SLOT_INFLIGHT;
                break;
            }
        }
        if (id == GMMU_WS_NO_SLOT)
            id = slot_new(ws, level, lknown, lkey, index);
        for (unsigned i = 0; i < ws->cfg.mshrs; i++) {
            if (!((members >> i) & 1u) || gmmu_va_index(ws->m[i].va, level) != index)
                continue;
            ws->m[i].ref[level] = id;
            ws->m[i].next_scan = (uint8_t)(level - 1);
            ws->s[id].refcount++;
        }
    }
}

/* The walks each level's scan would take now (eligible at that level and
 * allocated before this cycle), and how many: one pass over the MSHRs. */
static void scan_waiting(const gmmu_walk_sched *ws, uint64_t *masks, unsigned *ns)
{
    for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++) {
        masks[l] = 0;
        ns[l] = 0;
    }
    for (uint64_t left = ws->valid_mask & ~ws->done_mask; left; left &= left - 1) {
        const unsigned i = (unsigned)__builtin_ctzll(left);
        const gmmu_ws_mshr *m = &ws->m[i];
        if (!m->next_scan || m->next_scan > GMMU_PT_LEVELS)
            continue;
        if (m->alloc_cycle < ws->cycle) {
            masks[m->next_scan] |= 1ull << i;
            ns[m->next_scan]++;
        }
    }
}

static bool scan_has_work(const gmmu_walk_sched *ws)
{
    for (uint64_t left = ws->scan_mask; left; left &= left - 1)
        if (scan_eligible(ws, (unsigned)__builtin_ctzll(left), ws->scan_level))
            return true;
    return false;
}

static void phase_scan(gmmu_walk_sched *ws)
{
    if (!ws->scan_active) {
        uint64_t masks[GMMU_PT_LEVELS + 1];
        unsigned ns[GMMU_PT_LEVELS + 1];
        scan_waiting(ws, masks, ns);
        unsigned level = ws->last_scan_level;
        for (unsigned tries = 0; tries < 4; tries++) {
            level = level == 1 ? 4u : level - 1u;
            const uint64_t mask = masks[level];
            const unsigned n = ns[level];
            if (!mask)
                continue;
            if (n > ws->free_slots)
                return; /* wait for reads to return slots */
            ws->scan_active = 1;
            ws->scan_level = (uint8_t)level;
            ws->scan_mask = mask;
            ws->scan_timer = (uint8_t)ws->cfg.scan_pass_cycles;
            ws->st.scans++;
            break;
        }
        if (!ws->scan_active)
            return;
    }
    ws->st.scan_busy_cycles++;
    if (--ws->scan_timer)
        return;
    ws->st.scan_passes++;
    if (ws->cfg.variant == GMMU_WS_PAIRWISE) {
        while (scan_has_work(ws))
            scan_pass_one_group(ws);
    } else {
        scan_pass_one_group(ws);
    }
    if (scan_has_work(ws)) {
        ws->scan_timer = (uint8_t)ws->cfg.scan_pass_cycles;
    } else {
        ws->scan_active = 0;
        ws->scan_mask = 0;
        ws->last_scan_level = ws->scan_level;
    }
}

static void phase_dispatch_serial(gmmu_walk_sched *ws)
{
    for (unsigned w = 0; w < ws->cfg.walkers; w++) {
        if (ws->walker_mshr[w] != NO_WALKER)
            continue;
        int pick = -1;
        for (unsigned i = 0; i < ws->cfg.mshrs; i++) {
            const gmmu_ws_mshr *m = &ws->m[i];
            if (m->valid && !m->done && m->next_scan && m->alloc_cycle < ws->cycle &&
                (pick < 0 || m->seq < ws->m[pick].seq))
                pick = (int)i;
        }
        if (pick < 0)
            return;
        gmmu_ws_mshr *m = &ws->m[pick];
        m->next_scan = 0;
        m->walker = (uint16_t)w;
        ws->walker_mshr[w] = (uint8_t)pick;
        serial_next_read(ws, m);
    }
}

static void phase_alloc(gmmu_walk_sched *ws, const gmmu_ws_in *in, uint64_t free_mask,
                        gmmu_ws_out *out)
{
    for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
        const gmmu_ws_alloc *a = &in->alloc[k];
        if (!a->valid)
            continue;
        if (!free_mask) {
            ws->st.alloc_rejects++;
            continue;
        }
        unsigned id = 0;
        while (!((free_mask >> id) & 1u))
            id++;
        free_mask &= ~(1ull << id);
        gmmu_ws_mshr *m = &ws->m[id];
        zero_bytes(m, sizeof *m);
        m->valid = 1;
        ws->valid_mask |= 1ull << id;
        m->va = a->va;
        m->access = a->access;
        m->start_level = a->start_level;
        m->level = a->start_level;
        m->table = a->table_base;
        m->tb[a->start_level] = a->table_base;
        for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
            m->ref[l] = GMMU_WS_NO_SLOT;
        m->next_scan = a->start_level;
        m->seq = ws->alloc_seq++;
        m->alloc_cycle = ws->cycle;
        m->walker = NO_WALKER16;
        if (!gmmu_va_canonical(a->va)) {
            /* as gmmu_walk_from: no read, fault at the start level, no tables */
            memset(m->tb, 0, sizeof m->tb);
            m->fault = GMMU_FAULT_NONCANONICAL;
            m->fault_level = a->start_level;
            m->done = 1;
            ws->done_mask |= 1ull << id;
            m->next_scan = 0;
        }
        out->alloc_accepted[k] = 1;
        out->alloc_mshr[k] = (uint8_t)id;
        ws->st.allocs++;
    }
}

static bool alloc_ok(const gmmu_ws_alloc *a)
{
    return a->start_level >= 1 && a->start_level <= 4 && !(a->table_base & 0xFFFull) &&
           !(a->table_base & ~GMMU_PTE_ADDR_MASK) &&
           !(a->access & ~(unsigned)(GMMU_ACC_WRITE | GMMU_ACC_USER));
}

gmmu_status gmmu_walk_sched_step(gmmu_walk_sched *ws, const gmmu_ws_in *in, gmmu_ws_out *out)
{
    if (!ws || !in || !out)
        return GMMU_EINVAL;
    for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++)
        if (in->alloc[k].valid && !alloc_ok(&in->alloc[k]))
            return GMMU_EINVAL;
    if (in->resp.valid &&
        (in->resp.tag >= ws->nslots || (ws->s[in->resp.tag].state != GMMU_WS_SLOT_INFLIGHT &&
                                        ws->s[in->resp.tag].state != GMMU_WS_SLOT_ORPHAN)))
        return GMMU_EINVAL;
    zero_bytes(out, sizeof *out);
    const uint64_t all = ws->cfg.mshrs == 64 ? ~0ull : (1ull << ws->cfg.mshrs) - 1;
    const uint64_t free_mask = ~ws->valid_mask & all;

    if (in->resp.valid)
        phase_response(ws, &in->resp);
    phase_retire(ws, out);
    phase_issue(ws, in->mem_ready != 0, out);
    if (ws->cfg.variant == GMMU_WS_SERIAL)
        phase_dispatch_serial(ws);
    else
        phase_scan(ws);
    phase_alloc(ws, in, free_mask, out);
    ws->cycle++;
    ws->st.cycles++;
    return GMMU_OK;
}

/* ---- run loop -------------------------------------------------------------------- */

bool gmmu_walk_sched_quiescent(const gmmu_walk_sched *ws)
{
    if (!ws || ws->scan_active)
        return false;
    for (unsigned i = queued_next(ws, 0); i < ws->nslots; i = queued_next(ws, i + 1))
        if (ws->s[i].known)
            return false;
    bool idle_walker = false;
    for (unsigned w = 0; w < ws->cfg.walkers; w++)
        idle_walker |= ws->walker_mshr[w] == NO_WALKER;
    if (ws->done_mask)
        return false;
    for (uint64_t left = ws->valid_mask; left; left &= left - 1)
        if (ws->m[__builtin_ctzll(left)].next_scan && (ws->cfg.variant != GMMU_WS_SERIAL || idle_walker))
            return false;
    return true;
}

static gmmu_status c_dev_step(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out)
{
    return gmmu_walk_sched_step((gmmu_walk_sched *)ctx, in, out);
}

static bool c_dev_quiescent(void *ctx) { return gmmu_walk_sched_quiescent((gmmu_walk_sched *)ctx); }

static void c_dev_skip(void *ctx, uint64_t cycles)
{
    gmmu_walk_sched *ws = (gmmu_walk_sched *)ctx;
    ws->cycle += cycles;
    ws->st.cycles += cycles;
}

void gmmu_walk_sched_device(gmmu_walk_sched *ws, gmmu_ws_device *dev)
{
    if (!dev)
        return;
    memset(dev, 0, sizeof *dev);
    dev->step = &c_dev_step;
    dev->quiescent = &c_dev_quiescent;
    dev->skip = &c_dev_skip;
    dev->ctx = ws;
    dev->mshrs = ws ? ws->cfg.mshrs : 0;
}

typedef struct pending_resp {
    uint64_t arrive, order, data, pa;
    uint16_t tag;
    uint8_t level;
} pending_resp;

/* What the run loop follows of each MSHR's walk to learn the entries it
 * consumes (gmmu_ws_result.level_pte) from the responses alone. */
typedef struct walk_follow {
    uint64_t va, table; /* the table of `level`, once known */
    uint8_t level;      /* level whose entry it waits for; 0: ended */
    uint8_t access;
    gmmu_walk_perm perm; /* a permission denial carried to the leaf */
} walk_follow;

/* A response (pa, level, data) reached the device: every live walk waiting at
 * `level` for the entry at pa takes it. The read a walk consumes carries the
 * entry at that address whichever slot issued it (memory does not change
 * during a run), so following the addresses gives the walk's entries. */
static void follow_response(walk_follow *f, uint64_t live, unsigned nmshr, gmmu_ws_result *results,
                            const unsigned *owner, uint64_t pa, unsigned level, uint64_t data)
{
    for (unsigned i = 0; i < nmshr; i++) {
        walk_follow *w = &f[i];
        if (!((live >> i) & 1u) || w->level != level ||
            w->table + 8ull * gmmu_va_index(w->va, level) != pa)
            continue;
        results[owner[i]].level_pte[level] = data;
        gmmu_walk_step_out o;
        gmmu_walk_step(data, level, w->access, &w->perm, &o);
        w->level = o.leaf ? 0 : (uint8_t)(level - 1);
        w->table = o.next_table;
    }
}

/* Keep the entries of the levels the walk read: start level down to its
 * leaf or faulting entry, nreads levels (gmmu_walk_from's level_pte; a walk
 * denied above its leaf read down to the leaf). */
static void follow_trim(gmmu_ws_result *r, unsigned start_level)
{
    const unsigned last = r->fault == GMMU_FAULT_NONCANONICAL || r->nreads > start_level
                              ? GMMU_PT_LEVELS + 1 /* nothing read */
                              : start_level + 1u - r->nreads;
    for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
        if (l > start_level || l < last)
            r->level_pte[l] = 0;
}

gmmu_status gmmu_ws_run_device(const gmmu_ws_device *dev, gmmu_line_cache *lc,
                               const gmmu_ws_alloc *allocs, unsigned n, gmmu_ws_mem_fn mem,
                               void *mem_ctx, gmmu_ws_result *results, uint64_t *cycles_out,
                               gmmu_ws_run_stats *st)
{
    if (!dev || !dev->step || dev->mshrs < 1 || dev->mshrs > GMMU_WS_MAX_MSHRS)
        return GMMU_EINVAL;
    if (n && (!allocs || !results || !mem))
        return GMMU_EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (!alloc_ok(&allocs[i]))
            return GMMU_EINVAL;
    gmmu_ws_run_stats own;
    if (!st) {
        memset(&own, 0, sizeof own);
        st = &own;
    }
    pending_resp pend[GMMU_WS_MAX_SLOTS];
    unsigned npend = 0;
    uint64_t order = 0;
    unsigned owner[GMMU_WS_MAX_MSHRS] = {0};
    walk_follow follow[GMMU_WS_MAX_MSHRS];
    uint64_t live = 0;  /* MSHRs whose walk is followed */
    unsigned busy = 0;  /* MSHRs taken and not yet reported done */
    uint64_t cyc = 0;   /* cycles since the run's start */
    uint64_t last_done = 0;
    unsigned next = 0, completed = 0;
    while (completed < n) {
        gmmu_ws_in in;
        gmmu_ws_out out;
        zero_bytes(&in, sizeof in);
        unsigned offer = dev->mshrs - busy;
        if (offer > GMMU_WS_ALLOC_MAX)
            offer = GMMU_WS_ALLOC_MAX;
        if (offer > n - next)
            offer = n - next;
        for (unsigned k = 0; k < offer; k++) {
            in.alloc[k] = allocs[next + k];
            in.alloc[k].valid = 1;
        }
        int pick = -1;
        pending_resp given;
        memset(&given, 0, sizeof given);
        for (unsigned p = 0; p < npend; p++) {
            if (pend[p].arrive > cyc)
                continue;
            if (pick < 0 || pend[p].arrive < pend[pick].arrive ||
                (pend[p].arrive == pend[pick].arrive && pend[p].order < pend[pick].order))
                pick = (int)p;
        }
        if (pick >= 0) {
            in.resp.valid = 1;
            in.resp.tag = pend[pick].tag;
            in.resp.data = pend[pick].data;
            given = pend[pick];
            pend[pick] = pend[--npend];
        }
        in.mem_ready = 1;
        const uint64_t now = cyc;
        const uint64_t clock = st->cycles; /* the line cache's time base */
        gmmu_status s = dev->step(dev->ctx, &in, &out);
        if (s != GMMU_OK)
            return s;
        cyc++;
        st->cycles++;
        if (in.resp.valid)
            follow_response(follow, live, dev->mshrs, results, owner, given.pa, given.level,
                            given.data);
        for (unsigned k = 0; k < offer; k++) {
            if (!out.alloc_accepted[k])
                continue;
            if (out.alloc_mshr[k] >= dev->mshrs)
                return GMMU_EINVAL;
            const unsigned id = out.alloc_mshr[k];
            owner[id] = next;
            follow[id].va = allocs[next].va;
            follow[id].table = allocs[next].table_base;
            follow[id].level = gmmu_va_canonical(allocs[next].va) ? allocs[next].start_level : 0;
            follow[id].access = allocs[next].access;
            gmmu_walk_perm_init(&follow[id].perm);
            live |= 1ull << id;
            memset(results[next].level_pte, 0, sizeof results[next].level_pte);
            results[next].alloc_cycle = now;
            next++;
            busy++;
            st->allocs++;
        }
        if (out.req.valid) {
            uint64_t data = 0;
            uint32_t lat = 1;
            if (npend >= GMMU_WS_MAX_SLOTS)
                return GMMU_EINVAL;
            if (mem(mem_ctx, out.req.pa, &data, &lat) != GMMU_OK)
                return GMMU_EMEM;
            if (lat < 1)
                lat = 1;
            if (lc) {
                uint32_t l2 = lat;
                if (gmmu_line_cache_access(lc, out.req.pa, clock, lat, &l2, NULL) != GMMU_OK)
                    return GMMU_EINVAL;
                lat = l2;
            }
            pend[npend].arrive = now + lat;
            pend[npend].order = order++;
            pend[npend].data = data;
            pend[npend].tag = out.req.tag;
            pend[npend].pa = out.req.pa;
            pend[npend].level = out.req.level;
            npend++;
            st->refs_issued++;
            if (st->have_last && (out.req.pa >> 7) == st->last_line)
                st->same_line_back_to_back++;
            st->have_last = 1;
            st->last_line = out.req.pa >> 7;
            if (npend > st->max_inflight)
                st->max_inflight = npend;
        }
        for (unsigned d = 0; d < out.n_done && d < GMMU_WS_RETIRE_MAX; d++) {
            const gmmu_ws_done *dn = &out.done[d];
            if (dn->mshr >= dev->mshrs || !busy)
                return GMMU_EINVAL;
            gmmu_ws_result *r = &results[owner[dn->mshr]];
            r->va = dn->va;
            r->pa = dn->pa;
            r->pte = dn->pte;
            memcpy(r->table_base, dn->table_base, sizeof r->table_base);
            r->done_cycle = now;
            r->fault = (gmmu_fault)dn->fault;
            r->fault_level = dn->fault_level;
            r->page_shift = dn->page_shift;
            r->nreads = dn->nreads;
            r->mshr = dn->mshr;
            follow_trim(r, allocs[owner[dn->mshr]].start_level);
            live &= ~(1ull << dn->mshr);
            completed++;
            busy--;
            last_done = now;
            st->walks++;
            st->faults += dn->fault != GMMU_FAULT_NONE;
            st->refs_walked += dn->nreads;
        }
        /* Skip cycles in which nothing can happen (same result as stepping them). */
        bool stalled = completed < n && (next == n || busy == dev->mshrs) && dev->quiescent &&
                       dev->quiescent(dev->ctx);
        if (stalled && !npend)
            return GMMU_EBUSY; /* no read in flight and nothing can move: cannot happen */
        if (stalled) {
            uint64_t t = pend[0].arrive;
            for (unsigned p = 1; p < npend; p++)
                if (pend[p].arrive < t)
                    t = pend[p].arrive;
            if (t > cyc) {
                if (dev->skip)
                    dev->skip(dev->ctx, t - cyc);
                st->cycles += t - cyc;
                cyc = t;
            }
        }
    }
    if (cycles_out)
        *cycles_out = n ? last_done + 1 : 0;
    st->runs++;
    return GMMU_OK;
}

gmmu_status gmmu_walk_sched_run(gmmu_walk_sched *ws, const gmmu_ws_alloc *allocs, unsigned n,
                                gmmu_ws_mem_fn mem, void *mem_ctx, gmmu_ws_result *results,
                                uint64_t *cycles_out)
{
    if (!ws)
        return GMMU_EINVAL;
    if (n && (!allocs || !results || !mem))
        return GMMU_EINVAL;
    if (!gmmu_walk_sched_idle(ws))
        return GMMU_EBUSY;
    gmmu_ws_device dev;
    gmmu_walk_sched_device(ws, &dev);
    gmmu_ws_run_stats st;
    memset(&st, 0, sizeof st);
    st.cycles = ws->cycle; /* the line cache keeps seeing the model's cycle */
    return gmmu_ws_run_device(&dev, ws->lc, allocs, n, mem, mem_ctx, results, cycles_out, &st);
}

gmmu_status gmmu_walk_sched_create(const gmmu_ws_config *cfg, gmmu_walk_sched **out,
                                   gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "ws", "output pointer is NULL");
    *out = NULL;
    gmmu_walk_sched *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = walk_sched_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        /* nothing allocated yet */
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_walk_sched_destroy(gmmu_walk_sched *x)
{
    if (!x)
        return;
    free(x);
}
