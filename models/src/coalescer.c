#include "gmmu/coalescer.h"

gmmu_status gmmu_coalesce(const uint64_t *va, uint32_t nlanes, uint32_t active, unsigned page_shift,
                          gmmu_coalesced *out)
{
    if (!va || !out || nlanes > GMMU_WARP_LANES || page_shift < 12 || page_shift > 40)
        return GMMU_EINVAL;
    if (nlanes < GMMU_WARP_LANES)
        active &= (1u << nlanes) - 1u;
    out->npages = 0;
    for (uint32_t lane = 0; lane < nlanes; lane++) {
        if (!(active & (1u << lane)))
            continue;
        uint64_t vpn = va[lane] >> page_shift;
        uint32_t p = 0;
        /* Scan from the most recent page: consecutive lanes usually share it. */
        for (p = out->npages; p > 0; p--)
            if (out->vpn[p - 1] == vpn)
                break;
        if (p == 0) {
            p = out->npages++;
            out->vpn[p] = vpn;
            out->lane_mask[p] = 0;
        } else {
            p--;
        }
        out->lane_mask[p] |= 1u << lane;
        out->lane_page[lane] = (uint8_t)p;
    }
    return GMMU_OK;
}
