#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>

#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/gpu/driver.h"
#include "tlm_harness.h"

using namespace sc_core;

namespace {

struct PtwTest : ::testing::TestWithParam<unsigned> {
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    std::unique_ptr<gmmu::ptw> walker;
    void build(unsigned walkers, unsigned fixed = 0)
    {
        gmmu::ptw_params p;
        p.walkers = walkers;
        p.fixed_walk_cycles = fixed;
        build(p);
    }
    void build(const gmmu::ptw_params &p)
    {
        walker = std::make_unique<gmmu::ptw>("ptw", p);
        ini.isock.bind(walker->tsock);
        walker->pt_isock.bind(mem.tsock);
        walker->set_root(0, drv.root());
        sc_start(SC_ZERO_TIME);
    }
    static gmmu::xlate_ext requests(const std::vector<uint64_t> &vas)
    {
        gmmu::xlate_ext x;
        for (auto va : vas) {
            gmmu::xlate_req r;
            r.va = va;
            x.reqs.push_back(r);
        }
        return x;
    }
    gmmu::xlate_ext batch(std::vector<uint64_t> vas, sc_time &d)
    {
        gmmu::xlate_ext x = requests(vas);
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        EXPECT_EQ(gp.get_response_status(), tlm::TLM_OK_RESPONSE);
        return x;
    }
    // A batch the walker stops with an error: its message ("" when none).
    std::string batch_error(std::vector<uint64_t> vas)
    {
        gmmu::xlate_ext x = requests(vas);
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        std::string msg;
        sc_time d = SC_ZERO_TIME;
        try {
            ini.isock->b_transport(gp, d);
        } catch (const sc_core::sc_report &e) {
            msg = e.get_msg();
        }
        gp.clear_extension(&x); // x lives on the stack
        return msg;
    }
};

TEST_F(PtwTest, WalkLatencyIsTheSumOfItsReads)
{
    build(1);
    drv.map(0x10000000, 4096, 12);
    drv.map(0x40000000, 1ull << 30, 30);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000123}, d);
    ASSERT_TRUE(x.reqs[0].done);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(x.reqs[0].pa, drv.translate(0x10000123));
    EXPECT_EQ(d, sc_time(4 * 25, SC_NS));
    sc_time d2 = SC_ZERO_TIME;
    x = batch({0x40000000 + 0x123456}, d2);
    EXPECT_EQ(x.reqs[0].page_shift, 30u);
    // Starts when the walker frees (t=100) and takes 2 reads (1 GiB page).
    EXPECT_EQ(d2, sc_time(100 + 2 * 25, SC_NS));
    nlohmann::json j;
    walker->dump_stats(j);
    EXPECT_EQ(j["walks"], 2u);
    EXPECT_EQ(j["pt_reads"], 6u);
}

// One translation request through `ini` at delay d (a walk, or a fault).
gmmu::xlate_req walk_one(TestInitiator &ini, uint64_t va, sc_time &d)
{
    gmmu::xlate_req r;
    r.va = va;
    tlm::tlm_response_status st = tlm::TLM_INCOMPLETE_RESPONSE;
    const gmmu::xlate_req a = ini.translate(r, d, &st);
    EXPECT_EQ(st, tlm::TLM_OK_RESPONSE);
    return a;
}

