// Page-walk scheduling experiment (pichai-asplos14 §6.3
// section 6.3): warps with page divergence 1..32 miss in the TLB; their walks
// run as one batch per warp through the walk scheduler model
// (models/include/gmmu/walk_sched.h) with a page-table-line cache
// (models/include/gmmu/line_cache.h) in front of DRAM. Every number printed
// is counted from these runs; docs/results/sched.md is generated from the CSV.
//
// usage: sched_experiment [--warps N] [--seed S] [--out FILE.csv]
#include <memory>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

extern "C" {
#include "gmmu/line_cache.h"
#include "gmmu/pagetable.h"
#include "gmmu/walk_sched.h"
}

namespace {

// ---- physical memory for the page tables: frames from a bump allocator ----
struct FrameMem {
    static constexpr uint64_t kBase = 0x100000; // page tables from 1 MiB up
    std::vector<std::array<uint64_t, 512>> frames;
    static gmmu_status read64(void *ctx, uint64_t pa, uint64_t *v)
    {
        auto *m = static_cast<FrameMem *>(ctx);
        uint64_t f = (pa - kBase) >> 12;
        if (pa < kBase || (pa & 7) || f >= m->frames.size())
            return GMMU_EMEM;
        *v = m->frames[f][(pa >> 3) & 511];
        return GMMU_OK;
    }
    static gmmu_status write64(void *ctx, uint64_t pa, uint64_t v)
    {
        auto *m = static_cast<FrameMem *>(ctx);
        uint64_t f = (pa - kBase) >> 12;
        if (pa < kBase || (pa & 7) || f >= m->frames.size())
            return GMMU_EMEM;
        m->frames[f][(pa >> 3) & 511] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *ctx, uint64_t *pa)
    {
        auto *m = static_cast<FrameMem *>(ctx);
        *pa = kBase + (m->frames.size() << 12);
        m->frames.emplace_back();
        m->frames.back().fill(0);
        return GMMU_OK;
    }
};

// ---- machine (pichai14, pichai-asplos14 §5.2) and memory timing ---------------
constexpr unsigned kMshrs = 32;      // TLB MSHRs
constexpr unsigned kNaiveWalkers = 8;
constexpr uint32_t kDramCycles = 200; // our choice: DRAM behind the cache

struct CacheScenario {
    const char *name;
    uint32_t lines, ways, hit, miss_lookup;
    double data_lines_per_cycle; // other traffic sharing the cache (0: dedicated)
};
// Our choices (the paper gives "several tens of cycles" for the shared cache):
const CacheScenario kScenarios[] = {
    {"ptw-cache", 128, 4, 20, 20, 0.0},   // dedicated 16 KiB page-table-line cache
    {"shared-l2", 512, 8, 40, 40, 0.25},  // 64 KiB L2 slice shared with data lines
    {"shared-l2-busy", 512, 8, 40, 40, 1.0}, // the same slice under 4x the data traffic
};

// ---- workloads: irregular gathers ------------------------------------------
struct Workload {
    const char *name;
    uint64_t window_pages; // lanes of a warp gather from a window of this many pages
};
constexpr uint64_t kRegionVa = 0x7f0000000000ull;   // 4 GiB mapped data region
constexpr uint64_t kRegionPages = (4ull << 30) >> 12;
const Workload kWorkloads[] = {
    {"bfs", 2048},               // frontier gathers within 8 MiB windows
    {"mummergpu", kRegionPages}, // suffix-tree lookups anywhere in 4 GiB
};

struct Warp {
    std::vector<uint64_t> vas; // one per distinct page (page divergence D)
};

// Memory callback for gmmu_walk_sched_run: PTE data from FrameMem, latency
// from the line cache at the cycle of issue (the scheduler's clock), with
// other traffic filling the cache in between when the scenario has some.
struct MemCtx {
    FrameMem *mem;
    gmmu_walk_sched *ws;
    gmmu_line_cache *lc;
    double data_rate;
    double data_credit = 0;
    uint64_t last_cycle = 0;
    std::mt19937_64 rng{99};
    uint64_t pt_accesses = 0, pt_hits = 0;
    static gmmu_status fn(void *ctx, uint64_t pa, uint64_t *data, uint32_t *lat)
    {
        auto *c = static_cast<MemCtx *>(ctx);
        // Called right after the step that issued; the scheduler's clock runs
        // on across batches (each run starts where the previous one ended).
        uint64_t now = c->ws->cycle - 1;
        if (c->data_rate > 0 && now > c->last_cycle) {
            c->data_credit += c->data_rate * (double)(now - c->last_cycle);
            uint64_t n = (uint64_t)c->data_credit;
            c->data_credit -= (double)n;
            n = std::min<uint64_t>(n, 4ull * c->lc->cfg.lines);
            for (uint64_t i = 0; i < n; i++) {
                uint32_t l;
                uint64_t dpa = (1ull << 40) + ((c->rng() % (1ull << 28)) << 7);
                gmmu_line_cache_access(c->lc, dpa, now, kDramCycles, &l, nullptr);
            }
        }
        c->last_cycle = std::max(c->last_cycle, now);
        bool hit = false;
        gmmu_line_cache_access(c->lc, pa, now, kDramCycles, lat, &hit);
        c->pt_accesses++;
        c->pt_hits += hit;
        return FrameMem::read64(c->mem, pa, data);
    }
};

struct Variant {
    const char *name;
    gmmu_ws_variant v;
    unsigned walkers;
};
const Variant kVariants[] = {
    {"serial-1", GMMU_WS_SERIAL, 1},
    {"serial-8", GMMU_WS_SERIAL, kNaiveWalkers},
    {"tree", GMMU_WS_TREE, 1},
    {"pairwise", GMMU_WS_PAIRWISE, 1},
};

int Fail(const char *what, gmmu_status s, const gmmu_error *err = nullptr)
{
    std::fprintf(stderr, "sched_experiment: %s: %s%s%s%s\n", what, gmmu_status_str(s),
                 err ? " (" : "", err ? err->field : "", err ? ")" : "");
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    unsigned warps = 400;
    uint64_t seed = 1;
    const char *out_path = nullptr;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--warps") && i + 1 < argc)
            warps = (unsigned)std::strtoul(argv[++i], nullptr, 0);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 0);
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc)
            out_path = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--warps N] [--seed S] [--out FILE.csv]\n", argv[0]);
            return 2;
        }
    }
    if (warps < 1 || warps > 100000) {
        std::fprintf(stderr, "sched_experiment: --warps must be 1..100000\n");
        return 2;
    }
    FILE *out = out_path ? std::fopen(out_path, "w") : stdout;
    if (!out) {
        std::perror(out_path);
        return 2;
    }
    std::fprintf(out, "workload,cache,mode,divergence,variant,warps,walks,refs_walked,refs_issued,"
                      "refs_merged,same_line_b2b,pt_accesses,pt_hits,dram_reads,cycles,"
                      "scan_passes,scan_busy,max_inflight,faults\n");

    // One page table for everything; pages are mapped when a warp first touches them.
    FrameMem mem;
    gmmu_mem_ops ops{&FrameMem::read64, &FrameMem::write64, &mem};
    gmmu_pt *pt = nullptr;
    gmmu_error err{};
    gmmu_status s = gmmu_pt_create(&ops, &FrameMem::alloc, &mem, &pt, &err);
    if (s != GMMU_OK)
        return Fail("gmmu_pt_create", s, &err);
    const std::unique_ptr<gmmu_pt, void (*)(gmmu_pt *)> pt_owner(pt, &gmmu_pt_destroy);
    std::unordered_set<uint64_t> mapped;
    uint64_t next_data_pa = 1ull << 36;
    std::mt19937_64 rng(seed);

    for (const Workload &wl : kWorkloads) {
        for (unsigned d = 1; d <= 32; d++) {
            // The same warps for every variant and cache scenario.
            std::vector<Warp> ws_list(warps);
            for (Warp &w : ws_list) {
                uint64_t window = wl.window_pages;
                uint64_t start = window >= kRegionPages ? 0 : rng() % (kRegionPages - window);
                std::unordered_set<uint64_t> pages;
                while (pages.size() < d)
                    pages.insert(start + rng() % window);
                for (uint64_t p : pages) {
                    uint64_t va = kRegionVa + (p << 12);
                    if (mapped.insert(p).second) {
                        s = gmmu_pt_map(pt, va, next_data_pa, 12, GMMU_MAP_U | GMMU_MAP_W, &err);
                        if (s != GMMU_OK)
                            return Fail("gmmu_pt_map", s, &err);
                        next_data_pa += 4096;
                    }
                    w.vas.push_back(va | (rng() & 0xFF8));
                }
            }
            for (const char *mode : {"batch", "stream"}) {
            const bool stream = !std::strcmp(mode, "stream");
            for (const CacheScenario &cs : kScenarios) {
                if (stream && cs.data_lines_per_cycle > 0)
                    continue; // the non-blocking stream is measured on the dedicated cache only
                for (const Variant &var : kVariants) {
                    gmmu_ws_config cfg;
                    gmmu_ws_config_default(&cfg);
                    cfg.variant = var.v;
                    cfg.walkers = var.walkers;
                    cfg.mshrs = kMshrs;
                    gmmu_walk_sched *sched = nullptr;
                    s = gmmu_walk_sched_create(&cfg, &sched, &err);
                    if (s != GMMU_OK)
                        return Fail("gmmu_walk_sched_create", s, &err);
                    const std::unique_ptr<gmmu_walk_sched, void (*)(gmmu_walk_sched *)> sched_owner(
                        sched, &gmmu_walk_sched_destroy);
                    gmmu_line_cache_config lcc;
                    gmmu_line_cache_config_default(&lcc);
                    lcc.lines = cs.lines;
                    lcc.ways = cs.ways;
                    lcc.hit_cycles = cs.hit;
                    lcc.miss_cycles = cs.miss_lookup;
                    gmmu_line_cache *lc = nullptr;
                    s = gmmu_line_cache_create(&lcc, &lc, &err);
                    if (s != GMMU_OK)
                        return Fail("gmmu_line_cache_create", s, &err);
                    const std::unique_ptr<gmmu_line_cache, void (*)(gmmu_line_cache *)> lc_owner(
                        lc, &gmmu_line_cache_destroy);
                    MemCtx mc{&mem, sched, lc, cs.data_lines_per_cycle};
                    uint64_t total_cycles = 0, walks = 0;
                    std::vector<gmmu_ws_alloc> allocs;
                    std::vector<gmmu_ws_result> res;
                    // batch: a warp's walks run alone, the next warp's start when
                    // they are all done (blocking TLB). stream: the misses of all
                    // warps enter the MSHRs in warp order as MSHRs free up
                    // (non-blocking TLB), one run.
                    for (size_t wi = 0; wi < ws_list.size(); wi++) {
                        for (uint64_t va : ws_list[wi].vas) {
                            gmmu_ws_alloc a{};
                            a.va = va;
                            a.table_base = pt->root;
                            a.start_level = 4;
                            a.access = GMMU_ACC_USER;
                            allocs.push_back(a);
                        }
                        if (stream && wi + 1 < ws_list.size())
                            continue;
                        res.assign(allocs.size(), gmmu_ws_result{});
                        uint64_t cycles = 0;
                        s = gmmu_walk_sched_run(sched, allocs.data(), (unsigned)allocs.size(),
                                                &MemCtx::fn, &mc, res.data(), &cycles);
                        if (s != GMMU_OK)
                            return Fail("gmmu_walk_sched_run", s);
                        for (const gmmu_ws_result &r : res)
                            if (r.fault != GMMU_FAULT_NONE)
                                return Fail("unexpected translation fault", GMMU_EFAULT);
                        total_cycles += cycles;
                        walks += allocs.size();
                        allocs.clear();
                    }
                    const gmmu_ws_stats &st = sched->st;
                    std::fprintf(out,
                                 "%s,%s,%s,%u,%s,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
                                 wl.name, cs.name, mode, d, var.name, warps, (unsigned long long)walks,
                                 (unsigned long long)st.refs_walked, (unsigned long long)st.refs_issued,
                                 (unsigned long long)st.refs_merged,
                                 (unsigned long long)st.same_line_back_to_back,
                                 (unsigned long long)mc.pt_accesses, (unsigned long long)mc.pt_hits,
                                 (unsigned long long)(mc.pt_accesses - mc.pt_hits),
                                 (unsigned long long)total_cycles, (unsigned long long)st.scan_passes,
                                 (unsigned long long)st.scan_busy_cycles,
                                 (unsigned long long)st.max_inflight, (unsigned long long)st.faults);
                }
            }
            }
        }
        std::fprintf(stderr, "sched_experiment: %s done (%zu page-table pages)\n", wl.name,
                     mem.frames.size());
    }
    if (out != stdout)
        std::fclose(out);
    return 0;
}
