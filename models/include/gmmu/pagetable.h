/* gmmu — x86-64 4-level page tables: PTE format, table builder, walker.
 *
 * The tables live in a physical memory image the caller owns; the model
 * touches it only through gmmu_mem_ops (callbacks with a context pointer),
 * so any number of page tables and walkers can coexist. */
#ifndef GMMU_PAGETABLE_H
#define GMMU_PAGETABLE_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- x86-64 PTE bits ---------------------------------------------------- */
#define GMMU_PTE_P (1ull << 0)      /* present */
#define GMMU_PTE_W (1ull << 1)      /* writable */
#define GMMU_PTE_U (1ull << 2)      /* user */
#define GMMU_PTE_PWT (1ull << 3)
#define GMMU_PTE_PCD (1ull << 4)
#define GMMU_PTE_A (1ull << 5)      /* accessed */
#define GMMU_PTE_D (1ull << 6)      /* dirty (leaf only) */
#define GMMU_PTE_PS (1ull << 7)     /* page size: leaf at level 3 (1 GiB) or 2 (2 MiB) */
#define GMMU_PTE_G (1ull << 8)
#define GMMU_PTE_NX (1ull << 63)
/* Software (AVL) bits 11:9 of a leaf: contiguity hint set by the driver. A
 * value n says the naturally aligned block of 2^n pages holding this page maps
 * to a contiguous, equally aligned physical block with the same permissions
 * (like ARM's contiguous bit), so a TLB may cache the block in one entry. */
#define GMMU_PTE_CONTIG_SHIFT 9u
#define GMMU_PTE_CONTIG_MASK (7ull << GMMU_PTE_CONTIG_SHIFT)
#define GMMU_PTE_ADDR_MASK 0x000FFFFFFFFFF000ull /* bits 51:12 */

#define GMMU_PAGE_4K_SHIFT 12u
#define GMMU_PAGE_2M_SHIFT 21u
#define GMMU_PAGE_1G_SHIFT 30u
#define GMMU_PT_LEVELS 4u
#define GMMU_PT_ENTRIES 512u

/* Level numbering follows pichai-asplos14 and jia-cpwc: 4 = PML4 (VA 47:39), 3 = PDP (38:30),
 * 2 = PD (29:21), 1 = PT (20:12). */
static inline unsigned gmmu_va_index(uint64_t va, unsigned level)
{
    return (unsigned)((va >> (12u + 9u * (level - 1u))) & 0x1FFu);
}
/* Canonical 48-bit VA: bits 63:47 all equal. */
static inline bool gmmu_va_canonical(uint64_t va)
{
    uint64_t top = va >> 47;
    return top == 0 || top == 0x1FFFFull;
}

/* ---- memory access ------------------------------------------------------ */
/* Read/write one naturally aligned 8-byte word at physical address pa.
 * Return GMMU_OK or an error (propagated as GMMU_EMEM). */
typedef gmmu_status (*gmmu_mem_read64_fn)(void *ctx, uint64_t pa, uint64_t *val);
typedef gmmu_status (*gmmu_mem_write64_fn)(void *ctx, uint64_t pa, uint64_t val);

typedef struct gmmu_mem_ops {
    gmmu_mem_read64_fn read64;
    gmmu_mem_write64_fn write64; /* may be NULL for read-only users (walkers) */
    void *ctx;
} gmmu_mem_ops;

/* ---- page-table builder ------------------------------------------------- */
/* Physical frame allocator for page-table pages: returns a 4 KiB aligned PA
 * in *pa. The builder zeroes the frame through mem ops. */
typedef gmmu_status (*gmmu_frame_alloc_fn)(void *ctx, uint64_t *pa);

typedef struct gmmu_pt {
    gmmu_mem_ops mem;
    gmmu_frame_alloc_fn alloc;
    void *alloc_ctx;
    uint64_t root;          /* PA of the PML4 table (CR3) */
    uint64_t table_pages;   /* page-table pages allocated, root included */
    uint64_t mapped_pages[3]; /* leaves mapped: [0]=4K, [1]=2M, [2]=1G */
} gmmu_pt;

/* Mapping permission flags for gmmu_pt_map (subset of PTE bits). */
#define GMMU_MAP_W GMMU_PTE_W
#define GMMU_MAP_U GMMU_PTE_U
#define GMMU_MAP_NX GMMU_PTE_NX
#define GMMU_MAP_CONTIG(n) (((uint64_t)(n) & 7u) << GMMU_PTE_CONTIG_SHIFT)