// Page-table reads by DMI (ptw_params::dmi) give every walk the answer and
// the time the same walk has by b_transport; the memory then counts only the
// reads that went by transport (each asking for its page's region).
TEST(PtwDmiTest, WalksByDmiAnswerAndTakeWhatWalksByTransportDo)
{
    TestInitiator ia{"ia"}, ib{"ib"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    gmmu::ptw_params by_dmi, by_transport;
    by_transport.dmi = false;
    gmmu::ptw wa("wa", by_dmi), wb("wb", by_transport);
    ia.isock.bind(wa.tsock);
    ib.isock.bind(wb.tsock);
    wa.pt_isock.bind(mem.tsock);
    wb.pt_isock.bind(mem.tsock);
    wa.set_root(0, drv.root());
    wb.set_root(0, drv.root());
    sc_start(SC_ZERO_TIME);
    drv.map(0x10000000, 64 * 4096, 12);
    drv.map(0x40000000, 1ull << 30, 30);
    std::vector<uint64_t> vas;
    for (unsigned i = 0; i < 64; i++)
        vas.push_back(0x10000000 + i * 4096 + 8 * i);
    vas.push_back(0x40000000 + 0x123456);
    vas.push_back(0x7000000000ull); // not mapped: a fault
    for (unsigned k = 0; k < vas.size(); k++) {
        sc_time da = sc_time(10 * k, SC_NS), db = da;
        const gmmu::xlate_req a = walk_one(ia, vas[k], da), b = walk_one(ib, vas[k], db);
        EXPECT_EQ(a.fault, b.fault) << k;
        EXPECT_EQ(a.pa, b.pa) << k;
        EXPECT_EQ(a.page_shift, b.page_shift) << k;
        EXPECT_EQ(a.perms, b.perms) << k;
        EXPECT_EQ(da, db) << k;
    }
    nlohmann::json ja, jb, jm;
    wa.dump_stats(ja);
    wb.dump_stats(jb);
    mem.dump_stats(jm);
    EXPECT_EQ(ja["pt_reads"], jb["pt_reads"]);
    EXPECT_GT(ja["dmi_reads"].get<uint64_t>(), ja["pt_reads"].get<uint64_t>() / 2);
    EXPECT_GE(ja["dmi_grants"].get<uint64_t>(), 1u);
    EXPECT_EQ(jb["dmi_reads"], 0u);
    EXPECT_EQ(jb["dmi_grants"], 0u);
    EXPECT_EQ(jm["reads"].get<uint64_t>(), jb["pt_reads"].get<uint64_t>() + ja["pt_reads"].get<uint64_t>() -
                                               ja["dmi_reads"].get<uint64_t>());
}

// A region the memory revokes (here: its page moved away and back) is not
// read again: the next read goes by transport and asks for a new region.
TEST(PtwDmiTest, ARevokedRegionIsReadByTransportAgain)
{
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 25, sc_time(1, SC_NS)};
    gmmu::driver drv{"drv", mem};
    gmmu::ptw w("w", gmmu::ptw_params{});
    ini.isock.bind(w.tsock);
    w.pt_isock.bind(mem.tsock);
    w.set_root(0, drv.root());
    sc_start(SC_ZERO_TIME);
    drv.map(0x10000000, 4096, 12);
    auto reads = [&] {
        nlohmann::json j;
        mem.dump_stats(j);
        return j["reads"].get<uint64_t>();
    };
    sc_time d = SC_ZERO_TIME;
    EXPECT_EQ(walk_one(ini, 0x10000008, d).pa, drv.translate(0x10000008));
    const uint64_t first = reads();
    EXPECT_EQ(first, 4u); // by transport, each granting its page's region
    d = sc_time(1000, SC_NS);
    EXPECT_EQ(walk_one(ini, 0x10000008, d).pa, drv.translate(0x10000008));
    EXPECT_EQ(reads(), first); // all four by DMI
    gmmu_mem_ops ops = drv.mem_ops();
    gmmu_walk_result r;
    ASSERT_EQ(gmmu_walk(&ops, drv.root(), 0x10000008, 0, &r), GMMU_OK);
    const uint64_t leaf_table = r.read_pa[3] & ~0xFFFull, away = 0x7f000000000ull;
    mem.move_range(leaf_table, away, 4096);
    mem.move_range(away, leaf_table, 4096);
    d = sc_time(2000, SC_NS);
    EXPECT_EQ(walk_one(ini, 0x10000008, d).pa, drv.translate(0x10000008));
    EXPECT_EQ(reads(), first + 1); // the leaf's table, by transport again
    nlohmann::json j;
    w.dump_stats(j);
    EXPECT_GE(j["dmi_invalidations"].get<uint64_t>(), 1u);
    EXPECT_EQ(j["dmi_grants"], 5u);
    EXPECT_EQ(j["dmi_reads"], 7u);
    EXPECT_EQ(j["pt_reads"], 12u);
}

TEST_F(PtwTest, OneWalkerSerializesAndTwoWalkOverlap)
{
    build(2);
    drv.map(0x10000000, 3 * 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000000, 0x10001000, 0x10002000}, d);
    EXPECT_EQ(x.reqs[0].ready, sc_time(100, SC_NS));
    EXPECT_EQ(x.reqs[1].ready, sc_time(100, SC_NS)); // second walker in parallel
    EXPECT_EQ(x.reqs[2].ready, sc_time(200, SC_NS)); // waits for a free walker
    EXPECT_EQ(d, sc_time(200, SC_NS));
}

