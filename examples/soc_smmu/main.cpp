// An SoC that programs gmmu's SMMU front end the way a driver programs an
// Arm SMMUv3: through its registers, with a stream table, context
// descriptors, a command queue and an event queue in the SoC's own memory.
// It links the component library alone (gmmu::components, no GPU-platform
// header or library); the memory target and the page tables are the SoC's own.
//
// Two DMA engines (streams 1 and 2, each with its own address space) fill
// buffers through virtual addresses. While they run, the driver migrates a
// page of engine 1: it unmaps it, invalidates it through the command queue
// (TLBI_NH_VA + CMD_SYNC, completion signalled by a write to memory), copies
// the frame and maps the copy. The engine's accesses during the migration
// fault; the driver sees each fault as an event record (interrupt-driven)
// and the engine retries. At the end every word both engines wrote is read
// back from the frames the final tables name, and a stray access by engine 2
// is reported with its stream and address.
//
// The walker, its page-walk cache and the SMMU are configured through their
// specs (gmmu/components/ptw_spec.h, smmu_spec.h), the same keys, defaults,
// ranges and one-line errors as gmmu-sim's: the SoC's JSON object below, then
// key=value arguments (`soc_smmu ptw.pwc=cpwc smmu.config_entries=4`); a bad
// key or value prints its config error and exits 2. The SoC registers the
// keys of those specs (ptw.*, rtl.*, and its SMMU's under `smmu.*`); none of
// gmmu-sim's other keys exists here.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>

#include <gmmu/components/ptw_spec.h>
#include <gmmu/components/smmu_spec.h>
#include <gmmu/components/tlb.h>

extern "C" {
#include <gmmu/smmu.h>
}

namespace {

// The SoC's keys, from its components' specs: the walker's (ptw.*, rtl.*)
// and its SMMU's under `smmu`. The SoC links the component library alone
// (gmmu::components): no GPU-platform key exists here.
const bool soc_keys_registered =
    gmmu::register_config_keys(gmmu::ptw_config_keys()) &&
    gmmu::register_config_keys(gmmu::smmu_config_keys("smmu", "The SoC's SMMU"));

// The SoC's configuration: the walker (ptw.*, its page-walk cache
// ptw.pwc) and the SMMU (smmu.*); every other key keeps its default.
const char *const soc_json = R"({
  "ptw": {"walkers": 2, "pwc": "tpc"},
  "smmu": {"config_entries": 16, "cmd_cycles": 8}
})";

using sc_core::sc_time;
using sc_core::SC_NS;

// The walker from ptw.* and rtl.*, with the host checks first (the RTL
// plugin for ptw.pwc_impl=rtl, writable waveform files).
std::unique_ptr<gmmu::ptw> build_walker(const gmmu::config &c)
{
    gmmu::ptw_builder b(c, sc_time(1, SC_NS));
    gmmu::probe_walker_host(b.cfg.params);
    return b.build("walker");
}
using sc_core::SC_US;

