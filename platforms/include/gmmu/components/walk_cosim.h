// gmmu — the walker's co-simulation harness: the page-walk cache and the walk
// scheduler driven through their cycle-step interfaces, each by the C model
// or its Verilated RTL twin, or both in lock-step with every output compared
// field by field; a replay window per block (a second RTL twin some cycles
// behind) so a mismatch leaves a waveform; and the registry of the RTL
// factories (installed by the RTL plugin, platforms/rtl/rtl_bridge.cpp).
// The walker (ptw.cpp) owns one walk_cosim and asks it for a PWC step and for
// the scheduler's step device (gmmu_ws_device, run by models/ walk_engine.c).
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "gmmu/components/replay_window.h"

extern "C" {
#include "gmmu/pwc.h"
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
// a factory here (platforms/rtl/rtl_bridge.cpp). nullptr + *why when the
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
// Where the scheduler's waveform goes for rtl_fst = path: path itself, or
// with ".sched" before the extension when the PWC's RTL writes path
// ("run.fst" -> "run.sched.fst").
std::string rtl_waveform_path(const std::string &path, bool pwc_too);

class walk_cosim {
  public:
    struct params {
        bool pwc_rtl = false;     // drive the Verilated PWC instead of the C model
        bool pwc_cosim = false;   // step C model and RTL in lock-step, stop on a mismatch
        bool sched_rtl = false;   // the same for the walk scheduler
        bool sched_cosim = false;
        std::string rtl_fst;      // FST waveform of the RTL blocks (empty: none)
        unsigned mismatch_cycles = 64; // replay-window depth (0: no twin, no file)
        std::string mismatch_fst = "mismatch.fst";
    };
    // `owner` names the walker in every error (report_error, "ptw").
    walk_cosim(std::string owner, const params &p);
    ~walk_cosim();
    walk_cosim(const walk_cosim &) = delete;
    walk_cosim &operator=(const walk_cosim &) = delete;

    // ---- page-walk cache ----
    // With pwc_rtl or pwc_cosim: takes the C model `c` (owned from now on,
    // stepped through gmmu_pwc_step) and the RTL twin(s) for cfg. Errors
    // (no RTL twin for the kind, no RTL build) are reported.
    void attach_pwc(gmmu_pwc *c, const gmmu_pwc_config &cfg);
    bool pwc_stepped() const { return pwc_dev != nullptr; }
    // One PWC cycle on the device; in lock-step also on the twin, compared.
    void pwc_step(const gmmu_pwc_cycle_in &in, gmmu_pwc_cycle_out &out);
    std::string pwc_impl() const { return pwc_dev->name(); }
    std::string pwc_check_name() const { return pwc_check ? pwc_check->name() : "off"; }
    uint64_t pwc_cycles() const { return pwc_cycle; }

    // ---- walk scheduler ----
    // The scheduler's step device for the C model ws (borrowed): ws itself,
    // its RTL twin or both in lock-step, as params say.
    void attach_sched(gmmu_walk_sched *ws, const gmmu_ws_config &cfg, bool pwc_waveform_too);
    // The device for gmmu_ws_run_device (valid while this object lives).
    const gmmu_ws_device *sched_device() const { return &dev_; }
    // After a run: report a lock-step mismatch (with its waveform), if any.
    void sched_check_run();
    // After a failed run: reset the device (and the twin) to idle.
    void sched_reset();
    std::string sched_impl() const { return ws_dev->name(); }
    std::string sched_check_name() const { return ws_check ? ws_check->name() : "off"; }
    uint64_t sched_scans() const { return ws_dev->scans(); }
    // The run loop's counters (the step outputs: C model and RTL alike).
    gmmu_ws_run_stats st{};

  private:
    std::string owner;
    params p;
    // PWC: the device results come from, the twin checked against it.
    std::unique_ptr<pwc_cycle_device> pwc_dev, pwc_check;
    static void pwc_replay(pwc_cycle_device &d, const gmmu_pwc_cycle_in &in);
    std::unique_ptr<replay_window<pwc_cycle_device, gmmu_pwc_cycle_in, &walk_cosim::pwc_replay>>
        pwc_window;
    uint64_t pwc_cycle = 0;
    // Scheduler.
    std::unique_ptr<ws_step_device> ws_dev, ws_check;
    std::string ws_mismatch; // first co-simulation difference
    struct ws_event {        // one scheduler cycle, after what came since the last
        uint64_t skip_before = 0;
        bool reset_before = false;
        gmmu_ws_in in{};
    };
    ws_event ws_pending; // skips and resets waiting for the next cycle
    static void ws_replay(ws_step_device &d, const ws_event &e);
    std::unique_ptr<replay_window<ws_step_device, ws_event, &walk_cosim::ws_replay>> ws_window;
    gmmu_ws_device dev_{};
    static gmmu_status ws_step_cb(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out);
    static bool ws_quiescent_cb(void *ctx);
    static void ws_skip_cb(void *ctx, uint64_t cycles);
    // "; waveform of ... in PATH" for an error message; dumps w.
    template <class W> std::string mismatch_waveform(W &w, const char *block);
};

} // namespace gmmu
