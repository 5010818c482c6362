// gmmu — the issue/commit SM's config in the GPU platform
// (platforms/gpu/sm_core_config.cpp; the component is components/sm_core.h).
#pragma once

#include "gmmu/components/sm_core.h"
#include "gmmu/components/config.h"

namespace gmmu {

// The SM model config from `sm.*` keys (tanasic17 defaults for the rest).
gmmu_sm_config sm_core_config(const config &c);
// The fault-handler config from `fault.*` keys.
gmmu_fault_handler_config fault_handler_config(const config &c);

} // namespace gmmu
