/* gmmu — comparator-tree page-walk scheduler (Pichai et al., ASPLOS'14,
 * section 6.3, figures 8-9), golden model with a cycle-step core.
 *
 * TLB misses sit in MSHRs. A scheduler scans the MSHRs level by level
 * (PML4, PDP, PD, PT); at each level identical references (same table, same
 * index) are issued once and references to the same 128-byte line (same
 * table, index bits [8:4]) are issued back to back. The scan of a lower
 * level runs while the reads of the upper level are in flight: the scan
 * names a table either by its physical address (when known) or by the read
 * that will return it. docs/walk_scheduler.md states every rule and the
 * cycle cost of each variant.
 *
 * The core is gmmu_walk_sched_step(): one call = one clock cycle, POD inputs
 * and outputs (an RTL twin is checked against it cycle by cycle).
 * gmmu_walk_sched_run() is a convenience loop on top of the same core.
 * The model holds every table inline: no allocation, no I/O, no globals. */
#ifndef GMMU_WALK_SCHED_H
#define GMMU_WALK_SCHED_H

#include "gmmu/line_cache.h"
#include "gmmu/pagetable.h"
#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_WS_MAX_MSHRS 64u   /* upper bound of cfg.mshrs */
/* Upper bound of the serial variant's walkers: of cfg.walkers here and of the
 * walker component's `walkers` (ptw.walkers), checked by
 * gmmu_ws_walkers_check() only. */
#define GMMU_WS_MAX_WALKERS 256u
#define GMMU_WS_ALLOC_MAX 4u    /* K: MSHR allocations accepted per cycle (4 TLB ports) */
#define GMMU_WS_RETIRE_MAX 4u   /* completed walks reported per cycle, at most */
/* Reference slots: one per distinct outstanding page-table reference. Each
 * MSHR holds at most one slot per level, so 4 per MSHR always suffice. */
#define GMMU_WS_MAX_SLOTS (4u * GMMU_WS_MAX_MSHRS)
#define GMMU_WS_NO_SLOT 0xFFFFu

typedef enum gmmu_ws_variant {
    GMMU_WS_SERIAL = 0,   /* `walkers` naive walkers, one walk each, no merging */
    GMMU_WS_TREE = 1,     /* comparator tree shared across levels: one line group per pass */
    GMMU_WS_PAIRWISE = 2  /* comparators between every pair of MSHRs: all groups in one pass */
} gmmu_ws_variant;

typedef struct gmmu_ws_config {
    gmmu_ws_variant variant;
    uint32_t mshrs;            /* 1..GMMU_WS_MAX_MSHRS (pichai14: 32) */
    uint32_t walkers;          /* SERIAL: 1..GMMU_WS_MAX_WALKERS; TREE/PAIRWISE: must be 1 */
    uint32_t scan_pass_cycles; /* cycles of one comparator pass, 1..16 (default 1) */
    uint32_t retire_width;     /* completed walks reported per cycle, 1..GMMU_WS_RETIRE_MAX */
} gmmu_ws_config;

/* pichai14 defaults: TREE, 32 MSHRs, 1 walker, 1-cycle passes, retire 4. */
void gmmu_ws_config_default(gmmu_ws_config *cfg);
/* Checks every field; the walkers rule is gmmu_ws_walkers_check(). */
gmmu_status gmmu_ws_config_check(const gmmu_ws_config *cfg, gmmu_error *err);
/* The one walker limit: SERIAL takes 1..GMMU_WS_MAX_WALKERS walkers, TREE
 * and PAIRWISE exactly one (the scheduler drives one walker). err->field is
 * "walkers". */
gmmu_status gmmu_ws_walkers_check(gmmu_ws_variant variant, uint32_t walkers, gmmu_error *err);

/* ---- cycle-step interface (layouts pinned below; RTL ports follow them) ---- */

/* One MSHR allocation: a TLB miss on va. start_level 4 = walk from the root
 * (table_base = CR3); 3..1 = a page-walk cache already supplied the table of
 * that level. access: GMMU_ACC_WRITE | GMMU_ACC_USER (permission checks as in
 * gmmu_walk_from; GMMU_ACC_SET_AD is not supported: the scheduler never
 * writes PTEs). `valid` is ignored by gmmu_walk_sched_run(). */
typedef struct gmmu_ws_alloc {
    uint64_t va;
    uint64_t table_base; /* 4 KiB aligned PA of the table at start_level */
    uint8_t valid;
    uint8_t start_level; /* 4..1 */
    uint8_t access;
    uint8_t pad_[5];
} gmmu_ws_alloc;

