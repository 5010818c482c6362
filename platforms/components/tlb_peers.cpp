#include "gmmu/components/tlb_peers.h"

#include <algorithm>

namespace gmmu {

tlb_peer_link::tlb_peer_link(port &s, gmmu_tlb *model, unsigned page_shift, unsigned cu_)
    : sock(s), t(model), shift(page_shift), cu(cu_)
{
    gp.set_command(tlm::TLM_IGNORE_COMMAND);
    gp.set_data_ptr(nullptr);
    gp.set_data_length(0);
    gp.set_extension(&ext);
}

tlb_peer_link::~tlb_peer_link() { gp.clear_extension(&ext); }

void tlb_peer_link::send(xlate_ext::op_kind op, sc_core::sc_time &delay)
{
    ext.op = op;
    ext.cu = cu;
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sock->b_transport(gp, delay);
}

void tlb_peer_link::note_access(const std::vector<xlate_req> &pages, sc_core::sc_time delay)
{
    ext.reqs = pages;
    send(xlate_ext::op_kind::ldt_update, delay);
}

void tlb_peer_link::note_evictions(const gmmu_tlb_fill_out &out, sc_core::sc_time delay)
{
    ext.reqs.clear();
    for (uint32_t v = 0; v < out.nvictims; v++) {
        xlate_req e;
        e.va = out.victims[v].vpn << shift;
        e.pa = out.victims[v].ppn << shift;
        e.asid = out.victims[v].asid;
        e.perms = out.victims[v].perms;
        e.page_shift = shift;
        e.leaf_shift = out.victims[v].leaf_shift;
        e.done = true;
        ext.reqs.push_back(e);
    }
    send(xlate_ext::op_kind::ldt_evict, delay);
}

// A piece of a larger page-table leaf remembers the leaf (gmmu_tlb.h,
// GMMU_TLB_FILL_LEAF), so an invalidation by VA anywhere in it drops it.
static uint32_t leaf_flags(const xlate_req &r, unsigned shift)
{
    const unsigned leaf = std::max<unsigned>(r.page_shift, r.leaf_shift);
    return leaf > shift && leaf < 64 ? GMMU_TLB_FILL_LEAF(leaf) : 0;
}

size_t tlb_peer_link::fill_from_peers(std::vector<xlate_req> &reqs, std::vector<size_t> &idx,
                                      std::vector<xlate_req> &misses, sc_core::sc_time at,
                                      sc_core::sc_time &done)
{
    ext.reqs = misses;
    send(xlate_ext::op_kind::probe, at);
    size_t keep = 0;
    for (size_t k = 0; k < idx.size(); k++) {
        const xlate_req &pr = ext.reqs[k];
        uint32_t plan = 0;
        if (pr.done && pr.fault == GMMU_FAULT_NONE && !gmmu_tlb_needs_walk(pr.perms, access_of(pr)) &&
            gmmu_tlb_fill_plan(t, pr.page_shift, 0, &plan)) {
            xlate_req &r = reqs[idx[k]];
            r = pr;
            r.level_hit = 1;
            gmmu_tlb_fill_ex(t, r.asid, r.va >> shift, r.pa >> shift, r.perms, leaf_flags(r, shift), 0,
                             nullptr);
            probe_fills++;
            if (r.ready > done)
                done = r.ready;
            continue;
        }
        idx[keep] = idx[k];
        misses[keep] = misses[k];
        keep++;
    }
    idx.resize(keep);
    misses.resize(keep);
    return keep;
}

void tlb_peer_link::on_prefetch(xlate_ext &x)
{
    for (auto &r : x.reqs) {
        if (r.page_shift < shift)
            continue;
        gmmu_tlb_fill_ex(t, r.asid, r.va >> shift, r.pa >> shift, r.perms,
                         GMMU_TLB_FILL_PREFETCH | leaf_flags(r, shift), 0, nullptr);
        prefetches_received++;
    }
}

void tlb_peer_link::on_probe(xlate_ext &x)
{
    const uint64_t page_mask = (1ull << shift) - 1;
    for (auto &r : x.reqs) {
        gmmu_tlb_entry e;
        probes_answered++;
        if (!gmmu_tlb_probe(t, r.asid, r.va >> shift, &e))
            continue;
        r.done = true;
        r.fault = GMMU_FAULT_NONE;
        r.pa = (e.ppn << shift) | (r.va & page_mask);
        r.perms = e.perms;
        r.page_shift = shift;
        r.leaf_shift = e.leaf_shift;
    }
}

} // namespace gmmu
