/* gmmu — SM issue/commit model at warp-instruction granularity, with the
 * preemptible-fault schemes of tanasic-micro17 §3:
 * stall-on-fault, warp disable (until commit / until last TLB check),
 * replay queue and operand log, and block switching on faults.
 *
 * What it models
 *  - Thread blocks of warps, resident up to the occupancy limits (blocks,
 *    warps, register file, shared memory); a kernel's grid is handed out by
 *    the caller's block scheduler (env.next_block).
 *  - An issue stage (loose round robin, greedy-then-oldest or oldest first:
 *    cfg.order):
 *    issue_width instructions per cycle from
 *    one or more warps, per-unit limits (math, SFU, ld/st per cycle; at most
 *    ldst_queue global memory instructions in the ld/st unit), in
 *    program order per warp, checked by a scoreboard: a destination is
 *    pending until commit; a source is pending until operand read (the
 *    baseline's early release) — or, under the replay queue, until the last
 *    TLB check of a global memory instruction.
 *  - Out-of-order commit: ALU results after alu/sfu latency; global memory
 *    instructions are split by a coalescer into one request per 128-B line
 *    (one request per cycle through the memory pipeline) and each request
 *    asks env.translate for its TLB latency, data latency and fault outcome.
 *  - Control flow: each warp has a reconvergence stack (gmmu/simt_stack.h)
 *    giving its pc and active lanes; a branch resolves at operand read (the
 *    warp issues nothing until then), splits the warp when its lanes
 *    disagree, and the paths reconverge at its immediate post-dominator.
 *    Inactive lanes neither compute, nor access memory, nor have their
 *    registers written. A replay runs the lanes active at first issue.
 *    With cfg.compaction (thread block compaction, gmmu/tbc.h) a block-wide
 *    stack replaces the per-warp ones: the block's warp slots run dynamic
 *    warps whose lanes hold threads of any of its static warps (registers
 *    stay with the static warp); every conditional branch and reconvergence
 *    point synchronises the block, and a change of the stack's top regroups
 *    its threads once the block has no instruction in flight.
 *  - Real values: registers hold 64-bit lane values; instructions compute
 *    them; loads/stores/reductions read and write memory through
 *    env.read64/write64 when the instruction has passed its last TLB check
 *    (never for a squashed instruction), so a run with faults must end with
 *    the memory and registers of the fault-free run.
 *
 * Fault handling per scheme (a fault = a request whose translate reports
 * fault, with the cycle the page becomes present):
 *  - STALL: the request waits (a very long TLB miss), is re-sent when the
 *    fault is resolved, and the instruction completes; nothing is squashed.
 *  - WD_COMMIT / WD_LASTCHECK: after issuing a global memory instruction
 *    the warp issues nothing more until it commits / passes its last TLB
 *    check. A fault squashes it; the warp drains and replays it.
 *  - REPLAY_QUEUE: global memory instructions enter the warp's replay queue
 *    at issue and leave at commit; their sources stay reserved until the
 *    last TLB check. A fault squashes the faulted instructions, the warp
 *    drains the rest, and when the faults are resolved it replays the
 *    squashed ones in program order (sources from the register file) before
 *    issuing new instructions.
 *  - OPLOG: like the replay queue, but sources are released at operand read
 *    after being written to the operand log; issue stalls when the block's
 *    partition is full; replay reads the log.
 *  - Block switching (preemptible schemes): when a fault's position in the
 *    pending-fault queue exceeds switch_threshold, the local scheduler
 *    drains the faulted block, saves its context (registers, shared memory,
 *    replay queues, operand-log partition) and runs in its slot an off-chip
 *    block whose faults are resolved, or a new block from the grid, with at
 *    most max_extra_blocks blocks beyond the resident limit per SM.
 *
 * Time: the caller steps the SM cycle by cycle (gmmu_sm_step) but may jump
 * to gmmu_sm_next_cycle(); nothing happens in the cycles between. */
#ifndef GMMU_SM_ISSUE_H
#define GMMU_SM_ISSUE_H

#include "gmmu/ccws.h"
#include "gmmu/kernels.h"
#include "gmmu/oplog.h"
#include "gmmu/replay_queue.h"
#include "gmmu/status.h"
#include "gmmu/tbc.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which ready warp issues first (docs/warp_sched.md). */
typedef enum gmmu_warp_order {
    GMMU_ORDER_LRR = 0, /* loose round robin: from the warp after last cycle's start */
    GMMU_ORDER_GTO = 1, /* greedy then oldest: the warp that issued last, then by age */
    GMMU_ORDER_OLDEST = 2 /* by age alone: older block first, lower warp first (TBC's
                             age-based priority) */
} gmmu_warp_order;

