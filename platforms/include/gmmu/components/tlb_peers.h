// gmmu — the PICLE / Valkyrie side band of one TLB (components/tlb.h).
//
// A TLB with an LDT unit bound (components/ldt_unit.h) tells it what it
// does and asks it for peers' translations; this class is that link, kept
// out of the translation core. The TLB calls three hooks:
//   note_access     L1: the pages of every data-path access (ldt_update);
//   note_evictions  shared level: the entries a fill evicted (ldt_evict);
//   fill_from_peers L1: Valkyrie — ask the peer L1s for this batch's misses
//                   before the next level; answers they hold are filled here;
// and hands it the two xlate_ext commands the LDT unit sends to a TLB:
//   on_prefetch     PICLE pushes (prefetch fills);
//   on_probe        peers' probes (answered from the model without changing it).
// With no LDT unit bound, bound() is false and the TLB calls no hook (and no
// LDT unit sends it a command). The decisions (what a
// push installs, which probe answer may be filled) are the TLB model's
// (gmmu_tlb_fill_plan, gmmu_tlb_needs_walk); this class moves the traffic.
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

#include "gmmu/components/extensions.h"

extern "C" {
#include "gmmu/tlb.h"
}

namespace gmmu {

class tlb_peer_link {
  public:
    using port = sc_core::sc_port_b<tlm::tlm_fw_transport_if<>>;
    // sock: the TLB's optional LDT initiator socket; t: its model (filled by
    // pushes and probe answers); cu: the compute unit this TLB serves.
    tlb_peer_link(port &sock, gmmu_tlb *t, unsigned page_shift, unsigned cu);
    ~tlb_peer_link();
    tlb_peer_link(const tlb_peer_link &) = delete;
    tlb_peer_link &operator=(const tlb_peer_link &) = delete;

    bool bound() const { return sock.size() > 0; }

    void note_access(const std::vector<xlate_req> &pages, sc_core::sc_time delay);
    void note_evictions(const gmmu_tlb_fill_out &out, sc_core::sc_time delay);
    // Valkyrie, L1 only. misses[k] is the request of reqs[idx[k]]; a miss a
    // peer answers with a usable translation is filled into the model and
    // written back to its reqs entry (level_hit 1), and dropped from misses
    // and idx. done grows to the latest answer. Returns how many misses remain.
    size_t fill_from_peers(std::vector<xlate_req> &reqs, std::vector<size_t> &idx,
                           std::vector<xlate_req> &misses, sc_core::sc_time at,
                           sc_core::sc_time &done);
    void on_prefetch(xlate_ext &x);
    void on_probe(xlate_ext &x);

    uint64_t prefetches_received = 0, probes_answered = 0, probe_fills = 0;

  private:
    void send(xlate_ext::op_kind op, sc_core::sc_time &delay);
    port &sock;
    gmmu_tlb *t;
    unsigned shift;
    unsigned cu;
    tlm::tlm_generic_payload gp;
    xlate_ext ext;
};

} // namespace gmmu
