// pichai-bench: six warp-level memory models of the benchmarks of
// pichai-asplos14 §5.2 (bfs, kmeans, mummergpu, streamcluster, pathfinder,
// memcached), for the simple SM. Each keeps the memory behaviour that
// decides address translation in the original kernel: which arrays a warp
// reads, which reads are coalesced (one page per warp) and which are
// scattered (up to 32 pages), what is shared by every warp, and how much
// non-memory work separates two memory instructions. docs/pichai_mmu.md
// lists, per benchmark, what is kept and what is not.
//
// The data layout of each benchmark takes workload.region_bytes (the paper's
// footprints are above 1 GB). Addresses are computed from the workload's own
// description of the data (the graph's edges, the tree's nodes, the keys'
// buckets), so no load waits for another's value; stores write the data
// pattern and loads are checked as in every workload.
#include <array>
#include <cmath>

#include "gmmu/components/config.h"
#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

namespace gmmu {
namespace {

enum class bench { bfs, kmeans, mummergpu, streamcluster, pathfinder, memcached };

// pichai-bench's spec: its own workload.* keys.
struct pichai_bench_config {
    bench kind = bench::bfs;   // workload.bench
    unsigned compute_percent = 100;
};

const descriptor<pichai_bench_config> &pichai_bench_descriptor()
{
    using P = pichai_bench_config;
    static const descriptor<P> d({
        enum_field<P>("bench", "bfs",
                      {{"bfs", int(bench::bfs)},
                       {"kmeans", int(bench::kmeans)},
                       {"mummergpu", int(bench::mummergpu)},
                       {"streamcluster", int(bench::streamcluster)},
                       {"pathfinder", int(bench::pathfinder)},
                       {"memcached", int(bench::memcached)}},
                      "pichai-bench: which benchmark's memory behaviour (docs/pichai_mmu.md).",
                      [](P &p, const config &c, const std::string &k) {
                          p.kind = bench(pichai_bench_descriptor().enum_value("bench", c.s(k), k));
                      }),
        int_field<P>("compute_percent", 100, 0, 10000,
                     "pichai-bench: scale of the non-memory cycles between a warp's memory instructions, "
                     "percent of each benchmark's documented count (0 = back-to-back memory).",
                     [](P &p, const config &c, const std::string &k) { p.compute_percent = unsigned(c.i(k)); }),
    });
    return d;
}

const bool keys_registered =
    register_workload_spec(workload_spec_of("pichai-bench", pichai_bench_descriptor(), nullptr, nullptr));

uint64_t mix(uint64_t a, uint64_t b) { return data_pattern(a * 0x9E3779B97F4A7C15ull ^ b); }

class pichai_bench : public workload {
  public:
    pichai_bench(const config &c, uint64_t seed)
        : pichai_bench(workload_config_from(c), workload_spec_from(pichai_bench_descriptor(), c),
                       workload_machine_from(c), seed) {}
    pichai_bench(const workload_config &w, const pichai_bench_config &p, const workload_machine &m,
                 uint64_t seed)
        : base(w.base_va), bytes(w.region_bytes), acc(w.accesses), warps(m.warps),
          nwarps(uint64_t(m.sms) * warps), seed(seed), scale(p.compute_percent), kind(p.kind)
    {
        if (bytes < (16ull << 20))
            throw config_error("config key 'workload.region_bytes': pichai-bench needs at least "
                               "16 MiB (pathfinder's rows are 4 MiB apart)");
        n.assign(nwarps, 0);
        (void)keys_registered;
    }
    std::string name() const override { return "pichai-bench"; }
    void setup(driver &drv, unsigned page_shift) override { drv.map(base, bytes, page_shift); }

    bool next(unsigned sm, unsigned warp, warp_op &op) override
    {
        const uint64_t g = uint64_t(sm) * warps + warp;
        if (n[g] == acc)
            return false;
        op = warp_op{};
        op.nlanes = 32;
        op.active = 0xFFFFFFFFu;
        switch (kind) {
        case bench::bfs: bfs(g, n[g], op); break;
        case bench::kmeans: kmeans(g, n[g], op); break;
        case bench::mummergpu: mummer(g, n[g], op); break;
        case bench::streamcluster: stream_cluster(g, n[g], op); break;
        case bench::pathfinder: pathfinder(g, n[g], op); break;
        case bench::memcached: memcached(g, n[g], op); break;
        }
        op.compute_cycles = unsigned(uint64_t(op.compute_cycles) * scale / 100);
        n[g]++;
        return true;
    }

