/* gmmu — page-walk caches (PWC): one interface over TPC, STC, UPTC and CPWC.
 *
 * A PWC caches the non-leaf part of x86-64 4-level walks: for a VA it says at
 * which level a walk may start and from which table. The walker calls
 *
 *     gmmu_pwc_lookup(p, root, va, &hit);            // start level + table
 *     gmmu_walk_from(mem, hit.table_base, hit.start_level, va, acc, &w);
 *     gmmu_pwc_fill(p, va, &w);                      // cache what it found
 *
 * Kinds (see docs/pwc.md for the full description and storage formulas):
 *   TPC   translation-path cache: fully associative entries, each holding one
 *         path (L4, L3, L2 index + the three table bases), 220 bits/entry.
 *   STC   split translation cache (Intel): three independent stores for
 *         L4, L4+L3 and L4+L3+L2 prefixes, looked up in parallel.
 *   UPTC  unified page table cache (AMD): entries tagged by (table base,
 *         index); lookups are sequential, one probe per level.
 *   CPWC  compressed PWC (Jia et al.): direct-mapped L4 and L3 stores, an L2
 *         store split into fully associative blocks owned by L3 entries
 *         through a per-L3-entry mask, a mux step selecting the block.
 *
 * Levels follow pichai-asplos14 and jia-cpwc: 4 = PML4 (VA 47:39) ... 1 = PT (VA 20:12).
 *
 * Contexts: TPC, STC and CPWC entries carry no root (CR3) or ASID tag (the
 * papers' storage accounting has none, and the RTL twins match it), so a
 * walker that serves several address spaces asks gmmu_pwc_context_enter()
 * before every lookup and fill and flushes the PWC when it says so. UPTC
 * entries are tagged by the physical base of their table, which is a context
 * tag already.
 *
 * Permissions: an entry lets a walk skip the upper levels' entries, so it
 * would also skip their W/U/NX checks. gmmu_pwc_path_from_walk therefore only
 * offers the PWC table bases below permissive entries (W, U, no NX): a PWC hit
 * always means that the skipped levels restrict nothing.
 *
 * TPC and CPWC have RTL twins and expose a cycle-step interface
 * (gmmu_pwc_step) on the same state as the functional calls. */
#ifndef GMMU_PWC_H
#define GMMU_PWC_H

#include "gmmu/pagetable.h"
#include "gmmu/status.h"

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gmmu_pwc_kind {
    GMMU_PWC_NONE = 0,
    GMMU_PWC_TPC = 1,
    GMMU_PWC_STC = 2,
    GMMU_PWC_UPTC = 3,
    GMMU_PWC_CPWC = 4
} gmmu_pwc_kind;

typedef enum gmmu_pwc_repl {
    GMMU_PWC_REPL_LRU = 0,  /* least recently used (hit or fill) */
    GMMU_PWC_REPL_FIFO = 1  /* oldest fill */
} gmmu_pwc_repl;

/* Storage accounting constants (bits), as the CPWC paper counts them: a
 * table base is 64 bits, an index 9 bits, a valid bit 1. */
#define GMMU_PWC_BASE_BITS 64u
#define GMMU_PWC_INDEX_BITS 9u
#define GMMU_PWC_TPC_ENTRY_BITS (1u + 3u * GMMU_PWC_INDEX_BITS + 3u * GMMU_PWC_BASE_BITS) /* 220 */
#define GMMU_PWC_CPWC_ENTRY_BITS (1u + GMMU_PWC_INDEX_BITS + GMMU_PWC_BASE_BITS)         /* 74 */
#define GMMU_PWC_UPTC_ENTRY_BITS (1u + GMMU_PWC_BASE_BITS + GMMU_PWC_INDEX_BITS + GMMU_PWC_BASE_BITS) /* 138 */
/* STC entry of the store for level k (k = 4, 3, 2): valid + (5-k) indices + base. */
#define GMMU_PWC_STC_ENTRY_BITS(k) (1u + (5u - (k)) * GMMU_PWC_INDEX_BITS + GMMU_PWC_BASE_BITS)

