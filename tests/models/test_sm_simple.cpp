// The memory-instruction SM's issue decisions (models/src/sm_simple.c): issue
// width per cycle, non-memory work on the warp or on the SM's pipeline, and
// the replay of a not-present fault on a page being migrated.
#include <gtest/gtest.h>

#include <memory>
#include <string>

extern "C" {
#include "gmmu/sm_simple.h"
}

namespace {

using model_ptr = std::unique_ptr<gmmu_sm_simple, void (*)(gmmu_sm_simple *)>;

model_ptr make(const gmmu_sm_simple_config &c)
{
    gmmu_sm_simple *s = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_sm_simple_create(&c, &s, &err), GMMU_OK) << err.field << ": " << err.msg;
    return model_ptr(s, &gmmu_sm_simple_destroy);
}

gmmu_sm_simple_config base(uint32_t warps, uint32_t width)
{
    gmmu_sm_simple_config c{};
    c.warps = warps;
    c.issue_width = width;
    c.retry_cycles = 64;
    return c;
}

TEST(SmSimple, TheCycleAdvancesOnceItsIssueSlotsAreUsedUp)
{
    auto one = make(base(4, 1));
    for (int k = 0; k < 3; k++)
        EXPECT_TRUE(gmmu_sm_simple_issued(one.get())); // width 1: every issue ends the cycle

    auto three = make(base(4, 3));
    EXPECT_FALSE(gmmu_sm_simple_issued(three.get()));
    EXPECT_FALSE(gmmu_sm_simple_issued(three.get()));
    EXPECT_TRUE(gmmu_sm_simple_issued(three.get())); // third slot used: next cycle
    EXPECT_FALSE(gmmu_sm_simple_issued(three.get())); // the new cycle's slots are free
    // Time moved on to a warp's later ready time: the partly used cycle is gone.
    gmmu_sm_simple_new_cycle(three.get());
    EXPECT_FALSE(gmmu_sm_simple_issued(three.get()));
    EXPECT_FALSE(gmmu_sm_simple_issued(three.get()));
    EXPECT_TRUE(gmmu_sm_simple_issued(three.get()));
}

TEST(SmSimple, NonMemoryWorkDelaysOnlyItsWarpByDefault)
{
    auto s = make(base(2, 2));
    EXPECT_EQ(gmmu_sm_simple_completed(s.get(), 0, 40), 40u); // ready 40 cycles after the latency
    EXPECT_EQ(gmmu_sm_simple_pipeline(s.get(), 0), 0u);       // nothing owed to the pipeline
    EXPECT_EQ(gmmu_sm_simple_completed(s.get(), 1, 0), 0u);
}

TEST(SmSimple, OnThePipelineTheWarpOwesItsWorkUntilItIsPickedAgain)
{
    gmmu_sm_simple_config c = base(2, 2);
    c.compute_on_pipeline = true;
    auto s = make(c);
    EXPECT_EQ(gmmu_sm_simple_completed(s.get(), 0, 40), 0u); // ready right after the latency
    EXPECT_EQ(gmmu_sm_simple_completed(s.get(), 1, 7), 0u);
    EXPECT_FALSE(gmmu_sm_simple_issued(s.get())); // one of two slots used
    EXPECT_EQ(gmmu_sm_simple_pipeline(s.get(), 0), 40u);
    EXPECT_EQ(gmmu_sm_simple_pipeline(s.get(), 0), 0u); // paid once
    // Paying moved the SM to a new cycle: two free slots again.
    EXPECT_FALSE(gmmu_sm_simple_issued(s.get()));
    EXPECT_TRUE(gmmu_sm_simple_issued(s.get()));
    EXPECT_EQ(gmmu_sm_simple_pipeline(s.get(), 1), 7u);
    EXPECT_EQ(gmmu_sm_simple_pipeline(s.get(), 5), 0u); // no such warp
}

struct migrating {
    uint16_t asid = 3;
    uint64_t page = 0x7000;
    unsigned asked = 0;
};

