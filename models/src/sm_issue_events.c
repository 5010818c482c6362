/* gmmu — issue/commit SM: the event queue, operand read and the memory
 * pipeline (coalescing, translation of a line request). */

#include "sm_issue_internal.h"

/* ---- events -------------------------------------------------------------- */

static event_t ev_pop(struct gmmu_sm_state *s)
{
    event_t top = s->heap[0];
    event_t last = s->heap[--s->nheap];
    uint32_t i = 0;
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        const event_t *cur = &last;
        if (l < s->nheap && ev_less(&s->heap[l], cur)) {
            m = l;
            cur = &s->heap[l];
        }
        if (r < s->nheap && ev_less(&s->heap[r], cur))
            m = r;
        if (m == i)
            break;
        s->heap[i] = s->heap[m];
        i = m;
    }
    if (s->nheap > 0 || i == 0)
        s->heap[i] = last;
    return top;
}

static gmmu_status ev_opread(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    block_t *b = &s->blk[f->ctx];
    warp_t *w = &b->w[f->warp];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    gmmu_op op = (gmmu_op)in->op;
    const sm_op_info *oi = &s->op[op];
    trace(sm, GMMU_SM_TR_OPREAD, now, f->ctx, f->warp, f->pc);
    if (oi->shared) {
        /* Shared memory: accessed here, at operand read, in issue order for
         * each warp; no translation, no request, no fault. */
        uint64_t ba[LANES], bb[LANES];
        const uint64_t *a = src_reg(b, f->warp, in->src[0], ba);
        const uint64_t *d = op == GMMU_OP_STS ? src_reg(b, f->warp, in->src[1], bb) : bb;
        for (uint32_t l = 0; l < LANES; l++) {
            if (!(f->mask & (1u << l)))
                continue;
            uint64_t off = (a[l] + (uint64_t)in->imm) & ~7ull;
            if (off >= (uint64_t)s->shwords * 8u)
                return GMMU_EINVAL; /* outside the block's shared memory */
            if (op == GMMU_OP_STS)
                b->shm[off / 8u] = d[l];
            else
                f->res[l] = b->shm[off / 8u];
        }
        sm->st.shared_accesses++;
        release_sources(w, in, f);
        return ev_push(s, now + sm->cfg.shared_latency, EV_COMMIT, i, 0);
    }
    if (!oi->global) {
        uint64_t ba[LANES], bbb[LANES], bcc[LANES];
        unsigned n = oi->nsrc;
        const uint64_t *a = n > 0 ? src_reg(b, f->warp, in->src[0], ba) : ba;
        const uint64_t *bb = n > 1 ? src_reg(b, f->warp, in->src[1], bbb) : bbb;
        const uint64_t *cc = n > 2 ? src_reg(b, f->warp, in->src[2], bcc) : bcc;
        for (uint32_t l = 0; l < LANES; l++)
            f->res[l] = gmmu_op_alu(in, n > 0 ? a[l] : 0, n > 1 ? bb[l] : 0, n > 2 ? cc[l] : 0);
        release_sources(w, in, f);
        uint32_t lat = op == GMMU_OP_SFU ? sm->cfg.sfu_latency : sm->cfg.alu_latency;
        return ev_push(s, now + lat, EV_COMMIT, i, 0);
    }
    uint64_t src0[LANES], src1[LANES];
    bool two = oi->log_entries == 2;
    if (f->replay && sm->cfg.scheme == GMMU_SCHEME_OPLOG) {
        /* Replay: the sources come from the log, not the register file. */
        gmmu_status st = gmmu_oplog_read(s->log, b->slot, f->log_idx[0], src0);
        if (st == GMMU_OK && two)
            st = gmmu_oplog_read(s->log, b->slot, f->log_idx[1], src1);
        if (st != GMMU_OK)
            return st;
    } else {
        uint64_t buf[LANES];
        memcpy(src0, src_reg(b, f->warp, in->src[0], buf), sizeof src0);
        if (two)
            memcpy(src1, src_reg(b, f->warp, in->src[1], buf), sizeof src1);
        if (sm->cfg.scheme == GMMU_SCHEME_OPLOG) {
            gmmu_status st = gmmu_oplog_write(s->log, b->slot, f->log_idx[0], src0);
            if (st == GMMU_OK && two)
                st = gmmu_oplog_write(s->log, b->slot, f->log_idx[1], src1);
            if (st != GMMU_OK)
                return st;
        }
    }
    for (uint32_t l = 0; l < LANES; l++) {
        f->addr[l] = (src0[l] + (uint64_t)in->imm) & ~7ull;
        f->data[l] = two ? src1[l] : 0;
    }
    if (sm->cfg.scheme != GMMU_SCHEME_REPLAY_QUEUE)
        release_sources(w, in, f);
    /* Coalesce the active lanes into 128-B lines, in order of first lane. */
    f->nreq = 0;
    for (uint32_t l = 0; l < LANES; l++) {
        if (!(f->mask & (1u << l)))
            continue;
        uint64_t line = f->addr[l] & ~(uint64_t)(GMMU_SM_LINE_BYTES - 1u);
        uint32_t r = f->nreq;
        for (uint32_t k = f->nreq; k > 0; k--)
            if (f->line[k - 1] == line) {
                r = k - 1;
                break;
            }
        if (r == f->nreq) {
            f->line[r] = line;
            f->lmask[r] = 0;
            f->nreq++;
        }
        f->lmask[r] |= 1u << l;
    }
    f->fault_mask = 0;
    f->t_check = 0;
    f->t_done = 0;
    f->data_max = 0;
    f->fault_ready = 0;
    f->fault_pos = 0;
    f->t_fault = UINT64_MAX;
    /* Requests enter the memory pipeline (one per cycle) after the coalescer. */
    return ev_push(s, now + sm->cfg.coalesce_cycles, EV_MEMSTART, i, 0);
}

