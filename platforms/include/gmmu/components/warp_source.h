// gmmu — what drives an SM initiator (components/sm.h): a source of warp
// memory instructions per (SM, warp), and the data checker that verifies
// every value read back. The GPU platform's workloads (gpu/workload.h) are
// warp sources; another platform can give an SM any source of its own.
//
// Data rule: a store writes pattern(VA) in every active lane; a load must
// read pattern(VA) if that word was stored before (in simulation order) and
// zero otherwise. Any other value fails the run.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <systemc>

#include "gmmu/rng.h"

namespace gmmu {

struct warp_op {
    bool write = false;
    unsigned nlanes = 32;
    uint32_t active = 0xFFFFFFFFu;
    std::array<uint64_t, 32> va{};
    // Store data chosen by the workload (pointer chains, ...) instead of
    // data_pattern(VA); the checker then expects exactly these values back.
    bool explicit_data = false;
    std::array<uint64_t, 32> data{};
    // Cycles of non-memory work the warp does after this access completes,
    // before its next memory instruction can issue (0: none).
    unsigned compute_cycles = 0;
};

enum class next_status { issue, wait, done };

class warp_source {
  public:
    virtual ~warp_source() = default;
    // Next instruction of (sm, warp); false when that warp has finished.
    virtual bool next(unsigned sm, unsigned warp, warp_op &op) = 0;
    // Sources that synchronise SMs (stages) or chase pointers override
    // this instead: `wait` makes the SM retry after wait_cycles() cycles.
    virtual next_status poll(unsigned sm, unsigned warp, warp_op &op)
    {
        return next(sm, warp, op) ? next_status::issue : next_status::done;
    }
    virtual unsigned wait_cycles() const { return 64; }
    // Called after every access with the loaded lane data and its timing
    // (issue time and latency, absolute simulated time).
    virtual void completed(unsigned sm, unsigned warp, const warp_op &op, const uint64_t *data,
                           const sc_core::sc_time &issue, const sc_core::sc_time &latency)
    {
        (void)sm, (void)warp, (void)op, (void)data, (void)issue, (void)latency;
    }
    virtual std::string name() const = 0;
    // Whether the source's next instructions depend on the values its loads
    // return (pointer chasing, hashing loaded keys): such a source cannot
    // run without data (sm.timing_only).
    virtual bool reads_loaded_values() const { return false; }
};

inline uint64_t data_pattern(uint64_t va)
{
    return gmmu_mix64(va + GMMU_SPLITMIX64_GAMMA); // splitmix64's output for state va
}

class data_checker {
  public:
    // One checker per address space; salt makes each space's store data its
    // own (0: data_pattern(va)), so a load served from another space's
    // frame is caught even at the same VA.
    uint64_t salt = 0;
    uint64_t pattern(uint64_t va) const { return data_pattern(va ^ salt); }
    // A store of the pattern to va (the word's explicit value, if any, is
    // forgotten).
    void stored(uint64_t va)
    {
        if (!values.empty())
            forget_value(va);
        page_bits *b = bits_for(va >> 12, true);
        const unsigned word = (va >> 3) & 511;
        b->w[word >> 6] |= 1ull << (word & 63);
        stores++;
    }
    void stored_value(uint64_t va, uint64_t value); // explicit store data
    // Returns true if `value` is what a load of va must see. The usual case
    // (no explicit store data, same page as the last call) stays inline;
    // map look-ups and the mismatch report are out of line.
    bool check(uint64_t va, uint64_t value)
    {
        checked++;
        const uint64_t want = values.empty() ? expected_pattern(va) : expected_slow(va);
        return value == want || report_mismatch(va, value, want);
    }
    uint64_t checked = 0, mismatches = 0, stores = 0;
    std::string first_mismatch;

  private:
    struct page_bits {
        uint64_t w[8] = {};
    };
    std::unordered_map<uint64_t, page_bits> written; // by 4 KiB VPN, one bit per 8-byte word
    std::unordered_map<uint64_t, uint64_t> values;   // explicit store data by VA
    uint64_t last_vpn = ~0ull;
    page_bits *last = nullptr;
    page_bits *bits_for(uint64_t vpn, bool create)
    {
        return vpn == last_vpn ? last : bits_for_slow(vpn, create);
    }
    page_bits *bits_for_slow(uint64_t vpn, bool create);
    // The pattern if the word was stored, 0 if never.
    uint64_t expected_pattern(uint64_t va)
    {
        const page_bits *b = bits_for(va >> 12, false);
        const unsigned word = (va >> 3) & 511;
        const bool was_written = b && (b->w[word >> 6] >> (word & 63)) & 1;
        return was_written ? pattern(va) : 0;
    }
    uint64_t expected_slow(uint64_t va); // explicit store data first
    void forget_value(uint64_t va);
    bool report_mismatch(uint64_t va, uint64_t value, uint64_t want); // false
};

} // namespace gmmu
