/* gmmu — issue/commit SM: the issue stage and the public entry points
 * (gmmu/sm_issue.h). The rest: sm_issue_internal.h. */

#include "sm_issue_internal.h"

#include <stdio.h>

/* ---- issue --------------------------------------------------------------- */

enum { TRY_ISSUED, TRY_BLOCKED, TRY_LIMITED, TRY_NONE };

/* A branch left the issue stage: a math slot, the counters, and no further
 * issue from the warp until its operand read (an EV_RESUME then). false:
 * the event queue is full (s->failed is set). */
static bool branch_issued(gmmu_sm *sm, uint32_t c, uint32_t wi, uint32_t pc, uint32_t mask, uint64_t now,
                          uint32_t *unit_left)
{
    struct gmmu_sm_state *s = sm->s;
    warp_t *w = &s->blk[c].w[wi];
    sm->st.branches++;
    unit_left[GMMU_UNIT_MATH]--;
    sm->st.issued++;
    sm->st.issued_by_slot[s->blk[c].slot * s->wpb + wi]++;
    sm->st.committed++;
    sm->st.active_lanes += (uint32_t)__builtin_popcount(mask);
    trace(sm, GMMU_SM_TR_ISSUE, now, c, wi, pc);
    w->branch_until = now + sm->cfg.opread_cycles;
    if (ev_push(s, w->branch_until, EV_RESUME, c, wi) != GMMU_OK) {
        s->failed = GMMU_ENOMEM;
        return false;
    }
    return true;
}

/* A branch: its source has no pending write (checked here), so the register
 * file already holds the lanes' conditions. It resolves at operand read:
 * the warp issues nothing more until then. It takes a math slot and leaves
 * no in-flight instruction behind (nothing to commit, nothing to replay). */
static int issue_branch(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now, uint32_t *unit_left)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    warp_t *w = &b->w[wi];
    uint32_t pc = gmmu_simt_pc(&w->simt), mask = gmmu_simt_mask(&w->simt);
    const gmmu_insn *in = &sm->kernel->code[pc];
    uint32_t taken = mask;
    if (in->op == GMMU_OP_BRNZ) {
        if (w->pend_w[in->src[0]])
            return TRY_BLOCKED;
        uint64_t buf[LANES];
        const uint64_t *a = src_reg(b, wi, in->src[0], buf);
        taken = 0;
        for (uint32_t l = 0; l < LANES; l++)
            if ((mask & (1u << l)) && a[l] != 0)
                taken |= 1u << l;
    }
    if (b->tbc && in->op == GMMU_OP_BRNZ) {
        /* Compaction: a conditional branch is a block-wide synchronisation.
         * The warp's outcome joins the block's; the block decides once all
         * of its dynamic warps have resolved the branch (tbc_progress). */
        if (b->sync != SYNC_NONE && (b->sync != SYNC_BRANCH || b->sync_pc != pc)) {
            s->failed = GMMU_EINVAL;
            return TRY_NONE;
        }
        b->sync = SYNC_BRANCH;
        b->sync_pc = pc;
        for (uint32_t l = 0; l < LANES; l++)
            if (taken & (1u << l))
                b->taken[b->home[(size_t)wi * LANES + l]] |= 1u << l;
        w->arrived = 1;
        return branch_issued(sm, c, wi, pc, mask, now, unit_left) ? TRY_ISSUED : TRY_NONE;
    }
    uint64_t splits = w->simt.splits;
    gmmu_status st = gmmu_simt_branch(&w->simt, taken, (uint32_t)in->imm, s->ipdom[pc]);
    if (st == GMMU_ENOMEM)
        snprintf(s->failure, sizeof s->failure,
                 "block %u warp %u: instruction %u: the warp's reconvergence stack would be deeper "
                 "than %u entries", b->id, wi, pc, GMMU_SIMT_DEPTH);
    if (st != GMMU_OK) {
        s->failed = st;
        return TRY_NONE;
    }
    sm->st.divergent_branches += w->simt.splits - splits;
    if (w->simt.peak > sm->st.simt_peak_depth)
        sm->st.simt_peak_depth = w->simt.peak;
    if (!branch_issued(sm, c, wi, pc, mask, now, unit_left))
        return TRY_NONE;
    /* A warp whose last instruction was a branch to the exit is done now. */
    st = gmmu_smi_warp_progress(sm, c, wi, now);
    if (st != GMMU_OK) {
        s->failed = st;
        return TRY_NONE;
    }
    return TRY_ISSUED;
}

