// A sparse physical memory of 8-byte words for the page-table harnesses,
// with a frame allocator for gmmu_pt (frames from 1 MiB up).
#pragma once

#include <cstdint>
#include <unordered_map>

extern "C" {
#include "gmmu/pagetable.h"
}

namespace gmmu_fuzz {

struct sparse_memory {
    std::unordered_map<uint64_t, uint64_t> words;
    uint64_t next_frame = 0x100000;
    static gmmu_status rd(void *c, uint64_t pa, uint64_t *v)
    {
        auto &w = static_cast<sparse_memory *>(c)->words;
        auto it = w.find(pa);
        *v = it == w.end() ? 0 : it->second;
        return GMMU_OK;
    }
    static gmmu_status wr(void *c, uint64_t pa, uint64_t v)
    {
        static_cast<sparse_memory *>(c)->words[pa] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *c, uint64_t *pa)
    {
        auto *m = static_cast<sparse_memory *>(c);
        *pa = m->next_frame;
        m->next_frame += 4096;
        return GMMU_OK;
    }
    gmmu_mem_ops ops() { return gmmu_mem_ops{&rd, &wr, this}; }
};

} // namespace gmmu_fuzz
