// gmmu — `tlb-share`: karnagel-damon17's TLB sharing benchmark (section 3.3).
//
// For every TLB level (N entries of P bytes, from the probe's table or a key)
// and every ordered pair of SMs (i, k): (1) SM i loads N pages at stride P,
// (2) SM k loads N other pages, (3) SM i loads its N pages again and the
// latencies of stage 3 are summed. If SM k's pages evicted SM i's entries, the
// level is shared by i and k. A control run per SM (stages 1 and 3 only) gives
// the fast reference, the pair (i, i) the slow one; a pair is shared when its
// stage 3 is nearer the slow reference. Only warp 0 of the two SMs of a pair
// issues; every other SM waits (poll returns next_status::wait), and a stage
// starts only when simulated time has passed the end of the previous stage.
// Writes OUT/tlb_share.json.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "gmmu/gpu/outputs.h"
#include <sstream>

#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"
#include "gmmu/sm_list.h"

namespace gmmu {
namespace {

// tlb-share's spec: its own workload.* keys.
struct tlb_share_config {
    std::string levels, from, sms; // workload.share_levels, share_from, share_sms
};

const descriptor<tlb_share_config> &tlb_share_descriptor()
{
    using T = tlb_share_config;
    static const descriptor<T> d({
        string_field<T>("share_levels", "", "tlb-share: levels to test as ENTRIES:PAGE_BYTES,... (level 1 first).",
                        [](T &t, const config &c, const std::string &k) { t.levels = c.s(k); }),
        string_field<T>("share_from", "",
                        "tlb-share: path of a tlb_probe.json whose levels to test (if share_levels is empty).",
                        [](T &t, const config &c, const std::string &k) { t.from = c.s(k); }),
        string_field<T>("share_sms", "", "tlb-share: SMs to pair, ids and ranges ('0-3,7'); empty = all.",
                        [](T &t, const config &c, const std::string &k) { t.sms = c.s(k); }),
    });
    return d;
}

struct level_spec {
    uint64_t entries = 0, page_bytes = 0;
};

std::vector<unsigned> parse_sms(const std::string &spec, unsigned nsm)
{
    std::vector<unsigned> out;
    if (spec.empty()) {
        for (unsigned s = 0; s < nsm; s++)
            out.push_back(s);
        return out;
    }
    std::stringstream ss(spec);
    std::string it;
    while (std::getline(ss, it, ',')) {
        uint32_t a = 0, b = 0;
        if (gmmu_sm_range_parse(it.c_str(), &a, &b) != GMMU_OK)
            throw config_error("config key 'workload.share_sms': '" + it + "' is not an SM id or range");
        for (uint64_t s = a; s <= b; s++) {
            if (s >= nsm)
                throw config_error("config key 'workload.share_sms': SM " + std::to_string(s) +
                                   " out of range 0.." + std::to_string(nsm - 1));
            out.push_back(unsigned(s));
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<level_spec> parse_levels(const tlb_share_config &t, const workload_config &w, const workload_machine &m)
{
    std::vector<level_spec> lv;
    const std::string &spec = t.levels, &from = t.from;
    if (!spec.empty()) {
        std::stringstream ss(spec);
        std::string it;
        while (std::getline(ss, it, ',')) {
            level_spec l;
            char colon = 0;
            std::stringstream one(it);
            if (!(one >> l.entries >> colon >> l.page_bytes) || colon != ':' || l.entries == 0 ||
                l.page_bytes < 8)
                throw config_error("config key 'workload.share_levels': '" + it +
                                   "' is not ENTRIES:PAGE_BYTES");
            // The run maps 2 x ENTRIES x PAGE_BYTES from workload.base_va: it
            // must stay in the canonical user half and within 2^24 pages.
            uint64_t bytes = 0;
            const uint64_t base = w.base_va, ps = m.page_size;
            if (__builtin_mul_overflow(2 * l.entries, l.page_bytes, &bytes) || l.entries > (1ull << 62) ||
                bytes > (1ull << 47) - base || bytes / ps > (1ull << 24))
                throw config_error("config key 'workload.share_levels': '" + it + "' maps 2 x " +
                                   "ENTRIES x PAGE_BYTES from workload.base_va, more than 2^24 "
                                   "pages of page_size or past 2^47");
            lv.push_back(l);
        }
    } else if (!from.empty()) {
        // A tlb_probe.json is a few KiB; a FIFO or a device is refused, not read.
        const std::string text = read_input_file("workload.share_from", from, uint64_t(1) << 20);
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(text);
            for (auto &l : j.at("levels"))
                lv.push_back({l.at("entries").get<uint64_t>(), l.at("page_bytes").get<uint64_t>()});
        } catch (const std::exception &e) {
            throw config_error("config key 'workload.share_from': " + from +
                               " is not a tlb_probe.json: " + e.what());
        }
    }
    if (lv.empty())
        throw config_error("tlb-share needs the levels to test: --set workload.share_from="
                           "OUT/tlb_probe.json or --set workload.share_levels=N:BYTES,...");
    return lv;
}

class tlb_share : public workload {
  public:
    tlb_share(const config &c, uint64_t)
        : tlb_share(workload_config_from(c), workload_spec_from(tlb_share_descriptor(), c),
                    workload_machine_from(c)) {}
    tlb_share(const workload_config &w, const tlb_share_config &t, const workload_machine &m)
        : base(w.base_va), levels(parse_levels(t, w, m)), sms(parse_sms(t.sms, m.sms)),
          period(1e6 / double(m.clock_mhz), sc_core::SC_PS)
    {
        for (auto &l : levels)
            region = std::max(region, 2 * l.entries * l.page_bytes);
        // Experiments: per level, per SM i: the control (k = none), then every k.
        for (size_t lv = 0; lv < levels.size(); lv++)
            for (unsigned i : sms) {
                exps.push_back({lv, i, -1});
                for (unsigned k : sms)
                    exps.push_back({lv, i, int(k)});
            }
        const size_t n = sms.size();
        cycles.assign(levels.size(), std::vector<std::vector<double>>(n, std::vector<double>(n, 0)));
        control.assign(levels.size(), std::vector<double>(n, 0));
    }
    std::string name() const override { return "tlb-share"; }
    void setup(driver &drv, unsigned page_shift) override { drv.map(base, region, page_shift); }
    bool next(unsigned, unsigned, warp_op &) override { return false; }
    unsigned wait_cycles() const override { return wait; }

    next_status poll(unsigned sm, unsigned warp, warp_op &op) override
    {
        if (warp != 0 || e >= exps.size())
            return next_status::done;
        const exp &x = exps[e];
        const unsigned who = stage == 2 ? unsigned(x.k) : x.i;
        if (sm != who || sc_core::sc_time_stamp() < stage_ready) {
            wait = (sm == x.i || int(sm) == x.k) ? 16 : 1024;
            return next_status::wait;
        }
        const level_spec &l = levels[x.level];
        // Stage 2 touches the N pages after SM i's N: the same sets, other tags.
        const uint64_t page = (stage == 2 ? l.entries : 0) + idx;
        op.write = false;
        op.explicit_data = false;
        op.nlanes = 1;
        op.active = 1;
        op.va[0] = base + page * l.page_bytes;
        idx++;
        return next_status::issue;
    }

    void completed(unsigned, unsigned, const warp_op &, const uint64_t *,
                   const sc_core::sc_time &issue, const sc_core::sc_time &latency) override
    {
        const exp &x = exps[e];
        const level_spec &l = levels[x.level];
        if (issue + latency > stage_ready)
            stage_ready = issue + latency;
        if (stage == 3)
            t3 += latency / period;
        if (idx < l.entries)
            return;
        idx = 0;
        if (stage == 1) {
            stage = x.k < 0 ? 3 : 2;
            return;
        }
        if (stage == 2) {
            stage = 3;
            return;
        }
        // Stage 3 done: record and move on.
        const size_t ii = pos(x.i);
        const double v = t3 / double(l.entries);
        if (x.k < 0)
            control[x.level][ii] = v;
        else
            cycles[x.level][ii][pos(unsigned(x.k))] = v;
        t3 = 0;
        stage = 1;
        e++;
    }

    bool finish(const std::string &out_dir, std::string &error) override
    {
        if (e < exps.size()) {
            error = "the sharing benchmark did not finish";
            return false;
        }
        nlohmann::json j;
        j["sms"] = sms;
        j["levels"] = nlohmann::json::array();
        for (size_t lv = 0; lv < levels.size(); lv++) {
            const size_t n = sms.size();
            nlohmann::json m = nlohmann::json::array(), cyc = nlohmann::json::array();
            std::vector<std::vector<int>> shared(n, std::vector<int>(n, 0));
            bool level_seen = false;
            for (size_t i = 0; i < n; i++) {
                const double fast = control[lv][i], slow = cycles[lv][i][i];
                // Self-eviction must be visible, or this is not a TLB level.
                const bool seen = slow - fast > 0.5;
                level_seen = level_seen || seen;
                for (size_t k = 0; k < n; k++)
                    shared[i][k] = seen && cycles[lv][i][k] > fast + (slow - fast) / 2;
                m.push_back(shared[i]);
                cyc.push_back(cycles[lv][i]);
            }
            // Groups: SMs whose rows are equal and mark each other.
            std::vector<int> group(n, -1);
            nlohmann::json groups = nlohmann::json::array();
            bool consistent = true;
            for (size_t i = 0; i < n; i++) {
                if (group[i] >= 0)
                    continue;
                nlohmann::json g = nlohmann::json::array();
                for (size_t k = 0; k < n; k++)
                    if (shared[i][k]) {
                        if (group[k] >= 0 || shared[k] != shared[i])
                            consistent = false;
                        group[k] = int(groups.size());
                        g.push_back(sms[k]);
                    }
                groups.push_back(g);
            }
            j["levels"].push_back({{"level", lv + 1},
                                   {"entries", levels[lv].entries},
                                   {"page_bytes", levels[lv].page_bytes},
                                   {"self_eviction_seen", level_seen},
                                   {"sharing_is_a_partition", consistent},
                                   {"groups", groups},
                                   {"shared", m},
                                   {"stage3_cycles_per_access", cyc},
                                   {"control_cycles_per_access", control[lv]}});
        }
        if (std::string e = write_output(out_dir, "tlb_share.json", j.dump(1) + "\n"); !e.empty()) {
            error = "cannot write " + e;
            return false;
        }
        return true;
    }

  private:
    struct exp {
        size_t level;
        unsigned i;
        int k; // -1: control, no stage 2
    };
    size_t pos(unsigned sm) const
    {
        return size_t(std::lower_bound(sms.begin(), sms.end(), sm) - sms.begin());
    }

    uint64_t base;
    std::vector<level_spec> levels;
    std::vector<unsigned> sms;
    sc_core::sc_time period;
    uint64_t region = 0;
    std::vector<exp> exps;
    size_t e = 0;
    int stage = 1;
    uint64_t idx = 0;
    double t3 = 0;
    sc_core::sc_time stage_ready = sc_core::SC_ZERO_TIME;
    unsigned wait = 16;
    std::vector<std::vector<std::vector<double>>> cycles; // [level][i][k]
    std::vector<std::vector<double>> control;             // [level][i]
};

const bool keys_registered =
    register_workload_spec(workload_spec_of("tlb-share", tlb_share_descriptor(), nullptr, nullptr));

const bool registered = register_workload(
    "tlb-share", [](const config &c, uint64_t seed) { return std::make_unique<tlb_share>(c, seed); });

} // namespace
} // namespace gmmu
