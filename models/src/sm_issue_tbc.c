/* gmmu — issue/commit SM: block-wide thread-block compaction (gmmu/tbc.h). */

#include "sm_issue_internal.h"

#include <stdio.h>

/* Compaction: the block moves on once every dynamic warp has reached the
 * synchronisation point (and, at a branch, resolved it). A change of the
 * top entry regroups the threads, which waits until the block has no
 * instruction in flight and nothing to replay: the dynamic warps' lanes
 * change meaning, and in-flight results and replay-queue masks refer to
 * the old grouping. Dynamic warp k is ready k + 1 cycles after the
 * regrouping (the compactor forms one warp per cycle). */
gmmu_status gmmu_smi_tbc_progress(gmmu_sm *sm, uint32_t c, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    block_t *b = &s->blk[c];
    if (!b->tbc || b->state != B_ACTIVE)
        return GMMU_OK;
    if (!b->regroup) {
        if (b->sync == SYNC_NONE)
            return GMMU_OK;
        for (uint32_t wi = 0; wi < s->wpb; wi++) {
            const warp_t *w = &b->w[wi];
            if (!w->idle && (!w->arrived || (b->sync == SYNC_BRANCH && now < w->branch_until)))
                return GMMU_OK;
        }
        sm->st.block_syncs++;
        if (b->sync == SYNC_BRANCH) {
            const gmmu_insn *in = &sm->kernel->code[b->sync_pc];
            uint64_t splits = b->tbc->splits;
            bool regroup = false;
            gmmu_status st = gmmu_tbc_branch(b->tbc, b->sync_pc, b->taken, (uint32_t)in->imm,
                                             s->ipdom[b->sync_pc], &regroup);
            if (st == GMMU_ENOMEM)
                snprintf(s->failure, sizeof s->failure,
                         "block %u: instruction %u: the block-wide reconvergence stack of compaction "
                         "would be deeper than %u entries", b->id, b->sync_pc, GMMU_TBC_DEPTH);
            if (st != GMMU_OK)
                return st;
            sm->st.divergent_branches += b->tbc->splits - splits;
            if (b->tbc->peak > sm->st.simt_peak_depth)
                sm->st.simt_peak_depth = b->tbc->peak;
            memset(b->taken, 0, s->wpb * sizeof *b->taken);
            b->sync = SYNC_NONE;
            if (!regroup) { /* uniform: the same dynamic warps go on from the top's pc */
                const gmmu_tbc_entry *top = gmmu_tbc_top(b->tbc);
                for (uint32_t wi = 0; wi < s->wpb; wi++) {
                    warp_t *w = &b->w[wi];
                    w->arrived = 0;
                    if (!w->idle) {
                        w->simt.n = 1;
                        w->simt.e[0] = (gmmu_simt_entry){top->pc, top->rpc, slot_lanes(b, wi)};
                    }
                }
                return GMMU_OK;
            }
        } else {
            gmmu_status st = gmmu_tbc_reconverge(b->tbc);
            if (st != GMMU_OK)
                return st;
            b->sync = SYNC_NONE;
        }
        b->regroup = 1;
        b->regroup_since = now;
    }
    for (uint32_t wi = 0; wi < s->wpb; wi++) {
        const warp_t *w = &b->w[wi];
        if (w->ninflight || w->rq.nfaulted || w->state != W_RUN)
            return GMMU_OK;
    }
    b->regroup = 0;
    sm->st.regroup_wait_cycles += now - b->regroup_since;
    if (gmmu_tbc_done(b->tbc)) {
        for (uint32_t wi = 0; wi < s->wpb; wi++)
            b->w[wi].state = W_DONE;
        b->warps_done = s->wpb;
        return gmmu_smi_block_finish(sm, c, now);
    }
    const gmmu_tbc_entry *top = gmmu_tbc_top(b->tbc);
    uint32_t n = gmmu_tbc_compact(top->mask, s->wpb, s->cpm, b->slot * s->wpb, b->home);
    sm->st.compactions++;
    sm->st.dynamic_warps += n;
    for (uint32_t wi = 0; wi < s->wpb; wi++) {
        warp_t *w = &b->w[wi];
        w->arrived = 0;
        w->idle = wi >= n;
        gmmu_simt_reset(&w->simt, 0, 1);
        if (w->idle)
            continue;
        w->simt.n = 1;
        w->simt.peak = 1;
        w->simt.e[0] = (gmmu_simt_entry){top->pc, top->rpc, slot_lanes(b, wi)};
        const uint8_t *h = b->home + (size_t)wi * LANES;
        uint8_t first = GMMU_TBC_NO_THREAD;
        for (uint32_t l = 0; l < LANES; l++) {
            if (h[l] == GMMU_TBC_NO_THREAD)
                continue;
            if (first == GMMU_TBC_NO_THREAD) {
                first = h[l];
            } else if (h[l] != first) {
                sm->st.mixed_warps++;
                break;
            }
        }
        w->branch_until = now + 1 + wi;
        gmmu_status st = ev_push(s, w->branch_until, EV_RESUME, c, wi);
        if (st != GMMU_OK)
            return st;
    }
    return GMMU_OK;
}
