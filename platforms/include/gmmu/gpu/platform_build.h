// gmmu — what gpu_platform's constructor needs besides the components'
// builders (beside each spec: build_memory, build_cache, ptw_builder with
// probe_walker_host, build_tlb_level, build_ldt, build_smmu): the SM groups of each TLB level and the links between levels (also
// checked by config::validate), and the SM models by name. The
// constructor only wires what these return.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gmmu/components/ptw.h"
#include "gmmu/components/sm.h"
#include "gmmu/components/config.h"
#include "gmmu/gpu/workload.h"

namespace gmmu {

class gpu_platform;

// SM groups of a TLB level: `groups` string, else runs of `shared_by` SMs (0 = all).
std::vector<std::vector<unsigned>> tlb_groups(const config &c, const std::string &prefix,
                                              unsigned nsm);

// For each instance of a TLB level (lower_groups: the SM ids of each), the
// index of the next level's instance that holds all of its SMs; a level
// whose instance is split across two outer instances is an error naming
// upper_prefix.groups.
std::vector<size_t> tlb_parents(const std::vector<std::vector<unsigned>> &lower_groups,
                                const std::vector<std::vector<unsigned>> &upper_groups,
                                const std::string &lower_prefix, const std::string &upper_prefix);

// The SM model `model` (sm.model): the simple SM, or one registered with
// register_sm_model; an unknown name is an error naming sm.model.
std::unique_ptr<sm_base> build_sm(const std::string &model, const char *name, const sm_params &p,
                                  workload &wl, data_checker &checker, gpu_platform &gpu);

} // namespace gmmu
