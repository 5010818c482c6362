#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "gmmu/components/extensions.h"
#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "gmmu/gpu/driver.h"
#include "tlm_harness.h"

using namespace sc_core;

namespace {

// Active lanes of access i: all of them mostly, else a varied mask.
uint64_t rng_lanes(int i) { return i % 5 ? 0xFFFFFFFFu : (0x9E3779B9u * unsigned(i + 1)) | 1u; }

gmmu::tlb_params params(unsigned entries, unsigned ways, unsigned lookup, unsigned level)
{
    gmmu::tlb_params p;
    p.model.entries = entries;
    p.model.ways = ways;
    p.model.page_shift = 12;
    p.model.repl = GMMU_TLB_REPL_LRU;
    p.model.lookup_cycles = lookup;
    p.ports = 4;
    p.level = level;
    return p;
}

// initiator -> L1 -> memory; L1 misses -> L2 -> walker -> memory.
struct TlbComponentTest : ::testing::Test {
    static constexpr unsigned mem_lat = 10;
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", mem_lat, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    gmmu::tlb l1{"l1", params(8, 8, 1, 1)};
    gmmu::tlb l2{"l2", params(64, 4, 5, 2)};
    gmmu::ptw walker{"ptw", gmmu::ptw_params{}};
    const uint64_t base = 0x7f0000000000ull;

    void SetUp() override
    {
        ini.isock.bind(l1.tsock);
        l1.isock.bind(mem.tsock);
        l1.miss_isock.bind(l2.tsock);
        l2.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
        walker.set_root(0, drv.root());
        drv.map(base, 64 * 4096, 12);
        drv.map(base + (1ull << 30), 4096, 12, GMMU_MAP_U); // read-only page
        sc_start(SC_ZERO_TIME);
    }
};

TEST_F(TlbComponentTest, PlainPayloadIsTranslatedAsOneLaneWarp)
{
    uint64_t v = 0x0123456789ABCDEFull;
    sc_time d = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, base + 0x3008, &v, 8, d), tlm::TLM_OK_RESPONSE);
    uint64_t pa = drv.translate(base + 0x3008);
    ASSERT_NE(pa, ~0ull);
    EXPECT_EQ(mem.read64(pa), v); // the data landed at the physical address the tables give
    // Miss path: L1 lookup 1 + L2 lookup 5 + 4 PTE reads x 10 + data access 10.
    EXPECT_EQ(d, sc_time(1 + 5 + 4 * mem_lat + mem_lat, SC_NS));
    // Second access to the page, after the first completed, hits in L1: 1 + 10.
    uint64_t back = 0;
    const sc_time t1 = d;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + 0x3008, &back, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(back, v);
    EXPECT_EQ(d - t1, sc_time(1 + mem_lat, SC_NS));
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->hits, 1u);
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->misses, 1u);
    EXPECT_EQ(gmmu_tlb_stats_of(l2.model())->misses, 1u);
}

// A TLB's xlate_ext commands each have their handler: translate_debug
// answers without a fill, a walk counted or time; translate walks and fills;
// probe answers from the model; the LDT unit's own commands are refused.
TEST_F(TlbComponentTest, EachCommandHasItsHandlerAndTheLdtsOwnAreRefused)
{
    using op = gmmu::xlate_ext::op_kind;
    auto send = [&](op o, sc_time &d) {
        gmmu::xlate_ext x;
        x.op = o;
        x.reqs.resize(1);
        x.reqs[0].va = base + 0x7008;
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        // the status, and the answer's PA (0: no answer)
        return std::make_pair(gp.get_response_status(), x.reqs[0].done ? x.reqs[0].pa : 0);
    };
    const uint64_t pa = drv.translate(base + 0x7008);
    nlohmann::json j;
    sc_time d = SC_ZERO_TIME;
    EXPECT_EQ(send(op::probe, d), std::make_pair(tlm::TLM_OK_RESPONSE, uint64_t(0))); // not held
    EXPECT_EQ(send(op::translate_debug, d), std::make_pair(tlm::TLM_OK_RESPONSE, pa));
    EXPECT_EQ(d, SC_ZERO_TIME);
    walker.dump_stats(j);
    EXPECT_EQ(j["walks"], 0u);
    EXPECT_EQ(send(op::translate, d), std::make_pair(tlm::TLM_OK_RESPONSE, pa));
    EXPECT_EQ(d, sc_time(1 + 5 + 4 * mem_lat, SC_NS));
    walker.dump_stats(j);
    EXPECT_EQ(j["walks"], 1u);
    EXPECT_EQ(send(op::probe, d), std::make_pair(tlm::TLM_OK_RESPONSE, pa)); // held now
    for (op o : {op::ldt_update, op::ldt_evict})
        EXPECT_EQ(send(o, d), std::make_pair(tlm::TLM_COMMAND_ERROR_RESPONSE, uint64_t(0))) << int(o);
}

