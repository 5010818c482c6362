// gmmu — `tlb-probe`: karnagel-damon17's TLB property benchmark as a workload.
//
// One thread (lane 0 of warp 0 of SM workload.probe_sm) chases pointers through
// an array at stride s for a distance d = n x s: it first writes the chain
// (explicit store data: element i holds the VA of element i+1, the last holds
// element 0), runs the chase twice and times the second pass from the latencies
// the platform reports. It sweeps s over powers of two and d over two points
// per octave, then bisects every rise it saw to the exact last flat distance.
// finish() turns the curves into a table of TLB levels (tlb_probe.h) without
// looking at the config's TLBs, and writes OUT/tlb_probe.json and .csv.
#include "gmmu/gpu/workloads/tlb_probe.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>

#include "gmmu/gpu/outputs.h"
#include <map>

#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

namespace gmmu {

// ---- the workload --------------------------------------------------------------------
namespace {

constexpr double tau_cycles = 0.1; // a rise smaller than this is not a rise

// tlb-probe's spec: its own workload.* keys, and the rule that what the
// chains map fits the driver (checked whenever a config is validated).
struct tlb_probe_config {
    uint64_t stride_min = 1024, stride_max = 256ull << 20, distance_max = 8ull << 30;
    uint64_t elements_max = 8192;
    unsigned sm = 0;
};

const descriptor<tlb_probe_config> &tlb_probe_descriptor()
{
    using T = tlb_probe_config;
    static const descriptor<T> d({
        int_field<T>("probe_stride_min", 1024, 8, 1ll << 40,
                     "tlb-probe: smallest stride of the sweep, bytes (power of two).",
                     [](T &t, const config &c, const std::string &k) { t.stride_min = uint64_t(c.i(k)); },
                     "", true),
        int_field<T>("probe_stride_max", 256ll << 20, 8, 1ll << 40,
                     "tlb-probe: largest stride of the sweep, bytes (power of two).",
                     [](T &t, const config &c, const std::string &k) { t.stride_max = uint64_t(c.i(k)); },
                     "", true),
        int_field<T>("probe_distance_max", 8ll << 30, 4096, 1ll << 45,
                     "tlb-probe: largest distance (chain length x stride), bytes; the region mapped.",
                     [](T &t, const config &c, const std::string &k) { t.distance_max = uint64_t(c.i(k)); }),
        int_field<T>("probe_elements_max", 8192, 16, 1 << 24,
                     "tlb-probe: longest chain (elements) of any measurement.",
                     [](T &t, const config &c, const std::string &k) { t.elements_max = uint64_t(c.i(k)); }),
        int_field<T>("probe_sm", 0, 0, 1023, "tlb-probe: SM whose warp 0 runs the chase.",
                     [](T &t, const config &c, const std::string &k) { t.sm = unsigned(c.i(k)); }),
    });
    return d;
}

// tlb-probe maps workload.probe_distance_max bytes from workload.base_va.
void tlb_probe_check(const config &c, const workload_config &w, const workload_machine &m)
{
    const uint64_t dmax = workload_spec_from(tlb_probe_descriptor(), c).distance_max;
    if (dmax / m.page_size > workload_max_mapped_pages || w.base_va + dmax > (1ull << 47))
        throw config_error("config key 'workload.probe_distance_max': tlb-probe maps " +
                           std::to_string(dmax) + " bytes from workload.base_va, more than " +
                           std::to_string(workload_max_mapped_pages) + " pages of page_size or past 2^47");
}

class tlb_probe : public workload {
  public:
    tlb_probe(const config &c, uint64_t)
        : tlb_probe(workload_config_from(c), workload_spec_from(tlb_probe_descriptor(), c),
                    workload_machine_from(c)) {}
    tlb_probe(const workload_config &w, const tlb_probe_config &t, const workload_machine &m)
        : base(w.base_va), dmax(t.distance_max), cap(t.elements_max), probe_sm(t.sm),
          period(1e6 / double(m.clock_mhz), sc_core::SC_PS)
    {
        const uint64_t smin = t.stride_min;
        const uint64_t smax = t.stride_max;
        if (smin > smax)
            throw config_error("config key 'workload.probe_stride_min': larger than "
                               "workload.probe_stride_max");
        if (probe_sm >= m.sms)
            throw config_error("config key 'workload.probe_sm': SM " + std::to_string(probe_sm) +
                               " out of range 0.." + std::to_string(int64_t(m.sms) - 1));
        for (uint64_t s = smin; s <= smax; s *= 2)
            if (dmax / s >= 4)
                strides.push_back(s);
        if (strides.empty())
            throw config_error("config key 'workload.probe_distance_max': shorter than four "
                               "elements of the smallest stride");
    }
    std::string name() const override { return "tlb-probe"; }
    bool reads_loaded_values() const override { return true; } // the pointer chain
    void setup(driver &drv, unsigned page_shift) override { drv.map(base, dmax, page_shift); }
    bool next(unsigned, unsigned, warp_op &) override { return false; }

