// Address spaces on one walker stay apart with every page-walk cache, an
// invalidation reaches the walk in flight, and a translation carries the
// permissions of every level (issue: SoC-ready isolation). Each context's
// tables are built with gmmu_pt in the shared memory; every translation is
// compared with an independent walk of the current tables.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "test_space.h"
#include "tlm_harness.h"

extern "C" {
#include "gmmu/pagetable.h"
}

using namespace sc_core;

namespace {


struct IsolationTest : ::testing::TestWithParam<gmmu_pwc_kind> {
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    Space s0{mem, 0x01000000}, s1{mem, 0x02000000}, s2{mem, 0x03000000};
    std::unique_ptr<gmmu::ptw> walker;
    void build(gmmu_pwc_kind kind, unsigned walkers = 1)
    {
        gmmu::ptw_params p;
        p.walkers = walkers;
        if (kind != GMMU_PWC_NONE) {
            ASSERT_EQ(gmmu_pwc_config_default(kind, &p.pwc), GMMU_OK);
        }
        walker = std::make_unique<gmmu::ptw>("ptw", p);
        ini.isock.bind(walker->tsock);
        walker->pt_isock.bind(mem.tsock);
        walker->set_root(0, s0.pt->root);
        walker->set_root(1, s1.pt->root);
        walker->set_root(2, s2.pt->root);
        sc_start(SC_ZERO_TIME);
    }
    gmmu::xlate_req xlate(uint16_t asid, uint64_t va, bool write, sc_time d = SC_ZERO_TIME)
    {
        gmmu::xlate_req r;
        r.va = va;
        r.asid = asid;
        r.write = write;
        tlm::tlm_response_status st = tlm::TLM_INCOMPLETE_RESPONSE;
        const gmmu::xlate_req a = ini.translate(r, d, &st);
        EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
        return a;
    }
    void invalidate(gmmu::xlate_ext::inv_desc inv)
    {
        gmmu::xlate_ext x;
        x.op = gmmu::xlate_ext::op_kind::invalidate;
        x.inv = inv;
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        sc_time d = SC_ZERO_TIME;
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    }
    Space &space(uint16_t asid) { return asid == 0 ? s0 : asid == 1 ? s1 : s2; }
    // The walker's answer equals the reference walk of asid's tables.
    void expect_reference(uint16_t asid, uint64_t va, bool write, const gmmu::xlate_req &r)
    {
        gmmu_walk_result w = space(asid).walk(va, write);
        ASSERT_TRUE(r.done);
        EXPECT_EQ(r.fault, w.fault) << "asid " << asid << " va 0x" << std::hex << va;
        if (w.fault == GMMU_FAULT_NONE && r.fault == GMMU_FAULT_NONE) {
            EXPECT_EQ(r.pa, w.pa) << "asid " << asid << " va 0x" << std::hex << va;
            EXPECT_EQ(r.perms & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX),
                      w.perms & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX));
        }
    }
};

constexpr uint64_t V = 0x7f0000042000ull;

// The repro: the same VA in two address spaces, read-only in one,
// writable in the other, and a page mapped in one only. Neighbours of V are
// walked first, so every PWC kind holds the first context's path.
TEST_P(IsolationTest, SameVaInTwoContextsNeverCrosses)
{
    build(GetParam());
    for (uint64_t k = 0; k < 4; k++) {
        s0.map(V + k * 4096, 0x100000000ull + k * 4096, GMMU_MAP_U); // read-only in ASID 0
        s1.map(V + k * 4096, 0x200000000ull + k * 4096);
    }
    s1.map(V + 0x200000, 0x200100000ull); // only in ASID 1
    expect_reference(0, V + 4096, false, xlate(0, V + 4096, false));
    expect_reference(0, V, false, xlate(0, V, false));
    gmmu::xlate_req r = xlate(1, V, true);
    expect_reference(1, V, true, r);
    EXPECT_EQ(r.pa, 0x200000000ull);
    r = xlate(0, V + 2 * 4096, true);
    EXPECT_EQ(r.fault, GMMU_FAULT_WRITE); // read-only in ASID 0, whatever ASID 1 did
    expect_reference(1, V + 3 * 4096, false, xlate(1, V + 3 * 4096, false));
    EXPECT_EQ(xlate(0, V + 0x200000, false).fault, GMMU_FAULT_NOT_PRESENT);
    expect_reference(1, V + 0x200000, false, xlate(1, V + 0x200000, false));
    EXPECT_EQ(xlate(0, V + 0x200000, false).fault, GMMU_FAULT_NOT_PRESENT);
}

