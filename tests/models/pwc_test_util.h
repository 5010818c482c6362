// Helpers shared by the page-walk-cache tests (test_pwc.cpp, test_cpwc.cpp).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "test_mem.h"

extern "C" {
#include "gmmu/cpwc.h"
#include "gmmu/pwc.h"
#include "gmmu/stc.h"
#include "gmmu/tpc.h"
#include "gmmu/uptc.h"
}

namespace pwctest {

inline uint64_t va_of(unsigned i4, unsigned i3, unsigned i2, unsigned i1, uint64_t off = 0)
{
    uint64_t va = (uint64_t(i4) << 39) | (uint64_t(i3) << 30) | (uint64_t(i2) << 21) |
                  (uint64_t(i1) << 12) | off;
    if (va & (1ull << 47))
        va |= 0xFFFF000000000000ull; // sign-extend to canonical
    return va;
}

// Seed for randomized tests: GMMU_TEST_SEED overrides the default; printed.
inline uint64_t test_seed(uint64_t dflt)
{
    const char *s = std::getenv("GMMU_TEST_SEED");
    uint64_t seed = s ? std::strtoull(s, nullptr, 0) : dflt;
    std::printf("[ seed     ] GMMU_TEST_SEED=%llu\n", (unsigned long long)seed);
    return seed;
}

struct PwcDeleter {
    void operator()(gmmu_pwc *p) const { gmmu_pwc_destroy(p); }
};
using PwcPtr = std::unique_ptr<gmmu_pwc, PwcDeleter>;

inline PwcPtr make_pwc(const gmmu_pwc_config &cfg)
{
    gmmu_pwc *p = nullptr;
    gmmu_error err{};
    gmmu_status s = gmmu_pwc_create(&cfg, &p, &err);
    if (s != GMMU_OK) {
        std::printf("gmmu_pwc_create: %s: %s\n", err.field, err.msg);
        return nullptr;
    }
    return PwcPtr(p);
}

// A real x86-64 page table in sparse test memory.
struct Space {
    TestMem mem;
    gmmu_mem_ops ops{};
    gmmu_pt *pt = nullptr; // owned
    ~Space() { gmmu_pt_destroy(pt); }
    Space(const Space &) = delete;
    Space &operator=(const Space &) = delete;
    uint64_t next_data = 0x100000000ull; // data frames from 4 GiB up (never read)
    Space()
    {
        ops = mem.ops();
        if (gmmu_pt_create(&ops, &TestMem::alloc, &mem, &pt, nullptr) != GMMU_OK)
            std::abort();
    }
    gmmu_status map(uint64_t va, unsigned shift = 12)
    {
        uint64_t sz = 1ull << shift;
        next_data = (next_data + sz - 1) & ~(sz - 1);
        gmmu_status s = gmmu_pt_map(pt, va & ~(sz - 1), next_data, shift, GMMU_MAP_W | GMMU_MAP_U,
                                    nullptr);
        next_data += sz;
        return s;
    }
    gmmu_walk_result walk(uint64_t va)
    {
        gmmu_walk_result r;
        if (gmmu_walk(&ops, pt->root, va, 0, &r) != GMMU_OK)
            std::abort();
        return r;
    }
    gmmu_walk_result walk_from(uint64_t base, unsigned level, uint64_t va)
    {
        gmmu_walk_result r;
        if (gmmu_walk_from(&ops, base, level, va, 0, &r) != GMMU_OK)
            std::abort();
        return r;
    }
    // Copy the table the level-`level` entry for va points to into a fresh
    // frame and repoint the entry: the old base becomes stale (and is zeroed,
    // so a stale use would be seen). Returns false if there is no such table.
    bool repoint(uint64_t va, unsigned level)
    {
        gmmu_walk_result r = walk(va);
        if (!(r.table_base[level] || level == 4))
            return false;
        uint64_t pte_pa = r.table_base[level] + 8ull * gmmu_va_index(va, level);
        uint64_t pte = 0;
        TestMem::read64(&mem, pte_pa, &pte);
        if (!(pte & GMMU_PTE_P) || (pte & GMMU_PTE_PS))
            return false;
        uint64_t old = pte & GMMU_PTE_ADDR_MASK, fresh = 0;
        TestMem::alloc(&mem, &fresh);
        for (unsigned i = 0; i < 512; i++) {
            uint64_t v = 0;
            TestMem::read64(&mem, old + 8ull * i, &v);
            TestMem::write64(&mem, fresh + 8ull * i, v);
            TestMem::write64(&mem, old + 8ull * i, 0);
        }
        TestMem::write64(&mem, pte_pa, (pte & ~GMMU_PTE_ADDR_MASK) | fresh);
        return true;
    }
};

// Deepest table level the full walk used (1 for a 4 KiB leaf), 5 if none.
inline unsigned deepest_level(const gmmu_walk_result &w)
{
    if (w.nreads == 0 || w.fault == GMMU_FAULT_NONCANONICAL)
        return 5;
    if (w.fault != GMMU_FAULT_NONE)
        return w.fault_level;
    return w.page_shift == 30 ? 3 : w.page_shift == 21 ? 2 : 1;
}

} // namespace pwctest
