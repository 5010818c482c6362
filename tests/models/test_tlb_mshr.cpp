// Unit tests of the TLB batch timing model (models/src/tlb_mshr.c): ports,
// MSHR allocation, merging, hits under misses, limits and stalls.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

extern "C" {
#include "gmmu/tlb_mshr.h"
}

namespace {

struct Rig {
    gmmu_tlb *t = nullptr;
    gmmu_tlb_mshr *m = nullptr;
    Rig(gmmu_tlb_mshr_config mc, uint32_t lookup_cycles = 1, uint32_t entries = 64)
    {
        gmmu_tlb_config c{};
        c.entries = entries;
        c.ways = 4;
        c.page_shift = 12;
        c.lookup_cycles = lookup_cycles;
        gmmu_error err{};
        EXPECT_EQ(gmmu_tlb_create(&c, &t, &err), GMMU_OK) << err.field;
        EXPECT_EQ(gmmu_tlb_mshr_create(&mc, &m, &err), GMMU_OK) << err.field << ": " << err.msg;
    }
    ~Rig()
    {
        gmmu_tlb_mshr_destroy(m);
        gmmu_tlb_destroy(t);
    }
    Rig(const Rig &) = delete;
    Rig &operator=(const Rig &) = delete;
    void fill(uint64_t vpn) { gmmu_tlb_fill_ex(t, 0, vpn, vpn + 0x100, 0, 0, 0, nullptr); }
    std::vector<gmmu_tlb_access> run(std::vector<uint64_t> vpns, uint64_t now = 0,
                                     gmmu_tlb_batch_result *res = nullptr,
                                     gmmu_tlb_miss_fn fn = nullptr, void *ctx = nullptr)
    {
        std::vector<gmmu_tlb_access> a(vpns.size());
        for (size_t i = 0; i < vpns.size(); i++)
            a[i].vpn = vpns[i];
        EXPECT_EQ(gmmu_tlb_access_batch(m, t, 0, a.data(), uint32_t(a.size()), now, fn, ctx, res),
                  GMMU_OK);
        return a;
    }
};

gmmu_tlb_mshr_config mcfg(uint32_t ports, uint32_t mshrs, uint32_t miss_cycles = 100)
{
    gmmu_tlb_mshr_config c{};
    c.ports = ports;
    c.mshrs = mshrs;
    c.hits_under_miss = true;
    c.miss_cycles = miss_cycles;
    return c;
}

std::string bad_field(gmmu_tlb_mshr_config c)
{
    gmmu_error err{};
    return gmmu_tlb_mshr_config_check(&c, &err) == GMMU_OK ? "(accepted)" : err.field;
}

TEST(TlbMshrTest, ConfigValidationNamesTheBadField)
{
    EXPECT_EQ(bad_field(mcfg(4, 32)), "(accepted)");
    EXPECT_EQ(bad_field(mcfg(0, 32)), "ports");
    EXPECT_EQ(bad_field(mcfg(4, 0)), "mshrs");
    auto c = mcfg(4, 8);
    c.max_outstanding = 9;
    EXPECT_EQ(bad_field(c), "max_outstanding");
    c = mcfg(4, 8);
    c.merge_pages = 12;
    EXPECT_EQ(bad_field(c), "merge_pages");
    c = mcfg(4, 8);
    c.targets = (1u << 20) + 1;
    EXPECT_EQ(bad_field(c), "targets");
    c = mcfg(4, 8, 200000000u);
    EXPECT_EQ(bad_field(c), "miss_cycles");
}

TEST(TlbMshrTest, PortsLimitLookupsPerCycle)
{
    Rig r(mcfg(2, 4), 3);
    for (uint64_t v = 0; v < 8; v++)
        r.fill(v);
    gmmu_tlb_batch_result res{};
    auto a = r.run({0, 1, 2, 3, 4, 5, 6, 7}, 1000, &res);
    for (uint32_t i = 0; i < 8; i++) {
        EXPECT_EQ(a[i].kind, GMMU_TLB_ACCESS_HIT);
        EXPECT_EQ(a[i].issue, 1000 + i / 2) << i;
        EXPECT_EQ(a[i].done, 1000 + i / 2 + 3) << i;
        EXPECT_EQ(a[i].ppn, i + 0x100u);
    }
    EXPECT_EQ(res.done, 1006u);
    EXPECT_EQ(res.hits, 8u);
    EXPECT_EQ(res.first_issue, 1000u);
    EXPECT_EQ(res.last_issue, 1003u);
}

TEST(TlbMshrTest, MissCompletesAfterLookupPlusMissLatency)
{
    Rig r(mcfg(4, 4, 100), 2);
    gmmu_tlb_batch_result res{};
    auto a = r.run({9}, 50, &res);
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[0].issue, 50u);
    EXPECT_EQ(a[0].done, 152u);
    EXPECT_EQ(res.misses, 1u);
    EXPECT_EQ(gmmu_tlb_mshr_in_flight(r.m, 151), 1u);
    EXPECT_EQ(gmmu_tlb_mshr_in_flight(r.m, 152), 0u);
}

