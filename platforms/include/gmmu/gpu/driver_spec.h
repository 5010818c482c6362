// gmmu — the driver's spec (issue 42): the address spaces it builds
// (`contexts`) and the page migration it runs while the workload runs
// (`migrate.*`): default, range, help, the driver_config member each fills,
// and the rules between them and the SM and MMU keys. The SMMU whose command
// queue carries the migration's invalidations is configured by its own spec
// (components/smmu_spec.h) under migrate.smmu. The schema,
// --list-keys and docs/configs.md take these rows from here.
#pragma once

#include <string>
#include <vector>

#include "gmmu/components/descriptor.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/components/smmu_spec.h"
#include "gmmu/gpu/migrator.h"
#include "gmmu/gpu/platform_spec.h"

namespace gmmu {

struct driver_config {
    unsigned contexts = 1;      // address spaces (ASID = context)
    bool migrate = false;       // migrate.interval_cycles > 0
    migrator_params migration;  // clock left to the builder
};

inline const descriptor<driver_config> &driver_descriptor()
{
    using D = driver_config;
    static const descriptor<D> d({
        int_field<D>("contexts", 1, 1, 32,
                     "Address spaces: SM i runs in context i mod contexts (ASID = context), each with "
                     "its own page tables and frames; the workload is mapped at the same VAs in every "
                     "context and each context's data is checked on its own.",
                     [](D &p, const config &c, const std::string &k) { p.contexts = unsigned(c.i(k)); }),
        int_field<D>("migrate.interval_cycles", 0, 0, 1000000000,
                     "Every this many cycles the driver migrates one mapped page (of a random context) "
                     "to a new frame while the workload runs: not present, TLB invalidation and "
                     "CMD_SYNC through an SMMU command queue, copy, remap; 0 = no migration "
                     "(docs/smmu.md).",
                     [](D &p, const config &c, const std::string &k) {
                         p.migration.interval_cycles = unsigned(c.i(k));
                         p.migrate = c.i(k) > 0;
                     }),
        int_field<D>("migrate.copy_cycles", 256, 1, 100000000,
                     "Cycles one page copy keeps the page not present (accesses to it stall and "
                     "replay).",
                     [](D &p, const config &c, const std::string &k) {
                         p.migration.copy_cycles = unsigned(c.i(k));
                     }),
        int_field<D>("migrate.seed", 1, 1, 1ll << 62, "Seed of the choice of the pages to migrate.",
                     [](D &p, const config &c, const std::string &k) { p.migration.seed = uint64_t(c.i(k)); }),
        bool_field<D>("migrate.invalidate", true,
                      "Invalidate the TLBs (TLBI + CMD_SYNC) before copying; false shows what a "
                      "driver that skips it loses (the data check fails).",
                      [](D &p, const config &c, const std::string &k) { p.migration.invalidate = c.b(k); }),
    });
    return d;
}

// The rows of "contexts" (group "") or of "migrate".
inline std::vector<key_spec> driver_config_keys(const std::string &group)
{
    std::vector<key_spec> out;
    for (auto &k : driver_descriptor().keys("", {"", {}}))
        if ((k.key.find('.') == std::string::npos ? "" : k.key.substr(0, k.key.find('.'))) == group)
            out.push_back(k);
    return out;
}

inline driver_config driver_config_from(const config &c)
{
    driver_config d;
    driver_descriptor().apply(c, "", d);
    d.migration.smmu = smmu_params_from(c, "migrate.smmu"); // components/smmu_spec.h
    // More than one address space, or migration, needs translation and the
    // simple SM (which replays an access to a page being migrated): the
    // platform's and the SMs' parsed specs say whether they are there.
    const bool bypass = platform_config_from(c).bypass;
    const std::string sm_model = sm_config_from(c).model;
    for (const char *k : {"contexts", "migrate.interval_cycles"}) {
        const bool on = std::string(k) == "contexts" ? d.contexts > 1 : d.migrate;
        if (on && bypass)
            throw config_error(std::string("config key '") + k + "': needs translation (mmu.bypass=false)");
        if (on && sm_model != "simple")
            throw config_error(std::string("config key '") + k + "': supported with sm.model=simple only");
    }
    return d;
}

} // namespace gmmu
