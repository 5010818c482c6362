// gmmu — the issue/commit SM (components/sm_core.h) in the GPU platform:
// the configs it is built from (its `sm.*` keys are its spec's,
// components/sm_core_spec.h; the `fault.*` keys the fault handler's,
// components/fault_handler_spec.h), and the `sm.model=issue` factory that
// connects it to the platform's fault handler and kernel workload.
#include "gmmu/gpu/sm_core_config.h"

#include "gmmu/components/fault_handler_spec.h"
#include "gmmu/components/sm_core_spec.h"
#include "gmmu/gpu/platform.h"

namespace gmmu {

// The issue SM's keys and checks are its spec's (components/sm_core_spec.h).
gmmu_sm_config sm_core_config(const config &c) { return sm_core_config_from(c); }

// The fault handler's keys and checks are its spec's (components/fault_handler_spec.h).
gmmu_fault_handler_config fault_handler_config(const config &c) { return fault_handler_config_from(c); }

static std::unique_ptr<sm_base> make_sm_core(const char *name, const sm_params &p, workload &wl,
                                             gpu_platform &gpu)
{
    auto *ks = dynamic_cast<kernel_source *>(&wl);
    if (!ks)
        throw config_error("config key 'sm.model': the issue SM runs kernel workloads "
                           "(--workload kernel), not '" + wl.name() + "'");
    if (p.bypass && ks->demand_paging())
        throw config_error("config key 'workload.faults': demand paging needs the MMU "
                           "(mmu.bypass=false)");
    gmmu_sm_config c = sm_core_config(gpu.cfg);
    c.sm_id = p.id;
    fault_handler *fh = nullptr;
    for (auto &e : gpu.extras)
        if ((fh = dynamic_cast<fault_handler *>(e.get())))
            break;
    if (!fh) {
        fault_handler_params fp;
        fp.model = fault_handler_config(gpu.cfg);
        fp.clock = gpu.clock;
        if (ks->demand_paging() &&
            (1ull << fp.model.granularity_shift) < uint64_t(gpu.cfg.i("page_size")))
            throw config_error("config key 'fault.granularity_bytes': smaller than page_size");
        auto u = std::make_unique<fault_handler>("fault_handler", fp, ks->os_pager());
        fh = u.get();
        gpu.extras.push_back(std::move(u));
    }
    std::unique_ptr<sm_core> s;
    try {
        s = std::make_unique<sm_core>(name, p, c, *ks, gpu.checker);
    } catch (const sm_core::model_error &e) {
        throw sm_core_descriptor().checker_error("sm", e.field, std::string(e.what()).substr(e.field.size() + 2));
    }
    s->fault_isock.bind(fh->tsock);
    // The last SM to finish checks the final memory against the reference.
    s->on_finish = [&gpu, ks] {
        bool all = true, any_failed = false;
        for (auto &m : gpu.sms) {
            all = all && m->finished();
            any_failed = any_failed || m->failed();
        }
        if (all && !any_failed)
            ks->verify_memory(gpu.checker);
    };
    return s;
}

[[maybe_unused]] static const bool sm_core_registered =
    register_sm_model("issue", make_sm_core);


} // namespace gmmu
