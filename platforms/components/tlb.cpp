#include "gmmu/components/tlb.h"
#include "gmmu/components/timeline.h"

#include <algorithm>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gmmu {

tlb::tlb(sc_core::sc_module_name name, const tlb_params &params)
    : sc_module(name), tsock("tsock"), isock("isock"), miss_isock("miss_isock"),
      ldt_isock("ldt_isock"), shootdown_tsock("shootdown_tsock"), p(params)
{
    gmmu_error err{};
    if (gmmu_tlb_init(&t, &p.model, &err) != GMMU_OK)
        report_error("tlb", std::string(this->name()) + ": " + err.field + ": " + err.msg);
    if (p.ports == 0)
        report_error("tlb", std::string(this->name()) + ": ports: must be at least 1");
    page_mask = (1ull << p.model.page_shift) - 1;
    tsock.register_b_transport(this, &tlb::b_transport);
    tsock.register_transport_dbg(this, &tlb::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &tlb::get_direct_mem_ptr);
    isock.register_invalidate_direct_mem_ptr(this, &tlb::invalidate_from_below);
    shootdown_tsock.register_b_transport(this, &tlb::shootdown);
    miss_gp.set_command(tlm::TLM_IGNORE_COMMAND);
    miss_gp.set_data_ptr(nullptr);
    miss_gp.set_data_length(0);
    miss_gp.set_extension(&miss_ext);
    ldt_gp.set_command(tlm::TLM_IGNORE_COMMAND);
    ldt_gp.set_data_ptr(nullptr);
    ldt_gp.set_data_length(0);
    ldt_gp.set_extension(&ldt_ext);
    miss_reqs.reserve(warp_ext::lanes);
    if (p.mshr.mshrs) {
        if (gmmu_tlb_mshr_init(&mshr, &p.mshr, &err) != GMMU_OK)
            report_error("tlb", std::string(this->name()) + ": mshr." + err.field + ": " + err.msg);
        use_mshr = true;
    }
    page_reqs.reserve(warp_ext::lanes);
}

tlb::~tlb()
{
    miss_gp.clear_extension(&miss_ext);
    ldt_gp.clear_extension(&ldt_ext);
    if (use_mshr)
        gmmu_tlb_mshr_destroy(&mshr);
    gmmu_tlb_destroy(&t);
}

