// gmmu — page-table walker component: answers translation batches
// (xlate_ext on a TLM_IGNORE_COMMAND payload) by walking the x86-64 page
// tables in memory with real TLM reads on pt_isock.
//
// Inside the walker (all decisions in C models):
//  * page-walk cache (gmmu_pwc: none, TPC, STC, UPTC, CPWC): looked up before
//    a walk; the walk starts at the deepest table it vouches for; filled after.
//  * page-table-line cache (gmmu_line_cache, optional): a PTE read whose
//    128-byte line is cached costs the hit latency and no memory read.
//  * scheduling (ptw_params::sched.variant):
//      serial   `walkers` independent naive walkers (gmmu_walk_from). Each is
//               busy until its walk ends; a request starts on the earliest
//               free walker at max(request time, free time).
//      tree, pairwise
//               the comparator-tree / pairwise walk scheduler
//               (gmmu_ws_run_device over the C model's step, its Verilated RTL
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
#include "gmmu/components/replay_window.h"
#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/line_cache.h"
#include "gmmu/pwc.h"
#include "gmmu/walk_merge.h"
#include "gmmu/walk_sched.h"
}

namespace gmmu {

// A page-walk cache driven through its cycle-step interface: the C model
// (gmmu_pwc_step) or its Verilated RTL twin.
struct pwc_cycle_device {
    virtual ~pwc_cycle_device() = default;
    virtual gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) = 0;
    virtual std::string name() const = 0;
    // Write an FST waveform of every following cycle to path (RTL twins; at
    // any cycle, closing the one open before). False + *why when the device
    // cannot.
    virtual bool open_waveform(const std::string &path, std::string *why)
    {
        (void)path;
        *why = name() + " has no waveform";
        return false;
    }
    virtual void close_waveform() {}
};
// The RTL twins live in platforms/rtl/ (Verilator); a program that links them installs
// a factory here (platforms/gpu/rtl_bridge.cpp). nullptr + *why when the
// geometry has no RTL build.
using pwc_rtl_factory =
    std::function<std::unique_ptr<pwc_cycle_device>(const gmmu_pwc_config &, std::string *why)>;
// Installs f; returns the factory installed before (empty: none).
pwc_rtl_factory set_pwc_rtl_factory(pwc_rtl_factory f);
bool have_pwc_rtl();

// A walk scheduler driven through its cycle-step interface: the C model
// (gmmu_walk_sched_step) or its Verilated RTL twin (rtl/walk_sched.sv). The
// walker runs either through one loop (gmmu_ws_run_device), so both give the
// same results, cycles and counters.
struct ws_step_device {
    virtual ~ws_step_device() = default;
    virtual gmmu_status step(const gmmu_ws_in *in, gmmu_ws_out *out) = 0;
    // gmmu_walk_sched_quiescent() of the state after the last step.
    virtual bool quiescent() const = 0;
    // The run loop skipped this many quiescent cycles.
    virtual void skip(uint64_t cycles) = 0;
    virtual void reset() = 0;
    // Comparator scans started (not visible at the step outputs).
    virtual uint64_t scans() const = 0;
    virtual std::string name() const = 0;
    // As pwc_cycle_device::open_waveform / close_waveform.
    virtual bool open_waveform(const std::string &path, std::string *why)
    {
        (void)path;
        *why = name() + " has no waveform";
        return false;
    }
    virtual void close_waveform() {}
};
// Installed by the program that links the Verilated scheduler (platforms/rtl,
// platforms/rtl/rtl_bridge.cpp). nullptr + *why (naming the geometries that
// were built) when the configuration has no RTL build.
using ws_rtl_factory =
    std::function<std::unique_ptr<ws_step_device>(const gmmu_ws_config &, std::string *why)>;
// Installs f; returns the factory installed before (empty: none).
ws_rtl_factory set_ws_rtl_factory(ws_rtl_factory f);
bool have_ws_rtl();
// The RTL factory's answer for cfg without keeping the device: true when the
// geometry was built, else false + *why.
bool ws_rtl_geometry_ok(const gmmu_ws_config &cfg, std::string *why);
// Where the scheduler's waveform goes for ptw_params::rtl_fst = path: path
// itself, or with ".sched" before the extension when the PWC's RTL writes
// path ("run.fst" -> "run.sched.fst").
std::string rtl_waveform_path(const std::string &path, bool pwc_too);

