// The SM initiator (components/sm.h) outside the GPU platform: one SM with
// a warp source of the test's own drives an SoC-style translation path
// (its own memory target and x86-64 tables, an L1 TLB and a walker), as a
// user's virtual platform would. No gpu/ header is included.
#include <gtest/gtest.h>

#include <vector>

#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/sm.h"
#include "gmmu/components/tlb.h"
#include "gmmu/components/warp_source.h"
#include "test_space.h"

using namespace sc_core;

namespace {

constexpr uint64_t VBASE = 0x0000'5000'0000'0000ull, PBASE = 0x4000'0000ull;
constexpr unsigned PAGES = 16;

// Each warp stores 32 lanes spread over the pages, then loads them back;
// `hole` makes warp 1's last load touch an unmapped page.
struct StoreThenLoad : gmmu::warp_source {
    unsigned warps, rounds;
    bool hole = false;
    std::vector<unsigned> pos;
    uint64_t completions = 0;
    sc_time latency_sum;
    StoreThenLoad(unsigned w, unsigned r) : warps(w), rounds(r), pos(w, 0) {}
    uint64_t va(unsigned warp, unsigned round, unsigned lane) const
    {
        const unsigned page = (lane * 5 + round + warp) % PAGES;
        return VBASE + uint64_t(page) * 4096 + ((warp * 32 + lane) * 8 + round * 1024) % 4096;
    }
    bool next(unsigned, unsigned warp, gmmu::warp_op &op) override
    {
        const unsigned k = pos[warp]++;
        if (k >= 2 * rounds)
            return false;
        const unsigned round = k % rounds;
        op = gmmu::warp_op{};
        op.write = k < rounds;
        op.nlanes = 32;
        op.active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            op.va[l] = va(warp, round, l);
        if (hole && warp == 1 && k == 2 * rounds - 1)
            op.va[7] = VBASE + uint64_t(PAGES + 3) * 4096;
        return true;
    }
    void completed(unsigned, unsigned, const gmmu::warp_op &, const uint64_t *, const sc_time &,
                   const sc_time &latency) override
    {
        completions++;
        latency_sum += latency;
    }
    std::string name() const override { return "store-then-load"; }
};

gmmu::tlb_params l1_params()
{
    gmmu::tlb_params p;
    p.model.entries = 8; // fewer entries than pages: misses after the first round too
    p.model.ways = 2;
    p.model.page_shift = 12;
    p.model.lookup_cycles = 1;
    p.ports = 4;
    return p;
}

struct SmInitiatorTest : ::testing::Test {
    gmmu::memory mem{"mem", 20, sc_time(1, SC_NS)};
    Space space{mem, 0x0100'0000};
    std::unique_ptr<gmmu::tlb> l1;     // the translation path (not with bypass)
    std::unique_ptr<gmmu::ptw> walker;
    StoreThenLoad src{4, 3};
    gmmu::data_checker chk;
    std::unique_ptr<gmmu::sm> core;

    void build(bool bypass)
    {
        gmmu::sm_params p;
        p.id = 0;
        p.warps = src.warps;
        p.asid = 0;
        p.bypass = bypass;
        core = std::make_unique<gmmu::sm>("sm0", p, src, chk);
        if (bypass) {
            core->isock.bind(mem.tsock);
            return;
        }
        l1 = std::make_unique<gmmu::tlb>("l1", l1_params());
        walker = std::make_unique<gmmu::ptw>("ptw", gmmu::ptw_params{});
        core->isock.bind(l1->tsock);
        l1->isock.bind(mem.tsock);
        l1->miss_isock.bind(walker->tsock);
        walker->pt_isock.bind(mem.tsock);
        for (unsigned i = 0; i < PAGES; i++)
            space.map(VBASE + uint64_t(i) * 4096, PBASE + uint64_t(PAGES - 1 - i) * 4096);
        walker->set_root(0, space.pt->root);
    }
};

} // namespace

TEST_F(SmInitiatorTest, OneSmDrivesTheTranslationPathAndReadsBackWhatItWrote)
{
    build(false);
    sc_start();
    ASSERT_TRUE(core->finished());
    ASSERT_FALSE(core->failed()) << core->error_message();
    const uint64_t instrs = uint64_t(src.warps) * 2 * src.rounds;
    EXPECT_EQ(core->accesses(), instrs);
    EXPECT_EQ(src.completions, instrs);
    EXPECT_GT(src.latency_sum, SC_ZERO_TIME);
    EXPECT_EQ(chk.stores, instrs / 2 * 32);
    EXPECT_EQ(chk.checked, instrs / 2 * 32);
    EXPECT_EQ(chk.mismatches, 0u) << chk.first_mismatch;
    // The data sits at the frames the tables name (pages mapped in reverse).
    const uint64_t va = src.va(2, 1, 9);
    const gmmu_walk_result w = space.walk(va, false);
    EXPECT_EQ(mem.read64(w.pa), chk.pattern(va));
    nlohmann::json j;
    walker->dump_stats(j);
    EXPECT_GE(j["walks"].get<uint64_t>(), uint64_t(PAGES));
    nlohmann::json s;
    core->dump_stats(s);
    EXPECT_EQ(s["warp_accesses"], instrs);
    EXPECT_EQ(s["lanes"], instrs * 32);
}

TEST_F(SmInitiatorTest, AFaultEndsTheSmWithTheFaultAndItsAddress)
{
    src.hole = true;
    build(false);
    sc_start();
    ASSERT_TRUE(core->failed());
    EXPECT_NE(core->error_message().find("warp 1"), std::string::npos) << core->error_message();
    EXPECT_NE(core->error_message().find("0x500000013000"), std::string::npos)
        << core->error_message();
}

TEST_F(SmInitiatorTest, BypassedSmAddressesMemoryDirectly)
{
    build(true);
    sc_start();
    ASSERT_FALSE(core->failed()) << core->error_message();
    EXPECT_EQ(chk.mismatches, 0u) << chk.first_mismatch;
    // PA = VA
    const uint64_t va = src.va(0, 0, 0);
    EXPECT_EQ(mem.read64(va), chk.pattern(va));
}
