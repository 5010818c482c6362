// SIMT reconvergence stack and immediate post-dominators, by hand-computed
// examples; kernel control-flow validation.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "gmmu/kernels.h"
#include "gmmu/simt_stack.h"
}

namespace {

// ---- stack ---------------------------------------------------------------------

TEST(SimtStackTest, StraightLineRunsToTheExitWithOneEntry)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFFFFFFFFu, 3);
    ASSERT_FALSE(gmmu_simt_done(&s));
    for (uint32_t pc = 0; pc < 3; pc++) {
        EXPECT_EQ(gmmu_simt_pc(&s), pc);
        EXPECT_EQ(gmmu_simt_mask(&s), 0xFFFFFFFFu);
        ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK);
    }
    EXPECT_TRUE(gmmu_simt_done(&s));
    EXPECT_EQ(s.peak, 1u);
    EXPECT_EQ(gmmu_simt_step(&s), GMMU_EINVAL);
}

// if/else:  0: BRNZ -> 3   1: (else) 2: JMP 4   3: (then)   4: join   (exit 5)
TEST(SimtStackTest, IfElseRunsFallThroughFirstThenTakenThenReconverges)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFu, 5);
    ASSERT_EQ(gmmu_simt_branch(&s, 0x5u, 3, 4), GMMU_OK); // lanes 0,2 taken
    EXPECT_EQ(s.n, 3u);
    EXPECT_EQ(s.e[0].pc, 4u); // the waiting entry, all lanes
    EXPECT_EQ(s.e[0].mask, 0xFu);
    EXPECT_EQ(gmmu_simt_pc(&s), 1u); // fall-through first
    EXPECT_EQ(gmmu_simt_mask(&s), 0xAu);
    ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK);              // 1
    ASSERT_EQ(gmmu_simt_branch(&s, 0xAu, 4, 4), GMMU_OK); // 2: JMP to the join pops
    EXPECT_EQ(gmmu_simt_pc(&s), 3u);
    EXPECT_EQ(gmmu_simt_mask(&s), 0x5u);
    ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK); // 3 -> 4 pops
    EXPECT_EQ(gmmu_simt_pc(&s), 4u);
    EXPECT_EQ(gmmu_simt_mask(&s), 0xFu);
    EXPECT_EQ(s.n, 1u);
    EXPECT_EQ(s.splits, 1u);
    EXPECT_EQ(s.reconverged, 2u);
    EXPECT_EQ(s.peak, 3u);
    ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK);
    EXPECT_TRUE(gmmu_simt_done(&s));
}

TEST(SimtStackTest, UniformBranchesDoNotSplit)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFFu, 10);
    ASSERT_EQ(gmmu_simt_branch(&s, 0xFFu, 7, 9), GMMU_OK); // all taken
    EXPECT_EQ(gmmu_simt_pc(&s), 7u);
    ASSERT_EQ(gmmu_simt_branch(&s, 0, 2, 9), GMMU_OK); // none taken
    EXPECT_EQ(gmmu_simt_pc(&s), 8u);
    EXPECT_EQ(s.n, 1u);
    EXPECT_EQ(s.splits, 0u);
    EXPECT_EQ(s.branches, 2u);
}

// Loop: 0: body  1: BRNZ -> 0 (back edge)  exit 2. Lanes leave one by one.
// The loop's join is the exit, the bottom entry's own join: the split keeps
// no second waiting entry, and the exit path starts at the join, so the
// stack stays one entry deep however many iterations run.
TEST(SimtStackTest, LoopExitLanesWaitAtTheExitAndDepthStaysBounded)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFu, 2);
    uint32_t left = 0xFu;
    for (int it = 0; it < 4; it++) {
        ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK);
        EXPECT_EQ(gmmu_simt_mask(&s), left);
        left &= ~(1u << it); // lane `it` leaves the loop after iteration it
        ASSERT_EQ(gmmu_simt_branch(&s, left, 0, 2), GMMU_OK);
        EXPECT_LE(s.n, 1u);
        if (left) {
            EXPECT_EQ(gmmu_simt_pc(&s), 0u);
        }
    }
    EXPECT_TRUE(gmmu_simt_done(&s)); // the last lanes reached the exit: all reconverged there
    EXPECT_EQ(s.peak, 1u);
    EXPECT_EQ(s.splits, 3u); // iterations 0..2 split; the last one is uniform
}