/* Thread block compaction (gmmu/tbc.h, docs/tbc.md). */
typedef enum gmmu_compaction {
    GMMU_COMPACT_NONE = 0,   /* per-warp reconvergence stacks */
    GMMU_COMPACT_TBC = 1,    /* block-wide stacks, dynamic warps by branch outcome */
    GMMU_COMPACT_TLB_TBC = 2 /* ... compacting only threads whose warps share pages (CPM) */
} gmmu_compaction;

/* Throttling of memory instructions by lost-locality scores (gmmu/ccws.h). */
typedef enum gmmu_throttle {
    GMMU_THROTTLE_NONE = 0,
    GMMU_THROTTLE_CCWS = 1,   /* VTAs of L1 lines; a VTA hit weighs 1 */
    GMMU_THROTTLE_TA_CCWS = 2, /* ... weighs ccws.tlb_weight if the access missed the TLB, else
                                  ccws.cache_weight */
    GMMU_THROTTLE_TCWS = 3     /* VTAs of TLB pages (4 KiB tags) probed on TLB misses, filled by
                                  TLB victims; TLB hits score ccws.depth_weight[depth] */
} gmmu_throttle;

/* "lrr", "gto", "oldest". */
const char *gmmu_warp_order_name(gmmu_warp_order o);
gmmu_status gmmu_warp_order_parse(const char *s, gmmu_warp_order *out);

typedef enum gmmu_fault_scheme {
    GMMU_SCHEME_STALL = 0,
    GMMU_SCHEME_WD_COMMIT = 1,
    GMMU_SCHEME_WD_LASTCHECK = 2,
    GMMU_SCHEME_REPLAY_QUEUE = 3,
    GMMU_SCHEME_OPLOG = 4
} gmmu_fault_scheme;

/* "stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog". */
const char *gmmu_fault_scheme_name(gmmu_fault_scheme s);
gmmu_status gmmu_fault_scheme_parse(const char *s, gmmu_fault_scheme *out);

#define GMMU_SM_LINE_BYTES 128u
#define GMMU_SM_MAX_WARP_SLOTS 256u /* = the largest max_warps */

typedef struct gmmu_sm_config {
    uint32_t sm_id;
    uint32_t max_blocks;       /* resident thread blocks (16) */
    uint32_t max_warps;        /* resident warps (64) */
    uint32_t regfile_bytes;    /* 256 KiB; a register costs 8 B x 32 lanes per warp */
    uint32_t shared_bytes;     /* 32 KiB */
    uint32_t issue_width;      /* instructions per cycle, from 1 or more warps (2) */
    uint32_t issue_cycles;     /* cycles the issue stage is held by a cycle in which it
                                  issued: a 32-lane warp instruction over a pipeline of
                                  32 / issue_cycles lanes (1; 4 = 8 lanes) */
    uint32_t math_per_cycle;   /* math units (2) */
    uint32_t sfu_per_cycle;    /* special-function units (1) */
    uint32_t ldst_per_cycle;   /* ld/st units: memory instructions per cycle (1) */
    uint32_t ldst_queue;       /* global memory instructions in the ld/st unit, from issue
                                  until their last request is sent (2); issue stalls beyond */
    uint32_t opread_cycles;    /* issue -> operand read (1) */
    uint32_t alu_latency;      /* operand read -> commit, math (8) */
    uint32_t sfu_latency;      /* operand read -> commit, SFU (20) */
    uint32_t shared_latency;   /* operand read -> commit, LDS/STS: shared memory is accessed
                                  at operand read, never translated (24; docs/simt.md) */
    uint32_t coalesce_cycles;  /* operand read -> first request at the TLB (2) */
    bool overlap_lines;        /* true: each line of an instruction goes to the data side when
                                  its own translation is done (true); false: every line waits
                                  for the instruction's last translation (pichai-asplos14's
                                  no-overlap baseline) */
    uint32_t inflight_max;     /* in-flight instruction slots of the SM (1024) */
    gmmu_fault_scheme scheme;
    gmmu_warp_order order;     /* issue priority among ready warps (LRR) */
    gmmu_throttle throttle;    /* NONE */
    gmmu_ccws_config ccws;     /* throttle != NONE: VTAs and scores (warps: set at launch to
                                  the resident warps, at most 64) */
    gmmu_compaction compaction; /* NONE; not with a throttle; blocks of at most
                                   GMMU_TBC_MAX_WARPS warps */
    gmmu_cpm_config cpm;       /* TLB_TBC: counter_bits, history, pages (the L1 TLB's
                                  entries), flush_cycles; warps: set at launch to the
                                  resident warps */
    uint32_t oplog_bytes;      /* operand log capacity (OPLOG only), e.g. 16384 */
    uint32_t replay_queue_entries; /* per warp (1..64) */
    bool block_switch;         /* switch faulted blocks out (preemptible schemes) */
    uint32_t switch_threshold; /* switch when the fault's queue position > this */
    uint32_t max_extra_blocks; /* blocks beyond the resident limit per SM (4) */
    uint32_t ctx_fixed_cycles; /* fixed part of one context save or restore */
    uint32_t ctx_bytes_per_cycle; /* context save/restore bandwidth */
    uint32_t rq_entry_bytes;   /* context bytes per replay-queue entry */
    bool access_shape;         /* count every global memory instruction's shape
                                  (gmmu_sm_access_shape: 4 KiB and 2 MiB pages, span) into
                                  the mem_pages_max .. mem_span_max stats; false: not
                                  counted, the instruction pays nothing for them */
} gmmu_sm_config;

