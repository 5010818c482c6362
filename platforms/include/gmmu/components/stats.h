// gmmu — statistics: components that count implement stats_provider; the
// platform walks the SystemC hierarchy and nests counters under each
// object's hierarchical name.
#pragma once

#include <functional>
#include <string>
#include <vector>

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

// ---- statistics declared once ---------------------------------------------------
// A component kind declares its counters in one stat_table: key, meaning and
// how to read the value. Its dump_stats writes exactly those keys
// (stat_table::dump) and docs/stats.md is generated from the same tables
// (stats_markdown, `gmmu-sim --list-stats`).

struct stat_row {
    std::string key, doc;
};
struct stat_section {
    int rank = 0;         // order in docs/stats.md
    std::string title;    // section heading
    std::string intro;    // paragraph under the heading ("" = none)
    std::vector<stat_row> rows;
};
void register_stat_section(stat_section s);
// Every registered section, by rank.
std::vector<stat_section> stat_sections();
// The sections as Markdown tables.
std::string stats_markdown();

template <class C>
class stat_table {
  public:
    using value_fn = std::function<nlohmann::json(const C &)>;
    using when_fn = std::function<bool(const C &)>;
    struct def {
        def(const char *k, const char *d, value_fn v, when_fn w = when_fn())
            : key(k), doc(d), value(std::move(v)), when(std::move(w))
        {
        }
        const char *key; // dotted within the component ("mshr.allocated")
        const char *doc;
        value_fn value;
        when_fn when;    // written only if true (empty: always)
    };

    stat_table(int rank, std::string title, std::string intro, std::vector<def> defs)
        : defs_(std::move(defs))
    {
        stat_section s{rank, std::move(title), std::move(intro), {}};
        for (const def &d : defs_)
            s.rows.push_back({d.key, d.doc});
        register_stat_section(std::move(s));
    }

    void dump(const C &c, nlohmann::json &j) const
    {
        for (const def &d : defs_) {
            if (d.when && !d.when(c))
                continue;
            std::string ptr = std::string("/") + d.key;
            for (char &ch : ptr)
                if (ch == '.')
                    ch = '/';
            j[nlohmann::json::json_pointer(ptr)] = d.value(c);
        }
    }

  private:
    std::vector<def> defs_;
};

// Raise an error report for component `comp` ("gmmu/<comp>").
[[noreturn]] void report_error(const char *comp, const std::string &msg);

} // namespace gmmu
