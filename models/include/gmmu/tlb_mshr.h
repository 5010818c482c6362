/* gmmu — timing of a batch of TLB lookups: ports per cycle, MSHRs with
 * merging, hits under misses and a limit on misses under misses.
 *
 * A batch is the unique pages of one warp access, looked up in order. The
 * model is deterministic and in-order:
 *   - at most `ports` lookups issue per cycle (a replayed lookup takes a
 *     port again);
 *   - a hit completes lookup_cycles (of the TLB) after its issue;
 *   - a miss to a page (or merge group) that already has an MSHR merges
 *     into it and completes with it (no new MSHR, no new walk);
 *   - any other miss takes a free MSHR and completes lookup_cycles +
 *     miss latency after its issue (latency from the callback, or
 *     miss_cycles); the MSHR is free again from that cycle on;
 *   - with no MSHR free (or max_outstanding misses in flight) the miss
 *     waits, and every lookup behind it waits too (in-order), until the
 *     earliest MSHR frees; it then re-issues;
 *   - an MSHR holds at most `targets` requests; a further miss to it waits
 *     until it completes and then re-issues as a hit;
 *   - hits_under_miss = false models a blocking TLB: no lookup issues while
 *     any miss is outstanding (with batch_issues_through, any miss of an
 *     earlier batch).
 * MSHRs persist across batches (a later warp can merge into an earlier
 * warp's miss); times are absolute cycles. The functional TLB is looked up
 * once per request, at its first issue; this model never fills it (the
 * caller fills, in the miss callback or after the batch). See docs/tlb.md. */
#ifndef GMMU_TLB_MSHR_H
#define GMMU_TLB_MSHR_H

#include "gmmu/status.h"
#include "gmmu/tlb.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_tlb_mshr_config {
    uint32_t ports;           /* lookups issued per cycle, 1..1024 */
    uint32_t mshrs;           /* MSHRs (distinct outstanding misses), 1..4096 */
    uint32_t max_outstanding; /* misses in flight at once (1 = no miss under miss); 0 = mshrs */
    uint32_t targets;         /* requests one MSHR can hold (first included); 0 = unlimited */
    bool hits_under_miss;     /* false: blocking TLB */
    /* With hits_under_miss = false: a batch's own lookups keep issuing
     * behind its misses (a warp looks up all its pages and takes an MSHR
     * per missing page, as pichai-asplos14's blocking TLB with one MSHR per
     * thread); only later batches wait for them. false: every lookup waits
     * for every outstanding miss, its own batch's too. */
    bool batch_issues_through;
    uint32_t merge_pages;     /* misses in one aligned group of this many pages merge (power
                               * of two; 0/1 = same page only) */
    uint32_t miss_cycles;     /* miss latency when no callback is given */
} gmmu_tlb_mshr_config;

typedef struct gmmu_tlb_mshr_entry {
    bool busy;
    uint16_t asid;
    uint64_t vpn;     /* page that allocated it */
    uint64_t group;   /* vpn / merge_pages */
    uint64_t done;    /* cycle the fill arrives (free from then on) */
    uint32_t targets; /* requests held */
    uint64_t batch;   /* batch that allocated it (stats.batches at the time) */
} gmmu_tlb_mshr_entry;

typedef struct gmmu_tlb_mshr_stats {
    uint64_t batches, requests;
    uint64_t hits;          /* lookups that hit (incl. replays after a full MSHR's fill) */
    uint64_t misses;        /* MSHRs allocated (walks requested) */
    uint64_t merges;        /* misses merged into an outstanding MSHR */
    uint64_t replays;       /* lookups issued again after waiting */
    uint64_t stall_cycles;  /* cycles the head lookup waited for an MSHR or a blocking miss */
    uint64_t max_in_flight; /* most MSHRs busy at once */
} gmmu_tlb_mshr_stats;

typedef struct gmmu_tlb_mshr {
    gmmu_tlb_mshr_config cfg;
    gmmu_tlb_mshr_entry *e;
    uint32_t limit; /* min(mshrs, max_outstanding) */
    uint32_t group_shift;
    gmmu_tlb_mshr_stats st;
    uint64_t batch_id; /* the current batch (a continued batch keeps its predecessor's) */
    bool cont;         /* gmmu_tlb_mshr_continue_batch: the next batch continues this one */
} gmmu_tlb_mshr;

typedef enum gmmu_tlb_access_kind {
    GMMU_TLB_ACCESS_HIT = 0,
    GMMU_TLB_ACCESS_MISS = 1,  /* allocated an MSHR: the caller resolves it */
    GMMU_TLB_ACCESS_MERGED = 2 /* waits on another request's MSHR */
} gmmu_tlb_access_kind;

