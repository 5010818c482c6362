#include "gmmu/kernels.h"

#include <string.h>

/* ---- ISA ----------------------------------------------------------------- */

unsigned gmmu_op_nsrc(gmmu_op op)
{
    switch (op) {
    case GMMU_OP_MOVI: return 0;
    case GMMU_OP_ADDI:
    case GMMU_OP_SHLI:
    case GMMU_OP_SHRI:
    case GMMU_OP_ANDI:
    case GMMU_OP_SFU:
    case GMMU_OP_LD: return 1;
    case GMMU_OP_ADD:
    case GMMU_OP_MUL:
    case GMMU_OP_XOR:
    case GMMU_OP_ST:
    case GMMU_OP_RED: return 2;
    case GMMU_OP_MAD: return 3;
    case GMMU_OP_COUNT: break;
    }
    return 0;
}

bool gmmu_op_has_dst(gmmu_op op) { return op != GMMU_OP_ST && op != GMMU_OP_RED && op < GMMU_OP_COUNT; }

bool gmmu_op_is_global(gmmu_op op) { return op == GMMU_OP_LD || op == GMMU_OP_ST || op == GMMU_OP_RED; }

unsigned gmmu_op_log_entries(gmmu_op op)
{
    if (op == GMMU_OP_LD)
        return 1;
    if (op == GMMU_OP_ST || op == GMMU_OP_RED)
        return 2;
    return 0;
}

gmmu_unit gmmu_op_unit(gmmu_op op)
{
    if (gmmu_op_is_global(op))
        return GMMU_UNIT_LDST;
    if (op == GMMU_OP_SFU)
        return GMMU_UNIT_SFU;
    return GMMU_UNIT_MATH;
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x;
}

uint64_t gmmu_op_alu(const gmmu_insn *in, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t imm = (uint64_t)in->imm;
    switch ((gmmu_op)in->op) {
    case GMMU_OP_MOVI: return imm;
    case GMMU_OP_ADD: return a + b;
    case GMMU_OP_ADDI: return a + imm;
    case GMMU_OP_MUL: return a * b;
    case GMMU_OP_MAD: return a * b + c;
    case GMMU_OP_XOR: return a ^ b;
    case GMMU_OP_SHLI: return a << (imm & 63u);
    case GMMU_OP_SHRI: return a >> (imm & 63u);
    case GMMU_OP_ANDI: return a & imm;
    case GMMU_OP_SFU: return mix64(a + imm);
    default: return 0;
    }
}

uint64_t gmmu_kernel_input_value(uint64_t va) { return mix64((va & ~7ull) ^ 0x5EED5EED12345678ull); }

/* ---- builders ------------------------------------------------------------ */

#define REGION_BASE 0x100000000000ull
#define REGION_STRIDE 0x10000000ull /* 256 MiB between regions */

typedef struct emitter {
    gmmu_kernel *k;
    bool overflow;
} emitter;

static void emit(emitter *e, gmmu_op op, unsigned d, unsigned a, unsigned b, unsigned c, int64_t imm)
{
    if (e->k->ninsns >= GMMU_KERNEL_MAX_INSNS) {
        e->overflow = true;
        return;
    }
    gmmu_insn *in = &e->k->code[e->k->ninsns++];
    in->op = (uint8_t)op;
    in->dst = (uint8_t)d;
    in->src[0] = (uint8_t)a;
    in->src[1] = (uint8_t)b;
    in->src[2] = (uint8_t)c;
    in->imm = imm;
}

#define E0(op, d, imm) emit(e, op, d, 0, 0, 0, imm)
#define E1(op, d, a, imm) emit(e, op, d, a, 0, 0, imm)
#define E2(op, d, a, b) emit(e, op, d, a, b, 0, 0)
#define E3(op, d, a, b, c) emit(e, op, d, a, b, c, 0)
#define LD(d, a, imm) emit(e, GMMU_OP_LD, d, a, 0, 0, imm)
#define ST(a, b, imm) emit(e, GMMU_OP_ST, 0, a, b, 0, imm)
#define RED(a, b, imm) emit(e, GMMU_OP_RED, 0, a, b, 0, imm)