// A level-2 entry without W above a writable leaf: writes fault at every
// level of the hierarchy, also after a neighbour's read walk filled the PWC,
// and the translation a read brings back is not writable.
TEST_P(IsolationTest, UpperLevelPermissionsAreNeverLost)
{
    build(GetParam());
    s0.map(V, 0x100000000ull);
    s0.map(V + 4096, 0x100001000ull);
    // Clear W in the level-2 (PD) entry above both pages.
    gmmu_walk_result w = s0.walk(V, false);
    const uint64_t pde_pa = w.read_pa[2];
    ASSERT_EQ(w.read_level[2], 2u);
    mem.write64(pde_pa, mem.read64(pde_pa) & ~GMMU_PTE_W);
    EXPECT_EQ(xlate(0, V, true).fault, GMMU_FAULT_WRITE);
    gmmu::xlate_req r = xlate(0, V, false);
    EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
    EXPECT_FALSE(r.perms & GMMU_PTE_W) << "a read through a read-only directory is not writable";
    EXPECT_EQ(xlate(0, V + 4096, true).fault, GMMU_FAULT_WRITE); // after the neighbour's walk
    EXPECT_EQ(xlate(0, V, true).fault, GMMU_FAULT_WRITE);
}

// A walk still in flight is not reused after an invalidation that covers it.
TEST_P(IsolationTest, InvalidationStopsMergingWithAWalkInFlight)
{
    build(GetParam());
    s0.map(V, 0x100000000ull);
    gmmu::xlate_req first = xlate(0, V, false);
    ASSERT_GT(first.ready, sc_time(50, SC_NS)); // the walk is in flight until then
    ASSERT_EQ(gmmu_pt_unmap(s0.pt, V), GMMU_OK);
    s0.map(V, 0x100777000ull);
    invalidate({gmmu::xlate_ext::inv_desc::scope::asid_range, 0, V, V + 4095});
    gmmu::xlate_req again = xlate(0, V, false, sc_time(1, SC_NS));
    EXPECT_EQ(again.pa, 0x100777000ull);
}

// Several contexts, mappings changed while walks are in flight, invalidations
// racing them: after each change and its invalidation, every translation
// equals a plain walk of the current tables.
TEST_P(IsolationTest, RandomizedContextsRemapsAndInvalidations)
{
    build(GetParam(), 2);
    const unsigned seed = 1234 + unsigned(GetParam());
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    // Pages spread over a few 2 MiB and 1 GiB regions so the PWCs hit.
    std::vector<uint64_t> vas;
    for (uint64_t g = 0; g < 3; g++)
        for (uint64_t k = 0; k < 24; k++)
            vas.push_back(0x7f0000000000ull + g * (1ull << 30) + (k % 6) * (1ull << 21) + (k / 6) * 4096);
    uint64_t next_frame = 0x300000000ull;
    std::map<std::pair<int, uint64_t>, bool> mapped;
    for (uint16_t a = 0; a < 3; a++)
        for (uint64_t va : vas)
            if (rng() % 4) {
                space(a).map(va, next_frame, GMMU_MAP_U | ((rng() % 3) ? GMMU_MAP_W : 0));
                next_frame += 4096;
                mapped[{a, va}] = true;
            }
    sc_time t = SC_ZERO_TIME;
    for (int i = 0; i < 3000; i++) {
        const uint16_t a = uint16_t(rng() % 3);
        const uint64_t va = vas[rng() % vas.size()] | ((rng() % 512) * 8);
        if (rng() % 10 == 0) {
            // Remap (or map) the page to a new frame with new permissions,
            // then invalidate it, while earlier walks may still be in flight.
            const uint64_t page = va & ~0xFFFull;
            if (mapped[{a, page}]) {
                ASSERT_EQ(gmmu_pt_unmap(space(a).pt, page), GMMU_OK);
            }
            space(a).map(page, next_frame, GMMU_MAP_U | ((rng() % 2) ? GMMU_MAP_W : 0));
            next_frame += 4096;
            mapped[{a, page}] = true;
            if (rng() % 2)
                invalidate({gmmu::xlate_ext::inv_desc::scope::asid_range, a, page, page + 4095});
            else
                invalidate({gmmu::xlate_ext::inv_desc::scope::asid, a, 0, 0});
            continue;
        }
        const bool write = rng() % 3 == 0;
        t += sc_time(double(rng() % 40), SC_NS); // requests overlap walks in flight
        gmmu::xlate_req r = xlate(a, va, write, t);
        expect_reference(a, va, write, r);
        if (HasFailure())
            return;
    }
}

INSTANTIATE_TEST_SUITE_P(Pwc, IsolationTest,
                         ::testing::Values(GMMU_PWC_NONE, GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC,
                                           GMMU_PWC_CPWC),
                         [](const ::testing::TestParamInfo<gmmu_pwc_kind> &i) {
                             return std::string(gmmu_pwc_kind_name(i.param));
                         });

// UPTC inside the walker: neighbouring pages share the upper tables, so after
// the first walk each walk starts at its page table (one read).
TEST(UptcInWalkerTest, NeighbourWalksHitTheUptc)
{
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    Space s{mem, 0x01000000};
    gmmu::ptw_params p;
    ASSERT_EQ(gmmu_pwc_config_default(GMMU_PWC_UPTC, &p.pwc), GMMU_OK);
    gmmu::ptw walker("ptw", p);
    ini.isock.bind(walker.tsock);
    walker.pt_isock.bind(mem.tsock);
    walker.set_root(0, s.pt->root);
    sc_start(SC_ZERO_TIME);
    for (uint64_t k = 0; k < 8; k++)
        s.map(V + k * 4096, 0x100000000ull + k * 4096);
    sc_time d = SC_ZERO_TIME;
    for (uint64_t k = 0; k < 8; k++) {
        gmmu::xlate_ext x;
        gmmu::xlate_req r;
        r.va = V + k * 4096;
        x.reqs.push_back(r);
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        EXPECT_EQ(x.reqs[0].pa, 0x100000000ull + k * 4096);
    }
    nlohmann::json j;
    walker.dump_stats(j);
    EXPECT_EQ(j["pt_reads"].get<uint64_t>(), 4u + 7u); // one full walk, then one read each
    EXPECT_EQ(j["pwc"]["hit_l2"].get<uint64_t>(), 7u);
}