sc_core::sc_time tlb::translate(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay,
                                bool debug)
{
    const unsigned shift = p.model.page_shift;
    sc_core::sc_time t_lookup = delay;
    if (!debug) {
        // One lookup per port per cycle; the first costs the full lookup latency.
        unsigned extra = reqs.empty() ? 0u : (unsigned)((reqs.size() - 1) / p.ports);
        t_lookup += lookup_time.get(p.clock, p.model.lookup_cycles + extra);
    }
    sc_core::sc_time done = t_lookup;
    miss_ext.reqs.clear();
    miss_idx.clear();
    for (size_t i = 0; i < reqs.size(); i++) {
        xlate_req &r = reqs[i];
        gmmu_tlb_answer a;
        const gmmu_tlb_verdict v = gmmu_tlb_answer_access(&t, r.asid, r.va >> shift, access_of(r), debug, &a);
        if (v == GMMU_TLB_REWALK && !debug)
            perm_upgrades++;
        if (v == GMMU_TLB_SERVED) {
            r.done = true;
            r.fault = GMMU_FAULT_NONE;
            r.pa = (a.ppn << shift) | (r.va & page_mask);
            r.page_shift = a.page_shift; // a large-page entry answers for its whole page
            r.perms = a.perms;
            r.level_hit = p.level;
            r.hit_depth = a.lru_depth;
            // A coverage entry of a shared level vouches for its whole block
            // to the level above.
            r.contig_log2 = p.level >= 2 ? a.span_shift : 0;
            r.ready = t_lookup;
            if (a.ready) {
                // The model was filled at call time; the translation arrives
                // at the entry's ready time (absolute, time-resolution units).
                const sc_core::sc_time now = sc_core::sc_time_stamp();
                const sc_core::sc_time arrives = sc_core::sc_time::from_value(a.ready);
                if (arrives > now + t_lookup) {
                    r.ready = arrives - now; // the entry's translation is still on its way
                    hits_under_fill++;
                    if (r.ready > done)
                        done = r.ready;
                }
            }
        } else {
            miss_idx.push_back(i);
            miss_ext.reqs.push_back(miss_of(r));
        }
    }
    if (miss_ext.reqs.empty())
        return done;

    // Valkyrie: an L1 asks its peers (through the LDT unit) before the L2.
    if (!debug && p.level == 1 && ldt_isock.size() > 0) {
        ldt_ext.reqs = miss_ext.reqs;
        sc_core::sc_time d = t_lookup;
        ldt_send(xlate_ext::op_kind::probe, d);
        size_t keep = 0;
        for (size_t k = 0; k < miss_idx.size(); k++) {
            const xlate_req &pr = ldt_ext.reqs[k];
            uint32_t plan = 0;
            if (pr.done && pr.fault == GMMU_FAULT_NONE && !gmmu_tlb_needs_walk(pr.perms, access_of(pr)) &&
                gmmu_tlb_fill_plan(&t, pr.page_shift, 0, &plan)) {
                xlate_req &r = reqs[miss_idx[k]];
                r = pr;
                r.level_hit = 1;
                gmmu_tlb_fill_ex(&t, r.asid, r.va >> shift, r.pa >> shift, r.perms, 0, 0, nullptr);
                probe_fills++;
                if (r.ready > done)
                    done = r.ready;
                continue;
            }
            miss_idx[keep] = miss_idx[k];
            miss_ext.reqs[keep] = miss_ext.reqs[k];
            keep++;
        }
        miss_idx.resize(keep);
        miss_ext.reqs.resize(keep);
        if (keep == 0)
            return done;
    }
    miss_ext.debug = debug;
    miss_ext.op = xlate_ext::op_kind::translate;
    // A TLB invalidation while the misses are out makes their fills stale.
    const uint64_t gen = gmmu_tlb_generation(&t);
    miss_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    miss_gp.set_address(miss_ext.reqs[0].va);
    if (debug) {
        miss_isock->transport_dbg(miss_gp);
    } else {
        batches_down++;
        sc_core::sc_time d = t_lookup;
        miss_isock->b_transport(miss_gp, d);
    }
    for (size_t k = 0; k < miss_idx.size(); k++) {
        xlate_req &r = reqs[miss_idx[k]];
        const xlate_req &m = miss_ext.reqs[k];
        r.done = m.done;
        r.fault = m.done ? m.fault : GMMU_FAULT_NOT_PRESENT;
        r.pa = m.pa;
        r.page_shift = m.page_shift;
        r.perms = m.perms;
        r.contig_log2 = m.contig_log2; // the upper level's coverage fill needs the PTE's hint
        r.level_hit = m.level_hit;
        r.queued = m.queued;
        r.ready = debug ? sc_core::SC_ZERO_TIME : m.ready;
        if (r.ready > done)
            done = r.ready;
        if (!debug && m.done && m.fault == GMMU_FAULT_NONE) {
            uint32_t flags = 0;
            if (gmmu_tlb_fill_plan(&t, m.page_shift, m.contig_log2, &flags)) {
                flags |= GMMU_TLB_FILL_CHECK_GEN;
                gmmu_tlb_fill_ex(&t, r.asid, r.va >> shift, m.pa >> shift, m.perms, flags, gen,
                                 &fill_out);
                if (p.level == 1 && cur_warp)
                    note_owners(r, shift);
                if (r.ready > t_lookup) {
                    // The model keeps the absolute arrival time, in time-resolution units.
                    const sc_core::sc_time at = sc_core::sc_time_stamp() + r.ready;
                    gmmu_tlb_set_ready(&t, r.asid, r.va >> shift, at.value());
                }
                if (p.level >= 2 && ldt_isock.size() > 0 && fill_out.nvictims) {
                    // PICLE: tell the LDT what this shared TLB evicted.
                    ldt_ext.reqs.clear();
                    for (uint32_t v = 0; v < fill_out.nvictims; v++) {
                        xlate_req e;
                        e.va = fill_out.victims[v].vpn << shift;
                        e.pa = fill_out.victims[v].ppn << shift;
                        e.asid = fill_out.victims[v].asid;
                        e.perms = fill_out.victims[v].perms;
                        e.page_shift = shift;
                        e.done = true;
                        ldt_ext.reqs.push_back(e);
                    }
                    sc_core::sc_time d = r.ready;
                    ldt_send(xlate_ext::op_kind::ldt_evict, d);
                }
            } else {
                uncacheable++; // the page-table page is smaller than this TLB's page
            }
        }
    }
    return done;
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
    if (!gmmu_tlb_fill_plan(&t, m.page_shift, m.contig_log2, &flags)) {
        uncacheable++;
        return;
    }
    gmmu_tlb_fill_ex(&t, m.asid, m.va >> shift, m.pa >> shift, m.perms,
                     flags | GMMU_TLB_FILL_CHECK_GEN, batch_gen, &fill_out);
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
        self->miss_ext.debug = false;
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
    // Pass 1 asked the next level for the batch's misses together, so the
    // walker's queue already holds them behind earlier misses. A miss that
    // waited for an MSHR starts its walk only then: it takes at least its
    // walk's own time (the answer's latency without the wait for a walker)
    // from the lookup that took the MSHR, and arrives no earlier than the
    // answer; the wait for the MSHR and the walker's queue are not added.
    const uint64_t ready = (sc_core::sc_time_stamp() + m->ready).value() / clk.value();
    const uint64_t queued = m->queued.value() / clk.value();
    const uint64_t asked = std::min(self->batch_ask, issue) + self->p.model.lookup_cycles;
    const uint64_t looked = issue + self->p.model.lookup_cycles;
    const uint64_t own = ready > asked + queued ? ready - asked - queued : 1;
    const uint64_t arrives = std::max(ready, looked + own);
    *latency = uint32_t(arrives > looked ? arrives - looked : 1);
    self->fill_from(*m);
    return GMMU_OK;
}