/* A memory response: the PTE read with this tag. Any latency, any order. */
typedef struct gmmu_ws_resp {
    uint8_t valid;
    uint8_t pad_;
    uint16_t tag;
    uint32_t pad2_;
    uint64_t data;
} gmmu_ws_resp;

typedef struct gmmu_ws_in {
    gmmu_ws_alloc alloc[GMMU_WS_ALLOC_MAX]; /* accepted in array order while MSHRs are free */
    gmmu_ws_resp resp;                      /* at most one response per cycle */
    uint8_t mem_ready;                      /* 0: memory cannot take a request this cycle */
    uint8_t pad_[7];
} gmmu_ws_in;

/* A page-table read request: 8 bytes at pa, for the table of `level`. */
typedef struct gmmu_ws_req {
    uint8_t valid;
    uint8_t level; /* 4..1 */
    uint16_t tag;  /* return it with the response (< GMMU_WS_MAX_SLOTS) */
    uint32_t pad_;
    uint64_t pa;
} gmmu_ws_req;

/* A completed walk. Fields equal gmmu_walk_from()'s result for the same
 * (table_base, start_level, va, access): pa, page_shift and pte are 0 on a
 * fault; table_base[level] is set from start_level down to the last level
 * read, 0 elsewhere. */
typedef struct gmmu_ws_done {
    uint8_t valid;
    uint8_t fault;       /* gmmu_fault */
    uint8_t fault_level; /* 4..1, 0 if no fault */
    uint8_t page_shift;  /* 12, 21, 30; 0 on a fault */
    uint8_t mshr;        /* MSHR id, freed by this report */
    uint8_t nreads;      /* PTE reads this walk consumed (issued or merged) */
    uint8_t pad_[2];
    uint64_t va;
    uint64_t pa;
    uint64_t pte;
    uint64_t table_base[GMMU_PT_LEVELS + 1];
} gmmu_ws_done;

typedef struct gmmu_ws_out {
    gmmu_ws_req req;
    uint8_t alloc_accepted[GMMU_WS_ALLOC_MAX]; /* 1: in.alloc[i] took an MSHR */
    uint8_t alloc_mshr[GMMU_WS_ALLOC_MAX];     /* ... this one */
    uint32_t n_done;                           /* valid entries at the front of done[] */
    uint32_t pad_;
    gmmu_ws_done done[GMMU_WS_RETIRE_MAX];
} gmmu_ws_out;

#ifdef __cplusplus
#define GMMU_WS_STATIC_ASSERT static_assert
#else
#define GMMU_WS_STATIC_ASSERT _Static_assert
#endif
GMMU_WS_STATIC_ASSERT(sizeof(gmmu_ws_alloc) == 24, "gmmu_ws_alloc layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_alloc, table_base) == 8, "gmmu_ws_alloc layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_alloc, valid) == 16, "gmmu_ws_alloc layout");
GMMU_WS_STATIC_ASSERT(sizeof(gmmu_ws_resp) == 16, "gmmu_ws_resp layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_resp, tag) == 2, "gmmu_ws_resp layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_resp, data) == 8, "gmmu_ws_resp layout");
GMMU_WS_STATIC_ASSERT(sizeof(gmmu_ws_in) == 24 * GMMU_WS_ALLOC_MAX + 16 + 8, "gmmu_ws_in layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_in, resp) == 24 * GMMU_WS_ALLOC_MAX, "gmmu_ws_in layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_in, mem_ready) == 24 * GMMU_WS_ALLOC_MAX + 16,
                      "gmmu_ws_in layout");
GMMU_WS_STATIC_ASSERT(sizeof(gmmu_ws_req) == 16, "gmmu_ws_req layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_req, pa) == 8, "gmmu_ws_req layout");
GMMU_WS_STATIC_ASSERT(sizeof(gmmu_ws_done) == 72, "gmmu_ws_done layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_done, va) == 8, "gmmu_ws_done layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_done, table_base) == 32, "gmmu_ws_done layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_out, alloc_accepted) == 16, "gmmu_ws_out layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_out, n_done) == 16 + 2 * GMMU_WS_ALLOC_MAX,
                      "gmmu_ws_out layout");
GMMU_WS_STATIC_ASSERT(offsetof(gmmu_ws_out, done) == 16 + 2 * GMMU_WS_ALLOC_MAX + 8,
                      "gmmu_ws_out layout");
GMMU_WS_STATIC_ASSERT(GMMU_WS_MAX_SLOTS <= 0xFFFFu, "tags fit gmmu_ws_req.tag");

