// gmmu-bench: speed as ratios against baselines measured in the same run.
//   tlb_model_lookups_per_s     gmmu_tlb_lookup (+ fill on miss) over a VPN trace whose
//                               448-page working set fits the 512-entry 16-way TLB
//   hash_baseline_lookups_per_s a bare open-addressing hash probe over the same trace
//   platform_warp_accesses_per_s        gmmu-sim, stream workload, default config
//   platform_nommu_warp_accesses_per_s  the same with mmu.bypass=true
//   issue_sm_warp_insns_per_s   gmmu-sim, issue/commit SM (tanasic17, spmv-like kernel,
//                               1,024 blocks): warp instructions issued per wall second
//   issue_sm_nommu_warp_insns_per_s     the same with mmu.bypass=true
//   walker_walks_per_s          gmmu_walk_from over 4-level tables (4 KiB pages) in memory
//   bare_walk_baseline_walks_per_s  the same four reads through the same callback, no checks
//   bare_walk_inlined_walks_per_s   the same with the read inlined (no call), for comparison
//   pwc_cpwc_lookups_per_s      gmmu_pwc_lookup of a warm 5,280-bit CPWC over the same VAs
//   scale                       gmmu-sim random-sample over a sparsely touched 1 TiB region at
//                               three run lengths: ns per warp access, peak RSS, touched pages
//   scale_time_per_access_spread  slowest over fastest ns per warp access of the three
//   scale_repeat_spread         slowest over fastest repetition of one size (the largest of
//                               the three): the run-to-run noise the spread is read against
// Each figure is the best of several repetitions. Writes --out FILE (JSON).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
#include "gmmu/tlb.h"
}

namespace {

using clk = std::chrono::steady_clock;

// Working set of `pages` random VPNs; accesses walk it with locality (short
// forward steps, occasional jumps), so a TLB holding the working set mostly
// hits and the comparison measures the lookup path.
std::vector<uint64_t> vpn_trace(size_t n, size_t pages, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> set(pages);
    for (auto &v : set)
        v = 0x7f0000000ull + (rng() & 0xFFFFFFull);
    std::vector<uint64_t> t(n);
    size_t cur = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng();
        cur = (r & 15) == 0 ? (r >> 8) % pages : (cur + ((r >> 4) & 3)) % pages;
        t[i] = set[cur];
    }
    return t;
}

double tlb_hit_rate = 0;

double bench_tlb(const std::vector<uint64_t> &t, uint64_t &sink)
{
    gmmu_tlb_config c{};
    c.entries = 512;
    c.ways = 16;
    c.page_shift = 12;
    c.repl = GMMU_TLB_REPL_LRU;
    c.lookup_cycles = 10;
    gmmu_tlb *tlb = nullptr;
    if (gmmu_tlb_create(&c, &tlb, nullptr) != GMMU_OK)
        std::abort();
    auto t0 = clk::now();
    for (uint64_t vpn : t) {
        gmmu_tlb_result r;
        gmmu_tlb_lookup(tlb, 0, vpn, &r);
        if (!r.hit)
            gmmu_tlb_fill_ex(tlb, 0, vpn, vpn ^ 0x5555, GMMU_PTE_W, 0, 0, nullptr);
        sink += r.ppn;
    }
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    tlb_hit_rate = double(gmmu_tlb_stats_of(tlb)->hits) / double(gmmu_tlb_stats_of(tlb)->accesses);
    gmmu_tlb_destroy(tlb);
    return double(t.size()) / s;
}

double bench_hash(const std::vector<uint64_t> &t, uint64_t &sink)
{
    // Open addressing, linear probing, 1024 slots holding the working-set pages
    // (load <= 0.5): the cost of finding a translation with no policy at all.
    const size_t cap = 1024;
    std::vector<uint64_t> key(cap, ~0ull), val(cap, 0);
    auto slot = [&](uint64_t k) { return (k * 0x9E3779B97F4A7C15ull) >> 54; };
    for (uint64_t v : t) {
        size_t i = slot(v);
        while (key[i] != ~0ull && key[i] != v)
            i = (i + 1) & (cap - 1);
        key[i] = v;
        val[i] = v ^ 0x5555;
    }
    auto t0 = clk::now();
    for (uint64_t v : t) {
        size_t i = slot(v);
        while (key[i] != v && key[i] != ~0ull)
            i = (i + 1) & (cap - 1);
        sink += val[i];
    }
    double s = std::chrono::duration<double>(clk::now() - t0).count();
    return double(t.size()) / s;
}

