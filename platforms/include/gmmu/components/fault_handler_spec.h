// gmmu — the page-fault handler's spec (issue 42): its `fault.*` keys
// (suffix, default, range, help), the gmmu_fault_handler_config members they
// fill, every field gmmu_fault_handler_config_check can name as the key that
// sets it (granularity_shift is fault.granularity_bytes, clock_mhz the
// platform's clock_mhz: no error names fault.granularity_shift), and the
// config from a gmmu::config, checked by the C model's own checker.
#pragma once

#include <vector>

#include "gmmu/components/fault_handler.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

// fault_handler_descriptor(): the spec. fault_handler_config_keys(): its
// schema rows (fault.*). fault_handler_config_from(c): the model's config
// (the link's paper costs, then the keys; clock from clock_mhz), checked.
inline const descriptor<gmmu_fault_handler_config> &fault_handler_descriptor()
{
    using F = gmmu_fault_handler_config;
    static const descriptor<F> d = [] {
        descriptor<F> x({
            // First: the link's defaults, which the other keys override.
            enum_field<F>("link", "nvlink", {{"nvlink", GMMU_LINK_NVLINK}, {"pcie", GMMU_LINK_PCIE}},
                          "CPU-GPU link of the CPU fault path: nvlink (12 us with transfer, 10 us "
                          "without) or pcie (25 / 12 us).",
                          [](F &f, const config &c, const std::string &k) {
                              gmmu_fault_handler_config_default(
                                  &f, gmmu_link(fault_handler_descriptor().enum_value("link", c.s(k), k)));
                          }),
            int_field<F>("cpu_transfer_ns", 0, 0, 100000000,
                         "CPU path cost of a fault whose data is CPU-resident, ns; 0 = the link's.",
                         [](F &f, const config &c, const std::string &k) {
                             if (c.i(k) > 0)
                                 f.cpu_transfer_ns = uint32_t(c.i(k));
                         }, "cpu_transfer_ns"),
            int_field<F>("cpu_alloc_ns", 0, 0, 100000000,
                         "CPU path cost of a first-touch fault, ns; 0 = the link's.",
                         [](F &f, const config &c, const std::string &k) {
                             if (c.i(k) > 0)
                                 f.cpu_alloc_ns = uint32_t(c.i(k));
                         }, "cpu_alloc_ns"),
            int_field<F>("cpu_servers", 1, 1, 4096, "Faults the CPU serves at once (1: one by one).",
                         [](F &f, const config &c, const std::string &k) { f.cpu_servers = uint32_t(c.i(k)); },
                         "cpu_servers"),
            bool_field<F>("local_first_touch", false, "Resolve first-touch faults with a GPU-local handler.",
                          [](F &f, const config &c, const std::string &k) { f.local_first_touch = c.b(k); }),
            int_field<F>("local_ns", 20000, 1, 100000000, "GPU-local handler cost, ns.",
                         [](F &f, const config &c, const std::string &k) { f.local_ns = uint32_t(c.i(k)); },
                         "local_ns"),
            int_field<F>("local_servers", 1024, 1, 4096, "GPU-local handlers running at once.",
                         [](F &f, const config &c, const std::string &k) {
                             f.local_servers = uint32_t(c.i(k));
                         }, "local_servers"),
            int_field<F>("granularity_bytes", 65536, 4096, 1 << 30,
                         "Fault granularity: bytes one fault makes present.",
                         [](F &f, const config &c, const std::string &k) {
                             f.granularity_shift = unsigned(gmmu_log2_u64(uint64_t(c.i(k))));
                         }, "granularity_shift", true),
            int_field<F>("max_pending", 65536, 1, 1 << 20, "Capacity of the pending-fault queue.",
                         [](F &f, const config &c, const std::string &k) { f.max_pending = uint32_t(c.i(k)); },
                         "max_pending"),
        });
        x.c_field_elsewhere("clock_mhz", "clock_mhz");
        return x;
    }();
    return d;
}

inline std::vector<key_spec> fault_handler_config_keys()
{
    return fault_handler_descriptor().keys("fault", {"", {}});
}

inline gmmu_fault_handler_config fault_handler_config_from(const config &c)
{
    gmmu_fault_handler_config f{};
    fault_handler_descriptor().apply(c, "fault", f);
    f.clock_mhz = uint32_t(c.i("clock_mhz"));
    gmmu_error err{};
    if (gmmu_fault_handler_config_check(&f, &err) != GMMU_OK)
        throw fault_handler_descriptor().checker_error("fault", err.field, err.msg);
    return f;
}

} // namespace gmmu
