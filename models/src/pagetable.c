#include "gmmu/pagetable.h"
#include "pte_judge_inline.h"

#include <stdlib.h>
#include <string.h>

const char *gmmu_fault_str(gmmu_fault f)
{
    switch (f) {
    case GMMU_FAULT_NONE: return "none";
    case GMMU_FAULT_NOT_PRESENT: return "not-present";
    case GMMU_FAULT_WRITE: return "write-protect";
    case GMMU_FAULT_USER: return "user-protect";
    case GMMU_FAULT_NONCANONICAL: return "non-canonical";
    case GMMU_FAULT_RESERVED: return "reserved-bit";
    case GMMU_FAULT_BUS_ERROR: return "bus-error";
    }
    return "unknown";
}

static gmmu_status rd(const gmmu_mem_ops *m, uint64_t pa, uint64_t *v)
{
    return m->read64(m->ctx, pa, v) == GMMU_OK ? GMMU_OK : GMMU_EMEM;
}

static gmmu_status wr(const gmmu_mem_ops *m, uint64_t pa, uint64_t v)
{
    return m->write64(m->ctx, pa, v) == GMMU_OK ? GMMU_OK : GMMU_EMEM;
}

static gmmu_status new_table(gmmu_pt *pt, uint64_t *pa)
{
    uint64_t frame = 0;
    if (pt->alloc(pt->alloc_ctx, &frame) != GMMU_OK)
        return GMMU_ENOMEM;
    if (frame & 0xFFFull)
        return GMMU_ENOMEM;
    for (unsigned i = 0; i < GMMU_PT_ENTRIES; i++)
        if (wr(&pt->mem, frame + 8ull * i, 0) != GMMU_OK)
            return GMMU_EMEM;
    pt->table_pages++;
    *pa = frame;
    return GMMU_OK;
}

static gmmu_status pt_init_into(gmmu_pt *pt, const gmmu_mem_ops *mem, gmmu_frame_alloc_fn alloc,
                         void *alloc_ctx, gmmu_error *err)
{
    if (!pt)
        return gmmu_error_set(err, "pt", "page table pointer is NULL");
    if (!mem || !mem->read64 || !mem->write64)
        return gmmu_error_set(err, "mem", "page-table builder needs read64 and write64");
    if (!alloc)
        return gmmu_error_set(err, "alloc", "page-table builder needs a frame allocator");
    memset(pt, 0, sizeof *pt);
    pt->mem = *mem;
    pt->alloc = alloc;
    pt->alloc_ctx = alloc_ctx;
    return new_table(pt, &pt->root);
}

static unsigned leaf_level(unsigned page_shift)
{
    return page_shift == GMMU_PAGE_1G_SHIFT ? 3u : page_shift == GMMU_PAGE_2M_SHIFT ? 2u : 1u;
}

gmmu_status gmmu_pt_map(gmmu_pt *pt, uint64_t va, uint64_t pa, unsigned page_shift,
                        uint64_t flags, gmmu_error *err)
{
    if (!pt)
        return gmmu_error_set(err, "pt", "page table pointer is NULL");
    if (page_shift != GMMU_PAGE_4K_SHIFT && page_shift != GMMU_PAGE_2M_SHIFT &&
        page_shift != GMMU_PAGE_1G_SHIFT)
        return gmmu_error_set(err, "page_shift", "page size 2^%u is not 4 KiB, 2 MiB or 1 GiB",
                              page_shift);
    uint64_t psz = 1ull << page_shift;
    if (va & (psz - 1))
        return gmmu_error_set(err, "va", "VA 0x%llx not aligned to the page size",
                              (unsigned long long)va);
    if (pa & (psz - 1))
        return gmmu_error_set(err, "pa", "PA 0x%llx not aligned to the page size",
                              (unsigned long long)pa);
    if (pa & ~GMMU_PTE_ADDR_MASK)
        return gmmu_error_set(err, "pa", "PA 0x%llx beyond 52 bits", (unsigned long long)pa);
    if (!gmmu_va_canonical(va) || !gmmu_va_canonical(va + psz - 1))
        return gmmu_error_set(err, "va", "VA 0x%llx is not canonical", (unsigned long long)va);
    if (flags & ~(GMMU_MAP_W | GMMU_MAP_U | GMMU_MAP_NX | GMMU_PTE_CONTIG_MASK))
        return gmmu_error_set(err, "flags", "unknown mapping flags 0x%llx",
                              (unsigned long long)flags);

    unsigned leaf = leaf_level(page_shift);
    uint64_t table = pt->root;
    for (unsigned level = 4; level > leaf; level--) {
        uint64_t pte_pa = table + 8ull * gmmu_va_index(va, level);
        uint64_t pte;
        if (rd(&pt->mem, pte_pa, &pte) != GMMU_OK)
            return GMMU_EMEM;
        if (pte & GMMU_PTE_P) {
            if (pte & GMMU_PTE_PS)
                return GMMU_EEXIST; /* a larger page already covers va */
            /* Intermediate entries are permissive; the leaf decides. */
            table = pte & GMMU_PTE_ADDR_MASK;
            continue;
        }
        uint64_t next;
        gmmu_status s = new_table(pt, &next);
        if (s != GMMU_OK)
            return s;
        if (wr(&pt->mem, pte_pa, next | GMMU_PTE_P | GMMU_PTE_W | GMMU_PTE_U) != GMMU_OK)
            return GMMU_EMEM;
        table = next;
    }
    uint64_t leaf_pa = table + 8ull * gmmu_va_index(va, leaf);
    uint64_t old;
    if (rd(&pt->mem, leaf_pa, &old) != GMMU_OK)
        return GMMU_EMEM;
    if (old & GMMU_PTE_P)
        return GMMU_EEXIST;
    if (leaf > 1 && (old & GMMU_PTE_ADDR_MASK))
        return GMMU_EEXIST; /* a non-present pointer to a lower table we keep */
    uint64_t pte = pa | GMMU_PTE_P | flags;
    if (leaf > 1)
        pte |= GMMU_PTE_PS;
    if (wr(&pt->mem, leaf_pa, pte) != GMMU_OK)
        return GMMU_EMEM;
    pt->mapped_pages[leaf - 1]++;
    return GMMU_OK;
}

