// gmmu — the SMMU's spec (issue 42): its keys under a prefix its builder
// chooses (gmmu-sim: `migrate.smmu`, the SMMU whose command queue carries the
// migrator's invalidations): suffix, default, range, help, the smmu_params
// member each fills, and the field the C model's checker
// (gmmu_smmu_ccache_create) names, as the key that sets it. The clock is the
// builder's. The schema, --list-keys and docs/configs.md take these rows
// from here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gmmu/components/smmu.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

inline const descriptor<smmu_params> &smmu_descriptor()
{
    using P = smmu_params;
    static const descriptor<P> d({
        int_field<P>("cmd_cycles", 16, 1, 100000,
                     "{L}: cycles to execute one command of the command queue, after its read.",
                     [](P &p, const config &c, const std::string &k) { p.cmd_cycles = unsigned(c.i(k)); }),
        int_field<P>("lookup_cycles", 1, 0, 100000,
                     "{L}: configuration-cache lookup of a transaction, cycles.",
                     [](P &p, const config &c, const std::string &k) { p.lookup_cycles = unsigned(c.i(k)); }),
        int_field<P>("config_entries", 64, 0, 1 << 20,
                     "{L}: stream contexts (STE + CD) its configuration cache holds; 0 = fetch them "
                     "for every transaction.",
                     [](P &p, const config &c, const std::string &k) { p.config_entries = unsigned(c.i(k)); },
                     "config_entries"),
        int_field<P>("reg_cycles", 1, 0, 100000, "{L}: register access latency, cycles.",
                     [](P &p, const config &c, const std::string &k) { p.reg_cycles = unsigned(c.i(k)); }),
    });
    return d;
}

// label names the SMMU in the help text ("The migrator's SMMU").
inline std::vector<key_spec> smmu_config_keys(const std::string &prefix, const std::string &label)
{
    return smmu_descriptor().keys(prefix, {label, {}});
}

// smmu_params from the keys under prefix; the configuration cache's
// geometry is checked by the C model's own constructor.
inline smmu_params smmu_params_from(const config &c, const std::string &prefix)
{
    smmu_params p;
    smmu_descriptor().apply(c, prefix, p);
    gmmu_smmu_ccache *cc = nullptr;
    gmmu_error err{};
    if (gmmu_smmu_ccache_create(p.config_entries, &cc, &err) != GMMU_OK)
        throw smmu_descriptor().checker_error(prefix, err.field, err.msg);
    gmmu_smmu_ccache_destroy(cc);
    return p;
}

// The SMMU's builder: the component from the keys under prefix (an SoC of
// its own: a config from its JSON object or key=value pairs, see
// examples/soc_smmu).
inline std::unique_ptr<smmu> build_smmu(const config &c, const std::string &prefix,
                                        sc_core::sc_time clock, const char *name = "smmu")
{
    smmu_params p = smmu_params_from(c, prefix);
    p.clock = clock;
    return std::make_unique<smmu>(name, p);
}

} // namespace gmmu