// The SoC's memory: 64 MiB, 15 ns per access, any number of initiators.
struct ram : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<ram> tsock{"tsock"};
    std::vector<uint8_t> cells = std::vector<uint8_t>(64u << 20);
    explicit ram(sc_core::sc_module_name n) : sc_module(n)
    {
        tsock.register_b_transport(this, &ram::b_transport);
        tsock.register_transport_dbg(this, &ram::dbg);
    }
    unsigned dbg(int, tlm::tlm_generic_payload &gp)
    {
        const uint64_t a = gp.get_address(), n = gp.get_data_length();
        if (a >= cells.size() || n > cells.size() - a)
            return 0;
        if (gp.is_write())
            std::memcpy(&cells[a], gp.get_data_ptr(), n);
        else
            std::memcpy(gp.get_data_ptr(), &cells[a], n);
        return unsigned(n);
    }
    void b_transport(int port, tlm::tlm_generic_payload &gp, sc_time &delay)
    {
        const bool ok = dbg(port, gp) == gp.get_data_length();
        delay += sc_time(15, SC_NS);
        gp.set_response_status(ok ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
    uint64_t get(uint64_t pa) const
    {
        uint64_t v;
        std::memcpy(&v, &cells[pa], 8);
        return v;
    }
    void put(uint64_t pa, uint64_t v) { std::memcpy(&cells[pa], &v, 8); }
};

// x86-64 4-level tables, 4 KiB pages; every level user-accessible.
struct address_space {
    ram &m;
    uint64_t &pool;
    uint64_t root;
    address_space(ram &mem, uint64_t &table_pool) : m(mem), pool(table_pool), root(take()) {}
    uint64_t take()
    {
        const uint64_t t = pool;
        pool += 4096;
        return t;
    }
    uint64_t slot(uint64_t va)
    {
        uint64_t table = root;
        for (int level = 4; level > 1; level--) {
            const uint64_t s = table + 8 * ((va >> (3 + 9 * level)) & 511);
            if (!(m.get(s) & 1))
                m.put(s, take() | 0x7); // P | W | U
            table = m.get(s) & 0x000ffffffffff000ull;
        }
        return table + 8 * ((va >> 12) & 511);
    }
    void map(uint64_t va, uint64_t pa) { m.put(slot(va), pa | 0x7); }
    void unmap(uint64_t va) { m.put(slot(va), 0); }
};

// Memory map of the driver's SMMU structures.
constexpr uint64_t STRTAB = 0x10000, CD1 = 0x20000, CD2 = 0x20040, CMDQ = 0x30000,
                   EVTQ = 0x40000, SYNC_WORD = 0x50000;
constexpr unsigned STRTAB_LOG2 = 3, CMDQ_LOG2 = 5, EVTQ_LOG2 = 4;

struct initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<initiator> isock{"isock"};
    explicit initiator(sc_core::sc_module_name n) : sc_module(n) {}
    tlm::tlm_response_status rw(tlm::tlm_command cmd, uint64_t addr, void *p, unsigned len)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(addr);
        gp.set_data_ptr(static_cast<unsigned char *>(p));
        gp.set_data_length(len);
        gp.set_streaming_width(len);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_time d = sc_core::SC_ZERO_TIME;
        isock->b_transport(gp, d);
        wait(d);
        return gp.get_response_status();
    }
};

struct soc : sc_core::sc_module {
    ram mem{"mem"};
    // Built from the config by the components' builders (1 GHz).
    std::unique_ptr<gmmu::smmu> smmu_unit;
    gmmu::smmu &smmu;
    gmmu::tlb iotlb{"iotlb", iotlb_params()};
    std::unique_ptr<gmmu::ptw> walker_unit;
    gmmu::ptw &walker;
    initiator cpu{"cpu"}, dma1{"dma1"}, dma2{"dma2"};
    sc_core::sc_signal<bool> evtq_irq{"evtq_irq"};
    uint64_t pool = 0x100000; // page-table frames
    address_space as1{mem, pool}, as2{mem, pool};
    uint32_t cmd_prod = 0, evt_cons = 0;
    unsigned faults_seen = 0, retries = 0, bad = 0;
    bool stray_reported = false, done1 = false, done2 = false;
    unsigned progress1 = 0, progress2 = 0;
    sc_core::sc_event irq_ev, go;

    static gmmu::tlb_params iotlb_params()
    {
        gmmu::tlb_params p;
        p.model.entries = 64;
        p.model.ways = 4;
        p.model.page_shift = 12;
        p.model.lookup_cycles = 1;
        return p;
    }

    SC_HAS_PROCESS(soc);
    soc(sc_core::sc_module_name n, const gmmu::config &c)
        : sc_module(n), smmu_unit(gmmu::build_smmu(c, "smmu", sc_time(1, SC_NS), "smmu")), smmu(*smmu_unit),
          walker_unit(build_walker(c)), walker(*walker_unit)
    {
        dma1.isock.bind(smmu.tsock); // port 0
        dma2.isock.bind(smmu.tsock); // port 1
        cpu.isock.bind(smmu.reg_tsock);
        smmu.isock.bind(iotlb.tsock);
        smmu.mem_isock.bind(mem.tsock);
        smmu.evtq_irq.bind(evtq_irq);
        iotlb.isock.bind(mem.tsock);
        iotlb.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
        smmu.set_port_stream(0, 1);
        smmu.set_port_stream(1, 2);
        SC_THREAD(driver);
        SC_THREAD(engine1);
        SC_THREAD(engine2);
        SC_METHOD(on_irq);
        sensitive << evtq_irq.posedge_event();
        dont_initialize();
    }