/* A warp scheduler by name (sm.warp_scheduler) into c's order, throttle and
 * compaction: a plain order ("lrr", "gto", "oldest") with neither; a
 * lost-locality throttle ("ccws", "ta-ccws", "tcws") over a greedy-then-
 * oldest order, as CCWS throttles GTO; thread block compaction ("tbc",
 * "tlb-tbc") with TBC's age-based priority (oldest). Any other name:
 * GMMU_EINVAL and c unchanged. */
gmmu_status gmmu_warp_scheduler_parse(const char *s, gmmu_sm_config *c);

/* The tanasic-micro17 SM (table 1). */
void gmmu_sm_config_tanasic17(gmmu_sm_config *c);
gmmu_status gmmu_sm_config_check(const gmmu_sm_config *c, gmmu_error *err);
/* Hardware state of the throttle in bits, 0 without one: VTAs and a
 * lost-locality score for each of the SM's max_warps warp slots
 * (gmmu_ccws_state_bits). Tags are counted at a 48-bit address width: line
 * numbers for CCWS and TA-CCWS (48 - log2(GMMU_SM_LINE_BYTES) = 41 bits;
 * the model tags physical lines), 4 KiB virtual pages for TCWS (36 bits);
 * scores are 16-bit counters. TA-CCWS adds nothing to CCWS's state (its
 * weights are shifts of the increment). */
uint64_t gmmu_sm_throttle_state_bits(const gmmu_sm_config *c);
/* Whether c's warp scheduler reads the TLB and L1 sideband of translated
 * requests (gmmu_sm_mem_resp's tlb_miss, l1_miss, l1_victim*, tlb_hit_depth
 * and tlb_victim*): a lost-locality throttle or TLB-aware compaction does.
 * Without one, translate may leave those fields 0 (the platform's SM does
 * not ask its TLB and cache for them). */
static inline bool gmmu_sm_needs_sideband(const gmmu_sm_config *c)
{
    return c->throttle != GMMU_THROTTLE_NONE || c->compaction == GMMU_COMPACT_TLB_TBC;
}
/* Page divergence of one warp memory instruction: the distinct 4 KiB pages
 * among the addresses of the lanes in mask (pichai-asplos14's measure). */
uint32_t gmmu_sm_distinct_pages(const uint64_t addr[32], uint32_t mask);
/* The shape of one warp memory instruction (the characterisation of
 * docs/kernels.md): distinct 4 KiB pages, distinct 2 MiB pages, and the
 * address span (highest word address - lowest word address + 8 bytes) of
 * the lanes in mask; all 0 for an empty mask. */
typedef struct gmmu_sm_shape {
    uint32_t pages_4k, pages_2m;
    uint64_t span;
} gmmu_sm_shape;
void gmmu_sm_access_shape(const uint64_t addr[32], uint32_t mask, gmmu_sm_shape *out);

