#include "gmmu/simt_stack.h"

#include <string.h>

void gmmu_simt_reset(gmmu_simt_stack *s, uint32_t mask, uint32_t exit_pc)
{
    memset(s, 0, sizeof *s);
    if (mask == 0 || exit_pc == 0)
        return;
    s->e[0] = (gmmu_simt_entry){0, exit_pc, mask};
    s->n = 1;
    s->peak = 1;
}

static void pop_reconverged(gmmu_simt_stack *s)
{
    while (s->n > 0 && s->e[s->n - 1].pc == s->e[s->n - 1].rpc) {
        s->n--;
        if (s->n > 0)
            s->reconverged++;
    }
}

gmmu_status gmmu_simt_step(gmmu_simt_stack *s)
{
    if (s->n == 0)
        return GMMU_EINVAL;
    s->e[s->n - 1].pc++;
    pop_reconverged(s);
    return GMMU_OK;
}

gmmu_simt_split gmmu_simt_divergence(uint32_t n, uint32_t pc, uint32_t top_rpc, bool any_taken,
                                     bool any_fall, uint32_t target, uint32_t rpc)
{
    gmmu_simt_split d = {0};
    d.fall_pc = pc + 1;
    if (!any_taken || !any_fall) { /* uniform: the threads move as one */
        d.top_pc = any_taken ? target : d.fall_pc;
        return d;
    }
    /* Divergent. Paths that start at the reconvergence pc are not pushed;
     * the waiting entry is not kept twice for the same reconvergence pc. */
    d.divergent = true;
    d.reuse = top_rpc == rpc;
    d.base = d.reuse ? n - 1 : n;
    d.push_taken = target != rpc;
    d.push_fall = d.fall_pc != rpc;
    d.depth = d.base + d.push_taken + d.push_fall;
    return d;
}

gmmu_status gmmu_simt_branch(gmmu_simt_stack *s, uint32_t taken, uint32_t target, uint32_t rpc)
{
    if (s->n == 0)
        return GMMU_EINVAL;
    gmmu_simt_entry *top = &s->e[s->n - 1];
    if (taken & ~top->mask)
        return GMMU_EINVAL;
    uint32_t fall = top->mask & ~taken;
    const gmmu_simt_split d =
        gmmu_simt_divergence(s->n, top->pc, top->rpc, taken != 0, fall != 0, target, rpc);
    if (!d.divergent) {
        top->pc = d.top_pc;
        s->branches++;
        pop_reconverged(s);
        return GMMU_OK;
    }
    if (d.depth > GMMU_SIMT_DEPTH)
        return GMMU_ENOMEM;
    s->branches++;
    s->splits++;
    if (!d.reuse)
        top->pc = rpc;
    s->n = d.base;
    if (d.push_taken)
        s->e[s->n++] = (gmmu_simt_entry){target, rpc, taken};
    if (d.push_fall)
        s->e[s->n++] = (gmmu_simt_entry){d.fall_pc, rpc, fall};
    if (s->n > s->peak)
        s->peak = s->n;
    pop_reconverged(s);
    return GMMU_OK;
}
