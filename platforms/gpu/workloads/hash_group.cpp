// gmmu — `hash-group`: karnagel-damon17's hash-based grouping (section 2.2),
// SELECT value, count(*) ... GROUP BY value, as warp memory instructions.
//
// The hash table fills workload.region_bytes with 16-byte buckets {value+1,
// count} (0 = empty); the number of groups is half the buckets (fill factor
// 0.5). An input column (8-byte values drawn from an LCG in [0, groups)) lies
// after the table. Phase 0 writes the column (32 consecutive values per warp
// instruction). Phase 1 groups it: every warp loads 32 input values
// (coalesced), hashes each with Murmur3 (x86_32 of the 4-byte value),
// and probes linearly: it loads the key word of each lane's bucket and decides
// from the loaded value (equal: found; 0: claim it; else: next bucket). A
// claim is an atomic compare-and-swap (a store when the bucket is still empty
// in simulation order, else the lane goes on probing); a found or claimed
// lane then adds one to the bucket's count (an atomic add: one store).
// TLB-conscious (workload.tlb_scope): phase 1 runs one pass per scope of the
// table and a pass inserts only the lanes whose first bucket lies in its scope
// (the paper's naive approach: the input is read again every pass). Passes are
// kernel launches: a warp starts a pass (and the grouping phase) only when
// every warp has finished the previous one.
// With contexts > 1 (SM i in context i mod contexts, each with its own
// frames at the same VAs) every context holds its own hash table, which only
// its SMs' warps fill; the shadow the probes are checked against is kept per
// context too.
// Writes OUT/hash_group.json (inserts, groups, probes, time of phase 1).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>

#include "gmmu/gpu/outputs.h"
#include <unordered_map>

#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

