/* gmmu — the built-in kernels (gmmu_kernel_build): an emitter, the
 * Parboil/Rodinia-like instruction sequences and their table. */

#include "gmmu/kernels.h"

#include <string.h>

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

/* ---- divergent kernels (data-dependent branches) ------------------------ */

#define BR(a, target) emit(e, GMMU_OP_BRNZ, 0, a, 0, 0, (int64_t)(target))
#define JMP(target) emit(e, GMMU_OP_JMP, 0, 0, 0, 0, (int64_t)(target))
static uint32_t here(const emitter *e) { return e->k->ninsns; }
/* Set the target of the branch at index `at`, emitted before its target
 * was known, to the current pc. */
static void patch(emitter *e, uint32_t at)
{
    if (at < e->k->ninsns)
        e->k->code[at].imm = (int64_t)e->k->ninsns;
}
static uint64_t pow2_floor(uint64_t x)
{
    uint64_t p = 1;
    while (p * 2u <= x)
        p *= 2u;
    return p;
}

/* bfs-like: one thread per node (vertex-parallel BFS step, as in Rodinia's
 * bfs). A node is in the frontier with probability 1/4 (the rest skip to
 * the end: divergence at the top); a frontier node has 0..iters-1 edges
 * (data-dependent trip count), each edge a load from the node's own row of
 * the edge list (a 128-B-per-thread stride: uncoalesced) and a load of the
 * neighbour's level at a random node (page-divergent gather); an unvisited
 * neighbour (level odd) gets a reduction on its cost word (a nested
 * if). */
static void build_bfs(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t N = nthreads(k), P = pow2_floor(N);
    uint64_t nodes = add_region(k, N * 8u, GMMU_REGION_INPUT);
    uint64_t edges = add_region(k, N * iters * 8u, GMMU_REGION_INPUT);
    uint64_t level = add_region(k, P * 8u, GMMU_REGION_INPUT);
    uint64_t cost = add_region(k, P * 8u, GMMU_REGION_OUTPUT);
    uint64_t done = add_region(k, N * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)nodes);
    LD(6, 5, 0);
    E0(GMMU_OP_MOVI, 14, 0);
    E1(GMMU_OP_ANDI, 7, 6, 0x300); /* frontier iff bits 8..9 are 0 */
    uint32_t skip_node = here(e);
    BR(7, 0);
    E1(GMMU_OP_ANDI, 7, 6, 255); /* degree = (v & 255) * iters / 256 */
    E0(GMMU_OP_MOVI, 8, (int64_t)iters);
    E2(GMMU_OP_MUL, 7, 7, 8);
    E1(GMMU_OP_SHRI, 7, 7, 8);
    E0(GMMU_OP_MOVI, 8, (int64_t)(iters * 8u));
    E2(GMMU_OP_MUL, 9, 0, 8); /* the node's row of edges */
    E1(GMMU_OP_ADDI, 9, 9, (int64_t)edges);
    E0(GMMU_OP_MOVI, 10, 0); /* e */
    E0(GMMU_OP_MOVI, 15, (int64_t)level);
    E0(GMMU_OP_MOVI, 16, (int64_t)cost);
    uint32_t to_test = here(e);
    JMP(0);
    uint32_t body = here(e);
    LD(11, 9, 0);
    E1(GMMU_OP_ANDI, 11, 11, (int64_t)(P - 1u));
    E1(GMMU_OP_SHLI, 11, 11, 3);
    E2(GMMU_OP_ADD, 12, 11, 15);
    LD(13, 12, 0);
    E2(GMMU_OP_ADD, 14, 14, 13);
    E1(GMMU_OP_ANDI, 13, 13, 1);
    E1(GMMU_OP_ADDI, 13, 13, -1); /* 0 when unvisited (odd) */
    uint32_t skip_update = here(e);
    BR(13, 0);
    E2(GMMU_OP_ADD, 12, 11, 16);
    RED(12, 3, 0);
    patch(e, skip_update);
    E1(GMMU_OP_ADDI, 10, 10, 1);
    E1(GMMU_OP_ADDI, 9, 9, 8);
    patch(e, to_test);
    E2(GMMU_OP_SLTU, 17, 10, 7);
    BR(17, body);
    patch(e, skip_node);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)done);
    ST(5, 14, 0);
}

