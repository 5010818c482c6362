// splitmix64's mixing function (gmmu/rng.h), the one copy the LDT's hash,
// the kernels' input values and SFU operation and the platform's store-data
// pattern use: the generator's published outputs from seed 0.
#include <gtest/gtest.h>

extern "C" {
#include "gmmu/kernels.h"
#include "gmmu/rng.h"
}

namespace {

TEST(Rng, Splitmix64OutputsFromSeedZero)
{
    uint64_t state = 0;
    const uint64_t want[] = {0xE220A8397B1DCDAFull, 0x6E789E6AA1B965F4ull, 0x06C45D188009454Full};
    for (uint64_t w : want) {
        state += GMMU_SPLITMIX64_GAMMA;
        EXPECT_EQ(gmmu_mix64(state), w);
    }
    EXPECT_EQ(gmmu_mix64(0), 0u); // the finaliser fixes 0: the gamma step is what moves it
}

TEST(Rng, KernelsUseTheSharedMix)
{
    // gmmu_kernel_input_value: the mix of the word-aligned VA and a seed.
    EXPECT_EQ(gmmu_kernel_input_value(0x1238), gmmu_mix64(0x1238ull ^ 0x5EED5EED12345678ull));
    EXPECT_EQ(gmmu_kernel_input_value(0x123F), gmmu_kernel_input_value(0x1238));
    // The SFU operation: the mix of its source plus the immediate.
    gmmu_insn in{};
    in.op = GMMU_OP_SFU;
    in.imm = 5;
    EXPECT_EQ(gmmu_op_alu(&in, 10, 0, 0), gmmu_mix64(15));
}

} // namespace