/* One request of a batch: vpn in, the rest out. */
typedef struct gmmu_tlb_access {
    uint64_t vpn;
    gmmu_tlb_access_kind kind;
    uint64_t issue;     /* cycle of the (last) issue */
    uint64_t done;      /* cycle the translation is available */
    uint32_t mshr;      /* MSHR index for MISS / MERGED */
    uint64_t ppn, perms; /* on a hit (of the functional lookup) */
    uint32_t lru_depth;  /* on a hit */
} gmmu_tlb_access;

typedef struct gmmu_tlb_batch_result {
    uint64_t first_issue, last_issue;
    uint64_t done;          /* latest completion of the batch */
    uint32_t hits, misses, merges, replays;
    uint64_t stall_cycles;
} gmmu_tlb_batch_result;

/* Miss latency callback: called once per allocated MSHR, in issue order,
 * with the cycle the lookup issued. Returns the cycles from the end of the
 * lookup to the fill in *latency (next level, walk). The callback may fill
 * the TLB; requests of the same batch to that page still merge (the MSHR is
 * checked first). A non-OK status aborts the batch and is returned. */
typedef gmmu_status (*gmmu_tlb_miss_fn)(void *ctx, uint16_t asid, uint64_t vpn, uint64_t issue,
                                        uint32_t *latency);

gmmu_status gmmu_tlb_mshr_config_check(const gmmu_tlb_mshr_config *cfg, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_tlb_mshr_create(const gmmu_tlb_mshr_config *cfg, gmmu_tlb_mshr **out,
                                 gmmu_error *err);
void gmmu_tlb_mshr_destroy(gmmu_tlb_mshr *m);
/* Forget every outstanding miss (e.g. after a flush). */
void gmmu_tlb_mshr_reset(gmmu_tlb_mshr *m);
/* MSHRs still busy at cycle now. */
uint32_t gmmu_tlb_mshr_in_flight(const gmmu_tlb_mshr *m, uint64_t now);

/* Time a batch of n lookups for asid, the first issuing no earlier than
 * cycle now. acc[i].vpn are inputs; every other field is written. miss may
 * be NULL (latency = cfg.miss_cycles). res may be NULL. */
gmmu_status gmmu_tlb_access_batch(gmmu_tlb_mshr *m, gmmu_tlb *t, uint16_t asid,
                                  gmmu_tlb_access *acc, uint32_t n, uint64_t now,
                                  gmmu_tlb_miss_fn miss, void *ctx, gmmu_tlb_batch_result *res);

/* The next batch (gmmu_tlb_access_batch, and gmmu_tlb_mshr_first_miss_cycle
 * before it) is the rest of the previous one: the same warp access sent in
 * pieces, e.g. one request per cache line. With hits_under_miss = false and
 * batch_issues_through, its lookups do not wait for the previous batch's
 * misses, only for earlier batches' (as if the pieces were one batch). No
 * effect otherwise. */
void gmmu_tlb_mshr_continue_batch(gmmu_tlb_mshr *m);

/* The earliest cycle at which the first miss of a batch arriving at cycle
 * now could take an MSHR, if its first lookup misses: later than now when
 * the TLB is blocking and misses are in flight, or when every usable MSHR
 * is busy. A caller that asks the next level for a batch's misses before
 * timing the batch asks at this cycle, not at the batch's arrival. */
uint64_t gmmu_tlb_mshr_first_miss_cycle(const gmmu_tlb_mshr *m, uint64_t now);

/* Whether a miss of (asid, vpn) at cycle now would merge into a miss still
 * in flight in an MSHR (its translation is already on the way: the caller
 * need not ask the next level for it). */
bool gmmu_tlb_mshr_pending(const gmmu_tlb_mshr *m, uint16_t asid, uint64_t vpn, uint64_t now);

/* The latency (gmmu_tlb_miss_fn's *latency) of a miss whose lookup issued
 * at cycle issue, when the caller asked the next level for the batch's
 * misses together, at cycle ask + lookup_cycles (ask: the batch's first
 * MSHR allocation, gmmu_tlb_mshr_first_miss_cycle), and the answer arrives
 * at cycle ready after waiting queued cycles for a walker. The next level's
 * queue already holds the miss behind earlier ones, so a miss that waited
 * for an MSHR (issue > ask) starts its walk only then: it takes at least
 * its walk's own time (ready - asked - queued, where asked = min(ask,
 * issue) + lookup_cycles) from its own lookup, and arrives no earlier than
 * the answer; the wait for the MSHR and the walker's queue are not added
 * again. At least 1. */
uint32_t gmmu_tlb_mshr_miss_latency(uint64_t ask, uint64_t issue, uint32_t lookup_cycles,
                                    uint64_t ready, uint64_t queued);

#ifdef __cplusplus
}
#endif
#endif