  private:
    // Word-aligned address inside the region.
    uint64_t at(uint64_t off) const { return base + (off % bytes & ~7ull); }

    // bfs (Rodinia): a warp takes 32 consecutive vertices; reads their node
    // records (coalesced); for the lanes whose vertex is in the frontier
    // (one in four), reads each of the 6 edges (consecutive per vertex:
    // one page per warp), the neighbour's visited/cost word (a random vertex:
    // scattered) and writes its cost. 4 non-memory cycles per access.
    void bfs(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t nodes = bytes / 40; // 8 B node + 6 x 4 B edges + 8 B cost
        const uint64_t per = 1 + 6 * 3, item = k / per, ph = k % per;
        const uint64_t v0 = (g + item * nwarps) * 32 % nodes;
        const uint64_t edges = nodes * 8, cost = nodes * 32;
        uint32_t frontier = 0;
        for (unsigned l = 0; l < 32; l++)
            frontier |= uint32_t(mix(seed, (v0 + l) * 7 + item) % 4 == 0) << l;
        if (!frontier)
            frontier = 1;
        op.compute_cycles = 4;
        if (ph == 0) {
            for (unsigned l = 0; l < 32; l++)
                op.va[l] = at((v0 + l) % nodes * 8);
            return;
        }
        const uint64_t e = (ph - 1) / 3, step = (ph - 1) % 3;
        op.active = frontier;
        for (unsigned l = 0; l < 32; l++) {
            const uint64_t v = (v0 + l) % nodes;
            const uint64_t nbr = mix(seed ^ 0xBF5ull, v * 6 + e) % nodes;
            op.va[l] = step == 0 ? at(edges + (v * 6 + e) * 4) : at(cost + nbr * 8);
        }
        op.write = step == 2;
    }

    // kmeans (Rodinia, feature-major features[f][point]): a warp's 32 points;
    // for each of 5 clusters and 34 features, a coalesced load of the
    // feature and a load of the cluster's coordinate (one word for all
    // lanes, shared by every warp); then a store of the membership.
    // 3 non-memory cycles per access (subtract, multiply, add).
    void kmeans(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t nfeat = 34, nclus = 5;
        const uint64_t points = (bytes - 65536) / (nfeat * 4 + 8);
        const uint64_t per = nclus * nfeat * 2 + 1, item = k / per, ph = k % per;
        const uint64_t p0 = (g + item * nwarps) * 32 % points;
        const uint64_t clusters = points * nfeat * 4, member = clusters + 65536;
        op.compute_cycles = 3;
        if (ph == per - 1) {
            op.write = true;
            for (unsigned l = 0; l < 32; l++)
                op.va[l] = at(member + (p0 + l) % points * 8);
            return;
        }
        const uint64_t c = ph / (nfeat * 2), f = ph / 2 % nfeat;
        for (unsigned l = 0; l < 32; l++)
            op.va[l] = ph % 2 == 0 ? at(f * points * 4 + (p0 + l) % points * 4)
                                   : at(clusters + (c * nfeat + f) * 8);
    }

    // mummergpu: each lane matches its own query against a suffix tree:
    // per character, a coalesced read of the query text and a dependent read
    // of the next node. The tree is laid out level by level (4 children per
    // node: DNA), so the first levels are a few shared pages and deeper
    // levels are scattered over the whole tree. Queries of 24 characters.
    // 6 non-memory cycles per access (compare, branch, index arithmetic).
    void mummer(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t qlen = 24, per = qlen * 2, item = k / per, ph = k % per, d = ph / 2;
        const uint64_t queries = bytes / 8 / 32, tree = bytes / 8;
        const uint64_t nodes = (bytes - tree) / 32;
        const uint64_t q0 = (g + item * nwarps) * 32 % queries;
        op.compute_cycles = 6;
        for (unsigned l = 0; l < 32; l++) {
            const uint64_t q = (q0 + l) % queries;
            if (ph % 2 == 0) {
                op.va[l] = at(q * 32 + d); // one byte of the query per step (its word)
                continue;
            }
            // The node at depth d + 1 on this query's path: index of the
            // path's prefix among the 4^(d+1) nodes of that level.
            uint64_t first = 0, width = 1, idx = 0;
            for (uint64_t i = 0; i <= d; i++) {
                first += width;
                width = width < nodes ? width * 4 : width;
                idx = idx * 4 + mix(seed ^ q, i) % 4;
            }
            op.va[l] = at(tree + (first + idx % width) % nodes * 32);
        }
    }

