// Differential fuzzing of the TLB model (models/src/tlb.c) against a map of
// the translations filled and not invalidated since. After every operation:
// a hit (lookup or debug answer) returns exactly the frame and permissions
// last filled for that (ASID, page), never another ASID's, never one an
// invalidation covered; occupancy never exceeds the entries.
#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/tlb.h"
}

#include "fuzz_input.h"

namespace {

[[noreturn]] void mismatch(const char *what, uint16_t asid, uint64_t vpn)
{
    std::fprintf(stderr, "fuzz_tlb: %s (asid %u, vpn 0x%llx)\n", what, asid, (unsigned long long)vpn);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_fuzz::input in(data, size);
    gmmu_tlb_config c{};
    static const uint32_t ways_of[] = {1, 2, 3, 4, 8, 16, 32, 64, 128};
    c.ways = ways_of[in.below(9)];
    c.entries = c.ways * (1 + in.below(8)) + (in.u8() % 4 == 0 ? in.below(c.ways) : 0);
    c.sets = in.u8() % 4 == 0 ? 1 + in.below(c.entries / c.ways) : 0;
    if (c.sets && (c.sets - 1) * c.ways >= c.entries)
        c.sets = 0;
    c.index = in.u8() % 2 ? GMMU_TLB_INDEX_RESIDUE : GMMU_TLB_INDEX_MODULO;
    c.repl = gmmu_tlb_repl(in.below(4));
    c.page_shift = 12;
    c.lookup_cycles = 1;
    c.seed = in.u8();
    gmmu_tlb *t = nullptr;
    gmmu_error err{};
    if (gmmu_tlb_config_check(&c, &err) != GMMU_OK)
        return 0; // a geometry the model refuses (e.g. PLRU on 3 ways)
    if (gmmu_tlb_create(&c, &t, &err) != GMMU_OK)
        return 0;
    std::map<std::pair<uint16_t, uint64_t>, std::pair<uint64_t, uint64_t>> ref;
    const uint64_t page_space = 1 + in.below(256); // few pages: many hits and conflicts
    while (in.more()) {
        const uint8_t op = in.u8() % 8;
        const uint16_t asid = uint16_t(in.below(3));
        const uint64_t vpn = 0x7f000 + in.below(uint32_t(page_space));
        switch (op) {
        case 0:
        case 1: { // fill
            const uint64_t ppn = in.u32() & 0xffffff;
            const uint64_t perms = GMMU_PTE_P | (in.u8() & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_A | GMMU_PTE_D));
            if (gmmu_tlb_fill_ex(t, asid, vpn, ppn, perms, 0, 0, nullptr) != GMMU_OK)
                mismatch("fill refused", asid, vpn);
            ref[{asid, vpn}] = {ppn, perms};
            break;
        }
        case 2:
        case 3:
        case 4: { // lookup, then a debug answer
            gmmu_tlb_answer a;
            const bool write = in.u8() & 1;
            const bool debug = in.u8() & 1;
            const gmmu_tlb_verdict v = gmmu_tlb_answer_access(t, asid, vpn, write, debug, &a);
            auto it = ref.find({asid, vpn});
            if (v != GMMU_TLB_MISSED) {
                if (it == ref.end())
                    mismatch("hit on a translation never filled or since invalidated", asid, vpn);
                if (a.ppn != it->second.first || a.perms != it->second.second)
                    mismatch("hit with another frame or permissions", asid, vpn);
                const bool rewalk = write && gmmu_tlb_write_needs_walk(a.perms);
                if ((v == GMMU_TLB_REWALK) != rewalk)
                    mismatch("write verdict disagrees with gmmu_tlb_write_needs_walk", asid, vpn);
            }
            gmmu_tlb_entry e;
            if (gmmu_tlb_probe(t, asid, vpn, &e) != (v != GMMU_TLB_MISSED))
                mismatch("probe and answer disagree", asid, vpn);
            break;
        }
        case 5: { // invalidate one page
            gmmu_tlb_invalidate_page(t, asid, vpn);
            ref.erase({asid, vpn});
            break;
        }
        case 6: { // invalidate a range of one ASID, or of all ASIDs
            const uint64_t lo = vpn << 12, hi = lo + (uint64_t(in.below(64)) << 12) + 4095;
            const bool all = in.u8() & 1;
            if (all)
                gmmu_tlb_invalidate_range_all_asids(t, lo, hi);
            else
                gmmu_tlb_invalidate_range(t, asid, lo, hi);
            for (auto it = ref.begin(); it != ref.end();) {
                const uint64_t va = it->first.second << 12;
                if ((all || it->first.first == asid) && va <= hi && va + 4095 >= lo)
                    it = ref.erase(it);
                else
                    ++it;
            }
            break;
        }
        default: { // invalidate an ASID, or everything
            if (in.u8() & 1) {
                gmmu_tlb_invalidate_asid(t, asid);
                for (auto it = ref.begin(); it != ref.end();)
                    it = it->first.first == asid ? ref.erase(it) : std::next(it);
            } else {
                gmmu_tlb_invalidate_all(t);
                ref.clear();
            }
            break;
        }
        }
        if (gmmu_tlb_occupancy(t) > c.entries)
            mismatch("more valid entries than the TLB has", asid, vpn);
    }
    gmmu_tlb_destroy(t);
    return 0;
}