TEST_F(TlbComponentTest, L2HitAvoidsTheWalk)
{
    uint64_t v = 1;
    sc_time d;
    for (unsigned p = 0; p < 16; p++) // 16 pages overflow the 8-entry L1, fit the L2
        ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, base + p * 4096, &v, 8, d), tlm::TLM_OK_RESPONSE);
    nlohmann::json j;
    walker.dump_stats(j);
    EXPECT_EQ(j["walks"], 16u);
    EXPECT_EQ(j["pt_reads"], 64u);
    const sc_time t0 = d; // every fill has arrived by now
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d - t0, sc_time(1 + 5 + mem_lat, SC_NS));
    walker.dump_stats(j);
    EXPECT_EQ(j["walks"], 16u);
}

TEST_F(TlbComponentTest, HitOnAFillInFlightWaitsForTheFill)
{
    // Two accesses to one page issued at the same time: the first misses and
    // walks; the second finds the entry (the model fills at call time) but
    // its translation only arrives with the walk, so it completes no earlier.
    uint64_t v = 7;
    sc_time d1 = SC_ZERO_TIME, d2 = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, base + 0x5000, &v, 8, d1), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + 0x5008, &v, 8, d2), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d1, sc_time(1 + 5 + 4 * mem_lat + mem_lat, SC_NS));
    EXPECT_EQ(d2, d1); // waits for the walk, then its own data access
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->hits, 1u);
    nlohmann::json j;
    l1.dump_stats(j);
    EXPECT_EQ(j["hits_under_fill"], 1u);
    // Once the fill has arrived, a hit costs only the lookup.
    sc_time d3 = d1;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + 0x5010, &v, 8, d3), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d3 - d1, sc_time(1 + mem_lat, SC_NS));
}

TEST_F(TlbComponentTest, WarpIsCoalescedIntoUniquePagesAndBatched)
{
    gmmu::warp_ext ext;
    ext.active = 0xFFFFFFFFu;
    for (unsigned l = 0; l < 32; l++) {
        ext.va[l] = base + (l % 4) * 4096 + 8 * l; // 4 distinct pages
        ext.data[l] = 100 + l;
    }
    sc_time d;
    ASSERT_EQ(ini.warp(tlm::TLM_WRITE_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ext.page_divergence, 4u);
    for (unsigned l = 0; l < 32; l++) {
        EXPECT_EQ(ext.pa[l], drv.translate(ext.va[l])) << "lane " << l;
        EXPECT_EQ(mem.read64(ext.pa[l]), 100u + l);
    }
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->accesses, 4u);
    nlohmann::json j;
    l1.dump_stats(j);
    EXPECT_EQ(j["miss_batches"], 1u); // the four misses went down as one batch
}

TEST_F(TlbComponentTest, UnmappedAndReadOnlyAccessesFault)
{
    uint64_t v = 5;
    sc_time d;
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + (1ull << 33), &v, 8, d),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    gmmu::warp_ext ext;
    ext.nlanes = 1;
    ext.active = 1;
    ext.va[0] = base + (1ull << 30);
    EXPECT_EQ(ini.warp(tlm::TLM_WRITE_COMMAND, ext, d), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(ext.fault, GMMU_FAULT_WRITE);
    EXPECT_EQ(ext.fault_mask, 1u);
    EXPECT_EQ(ini.warp(tlm::TLM_READ_COMMAND, ext, d), tlm::TLM_OK_RESPONSE); // reading is allowed
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x0000900000000000ull, &v, 8, d),
              tlm::TLM_ADDRESS_ERROR_RESPONSE); // non-canonical
}