// ---- walker and PWC against a bare walk -----------------------------------------
// Physical memory for page tables: frames allocated one after another from
// `base`, read through the same callback by the model and the baseline.
struct FlatMem {
    static constexpr uint64_t base = 1ull << 30;
    std::vector<uint64_t> words;
    static gmmu_status read(void *c, uint64_t pa, uint64_t *v)
    {
        *v = static_cast<FlatMem *>(c)->words[(pa - base) >> 3];
        return GMMU_OK;
    }
    static gmmu_status write(void *c, uint64_t pa, uint64_t v)
    {
        static_cast<FlatMem *>(c)->words[(pa - base) >> 3] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *c, uint64_t *pa)
    {
        auto *m = static_cast<FlatMem *>(c);
        *pa = base + (uint64_t(m->words.size()) << 3);
        m->words.resize(m->words.size() + 512, 0);
        return GMMU_OK;
    }
};

struct WalkBench {
    double walker = 0, bare = 0, inlined = 0, pwc = 0;
};

// 4-level tables, 4 KiB pages: 64 Ki pages in 128 MiB regions spread over the
// address space (each walk reads 4 PTEs); a random VA trace over them.
WalkBench bench_walks(uint64_t &sink)
{
    FlatMem mem;
    gmmu_mem_ops ops{&FlatMem::read, &FlatMem::write, &mem};
    gmmu_pt *pt = nullptr;
    gmmu_error err{};
    if (gmmu_pt_create(&ops, &FlatMem::alloc, &mem, &pt, &err) != GMMU_OK)
        std::abort();
    std::vector<uint64_t> pages;
    std::mt19937_64 rng(7);
    for (uint64_t r = 0; r < 8; r++)
        for (uint64_t k = 0; k < 8192; k++) {
            const uint64_t va = 0x100000000000ull + r * (1ull << 36) + k * 4096;
            if (gmmu_pt_map(pt, va, 0x80000000000ull + pages.size() * 4096, 12,
                            GMMU_MAP_W | GMMU_MAP_U, &err) != GMMU_OK)
                std::abort();
            pages.push_back(va);
        }
    std::vector<uint64_t> trace(2000000);
    for (auto &v : trace)
        v = pages[rng() % pages.size()] | ((rng() & 511) << 3);
    WalkBench b;
    {
        auto t0 = clk::now();
        for (uint64_t va : trace) {
            gmmu_walk_result w;
            gmmu_walk_from(&ops, pt->root, 4, va, GMMU_ACC_USER, &w);
            sink += w.pa;
        }
        b.walker = double(trace.size()) / std::chrono::duration<double>(clk::now() - t0).count();
    }
    {
        // The baseline: the same four reads through the same callback (the
        // function pointer in ops, as the walker makes them), no checks. The
        // pointer to ops goes through an empty asm so the compiler cannot
        // see which function it calls and inline the read.
        const gmmu_mem_ops *po = &ops;
        __asm__ volatile("" : "+r"(po));
        auto t0 = clk::now();
        for (uint64_t va : trace) {
            uint64_t t = pt->root, e = 0;
            for (unsigned level = 4; level >= 1; level--) {
                po->read64(po->ctx, t + 8 * ((va >> (12 + 9 * (level - 1))) & 511), &e);
                t = e & GMMU_PTE_ADDR_MASK;
            }
            sink += t | (va & 4095);
        }
        b.bare = double(trace.size()) / std::chrono::duration<double>(clk::now() - t0).count();
    }
    {
        // The same with the read inlined (no call at all): what the earlier
        // baseline measured, kept for comparison.
        auto t0 = clk::now();
        for (uint64_t va : trace) {
            uint64_t t = pt->root, e = 0;
            for (unsigned level = 4; level >= 1; level--) {
                FlatMem::read(&mem, t + 8 * ((va >> (12 + 9 * (level - 1))) & 511), &e);
                t = e & GMMU_PTE_ADDR_MASK;
            }
            sink += t | (va & 4095);
        }
        b.inlined = double(trace.size()) / std::chrono::duration<double>(clk::now() - t0).count();
    }
    {
        gmmu_pwc_config c;
        gmmu_pwc *p = nullptr;
        if (gmmu_pwc_config_for_bits(GMMU_PWC_CPWC, 5280, &c, &err) != GMMU_OK ||
            gmmu_pwc_create(&c, &p, &err) != GMMU_OK)
            std::abort();
        for (uint64_t va : pages) { // warm: every path filled once
            gmmu_walk_result w;
            gmmu_walk_from(&ops, pt->root, 4, va, GMMU_ACC_USER, &w);
            gmmu_pwc_fill(p, va, &w);
        }
        auto t0 = clk::now();
        for (uint64_t va : trace) {
            gmmu_pwc_hit h;
            gmmu_pwc_lookup(p, pt->root, va, &h);
            sink += h.table_base;
        }
        b.pwc = double(trace.size()) / std::chrono::duration<double>(clk::now() - t0).count();
        gmmu_pwc_destroy(p);
    }
    gmmu_pt_destroy(pt);
    return b;
}