struct Calls {
    std::vector<std::pair<uint64_t, uint64_t>> seen; // (vpn, issue)
    std::map<uint64_t, uint32_t> lat;
    static gmmu_status fn(void *ctx, uint16_t, uint64_t vpn, uint64_t issue, uint32_t *latency)
    {
        auto *c = static_cast<Calls *>(ctx);
        c->seen.emplace_back(vpn, issue);
        *latency = c->lat.count(vpn) ? c->lat[vpn] : 10;
        return GMMU_OK;
    }
    static gmmu_status fail(void *, uint16_t, uint64_t, uint64_t, uint32_t *) { return GMMU_EMEM; }
};

TEST(TlbMshrTest, MissesToTheSamePageMergeIntoOneMshr)
{
    Rig r(mcfg(4, 4), 1);
    Calls calls;
    calls.lat[7] = 40;
    gmmu_tlb_batch_result res{};
    auto a = r.run({7, 8, 7, 7}, 0, &res, &Calls::fn, &calls);
    ASSERT_EQ(calls.seen.size(), 2u); // one walk per distinct page
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(a[3].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(a[2].mshr, a[0].mshr);
    EXPECT_EQ(a[2].done, 41u);
    EXPECT_EQ(a[1].done, 11u);
    EXPECT_EQ(res.merges, 2u);
    EXPECT_EQ(res.misses, 2u);
    EXPECT_EQ(r.m->st.merges, 2u);
}

TEST(TlbMshrTest, MergeGroupJoinsMissesToNeighbouringPages)
{
    auto c = mcfg(4, 4);
    c.merge_pages = 16; // the fill brings 16 contiguous pages
    Rig r(c, 1);
    gmmu_tlb_batch_result res{};
    auto a = r.run({0x20, 0x2f, 0x30}, 0, &res);
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(res.misses, 2u);
    // Same pages, no merge group: three misses.
    Rig p(mcfg(4, 4), 1);
    p.run({0x20, 0x2f, 0x30}, 0, &res);
    EXPECT_EQ(res.misses, 3u);
}

TEST(TlbMshrTest, HitsUnderMissCompleteBeforeTheMiss)
{
    Rig r(mcfg(1, 4, 100), 1);
    r.fill(2);
    auto a = r.run({1, 2});
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[1].issue, 1u);
    EXPECT_EQ(a[1].done, 2u);
    EXPECT_LT(a[1].done, a[0].done);
}

