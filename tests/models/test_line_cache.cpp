// Tests of the page-table-line cache (models/include/gmmu/line_cache.h).
#include <gtest/gtest.h>

#include <functional>

extern "C" {
#include "gmmu/line_cache.h"
}

namespace {

struct LineCache : ::testing::Test {
    gmmu_line_cache *lc = nullptr;
    gmmu_line_cache_config cfg{};
    void Init(uint32_t lines, uint32_t ways, uint32_t hit = 2, uint32_t miss = 3)
    {
        gmmu_line_cache_config_default(&cfg);
        cfg.lines = lines;
        cfg.ways = ways;
        cfg.hit_cycles = hit;
        cfg.miss_cycles = miss;
        ASSERT_EQ(gmmu_line_cache_create(&cfg, &lc, nullptr), GMMU_OK);
    }
    void TearDown() override { gmmu_line_cache_destroy(lc); }
    bool Access(uint64_t pa, uint64_t now, uint32_t mem_lat = 100, uint32_t *lat_out = nullptr)
    {
        uint32_t lat = 0;
        bool hit = false;
        EXPECT_EQ(gmmu_line_cache_access(lc, pa, now, mem_lat, &lat, &hit), GMMU_OK);
        if (lat_out)
            *lat_out = lat;
        return hit;
    }
};

TEST_F(LineCache, SixteenPtesOfALineShareOneMiss)
{
    Init(16, 4);
    EXPECT_FALSE(Access(0x10000, 0));
    for (unsigned i = 1; i < 16; i++)
        EXPECT_TRUE(Access(0x10000 + 8 * i, 1000)) << i;
    EXPECT_FALSE(Access(0x10080, 1000)); // next line
    EXPECT_EQ(lc->st.accesses, 17u);
    EXPECT_EQ(lc->st.hits, 15u);
    EXPECT_EQ(lc->st.misses, 2u);
}

TEST_F(LineCache, MissCostsLookupPlusMemoryAndHitUnderFillWaitsForTheFill)
{
    Init(16, 4, 2, 3);
    uint32_t lat = 0;
    EXPECT_FALSE(Access(0x2000, 10, 100, &lat));
    EXPECT_EQ(lat, 103u); // fill completes at 113
    EXPECT_TRUE(Access(0x2008, 11, 100, &lat));
    EXPECT_EQ(lat, 102u); // returns with the fill
    EXPECT_EQ(lc->st.hits_pending, 1u);
    EXPECT_TRUE(Access(0x2010, 112, 100, &lat));
    EXPECT_EQ(lat, 2u); // 1 cycle left, but never faster than a hit
    EXPECT_TRUE(Access(0x2018, 500, 100, &lat));
    EXPECT_EQ(lat, 2u);
    EXPECT_EQ(lc->st.hits_pending, 2u);
}

TEST_F(LineCache, LeastRecentlyUsedLineOfTheSetIsEvicted)
{
    Init(8, 2); // 4 sets x 2 ways; lines 0, 4, 8 map to set 0
    const uint64_t L = 128;
    Access(0 * L, 0);
    Access(4 * L, 0);
    EXPECT_TRUE(Access(0 * L, 1000)); // 0 is now MRU, 4 LRU
    EXPECT_FALSE(Access(8 * L, 1000)); // evicts 4
    EXPECT_EQ(lc->st.evictions, 1u);
    EXPECT_TRUE(gmmu_line_cache_probe(lc, 0));
    EXPECT_FALSE(gmmu_line_cache_probe(lc, 4 * L));
    EXPECT_TRUE(gmmu_line_cache_probe(lc, 8 * L));
    EXPECT_TRUE(gmmu_line_cache_probe(lc, 1 * L) == false);
    gmmu_line_cache_flush(lc);
    EXPECT_FALSE(gmmu_line_cache_probe(lc, 0));
}

TEST_F(LineCache, OtherSetsAreUntouched)
{
    Init(8, 2);
    for (uint64_t l = 0; l < 8; l++)
        Access(l * 128, 0);
    EXPECT_EQ(lc->st.evictions, 0u); // 8 lines, 4 sets x 2 ways, two per set
    for (uint64_t l = 0; l < 8; l++)
        EXPECT_TRUE(gmmu_line_cache_probe(lc, l * 128)) << l;
}

TEST(LineCacheConfig, BadFieldsAreNamed)
{
    struct Case { const char *field; std::function<void(gmmu_line_cache_config &)> set; };
    const Case cases[] = {
        {"lines", [](gmmu_line_cache_config &c) { c.lines = 0; }},
        {"ways", [](gmmu_line_cache_config &c) { c.ways = 0; }},
        {"ways", [](gmmu_line_cache_config &c) { c.ways = c.lines + 1; }},
        {"ways", [](gmmu_line_cache_config &c) { c.lines = 12; c.ways = 5; }},
        {"lines", [](gmmu_line_cache_config &c) { c.lines = 12; c.ways = 4; }}, // 3 sets
        {"line_bytes", [](gmmu_line_cache_config &c) { c.line_bytes = 96; }},
        {"line_bytes", [](gmmu_line_cache_config &c) { c.line_bytes = 4; }},
        {"hit_cycles", [](gmmu_line_cache_config &c) { c.hit_cycles = 0; }},
        {"miss_cycles", [](gmmu_line_cache_config &c) { c.miss_cycles = 2000000; }},
    };
    for (const auto &k : cases) {
        gmmu_line_cache_config c;
        gmmu_line_cache_config_default(&c);
        k.set(c);
        gmmu_error err{};
        gmmu_line_cache *lc = nullptr;
        EXPECT_EQ(gmmu_line_cache_create(&c, &lc, &err), GMMU_EINVAL) << k.field;
        EXPECT_EQ(lc, nullptr);
        EXPECT_STREQ(err.field, k.field);
    }
    gmmu_line_cache_config c;
    gmmu_line_cache_config_default(&c);
    EXPECT_EQ(c.line_bytes, 128u);
    EXPECT_EQ(gmmu_line_cache_config_check(&c, nullptr), GMMU_OK);
    uint32_t lat;
    EXPECT_EQ(gmmu_line_cache_access(nullptr, 0, 0, 1, &lat, nullptr), GMMU_EINVAL);
}

} // namespace
