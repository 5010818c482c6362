// Differential fuzzing of the warp coalescer (models/src/coalescer.c)
// against a plain grouping: the unique pages of the active lanes in order of
// first lane, each lane's page index, and each page's lane mask.
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "gmmu/coalescer.h"
}

#include "fuzz_input.h"

namespace {

[[noreturn]] void mismatch(const char *what)
{
    std::fprintf(stderr, "fuzz_coalescer: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_fuzz::input in(data, size);
    while (in.more()) {
        const uint32_t nlanes = in.below(GMMU_WARP_LANES + 2); // 33 must be refused
        const uint32_t active = in.u32();
        static const unsigned shifts[] = {12, 16, 21, 30};
        const unsigned shift = shifts[in.below(4)];
        const uint64_t base = in.u64();
        uint64_t va[GMMU_WARP_LANES + 1] = {};
        for (uint32_t l = 0; l < nlanes && l <= GMMU_WARP_LANES; l++) {
            // Mostly nearby addresses (same or next pages), some anywhere.
            const uint8_t how = in.u8();
            va[l] = how < 200 ? base + (uint64_t(in.u16()) << (how % 4 == 0 ? shift : 4)) : in.u64();
        }
        gmmu_coalesced c{};
        const gmmu_status s = gmmu_coalesce(va, nlanes, active, shift, &c);
        if (nlanes > GMMU_WARP_LANES) {
            if (s == GMMU_OK)
                mismatch("more than 32 lanes accepted");
            continue;
        }
        if (s != GMMU_OK)
            mismatch("a valid warp refused");
        std::vector<uint64_t> pages;
        std::vector<uint32_t> masks;
        for (uint32_t l = 0; l < nlanes; l++) {
            if (!(active >> l & 1))
                continue;
            const uint64_t vpn = va[l] >> shift;
            size_t k = 0;
            while (k < pages.size() && pages[k] != vpn)
                k++;
            if (k == pages.size()) {
                pages.push_back(vpn);
                masks.push_back(0);
            }
            masks[k] |= 1u << l;
            if (c.lane_page[l] != k)
                mismatch("a lane points at the wrong page");
        }
        if (c.npages != pages.size())
            mismatch("page divergence differs");
        for (size_t k = 0; k < pages.size(); k++)
            if (c.vpn[k] != pages[k] || c.lane_mask[k] != masks[k])
                mismatch("a page or its lane mask differs");
    }
    return 0;
}