sc_core::sc_time tlb::translate_mshr(std::vector<xlate_req> &reqs, const sc_core::sc_time &delay)
{
    const unsigned shift = p.model.page_shift;
    const sc_core::sc_time clk = p.clock;
    batch_now = (sc_core::sc_time_stamp() + delay).value() / clk.value();
    batch_gen = gmmu_tlb_generation(&t);
    batch_ctx = reqs.empty() ? xlate_req{} : miss_of(reqs[0]);
    // The misses go down when the MSHR model lets the batch's first miss
    // allocate (a blocking TLB releases it only once the misses in flight are
    // filled), not when the batch arrives.
    batch_ask = gmmu_tlb_mshr_first_miss_cycle(&mshr, batch_now);
    // Pass 1: the misses that need the next level.
    miss_ext.reqs.clear();
    for (auto &r : reqs) {
        gmmu_tlb_answer a;
        if (gmmu_tlb_answer_access(&t, r.asid, r.va >> shift, access_of(r), true, &a) == GMMU_TLB_SERVED)
            continue;
        if (gmmu_tlb_mshr_pending(&mshr, r.asid, r.va >> shift, batch_now))
            continue; // its translation is already on the way
        miss_ext.reqs.push_back(miss_of(r));
    }
    resolved.clear();
    if (!miss_ext.reqs.empty()) {
        miss_ext.op = xlate_ext::op_kind::translate;
        miss_ext.debug = false;
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
    gmmu_tlb_access_batch(&mshr, &t, asid, acc.data(), uint32_t(acc.size()), batch_now,
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
            if (gmmu_tlb_answer_access(&t, r.asid, a.vpn, access_of(r), true, &now_in) == GMMU_TLB_SERVED) {
                r.pa = (now_in.ppn << shift) | (r.va & page_mask);
                r.perms = now_in.perms;
                r.page_shift = shift;
            } else {
                std::vector<xlate_req> one(1, r);
                one[0].done = false;
                sc_core::sc_time late = translate(one, r.ready, false);
                sc_core::sc_time ready = late;
                r = one[0];
                r.ready = ready;
            }
        }
        if (r.ready > done)
            done = r.ready;
    }
    return done;
}

