// gmmu-bench-stages: what an all-hit warp access costs in each stage of the
// L1 TLB's data path, in ns per warp access, for a warp whose 32 lanes fall
// in one page and for one whose lanes fall in 32 pages (issue 46 item 1).
//
//   coalesce      gmmu_coalesce of the warp's 32 lane VAs
//   L1 lookup     gmmu_tlb_answer_access for each of its pages (all hit),
//                 and gmmu_tlb_serve_hit (the hit fast path's model call)
//   TLM hop       the same payload through b_transport to a target that only
//                 answers OK (what forwarding the warp costs without a TLB)
//   component     initiator -> gmmu::tlb (L1) -> that target, every page a
//                 hit: coalesce, lookup, lane rewrite, MSHR and statistics
//                 bookkeeping, the forward
//   rest          component - coalesce - L1 lookup - TLM hop: lane rewrite,
//                 the wrapper's bookkeeping and statistics
// and the component again with each added feature on its own: MSHRs (4, a
// blocking TLB), contexts (a resolved ctx_ext on every payload, as behind
// gmmu::smmu), the CCWS/TCWS side band (track_owners, sched_sideband) and large-page ways
// (a 2 MiB array beside the 4 KiB one), and the component with its hit fast
// path off (hit_fast_path=false: every access through the request batch;
// the fast path serves only one-page hits). Each figure is the best of --reps
// repetitions (5) of 200,000 accesses. Writes --out FILE (JSON) if given.
//   gmmu-bench-stages [--out FILE] [--reps 1..50]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "gmmu/gpu/driver.h"

using namespace sc_core;

namespace {

using clk = std::chrono::steady_clock;
constexpr unsigned kAccesses = 200000;
constexpr uint64_t kBase = 0x7f0000000000ull;
int g_reps = 5;

// The forward's end: answers every payload OK, touches nothing.
struct sink : sc_module {
    tlm_utils::simple_target_socket<sink> tsock;
    explicit sink(sc_module_name n) : sc_module(n), tsock("tsock")
    {
        tsock.register_b_transport(this, &sink::bt);
    }
    void bt(tlm::tlm_generic_payload &gp, sc_time &) { gp.set_response_status(tlm::TLM_OK_RESPONSE); }
};

struct initiator : sc_module {
    tlm_utils::simple_initiator_socket<initiator> isock;
    explicit initiator(sc_module_name n) : sc_module(n), isock("isock") {}
};

// A warp over one page (lane l at +8l) or over 32 (lane l in page l).
gmmu::warp_ext make_warp(unsigned pages)
{
    gmmu::warp_ext w;
    w.active = 0xFFFFFFFFu;
    w.timing_only = true;
    for (unsigned l = 0; l < 32; l++)
        w.va[l] = kBase + (pages == 1 ? 8ull * l : 4096ull * l + 8 * l);
    return w;
}

double best_ns(const std::function<void()> &loop)
{
    double best = 1e30;
    for (int r = 0; r < g_reps; r++) {
        const auto t0 = clk::now();
        loop();
        best = std::min(best, std::chrono::duration<double, std::nano>(clk::now() - t0).count() / kAccesses);
    }
    return best;
}

gmmu::tlb_params l1_params()
{
    gmmu::tlb_params p;
    p.model.entries = 64;
    p.model.ways = 64;
    p.model.page_shift = 12;
    p.model.repl = GMMU_TLB_REPL_LRU;
    p.model.lookup_cycles = 1;
    p.ports = 32;
    p.level = 1;
    return p;
}

enum feature { base, mshrs, contexts, ccws, large_ways, batch_path, n_features };
const char *feature_name[] = {"base", "mshrs", "contexts", "ccws_sideband", "large_page_ways",
                              "hit_fast_path_off"};

// One platform per feature (SystemC modules cannot be destroyed mid-run, so
// all are built at once): initiator -> L1 -> sink; L1 misses -> L2 -> walker
// -> memory, for the warm-up fills.
struct rig {
    initiator ini;
    sink out;
    gmmu::memory mem;
    gmmu::driver drv;
    gmmu::tlb l1, l2;
    gmmu::ptw walker;
    static gmmu::tlb_params with(feature f)
    {
        gmmu::tlb_params p = l1_params();
        if (f == mshrs) {
            p.mshr.ports = 32;
            p.mshr.mshrs = 4;
        }
        if (f == ccws) {
            p.track_owners = true;
            p.sched_sideband = true;
        }
        if (f == large_ways)
            p.model.large[0] = {21, 16, 16};
        if (f == batch_path)
            p.hit_fast_path = false; // every access through the request batch
        return p;
    }
    static gmmu::tlb_params l2_params()
    {
        gmmu::tlb_params p = l1_params();
        p.model.entries = 512;
        p.model.ways = 16;
        p.level = 2;
        return p;
    }
    rig(const std::string &n, feature f)
        : ini((n + "_ini").c_str()), out((n + "_out").c_str()),
          mem((n + "_mem").c_str(), 10, sc_time(1, SC_NS)), drv((n + "_drv").c_str(), mem),
          l1((n + "_l1").c_str(), with(f)), l2((n + "_l2").c_str(), l2_params()),
          walker((n + "_ptw").c_str(), gmmu::ptw_params{})
    {
        ini.isock.bind(l1.tsock);
        l1.isock.bind(out.tsock);
        l1.miss_isock.bind(l2.tsock);
        l2.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
    }
    void setup()
    {
        walker.set_root(0, drv.root());
        drv.map(kBase, 64 * 4096, 12);
    }
};

double component_ns(rig &r, feature f, unsigned pages)
{
    gmmu::warp_ext w = make_warp(pages);
    gmmu::ctx_ext cx;
    cx.resolved = true;
    cx.asid = 0;
    cx.root = r.drv.root();
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_data_ptr(nullptr);
    gp.set_data_length(0);
    gp.set_extension(&w);
    if (f == contexts)
        gp.set_extension(&cx);
    gmmu::sched_sideband_ext sb; // what an SM with CCWS/TCWS attaches and clears per access
    if (f == ccws)
        gp.set_extension(&sb);
    sc_time d = SC_ZERO_TIME;
    auto one = [&] {
        gp.set_address(w.va[0]);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        d = SC_ZERO_TIME;
        if (f == ccws)
            sb.clear();
        r.ini.isock->b_transport(gp, d);
    };
    for (int i = 0; i < 4; i++) // warm: every page filled, every fill arrived
        one();
    sc_start(sc_time(1, SC_MS));
    uint64_t misses0 = gmmu_tlb_stats_of(r.l1.model())->misses;
    const double ns = best_ns([&] {
        for (unsigned i = 0; i < kAccesses; i++)
            one();
    });
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE ||
        gmmu_tlb_stats_of(r.l1.model())->misses != misses0) {
        std::fprintf(stderr, "gmmu-bench-stages: %s, %u pages: not an all-hit access\n",
                     feature_name[f], pages);
        std::exit(1);
    }
    gp.clear_extension(&w);
    if (f == contexts)
        gp.clear_extension(&cx);
    if (f == ccws)
        gp.clear_extension(&sb);
    return ns;
}

