/* gmmu — issue/commit SM: completion of a memory instruction and the fault
 * schemes (stall and retry, last check, commit, squash into the replay
 * queue). */

#include "sm_issue_internal.h"

gmmu_status gmmu_smi_schedule_completion(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    if (f->fault_mask) {
        sm->st.faults++;
        if (!preemptible(sm)) {
            /* A very long TLB miss: re-send the faulted requests when resolved. */
            return ev_push(s, f->fault_ready > now ? f->fault_ready : now + 1, EV_RETRY, i, 0);
        }
        uint64_t t = f->t_fault > now ? f->t_fault : now;
        return ev_push(s, t, EV_FAULT, i, 0);
    }
    uint64_t tc = f->t_check > now ? f->t_check : now;
    /* Overlap: each line's data access started at its own translation.
     * Without: every line's starts at the last translation (its latency as
     * measured from its own start, shifted). */
    uint64_t done = sm->cfg.overlap_lines ? f->t_done : f->t_check + f->data_max;
    uint64_t td = done > tc ? done : tc;
    gmmu_status st = ev_push(s, tc, EV_LASTCHECK, i, 0);
    if (st == GMMU_OK)
        st = ev_push(s, td, EV_COMMIT, i, 0);
    return st;
}

gmmu_status gmmu_smi_ev_retry(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    infl_t *f = &sm->s->pool[i];
    uint32_t mask = f->fault_mask;
    f->t_fault = UINT64_MAX;
    sm->st.fault_retries++;
    gmmu_status st = gmmu_smi_translate_reqs(sm, i, now, mask, true);
    if (st != GMMU_OK)
        return st;
    if (f->fault_mask) /* still not present: keep waiting */
        return ev_push(sm->s, f->fault_ready > now ? f->fault_ready : now + 1, EV_RETRY, i, 0);
    return gmmu_smi_schedule_completion(sm, i, now);
}

gmmu_status gmmu_smi_ev_lastcheck(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    block_t *b = &s->blk[f->ctx];
    warp_t *w = &b->w[f->warp];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    trace(sm, GMMU_SM_TR_LASTCHECK, now, f->ctx, f->warp, f->pc);
    /* Passed every TLB check: the access can no longer fault; perform it. */
    for (uint32_t l = 0; l < LANES; l++) {
        if (!(f->mask & (1u << l)))
            continue;
        gmmu_status st = GMMU_OK;
        if (in->op == GMMU_OP_LD) {
            st = sm->env.read64(sm->env.ctx, f->addr[l], &f->res[l]);
        } else if (in->op == GMMU_OP_ST) {
            st = sm->env.write64(sm->env.ctx, f->addr[l], f->data[l]);
        } else {
            uint64_t v = 0;
            st = sm->env.read64(sm->env.ctx, f->addr[l], &v);
            if (st == GMMU_OK)
                st = sm->env.write64(sm->env.ctx, f->addr[l], v + f->data[l]);
        }
        if (st != GMMU_OK)
            return st;
    }
    sm->st.mem_insns++;
    const uint32_t pages = gmmu_sm_distinct_pages(f->addr, f->mask);
    sm->st.mem_pages += pages;
    if (sm->cfg.access_shape) {
        gmmu_sm_shape sh;
        gmmu_sm_access_shape(f->addr, f->mask, &sh);
        sm->st.mem_pages_max = sh.pages_4k > sm->st.mem_pages_max ? sh.pages_4k : sm->st.mem_pages_max;
        sm->st.mem_pages_2m += sh.pages_2m;
        sm->st.mem_pages_2m_max = sh.pages_2m > sm->st.mem_pages_2m_max ? sh.pages_2m : sm->st.mem_pages_2m_max;
        sm->st.mem_span_bytes += sh.span;
        sm->st.mem_span_max = sh.span > sm->st.mem_span_max ? sh.span : sm->st.mem_span_max;
        if (sm->env.shape)
            sm->env.shape(sm->env.ctx, f->pc, (uint32_t)__builtin_popcount(f->mask), &sh);
        if (gmmu_footprint_add(sm->foot, f->addr, f->mask) != GMMU_OK)
            return GMMU_ENOMEM;
        sm->st.touched_4k = gmmu_footprint_pages_4k(sm->foot);
        sm->st.touched_2m = gmmu_footprint_pages_2m(sm->foot);
    }
    if (!b->home) {
        sm->st.mem_static_warps++;
        sm->st.mem_static_pages += pages;
    } else { /* the same lanes grouped by their threads' static warps */
        uint32_t left = f->mask;
        while (left) {
            const uint8_t sw = b->home[(size_t)f->warp * LANES + (uint32_t)__builtin_ctz(left)];
            uint32_t group = 0;
            for (uint32_t l = 0; l < LANES; l++)
                if ((left & (1u << l)) && b->home[(size_t)f->warp * LANES + l] == sw)
                    group |= 1u << l;
            left &= ~group;
            sm->st.mem_static_warps++;
            sm->st.mem_static_pages += gmmu_sm_distinct_pages(f->addr, group);
        }
    }
    release_sources(w, in, f); /* replay queue: sources were held until now */
    if (sm->cfg.scheme == GMMU_SCHEME_OPLOG) {
        for (uint32_t k = 0; k < f->log_n; k++) {
            gmmu_status st = gmmu_oplog_free(s->log, b->slot, f->log_idx[k]);
            if (st != GMMU_OK)
                return st;
        }
        f->log_n = 0;
        uint32_t pos;
        if (gmmu_rq_find(&w->rq, i, &pos) == GMMU_OK)
            w->rq.e[pos].log_n = 0;
    }
    if (sm->cfg.scheme == GMMU_SCHEME_WD_LASTCHECK)
        w->wd_hold--;
    return GMMU_OK;
}

