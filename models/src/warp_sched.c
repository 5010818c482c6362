#include "gmmu/warp_sched.h"

#include <stddef.h>

unsigned gmmu_warp_pick_earliest(const uint64_t *ready, const uint8_t *finished, unsigned n,
                                 unsigned rr)
{
    if (!ready || !finished || n == 0 || rr >= n)
        return n;
    unsigned w = n;
    unsigned c = rr;
    for (unsigned k = 0; k < n; k++) {
        if (!finished[c] && (w == n || ready[c] < ready[w]))
            w = c;
        if (++c == n)
            c = 0;
    }
    return w;
}
