#include "gmmu/sm_issue.h"
#include "gmmu/simt_stack.h"
#include "replay_queue_internal.h"

#include <stdlib.h>
#include <string.h>

#define LANES GMMU_ISA_LANES
#define NONE 0xFFFFFFFFu

/* ---- schemes and configs ------------------------------------------------- */

static const char *const SCHEME_NAMES[] = {"stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog"};
static const char *const ORDER_NAMES[] = {"lrr", "gto", "oldest"};

/* Index of str in names[0..n-1] into *out; GMMU_EINVAL if absent. */
static gmmu_status name_index(const char *const *names, unsigned n, const char *str, unsigned *out)
{
    if (!str || !out)
        return GMMU_EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(str, names[i]) == 0) {
            *out = i;
            return GMMU_OK;
        }
    return GMMU_EINVAL;
}

const char *gmmu_fault_scheme_name(gmmu_fault_scheme s)
{
    return (unsigned)s < 5 ? SCHEME_NAMES[s] : "unknown";
}

gmmu_status gmmu_fault_scheme_parse(const char *str, gmmu_fault_scheme *out)
{
    unsigned i = 0;
    gmmu_status st = name_index(SCHEME_NAMES, 5, str, &i);
    if (st == GMMU_OK && out)
        *out = (gmmu_fault_scheme)i;
    return out ? st : GMMU_EINVAL;
}

const char *gmmu_warp_order_name(gmmu_warp_order o)
{
    return (unsigned)o < 3 ? ORDER_NAMES[o] : "unknown";
}

gmmu_status gmmu_warp_order_parse(const char *str, gmmu_warp_order *out)
{
    unsigned i = 0;
    gmmu_status st = name_index(ORDER_NAMES, 3, str, &i);
    if (st == GMMU_OK && out)
        *out = (gmmu_warp_order)i;
    return out ? st : GMMU_EINVAL;
}

void gmmu_sm_config_tanasic17(gmmu_sm_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->max_blocks = 16;
    c->max_warps = 64;
    c->regfile_bytes = 256u * 1024u;
    c->shared_bytes = 32u * 1024u;
    c->issue_width = 2;
    c->issue_cycles = 1;
    c->math_per_cycle = 2;
    c->sfu_per_cycle = 1;
    c->ldst_per_cycle = 1;
    c->ldst_queue = 2;
    c->opread_cycles = 1;
    c->alu_latency = 8;
    c->sfu_latency = 20;
    c->coalesce_cycles = 2;
    c->overlap_lines = true;
    c->inflight_max = 1024;
    c->scheme = GMMU_SCHEME_STALL;
    c->oplog_bytes = 16384;
    c->replay_queue_entries = 32;
    c->block_switch = false;
    c->switch_threshold = 4;
    c->max_extra_blocks = 4;
    c->ctx_fixed_cycles = 500;
    c->ctx_bytes_per_cycle = 16; /* 256 GB/s shared by 16 SMs */
    c->rq_entry_bytes = 8;
    c->compaction = GMMU_COMPACT_NONE;
    c->cpm.warps = 0; /* set at launch */
    c->cpm.counter_bits = 3;
    c->cpm.history = 2;
    c->cpm.pages = 128;
    c->cpm.flush_cycles = 500;
}

uint32_t gmmu_sm_distinct_pages(const uint64_t addr[32], uint32_t mask)
{
    uint64_t seen[32];
    uint32_t n = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        const uint64_t p = addr[l] >> 12;
        uint32_t k = 0;
        while (k < n && seen[k] != p)
            k++;
        if (k == n)
            seen[n++] = p;
    }
    return n;
}

uint64_t gmmu_sm_throttle_state_bits(const gmmu_sm_config *c)
{
    if (!c || c->throttle == GMMU_THROTTLE_NONE)
        return 0;
    unsigned offset = 0; /* the SM's requests are GMMU_SM_LINE_BYTES lines */
    while ((1u << offset) < GMMU_SM_LINE_BYTES)
        offset++;
    const unsigned tag_bits = c->throttle == GMMU_THROTTLE_TCWS ? 48u - 12u : 48u - offset;
    gmmu_ccws_config cc = c->ccws;
    cc.warps = c->max_warps;
    return gmmu_ccws_state_bits(&cc, tag_bits, 16u);
}