/* The whole tanasic-micro17 machine (table 1): what the GPU platform with
 * the tanasic17 named config (platforms/configs/tanasic17.json) builds
 * around the SMs. */
typedef struct gmmu_machine_config {
    uint32_t num_sms;          /* 16 */
    uint32_t clock_mhz;        /* 1000 */
    gmmu_sm_config sm;
    uint32_t line_bytes;       /* 128 */
    uint32_t l1_bytes, l1_ways, l1_mshrs, l1_latency;           /* 32 KiB, 4, 32, 40 */
    uint32_t l1_tlb_entries, l1_tlb_ways, l1_tlb_latency;       /* 32, 8, 1 */
    uint32_t l2_bytes, l2_ways, l2_latency, l2_mshrs;           /* 2 MiB, 8, 70, 512 */
    uint32_t l2_tlb_entries, l2_tlb_ways, l2_tlb_mshrs, l2_tlb_latency; /* 1024, 8, 128, 70 */
    uint32_t walkers, walk_latency;                             /* 64, 500 */
    uint32_t dram_bytes_per_cycle, dram_latency;                /* 256 GB/s at 1 GHz, 200 */
} gmmu_machine_config;

void gmmu_machine_config_tanasic17(gmmu_machine_config *c);
gmmu_status gmmu_machine_config_check(const gmmu_machine_config *c, gmmu_error *err);

/* One coalesced request (one 128-B line) of a global memory instruction. */
typedef struct gmmu_sm_mem_req {
    uint64_t va;        /* line address */
    uint32_t lane_mask; /* lanes accessing the line */
    uint32_t sm_id, block_id, warp; /* warp within the block */
    uint32_t pc;
    uint64_t now;       /* cycle the request reaches the TLB */
    bool write;         /* store or reduction */
    bool retry;         /* STALL: re-sent after its fault was resolved */
    uint64_t send;      /* which sending of an instruction's requests this is (1, 2, ...
                           per SM): equal for the line requests of one instruction sent
                           together, so a TLB can take them as one warp access */
} gmmu_sm_mem_req;

typedef struct gmmu_sm_mem_resp {
    uint32_t tlb_cycles;  /* now -> TLB check done (hit, L2 TLB or walk) */
    uint32_t data_cycles; /* TLB check -> data back (load) or write accepted */
    bool fault;           /* page not present */
    uint64_t fault_ready; /* fault: absolute cycle the page becomes present (> now) */
    uint32_t fault_queue_pos; /* fault: position in the global pending-fault queue */
    /* For throttling (optional; zero = nothing to report): */
    bool tlb_miss;            /* the request missed the L1 TLB */
    bool l1_miss;             /* the line missed the L1 data cache ... */
    uint64_t l1_addr;         /* ... whose (physical) address is this */
    bool l1_victim;           /* the access evicted a valid L1 line at l1_victim_addr, */
    uint64_t l1_victim_addr;
    uint32_t l1_victim_block; /* allocated by this block's warp (GMMU_SM_NO_BLOCK: unknown) */
    uint32_t l1_victim_warp;
    uint32_t tlb_hit_depth;   /* a TLB hit: its LRU depth (TCWS) */
    bool tlb_victim;          /* a fill for this request evicted a TLB entry of this VA, */
    uint64_t tlb_victim_va;
    uint32_t tlb_victim_block; /* brought in by this block's warp */
    uint32_t tlb_victim_warp;
} gmmu_sm_mem_resp;

#define GMMU_SM_NO_BLOCK 0xFFFFFFFFu

typedef enum gmmu_sm_trace_kind {
    GMMU_SM_TR_ISSUE = 0,
    GMMU_SM_TR_REPLAY_ISSUE,
    GMMU_SM_TR_OPREAD,
    GMMU_SM_TR_LASTCHECK,
    GMMU_SM_TR_COMMIT,
    GMMU_SM_TR_FAULT,
    GMMU_SM_TR_BLOCK_START,
    GMMU_SM_TR_BLOCK_DONE,
    GMMU_SM_TR_SWITCH_OUT,
    GMMU_SM_TR_RESTORE,
    GMMU_SM_TR_OPLOG_FULL
} gmmu_sm_trace_kind;

typedef struct gmmu_sm_trace_event {
    uint64_t cycle;
    gmmu_sm_trace_kind kind;
    uint32_t block_id, warp, pc;
} gmmu_sm_trace_event;

