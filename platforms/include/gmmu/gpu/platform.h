// gmmu — the LT GPU platform: builds and binds the components from a config.
//
//   sm[i].isock -> l1_tlb[i].tsock      l1_tlb[i].isock -> memory.tsock (data)
//   l1_tlb[i].miss_isock -> l2_tlb.tsock (or ptw.tsock when l2_tlb.enabled=false)
//   l2_tlb.miss_isock -> ptw.tsock      ptw.pt_isock -> memory.tsock (page tables)
// With mmu.bypass=true the SMs bind straight to memory (PA = VA).
// contexts=N: N drivers (page tables, ASIDs 0..N-1); migrate.*: a migrator
// whose SMMU command queue invalidates every L1 TLB (platforms/gpu/migrator.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "gmmu/components/cache.h"
#include "gmmu/components/ldt_unit.h"
#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "gmmu/components/config.h"
#include "gmmu/components/tlb_config.h"
#include "gmmu/gpu/driver.h"
#include "gmmu/gpu/migrator.h"
#include "gmmu/gpu/platform_build.h" // tlb_groups, tlb_parents, build_sm
#include "gmmu/components/sm.h"
#include "gmmu/gpu/workload.h"

namespace gmmu {

struct run_result {
    bool ok = false;             // every SM finished, no fault, data all correct
    std::string error;           // first problem
    uint64_t warp_accesses = 0;
    uint64_t lanes_checked = 0, mismatches = 0;
    double sim_time_ns = 0, wall_s = 0;
    int interrupted_by = 0;      // the signal that stopped the run early (0: none)
};

// The run's own statistics (the top level of stats.json), declared once like
// a component's (components/stats.h).
struct run_summary {
    run_result r;
    uint64_t seed = 0;
};
nlohmann::json run_stats(const run_result &r, uint64_t seed);

// Ask a running gpu_platform::run() to stop at its next safe point (between
// two slices of simulated time); safe to call from a signal handler.
void request_stop(int signal);

class gpu_platform : public sc_core::sc_module {
  public:
    gpu_platform(sc_core::sc_module_name name, const config &cfg, workload &wl);

    // Run to completion (sc_start) and check the outcome.
    run_result run();

    const config &cfg;
    std::unique_ptr<memory> mem;
    std::unique_ptr<driver> drv;
    std::vector<std::unique_ptr<ptw>> walkers; // one, or one per last-level TLB (ptw.per_tlb)
    ptw *walker = nullptr;                     // the first walker
    ptw_params wparams;
    std::vector<std::unique_ptr<tlb>> l1;                 // L1 instances (l1_tlbN)
    std::vector<std::vector<std::unique_ptr<tlb>>> outer; // outer[0] = L2 instances, [1] = L3
    std::vector<std::vector<std::vector<unsigned>>> groups; // per level: SM ids of each instance
    std::vector<std::unique_ptr<ldt_unit>> ldts;          // PICLE: one per L2 instance
    std::vector<std::unique_ptr<sm_base>> sms;
    std::vector<std::unique_ptr<data_cache>> l1_caches; // per L1 TLB instance (per SM with mmu.bypass)
    std::unique_ptr<data_cache> l2_cache;               // shared, in front of the memory
    tlm::tlm_base_target_socket_b<> &data_target(const config &c);
    // The TLB levels, walkers, data caches and LDTs, built and bound (platform.cpp).
    void wire_translation(const config &c, unsigned nsm, unsigned nctx);
    // Extra components SM models or workloads add (fault handler, ...), kept alive here.
    std::vector<std::unique_ptr<sc_core::sc_module>> extras;
    data_checker checker;
    // contexts > 1: the drivers and checkers of contexts 1.. (context 0 is
    // drv / checker); SM i runs in context i mod contexts.
    std::vector<std::unique_ptr<driver>> ctx_drivers;
    std::vector<std::unique_ptr<data_checker>> ctx_checkers;
    driver &driver_of(unsigned ctx) { return ctx == 0 ? *drv : *ctx_drivers[ctx - 1]; }
    data_checker &checker_of(unsigned ctx) { return ctx == 0 ? checker : *ctx_checkers[ctx - 1]; }
    std::unique_ptr<migrator> migr; // migrate.interval_cycles > 0
    sc_core::sc_time clock;
};

class gpu_platform;
// Factory of an SM model selected by `sm.model`. Called once per SM during
// elaboration, after memory, driver, walker and TLBs exist.
using sm_factory = std::function<std::unique_ptr<sm_base>(
    const char *name, const sm_params &p, workload &wl, gpu_platform &gpu)>;
bool register_sm_model(const std::string &name, sm_factory f);
std::vector<std::string> sm_model_names();

} // namespace gmmu
