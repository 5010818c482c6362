// gmmu-bench: speed as ratios against baselines measured in the same run.
//   tlb_model_lookups_per_s     gmmu_tlb_lookup (+ fill on miss) over a VPN trace whose
//                               448-page working set fits the 512-entry 16-way TLB
//   hash_baseline_lookups_per_s a bare open-addressing hash probe over the same trace
//   platform_warp_accesses_per_s        gmmu-sim, stream workload, default config
//   platform_nommu_warp_accesses_per_s  the same with mmu.bypass=true
//   platform_timing_only_*      the same two runs with sm.timing_only=true (no data
//                               moved or checked): the MMU's extra time per warp access
//                               without the data path, against the extra with it
//   issue_sm_warp_insns_per_s   gmmu-sim, issue/commit SM (tanasic17, spmv-like kernel,
//                               1,024 blocks): warp instructions issued per wall second
//   issue_sm_nommu_warp_insns_per_s     the same with mmu.bypass=true
//   walker_walks_per_s          gmmu_walk_from over 4-level tables (4 KiB pages) in memory:
//                               the walk with its per-read record (a page-walk cache,
//                               the scheduled walks' A/D write-back and the RTL lock-step
//                               need it)
//   walker_outcome_walks_per_s  gmmu_walk_outcome: the same walks without the record, the
//                               walk the platform's walker runs unless one of those asks
//                               for the record (issue 46, item 4): the target's line
//   bare_walk_baseline_walks_per_s  the same four reads through the same callback, no checks
//   bare_walk_inlined_walks_per_s   the same with the read inlined (no call), for comparison
//   pwc_cpwc_lookups_per_s      gmmu_pwc_lookup of a warm 5,280-bit CPWC over the same VAs
//   scale                       gmmu-sim random-sample over a sparsely touched 1 TiB region at
//                               three run lengths: ns per warp access, peak RSS, touched pages
//   scale_time_per_access_spread  slowest over fastest ns per warp access of the three
//   scale_repeat_spread         slowest over fastest repetition of one size (the largest of
//                               the three): the run-to-run noise the spread is read against
// Each figure is the best of several repetitions. Writes --out FILE (JSON).
//   gmmu-bench [--out FILE] [--reps 1..50] [--sim GMMU_SIM]
// Bad arguments (and an --out that cannot be written) exit 2 before any
// benchmark runs. gmmu-sim runs with no shell; its outputs go to a temporary
// folder that is removed, with the partial --out file, on every exit.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
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
    double walker = 0, outcome = 0, bare = 0, inlined = 0, pwc = 0;
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
        auto t0 = clk::now();
        for (uint64_t va : trace) {
            gmmu_walk_result w;
            gmmu_walk_outcome(&ops, pt->root, 4, va, GMMU_ACC_USER, &w);
            sink += w.pa;
        }
        b.outcome = double(trace.size()) / std::chrono::duration<double>(clk::now() - t0).count();
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

// What a failed or interrupted bench leaves behind is removed: the
// temporary folder of the gmmu-sim runs and the partial --out file.
std::string g_tmp_dir, g_part;
volatile sig_atomic_t g_stop = 0;
volatile pid_t g_child = 0;

void cleanup()
{
    std::error_code ec;
    if (!g_tmp_dir.empty())
        std::filesystem::remove_all(g_tmp_dir, ec);
    if (!g_part.empty())
        std::filesystem::remove(g_part, ec);
    g_tmp_dir.clear();
    g_part.clear();
}

[[noreturn]] void fail(const std::string &msg, int code = 1)
{
    std::fprintf(stderr, "gmmu-bench: %s\n", msg.c_str());
    cleanup();
    std::exit(code);
}

// SIGINT/SIGTERM: the running gmmu-sim is stopped at once; the bench stops
// at the next check (between benchmarks) and cleans up.
void on_signal(int sig)
{
    g_stop = sig;
    if (g_child > 0)
        kill(g_child, SIGTERM);
}

void check_stop()
{
    if (g_stop)
        fail("interrupted; no output written", 128 + g_stop);
}

