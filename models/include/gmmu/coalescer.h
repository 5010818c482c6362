/* gmmu — warp coalescer: 32 lane addresses to the unique pages they touch. */
#ifndef GMMU_COALESCER_H
#define GMMU_COALESCER_H

#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_WARP_LANES 32u

typedef struct gmmu_coalesced {
    uint32_t npages;                   /* page divergence: unique pages touched */
    uint64_t vpn[GMMU_WARP_LANES];     /* unique VPNs, in order of first lane */
    uint32_t lane_mask[GMMU_WARP_LANES]; /* lanes of each unique page */
    uint8_t lane_page[GMMU_WARP_LANES];  /* index into vpn[] of each active lane */
} gmmu_coalesced;

/* Group the active lanes (bit i of active = lane i) of va[] by page of
 * 2^page_shift bytes. nlanes <= 32. */
gmmu_status gmmu_coalesce(const uint64_t *va, uint32_t nlanes, uint32_t active, unsigned page_shift,
                          gmmu_coalesced *out);

#ifdef __cplusplus
}
#endif
#endif