gmmu_status gmmu_sm_config_check(const gmmu_sm_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "sm", "SM config is NULL");
    if (c->max_blocks == 0 || c->max_blocks > 64)
        return gmmu_error_set(err, "max_blocks", "resident blocks %u out of range 1..64", c->max_blocks);
    if (c->max_warps == 0 || c->max_warps > 256)
        return gmmu_error_set(err, "max_warps", "resident warps %u out of range 1..256", c->max_warps);
    if (c->regfile_bytes < 8u * LANES * 4u || c->regfile_bytes > (64u << 20))
        return gmmu_error_set(err, "regfile_bytes", "register file %u B out of range 1 KiB..64 MiB",
                              c->regfile_bytes);
    if (c->shared_bytes > (64u << 20))
        return gmmu_error_set(err, "shared_bytes", "shared memory %u B out of range 0..64 MiB",
                              c->shared_bytes);
    if (c->issue_width == 0 || c->issue_width > 8)
        return gmmu_error_set(err, "issue_width", "issue width %u out of range 1..8", c->issue_width);
    if (c->issue_cycles == 0 || c->issue_cycles > 32)
        return gmmu_error_set(err, "issue_cycles", "issue cycles %u out of range 1..32", c->issue_cycles);
    if (c->math_per_cycle == 0 || c->math_per_cycle > 8)
        return gmmu_error_set(err, "math_per_cycle", "math units %u out of range 1..8", c->math_per_cycle);
    if (c->sfu_per_cycle == 0 || c->sfu_per_cycle > 8)
        return gmmu_error_set(err, "sfu_per_cycle", "SFUs %u out of range 1..8", c->sfu_per_cycle);
    if (c->ldst_per_cycle != 1)
        return gmmu_error_set(err, "ldst_per_cycle",
                              "ld/st units %u: the model has one memory pipeline (1)", c->ldst_per_cycle);
    if ((unsigned)c->order > GMMU_ORDER_OLDEST)
        return gmmu_error_set(err, "order", "unknown warp order %u", (unsigned)c->order);
    if ((unsigned)c->throttle > GMMU_THROTTLE_TCWS)
        return gmmu_error_set(err, "throttle", "unknown throttle %u", (unsigned)c->throttle);
    if (c->throttle != GMMU_THROTTLE_NONE) {
        gmmu_ccws_config cc = c->ccws;
        cc.warps = 1; /* set at launch */
        gmmu_status st = gmmu_ccws_config_check(&cc, err);
        if (st != GMMU_OK)
            return st;
    }
    if ((unsigned)c->compaction > GMMU_COMPACT_TLB_TBC)
        return gmmu_error_set(err, "compaction", "unknown compaction %u", (unsigned)c->compaction);
    if (c->compaction != GMMU_COMPACT_NONE && c->throttle != GMMU_THROTTLE_NONE)
        return gmmu_error_set(err, "compaction",
                              "thread block compaction has its own scheduler; it takes no throttle");
    if (c->compaction == GMMU_COMPACT_TLB_TBC) {
        gmmu_cpm_config pc = c->cpm;
        pc.warps = 1; /* set at launch */
        gmmu_status st = gmmu_cpm_config_check(&pc, err);
        if (st != GMMU_OK)
            return st;
    }
    if (c->ldst_queue == 0 || c->ldst_queue > 1024)
        return gmmu_error_set(err, "ldst_queue", "ld/st unit queue %u out of range 1..1024",
                              c->ldst_queue);
    if (c->opread_cycles == 0 || c->opread_cycles > 100)
        return gmmu_error_set(err, "opread_cycles", "operand read delay %u out of range 1..100",
                              c->opread_cycles);
    if (c->alu_latency == 0 || c->alu_latency > 1000)
        return gmmu_error_set(err, "alu_latency", "ALU latency %u out of range 1..1000", c->alu_latency);
    if (c->sfu_latency == 0 || c->sfu_latency > 1000)
        return gmmu_error_set(err, "sfu_latency", "SFU latency %u out of range 1..1000", c->sfu_latency);
    if (c->coalesce_cycles > 1000)
        return gmmu_error_set(err, "coalesce_cycles", "coalescer delay %u out of range 0..1000",
                              c->coalesce_cycles);
    if (c->inflight_max < 8 || c->inflight_max > 65536)
        return gmmu_error_set(err, "inflight_max", "in-flight slots %u out of range 8..65536",
                              c->inflight_max);
    if ((unsigned)c->scheme > GMMU_SCHEME_OPLOG)
        return gmmu_error_set(err, "fault_scheme", "unknown fault scheme %d (stall, wd-commit, "
                              "wd-lastcheck, replay-queue, oplog)", (int)c->scheme);
    if (c->scheme == GMMU_SCHEME_OPLOG &&
        (c->oplog_bytes < 2u * GMMU_OPLOG_ENTRY_BYTES || c->oplog_bytes % GMMU_OPLOG_ENTRY_BYTES ||
         c->oplog_bytes > (64u << 20)))
        return gmmu_error_set(err, "oplog_bytes",
                              "operand log %u B: a multiple of 256 B between 512 B and 64 MiB",
                              c->oplog_bytes);
    if (c->replay_queue_entries == 0 || c->replay_queue_entries > GMMU_RQ_MAX)
        return gmmu_error_set(err, "replay_queue_entries", "replay queue entries %u out of range 1..%u",
                              c->replay_queue_entries, GMMU_RQ_MAX);
    if (c->block_switch && c->scheme == GMMU_SCHEME_STALL)
        return gmmu_error_set(err, "block_switch",
                              "block switching needs preemptible faults (any scheme but stall)");
    if (c->max_extra_blocks > 64)
        return gmmu_error_set(err, "max_extra_blocks", "extra blocks %u out of range 0..64",
                              c->max_extra_blocks);
    if (c->ctx_bytes_per_cycle == 0 || c->ctx_bytes_per_cycle > 65536)
        return gmmu_error_set(err, "ctx_bytes_per_cycle", "context bandwidth %u out of range 1..65536",
                              c->ctx_bytes_per_cycle);
    if (c->ctx_fixed_cycles > 10000000)
        return gmmu_error_set(err, "ctx_fixed_cycles", "context fixed cost %u out of range 0..1e7",
                              c->ctx_fixed_cycles);
    if (c->rq_entry_bytes > 4096)
        return gmmu_error_set(err, "rq_entry_bytes", "replay entry size %u out of range 0..4096",
                              c->rq_entry_bytes);
    return GMMU_OK;
}