static uint64_t round64k(uint64_t b) { return (b + 0xFFFFull) & ~0xFFFFull; }

static uint64_t add_region(gmmu_kernel *k, uint64_t bytes, gmmu_region_kind kind)
{
    gmmu_region *r = &k->region[k->nregions];
    r->base = REGION_BASE + (uint64_t)k->nregions * REGION_STRIDE;
    r->bytes = round64k(bytes);
    r->kind = kind;
    k->nregions++;
    return r->base;
}

static uint64_t nthreads(const gmmu_kernel *k) { return (uint64_t)k->grid_blocks * k->warps_per_block * 32u; }

/* Thread index within its block into register d: r2 * 32 + r3. */
static void tib(emitter *e, unsigned d)
{
    E1(GMMU_OP_SHLI, d, 2, 5);
    E2(GMMU_OP_ADD, d, d, 3);
}

/* A small kernel for tests: a load whose address register is overwritten
 * right after (RAW on replay), a store whose address is, too, and a reduction. */
static void build_tiny(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t stride = nthreads(k) * 8u;
    uint64_t in = add_region(k, stride * iters, GMMU_REGION_INPUT);
    uint64_t out = add_region(k, stride * iters, GMMU_REGION_OUTPUT);
    uint64_t bins = add_region(k, 64 * 8, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)out);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)in);
    E0(GMMU_OP_MOVI, 11, (int64_t)bins);
    for (uint32_t it = 0; it < iters; it++) {
        LD(7, 4, 0);
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)stride); /* overwrites the load's address */
        E2(GMMU_OP_XOR, 9, 7, 1);
        E2(GMMU_OP_ADD, 6, 6, 9);
        ST(5, 9, 0);
        E1(GMMU_OP_ADDI, 5, 5, (int64_t)stride); /* overwrites the store's address */
        E1(GMMU_OP_ANDI, 10, 7, 63 * 8);
        E2(GMMU_OP_ADD, 10, 10, 11);
        RED(10, 3, 0);
        E1(GMMU_OP_ADDI, 9, 9, 1); /* overwrites the store's data */
    }
}

/* sgemm-like: high occupancy (16 blocks x 4 warps), 2-D tiled: block b
 * computes tile (bx, by) = (b % 16, b / 16) from A row-panel by and B
 * column-panel bx, so every panel is reused by 16 or more blocks; 2 FMAs per
 * load, pointers bumped once per 4 loads. */
static void build_sgemm(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t T = k->warps_per_block * 32u;
    const uint64_t K = (uint64_t)iters * 4u;
    const uint64_t GX = 16, GY = (k->grid_blocks + GX - 1) / GX;
    uint64_t A = add_region(k, GY * K * T * 8u, GMMU_REGION_INPUT);
    uint64_t B = add_region(k, GX * K * 256u, GMMU_REGION_INPUT);
    uint64_t C = add_region(k, nthreads(k) * 8u, GMMU_REGION_OUTPUT);
    tib(e, 14);
    E1(GMMU_OP_SHLI, 14, 14, 3);
    E0(GMMU_OP_MOVI, 15, (int64_t)(K * T * 8u));
    E1(GMMU_OP_SHRI, 4, 1, 4);         /* by */
    E2(GMMU_OP_MUL, 4, 4, 15);
    E2(GMMU_OP_ADD, 4, 4, 14);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)A);
    E0(GMMU_OP_MOVI, 15, (int64_t)(K * 256u));
    E1(GMMU_OP_ANDI, 5, 1, (int64_t)(GX - 1)); /* bx */
    E2(GMMU_OP_MUL, 5, 5, 15);
    E1(GMMU_OP_SHLI, 15, 3, 3);
    E2(GMMU_OP_ADD, 5, 5, 15);
    E1(GMMU_OP_ADDI, 5, 5, (int64_t)B);
    for (uint32_t it = 0; it < iters; it++) {
        LD(10, 4, 0);
        LD(11, 4, (int64_t)(T * 8u));
        LD(12, 5, 0);
        LD(13, 5, 256);
        E3(GMMU_OP_MAD, 6, 10, 12, 6);
        E3(GMMU_OP_MAD, 7, 10, 13, 7);
        E3(GMMU_OP_MAD, 8, 11, 12, 8);
        E3(GMMU_OP_MAD, 9, 11, 13, 9);
        LD(10, 4, (int64_t)(2u * T * 8u));
        LD(11, 4, (int64_t)(3u * T * 8u));
        LD(12, 5, 512);
        LD(13, 5, 768);
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)(4u * T * 8u));
        E1(GMMU_OP_ADDI, 5, 5, 1024);
        E3(GMMU_OP_MAD, 6, 10, 12, 6);
        E3(GMMU_OP_MAD, 7, 10, 13, 7);
        E3(GMMU_OP_MAD, 8, 11, 12, 8);
        E3(GMMU_OP_MAD, 9, 11, 13, 9);
        E3(GMMU_OP_MAD, 6, 6, 7, 8);
        E3(GMMU_OP_MAD, 9, 9, 8, 7);
    }
    E2(GMMU_OP_XOR, 6, 6, 7);
    E2(GMMU_OP_XOR, 8, 8, 9);
    E2(GMMU_OP_ADD, 6, 6, 8);
    E1(GMMU_OP_SHLI, 14, 0, 3);
    E1(GMMU_OP_ADDI, 14, 14, (int64_t)C);
    ST(14, 6, 0);
}

