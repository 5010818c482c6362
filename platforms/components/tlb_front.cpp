// gmmu — TLB component, L1 front end: the data path of a READ/WRITE payload
// (components/tlb.h).
//
//   data_access:  gather_pages -> make_requests -> translate_pages
//                 -> [PICLE note_access] -> report_outcome (fault: stop)
//                 -> rewrite_lanes -> observe -> forward_warp | forward_plain
//   debug_access: the same steps with translate_dbg and debug transport;
//                 no state changes, no statistics, no time.
#include "gmmu/components/timeline.h"
#include "gmmu/components/tlb.h"

#include <algorithm>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gmmu {

// Active lanes of a warp: all 32 in the usual case (no popcount call: the
// portable build has no POPCNT instruction and calls libgcc for it).
static inline unsigned active_lanes(uint32_t active)
{
    return active == ~0u ? 32u : unsigned(__builtin_popcount(active));
}

// The unique pages of the access: a warp's lanes coalesced, or every TLB
// page a plain payload spans (a large page's translation may cover them all;
// pieces in separate frames are forwarded apart). False: the payload is
// malformed and its error response is set.
bool tlb::gather_pages(tlm::tlm_generic_payload &gp, page_set &s)
{
    const unsigned shift = p.model.page_shift;
    s.write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
    s.w = gp.get_extension<warp_ext>();
    s.sb = p.sched_sideband && s.w ? gp.get_extension<sched_sideband_ext>() : nullptr;
    s.va = gp.get_address();
    // A context resolved above (gmmu::smmu, from the stream's tables) decides
    // the address space of every payload, a warp's too: the warp's own asid
    // is the device's claim and is ignored (docs/smmu.md).
    s.cx = gp.get_extension<ctx_ext>();
    if (s.cx && !s.cx->resolved)
        s.cx = s.w ? nullptr : s.cx;
    if (s.cx)
        s.cx->fault = GMMU_FAULT_NONE;
    if (s.w) {
        if (s.w->nlanes > warp_ext::lanes ||
            gmmu_coalesce(s.w->va.data(), s.w->nlanes, s.w->active, shift, &s.c) != GMMU_OK) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return false;
        }
        s.asid = s.cx ? s.cx->asid : s.w->asid;
        return true;
    }
    const uint64_t len = gp.get_data_length() ? gp.get_data_length() : 1;
    const uint64_t end = s.va + (len - 1);
    if (end < s.va || (end >> shift) - (s.va >> shift) >= warp_ext::lanes) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE); // wraps, or too many pages
        return false;
    }
    s.c.npages = unsigned((end >> shift) - (s.va >> shift) + 1);
    for (unsigned i = 0; i < s.c.npages; i++) {
        s.c.vpn[i] = (s.va >> shift) + i;
        s.c.lane_mask[i] = 1;
    }
    s.c.lane_page[0] = 0;
    return true;
}

// One translation request per page, in the access's context.
void tlb::make_requests(const page_set &s)
{
    page_reqs.clear();
    for (unsigned i = 0; i < s.c.npages; i++) {
        xlate_req r;
        r.va = s.c.vpn[i] << p.model.page_shift;
        r.asid = s.asid;
        r.write = s.write;
        if (s.cx && s.cx->resolved) {
            r.asid = s.cx->asid;
            r.root = s.cx->root;
            r.priv = s.cx->privileged;
        }
        page_reqs.push_back(r);
    }
}

// The translation's outcome, written into the payload's extension (warp:
// divergence, faulting lanes, and TLB miss and hit depth into its scheduler
// sideband when attached; plain: the first faulting byte). Returns the first
// faulting page's request, or null.
const xlate_req *tlb::report_outcome(page_set &s)
{
    uint32_t fault_lanes = 0;
    const xlate_req *first_fault = nullptr;
    for (unsigned i = 0; i < s.c.npages; i++)
        if (page_reqs[i].fault != GMMU_FAULT_NONE) {
            fault_lanes |= s.c.lane_mask[i];
            if (!first_fault)
                first_fault = &page_reqs[i];
        }
    if (warp_ext *w = s.w) {
        w->page_divergence = s.c.npages;
        w->translated = true;
        if (sched_sideband_ext *sb = s.sb)
            for (unsigned i = 0; i < s.c.npages; i++)
                note_sideband(*sb, page_reqs[i].level_hit == 1, page_reqs[i].hit_depth);
        w->fault_mask = fault_lanes;
        w->fault = first_fault ? first_fault->fault : GMMU_FAULT_NONE;
        w->fault_va = first_fault ? first_fault->va : 0;
    }
    if (s.cx && first_fault) {
        s.cx->fault = first_fault->fault;
        if (const warp_ext *w = s.w) // the first active lane of the faulting page
            s.cx->fault_va = w->va[unsigned(__builtin_ctz(s.c.lane_mask[first_fault - page_reqs.data()]))];
        else
            s.cx->fault_va = std::max(s.va, first_fault->va); // the first faulting byte
    }
    return first_fault;
}