void gmmu_machine_config_tanasic17(gmmu_machine_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->num_sms = 16;
    c->clock_mhz = 1000;
    gmmu_sm_config_tanasic17(&c->sm);
    c->line_bytes = 128;
    c->l1_bytes = 32u * 1024u;
    c->l1_ways = 4;
    c->l1_mshrs = 32;
    c->l1_latency = 40;
    c->l1_tlb_entries = 32;
    c->l1_tlb_ways = 8;
    c->l1_tlb_latency = 1;
    c->l2_bytes = 2u * 1024u * 1024u;
    c->l2_ways = 8;
    c->l2_latency = 70;
    c->l2_mshrs = 512;
    c->l2_tlb_entries = 1024;
    c->l2_tlb_ways = 8;
    c->l2_tlb_mshrs = 128;
    c->l2_tlb_latency = 70;
    c->walkers = 64;
    c->walk_latency = 500;
    c->dram_bytes_per_cycle = 256; /* 256 GB/s at 1 GHz */
    c->dram_latency = 200;
}

gmmu_status gmmu_machine_config_check(const gmmu_machine_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "machine", "machine config is NULL");
    if (c->num_sms == 0 || c->num_sms > 1024)
        return gmmu_error_set(err, "num_sms", "SMs %u out of range 1..1024", c->num_sms);
    if (c->clock_mhz == 0 || c->clock_mhz > 100000)
        return gmmu_error_set(err, "clock_mhz", "clock %u MHz out of range 1..100000", c->clock_mhz);
    if (c->line_bytes != GMMU_SM_LINE_BYTES)
        return gmmu_error_set(err, "line_bytes", "line size %u: the SM coalesces 128-B lines",
                              c->line_bytes);
    if (c->l1_ways == 0 || c->l1_bytes < c->line_bytes * c->l1_ways)
        return gmmu_error_set(err, "l1_bytes", "L1 of %u B cannot hold %u ways of 128-B lines",
                              c->l1_bytes, c->l1_ways);
    if (c->l1_tlb_entries == 0 || c->l1_tlb_ways == 0 || c->l1_tlb_ways > c->l1_tlb_entries)
        return gmmu_error_set(err, "l1_tlb_entries", "L1 TLB %u entries / %u ways invalid",
                              c->l1_tlb_entries, c->l1_tlb_ways);
    if (c->l2_ways == 0 || c->l2_bytes < c->line_bytes * c->l2_ways)
        return gmmu_error_set(err, "l2_bytes", "L2 of %u B cannot hold %u ways of 128-B lines",
                              c->l2_bytes, c->l2_ways);
    if (c->l2_tlb_entries == 0 || c->l2_tlb_ways == 0 || c->l2_tlb_ways > c->l2_tlb_entries)
        return gmmu_error_set(err, "l2_tlb_entries", "L2 TLB %u entries / %u ways invalid",
                              c->l2_tlb_entries, c->l2_tlb_ways);
    if (c->walkers == 0)
        return gmmu_error_set(err, "walkers", "at least one page-table walker");
    if (c->dram_bytes_per_cycle == 0)
        return gmmu_error_set(err, "dram_bytes_per_cycle", "DRAM bandwidth must be > 0");
    return gmmu_sm_config_check(&c->sm, err);
}

