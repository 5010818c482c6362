// gmmu — TLM-2.0 extensions that carry GPU address-translation traffic.
//
// warp_ext: one warp memory instruction (the unit of traffic): up to 32 lane
//   virtual addresses, an active mask, SM/warp/block/ASID, and per-lane data.
//   Attached to a READ/WRITE generic payload. The L1 TLB fills pa[] and
//   forwards the same payload downstream; memory then serves every lane.
// sched_sideband_ext: beside warp_ext, only for an SM whose warp scheduler
//   learns from TLB and L1 misses and victims (CCWS/TCWS).
// xlate_ext: a batch of translation traffic between TLB levels, the walker
//   and the PICLE/Valkyrie LDT, carried by a payload with TLM_IGNORE_COMMAND;
//   its op says which of seven commands it is.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>

extern "C" {
#include "gmmu/coalescer.h"
#include "gmmu/pagetable.h"
}

namespace gmmu {

// n periods of clk. Integer arithmetic: sc_time * double converts through a
// floating-point multiply on every call (same result while the product fits
// 53 bits, i.e. for any simulated time below ~104 days at 1 ps resolution).
inline sc_core::sc_time cycles_time(const sc_core::sc_time &clk, uint64_t n)
{
    return sc_core::sc_time::from_value(clk.value() * n);
}

// cycles_time with a one-entry memo, for a conversion whose count rarely
// changes (a lookup latency, a memory latency).
struct cycles_time_memo {
    uint64_t n = ~0ull;
    sc_core::sc_time t;
    const sc_core::sc_time &get(const sc_core::sc_time &clk, uint64_t k)
    {
        if (k != n) {
            n = k;
            t = cycles_time(clk, k);
        }
        return t;
    }
};

struct warp_ext : tlm::tlm_extension<warp_ext> {
    static constexpr unsigned lanes = GMMU_WARP_LANES;
    unsigned nlanes = lanes;
    uint32_t active = 0;              // bit i: lane i takes part
    unsigned lane_bytes = 8;          // bytes per lane access (1..8)
    uint32_t sm = 0, warp = 0, block = 0;
    uint16_t asid = 0;
    // Nonzero: the warp instruction this access is part of, when an SM sends
    // an instruction as several accesses (the issue SM: one per 128-B line,
    // one after the other). Consecutive accesses with the same nonzero send
    // from the same SM are one warp access to a blocking L1 TLB whose warp
    // looks up its pages together (l1_tlb.warp_lookups_together).
    uint64_t send = 0;
    std::array<uint64_t, lanes> va{}; // lane virtual addresses
    std::array<uint64_t, lanes> pa{}; // filled by the L1 TLB (or = va when bypassed)
    std::array<uint64_t, lanes> data{}; // store data in, load data out (little-endian)
    // Timing only: translate and annotate every delay as usual, but memory
    // moves no data (an initiator that performs its data functionally elsewhere).
    bool timing_only = false;
    // Outcome, filled on the way back:
    bool translated = false;
    uint32_t fault_mask = 0;          // lanes whose translation faulted
    gmmu_fault fault = GMMU_FAULT_NONE;
    uint64_t fault_va = 0;
    unsigned page_divergence = 0;     // unique pages after coalescing
    sc_core::sc_time data_delay;      // filled by the memory: what the data access itself
                                      // added to the delay (bandwidth queueing + latency)
    // Filled by the L1 TLB for the lanes it forwards: the time from the
    // access's arrival at the TLB to their translation. A virtually indexed
    // L1 cache selects its set during that time (gmmu_cache_index_overlap).
    sc_core::sc_time xlate_time;

    tlm::tlm_extension_base *clone() const override { return new warp_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const warp_ext &>(o);
    }
};

// What one warp access tells a cache- or TLB-conscious warp scheduler (the
// issue SM's CCWS, TA-CCWS, TCWS and TLB-aware compaction), filled on the way
// back beside warp_ext by the L1 TLB and the SM's L1 data cache. Only an SM
// whose scheduler reads it (gmmu_sm_needs_sideband) attaches it; without it
// the TLB and cache skip this bookkeeping, so a machine without such a
// scheduler pays nothing for it per access. The SM clears it before each access.
struct sched_sideband_ext : tlm::tlm_extension<sched_sideband_ext> {
    // CCWS: some page missed the L1 TLB; some line missed the L1 data cache;
    // the first valid line that access evicted, and who had allocated it
    // (block << 6 | warp of the access that did, or GMMU_CACHE_NO_OWNER).
    bool tlb_miss = false;
    bool l1_miss = false;
    bool l1_victim = false;
    uint64_t l1_victim_addr = 0;
    uint32_t l1_victim_owner = 0;
    // TCWS, from the L1 TLB: the deepest LRU depth among its hits, and the
    // first valid entry a fill for this access evicted (its VA) with the
    // owner whose miss had filled it.
    uint32_t tlb_hit_depth = 0;
    bool tlb_victim = false;
    uint64_t tlb_victim_va = 0;
    uint32_t tlb_victim_owner = 0;

