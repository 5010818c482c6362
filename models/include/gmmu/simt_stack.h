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

#ifdef __cplusplus
}
#endif
#endif