uint32_t gmmu_sm_occupancy(const gmmu_sm_config *c, const gmmu_kernel *k)
{
    if (!c || !k || k->warps_per_block == 0 || k->nregs == 0)
        return 0;
    uint32_t n = c->max_blocks;
    uint32_t w = c->max_warps / k->warps_per_block;
    if (w < n)
        n = w;
    uint64_t rf = (uint64_t)k->warps_per_block * k->nregs * LANES * 8u;
    uint64_t r = c->regfile_bytes / rf;
    if (r < n)
        n = (uint32_t)r;
    if (k->shared_bytes) {
        uint32_t s = c->shared_bytes / k->shared_bytes;
        if (s < n)
            n = s;
    }
    return n;
}

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

struct gmmu_sm_state {
    uint32_t nctx, nslots, wpb, nregs;
    block_t *blk;
    uint32_t *slot_ctx; /* NONE = empty */
    warp_t *warps;
    uint64_t *regs;
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
    gmmu_ccws *lls;             /* throttle: scores and VTAs, by slot * wpb + warp */
    uint64_t lls_tick;          /* cycle the scores were last decayed to */
    uint64_t lls_pool;          /* this cycle's warps that may issue memory instructions */
    uint32_t *ipdom;     /* reconvergence pc of every instruction */
    gmmu_tbc_stack *tbcs; /* compaction: one block-wide stack per context */
    uint8_t *homes;
    uint32_t *takens;
    gmmu_cpm *cpm;        /* TLB-aware compaction */
    gmmu_status failed;  /* an issue-time error, returned by gmmu_sm_step */
};

/* ---- events -------------------------------------------------------------- */

static bool ev_less(const event_t *x, const event_t *y)
{
    if (x->t != y->t)
        return x->t < y->t;
    if (x->kind != y->kind)
        return x->kind < y->kind;
    return x->seq < y->seq;
}

static gmmu_status ev_push(struct gmmu_sm_state *s, uint64_t t, uint32_t kind, uint32_t a, uint32_t b)
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

static void trace(gmmu_sm *sm, gmmu_sm_trace_kind kind, uint64_t t, uint32_t ctx, uint32_t warp,
                  uint32_t pc)
{
    if (!sm->env.trace)
        return;
    gmmu_sm_trace_event ev = {t, kind, ctx == NONE ? NONE : sm->s->blk[ctx].id, warp, pc};
    sm->env.trace(sm->env.ctx, &ev);
}

/* ---- helpers ------------------------------------------------------------- */

static bool preemptible(const gmmu_sm *sm) { return sm->cfg.scheme != GMMU_SCHEME_STALL; }
static bool is_wd(const gmmu_sm *sm)
{
    return sm->cfg.scheme == GMMU_SCHEME_WD_COMMIT || sm->cfg.scheme == GMMU_SCHEME_WD_LASTCHECK;
}

static uint64_t *reg(warp_t *w, uint32_t r) { return w->regs + (size_t)r * LANES; }

/* Register r of warp slot wi's lanes. Without compaction the slot's own row;
 * with it, each lane's thread's row in its static warp (copied into buf). */
static const uint64_t *src_reg(block_t *b, uint32_t wi, uint32_t r, uint64_t buf[LANES])
{
    if (!b->home)
        return reg(&b->w[wi], r);
    const uint8_t *h = b->home + (size_t)wi * LANES;
    for (uint32_t l = 0; l < LANES; l++)
        buf[l] = h[l] == GMMU_TBC_NO_THREAD ? 0 : reg(&b->w[h[l]], r)[l];
    return buf;
}

/* Write v into register r of the lanes in mask of warp slot wi. */
static void dst_reg(block_t *b, uint32_t wi, uint32_t r, uint32_t mask, const uint64_t v[LANES])
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
static uint32_t slot_lanes(const block_t *b, uint32_t wi)
{
    uint32_t m = 0;
    for (uint32_t l = 0; l < LANES; l++)
        if (b->home[(size_t)wi * LANES + l] != GMMU_TBC_NO_THREAD)
            m |= 1u << l;
    return m;
}

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

static gmmu_status fill_slot(gmmu_sm *sm, uint32_t slot, uint64_t now)
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

static gmmu_status block_finish(gmmu_sm *sm, uint32_t c, uint64_t now)
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
    return fill_slot(sm, slot, now);
}

/* Compaction: the block moves on once every dynamic warp has reached the
 * synchronisation point (and, at a branch, resolved it). A change of the
 * top entry regroups the threads, which waits until the block has no
 * instruction in flight and nothing to replay: the dynamic warps' lanes
 * change meaning, and in-flight results and replay-queue masks refer to
 * the old grouping. Dynamic warp k is ready k + 1 cycles after the
 * regrouping (the compactor forms one warp per cycle). */