// TCWS bookkeeping after a fill of the L1 data path: the victims' owners are
// reported to the access (the first one) and forgotten; the filled page now
// belongs to the access's warp. Entries dropped by an invalidation are not
// reported, so the map is cleared when it grows past 4x the entries.
void tlb::note_owners(const xlate_req &filled, unsigned shift)
{
    auto key = [](uint64_t asid, uint64_t vpn) { return asid << 52 | (vpn & ((1ull << 52) - 1)); };
    for (uint32_t v = 0; v < fill_out.nvictims; v++) {
        const gmmu_tlb_entry &e = fill_out.victims[v];
        auto it = entry_owner.find(key(e.asid, e.vpn));
        if (it == entry_owner.end())
            continue;
        if (!cur_warp->tlb_victim) {
            cur_warp->tlb_victim = true;
            cur_warp->tlb_victim_va = e.vpn << shift;
            cur_warp->tlb_victim_owner = it->second;
        }
        entry_owner.erase(it);
    }
    if (entry_owner.size() > 4u * p.model.entries)
        entry_owner.clear();
    if (cur_warp->warp < 64 && cur_warp->block < (1u << 26))
        entry_owner[key(filled.asid, filled.va >> shift)] = cur_warp->block << 6 | cur_warp->warp;
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

void tlb::data_access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay, bool debug)
{
    const bool write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
    warp_ext *w = gp.get_extension<warp_ext>();
    const unsigned shift = p.model.page_shift;

    // Gather the unique pages of the access.
    gmmu_coalesced c;
    uint64_t single_va = gp.get_address();
    uint16_t asid = 0;
    ctx_ext *cx = w ? nullptr : gp.get_extension<ctx_ext>();
    if (cx)
        cx->fault = GMMU_FAULT_NONE;
    if (w) {
        if (w->nlanes > warp_ext::lanes ||
            gmmu_coalesce(w->va.data(), w->nlanes, w->active, shift, &c) != GMMU_OK) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        asid = w->asid;
    } else {
        // Every TLB page the access touches (a large page's translation may
        // cover them all; pieces in separate frames are forwarded apart).
        const uint64_t len = gp.get_data_length() ? gp.get_data_length() : 1;
        const uint64_t end = single_va + (len - 1);
        if (end < single_va || (end >> shift) - (single_va >> shift) >= warp_ext::lanes) {
            gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE); // wraps, or too many pages
            return;
        }
        c.npages = unsigned((end >> shift) - (single_va >> shift) + 1);
        for (unsigned i = 0; i < c.npages; i++) {
            c.vpn[i] = (single_va >> shift) + i;
            c.lane_mask[i] = 1;
        }
        c.lane_page[0] = 0;
    }
    page_reqs.clear();
    for (unsigned i = 0; i < c.npages; i++) {
        xlate_req r;
        r.va = c.vpn[i] << shift;
        r.asid = asid;
        r.write = write;
        if (cx && cx->resolved) {
            r.asid = cx->asid;
            r.root = cx->root;
            r.priv = cx->privileged;
        }
        page_reqs.push_back(r);
    }
    cur_warp = p.track_owners && w && !debug ? w : nullptr;
    sc_core::sc_time t_done = use_mshr && !debug ? translate_mshr(page_reqs, delay)
                                                 : translate(page_reqs, delay, debug);
    cur_warp = nullptr;
    if (!debug)
        trace_batch(page_reqs, delay, t_done);

    if (!debug) {
        warp_accesses++;
        page_divergence_sum += c.npages;
        if (ldt_isock.size() > 0) { // PICLE: every L1 access updates the LDT
            ldt_ext.reqs = page_reqs;
            sc_core::sc_time d = delay;
            ldt_send(xlate_ext::op_kind::ldt_update, d);
        }
    }
    // Faults: report and do not touch memory.
    uint32_t fault_lanes = 0;
    const xlate_req *first_fault = nullptr;
    for (unsigned i = 0; i < c.npages; i++)
        if (page_reqs[i].fault != GMMU_FAULT_NONE) {
            fault_lanes |= c.lane_mask[i];
            if (!first_fault)
                first_fault = &page_reqs[i];
        }
    if (w) {
        w->page_divergence = c.npages;
        w->translated = true;
        for (unsigned i = 0; i < c.npages && p.level == 1; i++) {
            w->tlb_miss = w->tlb_miss || page_reqs[i].level_hit != 1;
            if (page_reqs[i].level_hit == 1 && page_reqs[i].hit_depth > w->tlb_hit_depth)
                w->tlb_hit_depth = page_reqs[i].hit_depth;
        }
        w->fault_mask = fault_lanes;
        w->fault = first_fault ? first_fault->fault : GMMU_FAULT_NONE;
        w->fault_va = first_fault ? first_fault->va : 0;
    }
    if (cx && first_fault) {
        cx->fault = first_fault->fault;
        cx->fault_va = std::max(single_va, first_fault->va); // the first faulting byte
    }
    if (first_fault) {
        if (!debug)
            faults++;
        if (!debug)
            delay = t_done;
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }

    if (w) {
        if (c.npages == 1) {
            // One page: every lane gets the same frame (inactive lanes too; unused).
            const uint64_t frame = page_reqs[0].pa & ~page_mask;
#if defined(__SSE2__)
            const __m128i f = _mm_set1_epi64x((long long)frame);
            const __m128i m = _mm_set1_epi64x((long long)page_mask);
            for (unsigned l = 0; l < warp_ext::lanes; l += 2) {
                const __m128i va = _mm_loadu_si128((const __m128i *)(const void *)&w->va[l]);
                _mm_storeu_si128((__m128i *)(void *)&w->pa[l], _mm_or_si128(f, _mm_and_si128(va, m)));
            }
#else
            for (unsigned l = 0; l < warp_ext::lanes; l++)
                w->pa[l] = frame | (w->va[l] & page_mask);
#endif
        } else {
            for (unsigned l = 0; l < w->nlanes; l++)
                if (w->active & (1u << l))
                    w->pa[l] = (page_reqs[c.lane_page[l]].pa & ~page_mask) | (w->va[l] & page_mask);
        }
        if (on_translate && !debug)
            for (unsigned l = 0; l < w->nlanes; l++)
                if (w->active & (1u << l))
                    on_translate(asid, w->va[l], w->pa[l], write);
        if (!debug)
            lanes += (unsigned)__builtin_popcount(w->active);
        if (debug) {
            // Debug access of a warp payload: forward with debug transport lane by lane.
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
        if (p.overlap_cache_access && c.npages > 1) {
            forward_by_page(gp, *w, c, delay, delay);
            return;
        }
        w->xlate_time = t_done - delay;
        delay = t_done;
        isock->b_transport(gp, delay);
        return;
    }

    uint64_t pa = (page_reqs[0].pa & ~page_mask) | (single_va & page_mask);
    if (on_translate && !debug)
        on_translate(page_reqs[0].asid, single_va, pa, write);
    if (!debug)
        lanes++;
    if (!debug)
        delay = t_done;
    bool contiguous = true;
    for (unsigned i = 1; i < c.npages; i++)
        contiguous &= (page_reqs[i].pa & ~page_mask) == (page_reqs[0].pa & ~page_mask) + (uint64_t(i) << shift);
    if (contiguous) {
        gp.set_address(pa);
        if (debug)
            gp.set_response_status(isock->transport_dbg(gp) == gp.get_data_length()
                                       ? tlm::TLM_OK_RESPONSE
                                       : tlm::TLM_GENERIC_ERROR_RESPONSE);
        else
            isock->b_transport(gp, delay);
        gp.set_address(single_va);
        return;
    }
    forward_pieces(gp, delay, debug);
}

