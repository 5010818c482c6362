#include "gmmu/components/warp_source.h"

#include <cinttypes>
#include <cstdio>

namespace gmmu {

data_checker::page_bits *data_checker::bits_for(uint64_t vpn, bool create)
{
    if (vpn == last_vpn)
        return last;
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

void data_checker::stored(uint64_t va)
{
    if (!values.empty())
        values.erase(va);
    page_bits *b = bits_for(va >> 12, true);
    unsigned word = (va >> 3) & 511;
    b->w[word >> 6] |= 1ull << (word & 63);
    stores++;
}

bool data_checker::check(uint64_t va, uint64_t value)
{
    checked++;
    uint64_t want;
    auto ex = values.empty() ? values.end() : values.find(va);
    if (ex != values.end()) {
        want = ex->second;
    } else {
        page_bits *b = bits_for(va >> 12, false);
        unsigned word = (va >> 3) & 511;
        bool was_written = b && (b->w[word >> 6] >> (word & 63)) & 1;
        want = was_written ? pattern(va) : 0;
    }
    if (value == want)
        return true;
    if (mismatches++ == 0) {
        char buf[160];
        snprintf(buf, sizeof buf, "VA 0x%" PRIx64 " read 0x%016" PRIx64 ", expected 0x%016" PRIx64,
                 va, value, want);
        first_mismatch = buf;
    }
    return false;
}

} // namespace gmmu