/* Limits checked by gmmu_pwc_create. */
#define GMMU_PWC_MAX_ENTRIES 4096u      /* TPC entries, STC/UPTC store entries, CPWC block entries */
#define GMMU_PWC_CPWC_MAX_BLOCKS 256u   /* L2 blocks = mask width */
#define GMMU_PWC_MAX_LATENCY 8u         /* lookup latency in cycles (TPC, CPWC pipeline depth) */

typedef struct gmmu_pwc_config {
    gmmu_pwc_kind kind;
    gmmu_pwc_repl replacement;   /* for the associative parts of every kind */
    struct {
        uint32_t entries;        /* 1..4096, fully associative */
        uint32_t hit_cycles;     /* 1..8: lookup latency (one parallel compare) */
    } tpc;
    struct {
        /* Store for prefixes ending at level 4, 3, 2 (index 0 = L4, 1 = L3, 2 = L2). */
        uint32_t entries[3];     /* 1..4096 each */
        uint32_t ways[3];        /* 0 = fully associative; else entries/ways sets (power of two) */
        uint32_t hit_cycles;     /* 1..8: the three stores are looked up in parallel */
    } stc;
    struct {
        uint32_t entries;        /* 1..4096 */
        uint32_t ways;           /* 0 = fully associative; else entries/ways sets (power of two) */
        uint32_t probe_cycles;   /* 1..8: cost of each of the up to 3 sequential probes */
    } uptc;
    struct {
        uint32_t l4_entries;     /* power of two 1..512, direct-mapped by low L4-index bits */
        uint32_t l3_entries;     /* power of two, multiple of l4_entries, l3/l4 <= 512: slot =
                                  * {low L4-index bits, low L3-index bits} */
        uint32_t l2_blocks;      /* 1..256 blocks; the L3 mask has one bit per block */
        uint32_t block_entries;  /* 1..4096 entries per block, fully associative */
        uint32_t lookup_cycles;  /* 1..8: parallel L4/L3/all-block compare */
        uint32_t mux_cycles;     /* 0..7: mask-driven block select; lookup+mux <= 8 */
    } cpwc;
} gmmu_pwc_config;

typedef struct gmmu_pwc gmmu_pwc; /* opaque; allocated by gmmu_pwc_create only */

typedef struct gmmu_pwc_hit {
    unsigned start_level;  /* 4 = walk from the root (miss), 3, 2 or 1 */
    uint64_t table_base;   /* base of the table at start_level (the root for 4) */
    unsigned reads_left;   /* page-table reads left for a 4 KiB leaf = start_level */
    unsigned cycles;       /* lookup latency */
} gmmu_pwc_hit;

typedef struct gmmu_pwc_stats {
    uint64_t lookups;
    uint64_t misses;      /* deepest hit: none (start level 4) */
    uint64_t hit_l4;      /* deepest hit: the L4 index (start level 3) */
    uint64_t hit_l3;      /* deepest hit: the L3 index (start level 2) */
    uint64_t hit_l2;      /* deepest hit: the L2 index (start level 1) */
    uint64_t lookup_cycles;        /* sum of lookup latencies */
    uint64_t fills;                /* gmmu_pwc_fill calls / cycle-step fills */
    uint64_t entries_written;      /* entries (or entry parts) created by fills */
    uint64_t evictions;            /* valid entries replaced by fills */
    uint64_t invalidations;        /* invalidate_all / invalidate_range calls */
    uint64_t entries_invalidated;  /* entries dropped by those calls */
    uint64_t dependent_invalidations; /* CPWC: entries dropped because the L4/L3 entry they
                                       * depend on was replaced */
    uint64_t squashed;             /* cycle step: in-flight lookups turned into misses by an
                                    * invalidation */
} gmmu_pwc_stats;

/* A walked path, the common fill input of every kind: base[k] is the base of
 * the table used at level k (k = 1..4) and is meaningful when bit k of
 * `known` is set. */
typedef struct gmmu_pwc_path {
    uint64_t va;
    uint64_t base[GMMU_PT_LEVELS + 1];
    unsigned known;
} gmmu_pwc_path;

/* VA bits 47:0 of the region an entry for `level` covers (4: 512 GiB, 3: 1 GiB,
 * 2: 2 MiB) intersect [lo48, hi48]? va48 is any address inside the region. */