/* mummer-like: each thread matches its query down a suffix tree stored as
 * an implicit binary tree (heap order, node i's children at 2i+1, 2i+2), as
 * MUMmerGPU walks its tree from the root per query: a chain of dependent
 * loads, the child chosen by the node's word and the next query bit, ending
 * at a mismatch (node word & 7 == 0, 1 in 8) or at depth iters (at most
 * 24). The top levels are shared by every thread (hot pages), the deep ones
 * are private and scattered; the lanes of a warp leave the loop at
 * different depths. */
static void build_mummer(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint32_t D = iters < 24u ? iters : 24u;
    uint64_t queries = add_region(k, nthreads(k) * 8u, GMMU_REGION_INPUT);
    uint64_t tree = add_region(k, ((2ull << D) - 1u) * 8u, GMMU_REGION_INPUT);
    uint64_t out = add_region(k, nthreads(k) * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)queries);
    LD(5, 5, 0);
    E0(GMMU_OP_MOVI, 6, 0);  /* node */
    E0(GMMU_OP_MOVI, 9, 0);  /* depth */
    E0(GMMU_OP_MOVI, 16, (int64_t)D);
    E0(GMMU_OP_MOVI, 18, (int64_t)tree);
    uint32_t loop = here(e);
    E1(GMMU_OP_SHLI, 11, 6, 3);
    E2(GMMU_OP_ADD, 11, 11, 18);
    LD(12, 11, 0);
    E2(GMMU_OP_XOR, 13, 12, 5);
    E1(GMMU_OP_ANDI, 13, 13, 1);
    E1(GMMU_OP_SHLI, 14, 6, 1);
    E2(GMMU_OP_ADD, 14, 14, 13);
    E1(GMMU_OP_ADDI, 6, 14, 1);
    E1(GMMU_OP_SHRI, 5, 5, 1);
    E1(GMMU_OP_ADDI, 9, 9, 1);
    E1(GMMU_OP_ANDI, 15, 12, 7);
    E2(GMMU_OP_SLTU, 17, 9, 16);
    E2(GMMU_OP_MUL, 15, 15, 17); /* non-zero: matched and not at the bottom */
    BR(15, loop);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)out);
    E2(GMMU_OP_XOR, 6, 6, 9);
    ST(4, 6, 0);
}

/* memcached-like: each thread looks up one key (GET): a hash of the key
 * (SFU) picks a bucket at random in a table of 2^16 16-B buckets, whose head
 * word gives a chain of 0..3 items; each item is a 64-B record at a random
 * place among 2^17 (8 MiB), read as two dependent words (next pointer,
 * value), as a chained hash table is walked. A hit-count reduction goes to
 * one of 4 counters by chain length (a RED every lane of a warp shares). */