// Run gmmu-sim with args (and mmu.bypass) into out; its stats.json. The
// run's peak resident set (wait4: the shell and the gmmu-sim it runs) in
// *peak_rss_kb if non-NULL.
nlohmann::json run_sim(const std::string &sim, const std::string &args, bool bypass,
                       const std::string &out, long *peak_rss_kb = nullptr)
{
    std::string cmd = sim + " " + args + " --quiet --set mmu.bypass=" + (bypass ? "true" : "false") +
                      " --out " + out + " >/dev/null 2>&1";
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char *>(nullptr));
        _exit(127);
    }
    int status = 0;
    struct rusage ru {};
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        std::fprintf(stderr, "gmmu-bench: '%s' failed\n", cmd.c_str());
        std::exit(1);
    }
    if (peak_rss_kb)
        *peak_rss_kb = ru.ru_maxrss;
    std::ifstream in(out + "/stats.json");
    return nlohmann::json::parse(in);
}

// Scale: random-sample over a 1 TiB region of 4 KiB pages with
// workload.map=touched, at three run lengths (each twice the last). Every
// lane's sample lands on its own page almost always, so the pages touched,
// the page tables and the memory grow with the run; time per warp access
// and memory per touched page should stay flat.
struct ScaleRow {
    uint64_t accesses = 0;       // workload.accesses (per warp and phase)
    double warp_accesses = 0;    // completed, all SMs
    double ns_per_access = 0;    // wall ns per warp access (best of the repetitions)
    double ns_worst = 0;         // the slowest repetition's (run-to-run noise at one size)
    double peak_rss_mib = 0;     // of that run
    double touched_pages = 0;    // 4 KiB pages mapped (= touched)
    double host_pages = 0;       // 4 KiB pages of the sparse memory: data + page tables
};

ScaleRow scale_run(const std::string &sim, uint64_t accesses, const std::string &out)
{
    long rss = 0;
    nlohmann::json j = run_sim(sim,
                               "--config default --workload random-sample --set workload.map=touched "
                               "--set workload.region_bytes=1099511627776 "
                               "--set workload.base_va=0x7e0000000000 --set workload.accesses=" +
                                   std::to_string(accesses),
                               false, out, &rss);
    ScaleRow r;
    r.accesses = accesses;
    r.warp_accesses = j["warp_accesses"].get<double>();
    r.ns_per_access = 1e9 * j["wall_s"].get<double>() / r.warp_accesses;
    r.peak_rss_mib = double(rss) / 1024.0;
    r.touched_pages = j["gpu"]["driver"]["mapped_4k"].get<double>();
    r.host_pages = j["gpu"]["memory"]["pages_allocated"].get<double>();
    return r;
}

double platform_rate(const std::string &sim, bool bypass, const std::string &out)
{
    nlohmann::json j =
        run_sim(sim, "--config default --workload stream --set workload.passes=2", bypass, out);
    return j["warp_accesses_per_wall_s"].get<double>();
}

