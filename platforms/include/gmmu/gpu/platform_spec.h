// gmmu — the GPU platform's own spec (issue 42): its top-level keys (name,
// clock_mhz, page_size, sim.quantum_ns, mmu.bypass): default, range, help,
// the platform_config member each fills, and the rules between them and the
// keys of the components they switch off. The schema, --list-keys and
// docs/configs.md take these rows from here.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gmmu/components/descriptor.h"

namespace gmmu {

struct platform_config {
    std::string name = "default";
    unsigned clock_mhz = 1000;
    uint64_t page_size = 4096;
    uint64_t quantum_ns = 1000;
    bool bypass = false; // no MMU: PA = VA
};

inline const descriptor<platform_config> &platform_descriptor()
{
    using P = platform_config;
    static const descriptor<P> d({
        string_field<P>("name", "default", "Name of the configuration (informational).",
                        [](P &p, const config &c, const std::string &k) { p.name = c.s(k); }),
        int_field<P>("clock_mhz", 1000, 1, 100000, "Clock of every component, MHz.",
                     [](P &p, const config &c, const std::string &k) { p.clock_mhz = unsigned(c.i(k)); }),
        int_field<P>("page_size", 4096, 4096, 1073741824,
                     "Page size the driver maps with: 4096, 2097152 (2 MiB) or 1073741824 (1 GiB).",
                     [](P &p, const config &c, const std::string &k) {
                         const int64_t ps = c.i(k);
                         if (ps != 4096 && ps != (1 << 21) && ps != (1 << 30))
                             throw config_error("config key '" + k + "': " + std::to_string(ps) +
                                                " is not 4096, 2097152 or 1073741824");
                         p.page_size = uint64_t(ps);
                     }, "", true),
        int_field<P>("sim.quantum_ns", 1000, 1, 1000000000, "Global quantum for temporal decoupling, ns.",
                     [](P &p, const config &c, const std::string &k) { p.quantum_ns = uint64_t(c.i(k)); }),
        bool_field<P>("mmu.bypass", false,
                      "No translation: SMs talk to memory directly with PA = VA (the no-MMU twin).",
                      [](P &p, const config &c, const std::string &k) { p.bypass = c.b(k); }),
    });
    return d;
}

// The rows of one group of the platform's keys ("" : name, clock_mhz,
// page_size; "sim"; "mmu"), in the schema's order.
inline std::vector<key_spec> platform_config_keys(const std::string &group)
{
    std::vector<key_spec> out;
    for (auto &k : platform_descriptor().keys("", {"", {}})) {
        const auto dot = k.key.find('.');
        if ((dot == std::string::npos ? "" : k.key.substr(0, dot)) == group)
            out.push_back(k);
    }
    return out;
}

inline platform_config platform_config_from(const config &c)
{
    platform_config p;
    platform_descriptor().apply(c, "", p);
    // Keys that would have no effect are refused, not ignored: with no MMU
    // there is no walker, so none of its RTL twins.
    if (p.bypass)
        for (const char *k : {"ptw.scheduler_impl", "ptw.pwc_impl", "ptw.cosim", "rtl.fst",
                              "rtl.mismatch_cycles", "rtl.mismatch_fst"})
            if (c.value(k) != config_key_spec(k)->def)
                throw config_error(std::string("config key '") + k + "': " + c.value(k).dump() +
                                   " has no effect with mmu.bypass=true (no walker, no RTL)");
    return p;
}

} // namespace gmmu
