// gmmu — connects the Verilated RTL twins (gmmu_rtl_pwc,
// gmmu_rtl_sched) to the platform's walker: installs the factories behind
// ptw.pwc_impl=rtl, ptw.scheduler_impl=rtl and ptw.cosim=true. Linked into
// gmmu-sim and the tests when Verilator is found.
#include "gmmu/components/ptw.h"
#include "rtl_cpwc.h"
#include "rtl_walk_sched.h"

namespace gmmu {
namespace {

struct rtl_pwc_device : pwc_cycle_device {
    std::unique_ptr<RtlPwc> rtl;
    bool open_waveform(const std::string &path, std::string *why) override
    {
        if (rtl->open_waveform(path))
            return true;
        *why = "cannot write " + path;
        return false;
    }
    void close_waveform() override { rtl->close_waveform(); }
    gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) override
    {
        gmmu_status s = rtl->step(in, out);
        if (s == GMMU_OK && rtl->assertion_failed())
            return GMMU_EINVAL; // an SVA assertion fired inside the RTL
        return s;
    }
    std::string name() const override { return "RTL " + rtl->variant(); }
};

struct rtl_ws_device : ws_step_device {
    std::unique_ptr<RtlWalkSched> rtl;
    bool open_waveform(const std::string &path, std::string *why) override
    {
        if (rtl->OpenTrace(path))
            return true;
        *why = "cannot write " + path;
        return false;
    }
    void close_waveform() override { rtl->CloseTrace(); }
    gmmu_status step(const gmmu_ws_in *in, gmmu_ws_out *out) override
    {
        gmmu_status s = rtl->Step(in, out);
        if (s == GMMU_OK && rtl->AssertionFailed())
            return GMMU_EINVAL; // an SVA assertion fired inside the RTL
        return s;
    }
    bool quiescent() const override { return rtl->Quiescent(); }
    void skip(uint64_t) override {} // no cycle counter: a quiescent RTL just holds its state
    void reset() override { rtl->Reset(); }
    uint64_t scans() const override { return rtl->ScansStarted(); }
    std::string name() const override { return "RTL " + RtlWalkSched::Name(rtl->Config()); }
};

// A geometry in the platform's config keys.
std::string ws_geometry(const gmmu_ws_config &c)
{
    static const char *const kVar[] = {"serial", "tree", "pairwise"};
    std::string s = "ptw.scheduler=";
    s += (unsigned)c.variant < 3 ? kVar[c.variant] : "?";
    s += " ptw.mshrs=" + std::to_string(c.mshrs);
    if (c.variant == GMMU_WS_SERIAL)
        s += " walkers=" + std::to_string(c.walkers);
    else
        s += " ptw.scan_pass_cycles=" + std::to_string(c.scan_pass_cycles);
    s += " (retire_width " + std::to_string(c.retire_width) + ")";
    return s;
}

const bool installed = [] {
    set_ws_rtl_factory([](const gmmu_ws_config &cfg, std::string *why) {
        std::string err;
        std::unique_ptr<RtlWalkSched> r = RtlWalkSched::Create(cfg, &err);
        if (!r) {
            if (why) {
                *why = "no RTL build of the walk scheduler with " + ws_geometry(cfg) +
                       "; geometries built (platforms/rtl/CMakeLists.txt):";
                const char *sep = " ";
                for (const gmmu_ws_config &a : RtlWalkSched::Available())
                    // the ones the platform can ask for: tree/pairwise, its retire width
                    if (a.variant != GMMU_WS_SERIAL && a.retire_width == cfg.retire_width) {
                        *why += sep + ws_geometry(a);
                        sep = "; ";
                    }
            }
            return std::unique_ptr<ws_step_device>();
        }
        auto d = std::make_unique<rtl_ws_device>();
        d->rtl = std::move(r);
        return std::unique_ptr<ws_step_device>(std::move(d));
    });
    set_pwc_rtl_factory([](const gmmu_pwc_config &cfg, std::string *why) {
        std::unique_ptr<RtlPwc> r = make_rtl_pwc(cfg, RtlPwcOptions{}, why);
        if (!r)
            return std::unique_ptr<pwc_cycle_device>();
        auto d = std::make_unique<rtl_pwc_device>();
        d->rtl = std::move(r);
        return std::unique_ptr<pwc_cycle_device>(std::move(d));
    });
    return true;
}();

} // namespace
} // namespace gmmu
