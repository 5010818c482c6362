// gmmu — the SMs' shared spec (issue 42): the `sm.*` keys every SM model
// reads (count, warps, issue width, model, overlap, the simple SM's compute
// pipeline): default, range, help and the sm_config member each fills. The
// issue/commit SM's own sm.* keys are its spec's (components/sm_core_spec.h).
// The schema, --list-keys and docs/configs.md take these rows from here.
#pragma once

#include <string>
#include <vector>

#include "gmmu/components/sm.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

// What the SMs are built from: how many, which model, and the sm_params of
// each (id, asid, clock, bypass and page_in_flight left to the builder).
struct sm_config {
    unsigned count = 4;
    std::string model = "simple";
    bool overlap_cache_access = false;
    sm_params params;
};

inline const descriptor<sm_config> &sm_descriptor()
{
    using S = sm_config;
    static const descriptor<S> d({
        int_field<S>("count", 4, 1, 1024, "Number of SMs.",
                     [](S &s, const config &c, const std::string &k) { s.count = unsigned(c.i(k)); }),
        int_field<S>("warps", 32, 1, 64, "Warps per SM.",
                     [](S &s, const config &c, const std::string &k) { s.params.warps = unsigned(c.i(k)); },
                     "max_warps"),
        int_field<S>("issue_width", 1, 1, 8, "Warp memory instructions issued per SM cycle.",
                     [](S &s, const config &c, const std::string &k) {
                         s.params.issue_width = unsigned(c.i(k));
                     }, "issue_width"),
        bool_field<S>("compute_on_pipeline", false,
                      "sm.model=simple: a warp's non-memory cycles occupy the SM's one issue pipeline "
                      "(no other warp issues while they run). false: they delay only their warp, so "
                      "all the warps of an SM compute at once (docs/pichai_mmu.md).",
                      [](S &s, const config &c, const std::string &k) {
                          s.params.compute_on_pipeline = c.b(k);
                      }),
        bool_field<S>("timing_only", false,
                      "sm.model=simple: warp accesses move no data (the memory allocates, copies and "
                      "checks nothing; data_check.lanes_checked is 0); translations, times and the "
                      "other statistics are those of the run with data. Refused with workloads that "
                      "use the values their loads return (hash-group, tlb-probe).",
                      [](S &s, const config &c, const std::string &k) { s.params.timing_only = c.b(k); }),
        string_field<S>("model", "simple",
                        "SM model: simple = warps issuing the workload's memory instructions; other "
                        "models register themselves (docs/architecture.md).",
                        [](S &s, const config &c, const std::string &k) { s.model = c.s(k); }),
        bool_field<S>("overlap_cache_access", false,
                      "Intra-warp overlap: the lanes of each page of a warp access go to the L1 data "
                      "cache as soon as that page is translated, while its other pages still walk "
                      "(docs/pichai_mmu.md; sm.model=issue: each 128-B line of an instruction when "
                      "its own translation is done). false: every lane waits for the warp's "
                      "(instruction's) last translation.",
                      [](S &s, const config &c, const std::string &k) { s.overlap_cache_access = c.b(k); },
                      "overlap_lines"),
    });
    return d;
}

inline std::vector<key_spec> sm_config_keys() { return sm_descriptor().keys("sm", {"", {}}); }

inline sm_config sm_config_from(const config &c)
{
    sm_config s;
    sm_descriptor().apply(c, "sm", s);
    if (s.params.compute_on_pipeline && s.model != "simple")
        throw config_error("config key 'sm.compute_on_pipeline': supported with sm.model=simple only "
                           "(the issue SM issues its non-memory instructions itself)");
    if (s.params.timing_only && s.model != "simple")
        throw config_error("config key 'sm.timing_only': supported with sm.model=simple only "
                           "(the issue SM's kernels compute on the data they load)");
    if (c.i("sm.issue_cycles") > 1 && s.model == "simple")
        throw config_error("config key 'sm.issue_cycles': supported with sm.model=issue only "
                           "(the simple SM's non-memory work: sm.compute_on_pipeline)");
    return s;
}

} // namespace gmmu
