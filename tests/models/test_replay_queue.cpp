// Replay queue: program order, out-of-order commit, squash and replay.
#include <gtest/gtest.h>

#include <memory>

extern "C" {
#include "gmmu/replay_queue.h"
}

namespace {

using Rq = std::unique_ptr<gmmu_replay_queue, void (*)(gmmu_replay_queue *)>;

Rq make(uint32_t entries)
{
    const gmmu_rq_config c{entries};
    gmmu_replay_queue *q = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_rq_create(&c, &q, &err), GMMU_OK) << err.field << ": " << err.msg;
    return Rq(q, &gmmu_rq_destroy);
}

TEST(ReplayQueueTest, CommitsOutOfOrderKeepsProgramOrder)
{
    const Rq q = make(4);
    ASSERT_NE(q, nullptr);
    for (uint32_t pc = 10; pc < 14; pc++)
        ASSERT_EQ(gmmu_rq_push(q.get(), pc, 0xFFFFFFFFu, pc + 100, 0, nullptr), GMMU_OK);
    EXPECT_TRUE(gmmu_rq_full(q.get()));
    EXPECT_EQ(gmmu_rq_push(q.get(), 14, 0xFFFFFFFFu, 114, 0, nullptr), GMMU_EBUSY);
    ASSERT_EQ(gmmu_rq_commit(q.get(), 112), GMMU_OK); // younger commits first
    ASSERT_EQ(q->n, 3u);
    EXPECT_EQ(q->e[0].pc, 10u);
    EXPECT_EQ(q->e[1].pc, 11u);
    EXPECT_EQ(q->e[2].pc, 13u);
    EXPECT_EQ(gmmu_rq_commit(q.get(), 112), GMMU_EINVAL);
}

TEST(ReplayQueueTest, FaultedEntriesReplayOldestFirstWithTheirLogEntries)
{
    const Rq q = make(8);
    ASSERT_NE(q, nullptr);
    uint32_t li[2] = {5, 6};
    ASSERT_EQ(gmmu_rq_push(q.get(), 1, 0x0000FFFFu, 1, 1, li), GMMU_OK); // a divergent path's lanes
    ASSERT_EQ(gmmu_rq_push(q.get(), 2, 0xFFFFFFFFu, 2, 0, nullptr), GMMU_OK);
    ASSERT_EQ(gmmu_rq_push(q.get(), 3, 0x80000001u, 3, 2, li), GMMU_OK);
    EXPECT_EQ(gmmu_rq_push(q.get(), 4, 0u, 4, 0, nullptr), GMMU_EINVAL); // no lanes
    // Sparse replay: 2 commits; 3 and 1 fault (in that order).
    ASSERT_EQ(gmmu_rq_commit(q.get(), 2), GMMU_OK);
    ASSERT_EQ(gmmu_rq_fault(q.get(), 3), GMMU_OK);
    ASSERT_EQ(gmmu_rq_fault(q.get(), 1), GMMU_OK);
    EXPECT_EQ(q->nfaulted, 2u);
    uint32_t pos;
    ASSERT_EQ(gmmu_rq_next_replay(q.get(), &pos), GMMU_OK);
    EXPECT_EQ(q->e[pos].pc, 1u); // oldest in program order, not in fault order
    EXPECT_EQ(q->e[pos].lanes, 0x0000FFFFu);
    EXPECT_EQ(q->e[pos].log_n, 1u);
    EXPECT_EQ(q->e[pos].log_idx[0], 5u);
    ASSERT_EQ(gmmu_rq_replay(q.get(), pos, 40), GMMU_OK);
    ASSERT_EQ(gmmu_rq_next_replay(q.get(), &pos), GMMU_OK);
    EXPECT_EQ(q->e[pos].pc, 3u);
    EXPECT_EQ(q->e[pos].lanes, 0x80000001u);
    EXPECT_EQ(q->e[pos].log_n, 2u);
    EXPECT_EQ(q->e[pos].log_idx[1], 6u);
    ASSERT_EQ(gmmu_rq_replay(q.get(), pos, 41), GMMU_OK);
    EXPECT_EQ(gmmu_rq_next_replay(q.get(), &pos), GMMU_EINVAL);
    ASSERT_EQ(gmmu_rq_commit(q.get(), 40), GMMU_OK);
    ASSERT_EQ(gmmu_rq_commit(q.get(), 41), GMMU_OK);
    EXPECT_EQ(q->n, 0u);
    EXPECT_EQ(q->replays, 2u);
}

TEST(ReplayQueueTest, BadCapacityNamesTheField)
{
    gmmu_replay_queue *q = nullptr;
    gmmu_error err{};
    gmmu_rq_config c{0};
    EXPECT_EQ(gmmu_rq_create(&c, &q, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "replay_queue_entries");
    c.entries = GMMU_RQ_MAX + 1;
    EXPECT_EQ(gmmu_rq_create(&c, &q, &err), GMMU_EINVAL);
    EXPECT_EQ(q, nullptr);
    EXPECT_EQ(gmmu_rq_create(nullptr, &q, &err), GMMU_EINVAL);
}

} // namespace
