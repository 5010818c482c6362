// Test helper: a sparse physical memory and a bump frame allocator behind the
// gmmu_mem_ops callbacks, for driving the C models without SystemC.
#pragma once
#include <cstdint>
#include <unordered_map>

extern "C" {
#include "gmmu/pagetable.h"
}

struct TestMem {
    std::unordered_map<uint64_t, uint64_t> words; // key: PA >> 3
    uint64_t next_frame = 0x100000;                 // page tables from 1 MiB up
    uint64_t reads = 0, writes = 0;
    bool fail_reads = false;

    static gmmu_status read64(void *ctx, uint64_t pa, uint64_t *v)
    {
        auto *m = static_cast<TestMem *>(ctx);
        if (m->fail_reads || (pa & 7))
            return GMMU_EMEM;
        m->reads++;
        auto it = m->words.find(pa >> 3);
        *v = it == m->words.end() ? 0 : it->second;
        return GMMU_OK;
    }
    static gmmu_status write64(void *ctx, uint64_t pa, uint64_t v)
    {
        auto *m = static_cast<TestMem *>(ctx);
        if (pa & 7)
            return GMMU_EMEM;
        m->writes++;
        m->words[pa >> 3] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *ctx, uint64_t *pa)
    {
        auto *m = static_cast<TestMem *>(ctx);
        *pa = m->next_frame;
        m->next_frame += 4096;
        return GMMU_OK;
    }
    gmmu_mem_ops ops() { return gmmu_mem_ops{&read64, &write64, this}; }
};