static void build_memcached(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    (void)iters;
    const uint64_t NB = 1u << 16, NI = 1u << 17;
    uint64_t keys = add_region(k, nthreads(k) * 8u, GMMU_REGION_INPUT);
    uint64_t buckets = add_region(k, NB * 16u, GMMU_REGION_INPUT);
    uint64_t items = add_region(k, NI * 64u, GMMU_REGION_INPUT);
    uint64_t out = add_region(k, nthreads(k) * 8u, GMMU_REGION_OUTPUT);
    uint64_t hist = add_region(k, 4 * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)keys);
    LD(5, 5, 0);
    E1(GMMU_OP_SFU, 6, 5, 17);
    E1(GMMU_OP_ANDI, 6, 6, (int64_t)(NB - 1u));
    E1(GMMU_OP_SHLI, 6, 6, 4);
    E1(GMMU_OP_ADDI, 6, 6, (int64_t)buckets);
    LD(7, 6, 0);
    E1(GMMU_OP_ANDI, 8, 7, 3); /* chain length */
    E2(GMMU_OP_ADD, 10, 7, 5); /* first item pointer */
    E0(GMMU_OP_MOVI, 9, 0);
    E0(GMMU_OP_MOVI, 14, 0);
    E0(GMMU_OP_MOVI, 18, (int64_t)items);
    uint32_t to_test = here(e);
    JMP(0);
    uint32_t body = here(e);
    E1(GMMU_OP_ANDI, 11, 10, (int64_t)(NI - 1u));
    E1(GMMU_OP_SHLI, 11, 11, 6);
    E2(GMMU_OP_ADD, 11, 11, 18);
    LD(10, 11, 0);
    LD(13, 11, 8);
    E2(GMMU_OP_XOR, 14, 14, 13);
    E1(GMMU_OP_ADDI, 9, 9, 1);
    patch(e, to_test);
    E2(GMMU_OP_SLTU, 15, 9, 8);
    BR(15, body);
    E1(GMMU_OP_ADDI, 4, 4, (int64_t)out);
    ST(4, 14, 0);
    E1(GMMU_OP_SHLI, 8, 8, 3);
    E1(GMMU_OP_ADDI, 8, 8, (int64_t)hist);
    E0(GMMU_OP_MOVI, 16, 1);
    RED(8, 16, 0);
}

/* Squared "difference" of two 64-bit words, kept small: d = ((a ^ b) >> 40)^2
 * into register d (t is a scratch register). */
static void sqdiff(emitter *e, unsigned d, unsigned a, unsigned b)
{
    E2(GMMU_OP_XOR, d, a, b);
    E1(GMMU_OP_SHRI, d, d, 40);
    E2(GMMU_OP_MUL, d, d, d);
}

/* Emit "if (r[lt] < r[rt]) ... ": a branch over the then-part when the
 * comparison is false; returns the branch to patch at the end of the
 * then-part (s is a scratch register). */
static uint32_t if_less(emitter *e, unsigned s, unsigned lt, unsigned rt)
{
    E2(GMMU_OP_SLTU, s, lt, rt);
    E1(GMMU_OP_ADDI, s, s, -1); /* 0 when less */
    uint32_t at = here(e);
    BR(s, 0);
    return at;
}

/* acc = sum over n steps of sqdiff([pt], [ct]), pt advancing by stride and
 * ct by 8 each step (a point's coordinates stored dimension-major against a
 * centre's row); i counts the steps, t0..t2 are scratch. */
static void distance_loop(emitter *e, unsigned pt, unsigned ct, unsigned i, unsigned acc,
                          unsigned t0, unsigned t1, unsigned t2, uint32_t n, uint64_t stride)
{
    E0(GMMU_OP_MOVI, i, 0);
    E0(GMMU_OP_MOVI, acc, 0);
    uint32_t loop = here(e);
    LD(t0, pt, 0);
    LD(t1, ct, 0);
    sqdiff(e, t1, t0, t1);
    E2(GMMU_OP_ADD, acc, acc, t1);
    E1(GMMU_OP_ADDI, pt, pt, (int64_t)stride);
    E1(GMMU_OP_ADDI, ct, ct, 8);
    E1(GMMU_OP_ADDI, i, i, 1);
    E0(GMMU_OP_MOVI, t2, (int64_t)n);
    E2(GMMU_OP_SLTU, t2, i, t2);
    BR(t2, loop);
}

/* kmeans-like: Rodinia kmeans's point-assignment kernel: one thread per
 * point, features stored feature-major (feature f of every point
 * contiguous: coalesced loads), and for each of 5 clusters, for each of
 * iters features, the point's feature and the cluster's coordinate (one word
 * for every lane: a broadcast); the point joins the nearest cluster (a
 * data-dependent if per cluster) and its membership is stored. */