// Intra-warp overlap: the lanes of each page go to the data side when that
// page's translation is known (gmmu_warp_dispatch_times), earliest first;
// the warp completes with its last lane. w.active is narrowed to one page's
// lanes per forward and restored.
void tlb::forward_by_page(tlm::tlm_generic_payload &gp, warp_ext &w, const gmmu_coalesced &c,
                          const sc_core::sc_time &in, sc_core::sc_time &delay)
{
    const unsigned n = c.npages;
    page_ready.resize(n);
    page_at.resize(n);
    page_order.resize(n);
    for (unsigned i = 0; i < n; i++) {
        page_ready[i] = page_reqs[i].ready.value();
        page_order[i] = i;
    }
    gmmu_warp_dispatch_times(page_ready.data(), n, true, page_at.data());
    std::stable_sort(page_order.begin(), page_order.end(),
                     [this](unsigned a, unsigned b) { return page_at[a] < page_at[b]; });
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

// A plain access over TLB pages in separate frames: one forward per page,
// in address order, stopping at the first error (its response is the
// access's).
void tlb::forward_pieces(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay, bool debug)
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
        if (debug) {
            if (isock->transport_dbg(piece) != n) {
                gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
                return;
            }
            piece.set_response_status(tlm::TLM_OK_RESPONSE);
        } else {
            isock->b_transport(piece, delay);
        }
        if (!piece.is_response_ok()) {
            gp.set_response_status(piece.get_response_status());
            return;
        }
        done += n;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void tlb::ldt_send(xlate_ext::op_kind op, sc_core::sc_time &delay)
{
    ldt_ext.op = op;
    ldt_ext.cu = p.cu;
    ldt_ext.debug = false;
    ldt_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    ldt_isock->b_transport(ldt_gp, delay);
}

// PICLE pushes (prefetch) and Valkyrie peer probes arriving at this TLB.
void tlb::side_band(xlate_ext &x, sc_core::sc_time &delay)
{
    const unsigned shift = p.model.page_shift;
    if (x.op == xlate_ext::op_kind::prefetch) {
        for (auto &r : x.reqs) {
            if (r.page_shift < shift)
                continue;
            gmmu_tlb_fill_ex(&t, r.asid, r.va >> shift, r.pa >> shift, r.perms,
                             GMMU_TLB_FILL_PREFETCH, 0, nullptr);
            prefetches_received++;
        }
        return;
    }
    if (x.op == xlate_ext::op_kind::probe) {
        for (auto &r : x.reqs) {
            gmmu_tlb_entry e;
            probes_answered++;
            if (!gmmu_tlb_probe(&t, r.asid, r.va >> shift, &e))
                continue;
            r.done = true;
            r.fault = GMMU_FAULT_NONE;
            r.pa = (e.ppn << shift) | (r.va & page_mask);
            r.perms = e.perms;
            r.page_shift = shift;
        }
        (void)delay;
    }
}

void tlb::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
        auto *x = gp.get_extension<xlate_ext>();
        if (!x) {
            gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
            return;
        }
        if (x->op == xlate_ext::op_kind::invalidate) {
            invalidate(x->inv);
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        if (x->op != xlate_ext::op_kind::translate) {
            side_band(*x, delay);
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        sc_core::sc_time done = translate(x->reqs, delay, x->debug);
        if (!x->debug)
            trace_batch(x->reqs, delay, done);
        delay = done;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (isock.size() == 0) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE); // no data path bound
        return;
    }
    data_access(gp, delay, false);
}

unsigned tlb::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
        auto *x = gp.get_extension<xlate_ext>();
        if (!x)
            return 0;
        translate(x->reqs, sc_core::SC_ZERO_TIME, true);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return 0;
    }
    if (isock.size() == 0)
        return 0;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    data_access(gp, d, true);
    return gp.get_response_status() == tlm::TLM_OK_RESPONSE ? gp.get_data_length() : 0;
}

