/* gmmu — the memory's bandwidth windows (gmmu/mem_bw.h). */
#include "gmmu/mem_bw.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_mem_bw_create(const gmmu_mem_bw_config *cfg, gmmu_mem_bw **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "mem_bw", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "mem_bw", "config is NULL");
    if (cfg->bytes_per_cycle == 0)
        return gmmu_error_set(err, "bytes_per_cycle",
                              "must be >= 1 (an unlimited memory books nothing)");
    gmmu_mem_bw *b = calloc(1, sizeof *b);
    if (!b)
        return GMMU_ENOMEM;
    b->capacity = (uint64_t)cfg->bytes_per_cycle << GMMU_MEM_BW_WINDOW_SHIFT;
    b->used = calloc(GMMU_MEM_BW_RING, sizeof *b->used);
    b->window = malloc(GMMU_MEM_BW_RING * sizeof *b->window);
    if (!b->used || !b->window) {
        gmmu_mem_bw_destroy(b);
        return GMMU_ENOMEM;
    }
    memset(b->window, 0xff, GMMU_MEM_BW_RING * sizeof *b->window);
    *out = b;
    return GMMU_OK;
}

void gmmu_mem_bw_destroy(gmmu_mem_bw *b)
{
    if (!b)
        return;
    free(b->used);
    free(b->window);
    free(b);
}

static uint64_t waited(gmmu_mem_bw *b, uint64_t wait)
{
    if (wait) {
        b->st.waits++;
        b->st.wait_cycles += wait;
    }
    return wait;
}

uint64_t gmmu_mem_bw_book(gmmu_mem_bw *b, uint64_t cycle, uint64_t bytes)
{
    b->st.bytes_booked += bytes;
    uint64_t w = cycle >> GMMU_MEM_BW_WINDOW_SHIFT;
    for (uint32_t tries = 0; tries < GMMU_MEM_BW_RING; tries++, w++) {
        const uint32_t i = (uint32_t)(w % GMMU_MEM_BW_RING);
        if (b->window[i] != w) { /* the slot held an older window: it is this one now, empty */
            b->window[i] = w;
            b->used[i] = 0;
        }
        if (b->used[i] == 0 || b->used[i] + bytes <= b->capacity) {
            b->used[i] += bytes;
            const uint64_t start = w << GMMU_MEM_BW_WINDOW_SHIFT;
            return waited(b, start > cycle ? start - cycle : 0);
        }
    }
    return waited(b, (w << GMMU_MEM_BW_WINDOW_SHIFT) - cycle); /* saturated: a whole ring ahead */
}