TEST(TlbMshrTest, BlockingTlbWaitsOutEveryMiss)
{
    auto c = mcfg(4, 4, 100);
    c.hits_under_miss = false;
    Rig r(c, 1);
    r.fill(2);
    gmmu_tlb_batch_result res{};
    auto a = r.run({1, 2, 3}, 0, &res);
    EXPECT_EQ(a[0].done, 101u);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[1].issue, 101u); // the hit waited for the miss
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[2].issue, 101u);
    EXPECT_EQ(a[2].done, 202u);
    EXPECT_EQ(res.stall_cycles, 101u);
    EXPECT_EQ(r.m->st.max_in_flight, 1u);
}

TEST(TlbMshrTest, BlockingTlbWithBatchIssueThroughBlocksOnlyLaterBatches)
{
    auto c = mcfg(4, 4, 100);
    c.hits_under_miss = false;
    c.batch_issues_through = true;
    Rig r(c, 1);
    r.fill(2);
    r.fill(9);
    gmmu_tlb_batch_result res{};
    auto a = r.run({1, 2, 3}, 0, &res);
    // The warp's own lookups issue together: both misses take MSHRs at once.
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[1].issue, 0u);
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[2].issue, 0u);
    EXPECT_EQ(a[2].done, 101u);
    EXPECT_EQ(res.stall_cycles, 0u);
    EXPECT_EQ(r.m->st.max_in_flight, 2u);
    // A later warp's hit waits until both are done.
    auto b = r.run({9}, 5, &res);
    EXPECT_EQ(b[0].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(b[0].issue, 101u);
    EXPECT_EQ(res.stall_cycles, 96u);
}

TEST(TlbMshrTest, AContinuedBatchIssuesThroughThePreviousPiecesMissesOnly)
{
    // One warp access sent as three pieces (one page each, as the issue SM's
    // line requests): continued, the later pieces' misses take MSHRs at
    // their own arrival; a new batch still waits for all of them.
    auto c = mcfg(4, 4, 100);
    c.hits_under_miss = false;
    c.batch_issues_through = true;
    Rig r(c, 1);
    r.fill(9);
    gmmu_tlb_batch_result res{};
    auto a = r.run({1}, 0, &res);
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    gmmu_tlb_mshr_continue_batch(r.m);
    EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 1), 1u);
    auto b = r.run({2}, 1, &res);
    EXPECT_EQ(b[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(b[0].issue, 1u);
    EXPECT_EQ(res.stall_cycles, 0u);
    gmmu_tlb_mshr_continue_batch(r.m);
    auto d = r.run({1}, 2, &res); // the first piece's page: merges
    EXPECT_EQ(d[0].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(d[0].issue, 2u);
    EXPECT_EQ(r.m->st.max_in_flight, 2u);
    // A later warp access waits for both pieces' misses.
    EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 5), 102u);
    auto e = r.run({9}, 5, &res);
    EXPECT_EQ(e[0].issue, 102u);
    // Not continued, the second piece is a later batch and waits.
    Rig q(c, 1);
    auto f = q.run({1}, 0, &res);
    auto g = q.run({2}, 1, &res);
    EXPECT_EQ(g[0].issue, f[0].done);
}

TEST(TlbMshrTest, FullMshrsStallTheMissAndEverythingBehindIt)
{
    Rig r(mcfg(4, 2, 100), 1);
    r.fill(50);
    gmmu_tlb_batch_result res{};
    auto a = r.run({1, 2, 3, 50, 4}, 0, &res);
    EXPECT_EQ(a[0].issue, 0u);
    EXPECT_EQ(a[1].issue, 0u);
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[2].issue, 101u); // waited for the first MSHR to free
    EXPECT_EQ(a[3].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[3].issue, 101u); // in order: the hit waited behind it
    EXPECT_EQ(a[4].issue, 101u); // both early MSHRs free at 101
    EXPECT_EQ(a[4].done, 202u);
    EXPECT_EQ(res.stall_cycles, 101u);
    EXPECT_EQ(res.replays, 1u);
    EXPECT_EQ(r.m->st.max_in_flight, 2u);
    // The functional TLB saw each lookup once.
    EXPECT_EQ(gmmu_tlb_stats_of(r.t)->accesses, 5u);
}

