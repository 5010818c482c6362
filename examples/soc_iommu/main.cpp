// An SoC with its own memory and its own x86-64 page tables, using gmmu's
// TLB + page-table walker as an IOMMU in front of a DMA engine. Only the
// component headers (<gmmu/components/...>) are used: the SoC's memory
// target is its own, and so are the tables, written PTE by PTE.
//
// The DMA engine copies a buffer through virtual addresses; the program
// checks the data landed in the physical frames the tables name, that a
// write to a read-only page and an access to an unmapped page are refused,
// and that after the SoC remaps a page and shoots it down through the TLB's
// register block, the next access reaches the new frame.
//
// Page tables for a device are walked as user accesses: every level sets U.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include <gmmu/components/ptw.h>
#include <gmmu/components/tlb.h>

namespace {

constexpr uint64_t P = 1, W = 2, U = 4, A = 1ull << 5, D = 1ull << 6;

// The SoC's memory: flat, 16 MiB, 20 ns per access, debug transport; any
// number of initiators (the IOTLB's data side and the walker).
struct soc_memory : sc_core::sc_module {
    tlm_utils::multi_passthrough_target_socket<soc_memory> tsock{"tsock"};
    std::vector<uint8_t> bytes = std::vector<uint8_t>(16u << 20);
    explicit soc_memory(sc_core::sc_module_name n) : sc_module(n)
    {
        tsock.register_b_transport(this, &soc_memory::b_transport);
        tsock.register_transport_dbg(this, &soc_memory::transport_dbg);
    }
    bool inside(const tlm::tlm_generic_payload &gp) const
    {
        return gp.get_address() < bytes.size() && gp.get_data_length() <= bytes.size() - gp.get_address();
    }
    unsigned transport_dbg(int, tlm::tlm_generic_payload &gp)
    {
        if (!inside(gp))
            return 0;
        uint8_t *m = &bytes[gp.get_address()];
        if (gp.is_write())
            std::memcpy(m, gp.get_data_ptr(), gp.get_data_length());
        else
            std::memcpy(gp.get_data_ptr(), m, gp.get_data_length());
        return gp.get_data_length();
    }
    void b_transport(int port, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
    {
        if (!inside(gp)) {
            gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
            return;
        }
        transport_dbg(port, gp);
        delay += sc_core::sc_time(20, sc_core::SC_NS);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    }
    uint64_t read64(uint64_t pa) const
    {
        uint64_t v;
        std::memcpy(&v, &bytes[pa], 8);
        return v;
    }
    void write64(uint64_t pa, uint64_t v) { std::memcpy(&bytes[pa], &v, 8); }
};

// The SoC's own page-table writer: 4 levels, 4 KiB pages, tables allocated
// from a pool of frames.
struct page_tables {
    soc_memory &mem;
    uint64_t next_table = 0x100000; // tables from 1 MiB up
    uint64_t root = 0;
    explicit page_tables(soc_memory &m) : mem(m) { root = alloc(); }
    uint64_t alloc()
    {
        const uint64_t t = next_table;
        next_table += 4096;
        return t;
    }
    void map(uint64_t va, uint64_t pa, bool writable)
    {
        uint64_t table = root;
        for (int level = 4; level > 1; level--) {
            const uint64_t slot = table + 8 * ((va >> (12 + 9 * (level - 1))) & 511);
            uint64_t e = mem.read64(slot);
            if (!(e & P)) {
                e = alloc() | P | W | U | A;
                mem.write64(slot, e);
            }
            table = e & 0x000ffffffffff000ull;
        }
        mem.write64(table + 8 * ((va >> 12) & 511), pa | P | U | A | D | (writable ? W : 0));
    }
};

struct dma : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<dma> isock{"isock"};
    std::function<void()> program; // what the engine does, in its own thread
    SC_HAS_PROCESS(dma);
    explicit dma(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void run() { program(); }
    tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t va, uint64_t *v)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(cmd);
        gp.set_address(va);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(v));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        isock->b_transport(gp, d);
        wait(d);
        return gp.get_response_status();
    }
};

