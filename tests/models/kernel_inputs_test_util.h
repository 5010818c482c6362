// Test helper: a kernel's regions as word arrays, filled by its input
// generator (gmmu_kernel_inputs_fill), for the generators' tests.
#pragma once

#include <gtest/gtest.h>

#include <vector>

extern "C" {
#include "gmmu/kernel_inputs.h"
}

struct filled_regions {
    std::vector<std::vector<uint64_t>> w; // region r's words
    std::vector<uint64_t *> p;
};

inline filled_regions fill_regions(const gmmu_kernel &k, uint64_t seed)
{
    filled_regions f;
    f.w.resize(k.nregions);
    for (uint32_t r = 0; r < k.nregions; r++) {
        f.w[r].assign(k.region[r].bytes / 8, 0);
        f.p.push_back(f.w[r].data());
    }
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_inputs_fill(&k, seed, f.p.data(), &err), GMMU_OK) << err.msg;
    return f;
}