// A page's TLB outcome, for the SM's warp scheduler (sched_sideband_ext):
// the access missed if any page was not answered by the L1, else it reports
// the deepest LRU depth of its hits.
void tlb::note_sideband(sched_sideband_ext &sb, bool l1_hit, uint32_t hit_depth)
{
    sb.tlb_miss = sb.tlb_miss || !l1_hit;
    if (l1_hit && hit_depth > sb.tlb_hit_depth)
        sb.tlb_hit_depth = hit_depth;
}

// Each active lane's PA from its page's frame.
void tlb::rewrite_lanes(const page_set &s)
{
    warp_ext *w = s.w;
    if (s.c.npages == 1) {
        rewrite_one_frame(*w, page_reqs[0].pa & ~page_mask, page_mask);
        return;
    }
    for (unsigned l = 0; l < w->nlanes; l++)
        if (w->active & (1u << l))
            w->pa[l] = (page_reqs[s.c.lane_page[l]].pa & ~page_mask) | (w->va[l] & page_mask);
}

// One page: every lane gets the same frame (inactive lanes too; unused).
void tlb::rewrite_one_frame(warp_ext &w, uint64_t frame, uint64_t page_mask)
{
#if defined(__SSE2__)
    const __m128i f = _mm_set1_epi64x((long long)frame);
    const __m128i m = _mm_set1_epi64x((long long)page_mask);
#pragma GCC unroll 16
    for (unsigned l = 0; l < warp_ext::lanes; l += 2) {
        const __m128i va = _mm_loadu_si128((const __m128i *)(const void *)&w.va[l]);
        _mm_storeu_si128((__m128i *)(void *)&w.pa[l], _mm_or_si128(f, _mm_and_si128(va, m)));
    }
#else
    for (unsigned l = 0; l < warp_ext::lanes; l++)
        w.pa[l] = frame | (w.va[l] & page_mask);
#endif
}

// The on_translate observer (checkers): every translated lane or byte address.
void tlb::observe(const page_set &s)
{
    if (!on_translate)
        return;
    if (const warp_ext *w = s.w) {
        for (unsigned l = 0; l < w->nlanes; l++)
            if (w->active & (1u << l))
                on_translate(s.asid, w->va[l], w->pa[l], s.write);
        return;
    }
    on_translate(page_reqs[0].asid, s.va, (page_reqs[0].pa & ~page_mask) | (s.va & page_mask), s.write);
}

bool tlb::contiguous(const page_set &s) const
{
    const uint64_t base = page_reqs[0].pa & ~page_mask;
    for (unsigned i = 1; i < s.c.npages; i++)
        if ((page_reqs[i].pa & ~page_mask) != base + (uint64_t(i) << p.model.page_shift))
            return false;
    return true;
}

