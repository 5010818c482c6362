// gmmu — the Verilated CPWC and TPC (rtl/cpwc.sv, rtl/tpc.sv) behind the C
// models' cycle-step signature, so a caller can use the RTL in place of
// gmmu_pwc_step (e.g. the platform's ptw.pwc_impl=rtl) or beside it.
//
// Verilator fixes the RTL parameters when it translates the RTL, so only the
// geometries built into gmmu_rtl_pwc exist (rtl_pwc_variants()); make_rtl_pwc
// returns nullptr, with the reason, for any other config.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "gmmu/pwc.h"
}

namespace gmmu {

struct RtlPwcOptions {
    int reset_values = 0;     // initial flop values: 0 zeros, 1 ones, 2 random (x-initial unique)
    uint64_t seed = 1;        // seed of the random initial values
    std::string fst;          // write an FST waveform here when not empty
    std::string coverage;     // write Verilator coverage here at destruction when not empty
};

// Storage fields of the RTL (rtl/cpwc.sv, rtl/tpc.sv), read by benches to
// compare the contents with the C model. Bases are bits 63:12; an L3 mask
// has bit L2Blocks-1-b set when the entry owns block b (as in the C model);
// TpcPartValid bit j says part j (0: L4 index / L3-table base, 1: L3 / L2,
// 2: L2 / L1) is valid; TpcIdx holds part j's index at bits 9j+8:9j.
enum class RtlPwcField {
    L4Valid, L4Tag, L4Base, L3Valid, L3Tag, L3Base, L3Mask, L2Valid, L2Tag, L2Base, // CPWC
    TpcValid, TpcPartValid, TpcIdx, TpcBase0, TpcBase1, TpcBase2                     // TPC
};

class RtlPwc {
public:
    virtual ~RtlPwc() = default;
    // One clock cycle, as gmmu_pwc_step: outputs from the state at the start
    // of the cycle, then the clock edge applies lookup, fill, invalidation.
    virtual gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) = 0;
    // Assert rst_ni for one cycle (valid bits and pipeline cleared).
    virtual void reset() = 0;
    virtual const std::string &variant() const = 0;
    virtual const gmmu_pwc_config &config() const = 0;
    virtual uint64_t cycles() const = 0;
    // An SVA assertion fired (Verilator --assert) since construction.
    virtual bool assertion_failed() const = 0;
    // Write an FST of every following cycle to path, from any cycle on (the
    // first dump holds every signal's value at that cycle); closes the one
    // open before. False when path cannot be written.
    virtual bool open_waveform(const std::string &path) = 0;
    virtual void close_waveform() = 0;
    // An FST is open (RtlPwcOptions::fst or open_waveform).
    virtual bool waveform_open() const = 0;
    // `width` (<= 64) bits from bit `lo` of a storage field of entry `index`.
    virtual uint64_t field(RtlPwcField f, unsigned index, unsigned lo = 0,
                           unsigned width = 64) const = 0;
};

// The CPWC/TPC variants built into gmmu_rtl_pwc, by name.
struct RtlPwcVariant {
    std::string name;
    gmmu_pwc_config cfg;
};
const std::vector<RtlPwcVariant> &rtl_pwc_variants();

// A Verilated twin of `cfg` (kind TPC or CPWC), or nullptr with *why set
// (also when opt.fst is set and cannot be written).
std::unique_ptr<RtlPwc> make_rtl_pwc(const gmmu_pwc_config &cfg, const RtlPwcOptions &opt = {},
                                     std::string *why = nullptr);
// The variant of that name, or nullptr.
std::unique_ptr<RtlPwc> make_rtl_pwc(const std::string &variant, const RtlPwcOptions &opt = {});

} // namespace gmmu