TEST_F(PtwTest, FixedWalkLatencyOverridesReads)
{
    build(1, 500);
    drv.map(0x10000000, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    batch({0x10000000}, d);
    EXPECT_EQ(d, sc_time(500, SC_NS));
}

TEST_F(PtwTest, FaultsAreReportedPerRequest)
{
    build(1);
    drv.map(0x10000000, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch({0x10000000, 0x20000000, 0x0000800000000000ull}, d);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(x.reqs[1].fault, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(x.reqs[2].fault, GMMU_FAULT_NONCANONICAL);
    gmmu::xlate_req r;
    r.va = 0x10000000;
    r.asid = 9; // no root bound
    EXPECT_EQ(ini.translate(r, d).fault, GMMU_FAULT_NOT_PRESENT);
}

TEST_F(PtwTest, DataPayloadIsRejected)
{
    build(1);
    uint64_t v;
    sc_time d;
    EXPECT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0, &v, 8, d), tlm::TLM_COMMAND_ERROR_RESPONSE);
}

// The walker's xlate_ext commands each have their handler: translate (timed
// walks, counted), translate_debug (the same answer, no walk counted, no
// time); the PICLE/Valkyrie commands are not a walker's and are refused
// without touching the requests.
TEST_F(PtwTest, EachCommandHasItsHandlerAndForeignOnesAreRefused)
{
    using op = gmmu::xlate_ext::op_kind;
    build(1);
    drv.map(0x10000000, 4096, 12);
    auto send = [&](op o, gmmu::xlate_ext &x, sc_time &d) {
        x.op = o;
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_IGNORE_COMMAND);
        gp.set_extension(&x);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        ini.isock->b_transport(gp, d);
        gp.clear_extension(&x);
        return gp.get_response_status();
    };
    const uint64_t va = 0x10000123;
    nlohmann::json j;
    sc_time d = SC_ZERO_TIME;
    gmmu::xlate_ext x = requests({va});
    EXPECT_EQ(send(op::translate_debug, x, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(x.reqs[0].pa, drv.translate(va));
    EXPECT_EQ(d, SC_ZERO_TIME);
    walker->dump_stats(j);
    EXPECT_EQ(j["walks"], 0u);
    x = requests({va});
    EXPECT_EQ(send(op::translate, x, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(x.reqs[0].pa, drv.translate(va));
    EXPECT_EQ(d, sc_time(4 * 25, SC_NS));
    walker->dump_stats(j);
    EXPECT_EQ(j["walks"], 1u);
    for (op o : {op::ldt_update, op::ldt_evict, op::prefetch, op::probe}) {
        x = requests({va});
        d = SC_ZERO_TIME;
        EXPECT_EQ(send(o, x, d), tlm::TLM_COMMAND_ERROR_RESPONSE) << int(o);
        EXPECT_FALSE(x.reqs[0].done) << int(o);
        EXPECT_EQ(d, SC_ZERO_TIME) << int(o);
    }
    walker->dump_stats(j);
    EXPECT_EQ(j["walks"], 1u);
}

TEST_F(PtwTest, SetsAccessedAndDirtyWhenConfigured)
{
    gmmu::ptw_params p;
    p.set_accessed_dirty = true;
    walker = std::make_unique<gmmu::ptw>("ptw_ad", p);
    ini.isock.bind(walker->tsock);
    walker->pt_isock.bind(mem.tsock);
    walker->set_root(0, drv.root());
    sc_start(SC_ZERO_TIME);
    drv.map(0x10000000, 4096, 12);
    gmmu::xlate_ext x;
    gmmu::xlate_req r;
    r.va = 0x10000000;
    r.write = true;
    x.reqs.push_back(r);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_extension(&x);
    sc_time d;
    ini.isock->b_transport(gp, d);
    gp.clear_extension(&x);
    EXPECT_TRUE(x.reqs[0].perms & GMMU_PTE_D);
    gmmu_mem_ops ops = drv.mem_ops();
    gmmu_walk_result w;
    ASSERT_EQ(gmmu_walk(&ops, drv.root(), 0x10000000, 0, &w), GMMU_OK);
    EXPECT_TRUE(w.pte & GMMU_PTE_A);
    EXPECT_TRUE(w.pte & GMMU_PTE_D);
}

nlohmann::json stats(const gmmu::ptw &w)
{
    nlohmann::json j;
    w.dump_stats(j);
    return j;
}

// Figure 8 of pichai-asplos14: three misses sharing upper levels.
std::vector<uint64_t> figure8_vas()
{
    auto va = [](uint64_t l4, uint64_t l3, uint64_t l2, uint64_t l1) {
        return (l4 << 39) | (l3 << 30) | (l2 << 21) | (l1 << 12);
    };
    return {va(0xb9, 0x0c, 0xac, 0x03), va(0xb9, 0x0c, 0xac, 0x04), va(0xb9, 0x0c, 0xad, 0x05)};
}

TEST_F(PtwTest, TreeSchedulerCoalescesFigure8IntoSevenReads)
{
    gmmu::ptw_params p;
    gmmu_ws_config_default(&p.sched);
    p.sched.variant = GMMU_WS_TREE;
    build(p);
    for (uint64_t va : figure8_vas())
        drv.map(va, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch(figure8_vas(), d);
    for (auto &r : x.reqs) {
        EXPECT_EQ(r.fault, GMMU_FAULT_NONE);
        EXPECT_EQ(r.pa, drv.translate(r.va));
    }
    auto j = stats(*walker);
    EXPECT_EQ(j["pt_reads"], 7u);
    EXPECT_EQ(j["sched"]["refs_merged"], 5u);
    EXPECT_EQ(j["walks"], 3u);
}

// A/D write-back and permissions are the walk engine's for every kind: the
// tree scheduler's two walks set A on every level and D on the written leaf,
// each entry once (they share the upper three entries: 3 + 1 + 1 writes, as
// two serial walkers make), and the permissions carry the bits without a
// second walk of the tables.
TEST_F(PtwTest, TreeSchedulerSetsAccessedAndDirtyLikeSerialWalkers)
{
    gmmu::ptw_params p;
    gmmu_ws_config_default(&p.sched);
    p.sched.variant = GMMU_WS_TREE;
    p.set_accessed_dirty = true;
    build(p);
    drv.map(0x10000000, 4096, 12);
    drv.map(0x10001000, 4096, 12);
    gmmu::xlate_ext x = requests({0x10000000, 0x10001000});
    x.reqs[0].write = true;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_extension(&x);
    sc_time d = SC_ZERO_TIME;
    ini.isock->b_transport(gp, d);
    gp.clear_extension(&x);
    ASSERT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_TRUE(x.reqs[0].perms & GMMU_PTE_A);
    EXPECT_TRUE(x.reqs[0].perms & GMMU_PTE_D);
    EXPECT_TRUE(x.reqs[1].perms & GMMU_PTE_A);
    EXPECT_FALSE(x.reqs[1].perms & GMMU_PTE_D);
    auto j = stats(*walker);
    EXPECT_EQ(j["pt_writes"], 5u);
    EXPECT_EQ(j["pt_reads"], 5u); // 3 shared + 2 leaves: nothing read twice
    gmmu_mem_ops ops = drv.mem_ops();
    gmmu_walk_result w;
    ASSERT_EQ(gmmu_walk(&ops, drv.root(), 0x10000000, 0, &w), GMMU_OK);
    for (unsigned l = 4; l >= 1; l--)
        EXPECT_TRUE(w.level_pte[l] & GMMU_PTE_A) << l;
    EXPECT_TRUE(w.pte & GMMU_PTE_D);
    ASSERT_EQ(gmmu_walk(&ops, drv.root(), 0x10001000, 0, &w), GMMU_OK);
    EXPECT_TRUE(w.pte & GMMU_PTE_A);
    EXPECT_FALSE(w.pte & GMMU_PTE_D);
    // the write-backs take time: the batch ends later than without them
    EXPECT_GT(x.reqs[0].ready, sc_time(0, SC_NS));
}

// One walker limit: the walker takes what the C model's validator takes
// (64 walkers of the named configs k80/p100, up to GMMU_WS_MAX_WALKERS) and
// refuses one more, naming the key.
TEST_F(PtwTest, WalkerLimitIsTheModelsOne)
{
    gmmu::ptw_params p;
    p.walkers = GMMU_WS_MAX_WALKERS + 1;
    std::string msg;
    try {
        gmmu::ptw bad("ptw_too_many", p);
    } catch (const sc_core::sc_report &e) {
        msg = e.get_msg();
    }
    EXPECT_NE(msg.find("walkers: walkers = 257, allowed 1..256"), std::string::npos) << msg;
    p.walkers = 64;
    build(p);
    sc_time d = SC_ZERO_TIME;
    drv.map(0x10000000, 4096, 12);
    auto x = batch({0x10000000}, d);
    EXPECT_EQ(x.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(stats(*walker)["walkers"], 64u);
}

// A scheduled walker's MSHRs are shared by batches: a batch that arrives while
// an earlier one is still walking starts at once if it finds free MSHRs, and
// waits for the first MSHR to free up when it does not.
TEST_F(PtwTest, ScheduledBatchesOverlapWhileMshrsAreFree)
{
    gmmu::ptw_params p;
    gmmu_ws_config_default(&p.sched);
    p.sched.variant = GMMU_WS_TREE;
    p.sched.mshrs = 2;
    build(p);
    const uint64_t a = 0x10000000, b = 0x20000000000ull, c = 0x30000000000ull;
    for (uint64_t va : {a, b, c})
        drv.map(va, 4096, 12);
    sc_time da = SC_ZERO_TIME, db = SC_ZERO_TIME, dc = SC_ZERO_TIME;
    auto xa = batch({a}, da);
    auto xb = batch({b}, db); // same request time, the second MSHR
    auto xc = batch({c}, dc); // both MSHRs busy until the first two walks end
    ASSERT_EQ(xa.reqs[0].fault, GMMU_FAULT_NONE);
    EXPECT_EQ(xb.reqs[0].pa, drv.translate(b));
    EXPECT_EQ(xc.reqs[0].pa, drv.translate(c));
    const sc_time walk = xa.reqs[0].ready; // 4 reads of 25 ns and the scheduler's cycles
    EXPECT_GE(walk, sc_time(4 * 25, SC_NS));
    EXPECT_LT(walk, sc_time(4 * 25 + 20, SC_NS));
    EXPECT_EQ(xb.reqs[0].ready, walk) << "the second batch waited for the first";
    EXPECT_EQ(xc.reqs[0].ready, walk + walk);
    EXPECT_DOUBLE_EQ(stats(*walker)["avg_queue_ns"].get<double>(), walk.to_seconds() * 1e9 / 3);
}

// A second implementation of the walk scheduler for the step-device plumbing
// (ptw.scheduler_impl / ptw.cosim) without Verilator: the C model under another
// name, optionally with one output field corrupted at its n-th request.
struct TwinSched : gmmu::ws_step_device {
    gmmu_walk_sched *ws = nullptr;
    unsigned corrupt_at = 0, reqs = 0; // 0: never
    explicit TwinSched(const gmmu_ws_config &c) { gmmu_walk_sched_create(&c, &ws, nullptr); }
    ~TwinSched() override { gmmu_walk_sched_destroy(ws); }
    TwinSched(const TwinSched &) = delete;
    TwinSched &operator=(const TwinSched &) = delete;
    gmmu_status step(const gmmu_ws_in *in, gmmu_ws_out *out) override
    {
        gmmu_status s = gmmu_walk_sched_step(ws, in, out);
        if (s == GMMU_OK && out->req.valid && ++reqs == corrupt_at)
            out->req.pa ^= 0x40;
        after_step();
        return s;
    }
    bool quiescent() const override { return gmmu_walk_sched_quiescent(ws); }
    void skip(uint64_t c) override
    {
        ws->cycle += c;
        ws->st.cycles += c;
    }
    void reset() override { gmmu_walk_sched_reset(ws); }
    uint64_t scans() const override { return ws->st.scans; }
    std::string name() const override { return "twin"; }
    // Its "waveform": a line per cycle stepped while open (the cycle and the
    // request count after it).
    std::unique_ptr<std::ofstream> log;
    bool open_waveform(const std::string &path, std::string *why) override
    {
        log = std::make_unique<std::ofstream>(path);
        *why = "cannot write " + path;
        return bool(*log);
    }
    void close_waveform() override { log.reset(); }
    void after_step()
    {
        if (log)
            *log << ws->cycle << " " << reqs << "\n";
    }
};

TEST_F(PtwTest, SchedulerRunsThroughAnyStepDeviceAndLockStep)
{
    gmmu::set_ws_rtl_factory([](const gmmu_ws_config &c, std::string *) {
        return std::unique_ptr<gmmu::ws_step_device>(std::make_unique<TwinSched>(c));
    });
    gmmu::ptw_params p;
    gmmu_ws_config_default(&p.sched);
    p.sched.variant = GMMU_WS_TREE;
    p.sched_rtl = true;
    p.sched_cosim = true;
    build(p);
    for (uint64_t va : figure8_vas())
        drv.map(va, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto x = batch(figure8_vas(), d);
    for (auto &r : x.reqs)
        EXPECT_EQ(r.pa, drv.translate(r.va));
    auto j = stats(*walker);
    EXPECT_EQ(j["sched"]["impl"], "twin");
    EXPECT_EQ(j["sched"]["cosim"], "C model");
    EXPECT_EQ(j["pt_reads"], 7u);
    EXPECT_EQ(j["sched"]["refs_issued"], 7u);
    EXPECT_EQ(j["sched"]["refs_merged"], 5u);
    EXPECT_EQ(j["sched"]["refs_walked"], 12u);
    EXPECT_GT(j["sched"]["scans"].get<uint64_t>(), 0u);
}

TEST_F(PtwTest, SchedulerLockStepStopsAtTheFirstMismatchWithADiff)
{
    gmmu::set_ws_rtl_factory([](const gmmu_ws_config &c, std::string *) {
        auto t = std::make_unique<TwinSched>(c);
        t->corrupt_at = 3;
        return std::unique_ptr<gmmu::ws_step_device>(std::move(t));
    });
    gmmu::ptw_params p;
    gmmu_ws_config_default(&p.sched);
    p.sched.variant = GMMU_WS_TREE;
    p.sched_cosim = true; // the C model drives, the twin checks
    p.mismatch_cycles = 5;
    p.mismatch_fst = ::testing::TempDir() + "sched_mismatch.log";
    std::remove(p.mismatch_fst.c_str());
    build(p);
    for (uint64_t va : figure8_vas())
        drv.map(va, 4096, 12);
    const std::string msg = batch_error(figure8_vas());
    EXPECT_NE(msg.find("walk-scheduler co-simulation mismatch at scheduler cycle"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("(C model vs twin)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("req.pa"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("req.tag"), std::string::npos) << msg; // only the fields that differ
    // A third instance ran 5 cycles behind and replayed them into its "waveform":
    // the 5 cycles up to the one whose request (the third) mismatched.
    EXPECT_NE(msg.find("the RTL walk scheduler's last 5 cycles, up to the mismatch, are in " +
                       p.mismatch_fst),
              std::string::npos)
        << msg;
    std::ifstream log(p.mismatch_fst);
    std::vector<std::pair<uint64_t, unsigned>> lines;
    uint64_t cyc;
    unsigned reqs;
    while (log >> cyc >> reqs)
        lines.push_back({cyc, reqs});
    ASSERT_EQ(lines.size(), 5u);
    // the twin's cycle after each step: skipped quiescent cycles replayed too,
    // so it ends at the cycle the message names
    for (size_t k = 1; k < lines.size(); k++)
        EXPECT_GT(lines[k].first, lines[k - 1].first);
    EXPECT_NE(msg.find("at scheduler cycle " + std::to_string(lines.back().first - 1) + " "),
              std::string::npos)
        << msg << "\nlast replayed cycle " << lines.back().first;
    EXPECT_EQ(lines.back().second, 3u) << "ends with the cycle of the third request";
    EXPECT_LT(lines[3].second, 3u);
}

// replay_window: the twin stays `depth` cycles behind; dump() replays
// exactly the held cycles with the waveform open.
struct FakeDevice {
    std::vector<int> stepped, traced;
    bool open = false, can_open = true;
    bool open_waveform(const std::string &, std::string *why)
    {
        *why = "no";
        open = can_open;
        return can_open;
    }
    void close_waveform() { open = false; }
};
void fake_apply(FakeDevice &d, const int &e) { (d.open ? d.traced : d.stepped).push_back(e); }
using FakeWindow = gmmu::replay_window<FakeDevice, int, &fake_apply>;

TEST(ReplayWindow, TwinStaysDepthCyclesBehindAndDumpReplaysThem)
{
    auto dev = std::make_unique<FakeDevice>();
    FakeDevice *d = dev.get();
    FakeWindow w(std::move(dev), 4);
    for (int k = 1; k <= 10; k++)
        w.record(k);
    EXPECT_EQ(d->stepped, (std::vector<int>{1, 2, 3, 4, 5, 6}));
    EXPECT_EQ(w.held(), 4u);
    EXPECT_EQ(w.recorded(), 10u);
    std::string why;
    ASSERT_TRUE(w.dump("f", &why));
    EXPECT_EQ(d->traced, (std::vector<int>{7, 8, 9, 10}));
    EXPECT_FALSE(d->open) << "closed after the replay";
    EXPECT_EQ(w.held(), 0u);
    ASSERT_TRUE(w.dump("f", &why));
    EXPECT_EQ(d->traced.size(), 4u) << "nothing held twice";

    auto dev2 = std::make_unique<FakeDevice>();
    FakeDevice *d2 = dev2.get();
    FakeWindow w2(std::move(dev2), 8);
    for (int k = 1; k <= 3; k++)
        w2.record(k);
    EXPECT_TRUE(d2->stepped.empty());
    d2->can_open = false;
    EXPECT_FALSE(w2.dump("f", &why));
    EXPECT_EQ(why, "no");
    EXPECT_TRUE(d2->traced.empty() && d2->stepped.empty()) << "nothing replayed without a waveform";
    d2->can_open = true;
    ASSERT_TRUE(w2.dump("f", &why));
    EXPECT_EQ(d2->traced, (std::vector<int>{1, 2, 3})) << "fewer cycles than the depth: all of them";
}

TEST_F(PtwTest, SerialWalkerNeedsTwelveReadsForFigure8)
{
    build(1);
    for (uint64_t va : figure8_vas())
        drv.map(va, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    batch(figure8_vas(), d);
    EXPECT_EQ(stats(*walker)["pt_reads"], 12u);
    EXPECT_EQ(d, sc_time(12 * 25, SC_NS));
}

TEST_F(PtwTest, PageWalkCacheSkipsCachedLevels)
{
    gmmu::ptw_params p;
    ASSERT_EQ(gmmu_pwc_config_default(GMMU_PWC_CPWC, &p.pwc), GMMU_OK);
    build(p);
    drv.map(0x10000000, 8 * 4096, 12);
    sc_time d = SC_ZERO_TIME;
    batch({0x10000000}, d);
    EXPECT_EQ(stats(*walker)["pt_reads"], 4u);
    sc_time d2 = SC_ZERO_TIME;
    auto x = batch({0x10003000}, d2); // same PT page: the CPWC vouches for the L1 table
    EXPECT_EQ(x.reqs[0].pa, drv.translate(0x10003000));
    auto j = stats(*walker);
    EXPECT_EQ(j["pt_reads"], 5u);
    EXPECT_EQ(j["pwc"]["hit_l2"], 1u);
    EXPECT_GT(j["pwc"]["bits"].get<uint64_t>(), 0u);
}

TEST_F(PtwTest, LineCacheServesSameLineReadsWithoutMemory)
{
    gmmu::ptw_params p;
    p.line_cache = true;
    gmmu_line_cache_config_default(&p.lc);
    p.lc.lines = 64;
    p.lc.ways = 4;
    build(p);
    drv.map(0x10000000, 2 * 4096, 12);
    sc_time d = SC_ZERO_TIME;
    batch({0x10000000, 0x10001000}, d); // the second walk re-reads three lines and a neighbour PTE
    auto j = stats(*walker);
    EXPECT_EQ(j["pt_reads"], 4u);
    EXPECT_EQ(j["line_cache_hits"], 4u);
}

TEST_F(PtwTest, RequestMergesWithAWalkStillInFlight)
{
    build(2);
    drv.map(0x10000000, 4096, 12);
    sc_time d = SC_ZERO_TIME;
    auto a = batch({0x10000000}, d); // completes at 100 ns
    sc_time d2(10, SC_NS);           // a second SM asks at 10 ns
    auto b = batch({0x10000000}, d2);
    EXPECT_EQ(b.reqs[0].pa, a.reqs[0].pa);
    EXPECT_EQ(b.reqs[0].ready, sc_time(100, SC_NS)); // waits for that walk, no new one
    auto j = stats(*walker);
    EXPECT_EQ(j["walks"], 1u);
    EXPECT_EQ(j["inflight_merges"], 1u);
    sc_time d3(150, SC_NS); // after completion: a new walk
    batch({0x10000000}, d3);
    EXPECT_EQ(stats(*walker)["walks"], 2u);
}

} // namespace

#if defined(GMMU_HAVE_RTL) && defined(GMMU_HAVE_FST_READER)
#include "fstapi.h"

namespace {

// The Verilated CPWC with its n-th lookup result's table_base corrupted: a
// lock-step mismatch the RTL itself never makes.
struct CorruptedPwc : gmmu::pwc_cycle_device {
    std::unique_ptr<gmmu::pwc_cycle_device> rtl;
    unsigned corrupt_at = 0, results = 0;
    uint64_t cycles = 0, bad_cycle = 0, true_base = 0;
    gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) override
    {
        gmmu_status s = rtl->step(in, out);
        if (s == GMMU_OK && out->hit_valid && ++results == corrupt_at) {
            bad_cycle = cycles;
            true_base = out->table_base;
            out->table_base ^= 0x1000;
        }
        cycles++;
        return s;
    }
    std::string name() const override { return rtl->name() + " (corrupted)"; }
};

// Value changes of some signals of an FST, by name: (time, value) each.
using fst_trace = std::vector<std::pair<uint64_t, uint64_t>>;
std::map<std::string, fst_trace> fst_signals(void *fst, const std::vector<std::string> &names)
{
    struct acc {
        std::map<fstHandle, std::string> by_handle;
        std::map<std::string, fst_trace> out;
    } a;
    while (fstHier *n = fstReaderIterateHier(fst))
        if (n->htyp == FST_HT_VAR)
            for (const std::string &want : names)
                // a vector's name carries its range: "hit_base_o [63:0]"
                if (want == std::string(n->u.var.name).substr(0, want.size()) &&
                    (n->u.var.name[want.size()] == 0 || n->u.var.name[want.size()] == ' ') &&
                    !a.out.count(want)) {
                    a.by_handle[n->u.var.handle] = want;
                    a.out[want];
                }
    fstReaderClrFacProcessMaskAll(fst);
    for (auto &h : a.by_handle)
        fstReaderSetFacProcessMask(fst, h.first);
    fstReaderIterBlocks(
        fst,
        [](void *u, uint64_t t, fstHandle h, const unsigned char *val) {
            auto &s = *static_cast<acc *>(u);
            uint64_t x = 0;
            for (const unsigned char *c = val; *c == '0' || *c == '1'; c++)
                x = (x << 1) | uint64_t(*c == '1');
            s.out[s.by_handle[h]].push_back({t, x});
        },
        &a, nullptr);
    return a.out;
}

// ptw.cosim=true with the Verilated CPWC: a mismatch leaves an FST of the
// RTL's last cycles up to the mismatching one, replayed by a second RTL twin
// that ran behind; the error names the file and the cycles.
TEST_F(PtwTest, PwcLockStepMismatchWritesTheLastCyclesOfTheRtl)
{
    CorruptedPwc *bad = nullptr;
    gmmu::pwc_rtl_factory real = gmmu::set_pwc_rtl_factory(nullptr);
    ASSERT_TRUE(real);
    gmmu::set_pwc_rtl_factory([&](const gmmu_pwc_config &c, std::string *why) {
        std::unique_ptr<gmmu::pwc_cycle_device> d = real(c, why);
        if (bad || !d)
            return d; // the second twin: the real RTL
        auto w = std::make_unique<CorruptedPwc>();
        w->rtl = std::move(d);
        w->corrupt_at = 3;
        bad = w.get();
        return std::unique_ptr<gmmu::pwc_cycle_device>(std::move(w));
    });
    gmmu::ptw_params p;
    ASSERT_EQ(gmmu_pwc_config_default(GMMU_PWC_CPWC, &p.pwc), GMMU_OK);
    p.pwc_cosim = true; // the C model drives, the corrupted RTL checks
    p.mismatch_cycles = 6;
    p.mismatch_fst = ::testing::TempDir() + "pwc_mismatch.fst";
    std::remove(p.mismatch_fst.c_str());
    build(p);
    ASSERT_NE(bad, nullptr);
    drv.map(0x10000000, 64 * 4096, 12);
    std::string msg;
    for (uint64_t k = 0; k < 64 && msg.empty(); k++)
        msg = batch_error({0x10000000 + k * 4096});
    ASSERT_NE(bad->results, 0u);
    const uint64_t m = bad->bad_cycle, first = m - 5;
    ASSERT_GE(m, 6u) << "the mismatch came after the window filled";
    EXPECT_NE(msg.find("PWC co-simulation mismatch at PWC cycle " + std::to_string(m)),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("; the RTL PWC's last 6 cycles (PWC cycles " + std::to_string(first) + ".." +
                       std::to_string(m) + ") are in " + p.mismatch_fst),
              std::string::npos)
        << msg;

    // The FST: the RTL twin clocks cycle c at times 2c (inputs) and 2c+1 (edge).
    void *fst = fstReaderOpen(p.mismatch_fst.c_str());
    ASSERT_NE(fst, nullptr) << p.mismatch_fst;
    EXPECT_EQ(fstReaderGetStartTime(fst), 2 * first);
    EXPECT_EQ(fstReaderGetEndTime(fst), 2 * m + 1);
    auto sig = fst_signals(fst, {"hit_valid_o", "hit_base_o"});
    fstReaderClose(fst);
    const fst_trace &valid = sig["hit_valid_o"], &base = sig["hit_base_o"];
    auto at = [](const fst_trace &v, uint64_t t) {
        uint64_t x = ~0ull;
        for (auto &c : v)
            if (c.first <= t)
                x = c.second;
        return x;
    };
    ASSERT_FALSE(valid.empty());
    ASSERT_FALSE(base.empty());
    EXPECT_EQ(valid.front().first, 2 * first) << "every signal's value at the window's start";
    // the mismatching cycle: the RTL's own (uncorrupted) result
    EXPECT_EQ(at(valid, 2 * m), 1u);
    EXPECT_EQ(at(base, 2 * m), bad->true_base);
}

} // namespace
#endif