    next_status poll(unsigned sm, unsigned warp, warp_op &op) override
    {
        if (sm != probe_sm || warp != 0 || finished)
            return next_status::done;
        op.nlanes = 1;
        op.active = 1;
        op.explicit_data = false;
        for (;;) {
            switch (ph) {
            case phase::start_stride:
                if (si == strides.size()) {
                    finished = true;
                    return next_status::done;
                }
                s = strides[si];
                nmax = std::min(cap, dmax / s);
                measured.clear();
                todo.clear();
                for (uint64_t p = 4; p <= nmax; p *= 2) {
                    todo.push_back(p);
                    if (p * 3 / 2 <= nmax && p >= 4)
                        todo.push_back(p * 3 / 2);
                }
                coarse_done = false;
                steps.clear();
                task = 0;
                idx = 0;
                ph = phase::chain;
                continue;
            case phase::chain:
                if (idx < nmax) {
                    store(op, idx, (idx + 1) % nmax);
                    idx++;
                    return next_status::issue;
                }
                ph = phase::pick;
                continue;
            case phase::pick:
                if (!pick_next()) {
                    for (auto &st : steps)
                        all_steps.push_back(st);
                    si++;
                    ph = phase::start_stride;
                    continue;
                }
                if (n < nmax) {
                    store(op, n - 1, 0); // close the chain at n elements
                    ph = phase::pass1;
                    idx = 0;
                    cur = va(0);
                    return next_status::issue;
                }
                ph = phase::pass1;
                idx = 0;
                cur = va(0);
                continue;
            case phase::pass1:
            case phase::pass2:
                if (idx < n) {
                    op.write = false;
                    op.va[0] = cur;
                    expect = va((idx + 1) % n);
                    idx++;
                    return next_status::issue;
                }
                if (ph == phase::pass1) {
                    ph = phase::pass2;
                    idx = 0;
                    t_pass = 0;
                    continue;
                }
                measured[n] = t_pass / double(n);
                points.push_back({s, n, t_pass / double(n)});
                ph = phase::pick;
                if (n < nmax) {
                    store(op, n - 1, n); // reopen the chain
                    return next_status::issue;
                }
                continue;
            }
        }
    }

    void completed(unsigned, unsigned, const warp_op &op, const uint64_t *data,
                   const sc_core::sc_time &, const sc_core::sc_time &latency) override
    {
        if (op.write)
            return;
        if (data[0] != expect && bad++ == 0) {
            char buf[160];
            snprintf(buf, sizeof buf, "chain broken: VA 0x%" PRIx64 " held 0x%" PRIx64
                     ", expected 0x%" PRIx64, op.va[0], data[0], expect);
            first_bad = buf;
        }
        cur = data[0];
        if (ph == phase::pass2)
            t_pass += latency / period;
    }

