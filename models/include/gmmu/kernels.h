/* gmmu — a small synthetic warp ISA and the synthetic kernels that exercise
 * the SM issue model (tanasic-micro17 §3).
 *
 * Registers are 64-bit, one value per lane (32 lanes per warp). At block
 * start every thread has r0 = global thread id, r1 = block id, r2 = warp
 * index within the block, r3 = lane; all other registers are 0.
 *
 * Global memory is byte addressed (virtual addresses); every access is one
 * naturally aligned 64-bit word ((a + imm) & ~7). A word that was never
 * written reads as gmmu_kernel_input_value(va) — the "host-initialised"
 * content of the kernel's input regions — so callers need no set-up pass.
 * Kernels are race-free by construction: no two threads write the same word,
 * except through GMMU_OP_RED (commutative add) or with the same value, and no
 * thread reads a word another thread writes. Their final memory is therefore independent of timing,
 * which is what lets tests compare a run with faults against a fault-free one.
 *
 * Control flow: GMMU_OP_BRNZ sends the lanes whose source is non-zero to
 * the target and the others to the next instruction; GMMU_OP_JMP sends all.
 * A target is an instruction index, or ninsns (exit). Lanes that diverge
 * reconverge at the branch's immediate post-dominator
 * (gmmu_kernel_ipdom, gmmu/simt_stack.h). Every instruction must be able to
 * reach the exit.
 *
 * Shared memory (GMMU_OP_LDS/STS) is a per-block array of shared_bytes,
 * zero at block start, addressed by byte offset (word aligned as global
 * memory). GMMU_OP_BAR is the block barrier (__syncthreads): a warp waits
 * there until every warp of its block that has not exited reaches a
 * barrier. Between two barriers the race-freedom rule holds for shared
 * memory too: no thread reads a shared word another thread writes, and no
 * two threads write one shared word. A warp must reach a barrier converged
 * (all its lanes active); docs/simt.md, "Barriers". */
#ifndef GMMU_KERNELS_H
#define GMMU_KERNELS_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_ISA_LANES 32u
#define GMMU_ISA_MAX_REGS 255u
#define GMMU_KERNEL_MAX_INSNS 4096u
#define GMMU_KERNEL_MAX_REGIONS 8u

typedef enum gmmu_op {
    GMMU_OP_MOVI = 0, /* d = imm */
    GMMU_OP_ADD,      /* d = a + b */
    GMMU_OP_ADDI,     /* d = a + imm */
    GMMU_OP_MUL,      /* d = a * b */
    GMMU_OP_MAD,      /* d = a * b + c */
    GMMU_OP_XOR,      /* d = a ^ b */
    GMMU_OP_SHLI,     /* d = a << (imm & 63) */
    GMMU_OP_SHRI,     /* d = a >> (imm & 63) */
    GMMU_OP_ANDI,     /* d = a & imm */
    GMMU_OP_SFU,      /* d = mix64(a + imm), on the special-function unit */
    GMMU_OP_LD,       /* d = mem[(a + imm) & ~7]          global load  */
    GMMU_OP_ST,       /* mem[(a + imm) & ~7] = b          global store */
    GMMU_OP_RED,      /* mem[(a + imm) & ~7] += b         global reduction (no result) */
    GMMU_OP_SLTU,     /* d = a < b (unsigned) ? 1 : 0 */
    GMMU_OP_BRNZ,     /* lanes with a != 0 go to imm, the others fall through (no result) */
    GMMU_OP_JMP,      /* all active lanes go to imm (no result) */
    GMMU_OP_LDS,      /* d = shared[(a + imm) & ~7]       shared load: never translated */
    GMMU_OP_STS,      /* shared[(a + imm) & ~7] = b       shared store (no result) */
    GMMU_OP_BAR,      /* block barrier: wait for every non-exited warp of the block
                         (docs/simt.md, "Barriers"); no operands, no result */
    GMMU_OP_COUNT
} gmmu_op;

typedef enum gmmu_unit {
    GMMU_UNIT_MATH = 0,
    GMMU_UNIT_SFU = 1,
    GMMU_UNIT_LDST = 2,
    GMMU_UNIT_COUNT
} gmmu_unit;

typedef struct gmmu_insn {
    uint8_t op;     /* gmmu_op */
    uint8_t dst;    /* destination register (ignored by ST/RED) */
    uint8_t src[3]; /* source registers, gmmu_op_nsrc(op) of them used */
    int64_t imm;
} gmmu_insn;

unsigned gmmu_op_nsrc(gmmu_op op);
bool gmmu_op_has_dst(gmmu_op op);
/* Global memory instructions: the only ones that translate and can fault. */
bool gmmu_op_is_global(gmmu_op op);
/* Operand-log entries a global memory instruction needs: LD 1 (address),
 * ST/RED 2 (address, data). 0 for the rest. */
