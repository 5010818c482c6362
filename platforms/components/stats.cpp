#include "components/stats.h"

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

void report_error(const char *comp, const std::string &msg)
{
    std::string type = std::string("gmmu/") + comp;
    SC_REPORT_ERROR(type.c_str(), msg.c_str());
    throw std::runtime_error(msg); // not reached: SC_REPORT_ERROR throws
}

} // namespace gmmu
