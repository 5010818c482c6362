/* gmmu — what the input generators share (kernel_inputs.c, the table and
 * the small generators; kernel_inputs_mummer.c, MUMmerGPU's suffix tree):
 * the layout a generator gives for its arguments, and the splitmix64
 * streams every generator draws from. Not a public header. */
#ifndef GMMU_KERNEL_INPUTS_INTERNAL_H
#define GMMU_KERNEL_INPUTS_INTERNAL_H

#include "gmmu/kernel_inputs.h"
#include "gmmu/rng.h"

#include <stdint.h>

#define WORD 8ull

/* A generator's regions for its arguments: how many, each one's size in
 * bytes (before the 64 KiB rounding), kind, and what it holds (for the
 * layout check's message). */
typedef struct layout {
    uint32_t n;
    uint64_t bytes[GMMU_KERNEL_MAX_REGIONS];
    gmmu_region_kind kind[GMMU_KERNEL_MAX_REGIONS];
    const char *what[GMMU_KERNEL_MAX_REGIONS];
} layout;

/* A splitmix64 stream: state advances by the golden gamma. */
typedef struct stream {
    uint64_t s;
} stream;

static inline stream stream_of(uint64_t seed, uint64_t salt)
{
    stream st = {gmmu_mix64(seed * GMMU_SPLITMIX64_GAMMA ^ salt)};
    return st;
}

static inline uint64_t next64(stream *st)
{
    st->s += GMMU_SPLITMIX64_GAMMA;
    return gmmu_mix64(st->s);
}

/* Uniform in 0..n-1 (n >= 1): the multiply-shift map of a 64-bit draw. */
static inline uint64_t below(stream *st, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)next64(st) * n) >> 64);
}

/* Uniform double in [0, 1). */
static inline double unit(stream *st) { return (double)(next64(st) >> 11) * 0x1.0p-53; }

/* ---- mummergpu (kernel_inputs_mummer.c) ----------------------------------
 * Arguments, in the table's order: the reference's bases, the reads, their
 * length, the substitution rate per 1000 bases, MUMmerGPU's minimum match
 * length, and the tree depth to which nodes are laid out breadth first. */
enum { MUM_REF, MUM_READS, MUM_READ_LEN, MUM_ERROR_PERMILLE, MUM_MIN_MATCH, MUM_WIDE_DEPTH, MUM_NARGS };

const char *mummer_rule(const uint64_t *a);
void mummer_layout(const uint64_t *a, layout *l);
gmmu_status mummer_fill(const uint64_t *a, uint64_t seed, const gmmu_kernel *k, uint64_t *const *w,
                        gmmu_error *err);

#endif
