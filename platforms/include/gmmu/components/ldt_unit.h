// gmmu — PICLE / Valkyrie locality detection unit: the gmmu_ldt C model
// beside a shared L2 TLB, as a TLM component.
//
//  * L1 TLBs (ldt_isock) send op=ldt_update batches: every L1 access sets its
//    CU's bit for the page.
//  * The L2 TLB (ldt_isock) sends op=ldt_evict batches with the translations
//    it evicted: each is looked up and pushed (op=prefetch on push_isock[cu])
//    into the L1 TLBs of the CUs in its bitmap.
//  * Valkyrie probing (optional): an L1 miss batch sent as op=probe is looked
//    up for sharers; peer L1 TLBs are probed without state change
//    (op=probe on push_isock[peer]); hits come back with probe latency.
// push_isock must be bound to the L1 TLBs in CU order (CU i = index i).
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/ldt.h"
}

namespace gmmu {

struct ldt_params {
    gmmu_ldt_config model{};
    unsigned page_shift = 12;    // page granularity of the tracked translations
    bool probe = false;          // Valkyrie: probe peer L1 TLBs before the L2
    unsigned probe_cycles = 10;  // cost of a peer probe
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class ldt_unit : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<ldt_unit> tsock;
    tlm_utils::multi_passthrough_initiator_socket<ldt_unit> push_isock;

    ldt_unit(sc_core::sc_module_name name, const ldt_params &p);
    ~ldt_unit() override;
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<ldt_unit> &stats_table();

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void push(unsigned cu, const xlate_req &r, const sc_core::sc_time &delay);
    // xlate_ext handlers: ldt_update (record CU x.cu's pages), ldt_evict
    // (push evicted translations to the CUs that used them), probe (ask the
    // sharers' L1 TLBs for x.cu's misses; hits written back into x.reqs).
    void on_update(const xlate_ext &x);
    void on_evict(const xlate_ext &x, const sc_core::sc_time &delay);
    void on_probe(xlate_ext &x, sc_core::sc_time &delay);

    ldt_params p;
    gmmu_ldt *ldt = nullptr; // the model (gmmu_ldt_create), owned
    tlm::tlm_generic_payload out_gp;
    xlate_ext out_ext;
    uint64_t pushes_sent = 0, probes = 0, probe_hits = 0, peers_probed = 0;
};

} // namespace gmmu