// Run gmmu-sim with args (and mmu.bypass) into out, with no shell (argv as
// given, stdout and stderr to /dev/null); its stats.json. The run's peak
// resident set (wait4: gmmu-sim's own) in *peak_rss_kb if non-NULL.
nlohmann::json run_sim(const std::string &sim, std::vector<std::string> args, bool bypass,
                       const std::string &out, long *peak_rss_kb = nullptr)
{
    check_stop();
    args.insert(args.begin(), sim);
    for (const char *a : {"--quiet", "--set"})
        args.push_back(a);
    args.push_back(std::string("mmu.bypass=") + (bypass ? "true" : "false"));
    args.push_back("--out");
    args.push_back(out);
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::string shown;
    for (auto &a : args)
        shown += (shown.empty() ? "" : " ") + a;
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execv(sim.c_str(), argv.data());
        _exit(127);
    }
    if (pid < 0)
        fail("'" + shown + "': fork: " + std::strerror(errno));
    g_child = pid;
    int status = 0;
    struct rusage ru {};
    pid_t got;
    do
        got = wait4(pid, &status, 0, &ru);
    while (got < 0 && errno == EINTR);
    g_child = 0;
    check_stop();
    if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail("'" + shown + "' failed (" +
             (got != pid ? std::string("not waited for")
              : WIFEXITED(status)   ? "exit " + std::to_string(WEXITSTATUS(status))
                                    : "signal " + std::to_string(WTERMSIG(status))) +
             ")");
    if (peak_rss_kb)
        *peak_rss_kb = ru.ru_maxrss;
    std::ifstream in(out + "/stats.json");
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        fail("'" + shown + "' wrote no readable stats.json");
    return j;
}

// A number from stats.json (a missing or non-numeric one fails the bench).
double num(const nlohmann::json &j, std::initializer_list<const char *> path)
{
    const nlohmann::json *p = &j;
    std::string name;
    for (const char *k : path) {
        name += (name.empty() ? "" : ".") + std::string(k);
        if (!p->is_object() || !p->contains(k))
            fail("gmmu-sim's stats.json has no " + name);
        p = &(*p)[k];
    }
    if (!p->is_number())
        fail("gmmu-sim's stats.json: " + name + " is not a number");
    return p->get<double>();
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
                               {"--config", "default", "--workload", "random-sample", "--set",
                                "workload.map=touched", "--set", "workload.region_bytes=1099511627776",
                                "--set", "workload.base_va=0x7e0000000000", "--set",
                                "workload.accesses=" + std::to_string(accesses)},
                               false, out, &rss);
    ScaleRow r;
    r.accesses = accesses;
    r.warp_accesses = num(j, {"warp_accesses"});
    r.ns_per_access = 1e9 * num(j, {"wall_s"}) / r.warp_accesses;
    r.peak_rss_mib = double(rss) / 1024.0;
    r.touched_pages = num(j, {"gpu", "driver", "mapped_4k"});
    r.host_pages = num(j, {"gpu", "memory", "pages_allocated"});
    return r;
}

double platform_rate(const std::string &sim, bool bypass, const std::string &out, bool timing_only = false)
{
    nlohmann::json j = run_sim(sim,
                               {"--config", "default", "--workload", "stream", "--set", "workload.passes=2",
                                "--set", std::string("sm.timing_only=") + (timing_only ? "true" : "false")},
                               bypass, out);
    return num(j, {"warp_accesses_per_wall_s"});
}

// Warp instructions issued (all SMs) per second of simulation wall time.
double issue_sm_rate(const std::string &sim, bool bypass, const std::string &out)
{
    nlohmann::json j = run_sim(sim,
                               {"--config", "tanasic17", "--workload", "kernel", "--set",
                                "workload.kernel=spmv-like", "--set", "workload.grid_blocks=1024"},
                               bypass, out);
    double issued = 0;
    if (j.contains("gpu") && j["gpu"].is_object())
        for (auto &[k, v] : j["gpu"].items())
            if (k.rfind("sm", 0) == 0 && v.is_object() && v.contains("issued") && v["issued"].is_number())
                issued += v["issued"].get<double>();
    if (issued <= 0)
        fail("the issue SM run issued no instructions");
    return issued / num(j, {"wall_s"});
}

} // namespace