/* The SM's environment. Every callback gets ctx. translate, read64 and
 * write64 are required; next_block hands out the grid (required);
 * block_done (optional) receives a finished block's final registers as
 * regs[(warp * nregs + reg) * 32 + lane]; trace is optional. */
typedef struct gmmu_sm_env {
    gmmu_status (*translate)(void *ctx, const gmmu_sm_mem_req *req, gmmu_sm_mem_resp *resp);
    gmmu_status (*read64)(void *ctx, uint64_t va, uint64_t *val);
    gmmu_status (*write64)(void *ctx, uint64_t va, uint64_t val);
    gmmu_status (*next_block)(void *ctx, uint32_t sm_id, bool *got, uint32_t *block_id);
    gmmu_status (*block_done)(void *ctx, uint32_t sm_id, uint32_t block_id, const uint64_t *regs,
                              uint32_t nwarps, uint32_t nregs);
    void (*trace)(void *ctx, const gmmu_sm_trace_event *ev);
    /* Optional, with cfg.access_shape: each global memory instruction that
     * passed its TLB checks, as it is performed: its pc, its active lanes and
     * their shape (the per-instruction breakdown of mem_pages, mem_pages_2m
     * and mem_span_bytes, e.g. to find which loads of a kernel diverge). */
    void (*shape)(void *ctx, uint32_t pc, uint32_t lanes, const gmmu_sm_shape *sh);
    void *ctx;
} gmmu_sm_env;

typedef struct gmmu_sm_stats {
    uint64_t end_cycle;       /* cycle the last block finished */
    uint64_t issued;          /* instructions issued, replays included */
    uint64_t replayed;        /* replay issues */
    uint64_t committed;
    uint64_t mem_insns;       /* global memory instructions that passed their TLB checks */
    uint64_t mem_pages;       /* distinct 4 KiB pages of their active lanes, summed (page
                                 divergence = mem_pages / mem_insns) */
    uint64_t mem_static_warps;/* the static warps their active lanes belong to, summed (=
                                 mem_insns without compaction) */
    uint64_t mem_static_pages;/* distinct pages per static warp's lanes, summed: page
                                 divergence before compaction = this / mem_static_warps */
    /* With cfg.access_shape only (0 otherwise), over the same instructions: */
    uint64_t mem_pages_max;   /* the most distinct 4 KiB pages of one instruction */
    uint64_t mem_pages_2m;    /* distinct 2 MiB pages, summed */
    uint64_t mem_pages_2m_max;
    uint64_t mem_span_bytes;  /* address spans (gmmu_sm_access_shape), summed */
    uint64_t mem_span_max;
    uint64_t touched_4k;      /* distinct 4 KiB pages these instructions touched since the
                                 first launch (gmmu/footprint.h) */
    uint64_t touched_2m;      /* distinct 2 MiB pages, the same way */
    uint64_t active_lanes;    /* active lanes of first issues (SIMD utilisation = this /
                                 (32 x (issued - replayed))) */
    uint64_t compactions;     /* compaction: times a block's threads were regrouped */
    uint64_t dynamic_warps;   /* compaction: dynamic warps formed */
    uint64_t mixed_warps;     /* ... of them holding threads of two or more static warps */
    uint64_t cpm_updates;     /* TLB-aware compaction: counter increments */
    uint64_t cpm_saturations; /* ... that brought a counter to its maximum */
    uint64_t block_syncs;     /* compaction: block-wide synchronisations (branches and
                                 reconvergence points) */
    uint64_t stall_sync;      /* compaction: warp-cycles a dynamic warp waited at a block-wide
                                 synchronisation for the block's other warps */
    uint64_t regroup_wait_cycles; /* compaction: block-cycles from a change of the top entry
                                     to the regrouping (waiting for in-flight instructions) */
    uint64_t requests;        /* translate calls */
    uint64_t faults;          /* faulting instructions (squashed, or stalled under STALL) */
    uint64_t fault_retries;   /* STALL: re-sent requests */
    uint64_t stall_wd;        /* warp-cycles blocked by warp disable */
    uint64_t stall_war;       /* warp-cycles blocked by a pending source read (WAR) */
    uint64_t stall_oplog_full;/* warp-cycles blocked by a full operand-log partition */
    uint64_t stall_rq_full;
    uint64_t stall_pool_full;
    uint64_t stall_ldst_busy;  /* warp-cycles blocked by a full ld/st unit */
    uint64_t stall_throttled;   /* warp-cycles a memory instruction was held by the throttle */
    uint64_t vta_hits;          /* throttle: misses found in the warp's VTA (lost locality) */
    uint64_t lines_lost;        /* throttle: victims entered into their owner's VTA */
    uint64_t issued_by_slot[GMMU_SM_MAX_WARP_SLOTS]; /* issued, per warp slot (resident block
                                                        slot x warps per block + warp) */
    uint64_t held_by_slot[GMMU_SM_MAX_WARP_SLOTS];   /* warp-cycles the scheduler held the
                                                        slot's warp (stall_throttled +
                                                        stall_sync), per warp slot */
    uint64_t branches;          /* branch instructions issued (in issued and committed too) */
    uint64_t divergent_branches;/* branches whose active lanes split */
    uint32_t simt_peak_depth;   /* deepest reconvergence stack of any warp */
    uint64_t barriers;          /* block barriers released (BAR; docs/simt.md) */
    uint64_t stall_bar;         /* warp-cycles a warp waited at a block barrier */
    uint64_t shared_accesses;   /* LDS/STS instructions executed (no translation) */
    uint64_t blocks_started, blocks_done;
    uint64_t switch_outs, restores, extra_blocks;
    uint32_t peak_extra_blocks; /* most blocks owned beyond the resident limit */
    uint32_t peak_offchip;
    uint64_t ctx_cycles;        /* summed save + restore cycles */
    uint32_t resident_blocks;   /* occupancy of the launched kernel */
    uint32_t oplog_partition_bytes;
} gmmu_sm_stats;

