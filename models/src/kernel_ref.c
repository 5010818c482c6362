/* gmmu — the reference interpreter of the kernel ISA: one thread at a time
 * with its own pc, a block's threads phase by phase between barriers
 * (docs/simt.md, "Barriers"). The data check's reference (workload
 * `kernel`) and the SM tests run it. */
#include "gmmu/kernels.h"
#include "gmmu/simt_stack.h"

#include <stdlib.h>
#include <string.h>

#define NOBODY 0xFFFFFFFFu
#define MANY 0xFFFFFFFEu

typedef struct shword {
    uint32_t wphase, writer; /* phase and thread of the last write */
    uint32_t rphase, reader; /* phase and thread of reads (MANY: two or more) */
} shword;

/* Each thread's BRNZ outcomes, in order (kernels with a BAR only). */
typedef struct outcomes {
    uint8_t *bit;
    size_t n, cap;
} outcomes;

static bool push_outcome(outcomes *o, bool taken)
{
    if (o->n == o->cap * 8u) {
        size_t cap = o->cap ? 2 * o->cap : 16;
        uint8_t *b = realloc(o->bit, cap);
        if (!b)
            return false;
        memset(b + o->cap, 0, cap - o->cap);
        o->bit = b;
        o->cap = cap;
    }
    if (taken)
        o->bit[o->n / 8u] |= (uint8_t)(1u << (o->n % 8u));
    o->n++;
    return true;
}

/* Replay warp w's threads' recorded branch outcomes through the SIMT
 * stack, as the SM runs them: the pc of the first BAR reached with only
 * some lanes active, or NOBODY. */
static uint32_t warp_bar_divergence(const gmmu_kernel *k, const uint32_t *ipdom, const outcomes *o)
{
    gmmu_simt_stack st;
    size_t cur[GMMU_ISA_LANES] = {0};
    gmmu_simt_reset(&st, 0xFFFFFFFFu, k->ninsns);
    while (!gmmu_simt_done(&st)) {
        const uint32_t pc = gmmu_simt_pc(&st), mask = gmmu_simt_mask(&st);
        const gmmu_insn *in = &k->code[pc];
        gmmu_status r;
        if (in->op == GMMU_OP_BRNZ || in->op == GMMU_OP_JMP) {
            uint32_t taken = mask;
            if (in->op == GMMU_OP_BRNZ) {
                taken = 0;
                for (uint32_t l = 0; l < GMMU_ISA_LANES; l++) {
                    if (!(mask & (1u << l)))
                        continue;
                    const outcomes *t = &o[l];
                    if (cur[l] >= t->n)
                        return NOBODY; /* cannot happen: the lanes' paths are recorded */
                    if (t->bit[cur[l] / 8u] >> (cur[l] % 8u) & 1u)
                        taken |= 1u << l;
                    cur[l]++;
                }
            }
            r = gmmu_simt_branch(&st, taken, (uint32_t)in->imm, ipdom[pc]);
        } else {
            if (in->op == GMMU_OP_BAR && mask != 0xFFFFFFFFu)
                return pc;
            r = gmmu_simt_step(&st);
        }
        if (r != GMMU_OK)
            return NOBODY; /* deeper than the stack: the SM refuses it itself */
    }
    return NOBODY;
}

static gmmu_status stop(gmmu_kernel_ref_stop *why, gmmu_kernel_ref_kind kind, uint32_t pc, uint64_t va)
{
    if (why) {
        why->kind = kind;
        why->pc = pc;
        why->va = va;
    }
    return GMMU_EINVAL;
}