/* A block barrier (docs/simt.md, "Barriers"): the warp must be converged
 * (every lane active; under compaction, the whole block on the stack's top
 * entry: gmmu_tbc_converged). A BAR in divergent code stops the SM with
 * GMMU_EINVAL. It takes a math slot, commits at issue and waits (at_bar)
 * until every warp of the block that has not exited (under compaction:
 * every dynamic warp) has issued a BAR. */
static int issue_bar(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now, uint32_t *unit_left)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    warp_t *w = &b->w[wi];
    uint32_t pc = gmmu_simt_pc(&w->simt), mask = gmmu_simt_mask(&w->simt);
    if (b->tbc ? !gmmu_tbc_converged(b->tbc) : mask != 0xFFFFFFFFu) {
        snprintf(s->failure, sizeof s->failure,
                 "block %u warp %u: instruction %u: bar in divergent code (%s)", b->id, wi, pc,
                 b->tbc ? "under compaction, some of the block's threads wait on another path"
                        : "only some lanes active");
        s->failed = GMMU_EINVAL;
        return TRY_NONE;
    }
    if (gmmu_simt_step(&w->simt) != GMMU_OK) {
        s->failed = GMMU_EINVAL;
        return TRY_NONE;
    }
    unit_left[GMMU_UNIT_MATH]--;
    sm->st.issued++;
    sm->st.issued_by_slot[b->slot * s->wpb + wi]++;
    sm->st.committed++;
    sm->st.active_lanes += LANES;
    trace(sm, GMMU_SM_TR_ISSUE, now, c, wi, pc);
    if (!gmmu_simt_done(&w->simt))
        w->at_bar = 1;
    gmmu_status st = gmmu_smi_warp_progress(sm, c, wi, now); /* a BAR at the end: done */
    if (st != GMMU_OK) {
        s->failed = st;
        return TRY_NONE;
    }
    if (b->state != B_FREE)
        gmmu_smi_bar_release(sm, c);
    return TRY_ISSUED;
}

