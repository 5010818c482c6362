// gmmu — SM initiator: one SC_THREAD per SM that issues warp memory
// instructions from a warp source (components/warp_source.h: the GPU
// platform's workloads, or any source of another platform). It keeps a ready
// time per warp, issues for the warp gmmu_warp_pick_earliest chooses
// (models/include/gmmu/warp_sched.h; issue_width per cycle, non-memory work
// and fault replay as models/include/gmmu/sm_simple.h decides), stamps the
// access with its issue time (the b_transport delay is the offset from the
// SM's local time), and sets the warp's next ready time from the latency
// the access returns. Temporal decoupling through tlm_utils::tlm_quantumkeeper.
//
// Sockets: `isock` (simple_initiator_socket, also socket()) sends one
// generic payload per warp instruction, TLM_READ/WRITE_COMMAND, address =
// lane 0's VA, no data pointer, a warp_ext (components/extensions.h) with
// the SM, warp, ASID, lanes, active mask, lane VAs and store data; the
// target (an L1 TLB, or a memory when sm_params::bypass sets PA = VA) fills
// the lane PAs and load data in the extension. A response other than
// TLM_OK_RESPONSE ends the SM with error_message() naming the fault
// (warp_ext.fault, fault_va), unless sm_params::page_in_flight says the page
// is being migrated: then the warp replays the access after retry_cycles.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"
#include "gmmu/components/warp_source.h"

namespace gmmu {

struct sm_params {
    unsigned id = 0;
    unsigned warps = 32;
    unsigned issue_width = 1;
    uint16_t asid = 0;
    bool bypass = false; // no MMU: PA = VA
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
    // A not-present fault on a page this says is being migrated (asid, VA)
    // is not an error: the warp stalls retry_cycles and replays the access,
    // as on a GPU with replayable faults. Empty: every fault fails the run.
    std::function<bool(uint16_t asid, uint64_t va)> page_in_flight;
    unsigned retry_cycles = 64;
    // false: a warp's non-memory cycles (warp_op::compute_cycles) delay only
    // that warp, so every warp of the SM computes at once. true: they occupy
    // the SM's one issue pipeline; when the warp is next picked, the SM
    // spends them before it issues the warp's memory instruction, and no
    // other warp issues meanwhile (sm.compute_on_pipeline).
    bool compute_on_pipeline = false;
    // Warp accesses carry no data (warp_ext::timing_only): the memory moves
    // none and loads are not checked; translation, timing and every other
    // statistic are the run's with data (sm.timing_only).
    bool timing_only = false;
};

// What the platform needs of an SM model: one initiator socket towards its
// L1 TLB (or memory when bypassed) and its outcome. `sm` below is the
// memory-instruction SM; other SM models (e.g. the issue/commit model of the
// operand-log work) register a factory with register_sm_model().
class sm_base : public sc_core::sc_module, public stats_provider {
  public:
    using sc_core::sc_module::sc_module;
    virtual tlm::tlm_initiator_socket<> &socket() = 0;
    virtual bool finished() const = 0;
    virtual bool failed() const = 0;
    virtual const std::string &error_message() const = 0;
    virtual uint64_t accesses() const = 0; // warp memory instructions completed
};

class sm : public sm_base {
  public:
    tlm_utils::simple_initiator_socket<sm> isock;

    SC_HAS_PROCESS(sm);
    sm(sc_core::sc_module_name name, const sm_params &p, warp_source &wl, data_checker &chk);
    ~sm() override;

    tlm::tlm_initiator_socket<> &socket() override { return isock; }
    bool finished() const override { return done; }
    bool failed() const override { return !error.empty(); }
    const std::string &error_message() const override { return error; }
    uint64_t accesses() const override { return warp_accesses; }
    sc_core::sc_time finish_time() const { return end_time; }
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<sm> &stats_table();

  private:
    void run();

    sm_params p;
    warp_source &wl;
    data_checker &chk;
    tlm::tlm_generic_payload gp;
    warp_ext ext;
    bool done = false;
    std::string error;
    sc_core::sc_time end_time;
    uint64_t warp_accesses = 0, loads = 0, stores = 0, lanes = 0, idle_cycles = 0,
             fault_replays = 0, pipeline_compute_cycles = 0;
    sc_core::sc_time latency_sum;
};

} // namespace gmmu
