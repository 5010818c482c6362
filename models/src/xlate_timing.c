#include "gmmu/xlate_timing.h"

/* Doublings of v above ref, rounded up (0 when v <= ref). */
static uint32_t doublings_above(uint32_t v, uint32_t ref)
{
    uint32_t n = 0;
    uint64_t r = ref;
    while (r < v) {
        r <<= 1;
        n++;
    }
    return n;
}

uint32_t gmmu_tlb_access_cycles(gmmu_tlb_latency_model model, uint32_t base_cycles,
                                uint32_t step_cycles, uint32_t entries, uint32_t ports)
{
    if (model != GMMU_TLB_LATENCY_SCALED)
        return base_cycles;
    const uint64_t steps = (uint64_t)doublings_above(entries, GMMU_TLB_REF_ENTRIES) +
                           doublings_above(ports, GMMU_TLB_REF_PORTS);
    const uint64_t c = base_cycles + steps * step_cycles;
    return c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

uint64_t gmmu_warp_dispatch_times(const uint64_t *ready, uint32_t n, bool overlap, uint64_t *at)
{
    uint64_t last = 0;
    for (uint32_t i = 0; i < n; i++)
        if (ready[i] > last)
            last = ready[i];
    for (uint32_t i = 0; i < n; i++)
        at[i] = overlap ? ready[i] : last;
    return last;
}
