// Kernel files: parsing, labels, regions, and errors naming the line.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "gmmu/kernels.h"
}

namespace {

gmmu_status parse(const std::string &text, gmmu_kernel *k, gmmu_error *err)
{
    return gmmu_kernel_parse(k, text.data(), text.size(), err);
}

TEST(KernelTextTest, HeaderRegionsLabelsAndInstructions)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    const std::string text = "kernel t1\nregs 8\nwarps_per_block 2\ngrid 3\nshared 256\n"
                             "region input 100\nregion output 70000\ncode\n"
                             "top: addi r4, r0, @1+16   # comment\n"
                             "  ld r5, r4, -8\n"
                             "  brnz r5, top\n"
                             "  jmp 5\n"
                             "  st r4, r5, 0x10\n";
    ASSERT_EQ(parse(text, k.get(), &err), GMMU_OK) << err.msg;
    EXPECT_STREQ(k->name, "t1");
    EXPECT_EQ(k->nregs, 8u);
    EXPECT_EQ(k->warps_per_block, 2u);
    EXPECT_EQ(k->grid_blocks, 3u);
    EXPECT_EQ(k->shared_bytes, 256u);
    ASSERT_EQ(k->nregions, 2u);
    EXPECT_EQ(k->region[0].bytes, 65536u); // rounded up to 64 KiB
    EXPECT_EQ(k->region[1].bytes, 131072u);
    EXPECT_EQ(k->region[1].kind, GMMU_REGION_OUTPUT);
    ASSERT_EQ(k->ninsns, 5u);
    EXPECT_EQ(k->code[0].op, GMMU_OP_ADDI);
    EXPECT_EQ(k->code[0].dst, 4u);
    EXPECT_EQ(k->code[0].src[0], 0u);
    EXPECT_EQ(uint64_t(k->code[0].imm), k->region[1].base + 16u);
    EXPECT_EQ(k->code[1].imm, -8);
    EXPECT_EQ(k->code[2].op, GMMU_OP_BRNZ);
    EXPECT_EQ(k->code[2].imm, 0); // label top
    EXPECT_EQ(k->code[3].imm, 5); // the exit
    EXPECT_EQ(k->code[4].src[0], 4u);
    EXPECT_EQ(k->code[4].src[1], 5u);
    EXPECT_EQ(k->code[4].imm, 16);
}

