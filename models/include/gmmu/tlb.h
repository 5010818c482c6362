/* gmmu — set-associative TLB golden model.
 *
 * Geometry: `entries` split into sets of `ways`. With `sets` == 0 the set
 * count is entries / ways and the remainder joins the last set (old
 * behaviour). With an explicit `sets`, the first sets-1 sets have `ways`
 * ways and the last set holds the rest: entries 65, ways 8, sets 7 gives the
 * 6 x 8 + 1 x 17 L2 TLB of Kepler/Pascal. ways == entries gives a fully
 * associative TLB, ways == 1 direct-mapped.
 *
 * An entry maps one TLB page of 2^page_shift bytes (the translation of a
 * larger page-table page is cached as the TLB page that contains the
 * address), or, when the fill says the frames are contiguous, a coverage
 * region of 2^coverage_shift bytes. See docs/tlb.md for the rules.
 *
 * Large pages (config.large): up to two further arrays hold entries of
 * larger pages (2 MiB, 1 GiB) side by side with the TLB-page entries, each
 * set-associative with its own geometry, looked up in parallel with the
 * main array (one lookup latency), as x86 cores' split L1 DTLBs are. A
 * translation of a page at least as large as an array's page goes to the
 * largest such array (gmmu_tlb_fill_plan); every other call of this API
 * keeps working in TLB pages (vpn = VA >> page_shift): lookups, probes and
 * invalidations cover all arrays, and a large entry answers for every TLB
 * page inside it. The main array is looked up first, then the arrays by
 * increasing page size. */
#ifndef GMMU_TLB_H
#define GMMU_TLB_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gmmu_tlb_repl {
    GMMU_TLB_REPL_LRU = 0,
    GMMU_TLB_REPL_PLRU = 1,  /* tree pseudo-LRU (ways per set a power of two) */
    GMMU_TLB_REPL_FIFO = 2,
    GMMU_TLB_REPL_RANDOM = 3 /* xorshift, seeded from config.seed */
} gmmu_tlb_repl;

/* How a tag (VPN, or coverage-region number) picks its set. */
typedef enum gmmu_tlb_index {
    /* set = tag mod sets (a mask when sets is a power of two). */
    GMMU_TLB_INDEX_MODULO = 0,
    /* set = owner of residue (tag mod entries): every set owns as many
     * residues as it has ways, so any `entries` consecutive tags fill the
     * TLB exactly; residues 0..S*m-1 are interleaved over the S sets (m =
     * the smaller of the two way counts), the rest go to the bigger set(s).
     * Same as MODULO when all sets have the same number of ways. */
    GMMU_TLB_INDEX_RESIDUE = 1
} gmmu_tlb_index;

#define GMMU_TLB_MAX_FILL_PAGES 64u
/* Geometry limits, checked by gmmu_tlb_config_check (the platform's config
 * schema states the same ranges from these). A lookup compares every way of
 * its set, so ways are bounded to keep a fully associative TLB usable. */
#define GMMU_TLB_MAX_ENTRIES (1u << 24)
#define GMMU_TLB_MAX_WAYS 4096u
#define GMMU_TLB_MAX_LARGE 2u

/* An array of large-page entries. */
typedef struct gmmu_tlb_large {
    uint32_t shift;   /* page size of its entries (log2 bytes): above page_shift (and the
                       * previous array's), at most 32 */
    uint32_t entries; /* 0: no such array */
    uint32_t ways;    /* 1..entries */
} gmmu_tlb_large;

typedef struct gmmu_tlb_config {
    uint32_t entries;      /* >= 1 */
    uint32_t ways;         /* 1..entries; sets = entries / ways (remainder to the last set)
                            * unless `sets` is given */
    uint32_t page_shift;   /* 12..32: TLB page size */
    gmmu_tlb_repl repl;
    uint32_t lookup_cycles; /* latency of a lookup (hit or miss detect) */
    uint64_t seed;         /* for GMMU_TLB_REPL_RANDOM */
    /* Optional geometry and fill shape; zero means the plain TLB above. */
    uint32_t sets;           /* 0: entries / ways. Else sets-1 sets of `ways` + a last set
                              * of the rest */
    gmmu_tlb_index index;    /* set-index function */
    uint32_t coverage_shift; /* 0 or page_shift..page_shift+20: bytes (log2) one entry may map
                              * when filled with GMMU_TLB_FILL_CONTIG */
    uint32_t fill_pages;     /* 0/1: a fill installs one entry; N (power of two <= 64): a
                              * contiguous fill installs the N entries of the aligned group */
    gmmu_tlb_large large[GMMU_TLB_MAX_LARGE]; /* large-page arrays, by increasing shift;
                                               * entries 0 ends the list */
} gmmu_tlb_config;

