// gmmu — workloads: generators of warp memory instructions per (SM, warp),
// and the data checker that verifies every value read back.
//
// Data rule: a store writes pattern(VA) in every active lane; a load must
// read pattern(VA) if that word was stored before (in simulation order) and
// zero otherwise. Any other value fails the run.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpu/config.h"
#include "gpu/driver.h"

namespace gmmu {

struct warp_op {
    bool write = false;
    unsigned nlanes = 32;
    uint32_t active = 0xFFFFFFFFu;
    std::array<uint64_t, 32> va{};
};

class workload {
  public:
    virtual ~workload() = default;
    // Map the memory the workload touches (before the run).
    virtual void setup(driver &drv, unsigned page_shift) = 0;
    // Next instruction of (sm, warp); false when that warp has finished.
    virtual bool next(unsigned sm, unsigned warp, warp_op &op) = 0;
    virtual std::string name() const = 0;
};

// Throws config_error for unknown names or bad parameters (trace: FILE:LINE).
std::unique_ptr<workload> make_workload(const std::string &name, const config &cfg, uint64_t seed);
std::vector<std::string> workload_names();

inline uint64_t data_pattern(uint64_t va)
{
    uint64_t z = va + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

class data_checker {
  public:
    void stored(uint64_t va);
    // Returns true if `value` is what a load of va must see.
    bool check(uint64_t va, uint64_t value);
    uint64_t checked = 0, mismatches = 0, stores = 0;
    std::string first_mismatch;

  private:
    struct page_bits {
        uint64_t w[8] = {};
    };
    std::unordered_map<uint64_t, page_bits> written; // by 4 KiB VPN, one bit per 8-byte word
    uint64_t last_vpn = ~0ull;
    page_bits *last = nullptr;
    page_bits *bits_for(uint64_t vpn, bool create);
};

} // namespace gmmu