/* Lifecycle (every model alike, docs/architecture.md): create checks its
 * arguments, names a bad one in err and returns the handle in *out;
 * destroy frees the handle (NULL is a no-op). The tables live in the memory
 * behind mem: create allocates the root there with alloc(alloc_ctx), and
 * destroy leaves every table in place. */
gmmu_status gmmu_pt_create(const gmmu_mem_ops *mem, gmmu_frame_alloc_fn alloc, void *alloc_ctx,
                           gmmu_pt **out, gmmu_error *err);
void gmmu_pt_destroy(gmmu_pt *pt);
/* Map [va, va + 2^page_shift) to pa. page_shift is 12, 21 or 30; va and pa
 * aligned to the page; va canonical. flags: GMMU_MAP_W | GMMU_MAP_U | GMMU_MAP_NX |
 * GMMU_MAP_CONTIG(n).
 * Returns GMMU_EEXIST if any part is already mapped. */
gmmu_status gmmu_pt_map(gmmu_pt *pt, uint64_t va, uint64_t pa, unsigned page_shift,
                        uint64_t flags, gmmu_error *err);
/* Remove the leaf mapping that covers va (any size). GMMU_EFAULT if none. */
gmmu_status gmmu_pt_unmap(gmmu_pt *pt, uint64_t va);
/* Clear or set bits of the leaf PTE covering va (e.g. clear P to make a page
 * fault, or clear A/D). */
gmmu_status gmmu_pt_update_leaf(gmmu_pt *pt, uint64_t va, uint64_t set_bits, uint64_t clear_bits);
/* Point the leaf PTE covering va (present or not) at frame pa, keeping its
 * flags (a page migration). pa must be aligned to the leaf's page size:
 * GMMU_EINVAL otherwise; GMMU_EFAULT if no leaf covers va. *page_shift (if
 * non-NULL) gets the leaf's page size. */
gmmu_status gmmu_pt_set_frame(gmmu_pt *pt, uint64_t va, uint64_t pa, unsigned *page_shift);

/* ---- walker ------------------------------------------------------------- */
typedef enum gmmu_fault {
    GMMU_FAULT_NONE = 0,
    GMMU_FAULT_NOT_PRESENT = 1,
    GMMU_FAULT_WRITE = 2,      /* write to a read-only page */
    GMMU_FAULT_USER = 3,       /* user access to a supervisor page */
    GMMU_FAULT_NONCANONICAL = 4,
    GMMU_FAULT_RESERVED = 5,   /* PS set at level 4, or a large leaf's frame bits below its
                                * page size set (bit 12, PAT, excepted) */
    GMMU_FAULT_BUS_ERROR = 6   /* a page-table read got an error response (set by walkers, not gmmu_walk) */
} gmmu_fault;

const char *gmmu_fault_str(gmmu_fault f);

/* Access kind of a walk. */
#define GMMU_ACC_WRITE 1u
#define GMMU_ACC_USER 2u
#define GMMU_ACC_SET_AD 4u /* walker sets A (and D on write) in the PTEs, as x86 hardware does */

typedef struct gmmu_walk_result {
    gmmu_fault fault;
    unsigned fault_level;      /* level whose entry faulted (4..1), 0 if none */
    uint64_t pa;               /* translated physical address of va */
    unsigned page_shift;       /* 12, 21 or 30 */
    uint64_t pte;              /* leaf PTE */
    unsigned nreads;           /* page-table reads issued */
    uint64_t read_pa[GMMU_PT_LEVELS]; /* PA of every PTE read, in order */
    unsigned read_level[GMMU_PT_LEVELS];
    /* Base PA of the table used at each level (index = level); valid for
     * levels from start_level down to the leaf level. Page-walk caches fill
     * from these. */
    uint64_t table_base[GMMU_PT_LEVELS + 1];
    /* The entry read at each level (index = level), for the levels this walk
     * read (from start_level down to the leaf or the faulting level). */
    uint64_t level_pte[GMMU_PT_LEVELS + 1];
    /* Permissions of the translation accumulated over the levels read, as x86
     * combines them: W and U only if every level has them, NX if any level
     * has it; A and D are the leaf's. A walk that started below the root
     * (after a page-walk-cache hit) relies on the skipped levels being
     * permissive (W, U, no NX): page-walk caches only keep such prefixes
     * (gmmu_pwc_path_from_walk). Valid when fault == GMMU_FAULT_NONE. */
    uint64_t perms;
} gmmu_walk_result;

