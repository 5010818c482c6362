// Fault-resolution cost model: link costs, 64 KB merging, queue positions,
// GPU-local handling of first-touch faults.
#include <gtest/gtest.h>

extern "C" {
#include "gmmu/fault_handler.h"
}

namespace {

struct FaultHandlerTest : ::testing::Test {
    gmmu_fault_handler *fh = nullptr;
    void TearDown() override { gmmu_fault_handler_destroy(fh); }
    void make(const gmmu_fault_handler_config &c)
    {
        gmmu_error err{};
        ASSERT_EQ(gmmu_fault_handler_create(&c, &fh, &err), GMMU_OK) << err.field;
    }
};

TEST_F(FaultHandlerTest, PaperCostsPerLink)
{
    gmmu_fault_handler_config c;
    gmmu_fault_handler_config_default(&c, GMMU_LINK_NVLINK);
    EXPECT_EQ(c.cpu_transfer_ns, 12000u);
    EXPECT_EQ(c.cpu_alloc_ns, 10000u);
    EXPECT_EQ(c.granularity_shift, 16u);
    EXPECT_EQ(c.local_ns, 20000u);
    make(c);
    gmmu_fault_ticket t;
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 100, 0x10000000, GMMU_FAULT_MIGRATE, &t), GMMU_OK);
    EXPECT_EQ(t.ready, 100u + 12000u);
    EXPECT_EQ(t.queue_pos, 0u);
    gmmu_fault_handler_destroy(fh);
    gmmu_fault_handler_config_default(&c, GMMU_LINK_PCIE);
    EXPECT_EQ(c.cpu_transfer_ns, 25000u);
    EXPECT_EQ(c.cpu_alloc_ns, 12000u);
    make(c);
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 0, 0x10000000, GMMU_FAULT_FIRST_TOUCH, &t), GMMU_OK);
    EXPECT_EQ(t.ready, 12000u);
}

TEST_F(FaultHandlerTest, SixtyFourKilobyteRegionsMergeAndTheCpuServesOneByOne)
{
    gmmu_fault_handler_config c;
    gmmu_fault_handler_config_default(&c, GMMU_LINK_NVLINK);
    make(c);
    gmmu_fault_ticket a, b, d;
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 0, 0x10000000, GMMU_FAULT_MIGRATE, &a), GMMU_OK);
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 5, 0x1000F000, GMMU_FAULT_MIGRATE, &b), GMMU_OK);
    EXPECT_TRUE(b.merged); // same 64 KiB region
    EXPECT_EQ(b.ready, a.ready);
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 10, 0x10010000, GMMU_FAULT_MIGRATE, &d), GMMU_OK);
    EXPECT_FALSE(d.merged);
    EXPECT_EQ(d.ready, a.ready + 12000u); // queued behind the first
    EXPECT_EQ(d.queue_pos, 1u);
    EXPECT_EQ(gmmu_fault_handler_pending(fh, 10), 2u);
    EXPECT_EQ(gmmu_fault_handler_pending(fh, a.ready), 1u);
}

TEST_F(FaultHandlerTest, LocalHandlingServesFirstTouchInParallelMigrationsStillGoToCpu)
{
    gmmu_fault_handler_config c;
    gmmu_fault_handler_config_default(&c, GMMU_LINK_NVLINK);
    c.local_first_touch = true;
    make(c);
    gmmu_fault_ticket t[8];
    for (int i = 0; i < 8; i++)
        ASSERT_EQ(gmmu_fault_handler_raise(fh, 0, 0x20000000ull + (uint64_t)i * 0x10000,
                                           GMMU_FAULT_FIRST_TOUCH, &t[i]), GMMU_OK);
    for (int i = 0; i < 8; i++) {
        EXPECT_TRUE(t[i].local);
        EXPECT_EQ(t[i].ready, 20000u); // concurrent, 20 us each
    }
    gmmu_fault_ticket m;
    ASSERT_EQ(gmmu_fault_handler_raise(fh, 0, 0x30000000, GMMU_FAULT_MIGRATE, &m), GMMU_OK);
    EXPECT_FALSE(m.local);
    EXPECT_EQ(m.ready, 12000u);
}

TEST_F(FaultHandlerTest, BadConfigsNameTheField)
{
    gmmu_fault_handler_config c;
    gmmu_fault_handler_config_default(&c, GMMU_LINK_NVLINK);
    c.granularity_shift = 8;
    gmmu_error err{};
    EXPECT_EQ(gmmu_fault_handler_create(&c, &fh, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "granularity_shift");
    gmmu_fault_handler_config_default(&c, GMMU_LINK_NVLINK);
    c.cpu_servers = 0;
    EXPECT_EQ(gmmu_fault_handler_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "cpu_servers");
}

} // namespace
