// gmmu — connects the Verilated RTL twins (tb/pwc: gmmu_rtl_pwc) to the
// platform's walker: installs the factory behind ptw.pwc_impl=rtl and
// ptw.cosim=true. Linked into gmmu-sim and the tests when Verilator is found.
#include "components/ptw.h"
#include "rtl_cpwc.h"

namespace gmmu {
namespace {

struct rtl_pwc_device : pwc_cycle_device {
    std::unique_ptr<RtlPwc> rtl;
    gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) override
    {
        gmmu_status s = rtl->step(in, out);
        if (s == GMMU_OK && rtl->assertion_failed())
            return GMMU_EINVAL; // an SVA assertion fired inside the RTL
        return s;
    }
    std::string name() const override { return "RTL " + rtl->variant(); }
};

const bool installed = [] {
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
