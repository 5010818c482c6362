/* gmmu — issue/commit SM: blocks taking and leaving slots, context save and
 * restore, warp progress and block switching. */

#include "sm_issue_internal.h"

static uint64_t ctx_cycles(const gmmu_sm *sm, const block_t *b)
{
    const struct gmmu_sm_state *s = sm->s;
    uint64_t bytes = (uint64_t)s->wpb * s->nregs * LANES * 8u + sm->kernel->shared_bytes;
    /* Reconvergence entries beyond the bottom one (the warp's own pc, which
     * the context size has never counted): pc, rpc and mask, 12 bytes each. */
    for (uint32_t w = 0; w < s->wpb; w++)
        if (b->w[w].simt.n > 1)
            bytes += (uint64_t)(b->w[w].simt.n - 1u) * 12u;
    /* Compaction: the block-wide entries beyond the bottom one (pc, rpc and
     * a 32-bit mask per warp) and the dynamic warps' thread map (a byte per
     * lane). */
    if (b->tbc)
        bytes += (uint64_t)(b->tbc->n > 1 ? b->tbc->n - 1u : 0u) * (8u + 4u * s->wpb) +
                 (uint64_t)s->wpb * LANES;
    if (s->has_log)
        bytes += gmmu_oplog_partition_bytes(s->log);
    if (sm->cfg.scheme == GMMU_SCHEME_REPLAY_QUEUE || sm->cfg.scheme == GMMU_SCHEME_OPLOG)
        for (uint32_t w = 0; w < s->wpb; w++)
            bytes += (uint64_t)b->w[w].rq.n * sm->cfg.rq_entry_bytes;
    return sm->cfg.ctx_fixed_cycles + (bytes + sm->cfg.ctx_bytes_per_cycle - 1) / sm->cfg.ctx_bytes_per_cycle;
}

static void update_owned_peaks(gmmu_sm *sm)
{
    struct gmmu_sm_state *s = sm->s;
    uint32_t owned = 0, off = 0;
    for (uint32_t c = 0; c < s->nctx; c++) {
        if (s->blk[c].state != B_FREE)
            owned++;
        if (s->blk[c].state == B_OFFCHIP)
            off++;
    }
    s->owned = owned;
    uint32_t extra = owned > s->nslots ? owned - s->nslots : 0;
    if (extra > sm->st.peak_extra_blocks)
        sm->st.peak_extra_blocks = extra;
    if (off > sm->st.peak_offchip)
        sm->st.peak_offchip = off;
}

static void block_init(gmmu_sm *sm, uint32_t c, uint32_t id)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    b->id = id;
    b->age = s->arrivals++;
    b->reserved = false;
    b->warps_done = 0;
    b->ready = 0;
    b->successor = NONE;
    b->olctx.nused = 0;
    for (uint32_t wi = 0; wi < s->wpb; wi++) {
        warp_t *w = &b->w[wi];
        gmmu_simt_reset(&w->simt, 0xFFFFFFFFu, sm->kernel->ninsns);
        w->branch_until = 0;
        w->ninflight = 0;
        w->wd_hold = 0;
        w->fault_ready = 0;
        w->state = W_RUN;
        w->idle = 0;
        w->arrived = 0;
        w->at_bar = 0;
        gmmu_rq_init_into(&w->rq, sm->cfg.replay_queue_entries, NULL);
        memset(w->pend_w, 0, s->nregs);
        memset(w->pend_r, 0, s->nregs * sizeof *w->pend_r);
        memset(w->regs, 0, (size_t)s->nregs * LANES * sizeof *w->regs);
        for (uint32_t l = 0; l < LANES; l++) {
            reg(w, 0)[l] = ((uint64_t)id * s->wpb + wi) * LANES + l;
            reg(w, 1)[l] = id;
            reg(w, 2)[l] = wi;
            reg(w, 3)[l] = l;
        }
    }
    if (s->shwords)
        memset(b->shm, 0, (size_t)s->shwords * sizeof *b->shm);
    if (b->tbc) {
        gmmu_tbc_reset(b->tbc, s->wpb, sm->kernel->ninsns);
        for (uint32_t wi = 0; wi < s->wpb; wi++)
            memset(b->home + (size_t)wi * LANES, (int)wi, LANES);
        memset(b->taken, 0, s->wpb * sizeof *b->taken);
        b->sync = SYNC_NONE;
        b->regroup = 0;
    }
}

static uint32_t free_ctx(const struct gmmu_sm_state *s)
{
    for (uint32_t c = 0; c < s->nctx; c++)
        if (s->blk[c].state == B_FREE)
            return c;
    return NONE;
}