// Nested: 0: BRNZ -> 4 (outer)  1: BRNZ -> 3 (inner)  2: a  3: b  4: join  exit 5.
TEST(SimtStackTest, NestedSplitsReconvergeInnermostFirst)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFu, 5);
    ASSERT_EQ(gmmu_simt_branch(&s, 0x8u, 4, 4), GMMU_OK); // lane 3 skips; 0..2 fall through
    EXPECT_EQ(s.n, 2u); // the taken path starts at the join: not pushed
    EXPECT_EQ(gmmu_simt_mask(&s), 0x7u);
    ASSERT_EQ(gmmu_simt_branch(&s, 0x1u, 3, 3), GMMU_OK); // lane 0 to 3 (the join), 1..2 to 2
    EXPECT_EQ(s.n, 3u);
    EXPECT_EQ(gmmu_simt_pc(&s), 2u);
    EXPECT_EQ(gmmu_simt_mask(&s), 0x6u);
    ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK); // 2 -> 3: the inner join
    EXPECT_EQ(gmmu_simt_pc(&s), 3u);
    EXPECT_EQ(gmmu_simt_mask(&s), 0x7u); // both inner paths were at 3: all three lanes
    EXPECT_EQ(s.n, 2u);
    ASSERT_EQ(gmmu_simt_step(&s), GMMU_OK); // 3 -> 4: outer join
    EXPECT_EQ(gmmu_simt_mask(&s), 0xFu);
    EXPECT_EQ(s.n, 1u);
    EXPECT_EQ(s.peak, 3u);
}

TEST(SimtStackTest, BadBranchesAreRefusedAndOverflowChangesNothing)
{
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0x3u, 100);
    EXPECT_EQ(gmmu_simt_branch(&s, 0x4u, 5, 9), GMMU_EINVAL); // lane 2 is not active
    // Nest until full: level i sends lane i to pc + 2 and lanes i+1.. on,
    // each level with its own join: every level adds two entries.
    gmmu_simt_stack t;
    gmmu_simt_reset(&t, 0xFFFFFFFFu, 1000);
    gmmu_status st = GMMU_OK;
    uint32_t levels = 0;
    while (st == GMMU_OK) {
        st = gmmu_simt_branch(&t, 1u << levels, gmmu_simt_pc(&t) + 2, 900 - levels);
        levels += st == GMMU_OK;
    }
    EXPECT_EQ(st, GMMU_ENOMEM);
    EXPECT_EQ(levels, (GMMU_SIMT_DEPTH - 1u) / 2u);
    EXPECT_EQ(t.n, GMMU_SIMT_DEPTH - 1u); // the refused split changed nothing
    EXPECT_EQ(gmmu_simt_mask(&t), 0xFFFFFFFFu << levels);
    gmmu_simt_stack empty;
    gmmu_simt_reset(&empty, 0, 10);
    EXPECT_TRUE(gmmu_simt_done(&empty));
    EXPECT_EQ(gmmu_simt_branch(&empty, 0, 1, 2), GMMU_EINVAL);
}

// ---- the divergence rule (shared with the block-wide stack, gmmu/tbc.h) ---------

TEST(SimtDivergenceTest, UniformBranchesMoveTheTopToTheTargetOrTheNextPc)
{
    gmmu_simt_split d = gmmu_simt_divergence(3, 10, 20, true, false, 4, 15);
    EXPECT_FALSE(d.divergent);
    EXPECT_EQ(d.top_pc, 4u);
    d = gmmu_simt_divergence(3, 10, 20, false, true, 4, 15);
    EXPECT_FALSE(d.divergent);
    EXPECT_EQ(d.top_pc, 11u);
    d = gmmu_simt_divergence(1, 10, 20, false, false, 4, 15); // no thread at all: falls through
    EXPECT_FALSE(d.divergent);
    EXPECT_EQ(d.top_pc, 11u);
}

