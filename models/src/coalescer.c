#include "gmmu/coalescer.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

gmmu_status gmmu_coalesce(const uint64_t *va, uint32_t nlanes, uint32_t active, unsigned page_shift,
                          gmmu_coalesced *out)
{
    if (!va || !out || nlanes > GMMU_WARP_LANES || page_shift < 12 || page_shift > 40)
        return GMMU_EINVAL;
    if (nlanes < GMMU_WARP_LANES)
        active &= (1u << nlanes) - 1u;
    out->npages = 0;
    if (active == 0)
        return GMMU_OK;
    /* Fast path: every active lane in the page of the first active lane (the
     * common case of a coalesced warp). OR-ing the XORs with the first VA and
     * shifting once tests all lanes at once. */
    {
        uint32_t first = (uint32_t)__builtin_ctz(active);
        uint64_t va0 = va[first], diff = 0;
        if (active == 0xFFFFFFFFu && nlanes == GMMU_WARP_LANES) {
#if defined(__SSE2__)
            /* Two lanes per step. */
            const __m128i v0 = _mm_set1_epi64x((long long)va0);
            __m128i acc = _mm_setzero_si128();
            for (uint32_t lane = 0; lane < GMMU_WARP_LANES; lane += 2)
                acc = _mm_or_si128(
                    acc, _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(va + lane)),
                                       v0));
            acc = _mm_or_si128(acc, _mm_unpackhi_epi64(acc, acc));
            diff = (uint64_t)_mm_cvtsi128_si64(acc);
#else
            for (uint32_t lane = 0; lane < GMMU_WARP_LANES; lane++)
                diff |= va[lane] ^ va0;
#endif
        } else {
            for (uint32_t lane = first; lane < nlanes; lane++)
                diff |= (va[lane] ^ va0) & (0ull - (uint64_t)((active >> lane) & 1u));
        }
        if ((diff >> page_shift) == 0) {
            out->npages = 1;
            out->vpn[0] = va0 >> page_shift;
            out->lane_mask[0] = active;
            memset(out->lane_page, 0, sizeof out->lane_page);
            return GMMU_OK;
        }
    }
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