double coalesce_ns(unsigned pages)
{
    gmmu::warp_ext w = make_warp(pages);
    const uint64_t *va = w.va.data();
    __asm__ volatile("" : "+r"(va));
    gmmu_coalesced c;
    uint64_t sink_v = 0;
    const double ns = best_ns([&] {
        for (unsigned i = 0; i < kAccesses; i++) {
            gmmu_coalesce(va, 32, 0xFFFFFFFFu, 12, &c);
            sink_v += c.npages;
            __asm__ volatile("" : "+r"(sink_v) : : "memory");
        }
    });
    if (c.npages != pages)
        std::exit(1);
    return ns;
}

// The L1 lookup of each page: gmmu_tlb_answer_access, or with serve the hit
// fast path's call, gmmu_tlb_serve_hit.
double lookup_ns(unsigned pages, bool large, bool serve = false)
{
    gmmu_tlb_config c = l1_params().model;
    if (large)
        c.large[0] = {21, 16, 16};
    gmmu_tlb *t = nullptr;
    if (gmmu_tlb_create(&c, &t, nullptr) != GMMU_OK)
        std::exit(1);
    for (unsigned p = 0; p < 32; p++)
        gmmu_tlb_fill_ex(t, 0, (kBase >> 12) + p, 0x1000 + p, GMMU_PTE_W | GMMU_PTE_U, 0, 0, nullptr);
    uint64_t sink_v = 0;
    const double ns = best_ns([&] {
        for (unsigned i = 0; i < kAccesses; i++)
            for (unsigned p = 0; p < pages; p++) {
                gmmu_tlb_answer a;
                const uint64_t vpn = (kBase >> 12) + p;
                if (serve ? !gmmu_tlb_serve_hit(t, 0, vpn, 0, &a)
                          : gmmu_tlb_answer_access(t, 0, vpn, 0, false, &a) != GMMU_TLB_SERVED)
                    std::exit(1);
                sink_v += a.ppn;
            }
    });
    __asm__ volatile("" : : "r"(sink_v));
    gmmu_tlb_destroy(t);
    return ns;
}

} // namespace