    void clear()
    {
        tlb_miss = l1_miss = l1_victim = tlb_victim = false;
        tlb_hit_depth = 0;
    }
    tlm::tlm_extension_base *clone() const override { return new sched_sideband_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const sched_sideband_ext &>(o);
    }
};

// Sideband of a plain (non-warp) payload from an SoC initiator: which
// device/stream issued it (SMMU-style StreamID, optional SubstreamID), and,
// once an SMMU front end (gmmu::smmu) has resolved its context, the
// context's ASID, table root and privilege. A TLB translates a plain payload
// that carries this extension with `resolved` in that context (ASID 0, the
// walker's own root for it, user privilege, otherwise) and reports a
// translation fault in `fault` / `fault_va`. The initiator owns the
// extension (set it before b_transport); gmmu::smmu overwrites the context
// fields with what its tables say, whatever the initiator put there.
struct ctx_ext : tlm::tlm_extension<ctx_ext> {
    uint32_t stream_id = 0;
    uint32_t substream_id = 0;
    bool substream_valid = false;
    bool privileged = false;   // a supervisor access (U=0 pages allowed)
    bool resolved = false;     // asid/root below are valid
    uint16_t asid = 0;
    uint64_t root = 0;
    // Filled by the TLB on the way back:
    gmmu_fault fault = GMMU_FAULT_NONE;
    uint64_t fault_va = 0;
    tlm::tlm_extension_base *clone() const override { return new ctx_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const ctx_ext &>(o);
    }
};

// One translation request inside a batch.
struct xlate_req {
    uint64_t va = 0;        // any address inside the page
    uint16_t asid = 0;
    bool write = false;
    bool priv = false;      // a privileged (supervisor) access: pages without U allowed
    // Table root (CR3) of the request's context; 0: the walker's own root for
    // asid (ptw::set_root). An SMMU front end that reads contexts from a
    // table in memory passes the context's root here.
    uint64_t root = 0;
    // results
    bool done = false;
    gmmu_fault fault = GMMU_FAULT_NONE;
    uint64_t pa = 0;        // translation of va
    uint32_t hit_depth = 0; // a hit in the TLB that answered: its LRU depth (0 = most recent)
    unsigned page_shift = 12; // size of the page-table page that maps it
    unsigned leaf_shift = 0;  // size of the page-table leaf when larger than page_shift (a TLB
                              // holding pieces of it answered); 0: page_shift. The level
                              // above fills with it, so one TLBI removes every piece.
    uint64_t perms = 0;     // leaf PTE bits (W/U/NX/D...)
    unsigned contig_log2 = 0; // leaf PTE hint (AVL bits 11:9): the aligned block of
                              // 2^n pages holding this one maps contiguously
    sc_core::sc_time ready; // delay (relative to the caller's b_transport base) at which it is ready
    unsigned level_hit = 0; // 1 = L1 TLB, 2 = L2 TLB, 3 = L3 TLB, 0 = walk
    sc_core::sc_time queued; // part of `ready` spent waiting for a free walker
};

// GMMU_ACC_* bits of a request, for the models' permission checks: a user
// access unless the request's context is privileged.
inline unsigned access_of(bool write, bool priv)
{
    return (write ? GMMU_ACC_WRITE : 0u) | (priv ? 0u : GMMU_ACC_USER);
}
inline unsigned access_of(const xlate_req &r) { return access_of(r.write, r.priv); }

struct xlate_ext : tlm::tlm_extension<xlate_ext> {
    // The command. Every receiver has one handler per command it accepts and
    // answers TLM_COMMAND_ERROR_RESPONSE to the others (docs/architecture.md,
    // "Unit of traffic"):
    //   op               reqs                            from -> to (handler)
    //   translate        pages; answers filled in        TLB -> next TLB (tlb::translate_batch),
    //                                                     walker (ptw::on_translate)
    //   translate_debug  the same, no state change and   TLB debug path -> next TLB
    //                    no time                         (tlb::translate_dbg), walker (ptw::on_translate_debug)
    //   invalidate       empty; `inv` says what          SMMU, TLB shootdown -> TLB (tlb::invalidate),
    //                                                     walker (ptw::invalidate)
    //   ldt_update       pages L1 TLB `cu` looked up     L1 TLB -> LDT (ldt_unit::on_update)
    //   ldt_evict        translations an L2 TLB evicted  L2 TLB -> LDT (ldt_unit::on_evict)
    //   prefetch         translations to fill            LDT -> L1 TLB (tlb_peer_link::on_prefetch)
    //   probe            pages; hits filled in, no       L1 TLB `cu` -> LDT (ldt_unit::on_probe)
    //                    state change                    -> peer L1 TLB (tlb_peer_link::on_probe)
    // invalidate is a page-table change travelling down the hierarchy; each
    // level drops what `inv` covers and forwards it, and the walker drops PWC
    // entries, line-cache lines and walks in flight that it covers.
    enum class op_kind { translate, translate_debug, ldt_update, ldt_evict, prefetch, probe, invalidate };
    op_kind op = op_kind::translate;
    unsigned cu = 0;
    struct inv_desc {
        enum class scope { all, asid, range, asid_range } kind = scope::all;
        uint16_t asid = 0;
        uint64_t va_lo = 0, va_hi = 0; // inclusive byte range (range, asid_range)
    } inv;
    std::vector<xlate_req> reqs;
    tlm::tlm_extension_base *clone() const override { return new xlate_ext(*this); }
    void copy_from(const tlm::tlm_extension_base &o) override
    {
        *this = static_cast<const xlate_ext &>(o);
    }
};

} // namespace gmmu