TEST(TlbMshrTest, OutstandingLimitSerialisesMissesUnderMisses)
{
    auto c = mcfg(4, 8, 100);
    c.max_outstanding = 1; // hits under a miss, but no miss under a miss
    Rig r(c, 1);
    r.fill(9);
    auto a = r.run({1, 9, 2, 3});
    EXPECT_EQ(a[0].issue, 0u);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[1].issue, 0u);
    EXPECT_EQ(a[2].issue, 101u);
    EXPECT_EQ(a[3].issue, 202u);
    EXPECT_EQ(a[3].done, 303u);
    EXPECT_EQ(r.m->st.max_in_flight, 1u);
}

TEST(TlbMshrTest, TargetLimitMakesExtraRequestsWaitForTheFill)
{
    auto c = mcfg(4, 4, 100);
    c.targets = 2;
    Rig r(c, 1);
    auto fill_cb = [](void *ctx, uint16_t asid, uint64_t vpn, uint64_t, uint32_t *lat) {
        // The walker resolves the miss and fills the TLB.
        gmmu_tlb_fill_ex(static_cast<gmmu_tlb *>(ctx), asid, vpn, vpn + 0x100, 0, 0, 0, nullptr);
        *lat = 100;
        return GMMU_OK;
    };
    gmmu_tlb_batch_result res{};
    auto a = r.run({5, 5, 5}, 0, &res, fill_cb, r.t);
    EXPECT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS);
    EXPECT_EQ(a[1].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(a[2].kind, GMMU_TLB_ACCESS_HIT);
    EXPECT_EQ(a[2].issue, 101u);
    EXPECT_EQ(a[2].done, 102u);
    EXPECT_EQ(a[2].ppn, 0x105u);
}

TEST(TlbMshrTest, OutstandingMissesPersistAcrossBatches)
{
    Rig r(mcfg(4, 4, 100), 1);
    auto a = r.run({3}, 0);
    EXPECT_EQ(a[0].done, 101u);
    auto b = r.run({3}, 10); // another warp, same page, while the walk is in flight
    EXPECT_EQ(b[0].kind, GMMU_TLB_ACCESS_MERGED);
    EXPECT_EQ(b[0].done, 101u);
    r.fill(3);
    auto d = r.run({3}, 200);
    EXPECT_EQ(d[0].kind, GMMU_TLB_ACCESS_HIT);
    gmmu_tlb_mshr_reset(r.m);
    EXPECT_EQ(gmmu_tlb_mshr_in_flight(r.m, 0), 0u);
}

TEST(TlbMshrTest, MissCallbackSeesIssueCycleAndErrorsAbort)
{
    Rig r(mcfg(1, 4), 1);
    Calls calls;
    calls.lat[2] = 7;
    auto a = r.run({1, 2}, 30, nullptr, &Calls::fn, &calls);
    ASSERT_EQ(calls.seen.size(), 2u);
    EXPECT_EQ(calls.seen[0], std::make_pair(uint64_t(1), uint64_t(30)));
    EXPECT_EQ(calls.seen[1], std::make_pair(uint64_t(2), uint64_t(31)));
    EXPECT_EQ(a[1].done, 31u + 1 + 7);
    std::vector<gmmu_tlb_access> b(1);
    b[0].vpn = 99;
    EXPECT_EQ(gmmu_tlb_access_batch(r.m, r.t, 0, b.data(), 1, 0, &Calls::fail, nullptr, nullptr),
              GMMU_EMEM);
    EXPECT_EQ(gmmu_tlb_access_batch(r.m, nullptr, 0, b.data(), 1, 0, nullptr, nullptr, nullptr),
              GMMU_EINVAL);
}

