#include "gmmu/components/warp_source.h"

#include <cinttypes>
#include <cstdio>

namespace gmmu {

data_checker::page_bits *data_checker::bits_for_slow(uint64_t vpn, bool create)
{
    auto it = written.find(vpn);
    if (it == written.end()) {
        if (!create)
            return nullptr;
        it = written.emplace(vpn, page_bits{}).first;
    }
    last_vpn = vpn;
    last = &it->second;
    return last;
}

void data_checker::stored_value(uint64_t va, uint64_t value)
{
    values[va] = value;
    stores++;
}

void data_checker::forget_value(uint64_t va) { values.erase(va); }

uint64_t data_checker::expected_slow(uint64_t va)
{
    auto ex = values.find(va);
    return ex != values.end() ? ex->second : expected_pattern(va);
}

bool data_checker::report_mismatch(uint64_t va, uint64_t value, uint64_t want)
{
    if (mismatches++ == 0) {
        char buf[160];
        snprintf(buf, sizeof buf, "VA 0x%" PRIx64 " read 0x%016" PRIx64 ", expected 0x%016" PRIx64,
                 va, value, want);
        first_mismatch = buf;
    }
    return false;
}

} // namespace gmmu
