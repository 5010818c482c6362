/* gmmu — private state of the issue/commit SM (gmmu/sm_issue.h), shared by
 * its files: sm_issue.c (issue, the public entry points),
 * sm_issue_config.c (schemes, configurations, occupancy),
 * sm_issue_events.c (event queue, operand read, memory pipeline),
 * sm_issue_faults.c (completion, the fault schemes: retry, last check,
 * commit, squash), sm_issue_blocks.c (blocks on and off chip, warp
 * progress, switching), sm_issue_tbc.c (block-wide compaction) and
 * sm_issue_observers.c (throttle and CPM observers). Private to
 * models/src. */
#ifndef GMMU_SM_ISSUE_INTERNAL_H
#define GMMU_SM_ISSUE_INTERNAL_H

#include "gmmu/footprint.h"
#include "gmmu/sm_issue.h"
#include "gmmu/simt_stack.h"
#include "replay_queue_internal.h"

#include <stdlib.h>
#include <string.h>

#define LANES GMMU_ISA_LANES
#define NONE 0xFFFFFFFFu

/* ---- private state ------------------------------------------------------- */

enum { W_RUN = 0, W_FAULTED = 1, W_DONE = 2 };
enum { B_FREE = 0, B_PENDING, B_ACTIVE, B_DRAIN, B_SAVING, B_OFFCHIP, B_RESTORING };
enum { EV_LASTCHECK = 0, EV_COMMIT, EV_FAULT, EV_MEMSENT, EV_OPREAD, EV_MEMSTART, EV_RETRY, EV_RESUME, EV_CTX, EV_FILL };

typedef struct warp_t {
    uint32_t ninflight, wd_hold;
    uint64_t fault_ready;
    uint64_t branch_until; /* a branch issued: the next issue waits for its operand read */
    gmmu_simt_stack simt;  /* pc and active lanes */
    uint8_t state;
    uint8_t idle;          /* compaction: the slot holds no dynamic warp now */
    uint8_t arrived;       /* compaction: at the block's synchronisation point */
    uint8_t at_bar;        /* issued a BAR: waits until the block's barrier releases */
    gmmu_replay_queue rq;
    uint8_t *pend_w;  /* per register: a write is pending */
    uint16_t *pend_r; /* per register: pending source reads */
    uint64_t *regs;   /* [reg][lane] */
} warp_t;

typedef struct block_t {
    uint32_t id;
    uint64_t age;      /* order of arrival on this SM (GTO: lower = older) */
    uint8_t state;
    bool reserved;     /* chosen to take a slot being vacated */
    uint32_t slot;     /* NONE when not on chip */
    uint32_t warps_done;
    uint64_t ready;    /* OFFCHIP: faults resolved; SAVING/RESTORING: done */
    uint32_t successor;
    warp_t *w;
    uint64_t *shm;     /* shared memory: kernel->shared_bytes / 8 words (LDS/STS) */
    gmmu_oplog_context olctx;
    /* Compaction (gmmu/tbc.h). Registers stay with their static warp;
     * home maps a dynamic warp's lanes to their threads' static warps. */
    gmmu_tbc_stack *tbc;
    uint8_t *home;      /* [warp slot * 32 + lane] static warp, or GMMU_TBC_NO_THREAD */
    uint32_t *taken;    /* [static warp] lanes that took the pending branch */
    uint32_t sync_pc;   /* pc of the pending branch */
    uint8_t sync;       /* SYNC_NONE, SYNC_BRANCH, SYNC_RPC */
    uint8_t regroup;    /* the stack changed: compact once the block has drained */
    uint64_t regroup_since; /* cycle the block started waiting to drain */
} block_t;

enum { SYNC_NONE = 0, SYNC_BRANCH = 1, SYNC_RPC = 2 };

typedef struct infl_t {
    uint32_t ctx, warp, pc, next_free;
    uint32_t mask; /* active lanes */
    uint8_t used, replay, hold_src, log_n;
    uint32_t log_idx[2];
    uint32_t nreq, fault_mask;
    uint64_t t_check, t_done, t_fault, fault_ready;
    uint32_t fault_pos;
    uint32_t data_max; /* longest data access of a translated line */
    uint64_t addr[LANES], data[LANES], res[LANES];
    uint64_t line[LANES];
    uint32_t lmask[LANES];
} infl_t;

typedef struct event_t {
    uint64_t t;
    uint64_t seq;
    uint32_t kind, a, b;
} event_t;