bool in_flight(void *ctx, uint16_t asid, uint64_t va)
{
    auto *m = static_cast<migrating *>(ctx);
    m->asked++;
    return asid == m->asid && (va & ~0xFFFull) == m->page;
}

TEST(SmSimple, ANotPresentFaultOnAMigratingPageIsReplayedOnce)
{
    migrating m;
    gmmu_sm_simple_config c = base(4, 1);
    c.retry_cycles = 25;
    c.page_in_flight = in_flight;
    c.ctx = &m;
    auto s = make(c);
    uint32_t wait = 0;
    EXPECT_FALSE(gmmu_sm_simple_take_replay(s.get(), 2));
    ASSERT_TRUE(gmmu_sm_simple_fault(s.get(), 2, true, GMMU_FAULT_NOT_PRESENT, 3, 0x7008, &wait));
    EXPECT_EQ(wait, 25u);
    EXPECT_FALSE(gmmu_sm_simple_take_replay(s.get(), 1)); // only the faulted warp replays
    EXPECT_TRUE(gmmu_sm_simple_take_replay(s.get(), 2));
    EXPECT_FALSE(gmmu_sm_simple_take_replay(s.get(), 2)); // once
}

TEST(SmSimple, EveryOtherFailedAccessEndsTheRun)
{
    migrating m;
    gmmu_sm_simple_config c = base(4, 1);
    c.page_in_flight = in_flight;
    c.ctx = &m;
    auto s = make(c);
    uint32_t wait = 99;
    // Not migrating: another page, another address space.
    EXPECT_FALSE(gmmu_sm_simple_fault(s.get(), 0, true, GMMU_FAULT_NOT_PRESENT, 3, 0x8000, &wait));
    EXPECT_FALSE(gmmu_sm_simple_fault(s.get(), 0, true, GMMU_FAULT_NOT_PRESENT, 4, 0x7000, &wait));
    EXPECT_EQ(m.asked, 2u);
    // Another fault kind, or a failure that is no lane fault: the page is not asked about.
    EXPECT_FALSE(gmmu_sm_simple_fault(s.get(), 0, true, GMMU_FAULT_WRITE, 3, 0x7000, &wait));
    EXPECT_FALSE(gmmu_sm_simple_fault(s.get(), 0, false, GMMU_FAULT_NOT_PRESENT, 3, 0x7000, &wait));
    EXPECT_EQ(m.asked, 2u);
    EXPECT_EQ(wait, 99u);
    EXPECT_FALSE(gmmu_sm_simple_take_replay(s.get(), 0));
    // No migration at all: every fault ends the run.
    auto plain = make(base(4, 1));
    EXPECT_FALSE(gmmu_sm_simple_fault(plain.get(), 0, true, GMMU_FAULT_NOT_PRESENT, 3, 0x7000, &wait));
}

TEST(SmSimple, CreateNamesTheBadField)
{
    gmmu_sm_simple *s = nullptr;
    gmmu_error err{};
    gmmu_sm_simple_config c = base(0, 1);
    EXPECT_NE(gmmu_sm_simple_create(&c, &s, &err), GMMU_OK);
    EXPECT_EQ(std::string(err.field), "warps");
    c = base(GMMU_SM_SIMPLE_MAX_WARPS + 1, 1);
    EXPECT_NE(gmmu_sm_simple_create(&c, &s, &err), GMMU_OK);
    EXPECT_EQ(std::string(err.field), "warps");
    c = base(4, 0);
    EXPECT_NE(gmmu_sm_simple_create(&c, &s, &err), GMMU_OK);
    EXPECT_EQ(std::string(err.field), "issue_width");
    EXPECT_EQ(s, nullptr);
    EXPECT_NE(gmmu_sm_simple_create(nullptr, &s, &err), GMMU_OK);
    EXPECT_NE(gmmu_sm_simple_create(&c, nullptr, &err), GMMU_OK);
}

} // namespace