struct ptw_params {
    unsigned walkers = 1;            // serial variant: independent walkers
    unsigned fixed_walk_cycles = 0;  // 0: walk latency = what its reads cost
    bool set_accessed_dirty = false; // write A/D bits back like x86 hardware (serial only)
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
    uint64_t pwc_cosim_cycles() const { return pwc_cycle; }
    uint64_t sched_cycles() const { return ws_st.cycles; }

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    static gmmu_status read_cb(void *ctx, uint64_t pa, uint64_t *val);
    static gmmu_status write_cb(void *ctx, uint64_t pa, uint64_t val);
    static gmmu_status sched_mem_cb(void *ctx, uint64_t pa, uint64_t *data, uint32_t *lat);
    bool tlm_read(uint64_t pa, uint64_t *val, sc_core::sc_time &delay);
    bool pt_read(uint64_t pa, uint64_t *val, uint32_t *latency_cycles, bool timed_by_model);
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
    void walk_serial(xlate_req &r, bool debug, const sc_core::sc_time &t_req);
    void walk_batch_scheduled(std::vector<xlate_req *> &reqs, const sc_core::sc_time &t_req);
    void finish(xlate_req &r, const gmmu_walk_result &w);
    uint64_t cycles_of(const sc_core::sc_time &t) const;

    ptw_params p;
    std::unordered_map<uint16_t, uint64_t> roots;
    // Absolute time (sc_time value) each walker, or the scheduler, frees up.
    std::vector<uint64_t> free_at;
    std::vector<uint64_t> done_at; // scratch: done times of a scheduled batch's walks
    gmmu_pwc *pwc_ = nullptr;
    // Stepped PWC (RTL or lock-step co-simulation): devices and own counters.
    std::unique_ptr<pwc_cycle_device> pwc_dev, pwc_check;
    // Lock-step: the RTL's last cycles, for a waveform on a mismatch.
    static void pwc_replay(pwc_cycle_device &d, const gmmu_pwc_cycle_in &in);
    std::unique_ptr<replay_window<pwc_cycle_device, gmmu_pwc_cycle_in, &ptw::pwc_replay>> pwc_window;
    uint64_t pwc_cycle = 0, pwc_lookups = 0, pwc_hit[5] = {};
    bool pwc_stepped() const { return pwc_dev != nullptr; }
    void pwc_step(const gmmu_pwc_cycle_in &in, gmmu_pwc_cycle_out &out);
    bool pwc_lookup_any(uint64_t root, uint64_t va, gmmu_pwc_hit &hit);
    void pwc_fill_any(const gmmu_pwc_path &path);
    void complete_path(gmmu_pwc_path &path, uint64_t root);
    // A functional walk from the root (debug reads: no traffic, no time).
    bool debug_walk_full(uint64_t root, uint64_t va, gmmu_walk_result &w);
    void pwc_invalidate_any(bool all, uint64_t lo, uint64_t hi);
    gmmu_line_cache *lc = nullptr; // the PTE line cache (ptw.line_cache), owned
    gmmu_walk_sched *ws = nullptr; // the C model (TREE/PAIRWISE), driven by ws_dev or ws_check
    // Stepped scheduler: the device the results come from, and in lock-step
    // co-simulation the other implementation, checked every cycle.
    std::unique_ptr<ws_step_device> ws_dev, ws_check;
    gmmu_ws_run_stats ws_st{};     // counted by the run loop from the device's outputs
    std::string ws_mismatch;       // first co-simulation difference
    struct ws_event {              // one scheduler cycle, after what came since the last
        uint64_t skip_before = 0;  // quiescent cycles the run loop skipped
        bool reset_before = false; // a reset (after a faulted batch)
        gmmu_ws_in in{};
    };
    ws_event ws_pending;           // skips and resets waiting for the next cycle
    static void ws_replay(ws_step_device &d, const ws_event &e);
    std::unique_ptr<replay_window<ws_step_device, ws_event, &ptw::ws_replay>> ws_window;
    // "; waveform of ... in PATH" for an error message; dumps w.
    template <class W> std::string mismatch_waveform(W &w, const char *block);
    static gmmu_status ws_step_cb(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out);
    static bool ws_quiescent_cb(void *ctx);
    static void ws_skip_cb(void *ctx, uint64_t cycles);
    tlm::tlm_generic_payload pt_gp;
    sc_core::sc_time walk_delay; // accumulates during one serial walk
    bool debug_walk = false;

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
    cycles_time_memo read_time; // time of the last PTE read's cycles

    uint64_t walks = 0, pt_reads = 0, pt_writes = 0, faults = 0, mem_errors = 0, batches = 0,
             line_hits = 0, inflight_merges = 0, pwc_cycles = 0, same_line = 0;
    uint64_t last_line = ~0ull;
    sc_core::sc_time walk_time_sum, queue_time_sum;
};

} // namespace gmmu