/* ---- counters --------------------------------------------------------------- */
typedef struct gmmu_ws_stats {
    uint64_t cycles;                 /* steps taken */
    uint64_t walks;                  /* walks completed (reported in out.done) */
    uint64_t faults;                 /* ... of which with a fault */
    uint64_t allocs;                 /* MSHR allocations accepted */
    uint64_t alloc_rejects;          /* allocations refused: MSHRs full */
    uint64_t refs_walked;            /* PTE reads the walks consumed (= serial walker reads) */
    uint64_t refs_issued;            /* read requests sent to memory */
    uint64_t refs_merged;            /* identical references served by another walk's read */
    uint64_t refs_cancelled;         /* scheduled references dropped before issue (walk ended above) */
    uint64_t refs_wasted;            /* issued reads no walk consumed */
    uint64_t same_line_back_to_back; /* requests to the 128 B line of the previous request */
    uint64_t scans;                  /* scans started (TREE/PAIRWISE) */
    uint64_t scan_passes;            /* comparator passes */
    uint64_t scan_busy_cycles;       /* cycles the comparator was busy */
    uint64_t line_groups;            /* line groups formed by scans */
    uint64_t mem_stall_cycles;       /* a request was ready but mem_ready was 0 */
    uint64_t max_inflight;           /* most reads in flight at once */
} gmmu_ws_stats;

/* ---- model state (internal; read-only for users) ------------------------------ */
typedef struct gmmu_ws_mshr {
    uint64_t va;
    uint64_t table;    /* PA of the table at `level` once known */
    uint64_t tb[GMMU_PT_LEVELS + 1];
    uint64_t pte;      /* leaf PTE once done */
    uint64_t pa;
    uint64_t seq;      /* allocation order */
    uint64_t alloc_cycle;
    uint16_t ref[GMMU_PT_LEVELS + 1]; /* slot per level, GMMU_WS_NO_SLOT if none */
    uint8_t valid, done, access, start_level;
    uint8_t level;     /* level whose PTE the walk waits for */
    uint8_t next_scan; /* level still to be scanned (0: none) */
    uint8_t fault, fault_level, page_shift, nreads;
    uint16_t walker;   /* SERIAL: walker bound to this walk, 0xFFFF none */
} gmmu_ws_mshr;

enum { GMMU_WS_SLOT_FREE = 0, GMMU_WS_SLOT_QUEUED = 1, GMMU_WS_SLOT_INFLIGHT = 2,
       GMMU_WS_SLOT_ORPHAN = 3 /* in flight, no consumer left */ };

typedef struct gmmu_ws_slot {
    uint64_t key;       /* known ? table PA : parent slot id */
    uint64_t seq;       /* creation order (issue priority) */
    uint64_t ready_cycle; /* first cycle it may issue (created / table known + 1) */
    uint16_t index;     /* 9-bit index into the table */
    uint16_t refcount;  /* MSHRs holding it and not yet served */
    uint8_t state, level, known;
    uint8_t pad_;
} gmmu_ws_slot;

typedef struct gmmu_walk_sched {
    gmmu_ws_config cfg;
    gmmu_ws_stats st;
    uint64_t cycle;
    uint64_t alloc_seq, slot_seq;
    gmmu_ws_mshr m[GMMU_WS_MAX_MSHRS];
    gmmu_ws_slot s[GMMU_WS_MAX_SLOTS];
    uint32_t nslots;       /* slot file size: 4 x mshrs */
    uint32_t free_slots;
    uint32_t inflight;
    uint64_t queued[GMMU_WS_MAX_SLOTS / 64]; /* bit i: s[i] is QUEUED (what issue looks at) */
    uint64_t busy[GMMU_WS_MAX_SLOTS / 64];   /* bit i: s[i] is not FREE (what scans match against) */
    uint64_t valid_mask, done_mask;          /* bit i: m[i].valid, m[i].valid && m[i].done */
    /* comparator */
    uint8_t scan_active, scan_level, last_scan_level, scan_timer;
    uint64_t scan_mask;    /* MSHRs still to be grouped in the active scan */
    /* issue */
    uint8_t have_last;
    uint64_t last_line;    /* PA >> 7 of the previous request */
    uint64_t last_table;   /* table / line index of the previous request (line lock) */
    uint16_t last_line_idx;
    /* SERIAL walkers: MSHR id bound to each, 0xFF when idle */
    uint8_t walker_mshr[GMMU_WS_MAX_WALKERS];
    gmmu_line_cache *lc;   /* optional, used by gmmu_walk_sched_run() only */
} gmmu_walk_sched;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_walk_sched_create(const gmmu_ws_config *cfg, gmmu_walk_sched **out,
                                   gmmu_error *err);