// The L1 TLB of an SM whose scheduler reads the sideband (sched_sideband)
// reports its misses and hit depths into the access's sched_sideband_ext;
// one without that parameter never looks for the extension, even when a
// payload carries one (gather_pages asks the payload only when configured).
TEST(TlbSidebandTest, OnlyAnL1WithSchedSidebandFillsTheAttachedSideband)
{
    const uint64_t base = 0x7f0000000000ull;
    TestInitiator ini_on{"sb_ini_on"}, ini_off{"sb_ini_off"};
    gmmu::memory mem{"sb_mem", 10, sc_time(1, SC_NS)};
    gmmu::driver drv{"sb_drv", mem};
    gmmu::tlb_params on_p = params(8, 8, 1, 1);
    on_p.sched_sideband = true;
    gmmu::tlb on{"sb_l1_on", on_p}, off{"sb_l1_off", params(8, 8, 1, 1)};
    gmmu::ptw walker{"sb_ptw", gmmu::ptw_params{}};
    ini_on.isock.bind(on.tsock);
    ini_off.isock.bind(off.tsock);
    on.isock.bind(mem.tsock);
    off.isock.bind(mem.tsock);
    on.miss_isock.bind(walker.tsock);
    off.miss_isock.bind(walker.tsock);
    walker.pt_isock.bind(mem.tsock);
    walker.set_root(0, drv.root());
    drv.map(base, 16 * 4096, 12);
    sc_start(SC_ZERO_TIME);
    gmmu::warp_ext ext;
    ext.nlanes = 1;
    ext.active = 1;
    ext.va[0] = base;
    gmmu::sched_sideband_ext sb;
    auto read = [&](TestInitiator &ini) {
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_READ_COMMAND);
        gp.set_address(ext.va[0]);
        gp.set_data_ptr(nullptr);
        gp.set_data_length(0);
        gp.set_extension(&ext);
        gp.set_extension(&sb);
        sb.clear();
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = SC_ZERO_TIME;
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&ext);
        gp.clear_extension(&sb);
        return gp.get_response_status();
    };
    ASSERT_EQ(read(ini_on), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(sb.tlb_miss); // the first touch misses
    ASSERT_EQ(read(ini_on), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(sb.tlb_miss); // now a hit
    ASSERT_EQ(read(ini_off), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(sb.tlb_miss); // a miss in the other L1, but it was not asked to report
    EXPECT_EQ(gmmu_tlb_stats_of(off.model())->misses, 1u);
}

// The hit fast path (tlb_params::hit_fast_path) serves one-page warp hits
// with one model call; a twin with it off takes the request batch. The same
// traffic through both must give the same lanes, extension fields, delays,
// sideband and statistics, and only the twin with it on (and no MSHR model)
// may take it.
TEST(TlbFastPathComponentTest, OnePageHitsTakeItAndEveryResultMatchesTheBatchPath)
{
    const uint64_t base = 0x7f0000000000ull;
    struct stack {
        TestInitiator ini;
        gmmu::memory mem;
        gmmu::driver drv;
        gmmu::tlb l1;
        gmmu::ptw walker;
        stack(const std::string &n, bool fast, unsigned mshrs)
            : ini((n + "_ini").c_str()), mem((n + "_mem").c_str(), 10, sc_time(1, SC_NS)),
              drv((n + "_drv").c_str(), mem), l1((n + "_l1").c_str(), p(fast, mshrs)),
              walker((n + "_ptw").c_str(), gmmu::ptw_params{})
        {
            ini.isock.bind(l1.tsock);
            l1.isock.bind(mem.tsock);
            l1.miss_isock.bind(walker.tsock);
            walker.pt_isock.bind(mem.tsock);
            walker.set_root(0, drv.root());
        }
        static gmmu::tlb_params p(bool fast, unsigned mshrs)
        {
            gmmu::tlb_params q = params(16, 16, 1, 1);
            q.hit_fast_path = fast;
            q.sched_sideband = true;
            q.mshr.mshrs = mshrs;
            q.mshr.ports = 4;
            q.mshr.hits_under_miss = true;
            return q;
        }
    };
    stack on("fp_on", true, 0), off("fp_off", false, 0), mshr("fp_mshr", true, 4);
    for (stack *st : {&on, &off, &mshr}) {
        st->drv.map(base, 64 * 4096, 12);
        st->drv.map(base + (1ull << 30), 4096, 12, GMMU_MAP_U); // read-only page
    }
    sc_start(SC_ZERO_TIME);
    struct out {
        gmmu::warp_ext w;
        gmmu::sched_sideband_ext sb;
        sc_time d;
        tlm::tlm_response_status rs = tlm::TLM_INCOMPLETE_RESPONSE;
    };
    out oa, ob, om;
    std::mt19937_64 rng(46);
    for (int i = 0; i < 3000; i++) {
        // One page (mostly), sometimes the read-only page or two pages; a
        // write now and then; sometimes at the same time as the last access.
        const unsigned kind = unsigned(rng() % 16);
        const uint64_t page = kind == 0 ? base + (1ull << 30) : base + (rng() % 24) * 4096;
        const bool two = kind == 1;
        const bool write = rng() % 4 == 0;
        const sc_time start = sc_time(double(i / (rng() % 3 == 0 ? 1 : 2) * 50), SC_NS);
        // Each stack's payload extensions live on, as an SM's do: whatever
        // an access leaves in them, the next one must overwrite.
        auto run = [&](stack &st, out &o) {
            o.w.active = uint32_t(rng_lanes(i));
            for (unsigned l = 0; l < 32; l++) {
                o.w.va[l] = (two && l >= 16 ? page + 4096 : page) + 8 * l;
                o.w.data[l] = 1000u * unsigned(i) + l;
            }
            o.sb.clear();
            tlm::tlm_generic_payload gp;
            gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
            gp.set_address(o.w.va[0]);
            gp.set_data_ptr(nullptr);
            gp.set_data_length(0);
            gp.set_extension(&o.w);
            gp.set_extension(&o.sb);
            gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            o.d = start;
            st.ini.isock->b_transport(gp, o.d);
            gp.clear_extension(&o.w);
            gp.clear_extension(&o.sb);
            o.rs = gp.get_response_status();
        };
        run(on, oa);
        run(off, ob);
        run(mshr, om);
        const out &a = oa, &b = ob;
        ASSERT_EQ(a.rs, b.rs) << i;
        ASSERT_EQ(a.d, b.d) << i;
        ASSERT_EQ(a.w.xlate_time, b.w.xlate_time) << i;
        ASSERT_EQ(a.w.page_divergence, b.w.page_divergence) << i;
        ASSERT_EQ(a.w.translated, b.w.translated) << i;
        ASSERT_EQ(a.w.fault, b.w.fault) << i;
        ASSERT_EQ(a.w.fault_mask, b.w.fault_mask) << i;
        ASSERT_EQ(a.w.fault_va, b.w.fault_va) << i;
        ASSERT_EQ(a.sb.tlb_miss, b.sb.tlb_miss) << i;
        ASSERT_EQ(a.sb.tlb_hit_depth, b.sb.tlb_hit_depth) << i;
        for (unsigned l = 0; l < 32; l++) {
            if (a.w.active & (1u << l)) {
                ASSERT_EQ(a.w.pa[l], b.w.pa[l]) << i << " lane " << l;
            }
        }
    }
    nlohmann::json ja, jb;
    on.l1.dump_stats(ja);
    off.l1.dump_stats(jb);
    EXPECT_EQ(ja.dump(), jb.dump());
    EXPECT_EQ(std::memcmp(gmmu_tlb_stats_of(on.l1.model()), gmmu_tlb_stats_of(off.l1.model()),
                          sizeof(gmmu_tlb_stats)), 0);
    EXPECT_GT(ja["hits_under_fill"].get<uint64_t>(), 0u) << "the traffic must reach fills in flight";
    EXPECT_GT(on.l1.fast_path_served(), 1000u);
    EXPECT_EQ(off.l1.fast_path_served(), 0u);
    EXPECT_EQ(mshr.l1.fast_path_served(), 0u) << "the MSHR model times every access itself";
}

TEST_F(TlbComponentTest, DebugTransportTranslatesWithoutChangingState)
{
    uint64_t v = 77, back = 0;
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, base + 0x5000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    gmmu_tlb_stats before = *gmmu_tlb_stats_of(l1.model());
    EXPECT_EQ(ini.debug(tlm::TLM_READ_COMMAND, base + 0x5000, &back, 8), 8u);
    EXPECT_EQ(back, 77u);
    uint64_t w = 99;
    EXPECT_EQ(ini.debug(tlm::TLM_WRITE_COMMAND, base + 0x9000, &w, 8), 8u); // an L1 miss, walked
    EXPECT_EQ(mem.read64(drv.translate(base + 0x9000)), 99u);
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->accesses, before.accesses);
    EXPECT_FALSE(gmmu_tlb_probe(l1.model(), 0, (base + 0x9000) >> 12, nullptr));
}

// Debug transport has its own path (tlb::debug_access, tlb::translate_dbg):
// plain and warp payloads, hits and misses, one page or several, read and
// write: the data moves, and no counter of any TLB level or the walker, no
// timed memory counter, and no TLB entry changes.
TEST_F(TlbComponentTest, DebugPathChangesNoCounterAnywhere)
{
    uint64_t v = 0x1234, back = 0;
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, base + 0x5000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    auto snapshot = [&] {
        nlohmann::json j;
        l1.dump_stats(j["l1"]);
        l2.dump_stats(j["l2"]);
        walker.dump_stats(j["ptw"]);
        mem.dump_stats(j["mem"]);
        // The memory counts debug transport it serves, and a debug write may
        // allocate a page of its sparse store: its own record, not a TLB's.
        j["mem"].erase("debug_accesses");
        j["mem"].erase("pages_allocated");
        return j;
    };
    const nlohmann::json before = snapshot();
    EXPECT_EQ(ini.debug(tlm::TLM_READ_COMMAND, base + 0x5000, &back, 8), 8u); // L1 hit
    EXPECT_EQ(back, 0x1234u);
    uint64_t w = 0x5678;
    EXPECT_EQ(ini.debug(tlm::TLM_WRITE_COMMAND, base + 0xa000, &w, 8), 8u); // walked
    EXPECT_EQ(mem.read64(drv.translate(base + 0xa000)), 0x5678u);
    unsigned char span[16];
    std::memset(span, 0xab, sizeof span);
    EXPECT_EQ(ini.debug(tlm::TLM_WRITE_COMMAND, base + 0xcff8, span, 16), 16u); // two pages
    EXPECT_EQ(mem.read64(drv.translate(base + 0xd000)), 0xababababababababull);
    gmmu::warp_ext x;
    x.nlanes = 4;
    x.active = 0xf;
    for (unsigned l = 0; l < 4; l++)
        x.va[l] = base + 0x5000 + (uint64_t(l) << 13); // four pages, three not in any TLB
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(x.va[0]);
    gp.set_extension(&x);
    ini.isock->transport_dbg(gp);
    gp.clear_extension(&x);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(x.data[0], 0x1234u);
    EXPECT_EQ(x.pa[3], drv.translate(x.va[3]));
    EXPECT_EQ(snapshot(), before);
    for (uint64_t page : {0xa000ull, 0xc000ull, 0xd000ull, 0x7000ull, 0x9000ull, 0xb000ull}) {
        EXPECT_FALSE(gmmu_tlb_probe(l1.model(), 0, (base + page) >> 12, nullptr)) << page;
        EXPECT_FALSE(gmmu_tlb_probe(l2.model(), 0, (base + page) >> 12, nullptr)) << page;
    }
}

TEST_F(TlbComponentTest, DmiIsPageSizedVirtualAndHonoursPermissions)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(base + 0x2123);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    EXPECT_EQ(dmi.get_start_address(), base + 0x2000);
    EXPECT_EQ(dmi.get_end_address(), base + 0x2fff);
    EXPECT_TRUE(dmi.is_read_write_allowed());
    uint64_t v = 0x5151;
    std::memcpy(dmi.get_dmi_ptr() + 0x123, &v, 8);
    EXPECT_EQ(mem.read64(drv.translate(base + 0x2123)), v);

    gp.set_address(base + (1ull << 30));
    tlm::tlm_dmi ro;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, ro));
    EXPECT_TRUE(ro.is_read_allowed());
    EXPECT_FALSE(ro.is_write_allowed());

    gp.set_address(base + (1ull << 34));
    tlm::tlm_dmi none;
    EXPECT_FALSE(ini.isock->get_direct_mem_ptr(gp, none)); // unmapped: no DMI
}