static gmmu_status tbc_progress(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    if (!b->tbc || b->state != B_ACTIVE)
        return GMMU_OK;
    if (!b->regroup) {
        if (b->sync == SYNC_NONE)
            return GMMU_OK;
        for (uint32_t wi = 0; wi < s->wpb; wi++) {
            const warp_t *w = &b->w[wi];
            if (!w->idle && (!w->arrived || (b->sync == SYNC_BRANCH && now < w->branch_until)))
                return GMMU_OK;
        }
        sm->st.block_syncs++;
        if (b->sync == SYNC_BRANCH) {
            const gmmu_insn *in = &sm->kernel->code[b->sync_pc];
            uint64_t splits = b->tbc->splits;
            bool regroup = false;
            gmmu_status st = gmmu_tbc_branch(b->tbc, b->sync_pc, b->taken, (uint32_t)in->imm,
                                             s->ipdom[b->sync_pc], &regroup);
            if (st != GMMU_OK)
                return st;
            sm->st.divergent_branches += b->tbc->splits - splits;
            if (b->tbc->peak > sm->st.simt_peak_depth)
                sm->st.simt_peak_depth = b->tbc->peak;
            memset(b->taken, 0, s->wpb * sizeof *b->taken);
            b->sync = SYNC_NONE;
            if (!regroup) { /* uniform: the same dynamic warps go on from the top's pc */
                const gmmu_tbc_entry *top = gmmu_tbc_top(b->tbc);
                for (uint32_t wi = 0; wi < s->wpb; wi++) {
                    warp_t *w = &b->w[wi];
                    w->arrived = 0;
                    if (!w->idle) {
                        w->simt.n = 1;
                        w->simt.e[0] = (gmmu_simt_entry){top->pc, top->rpc, slot_lanes(b, wi)};
                    }
                }
                return GMMU_OK;
            }
        } else {
            gmmu_status st = gmmu_tbc_reconverge(b->tbc);
            if (st != GMMU_OK)
                return st;
            b->sync = SYNC_NONE;
        }
        b->regroup = 1;
        b->regroup_since = now;
    }
    for (uint32_t wi = 0; wi < s->wpb; wi++) {
        const warp_t *w = &b->w[wi];
        if (w->ninflight || w->rq.nfaulted || w->state != W_RUN)
            return GMMU_OK;
    }
    b->regroup = 0;
    sm->st.regroup_wait_cycles += now - b->regroup_since;
    if (gmmu_tbc_done(b->tbc)) {
        for (uint32_t wi = 0; wi < s->wpb; wi++)
            b->w[wi].state = W_DONE;
        b->warps_done = s->wpb;
        return block_finish(sm, c, now);
    }
    const gmmu_tbc_entry *top = gmmu_tbc_top(b->tbc);
    uint32_t n = gmmu_tbc_compact(top->mask, s->wpb, s->cpm, b->slot * s->wpb, b->home);
    sm->st.compactions++;
    sm->st.dynamic_warps += n;
    for (uint32_t wi = 0; wi < s->wpb; wi++) {
        warp_t *w = &b->w[wi];
        w->arrived = 0;
        w->idle = wi >= n;
        gmmu_simt_reset(&w->simt, 0, 1);
        if (w->idle)
            continue;
        w->simt.n = 1;
        w->simt.peak = 1;
        w->simt.e[0] = (gmmu_simt_entry){top->pc, top->rpc, slot_lanes(b, wi)};
        const uint8_t *h = b->home + (size_t)wi * LANES;
        uint8_t first = GMMU_TBC_NO_THREAD;
        for (uint32_t l = 0; l < LANES; l++) {
            if (h[l] == GMMU_TBC_NO_THREAD)
                continue;
            if (first == GMMU_TBC_NO_THREAD) {
                first = h[l];
            } else if (h[l] != first) {
                sm->st.mixed_warps++;
                break;
            }
        }
        w->branch_until = now + 1 + wi;
        gmmu_status st = ev_push(s, w->branch_until, EV_RESUME, c, wi);
        if (st != GMMU_OK)
            return st;
    }
    return GMMU_OK;
}

/* Re-evaluate a warp after its in-flight count or fault state changed. */
static gmmu_status warp_progress(gmmu_sm *sm, uint32_t c, uint32_t wi, uint64_t now)
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
        gmmu_status st = tbc_progress(sm, c, now);
        if (st != GMMU_OK || b->state != B_DRAIN)
            return st;
    } else if (w->state == W_RUN && gmmu_simt_done(&w->simt) && w->ninflight == 0 && w->rq.nfaulted == 0) {
        w->state = W_DONE;
        b->warps_done++;
        if (b->warps_done == s->wpb)
            return block_finish(sm, c, now);
    }
    if (b->state == B_DRAIN) {
        for (uint32_t i = 0; i < s->wpb; i++)
            if (b->w[i].ninflight)
                return GMMU_OK;
        return start_save(sm, c, now);
    }
    return GMMU_OK;
}

