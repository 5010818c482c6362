// gmmu — the data caches' spec (issue 42): the keys of l1_cache and l2_cache
// (suffix, default, range, help), the gmmu_cache_config members they fill,
// every field gmmu_cache_config_check and gmmu_cache_vipt_check can name as
// the key that sets it, and a cache config from a config (a JSON config or
// key=value pairs through gmmu::config), checked by the C model's own
// checker. The GPU platform's schema, --list-keys and docs/configs.md take
// the l1_cache.* and l2_cache.* rows from here.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gmmu/components/cache.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

// cache_descriptor(): the spec, one for both levels (l1_cache, l2_cache).
// cache_levels(): the prefixes with their labels and defaults.
// cache_config_keys(): the schema rows of both levels, L1 first.
// cache_config_from(c, prefix, write_allocate): the level's config from c;
// gmmu_cache_config_check's verdicts are config_errors naming the key that
// sets the field (index_cycles is checked against hit_cycles whatever the
// indexing, then kept only for vipt, as the platform uses it).
inline const descriptor<gmmu_cache_config> &cache_descriptor()
{
    using C = gmmu_cache_config;
    static const descriptor<C> d = [] {
        descriptor<C> x({
            // Read by the platform (whether the level exists).
            only_for(bool_field<C>("enabled", false,
                                   "A data cache on each L1 TLB's data side (per SM with mmu.bypass): "
                                   "write-through, no write-allocate, timing only (data stays in "
                                   "memory).",
                                   nullptr),
                     {"l1_cache"}),
            only_for(bool_field<C>("enabled", false,
                                   "One data cache shared by all SMs in front of the memory: "
                                   "write-back, write-allocate, timing only.",
                                   nullptr),
                     {"l2_cache"}),
            int_field<C>("bytes", 32768, 1024, 1ll << 30, "{L} data cache capacity, bytes (power of two).",
                         [](C &p, const config &c, const std::string &k) { p.bytes = uint64_t(c.i(k)); },
                         "bytes"),
            int_field<C>("ways", 4, 1, 64, "{L} data cache associativity.",
                         [](C &p, const config &c, const std::string &k) { p.ways = uint32_t(c.i(k)); },
                         "ways"),
            int_field<C>("line_bytes", 128, 32, 4096, "{L} data cache line, bytes (power of two).",
                         [](C &p, const config &c, const std::string &k) {
                             p.line_bytes = uint32_t(c.i(k));
                         }, "line_bytes"),
            only_for(int_field<C>("hit_cycles", 40, 0, 100000, "L1 data cache hit latency, cycles.",
                                  [](C &p, const config &c, const std::string &k) {
                                      p.hit_cycles = uint32_t(c.i(k));
                                  }, "hit_cycles"),
                     {"l1_cache"}),
            only_for(int_field<C>("hit_cycles", 70, 0, 100000,
                                  "L2 data cache hit latency (after the L1's), cycles.",
                                  [](C &p, const config &c, const std::string &k) {
                                      p.hit_cycles = uint32_t(c.i(k));
                                  }, "hit_cycles"),
                     {"l2_cache"}),
            only_for(enum_field<C>("indexing", "pipt", {{"pipt", 0}, {"vipt", 1}},
                                   "pipt: the L1 data cache is looked up after translation (TLB time "
                                   "+ hit time); vipt: its set is selected from untranslated bits "
                                   "while the TLB looks up, so a hit costs max(translation, "
                                   "index_cycles) + hit_cycles - index_cycles. vipt needs "
                                   "l1_cache.bytes / l1_cache.ways <= page_size.",
                                   [](C &p, const config &c, const std::string &k) {
                                       p.vipt = cache_descriptor().enum_value("indexing", c.s(k), k) == 1;
                                   }, "vipt"),
                     {"l1_cache"}),
            only_for(int_field<C>("index_cycles", 0, 0, 100000,
                                  "With l1_cache.indexing=vipt: the part of l1_cache.hit_cycles that "
                                  "selects the set and can overlap the TLB lookup.",
                                  [](C &p, const config &c, const std::string &k) {
                                      p.index_cycles = uint32_t(c.i(k));
                                  }, "index_cycles"),
                     {"l1_cache"}),
        });
        // The L2 is never VIPT: the platform leaves vipt and index_cycles 0.
        x.c_field_elsewhere("vipt", "").c_field_elsewhere("index_cycles", "");
        return x;
    }();
    return d;
}

struct cache_level {
    std::string prefix;                                     // "l1_cache"
    descriptor<gmmu_cache_config>::prefix_info info;        // label and this level's defaults
};

inline const std::vector<cache_level> &cache_levels()
{
    static const std::vector<cache_level> levels = {
        {"l1_cache", {"L1", {}}},
        {"l2_cache", {"L2", {{"bytes", 2ll << 20}, {"ways", 8}}}},
    };
    return levels;
}

inline std::vector<key_spec> cache_config_keys(const std::string &prefix)
{
    for (auto &l : cache_levels())
        if (l.prefix == prefix)
            return cache_descriptor().keys(l.prefix, l.info);
    throw std::logic_error("cache_config_keys: no level " + prefix);
}

// Whether the level is built (its `enabled` key, read through this spec).
inline bool cache_enabled(const config &c, const std::string &prefix)
{
    return cache_descriptor().flag(c, prefix, "enabled");
}

inline gmmu_cache_config cache_config_from(const config &c, const std::string &prefix, bool write_allocate)
{
    gmmu_cache_config cc{};
    cache_descriptor().apply(c, prefix, cc);
    cc.write_allocate = write_allocate;
    gmmu_error err{};
    if (gmmu_cache_config_check(&cc, &err) != GMMU_OK)
        throw cache_descriptor().checker_error(prefix, err.field, err.msg);
    if (!cc.vipt)
        cc.index_cycles = 0;
    return cc;
}

// A data cache's builder: the component from the level's keys.
inline std::unique_ptr<data_cache> build_cache(const config &c, const std::string &prefix, bool write_allocate,
                                               sc_core::sc_time clock, const char *name)
{
    return std::make_unique<data_cache>(name, cache_config_from(c, prefix, write_allocate), clock);
}

} // namespace gmmu