static void build_kmeans(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint32_t K = 5u, F = iters;
    const uint64_t stride = nthreads(k) * 8u;
    uint64_t features = add_region(k, stride * F, GMMU_REGION_INPUT);
    uint64_t clusters = add_region(k, (uint64_t)K * F * 8u, GMMU_REGION_INPUT);
    uint64_t membership = add_region(k, stride, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E0(GMMU_OP_MOVI, 7, 0);                   /* c */
    E0(GMMU_OP_MOVI, 8, INT64_MAX);           /* best distance */
    E0(GMMU_OP_MOVI, 9, 0);                   /* best cluster */
    E0(GMMU_OP_MOVI, 20, (int64_t)(F * 8u));  /* bytes per cluster row */
    uint32_t c_loop = here(e);
    E1(GMMU_OP_ADDI, 12, 4, (int64_t)features);
    E2(GMMU_OP_MUL, 13, 7, 20);
    E1(GMMU_OP_ADDI, 13, 13, (int64_t)clusters);
    distance_loop(e, 12, 13, 10, 11, 15, 16, 19, F, stride); /* r11 = distance */
    uint32_t skip = if_less(e, 19, 11, 8);
    E1(GMMU_OP_ADDI, 8, 11, 0);
    E1(GMMU_OP_ADDI, 9, 7, 0);
    patch(e, skip);
    E1(GMMU_OP_ADDI, 7, 7, 1);
    E0(GMMU_OP_MOVI, 18, (int64_t)K);
    E2(GMMU_OP_SLTU, 19, 7, 18);
    BR(19, c_loop);
    E1(GMMU_OP_ADDI, 21, 4, (int64_t)membership);
    ST(21, 9, 0);
}

/* streamcluster-like: Rodinia streamcluster's pgain kernel over iters
 * candidate centres: one thread per point, 16 coordinates stored
 * dimension-major (coalesced), the candidate's coordinates one word for
 * every lane; x_cost = distance x weight against the point's current cost:
 * cheaper points set their switch flag, the others add their saving to the
 * lower word of their current centre (a reduction shared by many threads).
 * Every candidate streams the whole point set again (reuse at the distance
 * of the data set). */
static void build_streamcluster(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint32_t D = 16u, C = iters;
    const uint64_t stride = nthreads(k) * 8u;
    uint64_t coords = add_region(k, stride * D, GMMU_REGION_INPUT);
    uint64_t centres = add_region(k, (uint64_t)C * D * 8u, GMMU_REGION_INPUT);
    uint64_t weight = add_region(k, stride, GMMU_REGION_INPUT);
    uint64_t cost = add_region(k, stride, GMMU_REGION_INPUT);
    uint64_t sw = add_region(k, stride, GMMU_REGION_OUTPUT);
    uint64_t lower = add_region(k, 16u * 8u, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E0(GMMU_OP_MOVI, 11, 0); /* candidate */
    E0(GMMU_OP_MOVI, 20, (int64_t)(D * 8u));
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)weight);
    LD(18, 5, 0);
    E1(GMMU_OP_ANDI, 18, 18, 7);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)cost);
    LD(19, 5, 0);
    E1(GMMU_OP_SHRI, 19, 19, 40);
    E2(GMMU_OP_MUL, 19, 19, 19);
    E1(GMMU_OP_SHLI, 19, 19, 3); /* current cost, on the scale of 8 distances */
    uint32_t c_loop = here(e);
    E1(GMMU_OP_ADDI, 12, 4, (int64_t)coords);
    E2(GMMU_OP_MUL, 13, 11, 20);
    E1(GMMU_OP_ADDI, 13, 13, (int64_t)centres);
    distance_loop(e, 12, 13, 14, 15, 16, 17, 21, D, stride); /* r15 = distance */
    E2(GMMU_OP_MUL, 15, 15, 18); /* x_cost */
    uint32_t to_else = if_less(e, 21, 15, 19);
    E1(GMMU_OP_ADDI, 22, 4, (int64_t)sw);
    E1(GMMU_OP_ADDI, 23, 11, 1);
    ST(22, 23, 0);
    uint32_t to_join = here(e);
    JMP(0);
    patch(e, to_else);
    E1(GMMU_OP_ANDI, 22, 19, 15 * 8); /* the point's current centre */
    E1(GMMU_OP_ADDI, 22, 22, (int64_t)lower);
    E2(GMMU_OP_XOR, 23, 19, 15);
    RED(22, 23, 0);
    patch(e, to_join);
    E1(GMMU_OP_ADDI, 11, 11, 1);
    E0(GMMU_OP_MOVI, 21, (int64_t)C);
    E2(GMMU_OP_SLTU, 21, 11, 21);
    BR(21, c_loop);
}

