// Operand log: partitioning, entry accounting, data, context save/restore.
#include <gtest/gtest.h>

#include <cstdint>

extern "C" {
#include "gmmu/oplog.h"
}

namespace {

struct OplogTest : ::testing::Test {
    gmmu_oplog *log = nullptr;
    void TearDown() override { gmmu_oplog_destroy(log); }
    void make(uint32_t bytes, uint32_t parts)
    {
        gmmu_oplog_config c{bytes, parts};
        gmmu_error err{};
        ASSERT_EQ(gmmu_oplog_create(&c, &log, &err), GMMU_OK) << err.field << ": " << err.msg;
    }
};

TEST_F(OplogTest, SplitEvenlyAmongResidentBlocksAtLaunch)
{
    make(16384, 16);
    EXPECT_EQ(gmmu_oplog_partition_entries(log), 4u);
    EXPECT_EQ(gmmu_oplog_partition_bytes(log), 1024u);
    gmmu_oplog_destroy(log);
    make(16384, 2); // low occupancy: more entries per block
    EXPECT_EQ(gmmu_oplog_partition_entries(log), 32u);
}

TEST_F(OplogTest, EightKilobytesIsTheMinimumForSixteenBlocks)
{
    gmmu_oplog_config c{4096, 16};
    gmmu_error err{};
    EXPECT_EQ(gmmu_oplog_create(&c, &log, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "oplog_bytes");
    c.bytes = 8192; // 16 blocks x one store (2 x 256 B)
    EXPECT_EQ(gmmu_oplog_create(&c, &log, &err), GMMU_OK);
    EXPECT_EQ(gmmu_oplog_partition_entries(log), 2u);
}

TEST_F(OplogTest, BadConfigsNameTheField)
{
    gmmu_error err{};
    gmmu_oplog_config c{1000, 1};
    EXPECT_EQ(gmmu_oplog_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "oplog_bytes");
    c = {8192, 0};
    EXPECT_EQ(gmmu_oplog_config_check(&c, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "oplog.partitions");
}

TEST_F(OplogTest, FullPartitionRefusesAllocationOthersUnaffected)
{
    make(8192, 8); // 4 entries per block
    uint32_t idx[2];
    ASSERT_EQ(gmmu_oplog_alloc(log, 3, 1, idx), GMMU_OK); // a load
    ASSERT_EQ(gmmu_oplog_alloc(log, 3, 2, idx), GMMU_OK); // a store
    EXPECT_EQ(gmmu_oplog_free_entries(log, 3), 1u);
    EXPECT_EQ(gmmu_oplog_alloc(log, 3, 2, idx), GMMU_EBUSY); // second store does not fit
    EXPECT_EQ(log->st.full, 1u);
    EXPECT_EQ(gmmu_oplog_free_entries(log, 3), 1u);          // nothing half-allocated
    EXPECT_EQ(gmmu_oplog_alloc(log, 4, 2, idx), GMMU_OK);    // another block's partition
    ASSERT_EQ(gmmu_oplog_alloc(log, 3, 1, idx), GMMU_OK);
    EXPECT_EQ(gmmu_oplog_free_entries(log, 3), 0u);
    ASSERT_EQ(gmmu_oplog_free(log, 3, idx[0]), GMMU_OK);
    EXPECT_EQ(gmmu_oplog_free_entries(log, 3), 1u);
    EXPECT_EQ(gmmu_oplog_free(log, 3, idx[0]), GMMU_EINVAL); // double free
}

TEST_F(OplogTest, WrittenOperandsReadBackAndSurviveAContextSwitch)
{
    make(8192, 4);
    uint32_t idx[2];
    ASSERT_EQ(gmmu_oplog_alloc(log, 1, 2, idx), GMMU_OK);
    uint64_t a[32], d[32], out[32];
    for (int l = 0; l < 32; l++) {
        a[l] = 0x1000u + 8u * l;
        d[l] = 0xABC000u + l;
    }
    ASSERT_EQ(gmmu_oplog_write(log, 1, idx[0], a), GMMU_OK);
    ASSERT_EQ(gmmu_oplog_write(log, 1, idx[1], d), GMMU_OK);
    uint32_t per = gmmu_oplog_partition_entries(log);
    std::vector<uint64_t> buf(per * 32);
    std::vector<uint8_t> used(per);
    gmmu_oplog_context ctx{buf.data(), used.data(), 0};
    ASSERT_EQ(gmmu_oplog_save(log, 1, &ctx), GMMU_OK);
    EXPECT_EQ(ctx.nused, 2u);
    EXPECT_EQ(gmmu_oplog_free_entries(log, 1), per); // partition handed to the next block
    EXPECT_EQ(gmmu_oplog_read(log, 1, idx[0], out), GMMU_EINVAL);
    // Restore into another slot's partition: same entry indices, same data.
    ASSERT_EQ(gmmu_oplog_restore(log, 2, &ctx), GMMU_OK);
    ASSERT_EQ(gmmu_oplog_read(log, 2, idx[0], out), GMMU_OK);
    EXPECT_EQ(0, memcmp(out, a, sizeof a));
    ASSERT_EQ(gmmu_oplog_read(log, 2, idx[1], out), GMMU_OK);
    EXPECT_EQ(0, memcmp(out, d, sizeof d));
    EXPECT_EQ(gmmu_oplog_free_entries(log, 2), per - 2);
    EXPECT_EQ(gmmu_oplog_restore(log, 2, &ctx), GMMU_EBUSY); // occupied partition
}

TEST_F(OplogTest, EntryIsAWarpWideSixtyFourBitOperand)
{
    EXPECT_EQ(GMMU_OPLOG_ENTRY_BYTES, 32u * 8u);
}

} // namespace
