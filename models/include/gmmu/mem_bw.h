/* gmmu — the memory's bandwidth limit (components/memory.h,
 * memory.bytes_per_cycle > 0): which window of cycles an access's bytes are
 * booked in, and how long the access waits for it.
 *
 * Time is cut into windows of GMMU_MEM_BW_WINDOW_CYCLES cycles, each able to
 * move bytes_per_cycle x GMMU_MEM_BW_WINDOW_CYCLES bytes. An access at cycle
 * c is booked in the first window at or after c's own window with room for
 * its bytes (an access larger than a window takes an empty one), and waits
 * from c until that window starts (0 when it is c's own window). Loosely-timed
 * initiators arrive slightly out of time order, so a booking ahead in time
 * never delays an earlier access: windows are looked up by their number, not
 * in arrival order. GMMU_MEM_BW_RING windows are remembered; an access that
 * finds all of them full waits until the window one ring ahead of its own
 * (saturated) and books nothing. */
#ifndef GMMU_MEM_BW_H
#define GMMU_MEM_BW_H

#include "gmmu/status.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_MEM_BW_WINDOW_SHIFT 6u                           /* 64-cycle windows */
#define GMMU_MEM_BW_WINDOW_CYCLES (1u << GMMU_MEM_BW_WINDOW_SHIFT)
#define GMMU_MEM_BW_RING (1u << 14)                           /* windows booked ahead (1 M cycles) */
#define GMMU_MEM_BW_SECTOR_BYTES 32u

typedef struct gmmu_mem_bw_config {
    uint32_t bytes_per_cycle; /* >= 1 (an unlimited memory has no model) */
} gmmu_mem_bw_config;

typedef struct gmmu_mem_bw_stats {
    uint64_t bytes_booked; /* bytes of every booking (saturated ones too) */
    uint64_t waits;        /* accesses that started in a later window than their own */
    uint64_t wait_cycles;  /* the cycles they waited */
} gmmu_mem_bw_stats;

typedef struct gmmu_mem_bw {
    uint64_t capacity;  /* bytes per window */
    uint64_t *used;     /* [GMMU_MEM_BW_RING] bytes booked in the window held by the slot */
    uint64_t *window;   /* [GMMU_MEM_BW_RING] the window number the slot holds (~0: none) */
    gmmu_mem_bw_stats st;
} gmmu_mem_bw;

/* Lifecycle (docs/architecture.md): create checks cfg (bytes_per_cycle >= 1,
 * named in err) and returns the model with every window empty; destroy frees
 * it (NULL is a no-op). */
gmmu_status gmmu_mem_bw_create(const gmmu_mem_bw_config *cfg, gmmu_mem_bw **out, gmmu_error *err);
void gmmu_mem_bw_destroy(gmmu_mem_bw *b);

/* Book `bytes` (>= 1) for an access at `cycle`: the cycles it waits. */
uint64_t gmmu_mem_bw_book(gmmu_mem_bw *b, uint64_t cycle, uint64_t bytes);

/* The bytes a warp access of `lanes` active lanes of `lane_bytes` each
 * moves: rounded up to whole 32-byte sectors. */
static inline uint64_t gmmu_mem_bw_warp_bytes(uint32_t lanes, uint32_t lane_bytes)
{
    return ((uint64_t)lanes * lane_bytes + (GMMU_MEM_BW_SECTOR_BYTES - 1)) &
           ~(uint64_t)(GMMU_MEM_BW_SECTOR_BYTES - 1);
}

#ifdef __cplusplus
}
#endif

#endif