/* pathfinder-like: Rodinia pathfinder's dynamic programme: one thread per
 * column, iters rows of the wall grid, each row one coalesced load per
 * warp (a row is all threads' columns: consecutive rows are a whole row of
 * bytes apart, so every row is another page), the step's cost taken from
 * one of two neighbours by a data-dependent if (the kernel's min over the
 * previous row, whose other operands live in shared memory, which this ISA
 * does not model); the column's total is stored at the end. */
static void build_pathfinder(emitter *e, uint32_t iters)
{
    gmmu_kernel *k = e->k;
    const uint64_t stride = nthreads(k) * 8u;
    uint64_t wall = add_region(k, stride * iters, GMMU_REGION_INPUT);
    uint64_t result = add_region(k, stride, GMMU_REGION_OUTPUT);
    E1(GMMU_OP_SHLI, 4, 0, 3);
    E1(GMMU_OP_ADDI, 5, 4, (int64_t)wall);
    E0(GMMU_OP_MOVI, 6, 0); /* path cost */
    E0(GMMU_OP_MOVI, 7, 0); /* row */
    E0(GMMU_OP_MOVI, 12, (int64_t)iters);
    uint32_t row_loop = here(e);
    LD(8, 5, 0);
    E1(GMMU_OP_ANDI, 9, 8, 0xFFFF);
    E1(GMMU_OP_ANDI, 10, 8, 0x30000); /* which neighbour is cheaper */
    uint32_t to_else = here(e);
    BR(10, 0);
    E2(GMMU_OP_ADD, 6, 6, 9);
    uint32_t to_join = here(e);
    JMP(0);
    patch(e, to_else);
    E1(GMMU_OP_SHRI, 9, 9, 1);
    E2(GMMU_OP_ADD, 6, 6, 9);
    patch(e, to_join);
    E1(GMMU_OP_ADDI, 5, 5, (int64_t)stride);
    E1(GMMU_OP_ADDI, 7, 7, 1);
    E2(GMMU_OP_SLTU, 11, 7, 12);
    BR(11, row_loop);
    E1(GMMU_OP_ADDI, 13, 4, (int64_t)result);
    ST(13, 6, 0);
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
    {"bfs-like", build_bfs, 24, 8, 0, 256, 16},
    {"mummer-like", build_mummer, 24, 8, 0, 256, 20},
    {"memcached-like", build_memcached, 24, 8, 0, 256, 1},
    {"kmeans-like", build_kmeans, 24, 8, 0, 256, 8},
    {"streamcluster-like", build_streamcluster, 24, 8, 0, 256, 4},
    {"pathfinder-like", build_pathfinder, 16, 8, 0, 256, 32},
};
#define NKERNELS (sizeof KERNELS / sizeof KERNELS[0])

unsigned gmmu_kernel_count(void) { return (unsigned)NKERNELS; }

const char *gmmu_kernel_name(unsigned i) { return i < NKERNELS ? KERNELS[i].name : NULL; }

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
                              "spmv-like, mriq-like, tiny, bfs-like, mummer-like, memcached-like)",
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