TEST_F(TlbComponentTest, InvalidationDropsEntriesAndRevokesDmiUpstream)
{
    uint64_t v = 1;
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + 0x4000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(base + 0x4000);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    ASSERT_TRUE(gmmu_tlb_probe(l1.model(), 0, (base + 0x4000) >> 12, nullptr));
    l1.invalidate_page(0, base + 0x4000);
    EXPECT_FALSE(gmmu_tlb_probe(l1.model(), 0, (base + 0x4000) >> 12, nullptr));
    ASSERT_EQ(ini.invalidations.size(), 1u);
    EXPECT_EQ(ini.invalidations[0].first, base + 0x4000);
    EXPECT_EQ(ini.invalidations[0].second, base + 0x4fff);
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    l1.invalidate_all();
    ASSERT_EQ(ini.invalidations.size(), 2u);
    EXPECT_EQ(ini.invalidations[1].first, 0u);
}

} // namespace

namespace {

struct ShootdownTest : TlbComponentTest {
    TestInitiator cpu{"cpu"};
    void SetUp() override
    {
        cpu.isock.bind(l1.shootdown_tsock);
        TlbComponentTest::SetUp();
    }
    void reg_write(uint64_t off, uint64_t v)
    {
        sc_time d;
        ASSERT_EQ(cpu.access(tlm::TLM_WRITE_COMMAND, off, &v, 8, d), tlm::TLM_OK_RESPONSE);
    }
    bool cached(uint64_t va) { return gmmu_tlb_probe(l1.model(), 0, va >> 12, nullptr); }
    void touch(uint64_t va)
    {
        uint64_t v = 0;
        sc_time d;
        ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, va, &v, 8, d), tlm::TLM_OK_RESPONSE);
    }
};