/* Find the PA of the leaf PTE covering va; *level gets its level. */
static gmmu_status find_leaf(gmmu_pt *pt, uint64_t va, uint64_t *leaf_pa, unsigned *level)
{
    if (!gmmu_va_canonical(va))
        return GMMU_EFAULT;
    uint64_t table = pt->root;
    for (unsigned l = 4; l >= 1; l--) {
        uint64_t pte_pa = table + 8ull * gmmu_va_index(va, l);
        uint64_t pte;
        if (rd(&pt->mem, pte_pa, &pte) != GMMU_OK)
            return GMMU_EMEM;
        if (l == 1 || (pte & GMMU_PTE_PS)) {
            if (!(pte & GMMU_PTE_P) && !(pte & GMMU_PTE_ADDR_MASK))
                return GMMU_EFAULT;
            *leaf_pa = pte_pa;
            *level = l;
            return GMMU_OK;
        }
        if (!(pte & GMMU_PTE_P))
            return GMMU_EFAULT;
        table = pte & GMMU_PTE_ADDR_MASK;
    }
    return GMMU_EFAULT;
}

gmmu_status gmmu_pt_unmap(gmmu_pt *pt, uint64_t va)
{
    if (!pt)
        return GMMU_EINVAL;
    uint64_t leaf_pa;
    unsigned level;
    gmmu_status s = find_leaf(pt, va, &leaf_pa, &level);
    if (s != GMMU_OK)
        return s;
    uint64_t pte;
    if (rd(&pt->mem, leaf_pa, &pte) != GMMU_OK)
        return GMMU_EMEM;
    if (wr(&pt->mem, leaf_pa, 0) != GMMU_OK)
        return GMMU_EMEM;
    if (pt->mapped_pages[level - 1])
        pt->mapped_pages[level - 1]--;
    return GMMU_OK;
}

gmmu_status gmmu_pt_update_leaf(gmmu_pt *pt, uint64_t va, uint64_t set_bits, uint64_t clear_bits)
{
    if (!pt || ((set_bits | clear_bits) & GMMU_PTE_ADDR_MASK) || ((set_bits | clear_bits) & GMMU_PTE_PS))
        return GMMU_EINVAL;
    uint64_t leaf_pa;
    unsigned level;
    gmmu_status s = find_leaf(pt, va, &leaf_pa, &level);
    if (s != GMMU_OK)
        return s;
    uint64_t pte;
    if (rd(&pt->mem, leaf_pa, &pte) != GMMU_OK)
        return GMMU_EMEM;
    pte = (pte & ~clear_bits) | set_bits;
    return wr(&pt->mem, leaf_pa, pte);
}

gmmu_status gmmu_pt_set_frame(gmmu_pt *pt, uint64_t va, uint64_t pa, unsigned *page_shift)
{
    if (!pt)
        return GMMU_EINVAL;
    uint64_t leaf_pa;
    unsigned level;
    gmmu_status s = find_leaf(pt, va, &leaf_pa, &level);
    if (s != GMMU_OK)
        return s;
    const unsigned shift = 12 + 9 * (level - 1);
    if ((pa & ((1ull << shift) - 1)) || (pa & ~GMMU_PTE_ADDR_MASK))
        return GMMU_EINVAL;
    uint64_t pte;
    if (rd(&pt->mem, leaf_pa, &pte) != GMMU_OK)
        return GMMU_EMEM;
    const uint64_t frame_mask = GMMU_PTE_ADDR_MASK & ~((1ull << shift) - 1);
    pte = (pte & ~frame_mask) | pa;
    if (page_shift)
        *page_shift = shift;
    return wr(&pt->mem, leaf_pa, pte);
}

