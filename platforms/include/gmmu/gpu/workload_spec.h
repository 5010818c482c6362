// gmmu — the workloads' common spec (issue 42): the `workload.*` keys every
// built-in workload shares (kind, region, accesses, base VA, lanes, trace
// path, what the driver maps): default, range, help, the workload_config
// member each fills, and the rules between them and page_size and the SMs.
// A workload's own keys (workload.faults, workload.share_*, ...) are its
// own spec's, a descriptor beside it (platforms/gpu/workloads/*.cpp)
// registered with register_workload_spec. The facts of other components a
// workload is built for (SMs, page size, clock, contexts) come from their
// parsed specs (workload_machine_from), never from their keys by name. The
// schema, --list-keys and docs/configs.md take these rows from here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "gmmu/components/descriptor.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/gpu/driver_spec.h"
#include "gmmu/gpu/platform_spec.h"
#include "gmmu/gpu/workload.h"

namespace gmmu {

struct workload_config {
    std::string kind;
    uint64_t region_bytes = 64ull << 20;
    uint64_t accesses = 64;
    uint64_t passes = 1;
    uint64_t tlb_scope = 0;
    uint64_t base_va = 0x7f0000000000ull;
    std::string path;
    unsigned active_lanes = 32;
    bool map_touched = false; // workload.map=touched
    bool read_only = false;   // workload.phases=read
};

inline const descriptor<workload_config> &workload_descriptor()
{
    using W = workload_config;
    static const descriptor<W> d({
        string_field<W>("kind", "", "Workload name (set by --workload).",
                        [](W &w, const config &c, const std::string &k) { w.kind = c.s(k); }),
        int_field<W>("region_bytes", 64ll << 20, 4096, 1ll << 45,
                     "random-sample/stream: size of the mapped region, bytes; hash-group: size of the "
                     "hash table.",
                     [](W &w, const config &c, const std::string &k) { w.region_bytes = uint64_t(c.i(k)); }),
        int_field<W>("accesses", 64, 1, 1ll << 32,
                     "random-sample: warp accesses per warp per phase (write phase, then read-back "
                     "phase); hash-group: input loads (32 values) per warp.",
                     [](W &w, const config &c, const std::string &k) { w.accesses = uint64_t(c.i(k)); }),
        int_field<W>("passes", 1, 1, 1 << 20, "stream: read passes after the write pass.",
                     [](W &w, const config &c, const std::string &k) { w.passes = uint64_t(c.i(k)); }),
        int_field<W>("tlb_scope", 0, 0, 1ll << 45,
                     "random-sample, hash-group: TLB-conscious passes over scopes of this many bytes "
                     "(0 = off).",
                     [](W &w, const config &c, const std::string &k) { w.tlb_scope = uint64_t(c.i(k)); }),
        int_field<W>("base_va", 0x7f0000000000ll, 0, 0x7fffffffffffll,
                     "Virtual base address of the workload's region.",
                     [](W &w, const config &c, const std::string &k) { w.base_va = uint64_t(c.i(k)); }),
        string_field<W>("path", "", "trace: path of the trace file.",
                        [](W &w, const config &c, const std::string &k) { w.path = c.s(k); }),
        int_field<W>("active_lanes", 32, 1, 32, "Active lanes per warp access.",
                     [](W &w, const config &c, const std::string &k) { w.active_lanes = unsigned(c.i(k)); }),
        enum_field<W>("map", "region", {{"region", 0}, {"touched", 1}},
                      "random-sample: which pages the driver maps before the run: the whole region, "
                      "or only the pages the samples touch (page tables and frames for those pages "
                      "only, so a region of many TiB costs memory for what it samples; no contiguity "
                      "hints).",
                      [](W &w, const config &c, const std::string &k) {
                          w.map_touched = workload_descriptor().enum_value("map", c.s(k), k) == 1;
                      }),
        enum_field<W>("phases", "write-read", {{"write-read", 0}, {"read", 1}},
                      "random-sample: a write phase that stores the samples, then a read phase that "
                      "loads them back (write-read); or the read phase alone (read: 8-byte loads at "
                      "random offsets of the region, as a measured read-throughput kernel runs).",
                      [](W &w, const config &c, const std::string &k) {
                          w.read_only = workload_descriptor().enum_value("phases", c.s(k), k) == 1;
                      }),
    });
    return d;
}

inline std::vector<key_spec> workload_config_keys() { return workload_descriptor().keys("workload", {"", {}}); }

// What a workload is built for, from the other components' parsed specs:
// the SMs (components/sm_spec.h), the page size, clock and MMU
// (gpu/platform_spec.h) and the address spaces (gpu/driver_spec.h).
struct workload_machine {
    unsigned sms = 4, warps = 32;  // sm.count, sm.warps
    std::string sm_model;          // sm.model
    uint64_t page_size = 4096;     // page_size
    unsigned clock_mhz = 1000;     // clock_mhz
    bool bypass = false;           // mmu.bypass
    unsigned contexts = 1;         // contexts
};

inline workload_machine workload_machine_from(const config &c)
{
    const sm_config s = sm_config_from(c);
    const platform_config p = platform_config_from(c);
    workload_machine m;
    m.sms = s.count;
    m.warps = s.params.warps;
    m.sm_model = s.model;
    m.page_size = p.page_size;
    m.clock_mhz = p.clock_mhz;
    m.bypass = p.bypass;
    m.contexts = driver_config_from(c).contexts;
    return m;
}

// The most pages the driver maps before a run (a workload's region, or
// tlb-probe's and tlb-share's chains).
constexpr uint64_t workload_max_mapped_pages = uint64_t(1) << 24;

// A workload's own spec (issue 42): the rows of its descriptor under
// "workload" (beside the workload, platforms/gpu/workloads/*.cpp) and its
// rules. `check` runs whenever a config is validated, after the common
// keys' rules against page_size and the SMs (workload_config_from), for
// every workload's spec; `refuse` runs in make_workload before the workload
// `name` is built, so a spec can refuse its keys on another workload.
// register_workload_spec (at static initialisation) adds the keys to the
// schema; workload_specs() lists the specs registered so far.
struct workload_spec_def {
    std::string workload; // the workload (or family) whose keys these are
    std::vector<key_spec> keys;
    std::function<void(const config &, const workload_config &, const workload_machine &)> check;
    std::function<void(const config &, const std::string &name)> refuse;
    // The C model's field names (its gmmu_error fields) -> the key that sets
    // each ("" : no key, a value the workload passes).
    std::map<std::string, std::string> c_fields;
};
bool register_workload_spec(workload_spec_def def);
const std::vector<workload_spec_def> &workload_specs();

// A workload's spec from its descriptor: the rows under "workload" and the
// keys its C field names map to.
template <class T>
workload_spec_def workload_spec_of(const std::string &workload, const descriptor<T> &d,
                                   decltype(workload_spec_def::check) check,
                                   decltype(workload_spec_def::refuse) refuse)
{
    workload_spec_def s{workload, d.keys("workload", {"", {}}), std::move(check), std::move(refuse), {}};
    for (const auto &f : d.fields())
        if (!f.c_field.empty())
            s.c_fields[f.c_field] = descriptor<T>::full("workload", f.spec.key);
    for (const auto &e : d.c_fields_elsewhere())
        s.c_fields[e.first] = e.second;
    return s;
}

// A workload's own struct from its descriptor's keys under "workload".
template <class T>
T workload_spec_from(const descriptor<T> &d, const config &c)
{
    T t;
    d.apply(c, "workload", t);
    return t;
}

// The workload keys and their rules against page_size (which the platform's
// spec has checked) and the SMs: what the driver maps before the run must fit.
inline workload_config workload_config_from(const config &c)
{
    workload_config w;
    workload_descriptor().apply(c, "workload", w);
    const workload_machine m = workload_machine_from(c);
    const int64_t ps = int64_t(m.page_size);
    if (w.base_va % uint64_t(ps) != 0)
        throw config_error("config key 'workload.base_va': not aligned to page_size");
    // The driver maps a workload's whole region before the run, or with
    // workload.map=touched at most one page per sample.
    constexpr int64_t max_pages = int64_t(workload_max_mapped_pages);
    if (!w.map_touched && int64_t(w.region_bytes) / ps > max_pages)
        throw config_error("config key 'workload.region_bytes': " + std::to_string(w.region_bytes) +
                           " bytes are more than " + std::to_string(max_pages) + " pages of page_size (" +
                           std::to_string(ps) + "), which the driver maps before the run; use a larger "
                           "page_size, or workload.map=touched");
    if (w.map_touched) {
        // Each sample on a page of its own costs a frame that the write phase
        // fills and about one page-table page: 8.7 KiB of host memory per
        // sample, measured (262,144 samples over a 32 TiB region: 2.29 GB
        // peak RSS), so touched_max_samples (2^20, about 9 GiB) run on a
        // 24 GiB machine. Saturating: each factor is at most 2^32.
        const double samples = double(m.sms) * double(m.warps) * double(w.accesses) *
                               double(w.active_lanes);
        if (samples > double(touched_max_samples))
            throw config_error(
                "config key 'workload.accesses': workload.map=touched costs about 9 KiB of host "
                "memory per sample, and sm.count x sm.warps x workload.accesses x "
                "workload.active_lanes = " + std::to_string(uint64_t(samples)) +
                " samples are more than " + std::to_string(touched_max_samples) + " (about 9 GiB)");
    }
    // Each workload's own rules (tlb-probe: what its chains map).
    for (const workload_spec_def &s : workload_specs())
        if (s.check)
            s.check(c, w, m);
    if (w.base_va + w.region_bytes > (1ull << 47))
        throw config_error("config key 'workload.region_bytes': the region ends above the "
                           "canonical 48-bit user half (workload.base_va + workload.region_bytes > "
                           "2^47)");
    return w;
}

} // namespace gmmu
