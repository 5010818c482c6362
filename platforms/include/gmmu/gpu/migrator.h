// gmmu — the driver's page migration while a workload runs. Every
// interval_cycles one mapped page of a random context moves to a new frame,
// as a GPU driver migrates memory (for example between memory tiers):
//   1. the PTE is made not present, and the contiguity hints of its aligned
//      block of 2^7 pages are cleared (its frames stop being contiguous);
//   2. TLBI_NH_VA over that block for the context's ASID and a CMD_SYNC go to
//      an SMMU command queue in simulated memory (gmmu::smmu, docs/smmu.md);
//      its invalidations reach every L1 TLB, from there every level below
//      and the walker (PWC, walks in flight); the driver waits for the
//      CMD_SYNC's completion write;
//   3. the frame is copied to a new one (copy_cycles, during which the page
//      stays not present: SMs that touch it stall and replay, sm_params::
//      page_in_flight);
//   4. the PTE points at the new frame and is made present again.
// The run's data check then proves nothing written before a migration was
// lost after it. With invalidate = false step 2 is skipped (a broken driver:
// stale TLB entries keep writing to the old frame after the copy).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "gmmu/components/memory.h"
#include "gmmu/components/smmu.h"
#include "gmmu/components/stats.h"
#include "gmmu/gpu/driver.h"

namespace gmmu {

struct migrator_params {
    sc_core::sc_time clock = sc_core::sc_time(1, sc_core::SC_NS);
    unsigned interval_cycles = 10000;
    unsigned copy_cycles = 256;
    bool invalidate = true;
    uint64_t seed = 1;
    // Where the command queue and the CMD_SYNC completion word live (below
    // the drivers' page tables).
    uint64_t cmdq_pa = 0x00800000, sync_pa = 0x00900000;
    unsigned cmdq_log2 = 6;
    smmu_params smmu; // the SMMU unit (components/smmu_spec.h: migrate.smmu.*)
};

class migrator : public sc_core::sc_module, public stats_provider {
  public:
    // The SMMU whose command queue carries the invalidations: the platform
    // binds unit.isock and unit.inv_isock to the L1 TLBs and unit.mem_isock
    // to the memory.
    smmu unit;

    SC_HAS_PROCESS(migrator);
    // contexts[k] is the driver of ASID k; running() is false once every SM
    // has finished (the migrator then stops).
    migrator(sc_core::sc_module_name name, const migrator_params &p, memory &mem,
             std::vector<driver *> contexts, std::function<bool()> running);

    // Is the page holding va of context asid being moved (not present)?
    bool in_flight(uint16_t asid, uint64_t va) const;

    void dump_stats(nlohmann::json &j) const override;
    static const stat_table<migrator> &stats_table();

  private:
    tlm_utils::simple_initiator_socket<migrator> reg_isock;
    void run();
    void reg_write(uint32_t off, uint64_t v, unsigned len);
    void command(const gmmu_smmu_cmd &c);
    void migrate_one();

    migrator_params p;
    memory &mem;
    std::vector<driver *> ctx;
    std::function<bool()> running;
    std::set<std::pair<uint16_t, uint64_t>> moving; // (asid, page VA)
    uint64_t rng;
    uint32_t cmd_prod = 0, token = 0;
    uint64_t migrations = 0, commands = 0, sync_wait_cycles = 0, bytes_copied = 0;
};

} // namespace gmmu
