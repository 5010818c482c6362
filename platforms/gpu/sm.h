// gmmu — SM initiator: one SC_THREAD per SM that issues warp memory
// instructions from a workload. It keeps a ready time per warp, issues for
// the earliest-ready warp (issue_width per cycle), stamps the access with its
// issue time (the b_transport delay is the offset from the SM's local time),
// and sets the warp's next ready time from the latency the access returns.
// Temporal decoupling through tlm_utils::tlm_quantumkeeper.
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "components/extensions.h"
#include "components/stats.h"
#include "gpu/workload.h"

namespace gmmu {

struct sm_params {
    unsigned id = 0;
    unsigned warps = 32;
    unsigned issue_width = 1;
    uint16_t asid = 0;
    bool bypass = false; // no MMU: PA = VA
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class sm : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::simple_initiator_socket<sm> isock;

    SC_HAS_PROCESS(sm);
    sm(sc_core::sc_module_name name, const sm_params &p, workload &wl, data_checker &chk);
    ~sm() override;

    bool finished() const { return done; }
    bool failed() const { return !error.empty(); }
    const std::string &error_message() const { return error; }
    uint64_t accesses() const { return warp_accesses; }
    sc_core::sc_time finish_time() const { return end_time; }
    void dump_stats(nlohmann::json &j) const override;

  private:
    void run();

    sm_params p;
    workload &wl;
    data_checker &chk;
    tlm::tlm_generic_payload gp;
    warp_ext ext;
    bool done = false;
    std::string error;
    sc_core::sc_time end_time;
    uint64_t warp_accesses = 0, loads = 0, stores = 0, lanes = 0, idle_cycles = 0;
    sc_core::sc_time latency_sum;
};

} // namespace gmmu