// Seeded random batches: the invariants of the documented rules hold.
TEST(TlbMshrTest, RandomBatchesKeepPortMshrAndOrderInvariants)
{
    const uint64_t seed = 777;
    std::printf("seed=%llu\n", (unsigned long long)seed);
    std::mt19937_64 rng(seed);
    for (int round = 0; round < 200; round++) {
        auto c = mcfg(1 + rng() % 4, 1 + rng() % 8, uint32_t(rng() % 200));
        c.max_outstanding = uint32_t(rng() % (c.mshrs + 1));
        c.targets = uint32_t(rng() % 4);
        c.hits_under_miss = rng() % 4 != 0;
        Rig r(c, uint32_t(rng() % 5));
        for (int v = 0; v < 20; v++)
            if (rng() % 2)
                r.fill(v);
        std::vector<uint64_t> vpns(1 + rng() % 32);
        for (auto &v : vpns)
            v = rng() % 40;
        uint64_t now = rng() % 1000;
        auto a = r.run(vpns, now);
        const uint32_t limit = c.max_outstanding ? c.max_outstanding : c.mshrs;
        std::map<uint64_t, uint32_t> per_cycle;
        for (size_t i = 0; i < a.size(); i++) {
            ASSERT_GE(a[i].issue, now);
            if (i) {
                ASSERT_GE(a[i].issue, a[i - 1].issue) << "round " << round;
            }
            per_cycle[a[i].issue]++;
            ASSERT_LE(per_cycle[a[i].issue], c.ports);
            if (a[i].kind == GMMU_TLB_ACCESS_HIT) {
                ASSERT_EQ(a[i].done, a[i].issue + gmmu_tlb_config_of(r.t)->lookup_cycles);
            }
            if (a[i].kind == GMMU_TLB_ACCESS_MISS) {
                ASSERT_EQ(a[i].done, a[i].issue + gmmu_tlb_config_of(r.t)->lookup_cycles + c.miss_cycles);
            }
            if (a[i].kind == GMMU_TLB_ACCESS_MERGED) {
                ASSERT_LE(a[i].issue, a[i].done);
            }
            // In-flight misses never exceed the limit at any issue time.
            uint32_t inflight = 0;
            for (size_t j = 0; j <= i; j++)
                if (a[j].kind == GMMU_TLB_ACCESS_MISS && a[j].issue <= a[i].issue &&
                    a[j].done > a[i].issue)
                    inflight++;
            ASSERT_LE(inflight, limit) << "round " << round;
            if (!c.hits_under_miss) {
                ASSERT_LE(inflight, a[i].kind == GMMU_TLB_ACCESS_MISS ? 1u : 0u)
                    << "blocking TLB issued under a miss, round " << round;
            }
        }
    }
}

} // namespace

TEST(TlbMshrTest, PendingNamesOnlyAMissOfThatPageStillInFlight)
{
    gmmu_tlb_mshr_config mc{};
    mc.ports = 4;
    mc.mshrs = 4;
    mc.hits_under_miss = true;
    mc.miss_cycles = 50;
    Rig r(mc);
    gmmu_tlb_access acc[2]{};
    acc[0].vpn = 0x40;
    acc[1].vpn = 0x41;
    ASSERT_EQ(gmmu_tlb_access_batch(r.m, r.t, 3, acc, 2, 100, nullptr, nullptr, nullptr), GMMU_OK);
    EXPECT_TRUE(gmmu_tlb_mshr_pending(r.m, 3, 0x40, 101));
    EXPECT_TRUE(gmmu_tlb_mshr_pending(r.m, 3, 0x41, 101));
    EXPECT_FALSE(gmmu_tlb_mshr_pending(r.m, 3, 0x42, 101)) << "another page";
    EXPECT_FALSE(gmmu_tlb_mshr_pending(r.m, 4, 0x40, 101)) << "another ASID";
    EXPECT_FALSE(gmmu_tlb_mshr_pending(r.m, 3, 0x40, 100 + 1 + 50 + 10)) << "completed";
}

