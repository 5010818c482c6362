/* gmmu — the warp ISA (operands, units, the ALU), control flow (immediate
 * post-dominators) and the kernel check. The built-in kernels are in
 * kernels_builtin.c, the text format in kernel_text.c. */

#include "gmmu/kernels.h"
#include "gmmu/rng.h"

#include <stdlib.h>
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
    case GMMU_OP_BRNZ:
    case GMMU_OP_LDS:
    case GMMU_OP_LD: return 1;
    case GMMU_OP_ADD:
    case GMMU_OP_MUL:
    case GMMU_OP_XOR:
    case GMMU_OP_SLTU:
    case GMMU_OP_ST:
    case GMMU_OP_STS:
    case GMMU_OP_RED: return 2;
    case GMMU_OP_MAD: return 3;
    case GMMU_OP_JMP:
    case GMMU_OP_BAR:
    case GMMU_OP_COUNT: break;
    }
    return 0;
}

bool gmmu_op_has_dst(gmmu_op op)
{
    return op != GMMU_OP_ST && op != GMMU_OP_RED && op != GMMU_OP_STS && op != GMMU_OP_BAR &&
           !gmmu_op_is_branch(op) && op < GMMU_OP_COUNT;
}

bool gmmu_op_is_shared(gmmu_op op) { return op == GMMU_OP_LDS || op == GMMU_OP_STS; }

bool gmmu_op_is_branch(gmmu_op op) { return op == GMMU_OP_BRNZ || op == GMMU_OP_JMP; }

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
    if (gmmu_op_is_global(op) || gmmu_op_is_shared(op))
        return GMMU_UNIT_LDST;
    if (op == GMMU_OP_SFU)
        return GMMU_UNIT_SFU;
    return GMMU_UNIT_MATH;
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
    case GMMU_OP_SFU: return gmmu_mix64(a + imm);
    case GMMU_OP_SLTU: return a < b ? 1u : 0u;
    default: return 0;
    }
}

uint64_t gmmu_kernel_input_value(uint64_t va) { return gmmu_mix64((va & ~7ull) ^ 0x5EED5EED12345678ull); }

/* ---- control flow ---------------------------------------------------- */

/* Successors of instruction i (at most 2); n = ninsns is the exit. */
static unsigned succs(const gmmu_kernel *k, uint32_t i, uint32_t out[2])
{
    const gmmu_insn *in = &k->code[i];
    if (in->op == GMMU_OP_JMP) {
        out[0] = (uint32_t)in->imm;
        return 1;
    }
    out[0] = i + 1;
    if (in->op == GMMU_OP_BRNZ && (uint32_t)in->imm != i + 1) {
        out[1] = (uint32_t)in->imm;
        return 2;
    }
    return 1;
}

static gmmu_status check_targets(const gmmu_kernel *k, gmmu_error *err)
{
    for (uint32_t i = 0; i < k->ninsns; i++) {
        const gmmu_insn *in = &k->code[i];
        if (gmmu_op_is_branch((gmmu_op)in->op) && (in->imm < 0 || in->imm > (int64_t)k->ninsns))
            return gmmu_error_set(err, "kernel.code",
                                  "kernel '%.32s' instruction %u: branch target %lld outside 0..%u",
                                  k->name, i, (long long)in->imm, k->ninsns);
    }
    return GMMU_OK;
}

/* Post-dominators are the dominators of the reversed graph rooted at the
 * exit; computed by the iterative algorithm of Cooper, Harvey and Kennedy
 * ("A Simple, Fast Dominance Algorithm") over a reverse post-order. */