// initiator -> L1 TLB -> memory; misses -> L2 TLB -> walker (A/D updates on).
struct TlbPathTest : ::testing::Test {
    TestInitiator ini{"ini"};
    TestInitiator sd{"sd"}; // the shootdown registers' initiator
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    Space s{mem, 0x01000000};
    static gmmu::tlb_params params(uint32_t entries, uint32_t ways, unsigned level)
    {
        gmmu::tlb_params p;
        p.model.entries = entries;
        p.model.ways = ways;
        p.model.page_shift = 12;
        p.model.repl = GMMU_TLB_REPL_LRU;
        p.model.lookup_cycles = 1;
        p.ports = 4;
        p.level = level;
        return p;
    }
    static gmmu::ptw_params walker_params()
    {
        gmmu::ptw_params p;
        p.set_accessed_dirty = true;
        return p;
    }
    gmmu::tlb l1{"l1", params(8, 8, 1)};
    gmmu::tlb l2{"l2", params(64, 4, 2)};
    gmmu::ptw walker{"ptw", walker_params()};
    void SetUp() override
    {
        ini.isock.bind(l1.tsock);
        sd.isock.bind(l1.shootdown_tsock);
        l1.isock.bind(mem.tsock);
        l1.miss_isock.bind(l2.tsock);
        l2.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
        walker.set_root(0, s.pt->root);
        sc_start(SC_ZERO_TIME);
    }
    uint64_t leaf(uint64_t va)
    {
        gmmu_walk_result w = s.walk(va, false);
        return w.level_pte[1];
    }
};

TEST_F(TlbPathTest, FirstWriteThroughAReadFilledEntrySetsTheDirtyBit)
{
    s.map(V, 0x100000000ull);
    uint64_t v = 0;
    sc_time d = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, V, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(leaf(V) & GMMU_PTE_A);
    EXPECT_FALSE(leaf(V) & GMMU_PTE_D);
    v = 42;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, V, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(leaf(V) & GMMU_PTE_D) << "a write hit on a clean entry must set D";
    // Now dirty in the TLB too: the next write is a hit that walks nothing.
    nlohmann::json before, after;
    walker.dump_stats(before);
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, V + 8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    walker.dump_stats(after);
    EXPECT_EQ(after["walks"], before["walks"]);
}

// An invalidation of the L1 (call or shootdown register) reaches the L2 and
// the walker, so a walk still in flight with the old frame is not reused.
TEST_F(TlbPathTest, TlbInvalidationReachesTheWalkInFlight)
{
    for (int how = 0; how < 2; how++) {
        SCOPED_TRACE(how ? "shootdown registers" : "invalidate_page");
        const uint64_t va = V + uint64_t(how) * 0x200000;
        s.map(va, 0x100000000ull + uint64_t(how) * 0x10000);
        uint64_t v = 0;
        sc_time d = SC_ZERO_TIME;
        ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, va, &v, 8, d), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(gmmu_pt_unmap(s.pt, va), GMMU_OK);
        const uint64_t fresh = 0x100777000ull + uint64_t(how) * 0x10000;
        s.map(va, fresh);
        mem.write64(fresh, 0xfeedull + uint64_t(how));
        if (how == 0) {
            l1.invalidate_page(0, va);
        } else {
            uint64_t lo = va, hi = va + 4095, asid = 0;
            sc_time z = SC_ZERO_TIME;
            ASSERT_EQ(sd.access(tlm::TLM_WRITE_COMMAND, 0x10, &lo, 8, z), tlm::TLM_OK_RESPONSE);
            ASSERT_EQ(sd.access(tlm::TLM_WRITE_COMMAND, 0x18, &hi, 8, z), tlm::TLM_OK_RESPONSE);
            ASSERT_EQ(sd.access(tlm::TLM_WRITE_COMMAND, 0x20, &asid, 8, z), tlm::TLM_OK_RESPONSE);
        }
        sc_time d2 = sc_time(1, SC_NS); // the first walk is still in flight
        ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, va, &v, 8, d2), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(v, 0xfeedull + uint64_t(how)) << "read through the old frame";
    }
    nlohmann::json j2, jw;
    l2.dump_stats(j2);
    walker.dump_stats(jw);
    EXPECT_EQ(j2["invalidations_forwarded"].get<uint64_t>(), 2u);
    EXPECT_EQ(jw["invalidations"].get<uint64_t>(), 2u);
}

} // namespace
