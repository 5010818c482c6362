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

gmmu_status gmmu_simt_branch(gmmu_simt_stack *s, uint32_t taken, uint32_t target, uint32_t rpc)
{
    if (s->n == 0)
        return GMMU_EINVAL;
    gmmu_simt_entry *top = &s->e[s->n - 1];
    if (taken & ~top->mask)
        return GMMU_EINVAL;
    uint32_t fall = top->mask & ~taken;
    uint32_t next = top->pc + 1;
    if (taken == 0 || fall == 0) { /* uniform: the warp moves as one */
        top->pc = taken ? target : next;
        s->branches++;
        pop_reconverged(s);
        return GMMU_OK;
    }
    /* Divergent. Paths that start at the reconvergence pc are not pushed;
     * the waiting entry is not kept twice for the same reconvergence pc. */
    bool reuse = top->rpc == rpc;
    uint32_t base = reuse ? s->n - 1 : s->n;
    uint32_t need = base + (target != rpc) + (next != rpc);
    if (need > GMMU_SIMT_DEPTH)
        return GMMU_ENOMEM;
    s->branches++;
    s->splits++;
    if (!reuse)
        top->pc = rpc;
    s->n = base;
    if (target != rpc)
        s->e[s->n++] = (gmmu_simt_entry){target, rpc, taken};
    if (next != rpc)
        s->e[s->n++] = (gmmu_simt_entry){next, rpc, fall};
    if (s->n > s->peak)
        s->peak = s->n;
    pop_reconverged(s);
    return GMMU_OK;
}