struct gmmu_sm_state; /* private */

typedef struct gmmu_sm {
    gmmu_sm_config cfg;
    gmmu_sm_env env;
    const gmmu_kernel *kernel;
    struct gmmu_sm_state *s;
    struct gmmu_footprint *foot; /* cfg.access_shape only: the pages touched (touched_4k/2m) */
    gmmu_sm_stats st;
} gmmu_sm;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg and
 * env (the callbacks), names a bad field in err and returns the SM in *out;
 * destroy frees it (NULL is a no-op). */
gmmu_status gmmu_sm_create(const gmmu_sm_config *cfg, const gmmu_sm_env *env, gmmu_sm **out,
                           gmmu_error *err);
void gmmu_sm_destroy(gmmu_sm *sm);
/* Start kernel k (which must outlive the run) at cycle now: size the
 * occupancy, partition the operand log, take the first blocks from
 * env.next_block. Allocates; everything after it does not, but for the
 * footprint counter of cfg.access_shape, which grows as pages are first
 * touched (a failed growth fails the step with GMMU_ENOMEM). */
gmmu_status gmmu_sm_launch(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, gmmu_error *err);
/* The next launch of a program (gmmu_program): as gmmu_sm_launch, once the
 * previous launch is done (gmmu_sm_done) and at a cycle not before it ended;
 * the statistics go on accumulating (resident_blocks and
 * oplog_partition_bytes become the new kernel's). The warp scheduler's
 * state (scores, compaction) starts afresh, as at a kernel boundary. */
gmmu_status gmmu_sm_launch_next(gmmu_sm *sm, const gmmu_kernel *k, uint64_t now, gmmu_error *err);
/* Process cycle now (>= the previous one): events due, then issue. */
gmmu_status gmmu_sm_step(gmmu_sm *sm, uint64_t now);
/* Why the last gmmu_sm_step failed, in words ("" when nothing says more
 * than its status): e.g. a BAR reached in divergent code. */
const char *gmmu_sm_failure(const gmmu_sm *sm);
/* The next cycle at which something can happen (UINT64_MAX when done). */
uint64_t gmmu_sm_next_cycle(const gmmu_sm *sm);
bool gmmu_sm_done(const gmmu_sm *sm);
/* Step until done or max_cycles; *end_cycle gets st.end_cycle. GMMU_EBUSY if
 * max_cycles passed first. For one SM alone; platforms step SMs together. */
gmmu_status gmmu_sm_run(gmmu_sm *sm, uint64_t max_cycles, uint64_t *end_cycle);
/* Occupancy of kernel k on this SM (resident blocks), 0 if it does not fit. */
uint32_t gmmu_sm_occupancy(const gmmu_sm_config *c, const gmmu_kernel *k);

#ifdef __cplusplus
}
#endif
#endif