    // streamcluster (pgain): for a candidate centre, every warp streams its
    // 32 points: their 16 coordinates (coalesced: 64 B per point), the
    // centre's 16 coordinates (one word for all lanes), weight and assignment
    // (coalesced), the assigned centre's work word (few distinct), and a
    // store of the switch flag. The points are streamed again for the next
    // candidate: reuse at a distance of the whole data set.
    // 4 non-memory cycles per access.
    void stream_cluster(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t dim = 16, per = dim * 2 + 3, item = k / per, ph = k % per;
        const uint64_t points = bytes / 96, blocks = points / 32;
        const uint64_t b = (g + item * nwarps) % blocks, cand = (g + item * nwarps) / blocks;
        const uint64_t p0 = b * 32, attrs = points * 64, work = attrs + points * 16;
        const uint64_t centre = mix(seed, cand) % points;
        op.compute_cycles = 4;
        for (unsigned l = 0; l < 32; l++) {
            const uint64_t p = p0 + l;
            if (ph < dim)
                op.va[l] = at(p * 64 + ph * 4);
            else if (ph < 2 * dim)
                op.va[l] = at(centre * 64 + (ph - dim) * 4);
            else if (ph == 2 * dim)
                op.va[l] = at(attrs + p * 16);
            else if (ph == 2 * dim + 1)
                op.va[l] = at(work + mix(seed, p) % 20 * 64);
            else
                op.va[l] = at(attrs + p * 16 + 8);
        }
        op.write = ph == per - 1;
    }

    // pathfinder: the grid's rows are 4 MiB apart; a warp owns 32 columns
    // and reads its 128 bytes of each row in turn (coalesced; the warps of
    // neighbouring columns share the row's page), then writes its result.
    // The previous row lives in shared memory: 6 non-memory cycles per row.
    void pathfinder(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t cols = 1u << 20, rows = bytes / (cols * 4);
        const uint64_t col0 = g * 32 % cols;
        op.compute_cycles = 6;
        const bool last = k + 1 == acc;
        for (unsigned l = 0; l < 32; l++)
            op.va[l] = last ? at((rows - 1) * cols * 4 + (col0 + l) * 4 + 4)
                            : at(k % (rows > 1 ? rows - 1 : 1) * cols * 4 + (col0 + l) * 4);
        op.write = last;
    }

    // memcached GET: each lane looks up one key: its bucket (scattered over
    // the hash table), then the item's header, key and value (one item of
    // 256 B: one page). Key popularity is Zipf with exponent 1 (the rank is
    // log-uniform), so popular keys share buckets and items across lanes.
    // 8 non-memory cycles per access (hashing, key compare).
    void memcached(uint64_t g, uint64_t k, warp_op &op) const
    {
        const uint64_t per = 4, item = k / per, ph = k % per;
        const uint64_t buckets = bytes / 4 / 8, slabs = bytes / 4, items = (bytes - slabs) / 256;
        const double lnkeys = std::log(double(items));
        op.compute_cycles = 8;
        for (unsigned l = 0; l < 32; l++) {
            const uint64_t req = (g + item * nwarps) * 32 + l;
            const double u = double(mix(seed, req) >> 11) * 0x1.0p-53;
            const uint64_t rank = uint64_t(std::exp(u * lnkeys)) - 1;
            if (ph == 0)
                op.va[l] = at(mix(seed ^ 0xB0C4E7ull, rank) % buckets * 8);
            else
                op.va[l] = at(slabs + mix(seed ^ 0x17E4ull, rank) % items * 256 + (ph - 1) * 64);
        }
    }

    uint64_t base, bytes, acc;
    unsigned warps;
    uint64_t nwarps, seed;
    unsigned scale;
    bench kind = bench::bfs;
    std::vector<uint64_t> n;
};

const bool registered = register_workload("pichai-bench", [](const config &c, uint64_t seed) {
    return std::unique_ptr<workload>(new pichai_bench(c, seed));
});

} // namespace
} // namespace gmmu
