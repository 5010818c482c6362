// Unit tests of the data cache timing model (models/src/cache.c).
#include <gtest/gtest.h>

#include <cstring>

extern "C" {
#include "gmmu/cache.h"
}

namespace {

struct Cache {
    gmmu_cache *c = nullptr;
    explicit Cache(uint64_t bytes, uint32_t ways, bool wa, uint32_t hit = 10)
    {
        gmmu_cache_config cfg;
        gmmu_cache_config_default(&cfg);
        cfg.bytes = bytes;
        cfg.ways = ways;
        cfg.line_bytes = 128;
        cfg.hit_cycles = hit;
        cfg.write_allocate = wa;
        gmmu_error err{};
        EXPECT_EQ(gmmu_cache_create(&cfg, &c, &err), GMMU_OK) << err.field << ": " << err.msg;
    }
    ~Cache() { gmmu_cache_destroy(c); }
    Cache(const Cache &) = delete;
    Cache &operator=(const Cache &) = delete;
    gmmu_cache_result go(uint64_t addr, bool write, uint64_t now)
    {
        gmmu_cache_result r;
        gmmu_cache_access(c, addr, write, now, &r);
        return r;
    }
};

TEST(CacheTest, ReadMissAllocatesAndTheNextReadOfTheLineHits)
{
    Cache k(1024, 2, false);
    EXPECT_FALSE(k.go(0x1000, false, 0).hit);
    gmmu_cache_fill_ready(k.c, 0x1000, 50);
    gmmu_cache_result r = k.go(0x107F, false, 100); // same 128-B line
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.ready, 110u); // hit latency after the fill arrived
    EXPECT_FALSE(k.go(0x1080, false, 100).hit); // next line
    EXPECT_EQ(k.c->st.read_hits, 1u);
    EXPECT_EQ(k.c->st.read_misses, 2u);
}

TEST(CacheTest, HitOnALineStillBeingFilledWaitsForTheFill)
{
    Cache k(1024, 2, false);
    k.go(0x2000, false, 0);
    gmmu_cache_fill_ready(k.c, 0x2000, 300);
    gmmu_cache_result r = k.go(0x2008, false, 5);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.ready, 300u);
    EXPECT_EQ(k.c->st.hits_under_fill, 1u);
}

TEST(CacheTest, LruEvictsTheLeastRecentlyUsedWayOfTheSet)
{
    Cache k(1024, 2, false); // 8 lines, 4 sets of 2: lines 0, 4, 8 share set 0
    k.go(0 * 128, false, 0);
    k.go(4 * 128, false, 1);
    k.go(0 * 128, false, 2); // line 0 is now the most recent
    k.go(8 * 128, false, 3); // evicts line 4
    EXPECT_TRUE(gmmu_cache_probe(k.c, 0));
    EXPECT_FALSE(gmmu_cache_probe(k.c, 4 * 128));
    EXPECT_TRUE(gmmu_cache_probe(k.c, 8 * 128));
    EXPECT_EQ(k.c->st.evictions, 1u);
}

TEST(CacheTest, AnEvictionReportsTheVictimAndWhoAllocatedIt)
{
    Cache k(1024, 2, false); // lines 0, 4, 8 share set 0
    gmmu_cache_result r;
    gmmu_cache_access_by(k.c, 0 * 128, false, 0, 7, &r);
    EXPECT_FALSE(r.evicted);
    gmmu_cache_access_by(k.c, 4 * 128, false, 1, 9, &r);
    gmmu_cache_access(k.c, 8 * 128, false, 2, &r); // no owner: evicts line 0 (owner 7)
    EXPECT_TRUE(r.evicted);
    EXPECT_EQ(r.evicted_addr, 0u);
    EXPECT_EQ(r.evicted_owner, 7u);
    EXPECT_FALSE(r.writeback); // clean: evicted, nothing to write back
    gmmu_cache_access_by(k.c, 0 * 128, false, 3, 1, &r); // evicts line 4 (owner 9)
    EXPECT_EQ(r.evicted_addr, 4u * 128u);
    EXPECT_EQ(r.evicted_owner, 9u);
    gmmu_cache_access_by(k.c, 4 * 128, false, 4, 1, &r); // evicts line 8: owner unknown
    EXPECT_EQ(r.evicted_addr, 8u * 128u);
    EXPECT_EQ(r.evicted_owner, GMMU_CACHE_NO_OWNER);
}

TEST(CacheTest, WriteThroughNoAllocateLeavesAWriteMissUncached)
{
    Cache k(1024, 2, false);
    EXPECT_FALSE(k.go(0x3000, true, 0).hit);
    EXPECT_FALSE(gmmu_cache_probe(k.c, 0x3000));
    k.go(0x3000, false, 1);
    EXPECT_TRUE(k.go(0x3000, true, 2).hit); // a write hit updates the line
    EXPECT_EQ(k.c->st.write_misses, 1u);
    EXPECT_EQ(k.c->st.write_hits, 1u);
    EXPECT_EQ(k.c->st.writebacks, 0u);
}

TEST(CacheTest, WriteAllocateEvictionOfADirtyLineReportsItsWriteBack)
{
    Cache k(1024, 1, true); // direct mapped, 8 sets
    EXPECT_FALSE(k.go(0x0000, true, 0).hit); // allocated dirty
    EXPECT_TRUE(gmmu_cache_probe(k.c, 0));
    gmmu_cache_result r = k.go(8 * 128, false, 1); // same set
    EXPECT_FALSE(r.hit);
    EXPECT_TRUE(r.writeback);
    EXPECT_EQ(r.writeback_addr, 0u);
    r = k.go(0, false, 2); // evicts the clean line 8: no write-back
    EXPECT_FALSE(r.writeback);
    EXPECT_EQ(k.c->st.writebacks, 1u);
    gmmu_cache_invalidate_all(k.c);
    EXPECT_FALSE(gmmu_cache_probe(k.c, 0));
}

