// Differential fuzzing of the walk scheduler (models/src/walk_sched.c:
// serial walkers, comparator tree, pairwise comparators) against the serial
// reference walker (gmmu_walk_from). The input builds page tables (4 KiB,
// 2 MiB and 1 GiB pages in a small VA space, some entries without W or U),
// picks a geometry, a batch of walks (some starting below the root as if a
// page-walk cache had supplied a table, some non-canonical) and the latency
// of every PTE read. Every walk must complete exactly once with the
// reference's outcome (fault, fault level, PA, page size, leaf PTE), the
// walks must consume the reference's reads, and the scheduler may issue no
// more reads than serial walkers would and no fewer than the distinct PTEs.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/walk_sched.h"
}

#include "fuzz_input.h"
#include "fuzz_mem.h"

namespace {

[[noreturn]] void mismatch(const char *what, unsigned i)
{
    std::fprintf(stderr, "fuzz_walk_sched: %s (walk %u)\n", what, i);
    std::abort();
}

// The memory, and the latency of every PTE read taken from the input.
struct memory : gmmu_fuzz::sparse_memory {
    gmmu_fuzz::input *in = nullptr;
    uint64_t reads = 0;
    static gmmu_status timed(void *c, uint64_t pa, uint64_t *v, uint32_t *lat)
    {
        auto *m = static_cast<memory *>(c);
        m->reads++;
        *lat = 1 + m->in->below(64);
        return rd(c, pa, v);
    }
};

uint64_t pick_va(gmmu_fuzz::input &in)
{
    const uint64_t i4 = in.below(2), i3 = in.below(3), i2 = in.below(4), i1 = in.below(8);
    return (i4 << 39) | (i3 << 30) | (i2 << 21) | (i1 << 12) | (uint64_t(in.below(512)) << 3);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_fuzz::input in(data, size);
    gmmu_ws_config cfg;
    gmmu_ws_config_default(&cfg);
    cfg.variant = gmmu_ws_variant(in.below(3));
    cfg.mshrs = 1 + in.below(GMMU_WS_MAX_MSHRS);
    cfg.walkers = cfg.variant == GMMU_WS_SERIAL ? 1 + in.below(8) : 1;
    cfg.scan_pass_cycles = 1 + in.below(4);
    cfg.retire_width = 1 + in.below(GMMU_WS_RETIRE_MAX);
    gmmu_walk_sched *ws = nullptr;
    if (gmmu_walk_sched_create(&cfg, &ws, nullptr) != GMMU_OK)
        mismatch("init refused a valid config", 0);

    memory mem;
    gmmu_mem_ops ops{&memory::rd, &memory::wr, &mem};
    gmmu_pt *pt = nullptr;
    if (gmmu_pt_create(&ops, &memory::alloc, &mem, &pt, nullptr) != GMMU_OK)
        mismatch("pt init", 0);
    const unsigned maps = in.below(24);
    for (unsigned k = 0; k < maps; k++) {
        const unsigned sz = in.below(8);
        const unsigned shift = sz == 0 ? 30 : sz == 1 ? 21 : 12;
        const uint64_t va = pick_va(in) & ~((1ull << shift) - 1);
        uint64_t flags = GMMU_MAP_W | GMMU_MAP_U;
        if (in.below(6) == 0)
            flags &= ~(in.below(2) ? GMMU_MAP_W : GMMU_MAP_U);
        gmmu_pt_map(pt, va, uint64_t(1 + in.below(1024)) << 30, shift, flags, nullptr);
    }

    const unsigned n = 1 + in.below(64);
    std::vector<gmmu_ws_alloc> allocs(n);
    std::vector<gmmu_walk_result> ref(n);
    std::set<uint64_t> distinct;
    uint64_t serial_reads = 0;
    for (unsigned i = 0; i < n; i++) {
        gmmu_ws_alloc &a = allocs[i];
        a = {};
        a.va = in.below(32) == 0 ? (1ull << 47) | pick_va(in) : pick_va(in);
        a.access = uint8_t(in.below(4) & (GMMU_ACC_WRITE | GMMU_ACC_USER));
        a.valid = 1;
        a.start_level = 4;
        a.table_base = pt->root;
        gmmu_walk_result full;
        if (gmmu_walk_from(&ops, pt->root, 4, a.va, 0, &full) != GMMU_OK)
            mismatch("reference walk failed", i);
        const unsigned lowest = full.fault ? full.fault_level : 5 - full.nreads;
        if (in.below(2) && full.fault != GMMU_FAULT_NONCANONICAL && lowest <= 3) {
            // As if a page-walk cache had supplied a lower table.
            a.start_level = uint8_t(lowest + in.below(4 - lowest));
            a.table_base = full.table_base[a.start_level];
        }
        if (gmmu_walk_from(&ops, a.table_base, a.start_level, a.va, a.access, &ref[i]) != GMMU_OK)
            mismatch("reference walk failed", i);
        for (unsigned k = 0; k < ref[i].nreads; k++)
            distinct.insert(ref[i].read_pa[k]);
        serial_reads += ref[i].nreads;
    }

    mem.in = &in;
    std::vector<gmmu_ws_result> res(n);
    uint64_t cycles = 0;
    if (gmmu_walk_sched_run(ws, allocs.data(), n, &memory::timed, &mem, res.data(), &cycles) !=
        GMMU_OK)
        mismatch("run failed", 0);
    for (unsigned i = 0; i < n; i++) {
        const gmmu_ws_result &r = res[i];
        const gmmu_walk_result &w = ref[i];
        if (r.va != allocs[i].va)
            mismatch("result of another walk", i);
        if (r.fault != w.fault)
            mismatch("fault differs from the reference walk", i);
        if (w.fault != GMMU_FAULT_NONE && r.fault_level != w.fault_level)
            mismatch("fault level differs", i);
        if (w.fault == GMMU_FAULT_NONE &&
            (r.pa != w.pa || r.page_shift != w.page_shift || r.pte != w.pte))
            mismatch("translation differs from the reference walk", i);
        if (r.nreads != w.nreads)
            mismatch("consumed reads differ from the reference walk", i);
        if (r.done_cycle < r.alloc_cycle || r.done_cycle > cycles)
            mismatch("completion cycle out of order", i);
    }
    if (ws->st.refs_walked != serial_reads)
        mismatch("walks consumed another number of reads", 0);
    if (ws->st.refs_issued > serial_reads || ws->st.refs_issued < distinct.size() ||
        ws->st.refs_issued != mem.reads)
        mismatch("issued reads out of [distinct PTEs, serial reads]", 0);
    if (!gmmu_walk_sched_idle(ws))
        mismatch("scheduler not idle after the run", 0);
    gmmu_pt_destroy(pt);
    gmmu_walk_sched_destroy(ws);
    return 0;
}