static int try_issue(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now, uint32_t *unit_left)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    warp_t *w = &b->w[wi];
    if (w->state != W_RUN)
        return TRY_NONE;
    bool replay = w->rq.nfaulted > 0;
    uint32_t rq_pos = 0, pc, mask;
    if (replay) {
        if (gmmu_rq_next_replay(&w->rq, &rq_pos) != GMMU_OK)
            return TRY_NONE;
        pc = w->rq.e[rq_pos].pc;
        mask = w->rq.e[rq_pos].lanes;
    } else {
        if (w->arrived) {
            sm->st.stall_sync++;
            sm->st.held_by_slot[b->slot * s->wpb + wi]++;
            return TRY_NONE;
        }
        if (w->at_bar) {
            sm->st.stall_bar++;
            return TRY_NONE;
        }
        if (w->idle || gmmu_simt_done(&w->simt))
            return TRY_NONE;
        pc = gmmu_simt_pc(&w->simt);
        mask = gmmu_simt_mask(&w->simt);
    }
    if (now < w->branch_until)
        return TRY_BLOCKED;
    const gmmu_insn *in = &sm->kernel->code[pc];
    gmmu_op op = (gmmu_op)in->op;
    const sm_op_info *oi = &s->op[op];
    bool mem = oi->global;
    if (is_wd(sm) && w->wd_hold) {
        sm->st.stall_wd++;
        return TRY_BLOCKED;
    }
    gmmu_unit u = (gmmu_unit)oi->unit;
    if (unit_left[u] == 0)
        return TRY_LIMITED;
    if (oi->branch)
        return issue_branch(sm, c, wi, now, unit_left);
    if (op == GMMU_OP_BAR)
        return issue_bar(sm, c, wi, now, unit_left);
    unsigned nsrc = oi->nsrc;
    bool log_replay = replay && sm->cfg.scheme == GMMU_SCHEME_OPLOG;
    bool rq_replay = replay && sm->cfg.scheme == GMMU_SCHEME_REPLAY_QUEUE;
    if (!log_replay)
        for (unsigned k = 0; k < nsrc; k++)
            if (w->pend_w[in->src[k]])
                return TRY_BLOCKED;
    if (oi->has_dst) {
        uint32_t own = 0;
        if (rq_replay)
            for (unsigned k = 0; k < nsrc; k++)
                own += in->src[k] == in->dst;
        if (w->pend_w[in->dst])
            return TRY_BLOCKED;
        if (w->pend_r[in->dst] > own) {
            sm->st.stall_war++;
            return TRY_BLOCKED;
        }
    }
    if (s->nfree == 0) {
        sm->st.stall_pool_full++;
        return TRY_BLOCKED;
    }
    if (mem && !replay && s->lls && !(s->lls_pool >> (b->slot * s->wpb + wi) & 1u)) {
        sm->st.stall_throttled++;
        sm->st.held_by_slot[b->slot * s->wpb + wi]++;
        return TRY_BLOCKED;
    }
    if (mem && s->ldst_busy >= sm->cfg.ldst_queue) {
        sm->st.stall_ldst_busy++;
        return TRY_BLOCKED;
    }
    uint32_t log_idx[2] = {0, 0};
    uint8_t log_n = 0;
    if (mem && preemptible(sm) && !replay && gmmu_rq_full(&w->rq)) {
        sm->st.stall_rq_full++;
        return TRY_BLOCKED;
    }
    if (mem && sm->cfg.scheme == GMMU_SCHEME_OPLOG) {
        if (replay) {
            log_n = w->rq.e[rq_pos].log_n;
            log_idx[0] = w->rq.e[rq_pos].log_idx[0];
            log_idx[1] = w->rq.e[rq_pos].log_idx[1];
        } else {
            log_n = oi->log_entries;
            if (gmmu_oplog_alloc(s->log, b->slot, log_n, log_idx) != GMMU_OK) {
                sm->st.stall_oplog_full++;
                trace(sm, GMMU_SM_TR_OPLOG_FULL, now, c, wi, pc);
                return TRY_BLOCKED;
            }
        }
    }
    /* Issue. */
    uint32_t i = s->free_head;
    s->free_head = s->pool[i].next_free;
    s->nfree--;
    infl_t *f = &s->pool[i];
    f->used = 1;
    f->ctx = c;
    f->warp = wi;
    f->pc = pc;
    f->mask = mask;
    f->replay = replay;
    f->log_n = log_n;
    f->log_idx[0] = log_idx[0];
    f->log_idx[1] = log_idx[1];
    f->hold_src = 0;
    if (rq_replay && mem) {
        f->hold_src = 1; /* still held since the first issue */
    } else if (!log_replay) {
        for (unsigned k = 0; k < nsrc; k++)
            w->pend_r[in->src[k]]++;
        f->hold_src = 1;
    }
    if (oi->has_dst)
        w->pend_w[in->dst] = 1;
    if (mem && preemptible(sm)) {
        gmmu_status st = replay ? gmmu_rq_replay(&w->rq, rq_pos, i)
                                : gmmu_rq_push(&w->rq, pc, mask, i, log_n, log_idx);
        if (st != GMMU_OK)
            return TRY_NONE;
    }
    if (mem && is_wd(sm))
        w->wd_hold++;
    if (mem)
        s->ldst_busy++;
    if (!replay && gmmu_simt_step(&w->simt) != GMMU_OK)
        return TRY_NONE;
    w->ninflight++;
    unit_left[u]--;
    sm->st.issued++;
    sm->st.issued_by_slot[b->slot * s->wpb + wi]++;
    if (replay)
        sm->st.replayed++;
    else
        sm->st.active_lanes += (uint32_t)__builtin_popcount(mask);
    trace(sm, replay ? GMMU_SM_TR_REPLAY_ISSUE : GMMU_SM_TR_ISSUE, now, c, wi, pc);
    if (ev_push(s, now + sm->cfg.opread_cycles, EV_OPREAD, i, 0) != GMMU_OK)
        return TRY_NONE;
    return TRY_ISSUED;
}

/* ---- public -------------------------------------------------------------- */

static void sm_release(gmmu_sm *x);