void gmmu_walk_sched_destroy(gmmu_walk_sched *ws);
/* Drop all state and counters (keeps cfg and the attached line cache). */
void gmmu_walk_sched_reset(gmmu_walk_sched *ws);

/* One clock cycle. Order inside a cycle (see docs/walk_scheduler.md):
 * response -> retire -> issue -> comparator/walker dispatch -> allocation.
 * Allocations see the MSHRs free at the start of the cycle and are visible
 * to the scheduler from the next cycle. Returns GMMU_EINVAL (state
 * unchanged) for a malformed input: bad start_level/table_base/access, or a
 * response whose tag is not in flight. */
gmmu_status gmmu_walk_sched_step(gmmu_walk_sched *ws, const gmmu_ws_in *in, gmmu_ws_out *out);

/* Free MSHRs now (allocations this many are accepted next step). */
unsigned gmmu_walk_sched_free_mshrs(const gmmu_walk_sched *ws);
/* True when no walk is in progress and no read is in flight. */
bool gmmu_walk_sched_idle(const gmmu_walk_sched *ws);

/* ---- convenience loop on the step core ------------------------------------- */

/* One PTE read: 8 bytes at pa into *data, its latency in cycles (>= 1) into
 * *latency_cycles. Any status other than GMMU_OK aborts the run with GMMU_EMEM. */
typedef gmmu_status (*gmmu_ws_mem_fn)(void *ctx, uint64_t pa, uint64_t *data,
                                      uint32_t *latency_cycles);

typedef struct gmmu_ws_result {
    uint64_t va;
    uint64_t pa;
    uint64_t pte;
    uint64_t table_base[GMMU_PT_LEVELS + 1];
    uint64_t alloc_cycle; /* cycle the MSHR was taken, relative to the run's start */
    uint64_t done_cycle;  /* cycle the walk was reported, relative to the run's start */
    gmmu_fault fault;
    uint32_t fault_level;
    uint32_t page_shift;
    uint32_t nreads;      /* PTE reads consumed (issued by it or merged) */
    uint32_t mshr;
    /* The entry the walk consumed at each level (index = level), from its
     * start level down to its leaf or faulting level, 0 elsewhere: what
     * gmmu_walk_from's level_pte holds for the same walk. The run loop learns
     * them from the responses (gmmu_ws_run_device), so every step device
     * gives them without a port for them. */
    uint64_t level_pte[GMMU_PT_LEVELS + 1];
} gmmu_ws_result;

/* Attach a page-table-line cache (or NULL to detach). gmmu_walk_sched_run()
 * then looks every request up in it at its issue cycle: a hit costs the
 * cache's latency, a miss the cache's miss cycles plus mem_fn's latency.
 * The step interface never uses it (the caller owns memory timing there). */
void gmmu_walk_sched_attach_line_cache(gmmu_walk_sched *ws, gmmu_line_cache *lc);

/* Walk allocs[0..n) to completion through the step core: allocations enter
 * up to GMMU_WS_ALLOC_MAX per cycle as MSHRs free (n may exceed cfg.mshrs),
 * requests are served by mem (one response per cycle, in arrival order),
 * results[i] belongs to allocs[i]. *cycles_out (optional) = cycles from the
 * first step to the last completion, inclusive. The scheduler must be idle
 * (GMMU_EBUSY otherwise); counters accumulate across runs. */
gmmu_status gmmu_walk_sched_run(gmmu_walk_sched *ws, const gmmu_ws_alloc *allocs, unsigned n,
                                gmmu_ws_mem_fn mem, void *mem_ctx, gmmu_ws_result *results,
                                uint64_t *cycles_out);

/* True when nothing can change until a memory response (or an allocation)
 * arrives: no scan running, no issuable reference, no finished walk waiting
 * to retire, no walk waiting for a scan (or, SERIAL, for an idle walker).
 * Stepping such a scheduler with no response and no allocation only counts
 * the cycle; the run loop skips those cycles. */
bool gmmu_walk_sched_quiescent(const gmmu_walk_sched *ws);

/* ---- the run loop over any step device ----------------------------------------
 * gmmu_walk_sched_run() is this loop over the C model. A twin with the same
 * per-cycle behaviour (the Verilated RTL, or the C model and the RTL in
 * lock-step) runs through the same loop, so both give the same results,
 * cycles and counters. */