gmmu_status gmmu_kernel_ipdom(const gmmu_kernel *k, uint32_t *ipdom, gmmu_error *err)
{
    if (!k || !ipdom)
        return gmmu_error_set(err, "kernel", "kernel or ipdom is NULL");
    if (k->ninsns == 0 || k->ninsns > GMMU_KERNEL_MAX_INSNS)
        return gmmu_error_set(err, "kernel.ninsns", "instruction count %u out of range 1..%u",
                              k->ninsns, GMMU_KERNEL_MAX_INSNS);
    gmmu_status st = check_targets(k, err);
    if (st != GMMU_OK)
        return st;
    const uint32_t n = k->ninsns, N = n + 1, UNSET = 0xFFFFFFFFu;
    /* CFG predecessors in CSR form: the reversed graph's successors. */
    uint32_t *pstart = calloc(N + 1, sizeof *pstart);
    uint32_t *pred = malloc(2 * (size_t)n * sizeof *pred + 1);
    uint32_t *po = malloc(N * sizeof *po);     /* post-order number */
    uint32_t *order = malloc(N * sizeof *order); /* nodes by post-order number */
    uint32_t *stack = malloc(N * sizeof *stack);
    uint32_t *next = calloc(N, sizeof *next);  /* DFS: next predecessor to visit */
    uint32_t *idom = malloc(N * sizeof *idom);
    if (!pstart || !pred || !po || !order || !stack || !next || !idom) {
        st = GMMU_ENOMEM;
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s2[2];
        unsigned ns = succs(k, i, s2);
        for (unsigned j = 0; j < ns; j++)
            pstart[s2[j] + 1]++;
    }
    for (uint32_t v = 0; v < N; v++)
        pstart[v + 1] += pstart[v];
    {
        uint32_t *fill = next; /* reuse as the fill cursor, reset below */
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s2[2];
            unsigned ns = succs(k, i, s2);
            for (unsigned j = 0; j < ns; j++)
                pred[pstart[s2[j]] + fill[s2[j]]++] = i;
        }
        memset(next, 0, N * sizeof *next);
    }
    /* Iterative DFS from the exit along predecessors: post-order. */
    for (uint32_t v = 0; v < N; v++)
        po[v] = UNSET;
    uint32_t sp = 0, count = 0;
    stack[sp++] = n;
    po[n] = UNSET - 1; /* on the stack */
    while (sp) {
        uint32_t v = stack[sp - 1];
        if (pstart[v] + next[v] < pstart[v + 1]) {
            uint32_t p = pred[pstart[v] + next[v]++];
            if (po[p] == UNSET) {
                po[p] = UNSET - 1;
                stack[sp++] = p;
            }
        } else {
            sp--;
            po[v] = count;
            order[count++] = v;
        }
    }
    for (uint32_t i = 0; i < n; i++)
        if (po[i] == UNSET) {
            st = gmmu_error_set(err, "kernel.code",
                                "kernel '%.32s' instruction %u: no path from it to the end of the kernel",
                                k->name, i);
            goto out;
        }
    for (uint32_t v = 0; v < N; v++)
        idom[v] = UNSET;
    idom[n] = n;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t r = count - 1; r-- > 0;) { /* reverse post-order, root excluded */
            uint32_t v = order[r], s2[2], nd = UNSET;
            unsigned ns = succs(k, v, s2);
            for (unsigned j = 0; j < ns; j++) {
                uint32_t b = s2[j];
                if (idom[b] == UNSET)
                    continue;
                if (nd == UNSET) {
                    nd = b;
                    continue;
                }
                uint32_t a = nd;
                while (a != b) {
                    while (po[a] < po[b])
                        a = idom[a];
                    while (po[b] < po[a])
                        b = idom[b];
                }
                nd = a;
            }
            if (nd != idom[v]) {
                idom[v] = nd;
                changed = true;
            }
        }
    }
    memcpy(ipdom, idom, n * sizeof *ipdom);
    st = GMMU_OK;
out:
    free(pstart);
    free(pred);
    free(po);
    free(order);
    free(stack);
    free(next);
    free(idom);
    if (st == GMMU_ENOMEM)
        gmmu_error_set(err, "kernel", "out of memory computing post-dominators");
    return st;
}

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
            return gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u: unknown opcode %u",
                                  k->name, i, in->op);
        if (gmmu_op_has_dst((gmmu_op)in->op) && in->dst >= k->nregs)
            return gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u: destination r%u >= nregs %u",
                                  k->name, i, in->dst, k->nregs);
        for (unsigned s = 0; s < gmmu_op_nsrc((gmmu_op)in->op); s++)
            if (in->src[s] >= k->nregs)
                return gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u: source r%u >= nregs %u",
                                      k->name, i, in->src[s], k->nregs);
        if (gmmu_op_is_shared((gmmu_op)in->op) && k->shared_bytes < 8)
            return gmmu_error_set(err, "kernel.code",
                                  "kernel '%.32s' instruction %u: shared memory access, but the kernel "
                                  "declares %u B of shared memory (at least 8)",
                                  k->name, i, k->shared_bytes);
    }
    bool branches = false;
    for (uint32_t i = 0; i < k->ninsns && !branches; i++)
        branches = gmmu_op_is_branch((gmmu_op)k->code[i].op);
    if (!branches)
        return GMMU_OK;
    uint32_t *ipdom = malloc(k->ninsns * sizeof *ipdom);
    if (!ipdom)
        return gmmu_error_set(err, "kernel", "out of memory checking control flow");
    gmmu_status st = gmmu_kernel_ipdom(k, ipdom, err);
    free(ipdom);
    return st;
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
