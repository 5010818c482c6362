// The SMMU front end (platforms/include/gmmu/components/smmu.h) in an SoC: a device, the
// SMMU programmed through its registers with a stream table, context
// descriptors and queues in memory, a TLB and a walker behind it. Each test
// drives it the way a driver would: tables and commands in memory, register
// writes, and reads of the event queue.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>

#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/smmu.h"
#include "gmmu/components/tlb.h"
#include "test_space.h"
#include "tlm_harness.h"

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/smmu.h"
}

using namespace sc_core;

namespace {

// Memory with a hole: accesses inside [hole_lo, hole_hi] get an address error
// (a bus error for the SMMU's table reads and the walker's PTE reads).
struct HoleBus : sc_module {
    tlm_utils::multi_passthrough_target_socket<HoleBus> tsock{"tsock"};
    tlm_utils::simple_initiator_socket<HoleBus> isock{"isock"};
    uint64_t hole_lo = 0x7000'0000'0000ull, hole_hi = 0x7fff'ffff'ffffull;
    explicit HoleBus(sc_module_name n) : sc_module(n)
    {
        tsock.register_b_transport(this, &HoleBus::b_transport);
        tsock.register_transport_dbg(this, &HoleBus::transport_dbg);
    }
    bool in_hole(uint64_t a) const { return a >= hole_lo && a <= hole_hi; }
    void b_transport(int, tlm::tlm_generic_payload &gp, sc_time &d)
    {
        if (in_hole(gp.get_address())) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        isock->b_transport(gp, d);
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload &gp)
    {
        return in_hole(gp.get_address()) ? 0 : isock->transport_dbg(gp);
    }
};


constexpr uint64_t STRTAB = 0x0080'0000, CDTAB = 0x0081'0000, CMDQ = 0x0082'0000,
                   EVTQ = 0x0083'0000, MSI = 0x0084'0000;
constexpr unsigned STRTAB_LOG2 = 4, CMDQ_LOG2 = 4, EVTQ_LOG2 = 2;
constexpr uint64_t V = 0x0000'4000'0000'0000ull;

struct SmmuTest : ::testing::Test {
    TestInitiator dev{"dev"}, dev2{"dev2"}, sw{"sw"};
    gmmu::memory mem{"mem", 20, sc_time(1, SC_NS)};
    HoleBus bus{"bus"};
    Space s1{mem, 0x0100'0000}, s2{mem, 0x0200'0000};
    static gmmu::tlb_params tlb_params()
    {
        gmmu::tlb_params p;
        p.model.entries = 16;
        p.model.ways = 4;
        p.model.page_shift = 12;
        p.model.repl = GMMU_TLB_REPL_LRU;
        p.model.lookup_cycles = 1;
        p.ports = 1;
        return p;
    }
    // The walker's page-walk cache (TPC; the randomized test runs every kind).
    virtual gmmu_pwc_kind pwc_kind() const { return GMMU_PWC_TPC; }
    gmmu::ptw_params walker_params() const
    {
        gmmu::ptw_params p;
        if (pwc_kind() != GMMU_PWC_NONE) {
            EXPECT_EQ(gmmu_pwc_config_default(pwc_kind(), &p.pwc), GMMU_OK);
        }
        return p;
    }
    gmmu::smmu smmu{"smmu"};
    gmmu::tlb tlb{"tlb", tlb_params()};
    std::unique_ptr<gmmu::ptw> walker; // built in SetUp, when pwc_kind() is known
    sc_signal<bool> evtq_irq{"evtq_irq"}, gerror_irq{"gerror_irq"};
    uint32_t cmd_prod = 0, evt_cons = 0;

    void SetUp() override
    {
        dev.isock.bind(smmu.tsock);
        dev2.isock.bind(smmu.tsock);
        sw.isock.bind(smmu.reg_tsock);
        smmu.isock.bind(tlb.tsock);
        smmu.bypass_isock.bind(mem.tsock);
        smmu.mem_isock.bind(bus.tsock);
        smmu.evtq_irq.bind(evtq_irq);
        smmu.gerror_irq.bind(gerror_irq);
        tlb.isock.bind(mem.tsock);
        walker = std::make_unique<gmmu::ptw>("ptw", walker_params());
        tlb.miss_isock.bind(walker->tsock);
        walker->pt_isock.bind(bus.tsock);
        bus.isock.bind(mem.tsock);
        sc_start(SC_ZERO_TIME);
        // Stream 1 -> (ASID 1, s1), stream 2 -> (ASID 2, s2).
        cd(CDTAB + 0x000, 1, s1.pt->root);
        cd(CDTAB + 0x1000, 2, s2.pt->root);
        ste(1, GMMU_SMMU_STE_CFG_S1, CDTAB + 0x000);
        ste(2, GMMU_SMMU_STE_CFG_S1, CDTAB + 0x1000);
        w64(GMMU_SMMU_STRTAB_BASE, STRTAB);
        w32(GMMU_SMMU_STRTAB_BASE_CFG, STRTAB_LOG2);
        w64(GMMU_SMMU_CMDQ_BASE, CMDQ | CMDQ_LOG2);
        w64(GMMU_SMMU_EVTQ_BASE, EVTQ | EVTQ_LOG2);
        w32(GMMU_SMMU_IRQ_CTRL, GMMU_SMMU_IRQ_EVTQ | GMMU_SMMU_IRQ_GERROR);
        w32(GMMU_SMMU_CR0, GMMU_SMMU_CR0_SMMUEN | GMMU_SMMU_CR0_EVTQEN | GMMU_SMMU_CR0_CMDQEN);
    }