gmmu_status gmmu_kernel_ref_block(const gmmu_kernel *k, uint32_t block, uint64_t *regs,
                                  uint64_t *(*word)(void *ctx, uint64_t va, bool write), void *ctx,
                                  uint64_t max_steps, gmmu_kernel_ref_stop *why, gmmu_error *err)
{
    if (!k || !regs || !word)
        return gmmu_error_set(err, "kernel", "kernel, registers or memory is NULL");
    const uint32_t W = k->warps_per_block, R = k->nregs, T = W * GMMU_ISA_LANES;
    const uint32_t shwords = k->shared_bytes / 8u;
    uint32_t *pc = calloc(T, sizeof *pc);
    uint8_t *done = calloc(T, 1);
    uint64_t *steps = calloc(T, sizeof *steps);
    uint64_t *sh = calloc((size_t)shwords + 1, sizeof *sh);
    shword *st = calloc((size_t)shwords + 1, sizeof *st);
    bool has_bar = false;
    for (uint32_t i = 0; i < k->ninsns; i++)
        has_bar = has_bar || k->code[i].op == GMMU_OP_BAR;
    outcomes *oc = has_bar ? calloc(T, sizeof *oc) : NULL;
    uint32_t *ipdom = has_bar ? malloc((size_t)k->ninsns * sizeof *ipdom) : NULL;
    gmmu_status rc = GMMU_OK;
    if (!pc || !done || !steps || !sh || !st || (has_bar && (!oc || !ipdom))) {
        rc = gmmu_error_set(err, "kernel", "out of memory interpreting block %u", block);
        goto out;
    }
    memset(regs, 0, (size_t)W * R * GMMU_ISA_LANES * sizeof *regs);
    for (uint32_t t = 0; t < T; t++) {
        uint32_t w = t / GMMU_ISA_LANES, l = t % GMMU_ISA_LANES;
        uint64_t *r = regs + (size_t)w * R * GMMU_ISA_LANES + l;
        r[0] = ((uint64_t)block * W + w) * GMMU_ISA_LANES + l;
        r[1 * GMMU_ISA_LANES] = block;
        r[2 * GMMU_ISA_LANES] = w;
        r[3 * GMMU_ISA_LANES] = l;
    }
    for (uint32_t phase = 1;; phase++) {
        /* Every thread that has not exited runs to its next BAR or the exit. */
        for (uint32_t t = 0; t < T && rc == GMMU_OK; t++) {
            if (done[t])
                continue;
            uint64_t *r = regs + (size_t)(t / GMMU_ISA_LANES) * R * GMMU_ISA_LANES + t % GMMU_ISA_LANES;
#define REG(i) r[(size_t)(i) * GMMU_ISA_LANES]
            while (pc[t] < k->ninsns) {
                const uint32_t at = pc[t];
                if (++steps[t] > max_steps) {
                    rc = stop(why, GMMU_REF_RUNAWAY, at, 0);
                    gmmu_error_set(err, "kernel.code", "kernel '%.32s' does not terminate (thread %u of "
                                   "block %u passed %llu instructions at instruction %u)", k->name, t,
                                   block, (unsigned long long)max_steps, at);
                    break;
                }
                const gmmu_insn *in = &k->code[at];
                const gmmu_op op = (gmmu_op)in->op;
                const unsigned ns = gmmu_op_nsrc(op);
                const uint64_t a = ns > 0 ? REG(in->src[0]) : 0, b = ns > 1 ? REG(in->src[1]) : 0,
                               c = ns > 2 ? REG(in->src[2]) : 0;
                const uint64_t va = (a + (uint64_t)in->imm) & ~7ull;
                pc[t] = at + 1;
                if (op == GMMU_OP_BAR)
                    break; /* waits for the block: pc is past the BAR */
                if (op == GMMU_OP_BRNZ) {
                    if (a != 0)
                        pc[t] = (uint32_t)in->imm;
                    if (oc && !push_outcome(&oc[t], a != 0)) {
                        rc = gmmu_error_set(err, "kernel", "out of memory interpreting block %u", block);
                        break;
                    }
                } else if (op == GMMU_OP_JMP) {
                    pc[t] = (uint32_t)in->imm;
                } else if (gmmu_op_is_global(op)) {
                    uint64_t *m = word(ctx, va, op != GMMU_OP_LD);
                    if (!m) {
                        rc = stop(why, GMMU_REF_GLOBAL_OUTSIDE, at, va);
                        gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u (%s) accesses "
                                       "VA 0x%llx, outside its regions", k->name, at,
                                       gmmu_kernel_op_name(op), (unsigned long long)va);
                        break;
                    }
                    if (op == GMMU_OP_LD)
                        REG(in->dst) = *m;
                    else if (op == GMMU_OP_ST)
                        *m = b;
                    else
                        *m += b;
                } else if (gmmu_op_is_shared(op)) {
                    if (va >= (uint64_t)shwords * 8u) {
                        rc = stop(why, GMMU_REF_SHARED_OUTSIDE, at, va);
                        gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u (%s) accesses "
                                       "shared offset %lld, outside 0..%u", k->name, at,
                                       gmmu_kernel_op_name(op), (long long)va,
                                       shwords ? shwords * 8u - 1u : 0u);
                        break;
                    }
                    shword *s = &st[va / 8u];
                    /* Race-freedom between barriers (kernels.h). */
                    bool race = s->wphase == phase && s->writer != t;
                    if (op == GMMU_OP_STS)
                        race = race || (s->rphase == phase && s->reader != t);
                    if (race) {
                        rc = stop(why, GMMU_REF_SHARED_RACE, at, va);
                        gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u (%s): shared "
                                       "offset %llu is written and %s by two threads of block %u with "
                                       "no bar between", k->name, at, gmmu_kernel_op_name(op),
                                       (unsigned long long)va, op == GMMU_OP_STS ? "accessed" : "read",
                                       block);
                        break;
                    }
                    if (op == GMMU_OP_STS) {
                        sh[va / 8u] = b;
                        s->wphase = phase;
                        s->writer = t;
                    } else {
                        REG(in->dst) = sh[va / 8u];
                        s->reader = s->rphase == phase && s->reader != t ? MANY : t;
                        s->rphase = phase;
                    }
                } else {
                    REG(in->dst) = gmmu_op_alu(in, a, b, c);
                }
            }
