/* gmmu — the memory-instruction SM's issue decisions (gmmu/sm_simple.h). */
#include "gmmu/sm_simple.h"

#include <stdlib.h>

struct gmmu_sm_simple {
    gmmu_sm_simple_config cfg;
    uint32_t issued;  /* warp instructions issued in the current cycle */
    uint32_t *owed;   /* [warp] non-memory cycles owed to the pipeline */
    uint8_t *replay;  /* [warp] the next instruction replays a faulted access */
};

gmmu_status gmmu_sm_simple_create(const gmmu_sm_simple_config *cfg, gmmu_sm_simple **out,
                                  gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "sm_simple", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "sm_simple", "config is NULL");
    if (cfg->warps == 0 || cfg->warps > GMMU_SM_SIMPLE_MAX_WARPS)
        return gmmu_error_set(err, "warps", "warps %u out of range 1..%u", cfg->warps,
                              GMMU_SM_SIMPLE_MAX_WARPS);
    if (cfg->issue_width == 0)
        return gmmu_error_set(err, "issue_width", "issue width must be >= 1");
    gmmu_sm_simple *s = calloc(1, sizeof *s);
    if (!s)
        return GMMU_ENOMEM;
    s->cfg = *cfg;
    s->owed = calloc(cfg->warps, sizeof *s->owed);
    s->replay = calloc(cfg->warps, sizeof *s->replay);
    if (!s->owed || !s->replay) {
        gmmu_sm_simple_destroy(s);
        return GMMU_ENOMEM;
    }
    *out = s;
    return GMMU_OK;
}

void gmmu_sm_simple_destroy(gmmu_sm_simple *s)
{
    if (!s)
        return;
    free(s->owed);
    free(s->replay);
    free(s);
}

void gmmu_sm_simple_new_cycle(gmmu_sm_simple *s) { s->issued = 0; }

uint32_t gmmu_sm_simple_pipeline(gmmu_sm_simple *s, uint32_t w)
{
    if (!s->cfg.compute_on_pipeline || w >= s->cfg.warps || s->owed[w] == 0)
        return 0;
    const uint32_t n = s->owed[w];
    s->owed[w] = 0;
    s->issued = 0;
    return n;
}

bool gmmu_sm_simple_take_replay(gmmu_sm_simple *s, uint32_t w)
{
    if (w >= s->cfg.warps || !s->replay[w])
        return false;
    s->replay[w] = 0;
    return true;
}

bool gmmu_sm_simple_fault(gmmu_sm_simple *s, uint32_t w, bool lane_fault, gmmu_fault fault,
                          uint16_t asid, uint64_t va, uint32_t *wait_cycles)
{
    if (w >= s->cfg.warps || !lane_fault || fault != GMMU_FAULT_NOT_PRESENT || !s->cfg.page_in_flight ||
        !s->cfg.page_in_flight(s->cfg.ctx, asid, va))
        return false;
    s->replay[w] = 1;
    if (wait_cycles)
        *wait_cycles = s->cfg.retry_cycles;
    return true;
}

uint32_t gmmu_sm_simple_completed(gmmu_sm_simple *s, uint32_t w, uint32_t compute_cycles)
{
    if (!s->cfg.compute_on_pipeline)
        return compute_cycles;
    if (w < s->cfg.warps)
        s->owed[w] = compute_cycles;
    return 0;
}

bool gmmu_sm_simple_issued(gmmu_sm_simple *s)
{
    if (++s->issued < s->cfg.issue_width)
        return false;
    s->issued = 0;
    return true;
}