    bool finish(const std::string &out_dir, std::string &error) override
    {
        if (bad) {
            error = std::to_string(bad) + " pointer loads wrong; first: " + first_bad;
            return false;
        }
        if (!finished) {
            error = "the sweep did not finish";
            return false;
        }
        std::vector<probe_level> unresolved;
        std::map<uint64_t, uint64_t> sweep; // stride -> largest distance measured
        for (uint64_t st : strides)
            sweep[st] = std::min(cap, dmax / st) * st;
        std::vector<probe_level> levels = probe_analyze(all_steps, &unresolved, &sweep);
        nlohmann::json j = probe_result_json(levels, unresolved, strides, dmax, cap, points.size(), tau_cycles);
        if (std::string e = write_output(out_dir, "tlb_probe.json", j.dump(2) + "\n"); !e.empty()) {
            error = "cannot write " + e;
            return false;
        }
        std::string csv = "stride,distance,cycles_per_access\n";
        std::vector<probe_point> sorted = points;
        std::sort(sorted.begin(), sorted.end(), [](const probe_point &a, const probe_point &b) {
            return a.stride != b.stride ? a.stride < b.stride : a.elements < b.elements;
        });
        for (const probe_point &p : sorted) {
            char buf[96];
            snprintf(buf, sizeof buf, "%" PRIu64 ",%" PRIu64 ",%.4f\n", p.stride,
                     p.stride * p.elements, p.cycles);
            csv += buf;
        }
        if (std::string e = write_output(out_dir, "tlb_probe.csv", csv); !e.empty()) {
            error = "cannot write " + e;
            return false;
        }
        return true;
    }

  private:
    enum class phase { start_stride, chain, pick, pass1, pass2 };
    uint64_t va(uint64_t i) const { return base + i * s; }
    void store(warp_op &op, uint64_t at, uint64_t to)
    {
        op.write = true;
        op.explicit_data = true;
        op.va[0] = va(at);
        op.data[0] = va(to);
    }
    // Choose the next chain length to time; false when this stride is done.
    bool pick_next()
    {
        while (!todo.empty()) {
            n = todo.front();
            todo.pop_front();
            if (!measured.count(n))
                return true;
        }
        if (!coarse_done) {
            coarse_done = true;
            std::vector<probe_point> curve;
            for (auto &[e, v] : measured)
                curve.push_back({s, e, v});
            steps = probe_find_steps(curve, tau_cycles);
            task = 0;
        }
        // Bisect each rise to the last flat chain length.
        while (task < steps.size()) {
            probe_step &st = steps[task];
            auto it = measured.find(n);
            if (it != measured.end() && n > st.flat_elements && n < st.raised_elements) {
                if (it->second <= st.before + st.threshold)
                    st.flat_elements = n;
                else
                    st.raised_elements = n;
            }
            if (st.raised_elements - st.flat_elements > 1) {
                n = st.flat_elements + (st.raised_elements - st.flat_elements) / 2;
                return true;
            }
            task++;
        }
        return false;
    }

    uint64_t base, dmax, cap;
    unsigned probe_sm;
    sc_core::sc_time period;
    std::vector<uint64_t> strides;

    phase ph = phase::start_stride;
    bool finished = false, coarse_done = false;
    size_t si = 0, task = 0;
    uint64_t s = 0, nmax = 0, n = 0, idx = 0, cur = 0, expect = 0;
    double t_pass = 0;
    std::deque<uint64_t> todo;
    std::map<uint64_t, double> measured; // chain length -> cycles/access, this stride
    std::vector<probe_step> steps;       // rises of this stride
    std::vector<probe_step> all_steps;
    std::vector<probe_point> points;
    uint64_t bad = 0;
    std::string first_bad;
};

const bool keys_registered =
    register_workload_spec(workload_spec_of("tlb-probe", tlb_probe_descriptor(), tlb_probe_check, nullptr));

const bool registered = register_workload(
    "tlb-probe", [](const config &c, uint64_t seed) { return std::make_unique<tlb_probe>(c, seed); });

} // namespace
} // namespace gmmu