int sc_main(int argc, char **argv)
{
    std::string out;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "--out" && i + 1 < argc)
            out = argv[++i];
        else if (a == "--reps" && i + 1 < argc) {
            g_reps = std::atoi(argv[++i]);
            if (g_reps < 1 || g_reps > 50) {
                std::fprintf(stderr, "gmmu-bench-stages: --reps '%s': expected 1..50\n", argv[i]);
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: gmmu-bench-stages [--out FILE] [--reps 1..50]\n");
            return 2;
        }
    }
    sc_core::sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
    rig *rigs[n_features];
    for (int f = 0; f < n_features; f++)
        rigs[f] = new rig(std::string("r") + std::to_string(f), feature(f));
    initiator hop_ini("hop_ini");
    sink hop_out("hop_out");
    hop_ini.isock.bind(hop_out.tsock);
    sc_start(SC_ZERO_TIME);
    for (auto *r : rigs)
        r->setup();

    nlohmann::json j;
    std::printf("all-hit warp access, ns per warp access   1 page   32 pages\n");
    for (unsigned pages : {1u, 32u}) {
        const std::string k = pages == 1 ? "one_page" : "divergent_32_pages";
        // The lookups with and without large-page ways in turn, as the features below.
        const double co = coalesce_ns(pages);
        double lk = 1e30, lk_large = 1e30, lk_serve = 1e30;
        {
            const int reps = g_reps;
            g_reps = 1;
            for (int r = 0; r < reps; r++) {
                lk = std::min(lk, lookup_ns(pages, false));
                lk_large = std::min(lk_large, lookup_ns(pages, true));
                lk_serve = std::min(lk_serve, lookup_ns(pages, false, true));
            }
            g_reps = reps;
        }
        gmmu::warp_ext w = make_warp(pages);
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_extension(&w);
        sc_time d;
        const double hop = best_ns([&] {
            for (unsigned i = 0; i < kAccesses; i++) {
                d = SC_ZERO_TIME;
                hop_ini.isock->b_transport(gp, d);
            }
        });
        gp.clear_extension(&w);
        // The features in turn, one repetition each per round, best of the
        // rounds: a load change on the host moves them all.
        double comp[n_features];
        std::fill(comp, comp + n_features, 1e30);
        const int reps = g_reps;
        g_reps = 1;
        for (int r = 0; r < reps; r++)
            for (int f = 0; f < n_features; f++)
                comp[f] = std::min(comp[f], component_ns(*rigs[f], feature(f), pages));
        g_reps = reps;
        j[k] = {{"coalesce_ns", co},
                {"l1_lookup_ns", lk},
                {"l1_lookup_large_page_ways_ns", lk_large},
                {"l1_serve_hit_ns", lk_serve},
                {"tlm_hop_ns", hop},
                {"component_ns", comp[base]},
                {"rest_ns", comp[base] - co - lk - hop}};
        for (int f = 1; f < n_features; f++)
            j[k][std::string("component_with_") + feature_name[f] + "_ns"] = comp[f];
    }
    auto row = [&](const char *name, const char *key) {
        std::printf("  %-38s %8.1f %10.1f\n", name, j["one_page"][key].get<double>(),
                    j["divergent_32_pages"][key].get<double>());
    };
    row("coalesce", "coalesce_ns");
    row("L1 lookup (each page)", "l1_lookup_ns");
    row("  the same by gmmu_tlb_serve_hit", "l1_serve_hit_ns");
    row("TLM hop (b_transport to a sink)", "tlm_hop_ns");
    row("L1 TLB component, all of it", "component_ns");
    row("  rest: lane rewrite, bookkeeping, stats", "rest_ns");
    std::printf("per added feature (component, ns per warp access):\n");
    row("L1 lookup with large-page ways", "l1_lookup_large_page_ways_ns");
    for (int f = 1; f < n_features; f++) {
        const std::string key = std::string("component_with_") + feature_name[f] + "_ns";
        const std::string name = std::string("component + ") + feature_name[f];
        row(name.c_str(), key.c_str());
    }
    std::printf("target: all-hit warp access (coalesce to rewritten lanes) <= 100 ns\n");
    if (!out.empty()) {
        std::ofstream f(out + ".part", std::ios::trunc);
        f << j.dump(2) << "\n";
        f.close();
        if (!f || std::rename((out + ".part").c_str(), out.c_str()) != 0) {
            std::fprintf(stderr, "gmmu-bench-stages: cannot write %s\n", out.c_str());
            return 1;
        }
    }
    return 0;
}