gmmu_status gmmu_smi_ev_commit(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    uint32_t c = f->ctx, wi = f->warp;
    warp_t *w = &s->blk[c].w[wi];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    gmmu_op op = (gmmu_op)in->op;
    trace(sm, GMMU_SM_TR_COMMIT, now, c, wi, f->pc);
    if (gmmu_op_has_dst(op)) {
        dst_reg(&s->blk[c], wi, in->dst, f->mask, f->res);
        w->pend_w[in->dst] = 0;
    }
    if (gmmu_op_is_global(op)) {
        if (sm->cfg.scheme == GMMU_SCHEME_WD_COMMIT)
            w->wd_hold--;
        if (preemptible(sm) && gmmu_rq_commit(&w->rq, i) != GMMU_OK)
            return GMMU_EINVAL;
    }
    w->ninflight--;
    sm->st.committed++;
    free_infl(s, i);
    return gmmu_smi_warp_progress(sm, c, wi, now);
}

gmmu_status gmmu_smi_ev_fault(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    uint32_t c = f->ctx, wi = f->warp;
    warp_t *w = &s->blk[c].w[wi];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    trace(sm, GMMU_SM_TR_FAULT, now, c, wi, f->pc);
    /* Squash: no result, the destination is free again; the replay queue
     * keeps it (with its log entries) for replay. Under the replay queue its
     * sources stay reserved (hold_src) until the replay passes its checks. */
    if (gmmu_op_has_dst((gmmu_op)in->op))
        w->pend_w[in->dst] = 0;
    if (is_wd(sm))
        w->wd_hold--;
    if (gmmu_rq_fault(&w->rq, i) != GMMU_OK)
        return GMMU_EINVAL;
    w->ninflight--;
    w->state = W_FAULTED;
    if (f->fault_ready > w->fault_ready)
        w->fault_ready = f->fault_ready;
    uint32_t pos = f->fault_pos;
    uint64_t ready = f->fault_ready;
    free_infl(s, i);
    gmmu_status st = ev_push(s, ready, EV_RESUME, c, wi);
    if (st == GMMU_OK && pos > sm->cfg.switch_threshold)
        st = gmmu_smi_try_switch_out(sm, c, now);
    if (st == GMMU_OK)
        st = gmmu_smi_warp_progress(sm, c, wi, now);
    return st;
}
