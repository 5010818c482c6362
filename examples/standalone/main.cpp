// A CPU-like initiator translating through a gmmu L1 TLB + walker in front of
// memory, like an SMMU/TBU in an SoC. Prints OK and exits 0 when the data
// written through virtual addresses reads back at the physical addresses the
// page tables give.
#include <cstdio>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "gmmu/gpu/driver.h"

struct cpu : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<cpu> isock{"isock"};
    bool ok = true;
    gmmu::driver *drv = nullptr;
    gmmu::memory *mem = nullptr;
    SC_HAS_PROCESS(cpu);
    explicit cpu(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    void run()
    {
        for (uint64_t i = 0; i < 64; i++) {
            uint64_t va = 0x40000000ull + i * 4096 + 8 * i, v = 0xABC0000 + i;
            tlm::tlm_generic_payload gp;
            gp.set_command(tlm::TLM_WRITE_COMMAND);
            gp.set_address(va);
            gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
            gp.set_data_length(8);
            gp.set_streaming_width(8);
            sc_core::sc_time d = sc_core::SC_ZERO_TIME;
            isock->b_transport(gp, d);
            wait(d);
            ok &= gp.is_response_ok() && mem->read64(drv->translate(va)) == v;
        }
    }
};

int sc_main(int, char **)
{
    gmmu::memory mem("mem", 50, sc_core::sc_time(1, sc_core::SC_NS));
    gmmu::driver drv("drv", mem);
    gmmu::tlb_params tp;
    tp.model.entries = 16;
    tp.model.ways = 4;
    tp.model.page_shift = 12;
    gmmu::tlb tbu("tbu", tp);
    gmmu::ptw walker("walker", gmmu::ptw_params{});
    cpu c("cpu");
    c.drv = &drv;
    c.mem = &mem;
    c.isock.bind(tbu.tsock);
    tbu.isock.bind(mem.tsock);
    tbu.miss_isock.bind(walker.tsock);
    walker.pt_isock.bind(mem.tsock);
    walker.set_root(0, drv.root());
    drv.map(0x40000000ull, 64 * 4096, 12);
    sc_core::sc_start();
    std::printf("%s: %llu TLB misses, simulated %s\n", c.ok ? "OK" : "FAILED",
                (unsigned long long)gmmu_tlb_stats_of(tbu.model())->misses, sc_core::sc_time_stamp().to_string().c_str());
    return c.ok ? 0 : 1;
}