typedef struct gmmu_tlb_entry {
    uint64_t vpn;      /* VA >> page_shift (first page the entry maps) */
    uint64_t ppn;      /* PA >> page_shift (frame of page vpn) */
    uint64_t perms;    /* leaf PTE permission bits (GMMU_PTE_W/U/NX/D) */
    uint64_t stamp;    /* LRU: last use; FIFO: fill time */
    uint16_t asid;
    bool valid;
    bool prefetched;    /* filled by a prefetch and not yet hit by a lookup */
    uint8_t span_shift; /* maps pages [vpn, vpn + 2^span_shift): 0 or coverage_shift -
                         * page_shift (or, for large_shift != 0, large_shift - page_shift) */
    uint8_t large_shift; /* an entry of a large-page array as gmmu_tlb_probe and fill
                          * victims report it (vpn/ppn in TLB pages): its page size; 0 for the
                          * main array's entries */
    uint8_t leaf_shift;  /* size (log2 bytes) of the page-table leaf the entry is a piece of,
                          * when larger than what the entry maps (a 4 KiB piece of a 2 MiB
                          * page): an invalidation touching any part of that leaf removes the
                          * entry (GMMU_TLB_FILL_LEAF); 0: the entry is the whole leaf */
    uint32_t hits;      /* lookup hits since the fill */
    uint64_t ready;     /* time the fill's translation arrives (0 = with the fill), set with
                         * gmmu_tlb_set_ready(); in the caller's time unit */
} gmmu_tlb_entry;

typedef struct gmmu_tlb_stats {
    uint64_t accesses, hits, misses, fills, evictions, invalidations;
    /* PICLE prefetches, coverage entries and the generation rule */
    uint64_t prefetch_fills;          /* entries installed by GMMU_TLB_FILL_PREFETCH */
    uint64_t prefetch_redundant;      /* prefetches of a translation already present (no-op) */
    uint64_t prefetch_hits;           /* first lookup hit on a prefetched entry (used) */
    uint64_t prefetch_evicted_unused; /* prefetched entries evicted before any hit */
    uint64_t prefetch_victim_useful;  /* prefetch fills that evicted an entry with >= 1 hit */
    uint64_t coverage_fills;          /* entries installed spanning a coverage region */
    uint64_t stale_fills_dropped;     /* fills dropped: generation changed since walk start */
} gmmu_tlb_stats;

/* A TLB: opaque, made by gmmu_tlb_create and freed by gmmu_tlb_destroy, as
 * the page-walk caches are (gmmu_pwc_create); its counters are read with
 * gmmu_tlb_stats_of. */
typedef struct gmmu_tlb gmmu_tlb;

/* Result of a lookup. */
typedef struct gmmu_tlb_result {
    bool hit;
    uint64_t ppn;
    uint64_t perms;
    uint32_t lru_depth; /* on a hit: number of valid entries of its set used (hit or filled)
                         * more recently; 0 = MRU. Kept for every replacement policy. */
    uint32_t cycles;
    uint64_t ready;     /* on a hit: the entry's ready time (0 = arrived with the fill); a
                         * hit before it completes when the fill's translation arrives */
    uint8_t page_shift; /* on a hit: page size of the entry's array (page_shift, or a
                         * large-page array's shift) */
    uint8_t leaf_shift; /* on a hit: the entry's gmmu_tlb_entry.leaf_shift (0: the entry
                         * is its whole leaf) */
} gmmu_tlb_result;

/* Whether a write that hits an entry with these permissions must still go to
 * the walker: the entry is read-only (the walker decides: a permission fault,
 * or a newer writable PTE), or the page is tracked for A/D (A set) and its
 * dirty bit is clear (the walker sets D in the PTE, as x86 hardware does on
 * the first write through a TLB entry). */