static inline int gmmu_pwc_region_hit(unsigned level, uint64_t va48, uint64_t lo48, uint64_t hi48)
{
    unsigned shift = 12u + 9u * (level - 1u);
    uint64_t r0 = va48 & ~((1ull << shift) - 1u);
    uint64_t r1 = r0 + ((1ull << shift) - 1u);
    return r0 <= hi48 && r1 >= lo48;
}
/* VA (bits 47:0) of the region named by indices (L4, L3, L2). */
static inline uint64_t gmmu_pwc_prefix_va(unsigned i4, unsigned i3, unsigned i2)
{
    return ((uint64_t)i4 << 39) | ((uint64_t)i3 << 30) | ((uint64_t)i2 << 21);
}

/* ---- configuration ---------------------------------------------------------- */
/* Defaults: TPC 24 entries, STC 2/4/52, UPTC 38 entries (all 5,280 bits or just
 * under), CPWC 2 L4, 4 L3, 62 one-entry blocks (5,280 bits). */
gmmu_status gmmu_pwc_config_default(gmmu_pwc_kind kind, gmmu_pwc_config *cfg);
/* Largest geometry of the kind's default shape that fits in `bits`: TPC
 * entries, STC L2-store entries, UPTC entries, CPWC blocks (block_entries is
 * doubled while the block count would pass 256). GMMU_EINVAL (field "bits")
 * if not even the smallest geometry fits. */
gmmu_status gmmu_pwc_config_for_bits(gmmu_pwc_kind kind, uint64_t bits, gmmu_pwc_config *cfg,
                                     gmmu_error *err);
/* Storage of a configured geometry without creating it (0 for NONE or an
 * invalid config). */
uint64_t gmmu_pwc_config_bits(const gmmu_pwc_config *cfg);
gmmu_status gmmu_pwc_config_validate(const gmmu_pwc_config *cfg, gmmu_error *err);

/* ---- lifetime ------------------------------------------------------------- */
gmmu_status gmmu_pwc_create(const gmmu_pwc_config *cfg, gmmu_pwc **out, gmmu_error *err);
void gmmu_pwc_destroy(gmmu_pwc *p);

/* ---- functional interface --------------------------------------------------- */
gmmu_status gmmu_pwc_lookup(gmmu_pwc *p, uint64_t root, uint64_t va, gmmu_pwc_hit *hit);
/* Cache what the completed walk `w` of `va` found. Levels the walk did not
 * reach are ignored; large-page and faulting walks cache only entries that
 * point to a table the walk really used. When the walk started below the root
 * (after a PWC hit), the upper bases come from the PWC's own entries. */
gmmu_status gmmu_pwc_fill(gmmu_pwc *p, uint64_t va, const gmmu_walk_result *w);
/* Same, from an explicit path (used by the walker when it holds the bases). */
gmmu_status gmmu_pwc_fill_path(gmmu_pwc *p, const gmmu_pwc_path *path);
void gmmu_pwc_invalidate_all(gmmu_pwc *p);
/* Drop every entry whose VA region (512 GiB for an L4-index entry, 1 GiB for
 * L4+L3, 2 MiB for L4+L3+L2) intersects [va_lo, va_hi] (inclusive, canonical
 * VAs compared on bits 47:0). UPTC entries carry no VA, so UPTC flushes all. */
void gmmu_pwc_invalidate_range(gmmu_pwc *p, uint64_t va_lo, uint64_t va_hi);

uint64_t gmmu_pwc_bits(const gmmu_pwc *p);
const gmmu_pwc_stats *gmmu_pwc_get_stats(const gmmu_pwc *p);
void gmmu_pwc_reset_stats(gmmu_pwc *p);
const gmmu_pwc_config *gmmu_pwc_get_config(const gmmu_pwc *p);
/* Latency of a lookup in cycles for TPC, STC and CPWC (UPTC varies per lookup:
 * probes x probe_cycles; this returns the 3-probe maximum). */
unsigned gmmu_pwc_latency(const gmmu_pwc *p);

const char *gmmu_pwc_kind_name(gmmu_pwc_kind kind);
/* "none", "tpc", "stc", "uptc", "cpwc" (case-insensitive). */
gmmu_status gmmu_pwc_kind_parse(const char *s, gmmu_pwc_kind *out);