unsigned gmmu_op_log_entries(gmmu_op op);
/* BRNZ and JMP: resolved at issue, they take a math slot and write nothing. */
bool gmmu_op_is_branch(gmmu_op op);
/* LDS and STS: per-block shared memory, bytes 0..shared_bytes-1 of the
 * block's own array (zero at block start). They take an ld/st slot but
 * never translate, fault or reach the memory system. */
bool gmmu_op_is_shared(gmmu_op op);
gmmu_unit gmmu_op_unit(gmmu_op op);
/* Result of a non-memory instruction for one lane. */
uint64_t gmmu_op_alu(const gmmu_insn *in, uint64_t a, uint64_t b, uint64_t c);
/* The value of a never-written memory word. */
uint64_t gmmu_kernel_input_value(uint64_t va);

typedef enum gmmu_region_kind {
    GMMU_REGION_INPUT = 0, /* initialised by the host: on demand paging, a fault migrates it */
    GMMU_REGION_OUTPUT = 1 /* written by the kernel only: a fault is a first touch */
} gmmu_region_kind;

typedef struct gmmu_region {
    uint64_t base;  /* virtual address, 64 KiB aligned */
    uint64_t bytes;
    gmmu_region_kind kind;
} gmmu_region;

/* The kernel's input generator (gmmu/kernel_inputs.h): its index + 1 (0:
 * none, every input word is gmmu_kernel_input_value) and its arguments in
 * the generator's order, defaults filled in. */
#define GMMU_INPUTS_MAX_ARGS 6u
typedef struct gmmu_kernel_inputs {
    uint32_t gen;
    uint32_t line; /* the `inputs` line of a kernel file (0: none or built in) */
    uint64_t arg[GMMU_INPUTS_MAX_ARGS];
} gmmu_kernel_inputs;

typedef struct gmmu_kernel {
    char name[32];
    uint32_t ninsns;
    uint32_t nregs;           /* 64-bit registers per thread (8 B x 32 lanes per warp each) */
    uint32_t warps_per_block;
    uint32_t shared_bytes;    /* shared memory per block: occupancy, context size, and the
                                 array LDS/STS address (byte offsets 0..shared_bytes-1) */
    uint32_t grid_blocks;
    uint32_t nregions;
    gmmu_region region[GMMU_KERNEL_MAX_REGIONS];
    gmmu_kernel_inputs inputs;
    gmmu_insn code[GMMU_KERNEL_MAX_INSNS];
} gmmu_kernel;

typedef struct gmmu_kernel_params {
    uint32_t grid_blocks; /* 0: the kernel's default */
    uint32_t iters;       /* 0: the kernel's default (loop trip count before unrolling) */
} gmmu_kernel_params;

/* Names accepted by gmmu_kernel_build: "lbm-like", "sgemm-like",
 * "stencil-like", "histo-like", "spmv-like", "mriq-like", "tiny" (straight-line
 * code), and "bfs-like", "mummer-like", "memcached-like" (data-dependent
 * branches: their warps diverge). iters: the loop trip count before unrolling;
 * for bfs-like the maximum degree, for mummer-like the tree depth (at most
 * 24); memcached-like ignores it. */
unsigned gmmu_kernel_count(void);
const char *gmmu_kernel_name(unsigned i);
gmmu_status gmmu_kernel_build(gmmu_kernel *k, const char *name, const gmmu_kernel_params *p,
                              gmmu_error *err);
/* Validate a (possibly hand-written) kernel: opcodes, register indices,
 * branch targets (0..ninsns), every instruction able to reach the exit.
 * Errors name the kernel and the instruction index. */
gmmu_status gmmu_kernel_check(const gmmu_kernel *k, gmmu_error *err);
/* Immediate post-dominator of every instruction (ninsns = the exit) into
 * ipdom[0..ninsns-1]: the first instruction every path from it to the exit
 * passes through. Allocates working memory; GMMU_EINVAL (naming the
 * instruction) for a target out of range or an instruction that cannot
 * reach the exit, GMMU_ENOMEM. */
gmmu_status gmmu_kernel_ipdom(const gmmu_kernel *k, uint32_t *ipdom, gmmu_error *err);
/* Parse a kernel file's text (docs/simt.md, "Kernel files"): header lines
 * (kernel NAME, regs N, warps_per_block N, grid N, shared N, region
 * input|output BYTES), then `code` and one instruction per line, with
 * labels. Errors: field "kernel.text", message "line N: ..."; then
 * gmmu_kernel_check's (which name the instruction index). */
gmmu_status gmmu_kernel_parse(gmmu_kernel *k, const char *text, size_t len, gmmu_error *err);
/* The same, and, if insn_line is not NULL, the file line of each
 * instruction into insn_line[0..ninsns-1] (GMMU_KERNEL_MAX_INSNS entries),
 * so that a later error can name FILE:LINE. Each header line but `region`
 * may appear once; regs, warps_per_block and grid are 1..1048576 (left out:
 * 16, 1, 1). */
gmmu_status gmmu_kernel_parse_lines(gmmu_kernel *k, const char *text, size_t len, uint32_t *insn_line,
                                    gmmu_error *err);
