// gmmu — TLB component, translation core: look up a batch of pages, send
// the misses down as one batch, fill the answers (components/tlb.h).
//
//   translate(reqs, delay)     look_up -> [Valkyrie peers] -> down -> take_answers
//   translate_dbg(reqs)        look_up (probe) -> transport_dbg down -> copy
//   translate_mshr(reqs, ...)  the L1 data path with the MSHR timing model
//
// The decisions are the C model's: gmmu_tlb_answer_access (hit, miss, or a
// write that must go to the walker), gmmu_tlb_fill_plan (whether and where an
// answer is cached), gmmu_tlb_access_batch (ports, MSHRs, merging, stalls).
#include "gmmu/components/timeline.h"
#include "gmmu/components/tlb.h"

#include <algorithm>

namespace gmmu {

sc_core::sc_time tlb::translate_pages(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay)
{
    return use_mshr ? translate_mshr(reqs, delay) : translate(reqs, delay);
}

// Answer each request the model serves; the others are collected as misses
// (miss_ext.reqs, with their index in miss_idx). Returns the latest hit.
sc_core::sc_time tlb::look_up(std::vector<xlate_req> &reqs, const sc_core::sc_time &t_lookup,
                              bool debug)
{
    const unsigned shift = p.model.page_shift;
    sc_core::sc_time done = t_lookup;
    miss_ext.reqs.clear();
    miss_idx.clear();
    for (size_t i = 0; i < reqs.size(); i++) {
        xlate_req &r = reqs[i];
        gmmu_tlb_answer a;
        const gmmu_tlb_verdict v = gmmu_tlb_answer_access(t, r.asid, r.va >> shift, access_of(r), debug, &a);
        if (v != GMMU_TLB_SERVED) {
            if (v == GMMU_TLB_REWALK && !debug)
                perm_upgrades++;
            miss_idx.push_back(i);
            miss_ext.reqs.push_back(miss_of(r));
            continue;
        }
        r.done = true;
        r.fault = GMMU_FAULT_NONE;
        r.pa = (a.ppn << shift) | (r.va & page_mask);
        r.page_shift = a.page_shift; // a large-page entry answers for its whole page
        r.leaf_shift = a.leaf_shift > a.page_shift ? a.leaf_shift : 0; // a piece of a larger leaf
        r.perms = a.perms;
        r.level_hit = p.level;
        r.hit_depth = a.lru_depth;
        // A coverage entry of a shared level vouches for its whole block
        // to the level above.
        r.contig_log2 = p.level >= 2 ? a.span_shift : 0;
        r.ready = hit_ready(a.ready, t_lookup); // a.ready is never set by a debug lookup
        if (r.ready > done)
            done = r.ready;
    }
    return done;
}

sc_core::sc_time tlb::hit_ready(uint64_t ready, const sc_core::sc_time &t_lookup)
{
    if (!ready)
        return t_lookup;
    // The model was filled at call time; the translation arrives at the
    // entry's ready time (absolute, time-resolution units). Compared as
    // values: an sc_time is built only for a hit under a fill.
    const uint64_t now = sc_core::sc_time_stamp().value();
    if (ready <= now + t_lookup.value())
        return t_lookup;
    hits_under_fill++;
    return sc_core::sc_time::from_value(ready - now); // the entry's translation is still on its way
}

sc_core::sc_time tlb::translate(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay)
{
    const sc_core::sc_time t_lookup =
        delay + lookup_time.get(p.clock, gmmu_tlb_port_cycles(p.model.lookup_cycles, reqs.size(), p.ports));
    sc_core::sc_time done = look_up(reqs, t_lookup, false);
    if (miss_ext.reqs.empty())
        return done;
    // Valkyrie: an L1 asks its peers (through the LDT unit) before the L2.
    if (p.level == 1 && peers.bound() &&
        peers.fill_from_peers(reqs, miss_idx, miss_ext.reqs, t_lookup, done) == 0)
        return done;
    // A TLB invalidation while the misses are out makes their fills stale.
    const uint64_t gen = gmmu_tlb_generation(t);
    miss_ext.op = xlate_ext::op_kind::translate;
    miss_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    miss_gp.set_address(miss_ext.reqs[0].va);
    batches_down++;
    sc_core::sc_time d = t_lookup;
    miss_isock->b_transport(miss_gp, d);
    return take_answers(reqs, gen, t_lookup, done);
}

// The next level's answer m to request r (its time is the caller's).
static void copy_answer(xlate_req &r, const xlate_req &m)
{
    r.done = m.done;
    r.fault = m.done ? m.fault : GMMU_FAULT_NOT_PRESENT;
    r.pa = m.pa;
    r.page_shift = m.page_shift;
    r.leaf_shift = m.leaf_shift;
    r.perms = m.perms;
    r.contig_log2 = m.contig_log2; // the upper level's coverage fill needs the PTE's hint
    r.level_hit = m.level_hit;
    r.queued = m.queued;
}

// Fill flags for answer m: the plan for its page, and its page-table leaf
// when a level below answered with a piece of a larger leaf.
static uint32_t with_leaf(uint32_t flags, const xlate_req &m)
{
    if (m.leaf_shift > m.page_shift && m.leaf_shift < 64)
        flags = (flags & ~GMMU_TLB_FILL_LEAF(63)) | GMMU_TLB_FILL_LEAF(m.leaf_shift);
    return flags;
}

// Copy the next level's answers into their requests and fill the model.
sc_core::sc_time tlb::take_answers(std::vector<xlate_req> &reqs, uint64_t gen,
                                   const sc_core::sc_time &t_lookup, sc_core::sc_time done)
{
    for (size_t k = 0; k < miss_idx.size(); k++) {
        xlate_req &r = reqs[miss_idx[k]];
        const xlate_req &m = miss_ext.reqs[k];
        copy_answer(r, m);
        r.ready = m.ready;
        if (r.ready > done)
            done = r.ready;
        if (m.done && m.fault == GMMU_FAULT_NONE)
            fill_answer(r, m, gen, t_lookup);
    }
    return done;
}

void tlb::fill_answer(const xlate_req &r, const xlate_req &m, uint64_t gen,
                      const sc_core::sc_time &t_lookup)
{
    const unsigned shift = p.model.page_shift;
    uint32_t flags = 0;
    if (!gmmu_tlb_fill_plan(t, m.page_shift, m.contig_log2, &flags)) {
        uncacheable++; // the page-table page is smaller than this TLB's page
        return;
    }
    flags = with_leaf(flags, m) | GMMU_TLB_FILL_CHECK_GEN;
    // A translation that arrives after the lookup: the model keeps its
    // absolute arrival time, in time-resolution units (0: with the fill).
    const uint64_t at = r.ready > t_lookup ? (sc_core::sc_time_stamp() + r.ready).value() : 0;
    gmmu_tlb_fill_ready(t, r.asid, r.va >> shift, m.pa >> shift, m.perms, flags, gen, at, &fill_out);
    if (p.level == 1 && cur_warp)
        note_owners(r, shift);
    // PICLE: tell the LDT what this shared TLB evicted.
    if (p.level >= 2 && peers.bound() && fill_out.nvictims)
        peers.note_evictions(fill_out, r.ready);
}

void tlb::translate_dbg(std::vector<xlate_req> &reqs)
{
    look_up(reqs, sc_core::SC_ZERO_TIME, true);
    if (miss_ext.reqs.empty())
        return;
    miss_ext.op = xlate_ext::op_kind::translate_debug;
    miss_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    miss_gp.set_address(miss_ext.reqs[0].va);
    miss_isock->transport_dbg(miss_gp);
    for (size_t k = 0; k < miss_idx.size(); k++) {
        xlate_req &r = reqs[miss_idx[k]];
        copy_answer(r, miss_ext.reqs[k]);
        r.ready = sc_core::SC_ZERO_TIME;
    }
}

// ---- L1 data path with the MSHR timing model ---------------------------------
// Pass 1 finds the pages that will miss (probe, no state change) and are not
// already waiting in an MSHR, and sends them down as one batch (so the walker
// can coalesce them). Pass 2 runs gmmu_tlb_access_batch: ports, in-order
// issue, MSHR allocation and merging, hits under misses, the limit on misses
// in flight; its miss callback takes each miss's latency from pass 1's answer
// and fills the TLB.
void tlb::fill_from(const xlate_req &m)
{
    const unsigned shift = p.model.page_shift;
    if (!m.done || m.fault != GMMU_FAULT_NONE)
        return;
    uint32_t flags = 0;
    if (!gmmu_tlb_fill_plan(t, m.page_shift, m.contig_log2, &flags)) {
        uncacheable++;
        return;
    }
    gmmu_tlb_fill_ex(t, m.asid, m.va >> shift, m.pa >> shift, m.perms,
                     with_leaf(flags, m) | GMMU_TLB_FILL_CHECK_GEN, batch_gen, &fill_out);
    if (p.level == 1 && cur_warp)
        note_owners(m, shift);
}

gmmu_status tlb::mshr_miss_cb(void *ctx, uint16_t asid, uint64_t vpn, uint64_t issue,
                              uint32_t *latency)
{
    auto *self = static_cast<tlb *>(ctx);
    const unsigned shift = self->p.model.page_shift;
    const sc_core::sc_time clk = self->p.clock;
    xlate_req *m = nullptr;
    for (auto &r : self->resolved)
        if (r.asid == asid && (r.va >> shift) == vpn)
            m = &r;
    if (!m) {
        // Not foreseen by pass 1 (an earlier fill evicted it, or the MSHR it
        // would have merged into completed while this batch stalled): ask the
        // next level at the batch's cycle, as pass 1 does, so the walker's
        // queue is not pushed ahead of the batches still to come; the rule
        // below starts its walk no earlier than its MSHR.
        xlate_req q = self->batch_ctx; // the batch's context (root, privilege)
        q.va = vpn << shift;
        q.asid = asid;
        q.write = false;
        self->miss_ext.reqs.assign(1, q);
        self->miss_ext.op = xlate_ext::op_kind::translate;
        self->miss_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d =
            cycles_time(clk, self->batch_ask + self->p.model.lookup_cycles) - sc_core::sc_time_stamp();
        self->miss_isock->b_transport(self->miss_gp, d);
        self->batches_down++;
        q = self->miss_ext.reqs[0];
        q.ready = d;
        self->resolved.push_back(q);
        m = &self->resolved.back();
    }
    // Pass 1 asked the next level for the batch's misses together; the
    // model says what that answer costs a miss that took its MSHR at issue.
    const uint64_t ready = (sc_core::sc_time_stamp() + m->ready).value() / clk.value();
    const uint64_t queued = m->queued.value() / clk.value();
    *latency = gmmu_tlb_mshr_miss_latency(self->batch_ask, issue, self->p.model.lookup_cycles,
                                          ready, queued);
    self->fill_from(*m);
    return GMMU_OK;
}

sc_core::sc_time tlb::translate_mshr(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay)
{
    const unsigned shift = p.model.page_shift;
    const sc_core::sc_time clk = p.clock;
    batch_now = (sc_core::sc_time_stamp() + delay).value() / clk.value();
    batch_gen = gmmu_tlb_generation(t);
    batch_ctx = reqs.empty() ? xlate_req{} : miss_of(reqs[0]);
    // The misses go down when the MSHR model lets the batch's first miss
    // allocate (a blocking TLB releases it only once the misses in flight are
    // filled), not when the batch arrives.
    batch_ask = gmmu_tlb_mshr_first_miss_cycle(mshr, batch_now);
    // Pass 1: the misses that need the next level.
    miss_ext.reqs.clear();
    for (auto &r : reqs) {
        gmmu_tlb_answer a;
        if (gmmu_tlb_answer_access(t, r.asid, r.va >> shift, access_of(r), true, &a) == GMMU_TLB_SERVED)
            continue;
        if (gmmu_tlb_mshr_pending(mshr, r.asid, r.va >> shift, batch_now))
            continue; // its translation is already on the way
        miss_ext.reqs.push_back(miss_of(r));
    }
    resolved.clear();
    if (!miss_ext.reqs.empty()) {
        miss_ext.op = xlate_ext::op_kind::translate;
        miss_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = delay + cycles_time(clk, batch_ask - batch_now + p.model.lookup_cycles);
        batches_down++;
        miss_isock->b_transport(miss_gp, d);
        resolved = miss_ext.reqs;
    }
    // Pass 2: the timing model, with the functional lookups and fills.
    acc.resize(reqs.size());
    for (size_t i = 0; i < reqs.size(); i++)
        acc[i].vpn = reqs[i].va >> shift;
    const uint16_t asid = reqs.empty() ? 0 : reqs[0].asid;
    gmmu_tlb_access_batch(mshr, t, asid, acc.data(), uint32_t(acc.size()), batch_now,
                          &tlb::mshr_miss_cb, this, nullptr);
    sc_core::sc_time done = delay;
    for (size_t i = 0; i < reqs.size(); i++) {
        xlate_req &r = reqs[i];
        const gmmu_tlb_access &a = acc[i];
        r.ready = delay + cycles_time(clk, a.done - batch_now);
        r.done = true;
        r.fault = GMMU_FAULT_NONE;
        bool have = false;
        if (a.kind == GMMU_TLB_ACCESS_HIT && !gmmu_tlb_needs_walk(a.perms, access_of(r))) {
            r.pa = (a.ppn << shift) | (r.va & page_mask);
            r.perms = a.perms;
            r.page_shift = shift;
            r.level_hit = p.level;
            r.hit_depth = a.lru_depth;
            have = true;
        } else {
            for (auto &m : resolved)
                if ((m.va >> shift) == a.vpn && m.asid == r.asid) {
                    sc_core::sc_time ready = r.ready;
                    r = m;
                    r.ready = ready;
                    have = true;
                }
        }
        if (!have) {
            // Merged into an earlier batch's miss, or a write to a page cached
            // read-only: the translation is in the TLB now, or the walker decides.
            gmmu_tlb_answer now_in;
            if (gmmu_tlb_answer_access(t, r.asid, a.vpn, access_of(r), true, &now_in) == GMMU_TLB_SERVED) {
                r.pa = (now_in.ppn << shift) | (r.va & page_mask);
                r.perms = now_in.perms;
                r.page_shift = shift;
            } else {
                std::vector<xlate_req> one(1, r);
                one[0].done = false;
                const sc_core::sc_time late = translate(one, r.ready);
                r = one[0];
                r.ready = late;
            }
        }
        if (r.ready > done)
            done = r.ready;
    }
    return done;
}

void tlb::trace_batch(const std::vector<xlate_req> &reqs, const sc_core::sc_time &begin,
                      const sc_core::sc_time &end) const
{
    timeline *tl = active_timeline();
    if (!tl)
        return;
    unsigned here = 0;
    for (const xlate_req &r : reqs)
        here += r.level_hit == p.level;
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    tl->span(name(), "translate", now + begin, now + end,
             {{"pages", reqs.size()}, {"hits", here}, {"misses", reqs.size() - here}});
}

} // namespace gmmu
