// gmmu - the Verilated walk scheduler (rtl/walk_sched.sv) behind the same
// step(in, out) signature as gmmu_walk_sched_step(), so a caller can use the
// RTL in place of the C model (`--set ptw.scheduler_impl=rtl`) or next to it.
//
// Verilator fixes the module parameters at build time, so only the
// configurations compiled into this library exist; Available() lists them and
// Create() returns nullptr (with a message) for any other configuration.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "gmmu/walk_sched.h"
}

namespace gmmu {

class RtlWalkSched {
public:
    virtual ~RtlWalkSched() = default;

    // A scheduler for cfg. rand_reset: Verilator's initial value of every
    // flop before reset (0 = zeros, 1 = ones, 2 = random from seed); the
    // module is reset before Create() returns, so results never depend on it.
    static std::unique_ptr<RtlWalkSched> Create(const gmmu_ws_config &cfg, std::string *err,
                                                int rand_reset = 0, uint64_t seed = 1);
    // The configurations compiled into this library.
    static std::vector<gmmu_ws_config> Available();
    // Short name of a configuration ("tree8p2r2", ...).
    static std::string Name(const gmmu_ws_config &cfg);

    // One clock cycle, as gmmu_walk_sched_step(): GMMU_EINVAL (state
    // unchanged) for the malformed inputs the C model rejects.
    virtual gmmu_status Step(const gmmu_ws_in *in, gmmu_ws_out *out) = 0;
    // Asynchronous reset (all state cleared, as gmmu_walk_sched_reset()).
    virtual void Reset() = 0;
    // FST waveform of every following cycle (until CloseTrace / destruction).
    virtual bool OpenTrace(const std::string &path) = 0;
    virtual void CloseTrace() = 0;
    // Coverage counters gathered so far (verilator_coverage format).
    virtual void WriteCoverage(const std::string &path) = 0;
    // True once an SVA assertion of the RTL failed (Verilator printed which).
    virtual bool AssertionFailed() const = 0;
    // Cycles stepped since Create().
    virtual uint64_t Cycles() const = 0;
    // gmmu_walk_sched_quiescent() of the state after the last Step: no scan
    // running, no issuable reference, no finished walk waiting, no walk
    // waiting for a scan or an idle walker. Read from the RTL's registers.
    virtual bool Quiescent() const = 0;
    // Scans started since Create() or Reset() (the C model's st.scans), read
    // from the RTL's scan-start signal each Step.
    virtual uint64_t ScansStarted() const = 0;
    const gmmu_ws_config &Config() const { return cfg_; }

protected:
    explicit RtlWalkSched(const gmmu_ws_config &cfg) : cfg_(cfg) {}
    gmmu_ws_config cfg_;
};

} // namespace gmmu
