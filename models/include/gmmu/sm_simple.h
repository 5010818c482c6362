/* gmmu — the memory-instruction SM's issue decisions (components/sm.h,
 * sm.model=simple).
 *
 * The TLM SM keeps time, its socket and its counters; which warp issues is
 * gmmu/warp_sched.h's. This model decides the rest, per warp and per SM
 * cycle, in the SM's cycles:
 *   - issue width: at most issue_width warp instructions issue in one cycle;
 *     the SM's time advances one cycle when they are used up, and every
 *     later cycle starts with all of them free;
 *   - a warp's non-memory work (warp_op::compute_cycles after an access):
 *     without compute_on_pipeline it delays only that warp (every warp of the
 *     SM computes at once); with it, the warp owes the cycles to the SM's one
 *     issue pipeline, which spends them when the warp is next picked, before
 *     its next instruction, and no other warp issues meanwhile;
 *   - replay: an access that faults not-present on a page the platform says
 *     is being migrated (page_in_flight) touched no memory; the warp waits
 *     retry_cycles and issues the same access again, as on a GPU with
 *     replayable faults. Any other failed access ends the run. */
#ifndef GMMU_SM_SIMPLE_H
#define GMMU_SM_SIMPLE_H

#include "gmmu/pagetable.h"
#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_SM_SIMPLE_MAX_WARPS 4096u /* = GMMU_WARP_PICKER_MAX_WARPS */

typedef struct gmmu_sm_simple_config {
    uint32_t warps;        /* 1 .. GMMU_SM_SIMPLE_MAX_WARPS */
    uint32_t issue_width;  /* warp instructions per cycle, >= 1 */
    uint32_t retry_cycles; /* wait before a replayed access issues again */
    bool compute_on_pipeline;
    /* Whether the page at va of address space asid is being migrated (a
     * not-present fault on it is replayed). NULL: no page is, every fault
     * ends the run. */
    bool (*page_in_flight)(void *ctx, uint16_t asid, uint64_t va);
    void *ctx;
} gmmu_sm_simple_config;

typedef struct gmmu_sm_simple gmmu_sm_simple;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg,
 * names a bad field in err and returns the model in *out (no warp owes
 * compute or replays; the current cycle's issue slots are free); destroy
 * frees it (NULL is a no-op). */
gmmu_status gmmu_sm_simple_create(const gmmu_sm_simple_config *cfg, gmmu_sm_simple **out,
                                  gmmu_error *err);
void gmmu_sm_simple_destroy(gmmu_sm_simple *s);

/* The SM's time moved on to a later cycle (to a warp's ready time): every
 * issue slot is free again. */
void gmmu_sm_simple_new_cycle(gmmu_sm_simple *s);

/* Warp w was picked: the cycles the SM's pipeline spends now on w's owed
 * non-memory work before w issues (0 when it owes none, always 0 without
 * compute_on_pipeline). A nonzero answer clears the debt and moves the SM
 * to a new cycle (gmmu_sm_simple_new_cycle). */
uint32_t gmmu_sm_simple_pipeline(gmmu_sm_simple *s, uint32_t w);

/* Whether w's next instruction is the replay of its faulted access; true
 * once per replay (the flag is then cleared). */
bool gmmu_sm_simple_take_replay(gmmu_sm_simple *s, uint32_t w);

/* w's access failed. lane_fault: a lane faulted in translation (fault and
 * va say how and where); false: the access failed otherwise. true: the
 * access is replayed: w waits *wait_cycles (retry_cycles) after the access's
 * latency, then gmmu_sm_simple_take_replay(w) says so. false: the run
 * fails. */
bool gmmu_sm_simple_fault(gmmu_sm_simple *s, uint32_t w, bool lane_fault, gmmu_fault fault,
                          uint16_t asid, uint64_t va, uint32_t *wait_cycles);

/* w's access completed, with compute_cycles of non-memory work after it:
 * the cycles after the access's latency until w is ready again
 * (compute_cycles; 0 with compute_on_pipeline, where w owes them to the
 * pipeline instead). */
uint32_t gmmu_sm_simple_completed(gmmu_sm_simple *s, uint32_t w, uint32_t compute_cycles);

/* A warp instruction issued in the current cycle: true when that used the
 * cycle's last slot, so the SM's time advances one cycle (whose slots are
 * then free). */
bool gmmu_sm_simple_issued(gmmu_sm_simple *s);

#ifdef __cplusplus
}
#endif
#endif