/* A block takes a slot: its warps start with nothing lost. */
static void lls_reset_slot(struct gmmu_sm_state *s, uint32_t slot)
{
    if (s->lls)
        for (uint32_t wi = 0; wi < s->wpb; wi++)
            gmmu_ccws_reset_warp(s->lls, slot * s->wpb + wi);
}

static void activate_new(gmmu_sm *sm, uint32_t c, uint32_t slot, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    lls_reset_slot(s, slot);
    b->state = B_ACTIVE;
    b->slot = slot;
    s->slot_ctx[slot] = c;
    sm->st.blocks_started++;
    trace(sm, GMMU_SM_TR_BLOCK_START, now, c, 0, 0);
}

static gmmu_status start_restore(gmmu_sm *sm, uint32_t c, uint32_t slot, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    b->state = B_RESTORING;
    b->reserved = false;
    b->slot = slot;
    lls_reset_slot(s, slot);
    s->slot_ctx[slot] = c;
    if (s->has_log) {
        gmmu_status st = gmmu_oplog_restore(s->log, slot, &b->olctx);
        if (st != GMMU_OK)
            return st;
    }
    uint64_t cyc = ctx_cycles(sm, b);
    sm->st.ctx_cycles += cyc;
    sm->st.restores++;
    b->ready = now + cyc;
    trace(sm, GMMU_SM_TR_RESTORE, now, c, 0, 0);
    return ev_push(s, now + cyc, EV_CTX, c, 0);
}

/* An off-chip block whose faults are resolved by now, not yet reserved. */
static uint32_t ready_offchip(const struct gmmu_sm_state *s, uint64_t now)
{
    uint32_t best = NONE;
    for (uint32_t c = 0; c < s->nctx; c++) {
        const block_t *b = &s->blk[c];
        if (b->state == B_OFFCHIP && !b->reserved && b->ready <= now &&
            (best == NONE || b->ready < s->blk[best].ready))
            best = c;
    }
    return best;
}

static gmmu_status take_new_block(gmmu_sm *sm, uint32_t *ctx_out)
{
    struct gmmu_sm_state *s = sm->s;
    *ctx_out = NONE;
    if (s->grid_done)
        return GMMU_OK;
    uint32_t c = free_ctx(s);
    if (c == NONE)
        return GMMU_OK;
    bool got = false;
    uint32_t id = 0;
    gmmu_status st = sm->env.next_block(sm->env.ctx, sm->cfg.sm_id, &got, &id);
    if (st != GMMU_OK)
        return st;
    if (!got) {
        s->grid_done = true;
        return GMMU_OK;
    }
    block_init(sm, c, id);
    s->blk[c].state = B_PENDING;
    *ctx_out = c;
    update_owned_peaks(sm);
    return GMMU_OK;
}

gmmu_status gmmu_smi_fill_slot(gmmu_sm *sm, uint32_t slot, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    if (s->slot_ctx[slot] != NONE)
        return GMMU_OK;
    uint32_t c = ready_offchip(s, now);
    if (c != NONE)
        return start_restore(sm, c, slot, now);
    gmmu_status st = take_new_block(sm, &c);
    if (st != GMMU_OK)
        return st;
    if (c != NONE) {
        activate_new(sm, c, slot, now);
        return GMMU_OK;
    }
    /* Wait for the earliest off-chip block to become ready. */
    uint64_t t = UINT64_MAX;
    for (uint32_t i = 0; i < s->nctx; i++)
        if (s->blk[i].state == B_OFFCHIP && !s->blk[i].reserved && s->blk[i].ready < t)
            t = s->blk[i].ready;
    if (t != UINT64_MAX)
        return ev_push(s, t > now ? t : now + 1, EV_FILL, slot, 0);
    return GMMU_OK;
}

static gmmu_status start_save(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    b->state = B_SAVING;
    if (s->has_log) {
        gmmu_status st = gmmu_oplog_save(s->log, b->slot, &b->olctx);
        if (st != GMMU_OK)
            return st;
    }
    uint64_t cyc = ctx_cycles(sm, b);
    sm->st.ctx_cycles += cyc;
    b->ready = now + cyc;
    return ev_push(s, now + cyc, EV_CTX, c, 0);
}

gmmu_status gmmu_smi_block_finish(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    if (sm->env.block_done) {
        gmmu_status st = sm->env.block_done(sm->env.ctx, sm->cfg.sm_id, b->id, b->w[0].regs, s->wpb,
                                            s->nregs);
        if (st != GMMU_OK)
            return st;
    }
    trace(sm, GMMU_SM_TR_BLOCK_DONE, now, c, 0, 0);
    sm->st.blocks_done++;
    sm->st.end_cycle = now;
    uint32_t slot = b->slot;
    b->state = B_FREE;
    b->slot = NONE;
    s->slot_ctx[slot] = NONE;
    update_owned_peaks(sm);
    return gmmu_smi_fill_slot(sm, slot, now);
}

