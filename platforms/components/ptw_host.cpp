// gmmu — what a walker needs of the host it runs on (components/ptw_spec.h,
// probe_walker_host): the RTL plugin, the Verilated geometries, writable
// waveform files, the mismatch waveform's file name.
#include "gmmu/components/ptw_spec.h"

#include "gmmu/components/rtl_plugin.h"
#include "gmmu/components/walk_cosim.h"

#include <filesystem>
#include <fstream>

namespace gmmu {

void probe_walker_host(ptw_params &wp, const std::string &out_dir)
{
    if ((wp.pwc_rtl || wp.pwc_cosim) && !have_pwc_rtl()) {
        std::string why;
        load_rtl_plugin(&why);
        throw config_error("config key 'ptw.pwc_impl': " + why);
    }
    if (wp.sched_rtl || wp.sched_cosim) {
        // Verilator fixed the RTL's parameters at build time
        std::string why;
        if (!ws_rtl_geometry_ok(wp.sched, &why))
            throw config_error(std::string("config key 'ptw.scheduler_impl'") +
                               (wp.sched_rtl ? "" : " (ptw.cosim=true)") + ": " + why);
    }
    if (!wp.rtl_fst.empty()) {
        // The waveform files must be writable before the run starts.
        const bool pwc_twin = wp.pwc_rtl || wp.pwc_cosim;
        const bool sched_twin = wp.sched_rtl || wp.sched_cosim;
        std::vector<std::string> files;
        if (pwc_twin)
            files.push_back(wp.rtl_fst);
        if (sched_twin)
            files.push_back(rtl_waveform_path(wp.rtl_fst, pwc_twin));
        for (const std::string &f : files) {
            const bool existed = std::filesystem::exists(f);
            std::ofstream probe(f, std::ios::app);
            if (!probe)
                throw config_error("config key 'rtl.fst': cannot write " + f);
            probe.close();
            if (!existed)
                std::filesystem::remove(f);
        }
    }
    const std::filesystem::path f = wp.mismatch_fst;
    wp.mismatch_fst = f.is_absolute() ? f.string() : (std::filesystem::path(out_dir.empty() ? "." : out_dir) / f).string();
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::absolute(wp.mismatch_fst, ec).parent_path();
    // --out is created after the platform; any other folder must exist
    if ((wp.pwc_cosim || wp.sched_cosim) && wp.mismatch_cycles && f.is_absolute() &&
        !std::filesystem::is_directory(dir, ec))
        throw config_error("config key 'rtl.mismatch_fst': no folder " + dir.string());
    if (std::filesystem::is_directory(wp.mismatch_fst, ec))
        throw config_error("config key 'rtl.mismatch_fst': " + wp.mismatch_fst +
                           " is a folder, expected a file name");
}

} // namespace gmmu