bool tlb::get_direct_mem_ptr(int, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi)
{
    if (isock.size() == 0)
        return false;
    const unsigned shift = p.model.page_shift;
    uint64_t va = gp.get_address();
    uint16_t asid = 0;
    if (auto *w = gp.get_extension<warp_ext>())
        asid = w->asid;
    std::vector<xlate_req> one(1);
    one[0].va = va;
    one[0].asid = asid;
    if (auto *cx = gp.get_extension<ctx_ext>(); cx && cx->resolved) {
        one[0].asid = cx->asid;
        one[0].root = cx->root;
        one[0].priv = cx->privileged;
    }
    one[0].write = false; // grant what the page allows; the initiator checks write access
    translate(one, sc_core::SC_ZERO_TIME, true);
    if (one[0].fault != GMMU_FAULT_NONE)
        return false;
    uint64_t pa = one[0].pa;
    // The whole page the translation belongs to (a large page: all of it).
    const uint64_t pg_mask = (1ull << std::max<unsigned>(shift, one[0].page_shift)) - 1;
    uint64_t pg_lo = pa & ~pg_mask, pg_hi = pg_lo + pg_mask;
    tlm::tlm_generic_payload g;
    g.set_command(gp.get_command());
    g.set_address(pa);
    tlm::tlm_dmi down;
    if (!isock->get_direct_mem_ptr(g, down))
        return false;
    uint64_t lo = std::max<uint64_t>(pg_lo, down.get_start_address());
    uint64_t hi = std::min<uint64_t>(pg_hi, down.get_end_address());
    if (lo > pa || hi < pa)
        return false;
    uint64_t va_base = va - (pa - lo);
    dmi.set_dmi_ptr(down.get_dmi_ptr() + (lo - down.get_start_address()));
    dmi.set_start_address(va_base);
    dmi.set_end_address(va_base + (hi - lo));
    dmi.set_read_latency(down.get_read_latency());
    dmi.set_write_latency(down.get_write_latency());
    bool writable = (one[0].perms & GMMU_PTE_W) != 0;
    if (writable && down.is_write_allowed() && down.is_read_allowed())
        dmi.allow_read_write();
    else if (down.is_read_allowed())
        dmi.allow_read();
    else
        return false;
    dmi_granted = true;
    dmi_grants++;
    return true;
}

void tlb::invalidate_from_below(sc_dt::uint64, sc_dt::uint64)
{
    // A PA range went away below us; VA ranges granted above are not indexed
    // by PA, so revoke them all.
    if (dmi_granted) {
        dmi_invalidations++;
        for (unsigned i = 0; i < tsock.size(); i++)
            tsock[i]->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
        dmi_granted = false;
    }
}

void tlb::revoke_dmi(uint64_t lo, uint64_t hi)
{
    if (!dmi_granted)
        return;
    dmi_invalidations++;
    for (unsigned i = 0; i < tsock.size(); i++)
        tsock[i]->invalidate_direct_mem_ptr(lo, hi);
    if (lo == 0 && hi == ~0ull)
        dmi_granted = false;
}

void tlb::invalidate(const xlate_ext::inv_desc &inv)
{
    using scope = xlate_ext::inv_desc::scope;
    switch (inv.kind) {
    case scope::all:
        gmmu_tlb_invalidate_all(&t);
        revoke_dmi(0, ~0ull);
        break;
    case scope::asid:
        gmmu_tlb_invalidate_asid(&t, inv.asid);
        revoke_dmi(0, ~0ull); // DMI regions are not tagged by ASID
        break;
    case scope::range:
    case scope::asid_range:
        if (inv.kind == scope::range)
            gmmu_tlb_invalidate_range_all_asids(&t, inv.va_lo, inv.va_hi);
        else
            gmmu_tlb_invalidate_range(&t, inv.asid, inv.va_lo, inv.va_hi);
        revoke_dmi(inv.va_lo & ~page_mask, inv.va_hi | page_mask);
        break;
    }
    // Down the hierarchy: the next TLB level, and at the end the walker.
    tlm::tlm_generic_payload g;
    xlate_ext x;
    x.op = xlate_ext::op_kind::invalidate;
    x.inv = inv;
    g.set_command(tlm::TLM_IGNORE_COMMAND);
    g.set_address(0);
    g.set_data_length(0);
    g.set_extension(&x);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    miss_isock->b_transport(g, d);
    g.clear_extension(&x);
    invalidations_forwarded++;
}

void tlb::invalidate_all() { invalidate({xlate_ext::inv_desc::scope::all, 0, 0, 0}); }

void tlb::invalidate_page(uint16_t asid, uint64_t va)
{
    const uint64_t lo = va & ~page_mask;
    invalidate({xlate_ext::inv_desc::scope::asid_range, asid, lo, lo + page_mask});
}

void tlb::invalidate_asid(uint16_t asid) { invalidate({xlate_ext::inv_desc::scope::asid, asid, 0, 0}); }

