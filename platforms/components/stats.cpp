#include "gmmu/components/stats.h"

#include <algorithm>
#include <sstream>

namespace gmmu {

static void walk(sc_core::sc_object *o, nlohmann::json &root)
{
    if (auto *p = dynamic_cast<stats_provider *>(o)) {
        nlohmann::json *node = &root;
        std::stringstream ss(o->name());
        std::string part;
        while (std::getline(ss, part, '.'))
            node = &(*node)[part];
        p->dump_stats(*node);
    }
    for (auto *c : o->get_child_objects())
        walk(c, root);
}

nlohmann::json collect_stats()
{
    nlohmann::json j = nlohmann::json::object();
    for (auto *o : sc_core::sc_get_top_level_objects())
        walk(o, j);
    return j;
}

static std::vector<stat_section> &sections()
{
    static std::vector<stat_section> all;
    return all;
}

void register_stat_section(stat_section s) { sections().push_back(std::move(s)); }

std::vector<stat_section> stat_sections()
{
    std::vector<stat_section> v = sections();
    std::stable_sort(v.begin(), v.end(),
                     [](const stat_section &a, const stat_section &b) { return a.rank < b.rank; });
    return v;
}

std::string stats_markdown()
{
    std::ostringstream o;
    bool first = true;
    for (const stat_section &s : stat_sections()) {
        o << (first ? "" : "\n") << "## " << s.title << "\n\n";
        first = false;
        if (!s.intro.empty())
            o << s.intro << "\n\n";
        o << "| key | meaning |\n|---|---|\n";
        for (const stat_row &r : s.rows)
            o << "| `" << r.key << "` | " << r.doc << " |\n";
    }
    return o.str();
}

void report_error(const char *comp, const std::string &msg)
{
    std::string type = std::string("gmmu/") + comp;
    SC_REPORT_ERROR(type.c_str(), msg.c_str());
    throw std::runtime_error(msg); // not reached: SC_REPORT_ERROR throws
}

} // namespace gmmu