/* stencil-like: 7-point stencil sweeping z-planes; one block per row, a
 * pointer bumped by a plane per iteration (every plane is other pages). */
static void build_stencil(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t T = k->warps_per_block * 32u;
    const uint64_t ROW = T * 8u;
    const uint64_t PLANE = ((uint64_t)k->grid_blocks + 2u) * ROW;
    const uint64_t OPLANE = (uint64_t)k->grid_blocks * ROW;
    uint64_t in = add_region(k, PLANE * (iters + 2u), GMMU_REGION_INPUT);
    uint64_t out = add_region(k, OPLANE * iters, GMMU_REGION_OUTPUT);
    tib(e, 14);
    E1(GMMU_OP_SHLI, 14, 14, 3);
    E0(GMMU_OP_MOVI, 15, (int64_t)ROW);
    E2(GMMU_OP_MUL, 15, 1, 15);        /* block * ROW */
    E2(GMMU_OP_ADD, 5, 15, 14);        /* out offset */
    E1(GMMU_OP_ADDI, 5, 5, (int64_t)out);
    E2(GMMU_OP_ADD, 4, 15, 14);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)(in + PLANE + ROW));
    E0(GMMU_OP_MOVI, 20, 3);
    E0(GMMU_OP_MOVI, 21, 5);
    for (uint32_t it = 0; it < iters; it++) {
        LD(8, 4, 0);
        LD(9, 4, -(int64_t)ROW);
        LD(10, 4, (int64_t)ROW);
        LD(11, 4, -(int64_t)PLANE);
        LD(12, 4, (int64_t)PLANE);
        LD(16, 4, -8);
        LD(17, 4, 8);
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)PLANE);
        E3(GMMU_OP_MAD, 13, 8, 20, 9);
        E2(GMMU_OP_ADD, 18, 10, 11);
        E2(GMMU_OP_ADD, 19, 12, 16);
        E3(GMMU_OP_MAD, 18, 17, 21, 18);
        E2(GMMU_OP_ADD, 13, 13, 19);
        E2(GMMU_OP_ADD, 13, 13, 18);
        E2(GMMU_OP_XOR, 13, 13, 1);
        ST(5, 13, 0);
        E1(GMMU_OP_ADDI, 5, 5, (int64_t)OPLANE);
    }
}

/* histo-like: grid-stride input stream, a hash per element, scattered
 * reductions into 2048 bins (divergent: ~30 lines per warp instruction). */