int main(int argc, char **argv)
{
    std::string out = "bench.json", sim;
    int reps = 5;
    const char *usage = "usage: gmmu-bench [--out FILE] [--reps 1..50] [--sim GMMU_SIM]";
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--sim" && i + 1 < argc)
            sim = argv[++i];
        else if (a == "--reps" && i + 1 < argc) {
            const std::string t = argv[++i];
            if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string::npos ||
                std::stoi(t) < 1 || std::stoi(t) > 50)
                fail("--reps '" + t + "': expected a whole number 1..50", 2);
            reps = std::stoi(t);
        } else
            fail(std::string("'") + a + "': " + usage, 2);
    }
    // Everything that can be refused is refused before the first benchmark.
    namespace fs = std::filesystem;
    std::error_code ec;
    if (out.empty())
        fail("--out: an empty path", 2);
    // A symlink is followed (its target replaced); anything else that is
    // not a regular file is refused, never renamed over.
    fs::path target = fs::weakly_canonical(fs::absolute(out, ec), ec);
    if (ec)
        fail("--out " + out + ": " + ec.message(), 2);
    const fs::file_status st = fs::status(target, ec);
    if (fs::is_directory(st))
        fail("--out " + out + ": is a folder", 2);
    if (fs::exists(st) && !fs::is_regular_file(st))
        fail("--out " + out + ": not a regular file; not replaced", 2);
    if (!fs::is_directory(target.parent_path(), ec))
        fail("--out " + out + ": its folder does not exist", 2);
    {
        std::string tmpl = target.string() + ".XXXXXX.part";
        const int fd = mkstemps(tmpl.data(), 5);
        if (fd < 0)
            fail("--out " + out + ": cannot write in its folder: " + std::strerror(errno), 2);
        g_part = tmpl;
        const mode_t mask = umask(0);
        umask(mask);
        if (fchmod(fd, 0666 & ~mask) != 0 || close(fd) != 0)
            fail("--out " + out + ": " + std::strerror(errno), 2);
    }
    if (sim.empty()) {
        const fs::path self = fs::read_symlink("/proc/self/exe", ec);
        sim = ((ec ? fs::path(argv[0]) : self).parent_path() / "gmmu-sim").string();
    }
    if (access(sim.c_str(), X_OK) != 0 || fs::is_directory(sim, ec))
        fail("--sim " + sim + ": not an executable gmmu-sim", 2);
    // A directory of this run's own: benches run side by side do not share outputs.
    fs::path tmpdir = fs::temp_directory_path(ec);
    if (ec)
        fail(std::string("TMPDIR: ") + ec.message(), 2);
    std::string tmpl = (tmpdir / "gmmu-bench.XXXXXX").string();
    if (!mkdtemp(tmpl.data()))
        fail("cannot make a temporary folder in " + tmpdir.string() + ": " + std::strerror(errno), 2);
    g_tmp_dir = tmpl;
    const std::string tmp = tmpl;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);

    auto trace = vpn_trace(4000000, 448, 42);
    uint64_t sink = 0;
    double tlb = 0, hash = 0;
    for (int r = 0; r < reps; r++) { // interleaved, best of reps
        tlb = std::max(tlb, bench_tlb(trace, sink));
        hash = std::max(hash, bench_hash(trace, sink));
        check_stop();
    }
    WalkBench wb;
    for (int r = 0; r < reps; r++) {
        WalkBench x = bench_walks(sink);
        wb.walker = std::max(wb.walker, x.walker);
        wb.outcome = std::max(wb.outcome, x.outcome);
        wb.bare = std::max(wb.bare, x.bare);
        wb.inlined = std::max(wb.inlined, x.inlined);
        wb.pwc = std::max(wb.pwc, x.pwc);
        check_stop();
    }
    double mmu = 0, nommu = 0, mmu_to = 0, nommu_to = 0;
    for (int r = 0; r < std::min(reps, 3); r++) {
        mmu = std::max(mmu, platform_rate(sim, false, tmp + "/mmu"));
        nommu = std::max(nommu, platform_rate(sim, true, tmp + "/nommu"));
        mmu_to = std::max(mmu_to, platform_rate(sim, false, tmp + "/mmu_to", true));
        nommu_to = std::max(nommu_to, platform_rate(sim, true, tmp + "/nommu_to", true));
    }
    // The MMU's extra wall time per warp access, with the data path and
    // without it (ns): their difference is the data path running slower
    // beside the MMU (the same copies and checks, in the order the
    // translated machine issues them).
    const double extra_ns = 1e9 / mmu - 1e9 / nommu, extra_to_ns = 1e9 / mmu_to - 1e9 / nommu_to;
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
    j["platform_timing_only_warp_accesses_per_s"] = mmu_to;
    j["platform_timing_only_nommu_warp_accesses_per_s"] = nommu_to;
    j["platform_timing_only_slowdown_vs_nommu"] = nommu_to / mmu_to;
    j["platform_mmu_extra_ns_per_warp_access"] = extra_ns;
    j["platform_timing_only_mmu_extra_ns_per_warp_access"] = extra_to_ns;
    j["issue_sm_warp_insns_per_s"] = issue;
    j["issue_sm_nommu_warp_insns_per_s"] = issue_nommu;
    j["issue_sm_slowdown_vs_nommu"] = issue_nommu / issue;
    j["walker_walks_per_s"] = wb.walker;
    j["bare_walk_baseline_walks_per_s"] = wb.bare;
    j["walker_slowdown_vs_bare_walk"] = wb.bare / wb.walker;
    j["walker_outcome_walks_per_s"] = wb.outcome;
    j["walker_outcome_slowdown_vs_bare_walk"] = wb.bare / wb.outcome;
    j["bare_walk_inlined_walks_per_s"] = wb.inlined;
    j["pwc_cpwc_lookups_per_s"] = wb.pwc;
    j["targets"] = {{"tlb_slowdown_vs_hash_max", 1.5},
                    {"walker_outcome_slowdown_vs_bare_walk_max", 2.0},
                    {"platform_slowdown_vs_nommu_max", 1.6},
                    {"platform_slowdown_vs_nommu_then", 1.3},
                    {"issue_sm_slowdown_vs_nommu_max", 1.5},
                    {"scale_time_per_access_spread_max", 1.2}};
    j["checksum"] = sink & 0xFFFF;
    j["tlb_hit_rate"] = tlb_hit_rate;
    // Written whole or not at all: the temporary file beside out (made
    // before the first benchmark), then renamed over it.
    {
        std::ofstream f(g_part, std::ios::trunc);
        f << j.dump(2) << "\n";
        f.close();
        if (!f)
            fail("cannot write " + g_part);
    }
    check_stop();
    if (std::rename(g_part.c_str(), target.c_str()) != 0)
        fail("cannot write " + target.string() + ": " + std::strerror(errno));
    g_part.clear();
    cleanup();
    std::printf("TLB model        %12.0f lookups/s\n", tlb);
    std::printf("hash probe       %12.0f lookups/s   model slowdown %.2fx (target <= 1.5)\n", hash,
                hash / tlb);
    std::printf("platform (MMU)   %12.0f warp accesses/s\n", mmu);
    std::printf("platform (none)  %12.0f warp accesses/s   MMU slowdown %.2fx (target <= 1.6, then 1.3)\n",
                nommu, nommu / mmu);
    std::printf("  MMU's extra time %.0f ns per warp access; without the data path (sm.timing_only) "
                "%.0f ns (%.0f vs %.0f warp accesses/s, %.2fx)\n",
                extra_ns, extra_to_ns, mmu_to, nommu_to, nommu_to / mmu_to);
    std::printf("issue SM (MMU)   %12.0f warp instructions/s\n", issue);
    std::printf("issue SM (none)  %12.0f warp instructions/s   MMU slowdown %.2fx (target <= 1.5)\n",
                issue_nommu, issue_nommu / issue);
    std::printf("walker           %12.0f walks/s\n", wb.outcome);
    std::printf("bare 4-read walk %12.0f walks/s         walker slowdown %.2fx (target <= 2)\n",
                wb.bare, wb.bare / wb.outcome);
    std::printf("walker, record   %12.0f walks/s         slowdown %.2fx (with the per-read record: "
                "a PWC, scheduled walks, RTL lock-step)\n",
                wb.walker, wb.bare / wb.walker);
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
