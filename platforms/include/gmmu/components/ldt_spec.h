// gmmu — the PICLE/Valkyrie locality detection unit's spec (issue 42): its
// `picle.*` keys (suffix, default, range, help), the ldt_params members they
// fill, every field gmmu_ldt_config_check can name as the key that sets it,
// and ldt_params from a config (a JSON config or key=value pairs through
// gmmu::config), checked by the C model's own checker. The GPU platform's
// schema, --list-keys and docs/configs.md take the picle.* rows from here.
#pragma once

#include <memory>
#include <vector>

#include "gmmu/components/ldt_unit.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

// ldt_descriptor(): the spec. ldt_config_keys(): its schema rows (picle.*).
// ldt_params_from(c, cus): an LDT that tracks `cus` L1 TLBs (the C model's
// bitmap width) from c's picle.* keys; gmmu_ldt_config_check's verdicts are
// config_errors naming the key that sets the field. page_shift and clock are
// the platform's.
inline const descriptor<ldt_params> &ldt_descriptor()
{
    static const descriptor<ldt_params> d = [] {
        descriptor<ldt_params> x({
            bool_field<ldt_params>("enabled", false,
                                   "PICLE: a Locality Detection Table beside each L2 TLB instance; L2 "
                                   "evictions are pushed into the L1 TLBs of the CUs that used the page.",
                                   nullptr), // read by the platform (whether LDTs exist)
            int_field<ldt_params>("entries", 1024, 1, 1 << 20, "LDT entries.",
                                  [](ldt_params &p, const config &c, const std::string &k) {
                                      p.model.entries = uint32_t(c.i(k));
                                  }, "entries"),
            int_field<ldt_params>("ways", 8, 1, 1 << 20, "LDT ways (must divide picle.entries).",
                                  [](ldt_params &p, const config &c, const std::string &k) {
                                      p.model.ways = uint32_t(c.i(k));
                                  }, "ways"),
            int_field<ldt_params>("tag_bits", 16, 1, 32, "LDT hashed-tag width, bits.",
                                  [](ldt_params &p, const config &c, const std::string &k) {
                                      p.model.tag_bits = uint32_t(c.i(k));
                                  }, "tag_bits"),
            int_field<ldt_params>("lookup_cycles", 2, 0, 100000,
                                  "LDT lookup latency on an L2 eviction, cycles.",
                                  [](ldt_params &p, const config &c, const std::string &k) {
                                      p.model.lookup_cycles = uint32_t(c.i(k));
                                  }, "lookup_cycles"),
            bool_field<ldt_params>("probe", false,
                                   "Valkyrie: on an L1 miss, probe the peer L1 TLBs the LDT names "
                                   "before the L2.",
                                   [](ldt_params &p, const config &c, const std::string &k) {
                                       p.probe = c.b(k);
                                   }),
            int_field<ldt_params>("probe_cycles", 10, 0, 100000, "Cost of one peer-L1 probe, cycles.",
                                  [](ldt_params &p, const config &c, const std::string &k) {
                                      p.probe_cycles = unsigned(c.i(k));
                                  }),
        });
        // The CU count is the number of L1 TLBs, which sm.count (with
        // l1_tlb.shared_by or groups) makes; the update latency is the
        // platform's constant 0.
        x.c_field_elsewhere("cus", "sm.count").c_field_elsewhere("update_cycles", "");
        return x;
    }();
    return d;
}

inline std::vector<key_spec> ldt_config_keys() { return ldt_descriptor().keys("picle", {"", {}}); }

inline ldt_params ldt_params_from(const config &c, unsigned cus)
{
    ldt_params p;
    ldt_descriptor().apply(c, "picle", p);
    p.model.cus = cus;
    p.model.seed = 0x91C1Eull;
    gmmu_error err{};
    if (gmmu_ldt_config_check(&p.model, &err) != GMMU_OK)
        throw ldt_descriptor().checker_error("picle", err.field, err.msg);
    return p;
}

// An LDT's builder: the unit from c's picle.* keys, tracking `cus` L1 TLBs
// of pages of 2^page_shift bytes.
inline std::unique_ptr<ldt_unit> build_ldt(const config &c, unsigned cus, unsigned page_shift,
                                           sc_core::sc_time clock, const char *name = "ldt")
{
    ldt_params p = ldt_params_from(c, cus);
    p.page_shift = page_shift;
    p.clock = clock;
    return std::make_unique<ldt_unit>(name, p);
}

} // namespace gmmu
