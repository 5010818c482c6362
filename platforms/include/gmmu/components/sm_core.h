// gmmu — sm_core: the issue/commit SM model of tanasic-micro17 (§3)
// as a TLM initiator component (the GPU platform's `sm.model=issue`, built
// from its config by platforms/gpu/sm_core_config.cpp; any platform can
// instantiate one with a gmmu_sm_config, a kernel_source and a checker). One SC_THREAD steps the
// gmmu_sm C model at the cycles it asks for (tlm_quantumkeeper for temporal
// decoupling); the model's environment goes through TLM:
//  * translate: each coalesced 128-B request is one b_transport of a warp
//    payload (timing_only: memory annotates but moves no data) on isock to
//    the SM's L1 TLB, stamped with the request's cycle. The annotated delay
//    is split into the memory latency (data) and the rest (translation).
//    TLM_ADDRESS_ERROR_RESPONSE with a not-present fault in warp_ext is
//    reported on fault_isock to the fault handler, whose answer (ready cycle,
//    pending-queue position) goes back to the model, which applies its
//    scheme (stall / warp disable / replay queue / operand log, block
//    switching).
//  * read64/write64 (functional data, at an instruction's last TLB check):
//    DMI granted through the L1 TLB (VA-addressed page regions), else debug
//    transport through the L1 TLB.
//  * next_block/block_done: the kernel workload's global block scheduler and
//    its register check (kernel_source below).
// Sockets: isock (warp payloads to the L1 TLB, or to memory when bypassed)
// and fault_isock (fault reports, components/fault_handler.h), both bound.
// When the SM has finished, on_finish (if set) is called: the GPU platform
// uses it to check the final memory once the last SM is done.
// The platform memory is the only copy of the kernel's data: what the SM
// writes through translated addresses is what it and every other SM read.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include "gmmu/components/fault_handler.h"
#include "gmmu/components/sm.h"

extern "C" {
#include "gmmu/fault_handler.h"
#include "gmmu/kernels.h"
#include "gmmu/sm_issue.h"
}

namespace gmmu {

// What sm_core needs of its workload (platforms/gpu/workloads/kernels.cpp).
class kernel_source {
  public:
    virtual ~kernel_source();
    virtual const gmmu_kernel &kernel() const = 0;
    virtual bool demand_paging() const = 0;
    virtual pager &os_pager() = 0;
    // Global block scheduler: first wave round robin over SMs, then first come.
    virtual void next_block(unsigned sm, bool *got, uint32_t *block) = 0;
    // A finished block's registers regs[(warp * nregs + reg) * 32 + lane]:
    // compared with the reference run; mismatches go to the data checker.
    virtual void block_done(unsigned sm, uint32_t block, const uint64_t *regs, uint32_t nwarps,
                            uint32_t nregs, data_checker &chk) = 0;
    // After every SM has finished: compare the final memory (through the
    // page tables) with the reference run; mismatches go to the checker.
    virtual void verify_memory(data_checker &chk) = 0;
    // Programs of several launches (gmmu_program, docs/kernels.md). An SM
    // whose launch is done calls sm_finished_launch (failed: it stopped on
    // an error); the last SM's call runs the host loop's step: the next
    // launch (launch() counts up, kernel() is its kernel) or the end
    // (program_over()), and notifies launch_event(). An SM waits on the
    // event until either. A source of one launch keeps these defaults.
    virtual unsigned launch() const { return 0; }
    virtual bool program_over() const { return true; }
    virtual void sm_finished_launch(unsigned /*sm*/, bool /*failed*/) {}
    virtual sc_core::sc_event &launch_event();
    // With sm.access_shape: one global memory instruction of kernel() that
    // an SM performed (gmmu_sm_env::shape), for a breakdown by instruction.
    virtual void note_shape(uint32_t /*pc*/, uint32_t /*lanes*/, const gmmu_sm_shape & /*sh*/) {}
};

class sm_core : public sm_base {
  public:
    tlm_utils::simple_initiator_socket<sm_core> isock;       // to the L1 TLB
    tlm_utils::simple_initiator_socket<sm_core> fault_isock; // to the fault handler

    SC_HAS_PROCESS(sm_core);
    // cfg is checked by the model (gmmu_sm_create) and the kernel launched at
    // cycle 0; a refusal throws model_error naming the gmmu_sm_config field.
    sm_core(sc_core::sc_module_name name, const sm_params &p, const gmmu_sm_config &cfg,
            kernel_source &ks, data_checker &chk);
    struct model_error : std::runtime_error {
        model_error(const std::string &field, const std::string &msg);
        std::string field;
    };
    std::function<void()> on_finish;
    ~sm_core() override;

    tlm::tlm_initiator_socket<> &socket() override { return isock; }
    bool finished() const override { return done; }
    bool failed() const override { return !error.empty(); }
    const std::string &error_message() const override { return error; }
    uint64_t accesses() const override { return sm->st.mem_insns; }
    const gmmu_sm_stats &model_stats() const { return sm->st; }
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<sm_core> &stats_table();
    static bool shape_on(const sm_core &c) { return c.sm->cfg.access_shape; } // sm.access_shape's stats

  private:
    void run();
    void fail(const std::string &msg);
    gmmu_status translate(const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs);
    gmmu_status access(uint64_t va, uint64_t *val, bool write);
    uint8_t *host_ptr(uint64_t va, bool write);
    void invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi);
    uint64_t cycles(const sc_core::sc_time &t) const { return t.value() / p.clock.value(); }

    static gmmu_status c_translate(void *ctx, const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs);
    static gmmu_status c_read(void *ctx, uint64_t va, uint64_t *v);
    static gmmu_status c_write(void *ctx, uint64_t va, uint64_t v);
    static gmmu_status c_next(void *ctx, uint32_t sm, bool *got, uint32_t *id);
    static gmmu_status c_done(void *ctx, uint32_t sm, uint32_t id, const uint64_t *regs,
                              uint32_t nw, uint32_t nr);
    static void c_shape(void *ctx, uint32_t pc, uint32_t lanes, const gmmu_sm_shape *sh);

    sm_params p;
    kernel_source &ks;
    data_checker &checker;
    gmmu_sm *sm = nullptr; // the model (gmmu_sm_create), owned
    tlm_utils::tlm_quantumkeeper qk;
    tlm::tlm_generic_payload gp, fgp;
    warp_ext ext;
    sched_sideband_ext sb; // on gp only when the scheduler reads it (gmmu_sm_needs_sideband)
    fault_ext fext;
    struct dmi_entry {
        uint64_t vpn = ~0ull;
        uint8_t *ptr = nullptr;
        bool writable = false;
    };
    std::array<dmi_entry, 256> dmi{};
    bool done = false;
    std::string error;
    uint64_t requests = 0, fault_reports = 0, lazy_retries = 0, dmi_misses = 0, dbg_accesses = 0;
    uint64_t tlb_cycles_sum = 0, data_cycles_sum = 0;
};

} // namespace gmmu
