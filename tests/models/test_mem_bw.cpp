// The memory's bandwidth windows (models/src/mem_bw.c): the window an access
// is booked in, the wait, out-of-order arrivals, oversized and saturated
// bookings, and the warp access's sector rounding.
#include <gtest/gtest.h>

#include <memory>

extern "C" {
#include "gmmu/mem_bw.h"
}

namespace {

using bw_ptr = std::unique_ptr<gmmu_mem_bw, void (*)(gmmu_mem_bw *)>;

bw_ptr make(uint32_t bytes_per_cycle)
{
    gmmu_mem_bw_config c{};
    c.bytes_per_cycle = bytes_per_cycle;
    gmmu_mem_bw *b = nullptr;
    gmmu_error err{};
    EXPECT_EQ(gmmu_mem_bw_create(&c, &b, &err), GMMU_OK) << err.field << ": " << err.msg;
    return bw_ptr(b, &gmmu_mem_bw_destroy);
}

TEST(MemBw, CreateRefusesZeroAndNamesTheField)
{
    gmmu_mem_bw_config c{};
    gmmu_mem_bw *b = reinterpret_cast<gmmu_mem_bw *>(1);
    gmmu_error err{};
    EXPECT_EQ(gmmu_mem_bw_create(&c, &b, &err), GMMU_EINVAL);
    EXPECT_EQ(b, nullptr);
    EXPECT_STREQ(err.field, "bytes_per_cycle");
    gmmu_mem_bw_destroy(nullptr);
}

TEST(MemBw, AnAccessWaitsForTheFirstLaterWindowWithRoom)
{
    auto b = make(1); // 64 bytes per 64-cycle window
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 10, 32), 0u);  // window 0: 32 of 64
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 20, 32), 0u);  // window 0 full
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 30, 32), 34u); // window 1 starts at 64
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 40, 64), 88u); // window 1 has 32 left: window 2 (128)
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 100, 32), 0u); // its own window 1, 32 left
    EXPECT_EQ(b->st.bytes_booked, 192u);
    EXPECT_EQ(b->st.waits, 2u);
    EXPECT_EQ(b->st.wait_cycles, 122u);
}

TEST(MemBw, ABookingAheadInTimeNeverDelaysAnEarlierAccess)
{
    auto b = make(1);
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 1000, 64), 0u); // fills window 15
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 5, 64), 0u);    // arrives later, earlier in time: window 0
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 990, 16), 34u); // window 15 is full: window 16 (1024)
    EXPECT_EQ(b->st.waits, 1u);
}

TEST(MemBw, AnAccessLargerThanAWindowTakesAnEmptyOne)
{
    auto b = make(1);
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 0, 1000), 0u); // empty window 0 takes it whole
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 1, 1), 63u);   // window 0 is over-full
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 2, 1000), 126u); // window 1 has a byte: window 2
}

TEST(MemBw, ASlotReusedByALaterWindowStartsEmpty)
{
    auto b = make(1);
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 0, 64), 0u);
    // One ring later the same slot holds another window: its bytes are not the old ones'.
    const uint64_t later = uint64_t(GMMU_MEM_BW_RING) * GMMU_MEM_BW_WINDOW_CYCLES;
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), later, 64), 0u);
    EXPECT_EQ(b->st.waits, 0u);
}

TEST(MemBw, ASaturatedRingWaitsAWholeRingAhead)
{
    auto b = make(1);
    for (uint32_t w = 0; w < GMMU_MEM_BW_RING; w++)
        ASSERT_EQ(gmmu_mem_bw_book(b.get(), uint64_t(w) * GMMU_MEM_BW_WINDOW_CYCLES, 64), 0u);
    const uint64_t ring = uint64_t(GMMU_MEM_BW_RING) * GMMU_MEM_BW_WINDOW_CYCLES;
    EXPECT_EQ(gmmu_mem_bw_book(b.get(), 7, 1), ring - 7);
    EXPECT_EQ(b->st.waits, 1u);
    EXPECT_EQ(b->st.wait_cycles, ring - 7);
}

TEST(MemBw, AWarpAccessMovesWhole32ByteSectors)
{
    EXPECT_EQ(gmmu_mem_bw_warp_bytes(0, 8), 0u);
    EXPECT_EQ(gmmu_mem_bw_warp_bytes(1, 4), 32u);
    EXPECT_EQ(gmmu_mem_bw_warp_bytes(4, 8), 32u);
    EXPECT_EQ(gmmu_mem_bw_warp_bytes(5, 8), 64u);
    EXPECT_EQ(gmmu_mem_bw_warp_bytes(32, 8), 256u);
}

} // namespace
