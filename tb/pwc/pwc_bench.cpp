// gmmu — CPWC/TPC RTL benches: the walker and the sequences (random
// lock-step runs, the worked example), over the agent (pwc_mem.h) and the
// scoreboard (pwc_scoreboard.h). See pwc_bench.h and docs/rtl_pwc.md.
#include "pwc_bench.h"
#include "pwc_mem.h"
#include "pwc_scoreboard.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <sstream>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/cpwc.h"
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
#include "gmmu/tpc.h"
}

namespace pwcbench {
namespace {

// ---- the walker: completes walks some cycles after a lookup result ------------
struct WalkJob {
    uint64_t due, va;
    unsigned start_level;
    int space;
};

RunResult rerun_with_fst(const std::string &variant, const RunOpts &opt, RunResult r,
                         RunResult (*fn)(const std::string &, const RunOpts &))
{
    if (r.ok || !opt.fst_on_fail)
        return r;
    RunOpts o = opt;
    o.cycles = std::min(opt.cycles, r.fail_cycle + 2);
    o.fst_on_fail = false;
    o.quiet = true;
    o.coverage.clear();
    o.fst = opt.fst_dir + "/" + variant + "_seed" + std::to_string(opt.seed) + ".fst";
    RunResult again = fn(variant, o);
    r.fst = o.fst;
    if (again.ok || again.fail_cycle != r.fail_cycle)
        r.why += "\n  (the FST re-run did not fail at the same cycle)";
    return r;
}

RunResult run_random_once(const std::string &variant, const RunOpts &opt)
{
    auto t0 = std::chrono::steady_clock::now();
    Harness h(variant, opt);
    if (!h.ok())
        return h.result();
    std::mt19937_64 rng(opt.seed * 0x9E3779B97F4A7C15ull + 12345);
    // Junk on the lookup port's data inputs while lookup_valid is 0 (the C
    // model ignores them; so must the RTL). Its own generator, so the rest of
    // the stimulus is the same sequence as without it.
    std::mt19937_64 junk(opt.seed ^ 0x6A756E6B6A756E6Bull);
    auto pct = [&](unsigned p) { return unsigned(rng() % 1000) < p; }; // per mille
    auto pick = [&](size_t n) { return size_t(rng() % n); };

    const Layout L = make_layout(rng);
    Space sp0(0x100000ull, L), sp1(0x40000000ull, L);
    Space *spaces[2] = {&sp0, &sp1};
    int cur = 0;
    bool coherent = true;

    // per-seed regime
    const unsigned p_lookup = 300 + unsigned(rng() % 650);
    const unsigned p_inv = 1 + unsigned(rng() % 25);
    const unsigned p_switch = unsigned(rng() % 3);
    const unsigned p_prefetch = unsigned(rng() % 40);
    const unsigned max_walk = 2 + unsigned(rng() % 40);
    const unsigned p_stale = unsigned(rng() % 30); // fills from the other space's tables
    const size_t hot = 1 + pick(std::max<size_t>(1, L.small.size()));

    std::vector<WalkJob> walks;
    std::deque<std::pair<int, bool>> coherent_at; // space, coherent at issue
    const bool debug = std::getenv("GMMU_PWC_DEBUG") != nullptr; // per lookup in flight
    RunStats &st = h.result().st;
    gmmu_pwc_cycle_in in;
    gmmu_pwc_cycle_out out;

    auto lookup_va = [&]() -> uint64_t {
        unsigned r = unsigned(rng() % 100);
        uint64_t off = rng() & 0xFFF;
        if (r < 75 && !L.small.empty()) {
            size_t base = (st.lookups / 64) % L.small.size();
            return L.small[(base + pick(hot)) % L.small.size()] | off;
        }
        if (r < 83 && !L.large.empty())
            return L.large[pick(L.large.size())] | (rng() & 0x1FFFFF);
        if (r < 90 && !L.holes.empty())
            return L.holes[pick(L.holes.size())] | off;
        if (r < 95 && !L.small.empty()) {
            // a mapped VA with the high bits of its L4 or L3 index changed:
            // same L4/L3 slots, different tags
            uint64_t va = L.small[pick(L.small.size())];
            unsigned i4 = gmmu_va_index(va, 4), i3 = gmmu_va_index(va, 3);
            if (rng() & 1)
                i4 ^= (1u + unsigned(rng() % 511)) & ~1u & 0x1FFu;
            else
                i3 ^= (1u + unsigned(rng() % 511)) & ~1u & 0x1FFu;
            return canon(i4, i3, gmmu_va_index(va, 2), gmmu_va_index(va, 1), off);
        }
        if (r < 98)
            return canon(unsigned(rng() % 512), unsigned(rng() % 512), unsigned(rng() % 512),
                         unsigned(rng() % 512), off);
        st.noncanonical++;
        return (rng() | (1ull << 50)) & ~(1ull << 63); // bits 63:47 mixed: non-canonical
    };

    for (uint64_t c = 0; c < opt.cycles; c++) {
        std::memset(&in, 0, sizeof in);
        // invalidation (and, rarely, an address-space switch with a full flush)
        if (pct(p_inv)) {
            in.inv_valid = 1;
            unsigned k = unsigned(rng() % 100);
            if (k < 15 || pct(p_switch * 100)) {
                in.inv_all = 1;
                if (pct(p_switch * 150)) {
                    cur ^= 1;
                    st.space_switches++;
                    if (rng() & 1) // a walker that squashes its walks; else they fill stale
                        walks.erase(std::remove_if(walks.begin(), walks.end(),
                                                   [&](const WalkJob &w) { return w.space != cur; }),
                                    walks.end());
                }
            } else if (k < 55 && !L.leaves.empty()) {
                uint64_t va = L.leaves[pick(L.leaves.size())].va | (rng() & 0xFFF);
                in.inv_lo = va & ~0xFFFull;
                in.inv_hi = in.inv_lo + 0xFFF;
                if (rng() & 1) // one address (INVLPG): lo == hi
                    in.inv_lo = in.inv_hi = va;
            } else if (k < 80) {
                in.inv_lo = canon(unsigned(rng() % 512), unsigned(rng() % 512), 0, 0, 0);
                in.inv_hi = in.inv_lo + (rng() % (1ull << (20 + rng() % 24)));
            } else if (k < 92) {
                in.inv_lo = canon(unsigned(rng() % 512), 0, 0, 0, 0) + (rng() & 0xFFFFFFFFFull);
                in.inv_hi = in.inv_lo - 1 - (rng() % 0x100000); // reversed range
            } else {
                in.inv_lo = 0x00007FFFFFFFF000ull; // spans the canonical hole
                in.inv_hi = 0xFFFF800000000FFFull;
            }
            st.invalidations++;
            st.inv_all += in.inv_all;
            if (!walks.empty())
                st.inv_during_walk++;
            if (in.inv_all) {
                bool stale = false;
                for (const auto &w : walks)
                    stale |= w.space != cur;
                if (!stale)
                    coherent = true;
            }
        }
        // lookup
        if (pct(p_lookup)) {
            in.lookup_valid = 1;
            in.lookup_va = lookup_va();
            in.lookup_root = pct(30) ? rng() : spaces[cur]->root();
            coherent_at.push_back({cur, coherent && in.lookup_root == spaces[cur]->root()});
            st.lookups++;
            if (in.inv_valid)
                st.squashed_hits++;
        } else if (junk() & 1) {
            in.lookup_va = junk();
            in.lookup_root = junk();
        }
        // fill: the oldest due walk, or a prefetch-like fill of a mapped page
        WalkJob job{0, 0, 4, -1};
        auto due = std::min_element(walks.begin(), walks.end(),
                                    [](const WalkJob &a, const WalkJob &b) { return a.due < b.due; });
        if (due != walks.end() && due->due <= c) {
            job = *due;
            walks.erase(due);
        } else if (pct(p_prefetch) && !L.leaves.empty()) {
            job = WalkJob{c, L.leaves[pick(L.leaves.size())].va | (rng() & 0xFFF), 4, cur};
        }
        if (job.space >= 0 && gmmu_va_canonical(job.va)) {
            // a stale walk: the same VA read from the other space's tables
            // (same indices, other bases), e.g. a walk that raced a remap
            const int src = pct(p_stale) ? job.space ^ 1 : job.space;
            gmmu_walk_result w = spaces[src]->walk(job.va);
            unsigned deep = deepest_level(w);
            unsigned known = 0;
            for (unsigned k = std::max(1u, deep); k <= 3 && deep <= 3; k++)
                known |= 1u << (k - 1);
            unsigned mode = unsigned(rng() % 10);
            if (mode >= 7 && mode < 9 && job.start_level < 4) { // the walker knows what it read
                for (unsigned k = job.start_level + 1; k <= 3; k++)
                    known &= ~(1u << (k - 1));
                st.partial_fills++;
            } else if (mode == 9) { // any subset of the known levels
                known &= unsigned(rng() % 8);
                st.partial_fills++;
            }
            if (known) {
                in.fill_valid = 1;
                in.fill_levels = uint8_t(known);
                in.fill_va = job.va ^ (rng() & 0x1FFFFF); // offset bits are not used
                uint64_t noise = pct(100) ? (rng() & 0xFFF) : 0;
                in.fill_base_l3 = ((known & 4) ? w.table_base[3] : rng()) | noise;
                in.fill_base_l2 = ((known & 2) ? w.table_base[2] : rng()) | noise;
                in.fill_base_l1 = ((known & 1) ? w.table_base[1] : rng()) | noise;
                st.fills++;
                if (src != cur) {
                    st.stale_fills++;
                    coherent = false;
                }
            }
        }

        Harness::Issued done{};
        if (!h.step(in, &out, &done))
            break;
        if (debug)
            std::printf("cycle %llu space %d coherent %d walks %zu | %s | out %u %u %s\n",
                        (unsigned long long)c, cur, int(coherent), walks.size(), in_str(in).c_str(),
                        unsigned(out.hit_valid), unsigned(out.start_level),
                        hex(out.table_base).c_str());
        if (out.hit_valid) {
            auto ca = coherent_at.front();
            coherent_at.pop_front();
            st.outcome[out.start_level]++;
            // the base must be the one a real walk of the lookup's space uses
            if (ca.second && out.start_level < 4) {
                gmmu_walk_result w = spaces[ca.first]->walk(done.va);
                st.walk_checks++;
                if (deepest_level(w) > out.start_level ||
                    w.table_base[out.start_level] != out.table_base) {
                    h.fail(c, "hit at level " + std::to_string(out.start_level) + " for va " +
                                  hex(done.va) + " returned " + hex(out.table_base) +
                                  ", a walk uses " + hex(w.table_base[out.start_level]));
                    break;
                }
            }
            if (done.root == spaces[ca.first]->root() && walks.size() < max_walk)
                walks.push_back(WalkJob{c + 2 + rng() % 40, done.va, out.start_level, ca.first});
        }
    }
    if (h.ok())
        h.drain();
    h.finish();
    RunResult r = h.result();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

RunResult run_worked_example_once(const std::string &variant, const RunOpts &opt)
{
    auto t0 = std::chrono::steady_clock::now();
    Harness h(variant, opt);
    if (!h.ok())
        return h.result();
    const uint64_t vas[3] = {0x7F72B010F1F0ull, 0x7F72BC30F1F0ull, 0x7FF2FC30F1F0ull};
    const unsigned want_level[3] = {4, 2, 4};
    Layout L;
    for (uint64_t va : vas)
        L.leaves.push_back({va & ~0xFFFull, 12});
    Space sp(0x100000ull, L);
    gmmu_pwc_cycle_in in;
    gmmu_pwc_cycle_out out;
    for (unsigned i = 0; i < 3; i++) {
        const uint64_t va = vas[i];
        std::memset(&in, 0, sizeof in);
        in.lookup_valid = 1;
        in.lookup_va = va;
        in.lookup_root = sp.root();
        Harness::Issued done{};
        if (!h.step(in, &out, &done))
            break;
        std::memset(&in, 0, sizeof in);
        bool got = false;
        for (unsigned c = 1; c <= h.latency() && h.ok(); c++) {
            if (!h.step(in, &out, &done))
                break;
            if (out.hit_valid) {
                got = true;
                if (c != h.latency())
                    h.fail(h.now(), "result after " + std::to_string(c) + " cycles");
            }
        }
        if (!h.ok())
            break;
        gmmu_walk_result w = sp.walk(va);
        if (!got || out.start_level != want_level[i]) {
            h.fail(h.now(), "VA " + hex(va) + ": start level " + std::to_string(out.start_level) +
                                " (" + std::to_string(out.start_level) + " reads), paper: " +
                                std::to_string(want_level[i]));
            break;
        }
        uint64_t want_base = want_level[i] == 4 ? sp.root() : w.table_base[want_level[i]];
        if (out.table_base != want_base) {
            h.fail(h.now(), "VA " + hex(va) + ": table base " + hex(out.table_base) + ", walk " +
                                hex(want_base));
            break;
        }
        // the walker fills the whole path it knows (the upper bases from the
        // PWC entries that hit, as its registers hold them)
        in.fill_valid = 1;
        in.fill_levels = 7;
        in.fill_va = va;
        in.fill_base_l3 = w.table_base[3];
        in.fill_base_l2 = w.table_base[2];
        in.fill_base_l1 = w.table_base[1];
        if (!h.step(in, &out, nullptr))
            break;
    }
    if (h.ok())
        h.drain();
    if (h.ok()) {
        // final contents, RTL and model (state_diff above already proved them equal)
        RtlPwc &r = h.rtl();
        uint64_t l2v = 0, l4v = 0, l3v = 0;
        for (unsigned k = 0; k < 32; k++)
            l2v |= r.field(RtlPwcField::L2Valid, k) << k;
        for (unsigned s = 0; s < 2; s++)
            l4v |= r.field(RtlPwcField::L4Valid, s) << s;
        for (unsigned s = 0; s < 4; s++)
            l3v |= r.field(RtlPwcField::L3Valid, s) << s;
        struct Want {
            uint64_t got, v;
            const char *what;
        } want[] = {
            {l4v, 0x3, "L4 slots 0 and 1 valid"},
            {r.field(RtlPwcField::L4Tag, 0), 254, "L4 slot 0 holds 254"},
            {r.field(RtlPwcField::L4Tag, 1), 255, "L4 slot 1 holds 255"},
            {l3v, 0x9, "L3 slots 0b00 and 0b11 valid"},
            {r.field(RtlPwcField::L3Tag, 0), 458, "L3 slot 0b00 holds 458"},
            {r.field(RtlPwcField::L3Tag, 3), 459, "L3 slot 0b11 holds 459"},
            {r.field(RtlPwcField::L3Mask, 0), 0x8, "L3 slot 0b00 mask 0b1000 (block 1)"},
            {r.field(RtlPwcField::L3Mask, 3), 0x4, "L3 slot 0b11 mask 0b0100 (block 2)"},
            {l2v, 0x103, "block 1 ways 0,1 and block 2 way 0 valid, nothing else"},
            {r.field(RtlPwcField::L2Tag, 0), 384, "block 1 holds 384"},
            {r.field(RtlPwcField::L2Tag, 1), 481, "block 1 holds 481"},
            {r.field(RtlPwcField::L2Tag, 8), 481, "block 2 holds 481"},
        };
        for (const auto &x : want)
            if (x.got != x.v) {
                h.fail(h.now(), std::string("final contents: want ") + x.what + ", RTL has " +
                                    hex(x.got));
                break;
            }
    }
    h.finish();
    RunResult res = h.result();
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

} // namespace

RunResult run_random(const std::string &variant, const RunOpts &opt)
{
    RunResult r = run_random_once(variant, opt);
    return rerun_with_fst(variant, opt, r, &run_random_once);
}

RunResult run_worked_example(const std::string &variant, const RunOpts &opt)
{
    RunResult r = run_worked_example_once(variant, opt);
    return rerun_with_fst(variant, opt, r, &run_worked_example_once);
}

std::string summary(const std::string &variant, const RunOpts &opt, const RunResult &r)
{
    std::ostringstream o;
    o << variant << " seed " << opt.seed << " reset " << opt.reset_values << ": " << r.cycles
      << " cycles in " << r.seconds << " s (" << uint64_t(r.cycles / std::max(1e-9, r.seconds))
      << " cycles/s); lookups " << r.st.lookups << " [L1 " << r.st.outcome[1] << ", L2 "
      << r.st.outcome[2] << ", L3 " << r.st.outcome[3] << ", miss " << r.st.outcome[4]
      << "], fills " << r.st.fills << " (partial " << r.st.partial_fills << ", stale "
      << r.st.stale_fills << "), invalidations " << r.st.invalidations << " (all " << r.st.inv_all
      << ", during a walk " << r.st.inv_during_walk << "), walk checks " << r.st.walk_checks;
    if (!r.ok) {
        o << "\nFAILED at cycle " << r.fail_cycle << " (seed " << opt.seed
          << ", re-run with GMMU_TEST_SEED=" << opt.seed << "):\n"
          << r.why;
        if (!r.fst.empty())
            o << "\n  FST of the failing run: " << r.fst;
    }
    return o.str();
}

} // namespace pwcbench