/* An opcode's mnemonic in kernel files ("ld"), or "?". */
const char *gmmu_kernel_op_name(gmmu_op op);
/* The reference interpreter (models/src/kernel_ref.c): block `block` of k,
 * one thread at a time with its own pc (no warps, no stack), phase by phase:
 * every thread that has not exited runs to its next BAR or the exit, then
 * the next phase starts. regs: warps_per_block x nregs x 32 words
 * ([warp][reg][lane]), set up here as at block start and left final.
 * word(ctx, va, write): the global word at va (8-aligned; write: ST or RED
 * will change it), NULL outside the
 * kernel's regions. max_steps: per thread. GMMU_EINVAL with *why filled
 * and a message naming the instruction for: a global access outside the
 * regions, a shared access outside 0..shared_bytes-1, a shared race between
 * two barriers, a BAR in divergent code (a warp whose lanes are not all at
 * the same BAR or all exited; or, for a kernel with a BAR, a warp that the
 * SIMT stack, replaying its lanes' branch outcomes, brings to a BAR with
 * only some lanes active), a thread past max_steps. */
typedef enum gmmu_kernel_ref_kind {
    GMMU_REF_GLOBAL_OUTSIDE = 1,
    GMMU_REF_SHARED_OUTSIDE,
    GMMU_REF_SHARED_RACE,
    GMMU_REF_BAR_DIVERGENT,
    GMMU_REF_RUNAWAY
} gmmu_kernel_ref_kind;
typedef struct gmmu_kernel_ref_stop {
    gmmu_kernel_ref_kind kind;
    uint32_t pc; /* the instruction */
    uint64_t va; /* global VA or shared offset, where one applies */
} gmmu_kernel_ref_stop;
gmmu_status gmmu_kernel_ref_block(const gmmu_kernel *k, uint32_t block, uint64_t *regs,
                                  uint64_t *(*word)(void *ctx, uint64_t va, bool write), void *ctx,
                                  uint64_t max_steps, gmmu_kernel_ref_stop *why, gmmu_error *err);
/* ---- programs: kernels and the host loop that launches them -------------
 * A kernel file may hold several code sections (`code NAME`), which share
 * its header (regions, inputs, geometry), and a host loop (docs/kernels.md):
 *   launch NAME...            one iteration: these sections, in order, each a
 *                             launch of the whole grid after the previous one
 *                             has finished on every SM
 *   repeat_while @R+OFF MAX   the host writes 0 to that word before each
 *                             iteration and runs another while a kernel has
 *                             set it (Rodinia bfs's stop flag), at most MAX
 * A file with one `code` section and no launch line is one launch. */
#define GMMU_PROGRAM_MAX_KERNELS 4u
#define GMMU_PROGRAM_MAX_STEPS 6u
typedef struct gmmu_program {
    char name[32];         /* the file's `kernel NAME` */
    uint32_t nkernels;
    gmmu_kernel *kernel;   /* nkernels kernels (gmmu_program_free) */
    uint32_t *insn_line;   /* kernel i's instruction lines at [i * GMMU_KERNEL_MAX_INSNS] */
    uint32_t nsteps;
    uint8_t step[GMMU_PROGRAM_MAX_STEPS]; /* one iteration's kernels, in launch order */
    uint64_t while_va;     /* 0: one iteration */
    uint32_t max_iters;
    uint32_t launch_line, while_line; /* their lines (0: none) */
} gmmu_program;
/* Parse a kernel file into p (allocates; gmmu_program_free). Errors as
 * gmmu_kernel_parse_lines's, with the file's line numbers. */
gmmu_status gmmu_program_parse(gmmu_program *p, const char *text, size_t len, gmmu_error *err);
void gmmu_program_free(gmmu_program *p);
/* workload.grid_blocks = blocks (0: leave the grids): a kernel's grid; in a
 * program of several kernels, a window of each launch (its first `blocks`
 * blocks; a kernel of a smaller grid keeps its own, docs/kernels.md). */
void gmmu_program_window(gmmu_program *p, uint32_t blocks);
/* The host loop's decisions. start: the first launch is kernel
 * p->step[c->step]; *clear_va the word to clear first (0: none). advance,
 * after a launch has finished everywhere: word is the while word's value
 * now (any value without one); c moves to the next launch or c->done;
 * *clear_va is set when a new iteration starts. A runaway loop (MAX
 * iterations ran and the word is still set): GMMU_EINVAL, field "program". */
typedef struct gmmu_program_cursor {
    uint32_t iter, step;
    bool done;
} gmmu_program_cursor;
void gmmu_program_start(const gmmu_program *p, gmmu_program_cursor *c, uint64_t *clear_va);
gmmu_status gmmu_program_advance(const gmmu_program *p, gmmu_program_cursor *c, uint64_t word,
                                 uint64_t *clear_va, gmmu_error *err);

/* Region index holding va, or -1. */
int gmmu_kernel_region_of(const gmmu_kernel *k, uint64_t va);

#ifdef __cplusplus
}
#endif
#endif