typedef struct gmmu_ws_device {
    /* One clock cycle (gmmu_walk_sched_step's contract). Any status other
     * than GMMU_OK aborts the run with that status. */
    gmmu_status (*step)(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out);
    /* Optional: gmmu_walk_sched_quiescent() of the device's state after the
     * last step; NULL = never quiescent (every cycle is stepped). */
    bool (*quiescent)(void *ctx);
    /* Optional: the loop skipped `cycles` quiescent cycles (the C model
     * advances its cycle counter; a twin without one has nothing to do). */
    void (*skip)(void *ctx, uint64_t cycles);
    void *ctx;
    uint32_t mshrs; /* the device's MSHRs (cfg.mshrs) */
} gmmu_ws_device;

/* Counters the run loop keeps from the device's outputs only, so that every
 * device gives the same numbers. They accumulate across runs; have_last /
 * last_line carry the previous request's line from one run to the next (as
 * the scheduler's own issue state does). Zero the struct to start. */
typedef struct gmmu_ws_run_stats {
    uint64_t cycles;                 /* cycles stepped or skipped; also the time base the
                                        line cache sees (start it at the device's cycle) */
    uint64_t runs;                   /* gmmu_ws_run_device() calls that completed */
    uint64_t walks;                  /* walks reported done */
    uint64_t faults;                 /* ... of which with a fault */
    uint64_t allocs;                 /* MSHR allocations accepted */
    uint64_t refs_issued;            /* read requests (out.req) */
    uint64_t refs_walked;            /* PTE reads the walks consumed: sum of done.nreads */
    uint64_t same_line_back_to_back; /* requests to the 128 B line of the previous request */
    uint64_t max_inflight;           /* most reads in flight at once */
    uint8_t have_last;
    uint8_t pad_[7];
    uint64_t last_line;              /* PA >> 7 of the previous request */
} gmmu_ws_run_stats;

/* gmmu_walk_sched_run() on a step device. The device must be idle (no walk
 * in progress, no read in flight). lc (optional) times every request as in
 * gmmu_walk_sched_run(); st (optional) accumulates the loop's counters. */
gmmu_status gmmu_ws_run_device(const gmmu_ws_device *dev, gmmu_line_cache *lc,
                               const gmmu_ws_alloc *allocs, unsigned n, gmmu_ws_mem_fn mem,
                               void *mem_ctx, gmmu_ws_result *results, uint64_t *cycles_out,
                               gmmu_ws_run_stats *st);
/* The C model as a step device (ctx = ws). */
void gmmu_walk_sched_device(gmmu_walk_sched *ws, gmmu_ws_device *dev);

/* ---- independent serial walkers (variant SERIAL in a walker component) ----
 * Which of n walkers takes the next walk: the one that frees up first
 * (free_at[i], any time unit), the lowest index on a tie, so a request that
 * finds several idle walkers always takes walker 0 and timing stays
 * reproducible. n == 0 or free_at == NULL: 0. */
unsigned gmmu_ws_pick_walker(const uint64_t *free_at, unsigned n);

/* ---- MSHRs across batches (variants TREE and PAIRWISE in a walker component) ----
 * A transaction-level walker runs each batch of walks (one L1 TLB request's
 * misses) through the scheduler on its own, but the scheduler's MSHRs are
 * shared: walks of different batches are in flight together as long as
 * MSHRs are free, as in a highly threaded walker fed by a non-blocking TLB.
 * free_at[i] is when MSHR i is free (any time unit), nslots of them.
 *
 * When a batch of n walks requested at `req` may start: once min(n, nslots)
 * MSHRs are free (the rest of a larger batch waits inside the scheduler for
 * MSHRs of its own batch), never before req. nslots == 0, n == 0 or
 * free_at == NULL: req. nslots above GMMU_WS_MAX_MSHRS counts as
 * GMMU_WS_MAX_MSHRS. */
uint64_t gmmu_ws_batch_start(const uint64_t *free_at, unsigned nslots, unsigned n, uint64_t req);
/* After the batch ran: its walks finished at done[0..n-1]. The
 * k = min(n, nslots) MSHRs that were free first are held until the k latest
 * done times (the last walks to finish are the ones still holding an MSHR;
 * an MSHR freed earlier inside the batch took one of the batch's later
 * walks). nslots above GMMU_WS_MAX_MSHRS counts as GMMU_WS_MAX_MSHRS. */
void gmmu_ws_batch_hold(uint64_t *free_at, unsigned nslots, const uint64_t *done, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