/* An opcode's properties, as gmmu/kernels.h's gmmu_op_* functions give
 * them, tabled once per kernel (sm_op_table) so that issue and operand read
 * look them up instead of calling them for every warp instruction. */
typedef struct sm_op_info {
    uint8_t global, shared, branch, has_dst, nsrc, unit, log_entries;
} sm_op_info;

struct gmmu_sm_state {
    uint32_t nctx, nslots, wpb, nregs;
    block_t *blk;
    uint32_t *slot_ctx; /* NONE = empty */
    warp_t *warps;
    uint64_t *regs;
    uint64_t *shmem;     /* every context's shared memory */
    uint32_t shwords;    /* words of shared memory per block */
    uint8_t *pend_w;
    uint16_t *pend_r;
    uint64_t *olbuf;
    uint8_t *olused;
    infl_t *pool;
    uint32_t free_head, nfree;
    event_t *heap;
    uint32_t nheap, cap_heap;
    uint64_t seq;
    gmmu_oplog *log; /* operand log (GMMU_SCHEME_OPLOG), else NULL */
    bool has_log;
    bool grid_done;
    uint64_t now, next, mem_free;
    uint64_t issue_free; /* first cycle the issue stage may issue again (issue_cycles) */
    uint64_t sends;      /* translate_reqs calls so far (gmmu_sm_mem_req.send) */
    uint32_t ldst_busy; /* global instructions issued whose last request is not sent */
    uint32_t rr;
    uint32_t owned;
    uint64_t arrivals;          /* blocks taken so far (their ages) */
    uint32_t last_ctx, last_warp; /* GTO: the warp that issued last */
    uint32_t *order;            /* GTO: this cycle's issue order, as slot * wpb + warp */
    uint32_t *g_slot, *g_warp;  /* g = slot * wpb + warp: g's slot and warp (no division per warp and cycle) */
    sm_op_info op[GMMU_OP_COUNT]; /* by opcode (the kernel check rejects any other) */
    gmmu_ccws *lls;             /* throttle: scores and VTAs, by slot * wpb + warp */
    uint64_t lls_tick;          /* cycle the scores were last decayed to */
    uint64_t lls_pool;          /* this cycle's warps that may issue memory instructions */
    uint32_t *ipdom;     /* reconvergence pc of every instruction */
    gmmu_tbc_stack *tbcs; /* compaction: one block-wide stack per context */
    uint8_t *homes;
    uint32_t *takens;
    gmmu_cpm *cpm;        /* TLB-aware compaction */
    gmmu_status failed;  /* an issue-time error, returned by gmmu_sm_step */
    char failure[160];   /* its reason in words (gmmu_sm_failure), or "" */
};

/* ---- event queue: a binary heap by (time, kind, sequence); push here
 * (inlined on the hot paths), pop in sm_issue_events.c --------------------- */

static inline bool ev_less(const event_t *x, const event_t *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->kind != y->kind)
        return x->kind < y->kind;
    return x->seq < y->seq;
}

static inline gmmu_status ev_push(struct gmmu_sm_state *s, uint64_t t, uint32_t kind, uint32_t a, uint32_t b)
{
    if (s->nheap >= s->cap_heap)
        return GMMU_ENOMEM;
    event_t e = {t, s->seq++, kind, a, b};
    uint32_t i = s->nheap++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!ev_less(&e, &s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        i = p;
    }
    s->heap[i] = e;
    return GMMU_OK;
}

/* ---- helpers ------------------------------------------------------------- */

static inline void trace(gmmu_sm *sm, gmmu_sm_trace_kind kind, uint64_t t, uint32_t ctx, uint32_t warp,
                         uint32_t pc)
{
    if (!sm->env.trace)
        return;
    gmmu_sm_trace_event ev = {t, kind, ctx == NONE ? NONE : sm->s->blk[ctx].id, warp, pc};
    sm->env.trace(sm->env.ctx, &ev);
}

static inline bool preemptible(const gmmu_sm *sm) { return sm->cfg.scheme != GMMU_SCHEME_STALL; }
static inline bool is_wd(const gmmu_sm *sm)
{
    return sm->cfg.scheme == GMMU_SCHEME_WD_COMMIT || sm->cfg.scheme == GMMU_SCHEME_WD_LASTCHECK;
}

static inline uint64_t *reg(warp_t *w, uint32_t r) { return w->regs + (size_t)r * LANES; }

