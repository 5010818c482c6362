// Differential fuzzing of the walks-in-flight table (models/src/walk_merge.c)
// against a plain list of every recorded walk. A merge must name a walk still
// in flight, of the request's page (the walk's own page size) and context,
// not dropped by an invalidation since, and give that walk's outcome at the
// request's own offset; a write never merges into a read-only or clean page.
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/tlb.h"
#include "gmmu/walk_merge.h"
}

#include "fuzz_input.h"

namespace {

struct walk_rec {
    uint16_t asid;
    uint64_t root, ready;
    gmmu_wm_walk w;
    bool live;
};

[[noreturn]] void mismatch(const char *what)
{
    std::fprintf(stderr, "fuzz_walk_merge: %s\n", what);
    std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_fuzz::input in(data, size);
    gmmu_walk_merge *m = nullptr;
    const gmmu_wm_config wcfg{2u << in.below(8)};
    if (gmmu_wm_create(&wcfg, &m, nullptr) != GMMU_OK)
        mismatch("init refused a power of two");
    std::vector<walk_rec> ref;
    uint64_t now = 0;
    static const uint8_t shifts[] = {12, 21, 30};
    while (in.more()) {
        now += in.below(8);
        const uint8_t op = in.u8() % 6;
        const uint16_t asid = uint16_t(in.below(3));
        const uint64_t root = 0x1000 * (1 + in.below(2));
        const uint64_t va = (uint64_t(in.below(1u << 12)) << 20 | in.below(1u << 20)) & ~7ull;
        if (op <= 1) { // record a walk
            gmmu_wm_walk w{};
            w.page_shift = shifts[in.below(3)];
            w.va = va;
            w.pa = (uint64_t(in.u32()) << 12) | (va & ((1ull << w.page_shift) - 1));
            w.perms = GMMU_PTE_P | (in.u8() & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_A | GMMU_PTE_D));
            w.contig_log2 = uint8_t(in.below(8));
            const uint64_t ready = now + 1 + in.below(200);
            gmmu_wm_record(m, asid, root, &w, ready);
            ref.push_back({asid, root, ready, w, true});
        } else if (op <= 3) { // a request
            const bool write = in.u8() & 1;
            gmmu_wm_walk out{};
            uint64_t ready = 0;
            if (!gmmu_wm_merge(m, asid, root, va, write, now, &out, &ready))
                continue;
            bool found = false;
            for (auto it = ref.rbegin(); it != ref.rend() && !found; ++it) {
                const unsigned s = it->w.page_shift;
                if (!it->live || it->asid != asid || it->root != root || it->ready != ready ||
                    it->ready <= now || (it->w.va >> s) != (va >> s) || s != out.page_shift)
                    continue;
                found = true;
                const uint64_t off = (1ull << s) - 1;
                if (out.pa != ((it->w.pa & ~off) | (va & off)) || out.perms != it->w.perms ||
                    out.contig_log2 != it->w.contig_log2 || out.va != va)
                    mismatch("merged outcome differs from the walk's");
                if (write && gmmu_tlb_write_needs_walk(it->w.perms))
                    mismatch("a write merged into a read-only or clean page's walk");
            }
            if (!found)
                mismatch("merged into no live walk of this page and context");
        } else if (op == 4) { // invalidate a range (one ASID or all)
            const bool all = in.u8() & 1;
            const uint64_t lo = va, hi = va + (uint64_t(in.u32()) << in.below(20));
            gmmu_wm_invalidate(m, all, asid, lo, hi);
            for (auto &r : ref) {
                const uint64_t first = (r.w.va >> r.w.page_shift) << r.w.page_shift;
                const uint64_t last = first + ((1ull << r.w.page_shift) - 1);
                if ((all || r.asid == asid) && !(last < lo || first > hi))
                    r.live = false;
            }
        } else {
            gmmu_wm_clear(m);
            for (auto &r : ref)
                r.live = false;
        }
    }
    gmmu_wm_destroy(m);
    return 0;
}
