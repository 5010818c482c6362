/* gmmu — timing decisions of the L1 translation front end of a GPU core
 * (pichai-asplos14 sections 5.3 and 6): how long a TLB lookup takes as the
 * TLB grows in entries and ports, and when each page of a warp access may
 * go to the L1 data cache.
 *
 * Access time. pichai-asplos14 §5.3 sized its TLBs with CACTI: 128 entries
 * is the largest TLB whose lookup does not lengthen the access of a 32 KB
 * L1 data cache, and §6.2 (figure 6) calls more than 128 entries or more
 * than 4 ports impractical because their access time grows. The paper
 * gives no access times, so gmmu states its own rule (fixed before any
 * result was seen; docs/pichai_mmu.md reports its sensitivity):
 *   cycles = base + step * (doublings of entries above 128
 *                           + doublings of ports above 4)
 * with doublings rounded up (192 entries count as one). A CAM's match line
 * grows with its entries and every added port adds a word line and a bit
 * line to each cell, so both lengthen the critical path; one step per
 * doubling is the simplest monotone rule with that shape. The FIXED model
 * ignores size and ports (the paper's "ideal" TLB: any size and ports at
 * the base latency).
 *
 * Overlap. A warp access is coalesced into pages; each page's translation
 * arrives at its own time. Without overlap the warp's lanes go to the data
 * cache together, when the last translation is known (a TLB miss of one
 * lane holds back every lane). With overlap (pichai-asplos14 §6.2) the
 * lanes of each page go as soon as that page's translation is known. */
#ifndef GMMU_XLATE_TIMING_H
#define GMMU_XLATE_TIMING_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_TLB_REF_ENTRIES 128u /* largest TLB at the base access time */
#define GMMU_TLB_REF_PORTS 4u     /* most ports at the base access time */

typedef enum gmmu_tlb_latency_model {
    GMMU_TLB_LATENCY_FIXED = 0, /* base cycles whatever the size and ports */
    GMMU_TLB_LATENCY_SCALED = 1 /* base + step per doubling above 128 entries / 4 ports */
} gmmu_tlb_latency_model;

/* Lookup latency of a TLB of `entries` entries and `ports` ports, cycles.
 * Saturates at UINT32_MAX. */
uint32_t gmmu_tlb_access_cycles(gmmu_tlb_latency_model model, uint32_t base_cycles,
                                uint32_t step_cycles, uint32_t entries, uint32_t ports);

/* When the lanes of each of the n pages of one warp access go to the data
 * cache: ready[i] is the time page i's translation is known; at[i] receives
 * the time its lanes are sent (same units). Without overlap every page
 * waits for the last translation; with it each goes at its own time.
 * Returns the time the last page is sent (0 for n = 0). */
uint64_t gmmu_warp_dispatch_times(const uint64_t *ready, uint32_t n, bool overlap, uint64_t *at);

/* The order the n pages of one warp access are sent in: order[] receives
 * the page indices sorted by at[] (earliest first), pages sent at the same
 * time in their coalescing order. At most a warp's 32 pages: an insertion
 * sort, inline for the per-access path. */
static inline void gmmu_warp_dispatch_order(const uint64_t *at, uint32_t n, uint32_t *order)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t j = i;
        while (j > 0 && at[order[j - 1]] > at[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
}

#ifdef __cplusplus
}
#endif
#endif