/* Register r of warp slot wi's lanes. Without compaction the slot's own row;
 * with it, each lane's thread's row in its static warp (copied into buf). */
static inline const uint64_t *src_reg(block_t *b, uint32_t wi, uint32_t r, uint64_t buf[LANES])
{
    if (!b->home)
        return reg(&b->w[wi], r);
    const uint8_t *h = b->home + (size_t)wi * LANES;
    for (uint32_t l = 0; l < LANES; l++)
        buf[l] = h[l] == GMMU_TBC_NO_THREAD ? 0 : reg(&b->w[h[l]], r)[l];
    return buf;
}

/* Write v into register r of the lanes in mask of warp slot wi. */
static inline void dst_reg(block_t *b, uint32_t wi, uint32_t r, uint32_t mask, const uint64_t v[LANES])
{
    const uint8_t *h = b->home ? b->home + (size_t)wi * LANES : NULL;
    for (uint32_t l = 0; l < LANES; l++) {
        if (!(mask & (1u << l)))
            continue;
        uint32_t sw = h ? h[l] : wi;
        if (sw != GMMU_TBC_NO_THREAD)
            reg(&b->w[sw], r)[l] = v[l];
    }
}

/* Lanes of warp slot wi that hold a thread. */
static inline uint32_t slot_lanes(const block_t *b, uint32_t wi)
{
    uint32_t m = 0;
    for (uint32_t l = 0; l < LANES; l++)
        if (b->home[(size_t)wi * LANES + l] != GMMU_TBC_NO_THREAD)
            m |= 1u << l;
    return m;
}

static inline void release_sources(warp_t *w, const gmmu_insn *in, infl_t *f)
{
    if (!f->hold_src)
        return;
    for (unsigned k = 0; k < gmmu_op_nsrc((gmmu_op)in->op); k++)
        w->pend_r[in->src[k]]--;
    f->hold_src = 0;
}

static inline void free_infl(struct gmmu_sm_state *s, uint32_t i)
{
    s->pool[i].used = 0;
    s->pool[i].next_free = s->free_head;
    s->free_head = i;
    s->nfree++;
}

/* ---- across files -------------------------------------------------------- */

/* sm_issue_events.c */
/* Run every event due by now, in (time, kind, sequence) order. */
gmmu_status gmmu_smi_events_until(gmmu_sm *sm, uint64_t now);
gmmu_status gmmu_smi_translate_reqs(gmmu_sm *sm, uint32_t i, uint64_t t0, uint32_t mask, bool retry);

/* sm_issue_faults.c */
gmmu_status gmmu_smi_schedule_completion(gmmu_sm *sm, uint32_t i, uint64_t now);
gmmu_status gmmu_smi_ev_retry(gmmu_sm *sm, uint32_t i, uint64_t now);
gmmu_status gmmu_smi_ev_lastcheck(gmmu_sm *sm, uint32_t i, uint64_t now);
gmmu_status gmmu_smi_ev_commit(gmmu_sm *sm, uint32_t i, uint64_t now);
gmmu_status gmmu_smi_ev_fault(gmmu_sm *sm, uint32_t i, uint64_t now);

/* sm_issue_blocks.c */
gmmu_status gmmu_smi_fill_slot(gmmu_sm *sm, uint32_t slot, uint64_t now);
gmmu_status gmmu_smi_block_finish(gmmu_sm *sm, uint32_t c, uint64_t now);
gmmu_status gmmu_smi_warp_progress(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now);
gmmu_status gmmu_smi_try_switch_out(gmmu_sm *sm, uint32_t c, uint64_t now);
gmmu_status gmmu_smi_ev_ctx(gmmu_sm *sm, uint32_t c, uint64_t now);
/* Release block c's barrier if every warp that has not exited waits at it. */
void gmmu_smi_bar_release(gmmu_sm *sm, uint32_t c);

/* sm_issue_tbc.c */
gmmu_status gmmu_smi_tbc_progress(gmmu_sm *sm, uint32_t c, uint64_t now);

/* sm_issue_observers.c */
void gmmu_smi_lls_observe(gmmu_sm *sm, const block_t *b, uint32_t warp, uint64_t va,
                          const gmmu_sm_mem_resp *rs);
void gmmu_smi_cpm_observe(gmmu_sm *sm, const block_t *b, uint32_t wi, uint32_t lanes, uint64_t va,
                          const gmmu_sm_mem_resp *rs, uint64_t now);

#endif
