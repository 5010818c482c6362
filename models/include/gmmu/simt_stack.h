/* gmmu — per-warp SIMT reconvergence stack (immediate post-dominator).
 *
 * A warp runs the lanes of the stack's top entry from its pc. A branch whose
 * active lanes disagree splits the warp: the top entry waits at the branch's
 * immediate post-dominator (its reconvergence pc) with all the lanes that
 * were active, and one entry per path is pushed, the taken path below the
 * fall-through path, so the fall-through path runs first. An entry whose pc
 * reaches its reconvergence pc is popped; the lanes below it then continue
 * together. A path whose first pc is already the reconvergence pc (a loop's
 * exit edge, an empty else) is not pushed, and a split whose reconvergence
 * pc is the top entry's own does not keep a second waiting entry, so the
 * depth is bounded by the kernel's static branch nesting, not by its trip
 * counts. Exit is pc == ninsns, the post-dominator of every instruction:
 * the stack is empty when the warp is done. Fixed capacity, no allocation. */
#ifndef GMMU_SIMT_STACK_H
#define GMMU_SIMT_STACK_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_SIMT_DEPTH 32u

typedef struct gmmu_simt_entry {
    uint32_t pc;   /* next instruction of these lanes */
    uint32_t rpc;  /* reconvergence pc: popped when pc reaches it */
    uint32_t mask; /* lanes, bit i = lane i */
} gmmu_simt_entry;

typedef struct gmmu_simt_stack {
    uint32_t n;
    gmmu_simt_entry e[GMMU_SIMT_DEPTH]; /* e[n - 1] is the top */
    uint32_t peak;                      /* deepest n seen */
    uint64_t branches, splits, reconverged;
} gmmu_simt_stack;

/* One entry: lanes `mask` at pc 0, reconverging at exit_pc (= ninsns).
 * mask 0 gives an empty (done) stack. */
void gmmu_simt_reset(gmmu_simt_stack *s, uint32_t mask, uint32_t exit_pc);
static inline bool gmmu_simt_done(const gmmu_simt_stack *s) { return s->n == 0; }
/* The top entry's pc and lanes (undefined when done). */
static inline uint32_t gmmu_simt_pc(const gmmu_simt_stack *s) { return s->e[s->n - 1].pc; }
static inline uint32_t gmmu_simt_mask(const gmmu_simt_stack *s) { return s->e[s->n - 1].mask; }
/* A non-branch instruction issued: pc + 1, then pop what reconverged. */
gmmu_status gmmu_simt_step(gmmu_simt_stack *s);
/* A branch issued at the top's pc: `taken` (a subset of the active lanes)
 * go to target, the rest to pc + 1; they reconverge at rpc, the branch's
 * immediate post-dominator. GMMU_EINVAL if taken has inactive lanes or the
 * stack is empty; GMMU_ENOMEM if it would exceed GMMU_SIMT_DEPTH (nothing
 * changes then). */
gmmu_status gmmu_simt_branch(gmmu_simt_stack *s, uint32_t taken, uint32_t target, uint32_t rpc);

/* The divergence rule, one copy for this per-warp stack and the block-wide
 * stack of thread-block compaction (gmmu/tbc.h): what a branch at the top
 * entry (its pc, its reconvergence pc top_rpc; n entries) does to the
 * stack, given whether any active thread takes it and whether any falls
 * through, for a target and the branch's reconvergence pc rpc. */
typedef struct gmmu_simt_split {
    bool divergent;   /* threads go both ways */
    uint32_t top_pc;  /* uniform: the top's next pc (target, or pc + 1) */
    /* Divergent: the top waits at rpc with every thread (reuse: it already
     * reconverges at rpc, so the pushed paths replace it instead), the stack
     * is cut to base entries, then the taken path (target) and the
     * fall-through path (pc + 1) are pushed, each unless it starts at rpc
     * (a loop's exit edge, an empty else). depth: the entries then, which
     * the caller refuses (nothing changed) beyond its capacity. */
    bool reuse;
    uint32_t base;
    bool push_taken, push_fall;
    uint32_t fall_pc;
    uint32_t depth;
} gmmu_simt_split;

gmmu_simt_split gmmu_simt_divergence(uint32_t n, uint32_t pc, uint32_t top_rpc, bool any_taken,
                                     bool any_fall, uint32_t target, uint32_t rpc);

#ifdef __cplusplus
}
#endif
#endif
