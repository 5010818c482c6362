/* gmmu — thread block compaction (TBC, Fung and Aamodt, HPCA'11, as
 * pichai-asplos14 §8 describes it) and its TLB-aware variant (pichai §8.2).
 *
 * Block-wide reconvergence stack (gmmu_tbc_stack): the entries of
 * gmmu/simt_stack.h, but an entry's mask covers every thread of the block
 * (mask[w] bit l = thread l of the block's static warp w). The same rules:
 * a divergent branch leaves the top waiting at the branch's immediate
 * post-dominator and pushes the taken path, then the fall-through path on
 * top; paths starting at the reconvergence pc are not pushed; a top whose
 * reconvergence pc equals the branch's is replaced, not kept twice. The
 * block's dynamic warps run the top entry; they all stop at the next
 * conditional branch or at the entry's reconvergence pc (a block-wide
 * synchronisation), and the block moves on once all have arrived.
 *
 * Compaction (gmmu_tbc_compact): the top entry's threads are packed into
 * dynamic warps. A thread keeps its lane (its registers sit in its lane's
 * register bank), so dynamic warp k takes at most one thread per lane. The
 * compactor forms warp 0, then warp 1, ...: each lane's priority encoder
 * picks its remaining thread of the lowest static warp. TLB-agnostic TBC
 * takes that thread; a full block thus compacts back into its static warps,
 * and a path of n threads in its busiest lane takes n dynamic warps.
 * TLB-aware TBC takes a lane's first remaining thread only if its static
 * warp's row of the Common Page Matrix is saturated for every other static
 * warp already in the dynamic warp; a lane with no such thread stays empty
 * in this warp — unless the lane has as many threads left as there are
 * dynamic warps left to form (nwarps - k), when it takes its first thread
 * regardless, so a path never needs more dynamic warps than the block has
 * warp slots.
 *
 * Common Page Matrix (gmmu_cpm): a saturating counter of counter_bits for
 * every ordered pair of an SM's static warps (row: the warp that hit,
 * column: a warp that used the page before). Each TLB entry keeps a history
 * of the last `history` distinct warps that used it; the model keeps that
 * history in a table of `pages` entries (the TLB's capacity, LRU) that its
 * user fills on TLB misses, updates on hits and empties on the TLB's
 * evictions. A hit by warp w adds one to counter[w][h] for every warp h != w
 * in the page's history, then makes w its most recent user. Every
 * flush_cycles cycles all counters clear.
 *
 * Fixed capacity per block (GMMU_TBC_MAX_WARPS static warps, depth
 * GMMU_TBC_DEPTH); the CPM allocates once at init. */
#ifndef GMMU_TBC_H
#define GMMU_TBC_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_TBC_MAX_WARPS 32u
/* Block-wide reconvergence stack entries. A block's threads leave a loop
 * with several exits on more paths than a warp's 32 lanes do: mummergpu's
 * suffix-tree walk reaches 14 entries per warp and 54 block-wide (60
 * blocks of 8 warps), past the 32 of the per-warp stack. Deeper than this
 * stops the SM (GMMU_ENOMEM, gmmu_sm_failure says so). */
#define GMMU_TBC_DEPTH 128u
#define GMMU_TBC_NO_THREAD 0xFFu

typedef struct gmmu_tbc_entry {
    uint32_t pc, rpc;
    uint32_t mask[GMMU_TBC_MAX_WARPS]; /* [static warp] lanes */
} gmmu_tbc_entry;

typedef struct gmmu_tbc_stack {
    uint32_t nwarps;                 /* static warps of the block */
    uint32_t n;                      /* e[n - 1] is the top */
    uint32_t peak;
    gmmu_tbc_entry e[GMMU_TBC_DEPTH];
    uint64_t branches, splits, reconverged;
} gmmu_tbc_stack;

/* nwarps full warps (1..GMMU_TBC_MAX_WARPS) at pc 0, reconverging at
 * exit_pc. GMMU_EINVAL if nwarps is out of range or exit_pc is 0. */
gmmu_status gmmu_tbc_reset(gmmu_tbc_stack *s, uint32_t nwarps, uint32_t exit_pc);
static inline bool gmmu_tbc_done(const gmmu_tbc_stack *s) { return s->n == 0; }
static inline const gmmu_tbc_entry *gmmu_tbc_top(const gmmu_tbc_stack *s)
{
    return s->n ? &s->e[s->n - 1] : 0;
}
/* Every dynamic warp of the top entry reached the conditional branch at pc
 * (target `target`, immediate post-dominator rpc); taken[w] holds the lanes
 * of static warp w that take it (a subset of the top's mask). *regroup:
 * the top entry changed (a split, or a path that ended at its
 * reconvergence pc), so the block must compact again; otherwise the top
 * just moved to the branch's one destination. GMMU_EINVAL on a bad taken
 * mask or an empty stack; GMMU_ENOMEM if the depth would be exceeded
 * (nothing changes then). */
gmmu_status gmmu_tbc_branch(gmmu_tbc_stack *s, uint32_t pc, const uint32_t *taken, uint32_t target,
                            uint32_t rpc, bool *regroup);
