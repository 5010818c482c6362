// gmmu — the page-table walker's spec (issue 42): its `ptw.*` keys (the
// walkers, the walk scheduler, the page-walk cache and the page-table-line
// cache inside it) and its `rtl.*` keys (the waveforms of its Verilated
// twins): suffix, default, range or allowed values, help, the ptw_params
// member each fills, and every field the C checkers can name
// (gmmu_ws_walkers_check, gmmu_ws_config_check, gmmu_pwc_config_for_bits,
// gmmu_pwc_config_validate, gmmu_line_cache_config_check) as the key that
// sets it. ptw_config_from() fills ptw_params from a config (a JSON config or
// key=value pairs through gmmu::config) and runs those checkers; the rules
// that need the build (which RTL twins were Verilated) or the file system
// stay with whoever builds the walker (gpu_platform). The GPU platform's
// schema, --list-keys and docs/configs.md take the ptw.* and rtl.* rows from
// here.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "gmmu/components/cache_spec.h"
#include "gmmu/components/descriptor.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb_config.h"

namespace gmmu {

// What a walker is built from: its ptw_params (clock left to the builder;
// mismatch_fst as given, relative paths unresolved) and the keys that decide
// how the platform wires it.
struct ptw_config {
    ptw_params params;
    bool per_tlb = false;        // one walker per last-level TLB instance
    std::string via = "memory";  // where page-table reads go: memory, l2_cache, l1_cache
    bool cosim = false;          // ptw.cosim (split into pwc_cosim / sched_cosim)
    uint64_t pwc_bits = 0;       // 0: the PWC kind's default geometry
};

namespace ptw_spec_detail {
inline uint32_t u32(const config &c, const std::string &k) { return uint32_t(c.i(k)); }
} // namespace ptw_spec_detail

inline const descriptor<ptw_config> &ptw_descriptor()
{
    using P = ptw_config;
    using ptw_spec_detail::u32;
    static const descriptor<P> d = [] {
        descriptor<P> x({
            int_field<P>("walkers", 1, 1, GMMU_WS_MAX_WALKERS,
                         "Independent page-table walkers (serial scheduler).",
                         [](P &p, const config &c, const std::string &k) { p.params.walkers = u32(c, k); },
                         "walkers"),
            bool_field<P>("per_tlb", false,
                          "One walker unit per last-level TLB instance (e.g. per SM, as in pichai14) "
                          "instead of one shared by all.",
                          [](P &p, const config &c, const std::string &k) { p.per_tlb = c.b(k); }),
            enum_field<P>("via", "memory", {{"memory", 0}, {"l2_cache", 1}, {"l1_cache", 2}},
                          "Where the walker's page-table reads go: straight to memory, or as cacheable "
                          "reads through the shared L2 data cache (l2_cache.enabled) or through the L1 "
                          "data cache of the walker's SM (l1_cache.enabled, one walker per L1 TLB: "
                          "ptw.per_tlb=true, no L2 TLB). Cached, they compete with data for capacity "
                          "(data_cache pte_* counters).",
                          [](P &p, const config &c, const std::string &k) { p.via = c.s(k); }),
            int_field<P>("fixed_walk_latency", 0, 0, 1000000,
                         "If > 0, every walk takes this many cycles instead of the sum of its reads.",
                         [](P &p, const config &c, const std::string &k) {
                             p.params.fixed_walk_cycles = u32(c, k);
                         }),
            bool_field<P>("dmi", true,
                          "Read the page tables by DMI where the memory grants it for timed reads "
                          "(no bandwidth booked, not through a data cache): the same data and latency "
                          "without a b_transport per read; the memory's read counters then leave those "
                          "reads out (ptw dmi_reads counts them).",
                          [](P &p, const config &c, const std::string &k) { p.params.dmi = c.b(k); }),
            bool_field<P>("set_accessed_dirty", false, "Walker writes A/D bits back to the PTEs.",
                          [](P &p, const config &c, const std::string &k) {
                              p.params.set_accessed_dirty = c.b(k);
                          }),
            enum_field<P>("scheduler", "serial",
                          {{"serial", GMMU_WS_SERIAL}, {"tree", GMMU_WS_TREE}, {"pairwise", GMMU_WS_PAIRWISE}},
                          "Walk scheduling: serial = ptw.walkers naive walkers; tree = comparator-tree "
                          "scheduler coalescing a batch's walks; pairwise = all-pairs comparators.",
                          [](P &p, const config &c, const std::string &k) {
                              p.params.sched.variant =
                                  gmmu_ws_variant(ptw_descriptor().enum_value("scheduler", c.s(k), k));
                          }, "variant"),
            int_field<P>("mshrs", 32, 1, GMMU_WS_MAX_MSHRS,
                         "Walk-scheduler MSHRs (tree, pairwise): walks in flight at once, shared by "
                         "every batch.",
                         [](P &p, const config &c, const std::string &k) { p.params.sched.mshrs = u32(c, k); },
                         "mshrs"),
            int_field<P>("scan_pass_cycles", 1, 1, 16, "Cycles of one comparator pass (tree, pairwise).",
                         [](P &p, const config &c, const std::string &k) {
                             p.params.sched.scan_pass_cycles = u32(c, k);
                         }, "scan_pass_cycles"),
            enum_field<P>("scheduler_impl", "c", {{"c", 0}, {"rtl", 1}},
                          "Walk-scheduler implementation (tree, pairwise): the C model, or its "
                          "Verilated RTL twin rtl/walk_sched.sv (geometries built in "
                          "platforms/rtl/CMakeLists.txt; docs/rtl_walk_sched.md).",
                          [](P &p, const config &c, const std::string &k) {
                              p.params.sched_rtl = ptw_descriptor().enum_value("scheduler_impl", c.s(k), k) == 1;
                          }),
            enum_field<P>("pwc", "none",
                          {{"none", GMMU_PWC_NONE}, {"tpc", GMMU_PWC_TPC}, {"stc", GMMU_PWC_STC},
                           {"uptc", GMMU_PWC_UPTC}, {"cpwc", GMMU_PWC_CPWC}},
                          "Page-walk cache in the walker (docs/pwc.md).",
                          [](P &p, const config &c, const std::string &k) {
                              p.params.pwc.kind = gmmu_pwc_kind(ptw_descriptor().enum_value("pwc", c.s(k), k));
                          }, "kind"),
            enum_field<P>("pwc_impl", "c", {{"c", 0}, {"rtl", 1}},
                          "Page-walk cache implementation: the C model, or its Verilated RTL twin (TPC "
                          "and CPWC geometries built in platforms/rtl/CMakeLists.txt).",
                          [](P &p, const config &c, const std::string &k) {
                              p.params.pwc_rtl = ptw_descriptor().enum_value("pwc_impl", c.s(k), k) == 1;
                          }),
            bool_field<P>("cosim", false,
                          "Step the C models and the RTL twins of the page-walk cache (tpc, cpwc) and "
                          "of the walk scheduler (tree, pairwise) in lock-step; stop at the first "
                          "output mismatch with a field-by-field diff.",
                          [](P &p, const config &c, const std::string &k) { p.cosim = c.b(k); }),
            int_field<P>("pwc_bits", 0, 0, 1 << 24,
                         "If > 0, size ptw.pwc to the largest geometry that fits this many bits; 0 = "
                         "the kind's default geometry.",
                         [](P &p, const config &c, const std::string &k) { p.pwc_bits = uint64_t(c.i(k)); },
                         "bits"),
            int_field<P>("line_cache.lines", 0, 0, 1 << 20,
                         "Page-table-line cache in the walker, 128-byte lines; 0 = none.",
                         [](P &p, const config &c, const std::string &k) { p.params.lc.lines = u32(c, k); },
                         "lines"),
            int_field<P>("line_cache.ways", 4, 1, 1 << 20, "Page-table-line cache ways.",
                         [](P &p, const config &c, const std::string &k) { p.params.lc.ways = u32(c, k); },
                         "ways"),
            int_field<P>("line_cache.hit_cycles", 1, 1, 100000, "Page-table-line cache hit latency, cycles.",
                         [](P &p, const config &c, const std::string &k) {
                             p.params.lc.hit_cycles = u32(c, k);
                         }, "hit_cycles"),
            int_field<P>("line_cache.miss_cycles", 1, 0, 100000,
                         "Page-table-line cache lookup cost added to a miss, cycles.",
                         [](P &p, const config &c, const std::string &k) {
                             p.params.lc.miss_cycles = u32(c, k);
                         }, "miss_cycles"),
        });
        // The geometry of a page-walk cache is the kind's default or what
        // ptw.pwc_bits buys; its replacement, the line cache's line size and
        // the scheduler's retire width are constants of the walker.
        for (const char *f : {"tpc.entries", "tpc.hit_cycles", "uptc.entries", "uptc.ways",
                              "uptc.probe_cycles", "stc.entries[0]", "stc.entries[1]", "stc.entries[2]",
                              "stc.ways[0]", "stc.ways[1]", "stc.ways[2]", "stc.hit_cycles",
                              "cpwc.l4_entries", "cpwc.l3_entries", "cpwc.l2_blocks",
                              "cpwc.block_entries", "cpwc.lookup_cycles", "cpwc.mux_cycles"})
            x.c_field_elsewhere(f, "ptw.pwc_bits");
        x.c_field_elsewhere("replacement", "").c_field_elsewhere("line_bytes", "")
            .c_field_elsewhere("retire_width", "");
        return x;
    }();
    return d;
}

// rtl.*: the walker's Verilated twins' waveforms.
inline const descriptor<ptw_config> &ptw_rtl_descriptor()
{
    using P = ptw_config;
    static const descriptor<P> d({
        string_field<P>("fst", "",
                        "Write an FST waveform of the Verilated blocks inside the walker "
                        "(ptw.pwc_impl=rtl, ptw.scheduler_impl=rtl or ptw.cosim=true) to this file; "
                        "with both blocks the scheduler's goes to the same name with .sched before "
                        "the extension. Empty: none.",
                        [](P &p, const config &c, const std::string &k) { p.params.rtl_fst = c.s(k); }),
        int_field<P>("mismatch_cycles", 64, 0, 1 << 20,
                     "With ptw.cosim=true: a second RTL twin of each block runs this many cycles "
                     "behind, so a lock-step mismatch writes the mismatching block's last "
                     "this-many cycles, up to and including the mismatch, to rtl.mismatch_fst and "
                     "the error names the file. 0: no second twin, no file.",
                     [](P &p, const config &c, const std::string &k) {
                         p.params.mismatch_cycles = unsigned(c.i(k));
                     }),
        string_field<P>("mismatch_fst", "mismatch.fst",
                        "Where a lock-step mismatch's waveform goes (rtl.mismatch_cycles); a relative "
                        "path is taken from gmmu-sim's --out folder (other programs: the working "
                        "directory).",
                        [](P &p, const config &c, const std::string &k) { p.params.mismatch_fst = c.s(k); }),
    });
    return d;
}

// The ptw.* rows, then the rtl.* rows.
inline std::vector<key_spec> ptw_config_keys()
{
    std::vector<key_spec> k = ptw_descriptor().keys("ptw", {"", {}});
    for (auto &r : ptw_rtl_descriptor().keys("rtl", {"", {}}))
        k.push_back(r);
    return k;
}

// The walker from c's ptw.* and rtl.* keys, checked by the C models' own
// checkers (verdicts named by the key that sets the field), and the rules
// between the walker's keys and the data caches and TLBs its reads and
// requests use.
inline ptw_config ptw_config_from(const config &c)
{
    const auto &d = ptw_descriptor();
    ptw_config p;
    gmmu_ws_config_default(&p.params.sched);
    gmmu_line_cache_config_default(&p.params.lc);
    d.apply(c, "ptw", p);
    ptw_rtl_descriptor().apply(c, "rtl", p);
    gmmu_error err{};
    // Page-walk cache: the kind's geometry, or the largest that fits pwc_bits.
    const gmmu_pwc_kind kind = p.params.pwc.kind;
    if (p.pwc_bits > 0 ? gmmu_pwc_config_for_bits(kind, p.pwc_bits, &p.params.pwc, &err) != GMMU_OK
                       : gmmu_pwc_config_default(kind, &p.params.pwc) != GMMU_OK)
        throw d.checker_error("ptw", err.field[0] ? err.field : "bits", err.msg[0] ? err.msg : "no geometry fits");
    if (gmmu_pwc_config_validate(&p.params.pwc, &err) != GMMU_OK)
        throw d.checker_error("ptw", err.field, std::string(err.field) + ": " + err.msg);
    // The walker limit and the scheduler's geometry: the walk scheduler's rules.
    if (gmmu_ws_walkers_check(p.params.sched.variant, p.params.walkers, &err) != GMMU_OK)
        throw d.checker_error("ptw", err.field, err.msg);
    if (p.params.sched.variant != GMMU_WS_SERIAL && gmmu_ws_config_check(&p.params.sched, &err) != GMMU_OK)
        throw d.checker_error("ptw", err.field, err.msg);
    // Page-table-line cache (lines = 0: none).
    p.params.line_cache = p.params.lc.lines > 0;
    if (p.params.line_cache && gmmu_line_cache_config_check(&p.params.lc, &err) != GMMU_OK)
        throw d.checker_error("ptw", err.field, err.msg);
    // RTL twins: which blocks have one, and what co-simulation covers.
    const bool pwc_twin = kind == GMMU_PWC_TPC || kind == GMMU_PWC_CPWC;
    const bool sched_twin = p.params.sched.variant != GMMU_WS_SERIAL;
    p.params.pwc_cosim = p.cosim && pwc_twin;
    p.params.sched_cosim = p.cosim && sched_twin;
    if (p.cosim && !pwc_twin && !sched_twin)
        throw config_error("config key 'ptw.cosim': nothing to co-simulate: RTL twins exist for "
                           "ptw.pwc=tpc or cpwc and ptw.scheduler=tree or pairwise");
    if (p.params.pwc_rtl && !pwc_twin)
        throw config_error("config key 'ptw.pwc_impl': only ptw.pwc=tpc or cpwc have RTL twins");
    if (p.params.sched_rtl && !sched_twin)
        throw config_error("config key 'ptw.scheduler_impl': rtl needs ptw.scheduler=tree or "
                           "pairwise (the serial walkers have no RTL twin in the platform)");
    if (!p.params.rtl_fst.empty() && !p.params.pwc_rtl && !p.params.pwc_cosim && !p.params.sched_rtl &&
        !p.params.sched_cosim)
        throw config_error("config key 'rtl.fst': no Verilated block runs in the walker "
                           "(ptw.pwc_impl=rtl, ptw.scheduler_impl=rtl or ptw.cosim=true)");
    const std::filesystem::path f = p.params.mismatch_fst;
    if (f.empty() || f.filename().empty())
        throw config_error("config key 'rtl.mismatch_fst': expected a file name");
    // Where the page-table reads go: the caches' and TLBs' levels as their
    // specs say (cache_spec.h, tlb_config.h).
    if (p.via == "l2_cache" && !cache_enabled(c, "l2_cache"))
        throw config_error("config key 'ptw.via': l2_cache needs l2_cache.enabled=true");
    if (p.via == "l1_cache" &&
        (!cache_enabled(c, "l1_cache") || !p.per_tlb || tlb_level_enabled(c, "l2_tlb")))
        throw config_error("config key 'ptw.via': l1_cache needs l1_cache.enabled=true and one "
                           "walker per L1 TLB (ptw.per_tlb=true, l2_tlb.enabled=false)");
    return p;
}

// What a walker needs of the host, checked before the run: the RTL plugin
// for Verilated twins and the geometries it was built with, the waveform
// files writable (rtl.fst), rtl.mismatch_fst resolved against out_dir (the
// run's output folder: gmmu-sim's --out) and not a folder. Errors are
// config_errors naming the key (components/ptw_host.cpp).
void probe_walker_host(ptw_params &wp, const std::string &out_dir = ".");

// The walker's builder: the keys parsed and checked once (ptw_config_from),
// then one walker per build(). Whoever builds it for a run checks first
// what needs the host (probe_walker_host).
struct ptw_builder {
    ptw_config cfg;
    ptw_builder(const config &c, sc_core::sc_time clock) : cfg(ptw_config_from(c)) { cfg.params.clock = clock; }
    std::unique_ptr<ptw> build(const char *name) const { return std::make_unique<ptw>(name, cfg.params); }
};

} // namespace gmmu
