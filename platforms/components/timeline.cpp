#include "gmmu/components/timeline.h"

namespace gmmu {

timeline *timeline_detail::g_active = nullptr;

void set_active_timeline(timeline *t) { timeline_detail::g_active = t; }

timeline::timeline(uint64_t window_begin_ns, uint64_t window_end_ns, uint64_t max_spans)
    : lo_ns(window_begin_ns), hi_ns(window_end_ns), cap(max_spans)
{
}

void timeline::span(const std::string &track, const char *name, const sc_core::sc_time &begin,
                    const sc_core::sc_time &end, nlohmann::json args)
{
    const double b_ns = begin.to_seconds() * 1e9, e_ns = end.to_seconds() * 1e9;
    if (e_ns < double(lo_ns) || (hi_ns && b_ns > double(hi_ns)))
        return;
    if (kept >= cap) {
        over_cap++;
        return;
    }
    auto it = tracks.find(track);
    if (it == tracks.end())
        it = tracks.emplace(track, int(tracks.size()) + 1).first;
    nlohmann::json ev = {{"name", name}, {"ph", "X"}, {"pid", 1}, {"tid", it->second},
                         {"ts", b_ns / 1000.0}, {"dur", (e_ns - b_ns) / 1000.0}};
    if (!args.empty())
        ev["args"] = std::move(args);
    events.push_back(std::move(ev));
    kept++;
}

std::string timeline::document() const
{
    nlohmann::json doc = {{"displayTimeUnit", "ns"}};
    nlohmann::json &ev = doc["traceEvents"] = nlohmann::json::array();
    ev.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "gmmu-sim"}}}});
    for (auto &[name, tid] : tracks) {
        ev.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                      {"args", {{"name", name}}}});
        ev.push_back({{"name", "thread_sort_index"}, {"ph", "M"}, {"pid", 1}, {"tid", tid},
                      {"args", {{"sort_index", tid}}}});
    }
    for (auto &e : events)
        ev.push_back(e);
    doc["otherData"] = {{"spans", kept},
                        {"spans_dropped_by_cap", over_cap},
                        {"window_ns", {lo_ns, hi_ns}},
                        {"time_unit", "simulated time; ts and dur in microseconds"}};
    return doc.dump() + "\n";
}

} // namespace gmmu
