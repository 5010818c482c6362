/* gmmu — warp scheduling: which warp of an SM issues next.
 *
 * The SM initiator (components/sm.h) keeps, per warp, the time it is ready to
 * issue and whether it has finished; the policy here picks the warp. The
 * baseline is the memory-instruction SM's: the earliest-ready warp, ties
 * broken round-robin (the first in rotation order from `rr`, the warp after
 * the one that issued last). Times are the caller's units (the TLM SM uses
 * simulated picoseconds).
 *
 * Stateless: the caller owns the arrays; nothing to create or destroy. */
#ifndef GMMU_WARP_SCHED_H
#define GMMU_WARP_SCHED_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The unfinished warp with the smallest ready[w] (n warps; finished[w] != 0
 * skips w), ties to the first met scanning w = rr, rr+1, ... mod n. Returns
 * n when every warp has finished, or on n == 0, rr >= n or a NULL array. */
unsigned gmmu_warp_pick_earliest(const uint64_t *ready, const uint8_t *finished, unsigned n,
                                 unsigned rr);

#ifdef __cplusplus
}
#endif
#endif