static void build_histo(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t S = nthreads(k) * 8u;
    uint64_t in = add_region(k, S * iters, GMMU_REGION_INPUT);
    uint64_t bins = add_region(k, 2048u * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)in);
    E0(GMMU_OP_MOVI, 7, (int64_t)bins);
    E0(GMMU_OP_MOVI, 8, 1);
    for (uint32_t it = 0; it < iters; it++) {
        LD(5, 4, 0);
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)S);
        E1(GMMU_OP_SFU, 6, 5, 0);
        E2(GMMU_OP_XOR, 9, 6, 5);
        E1(GMMU_OP_SHRI, 9, 9, 7);
        E1(GMMU_OP_ANDI, 6, 9, 2047 * 8);
        E2(GMMU_OP_ADD, 6, 6, 7);
        RED(6, 8, 0);
        E2(GMMU_OP_ADD, 10, 10, 5);
    }
    E1(GMMU_OP_ANDI, 10, 10, 1023);
    E1(GMMU_OP_SHLI, 10, 10, 3);
    E2(GMMU_OP_ADD, 10, 10, 7);
    RED(10, 8, 0);
}

/* spmv-like (ELL): per row, nnz iterations of {column, value} loads and a
 * gather of x[col] with block-local column clustering. */
static void build_spmv(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t S = nthreads(k) * 8u;
    const uint64_t NX = 1u << 17; /* 1 MiB x vector */
    uint64_t col = add_region(k, S * iters, GMMU_REGION_INPUT);
    uint64_t val = add_region(k, S * iters, GMMU_REGION_INPUT);
    uint64_t x = add_region(k, NX * 8u, GMMU_REGION_INPUT);
    uint64_t y = add_region(k, S, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)val);
    E1(GMMU_OP_ADDI, 12, 4, (int64_t)y);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)col);
    E0(GMMU_OP_MOVI, 9, (int64_t)x);
    E1(GMMU_OP_SHLI, 11, 1, 9); /* block * 512: the block's column window */
    for (uint32_t it = 0; it < iters; it++) {
        LD(6, 4, 0);
        LD(7, 5, 0);
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)S);
        E1(GMMU_OP_ADDI, 5, 5, (int64_t)S);
        E1(GMMU_OP_ANDI, 6, 6, 2047);
        E2(GMMU_OP_ADD, 6, 6, 11);
        E1(GMMU_OP_ANDI, 6, 6, (int64_t)(NX - 1u));
        E1(GMMU_OP_SHLI, 6, 6, 3);
        E2(GMMU_OP_ADD, 6, 6, 9);
        LD(8, 6, 0);
        E3(GMMU_OP_MAD, 10, 7, 8, 10);
    }
    ST(12, 10, 0);
}

/* lbm-like: register-heavy (128 registers: 2 blocks of 4 warps = 8 warps
 * per SM). Distribution-major lattice (one array per distribution, as in
 * Parboil's CUDA lbm, padded as Parboil pads its lattice): per cell 19
 * loads from 19 arrays, each address
 * materialised in one of 4 rotating temporaries (register pressure), a
 * collision step of ~40 ALU operations that updates the distributions in
 * place (the registers the loads filled hold the results), and 19 stores of
 * those registers; the next cell's loads overwrite the same registers. */
static void build_lbm(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const unsigned Q = 19;
    const uint64_t S = nthreads(k) * 8u;
    /* Parboil pads its 120x120x150 lattice to 128x120x154 cells, so one
     * distribution array is not a power-of-two number of pages (2310 pages
     * of floats) and the 19 arrays' same-index pages spread over the TLB
     * sets. Pad ours by the same ratio, rounded up to a page. */
    const uint64_t ARR = ((S * iters * 2365440u / 2160000u) + 4095u) & ~4095ull;
    uint64_t src = add_region(k, ARR * Q, GMMU_REGION_INPUT);
    uint64_t dst = add_region(k, ARR * Q, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)dst);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)src);
    E0(GMMU_OP_MOVI, 6, 7);
    for (uint32_t it = 0; it < iters; it++) {
        for (unsigned q = 0; q < Q; q++) {
            E1(GMMU_OP_ADDI, 29 + q % 4, 4, (int64_t)(q * ARR));
            LD(8 + q, 29 + q % 4, 0);
        }
        E1(GMMU_OP_ADDI, 4, 4, (int64_t)S);
        E2(GMMU_OP_ADD, 27, 8, 9);
        for (unsigned q = 2; q < Q; q++)
            E2(GMMU_OP_ADD, 27, 27, 8 + q);
        E1(GMMU_OP_SHRI, 28, 27, 3);
        for (unsigned q = 0; q < Q; q++)
            E3(GMMU_OP_MAD, 8 + q, 8 + q, 6, 28);
        for (unsigned q = 0; q < Q; q++) {
            E1(GMMU_OP_ADDI, 29 + q % 4, 5, (int64_t)(q * ARR));
            ST(29 + q % 4, 8 + q, 0);
        }
        E1(GMMU_OP_ADDI, 5, 5, (int64_t)S);
    }
}

