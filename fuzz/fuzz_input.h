// A fuzz input read as a stream of small integers (bytes run out as zeros).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gmmu_fuzz {

class input {
  public:
    input(const uint8_t *data, size_t size) : d(data), n(size) {}
    bool more() const { return at < n; }
    uint8_t u8() { return at < n ? d[at++] : 0; }
    uint16_t u16() { return uint16_t(u8() | (u8() << 8)); }
    uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
    uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
    // A value in [0, bound).
    uint32_t below(uint32_t bound) { return bound ? u32() % bound : 0; }

  private:
    const uint8_t *d;
    size_t n, at = 0;
};

} // namespace gmmu_fuzz
