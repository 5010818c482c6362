// gmmu — page-table walker component: answers translation batches
// (xlate_ext on a TLM_IGNORE_COMMAND payload) by walking the x86-64 page
// tables in memory with real TLM reads on pt_isock (b_transport, or from the
// DMI regions the target grants for timed reads: ptw_params::dmi).
//
// The walker is the TLM wrapper of one walk engine (models/ walk_engine.h),
// which owns the timing of every scheduling kind, the permissions and the A/D
// write-back; the co-simulation harness (stepped PWC and scheduler, RTL
// twins, replay windows, field-by-field diff) is walk_cosim.h.
// Inside the walker (all decisions in C models):
//  * page-walk cache (gmmu_pwc: none, TPC, STC, UPTC, CPWC): looked up before
//    a walk; the walk starts at the deepest table it vouches for; filled after.
//  * page-table-line cache (gmmu_line_cache, optional): a PTE read whose
//    128-byte line is cached costs the hit latency and no memory read.
//  * scheduling (ptw_params::sched.variant):
//      serial   `walkers` independent naive walkers (gmmu_we_serial). Each is
//               busy until its walk ends; a request starts on the earliest
//               free walker at max(request time, free time).
//      tree, pairwise
//               the comparator-tree / pairwise walk scheduler
//               (gmmu_we_batch over the C model's step, its Verilated RTL
//               twin's, or both in lock-step): a batch's misses are walked
//               together, identical references issued once, same-line
//               references back to back. Its sched.mshrs MSHRs are shared
//               by batches: a batch starts once it has min(its walks, mshrs)
//               free ones, and its last walks hold them until they end
//               (gmmu_ws_batch_start / gmmu_ws_batch_hold).
//  * walks in flight: a request for a page whose walk (from an earlier batch)
//    completes later than the request's time waits for that walk instead of
//    starting another (counted as inflight_merges).
// Walk latency is the sum of the latencies its reads met, as the model
// schedules them (or fixed_walk_cycles when set).
// Supported: b_transport, transport_dbg (walks with debug reads, no state or
// timing change). Per-ASID roots (CR3) are set with set_root().
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"
#include "gmmu/components/walk_cosim.h"

extern "C" {
#include "gmmu/line_cache.h"
#include "gmmu/pwc.h"
#include "gmmu/walk_engine.h"
#include "gmmu/walk_merge.h"
#include "gmmu/walk_sched.h"
}

namespace gmmu {

struct ptw_params {
    unsigned walkers = 1;            // serial variant: 1..GMMU_WS_MAX_WALKERS (gmmu_ws_walkers_check)
    unsigned fixed_walk_cycles = 0;  // 0: walk latency = what its reads cost
    bool set_accessed_dirty = false; // write A/D bits back like x86 hardware (every kind)
    gmmu_pwc_config pwc{};           // kind GMMU_PWC_NONE: no page-walk cache
    bool pwc_rtl = false;            // drive the Verilated PWC instead of the C model
    bool pwc_cosim = false;          // step C model and RTL in lock-step, stop on a mismatch
    bool line_cache = false;
    gmmu_line_cache_config lc{};
    gmmu_ws_config sched{};          // variant SERIAL uses the per-walker path
    bool sched_rtl = false;          // drive the Verilated walk scheduler instead of the C model
    bool sched_cosim = false;        // step scheduler C model and RTL in lock-step, stop on a mismatch
    // FST waveform of the Verilated blocks (pwc_rtl/pwc_cosim, sched_rtl/
    // sched_cosim); with both, the scheduler's goes to the same name with
    // ".sched" before the extension. Empty: none.
    std::string rtl_fst;
    // Lock-step co-simulation (pwc_cosim / sched_cosim): a second RTL twin
    // runs this many cycles behind, so a mismatch writes the last
    // mismatch_cycles cycles of the RTL block that mismatched, up to and
    // including the mismatching one, to mismatch_fst (replay_window.h) and
    // the error names the file. 0: no second twin, no file.
    unsigned mismatch_cycles = 64;
    std::string mismatch_fst = "mismatch.fst";
    // Page-table reads by DMI where the target grants it for timed use (its
    // b_transport answers with the DMI hint set): the read's data from the
    // granted region, its latency the region's read latency. A target that
    // must see every timed read (a data cache, a bandwidth-limited memory)
    // leaves the hint clear, and the reads stay on b_transport.
    bool dmi = true;
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
};

class ptw : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<ptw> tsock; // any number of initiators
    tlm_utils::simple_initiator_socket<ptw> pt_isock;

