/* gmmu — CPWC, the compressed tree-structured page walk cache (Jia et al.).
 *
 *   L4 PWC: l4_entries, direct-mapped by the low log2(l4_entries) bits of the
 *           L4 index; entry = valid, L4 index (tag), base of the L3 table.
 *   L3 PWC: l3_entries, direct-mapped by {low L4-index bits (as the L4 slot),
 *           low log2(l3_entries / l4_entries) L3-index bits}; entry = valid,
 *           L3 index (tag), base of the L2 table, and an l2_blocks-bit mask
 *           naming the L2 blocks this entry owns.
 *   L2 PWC: l2_blocks blocks of block_entries fully associative entries;
 *           entry = valid, L2 index (tag), base of the L1 table.
 * Lookup: L4, L3 and every block compare in parallel (lookup_cycles), then
 * the hitting L3 entry's mask selects the block result (mux_cycles).
 *
 * Mask bit order (as in the paper's figure): the mask is an l2_blocks-bit
 * number whose most significant bit is block 1 (index 0). With 4 blocks,
 * block index 0 is 0b1000 and block index 1 is 0b0100.
 *
 * Dependencies: an L3 entry is valid only under the L4 entry in its slot's
 * L4 part, a block only under the L3 entry whose mask names it. Replacing (or
 * invalidating) an L4 entry drops the L3 entries of its slots and their
 * blocks; replacing an L3 entry drops its blocks. So a hit always returns
 * the base a walk of the current tables would use.
 *
 * L2 fill policy for owner L3 entry s: (1) a free entry in a block s owns;
 * (2) else the lowest-numbered block nobody owns, claimed by s; (3) else the
 * least recently used block (LRU: most recent use of any of its entries;
 * FIFO: most recent fill): if s owns it, its LRU/FIFO entry is replaced,
 * otherwise the block is taken over (its entries dropped, mask bit moved).
 * With one-entry blocks this is plain LRU/FIFO over all L2 entries. */
#ifndef GMMU_CPWC_H
#define GMMU_CPWC_H

#include "gmmu/pwc.h"

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmmu_cpwc gmmu_cpwc;

typedef struct gmmu_cpwc_entry_view {
    bool valid;
    uint16_t tag;       /* the level's 9-bit index */
    uint64_t base;      /* L4: L3-table base, L3: L2-table base, L2: L1-table base */
    uint64_t mask[GMMU_PWC_CPWC_MAX_BLOCKS / 64u]; /* L3 only: bit i of word i/64 is mask bit i */
} gmmu_cpwc_entry_view;

gmmu_status gmmu_cpwc_validate(const gmmu_pwc_config *cfg, gmmu_error *err);
/* l4 x 74 + l3 x (74 + l2_blocks) + l2_blocks x block_entries x 74; with
 * 2/4/N one-entry blocks this is the paper's (6 + N) x 74 + 4N. */
uint64_t gmmu_cpwc_bits(const gmmu_pwc_config *cfg);
gmmu_status gmmu_cpwc_create(const gmmu_pwc_config *cfg, gmmu_cpwc **out, gmmu_error *err);
void gmmu_cpwc_destroy(gmmu_cpwc *c);
gmmu_status gmmu_cpwc_match(gmmu_cpwc *c, uint64_t va, bool touch, gmmu_pwc_path *path);
gmmu_status gmmu_cpwc_fill(gmmu_cpwc *c, const gmmu_pwc_path *path, gmmu_pwc_stats *st);
void gmmu_cpwc_invalidate_all(gmmu_cpwc *c, gmmu_pwc_stats *st);
void gmmu_cpwc_invalidate_range(gmmu_cpwc *c, uint64_t lo48, uint64_t hi48, gmmu_pwc_stats *st);

/* Slot numbers for a VA, and the contents of each store. */
unsigned gmmu_cpwc_l4_slot(const gmmu_cpwc *c, uint64_t va);
unsigned gmmu_cpwc_l3_slot(const gmmu_cpwc *c, uint64_t va);
gmmu_status gmmu_cpwc_l4_entry(const gmmu_cpwc *c, unsigned slot, gmmu_cpwc_entry_view *v);
gmmu_status gmmu_cpwc_l3_entry(const gmmu_cpwc *c, unsigned slot, gmmu_cpwc_entry_view *v);
gmmu_status gmmu_cpwc_l2_entry(const gmmu_cpwc *c, unsigned block, unsigned way,
                               gmmu_cpwc_entry_view *v);

const gmmu_cpwc *gmmu_pwc_cpwc(const gmmu_pwc *p);

#ifdef __cplusplus
}
#endif
#endif
