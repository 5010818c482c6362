// gmmu — page-fault handler component: resolves not-present GPU faults by the
// CPU path (interrupt, handler, transfer over NVLink or PCIe) or, for
// first-touch faults, by a GPU-local handler. Costs, the pending-fault queue,
// 64 KiB fault regions, merging and server occupancy are decided by the
// gmmu_fault_handler C model (models/include/gmmu/fault_handler.h).
//
// TLM interface: tsock receives fault reports — a TLM_IGNORE_COMMAND payload
// carrying fault_ext, sent by an SM at the time of the fault (the b_transport
// delay is the offset from the SM's local time). The answer fills fault_ext:
// the cycle the region becomes present and the fault's position in the
// pending-fault queue; or `resolved` when the region's resolution time has
// already passed (LT skew: the SM may retry at once).
//
// Resolution: at the region's ready time (an SC_METHOD woken for the earliest
// pending one; or earlier in wall-clock order, lazily, when an SM reaches that
// time first) the handler calls its pager — the OS side — which maps the
// region with real PTEs and copies CPU-resident data into GPU memory. A
// not-present PTE is never cached (TLBs fill only successful translations;
// the walker records only successful walks in its in-flight table and fills
// its page-walk cache only after a successful walk), so a not-present ->
// present change needs no shootdown; the optional on_resolved hook lets a
// platform invalidate anyway.
//
// Supported: b_transport (fault reports). No DMI, no debug transport.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/fault_handler.h"
}

namespace gmmu {

// One fault report (attached to a TLM_IGNORE_COMMAND payload).
struct fault_ext : tlm::tlm_extension<fault_ext> {
    uint64_t va = 0;
    uint16_t asid = 0;
    uint32_t sm = 0;
    // results
    bool resolved = false;      // the region is present now: retry at once
    uint64_t ready_cycle = 0;   // absolute cycle the region becomes present
    uint32_t queue_pos = 0;     // pending faults resolving before this one
    bool merged = false, local = false;
    tlm::tlm_extension_base *clone() const override { return new fault_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const fault_ext &>(o);
    }
};

// The OS side of demand paging (implemented by the workload / driver model).
class pager {
  public:
    virtual ~pager();
    // Is va demand-paged? Then *kind: MIGRATE if its data lives in CPU
    // memory, FIRST_TOUCH if nothing has to be copied.
    virtual bool classify(uint64_t va, gmmu_fault_kind *kind) = 0;
    // Make [va, va + bytes) present: write the PTEs and copy CPU-resident
    // data into the new frames. Throws std::runtime_error on failure.
    virtual void make_present(uint64_t va, uint64_t bytes) = 0;
};

struct fault_handler_params {
    gmmu_fault_handler_config model{}; // costs, granularity, servers, local handling
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class fault_handler : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<fault_handler> tsock; // fault reports in

    SC_HAS_PROCESS(fault_handler);
    fault_handler(sc_core::sc_module_name name, const fault_handler_params &p, pager &pg);
    ~fault_handler() override;

    // Called after each region is made present (e.g. TLB/walker invalidation).
    std::function<void(uint64_t lo, uint64_t hi)> on_resolved;

    // Regions resolved so far (made present).
    uint64_t regions_resolved() const { return resolved; }
    const gmmu_fault_handler &model() const { return *fh; }
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<fault_handler> &stats_table();

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void apply_due();                 // SC_METHOD: resolve regions whose time has come
    void resolve(uint64_t region);    // pager + hook
    uint64_t cycle_of(const sc_core::sc_time &t) const { return t.value() / p.clock.value(); }

    fault_handler_params p;
    pager &pg;
    gmmu_fault_handler *fh = nullptr; // the model (gmmu_fault_handler_create), owned
    unsigned shift;
    sc_core::sc_event wake;
    // Regions with a resolution scheduled (region -> ready cycle) and not yet applied.
    std::unordered_map<uint64_t, uint64_t> scheduled;
    using due_t = std::pair<uint64_t, uint64_t>; // (ready cycle, region)
    std::priority_queue<due_t, std::vector<due_t>, std::greater<due_t>> due;

    uint64_t reports = 0, resolved = 0, lazy_resolves = 0, late_reports = 0, migrate_regions = 0,
             first_touch_regions = 0, not_paged = 0;
};

} // namespace gmmu
