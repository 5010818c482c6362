// gmmu — the RTL twins as a plugin. gmmu-sim does not link the Verilated
// libraries: the first time a config asks for an RTL twin (`*_impl=rtl`,
// `ptw.cosim=true`), have_pwc_rtl()/have_ws_rtl() load the plugin
// libgmmu_rtl.so (platforms/rtl/rtl_bridge.cpp), whose static initialiser
// installs the factories. So the platform builds and runs without Verilating
// anything, and the RTL is built only when asked for (`make build`).
#pragma once

#include <string>

namespace gmmu {

// Loads the plugin once: $GMMU_RTL_PLUGIN if set, else libgmmu_rtl.so beside
// the program's library folder (build tree: BUILD/lib, installed:
// PREFIX/LIBDIR/gmmu). True when a plugin is loaded; false + *why (which
// paths were tried, or dlerror) otherwise. Later calls return the first answer.
bool load_rtl_plugin(std::string *why = nullptr);

} // namespace gmmu
