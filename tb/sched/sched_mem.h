// gmmu walk-scheduler bench: memory models. Page-table content is a pure
// function of the PA (same read, same data), and the responder returns reads
// after random latencies in random order, one per cycle (gmmu_ws_in.resp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/pagetable.h"
#include "gmmu/walk_sched.h"
}

namespace sched_tb {

inline uint64_t Mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Interface of a page-table memory: the 8-byte word at pa.
struct PteSource {
    virtual ~PteSource() = default;
    virtual uint64_t Read(uint64_t pa) = 0;
};

// A sparse memory behind gmmu_mem_ops, for real page tables built with
// gmmu_pt (directed cases).
struct SparseMem final : PteSource {
    std::unordered_map<uint64_t, uint64_t> words; // PA >> 3
    uint64_t next_frame = 0x100000;
    uint64_t Read(uint64_t pa) override
    {
        auto it = words.find(pa >> 3);
        return it == words.end() ? 0 : it->second;
    }
    static gmmu_status read64(void *ctx, uint64_t pa, uint64_t *v)
    {
        *v = static_cast<SparseMem *>(ctx)->Read(pa);
        return GMMU_OK;
    }
    static gmmu_status write64(void *ctx, uint64_t pa, uint64_t v)
    {
        static_cast<SparseMem *>(ctx)->words[pa >> 3] = v;
        return GMMU_OK;
    }
    static gmmu_status alloc(void *ctx, uint64_t *pa)
    {
        auto *m = static_cast<SparseMem *>(ctx);
        *pa = m->next_frame;
        m->next_frame += 4096;
        return GMMU_OK;
    }
    gmmu_mem_ops ops() { return gmmu_mem_ops{&read64, &write64, this}; }
};

// A synthetic page-table world: a small pool of table frames that every
// non-leaf PTE points into (so walks share tables, and tables alias across
// levels and parents), PTEs drawn from a hash of the PA: mostly present,
// some large pages (aligned or not), random U/W and junk bits.
struct SynthWorld final : PteSource {
    uint64_t salt;
    std::vector<uint64_t> tables; // frame PAs, tables[0] = root
    unsigned present_pct, ps_pct, u_pct, w_pct;
    std::vector<unsigned> idx4, idx3, idx2;
    unsigned l1_base, l1_span;

    explicit SynthWorld(std::mt19937_64 &rng)
    {
        salt = rng();
        unsigned k = 2 + (unsigned)(rng() % 20);
        // frames anywhere in the 52-bit space; in some worlds in the first
        // 128 KiB, so a table's frame number can equal a slot id (an unknown
        // table is named by its parent's slot id: the two kinds of key must
        // never be confused)
        const bool low = rng() % 4 == 0;
        for (unsigned i = 0; i < k; i++)
            tables.push_back(low ? (uint64_t)((i + (unsigned)(rng() % 8)) % 32) << 12
                                 : (rng() & 0x000FFFFFFFFFF000ull) | ((uint64_t)i << 12));
        present_pct = 85 + (unsigned)(rng() % 16);
        ps_pct = (unsigned)(rng() % 10);
        if (rng() % 3 == 0) // worlds rich in large pages (aligned or not)
            ps_pct = 10 + (unsigned)(rng() % 30);
        u_pct = 75 + (unsigned)(rng() % 26);
        w_pct = 70 + (unsigned)(rng() % 31);
        auto pick = [&](std::vector<unsigned> &v, unsigned n) {
            for (unsigned i = 0; i < n; i++)
                v.push_back((unsigned)(rng() % 512));
        };
        pick(idx4, 1 + (unsigned)(rng() % 3));
        pick(idx3, 1 + (unsigned)(rng() % 4));
        pick(idx2, 1 + (unsigned)(rng() % 8));
        l1_base = (unsigned)(rng() % 512);
        l1_span = 1 + (unsigned)(rng() % 64);
    }