static gmmu_status sm_init_into(gmmu_sm *sm, const gmmu_sm_config *cfg, const gmmu_sm_env *env,
                         gmmu_error *err)
{
    if (!sm)
        return gmmu_error_set(err, "sm", "SM pointer is NULL");
    gmmu_status st = gmmu_sm_config_check(cfg, err);
    if (st != GMMU_OK)
        return st;
    if (!env || !env->translate || !env->read64 || !env->write64 || !env->next_block)
        return gmmu_error_set(err, "env", "translate, read64, write64 and next_block are required");
    memset(sm, 0, sizeof *sm);
    sm->cfg = *cfg;
    sm->env = *env;
    if (cfg->access_shape)
        return gmmu_footprint_create(&sm->foot, err);
    return GMMU_OK;
}

static void free_state(struct gmmu_sm_state *s)
{
    if (!s)
        return;
    free(s->blk);
    free(s->slot_ctx);
    free(s->warps);
    free(s->regs);
    free(s->shmem);
    free(s->pend_w);
    free(s->pend_r);
    free(s->olbuf);
    free(s->olused);
    free(s->pool);
    free(s->heap);
    free(s->ipdom);
    free(s->order);
    free(s->g_slot);
    free(s->g_warp);
    gmmu_ccws_destroy(s->lls);
    free(s->tbcs);
    free(s->homes);
    free(s->takens);
    gmmu_cpm_destroy(s->cpm);
    if (s->has_log)
        gmmu_oplog_destroy(s->log);
    free(s);
}

static void sm_release(gmmu_sm *sm)
{
    if (!sm)
        return;
    free_state(sm->s);
    sm->s = NULL;
    gmmu_footprint_destroy(sm->foot);
    sm->foot = NULL;
}

static gmmu_status sm_launch(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, bool keep_stats,
                             gmmu_error *err);

gmmu_status gmmu_sm_launch(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, gmmu_error *err)
{
    return sm_launch(sm, k, now, false, err);
}

gmmu_status gmmu_sm_launch_next(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, gmmu_error *err)
{
    if (sm && sm->s && !gmmu_sm_done(sm))
        return gmmu_error_set(err, "kernel", "the SM's launch has not finished");
    if (sm && now < sm->st.end_cycle)
        return gmmu_error_set(err, "kernel", "launch at cycle %llu, before the previous one ended (%llu)",
                              (unsigned long long)now, (unsigned long long)sm->st.end_cycle);
    return sm_launch(sm, k, now, true, err);
}

