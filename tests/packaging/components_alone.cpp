// gmmu-components-alone: the component library without the GPU platform.
// Linked with every object of gmmu_components (whole archive) and the models
// only, so a component that needs a gmmu_gpu symbol fails this link; run by
// ctest packaging.components_alone, it configures and builds a walker from
// its spec alone (no gmmu-sim schema installed) and checks that a GPU-platform
// key does not exist here.
#include <cstdio>
#include <string>
#include <vector>

#include "gmmu/components/config.h"
#include "gmmu/components/ptw_spec.h"

int sc_main(int, char **)
{
    gmmu::register_config_keys(gmmu::ptw_config_keys());
    const gmmu::config c = gmmu::config::from_text(R"({"ptw": {"walkers": 2, "pwc": "tpc"}})",
                                                   "alone.json", {"ptw.mshrs=4"});
    gmmu::ptw_builder b(c, sc_core::sc_time(1, sc_core::SC_NS));
    gmmu::probe_walker_host(b.cfg.params);
    auto w = b.build("walker");
    try {
        (void)gmmu::config::from_text("{}", "alone.json", {"sm.count=2"});
        std::printf("components alone: sm.count, a GPU-platform key, was accepted\n");
        return 1;
    } catch (const gmmu::config_error &e) {
        std::printf("components alone: %zu keys, walker %s built; %s\n", gmmu::config_schema().size(),
                    w->name(), e.what());
    }
    return 0;
}