bool gmmu_tlb_write_needs_walk(uint64_t perms);
/* Whether an access (GMMU_ACC_WRITE, GMMU_ACC_USER bits) that hits an entry
 * with these permissions must go to the walker: a write as above, or an
 * unprivileged access to an entry without U (filled by a privileged
 * context's walk; the walker raises the fault). */
bool gmmu_tlb_needs_walk(uint64_t perms, unsigned access);
/* Whether a DMI region over a translation with these permissions may be
 * written through (the TLB component grants read-write DMI only then, and
 * only where the target allows it; otherwise read-only): the PTE's W bit. A
 * DMI write does not set D (a region is granted after a translation, and
 * D is the walker's to set on the first timed write). */
bool gmmu_tlb_dmi_writable(uint64_t perms);
/* Cycles from a batch of n lookups' arrival to its last lookup's answer on
 * a TLB with `ports` lookup ports (>= 1): one lookup per port per cycle, the
 * first cycle costs the full lookup latency, each later cycle one more.
 * (The L1 data path with MSHRs times its ports in gmmu_tlb_access_batch.) */
static inline uint32_t gmmu_tlb_port_cycles(uint32_t lookup_cycles, uint64_t n, uint32_t ports)
{
    return lookup_cycles + (n ? (uint32_t)((n - 1) / ports) : 0u);
}

gmmu_status gmmu_tlb_config_check(const gmmu_tlb_config *cfg, gmmu_error *err);
/* A new TLB of configuration cfg in *out (checked first: an error names the
 * field). gmmu_tlb_destroy frees it (NULL is ignored). */
gmmu_status gmmu_tlb_create(const gmmu_tlb_config *cfg, gmmu_tlb **out, gmmu_error *err);
void gmmu_tlb_destroy(gmmu_tlb *t);
/* Its counters (the main array's; a large-page array's are its own, see
 * gmmu_tlb_large_array), its configuration and its set count. */
const gmmu_tlb_stats *gmmu_tlb_stats_of(const gmmu_tlb *t);
const gmmu_tlb_config *gmmu_tlb_config_of(const gmmu_tlb *t);
uint32_t gmmu_tlb_sets(const gmmu_tlb *t);
/* The large-page array of pages of 2^shift bytes, or NULL if it has none. */
const gmmu_tlb *gmmu_tlb_large_array(const gmmu_tlb *t, unsigned shift);
/* Whether lookups and fills take the fingerprint fast path, which the
 * geometry decides (uniform power-of-two sets of at most 64 ways).
 * gmmu_tlb_use_general_path turns it off for an empty TLB (GMMU_EINVAL once
 * an entry is valid): the same answers, victims and counters, more slowly,
 * so a test can hold the two paths against each other. */
bool gmmu_tlb_fast_path(const gmmu_tlb *t);
gmmu_status gmmu_tlb_use_general_path(gmmu_tlb *t);

/* Look up VPN (VA >> page_shift) for asid; updates replacement state and stats. */
gmmu_status gmmu_tlb_lookup(gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_result *r);
/* Look up without touching state or counters. */
bool gmmu_tlb_probe(const gmmu_tlb *t, uint16_t asid, uint64_t vpn, gmmu_tlb_entry *out);
/* A fill made before its translation arrives (a loosely-timed caller fills at
 * call time): record when it arrives on the entry that maps (asid, vpn), so
 * hits can wait for it (gmmu_tlb_result.ready). Returns false if no entry
 * maps the page. */
bool gmmu_tlb_set_ready(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ready);
void gmmu_tlb_invalidate_all(gmmu_tlb *t);
/* Invalidate the entry mapping vpn for asid, and every entry filled from the
 * same page-table leaf (GMMU_TLB_FILL_LEAF); returns whether one was removed. */
bool gmmu_tlb_invalidate_page(gmmu_tlb *t, uint16_t asid, uint64_t vpn);
uint32_t gmmu_tlb_invalidate_asid(gmmu_tlb *t, uint16_t asid);
/* Invalidate every entry of asid overlapping [va_lo, va_hi]; returns count.
 * A coverage entry overlapping the range is removed whole, and so is every
 * entry whose page-table leaf (GMMU_TLB_FILL_LEAF) overlaps it. */
