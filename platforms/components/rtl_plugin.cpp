#include "gmmu/components/rtl_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>
#include <vector>

#ifndef GMMU_RTL_PLUGIN_INSTALL_REL
#define GMMU_RTL_PLUGIN_INSTALL_REL "../lib/gmmu/libgmmu_rtl.so"
#endif

namespace gmmu {

namespace {
std::string exe_dir()
{
    char buf[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return ".";
    std::string p(buf, size_t(n));
    const size_t slash = p.rfind('/');
    return slash == std::string::npos ? "." : p.substr(0, slash);
}
} // namespace

bool load_rtl_plugin(std::string *why)
{
    static std::once_flag once;
    static bool loaded = false;
    static std::string reason;
    std::call_once(once, [] {
        std::vector<std::string> paths;
        if (const char *env = std::getenv("GMMU_RTL_PLUGIN"); env && *env)
            paths.push_back(env);
        else {
            const std::string dir = exe_dir();
            paths.push_back(dir + "/../lib/libgmmu_rtl.so"); // build tree
            paths.push_back(dir + "/" GMMU_RTL_PLUGIN_INSTALL_REL); // installed
        }
        for (const std::string &p : paths) {
            if (access(p.c_str(), R_OK) != 0) {
                reason += (reason.empty() ? "" : ", ") + p + " (absent)";
                continue;
            }
            if (dlopen(p.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
                loaded = true;
                return;
            }
            const char *e = dlerror();
            reason += (reason.empty() ? "" : ", ") + p + " (" + (e ? e : "dlopen failed") + ")";
        }
    });
    if (!loaded && why)
        *why = "the RTL plugin is not built or not loadable: tried " + reason +
               " (build it with `make build`; Verilator is needed)";
    return loaded;
}

} // namespace gmmu