/* The block is converged: the top entry holds every thread the bottom one
 * does (no thread waits on a deeper entry). Compaction honours a block
 * barrier (BAR) only there: the stack runs one entry at a time, so a BAR
 * reached by the top entry's threads while others wait below could never
 * release (docs/simt.md, "Barriers under compaction"). */
bool gmmu_tbc_converged(const gmmu_tbc_stack *s);
/* Every dynamic warp of the top entry reached its reconvergence pc: pop it
 * (and any entry below that is waiting at its own). GMMU_EINVAL if empty. */
gmmu_status gmmu_tbc_reconverge(gmmu_tbc_stack *s);

/* ---- Common Page Matrix --------------------------------------------------- */

typedef struct gmmu_cpm_config {
    uint32_t warps;        /* static warps of the SM (rows and columns), 1..256 */
    uint32_t counter_bits; /* 1..8 (3) */
    uint32_t history;      /* warps remembered per TLB entry, 1..8 (2) */
    uint32_t pages;        /* TLB entries whose history is kept, 1..65536 */
    uint32_t flush_cycles; /* clear every counter this often, 0 = never (500) */
} gmmu_cpm_config;

typedef struct gmmu_cpm gmmu_cpm;
struct gmmu_cpm {
    gmmu_cpm_config cfg;
    uint8_t *cnt;      /* [row * warps + col] */
    uint64_t *page;    /* [pages] virtual page numbers */
    uint64_t *used;    /* [pages] LRU stamp, 0 = free */
    uint8_t *hist;     /* [pages * history] warps, most recent first */
    uint8_t *nhist;    /* [pages] */
    uint64_t stamp;
    uint64_t last_flush;
    uint64_t updates, saturations, flushes;
};

gmmu_status gmmu_cpm_config_check(const gmmu_cpm_config *c, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_cpm_create(const gmmu_cpm_config *cfg, gmmu_cpm **out, gmmu_error *err);
void gmmu_cpm_destroy(gmmu_cpm *m);
/* Warp `warp` used virtual page `vpn` at cycle now; tlb_hit says whether its
 * TLB lookup hit. A hit updates the counters from the page's history (a
 * page the table does not know starts one); a miss starts the page's
 * history afresh (the TLB fills a new entry). Flushes first if due. */
void gmmu_cpm_access(gmmu_cpm *m, uint64_t vpn, uint32_t warp, bool tlb_hit, uint64_t now);
/* The TLB evicted vpn: its history goes with it. */
void gmmu_cpm_evict(gmmu_cpm *m, uint64_t vpn);
/* Counter [row][col] is at its maximum (row == col: true). */
bool gmmu_cpm_saturated(const gmmu_cpm *m, uint32_t row, uint32_t col);
uint32_t gmmu_cpm_counter(const gmmu_cpm *m, uint32_t row, uint32_t col);
/* Bits of state: warps x (warps - 1) counters, plus `history` warp ids of
 * ceil(log2(warps)) bits per TLB entry (tlb_entries of them). */
uint64_t gmmu_cpm_state_bits(const gmmu_cpm_config *c, uint32_t tlb_entries);

/* ---- compaction ------------------------------------------------------------ */

/* The compactor as a cycle-step model (the interface a later RTL twin is
 * checked against): start it with the top entry's mask, then each step is
 * one cycle, in which every lane's priority encoder picks at most one thread
 * and one dynamic warp leaves. */
typedef struct gmmu_tbc_compactor {
    uint32_t nwarps;
    uint32_t formed;                   /* dynamic warps formed so far */
    uint32_t left[GMMU_TBC_MAX_WARPS]; /* threads not yet placed */
    uint32_t rem[32];                  /* per lane */
    uint32_t total;
    const struct gmmu_cpm *cpm;
    uint32_t cpm_base;
} gmmu_tbc_compactor;

/* GMMU_EINVAL if mask is NULL or nwarps is out of range. */
gmmu_status gmmu_tbc_compactor_start(gmmu_tbc_compactor *c, const uint32_t *mask, uint32_t nwarps,
                                     const struct gmmu_cpm *cpm, uint32_t cpm_base);
static inline bool gmmu_tbc_compactor_done(const gmmu_tbc_compactor *c)
{
    return c->total == 0 || c->formed == c->nwarps;
}
/* One cycle: the next dynamic warp, home[l] = its lane l's static warp or
 * GMMU_TBC_NO_THREAD. false (home untouched) when done. */
bool gmmu_tbc_compactor_step(gmmu_tbc_compactor *c, uint8_t home[32]);

/* Pack mask[0..nwarps-1] (lanes of each static warp) into dynamic warps:
 * home[k * 32 + l] = the static warp of dynamic warp k's lane l, or
 * GMMU_TBC_NO_THREAD. cpm NULL: TLB-agnostic; otherwise TLB-aware with
 * static warp w at CPM row/column cpm_base + w. home has nwarps * 32 slots;
 * the warps past the returned count are all empty. Returns the number of
 * dynamic warps formed (0 for an empty mask, at most nwarps). */
uint32_t gmmu_tbc_compact(const uint32_t *mask, uint32_t nwarps, const gmmu_cpm *cpm, uint32_t cpm_base,
                          uint8_t *home);

#ifdef __cplusplus
}
#endif
#endif
