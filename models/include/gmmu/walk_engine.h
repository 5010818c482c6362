/* gmmu — the walk engine: one C engine that owns the timing of every walker
 * kind of a walker component (platforms/components/ptw.cpp is its TLM
 * wrapper), the permissions and A/D write-back of every walk, and the
 * page-walk-cache port.
 *
 * Time is in ticks (any unit; the wrapper's sc_time values), `clock` ticks
 * per cycle. Memory is the caller's, through gmmu_we_mem: a read issued at a
 * tick returns its data and its latency in whole cycles; a write returns
 * the ticks it took. The caller counts its accesses and their failures.
 *
 *  SERIAL (gmmu_we_serial): `walkers` independent walkers. A walk takes the
 *    walker that frees up first (gmmu_ws_pick_walker), starts at
 *    max(request, that walker's free time), spends the PWC hit's cycles, then
 *    reads one entry after the other (gmmu_walk_from): each read is issued
 *    when the previous one returned, an A/D write-back (set_ad) when its
 *    entry was read; the walk ends when its last access returned.
 *  TREE, PAIRWISE (gmmu_we_batch): a batch of walks through the walk
 *    scheduler's step device (gmmu_ws_run_device; the C model, its RTL twin
 *    or both in lock-step). The batch's PWC hits share one pipelined port
 *    (gmmu_pwc_port_cycles); it starts once it has min(n, mshrs) free MSHRs
 *    (gmmu_ws_batch_start); its reads are timed at the batch's start; walk i
 *    ends at start + port cycles + its done cycle + 1; its last walks hold
 *    the MSHRs (gmmu_ws_batch_hold). A/D write-backs (set_ad) are issued in
 *    walk order when the batch's walks are done, each entry once, and a
 *    walk's write-backs add their time to its end.
 *  Either kind: fixed_walk_cycles > 0 makes every walk that long from its
 *  start. Permissions come from the entries the walk read (gmmu_walk_perms),
 *  never from a second walk. */
#ifndef GMMU_WALK_ENGINE_H
#define GMMU_WALK_ENGINE_H

#include "gmmu/line_cache.h"
#include "gmmu/pagetable.h"
#include "gmmu/status.h"
#include "gmmu/walk_sched.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_we_config {
    gmmu_ws_variant kind;       /* SERIAL, TREE or PAIRWISE */
    uint32_t walkers;           /* gmmu_ws_walkers_check(kind, walkers) */
    uint32_t mshrs;             /* TREE/PAIRWISE: the scheduler's MSHRs, 1..GMMU_WS_MAX_MSHRS */
    uint64_t clock;             /* ticks per cycle, > 0 */
    uint32_t fixed_walk_cycles; /* 0: a walk lasts what its accesses cost */
    bool set_ad;                /* write A/D bits back as x86 hardware does */
    /* SERIAL: keep only each walk's outcome (gmmu_walk_outcome: no per-read
     * record in gmmu_we_done.w), for a walker whose page-walk cache does not
     * fill from the record. The same walks, times and outcomes. */
    bool outcome_only;
} gmmu_we_config;

gmmu_status gmmu_we_config_check(const gmmu_we_config *cfg, gmmu_error *err);

typedef struct gmmu_we_mem {
    /* One timed entry read issued at tick `at`: *data, and the latency met in
     * whole cycles (0: served without a memory read, e.g. by a line-cache
     * probe). Any status but GMMU_OK ends the walk (a bus error). */
    gmmu_status (*read)(void *ctx, uint64_t pa, uint64_t at, uint64_t *data, uint32_t *lat_cycles);
    /* One A/D write-back issued at tick `at`; *ticks: the time it took. */
    gmmu_status (*write)(void *ctx, uint64_t pa, uint64_t val, uint64_t at, uint64_t *ticks);
    void *ctx;
} gmmu_we_mem;

/* One walk to do: where it starts (below a PWC hit, or at the root). */
typedef struct gmmu_we_walk {
    uint64_t va;
    uint64_t table;       /* 4 KiB aligned PA of the table at start_level */
    uint8_t start_level;  /* 4..1 */
    uint8_t access;       /* GMMU_ACC_WRITE | GMMU_ACC_USER (set_ad adds SET_AD) */
    uint8_t pwc_hit;      /* a PWC lookup gave the start */
    uint8_t pad_;
    uint32_t pwc_cycles;  /* that lookup's latency */
} gmmu_we_walk;

/* A walk done. status != GMMU_OK: the walk failed, w.fault says how
 * (GMMU_EMEM: a read or write-back failed, BUS_ERROR; `done` is when the
 * failing access returned; else NOT_PRESENT); GMMU_OK: w says the rest (as
 * gmmu_walk_from's result: fault, pa, page_shift, pte, perms, tables and
 * entries read). */
typedef struct gmmu_we_done {
    gmmu_status status;
    int walker;          /* SERIAL: the walker that did it; -1: the scheduler */
    uint64_t start;      /* tick it started (a walker or MSHRs free) */
    uint64_t done;       /* tick it ended */
    gmmu_walk_result w;
} gmmu_we_done;

typedef struct gmmu_walk_engine gmmu_walk_engine;

/* Lifecycle (every model alike): create checks cfg and names a bad field in
 * err; destroy frees (NULL is a no-op). lc (optional, borrowed) is the
 * page-table-line cache timing every read. */
gmmu_status gmmu_we_create(const gmmu_we_config *cfg, gmmu_line_cache *lc, gmmu_walk_engine **out,
                           gmmu_error *err);
void gmmu_we_destroy(gmmu_walk_engine *e);

/* SERIAL: walk `wk` requested at tick `req`: *out. out->status is
 * gmmu_walk_from's (GMMU_EINVAL for a table or level it refuses: the walk is
 * answered NOT_PRESENT). GMMU_EINVAL (nothing done) for missing arguments or
 * an engine of another kind. */
gmmu_status gmmu_we_serial(gmmu_walk_engine *e, const gmmu_we_mem *mem, const gmmu_we_walk *wk,
                           uint64_t req, gmmu_we_done *out);

/* TREE/PAIRWISE: walk wk[0..n) requested at tick `req` on the step device
 * `dev` (idle; st accumulates the run loop's counters). GMMU_OK: out[i] for
 * wk[i]. Any other status: the run failed (GMMU_EMEM: a read failed; others:
 * the device refused a step), no walk is done, out[i].done is the batch's
 * base tick, and the caller resets the device. GMMU_EINVAL (nothing done)
 * for bad arguments. */
gmmu_status gmmu_we_batch(gmmu_walk_engine *e, const gmmu_ws_device *dev, gmmu_ws_run_stats *st,
                          const gmmu_we_mem *mem, const gmmu_we_walk *wk, unsigned n, uint64_t req,
                          gmmu_we_done *out);

/* One PWC port, pipelined: of a batch's n walks, the lookups that gave the
 * walk its start (wk[i].pwc_hit, after wk[i].pwc_cycles) go through the port
 * one per cycle, so the last is answered max(their latencies) + hits - 1
 * cycles after the first began; the others hold no port. 0 when none. */
uint32_t gmmu_pwc_port_cycles(const gmmu_we_walk *wk, unsigned n);

#ifdef __cplusplus
}
#endif
#endif
