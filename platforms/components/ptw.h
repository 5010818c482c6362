// gmmu — page-table walker component: answers translation batches
// (xlate_ext on a TLM_IGNORE_COMMAND payload) by walking the x86-64 page
// tables in memory with real TLM reads on pt_isock.
//
// Timing: `walkers` independent walkers, each busy until its current walk
// completes (absolute time). A request starts on the earliest-free walker at
// max(request time, walker free time); its walk latency is the sum of the
// delays its page-table reads met (or fixed_walk_cycles when set).
// Supported: b_transport, transport_dbg (walks with debug reads, no state or
// timing change). Per-ASID roots (CR3) are set with set_root().
#pragma once

#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "components/extensions.h"
#include "components/stats.h"

namespace gmmu {

struct ptw_params {
    unsigned walkers = 1;
    unsigned fixed_walk_cycles = 0; // 0: walk latency = sum of read latencies
    bool set_accessed_dirty = false; // write A/D bits back like x86 hardware
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class ptw : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<ptw> tsock; // any number of initiators
    tlm_utils::simple_initiator_socket<ptw> pt_isock;

    ptw(sc_core::sc_module_name name, const ptw_params &p);

    void set_root(uint16_t asid, uint64_t root_pa) { roots[asid] = root_pa; }
    void dump_stats(nlohmann::json &j) const override;

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    static gmmu_status read_cb(void *ctx, uint64_t pa, uint64_t *val);
    static gmmu_status write_cb(void *ctx, uint64_t pa, uint64_t val);
    void walk_one(xlate_req &r, bool debug, const sc_core::sc_time &t_req);

    ptw_params p;
    std::unordered_map<uint16_t, uint64_t> roots;
    std::vector<sc_core::sc_time> free_at; // absolute time each walker frees up
    tlm::tlm_generic_payload pt_gp;
    sc_core::sc_time walk_delay;  // accumulates during one walk
    bool debug_walk = false;
    bool mem_error = false;

    uint64_t walks = 0, pt_reads = 0, pt_writes = 0, faults = 0, mem_errors = 0;
    uint64_t batches = 0;
    sc_core::sc_time walk_time_sum, queue_time_sum;
};

} // namespace gmmu
