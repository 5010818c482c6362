// gmmu — the TLB levels' configuration: one descriptor (components/descriptor.h)
// shared by l1_tlb, l2_tlb and l3_tlb.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "gmmu/components/tlb.h"
#include "gmmu/components/config.h"
#include "gmmu/components/descriptor.h"

namespace gmmu {

struct tlb_level {
    std::string prefix;                                // "l1_tlb"
    descriptor<tlb_params>::prefix_info info;          // label and this level's defaults
};

const descriptor<tlb_params> &tlb_descriptor();
// The TLB levels, top (L1) first.
const std::vector<tlb_level> &tlb_levels();
// Schema rows of every TLB level.
std::vector<key_spec> tlb_config_keys();
// Whether a TLB level is built: the L1 always, a lower level when its
// `enabled` key (read through the TLB's spec) says so.
bool tlb_level_enabled(const config &c, const std::string &prefix);
// A TLB level's parameters from a validated config; errors of the C models'
// checkers name the key that sets the field.
tlb_params tlb_params_from(const config &c, const std::string &prefix, unsigned level);
// A TLB level's builder: `instances` TLBs from the level's keys, named
// prefix + index (L1, or a level of more than one instance) or prefix; the
// L1 of the simple SM splits warps by page (sm.overlap_cache_access), the
// L1 of an issue SM with TCWS tracks its warps' owners.
std::vector<std::unique_ptr<tlb>> build_tlb_level(const config &c, const std::string &prefix,
                                                  unsigned level, size_t instances);

} // namespace gmmu