uint64_t gmmu_pte_leaf_frame(unsigned level, uint64_t pte)
{
    return gmmu_pte_leaf_frame_inline(level, pte);
}

gmmu_pte_verdict gmmu_pte_judge(unsigned level, uint64_t pte, unsigned access, gmmu_walk_perm *p,
                                gmmu_fault *fault, unsigned *fault_level)
{
    return gmmu_pte_judge_inline(level, pte, access, p, fault, fault_level);
}

/* A walk that sets A/D bits: the judge at every level, since the write-back
 * stops at the first entry that denies the access. */
static gmmu_status walk_set_ad(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level,
                               uint64_t va, unsigned access, gmmu_walk_result *r, bool record)
{
    const bool write = (access & GMMU_ACC_WRITE) != 0;
    gmmu_walk_perm perm;
    gmmu_walk_perm_init(&perm);
    uint64_t table = table_base;
    unsigned nreads = 0;
    for (unsigned level = start_level; level >= 1; level--) {
        const uint64_t pte_pa = table + 8ull * gmmu_va_index(va, level);
        if (record) {
            r->table_base[level] = table;
            r->read_pa[nreads] = pte_pa;
            r->read_level[nreads] = level;
        }
        nreads++;
        uint64_t pte;
        if (rd(mem, pte_pa, &pte) != GMMU_OK) {
            r->nreads = nreads;
            return GMMU_EMEM;
        }
        if (record)
            r->level_pte[level] = pte;
        const uint64_t up_wu = perm.wu, up_nx = perm.nx;
        gmmu_fault f = GMMU_FAULT_NONE;
        unsigned fl = 0;
        const gmmu_pte_verdict v = gmmu_pte_judge_inline(level, pte, access, &perm, &f, &fl);
        if (v == GMMU_PTE_FAULT) {
            r->nreads = nreads;
            r->fault = f;
            r->fault_level = fl;
            return GMMU_OK;
        }
        const bool is_leaf = v == GMMU_PTE_LEAF;
        if (perm.denied == GMMU_FAULT_NONE) {
            uint64_t want = GMMU_PTE_A | ((is_leaf && write) ? GMMU_PTE_D : 0);
            if ((pte & want) != want) {
                pte |= want;
                if (mem->write64(mem->ctx, pte_pa, pte) != GMMU_OK) {
                    r->nreads = nreads;
                    return GMMU_EMEM;
                }
            }
        }
        if (is_leaf) {
            const unsigned shift = 12u + 9u * (level - 1u);
            r->nreads = nreads;
            r->page_shift = shift;
            r->pte = pte;
            r->pa = gmmu_pte_leaf_frame_inline(level, pte) | (va & ((1ull << shift) - 1));
            r->perms = (up_wu & pte) | ((up_nx | pte) & GMMU_PTE_NX) |
                       (pte & (GMMU_PTE_A | GMMU_PTE_D));
            return GMMU_OK;
        }
        table = pte & GMMU_PTE_ADDR_MASK;
    }
    return GMMU_OK; /* unreachable: level 1 is always a leaf */
}

/* The walk of gmmu_walk_from (record: every read's PA and level, each
 * level's table and entry) and of gmmu_walk_outcome (record false: those
 * arrays stay zero). What the walk itself needs is kept in locals, so the
 * opaque read callback does not force it through *r at every level. */
