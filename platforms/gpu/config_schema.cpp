// gmmu — gmmu-sim's configuration schema: every component's spec under the
// GPU platform's prefixes (in the order of --list-keys and docs/configs.md)
// and the rules between the components' keys that config::validate runs
// (components/config.h, install_config_schema). gmmu_gpu's link interface
// names gmmu_gpu_config_schema, so every program that links the platform
// library gets this schema installed at start-up.
#include "gmmu/components/cache_spec.h"
#include "gmmu/components/config.h"
#include "gmmu/components/fault_handler_spec.h"
#include "gmmu/components/ldt_spec.h"
#include "gmmu/components/memory_spec.h"
#include "gmmu/components/ptw_spec.h"
#include "gmmu/components/sm_core_spec.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/components/smmu_spec.h"
#include "gmmu/components/tlb_config.h"
#include "gmmu/gpu/driver_spec.h"
#include "gmmu/gpu/platform_build.h"
#include "gmmu/gpu/platform_spec.h"
#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

extern "C" {
#include "gmmu/cache.h"
#include "gmmu/tlb.h"
}

namespace gmmu {
namespace {

// Every component's spec, in the order of --list-keys (config_schema groups
// them by top-level key in group_order below).
std::vector<key_spec> gpu_config_keys()
{
    std::vector<key_spec> all;
    for (const std::vector<key_spec> &part :
         {platform_config_keys(""), platform_config_keys("sim"), sm_config_keys(), sm_core_config_keys(),
          ptw_config_keys(), ldt_config_keys(), cache_config_keys("l1_cache"), cache_config_keys("l2_cache"),
          memory_config_keys(), platform_config_keys("mmu"), driver_config_keys(""),
          driver_config_keys("migrate"), smmu_config_keys("migrate.smmu", "The migrator's SMMU"),
          workload_config_keys(), tlb_config_keys(),
          fault_handler_config_keys()})
        all.insert(all.end(), part.begin(), part.end());
    return all;
}

// Every component's spec: its keys' rules, the rules between them and
// other components' keys, and its C model's own checkers.
void gpu_config_rules(const config &c)
{
    platform_config_from(c); // page_size, mmu.bypass (gpu/platform_spec.h)
    sm_config_from(c);       // components/sm_spec.h
    driver_config_from(c);   // contexts, migrate.* (gpu/driver_spec.h)
    for (size_t lv = 0; lv < tlb_levels().size(); lv++) {
        const std::string &k = tlb_levels()[lv].prefix;
        if (!config_key_spec(k + ".enabled") || c.b(k + ".enabled"))
            tlb_params_from(c, k, unsigned(lv + 1)); // components/tlb_config.cpp
    }
    if (c.b("l3_tlb.enabled") && !c.b("l2_tlb.enabled"))
        throw config_error("config key 'l3_tlb.enabled': an L3 TLB needs l2_tlb.enabled");
    if (!c.b("mmu.bypass")) {
        // Each TLB level's SM groups, and the rule between two levels' groups
        // (gpu/platform_build.cpp); the platform wires what these return.
        std::vector<std::string> levels = {"l1_tlb"};
        for (const char *k : {"l2_tlb", "l3_tlb"})
            if (c.b(std::string(k) + ".enabled"))
                levels.push_back(k);
        std::vector<std::vector<unsigned>> lower;
        for (size_t lv = 0; lv < levels.size(); lv++) {
            auto g = tlb_groups(c, levels[lv], unsigned(c.i("sm.count")));
            if (lv)
                tlb_parents(lower, g, levels[lv - 1], levels[lv]);
            lower = std::move(g);
        }
    }
    if (c.b("picle.enabled") && !c.b("l2_tlb.enabled"))
        throw config_error("config key 'picle.enabled': PICLE needs a shared L2 TLB (l2_tlb.enabled)");
    if (c.b("picle.enabled"))
        ldt_params_from(c, 1); // the LDT's own checker (the CU count is checked when built)
    if (c.s("l1_cache.indexing") == "vipt" && c.b("l1_cache.enabled")) {
        gmmu_cache_config cc;
        gmmu_cache_config_default(&cc);
        cc.bytes = uint64_t(c.i("l1_cache.bytes"));
        cc.ways = uint32_t(c.i("l1_cache.ways"));
        cc.vipt = true;
        gmmu_error err{};
        if (gmmu_cache_vipt_check(&cc, gmmu_log2_u64(uint64_t(c.i("page_size"))), &err) != GMMU_OK)
            throw config_error("config key 'l1_cache.indexing': vipt needs l1_cache.bytes / "
                               "l1_cache.ways <= page_size (" + std::to_string(c.i("page_size")) +
                               "): " + err.msg + "; raise l1_cache.ways or use pipt");
    }
    // Each data cache's geometry and latencies: the C model's own checker.
    if (c.b("l1_cache.enabled"))
        cache_config_from(c, "l1_cache", false);
    if (c.b("l2_cache.enabled"))
        cache_config_from(c, "l2_cache", true);
    ptw_config_from(c);      // components/ptw_spec.h
    workload_config_from(c); // gpu/workload_spec.h
}

} // namespace
} // namespace gmmu

extern "C" {
extern const bool gmmu_gpu_config_schema;
}
const bool gmmu_gpu_config_schema = gmmu::install_config_schema(
    {gmmu::gpu_config_keys, gmmu::gpu_config_rules,
     {"name", "clock_mhz", "page_size", "sim", "sm", "l1_tlb", "l2_tlb", "l3_tlb", "ptw", "memory", "mmu",
      "workload"}});