/* Bases the walk result makes known (levels start..deepest). */
gmmu_status gmmu_pwc_path_from_walk(uint64_t va, const gmmu_walk_result *w, gmmu_pwc_path *path);

/* Which context the PWC's entries belong to. */
typedef struct gmmu_pwc_context {
    uint64_t root;      /* table root (CR3) of the bound context */
    int bound;          /* 0 until the first lookup or fill */
    uint64_t flushes;   /* context switches that flushed the PWC */
} gmmu_pwc_context;

/* Before a lookup or fill of a walk from `root`: returns 1 when the PWC must be
 * flushed first (it holds another context's entries and `kind` has no context
 * tag), 0 otherwise; binds the context to root. */
int gmmu_pwc_context_enter(gmmu_pwc_context *c, gmmu_pwc_kind kind, uint64_t root);

/* ---- cycle-step interface (TPC and CPWC) -----------------------------------
 * One call = one clock cycle. Outputs are registered: `out` is computed from
 * the state at the start of the cycle, then the cycle's inputs are applied in
 * this order at the clock edge:
 *   1. lookup: tag compare on the state before this cycle's fill/invalidate;
 *      recency updated; the result enters a pipeline of depth L (TPC:
 *      tpc.hit_cycles, CPWC: cpwc.lookup_cycles + cpwc.mux_cycles) and
 *      appears on `out` exactly L calls later;
 *   2. fill (one path per cycle);
 *   3. invalidate (all, or range): applied after the fill; every lookup still
 *      in the pipeline, including this cycle's, is turned into a miss
 *      (start level 4, base = its root) so no stale base leaves the PWC.
 * A lookup, a fill and an invalidate may all be valid in the same cycle;
 * there is no back-pressure. Layouts are pinned for the RTL bench. */
typedef struct gmmu_pwc_cycle_in {
    uint8_t lookup_valid;
    uint8_t fill_valid;
    uint8_t fill_levels;   /* bit (k-1) set: fill_base_lk valid, k = 1..3 */
    uint8_t inv_valid;     /* invalidate this cycle */
    uint8_t inv_all;       /* with inv_valid: 1 = all, 0 = range [inv_lo, inv_hi] */
    uint8_t pad0[3];
    uint64_t lookup_va;
    uint64_t lookup_root;  /* returned as table_base on a miss */
    uint64_t fill_va;
    uint64_t fill_base_l3; /* base of the L3 (PDP) table: data of the L4-index entry */
    uint64_t fill_base_l2; /* base of the L2 (PD) table */
    uint64_t fill_base_l1; /* base of the L1 (PT) table */
    uint64_t inv_lo;
    uint64_t inv_hi;
} gmmu_pwc_cycle_in;

typedef struct gmmu_pwc_cycle_out {
    uint8_t hit_valid;     /* a lookup result is on the outputs this cycle */
    uint8_t start_level;   /* 4 (miss), 3, 2 or 1 */
    uint8_t pad0[6];
    uint64_t table_base;
} gmmu_pwc_cycle_out;

static_assert(sizeof(gmmu_pwc_cycle_in) == 72, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, fill_levels) == 2, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, inv_all) == 4, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, lookup_va) == 8, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, fill_va) == 24, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, fill_base_l3) == 32, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, fill_base_l1) == 48, "gmmu_pwc_cycle_in layout");
static_assert(offsetof(gmmu_pwc_cycle_in, inv_hi) == 64, "gmmu_pwc_cycle_in layout");
static_assert(sizeof(gmmu_pwc_cycle_out) == 16, "gmmu_pwc_cycle_out layout");
static_assert(offsetof(gmmu_pwc_cycle_out, start_level) == 1, "gmmu_pwc_cycle_out layout");
static_assert(offsetof(gmmu_pwc_cycle_out, table_base) == 8, "gmmu_pwc_cycle_out layout");

/* GMMU_EINVAL for kinds without a cycle model (NONE, STC, UPTC) or bad input
 * (fill_levels > 7, lookup_valid/fill_valid/inv_valid not 0/1). */
gmmu_status gmmu_pwc_step(gmmu_pwc *p, const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out);

#ifdef __cplusplus
}
#endif
#endif
