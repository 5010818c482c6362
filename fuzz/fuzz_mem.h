// A sparse physical memory of 8-byte words for the page-table harnesses,
// with a frame allocator for gmmu_pt (frames from 1 MiB up).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
}

namespace gmmu_fuzz {

struct sparse_memory {
    // Frames handed out by alloc() are contiguous from `base`, so their words
    // live in one vector (a new table's 512 zeroing writes are plain stores);
    // any other address falls back to a map (reads of unwritten words are 0).
    // The vector's storage is kept from one input to the next (one memory is
    // alive at a time), so a run does not map and fault in fresh pages for
    // every input.
    static constexpr uint64_t base = 0x100000;
    std::vector<uint64_t> &frames = pool();
    std::unordered_map<uint64_t, uint64_t> words;
    uint64_t next_frame = base;
    sparse_memory()
    {
        if (in_use())
            std::abort(); // two memories at once would share the pool
        in_use() = true;
        frames.clear();
    }
    ~sparse_memory() { in_use() = false; }
    sparse_memory(const sparse_memory &) = delete;
    sparse_memory &operator=(const sparse_memory &) = delete;
    static std::vector<uint64_t> &pool()
    {
        static std::vector<uint64_t> v;
        return v;
    }
    static bool &in_use()
    {
        static bool u = false;
        return u;
    }
    uint64_t *slot(uint64_t pa)
    {
        if (pa >= base && pa < next_frame)
            return &frames[(pa - base) >> 3];
        return nullptr;
    }
    static gmmu_status rd(void *c, uint64_t pa, uint64_t *v)
    {
        auto *m = static_cast<sparse_memory *>(c);
        if (const uint64_t *s = m->slot(pa)) {
            *v = *s;
            return GMMU_OK;
        }
        auto it = m->words.find(pa);
        *v = it == m->words.end() ? 0 : it->second;
        return GMMU_OK;
    }
    static gmmu_status wr(void *c, uint64_t pa, uint64_t v)
    {
        auto *m = static_cast<sparse_memory *>(c);
        if (uint64_t *s = m->slot(pa))
            *s = v;
        else
            m->words[pa] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *c, uint64_t *pa)
    {
        auto *m = static_cast<sparse_memory *>(c);
        *pa = m->next_frame;
        m->next_frame += 4096;
        m->frames.resize((m->next_frame - base) >> 3, 0);
        return GMMU_OK;
    }
    gmmu_mem_ops ops() { return gmmu_mem_ops{&rd, &wr, this}; }
};

} // namespace gmmu_fuzz