#undef REG
            if (rc == GMMU_OK && pc[t] >= k->ninsns)
                done[t] = 1;
        }
        if (rc != GMMU_OK)
            break;
        /* A warp is converged at a barrier: all its lanes at the same BAR,
         * or all exited; anything else is a BAR in divergent code. */
        uint32_t waiting = 0;
        for (uint32_t w = 0; w < W && rc == GMMU_OK; w++) {
            const uint32_t t0 = w * GMMU_ISA_LANES;
            for (uint32_t l = 1; l < GMMU_ISA_LANES; l++) {
                const uint32_t t = t0 + l;
                if (done[t] == done[t0] && (done[t] || pc[t] == pc[t0]))
                    continue;
                const uint32_t bar = done[t0] ? pc[t] - 1 : pc[t0] - 1;
                rc = stop(why, GMMU_REF_BAR_DIVERGENT, bar, 0);
                gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u: bar in divergent code "
                               "(block %u warp %u: lane 0 %s %u, lane %u %s %u)", k->name, bar, block, w,
                               done[t0] ? "exited, at" : "waits at bar", done[t0] ? k->ninsns : pc[t0] - 1,
                               l, done[t] ? "exited, at" : "waits at bar", done[t] ? k->ninsns : pc[t] - 1);
                break;
            }
            waiting += !done[t0];
        }
        if (rc != GMMU_OK || waiting == 0)
            break;
    }
    /* The lanes of a warp may reach one BAR along different paths (an if
     * inside a loop): the per-thread phases above cannot tell, the SIMT
     * stack can. Replay each warp's recorded branches through it. */
    if (rc == GMMU_OK && has_bar) {
        rc = gmmu_kernel_ipdom(k, ipdom, err);
        for (uint32_t w = 0; w < W && rc == GMMU_OK; w++) {
            const uint32_t bar = warp_bar_divergence(k, ipdom, oc + (size_t)w * GMMU_ISA_LANES);
            if (bar == NOBODY)
                continue;
            rc = stop(why, GMMU_REF_BAR_DIVERGENT, bar, 0);
            gmmu_error_set(err, "kernel.code", "kernel '%.32s' instruction %u: bar in divergent code "
                           "(block %u warp %u reaches it with only some lanes active)", k->name, bar,
                           block, w);
        }
    }
out:
    if (oc)
        for (uint32_t t = 0; t < T; t++)
            free(oc[t].bit);
    free(oc);
    free(ipdom);
    free(pc);
    free(done);
    free(steps);
    free(sh);
    free(st);
    return rc;
}
