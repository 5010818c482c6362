/* gmmu — warp scheduling: which warp of an SM issues next.
 *
 * The SM initiator (components/sm.h) keeps, per warp, the time it is ready to
 * issue and whether it has finished; the policy here picks the warp. The
 * baseline is the memory-instruction SM's: the earliest-ready warp, ties
 * broken round-robin (the first in rotation order from `rr`, the warp after
 * the one that issued last). Times are the caller's units (the TLM SM uses
 * simulated picoseconds).
 *
 * gmmu_warp_pick_earliest is stateless: the caller owns the arrays and it
 * scans all n warps. gmmu_warp_picker makes the same choice from state it
 * keeps (a tournament tree of the ready times), O(log n) per update and per
 * pick; the TLM SM uses it, since it picks once per warp access. */
#ifndef GMMU_WARP_SCHED_H
#define GMMU_WARP_SCHED_H

#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The unfinished warp with the smallest ready[w] (n warps; finished[w] != 0
 * skips w), ties to the first met scanning w = rr, rr+1, ... mod n. Returns
 * n when every warp has finished, or on n == 0, rr >= n or a NULL array. */
unsigned gmmu_warp_pick_earliest(const uint64_t *ready, const uint8_t *finished, unsigned n,
                                 unsigned rr);

typedef struct gmmu_warp_picker_config {
    unsigned warps; /* 1 .. GMMU_WARP_PICKER_MAX_WARPS */
} gmmu_warp_picker_config;

#define GMMU_WARP_PICKER_MAX_WARPS 4096u

typedef struct gmmu_warp_picker gmmu_warp_picker;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the picker in *out (every warp ready at 0, none
 * finished); destroy frees it (NULL is a no-op). */
gmmu_status gmmu_warp_picker_create(const gmmu_warp_picker_config *cfg, gmmu_warp_picker **out,
                                    gmmu_error *err);
void gmmu_warp_picker_destroy(gmmu_warp_picker *p);

/* Warp w may issue from `ready` on. Ignored for w >= warps or a finished w. */
void gmmu_warp_picker_set(gmmu_warp_picker *p, unsigned w, uint64_t ready);
/* Warp w has finished: it is never picked again. Ignored for w >= warps. */
void gmmu_warp_picker_finish(gmmu_warp_picker *p, unsigned w);
/* Warp w's ready time (0 for w >= warps). */
uint64_t gmmu_warp_picker_ready(const gmmu_warp_picker *p, unsigned w);
/* What gmmu_warp_pick_earliest returns for the picker's ready times and
 * finished flags, n = warps: the unfinished warp ready earliest, ties to the
 * first from rr in rotation order; warps when every warp has finished or
 * rr >= warps. */
unsigned gmmu_warp_picker_pick(const gmmu_warp_picker *p, unsigned rr);

#ifdef __cplusplus
}
#endif
#endif