TEST(KernelTextTest, ErrorsNameTheLine)
{
    struct Case {
        std::string text, want;
    } cases[] = {
        {"kernel a\ncode\n  frob r1, r2\n", "line 3: unknown instruction 'frob'"},
        {"kernel a\ncode\n  add r4, r5\n", "line 3: 'add' takes 3 operands"},
        {"kernel a\ncode\n  addi r4, r5, 12x\n", "line 3: bad number '12x'"},
        {"kernel a\ncode\n  addi r4, r5, @0\n", "line 3: '@0' names no declared region"},
        {"kernel a\ncode\n  add r4, r300, r1\n", "line 3: register 'r300' out of range"},
        {"kernel a\ncode\n  add x4, r3, r1\n", "line 3: expected a register"},
        {"kernel a\ncode\n\n  brnz r4, nowhere\n", "line 4: branch to undefined label 'nowhere'"},
        {"kernel a\ncode\nx: addi r4, r4, 1\nx: addi r4, r4, 1\n", "line 4: label 'x' defined twice"},
        {"kernel a\nregion inout 5\ncode\n", "line 2: 'region input|output BYTES'"},
        {"kernel a\nfoo 3\ncode\n", "line 2: unknown header line 'foo'"},
        {"kernel a\nregs 4\n", "line 3: no 'code' section"},
        {"regs 4\ncode\n addi r4, r4, 1\n", "line 1: no 'kernel NAME' line"},
        {std::string("kernel a\ncode\n addi r4,\0 r4, 1\n", 30), "line 3: contains a NUL byte"},
    };
    for (const auto &c : cases) {
        auto k = std::make_unique<gmmu_kernel>();
        gmmu_error err{};
        EXPECT_EQ(parse(c.text, k.get(), &err), GMMU_EINVAL) << c.text;
        EXPECT_STREQ(err.field, "kernel.text") << c.text;
        EXPECT_EQ(std::string(err.msg).rfind(c.want, 0), 0u) << err.msg << " | want " << c.want;
    }
    // Control flow is checked after parsing: the kernel's name and the index.
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    EXPECT_EQ(parse("kernel spin\ncode\n addi r4, r4, 1\nhere: jmp here\n", k.get(), &err),
              GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.code");
    EXPECT_NE(std::string(err.msg).find("kernel 'spin' instruction 0: no path"), std::string::npos) << err.msg;
    EXPECT_EQ(parse("kernel far\ncode\n jmp 9\n", k.get(), &err), GMMU_EINVAL);
    EXPECT_NE(std::string(err.msg).find("kernel 'far' instruction 0: branch target 9"),
              std::string::npos)
        << err.msg;
}

// A header line given twice would silently win, and regs, warps_per_block and
// grid of 0 would silently mean the default: both are refused at their line
// (issue 41, item 12). shared 0 is no shared memory, and region repeats.
TEST(KernelTextTest, RepeatedHeaderLinesAndZeroCountsAreRefusedAtTheirLine)
{
    struct Case {
        std::string text, want;
    } cases[] = {
        {"kernel a\nkernel b\ncode\n", "line 2: 'kernel' given twice (first on line 1)"},
        {"kernel a\nregs 8\n\nregs 32\ncode\n", "line 4: 'regs' given twice (first on line 2)"},
        {"kernel a\nwarps_per_block 2\nwarps_per_block 4\ncode\n",
         "line 3: 'warps_per_block' given twice (first on line 2)"},
        {"kernel a\ngrid 2\ngrid 2\ncode\n", "line 3: 'grid' given twice (first on line 2)"},
        {"kernel a\nshared 0\nshared 64\ncode\n", "line 3: 'shared' given twice (first on line 2)"},
        {"kernel a\nregs 0\ncode\n", "line 2: 'regs' needs one number 1..1048576"},
        {"kernel a\nwarps_per_block 0\ncode\n", "line 2: 'warps_per_block' needs one number 1..1048576"},
        {"kernel a\ngrid 0\ncode\n", "line 2: 'grid' needs one number 1..1048576"},
        {"kernel a\ngrid 0x0\ncode\n", "line 2: 'grid' needs one number 1..1048576"},
    };
    for (const auto &c : cases) {
        auto k = std::make_unique<gmmu_kernel>();
        gmmu_error err{};
        EXPECT_EQ(parse(c.text, k.get(), &err), GMMU_EINVAL) << c.text;
        EXPECT_STREQ(err.field, "kernel.text") << c.text;
        EXPECT_EQ(std::string(err.msg).rfind(c.want, 0), 0u) << err.msg << " | want " << c.want;
    }
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    const std::string ok = "kernel a\nshared 0\nregion input 64\nregion output 64\ncode\n addi r4, r4, 1\n";
    ASSERT_EQ(parse(ok, k.get(), &err), GMMU_OK) << err.msg;
    EXPECT_EQ(k->shared_bytes, 0u);
    EXPECT_EQ(k->nregions, 2u);
    // Left out, the counts take their defaults.
    EXPECT_EQ(k->nregs, 16u);
    EXPECT_EQ(k->warps_per_block, 1u);
    EXPECT_EQ(k->grid_blocks, 1u);
}

// gmmu_kernel_parse_lines gives each instruction's line, so that errors found
// later (an access outside the regions) can name FILE:LINE.
TEST(KernelTextTest, ParseLinesGivesEachInstructionsLine)
{
    auto k = std::make_unique<gmmu_kernel>();
    std::vector<uint32_t> line(GMMU_KERNEL_MAX_INSNS, 0);
    gmmu_error err{};
    const std::string text = "kernel a\nregion input 64\ncode\n# a comment\n addi r4, r4, 1\n\n"
                             "top: ld r5, r4, 0\n brnz r5, top\n";
    ASSERT_EQ(gmmu_kernel_parse_lines(k.get(), text.data(), text.size(), line.data(), &err), GMMU_OK)
        << err.msg;
    ASSERT_EQ(k->ninsns, 3u);
    EXPECT_EQ(line[0], 5u);
    EXPECT_EQ(line[1], 7u);
    EXPECT_EQ(line[2], 8u);
    EXPECT_STREQ(gmmu_kernel_op_name(GMMU_OP_LD), "ld");
    EXPECT_STREQ(gmmu_kernel_op_name(GMMU_OP_RED), "red");
}

// Shared memory and barriers: lds d, a, imm; sts a, b, imm; bar. Bad
// operands name the line; a shared access without shared memory names the
// instruction.
TEST(KernelTextTest, SharedMemoryAndBarrierInstructions)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    ASSERT_EQ(parse("kernel s\nshared 64\ncode\n lds r5, r4, 8\n sts r4, r5, -8\n bar\n", k.get(), &err),
              GMMU_OK)
        << err.msg;
    ASSERT_EQ(k->ninsns, 3u);
    EXPECT_EQ(k->code[0].op, GMMU_OP_LDS);
    EXPECT_EQ(k->code[0].dst, 5u);
    EXPECT_EQ(k->code[0].src[0], 4u);
    EXPECT_EQ(k->code[0].imm, 8);
    EXPECT_EQ(k->code[1].op, GMMU_OP_STS);
    EXPECT_EQ(k->code[1].src[0], 4u);
    EXPECT_EQ(k->code[1].src[1], 5u);
    EXPECT_EQ(k->code[1].imm, -8);
    EXPECT_EQ(k->code[2].op, GMMU_OP_BAR);
    EXPECT_STREQ(gmmu_kernel_op_name(GMMU_OP_LDS), "lds");
    EXPECT_STREQ(gmmu_kernel_op_name(GMMU_OP_STS), "sts");
    EXPECT_STREQ(gmmu_kernel_op_name(GMMU_OP_BAR), "bar");
    EXPECT_TRUE(gmmu_op_is_shared(GMMU_OP_LDS));
    EXPECT_FALSE(gmmu_op_is_global(GMMU_OP_STS));
    EXPECT_FALSE(gmmu_op_has_dst(GMMU_OP_STS));
    EXPECT_FALSE(gmmu_op_has_dst(GMMU_OP_BAR));
    EXPECT_EQ(gmmu_op_unit(GMMU_OP_LDS), GMMU_UNIT_LDST);
    EXPECT_EQ(gmmu_op_log_entries(GMMU_OP_STS), 0u);

    struct Case {
        std::string text, want;
    } cases[] = {
        {"kernel a\nshared 64\ncode\n  bar r1\n", "line 4: 'bar' takes 0 operands"},
        {"kernel a\nshared 64\ncode\n  lds r1, r2\n", "line 4: 'lds' takes 3 operands"},
        {"kernel a\nshared 64\ncode\n  sts r1, 8, 0\n", "line 4: expected a register"},
        {"kernel a\nshared 64\ncode\n  lds r1, r2, x\n", "line 4: bad number 'x'"},
        {"kernel a\nshared 64\ncode\n  sts r1, r2, 0, 1\n", "line 4: 'sts' takes 3 operands"},
        {"kernel a\nregion input 17179869185\ncode\n", "line 2: 'region input|output BYTES'"},
    };
    for (const auto &c : cases) {
        EXPECT_EQ(parse(c.text, k.get(), &err), GMMU_EINVAL) << c.text;
        EXPECT_STREQ(err.field, "kernel.text") << c.text;
        EXPECT_EQ(std::string(err.msg).rfind(c.want, 0), 0u) << err.msg << " | want " << c.want;
    }
    EXPECT_EQ(parse("kernel noshm\ncode\n addi r4, r4, 1\n lds r5, r4, 0\n", k.get(), &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.code");
    EXPECT_NE(std::string(err.msg).find("instruction 1: shared memory access, but the kernel declares 0 B"),
              std::string::npos)
        << err.msg;
}

// Regions up to 16 GiB (footprints over 1 GiB, issue 44): small regions keep
// their place at BASE + i x 256 MiB; one after a large region starts at the
// next 256 MiB boundary past its end.
TEST(KernelTextTest, RegionsOverOneGiB)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    ASSERT_EQ(parse("kernel big\nregion input 64\nregion input 3221225472\nregion output 100\n"
                    "region output 17179869184\nregion input 8\ncode\n addi r4, r4, 1\n",
                    k.get(), &err),
              GMMU_OK)
        << err.msg;
    ASSERT_EQ(k->nregions, 5u);
    const uint64_t base = k->region[0].base, mib256 = 256ull << 20;
    EXPECT_EQ(k->region[1].base, base + mib256);
    EXPECT_EQ(k->region[1].bytes, 3ull << 30);
    EXPECT_EQ(k->region[2].base, base + mib256 + (3ull << 30));
    EXPECT_EQ(k->region[3].base, base + 2 * mib256 + (3ull << 30));
    EXPECT_EQ(k->region[3].bytes, 16ull << 30);
    EXPECT_EQ(k->region[4].base, base + 2 * mib256 + (19ull << 30));
    for (uint32_t i = 0; i + 1 < k->nregions; i++)
        EXPECT_LE(k->region[i].base + k->region[i].bytes, k->region[i + 1].base) << i;
    EXPECT_EQ(gmmu_kernel_region_of(k.get(), k->region[3].base + (16ull << 30) - 8), 3);
    // Small regions: where they always were.
    ASSERT_EQ(parse("kernel small\nregion input 64\nregion output 268435456\nregion output 8\ncode\n"
                    " addi r4, r4, 1\n",
                    k.get(), &err),
              GMMU_OK);
    EXPECT_EQ(k->region[1].base, base + mib256);
    EXPECT_EQ(k->region[2].base, base + 2 * mib256);
}

// The reference interpreter: threads phase by phase between barriers; a
// shared race, a shared access outside the array and a global access
// outside the regions are errors naming the instruction.
uint64_t *no_global(void *, uint64_t, bool) { return nullptr; }

TEST(KernelTextTest, ReferenceInterpreterPhasesAndErrors)
{
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    // Thread t stores t + 1 into its word, then reads thread t+1's word.
    const std::string good = "kernel p\nwarps_per_block 2\nshared 512\ncode\n"
                             " shli r4, r2, 5\n add r4, r4, r3\n shli r5, r4, 3\n addi r6, r4, 1\n"
                             " sts r5, r6, 0\n bar\n addi r7, r5, 8\n andi r7, r7, 511\n lds r8, r7, 0\n";
    ASSERT_EQ(parse(good, k.get(), &err), GMMU_OK) << err.msg;
    std::vector<uint64_t> regs(2 * 16 * 32);
    gmmu_kernel_ref_stop why{};
    ASSERT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), no_global, nullptr, 1000, &why, &err),
              GMMU_OK)
        << err.msg;
    for (uint32_t t = 0; t < 64; t++)
        EXPECT_EQ(regs[((t / 32) * 16 + 8) * 32 + t % 32], (t + 1) % 64 + 1) << t;
    // Without the barrier the neighbour's word is read in the phase it is written.
    std::string racy = good;
    racy.replace(racy.find(" bar\n"), 5, "");
    ASSERT_EQ(parse(racy, k.get(), &err), GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), no_global, nullptr, 1000, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_SHARED_RACE);
    EXPECT_NE(std::string(err.msg).find("no bar between"), std::string::npos) << err.msg;
    // Outside the shared array.
    ASSERT_EQ(parse("kernel o\nshared 64\ncode\n lds r4, r3, 64\n", k.get(), &err), GMMU_OK);
    EXPECT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), no_global, nullptr, 1000, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_SHARED_OUTSIDE);
    EXPECT_EQ(why.pc, 0u);
    EXPECT_EQ(why.va, 64u);
    // Global memory outside the regions.
    ASSERT_EQ(parse("kernel g\ncode\n addi r4, r4, 1\n ld r5, r3, 0\n", k.get(), &err), GMMU_OK);
    EXPECT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), no_global, nullptr, 1000, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_GLOBAL_OUTSIDE);
    EXPECT_EQ(why.pc, 1u);
    // A runaway thread.
    ASSERT_EQ(parse("kernel r\ncode\nl: addi r4, r4, 1\n brnz r4, l\n", k.get(), &err), GMMU_OK);
    EXPECT_EQ(gmmu_kernel_ref_block(k.get(), 0, regs.data(), no_global, nullptr, 1000, &why, &err),
              GMMU_EINVAL);
    EXPECT_EQ(why.kind, GMMU_REF_RUNAWAY);
}

} // namespace
