// gmmu — TLB component: construction, the TLM entry points, invalidation,
// shootdown registers, DMI and statistics (components/tlb.h). The
// translation core is in tlb_translate.cpp, the L1 data path in
// tlb_front.cpp, the PICLE/Valkyrie side band in tlb_peers.cpp.
#include "gmmu/components/tlb.h"

#include <algorithm>
#include <cstring>

namespace gmmu {

namespace {

gmmu_tlb *create_model(const char *name, const gmmu_tlb_config &c)
{
    gmmu_tlb *t = nullptr;
    gmmu_error err{};
    const gmmu_status st = gmmu_tlb_create(&c, &t, &err);
    if (st != GMMU_OK && err.msg[0] == '\0') // out of memory: the model leaves err empty
        report_error("tlb", std::string(name) + ": " + gmmu_status_str(st) + " allocating a TLB of " +
                            std::to_string(c.entries) + " entries");
    else if (st != GMMU_OK)
        report_error("tlb", std::string(name) + ": " + err.field + ": " + err.msg);
    return t;
}

} // namespace

tlb::tlb(sc_core::sc_module_name name, const tlb_params &params)
    : sc_module(name), tsock("tsock"), isock("isock"), miss_isock("miss_isock"),
      ldt_isock("ldt_isock"), shootdown_tsock("shootdown_tsock"), p(params),
      t(create_model(this->name(), params.model)), peers(ldt_isock, t, params.model.page_shift, params.cu)
{
    gmmu_error err{};
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
    if (p.mshr.mshrs) {
        if (gmmu_tlb_mshr_create(&p.mshr, &mshr, &err) != GMMU_OK)
            report_error("tlb", std::string(this->name()) + ": mshr." + err.field + ": " + err.msg);
        use_mshr = true;
    }
    if (p.track_owners) {
        const gmmu_tcws_owners_config oc{p.model.entries};
        if (gmmu_tcws_owners_create(&oc, &owners, &err) != GMMU_OK)
            report_error("tlb", std::string(this->name()) + ": entries: " + err.msg);
    }
    page_reqs.reserve(warp_ext::lanes);
}

tlb::~tlb()
{
    miss_gp.clear_extension(&miss_ext);
    gmmu_tlb_mshr_destroy(mshr);
    gmmu_tcws_owners_destroy(owners);
    gmmu_tlb_destroy(t);
}

void tlb::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    if (gp.get_command() != tlm::TLM_IGNORE_COMMAND) {
        if (isock.size() == 0) {
            gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE); // no data path bound
            return;
        }
        data_access(gp, delay);
        return;
    }
    auto *x = gp.get_extension<xlate_ext>();
    if (!x) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    // One handler per xlate_ext command a TLB accepts (extensions.h).
    switch (x->op) {
    case xlate_ext::op_kind::translate:
        translate_batch(*x, delay);
        break;
    case xlate_ext::op_kind::translate_debug:
        translate_dbg(x->reqs); // debug requests take no time
        break;
    case xlate_ext::op_kind::invalidate:
        invalidate(x->inv);
        break;
    case xlate_ext::op_kind::prefetch: // PICLE pushes from the LDT unit
        peers.on_prefetch(*x);
        break;
    case xlate_ext::op_kind::probe: // Valkyrie probes from peers, through the LDT unit
        peers.on_probe(*x);
        break;
    case xlate_ext::op_kind::ldt_update:
    case xlate_ext::op_kind::ldt_evict: // the LDT unit's commands, not a TLB's
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void tlb::translate_batch(xlate_ext &x, sc_core::sc_time &delay)
{
    const sc_core::sc_time done = translate(x.reqs, delay);
    trace_batch(x.reqs, delay, done);
    delay = done;
}

unsigned tlb::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    if (gp.get_command() == tlm::TLM_IGNORE_COMMAND) {
        auto *x = gp.get_extension<xlate_ext>();
        if (!x || (x->op != xlate_ext::op_kind::translate &&
                   x->op != xlate_ext::op_kind::translate_debug))
            return 0;
        translate_dbg(x->reqs);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return 0;
    }
    if (isock.size() == 0)
        return 0;
    debug_access(gp);
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
    translate_dbg(one);
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
    if (gmmu_tlb_dmi_writable(one[0].perms) && down.is_write_allowed() && down.is_read_allowed())
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
        gmmu_tlb_invalidate_all(t);
        revoke_dmi(0, ~0ull);
        break;
    case scope::asid:
        gmmu_tlb_invalidate_asid(t, inv.asid);
        revoke_dmi(0, ~0ull); // DMI regions are not tagged by ASID
        break;
    case scope::range:
    case scope::asid_range:
        if (inv.kind == scope::range)
            gmmu_tlb_invalidate_range_all_asids(t, inv.va_lo, inv.va_hi);
        else
            gmmu_tlb_invalidate_range(t, inv.asid, inv.va_lo, inv.va_hi);
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
        v = off == 0x10 ? sd_lo : off == 0x18 ? sd_hi : off == 0x28 ? gmmu_tlb_generation(t) : 0;
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
        return gmmu_tlb_stats_of(c.t)->prefetch_fills || c.peers.prefetches_received || c.peers.probes_answered || c.peers.probe_fills;
    };
    // The large-page array of a page size, if this TLB has one.
    static const auto array_of = [](const T &c, unsigned shift) { return gmmu_tlb_large_array(c.t, shift); };
    const auto has_2m = [](const T &c) { return array_of(c, 21) != nullptr; };
    const auto has_1g = [](const T &c) { return array_of(c, 30) != nullptr; };
    static const stat_table<tlb> table(
        20, "TLB (`gpu.l1_tlbN`, `gpu.l2_tlbN`, `gpu.l3_tlb`)", "",
        {
            {"accesses", "model lookups (one per unique page of a warp access at L1; one per request of a miss batch below); `accesses = hits + misses`",
             [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->accesses); }},
            {"hits", "lookups that found an entry", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->hits); }},
            {"misses", "lookups that found none", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->misses); }},
            {"hit_rate", "`hits / accesses`",
             [](const T &c) {
                 const gmmu_tlb_stats *s = gmmu_tlb_stats_of(c.t);
                 return json(s->accesses ? double(s->hits) / double(s->accesses) : 0.0);
             }},
            {"fills", "entries written", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->fills); }},
            {"evictions", "valid entries replaced", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->evictions); }},
            {"invalidations", "entries invalidated", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->invalidations); }},
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
             [](const T &c) { return json(gmmu_tlb_config_of(array_of(c, 21))->entries); }, has_2m},
            {"large_pages.2M.hits", "lookups a 2 MiB entry answered (counted in `hits` too)",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 21))->hits); }, has_2m},
            {"large_pages.2M.fills", "2 MiB entries written (not in `fills`)",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 21))->fills); }, has_2m},
            {"large_pages.2M.evictions", "2 MiB entries replaced",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 21))->evictions); }, has_2m},
            {"large_pages.1G.entries", "geometry of the 1 GiB entries (with `entries_1g`)",
             [](const T &c) { return json(gmmu_tlb_config_of(array_of(c, 30))->entries); }, has_1g},
            {"large_pages.1G.hits", "lookups a 1 GiB entry answered (counted in `hits` too)",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 30))->hits); }, has_1g},
            {"large_pages.1G.fills", "1 GiB entries written (not in `fills`)",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 30))->fills); }, has_1g},
            {"large_pages.1G.evictions", "1 GiB entries replaced",
             [](const T &c) { return json(gmmu_tlb_stats_of(array_of(c, 30))->evictions); }, has_1g},
            {"mshr.mshrs", "L1 MSHR model (with `l1_tlb.mshrs` > 0): MSHRs",
             [](const T &c) { return json(c.p.mshr.mshrs); }, with_mshr},
            {"mshr.allocated", "misses that took an MSHR", [](const T &c) { return json(c.mshr->st.misses); }, with_mshr},
            {"mshr.merges", "misses merged into one in flight", [](const T &c) { return json(c.mshr->st.merges); }, with_mshr},
            {"mshr.replays", "lookups issued again after waiting", [](const T &c) { return json(c.mshr->st.replays); }, with_mshr},
            {"mshr.stall_cycles", "cycles the head lookup waited", [](const T &c) { return json(c.mshr->st.stall_cycles); }, with_mshr},
            {"mshr.max_in_flight", "most MSHRs busy at once", [](const T &c) { return json(c.mshr->st.max_in_flight); }, with_mshr},
            {"warp_accesses", "data-path payloads translated (L1 role only)",
             [](const T &c) { return json(c.warp_accesses); }, l1_role},
            {"lanes", "their active lanes (L1 role only)", [](const T &c) { return json(c.lanes); }, l1_role},
            {"page_divergence_avg", "unique pages per warp access (L1 role only)",
             [](const T &c) { return json(double(c.page_divergence_sum) / double(c.warp_accesses)); }, l1_role},
            {"continued_batches", "warp accesses taken as the rest of the one before (the same instruction's next 128-B line, `sm.model=issue`) by the blocking TLB of `l1_tlb.warp_lookups_together`",
             [](const T &c) { return json(c.continued_batches); },
             [](const T &c) { return c.use_mshr && !c.p.mshr.hits_under_miss && c.p.mshr.batch_issues_through; }},
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
             [](const T &c) { return json(c.peers.prefetches_received); }, prefetching},
            {"prefetch.fills", "entries PICLE pushes installed", [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->prefetch_fills); }, prefetching},
            {"prefetch.used_before_eviction", "prefetched entries hit at least once before eviction",
             [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->prefetch_hits); }, prefetching},
            {"prefetch.evicted_unused", "prefetched entries evicted without a hit",
             [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->prefetch_evicted_unused); }, prefetching},
            {"prefetch.evicted_a_useful_entry", "prefetch fills whose victim had been hit since its own fill (pollution)",
             [](const T &c) { return json(gmmu_tlb_stats_of(c.t)->prefetch_victim_useful); }, prefetching},
            {"prefetch.peer_probes_answered", "Valkyrie probes this L1 answered",
             [](const T &c) { return json(c.peers.probes_answered); }, prefetching},
            {"prefetch.filled_from_peer_probe", "misses this L1 filled from a peer",
             [](const T &c) { return json(c.peers.probe_fills); }, prefetching},
        });
    return table;
}

static const bool tlb_stats_declared = (tlb::stats_table(), true);

void tlb::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
