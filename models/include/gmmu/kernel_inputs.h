/* gmmu — input generators: the initial content of a kernel's input regions,
 * made as the benchmark's own input generator makes it (docs/kernels.md).
 *
 * A kernel names one in its `inputs` line (gmmu_kernel.inputs): the
 * generator, then up to GMMU_INPUTS_MAX_ARGS key=value arguments. The
 * generator owns the layout of the kernel's regions: how many there are,
 * which are input and output, and each one's size from the arguments.
 * gmmu_kernel_inputs_check compares the kernel's regions with that layout
 * before anything runs; gmmu_kernel_inputs_fill writes the input regions.
 * A kernel without an `inputs` line keeps the hashed words of
 * gmmu_kernel_input_value.
 *
 * Every generator is deterministic in (arguments, seed): seed 1 is the
 * default data set; another seed draws another one from the same
 * distributions. */
#ifndef GMMU_KERNEL_INPUTS_H
#define GMMU_KERNEL_INPUTS_H

#include "gmmu/kernels.h"
#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Generators, by name: "kmeans", "streamcluster", "memcached",
 * "pathfinder", "bfs", "hotspot", "backprop", "mummergpu", "lud"
 * (docs/kernels.md lists their arguments and layouts). */
unsigned gmmu_inputs_count(void);
const char *gmmu_inputs_name(unsigned i);
/* Generator i takes far longer to generate its inputs than to read them
 * back (mummergpu's suffix tree: ~13 s against ~1 s to read 1.1 GiB back;
 * streamcluster's and memcached's 1.1-1.2 GiB: 3.5-5 s): a run may keep
 * its inputs for the next (GMMU_INPUTS_CACHE). */
bool gmmu_inputs_slow(unsigned i);

/* Set k->inputs from an `inputs` line's tokens: the generator's name, then
 * key=value arguments (a value is decimal or 0x hex). Unknown generator,
 * unknown or repeated key, value out of the key's range: GMMU_EINVAL with
 * field "kernel.inputs" and a message naming the key. Keys left out take
 * their defaults. */
gmmu_status gmmu_kernel_inputs_set(gmmu_kernel *k, const char *const *tok, unsigned ntok,
                                   gmmu_error *err);

/* The value of argument key of k's generator (its default when the line
 * left it out); 0 for an unknown key or no generator. */
uint64_t gmmu_kernel_inputs_arg(const gmmu_kernel *k, const char *key);

/* Check k's regions against its generator's layout: the number of regions,
 * each one's kind, and each one's size (the layout's bytes rounded up to
 * 64 KiB, as the regions are). GMMU_OK for a kernel without a generator.
 * The message names the region, what it holds and the size it needs. */
gmmu_status gmmu_kernel_inputs_check(const gmmu_kernel *k, gmmu_error *err);

/* Write the input regions of k: words[r] holds region r's bytes / 8 words
 * (zero on entry; output regions are left as they are). Pointers the data
 * holds are virtual addresses in k's regions. Calls
 * gmmu_kernel_inputs_check first. Allocates working memory (GMMU_ENOMEM). */
gmmu_status gmmu_kernel_inputs_fill(const gmmu_kernel *k, uint64_t seed, uint64_t *const *words,
                                    gmmu_error *err);

/* Zipf sampling (Gray et al., SIGMOD 1994, as YCSB draws it): ranks
 * 0..n-1, rank r with probability proportional to 1 / (r + 1)^theta,
 * theta in (0, 1). gmmu_zipf_init is O(n) (the generalised harmonic
 * number); each draw takes a uniform u in [0, 1) and is O(1). */
typedef struct gmmu_zipf {
    uint64_t n;
    double theta, alpha, zetan, eta, half_pow;
} gmmu_zipf;
gmmu_status gmmu_zipf_init(gmmu_zipf *z, uint64_t n, double theta, gmmu_error *err);
uint64_t gmmu_zipf_draw(const gmmu_zipf *z, double u);

#ifdef __cplusplus
}
#endif
#endif