    // ---- what a driver does
    void w32(uint32_t off, uint32_t v)
    {
        sc_time d = SC_ZERO_TIME;
        ASSERT_EQ(sw.access(tlm::TLM_WRITE_COMMAND, off, &v, 4, d), tlm::TLM_OK_RESPONSE) << off;
    }
    void w64(uint32_t off, uint64_t v)
    {
        sc_time d = SC_ZERO_TIME;
        ASSERT_EQ(sw.access(tlm::TLM_WRITE_COMMAND, off, &v, 8, d), tlm::TLM_OK_RESPONSE) << off;
    }
    uint32_t r32(uint32_t off)
    {
        uint32_t v = 0;
        sc_time d = SC_ZERO_TIME;
        EXPECT_EQ(sw.access(tlm::TLM_READ_COMMAND, off, &v, 4, d), tlm::TLM_OK_RESPONSE) << off;
        return v;
    }
    void ste(uint32_t sid, uint8_t config, uint64_t cd_table, uint8_t privcfg = 0,
             uint8_t cd_max_log2 = 0, bool valid = true)
    {
        gmmu_smmu_ste e{};
        e.valid = valid;
        e.config = config;
        e.cd_table = cd_table;
        e.cd_max_log2 = cd_max_log2;
        e.privcfg = privcfg;
        uint64_t dw[2];
        gmmu_smmu_ste_encode(&e, dw);
        mem.write64(STRTAB + sid * 64, dw[0]);
        mem.write64(STRTAB + sid * 64 + 8, dw[1]);
    }
    void cd(uint64_t pa, uint16_t asid, uint64_t root)
    {
        gmmu_smmu_cd c{true, asid, root};
        uint64_t dw[2];
        gmmu_smmu_cd_encode(&c, dw);
        mem.write64(pa, dw[0]);
        mem.write64(pa + 8, dw[1]);
    }
    // Queue a command (not yet visible to the SMMU until publish()).
    void queue(const gmmu_smmu_cmd &c)
    {
        uint64_t dw[2];
        gmmu_smmu_cmd_encode(&c, dw);
        queue_raw(dw);
    }
    void queue_raw(const uint64_t dw[2])
    {
        // A driver never overruns the queue: wait for the SMMU to consume.
        while (gmmu_smmu_q_full(cmd_prod, r32(GMMU_SMMU_CMDQ_CONS), CMDQ_LOG2) &&
               gmmu_smmu_cmdq_runnable(&smmu.regs()))
            sc_start(sc_time(50, SC_NS));
        const uint64_t pa = CMDQ + gmmu_smmu_q_index(cmd_prod, CMDQ_LOG2) * 16ull;
        mem.write64(pa, dw[0]);
        mem.write64(pa + 8, dw[1]);
        cmd_prod = gmmu_smmu_q_next(cmd_prod, CMDQ_LOG2);
    }
    void publish() { w32(GMMU_SMMU_CMDQ_PROD, cmd_prod); }
    // CMD_SYNC writing `token` to MSI when every earlier command is done; run
    // until it is (or give up after `limit`).
    bool sync(uint32_t token, sc_time limit = sc_time(100, SC_US))
    {
        mem.write64(MSI, 0);
        gmmu_smmu_cmd c{};
        c.op = GMMU_SMMU_CMD_SYNC;
        c.cs = GMMU_SMMU_SYNC_CS_IRQ;
        c.msi_data = token;
        c.msi_addr = MSI;
        queue(c);
        publish();
        const sc_time end = sc_time_stamp() + limit;
        while (sc_time_stamp() < end) {
            sc_start(sc_time(100, SC_NS));
            if (uint32_t(mem.read64(MSI)) == token)
                return true;
        }
        return false;
    }
    void tlbi_va(uint16_t asid, uint64_t va)
    {
        gmmu_smmu_cmd c{};
        c.op = GMMU_SMMU_CMD_TLBI_NH_VA;
        c.asid = asid;
        c.addr = va;
        queue(c);
    }
    void cfgi_ste(uint32_t sid)
    {
        gmmu_smmu_cmd c{};
        c.op = GMMU_SMMU_CMD_CFGI_STE;
        c.stream_id = sid;
        queue(c);
    }
    // A device access with an explicit stream (ctx_ext).
    tlm::tlm_response_status access(uint32_t sid, tlm::tlm_command cmd, uint64_t va, uint64_t *v,
                                    bool privileged = false)
    {
        gmmu::ctx_ext cx;
        cx.stream_id = sid;
        cx.privileged = privileged;
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(va);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        gp.set_extension(&cx);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = SC_ZERO_TIME;
        dev.isock->b_transport(gp, d);
        gp.clear_extension(&cx);
        return gp.get_response_status();
    }
    // The events queued since the last call (and CONS advanced past them).
    std::vector<gmmu_smmu_event> events()
    {
        std::vector<gmmu_smmu_event> out;
        const uint32_t prod = r32(GMMU_SMMU_EVTQ_PROD);
        while (!gmmu_smmu_q_empty(prod, evt_cons, EVTQ_LOG2)) {
            uint64_t dw[4];
            const uint64_t pa = EVTQ + gmmu_smmu_q_index(evt_cons, EVTQ_LOG2) * 32ull;
            for (unsigned i = 0; i < 4; i++)
                dw[i] = mem.read64(pa + 8 * i);
            gmmu_smmu_event e;
            gmmu_smmu_event_decode(dw, &e);
            out.push_back(e);
            evt_cons = gmmu_smmu_q_next(evt_cons, EVTQ_LOG2);
        }
        w32(GMMU_SMMU_EVTQ_CONS, evt_cons | (prod & GMMU_SMMU_Q_OVF));
        return out;
    }
    nlohmann::json stats() const
    {
        nlohmann::json j;
        smmu.dump_stats(j);
        return j;
    }
};

} // namespace

