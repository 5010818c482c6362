// gmmu — statistics: components that count implement stats_provider; the
// platform walks the SystemC hierarchy and nests counters under each
// object's hierarchical name.
#pragma once

#include <nlohmann/json.hpp>
#include <systemc>

namespace gmmu {

struct stats_provider {
    virtual ~stats_provider() = default;
    virtual void dump_stats(nlohmann::json &j) const = 0;
};

// Collect every stats_provider below (and including) the top-level objects
// into one JSON tree keyed by the hierarchical names ("gpu.sm0" -> j["gpu"]["sm0"]).
nlohmann::json collect_stats();

// Raise an error report for component `comp` ("gmmu/<comp>").
[[noreturn]] void report_error(const char *comp, const std::string &msg);

} // namespace gmmu
