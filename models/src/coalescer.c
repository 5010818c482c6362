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
            /* Two lanes per load, four independent accumulators (no loop:
             * the 16 steps are written out, so nothing waits on one OR
             * chain). */
            const __m128i v0 = _mm_set1_epi64x((long long)va0);
            const __m128i *p = (const __m128i *)(const void *)va;
#define GMMU_X(i) _mm_xor_si128(_mm_loadu_si128(p + (i)), v0)
            __m128i a0 = _mm_or_si128(_mm_or_si128(GMMU_X(0), GMMU_X(4)), _mm_or_si128(GMMU_X(8), GMMU_X(12)));
            __m128i a1 = _mm_or_si128(_mm_or_si128(GMMU_X(1), GMMU_X(5)), _mm_or_si128(GMMU_X(9), GMMU_X(13)));
            __m128i a2 = _mm_or_si128(_mm_or_si128(GMMU_X(2), GMMU_X(6)), _mm_or_si128(GMMU_X(10), GMMU_X(14)));
            __m128i a3 = _mm_or_si128(_mm_or_si128(GMMU_X(3), GMMU_X(7)), _mm_or_si128(GMMU_X(11), GMMU_X(15)));
#undef GMMU_X
            __m128i acc = _mm_or_si128(_mm_or_si128(a0, a1), _mm_or_si128(a2, a3));
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
    /* Several pages: each lane's VPN is looked up in a 64-slot table on the
     * stack (open addressing, at most 32 keys: load <= 1/2), so a warp of 32
     * pages costs 32 probes, not the 32 x 32 / 2 compares of a scan of the
     * pages found so far. Pages are numbered in order of their first lane,
     * as before. No allocation; `used` marks the slots holding a key. */
    uint64_t key[64];
    uint8_t page_of[64];
    uint64_t used = 0;
    uint64_t last_vpn = 0;
    uint32_t last_p = 0, np = 0;
    for (uint32_t m = active; m; m &= m - 1) {
        const uint32_t lane = (uint32_t)__builtin_ctz(m);
        const uint64_t vpn = va[lane] >> page_shift;
        uint32_t p;
        if (np && vpn == last_vpn) { /* consecutive lanes usually share a page */
            p = last_p;
        } else {
            unsigned slot = (unsigned)((vpn * 0x9E3779B97F4A7C15ull) >> 58);
            while ((used >> slot & 1u) && key[slot] != vpn)
                slot = (slot + 1) & 63u;
            if (used >> slot & 1u) {
                p = page_of[slot];
            } else {
                used |= 1ull << slot;
                key[slot] = vpn;
                p = np++;
                page_of[slot] = (uint8_t)p;
                out->vpn[p] = vpn;
                out->lane_mask[p] = 0;
            }
            last_vpn = vpn;
            last_p = p;
        }
        out->lane_mask[p] |= 1u << lane;
        out->lane_page[lane] = (uint8_t)p;
    }
    out->npages = np;
    return GMMU_OK;
}
