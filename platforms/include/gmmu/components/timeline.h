// gmmu — a timeline of one run in the Chrome trace-event JSON format, which
// ui.perfetto.dev and chrome://tracing open: one track per warp, TLB and
// walker, a span per warp access, TLB lookup batch and walk, on simulated
// time. Off unless a timeline is made active (gmmu-sim --trace-out); a
// window and a cap on the number of spans bound its size.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <systemc>

namespace gmmu {

class timeline {
  public:
    // Keep spans that overlap [window_begin_ns, window_end_ns] (end 0: no
    // end), at most max_spans of them.
    timeline(uint64_t window_begin_ns, uint64_t window_end_ns, uint64_t max_spans);

    // A span on `track` (a track is made on first use) from `begin` to `end`,
    // absolute simulated times.
    void span(const std::string &track, const char *name, const sc_core::sc_time &begin,
              const sc_core::sc_time &end, nlohmann::json args = nlohmann::json::object());

    uint64_t spans() const { return kept; }
    uint64_t dropped_by_cap() const { return over_cap; }
    // The trace-event document.
    std::string document() const;

  private:
    uint64_t lo_ns, hi_ns, cap, kept = 0, over_cap = 0;
    std::map<std::string, int> tracks;
    std::vector<nlohmann::json> events;
};

// The timeline components write to (nullptr: none). Inline: every
// translation batch asks (tlb::trace_batch).
namespace timeline_detail {
extern timeline *g_active;
}
inline timeline *active_timeline() { return timeline_detail::g_active; }
void set_active_timeline(timeline *t);

} // namespace gmmu
