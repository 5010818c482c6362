#include <gtest/gtest.h>

#include "components/memory.h"
#include "components/ptw.h"
#include "gpu/driver.h"
#include "tlm_harness.h"

using namespace sc_core;

namespace {

struct PtwTest : ::testing::TestWithParam<unsigned> {
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    std::unique_ptr<gmmu::ptw> walker;
    void build(unsigned walkers, unsigned fixed = 0)
    {
        gmmu::ptw_params p;
        p.walkers = walkers;
        p.fixed_walk_cycles = fixed;
        walker = std::make_unique<gmmu::ptw>("ptw", p);
        ini.isock.bind(walker->tsock);
        walker->pt_isock.bind(mem.tsock);
        walker->set_root(0, drv.root());
        sc_start(SC_ZERO_TIME);
    }
    gmmu::xlate_ext batch(std::vector<uint64_t> vas, sc_time &d)
    {
        gmmu::xlate_ext x;
        for (auto va : vas) {
            gmmu::xlate_req r;
            r.va = va;
            x.reqs.push_back(r);
        }
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        return x;
    }
};

TEST_F(PtwTest, WalkLatencyIsTheSumOfItsReads)
{
    build(1);
    drv.map(0x10000000, 4096, 12);
    drv.map(0x40000000, 1ull << 30, 30);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000123}, d);
    ASSERT_TRUE(x.reqs[0].done);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(x.reqs[0].pa, drv.translate(0x10000123));
    EXPECT_EQ(d, sc_time(4 * 25, SC_NS));
    sc_time d2 = SC_ZERO_TIME;
    x = batch({0x40000000 + 0x123456}, d2);
    EXPECT_EQ(x.reqs[0].page_shift, 30u);
    // Starts when the walker frees (t=100) and takes 2 reads (1 GiB page).
    EXPECT_EQ(d2, sc_time(100 + 2 * 25, SC_NS));
    nlohmann::json j;
    walker->dump_stats(j);
    EXPECT_EQ(j["walks"], 2u);
    EXPECT_EQ(j["pt_reads"], 6u);
}

TEST_F(PtwTest, OneWalkerSerializesAndTwoWalkOverlap)
{
    build(2);
    drv.map(0x10000000, 3 * 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000000, 0x10001000, 0x10002000}, d);
    EXPECT_EQ(x.reqs[0].ready, sc_time(100, SC_NS));
    EXPECT_EQ(x.reqs[1].ready, sc_time(100, SC_NS)); // second walker in parallel
    EXPECT_EQ(x.reqs[2].ready, sc_time(200, SC_NS)); // waits for a free walker
    EXPECT_EQ(d, sc_time(200, SC_NS));
}

TEST_F(PtwTest, FixedWalkLatencyOverridesReads)
{
    build(1, 500);
    drv.map(0x10000000, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    batch({0x10000000}, d);
    EXPECT_EQ(d, sc_time(500, SC_NS));
}

TEST_F(PtwTest, FaultsAreReportedPerRequest)
{
    build(1);
    drv.map(0x10000000, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000000, 0x20000000, 0x0000800000000000ull}, d);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(x.reqs[1].fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(x.reqs[2].fault, GMMU_FAULT_NONCANONICAL);
    gmmu::xlate_ext y;
    gmmu::xlate_req r;
    r.va = 0x10000000;
    r.asid = 9; // no root bound
    y.reqs.push_back(r);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_extension(&y);
    ini.isock->b_transport(gp, d);
    gp.clear_extension(&y);
    EXPECT_EQ(y.reqs[0].fault, GMMU_FAULT_NOT_PRESENT);
}

TEST_F(PtwTest, DataPayloadIsRejected)
{
    build(1);
    uint64_t v;
    sc_time d;
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0, &v, 8, d), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

TEST_F(PtwTest, SetsAccessedAndDirtyWhenConfigured)
{
    gmmu::ptw_params p;
    p.set_accessed_dirty = true;
    walker = std::make_unique<gmmu::ptw>("ptw_ad", p);
    ini.isock.bind(walker->tsock);
    walker->pt_isock.bind(mem.tsock);
    walker->set_root(0, drv.root());
    sc_start(SC_ZERO_TIME);
    drv.map(0x10000000, 4096, 12);
    gmmu::xlate_ext x;
    gmmu::xlate_req r;
    r.va = 0x10000000;
    r.write = true;
    x.reqs.push_back(r);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_extension(&x);
    sc_time d;
    ini.isock->b_transport(gp, d);
    gp.clear_extension(&x);
    EXPECT_TRUE(x.reqs[0].perms & GMMU_PTE_D);
    gmmu_mem_ops ops = drv.mem_ops();
    gmmu_walk_result w;
    ASSERT_EQ(gmmu_walk(&ops, drv.root(), 0x10000000, 0, &w), GMMU_OK);
    EXPECT_TRUE(w.pte & GMMU_PTE_A);
    EXPECT_TRUE(w.pte & GMMU_PTE_D);
}

} // namespace
