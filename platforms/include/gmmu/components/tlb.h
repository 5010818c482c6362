// gmmu — TLB component: wraps the gmmu_tlb C model as a TLM-2.0 LT target.
//
// One class serves every level:
//  * data path (L1 role): a READ/WRITE payload arrives on tsock with VAs — a
//    warp payload (warp_ext) or a plain payload. A warp's lanes are coalesced
//    into pages, looked up (ports per cycle), misses go as one batch
//    (xlate_ext) to miss_isock, lane PAs are filled in and the payload is
//    forwarded on isock (to memory or a bus) with the annotated delay. A
//    plain payload may span up to 32 TLB pages: it is forwarded with its
//    address swapped to the PA (restored on return) when the frames are
//    contiguous, else one piece per page. Its context is ASID 0 unless it
//    carries a resolved ctx_ext (gmmu::smmu).
//  * translation path (L2/L3 role): a TLM_IGNORE_COMMAND payload carrying
//    xlate_ext is answered from the model; misses go down miss_isock.
// Supported: b_transport, transport_dbg (translates without changing any
// state: its own path, translate_dbg / debug_access), DMI (the translation's
// whole page, large pages too; VA-addressed, read-only for read-only pages),
// DMI invalidation upstream on every TLB invalidation and on downstream
// invalidation.
//
// The code is in four files: tlb.cpp (entry points, invalidation, DMI,
// statistics), tlb_translate.cpp (the translation core: lookup, misses
// down, fill; the MSHR timing path), tlb_front.cpp (the L1 data path:
// coalesce, translate, rewrite lanes, forward) and tlb_peers.cpp (the
// PICLE/Valkyrie side band, behind four hooks).
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"
#include "gmmu/components/tlb_peers.h"

extern "C" {
#include "gmmu/coalescer.h"
#include "gmmu/tlb.h"
#include "gmmu/tcws_owners.h"
#include "gmmu/tlb_mshr.h"
#include "gmmu/xlate_timing.h"
}

namespace gmmu {

struct tlb_params {
    gmmu_tlb_config model{};      // entries, ways, page_shift, replacement, lookup_cycles
    unsigned ports = 32;          // lookups per cycle (data path)
    unsigned level = 1;           // 1 = L1, 2 = L2, ... (reported in xlate results)
    unsigned cu = 0;              // L1: this TLB's CU index for PICLE/Valkyrie
    // L1 data path: MSHR timing model (gmmu_tlb_access_batch); mshr.mshrs = 0
    // keeps the simple timing (lookup_cycles + one cycle per `ports` lookups).
    gmmu_tlb_mshr_config mshr{};
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
    // L1 data path: the lanes of each page of a warp go on as soon as that
    // page is translated (gmmu_warp_dispatch_times), not with the last one.
    bool overlap_cache_access = false;
    // TCWS (L1 data path): remember which warp's miss filled each entry and
    // report, per warp access, evicted entries with that owner and the LRU
    // depth of hits (sched_sideband_ext::tlb_*). Off: no bookkeeping.
    bool track_owners = false;
    // L1 data path of an SM whose warp scheduler reads the TLB's sideband
    // (CCWS, TA-CCWS, TCWS, TLB-aware compaction: gmmu_sm_needs_sideband):
    // fill the access's sched_sideband_ext. Off: the payload is never asked
    // for one, which saves a call into the SystemC library per warp access.
    bool sched_sideband = false;
    // L1 data path: a one-page warp access that hits is served by one model
    // call (gmmu_tlb_serve_hit) when nothing else watches the access (no
    // MSHR model, no PICLE peers, no timeline). Off: the request batch for
    // every access. Results are identical either way.
    bool hit_fast_path = true;
    // Access-time model of model.lookup_cycles (gmmu_tlb_access_cycles),
    // applied by tlb_params_from; kept for the record.
    unsigned latency_model = 0, latency_step_cycles = 1, base_lookup_cycles = 1;
};

class tlb : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<tlb> tsock; // any number of initiators                // VAs / translation requests in
    tlm_utils::simple_initiator_socket_optional<tlb> isock;    // translated data out (L1 role)
    tlm_utils::simple_initiator_socket<tlb> miss_isock;        // misses to the next level
    tlm_utils::simple_initiator_socket_optional<tlb> ldt_isock; // PICLE side band (optional)
    // Shootdown register block (optional; 64-bit registers, little-endian):
    //   0x00 W  invalidate all            0x08 W  invalidate ASID (value = asid)
    //   0x10 RW range start VA            0x18 RW range end VA (inclusive)
    //   0x20 W  invalidate [start, end] of ASID (value = asid)
    //   0x28 R  invalidation generation (count of invalidations performed)
    tlm_utils::multi_passthrough_target_socket<tlb, 32, tlm::tlm_base_protocol_types, 0,
                                               sc_core::SC_ZERO_OR_MORE_BOUND>
        shootdown_tsock;
    void invalidate_asid(uint16_t asid);
    void invalidate_range(uint16_t asid, uint64_t va_lo, uint64_t va_hi);

