// gmmu — SMMU-style front end: puts a TLB hierarchy and walker (gmmu::tlb,
// gmmu::ptw) behind the programming interface of an Arm SMMUv3 subset, for
// SoC virtual platforms whose devices issue plain TLM payloads.
//
//   devices --tsock--> [smmu] --isock--> tlb (L1) --> ... --> ptw
//                        |  \--bypass_isock--> memory (STE Config = bypass)
//                        |--mem_isock--> memory (stream table, CDs, queues, MSI)
//                        |--inv_isock--> further TLBs that invalidations reach
//   software --reg_tsock--> registers (SMMUv3 offsets; docs/smmu.md)
//   evtq_irq, gerror_irq: level-high interrupt outputs (optional)
//
// Per transaction: the stream (ctx_ext::stream_id / substream_id, else the
// port's default stream, set_port_stream) selects an STE in the stream
// table, the STE a context descriptor (ASID, table root); the payload goes
// to the TLB with the resolved context in a ctx_ext. A fault (bad stream,
// bad STE/CD, table fetch error, translation, permission, PTE read error)
// writes an event record to the event queue in memory, raises evtq_irq and
// completes the transaction with the response gmmu_smmu_response_of gives.
// Commands (configuration and TLB invalidation, CMD_SYNC) are read from the
// command queue in memory by a thread, one every cmd_cycles, and reach the
// TLB behind isock (which forwards them to every level below it and the
// walker: PWC, line cache, walks in flight) and every TLB on inv_isock.
//
// Decisions (register semantics, formats, fault mapping) are the C model's
// (models/include/gmmu/smmu.h). Supported: b_transport, transport_dbg
// (translated without events or state change; registers readable). DMI is
// not offered through the SMMU (every access is checked).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/smmu.h"
}

namespace gmmu {

struct smmu_params {
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
    unsigned cmd_cycles = 16;     // cycles to execute one command (after its read)
    unsigned lookup_cycles = 1;   // configuration-cache lookup of a transaction
    unsigned config_entries = 64; // cached stream contexts (STE + CD); 0: fetch every time
    unsigned reg_cycles = 1;      // register access latency
};

class smmu : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<smmu, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        tsock; // devices (plain payloads, VA); unbound in a command-queue-only use
    tlm_utils::simple_initiator_socket<smmu> isock;         // the TLB that translates them
    tlm_utils::simple_initiator_socket_optional<smmu> bypass_isock; // untranslated (bypass STEs)
    tlm_utils::simple_initiator_socket<smmu> mem_isock;     // tables, queues, MSI writes
    tlm_utils::multi_passthrough_initiator_socket<smmu, 32, tlm::tlm_base_protocol_types, 0,
                                                  sc_core::SC_ZERO_OR_MORE_BOUND>
        inv_isock;                                          // further TLBs invalidations reach
    tlm_utils::simple_target_socket<smmu> reg_tsock;        // registers
    sc_core::sc_port<sc_core::sc_signal_inout_if<bool>, 1, sc_core::SC_ZERO_OR_MORE_BOUND>
        evtq_irq, gerror_irq;

    smmu(sc_core::sc_module_name name, const smmu_params &p = smmu_params());

    // StreamID of traffic on tsock port `port` that carries no ctx_ext
    // (default: the port index).
    void set_port_stream(unsigned port, uint32_t stream_id);
    // Observer of every event the SMMU raises (also those it could not queue).
    std::function<void(const gmmu_smmu_event &)> on_event;

    const gmmu_smmu_regs &regs() const { return r; }
    void dump_stats(nlohmann::json &j) const override;
    static const stat_table<smmu> &stats_table();

  private:
    using context = gmmu_smmu_context; // gmmu_smmu_resolve's answer
    static bool read2(void *ctx, uint64_t pa, uint64_t dw[2]); // its descriptor reads
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi);
    void reg_b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned reg_transport_dbg(tlm::tlm_generic_payload &gp);
    void invalidate_dmi_from_below(sc_dt::uint64 lo, sc_dt::uint64 hi);
    // Resolve a stream's context (config cache, else STE and CD reads).
    context resolve(uint32_t sid, bool ssv, uint32_t ssid, sc_core::sc_time &delay, bool debug);
    bool mem_read(uint64_t pa, uint64_t *dw, unsigned n, sc_core::sc_time &delay, bool debug);
    bool mem_write(uint64_t pa, const void *data, unsigned len, sc_core::sc_time &delay);
    void raise(const gmmu_smmu_event &e);
    void update_irq();
    void drive_irq();
    sc_core::sc_event irq_ev;
    void cmdq_thread();
    void execute(const gmmu_smmu_cmd &c, sc_core::sc_time &delay);
    void send_invalidate(const xlate_ext::inv_desc &inv, sc_core::sc_time &delay);
    void config_drop(bool all, uint32_t sid, bool cd_only, uint32_t ssid);

    smmu_params p;
    gmmu_smmu_regs r{};
    sc_core::sc_event cmdq_ev;
    std::vector<uint32_t> port_sid;
    // The configuration cache (gmmu_smmu_ccache: FIFO replacement).
    std::unique_ptr<gmmu_smmu_ccache, void (*)(gmmu_smmu_ccache *)> ccache{
        nullptr, &gmmu_smmu_ccache_destroy};
    bool irq_evtq_state = false, irq_gerror_state = false;

    uint64_t transactions = 0, translated = 0, bypassed = 0, aborted = 0, faults = 0,
             events = 0, events_lost_overflow = 0, events_lost_disabled = 0,
             events_lost_abort = 0, config_hits = 0, config_fetches = 0, commands = 0,
             command_errors = 0, invalidations = 0, syncs = 0, reg_accesses = 0;
};

} // namespace gmmu