/* mriq-like: compute bound, high occupancy; per iteration one broadcast
 * load of a k-space sample and ~10 SFU/FMA operations with ILP 2. */
static void build_mriq(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    uint64_t kspace = add_region(k, (uint64_t)iters * 16u, GMMU_REGION_INPUT);
    uint64_t xin = add_region(k, nthreads(k) * 8u, GMMU_REGION_INPUT);
    uint64_t out = add_region(k, nthreads(k) * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)xin);
    LD(6, 5, 0);
    E0(GMMU_OP_MOVI, 7, (int64_t)kspace);
    for (uint32_t it = 0; it < iters; it++) {
        LD(8, 7, (int64_t)it * 16);
        LD(9, 7, (int64_t)it * 16 + 8);
        E3(GMMU_OP_MAD, 10, 8, 6, 9);
        E3(GMMU_OP_MAD, 11, 9, 6, 8);
        E1(GMMU_OP_SFU, 12, 10, 1);
        E1(GMMU_OP_SFU, 13, 11, 2);
        E3(GMMU_OP_MAD, 14, 12, 8, 14);
        E3(GMMU_OP_MAD, 15, 13, 9, 15);
        E2(GMMU_OP_XOR, 10, 14, 15);
        E3(GMMU_OP_MAD, 14, 10, 6, 14);
        E3(GMMU_OP_MAD, 15, 10, 8, 15);
        E2(GMMU_OP_ADD, 11, 14, 15);
    }
    E2(GMMU_OP_ADD, 14, 14, 15);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)out);
    ST(5, 14, 0);
}

typedef struct kernel_desc {
    const char *name;
    void (*build)(emitter *, uint32_t);
    uint32_t nregs, warps_per_block, shared_bytes, grid_blocks, iters;
} kernel_desc;

static const kernel_desc KERNELS[] = {
    {"lbm-like", build_lbm, 128, 4, 0, 64, 4},
    {"sgemm-like", build_sgemm, 16, 4, 2048, 512, 8},
    {"stencil-like", build_stencil, 24, 4, 0, 320, 8},
    {"histo-like", build_histo, 12, 8, 1024, 256, 8},
    {"spmv-like", build_spmv, 16, 4, 0, 512, 8},
    {"mriq-like", build_mriq, 16, 8, 0, 256, 96},
    {"tiny", build_tiny, 16, 2, 0, 4, 4},
};
#define NKERNELS (sizeof KERNELS / sizeof KERNELS[0])

unsigned gmmu_kernel_count(void) { return (unsigned)NKERNELS; }

const char *gmmu_kernel_name(unsigned i) { return i < NKERNELS ? KERNELS[i].name : NULL; }