/* Re-evaluate a warp after its in-flight count or fault state changed. */
gmmu_status gmmu_smi_warp_progress(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    warp_t *w = &b->w[wi];
    if (w->state == W_FAULTED && w->ninflight == 0 && now >= w->fault_ready && b->state == B_ACTIVE)
        w->state = W_RUN;
    if (b->tbc) {
        /* A dynamic warp that reached its entry's reconvergence pc with
         * nothing in flight has arrived; the block decides the rest. */
        if (!w->idle && !w->arrived && w->state == W_RUN && gmmu_simt_done(&w->simt) &&
            w->ninflight == 0 && w->rq.nfaulted == 0) {
            if (b->sync == SYNC_BRANCH)
                return GMMU_EINVAL; /* the block's warps run the same code between syncs */
            w->arrived = 1;
            b->sync = SYNC_RPC;
        }
        gmmu_status st = gmmu_smi_tbc_progress(sm, c, now);
        if (st != GMMU_OK || b->state != B_DRAIN)
            return st;
    } else if (w->state == W_RUN && gmmu_simt_done(&w->simt) && w->ninflight == 0 && w->rq.nfaulted == 0) {
        w->state = W_DONE;
        b->warps_done++;
        if (b->warps_done == s->wpb)
            return gmmu_smi_block_finish(sm, c, now);
        gmmu_smi_bar_release(sm, c); /* an exited warp no longer holds the barrier */
    }
    if (b->state == B_DRAIN) {
        for (uint32_t i = 0; i < s->wpb; i++)
            if (b->w[i].ninflight)
                return GMMU_OK;
        return start_save(sm, c, now);
    }
    return GMMU_OK;
}

gmmu_status gmmu_smi_try_switch_out(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    if (!sm->cfg.block_switch || b->state != B_ACTIVE)
        return GMMU_OK;
    uint32_t succ = ready_offchip(s, now);
    if (succ == NONE && s->owned < s->nctx) {
        gmmu_status st = take_new_block(sm, &succ);
        if (st != GMMU_OK)
            return st;
        if (succ != NONE)
            sm->st.extra_blocks++;
    }
    if (succ == NONE)
        return GMMU_OK;
    s->blk[succ].reserved = true;
    b->state = B_DRAIN;
    b->successor = succ;
    sm->st.switch_outs++;
    trace(sm, GMMU_SM_TR_SWITCH_OUT, now, c, 0, 0);
    for (uint32_t i = 0; i < s->wpb; i++)
        if (b->w[i].ninflight)
            return GMMU_OK;
    return start_save(sm, c, now);
}

gmmu_status gmmu_smi_ev_ctx(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    if (b->state == B_SAVING) {
        uint32_t slot = b->slot;
        b->state = B_OFFCHIP;
        b->slot = NONE;
        s->slot_ctx[slot] = NONE;
        b->ready = 0;
        for (uint32_t i = 0; i < s->wpb; i++)
            if (b->w[i].state == W_FAULTED && b->w[i].fault_ready > b->ready)
                b->ready = b->w[i].fault_ready;
        update_owned_peaks(sm);
        uint32_t succ = b->successor;
        b->successor = NONE;
        if (succ != NONE && s->blk[succ].state == B_PENDING) {
            s->blk[succ].reserved = false;
            activate_new(sm, succ, slot, now);
            return GMMU_OK;
        }
        if (succ != NONE && s->blk[succ].state == B_OFFCHIP)
            return start_restore(sm, succ, slot, now);
        return gmmu_smi_fill_slot(sm, slot, now);
    }
    if (b->state == B_RESTORING) {
        b->state = B_ACTIVE;
        update_owned_peaks(sm);
        for (uint32_t i = 0; i < s->wpb; i++) {
            gmmu_status st = gmmu_smi_warp_progress(sm, c, i, now);
            if (st != GMMU_OK || b->state != B_ACTIVE)
                return st;
        }
    }
    return GMMU_OK;
}

void gmmu_smi_bar_release(gmmu_sm *sm, uint32_t c)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    bool any = false;
    for (uint32_t i = 0; i < s->wpb; i++) {
        if (b->w[i].state == W_DONE || b->w[i].idle) /* exited, or no dynamic warp (compaction) */
            continue;
        if (!b->w[i].at_bar)
            return;
        any = true;
    }
    if (!any)
        return;
    for (uint32_t i = 0; i < s->wpb; i++)
        b->w[i].at_bar = 0;
    sm->st.barriers++;
}