static gmmu_status sm_launch(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, bool keep_stats,
                             gmmu_error *err)
{
    if (!sm || !sm->env.translate)
        return gmmu_error_set(err, "sm", "SM is not initialised");
    gmmu_status st = gmmu_kernel_check(k, err);
    if (st != GMMU_OK)
        return st;
    uint32_t occ = gmmu_sm_occupancy(&sm->cfg, k);
    if (occ == 0)
        return gmmu_error_set(err, "kernel", "kernel '%s' does not fit one block on the SM "
                              "(%u regs x %u warps, %u B shared)", k->name, k->nregs,
                              k->warps_per_block, k->shared_bytes);
    free_state(sm->s);
    sm->s = NULL;
    if (!keep_stats) {
        memset(&sm->st, 0, sizeof sm->st);
        gmmu_footprint_clear(sm->foot);
    }
    struct gmmu_sm_state *s = calloc(1, sizeof *s);
    if (!s)
        return GMMU_ENOMEM;
    sm->s = s;
    sm->kernel = k;
    s->nslots = occ;
    s->nctx = occ + (sm->cfg.block_switch ? sm->cfg.max_extra_blocks : 0);
    s->wpb = k->warps_per_block;
    s->nregs = k->nregs;
    if (sm->cfg.scheme == GMMU_SCHEME_OPLOG) {
        gmmu_oplog_config oc = {sm->cfg.oplog_bytes, occ};
        st = gmmu_oplog_create(&oc, &s->log, err);
        if (st != GMMU_OK) {
            free_state(s);
            sm->s = NULL;
            return st;
        }
        s->has_log = true;
    }
    size_t nw = (size_t)s->nctx * s->wpb;
    uint32_t per = s->has_log ? gmmu_oplog_partition_entries(s->log) : 0;
    s->blk = calloc(s->nctx, sizeof *s->blk);
    s->slot_ctx = malloc(s->nslots * sizeof *s->slot_ctx);
    s->warps = calloc(nw, sizeof *s->warps);
    s->regs = calloc(nw * s->nregs * LANES, sizeof *s->regs);
    s->shwords = k->shared_bytes / 8u;
    s->shmem = calloc((size_t)s->nctx * s->shwords + 1, sizeof *s->shmem);
    s->pend_w = calloc(nw * s->nregs, 1);
    s->pend_r = calloc(nw * s->nregs, sizeof *s->pend_r);
    s->olbuf = calloc((size_t)s->nctx * per * LANES + 1, sizeof *s->olbuf);
    s->olused = calloc((size_t)s->nctx * per + 1, 1);
    s->pool = calloc(sm->cfg.inflight_max, sizeof *s->pool);
    s->cap_heap = sm->cfg.inflight_max * 2u + (uint32_t)nw * (GMMU_RQ_MAX + 3u) + 4u * s->nctx + 64u;
    s->heap = calloc(s->cap_heap, sizeof *s->heap);
    s->ipdom = malloc(k->ninsns * sizeof *s->ipdom);
    s->order = malloc((size_t)s->nslots * s->wpb * sizeof *s->order + 1);
    s->g_slot = malloc((size_t)s->nslots * s->wpb * sizeof *s->g_slot + 1);
    s->g_warp = malloc((size_t)s->nslots * s->wpb * sizeof *s->g_warp + 1);
    s->last_ctx = NONE;
    s->last_warp = NONE;
    if (!s->blk || !s->slot_ctx || !s->warps || !s->regs || !s->shmem || !s->pend_w || !s->pend_r || !s->olbuf ||
        !s->olused || !s->pool || !s->heap || !s->ipdom || !s->order || !s->g_slot || !s->g_warp) {
        free_state(s);
        sm->s = NULL;
        return GMMU_ENOMEM;
    }
    for (unsigned o = 0; o < GMMU_OP_COUNT; o++) {
        const gmmu_op op = (gmmu_op)o;
        sm_op_info *oi = &s->op[o];
        oi->global = gmmu_op_is_global(op);
        oi->shared = gmmu_op_is_shared(op);
        oi->branch = gmmu_op_is_branch(op);
        oi->has_dst = gmmu_op_has_dst(op);
        oi->nsrc = (uint8_t)gmmu_op_nsrc(op);
        oi->unit = (uint8_t)gmmu_op_unit(op);
        oi->log_entries = (uint8_t)gmmu_op_log_entries(op);
    }
    for (uint32_t g = 0; g < s->nslots * s->wpb; g++) {
        s->g_slot[g] = g / s->wpb;
        s->g_warp[g] = g % s->wpb;
    }
    for (uint32_t c = 0; c < s->nctx; c++) {
        block_t *b = &s->blk[c];
        b->state = B_FREE;
        b->slot = NONE;
        b->successor = NONE;
        b->w = s->warps + (size_t)c * s->wpb;
        b->shm = s->shmem + (size_t)c * s->shwords;
        b->olctx.data = s->olbuf + (size_t)c * per * LANES;
        b->olctx.used = s->olused + (size_t)c * per;
        for (uint32_t wi = 0; wi < s->wpb; wi++) {
            size_t g = (size_t)c * s->wpb + wi;
            b->w[wi].regs = s->regs + g * s->nregs * LANES;
            b->w[wi].pend_w = s->pend_w + g * s->nregs;
            b->w[wi].pend_r = s->pend_r + g * s->nregs;
        }
    }
    st = gmmu_kernel_ipdom(k, s->ipdom, err);
    if (st == GMMU_OK && sm->cfg.compaction != GMMU_COMPACT_NONE) {
        if (s->wpb > GMMU_TBC_MAX_WARPS) {
            st = gmmu_error_set(err, "compaction",
                                "kernel '%.32s' has %u warps per block; compaction handles at most %u",
                                k->name, s->wpb, GMMU_TBC_MAX_WARPS);
        } else {
            s->tbcs = calloc(s->nctx, sizeof *s->tbcs);
            s->homes = calloc(nw * LANES, 1);
            s->takens = calloc(nw, sizeof *s->takens);
            st = s->tbcs && s->homes && s->takens ? GMMU_OK : GMMU_ENOMEM;
            for (uint32_t c = 0; st == GMMU_OK && c < s->nctx; c++) {
                s->blk[c].tbc = &s->tbcs[c];
                s->blk[c].home = s->homes + (size_t)c * s->wpb * LANES;
                s->blk[c].taken = s->takens + (size_t)c * s->wpb;
            }
        }
        if (st == GMMU_OK && sm->cfg.compaction == GMMU_COMPACT_TLB_TBC) {
            gmmu_cpm_config pc = sm->cfg.cpm;
            pc.warps = s->nslots * s->wpb;
            st = gmmu_cpm_create(&pc, &s->cpm, err);
        }
    }
    if (st == GMMU_OK && sm->cfg.throttle != GMMU_THROTTLE_NONE) {
        gmmu_ccws_config cc = sm->cfg.ccws;
        cc.warps = s->nslots * s->wpb;
        if (cc.warps > GMMU_CCWS_MAX_WARPS) {
            st = gmmu_error_set(err, "throttle",
                                "kernel '%.32s' has %u resident warps; the throttle tracks at most %u",
                                k->name, cc.warps, GMMU_CCWS_MAX_WARPS);
        } else {
            st = gmmu_ccws_create(&cc, &s->lls, err);
        }
        s->lls_tick = now;
    }
    if (st != GMMU_OK) {
        free_state(s);
        sm->s = NULL;
        return st;
    }
    for (uint32_t i = 0; i < sm->cfg.inflight_max; i++)
        s->pool[i].next_free = i + 1 < sm->cfg.inflight_max ? i + 1 : NONE;
    s->free_head = 0;
    s->nfree = sm->cfg.inflight_max;
    s->now = now;
    s->next = now;
    sm->st.resident_blocks = occ;
    sm->st.oplog_partition_bytes = s->has_log ? gmmu_oplog_partition_bytes(s->log) : 0;
    sm->st.end_cycle = now;
    for (uint32_t slot = 0; slot < s->nslots; slot++)
        s->slot_ctx[slot] = NONE;
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        st = gmmu_smi_fill_slot(sm, slot, now);
        if (st != GMMU_OK)
            return st;
    }
    return GMMU_OK;
}