gmmu_status gmmu_kernel_check(const gmmu_kernel *k, gmmu_error *err)
{
    if (!k)
        return gmmu_error_set(err, "kernel", "kernel is NULL");
    if (k->nregs < 4 || k->nregs > GMMU_ISA_MAX_REGS)
        return gmmu_error_set(err, "kernel.nregs", "registers per thread %u out of range 4..%u",
                              k->nregs, GMMU_ISA_MAX_REGS);
    if (k->warps_per_block == 0 || k->warps_per_block > 64)
        return gmmu_error_set(err, "kernel.warps_per_block", "warps per block %u out of range 1..64",
                              k->warps_per_block);
    if (k->grid_blocks == 0)
        return gmmu_error_set(err, "kernel.grid_blocks", "grid has no blocks");
    if (k->ninsns == 0 || k->ninsns > GMMU_KERNEL_MAX_INSNS)
        return gmmu_error_set(err, "kernel.ninsns", "instruction count %u out of range 1..%u",
                              k->ninsns, GMMU_KERNEL_MAX_INSNS);
    if (k->nregions > GMMU_KERNEL_MAX_REGIONS)
        return gmmu_error_set(err, "kernel.nregions", "%u regions, at most %u", k->nregions,
                              GMMU_KERNEL_MAX_REGIONS);
    for (uint32_t i = 0; i < k->ninsns; i++) {
        const gmmu_insn *in = &k->code[i];
        if (in->op >= GMMU_OP_COUNT)
            return gmmu_error_set(err, "kernel.code", "instruction %u: unknown opcode %u", i, in->op);
        if (gmmu_op_has_dst((gmmu_op)in->op) && in->dst >= k->nregs)
            return gmmu_error_set(err, "kernel.code", "instruction %u: destination r%u >= nregs %u",
                                  i, in->dst, k->nregs);
        for (unsigned s = 0; s < gmmu_op_nsrc((gmmu_op)in->op); s++)
            if (in->src[s] >= k->nregs)
                return gmmu_error_set(err, "kernel.code", "instruction %u: source r%u >= nregs %u", i,
                                      in->src[s], k->nregs);
    }
    return GMMU_OK;
}

gmmu_status gmmu_kernel_build(gmmu_kernel *k, const char *name, const gmmu_kernel_params *p,
                              gmmu_error *err)
{
    if (!k)
        return gmmu_error_set(err, "kernel", "kernel is NULL");
    if (!name)
        return gmmu_error_set(err, "kernel.name", "kernel name is NULL");
    const kernel_desc *d = NULL;
    for (unsigned i = 0; i < NKERNELS; i++)
        if (strcmp(KERNELS[i].name, name) == 0)
            d = &KERNELS[i];
    if (!d)
        return gmmu_error_set(err, "kernel.name",
                              "unknown kernel '%s' (lbm-like, sgemm-like, stencil-like, histo-like, "
                              "spmv-like, mriq-like, tiny)",
                              name);
    uint32_t grid = p && p->grid_blocks ? p->grid_blocks : d->grid_blocks;
    uint32_t iters = p && p->iters ? p->iters : d->iters;
    if (grid > (1u << 20))
        return gmmu_error_set(err, "kernel.grid_blocks", "grid %u out of range 1..1048576", grid);
    if (iters > 256)
        return gmmu_error_set(err, "kernel.iters", "iterations %u out of range 1..256", iters);
    memset(k, 0, sizeof *k);
    size_t n = strlen(d->name);
    memcpy(k->name, d->name, n < sizeof k->name - 1 ? n : sizeof k->name - 1);
    k->nregs = d->nregs;
    k->warps_per_block = d->warps_per_block;
    k->shared_bytes = d->shared_bytes;
    k->grid_blocks = grid;
    emitter e = {k, false};
    d->build(&e, iters);
    if (e.overflow)
        return gmmu_error_set(err, "kernel.iters", "%u iterations exceed %u instructions", iters,
                              GMMU_KERNEL_MAX_INSNS);
    /* Regions are REGION_STRIDE apart: a larger one would overlap the next. */
    for (uint32_t i = 0; i < k->nregions; i++)
        if (k->region[i].bytes > REGION_STRIDE)
            return gmmu_error_set(err, "kernel.grid_blocks",
                                  "grid of %u blocks makes region %u %llu bytes, more than the "
                                  "%llu-byte spacing of the kernel's regions",
                                  grid, i, (unsigned long long)k->region[i].bytes,
                                  (unsigned long long)REGION_STRIDE);
    return gmmu_kernel_check(k, err);
}

int gmmu_kernel_region_of(const gmmu_kernel *k, uint64_t va)
{
    if (!k)
        return -1;
    for (uint32_t i = 0; i < k->nregions; i++)
        if (va >= k->region[i].base && va - k->region[i].base < k->region[i].bytes)
            return (int)i;
    return -1;
}