void tlb::invalidate_range(uint16_t asid, uint64_t va_lo, uint64_t va_hi)
{
    invalidate({xlate_ext::inv_desc::scope::asid_range, asid, va_lo, va_hi});
}

void tlb::shootdown(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    const uint64_t off = gp.get_address();
    if (gp.get_data_length() != 8 || !gp.get_data_ptr() || (off & 7) || off > 0x28 ||
        gp.get_byte_enable_ptr()) {
        gp.set_response_status(off > 0x28 ? tlm::TLM_ADDRESS_ERROR_RESPONSE
                                          : tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    uint64_t v = 0;
    if (gp.is_read()) {
        v = off == 0x10 ? sd_lo : off == 0x18 ? sd_hi : off == 0x28 ? gmmu_tlb_generation(&t) : 0;
        std::memcpy(gp.get_data_ptr(), &v, 8);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    std::memcpy(&v, gp.get_data_ptr(), 8);
    switch (off) {
    case 0x00: invalidate_all(); break;
    case 0x08: invalidate_asid(uint16_t(v)); break;
    case 0x10: sd_lo = v; break;
    case 0x18: sd_hi = v; break;
    case 0x20:
        if (sd_hi < sd_lo) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        invalidate_range(uint16_t(v), sd_lo, sd_hi);
        break;
    default:
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE); // 0x28 is read-only
        return;
    }
    if (off == 0x00 || off == 0x08 || off == 0x20)
        shootdowns++;
    delay += p.clock;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

const stat_table<tlb> &tlb::stats_table()
{
    using json = nlohmann::json;
    using T = tlb;
    const auto with_mshr = [](const T &c) { return c.use_mshr; };
    const auto l1_role = [](const T &c) { return c.warp_accesses != 0; };
    const auto overlapping = [](const T &c) { return c.p.overlap_cache_access; };
    const auto prefetching = [](const T &c) {
        return c.t.st.prefetch_fills || c.prefetches_received || c.probes_answered || c.probe_fills;
    };
    // The large-page array of a page size, if this TLB has one.
    static const auto array_of = [](const T &c, unsigned shift) -> const gmmu_tlb * {
        for (uint32_t i = 0; i < c.t.nlarge; i++)
            if (c.p.model.large[i].shift == shift)
                return c.t.large[i];
        return nullptr;
    };
    const auto has_2m = [](const T &c) { return array_of(c, 21) != nullptr; };
    const auto has_1g = [](const T &c) { return array_of(c, 30) != nullptr; };
    static const stat_table<tlb> table(
        20, "TLB (`gpu.l1_tlbN`, `gpu.l2_tlbN`, `gpu.l3_tlb`)", "",
        {
            {"accesses", "model lookups (one per unique page of a warp access at L1; one per request of a miss batch below); `accesses = hits + misses`",
             [](const T &c) { return json(c.t.st.accesses); }},
            {"hits", "lookups that found an entry", [](const T &c) { return json(c.t.st.hits); }},
            {"misses", "lookups that found none", [](const T &c) { return json(c.t.st.misses); }},
            {"hit_rate", "`hits / accesses`",
             [](const T &c) {
                 return json(c.t.st.accesses ? double(c.t.st.hits) / double(c.t.st.accesses) : 0.0);
             }},
            {"fills", "entries written", [](const T &c) { return json(c.t.st.fills); }},
            {"evictions", "valid entries replaced", [](const T &c) { return json(c.t.st.evictions); }},
            {"invalidations", "entries invalidated", [](const T &c) { return json(c.t.st.invalidations); }},
            {"invalidations_forwarded", "invalidation requests passed on to the next level (`xlate_ext` op=invalidate)",
             [](const T &c) { return json(c.invalidations_forwarded); }},
            {"entries", "geometry: entries", [](const T &c) { return json(c.p.model.entries); }},
            {"lookup_cycles", "lookup latency the access-time model gave this TLB (with `l1_tlb.latency_model=scaled`)",
             [](const T &c) { return json(c.p.model.lookup_cycles); },
             [](const T &c) { return c.p.latency_model != GMMU_TLB_LATENCY_FIXED; }},
            {"ways", "geometry: ways per set", [](const T &c) { return json(c.p.model.ways); }},
            {"page_bytes", "geometry: bytes one entry translates",
             [](const T &c) { return json(1ull << c.p.model.page_shift); }},
            {"large_pages.2M.entries", "geometry of the 2 MiB entries (with `entries_2m`)",
             [](const T &c) { return json(array_of(c, 21)->cfg.entries); }, has_2m},
            {"large_pages.2M.hits", "lookups a 2 MiB entry answered (counted in `hits` too)",
             [](const T &c) { return json(array_of(c, 21)->st.hits); }, has_2m},
            {"large_pages.2M.fills", "2 MiB entries written (not in `fills`)",
             [](const T &c) { return json(array_of(c, 21)->st.fills); }, has_2m},
            {"large_pages.2M.evictions", "2 MiB entries replaced",
             [](const T &c) { return json(array_of(c, 21)->st.evictions); }, has_2m},
            {"large_pages.1G.entries", "geometry of the 1 GiB entries (with `entries_1g`)",
             [](const T &c) { return json(array_of(c, 30)->cfg.entries); }, has_1g},
            {"large_pages.1G.hits", "lookups a 1 GiB entry answered (counted in `hits` too)",
             [](const T &c) { return json(array_of(c, 30)->st.hits); }, has_1g},
            {"large_pages.1G.fills", "1 GiB entries written (not in `fills`)",
             [](const T &c) { return json(array_of(c, 30)->st.fills); }, has_1g},
            {"large_pages.1G.evictions", "1 GiB entries replaced",
             [](const T &c) { return json(array_of(c, 30)->st.evictions); }, has_1g},
            {"mshr.mshrs", "L1 MSHR model (with `l1_tlb.mshrs` > 0): MSHRs",
             [](const T &c) { return json(c.p.mshr.mshrs); }, with_mshr},
            {"mshr.allocated", "misses that took an MSHR", [](const T &c) { return json(c.mshr.st.misses); }, with_mshr},
            {"mshr.merges", "misses merged into one in flight", [](const T &c) { return json(c.mshr.st.merges); }, with_mshr},
            {"mshr.replays", "lookups issued again after waiting", [](const T &c) { return json(c.mshr.st.replays); }, with_mshr},
            {"mshr.stall_cycles", "cycles the head lookup waited", [](const T &c) { return json(c.mshr.st.stall_cycles); }, with_mshr},
            {"mshr.max_in_flight", "most MSHRs busy at once", [](const T &c) { return json(c.mshr.st.max_in_flight); }, with_mshr},
            {"warp_accesses", "data-path payloads translated (L1 role only)",
             [](const T &c) { return json(c.warp_accesses); }, l1_role},
            {"lanes", "their active lanes (L1 role only)", [](const T &c) { return json(c.lanes); }, l1_role},
            {"page_divergence_avg", "unique pages per warp access (L1 role only)",
             [](const T &c) { return json(double(c.page_divergence_sum) / double(c.warp_accesses)); }, l1_role},
            {"miss_batches", "batches of misses sent to the next level", [](const T &c) { return json(c.batches_down); }},
            {"faults", "data accesses that ended in a translation fault", [](const T &c) { return json(c.faults); }},
            {"uncacheable_fills", "translations not cached because the page-table page was smaller than the TLB page",
             [](const T &c) { return json(c.uncacheable); }},
            {"write_permission_rewalks", "writes that hit an entry cached read-only or clean and went to the walker",
             [](const T &c) { return json(c.perm_upgrades); }},
            {"overlapped_warps", "warp accesses over several pages whose lanes went to the data side page by page, each when its translation was known (`sm.overlap_cache_access`)",
             [](const T &c) { return json(c.overlapped_warps); }, overlapping},
            {"hits_under_fill", "hits on an entry whose fill was still in flight: they complete when the fill's translation arrives, not after the lookup latency",
             [](const T &c) { return json(c.hits_under_fill); }},
            {"dmi_grants", "DMI regions granted upstream", [](const T &c) { return json(c.dmi_grants); }},
            {"dmi_invalidations", "DMI invalidation calls made upstream", [](const T &c) { return json(c.dmi_invalidations); }},
            {"shootdowns", "invalidations requested through the shootdown register block",
             [](const T &c) { return json(c.shootdowns); }},
            {"prefetch.received", "PICLE pushes received (L1, with `picle.enabled`)",
             [](const T &c) { return json(c.prefetches_received); }, prefetching},
            {"prefetch.fills", "entries PICLE pushes installed", [](const T &c) { return json(c.t.st.prefetch_fills); }, prefetching},
            {"prefetch.used_before_eviction", "prefetched entries hit at least once before eviction",
             [](const T &c) { return json(c.t.st.prefetch_hits); }, prefetching},
            {"prefetch.evicted_unused", "prefetched entries evicted without a hit",
             [](const T &c) { return json(c.t.st.prefetch_evicted_unused); }, prefetching},
            {"prefetch.evicted_a_useful_entry", "prefetch fills whose victim had been hit since its own fill (pollution)",
             [](const T &c) { return json(c.t.st.prefetch_victim_useful); }, prefetching},
            {"prefetch.peer_probes_answered", "Valkyrie probes this L1 answered",
             [](const T &c) { return json(c.probes_answered); }, prefetching},
            {"prefetch.filled_from_peer_probe", "misses this L1 filled from a peer",
             [](const T &c) { return json(c.probe_fills); }, prefetching},
        });
    return table;
}

static const bool tlb_stats_declared = (tlb::stats_table(), true);

void tlb::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