/* GTO: the warp that issued last (if still on chip and running) first, then
 * (OLDEST: only)
 * every other warp of the active blocks by age: older block first, lower
 * warp index first within a block. NONE ends the list. */
static void gto_order(gmmu_sm *sm, uint32_t total)
{
    const bool greedy_first = sm->cfg.order == GMMU_ORDER_GTO;
    struct gmmu_sm_state *s = sm->s;
    uint32_t n = 0, greedy = NONE;
    for (uint32_t g = 0; g < total; g++) {
        uint32_t c = s->slot_ctx[s->g_slot[g]];
        if (c == NONE || s->blk[c].state != B_ACTIVE)
            continue;
        if (greedy_first && c == s->last_ctx && s->g_warp[g] == s->last_warp) {
            greedy = g;
            continue;
        }
        /* insertion by (block age, warp) */
        uint64_t key = s->blk[c].age * s->wpb + s->g_warp[g];
        uint32_t i = n++;
        while (i > 0) {
            uint32_t p = s->order[i - 1];
            uint32_t pc = s->slot_ctx[s->g_slot[p]];
            if (s->blk[pc].age * s->wpb + s->g_warp[p] <= key)
                break;
            s->order[i] = p;
            i--;
        }
        s->order[i] = g;
    }
    if (greedy != NONE) {
        memmove(s->order + 1, s->order, n * sizeof *s->order);
        s->order[0] = greedy;
        n++;
    }
    if (n < total)
        s->order[n] = NONE;
}

bool gmmu_sm_done(const gmmu_sm *sm)
{
    if (!sm || !sm->s)
        return true;
    const struct gmmu_sm_state *s = sm->s;
    if (!s->grid_done)
        return false;
    for (uint32_t c = 0; c < s->nctx; c++)
        if (s->blk[c].state != B_FREE)
            return false;
    return true;
}

const char *gmmu_sm_failure(const gmmu_sm *sm)
{
    return sm && sm->s ? sm->s->failure : "";
}

uint64_t gmmu_sm_next_cycle(const gmmu_sm *sm)
{
    if (!sm || !sm->s || gmmu_sm_done(sm))
        return UINT64_MAX;
    return sm->s->next;
}