/* The permission bits a translation carries (GMMU_PTE_W/U/NX/A/D). */
#define GMMU_PTE_PERM_MASK (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX | GMMU_PTE_A | GMMU_PTE_D)

/* An upper-level entry that restricts nothing below it (W, U, no NX). */
static inline int gmmu_pte_permissive(uint64_t pte)
{
    return (pte & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX)) == (GMMU_PTE_W | GMMU_PTE_U);
}

/* ---- the order in which a walk judges an entry (one rule for every walker) --
 * x86-64 (SDM vol. 3, 4.7) and SMMUv3 report a translation fault before a
 * permission fault: the walk reaches the leaf, and only a complete
 * translation is judged for permission. At each level, in order:
 *   1. P clear: not-present (translation) fault at this level;
 *   2. reserved bits: PS at level 4, or at a leaf a frame address with bits
 *      set below the page size (a 2 MiB / 1 GiB leaf's bit 12 is PAT, not
 *      part of the frame: accepted); reserved fault at this level;
 *   3. permission: U clear for a user access, else W clear for a write;
 *      the first such entry is remembered, not reported, and the walk
 *      goes on;
 *   4. at the leaf (level 1 or PS): a remembered permission failure is
 *      the fault (its kind and level are the first failing entry's).
 * So a not-present PTE under a read-only or supervisor PDE is a
 * not-present fault. A walk that sets A/D stops setting them once a
 * permission failure is remembered. */
typedef struct gmmu_walk_perm {
    uint64_t wu;           /* W and U of every upper entry so far (AND) */
    uint64_t nx;           /* NX of any upper entry so far (OR) */
    uint8_t denied;        /* first permission failure (gmmu_fault), judged at the leaf */
    uint8_t denied_level;  /* its level */
} gmmu_walk_perm;

static inline void gmmu_walk_perm_init(gmmu_walk_perm *p)
{
    p->wu = GMMU_PTE_W | GMMU_PTE_U;
    p->nx = 0;
    p->denied = 0;
    p->denied_level = 0;
}

typedef enum gmmu_pte_verdict {
    GMMU_PTE_NEXT = 0,  /* a table pointer: go down */
    GMMU_PTE_LEAF = 1,  /* the leaf, translation allowed */
    GMMU_PTE_FAULT = 2  /* *fault / *fault_level say which */
} gmmu_pte_verdict;

/* Judge the entry pte read at `level` for an access (GMMU_ACC_* bits) in the
 * order above; p carries the upper levels' state (gmmu_walk_perm_init at the
 * first level read). */
gmmu_pte_verdict gmmu_pte_judge(unsigned level, uint64_t pte, unsigned access, gmmu_walk_perm *p,
                                gmmu_fault *fault, unsigned *fault_level);
/* The frame a leaf at `level` maps (PAT of a large leaf masked off). */
uint64_t gmmu_pte_leaf_frame(unsigned level, uint64_t pte);

/* Serial walk of va from the table at `table_base` at level `start_level`
 * (4 = from the root). Reads each PTE through mem->read64 and records its PA.
 * Returns GMMU_OK when the walk completed (r->fault says whether the access
 * faulted), GMMU_EMEM if a read failed, GMMU_EINVAL on bad arguments. */
gmmu_status gmmu_walk_from(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level,
                           uint64_t va, unsigned access, gmmu_walk_result *r);
/* The same walk, the same reads, writes and result, except that the
 * per-read record (read_pa, read_level, table_base, level_pte) stays zero:
 * for a walker whose page-walk cache, A/D write-back, lock-step twin and
 * trace do not ask for it (docs/performance.md, "Walker"). */
gmmu_status gmmu_walk_outcome(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level,
                              uint64_t va, unsigned access, gmmu_walk_result *r);

static inline gmmu_status gmmu_walk(const gmmu_mem_ops *mem, uint64_t root, uint64_t va,
                                    unsigned access, gmmu_walk_result *r)
{
    return gmmu_walk_from(mem, root, 4u, va, access, r);
}

#ifdef __cplusplus
}
#endif
#endif