// One piece per TLB page, in address order, stopping at the first error (its
// response is the access's).
template <class Send> void tlb::for_each_piece(tlm::tlm_generic_payload &gp, Send send)
{
    const unsigned shift = p.model.page_shift;
    const uint64_t va = gp.get_address();
    const uint64_t len = gp.get_data_length();
    unsigned char *data = gp.get_data_ptr();
    tlm::tlm_generic_payload piece;
    piece.set_command(gp.get_command());
    piece.set_byte_enable_ptr(nullptr);
    piece.set_dmi_allowed(false);
    uint64_t done = 0;
    for (unsigned i = 0; done < len; i++) {
        const uint64_t at = va + done;
        const uint64_t n = std::min<uint64_t>(len - done, (((at >> shift) + 1) << shift) - at);
        piece.set_address((page_reqs[i].pa & ~page_mask) | (at & page_mask));
        piece.set_data_ptr(data + done);
        piece.set_data_length(unsigned(n));
        piece.set_streaming_width(unsigned(n));
        piece.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        if (!send(piece) || !piece.is_response_ok()) {
            gp.set_response_status(piece.get_response_status());
            return;
        }
        done += n;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// The hit fast path: the steps of data_access for a one-page warp access
// that the model serves (gmmu_tlb_serve_hit decides, and applies the
// lookup's effects), without the request vector, the batch loops or the
// outcome scan. Everything data_access would do for this access is done
// here in the same order: the same time, counters, extension fields and
// forward. Not taken with the MSHR model (its batch timing), PICLE peers
// (every access reaches the LDT) or an active timeline (a span per batch).
bool tlb::serve_one_page(tlm::tlm_generic_payload &gp, page_set &s, sc_core::sc_time &delay)
{
    const bool priv = s.cx && s.cx->resolved && s.cx->privileged;
    gmmu_tlb_answer a;
    if (!gmmu_tlb_serve_hit(t, s.asid, s.c.vpn[0], access_of(s.write, priv), &a))
        return false;
    const sc_core::sc_time t_lookup =
        delay + lookup_time.get(p.clock, gmmu_tlb_port_cycles(p.model.lookup_cycles, 1, p.ports));
    const sc_core::sc_time t_done = hit_ready(a.ready, t_lookup);
    fast_served++;
    warp_accesses++;
    page_divergence_sum++;
    warp_ext &w = *s.w;
    w.page_divergence = 1;
    w.translated = true;
    if (sched_sideband_ext *sb = s.sb) {
        const uint32_t hit_depth = a.lru_depth;
        note_sideband(*sb, p.level == 1, hit_depth);
    }
    w.fault_mask = 0;
    w.fault = GMMU_FAULT_NONE;
    w.fault_va = 0;
    rewrite_one_frame(w, a.ppn << p.model.page_shift, page_mask);
    observe(s);
    lanes += active_lanes(w.active);
    forward_warp(gp, s, delay, t_done);
    return true;
}

void tlb::data_access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    page_set s;
    if (!gather_pages(gp, s))
        return;
    if (p.hit_fast_path && s.w && s.c.npages == 1 && !use_mshr && !peers.bound() && !active_timeline() &&
        serve_one_page(gp, s, delay))
        return;
    make_requests(s);
    cur_warp = p.track_owners ? s.w : nullptr;
    cur_sb = s.sb;
    if (use_mshr && !p.mshr.hits_under_miss && p.mshr.batch_issues_through) {
        // The next piece of the warp instruction just looked up continues its
        // batch (gmmu_tlb_mshr_continue_batch decides what that changes).
        const bool cont = s.w && s.w->send && s.w->send == last_send && s.w->sm == last_send_sm;
        if (cont) {
            gmmu_tlb_mshr_continue_batch(mshr);
            continued_batches++;
        }
        last_send = s.w ? s.w->send : 0;
        last_send_sm = s.w ? s.w->sm : 0;
    }
    const sc_core::sc_time t_done = translate_pages(page_reqs, delay);
    cur_warp = nullptr;
    cur_sb = nullptr;
    trace_batch(page_reqs, delay, t_done);
    warp_accesses++;
    page_divergence_sum += s.c.npages;
    if (peers.bound()) // PICLE: every L1 access updates the LDT
        peers.note_access(page_reqs, delay);
    if (report_outcome(s)) { // a fault: reported, memory not touched
        faults++;
        delay = t_done;
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (s.w) {
        rewrite_lanes(s);
        observe(s);
        lanes += active_lanes(s.w->active);
        forward_warp(gp, s, delay, t_done);
        return;
    }
    observe(s);
    lanes++;
    delay = t_done;
    forward_plain(gp, s, delay);
}

void tlb::forward_warp(tlm::tlm_generic_payload &gp, page_set &s, sc_core::sc_time &delay,
                       const sc_core::sc_time &t_done)
{
    if (p.overlap_cache_access && s.c.npages > 1) {
        forward_by_page(gp, *s.w, s.c, delay, delay);
        return;
    }
    s.w->xlate_time = t_done - delay;
    delay = t_done;
    isock->b_transport(gp, delay);
}

// Contiguous frames: the payload goes on once, its address swapped to the
// PA and restored on return; else one piece per page.
void tlb::forward_plain(tlm::tlm_generic_payload &gp, const page_set &s, sc_core::sc_time &delay)
{
    if (contiguous(s)) {
        gp.set_address((page_reqs[0].pa & ~page_mask) | (s.va & page_mask));
        isock->b_transport(gp, delay);
        gp.set_address(s.va);
        return;
    }
    for_each_piece(gp, [&](tlm::tlm_generic_payload &piece) {
        isock->b_transport(piece, delay);
        return true;
    });
}

void tlb::debug_access(tlm::tlm_generic_payload &gp)
{
    page_set s;
    if (!gather_pages(gp, s))
        return;
    make_requests(s);
    translate_dbg(page_reqs);
    if (report_outcome(s)) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    if (warp_ext *w = s.w) {
        rewrite_lanes(s);
        // Lane by lane, by debug transport.
        for (unsigned l = 0; l < w->nlanes; l++) {
            if (!(w->active & (1u << l)))
                continue;
            tlm::tlm_generic_payload g;
            g.set_command(gp.get_command());
            g.set_address(w->pa[l]);
            g.set_data_ptr(reinterpret_cast<unsigned char *>(&w->data[l]));
            g.set_data_length(w->lane_bytes);
            isock->transport_dbg(g);
        }
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (contiguous(s)) {
        gp.set_address((page_reqs[0].pa & ~page_mask) | (s.va & page_mask));
        gp.set_response_status(isock->transport_dbg(gp) == gp.get_data_length()
                                   ? tlm::TLM_OK_RESPONSE
                                   : tlm::TLM_GENERIC_ERROR_RESPONSE);
        gp.set_address(s.va);
        return;
    }
    for_each_piece(gp, [&](tlm::tlm_generic_payload &piece) {
        if (isock->transport_dbg(piece) != piece.get_data_length()) {
            piece.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return false;
        }
        piece.set_response_status(tlm::TLM_OK_RESPONSE);
        return true;
    });
}

// Intra-warp overlap: the lanes of each page go to the data side when that
// page's translation is known (gmmu_warp_dispatch_times), earliest first
// (gmmu_warp_dispatch_order);
// the warp completes with its last lane. w.active is narrowed to one page's
// lanes per forward and restored.
void tlb::forward_by_page(tlm::tlm_generic_payload &gp, warp_ext &w, const gmmu_coalesced &c,
                          const sc_core::sc_time &in, sc_core::sc_time &delay)
{
    const unsigned n = c.npages;
    page_ready.resize(n);
    page_at.resize(n);
    page_order.resize(n);
    for (unsigned i = 0; i < n; i++)
        page_ready[i] = page_reqs[i].ready.value();
    gmmu_warp_dispatch_times(page_ready.data(), n, true, page_at.data());
    gmmu_warp_dispatch_order(page_at.data(), n, page_order.data());
    const uint32_t active = w.active;
    sc_core::sc_time done = in, data = sc_core::SC_ZERO_TIME;
    for (unsigned i : page_order) {
        w.active = active & c.lane_mask[i];
        if (!w.active)
            continue;
        sc_core::sc_time d = sc_core::sc_time::from_value(page_at[i]);
        w.xlate_time = d - in;
        w.data_delay = sc_core::SC_ZERO_TIME;
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        isock->b_transport(gp, d);
        if (!gp.is_response_ok())
            break; // the failing forward's response is the access's
        done = std::max(done, d);
        data = std::max(data, w.data_delay);
    }
    w.active = active;
    w.data_delay = data;
    overlapped_warps++;
    delay = done;
}

// TCWS bookkeeping after a fill of the L1 data path (gmmu/tcws_owners.h
// decides): the victim reported to the access, and the filled page's owner.
void tlb::note_owners(const xlate_req &filled, unsigned shift)
{
    uint32_t owner = 0;
    const bool has_owner = gmmu_tcws_owner_of(cur_warp->block, cur_warp->warp, &owner);
    gmmu_tcws_victim v;
    const bool reported = !cur_sb || cur_sb->tlb_victim; // nobody to tell, or told already
    if (gmmu_tcws_owners_fill(owners, fill_out.victims, fill_out.nvictims, filled.asid,
                              filled.va >> shift, has_owner, owner, reported, &v)) {
        cur_sb->tlb_victim = true;
        cur_sb->tlb_victim_va = v.vpn << shift;
        cur_sb->tlb_victim_owner = v.owner;
    }
}

} // namespace gmmu