static gmmu_status try_switch_out(gmmu_sm *sm, uint32_t c, uint64_t now)
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

/* ---- pipeline events ----------------------------------------------------- */

static void release_sources(warp_t *w, const gmmu_insn *in, infl_t *f)
{
    if (!f->hold_src)
        return;
    for (unsigned k = 0; k < gmmu_op_nsrc((gmmu_op)in->op); k++)
        w->pend_r[in->src[k]]--;
    f->hold_src = 0;
}

static void free_infl(struct gmmu_sm_state *s, uint32_t i)
{
    s->pool[i].used = 0;
    s->pool[i].next_free = s->free_head;
    s->free_head = i;
    s->nfree++;
}

static gmmu_status ev_opread(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    infl_t *f = &s->pool[i];
    block_t *b = &s->blk[f->ctx];
    warp_t *w = &b->w[f->warp];
    const gmmu_insn *in = &sm->kernel->code[f->pc];
    gmmu_op op = (gmmu_op)in->op;
    trace(sm, GMMU_SM_TR_OPREAD, now, f->ctx, f->warp, f->pc);
    if (!gmmu_op_is_global(op)) {
        uint64_t ba[LANES], bbb[LANES], bcc[LANES];
        unsigned n = gmmu_op_nsrc(op);
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
    bool two = gmmu_op_log_entries(op) == 2;
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

/* Throttle: what a translated request tells the scores. A miss probes the
 * warp's VTA; a victim enters the VTA of the warp that allocated it, if that
 * warp's block is still on chip. Tags are line numbers (128-B lines). */
static uint32_t slot_warp_of(const struct gmmu_sm_state *s, uint32_t block, uint32_t warp)
{
    if (block == GMMU_SM_NO_BLOCK || warp >= s->wpb)
        return NONE;
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        uint32_t c = s->slot_ctx[slot];
        if (c != NONE && s->blk[c].id == block)
            return slot * s->wpb + warp;
    }
    return NONE;
}

static void lls_observe(gmmu_sm *sm, const block_t *b, uint32_t warp, uint64_t va,
                        const gmmu_sm_mem_resp *rs)
{
    struct gmmu_sm_state *s = sm->s;
    if (!s->lls || b->slot == NONE)
        return;
    const uint32_t g = b->slot * s->wpb + warp;
    if (sm->cfg.throttle == GMMU_THROTTLE_TCWS) { /* 4 KiB page tags */
        if (rs->tlb_miss) {
            if (gmmu_ccws_probe(s->lls, g, va >> 12, 1))
                sm->st.vta_hits++;
        } else {
            gmmu_ccws_depth_hit(s->lls, g, rs->tlb_hit_depth);
        }
        uint32_t owner = rs->tlb_victim ? slot_warp_of(s, rs->tlb_victim_block, rs->tlb_victim_warp) : NONE;
        if (owner != NONE) {
            gmmu_ccws_lost(s->lls, owner, rs->tlb_victim_va >> 12);
            sm->st.lines_lost++;
        }
        return;
    }
    const unsigned sh = 7; /* GMMU_SM_LINE_BYTES */
    if (rs->l1_miss) {
        uint32_t weight = 1;
        if (sm->cfg.throttle == GMMU_THROTTLE_TA_CCWS)
            weight = rs->tlb_miss ? sm->cfg.ccws.tlb_weight : sm->cfg.ccws.cache_weight;
        if (gmmu_ccws_probe(s->lls, b->slot * s->wpb + warp, rs->l1_addr >> sh, weight))
            sm->st.vta_hits++;
    }
    uint32_t owner = rs->l1_victim ? slot_warp_of(s, rs->l1_victim_block, rs->l1_victim_warp) : NONE;
    if (owner != NONE) {
        gmmu_ccws_lost(s->lls, owner, rs->l1_victim_addr >> sh);
        sm->st.lines_lost++;
    }
}

/* TLB-aware compaction: the request's page was used by the static warps of
 * its lanes; a TLB eviction takes the victim page's history with it. */
static void cpm_observe(gmmu_sm *sm, const block_t *b, uint32_t wi, uint32_t lanes, uint64_t va,
                        const gmmu_sm_mem_resp *rs, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    if (b->slot == NONE)
        return;
    if (rs->tlb_victim)
        gmmu_cpm_evict(s->cpm, rs->tlb_victim_va >> 12);
    uint32_t seen = 0; /* static warps done, bit per warp of the block */
    for (uint32_t l = 0; l < LANES; l++) {
        if (!(lanes & (1u << l)))
            continue;
        const uint8_t sw = b->home[(size_t)wi * LANES + l];
        if (sw == GMMU_TBC_NO_THREAD || (seen >> sw & 1u))
            continue;
        seen |= 1u << sw;
        gmmu_cpm_access(s->cpm, va >> 12, b->slot * s->wpb + sw, !rs->tlb_miss, now);
    }
    sm->st.cpm_updates = s->cpm->updates;
    sm->st.cpm_saturations = s->cpm->saturations;
}

static gmmu_status translate_reqs(gmmu_sm *sm, uint32_t i, uint64_t t0, uint32_t mask, bool retry)
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
            lls_observe(sm, b, f->warp, f->line[r], &resp);
            if (s->cpm)
                cpm_observe(sm, b, f->warp, f->lmask[r], f->line[r], &resp, req.now);
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

static gmmu_status schedule_completion(gmmu_sm *sm, uint32_t i, uint64_t now)
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

static gmmu_status ev_memstart(gmmu_sm *sm, uint32_t i, uint64_t now, uint64_t *mem_free)
{
    infl_t *f = &sm->s->pool[i];
    uint64_t t0 = now > *mem_free ? now : *mem_free;
    *mem_free = t0 + f->nreq;
    uint32_t all = f->nreq >= 32 ? 0xFFFFFFFFu : (1u << f->nreq) - 1u;
    gmmu_status st = translate_reqs(sm, i, t0, all, false);
    if (st == GMMU_OK) /* the ld/st unit takes another instruction once these are sent */
        st = ev_push(sm->s, t0 + f->nreq, EV_MEMSENT, i, 0);
    if (st != GMMU_OK)
        return st;
    return schedule_completion(sm, i, t0);
}

static gmmu_status ev_retry(gmmu_sm *sm, uint32_t i, uint64_t now)
{
    infl_t *f = &sm->s->pool[i];
    uint32_t mask = f->fault_mask;
    f->t_fault = UINT64_MAX;
    sm->st.fault_retries++;
    gmmu_status st = translate_reqs(sm, i, now, mask, true);
    if (st != GMMU_OK)
        return st;
    if (f->fault_mask) /* still not present: keep waiting */
        return ev_push(sm->s, f->fault_ready > now ? f->fault_ready : now + 1, EV_RETRY, i, 0);
    return schedule_completion(sm, i, now);
}

static gmmu_status ev_lastcheck(gmmu_sm *sm, uint32_t i, uint64_t now)
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

static gmmu_status ev_commit(gmmu_sm *sm, uint32_t i, uint64_t now)
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
    return warp_progress(sm, c, wi, now);
}