TEST(CacheTest, BadConfigsNameTheField)
{
    gmmu_cache_config cfg;
    gmmu_cache_config_default(&cfg);
    gmmu_error err{};
    EXPECT_EQ(gmmu_cache_config_check(&cfg, &err), GMMU_OK);
    gmmu_cache_config b = cfg;
    b.bytes = 3000;
    EXPECT_EQ(gmmu_cache_config_check(&b, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "bytes");
    b = cfg;
    b.line_bytes = 96;
    EXPECT_EQ(gmmu_cache_config_check(&b, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "line_bytes");
    b = cfg;
    b.ways = 3;
    EXPECT_EQ(gmmu_cache_config_check(&b, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "ways");
    b = cfg;
    b.hit_cycles = 200000;
    EXPECT_EQ(gmmu_cache_config_check(&b, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "hit_cycles");
    gmmu_cache *c = nullptr;
    EXPECT_EQ(gmmu_cache_create(nullptr, &c, &err), GMMU_EINVAL);
    EXPECT_EQ(c, nullptr);
    EXPECT_EQ(gmmu_cache_create(&cfg, nullptr, &err), GMMU_EINVAL);
    // A cache that was never created (NULL) is inert, never a crash.
    gmmu_cache_result r;
    r.hit = true;
    gmmu_cache_access(c, 0x1000, false, 0, &r);
    EXPECT_FALSE(r.hit);
    gmmu_cache_access(nullptr, 0x1000, false, 0, &r);
    EXPECT_FALSE(r.hit);
    gmmu_cache_access(c, 0x1000, false, 0, nullptr);
    gmmu_cache_fill_ready(c, 0x1000, 5);
    gmmu_cache_invalidate_all(c);
    EXPECT_FALSE(gmmu_cache_probe(c, 0x1000));
    EXPECT_FALSE(gmmu_cache_probe(nullptr, 0x1000));
    gmmu_cache_destroy(c);
    gmmu_cache_destroy(nullptr);
}

} // namespace

TEST(CacheTest, ViptNeedsAWayNoLargerThanThePage)
{
    gmmu_cache_config cfg;
    gmmu_cache_config_default(&cfg);
    cfg.bytes = 32768;
    cfg.vipt = true;
    cfg.index_cycles = 2;
    gmmu_error err{};
    cfg.ways = 4; // 8 KiB per way: index bits above a 4 KiB page offset
    EXPECT_EQ(gmmu_cache_vipt_check(&cfg, 12, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "vipt");
    cfg.ways = 8; // 4 KiB per way
    EXPECT_EQ(gmmu_cache_vipt_check(&cfg, 12, &err), GMMU_OK);
    cfg.ways = 4;
    EXPECT_EQ(gmmu_cache_vipt_check(&cfg, 13, &err), GMMU_OK); // 8 KiB pages
    cfg.vipt = false; // physically indexed: any geometry
    EXPECT_EQ(gmmu_cache_vipt_check(&cfg, 12, &err), GMMU_OK);
    cfg.index_cycles = cfg.hit_cycles + 1;
    EXPECT_EQ(gmmu_cache_config_check(&cfg, &err), GMMU_EINVAL);
    EXPECT_STREQ(err.field, "index_cycles");
}

TEST(CacheTest, ViptHidesTheIndexUnderTheTranslation)
{
    gmmu_cache_config cfg;
    gmmu_cache_config_default(&cfg);
    cfg.hit_cycles = 20;
    cfg.index_cycles = 3;
    EXPECT_EQ(gmmu_cache_index_overlap(&cfg, 10), 0u); // physically indexed: nothing hidden
    cfg.vipt = true;
    EXPECT_EQ(gmmu_cache_index_overlap(&cfg, 0), 0u);  // no translation: nothing to hide under
    EXPECT_EQ(gmmu_cache_index_overlap(&cfg, 2), 2u);  // a 2-cycle TLB: max(2, 3) + 17 = 20
    EXPECT_EQ(gmmu_cache_index_overlap(&cfg, 10), 3u); // a slow TLB: 10 + 17
    EXPECT_EQ(gmmu_cache_index_overlap(nullptr, 10), 0u);
}

TEST(CacheTest, AnAccessStampedBeforeTheLinesFetchDoesNotWaitForIt)
{
    Cache k(32768, 4, false, 10);
    gmmu_cache_result r{};
    gmmu_cache_access(k.c, 0x1000, false, 500, &r); // a fetch requested at cycle 500
    EXPECT_FALSE(r.hit);
    gmmu_cache_fill_ready(k.c, 0x1000, 800);
    // Loosely timed: an access stamped at cycle 100 arrives afterwards. It
    // cannot use a fetch that starts at 500: a miss of its own.
    gmmu_cache_access(k.c, 0x1000, false, 100, &r);
    EXPECT_FALSE(r.hit);
    gmmu_cache_fill_ready(k.c, 0x1000, 400);
    // From then on the line is the earlier fetch's: an access at 200 waits for 400.
    gmmu_cache_access(k.c, 0x1000, false, 200, &r);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.ready, 400u);
    EXPECT_EQ(k.c->st.read_misses, 2u);
    EXPECT_EQ(k.c->st.evictions, 0u); // one line, never duplicated
}