TEST(SimtDivergenceTest, ASplitKeepsTheTopWaitingAndPushesBothPaths)
{
    // if/else: pc 10 branches to 14, both paths reconverge at 18.
    const gmmu_simt_split d = gmmu_simt_divergence(2, 10, 30, true, true, 14, 18);
    EXPECT_TRUE(d.divergent);
    EXPECT_FALSE(d.reuse);
    EXPECT_EQ(d.base, 2u); // the top stays (it waits at 18)
    EXPECT_TRUE(d.push_taken);
    EXPECT_TRUE(d.push_fall);
    EXPECT_EQ(d.fall_pc, 11u);
    EXPECT_EQ(d.depth, 4u);
}

TEST(SimtDivergenceTest, PathsStartingAtTheReconvergencePcAreNotPushed)
{
    // A loop's exit edge: the taken path is the reconvergence pc itself.
    gmmu_simt_split d = gmmu_simt_divergence(1, 10, 30, true, true, 18, 18);
    EXPECT_TRUE(d.divergent);
    EXPECT_FALSE(d.push_taken);
    EXPECT_TRUE(d.push_fall);
    EXPECT_EQ(d.depth, 2u);
    // An empty else: the fall-through is the reconvergence pc.
    d = gmmu_simt_divergence(1, 10, 30, true, true, 4, 11);
    EXPECT_TRUE(d.push_taken);
    EXPECT_FALSE(d.push_fall);
    EXPECT_EQ(d.depth, 2u);
}

TEST(SimtDivergenceTest, ASplitAtTheTopsOwnReconvergencePcReplacesTheTop)
{
    // The loop's back edge splits again each trip: no second waiting entry.
    const gmmu_simt_split d = gmmu_simt_divergence(3, 10, 18, true, true, 4, 18);
    EXPECT_TRUE(d.divergent);
    EXPECT_TRUE(d.reuse);
    EXPECT_EQ(d.base, 2u);
    EXPECT_EQ(d.depth, 4u); // 2 + both paths; 5 if the top were kept
}

// ---- post-dominators -----------------------------------------------------------

std::unique_ptr<gmmu_kernel> hand(const std::vector<gmmu_insn> &code)
{
    auto k = std::make_unique<gmmu_kernel>();
    std::snprintf(k->name, sizeof k->name, "hand");
    k->nregs = 8;
    k->warps_per_block = 1;
    k->grid_blocks = 1;
    k->ninsns = (uint32_t)code.size();
    for (size_t i = 0; i < code.size(); i++)
        k->code[i] = code[i];
    return k;
}

gmmu_insn op(gmmu_op o, int64_t imm = 0, uint8_t a = 4)
{
    gmmu_insn in{};
    in.op = (uint8_t)o;
    in.dst = 5;
    in.src[0] = a;
    in.src[1] = a;
    in.src[2] = a;
    in.imm = imm;
    return in;
}

std::vector<uint32_t> ipdoms(const gmmu_kernel *k)
{
    std::vector<uint32_t> v(k->ninsns);
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_ipdom(k, v.data(), &err), GMMU_OK) << err.msg;
    return v;
}

TEST(KernelCfgTest, StraightLineIpdomIsTheNextInstruction)
{
    auto k = hand({op(GMMU_OP_ADDI), op(GMMU_OP_ADDI), op(GMMU_OP_ADDI)});
    EXPECT_EQ(ipdoms(k.get()), (std::vector<uint32_t>{1, 2, 3}));
}