    uint64_t Read(uint64_t pa) override
    {
        uint64_t h = Mix(pa ^ salt), h2 = Mix(h), h3 = Mix(h2);
        uint64_t pte = h3 & 0xFFF0000000000E18ull; // junk in ignored/NX/PWT/PCD bits
        if (h % 100 >= present_pct)
            return pte & ~GMMU_PTE_P;
        pte |= GMMU_PTE_P | GMMU_PTE_A;
        if ((h >> 8) % 100 < u_pct)
            pte |= GMMU_PTE_U;
        if ((h >> 16) % 100 < w_pct)
            pte |= GMMU_PTE_W;
        if ((h >> 24) % 100 < ps_pct) {
            pte |= GMMU_PTE_PS;
            uint64_t frame = h2 & GMMU_PTE_ADDR_MASK;
            // 1 GiB / 2 MiB aligned; misaligned by exactly one frame bit
            // (bit 12..29, the edges 12/20/21/29 often: an alignment check
            // one bit too narrow or too wide must see a case it gets
            // wrong); or random low bits
            unsigned a = (unsigned)((h >> 32) % 5);
            if (a == 0) {
                frame &= ~((1ull << 30) - 1);
            } else if (a == 1) {
                frame &= ~((1ull << 21) - 1);
            } else if (a == 2) {
                static const unsigned kEdge[4] = {12, 20, 21, 29};
                unsigned bit = (h >> 40) % 2 ? kEdge[(h >> 44) % 4] : 12 + (unsigned)((h >> 48) % 18);
                frame = (frame & ~((1ull << 30) - 1)) | (1ull << bit);
            }
            return pte | frame;
        }
        // a table from the pool (for a level-1 PTE: the data page)
        return pte | tables[(h2 >> 40) % tables.size()];
    }

    // A VA from the world's index sets (walks share upper levels and lines).
    uint64_t DrawVa(std::mt19937_64 &rng) const
    {
        uint64_t i4 = idx4[rng() % idx4.size()], i3 = idx3[rng() % idx3.size()];
        uint64_t i2 = idx2[rng() % idx2.size()];
        uint64_t i1 = (l1_base + rng() % l1_span) % 512;
        if (rng() % 8 == 0) // an index outside the sets
            i2 = rng() % 512;
        uint64_t va = (i4 << 39) | (i3 << 30) | (i2 << 21) | (i1 << 12) | (rng() & 0xFFF);
        if (va >> 47)
            va |= 0xFFFF000000000000ull; // canonical upper half
        if (rng() % 64 == 0) { // non-canonical: bits 63:48 of the wrong sign, or junk
            if (rng() % 2)
                va ^= 0xFFFF000000000000ull;
            else
                va ^= (uint64_t)(1 + rng() % 0xFFFF) << 48;
        }
        return va;
    }
};

// Reads in flight: each returns after a random latency; of those ready, one
// per cycle, the oldest or a random one (out of order).
class Responder {
public:
    struct Pend {
        uint16_t tag;
        uint64_t ready;
        uint64_t data;
    };
    unsigned lat_min = 1, lat_max = 1;
    bool in_order = true;
    std::vector<Pend> pend;

    void Issue(uint16_t tag, uint64_t data, uint64_t now, std::mt19937_64 &rng)
    {
        unsigned lat = lat_min + (lat_max > lat_min ? (unsigned)(rng() % (lat_max - lat_min + 1)) : 0);
        pend.push_back(Pend{tag, now + lat, data});
    }
    // The response of this cycle (valid = 0 if none is ready).
    gmmu_ws_resp Next(uint64_t now, std::mt19937_64 &rng)
    {
        gmmu_ws_resp r{};
        size_t nready = 0, pick = 0;
        for (size_t i = 0; i < pend.size(); i++)
            if (pend[i].ready <= now && nready++ == 0)
                pick = i; // pend[] is in issue order: the oldest ready
        if (nready == 0)
            return r;
        if (!in_order) { // a random ready one: the k-th
            size_t k = rng() % nready;
            for (size_t i = 0;; i++)
                if (pend[i].ready <= now && k-- == 0) {
                    pick = i;
                    break;
                }
        }
        r.valid = 1;
        r.tag = pend[pick].tag;
        r.data = pend[pick].data;
        pend.erase(pend.begin() + (std::ptrdiff_t)pick);
        return r;
    }
};

} // namespace sched_tb