uint32_t gmmu_tlb_invalidate_range(gmmu_tlb *t, uint16_t asid, uint64_t va_lo, uint64_t va_hi);
/* The same for every ASID. */
uint32_t gmmu_tlb_invalidate_range_all_asids(gmmu_tlb *t, uint64_t va_lo, uint64_t va_hi);
/* The invalidation rule: whether entry e of an array of 2^page_shift-byte
 * pages must go for an invalidation of [va_lo, va_hi] (ASID aside): the
 * bytes it maps, or, for a piece of a larger leaf, the whole leaf, overlap
 * the range. */
bool gmmu_tlb_entry_in_range(const gmmu_tlb_entry *e, unsigned page_shift, uint64_t va_lo,
                             uint64_t va_hi);

/* ---- fill, the generation rule, geometry queries ------------------------ */

/* Fill flags for gmmu_tlb_fill_ex (0: one single-page demand entry). */
#define GMMU_TLB_FILL_CONTIG 1u    /* the caller checked the page table: the aligned block of
                                    * fill_pages x 2^(coverage_shift - page_shift) pages holding
                                    * vpn maps to contiguous frames (page vpn - k -> ppn - k)
                                    * with the same perms */
#define GMMU_TLB_FILL_PREFETCH 2u  /* a prefetch (e.g. an LDT push), not a demand fill */
#define GMMU_TLB_FILL_CHECK_GEN 4u /* drop the fill if gmmu_tlb_generation() != gen */
/* Install into large-page array i (vpn, ppn still in TLB pages: the entry
 * maps the array's page holding vpn; CONTIG does not apply). */
#define GMMU_TLB_FILL_LARGE(i) (8u << (i))
/* The translation comes from a page-table leaf of 2^s bytes (s <= 63). An
 * entry smaller than its leaf remembers the leaf: an invalidation by VA or
 * range that touches any byte of the leaf removes every entry filled from
 * it, at every page size, as one TLBI of a block address must (the TLB may
 * hold 4 KiB pieces of a 2 MiB page). gmmu_tlb_fill_plan sets it. */
#define GMMU_TLB_FILL_LEAF(s) ((uint32_t)((s) & 63u) << 8)
#define GMMU_TLB_FILL_LEAF_OF(flags) (((flags) >> 8) & 63u)

typedef struct gmmu_tlb_fill_out {
    bool dropped;       /* stale generation: nothing installed */
    uint32_t installed; /* entries written (0 for a dropped or redundant prefetch fill) */
    uint32_t nvictims;  /* valid entries evicted to make room, in victims[] */
    gmmu_tlb_entry victims[GMMU_TLB_MAX_FILL_PAGES];
} gmmu_tlb_fill_out;

/* Insert a translation, replacing an existing one for the same vpn/asid (the
 * one fill function of the model). Without GMMU_TLB_FILL_CONTIG one entry
 * for page vpn is installed. With it, the TLB installs fill_pages entries (the aligned group
 * holding vpn, vpn's own entry last so it is the most recent), each spanning
 * one coverage region (2^coverage_shift bytes) or, without coverage, one page.
 * out may be NULL. Returns GMMU_EINVAL for a NULL/uninitialised TLB or a
 * contiguous run whose first frame would be below 0. */
gmmu_status gmmu_tlb_fill_ex(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                             uint64_t perms, uint32_t flags, uint64_t gen,
                             gmmu_tlb_fill_out *out);

/* gmmu_tlb_fill_ex, then, if ready != 0, gmmu_tlb_set_ready(t, asid, vpn,
 * ready) whatever the fill did: the same effects, and when the fill wrote
 * vpn's entry of the main array (the entry set_ready would find) that entry
 * takes `ready` as it is written, without a second search. */
gmmu_status gmmu_tlb_fill_ready(gmmu_tlb *t, uint16_t asid, uint64_t vpn, uint64_t ppn,
                                uint64_t perms, uint32_t flags, uint64_t gen, uint64_t ready,
                                gmmu_tlb_fill_out *out);