static gmmu_status ev_fault(gmmu_sm *sm, uint32_t i, uint64_t now)
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
        st = try_switch_out(sm, c, now);
    if (st == GMMU_OK)
        st = warp_progress(sm, c, wi, now);
    return st;
}

static gmmu_status ev_ctx(gmmu_sm *sm, uint32_t c, uint64_t now)
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
        return fill_slot(sm, slot, now);
    }
    if (b->state == B_RESTORING) {
        b->state = B_ACTIVE;
        update_owned_peaks(sm);
        for (uint32_t i = 0; i < s->wpb; i++) {
            gmmu_status st = warp_progress(sm, c, i, now);
            if (st != GMMU_OK || b->state != B_ACTIVE)
                return st;
        }
    }
    return GMMU_OK;
}

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
    st = warp_progress(sm, c, wi, now);
    if (st != GMMU_OK) {
        s->failed = st;
        return TRY_NONE;
    }
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
        if (w->idle || gmmu_simt_done(&w->simt))
            return TRY_NONE;
        pc = gmmu_simt_pc(&w->simt);
        mask = gmmu_simt_mask(&w->simt);
    }
    if (now < w->branch_until)
        return TRY_BLOCKED;
    const gmmu_insn *in = &sm->kernel->code[pc];
    gmmu_op op = (gmmu_op)in->op;
    bool mem = gmmu_op_is_global(op);
    if (is_wd(sm) && w->wd_hold) {
        sm->st.stall_wd++;
        return TRY_BLOCKED;
    }
    gmmu_unit u = gmmu_op_unit(op);
    if (unit_left[u] == 0)
        return TRY_LIMITED;
    if (gmmu_op_is_branch(op))
        return issue_branch(sm, c, wi, now, unit_left);
    unsigned nsrc = gmmu_op_nsrc(op);
    bool log_replay = replay && sm->cfg.scheme == GMMU_SCHEME_OPLOG;
    bool rq_replay = replay && sm->cfg.scheme == GMMU_SCHEME_REPLAY_QUEUE;
    if (!log_replay)
        for (unsigned k = 0; k < nsrc; k++)
            if (w->pend_w[in->src[k]])
                return TRY_BLOCKED;
    if (gmmu_op_has_dst(op)) {
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
            log_n = (uint8_t)gmmu_op_log_entries(op);
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
    if (gmmu_op_has_dst(op))
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
    free(s->pend_w);
    free(s->pend_r);
    free(s->olbuf);
    free(s->olused);
    free(s->pool);
    free(s->heap);
    free(s->ipdom);
    free(s->order);
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
}