TEST_F(ShootdownTest, RegisterBlockInvalidatesRangeAsidAndAll)
{
    for (unsigned p = 0; p < 4; p++)
        touch(base + p * 4096);
    reg_write(0x10, base + 4096);
    reg_write(0x18, base + 2 * 4096 + 100);
    reg_write(0x20, 0); // range of ASID 0: pages 1 and 2
    EXPECT_TRUE(cached(base));
    EXPECT_FALSE(cached(base + 4096));
    EXPECT_FALSE(cached(base + 2 * 4096));
    EXPECT_TRUE(cached(base + 3 * 4096));
    reg_write(0x08, 5); // another ASID: nothing of ASID 0 goes
    EXPECT_TRUE(cached(base));
    reg_write(0x08, 0);
    EXPECT_FALSE(cached(base));
    touch(base);
    reg_write(0x00, 1);
    EXPECT_FALSE(cached(base));
    uint64_t gen = 0;
    sc_time d;
    ASSERT_EQ(cpu.access(tlm::TLM_READ_COMMAND, 0x28, &gen, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_GE(gen, 3u);
    uint64_t v = 0;
    EXPECT_EQ(cpu.access(tlm::TLM_WRITE_COMMAND, 0x30, &v, 8, d), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(cpu.access(tlm::TLM_WRITE_COMMAND, 0x28, &v, 8, d), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

TEST_F(ShootdownTest, ShootdownRevokesDmiGrantedUpstream)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(base + 0x1000);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    reg_write(0x10, base + 0x1000);
    reg_write(0x18, base + 0x1fff);
    reg_write(0x20, 0);
    ASSERT_EQ(ini.invalidations.size(), 1u);
    EXPECT_EQ(ini.invalidations[0].first, base + 0x1000);
    EXPECT_EQ(ini.invalidations[0].second, base + 0x1fff);
}

} // namespace

namespace {

// L1 with the MSHR timing model in front of a 2-walker PTW (no L2).
struct MshrTest : ::testing::Test {
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 10, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    std::unique_ptr<gmmu::tlb> l1;
    std::unique_ptr<gmmu::ptw> walker;
    const uint64_t base = 0x7f0000000000ull;
    void build(unsigned mshrs)
    {
        gmmu::tlb_params p = params(16, 16, 1, 1);
        p.mshr.ports = 4;
        p.mshr.mshrs = mshrs;
        p.mshr.hits_under_miss = true;
        l1 = std::make_unique<gmmu::tlb>("l1", p);
        gmmu::ptw_params wp;
        wp.walkers = 8;
        walker = std::make_unique<gmmu::ptw>("ptw", wp);
        ini.isock.bind(l1->tsock);
        l1->isock.bind(mem.tsock);
        l1->miss_isock.bind(walker->tsock);
        walker->pt_isock.bind(mem.tsock);
        walker->set_root(0, drv.root());
        drv.map(base, 64 * 4096, 12);
        sc_start(SC_ZERO_TIME);
    }
    sc_time warp(unsigned pages, sc_time start = SC_ZERO_TIME)
    {
        gmmu::warp_ext ext;
        ext.active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            ext.va[l] = base + (l % pages) * 4096 + 8 * l;
        sc_time d = start;
        EXPECT_EQ(ini.warp(tlm::TLM_READ_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
        for (unsigned l = 0; l < 32; l++)
            EXPECT_EQ(ext.pa[l], drv.translate(ext.va[l]));
        return d - start;
    }
    nlohmann::json stats()
    {
        nlohmann::json j;
        l1->dump_stats(j);
        return j;
    }
};

TEST_F(MshrTest, FullMshrsStallLaterMisses)
{
    build(2);
    sc_time two_mshrs = warp(4); // 4 misses, 2 MSHRs: the last two wait for a free one
    EXPECT_GT(stats()["mshr"]["stall_cycles"].get<uint64_t>(), 0u);
    EXPECT_EQ(stats()["mshr"]["max_in_flight"], 2u);
    // Every miss takes a walk of 4 reads (40 ns); two rounds plus lookup and data.
    EXPECT_GE(two_mshrs, sc_time(2 * 40 + 10, SC_NS));
}

TEST_F(MshrTest, EnoughMshrsOverlapTheMisses)
{
    build(8);
    sc_time eight = warp(4);
    EXPECT_EQ(stats()["mshr"]["stall_cycles"], 0u);
    EXPECT_LT(eight, sc_time(2 * 40 + 10, SC_NS));
}

TEST_F(MshrTest, LaterWarpMergesIntoAnOutstandingMiss)
{
    build(8);
    warp(1);                              // page 0 misses, fill at ~41 ns
    sc_time d = warp(1, sc_time(5, SC_NS)); // same page while that miss is in flight
    EXPECT_EQ(stats()["mshr"]["merges"], 1u);
    nlohmann::json w;
    walker->dump_stats(w);
    EXPECT_EQ(w["walks"], 1u); // one walk for both
    EXPECT_LT(d, sc_time(41 + 10, SC_NS));
}

} // namespace

// A debug access through a coverage entry (one entry vouching for 16
// contiguous pages) must reach the frame of the page it names, not the frame
// of the entry's first page.
TEST(TlbCoverageDebugTest, DebugReadThroughACoverageEntryReachesItsOwnPage)
{
    TestInitiator ini{"cov_ini"};
    gmmu::memory mem{"cov_mem", 10, sc_time(1, SC_NS)};
    gmmu::driver drv{"cov_drv", mem};
    gmmu::tlb_params p1 = params(8, 8, 1, 1);
    p1.model.coverage_shift = 16; // 64 KiB entries
    gmmu::tlb l1{"cov_l1", p1};
    gmmu::ptw walker{"cov_ptw", gmmu::ptw_params{}};
    ini.isock.bind(l1.tsock);
    l1.isock.bind(mem.tsock);
    l1.miss_isock.bind(walker.tsock);
    walker.pt_isock.bind(mem.tsock);
    walker.set_root(0, drv.root());
    const uint64_t base = 0x7e0000000000ull;
    drv.map(base, 64 * 4096, 12); // contiguous frames, with the PTEs' contiguity hint
    sc_start(SC_ZERO_TIME);
    for (uint64_t pg = 0; pg < 16; pg++)
        mem.write64(drv.translate(base + pg * 4096 + 8), 1000 + pg);
    sc_time d;
    uint64_t v = 0;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, base + 8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(v, 1000u);
    gmmu_tlb_entry e{};
    ASSERT_TRUE(gmmu_tlb_probe(l1.model(), 0, (base + 0x5000) >> 12, &e))
        << "the first access filled one entry for the 16 pages";
    ASSERT_EQ(e.span_shift, 4);
    for (uint64_t pg = 1; pg < 16; pg++) {
        uint64_t back = 0;
        EXPECT_EQ(ini.debug(tlm::TLM_READ_COMMAND, base + pg * 4096 + 8, &back, 8), 8u);
        EXPECT_EQ(back, 1000 + pg) << "page " << pg;
    }
}
