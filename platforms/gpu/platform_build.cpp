#include "gmmu/gpu/platform_build.h"

#include "gmmu/components/walk_cosim.h"
#include "gmmu/components/rtl_plugin.h"
#include "gmmu/gpu/outputs.h"
#include "gmmu/gpu/platform.h"

#include "gmmu/sm_list.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gmmu {

std::vector<std::vector<unsigned>> tlb_groups(const config &c, const std::string &prefix,
                                              unsigned nsm)
{
    std::vector<std::vector<unsigned>> g;
    const std::string spec = c.s(prefix + ".groups");
    const std::string key = "config key '" + prefix + ".groups': ";
    if (spec.empty()) {
        unsigned k = unsigned(c.i(prefix + ".shared_by"));
        if (k == 0 || k > nsm)
            k = nsm;
        for (unsigned s0 = 0; s0 < nsm; s0 += k) {
            g.emplace_back();
            for (unsigned s = s0; s < std::min(nsm, s0 + k); s++)
                g.back().push_back(s);
        }
        return g;
    }
    std::vector<int> owner(nsm, -1);
    std::stringstream groups(spec);
    std::string grp;
    while (std::getline(groups, grp, ';')) {
        g.emplace_back();
        std::stringstream items(grp);
        std::string it;
        while (std::getline(items, it, ',')) {
            // ID or ID-ID, decimal ids (no sign: "-1" is no SM, not 2^32-1);
            // the one SM-list rule is gmmu_sm_range_parse (models/src/sm_list.c).
            uint32_t a = 0, b = 0;
            if (gmmu_sm_range_parse(it.c_str(), &a, &b) != GMMU_OK)
                throw config_error(key + "'" + it + "' is not an SM id or range");
            if (b >= nsm)
                throw config_error(key + "SM " + std::to_string(b) + " out of range 0.." +
                                   std::to_string(nsm - 1));
            for (unsigned s = a; s <= b; s++) {
                if (s >= nsm)
                    throw config_error(key + "SM " + std::to_string(s) + " out of range 0.." +
                                       std::to_string(nsm - 1));
                if (owner[s] >= 0)
                    throw config_error(key + "SM " + std::to_string(s) + " is in two groups");
                owner[s] = int(g.size() - 1);
                g.back().push_back(s);
            }
        }
        if (g.back().empty())
            throw config_error(key + "empty group");
    }
    for (unsigned s = 0; s < nsm; s++)
        if (owner[s] < 0)
            throw config_error(key + "SM " + std::to_string(s) + " is in no group");
    return g;
}

std::vector<size_t> tlb_parents(const std::vector<std::vector<unsigned>> &lower_groups,
                                const std::vector<std::vector<unsigned>> &upper_groups,
                                const std::string &lower_prefix, const std::string &upper_prefix)
{
    auto holds = [](const std::vector<unsigned> &g, unsigned s) {
        return std::find(g.begin(), g.end(), s) != g.end();
    };
    std::vector<size_t> parent;
    for (const auto &mine : lower_groups) {
        size_t up = upper_groups.size();
        for (size_t u = 0; u < upper_groups.size() && up == upper_groups.size(); u++)
            if (holds(upper_groups[u], mine[0]))
                up = u;
        for (unsigned s : mine)
            if (up == upper_groups.size() || !holds(upper_groups[up], s))
                throw config_error("config key '" + upper_prefix + ".groups': SMs sharing one " +
                                   lower_prefix + " instance must share one " + upper_prefix +
                                   " instance (SM " + std::to_string(mine[0]) + " and " +
                                   std::to_string(s) + " are split)");
        parent.push_back(up);
    }
    return parent;
}

static std::vector<std::pair<std::string, sm_factory>> &sm_registry()
{
    static std::vector<std::pair<std::string, sm_factory>> r;
    return r;
}

bool register_sm_model(const std::string &name, sm_factory f)
{
    sm_registry().emplace_back(name, std::move(f));
    return true;
}

std::vector<std::string> sm_model_names()
{
    std::vector<std::string> n = {"simple"};
    for (auto &r : sm_registry())
        n.push_back(r.first);
    return n;
}

std::unique_ptr<sm_base> build_sm(const std::string &model, const char *name, const sm_params &p,
                                  workload &wl, data_checker &checker, gpu_platform &gpu)
{
    if (model == "simple")
        return std::make_unique<sm>(name, p, wl, checker);
    for (auto &r : sm_registry())
        if (r.first == model)
            return r.second(name, p, wl, gpu);
    throw config_error("config key 'sm.model': unknown SM model '" + model + "'");
}

} // namespace gmmu