gmmu_status gmmu_sm_launch(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, gmmu_error *err)
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
    memset(&sm->st, 0, sizeof sm->st);
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
    s->pend_w = calloc(nw * s->nregs, 1);
    s->pend_r = calloc(nw * s->nregs, sizeof *s->pend_r);
    s->olbuf = calloc((size_t)s->nctx * per * LANES + 1, sizeof *s->olbuf);
    s->olused = calloc((size_t)s->nctx * per + 1, 1);
    s->pool = calloc(sm->cfg.inflight_max, sizeof *s->pool);
    s->cap_heap = sm->cfg.inflight_max * 2u + (uint32_t)nw * (GMMU_RQ_MAX + 3u) + 4u * s->nctx + 64u;
    s->heap = calloc(s->cap_heap, sizeof *s->heap);
    s->ipdom = malloc(k->ninsns * sizeof *s->ipdom);
    s->order = malloc((size_t)s->nslots * s->wpb * sizeof *s->order + 1);
    s->last_ctx = NONE;
    s->last_warp = NONE;
    if (!s->blk || !s->slot_ctx || !s->warps || !s->regs || !s->pend_w || !s->pend_r || !s->olbuf ||
        !s->olused || !s->pool || !s->heap || !s->ipdom || !s->order) {
        free_state(s);
        sm->s = NULL;
        return GMMU_ENOMEM;
    }
    for (uint32_t c = 0; c < s->nctx; c++) {
        block_t *b = &s->blk[c];
        b->state = B_FREE;
        b->slot = NONE;
        b->successor = NONE;
        b->w = s->warps + (size_t)c * s->wpb;
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
        st = fill_slot(sm, slot, now);
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
        uint32_t c = s->slot_ctx[g / s->wpb];
        if (c == NONE || s->blk[c].state != B_ACTIVE)
            continue;
        if (greedy_first && c == s->last_ctx && g % s->wpb == s->last_warp) {
            greedy = g;
            continue;
        }
        /* insertion by (block age, warp) */
        uint64_t key = s->blk[c].age * s->wpb + g % s->wpb;
        uint32_t i = n++;
        while (i > 0) {
            uint32_t p = s->order[i - 1];
            uint32_t pc = s->slot_ctx[p / s->wpb];
            if (s->blk[pc].age * s->wpb + p % s->wpb <= key)
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
    while (s->nheap && s->heap[0].t <= now) {
        event_t e = ev_pop(s);
        gmmu_status st = GMMU_OK;
        switch (e.kind) {
        case EV_OPREAD: st = ev_opread(sm, e.a, e.t); break;
        case EV_MEMSTART: st = ev_memstart(sm, e.a, e.t, &s->mem_free); break;
        case EV_RETRY: st = ev_retry(sm, e.a, e.t); break;
        case EV_MEMSENT: s->ldst_busy--; break;
        case EV_LASTCHECK: st = ev_lastcheck(sm, e.a, e.t); break;
        case EV_COMMIT: st = ev_commit(sm, e.a, e.t); break;
        case EV_FAULT: st = ev_fault(sm, e.a, e.t); break;
        case EV_RESUME: st = warp_progress(sm, e.a, e.b, e.t); break;
        case EV_CTX: st = ev_ctx(sm, e.a, e.t); break;
        case EV_FILL: st = fill_slot(sm, e.a, e.t); break;
        default: st = GMMU_EINVAL; break;
        }
        if (st != GMMU_OK)
            return st;
    }
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
            uint32_t c = s->slot_ctx[g / s->wpb];
            if (c != NONE && s->blk[c].state == B_ACTIVE && s->blk[c].w[g % s->wpb].state == W_RUN &&
                !gmmu_simt_done(&s->blk[c].w[g % s->wpb].simt))
                active |= 1ull << g;
        }
        s->lls_pool = gmmu_ccws_pool(s->lls, active);
    }
    for (uint32_t n = 0; n < total && slots > 0; n++) {
        uint32_t g = by_age ? s->order[n] : (s->rr + n) % total;
        if (g == NONE)
            break;
        uint32_t c = s->slot_ctx[g / s->wpb];
        if (c == NONE || s->blk[c].state != B_ACTIVE)
            continue;
        uint32_t wi = g % s->wpb;
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
    if (total)
        s->rr = (s->rr + 1) % total;
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
