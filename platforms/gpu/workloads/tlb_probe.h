// gmmu — analysis of the pointer-chase TLB probe (karnagel-damon17, section
// 3.2): from measured curves (cycles per access against distance, one curve per
// stride) to a table of TLB levels. Pure functions of the measurements: nothing
// here knows the platform's configuration. docs/tlb_probe.md explains the method.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmmu {

// One measured point: a chase of `elements` pointers at `stride` bytes
// (distance = elements x stride), second pass timed.
struct probe_point {
    uint64_t stride = 0, elements = 0;
    double cycles = 0; // average cycles per access of the timed pass
};

// A rise of one stride's curve: the last flat distance (`reach`, exact after
// bisection) and the height from the plateau before to the plateau after.
struct probe_step {
    uint64_t stride = 0;
    uint64_t flat_elements = 0, raised_elements = 0; // bracket of the rise (elements)
    double before = 0, after = 0;                    // plateau values, cycles/access
    bool complete = true; // the curve flattened again inside the sweep
    uint64_t reach() const { return flat_elements * stride; }
    double height() const { return after - before; }
};

struct probe_level {
    uint64_t entries = 0, page_bytes = 0, reach_bytes = 0;
    double miss_delay_cycles = 0; // smallest complete rise at strides >= page
    std::vector<probe_step> evidence; // the steps of this level, one per stride
};

// Rises of one curve (points of one stride, sorted by distance): a rise is a
// run of consecutive increases larger than `tau` cycles/access.
std::vector<probe_step> probe_find_steps(const std::vector<probe_point> &curve, double tau);

// Links the steps of all strides into levels. A level of E entries of page P
// shows its last flat distance at E x P for every stride s <= P and at E x s
// for s >= P (the paper's figure 2), and its rise (miss delay D) is D x s / P
// below the page and D at and above it (the paper: "the low and high cycle
// counts are the same as X"). So from stride s to 2s: same reach and a
// doubled rise means s < P; an equal rise means s >= P (the reach doubles, or
// stays when a power-of-two number of sets maps the strided pages to fewer
// sets). The page is the first stride of equal rises. Levels whose curves
// never showed both sides of the page are returned in `unresolved`.
std::vector<probe_level> probe_analyze(const std::vector<probe_step> &steps,
                                       std::vector<probe_level> *unresolved = nullptr);

nlohmann::json probe_levels_json(const std::vector<probe_level> &levels);

} // namespace gmmu