    void reg32(uint32_t off, uint32_t v) { cpu.rw(tlm::TLM_WRITE_COMMAND, off, &v, 4); }
    void reg64(uint32_t off, uint64_t v) { cpu.rw(tlm::TLM_WRITE_COMMAND, off, &v, 8); }
    uint32_t read32(uint32_t off)
    {
        uint32_t v = 0;
        cpu.rw(tlm::TLM_READ_COMMAND, off, &v, 4);
        return v;
    }
    void command(const gmmu_smmu_cmd &c)
    {
        uint64_t dw[2];
        gmmu_smmu_cmd_encode(&c, dw);
        const uint64_t slot = CMDQ + 16ull * gmmu_smmu_q_index(cmd_prod, CMDQ_LOG2);
        mem.put(slot, dw[0]);
        mem.put(slot + 8, dw[1]);
        cmd_prod = gmmu_smmu_q_next(cmd_prod, CMDQ_LOG2);
    }
    // Publish the queued commands and a CMD_SYNC, and wait for its completion write.
    void sync(uint32_t token)
    {
        gmmu_smmu_cmd s{};
        s.op = GMMU_SMMU_CMD_SYNC;
        s.cs = GMMU_SMMU_SYNC_CS_IRQ;
        s.msi_addr = SYNC_WORD;
        s.msi_data = token;
        command(s);
        reg32(GMMU_SMMU_CMDQ_PROD, cmd_prod);
        while (uint32_t(mem.get(SYNC_WORD)) != token)
            wait(50, SC_NS);
    }

    void on_irq() { irq_ev.notify(); }

    // Event handler: drain the event queue.
    void drain_events()
    {
        const uint32_t prod = read32(GMMU_SMMU_EVTQ_PROD);
        while (!gmmu_smmu_q_empty(prod, evt_cons, EVTQ_LOG2)) {
            uint64_t dw[4];
            for (unsigned i = 0; i < 4; i++)
                dw[i] = mem.get(EVTQ + 32ull * gmmu_smmu_q_index(evt_cons, EVTQ_LOG2) + 8 * i);
            gmmu_smmu_event e;
            gmmu_smmu_event_decode(dw, &e);
            faults_seen++;
            if (e.stream_id == 2 && e.input_addr == 0x7000'0000 &&
                e.id == GMMU_SMMU_F_TRANSLATION)
                stray_reported = true;
            evt_cons = gmmu_smmu_q_next(evt_cons, EVTQ_LOG2);
        }
        reg32(GMMU_SMMU_EVTQ_CONS, evt_cons | (prod & GMMU_SMMU_Q_OVF));
    }

    static constexpr uint64_t BUF = 0x4000'0000; // both engines' buffers start here (VA)
    static constexpr unsigned PAGES = 8, WORDS = 512;
    static uint64_t pattern(unsigned e, unsigned i) { return (uint64_t(e) << 56) | (0xda7a0000ull + i); }