// Writes a 64-bit register of the TLB's shootdown block.
struct cpu_regs : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<cpu_regs> isock{"isock"};
    explicit cpu_regs(sc_core::sc_module_name n) : sc_module(n) {}
    void write(uint64_t offset, uint64_t value)
    {
        tlm::tlm_generic_payload gp;
        gp.set_command(tlm::TLM_WRITE_COMMAND);
        gp.set_address(offset);
        gp.set_data_ptr(reinterpret_cast<unsigned char *>(&value));
        gp.set_data_length(8);
        gp.set_streaming_width(8);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        isock->b_transport(gp, d);
    }
};

} // namespace

int sc_main(int, char **)
{
    soc_memory mem("mem");
    page_tables pt(mem);
    gmmu::tlb_params tp;
    tp.model.entries = 32;
    tp.model.ways = 4;
    tp.model.page_shift = 12;
    tp.model.lookup_cycles = 1;
    gmmu::tlb iotlb("iotlb", tp);
    gmmu::ptw walker("walker", gmmu::ptw_params{});
    dma engine("dma");
    cpu_regs cpu("cpu");
    engine.isock.bind(iotlb.tsock);
    iotlb.isock.bind(mem.tsock);
    iotlb.miss_isock.bind(walker.tsock);
    walker.pt_isock.bind(mem.tsock);
    cpu.isock.bind(iotlb.shootdown_tsock);
    walker.set_root(0, pt.root);

    // A 64 KiB buffer at VA 0x10000000 in frames from 4 MiB up, in reverse
    // page order (so a translation that ignored the tables would show); one
    // read-only page after it.
    const uint64_t va0 = 0x10000000, frames = 0x400000;
    for (uint64_t i = 0; i < 16; i++)
        pt.map(va0 + i * 4096, frames + (15 - i) * 4096, true);
    const uint64_t ro_va = va0 + 16 * 4096;
    pt.map(ro_va, frames + 0x20000, false);
    int bad = 0;
    engine.program = [&] {
        for (uint64_t off = 0; off < 16 * 4096; off += 512) {
            uint64_t v = 0xD0000000 + off;
            if (engine.access(tlm::TLM_WRITE_COMMAND, va0 + off, &v) != tlm::TLM_OK_RESPONSE)
                bad++;
        }
        for (uint64_t off = 0; off < 16 * 4096; off += 512) {
            const uint64_t pa = frames + (15 - off / 4096) * 4096 + off % 4096;
            if (mem.read64(pa) != 0xD0000000 + off) {
                std::printf("FAILED: VA 0x%llx did not land at PA 0x%llx\n",
                            (unsigned long long)(va0 + off), (unsigned long long)pa);
                bad++;
            }
        }
        uint64_t v = 1;
        if (engine.access(tlm::TLM_WRITE_COMMAND, ro_va, &v) == tlm::TLM_OK_RESPONSE) {
            std::printf("FAILED: a write to a read-only page was accepted\n");
            bad++;
        }
        if (engine.access(tlm::TLM_READ_COMMAND, ro_va, &v) != tlm::TLM_OK_RESPONSE) {
            std::printf("FAILED: a read of a read-only page was refused\n");
            bad++;
        }
        if (engine.access(tlm::TLM_READ_COMMAND, 0x20000000, &v) == tlm::TLM_OK_RESPONSE) {
            std::printf("FAILED: an unmapped page was translated\n");
            bad++;
        }
        // Remap the first page to a new frame, shoot it down (range registers,
        // then "invalidate range of ASID 0"), and read through it again.
        mem.write64(0x800000, 0x5eed);
        pt.map(va0, 0x800000, true);
        cpu.write(0x10, va0);
        cpu.write(0x18, va0 + 4095);
        cpu.write(0x20, 0);
        v = 0;
        if (engine.access(tlm::TLM_READ_COMMAND, va0, &v) != tlm::TLM_OK_RESPONSE || v != 0x5eed) {
            std::printf("FAILED: after the shootdown the remapped page read 0x%llx\n",
                        (unsigned long long)v);
            bad++;
        }
    };
    sc_core::sc_start();
    const nlohmann::json st = gmmu::collect_stats();
    std::printf("%s: %llu IOTLB misses, %llu page-table reads\n", bad ? "FAILED" : "OK",
                (unsigned long long)gmmu_tlb_stats_of(iotlb.model())->misses,
                st["walker"]["pt_reads"].get<unsigned long long>());
    return bad ? 1 : 0;
}