TEST(KernelCfgTest, IfElseLoopAndEarlyExit)
{
    // 0: BRNZ -> 3   1: ADDI   2: JMP 4   3: ADDI   4: ADDI
    auto ife = hand({op(GMMU_OP_BRNZ, 3), op(GMMU_OP_ADDI), op(GMMU_OP_JMP, 4), op(GMMU_OP_ADDI),
                     op(GMMU_OP_ADDI)});
    EXPECT_EQ(ipdoms(ife.get()), (std::vector<uint32_t>{4, 2, 4, 4, 5}));
    // 0: ADDI  1: JMP 3  2: ADDI (body)  3: BRNZ -> 2 (test)  4: ADDI
    auto loop = hand({op(GMMU_OP_ADDI), op(GMMU_OP_JMP, 3), op(GMMU_OP_ADDI), op(GMMU_OP_BRNZ, 2),
                      op(GMMU_OP_ADDI)});
    EXPECT_EQ(ipdoms(loop.get()), (std::vector<uint32_t>{1, 3, 3, 4, 5}));
    // 0: BRNZ -> 3 (to the exit)  1: ADDI  2: ADDI
    auto early = hand({op(GMMU_OP_BRNZ, 3), op(GMMU_OP_ADDI), op(GMMU_OP_ADDI)});
    EXPECT_EQ(ipdoms(early.get()), (std::vector<uint32_t>{3, 2, 3}));
    // A loop with a break: 0: ADDI  1: BRNZ -> 4 (break)  2: ADDI  3: BRNZ -> 0  4: ADDI
    auto brk = hand({op(GMMU_OP_ADDI), op(GMMU_OP_BRNZ, 4), op(GMMU_OP_ADDI), op(GMMU_OP_BRNZ, 0),
                     op(GMMU_OP_ADDI)});
    EXPECT_EQ(ipdoms(brk.get()), (std::vector<uint32_t>{1, 4, 3, 4, 5}));
}

TEST(KernelCfgTest, BadTargetAndNoWayOutAreRefusedWithNameAndIndex)
{
    gmmu_error err{};
    auto bad = hand({op(GMMU_OP_ADDI), op(GMMU_OP_BRNZ, 7), op(GMMU_OP_ADDI)});
    EXPECT_EQ(gmmu_kernel_check(bad.get(), &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "kernel.code");
    EXPECT_NE(std::string(err.msg).find("kernel 'hand' instruction 1"), std::string::npos) << err.msg;
    EXPECT_NE(std::string(err.msg).find("target 7"), std::string::npos) << err.msg;
    auto neg = hand({op(GMMU_OP_JMP, -1)});
    EXPECT_EQ(gmmu_kernel_check(neg.get(), &err), GMMU_EINVAL);
    EXPECT_NE(std::string(err.msg).find("instruction 0"), std::string::npos) << err.msg;
    // 0: ADDI  1: JMP 1 (spins forever)  2: ADDI
    auto spin = hand({op(GMMU_OP_ADDI), op(GMMU_OP_JMP, 1), op(GMMU_OP_ADDI)});
    EXPECT_EQ(gmmu_kernel_check(spin.get(), &err), GMMU_EINVAL);
    EXPECT_NE(std::string(err.msg).find("kernel 'hand' instruction"), std::string::npos) << err.msg;
    EXPECT_NE(std::string(err.msg).find("no path"), std::string::npos) << err.msg;
    // The exit itself is a valid target.
    auto ok = hand({op(GMMU_OP_BRNZ, 2), op(GMMU_OP_ADDI)});
    EXPECT_EQ(gmmu_kernel_check(ok.get(), &err), GMMU_OK) << err.msg;
}

TEST(KernelCfgTest, DivergentBuildersHaveBranchesAndValidControlFlow)
{
    for (const char *name : {"bfs-like", "mummer-like", "memcached-like", "kmeans-like",
                             "streamcluster-like", "pathfinder-like"}) {
        auto k = std::make_unique<gmmu_kernel>();
        gmmu_error err{};
        ASSERT_EQ(gmmu_kernel_build(k.get(), name, nullptr, &err), GMMU_OK) << name << ": " << err.msg;
        unsigned br = 0;
        for (uint32_t i = 0; i < k->ninsns; i++)
            br += gmmu_op_is_branch((gmmu_op)k->code[i].op);
        EXPECT_GE(br, 1u) << name;
        std::vector<uint32_t> v(k->ninsns);
        EXPECT_EQ(gmmu_kernel_ipdom(k.get(), v.data(), &err), GMMU_OK) << name;
    }
}

} // namespace