    void driver()
    {
        // Tables: engine 1's buffer in frames from 8 MiB, engine 2's from 16 MiB.
        for (unsigned p = 0; p < PAGES; p++) {
            as1.map(BUF + p * 4096ull, 0x80'0000 + p * 4096ull);
            as2.map(BUF + p * 4096ull, 0x100'0000 + p * 4096ull);
        }
        // Stream table: stream 1 -> CD1 (ASID 1), stream 2 -> CD2 (ASID 2).
        const gmmu_smmu_cd cd1{true, 1, as1.root}, cd2{true, 2, as2.root};
        const gmmu_smmu_ste ste1{true, GMMU_SMMU_STE_CFG_S1, CD1, 0, GMMU_SMMU_PRIV_UNPRIV},
            ste2{true, GMMU_SMMU_STE_CFG_S1, CD2, 0, GMMU_SMMU_PRIV_UNPRIV};
        uint64_t dw[2];
        gmmu_smmu_cd_encode(&cd1, dw);
        mem.put(CD1, dw[0]), mem.put(CD1 + 8, dw[1]);
        gmmu_smmu_cd_encode(&cd2, dw);
        mem.put(CD2, dw[0]), mem.put(CD2 + 8, dw[1]);
        gmmu_smmu_ste_encode(&ste1, dw);
        mem.put(STRTAB + 64, dw[0]), mem.put(STRTAB + 64 + 8, dw[1]);
        gmmu_smmu_ste_encode(&ste2, dw);
        mem.put(STRTAB + 128, dw[0]), mem.put(STRTAB + 128 + 8, dw[1]);
        reg64(GMMU_SMMU_STRTAB_BASE, STRTAB);
        reg32(GMMU_SMMU_STRTAB_BASE_CFG, STRTAB_LOG2);
        reg64(GMMU_SMMU_CMDQ_BASE, CMDQ | CMDQ_LOG2);
        reg64(GMMU_SMMU_EVTQ_BASE, EVTQ | EVTQ_LOG2);
        reg32(GMMU_SMMU_IRQ_CTRL, GMMU_SMMU_IRQ_EVTQ);
        reg32(GMMU_SMMU_CR0, GMMU_SMMU_CR0_SMMUEN | GMMU_SMMU_CR0_EVTQEN | GMMU_SMMU_CR0_CMDQEN);
        gmmu_smmu_cmd all{};
        all.op = GMMU_SMMU_CMD_CFGI_ALL;
        command(all);
        sync(1);
        go.notify(); // the engines may start

        // When engine 1 is half-way through its page 3, migrate that page.
        while (progress1 < 3 * WORDS + WORDS / 2)
            wait(100, SC_NS);
        const uint64_t va = BUF + 3 * 4096ull, old_pa = 0x80'0000 + 3 * 4096ull,
                       new_pa = 0x200'0000;
        as1.unmap(va);
        gmmu_smmu_cmd inv{};
        inv.op = GMMU_SMMU_CMD_TLBI_NH_VA;
        inv.asid = 1;
        inv.addr = va;
        command(inv);
        sync(2); // from here no access reaches the old frame
        std::memcpy(&mem.cells[new_pa], &mem.cells[old_pa], 4096);
        wait(2, SC_US); // the copy's time: engine 1's accesses to the page fault meanwhile
        as1.map(va, new_pa);
        std::printf("driver: page 0x%llx of stream 1 moved from 0x%llx to 0x%llx at %s\n",
                    (unsigned long long)va, (unsigned long long)old_pa,
                    (unsigned long long)new_pa, sc_core::sc_time_stamp().to_string().c_str());
        while (!(done1 && done2)) {
            wait(sc_time(5, SC_US), irq_ev);
            drain_events();
        }
        drain_events();
        check();
        sc_core::sc_stop();
    }

    void engine(initiator &port, unsigned id, bool &done, unsigned &progress)
    {
        if (id == 1)
            wait(go);
        for (unsigned i = 0; i < PAGES * WORDS; i++) {
            progress = i;
            uint64_t v = pattern(id, i);
            while (port.rw(tlm::TLM_WRITE_COMMAND, BUF + 8ull * i, &v, 8) != tlm::TLM_OK_RESPONSE) {
                retries++; // the page is being migrated: try again later
                wait(1, SC_US);
            }
            wait(10, SC_NS);
        }
        done = true;
    }
    void engine1() { engine(dma1, 1, done1, progress1); }
    void engine2()
    {
        wait(go);
        uint64_t v = 0;
        if (dma2.rw(tlm::TLM_READ_COMMAND, 0x7000'0000, &v, 8) == tlm::TLM_OK_RESPONSE)
            bad++, std::printf("FAILED: an unmapped address of stream 2 was translated\n");
        engine(dma2, 2, done2, progress2);
    }

    void check()
    {
        for (unsigned e = 1; e <= 2; e++)
            for (unsigned i = 0; i < PAGES * WORDS; i++) {
                const uint64_t va = BUF + 8ull * i, page = va & ~0xfffull;
                const uint64_t pa = (e == 1 ? (page == BUF + 3 * 4096ull ? 0x200'0000
                                                                         : 0x80'0000 + (page - BUF))
                                            : 0x100'0000 + (page - BUF)) +
                                    (va & 0xfff);
                if (mem.get(pa) != pattern(e, i)) {
                    if (bad++ < 5)
                        std::printf("FAILED: stream %u word %u not at PA 0x%llx\n", e, i,
                                    (unsigned long long)pa);
                }
            }
        if (!stray_reported)
            bad++, std::printf("FAILED: the stray access of stream 2 has no event record\n");
    }
};

} // namespace

int sc_main(int argc, char **argv)
{
    (void)soc_keys_registered;
    std::unique_ptr<soc> soc_top;
    try {
        const gmmu::config cfg =
            gmmu::config::from_text(soc_json, "soc_smmu.json", std::vector<std::string>(argv + 1, argv + argc));
        soc_top = std::make_unique<soc>("soc", cfg);
    } catch (const gmmu::config_error &e) {
        std::fprintf(stderr, "soc_smmu: %s\n", e.what());
        return 2;
    }
    soc &top = *soc_top;
    sc_core::sc_start();
    nlohmann::json st;
    top.smmu.dump_stats(st);
    std::printf("%s: %u events (%u retries during the migration), %llu commands, "
                "%llu contexts fetched, simulated %s\n",
                top.bad ? "FAILED" : "OK", top.faults_seen, top.retries,
                st["commands"].get<unsigned long long>(),
                st["config"]["fetches"].get<unsigned long long>(),
                sc_core::sc_time_stamp().to_string().c_str());
    return top.bad || top.retries == 0 ? 1 : 0;
}
