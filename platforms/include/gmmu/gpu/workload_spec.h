// gmmu — the workloads' common spec (issue 42): the `workload.*` keys every
// built-in workload shares (kind, region, accesses, base VA, lanes, trace
// path, what the driver maps): default, range, help, the workload_config
// member each fills, and the rules between them and page_size and the SMs.
// A workload's own keys (workload.faults, workload.share_*, ...) are
// registered beside it (platforms/gpu/workloads/*.cpp). The schema,
// --list-keys and docs/configs.md take these rows from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gmmu/components/descriptor.h"
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

// The workload keys and their rules against page_size (which the platform's
// spec has checked) and the SMs: what the driver maps before the run must fit.
inline workload_config workload_config_from(const config &c)
{
    workload_config w;
    workload_descriptor().apply(c, "workload", w);
    const int64_t ps = c.i("page_size");
    if (w.base_va % uint64_t(ps) != 0)
        throw config_error("config key 'workload.base_va': not aligned to page_size");
    // The driver maps a workload's whole region before the run, or with
    // workload.map=touched at most one page per sample.
    constexpr int64_t max_pages = int64_t(1) << 24;
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
        const double samples = double(c.i("sm.count")) * double(c.i("sm.warps")) * double(w.accesses) *
                               double(w.active_lanes);
        if (samples > double(touched_max_samples))
            throw config_error(
                "config key 'workload.accesses': workload.map=touched costs about 9 KiB of host "
                "memory per sample, and sm.count x sm.warps x workload.accesses x "
                "workload.active_lanes = " + std::to_string(uint64_t(samples)) +
                " samples are more than " + std::to_string(touched_max_samples) + " (about 9 GiB)");
    }
    // tlb-probe maps workload.probe_distance_max bytes from workload.base_va.
    if (config_key_spec("workload.probe_distance_max")) {
        const int64_t dmax = c.i("workload.probe_distance_max");
        if (dmax / ps > max_pages || w.base_va + uint64_t(dmax) > (1ull << 47))
            throw config_error("config key 'workload.probe_distance_max': tlb-probe maps " +
                               std::to_string(dmax) + " bytes from workload.base_va, more than " +
                               std::to_string(max_pages) + " pages of page_size or past 2^47");
    }
    if (w.base_va + w.region_bytes > (1ull << 47))
        throw config_error("config key 'workload.region_bytes': the region ends above the "
                           "canonical 48-bit user half (workload.base_va + workload.region_bytes > "
                           "2^47)");
    return w;
}

} // namespace gmmu