gmmu_status gmmu_sm_step(gmmu_sm *sm, uint64_t now)
{
    if (!sm || !sm->s || !sm->kernel)
        return GMMU_EINVAL;
    struct gmmu_sm_state *s = sm->s;
    if (now < s->now)
        return GMMU_EINVAL;
    s->now = now;
    gmmu_status est = gmmu_smi_events_until(sm, now);
    if (est != GMMU_OK)
        return est;
    if (now < s->issue_free) {
        /* The issue stage is still held by an earlier cycle's instructions. */
        s->next = s->nheap && s->heap[0].t < s->issue_free ? s->heap[0].t : s->issue_free;
        return GMMU_OK;
    }
    /* Issue, in the order of cfg.order over the warps of the active blocks. */
    uint32_t unit_left[GMMU_UNIT_COUNT] = {sm->cfg.math_per_cycle, sm->cfg.sfu_per_cycle,
                                           sm->cfg.ldst_per_cycle};
    uint32_t slots = sm->cfg.issue_width;
    uint32_t total = s->nslots * s->wpb;
    bool again = false;
    const bool by_age = sm->cfg.order != GMMU_ORDER_LRR;
    if (by_age)
        gto_order(sm, total);
    if (s->lls) {
        gmmu_ccws_tick(s->lls, now - s->lls_tick);
        s->lls_tick = now;
        uint64_t active = 0;
        for (uint32_t g = 0; g < total; g++) {
            uint32_t c = s->slot_ctx[s->g_slot[g]];
            if (c != NONE && s->blk[c].state == B_ACTIVE && s->blk[c].w[s->g_warp[g]].state == W_RUN &&
                !gmmu_simt_done(&s->blk[c].w[s->g_warp[g]].simt))
                active |= 1ull << g;
        }
        s->lls_pool = gmmu_ccws_pool(s->lls, active);
    }
    uint32_t lrr = s->rr; /* (s->rr + n) % total, kept without a division */
    for (uint32_t n = 0; n < total && slots > 0; n++) {
        uint32_t g = lrr;
        if (by_age)
            g = s->order[n];
        else if (++lrr == total)
            lrr = 0;
        if (g == NONE)
            break;
        uint32_t c = s->slot_ctx[s->g_slot[g]];
        if (c == NONE || s->blk[c].state != B_ACTIVE)
            continue;
        uint32_t wi = s->g_warp[g];
        while (slots > 0) {
            int r = try_issue(sm, c, wi, now, unit_left);
            if (r == TRY_ISSUED) {
                slots--;
                again = true;
                s->last_ctx = c;
                s->last_warp = wi;
                if (s->blk[c].state != B_ACTIVE)
                    break;
                continue;
            }
            if (r == TRY_LIMITED)
                again = true;
            break;
        }
    }
    if (s->failed != GMMU_OK)
        return s->failed;
    if (slots < sm->cfg.issue_width)
        s->issue_free = now + sm->cfg.issue_cycles;
    if (total && ++s->rr == total)
        s->rr = 0;
    s->next = again ? now + 1 : (s->nheap ? s->heap[0].t : UINT64_MAX);
    if (s->next <= now)
        s->next = now + 1;
    return GMMU_OK;
}

gmmu_status gmmu_sm_run(gmmu_sm *sm, uint64_t max_cycles, uint64_t *end_cycle)
{
    if (!sm || !sm->s)
        return GMMU_EINVAL;
    while (!gmmu_sm_done(sm)) {
        uint64_t t = gmmu_sm_next_cycle(sm);
        if (t == UINT64_MAX || t > max_cycles)
            return GMMU_EBUSY;
        gmmu_status st = gmmu_sm_step(sm, t);
        if (st != GMMU_OK)
            return st;
    }
    if (end_cycle)
        *end_cycle = sm->st.end_cycle;
    return GMMU_OK;
}

gmmu_status gmmu_sm_create(const gmmu_sm_config *cfg, const gmmu_sm_env *env, gmmu_sm **out,
                           gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "sm", "output pointer is NULL");
    *out = NULL;
    gmmu_sm *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = sm_init_into(x, cfg, env, err);
    if (s != GMMU_OK) {
        sm_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_sm_destroy(gmmu_sm *x)
{
    if (!x)
        return;
    sm_release(x);
    free(x);
}
