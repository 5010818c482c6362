// gmmu — analysis of the pointer-chase TLB probe (karnagel-damon17, section
// 3.2): from measured curves (cycles per access against distance, one curve per
// stride) to a table of TLB levels. Pure functions of the measurements: nothing
// here knows the platform's configuration. The same analysis serves the
// in-simulator `tlb-probe` (deterministic curves) and `gmmu-tlb-analyse`
// (curves measured on real GPUs, which wobble): its rise threshold comes from
// the noise of each curve's own plateaus. docs/tlb_probe.md explains the method.
#pragma once

#include <cstdint>
#include <map>
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
    // The noise band of this rise: probe_noise_k x the robust spread (MAD) of
    // the point-to-point differences around it; 0 on a deterministic curve.
    double noise = 0;
    double threshold = 0; // the rise threshold used here: max(floor, noise)
    uint64_t reach() const { return flat_elements * stride; }
    double height() const { return after - before; }
};

struct probe_level {
    uint64_t entries = 0, page_bytes = 0, reach_bytes = 0;
    double miss_delay_cycles = 0; // smallest complete rise at strides >= page
    // A level whose rises still grew with the stride at its largest stride
    // with a rise, and whose next stride's sweep rules out a page of that
    // stride or more: the page lies in [page_bytes, page_bytes_max] (equal
    // when pinned down), and the delay in [miss_delay_cycles, miss_delay_max].
    uint64_t page_bytes_max = 0;
    double miss_delay_max = 0;
    std::vector<probe_step> evidence; // the steps of this level, one per stride
};

// The noise model of the rise threshold (docs/tlb_probe.md section 3): the
// spread of a curve's point-to-point differences is estimated at each
// difference from the `probe_noise_window` differences on either side of it
// (median absolute deviation x 1.4826, a standard deviation for Gaussian
// noise); a difference is part of a rise when it exceeds
// max(floor, probe_noise_k x that spread).
constexpr double probe_noise_k = 4.0;
constexpr unsigned probe_noise_window = 4;

// Rises of one curve (points of one stride, sorted by distance): a rise is a
// run of consecutive increases each larger than the local threshold
// max(tau_floor, probe_noise_k x spread). On a deterministic curve (the
// spread is 0) the threshold is tau_floor and the plateau values are the
// points next to the rise; on a noisy one they are medians of the plateau's
// points within two octaves of the rise, and the rise must exceed the
// threshold from plateau to plateau as well.
std::vector<probe_step> probe_find_steps(const std::vector<probe_point> &curve, double tau_floor);

// Links the steps of all strides into levels. A level of E entries of page P
// shows its last flat distance at E x P for every stride s <= P and at E x s
// for s >= P (the paper's figure 2), and its rise (miss delay D) is D x s / P
// below the page and D at and above it (the paper: "the low and high cycle
// counts are the same as X"). So from stride s to 2s: same reach and a
// doubled rise means s < P; an equal rise means s >= P (the reach doubles, or
// stays when a power-of-two number of sets maps the strided pages to fewer
// sets). The page is the first stride of equal rises. Levels whose curves
// never showed both sides of the page are returned in `unresolved`.
// `sweep` (optional: stride -> largest distance measured at that stride)
// names the strides swept, so that a stride missing from the sweep is
// bridged (steps link to the next swept stride), and lets a level whose
// rises grow up to its last stride be bounded by what the next stride's
// sweep did not show (probe_level::page_bytes_max).
std::vector<probe_level> probe_analyze(const std::vector<probe_step> &steps,
                                       std::vector<probe_level> *unresolved = nullptr,
                                       const std::map<uint64_t, uint64_t> *sweep = nullptr);

nlohmann::json probe_levels_json(const std::vector<probe_level> &levels);

// The body of tlb_probe.json, shared by the in-simulator probe and
// gmmu-tlb-analyse: the levels, the unresolved steps, and the method (the
// strides, the largest distance and element count, the points, the rise
// threshold); a caller adds its own method fields.
nlohmann::json probe_result_json(const std::vector<probe_level> &levels,
                                 const std::vector<probe_level> &unresolved,
                                 const std::vector<uint64_t> &strides, uint64_t distance_max,
                                 uint64_t elements_max, size_t points, double rise_threshold_cycles);

// ---- measured curves (gmmu-tlb-analyse) ----
// Reads a chase CSV (docs/tlb_probe.md section 3: a header naming at least
// run, stride_bytes, chain_length and cycles_per_access) and returns the
// points of run `run`. "" on success, else one line "PATH:LINE: problem"
// (or naming the run when the file has none of it).
std::string probe_read_csv(const std::string &path, const std::string &run,
                           std::vector<probe_point> &points);

// The whole analysis of a set of points (any strides, any order): steps per
// stride, levels, and the tlb_probe.json object (levels, unresolved, method).
nlohmann::json probe_analyze_points(const std::vector<probe_point> &points, double tau_floor);

} // namespace gmmu