    tlb(sc_core::sc_module_name name, const tlb_params &p);
    ~tlb() override;

    // Invalidation (also invalidates DMI granted upstream).
    void invalidate_all();
    void invalidate_page(uint16_t asid, uint64_t va);

    // Observer of every data-path translation (lane VA -> PA); for checkers.
    std::function<void(uint16_t asid, uint64_t va, uint64_t pa, bool write)> on_translate;

    const gmmu_tlb *model() const { return t; }
    // One-page warp accesses served by the hit fast path (hit_fast_path):
    // a diagnostic, not a statistic, since the statistics must come out the
    // same with the fast path on and off.
    uint64_t fast_path_served() const { return fast_served; }
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<tlb> &stats_table();

  private:
    // ---- Entry points (tlb.cpp) ----
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi);
    void invalidate_from_below(sc_dt::uint64 lo, sc_dt::uint64 hi);
    void shootdown(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void revoke_dmi(uint64_t lo, uint64_t hi);
    // Drop what inv covers here (entries, DMI granted upstream), then send it
    // down miss_isock: every level below and the walker (PWC, line cache,
    // walks in flight) drop it too.
    void invalidate(const xlate_ext::inv_desc &inv);
    // xlate_ext translate: translate the batch (timed) and trace it.
    void translate_batch(xlate_ext &x, sc_core::sc_time &delay);
    uint64_t invalidations_forwarded = 0;
    uint64_t sd_lo = 0, sd_hi = 0, shootdowns = 0;

    // ---- Translation core (tlb_translate.cpp): lookup, misses down, fill ----
    // Translate reqs in place (timed); returns the batch's completion delay.
    sc_core::sc_time translate(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay);
    // The same answers without changing any state anywhere (no fill, no LRU
    // update, no statistics, no time): debug transport down the hierarchy.
    void translate_dbg(std::vector<xlate_req> &reqs);
    // The L1 data path's choice: the MSHR timing model or the simple one.
    sc_core::sc_time translate_pages(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay);
    // Steps of translate: answer the hits from the model (misses collected
    // into miss_ext.reqs / miss_idx), send the misses down, take the answers.
    sc_core::sc_time look_up(std::vector<xlate_req> &reqs, const sc_core::sc_time &t_lookup,
                             bool debug);
    // When a hit's translation is usable: t_lookup, or later when its entry's
    // fill (ready, absolute time-resolution units) is still on its way.
    sc_core::sc_time hit_ready(uint64_t ready, const sc_core::sc_time &t_lookup);
    sc_core::sc_time take_answers(std::vector<xlate_req> &reqs, uint64_t gen,
                                  const sc_core::sc_time &t_lookup, sc_core::sc_time done);
    void fill_answer(const xlate_req &r, const xlate_req &m, uint64_t gen,
                     const sc_core::sc_time &t_lookup);
    sc_core::sc_time translate_mshr(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay);
    static gmmu_status mshr_miss_cb(void *ctx, uint16_t asid, uint64_t vpn, uint64_t issue,
                                    uint32_t *latency);
    void fill_from(const xlate_req &m);
    // The request sent to the next level for r's page: same context.
    static xlate_req miss_of(const xlate_req &r)
    {
        xlate_req m;
        m.va = r.va;
        m.asid = r.asid;
        m.write = r.write;
        m.priv = r.priv;
        m.root = r.root;
        return m;
    }
    // A span on the run's timeline (components/timeline.h), when one is active.
    void trace_batch(const std::vector<xlate_req> &reqs, const sc_core::sc_time &begin,
                     const sc_core::sc_time &end) const;
    xlate_req batch_ctx; // context of the batch in translate_mshr
    bool use_mshr = false;
    gmmu_tlb_mshr *mshr = nullptr; // the MSHR model (l1_tlb.mshrs > 0), owned
    std::vector<gmmu_tlb_access> acc;
    std::vector<xlate_req> resolved; // answers of this batch's misses, by page
    uint64_t batch_now = 0, batch_gen = 0;
    uint64_t batch_ask = 0; // cycle the batch's misses are asked for (its first MSHR allocation)
    // The last warp access's instruction (warp_ext::send) and SM, and the
    // accesses that continued the one before them as the same instruction.
    uint64_t last_send = 0, continued_batches = 0;
    uint32_t last_send_sm = 0;
    std::vector<size_t> miss_idx; // reqs index of each miss_ext.reqs entry
    cycles_time_memo lookup_time; // lookup latency of a batch
    tlm::tlm_generic_payload miss_gp;
    xlate_ext miss_ext;
    gmmu_tlb_fill_out fill_out;

    // ---- L1 front end (tlb_front.cpp): coalesce, translate, rewrite, forward ----
    // The pages one data-path payload touches, and who asks.
    struct page_set {
        gmmu_coalesced c;
        warp_ext *w = nullptr;  // a warp payload
        sched_sideband_ext *sb = nullptr; // L1, a warp payload whose SM's scheduler asks for it
        ctx_ext *cx = nullptr;  // a plain payload's resolved context (gmmu::smmu)
        uint64_t va = 0;        // a plain payload's address
        uint16_t asid = 0;
        bool write = false;
    };
    void data_access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    void debug_access(tlm::tlm_generic_payload &gp);
    bool gather_pages(tlm::tlm_generic_payload &gp, page_set &s);
    void make_requests(const page_set &s);
    const xlate_req *report_outcome(page_set &s);
    void rewrite_lanes(const page_set &s);
    static void note_sideband(sched_sideband_ext &sb, bool l1_hit, uint32_t hit_depth);
    static void rewrite_one_frame(warp_ext &w, uint64_t frame, uint64_t page_mask);
    // The hit fast path (tlb_params::hit_fast_path): a one-page warp access
    // the model serves with gmmu_tlb_serve_hit. False: nothing changed, take
    // the request batch.
    bool serve_one_page(tlm::tlm_generic_payload &gp, page_set &s, sc_core::sc_time &delay);
    void observe(const page_set &s);
    void forward_warp(tlm::tlm_generic_payload &gp, page_set &s, sc_core::sc_time &delay,
                      const sc_core::sc_time &t_done);
    void forward_plain(tlm::tlm_generic_payload &gp, const page_set &s, sc_core::sc_time &delay);
    bool contiguous(const page_set &s) const;
    // A plain access over TLB pages in separate frames: one piece per page,
    // in address order, each sent by send(piece) -> bool (false: stop).
    template <class Send> void for_each_piece(tlm::tlm_generic_payload &gp, Send send);
    // A warp whose pages are translated at different times, with
    // overlap_cache_access: each page's lanes are forwarded at its own time.
    void forward_by_page(tlm::tlm_generic_payload &gp, warp_ext &w, const gmmu_coalesced &c,
                         const sc_core::sc_time &in, sc_core::sc_time &delay);
    std::vector<uint64_t> page_ready, page_at;
    std::vector<uint32_t> page_order;
    std::vector<xlate_req> page_reqs;
    // TCWS: who brought each L1 entry in (gmmu/tcws_owners.h; owned, with
    // track_owners), and the access being translated now with its
    // scheduler sideband (null: nobody reads the victim).
    void note_owners(const xlate_req &filled, unsigned shift);
    gmmu_tcws_owners *owners = nullptr;
    warp_ext *cur_warp = nullptr;
    sched_sideband_ext *cur_sb = nullptr;

    tlb_params p;
    gmmu_tlb *t; // the model (gmmu_tlb_create), owned
    uint64_t page_mask;
    // PICLE / Valkyrie (tlb_peers.h): the hooks to the LDT unit.
    tlb_peer_link peers;
    bool dmi_granted = false;

    uint64_t warp_accesses = 0, lanes = 0, page_divergence_sum = 0, faults = 0,
             uncacheable = 0, batches_down = 0, dmi_grants = 0, dmi_invalidations = 0,
             perm_upgrades = 0, hits_under_fill = 0, overlapped_warps = 0;
    uint64_t fast_served = 0;
};

} // namespace gmmu
