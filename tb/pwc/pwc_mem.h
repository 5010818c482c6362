// gmmu — CPWC/TPC RTL benches: the address-space agent. A sparse physical
// memory holding real x86-64 page tables (gmmu_pt), the random VA layout the
// sequences map in two address spaces, and the reference walk (as tb/sched's
// sched_mem.h is for the walk-scheduler bench).
#pragma once

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
}

namespace pwcbench {

inline std::string hex(uint64_t v)
{
    char b[32];
    std::snprintf(b, sizeof b, "0x%" PRIx64, v);
    return b;
}

inline uint64_t canon(unsigned i4, unsigned i3, unsigned i2, unsigned i1, uint64_t off)
{
    uint64_t va = (uint64_t(i4) << 39) | (uint64_t(i3) << 30) | (uint64_t(i2) << 21) |
                  (uint64_t(i1) << 12) | off;
    if (va & (1ull << 47))
        va |= 0xFFFF000000000000ull;
    return va;
}

// ---- agent: a sparse physical memory holding real x86-64 page tables --------
struct Memory {
    std::unordered_map<uint64_t, uint64_t> words;
    uint64_t next_frame;
    explicit Memory(uint64_t first_frame) : next_frame(first_frame) {}
    static gmmu_status read64(void *ctx, uint64_t pa, uint64_t *v)
    {
        auto *m = static_cast<Memory *>(ctx);
        auto it = m->words.find(pa >> 3);
        *v = it == m->words.end() ? 0 : it->second;
        return GMMU_OK;
    }
    static gmmu_status write64(void *ctx, uint64_t pa, uint64_t v)
    {
        static_cast<Memory *>(ctx)->words[pa >> 3] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *ctx, uint64_t *pa)
    {
        auto *m = static_cast<Memory *>(ctx);
        *pa = m->next_frame;
        m->next_frame += 4096;
        return GMMU_OK;
    }
};

// The VA layout both address spaces map (same indices, different tables).
struct Layout {
    std::vector<uint64_t> small, large, holes;
    struct Leaf {
        uint64_t va;
        unsigned shift;
    };
    std::vector<Leaf> leaves;
};

inline Layout make_layout(std::mt19937_64 &rng)
{
    Layout L;
    auto pick = [&](unsigned n) { return unsigned(rng() % n); };
    const unsigned n4 = 1 + pick(3);
    const unsigned l2_budget[] = {3, 8, 24, 64, 160, 400};
    const unsigned budget = l2_budget[pick(6)];
    std::vector<unsigned> i4s;
    while (i4s.size() < n4) {
        unsigned v = pick(512);
        if (std::find(i4s.begin(), i4s.end(), v) == i4s.end())
            i4s.push_back(v);
    }
    unsigned total3 = 0;
    std::vector<std::vector<unsigned>> i3s(n4);
    for (unsigned a = 0; a < n4; a++) {
        unsigned n3 = 1 + pick(6);
        // often reuse the first L4 entry's L3 indices: VAs that differ only in
        // the L4 index alias in the direct-mapped L3 store
        if (a > 0 && pick(2))
            for (unsigned v : i3s[0])
                if (i3s[a].size() < n3)
                    i3s[a].push_back(v);
        while (i3s[a].size() < n3) {
            unsigned v = pick(512);
            if (std::find(i3s[a].begin(), i3s[a].end(), v) == i3s[a].end())
                i3s[a].push_back(v);
        }
        total3 += n3;
    }
    for (unsigned a = 0; a < n4; a++) {
        for (unsigned i3 : i3s[a]) {
            if (pick(100) < 4) { // a 1 GiB page
                L.leaves.push_back({canon(i4s[a], i3, 0, 0, 0), 30});
                continue;
            }
            unsigned n2 = 1 + pick(std::max(1u, 2 * budget / total3));
            std::vector<unsigned> i2s;
            while (i2s.size() < n2) {
                unsigned v = pick(512);
                if (std::find(i2s.begin(), i2s.end(), v) == i2s.end())
                    i2s.push_back(v);
            }
            for (unsigned i2 : i2s) {
                if (pick(100) < 5) {
                    L.leaves.push_back({canon(i4s[a], i3, i2, 0, 0), 21});
                    continue;
                }
                unsigned n1 = 1 + pick(3);
                for (unsigned j = 0; j < n1; j++)
                    L.leaves.push_back({canon(i4s[a], i3, i2, pick(512), 0), 12});
            }
            // an unmapped L2 index under this L3 entry (the walk faults at L2)
            unsigned h2 = pick(512);
            if (std::find(i2s.begin(), i2s.end(), h2) == i2s.end())
                L.holes.push_back(canon(i4s[a], i3, h2, pick(512), 0));
        }
        unsigned h3 = pick(512);
        if (std::find(i3s[a].begin(), i3s[a].end(), h3) == i3s[a].end())
            L.holes.push_back(canon(i4s[a], h3, pick(512), pick(512), 0));
    }
    unsigned h4 = pick(512);
    if (std::find(i4s.begin(), i4s.end(), h4) == i4s.end())
        L.holes.push_back(canon(h4, pick(512), pick(512), pick(512), 0));
    for (const auto &l : L.leaves)
        (l.shift == 12 ? L.small : L.large).push_back(l.va);
    return L;
}

struct Space {
    Memory mem;
    gmmu_mem_ops ops{};
    gmmu_pt *pt = nullptr; // owned
    ~Space() { gmmu_pt_destroy(pt); }
    Space(const Space &) = delete;
    Space &operator=(const Space &) = delete;
    Space(uint64_t first_frame, const Layout &L) : mem(first_frame)
    {
        ops = gmmu_mem_ops{&Memory::read64, &Memory::write64, &mem};
        if (gmmu_pt_create(&ops, &Memory::alloc, &mem, &pt, nullptr) != GMMU_OK)
            std::abort();
        uint64_t data = 0x4000000000ull; // data frames from 256 GiB (never read)
        // map in a shuffled-but-deterministic order so table frames differ per space
        for (const auto &l : L.leaves) {
            uint64_t sz = 1ull << l.shift;
            data = (data + sz - 1) & ~(sz - 1);
            gmmu_status s = gmmu_pt_map(pt, l.va, data, l.shift, GMMU_MAP_W | GMMU_MAP_U, nullptr);
            if (s != GMMU_OK && s != GMMU_EEXIST)
                std::abort();
            data += sz;
        }
    }
    uint64_t root() const { return pt->root; }
    gmmu_walk_result walk(uint64_t va)
    {
        gmmu_walk_result r;
        std::memset(&r, 0, sizeof r);
        if (gmmu_walk(&ops, pt->root, va, 0, &r) != GMMU_OK)
            std::abort();
        return r;
    }
};

// Deepest table level the walk used (1 for a 4 KiB leaf), 5 if none.
inline unsigned deepest_level(const gmmu_walk_result &w)
{
    if (w.nreads == 0 || w.fault == GMMU_FAULT_NONCANONICAL)
        return 5;
    if (w.fault != GMMU_FAULT_NONE)
        return w.fault_level;
    return w.page_shift == 30 ? 3 : w.page_shift == 21 ? 2 : 1;
}

} // namespace pwcbench
