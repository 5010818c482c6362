// The data cache component between an initiator and the memory: timing of
// hits, misses, fills in flight, posted writes and write-backs, and data that
// reads back exactly through the cache.
#include <gtest/gtest.h>

#include "gmmu/components/cache.h"
#include "gmmu/components/memory.h"
#include "tlm_harness.h"

using namespace sc_core;

namespace {

constexpr unsigned mem_lat = 100;

gmmu_cache_config cfg(uint64_t bytes, uint32_t ways, bool wa, uint32_t hit)
{
    gmmu_cache_config c;
    gmmu_cache_config_default(&c);
    c.bytes = bytes;
    c.ways = ways;
    c.line_bytes = 128;
    c.hit_cycles = hit;
    c.write_allocate = wa;
    return c;
}

struct CacheComponentTest : ::testing::Test {
    TestInitiator ini{"ini"};
    gmmu::data_cache l1{"l1", cfg(1024, 2, false, 4), sc_time(1, SC_NS)};
    gmmu::data_cache l2{"l2", cfg(2048, 1, true, 10), sc_time(1, SC_NS)};
    gmmu::memory mem{"mem", mem_lat, sc_time(1, SC_NS)};
    void SetUp() override
    {
        ini.isock.bind(l1.tsock);
        l1.isock.bind(l2.tsock);
        l2.isock.bind(mem.tsock);
        sc_start(SC_ZERO_TIME);
    }
};

TEST_F(CacheComponentTest, ReadMissThenHitAndDataReadsBackExactly)
{
    mem.write64(0x1000, 0xABCDEF);
    uint64_t v = 0;
    sc_time d = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x1000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0xABCDEFu);
    EXPECT_EQ(d, sc_time(4 + 10 + mem_lat, SC_NS)); // L1 miss, L2 miss, memory
    const sc_time t1 = d;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x1008, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d - t1, sc_time(4, SC_NS)); // L1 hit
    nlohmann::json j;
    mem.dump_stats(j);
    EXPECT_EQ(j["reads"], 1u); // the hit reached the memory by debug transport only
    EXPECT_EQ(l1.model().st.read_hits, 1u);
}

TEST_F(CacheComponentTest, ReadOfALineStillBeingFilledWaitsForTheFill)
{
    uint64_t v = 0;
    sc_time d1 = SC_ZERO_TIME, d2 = SC_ZERO_TIME;
    ini.access(tlm::TLM_READ_COMMAND, 0x2000, &v, 8, d1);
    ini.access(tlm::TLM_READ_COMMAND, 0x2010, &v, 8, d2); // same time, same line
    EXPECT_EQ(d2, d1);
    EXPECT_EQ(l1.model().st.hits_under_fill, 1u);
}

TEST_F(CacheComponentTest, WritesArePostedAtTheL1AndAbsorbedByTheWriteBackL2)
{
    uint64_t v = 42;
    sc_time d = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x3000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d, sc_time(4, SC_NS)); // the writer waits for the L1 only
    EXPECT_EQ(mem.read64(0x3000), 42u); // the data is in memory
    EXPECT_EQ(l2.model().st.write_misses, 1u);
    nlohmann::json j;
    mem.dump_stats(j);
    EXPECT_EQ(j["writes"], 0u); // the L2 holds it dirty: no memory write yet
    // A read of a line in the same L2 set (direct mapped, 16 sets) evicts the
    // dirty line: a write-back reaches the memory.
    uint64_t back = 0;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x3000 + 16 * 128, &back, 8, d), tlm::TLM_OK_RESPONSE);
    mem.dump_stats(j);
    EXPECT_EQ(j["writes"], 1u);
    EXPECT_EQ(l2.model().st.writebacks, 1u);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x3000, &back, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(back, 42u); // and the value reads back exactly after the write-back
}

TEST_F(CacheComponentTest, WarpPayloadsLookUpEveryLineAndReportTheirDataDelay)
{
    gmmu::warp_ext ext;
    ext.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < 32; l++) {
        ext.va[l] = ext.pa[l] = 0x8000 + 64ull * l; // 16 lines
        ext.data[l] = 1000 + l;
    }
    sc_time d = SC_ZERO_TIME;
    ASSERT_EQ(ini.warp(tlm::TLM_WRITE_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
    for (unsigned l = 0; l < 32; l++)
        EXPECT_EQ(mem.read64(0x8000 + 64ull * l), 1000u + l);
    const sc_time t1 = d;
    for (unsigned l = 0; l < 32; l++)
        ext.data[l] = 0;
    ASSERT_EQ(ini.warp(tlm::TLM_READ_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
    for (unsigned l = 0; l < 32; l++)
        EXPECT_EQ(ext.data[l], 1000u + l);
    EXPECT_EQ(l1.model().st.read_misses, 16u); // no write-allocate in the L1
    EXPECT_EQ(ext.data_delay, d - t1);
    EXPECT_EQ(l2.model().st.read_hits, 16u); // the L2 allocated on the writes
}

TEST(CacheComponentConfig, BadGeometryIsReportedWithTheField)
{
    gmmu_cache_config c = cfg(1024, 3, false, 1);
    EXPECT_THROW(gmmu::data_cache("bad", c, sc_time(1, SC_NS)), sc_core::sc_report);
}

// The SM's L1 (reports_to_warp) reports its misses and victims for CCWS in
// the access's sched_sideband_ext, and only when the access carries one: a
// machine without such a scheduler attaches none and the cache writes nothing.
TEST_F(CacheComponentTest, L1ReportsMissesAndVictimsOnlyIntoAnAttachedSchedulerSideband)
{
    l1.reports_to_warp = true;
    gmmu::warp_ext ext;
    ext.active = 1;
    gmmu::sched_sideband_ext sb;
    auto read = [&](uint64_t addr, bool with_sb) {
        ext.va[0] = ext.pa[0] = addr;
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(addr);
        gp.set_data_ptr(nullptr);
        gp.set_data_length(0);
        gp.set_extension(&ext);
        if (with_sb)
            gp.set_extension(&sb);
        sb.clear();
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = SC_ZERO_TIME;
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&ext);
        if (with_sb)
            gp.clear_extension(&sb);
        return gp.get_response_status();
    };
    // 1 KiB, 2 ways, 128-B lines: 4 sets; 0x0, 0x200 and 0x400 share set 0.
    ext.block = 3;
    ext.warp = 5;
    ASSERT_EQ(read(0x0, true), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(sb.l1_miss);
    EXPECT_FALSE(sb.l1_victim); // an empty way
    ASSERT_EQ(read(0x0, true), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(sb.l1_miss); // a hit
    ASSERT_EQ(read(0x200, false), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(sb.l1_miss); // a miss, but nobody asked
    EXPECT_EQ(l1.model().st.read_misses, 2u);
    ext.block = 4;
    ext.warp = 6;
    ASSERT_EQ(read(0x400, true), tlm::TLM_OK_RESPONSE); // evicts the LRU line 0x0
    EXPECT_TRUE(sb.l1_miss);
    EXPECT_TRUE(sb.l1_victim);
    EXPECT_EQ(sb.l1_victim_addr, 0x0u);
    EXPECT_EQ(sb.l1_victim_owner, 3u << 6 | 5u); // block << 6 | warp of the access that filled it
    // A cache that is not an SM's L1 (an L2) never reports, sideband or not.
    l1.reports_to_warp = false;
    ASSERT_EQ(read(0x600, true), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(sb.l1_miss);
    EXPECT_FALSE(sb.l1_victim);
    EXPECT_EQ(l1.model().st.read_misses, 4u);
}

} // namespace