    ptw(sc_core::sc_module_name name, const ptw_params &p);
    ~ptw() override;

    void set_root(uint16_t asid, uint64_t root_pa)
    {
        roots[asid] = root_pa;
        have_last_root = false;
    }
    // Page-table change: drop PWC contents, line cache and in-flight results.
    // The same arrives as an xlate_ext op=invalidate on tsock (sent down by
    // the TLBs on every invalidation of theirs).
    void invalidate_all();
    void invalidate_range(uint64_t va_lo, uint64_t va_hi);
    void invalidate(const xlate_ext::inv_desc &inv);
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<ptw> &stats_table();
    const gmmu_pwc *pwc() const { return pwc_; }
    uint64_t pwc_cosim_cycles() const { return cosim.pwc_cycles(); }
    uint64_t sched_cycles() const { return cosim.st.cycles; }

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    // xlate_ext handlers: translate (timed walks of the batch) and
    // translate_debug (debug walks: no state change, no time).
    void on_translate(xlate_ext &x, sc_core::sc_time &delay);
    void on_translate_debug(xlate_ext &x);
    // The engine's memory (gmmu_we_mem): timed reads and A/D write-backs on pt_isock.
    static gmmu_status eng_read(void *ctx, uint64_t pa, uint64_t at, uint64_t *data, uint32_t *lat);
    static gmmu_status eng_write(void *ctx, uint64_t pa, uint64_t val, uint64_t at, uint64_t *ticks);
    bool tlm_read(uint64_t pa, uint64_t *val, sc_core::sc_time &delay, bool debug);
    // One timed PTE read at absolute time `at` (time-resolution units).
    bool pt_read(uint64_t pa, uint64_t *val, uint32_t *latency_cycles, uint64_t at);
    // Page-table reads by DMI (ptw_params::dmi): regions the target granted,
    // direct-mapped by page; a slot holds one region (lo > hi: empty).
    struct dmi_region {
        uint64_t lo = 1, hi = 0;
        const uint8_t *ptr = nullptr;
        uint32_t read_cycles = 0;
    };
    static constexpr unsigned dmi_slots = 512;
    std::array<dmi_region, dmi_slots> dmi_tab{};
    dmi_region &dmi_slot(uint64_t pa) { return dmi_tab[(pa >> 12) & (dmi_slots - 1)]; }
    const uint8_t *dmi_ptr(uint64_t pa, uint32_t *read_cycles)
    {
        const dmi_region &d = dmi_slot(pa);
        if (pa < d.lo || pa + 7 > d.hi)
            return nullptr;
        *read_cycles = d.read_cycles;
        return d.ptr + (pa - d.lo);
    }
    // Ask the target for a DMI region holding pa (after a b_transport read
    // whose response allowed it).
    void ask_dmi(uint64_t pa);
    void invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi);
    // The walk pipeline: prepare -> walk_serial / walk_batch_scheduled -> complete.
    struct walk_start {
        uint64_t root = 0;       // the request's context root
        unsigned level = 4;      // level the walk starts at (below a PWC hit)
        uint64_t table = 0;      // table it starts in
        unsigned pwc_cycles = 0; // the PWC lookup's latency on a hit
        bool pwc_hit = false;
    };
    // Where r's walk starts; false when r is answered without a walk (no
    // context bound: a fault; merged into a walk of its page in flight).
    bool prepare(xlate_req &r, bool debug, const sc_core::sc_time &t_req, walk_start &s);
    // A walk's end: counters, its timeline span on the track of `walker` (the
    // scheduler's track if negative), the walk recorded for merging and the
    // PWC filled from `full` (when not null).
    void complete(xlate_req &r, const walk_start &s, const gmmu_walk_result *full,
                  const sc_core::sc_time &abs_req, const sc_core::sc_time &start,
                  const sc_core::sc_time &done, int walker);
    // A walk the engine did (or failed): r's answer, then complete().
    void answer(xlate_req &r, const walk_start &s, const gmmu_we_done &d,
                const sc_core::sc_time &abs_req, const sc_core::sc_time &now);
    void walk_serial(xlate_req &r, const sc_core::sc_time &t_req);
    void walk_batch_scheduled(std::vector<xlate_req *> &reqs, const sc_core::sc_time &t_req);
    // A functional walk from the root (debug transport: no traffic, no time).
    void walk_debug(xlate_req &r);
    void finish(xlate_req &r, const gmmu_walk_result &w);

    ptw_params p;
    std::unordered_map<uint16_t, uint64_t> roots;
    gmmu_walk_engine *eng = nullptr; // timing, permissions, A/D of every kind (owned)
    gmmu_we_mem eng_mem{};
    std::vector<gmmu_we_walk> batch_walks; // scratch of a scheduled batch
    std::vector<gmmu_we_done> batch_done;
    gmmu_pwc *pwc_ = nullptr;        // the functional PWC (null when stepped or none)
    walk_cosim cosim;                // stepped PWC and scheduler, RTL twins
    uint64_t pwc_lookups = 0, pwc_hit[5] = {}; // stepped PWC's counters
    bool pwc_stepped() const { return cosim.pwc_stepped(); }
    bool pwc_lookup_any(uint64_t root, uint64_t va, gmmu_pwc_hit &hit);
    void pwc_fill_any(const gmmu_pwc_path &path);
    void complete_path(gmmu_pwc_path &path, uint64_t root);
    void pwc_invalidate_any(bool all, uint64_t lo, uint64_t hi);
    gmmu_line_cache *lc = nullptr; // the PTE line cache (ptw.line_cache), owned
    gmmu_walk_sched *ws = nullptr; // the C model (TREE/PAIRWISE), stepped through cosim
    tlm::tlm_generic_payload pt_gp;

    // Walks that may still be in flight (models/include/gmmu/walk_merge.h
    // decides which request merges into which walk).
    gmmu_walk_merge *wm = nullptr; // walks in flight (gmmu_wm_create), owned
    static constexpr uint32_t inflight_slots = 4096;
    // Serve r from a walk of its page in flight at abs_req; false: walk it.
    bool merge_inflight(xlate_req &r, uint64_t root, const sc_core::sc_time &now,
                        const sc_core::sc_time &abs_req);
    void record_inflight(const xlate_req &r, uint64_t root, const sc_core::sc_time &done);
    // Drop PWC entries, page-table lines and walks in flight that `inv` covers.
    void drop(const xlate_ext::inv_desc &inv);
    // Last (asid, root) pair found in roots.
    uint16_t last_root_asid = 0;
    uint64_t last_root = 0;
    bool have_last_root = false;
    bool find_root(uint16_t asid, uint64_t &root);
    // The request's context root: xlate_req.root, else the root set for its ASID.
    bool root_of(const xlate_req &r, uint64_t &root);
    // Bind the PWC to the context of `root` (flushing it on a switch).
    void pwc_enter(uint64_t root);
    gmmu_pwc_context pwc_ctx{};
    // Fill the PWC from a completed walk's path (root at level 4 for UPTC).
    void pwc_fill_walk(gmmu_pwc_path &path, uint64_t root);
    uint64_t invalidations = 0;
    // Memo of the last memory latency converted to cycles (one division).
    uint64_t lat_memo_value = ~0ull, lat_memo_cycles = 0;

    uint64_t walks = 0, pt_reads = 0, pt_writes = 0, faults = 0, mem_errors = 0, batches = 0,
             line_hits = 0, inflight_merges = 0, pwc_cycles = 0, same_line = 0, dmi_reads = 0,
             dmi_grants = 0, dmi_invalidations = 0;
    uint64_t last_line = ~0ull;
    sc_core::sc_time walk_time_sum, queue_time_sum;
};

} // namespace gmmu
