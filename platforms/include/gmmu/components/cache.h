// gmmu — data cache: a TLM-2.0 LT interconnect component between a data
// initiator (an L1 TLB's data side, an SM, another cache) and the next level
// (a cache or the memory), timed by the gmmu_cache C model.
//
// The cache holds tags, not data: data stays in the memory component and is
// moved functionally. A read hit (or a write this cache absorbs) costs the
// hit latency and reaches the next level through transport_dbg only, so it
// books no time or bandwidth there; a read miss costs the hit latency plus
// the next level's b_transport, and later hits on the line wait for that
// fill. A write-through (no-allocate) cache posts writes: the writer waits
// for this cache only, the next level books the write. A write-allocate cache
// absorbs writes (no fetch: GPU L2s keep per-sector valid bits) and sends a
// timing-only write-back of a dirty victim to the next level.
//
// Payloads: warp payloads (every active lane's line at warp_ext::pa) and
// plain payloads (the lines of [address, address + length)). DMI requests and
// invalidations pass through (DMI users bypass the cache's timing, as they
// bypass every b_transport). warp_ext::data_delay is set to the time the
// access spent from this cache on.
//
// A virtually indexed, physically tagged cache (cfg.vipt) hides
// gmmu_cache_index_overlap(cfg, warp_ext::xlate_time) of its hit time: the
// set was selected while the TLB looked up.
//
// pte_tsock takes a page-table walker's reads (ptw.via): the same cache,
// with their hits and misses also counted apart (pte_* statistics).
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/cache.h"
}

namespace gmmu {

class data_cache : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<data_cache> tsock;
    tlm_utils::simple_initiator_socket<data_cache> isock;
    tlm_utils::multi_passthrough_target_socket<data_cache, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        pte_tsock;

    // cfg is validated: a bad field raises an error report naming it.
    data_cache(sc_core::sc_module_name name, const gmmu_cache_config &cfg, sc_core::sc_time clock);
    ~data_cache() override;

    const gmmu_cache &model() const { return *c; }
    // The first cache on a warp's path (an SM's L1): it reports its misses
    // and victims in the access's sched_sideband_ext (l1_miss, l1_victim*),
    // when its SM attached one, for warp scheduling.
    bool reports_to_warp = false;
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<data_cache> &stats_table();

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void pte_b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay, bool pte);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi);
    void invalidate_from_below(sc_dt::uint64 lo, sc_dt::uint64 hi);
    void write_back(uint64_t addr, const sc_core::sc_time &delay);
    uint64_t cycle_at(const sc_core::sc_time &delay) const;

    gmmu_cache *c = nullptr; // the model (gmmu_cache_create), owned
    sc_core::sc_time clock;
    std::vector<uint64_t> lines, missed; // scratch: lines of one access
    tlm::tlm_generic_payload wb_gp;
    warp_ext wb_ext;
    uint64_t accesses = 0, forwarded = 0, posted_writes = 0;
    uint64_t pte_accesses = 0, pte_read_hits = 0, pte_read_misses = 0, vipt_hidden_cycles = 0;
};

} // namespace gmmu
