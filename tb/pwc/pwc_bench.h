// gmmu — CPWC/TPC RTL benches: stimulus, scoreboard and the lock-step runner
// (HPDcache-style split: the address space / walker agent and the sequences
// live in pwc_bench.cpp next to the scoreboard; tests in test_rtl_pwc.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "rtl_cpwc.h"

namespace pwcbench {

struct RunOpts {
    uint64_t seed = 1;
    uint64_t cycles = 100000;
    int reset_values = 0;       // RTL initial values: 0, 1, 2 = random
    unsigned state_every = 1;   // compare the storage every n cycles (0: only at the end)
    bool fst_on_fail = true;    // re-run a failing seed with an FST dump
    std::string fst_dir = ".";  // where that FST goes
    std::string coverage;       // Verilator coverage file for this run
    std::string fst;            // dump this run to an FST (debug)
    bool quiet = false;
};

struct RunStats {
    uint64_t lookups = 0, outcome[5] = {0, 0, 0, 0, 0}; // outcome[start level]
    uint64_t fills = 0, stale_fills = 0, partial_fills = 0;
    uint64_t invalidations = 0, inv_all = 0, inv_during_walk = 0, squashed_hits = 0;
    uint64_t walk_checks = 0, space_switches = 0, noncanonical = 0;
};

struct RunResult {
    bool ok = true;
    uint64_t cycles = 0;      // cycles run
    uint64_t fail_cycle = 0;  // first failing cycle
    std::string why;          // what failed: field-by-field diff
    std::string fst;          // FST of the failing run, if written
    uint64_t trace_hash = 0;  // hash of every output of every cycle
    double seconds = 0;
    RunStats st;
};

// Seeded random lock-step run of `variant` against the C model.
RunResult run_random(const std::string &variant, const RunOpts &opt);

// jia-cpwc's worked example (figure 1) on the `cpwc_example` geometry (2 L4, 4 L3,
// 4 blocks of 8): outcomes, reads, latency and final contents incl. masks.
RunResult run_worked_example(const std::string &variant, const RunOpts &opt);

// One-line summary of a result (seed, cycles, speed, outcome counts).
std::string summary(const std::string &variant, const RunOpts &opt, const RunResult &r);

} // namespace pwcbench