/* Invalidation generation: incremented by every invalidate_* call. A walker
 * samples it when the walk starts and passes it to gmmu_tlb_fill_ex with
 * GMMU_TLB_FILL_CHECK_GEN; a fill whose walk overlapped an
 * invalidation is dropped, so a flush during a walk never refills the stale
 * translation. */
uint64_t gmmu_tlb_generation(const gmmu_tlb *t);

/* ---- access decisions (what a TLB component asks the model) ------------- */

/* A TLB's verdict on one access of (asid, vpn). */
typedef enum gmmu_tlb_verdict {
    GMMU_TLB_SERVED = 0, /* an entry translates the access */
    GMMU_TLB_MISSED = 1, /* no entry: ask the next level */
    GMMU_TLB_REWALK = 2  /* an entry, but an access the walker must decide
                          * (gmmu_tlb_needs_walk): ask the next level */
} gmmu_tlb_verdict;

typedef struct gmmu_tlb_answer {
    gmmu_tlb_verdict verdict;
    uint64_t ppn;       /* served: frame of vpn */
    uint64_t perms;     /* served: leaf permission bits */
    uint64_t ready;     /* served: the entry's ready time (0 = arrived), see
                         * gmmu_tlb_result.ready */
    uint8_t span_shift; /* served by a coverage entry: log2 of the pages it vouches
                         * for (0 = one page, or no coverage entries configured) */
    uint8_t page_shift; /* served: page size of the entry (page_shift, or a large-page
                         * array's shift; frames are contiguous over the whole page) */
    uint8_t leaf_shift; /* served: size of the page-table leaf the entry was filled from
                         * (>= page_shift; a level above fills with GMMU_TLB_FILL_LEAF of it) */
    uint32_t lru_depth; /* a hit (not debug): its LRU depth in the set, as gmmu_tlb_result */
} gmmu_tlb_answer;

/* Answer an access (GMMU_ACC_WRITE / GMMU_ACC_USER bits of access): a lookup
 * (replacement state and counters) or, with debug, a probe that changes
 * nothing. */
gmmu_tlb_verdict gmmu_tlb_answer_access(gmmu_tlb *t, uint16_t asid, uint64_t vpn, unsigned access,
                                        bool debug, gmmu_tlb_answer *a);

/* The hit fast path: when gmmu_tlb_answer_access(t, asid, vpn, access, false,
 * a) would return GMMU_TLB_SERVED from the main array, do exactly what it
 * does (replacement state, counters, *a) and return true; otherwise change
 * nothing and return false (the caller then calls gmmu_tlb_answer_access).
 * Only the fingerprint geometry takes it (gmmu_tlb_fast_path); large-page
 * hits, misses and hits the walker must decide always return false. */
bool gmmu_tlb_serve_hit(gmmu_tlb *t, uint16_t asid, uint64_t vpn, unsigned access, gmmu_tlb_answer *a);

/* How to install a next level's translation of a page of 2^page_shift bytes
 * whose leaf PTE says the aligned block of 2^contig_log2 such pages holding
 * it maps contiguously. False: this TLB cannot cache it (the page is smaller
 * than the TLB page). True: *flags for gmmu_tlb_fill_ex: GMMU_TLB_FILL_LARGE(i)
 * for the largest large-page array whose page fits in the page, else
 * GMMU_TLB_FILL_CONTIG when the PTE vouches for the whole block a contiguous
 * fill installs (fill_pages entries of one coverage region or TLB page).
 * *flags also carries GMMU_TLB_FILL_LEAF(page_shift) when the page is larger
 * than the entries installed, so they are invalidated with their leaf. */
bool gmmu_tlb_fill_plan(const gmmu_tlb *t, unsigned page_shift, unsigned contig_log2,
                        uint32_t *flags);

/* Geometry queries (for tests and microbenchmark analysis). */
uint32_t gmmu_tlb_set_of(const gmmu_tlb *t, uint64_t vpn);
uint32_t gmmu_tlb_set_ways(const gmmu_tlb *t, uint32_t set);
/* Number of valid entries. */
uint32_t gmmu_tlb_occupancy(const gmmu_tlb *t);

#ifdef __cplusplus
}
#endif
#endif