namespace gmmu {

namespace {

// MurmurHash3_x86_32 of one 4-byte key.
uint32_t murmur3_32(uint32_t key, uint32_t seed)
{
    uint32_t k = key * 0xcc9e2d51u;
    k = (k << 15) | (k >> 17);
    k *= 0x1b873593u;
    uint32_t h = seed ^ k;
    h = (h << 13) | (h >> 19);
    h = h * 5 + 0xe6546b64u;
    h ^= 4u; // length in bytes
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

class hash_group : public workload {
  public:
    // hash-group has no keys of its own: the common ones (gpu/workload_spec.h).
    hash_group(const config &c, uint64_t seed)
        : hash_group(workload_config_from(c), workload_machine_from(c), seed) {}
    hash_group(const workload_config &wc, const workload_machine &m, uint64_t seed)
        : base(wc.base_va), bytes(wc.region_bytes), accesses(wc.accesses), warps(m.warps),
          scope(wc.tlb_scope), page(m.page_size), nctx(m.contexts)
    {
        buckets = bytes / 16;
        if (buckets < 2)
            throw config_error("config key 'workload.region_bytes': hash-group needs at least 32 bytes");
        groups = buckets / 2;
        if (scope == 0 || scope >= bytes)
            scope = bytes;
        scopes = (bytes + scope - 1) / scope;
        const uint64_t nw = uint64_t(m.sms) * warps;
        input = (base + bytes + page - 1) / page * page;
        input_bytes = nw * accesses * 32 * 8;
        w.resize(nw);
        arrived.assign(1 + scopes, 0);
        tables.resize(nctx ? nctx : 1);
        for (uint64_t k = 0; k < nw; k++)
            for (unsigned l = 0; l < 32; l++)
                w[k].x[l] = data_pattern(seed * 0x100000001B3ull + (k << 8) + l);
    }
    std::string name() const override { return "hash-group"; }
    bool reads_loaded_values() const override { return true; } // keys and counts
    void setup(driver &drv, unsigned page_shift) override
    {
        drv.map(base, bytes, page_shift);
        drv.map(input, input_bytes, page_shift);
    }
    bool next(unsigned, unsigned, warp_op &) override { return false; }

    next_status poll(unsigned sm, unsigned warp, warp_op &op) override
    {
        warp_state &s = w[size_t(sm) * warps + warp];
        const uint64_t slice = input + (uint64_t(sm) * warps + warp) * accesses * 256;
        op.nlanes = 32;
        op.explicit_data = false;
        for (;;) {
            switch (s.st) {
            case step::write_input:
                if (s.n == accesses) {
                    if (!barrier(s, 0))
                        return next_status::wait;
                    s.n = 0;
                    s.st = step::load_input;
                    continue;
                }
                op.write = true;
                op.explicit_data = true;
                op.active = 0xFFFFFFFFu;
                for (unsigned l = 0; l < 32; l++) {
                    s.x[l] = s.x[l] * 6364136223846793005ull + 1442695040888963407ull;
                    op.va[l] = slice + s.n * 256 + 8ull * l;
                    op.data[l] = (s.x[l] >> 17) % groups;
                }
                s.n++;
                return next_status::issue;
            case step::load_input:
                if (s.n == accesses) {
                    if (s.pass + 1 == scopes) {
                        s.st = step::done;
                        continue;
                    }
                    if (!barrier(s, 1 + s.pass))
                        return next_status::wait;
                    s.n = 0;
                    s.pass++;
                }
                op.write = false;
                op.active = 0xFFFFFFFFu;
                for (unsigned l = 0; l < 32; l++)
                    op.va[l] = slice + s.n * 256 + 8ull * l;
                s.n++;
                s.awaiting = step::load_input;
                s.grouping = true;
                return next_status::issue;
            case step::probe:
                op.write = false;
                op.active = s.pending;
                for (unsigned l = 0; l < 32; l++)
                    op.va[l] = base + s.bucket[l] * 16;
                s.awaiting = step::probe;
                probes++;
                return next_status::issue;
            case step::claim: {
                // Compare-and-swap in simulation order: the bucket may have
                // been claimed since this warp loaded it.
                auto &table = table_of(sm);
                op.write = true;
                op.explicit_data = true;
                op.active = 0;
                for (unsigned l = 0; l < 32; l++) {
                    op.va[l] = base + s.bucket[l] * 16;
                    if (!(s.claim >> l & 1))
                        continue;
                    uint64_t &slot = table[s.bucket[l]].first;
                    if (slot == 0) {
                        slot = s.key[l] + 1;
                        op.active |= 1u << l;
                        op.data[l] = slot;
                        s.count |= 1u << l;
                        claims++;
                    } else if (slot == s.key[l] + 1) {
                        s.count |= 1u << l;
                    } else {
                        s.bucket[l] = (s.bucket[l] + 1) % buckets;
                        s.pending |= 1u << l;
                        cas_failures++;
                    }
                }
                s.claim = 0;
                s.st = s.pending ? step::probe : step::add;
                if (!op.active)
                    continue;
                return next_status::issue;
            }
            case step::add: {
                auto &table = table_of(sm);
                if (!s.count) {
                    s.st = step::load_input;
                    continue;
                }
                op.write = true;
                op.explicit_data = true;
                op.active = s.count;
                for (unsigned l = 0; l < 32; l++) {
                    op.va[l] = base + s.bucket[l] * 16 + 8;
                    if (s.count >> l & 1)
                        inserts++, table[s.bucket[l]].second++;
                }
                for (unsigned l = 0; l < 32; l++)
                    if (s.count >> l & 1)
                        op.data[l] = table[s.bucket[l]].second; // the final count of that bucket
                s.count = 0;
                s.st = step::load_input;
                return next_status::issue;
            }
            case step::done:
                return next_status::done;
            }
        }
    }

    void completed(unsigned sm, unsigned warp, const warp_op &op, const uint64_t *data,
                   const sc_core::sc_time &issue, const sc_core::sc_time &latency) override
    {
        warp_state &s = w[size_t(sm) * warps + warp];
        if (s.grouping) {
            if (!started || issue < t_first)
                t_first = issue;
            started = true;
            if (issue + latency > t_last)
                t_last = issue + latency;
        }
        if (op.write)
            return;
        if (s.awaiting == step::load_input) {
            s.pending = 0;
            const uint64_t lo = uint64_t(s.pass) * scope, hi = lo + scope;
            for (unsigned l = 0; l < 32; l++) {
                s.key[l] = data[l];
                s.bucket[l] = murmur3_32(uint32_t(data[l]), 0x5eed) % buckets;
                if (s.bucket[l] * 16 >= lo && s.bucket[l] * 16 < hi)
                    s.pending |= 1u << l;
            }
            s.st = s.pending ? step::probe : step::load_input;
            return;
        }
        // A probe: decide from the loaded key words.
        const auto &table = table_of(sm);
        uint32_t still = 0;
        for (unsigned l = 0; l < 32; l++) {
            if (!(s.pending >> l & 1))
                continue;
            auto it = table.find(s.bucket[l]);
            const uint64_t shadow = it == table.end() ? 0 : it->second.first;
            if (data[l] != shadow && bad++ == 0) {
                char buf[160];
                snprintf(buf, sizeof buf, "bucket %" PRIu64 " loaded 0x%" PRIx64 ", table holds 0x%" PRIx64,
                         s.bucket[l], data[l], shadow);
                first_bad = buf;
            }
            if (data[l] == s.key[l] + 1)
                s.count |= 1u << l;
            else if (data[l] == 0)
                s.claim |= 1u << l;
            else {
                s.bucket[l] = (s.bucket[l] + 1) % buckets;
                still |= 1u << l;
                probe_steps++;
            }
        }
        s.pending = still;
        s.st = s.claim ? step::claim : s.pending ? step::probe : step::add;
    }

    bool finish(const std::string &out_dir, std::string &error) override
    {
        uint64_t sum = 0;
        for (const auto &table : tables)
            for (auto &[b, v] : table)
                sum += v.second;
        nlohmann::json j = {{"buckets", buckets},
                            {"groups", groups},
                            {"scopes", scopes},
                            {"contexts", tables.size()},
                            {"inputs", uint64_t(w.size()) * accesses * 32},
                            {"inserts", inserts},
                            {"groups_found", claims},
                            {"count_sum", sum},
                            {"probe_instructions", probes},
                            {"linear_probe_steps", probe_steps},
                            {"cas_failures", cas_failures},
                            {"group_phase_ns", (t_last - t_first).to_seconds() * 1e9}};
        if (std::string e = write_output(out_dir, "hash_group.json", j.dump(2) + "\n"); !e.empty()) {
            error = "cannot write " + e;
            return false;
        }
        if (bad) {
            error = std::to_string(bad) + " probe loads disagree with the table; first: " + first_bad;
            return false;
        }
        if (sum != inserts || inserts != uint64_t(w.size()) * accesses * 32) {
            error = "group counts sum to " + std::to_string(sum) + ", expected " +
                    std::to_string(uint64_t(w.size()) * accesses * 32);
            return false;
        }
        return true;
    }

  private:
    enum class step { write_input, load_input, probe, claim, add, done };
    struct warp_state;
    // Kernel boundaries (after the write phase, between passes): a warp goes
    // on only when every warp has arrived.
    bool barrier(warp_state &s, size_t b)
    {
        if (!s.at_barrier) {
            s.at_barrier = true;
            arrived[b]++;
        }
        if (arrived[b] < w.size())
            return false;
        s.at_barrier = false;
        return true;
    }
    struct warp_state {
        std::array<uint64_t, 32> x{}, key{}, bucket{};
        uint64_t n = 0;
        unsigned pass = 0;
        uint32_t pending = 0, claim = 0, count = 0;
        step st = step::write_input, awaiting = step::load_input;
        bool grouping = false; // in phase 1
        bool at_barrier = false;
    };
    uint64_t base, bytes, accesses, buckets = 0, groups = 0;
    unsigned warps;
    uint64_t scope, scopes = 1, page, input = 0, input_bytes = 0;
    std::vector<warp_state> w;
    std::vector<uint64_t> arrived; // warps at each barrier
    unsigned nctx;
    using bucket_map = std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>>; // bucket ->
                                                                                     // {key+1, count}
    std::vector<bucket_map> tables; // one hash table per context (its own frames)
    bucket_map &table_of(unsigned sm) { return tables[sm % tables.size()]; }
    uint64_t inserts = 0, claims = 0, probes = 0, probe_steps = 0, cas_failures = 0, bad = 0;
    std::string first_bad;
    bool started = false;
    sc_core::sc_time t_first, t_last;
};

const bool registered = register_workload(
    "hash-group", [](const config &c, uint64_t seed) { return std::make_unique<hash_group>(c, seed); });

} // namespace
} // namespace gmmu
