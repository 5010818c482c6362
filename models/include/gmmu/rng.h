/* gmmu — splitmix64's mixing function, the one copy every model and the
 * platform use (hashes of keys, the platform's store-data pattern, the
 * kernels' input values and SFU operation).
 *
 * splitmix64 (Steele, Lea and Flood, OOPSLA 2014; Vigna's constants): the
 * generator's state advances by GMMU_SPLITMIX64_GAMMA and each output is
 * gmmu_mix64(state), so gmmu_mix64(k * GAMMA) is the k-th output from seed
 * 0 (0xE220A8397B1DCDAF for k = 1). */
#ifndef GMMU_RNG_H
#define GMMU_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_SPLITMIX64_GAMMA 0x9E3779B97F4A7C15ull

/* The splitmix64 finaliser: a bijection of 64-bit words whose every output
 * bit depends on every input bit. */
static inline uint64_t gmmu_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

#ifdef __cplusplus
}
#endif
#endif