static inline __attribute__((always_inline)) gmmu_status
walk_core(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level, uint64_t va,
          unsigned access, gmmu_walk_result *r, const bool record)
{
    if (!mem || !mem->read64 || !r || start_level < 1 || start_level > 4 ||
        (table_base & 0xFFFull) || ((access & GMMU_ACC_SET_AD) && !mem->write64))
        return GMMU_EINVAL;
    /* Every field cleared, one store each: a memset of the whole result
     * compiles to `rep stos`, whose start-up cost was over a third of a
     * walk's time (docs/performance.md). */
    r->fault = GMMU_FAULT_NONE;
    r->fault_level = 0;
    r->pa = 0;
    r->page_shift = 0;
    r->pte = 0;
    r->nreads = 0;
    for (unsigned i = 0; i < GMMU_PT_LEVELS; i++) {
        r->read_pa[i] = 0;
        r->read_level[i] = 0;
    }
    for (unsigned i = 0; i <= GMMU_PT_LEVELS; i++) {
        r->table_base[i] = 0;
        r->level_pte[i] = 0;
    }
    r->perms = 0;
    if (!gmmu_va_canonical(va)) {
        r->fault = GMMU_FAULT_NONCANONICAL;
        r->fault_level = start_level;
        return GMMU_OK;
    }
    /* The order of the checks is gmmu_pte_judge's (see gmmu/pagetable.h):
     * not-present and reserved bits at every level first; permissions are
     * judged once the leaf is reached. */
    if (access & GMMU_ACC_SET_AD)
        return walk_set_ad(mem, table_base, start_level, va, access, r, record);
    /* No A/D to set: each entry's form is judged as it is read (a
     * not-present or reserved entry ends the walk), its permissions at the
     * leaf over the entries read (gmmu_pte_judge's steps 3 and 4, which
     * never end a walk early), so no permission state lives across the
     * read callback. */
    uint64_t lp[GMMU_PT_LEVELS + 1];
    uint64_t table = table_base;
    uint64_t up_and = ~0ull, up_or = 0; /* the upper entries' bits, ANDed and ORed */
    unsigned level = start_level;
    for (;; level--) {
        const uint64_t pte_pa = table + 8ull * gmmu_va_index(va, level);
        if (record) {
            r->table_base[level] = table;
            r->read_pa[start_level - level] = pte_pa;
            r->read_level[start_level - level] = level;
        }
        uint64_t pte;
        if (rd(mem, pte_pa, &pte) != GMMU_OK) {
            r->nreads = start_level - level + 1;
            return GMMU_EMEM;
        }
        lp[level] = pte;
        if (record)
            r->level_pte[level] = pte;
        gmmu_fault f = GMMU_FAULT_NONE;
        unsigned fl = 0;
        const gmmu_pte_verdict v = gmmu_pte_form_inline(level, pte, &f, &fl);
        if (v == GMMU_PTE_FAULT) {
            r->nreads = start_level - level + 1;
            r->fault = f;
            r->fault_level = fl;
            return GMMU_OK;
        }
        if (v == GMMU_PTE_LEAF)
            break;
        up_and &= pte;
        up_or |= pte;
        table = pte & GMMU_PTE_ADDR_MASK;
    }
    r->nreads = start_level - level + 1;
    const uint64_t pte = lp[level];
    const uint64_t need = ((access & GMMU_ACC_USER) ? GMMU_PTE_U : 0) |
                          ((access & GMMU_ACC_WRITE) ? GMMU_PTE_W : 0);
    if (__builtin_expect((up_and & pte & need) != need, 0)) {
        /* Some entry denies the access: the first one, by the judge's step 3
         * over the entries read, is the fault (step 4). */
        gmmu_walk_perm perm;
        gmmu_walk_perm_init(&perm);
        for (unsigned l = start_level; l >= level; l--)
            gmmu_pte_perm_inline(l, lp[l], access, l == level, &perm);
        gmmu_fault f = GMMU_FAULT_NONE;
        unsigned fl = 0;
        gmmu_pte_leaf_inline(&perm, &f, &fl);
        r->fault = f;
        r->fault_level = fl;
        return GMMU_OK;
    }
    /* The judge's accumulated W/U (AND) and NX (OR) of the upper entries. */
    const uint64_t up_wu = up_and & (GMMU_PTE_W | GMMU_PTE_U), up_nx = up_or & GMMU_PTE_NX;
    const unsigned shift = 12u + 9u * (level - 1u);
    r->page_shift = shift;
    r->pte = pte;
    r->pa = gmmu_pte_leaf_frame_inline(level, pte) | (va & ((1ull << shift) - 1));
    r->perms = (up_wu & pte) | ((up_nx | pte) & GMMU_PTE_NX) | (pte & (GMMU_PTE_A | GMMU_PTE_D));
    return GMMU_OK;
}

gmmu_status gmmu_walk_from(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level,
                           uint64_t va, unsigned access, gmmu_walk_result *r)
{
    return walk_core(mem, table_base, start_level, va, access, r, true);
}

gmmu_status gmmu_walk_outcome(const gmmu_mem_ops *mem, uint64_t table_base, unsigned start_level,
                              uint64_t va, unsigned access, gmmu_walk_result *r)
{
    return walk_core(mem, table_base, start_level, va, access, r, false);
}

gmmu_status gmmu_pt_create(const gmmu_mem_ops *mem, gmmu_frame_alloc_fn alloc, void *alloc_ctx,
                           gmmu_pt **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "pt", "output pointer is NULL");
    *out = NULL;
    gmmu_pt *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = pt_init_into(x, mem, alloc, alloc_ctx, err);
    if (s != GMMU_OK) {
        /* nothing allocated yet */
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_pt_destroy(gmmu_pt *x)
{
    if (!x)
        return;
    free(x);
}
