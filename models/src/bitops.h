/* gmmu — bit helpers shared by the model sources (private to models/src). */
#ifndef GMMU_BITOPS_H
#define GMMU_BITOPS_H

#include <stdint.h>

/* Index of the lowest set bit of m (m != 0). */
static inline uint32_t ctz64(uint64_t m)
{
#if defined(__GNUC__)
    return (uint32_t)__builtin_ctzll(m);
#else
    uint32_t n = 0;
    while (!(m & 1)) {
        m >>= 1;
        n++;
    }
    return n;
#endif
}

#endif
