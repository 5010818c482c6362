// gmmu — the memory's spec (issue 42): its `memory.*` keys (suffix, default,
// range, help) and the memory_config they fill. The memory has no C model
// checker: the keys' ranges are its rules. The GPU platform's schema,
// --list-keys and docs/configs.md take the memory.* rows from here.
#pragma once

#include <memory>
#include <vector>

#include "gmmu/components/memory.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

// What the memory component is built with (memory(name, latency_cycles,
// clock), set_bytes_per_cycle).
struct memory_config {
    unsigned latency_cycles = 100;
    unsigned bytes_per_cycle = 0; // 0 = unlimited
};

inline const descriptor<memory_config> &memory_descriptor()
{
    using M = memory_config;
    static const descriptor<M> d({
        int_field<M>("latency_cycles", 100, 0, 100000, "Memory access latency, cycles.",
                     [](M &m, const config &c, const std::string &k) { m.latency_cycles = unsigned(c.i(k)); }),
        int_field<M>("bytes_per_cycle", 0, 0, 1 << 20,
                     "Memory bandwidth, bytes per cycle (0 = unlimited); accesses beyond it queue.",
                     [](M &m, const config &c, const std::string &k) { m.bytes_per_cycle = unsigned(c.i(k)); }),
    });
    return d;
}

inline std::vector<key_spec> memory_config_keys() { return memory_descriptor().keys("memory", {"", {}}); }

inline memory_config memory_config_from(const config &c)
{
    memory_config m;
    memory_descriptor().apply(c, "memory", m);
    return m;
}

// The memory's builder: the component from c's memory.* keys.
inline std::unique_ptr<memory> build_memory(const config &c, sc_core::sc_time clock,
                                            const char *name = "memory")
{
    const memory_config mc = memory_config_from(c);
    auto m = std::make_unique<memory>(name, mc.latency_cycles, clock);
    m->set_bytes_per_cycle(mc.bytes_per_cycle);
    return m;
}

} // namespace gmmu