gmmu_status gmmu_smi_translate_reqs(gmmu_sm *sm, uint32_t i, uint64_t t0, uint32_t mask, bool retry)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    block_t *b = &s->blk[f->ctx];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    uint32_t k = 0;
    const uint64_t send = ++s->sends;
    for (uint32_t r = 0; r < f->nreq; r++) {
        if (!(mask & (1u << r)))
            continue;
        gmmu_sm_mem_req req = {f->line[r], f->lmask[r], sm->cfg.sm_id, b->id, f->warp, f->pc, t0 + k,
                               in->op != GMMU_OP_LD, retry, send};
        gmmu_sm_mem_resp resp;
        memset(&resp, 0, sizeof resp);
        k++;
        sm->st.requests++;
        gmmu_status st = sm->env.translate(sm->env.ctx, &req, &resp);
        if (st != GMMU_OK)
            return st;
        uint64_t check = req.now + resp.tlb_cycles;
        if (resp.fault) {
            f->fault_mask |= 1u << r;
            uint64_t ready = resp.fault_ready > req.now ? resp.fault_ready : req.now + 1;
            if (ready > f->fault_ready)
                f->fault_ready = ready;
            if (resp.fault_queue_pos > f->fault_pos)
                f->fault_pos = resp.fault_queue_pos;
            if (check < f->t_fault)
                f->t_fault = check;
        } else {
            f->fault_mask &= ~(1u << r);
            gmmu_smi_lls_observe(sm, b, f->warp, f->line[r], &resp);
            if (s->cpm)
                gmmu_smi_cpm_observe(sm, b, f->warp, f->lmask[r], f->line[r], &resp, req.now);
            if (check > f->t_check)
                f->t_check = check;
            if (check + resp.data_cycles > f->t_done)
                f->t_done = check + resp.data_cycles;
            if (resp.data_cycles > f->data_max)
                f->data_max = resp.data_cycles;
        }
    }
    return GMMU_OK;
}

static gmmu_status ev_memstart(gmmu_sm *sm, uint32_t i, uint64_t now, uint64_t *mem_free)
{
    infl_t *f = &sm->s->pool[i];
    uint64_t t0 = now > *mem_free ? now : *mem_free;
    *mem_free = t0 + f->nreq;
    uint32_t all = f->nreq >= 32 ? 0xFFFFFFFFu : (1u << f->nreq) - 1u;
    gmmu_status st = gmmu_smi_translate_reqs(sm, i, t0, all, false);
    if (st == GMMU_OK) /* the ld/st unit takes another instruction once these are sent */
        st = ev_push(sm->s, t0 + f->nreq, EV_MEMSENT, i, 0);
    if (st != GMMU_OK)
        return st;
    return gmmu_smi_schedule_completion(sm, i, t0);
}

gmmu_status gmmu_smi_events_until(gmmu_sm *sm, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    while (s->nheap && s->heap[0].t <= now) {
        event_t e = ev_pop(s);
        gmmu_status st = GMMU_OK;
        switch (e.kind) {
        case EV_OPREAD: st = ev_opread(sm, e.a, e.t); break;
        case EV_MEMSTART: st = ev_memstart(sm, e.a, e.t, &s->mem_free); break;
        case EV_RETRY: st = gmmu_smi_ev_retry(sm, e.a, e.t); break;
        case EV_MEMSENT: s->ldst_busy--; break;
        case EV_LASTCHECK: st = gmmu_smi_ev_lastcheck(sm, e.a, e.t); break;
        case EV_COMMIT: st = gmmu_smi_ev_commit(sm, e.a, e.t); break;
        case EV_FAULT: st = gmmu_smi_ev_fault(sm, e.a, e.t); break;
        case EV_RESUME: st = gmmu_smi_warp_progress(sm, e.a, e.b, e.t); break;
        case EV_CTX: st = gmmu_smi_ev_ctx(sm, e.a, e.t); break;
        case EV_FILL: st = gmmu_smi_fill_slot(sm, e.a, e.t); break;
        default: st = GMMU_EINVAL; break;
        }
        if (st != GMMU_OK)
            return st;
    }
    return GMMU_OK;
}
