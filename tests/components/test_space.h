// One address space for the component tests: its own x86-64 tables (gmmu_pt)
// in a shared gmmu::memory, page-table frames from its own pool, and a
// reference walk of the current tables.
#pragma once

#include <gtest/gtest.h>

#include "gmmu/components/memory.h"

extern "C" {
#include "gmmu/pagetable.h"
}

struct Space {
    gmmu::memory &mem;
    gmmu_pt *pt = nullptr; // owned
    ~Space() { gmmu_pt_destroy(pt); }
    Space(const Space &) = delete;
    Space &operator=(const Space &) = delete;
    uint64_t next;
    static gmmu_status rd(void *c, uint64_t pa, uint64_t *v)
    {
        *v = static_cast<Space *>(c)->mem.read64(pa);
        return GMMU_OK;
    }
    static gmmu_status wr(void *c, uint64_t pa, uint64_t v)
    {
        static_cast<Space *>(c)->mem.write64(pa, v);
        return GMMU_OK;
    }
    static gmmu_status alloc(void *c, uint64_t *pa)
    {
        auto *s = static_cast<Space *>(c);
        *pa = s->next;
        s->next += 4096;
        return GMMU_OK;
    }
    Space(gmmu::memory &m, uint64_t pt_base) : mem(m), next(pt_base)
    {
        gmmu_mem_ops ops{&rd, &wr, this};
        gmmu_error err{};
        EXPECT_EQ(gmmu_pt_create(&ops, &alloc, this, &pt, &err), GMMU_OK);
    }
    void map(uint64_t va, uint64_t pa, uint64_t flags = GMMU_MAP_W | GMMU_MAP_U)
    {
        gmmu_error err{};
        ASSERT_EQ(gmmu_pt_map(pt, va, pa, 12, flags, &err), GMMU_OK) << err.msg;
    }
    void unmap(uint64_t va) { ASSERT_EQ(gmmu_pt_unmap(pt, va), GMMU_OK); }
    // The reference: a plain walk of the current tables.
    gmmu_walk_result walk(uint64_t va, bool write) const
    {
        gmmu_walk_result w;
        EXPECT_EQ(gmmu_walk(&pt->mem, pt->root, va, GMMU_ACC_USER | (write ? GMMU_ACC_WRITE : 0u), &w),
                  GMMU_OK);
        return w;
    }
    // PA of the entry of `level` (4 = PML4 ... 1 = PT) on the walk to va.
    uint64_t entry_pa(uint64_t va, unsigned level) const
    {
        gmmu_walk_result w;
        EXPECT_EQ(gmmu_walk(&pt->mem, pt->root, va, 0, &w), GMMU_OK);
        return w.table_base[level] + ((va >> (12 + 9 * (level - 1))) & 511) * 8;
    }
};