// Warp instructions issued (all SMs) per second of simulation wall time.
double issue_sm_rate(const std::string &sim, bool bypass, const std::string &out)
{
    nlohmann::json j = run_sim(sim,
                               "--config tanasic17 --workload kernel --set workload.kernel=spmv-like "
                               "--set workload.grid_blocks=1024",
                               bypass, out);
    double issued = 0;
    for (auto &[k, v] : j["gpu"].items())
        if (k.rfind("sm", 0) == 0 && v.is_object() && v.contains("issued"))
            issued += v["issued"].get<double>();
    if (issued <= 0) {
        std::fprintf(stderr, "gmmu-bench: the issue SM run issued no instructions\n");
        std::exit(1);
    }
    return issued / j["wall_s"].get<double>();
}

} // namespace

int main(int argc, char **argv)
{
    std::string out = "bench.json";
    int reps = 5;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--reps" && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else {
            std::fprintf(stderr, "usage: gmmu-bench [--out FILE] [--reps N]\n");
            return 2;
        }
    }
    auto trace = vpn_trace(4000000, 448, 42);
    uint64_t sink = 0;
    double tlb = 0, hash = 0;
    for (int r = 0; r < reps; r++) { // interleaved, best of reps
        tlb = std::max(tlb, bench_tlb(trace, sink));
        hash = std::max(hash, bench_hash(trace, sink));
    }
    WalkBench wb;
    for (int r = 0; r < reps; r++) {
        WalkBench x = bench_walks(sink);
        wb.walker = std::max(wb.walker, x.walker);
        wb.bare = std::max(wb.bare, x.bare);
        wb.inlined = std::max(wb.inlined, x.inlined);
        wb.pwc = std::max(wb.pwc, x.pwc);
    }
    std::string sim = (std::filesystem::path(argv[0]).parent_path() / "gmmu-sim").string();
    // A directory of this run's own: benches run side by side do not share outputs.
    std::string tmpl = (std::filesystem::temp_directory_path() / "gmmu-bench.XXXXXX").string();
    if (!mkdtemp(tmpl.data())) {
        std::perror("gmmu-bench: mkdtemp");
        return 1;
    }
    const std::string tmp = tmpl;
    double mmu = 0, nommu = 0;
    for (int r = 0; r < std::min(reps, 3); r++) {
        mmu = std::max(mmu, platform_rate(sim, false, tmp + "/mmu"));
        nommu = std::max(nommu, platform_rate(sim, true, tmp + "/nommu"));
    }
    double issue = 0, issue_nommu = 0;
    for (int r = 0; r < std::min(reps, 3); r++) {
        issue = std::max(issue, issue_sm_rate(sim, false, tmp + "/issue"));
        issue_nommu = std::max(issue_nommu, issue_sm_rate(sim, true, tmp + "/issue_nommu"));
    }
    std::vector<ScaleRow> scale;
    for (uint64_t a : {16u, 32u, 64u}) {
        ScaleRow best;
        for (int r = 0; r < std::min(reps, 2); r++) {
            ScaleRow x = scale_run(sim, a, tmp + "/scale");
            const double worst = std::max(best.ns_worst, x.ns_per_access);
            if (best.accesses == 0 || x.ns_per_access < best.ns_per_access)
                best = x;
            best.ns_worst = worst;
        }
        scale.push_back(best);
    }
    // spread: across the three sizes (best run of each); repeat spread: the
    // largest slowest/fastest ratio of one size's repetitions, the host's
    // run-to-run noise the spread is measured against.
    double scale_lo = scale[0].ns_per_access, scale_hi = scale_lo, scale_repeat = 1;
    for (auto &r : scale) {
        scale_lo = std::min(scale_lo, r.ns_per_access);
        scale_hi = std::max(scale_hi, r.ns_per_access);
        scale_repeat = std::max(scale_repeat, r.ns_worst / r.ns_per_access);
    }
    nlohmann::json j;
    j["scale"] = nlohmann::json::array();
    for (auto &r : scale)
        j["scale"].push_back({{"workload_accesses", r.accesses},
                              {"warp_accesses", r.warp_accesses},
                              {"ns_per_warp_access", r.ns_per_access},
                              {"ns_per_warp_access_slowest_repetition", r.ns_worst},
                              {"peak_rss_mib", r.peak_rss_mib},
                              {"touched_pages", r.touched_pages},
                              {"sparse_memory_pages", r.host_pages},
                              {"rss_kib_per_touched_page", r.peak_rss_mib * 1024.0 / r.touched_pages}});
    j["scale_time_per_access_spread"] = scale_hi / scale_lo;
    j["scale_repeat_spread"] = scale_repeat;
    j["tlb_model_lookups_per_s"] = tlb;
    j["hash_baseline_lookups_per_s"] = hash;
    j["tlb_slowdown_vs_hash"] = hash / tlb;
    j["platform_warp_accesses_per_s"] = mmu;
    j["platform_nommu_warp_accesses_per_s"] = nommu;
    j["platform_slowdown_vs_nommu"] = nommu / mmu;
    j["issue_sm_warp_insns_per_s"] = issue;
    j["issue_sm_nommu_warp_insns_per_s"] = issue_nommu;
    j["issue_sm_slowdown_vs_nommu"] = issue_nommu / issue;
    j["walker_walks_per_s"] = wb.walker;
    j["bare_walk_baseline_walks_per_s"] = wb.bare;
    j["walker_slowdown_vs_bare_walk"] = wb.bare / wb.walker;
    j["bare_walk_inlined_walks_per_s"] = wb.inlined;
    j["pwc_cpwc_lookups_per_s"] = wb.pwc;
    j["targets"] = {{"tlb_slowdown_vs_hash_max", 1.5},
                    {"walker_slowdown_vs_bare_walk_max", 1.5},
                    {"platform_slowdown_vs_nommu_max", 1.3},
                    {"issue_sm_slowdown_vs_nommu_max", 1.5},
                    {"scale_time_per_access_spread_max", 1.2}};
    j["checksum"] = sink & 0xFFFF;
    j["tlb_hit_rate"] = tlb_hit_rate;
    std::error_code ec;
    std::filesystem::remove_all(tmp, ec);
    // Written whole or not at all: a temporary file beside out, then renamed.
    const std::string part = out + ".part";
    {
        std::ofstream f(part);
        f << j.dump(2) << "\n";
        f.close();
        if (!f) {
            std::fprintf(stderr, "gmmu-bench: cannot write %s\n", part.c_str());
            return 1;
        }
    }
    std::filesystem::rename(part, out, ec);
    if (ec) {
        std::fprintf(stderr, "gmmu-bench: cannot write %s: %s\n", out.c_str(), ec.message().c_str());
        return 1;
    }
    std::printf("TLB model        %12.0f lookups/s\n", tlb);
    std::printf("hash probe       %12.0f lookups/s   model slowdown %.2fx (target <= 1.5)\n", hash,
                hash / tlb);
    std::printf("platform (MMU)   %12.0f warp accesses/s\n", mmu);
    std::printf("platform (none)  %12.0f warp accesses/s   MMU slowdown %.2fx (target <= 1.3)\n",
                nommu, nommu / mmu);
    std::printf("issue SM (MMU)   %12.0f warp instructions/s\n", issue);
    std::printf("issue SM (none)  %12.0f warp instructions/s   MMU slowdown %.2fx (target <= 1.5)\n",
                issue_nommu, issue_nommu / issue);
    std::printf("walker           %12.0f walks/s\n", wb.walker);
    std::printf("bare 4-read walk %12.0f walks/s         walker slowdown %.2fx (target <= 1.5)\n",
                wb.bare, wb.bare / wb.walker);
    std::printf("bare walk, inlined read %5.0f M walks/s (no call; not the target's baseline)\n",
                wb.inlined / 1e6);
    std::printf("CPWC (5280 bits) %12.0f lookups/s\n", wb.pwc);
    for (auto &r : scale)
        std::printf("scale: %7.0f warp accesses, %8.0f touched pages: %7.0f ns/access, %7.0f MiB "
                    "(%.1f KiB per touched page)\n",
                    r.warp_accesses, r.touched_pages, r.ns_per_access, r.peak_rss_mib,
                    r.peak_rss_mib * 1024.0 / r.touched_pages);
    std::printf("scale: time per access spread %.2fx (target <= 1.2); one size's repetitions "
                "differ by up to %.2fx\n",
                scale_hi / scale_lo, scale_repeat);
    std::printf("wrote %s\n", out.c_str());
    return 0;
}