TEST_F(SmmuTest, EachStreamTranslatesInItsOwnContext)
{
    s1.map(V, 0x1'0000'0000ull);
    s2.map(V, 0x2'0000'0000ull);
    uint64_t a = 0x1111, b = 0x2222;
    EXPECT_EQ(access(1, tlm::TLM_WRITE_COMMAND, V + 8, &a), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(2, tlm::TLM_WRITE_COMMAND, V + 8, &b), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.read64(0x1'0000'0008ull), 0x1111u);
    EXPECT_EQ(mem.read64(0x2'0000'0008ull), 0x2222u);
    // Plain payloads take their port's stream.
    smmu.set_port_stream(0, 2);
    smmu.set_port_stream(1, 1);
    uint64_t v = 0;
    sc_time d = SC_ZERO_TIME;
    EXPECT_EQ(dev.access(tlm::TLM_READ_COMMAND, V + 8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0x2222u);
    EXPECT_EQ(dev2.access(tlm::TLM_READ_COMMAND, V + 8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0x1111u);
    // Debug transport translates the same way and raises nothing.
    EXPECT_EQ(dev.debug(tlm::TLM_READ_COMMAND, V + 8, &v, 8), 8u);
    EXPECT_EQ(v, 0x2222u);
    EXPECT_EQ(stats()["config"]["fetches"].get<uint64_t>(), 2u) << "contexts are cached";
    EXPECT_EQ(stats()["faults"].get<uint64_t>(), 0u);
}

TEST_F(SmmuTest, AnInitiatorCannotChooseItsOwnContext)
{
    s1.map(V, 0x1'0000'0000ull);
    s2.map(V, 0x2'0000'0000ull);
    mem.write64(0x1'0000'0000ull, 1);
    mem.write64(0x2'0000'0000ull, 2);
    gmmu::ctx_ext cx;
    cx.stream_id = 1;
    cx.resolved = true; // claims stream 2's context
    cx.asid = 2;
    cx.root = s2.pt->root;
    uint64_t v = 0;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(V);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    gp.set_data_length(8);
    gp.set_streaming_width(8);
    gp.set_extension(&cx);
    sc_time d = SC_ZERO_TIME;
    dev.isock->b_transport(gp, d);
    gp.clear_extension(&cx);
    EXPECT_TRUE(gp.is_response_ok());
    EXPECT_EQ(v, 1u) << "stream 1's tables decide";
}

TEST_F(SmmuTest, FaultsAreRecordedInTheEventQueueWithTheirKind)
{
    s1.map(V, 0x1'0000'0000ull, GMMU_MAP_U); // read-only
    uint64_t v = 0;
    EXPECT_FALSE(evtq_irq.read());
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V + 0x10, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(access(1, tlm::TLM_WRITE_COMMAND, V + 0x10, &v), tlm::TLM_COMMAND_ERROR_RESPONSE);
    sc_start(sc_time(1, SC_NS)); // the interrupt line follows a delta later
    EXPECT_TRUE(evtq_irq.read());
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V + 0x5000, &v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, 0x8000'0000'0000ull, &v),
              tlm::TLM_ADDRESS_ERROR_RESPONSE); // non-canonical
    auto ev = events();
    ASSERT_EQ(ev.size(), 3u);
    EXPECT_EQ(ev[0].id, GMMU_SMMU_F_PERMISSION);
    EXPECT_EQ(ev[0].stream_id, 1u);
    EXPECT_EQ(ev[0].input_addr, V + 0x10);
    EXPECT_TRUE(ev[0].write);
    EXPECT_EQ(ev[0].reason, GMMU_FAULT_WRITE);
    EXPECT_EQ(ev[1].id, GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(ev[1].input_addr, V + 0x5000);
    EXPECT_FALSE(ev[1].write);
    EXPECT_EQ(ev[1].reason, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(ev[2].id, GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(ev[2].reason, GMMU_FAULT_NONCANONICAL);
    sc_start(sc_time(1, SC_NS)); // the interrupt line follows a delta later
    EXPECT_FALSE(evtq_irq.read()) << "consumed: the line drops";
    // Memory was not touched by the refused write.
    EXPECT_EQ(mem.read64(0x1'0000'0010ull), 0u);
}

TEST_F(SmmuTest, ConfigurationFaultsNameTheirCause)
{
    uint64_t v = 0;
    EXPECT_EQ(access(1u << STRTAB_LOG2, tlm::TLM_READ_COMMAND, V, &v),
              tlm::TLM_GENERIC_ERROR_RESPONSE);
    ste(3, GMMU_SMMU_STE_CFG_S1, CDTAB, 0, 0, /*valid=*/false);
    EXPECT_EQ(access(3, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    ste(4, GMMU_SMMU_STE_CFG_S1, 0x7000'0000'0000ull); // CD table in the bus hole
    EXPECT_EQ(access(4, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    ste(5, GMMU_SMMU_STE_CFG_S1, CDTAB + 0x2000); // CD never written: V = 0
    EXPECT_EQ(access(5, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    ste(6, 7, CDTAB); // a reserved Config
    EXPECT_EQ(access(6, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    // A PTE read that gets a bus error: the PML4 entry points into the hole.
    cd(CDTAB + 0x3000, 7, s1.pt->root);
    ste(7, GMMU_SMMU_STE_CFG_S1, CDTAB + 0x3000);
    s1.map(V, 0x1'0000'0000ull);
    const uint64_t pml4e = s1.entry_pa(V, 4);
    const uint64_t old = mem.read64(pml4e);
    mem.write64(pml4e, 0x7000'0000'0000ull | GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U);
    EXPECT_EQ(access(7, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    mem.write64(pml4e, old);
    auto ev = events();
    ASSERT_EQ(ev.size(), 4u) << "the queue holds 4; two more overflowed";
    EXPECT_EQ(ev[0].id, GMMU_SMMU_C_BAD_STREAMID);
    EXPECT_EQ(ev[0].stream_id, 1u << STRTAB_LOG2);
    EXPECT_EQ(ev[1].id, GMMU_SMMU_C_BAD_STE);
    EXPECT_EQ(ev[2].id, GMMU_SMMU_F_CD_FETCH);
    EXPECT_EQ(ev[2].fetch_addr, 0x7000'0000'0000ull);
    EXPECT_EQ(ev[3].id, GMMU_SMMU_C_BAD_CD);
    EXPECT_EQ(stats()["events_lost"]["overflow"].get<uint64_t>(), 2u);
    // After the overflow is acknowledged (events() wrote OVACKFLG), new
    // records are queued again.
    EXPECT_EQ(access(6, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    mem.write64(pml4e, 0x7000'0000'0000ull | GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U);
    gmmu_smmu_cmd all{};
    all.op = GMMU_SMMU_CMD_TLBI_NH_ALL;
    queue(all);
    ASSERT_TRUE(sync(1));
    EXPECT_EQ(access(7, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_GENERIC_ERROR_RESPONSE);
    ev = events();
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].id, GMMU_SMMU_C_BAD_STE);
    EXPECT_EQ(ev[1].id, GMMU_SMMU_F_WALK_EABT);
    EXPECT_EQ(ev[1].cls, GMMU_SMMU_CLASS_TT);
    EXPECT_EQ(ev[1].reason, GMMU_FAULT_BUS_ERROR);
}

TEST_F(SmmuTest, AFullEventQueueLosesNewRecordsNeverQueuedOnes)
{
    uint64_t v = 0;
    for (uint64_t k = 0; k < 7; k++)
        EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V + k * 4096, &v),
                  tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_TRUE(r32(GMMU_SMMU_EVTQ_PROD) & GMMU_SMMU_Q_OVF) << "OVFLG reports the loss";
    auto ev = events();
    ASSERT_EQ(ev.size(), 4u);
    for (uint64_t k = 0; k < 4; k++)
        EXPECT_EQ(ev[k].input_addr, V + k * 4096) << "the first four, in order";
    EXPECT_EQ(stats()["events_lost"]["overflow"].get<uint64_t>(), 3u);
    EXPECT_EQ(stats()["events"].get<uint64_t>(), 7u);
}

TEST_F(SmmuTest, InvalidationCommandsReachTheTlbAndTheWalker)
{
    s1.map(V, 0x1'0000'0000ull);
    s1.map(V + 0x1000, 0x1'0000'1000ull);
    mem.write64(0x1'0000'0000ull, 10);
    mem.write64(0x3'0000'0000ull, 30);
    uint64_t v = 0;
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 10u);
    // The driver migrates the page: the TLB still holds the old translation
    // (as hardware does) until the invalidation command completes.
    s1.unmap(V);
    s1.map(V, 0x3'0000'0000ull);
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 10u) << "stale until invalidated";
    tlbi_va(1, V);
    const sc_time t0 = sc_time_stamp();
    ASSERT_TRUE(sync(0xabcd));
    EXPECT_GE(sc_time_stamp() - t0, sc_time(2 * 16, SC_NS)) << "two commands, 16 cycles each";
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 30u);
    // A page directory moved under a page-walk cache entry: the range
    // invalidation of a whole 2 MiB reaches the PWC too.
    const uint64_t pde = s1.entry_pa(V, 2);
    Space fresh{mem, 0x0300'0000};
    fresh.map(V, 0x4'0000'0000ull);
    mem.write64(0x4'0000'0000ull, 40);
    mem.write64(pde, mem.read64(fresh.entry_pa(V, 2)));
    gmmu_smmu_cmd range{};
    range.op = GMMU_SMMU_CMD_TLBI_NH_VAA;
    range.addr = V & ~0x1f'ffffull;
    range.tg = 1;
    range.num = 0;
    range.scale = 9; // 512 pages
    queue(range);
    ASSERT_TRUE(sync(2));
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 40u);
    EXPECT_EQ(stats()["invalidations"].get<uint64_t>(), 2u);
}

// Issue 41, item 1: the TLB caches a 2 MiB page as 4 KiB pieces; one
// TLBI_NH_VA of the block's address (what Linux's SMMUv3 driver sends per
// block without ranges) must drop every piece, so writes anywhere in the
// block land in the new frame.
TEST_F(SmmuTest, OneTlbiOfABlockAddressDropsEveryPieceOfTheBlock)
{
    const uint64_t va = 0x40200000ull, old_pa = 0x1'0000'0000ull, new_pa = 0x1'4000'0000ull;
    gmmu_error err{};
    ASSERT_EQ(gmmu_pt_map(s1.pt, va, old_pa, 21, GMMU_MAP_W | GMMU_MAP_U, &err), GMMU_OK)
        << err.msg;
    const uint64_t offs[] = {0x0, 0x1000, 0x1ff000};
    for (uint64_t off : offs) {
        uint64_t v = 0x100 + off;
        ASSERT_EQ(access(1, tlm::TLM_WRITE_COMMAND, va + off, &v), tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(mem.read64(old_pa + off), 0x100 + off);
    }
    // The driver remaps the PDE of 0x40200000 to a new 2 MiB frame.
    const uint64_t pde = s1.entry_pa(va, 2);
    mem.write64(pde, (mem.read64(pde) & ~GMMU_PTE_ADDR_MASK) | new_pa);
    tlbi_va(1, va);
    ASSERT_TRUE(sync(0x41));
    for (uint64_t off : offs) {
        uint64_t v = 0x200 + off;
        ASSERT_EQ(access(1, tlm::TLM_WRITE_COMMAND, va + off, &v), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(mem.read64(new_pa + off), 0x200 + off) << "offset 0x" << std::hex << off;
        EXPECT_EQ(mem.read64(old_pa + off), 0x100 + off) << "old frame untouched";
    }
}

// Issue 41, item 2: on the SMMU path the address space comes from the
// stream's tables alone. A warp payload's own asid is the device's claim and
// is ignored; a fault of a warp access raises an event like any other.
TEST_F(SmmuTest, AWarpCannotChooseItsAddressSpaceAndItsFaultsAreEvents)
{
    s1.map(V, 0x1'0000'0000ull);
    s2.map(V, 0x2'0000'0000ull);
    auto warp_write = [&](uint32_t sid, uint16_t claimed_asid, uint64_t va, uint64_t value) {
        gmmu::ctx_ext cx;
        cx.stream_id = sid;
        gmmu::warp_ext w;
        w.asid = claimed_asid;
        w.nlanes = 2;
        w.active = 0x3;
        w.va[0] = va;
        w.va[1] = va + 8;
        w.data[0] = value;
        w.data[1] = value + 1;
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_address(va);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(w.data.data()));
        gp.set_data_length(16);
        gp.set_streaming_width(16);
        gp.set_extension(&cx);
        gp.set_extension(&w);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = SC_ZERO_TIME;
        dev.isock->b_transport(gp, d);
        gp.clear_extension(&cx);
        gp.clear_extension(&w);
        return gp.get_response_status();
    };
    // Warm stream 1's translation of V under ASID 1 first.
    uint64_t v = 0;
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(warp_write(2, /*claimed asid=*/1, V, 0x2222), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.read64(0x2'0000'0000ull), 0x2222u) << "stream 2's frame";
    EXPECT_EQ(mem.read64(0x2'0000'0008ull), 0x2223u);
    EXPECT_EQ(mem.read64(0x1'0000'0000ull), 0u) << "never stream 1's";
    // A warp access to an unmapped page: an event, with the faulting lane.
    EXPECT_EQ(warp_write(2, 1, V + 0x7000, 5), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    auto ev = events();
    ASSERT_EQ(ev.size(), 1u);
    EXPECT_EQ(ev[0].id, GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(ev[0].stream_id, 2u);
    EXPECT_EQ(ev[0].input_addr, V + 0x7000);
    EXPECT_EQ(ev[0].reason, GMMU_FAULT_NOT_PRESENT);
    EXPECT_EQ(stats()["faults"].get<uint64_t>(), 1u);
}

// Issue 41, item 4: a not-present PTE under a read-only or supervisor PDE is
// a translation fault (the walk reaches the leaf before permissions are
// judged), as x86 and SMMUv3 report it.
TEST_F(SmmuTest, ANotPresentPteUnderARestrictivePdeRaisesATranslationFault)
{
    s1.map(V, 0x1'0000'0000ull);
    const uint64_t pde = s1.entry_pa(V, 2), pte = s1.entry_pa(V, 1);
    const uint64_t pde_v = mem.read64(pde);
    mem.write64(pte, 0); // not present
    uint64_t v = 0;
    mem.write64(pde, pde_v & ~GMMU_PTE_W); // read-only PDE: a write
    EXPECT_EQ(access(1, tlm::TLM_WRITE_COMMAND, V, &v), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    mem.write64(pde, pde_v & ~GMMU_PTE_U); // supervisor PDE: an unprivileged read
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v, /*privileged=*/false),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    auto ev = events();
    ASSERT_EQ(ev.size(), 2u);
    for (const auto &e : ev) {
        EXPECT_EQ(e.id, GMMU_SMMU_F_TRANSLATION);
        EXPECT_EQ(e.reason, GMMU_FAULT_NOT_PRESENT);
    }
}

TEST_F(SmmuTest, AChangedStreamTableEntryTakesEffectAfterCfgi)
{
    s1.map(V, 0x1'0000'0000ull);
    s2.map(V, 0x2'0000'0000ull);
    mem.write64(0x1'0000'0000ull, 1);
    mem.write64(0x2'0000'0000ull, 2);
    uint64_t v = 0;
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 1u);
    ste(1, GMMU_SMMU_STE_CFG_S1, CDTAB + 0x1000); // now stream 2's context
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 1u) << "the cached configuration until CFGI";
    cfgi_ste(1);
    ASSERT_TRUE(sync(3));
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 2u);
}

TEST_F(SmmuTest, AMalformedCommandStopsTheQueueUntilAcknowledgedAndNothingIsLost)
{
    s1.map(V, 0x1'0000'0000ull);
    uint64_t v = 0;
    ASSERT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    const uint64_t bad[2] = {0x7f, 0};
    queue_raw(bad);
    EXPECT_FALSE(sync(7, sc_time(5, SC_US))) << "the SYNC behind the bad command waits";
    const uint32_t cons = r32(GMMU_SMMU_CMDQ_CONS);
    EXPECT_EQ(gmmu_smmu_q_index(cons, CMDQ_LOG2), 0u) << "CONS points at the bad command";
    EXPECT_EQ((cons >> GMMU_SMMU_CMDQ_CONS_ERR_SHIFT) & 0x7f, GMMU_SMMU_CERROR_ILL);
    EXPECT_TRUE(r32(GMMU_SMMU_GERROR) & GMMU_SMMU_GERROR_CMDQ_ERR);
    EXPECT_TRUE(gerror_irq.read());
    // The driver replaces it with a valid command and acknowledges.
    gmmu_smmu_cmd fix{};
    fix.op = GMMU_SMMU_CMD_TLBI_NH_ASID;
    fix.asid = 1;
    uint64_t dw[2];
    gmmu_smmu_cmd_encode(&fix, dw);
    mem.write64(CMDQ, dw[0]);
    mem.write64(CMDQ + 8, dw[1]);
    w32(GMMU_SMMU_GERRORN, r32(GMMU_SMMU_GERROR));
    sc_start(sc_time(1, SC_US));
    EXPECT_EQ(uint32_t(mem.read64(MSI)), 7u) << "the queued SYNC ran after the fix";
    EXPECT_FALSE(gerror_irq.read());
    EXPECT_EQ(stats()["command_errors"].get<uint64_t>(), 1u);
    EXPECT_EQ(stats()["commands"].get<uint64_t>(), 2u);
}

TEST_F(SmmuTest, PrivilegeComesFromTheStreamTableEntry)
{
    // A supervisor page (no U at the leaf), seen by a privileged and an
    // unprivileged stream of the same context.
    s1.map(V, 0x1'0000'0000ull, GMMU_MAP_W);
    mem.write64(0x1'0000'0000ull, 5);
    ste(3, GMMU_SMMU_STE_CFG_S1, CDTAB, GMMU_SMMU_PRIV_PRIV);
    ste(4, GMMU_SMMU_STE_CFG_S1, CDTAB, GMMU_SMMU_PRIV_UNPRIV);
    uint64_t v = 0;
    ASSERT_EQ(access(3, tlm::TLM_READ_COMMAND, V, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 5u);
    v = 0;
    EXPECT_EQ(access(4, tlm::TLM_READ_COMMAND, V, &v, /*privileged=*/true),
              tlm::TLM_COMMAND_ERROR_RESPONSE)
        << "PRIVCFG overrides the device; the TLB entry the privileged walk filled is not used";
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v, true), tlm::TLM_OK_RESPONSE)
        << "PRIVCFG = incoming: the device's own privilege";
    EXPECT_EQ(access(1, tlm::TLM_READ_COMMAND, V, &v, false), tlm::TLM_COMMAND_ERROR_RESPONSE);
    auto ev = events();
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0].id, GMMU_SMMU_F_PERMISSION);
    EXPECT_EQ(ev[0].reason, GMMU_FAULT_USER);
    EXPECT_FALSE(ev[0].privileged);
}

TEST_F(SmmuTest, BypassAbortAndDisabled)
{
    mem.write64(0x5'0000'0000ull, 55);
    ste(8, GMMU_SMMU_STE_CFG_BYPASS, 0);
    ste(9, GMMU_SMMU_STE_CFG_ABORT, 0);
    uint64_t v = 0;
    ASSERT_EQ(access(8, tlm::TLM_READ_COMMAND, 0x5'0000'0000ull, &v), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 55u) << "bypass: the address is the physical address";
    EXPECT_EQ(access(9, tlm::TLM_READ_COMMAND, 0x5'0000'0000ull, &v),
              tlm::TLM_GENERIC_ERROR_RESPONSE);
    w32(GMMU_SMMU_CR0, GMMU_SMMU_CR0_EVTQEN | GMMU_SMMU_CR0_CMDQEN);
    EXPECT_EQ(access(8, tlm::TLM_READ_COMMAND, 0x5'0000'0000ull, &v),
              tlm::TLM_GENERIC_ERROR_RESPONSE)
        << "SMMUEN = 0 aborts";
    EXPECT_TRUE(events().empty()) << "abort by configuration records no event";
    EXPECT_EQ(stats()["aborted"].get<uint64_t>(), 2u);
}

TEST_F(SmmuTest, RegistersTakeTheWidthsTheArchitectureAllows)
{
    sc_time d = SC_ZERO_TIME;
    uint16_t h = 0;
    EXPECT_EQ(sw.access(tlm::TLM_READ_COMMAND, GMMU_SMMU_CR0, &h, 2, d), tlm::TLM_BURST_ERROR_RESPONSE);
    uint32_t w = 0;
    EXPECT_EQ(sw.access(tlm::TLM_READ_COMMAND, 0x30, &w, 4, d), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    uint64_t q = 0;
    EXPECT_EQ(sw.access(tlm::TLM_READ_COMMAND, GMMU_SMMU_CR0, &q, 8, d), tlm::TLM_BURST_ERROR_RESPONSE)
        << "a 32-bit register read as 64 bits";
    EXPECT_EQ(sw.access(tlm::TLM_READ_COMMAND, GMMU_SMMU_STRTAB_BASE + 2, &w, 4, d),
              tlm::TLM_BURST_ERROR_RESPONSE)
        << "unaligned";
    EXPECT_EQ(r32(GMMU_SMMU_CR0ACK), r32(GMMU_SMMU_CR0));
    EXPECT_EQ(r32(GMMU_SMMU_STRTAB_BASE), uint32_t(STRTAB)) << "a 64-bit register's low half";
    // Read-only registers ignore writes; the stream table base is frozen
    // while the SMMU is on.
    const uint32_t idr1 = r32(GMMU_SMMU_IDR1);
    w32(GMMU_SMMU_IDR1, 0);
    EXPECT_EQ(r32(GMMU_SMMU_IDR1), idr1);
    w64(GMMU_SMMU_STRTAB_BASE, 0x1234000);
    EXPECT_EQ(r32(GMMU_SMMU_STRTAB_BASE), uint32_t(STRTAB));
    // Debug reads work, debug writes are refused.
    EXPECT_EQ(sw.debug(tlm::TLM_READ_COMMAND, GMMU_SMMU_IDR1, &w, 4), 4u);
    EXPECT_EQ(w, idr1);
    EXPECT_EQ(sw.debug(tlm::TLM_WRITE_COMMAND, GMMU_SMMU_CR0, &w, 4), 0u);
}

// Several streams, mappings changed under load through the command queue,
// every translation compared with an independent walk of the tables as they
// were at the last completed CMD_SYNC; with every page-walk-cache kind.
struct SmmuPwcTest : SmmuTest, ::testing::WithParamInterface<gmmu_pwc_kind> {
    gmmu_pwc_kind pwc_kind() const override { return GetParam(); }
};

TEST_P(SmmuPwcTest, RandomizedStreamsRemapsAndCommands)
{
    // Remaps are published with their TLBI and CMD_SYNC and the devices keep
    // going while the commands run: until a remap's CMD_SYNC has completed a
    // write may land in the page's old frame or its new one; after it, only
    // in the new one (the tables as of the last completed sync).
    std::mt19937_64 rng(0x5eed5);
    struct Page {
        uint64_t pa = 0, old_pa = 0;
        uint32_t pending = 0; // token of the CMD_SYNC that makes pa the only answer
    };
    struct Ctx {
        Space *s;
        std::map<uint64_t, Page> map;
    };
    Ctx ctx[2] = {{&s1, {}}, {&s2, {}}};
    uint64_t next_frame = 0x10'0000'0000ull;
    const unsigned pages = 24;
    for (auto &c : ctx)
        for (unsigned k = 0; k < pages; k++) {
            const uint64_t va = V + k * 0x1000ull + (k % 3) * 0x20'0000ull;
            c.s->map(va, next_frame);
            c.map[va].pa = next_frame;
            next_frame += 0x1000;
        }
    mem.write64(MSI, 0);
    uint32_t token = 0;
    unsigned checked = 0, remaps = 0, raced = 0;
    for (unsigned step = 0; step < 1500; step++) {
        sc_start(sc_time(7, SC_NS)); // the command thread runs meanwhile
        const uint32_t synced = uint32_t(mem.read64(MSI));
        const unsigned which = unsigned(rng() % 2);
        Ctx &c = ctx[which];
        auto it = c.map.begin();
        std::advance(it, long(rng() % c.map.size()));
        Page &pg = it->second;
        if (pg.pending && pg.pending <= synced)
            pg.pending = 0;
        const uint64_t va = it->first + (rng() % 512) * 8;
        if (rng() % 10 == 0 && !pg.pending) {
            c.s->unmap(it->first);
            c.s->map(it->first, next_frame);
            pg.old_pa = pg.pa;
            pg.pa = next_frame;
            next_frame += 0x1000;
            if (rng() % 2) {
                tlbi_va(uint16_t(which + 1), it->first);
            } else {
                gmmu_smmu_cmd a{};
                a.op = GMMU_SMMU_CMD_TLBI_NH_ASID;
                a.asid = uint16_t(which + 1);
                queue(a);
            }
            gmmu_smmu_cmd sy{};
            sy.op = GMMU_SMMU_CMD_SYNC;
            sy.cs = GMMU_SMMU_SYNC_CS_IRQ;
            sy.msi_data = ++token;
            sy.msi_addr = MSI;
            queue(sy);
            publish();
            pg.pending = token;
            remaps++;
            continue;
        }
        const uint64_t value = rng();
        uint64_t v = value;
        ASSERT_EQ(access(which + 1, tlm::TLM_WRITE_COMMAND, va, &v), tlm::TLM_OK_RESPONSE);
        const uint64_t off = va - it->first;
        const bool in_new = mem.read64(pg.pa + off) == value;
        const bool in_old = pg.pending && mem.read64(pg.old_pa + off) == value;
        ASSERT_TRUE(in_new || in_old) << "stream " << which + 1 << " va " << std::hex << va;
        raced += in_old;
        checked++;
    }
    EXPECT_GT(remaps, 60u);
    EXPECT_GT(checked, 1000u);
    EXPECT_GT(raced, 0u) << "some writes met a remap still in flight";
    EXPECT_EQ(stats()["faults"].get<uint64_t>(), 0u);
}

static std::string pwc_name(const ::testing::TestParamInfo<gmmu_pwc_kind> &i)
{
    return gmmu_pwc_kind_name(i.param);
}
INSTANTIATE_TEST_SUITE_P(Pwc, SmmuPwcTest,
                         ::testing::Values(GMMU_PWC_NONE, GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC,
                                           GMMU_PWC_CPWC),
                         pwc_name);