// The cycle a batch's first miss can take an MSHR is the cycle a lone miss
// arriving then is issued at by the timing model itself, whatever the
// state: blocking or not, MSHRs full or not, a limit on misses in flight.
TEST(TlbMshrTest, FirstMissCycleIsWhereALoneMissIssues)
{
    {
        Rig r(mcfg(4, 2, 100), 1);
        EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 7), 7u) << "nothing in flight";
        r.run({1}, 0);
        EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 5), 5u) << "an MSHR is free";
        r.run({2}, 0);
        EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 5), 101u) << "both busy until 101";
        EXPECT_EQ(r.run({3}, 5)[0].issue, 101u);
    }
    {
        auto c = mcfg(4, 4, 100);
        c.hits_under_miss = false;
        c.batch_issues_through = true;
        Rig r(c, 1);
        r.run({1, 3}, 0); // both misses of one warp: done at 101
        EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 5), 101u) << "blocking: waits out the warp before";
        EXPECT_EQ(r.run({4}, 5)[0].issue, 101u);
        EXPECT_EQ(gmmu_tlb_mshr_first_miss_cycle(r.m, 300), 300u);
    }
    const uint64_t seed = 20261126;
    std::mt19937_64 rng(seed);
    for (int it = 0; it < 300; it++) {
        auto c = mcfg(1 + uint32_t(rng() % 4), 1 + uint32_t(rng() % 6), 20 + uint32_t(rng() % 200));
        c.hits_under_miss = rng() % 2;
        c.batch_issues_through = !c.hits_under_miss && rng() % 2;
        c.max_outstanding = std::min(uint32_t(rng() % 3), c.mshrs); // 0 = all MSHRs
        Rig r(c, 1 + uint32_t(rng() % 3), 16);
        uint64_t now = 0, vpn = 1000;
        for (int b = int(rng() % 5); b > 0; b--) {
            std::vector<uint64_t> v;
            for (int k = 1 + int(rng() % 4); k > 0; k--)
                v.push_back(rng() % 3 ? vpn++ : vpn - 1); // new pages, some repeated
            r.run(v, now);
            now += rng() % 150;
        }
        const uint64_t predicted = gmmu_tlb_mshr_first_miss_cycle(r.m, now);
        auto a = r.run({vpn + 100}, now); // a page never seen: a miss
        ASSERT_EQ(a[0].kind, GMMU_TLB_ACCESS_MISS) << "seed " << seed << " it " << it;
        ASSERT_EQ(a[0].issue, predicted) << "seed " << seed << " it " << it;
    }
}

// The latency of a miss answered by a batch request made at the batch's
// first allocation (lookup 2 cycles, asked at cycle 10 + 2 = 12).
TEST(TlbMshrTest, MissLatencyChargesOwnWalkFromItsOwnMshr)
{
    // The miss that took the first MSHR: the answer's arrival, from its lookup.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 10, 2, 112, 0), 100u);
    // Same, but 30 of those cycles were a wait for a walker: still the arrival.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 10, 2, 112, 30), 100u);
    // A miss that waited for an MSHR until cycle 60: its own walk (100 cycles)
    // starts from its lookup, so it arrives at 162, not at the answer's 112.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 60, 2, 112, 0), 100u);
    // The walker queue's 30 cycles are not charged again: own walk is 70.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 60, 2, 112, 30), 70u);
    // A late MSHR whose own walk would end before the answer: the answer.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 20, 2, 300, 250), 278u);
    // Issued before the batch's ask (an earlier miss's MSHR): from min(ask, issue).
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 5, 2, 112, 0), 105u);
    // Issued long after the answer came back: still its own walk.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 200, 2, 112, 0), 100u);
    // An answer that took no time: at least one cycle.
    EXPECT_EQ(gmmu_tlb_mshr_miss_latency(10, 10, 2, 12, 0), 1u);
}
