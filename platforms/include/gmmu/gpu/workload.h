// gmmu — workloads: the GPU platform's warp sources (components/
// warp_source.h), which also map the memory they touch through the driver
// and may write results after the run; and their registry by name.
#pragma once

#include <array>
#include <functional>

#include <systemc>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gmmu/components/warp_source.h"
#include "gmmu/components/config.h"
#include "gmmu/gpu/driver.h"

namespace gmmu {

class workload : public warp_source {
  public:
    // Map the memory the workload touches (before the run).
    virtual void setup(driver &drv, unsigned page_shift) = 0;
    // After the run: write results (e.g. OUT/tlb_probe.json); false + message on failure.
    virtual bool finish(const std::string &out_dir, std::string &error)
    {
        (void)out_dir, (void)error;
        return true;
    }
};

using workload_factory = std::function<std::unique_ptr<workload>(const config &, uint64_t seed)>;
// Register a workload by name (call at static initialisation from the
// workload's own file in platforms/gpu/workloads/). Returns true.
bool register_workload(const std::string &name, workload_factory f);

// Throws config_error for unknown names or bad parameters (trace: FILE:LINE).
std::unique_ptr<workload> make_workload(const std::string &name, const config &cfg, uint64_t seed);
// `gmmu-sim --check`: the workloads made from now on are validated and set
// up, never run, so one may leave out data that only a run reads, as long
// as every error a run's set-up would report is still reported (the kernel
// workload: docs/kernels.md, "Simulation cost"). Off by default.
void set_check_only(bool on);
bool check_only();
// The trace workload's parser over a trace file's text already in memory
// (what `--workload trace` does with workload.path's contents, for sms SMs of
// warps warps): the number of warp accesses, or a config_error naming
// PATH:LINE (or the argument, if sms is outside 1..1024 or warps 1..64, the
// ranges of sm.count and sm.warps).
size_t parse_trace_text(const std::string &text, const std::string &path, unsigned sms, unsigned warps);

// The text of an input file named by config key `key`: only a regular file
// of at most max_bytes (opened without blocking, so a FIFO is refused, never
// waited on), else a config_error "config key 'KEY': PATH: why".
std::string read_input_file(const std::string &key, const std::string &path, uint64_t max_bytes);

// Limits of the trace workload's input (docs/workloads.md): the file's size,
// and the distinct pages its accesses touch (each costs a mapping, page-table
// space and a frame that the run writes).
// random-sample with workload.map=touched: at most this many samples (each
// costs about 8.7 KiB of host memory: a frame and page-table space).
constexpr uint64_t touched_max_samples = uint64_t(1) << 20;

constexpr uint64_t trace_max_bytes = uint64_t(128) << 20;
constexpr uint64_t trace_max_pages = uint64_t(1) << 20;
std::vector<std::string> workload_names();

} // namespace gmmu
