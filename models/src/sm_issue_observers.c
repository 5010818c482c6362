/* gmmu — issue/commit SM: what translated requests tell the throttle
 * (gmmu/ccws.h) and the TLB-aware compaction predictor. */

#include "sm_issue_internal.h"

/* Throttle: what a translated request tells the scores. A miss probes the
 * warp's VTA; a victim enters the VTA of the warp that allocated it, if that
 * warp's block is still on chip. Tags are line numbers (128-B lines). */
static uint32_t slot_warp_of(const struct gmmu_sm_state *s, uint32_t block, uint32_t warp)
{
    if (block == GMMU_SM_NO_BLOCK || warp >= s->wpb)
        return NONE;
    for (uint32_t slot = 0; slot < s->nslots; slot++) {
        uint32_t c = s->slot_ctx[slot];
        if (c != NONE && s->blk[c].id == block)
            return slot * s->wpb + warp;
    }
    return NONE;
}

void gmmu_smi_lls_observe(gmmu_sm *sm, const block_t *b, uint32_t warp, uint64_t va,
                          const gmmu_sm_mem_resp *rs)
{
    struct gmmu_sm_state *s = sm->s;
    if (!s->lls || b->slot == NONE)
        return;
    const uint32_t g = b->slot * s->wpb + warp;
    if (sm->cfg.throttle == GMMU_THROTTLE_TCWS) { /* 4 KiB page tags */
        if (rs->tlb_miss) {
            if (gmmu_ccws_probe(s->lls, g, va >> 12, 1))
                sm->st.vta_hits++;
        } else {
            gmmu_ccws_depth_hit(s->lls, g, rs->tlb_hit_depth);
        }
        uint32_t owner = rs->tlb_victim ? slot_warp_of(s, rs->tlb_victim_block, rs->tlb_victim_warp) : NONE;
        if (owner != NONE) {
            gmmu_ccws_lost(s->lls, owner, rs->tlb_victim_va >> 12);
            sm->st.lines_lost++;
        }
        return;
    }
    const unsigned sh = 7; /* GMMU_SM_LINE_BYTES */
    if (rs->l1_miss) {
        uint32_t weight = 1;
        if (sm->cfg.throttle == GMMU_THROTTLE_TA_CCWS)
            weight = rs->tlb_miss ? sm->cfg.ccws.tlb_weight : sm->cfg.ccws.cache_weight;
        if (gmmu_ccws_probe(s->lls, b->slot * s->wpb + warp, rs->l1_addr >> sh, weight))
            sm->st.vta_hits++;
    }
    uint32_t owner = rs->l1_victim ? slot_warp_of(s, rs->l1_victim_block, rs->l1_victim_warp) : NONE;
    if (owner != NONE) {
        gmmu_ccws_lost(s->lls, owner, rs->l1_victim_addr >> sh);
        sm->st.lines_lost++;
    }
}

/* TLB-aware compaction: the request's page was used by the static warps of
 * its lanes; a TLB eviction takes the victim page's history with it. */
void gmmu_smi_cpm_observe(gmmu_sm *sm, const block_t *b, uint32_t wi, uint32_t lanes, uint64_t va,
                          const gmmu_sm_mem_resp *rs, uint64_t now)
{
    struct gmmu_sm_state *s = sm->s;
    if (b->slot == NONE)
        return;
    if (rs->tlb_victim)
        gmmu_cpm_evict(s->cpm, rs->tlb_victim_va >> 12);
    uint32_t seen = 0; /* static warps done, bit per warp of the block */
    for (uint32_t l = 0; l < LANES; l++) {
        if (!(lanes & (1u << l)))
            continue;
        const uint8_t sw = b->home[(size_t)wi * LANES + l];
        if (sw == GMMU_TBC_NO_THREAD || (seen >> sw & 1u))
            continue;
        seen |= 1u << sw;
        gmmu_cpm_access(s->cpm, va >> 12, b->slot * s->wpb + sw, !rs->tlb_miss, now);
    }
    sm->st.cpm_updates = s->cpm->updates;
    sm->st.cpm_saturations = s->cpm->saturations;
}
