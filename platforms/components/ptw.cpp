#include "gmmu/components/ptw.h"
#include "gmmu/components/timeline.h"

#include <algorithm>
#include <cstring>

extern "C" {
#include "gmmu/tlb.h"
}

namespace gmmu {

static walk_cosim::params cosim_params(const ptw_params &p)
{
    walk_cosim::params c;
    c.pwc_rtl = p.pwc_rtl;
    c.pwc_cosim = p.pwc_cosim;
    c.sched_rtl = p.sched_rtl;
    c.sched_cosim = p.sched_cosim;
    c.rtl_fst = p.rtl_fst;
    c.mismatch_cycles = p.mismatch_cycles;
    c.mismatch_fst = p.mismatch_fst;
    return c;
}

ptw::ptw(sc_core::sc_module_name name, const ptw_params &params)
    : sc_module(name), tsock("tsock"), pt_isock("pt_isock"), p(params),
      cosim(this->name(), cosim_params(params))
{
    const std::string me = this->name();
    gmmu_error err{};
    if (p.pwc.kind != GMMU_PWC_NONE && gmmu_pwc_create(&p.pwc, &pwc_, &err) != GMMU_OK)
        report_error("ptw", me + ": pwc." + err.field + ": " + err.msg);
    if (pwc_ && (p.pwc_rtl || p.pwc_cosim)) {
        cosim.attach_pwc(pwc_, p.pwc); // stepped from now on, owned by cosim
        pwc_ = nullptr;
    }
    if (p.line_cache && gmmu_line_cache_create(&p.lc, &lc, &err) != GMMU_OK)
        report_error("ptw", me + ": line_cache." + err.field + ": " + err.msg);
    if (p.sched.variant != GMMU_WS_SERIAL) {
        if (gmmu_walk_sched_create(&p.sched, &ws, &err) != GMMU_OK)
            report_error("ptw", me + ": scheduler." + err.field + ": " + err.msg);
        cosim.attach_sched(ws, p.sched, pwc_stepped());
    }
    gmmu_we_config ec{};
    ec.kind = p.sched.variant;
    ec.walkers = p.sched.variant == GMMU_WS_SERIAL ? p.walkers : p.sched.walkers;
    ec.mshrs = p.sched.mshrs;
    ec.clock = p.clock.value();
    ec.fixed_walk_cycles = p.fixed_walk_cycles;
    ec.set_ad = p.set_accessed_dirty;
    ec.outcome_only = !pwc_ && !pwc_stepped(); // the record fills only a page-walk cache
    if (gmmu_we_create(&ec, lc, &eng, &err) != GMMU_OK)
        report_error("ptw", me + ": " + (std::string(err.field) == "walkers" ? "" : "scheduler.") +
                                err.field + ": " + err.msg);
    eng_mem = gmmu_we_mem{&ptw::eng_read, &ptw::eng_write, this};
    gmmu_error wm_err{};
    const gmmu_wm_config wm_cfg{inflight_slots};
    if (gmmu_wm_create(&wm_cfg, &wm, &wm_err) != GMMU_OK)
        report_error("ptw", std::string("walks in flight: ") + wm_err.msg);
    tsock.register_b_transport(this, &ptw::b_transport);
    tsock.register_transport_dbg(this, &ptw::transport_dbg);
    pt_isock.register_invalidate_direct_mem_ptr(this, &ptw::invalidate_dmi);
}

ptw::~ptw()
{
    gmmu_pwc_destroy(pwc_);
    gmmu_line_cache_destroy(lc);
    gmmu_wm_destroy(wm);
    gmmu_we_destroy(eng);
    gmmu_walk_sched_destroy(ws);
}

// ---- page-walk cache, functional or stepped (walk_cosim) ------------------------
bool ptw::pwc_lookup_any(uint64_t root, uint64_t va, gmmu_pwc_hit &hit)
{
    if (!pwc_stepped())
        return pwc_ && gmmu_pwc_lookup(pwc_, root, va, &hit) == GMMU_OK;
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    in.lookup_valid = 1;
    in.lookup_va = va;
    in.lookup_root = root;
    unsigned cycles = 0;
    cosim.pwc_step(in, out);
    in.lookup_valid = 0;
    while (!out.hit_valid) {
        if (++cycles > 64)
            report_error("ptw", std::string(name()) + ": the PWC gave no lookup result in 64 cycles");
        cosim.pwc_step(in, out);
    }
    hit.start_level = out.start_level;
    hit.table_base = out.table_base;
    hit.reads_left = out.start_level;
    hit.cycles = cycles;
    pwc_lookups++;
    pwc_hit[out.start_level]++;
    return true;
}

// A walk that started below the root knows only the lower tables; the upper
// bases are those of the PWC entries that gave the hit, which the walker's
// registers hold. They are what a walk from the root reads, so take them from
// a debug walk of the tables (no traffic, no time). Both PWC implementations
// (functional and cycle-stepped) then see the same complete path.
static gmmu_status dbg_read(void *ctx, uint64_t pa, uint64_t *v)
{
    auto *sock = static_cast<tlm_utils::simple_initiator_socket<ptw> *>(ctx);
    tlm::tlm_generic_payload g;
    g.set_command(tlm::TLM_READ_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(v));
    g.set_data_length(8);
    g.set_streaming_width(8);
    return (*sock)->transport_dbg(g) == 8 ? GMMU_OK : GMMU_EMEM;
}

void ptw::complete_path(gmmu_pwc_path &path, uint64_t root)
{
    if ((path.known & (1u << 3)) || !(path.known & 0xEu))
        return;
    gmmu_mem_ops ops{&dbg_read, nullptr, &pt_isock};
    gmmu_walk_result w;
    if (gmmu_walk(&ops, root, path.va, 0, &w) != GMMU_OK)
        return;
    unsigned top = 0;
    for (unsigned k = 1; k <= 3; k++)
        if (path.known & (1u << k))
            top = k;
    for (unsigned k = top + 1; k <= 3; k++) {
        if (!w.table_base[k] || (w.fault != GMMU_FAULT_NONE && w.fault_level > k))
            break;
        path.base[k] = w.table_base[k];
        path.known |= 1u << k;
    }
}

void ptw::pwc_fill_any(const gmmu_pwc_path &path)
{
    if (!pwc_stepped()) {
        if (pwc_)
            gmmu_pwc_fill_path(pwc_, &path);
        return;
    }
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    in.fill_valid = 1;
    in.fill_va = path.va;
    for (unsigned k = 1; k <= 3; k++)
        if (path.known & (1u << k)) {
            in.fill_levels |= uint8_t(1u << (k - 1));
            (k == 3 ? in.fill_base_l3 : k == 2 ? in.fill_base_l2 : in.fill_base_l1) = path.base[k];
        }
    cosim.pwc_step(in, out);
}

void ptw::pwc_invalidate_any(bool all, uint64_t lo, uint64_t hi)
{
    if (!pwc_stepped()) {
        if (pwc_ && all)
            gmmu_pwc_invalidate_all(pwc_);
        else if (pwc_)
            gmmu_pwc_invalidate_range(pwc_, lo, hi);
        return;
    }
    gmmu_pwc_cycle_in in{};
    gmmu_pwc_cycle_out out{};
    in.inv_valid = 1;
    in.inv_all = all;
    in.inv_lo = lo;
    in.inv_hi = hi;
    cosim.pwc_step(in, out);
}

bool ptw::merge_inflight(xlate_req &r, uint64_t root, const sc_core::sc_time &now,
                         const sc_core::sc_time &abs_req)
{
    gmmu_wm_walk w{};
    uint64_t ready = 0;
    if (!gmmu_wm_merge(wm, r.asid, root, r.va, access_of(r), abs_req.value(), &w, &ready))
        return false;
    r.done = true;
    r.fault = GMMU_FAULT_NONE; // faulting walks are not recorded
    r.pa = w.pa;
    r.page_shift = w.page_shift;
    r.perms = w.perms;
    r.contig_log2 = w.contig_log2;
    r.level_hit = w.level_hit;
    r.ready = sc_core::sc_time::from_value(ready) - now;
    // All of it is waiting for another request's walk.
    const sc_core::sc_time at = sc_core::sc_time::from_value(ready);
    r.queued = at > abs_req ? at - abs_req : sc_core::SC_ZERO_TIME;
    inflight_merges++;
    return true;
}

void ptw::record_inflight(const xlate_req &r, uint64_t root, const sc_core::sc_time &done)
{
    gmmu_wm_walk w{};
    w.va = r.va;
    w.pa = r.pa;
    w.perms = r.perms;
    w.page_shift = uint8_t(r.page_shift);
    w.contig_log2 = uint8_t(r.contig_log2);
    w.level_hit = uint8_t(r.level_hit);
    gmmu_wm_record(wm, r.asid, root, &w, done.value());
}

bool ptw::find_root(uint16_t asid, uint64_t &root)
{
    if (!have_last_root || asid != last_root_asid) {
        auto it = roots.find(asid);
        if (it == roots.end())
            return false;
        last_root_asid = asid;
        last_root = it->second;
        have_last_root = true;
    }
    root = last_root;
    return true;
}

bool ptw::root_of(const xlate_req &r, uint64_t &root)
{
    if (r.root) {
        root = r.root;
        return true;
    }
    return find_root(r.asid, root);
}

void ptw::pwc_enter(uint64_t root)
{
    if (gmmu_pwc_context_enter(&pwc_ctx, p.pwc.kind, root))
        pwc_invalidate_any(true, 0, ~0ull);
}

void ptw::pwc_fill_walk(gmmu_pwc_path &path, uint64_t root)
{
    if (!(path.known & 0xFu))
        return;
    complete_path(path, root);
    path.base[4] = root; // UPTC's entries start at the root's table
    path.known |= 1u << 4;
    pwc_enter(root);
    pwc_fill_any(path);
}

void ptw::invalidate(const xlate_ext::inv_desc &inv)
{
    invalidations++;
    drop(inv);
}

void ptw::invalidate_all() { drop({xlate_ext::inv_desc::scope::all, 0, 0, 0}); }

void ptw::invalidate_range(uint64_t lo, uint64_t hi)
{
    drop({xlate_ext::inv_desc::scope::range, 0, lo, hi});
}

void ptw::drop(const xlate_ext::inv_desc &inv)
{
    using scope = xlate_ext::inv_desc::scope;
    const bool ranged = inv.kind == scope::range || inv.kind == scope::asid_range;
    const bool all_asids = inv.kind == scope::all || inv.kind == scope::range;
    const uint64_t lo = ranged ? inv.va_lo : 0, hi = ranged ? inv.va_hi : ~0ull;
    pwc_invalidate_any(!ranged, lo, hi); // the PWC entries carry no ASID
    if (p.line_cache)
        gmmu_line_cache_flush(lc); // PTE lines are not indexed by VA
    gmmu_wm_invalidate(wm, all_asids, inv.asid, lo, hi);
}

bool ptw::tlm_read(uint64_t pa, uint64_t *val, sc_core::sc_time &delay, bool debug)
{
    tlm::tlm_generic_payload &g = pt_gp;
    g.set_command(tlm::TLM_READ_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(val));
    g.set_data_length(8);
    g.set_streaming_width(8);
    g.set_byte_enable_ptr(nullptr);
    g.set_dmi_allowed(false);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (debug)
        return pt_isock->transport_dbg(g) == 8;
    pt_isock->b_transport(g, delay);
    return g.get_response_status() == tlm::TLM_OK_RESPONSE;
}

// One PTE read of a timed walk at absolute time `at`. A line-cache hit is
// served without a memory read (its data functionally: by DMI, else by
// debug transport). A read in a DMI region is served from it, with the
// region's read latency; any other goes by b_transport, and asks for a DMI
// region when the target's response allows it. *latency_cycles is the
// memory latency met (0 on a line-cache hit).
bool ptw::pt_read(uint64_t pa, uint64_t *val, uint32_t *latency_cycles, uint64_t at)
{
    same_line += (pa >> 7) == last_line;
    last_line = pa >> 7;
    uint32_t dmi_cycles = 0;
    const uint8_t *host = p.dmi ? dmi_ptr(pa, &dmi_cycles) : nullptr;
    if (p.line_cache && gmmu_line_cache_probe(lc, pa)) {
        line_hits++;
        *latency_cycles = 0;
        if (host) {
            std::memcpy(val, host, 8);
            return true;
        }
        sc_core::sc_time unused;
        return tlm_read(pa, val, unused, true);
    }
    pt_reads++;
    if (host) {
        std::memcpy(val, host, 8);
        dmi_reads++;
        *latency_cycles = dmi_cycles;
        return true;
    }
    const sc_core::sc_time delay = sc_core::sc_time::from_value(at) - sc_core::sc_time_stamp();
    sc_core::sc_time d = delay;
    if (!tlm_read(pa, val, d, false))
        return false;
    const uint64_t lat = (d - delay).value();
    if (lat != lat_memo_value) {
        lat_memo_value = lat;
        lat_memo_cycles = lat / p.clock.value();
    }
    *latency_cycles = uint32_t(lat_memo_cycles);
    if (p.dmi && pt_gp.is_dmi_allowed())
        ask_dmi(pa);
    return true;
}

void ptw::ask_dmi(uint64_t pa)
{
    tlm::tlm_generic_payload g;
    g.set_command(tlm::TLM_READ_COMMAND);
    g.set_address(pa);
    tlm::tlm_dmi d;
    if (!pt_isock->get_direct_mem_ptr(g, d) || !d.is_read_allowed() || !d.get_dmi_ptr() ||
        d.get_start_address() > pa || d.get_end_address() < pa + 7)
        return;
    dmi_region &r = dmi_slot(pa);
    r.lo = d.get_start_address();
    r.hi = d.get_end_address();
    r.ptr = d.get_dmi_ptr();
    r.read_cycles = uint32_t(d.get_read_latency().value() / p.clock.value());
    dmi_grants++;
}

// The target revoked [lo, hi]: every region that overlaps it is dropped.
void ptw::invalidate_dmi(sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    dmi_invalidations++;
    for (dmi_region &r : dmi_tab)
        if (r.lo <= r.hi && r.lo <= hi && lo <= r.hi)
            r = dmi_region{};
}

gmmu_status ptw::eng_read(void *ctx, uint64_t pa, uint64_t at, uint64_t *data, uint32_t *lat)
{
    auto *self = static_cast<ptw *>(ctx);
    if (!self->pt_read(pa, data, lat, at)) {
        self->mem_errors++;
        return GMMU_EMEM;
    }
    return GMMU_OK;
}

gmmu_status ptw::eng_write(void *ctx, uint64_t pa, uint64_t val, uint64_t at, uint64_t *ticks)
{
    auto *self = static_cast<ptw *>(ctx);
    tlm::tlm_generic_payload &g = self->pt_gp;
    g.set_command(tlm::TLM_WRITE_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(&val));
    g.set_data_length(8);
    g.set_streaming_width(8);
    g.set_byte_enable_ptr(nullptr);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    self->pt_writes++;
    const sc_core::sc_time before = sc_core::sc_time::from_value(at) - sc_core::sc_time_stamp();
    sc_core::sc_time delay = before;
    self->pt_isock->b_transport(g, delay);
    *ticks = (delay - before).value();
    return g.get_response_status() == tlm::TLM_OK_RESPONSE ? GMMU_OK : GMMU_EMEM;
}

void ptw::finish(xlate_req &r, const gmmu_walk_result &w)
{
    r.done = true;
    r.level_hit = 0;
    r.fault = w.fault;
    r.pa = w.pa;
    r.page_shift = w.page_shift;
    r.perms = w.perms; // accumulated over every level (the skipped ones are permissive)
    r.contig_log2 = unsigned((w.pte & GMMU_PTE_CONTIG_MASK) >> GMMU_PTE_CONTIG_SHIFT);
}

// ---- the walk pipeline ---------------------------------------------------------
// Both walker kinds take a request through the same steps: prepare (context,
// merge with a walk in flight, PWC lookup), the walk itself by the walk
// engine (gmmu_we_serial, or gmmu_we_batch on the scheduler's step device;
// its reads and A/D write-backs come back through eng_read / eng_write),
// complete (counters, timeline, the walk recorded for merging, the PWC filled).

bool ptw::prepare(xlate_req &r, bool debug, const sc_core::sc_time &t_req, walk_start &s)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const bool have_root = root_of(r, s.root);
    if (!debug && have_root && merge_inflight(r, s.root, now, now + t_req))
        return false;
    r.done = true;
    r.level_hit = 0;
    if (!have_root) {
        r.fault = GMMU_FAULT_NOT_PRESENT; // no address space bound to this ASID
        r.ready = debug ? sc_core::SC_ZERO_TIME : t_req;
        if (!debug)
            faults++;
        return false;
    }
    s.level = 4;
    s.table = s.root;
    s.pwc_cycles = 0;
    s.pwc_hit = false;
    if ((pwc_ || pwc_stepped()) && !debug) {
        gmmu_pwc_hit hit;
        pwc_enter(s.root);
        if (pwc_lookup_any(s.root, r.va, hit)) {
            s.table = hit.table_base;
            s.level = hit.start_level;
            s.pwc_cycles = hit.cycles;
            s.pwc_hit = true;
            pwc_cycles += hit.cycles;
        }
    }
    return true;
}

void ptw::complete(xlate_req &r, const walk_start &s, const gmmu_walk_result *full,
                   const sc_core::sc_time &abs_req, const sc_core::sc_time &start,
                   const sc_core::sc_time &done, int walker)
{
    walks++;
    walk_time_sum += done - start;
    queue_time_sum += start - abs_req;
    r.queued = start > abs_req ? start - abs_req : sc_core::SC_ZERO_TIME;
    if (timeline *tl = active_timeline()) // the track's name built only when traced
        tl->span(std::string(name()) + (walker < 0 ? std::string(".scheduler")
                                                   : ".walker" + std::to_string(walker)),
                 "walk", start, done,
                 {{"va", r.va}, {"start_level", s.level}, {"fault", r.fault != GMMU_FAULT_NONE}});
    if (r.fault != GMMU_FAULT_NONE) {
        faults++;
        return;
    }
    record_inflight(r, s.root, done);
    if ((pwc_ || pwc_stepped()) && full) {
        gmmu_pwc_path path{};
        if (gmmu_pwc_path_from_walk(r.va, full, &path) == GMMU_OK)
            pwc_fill_walk(path, s.root);
    }
}

void ptw::answer(xlate_req &r, const walk_start &s, const gmmu_we_done &d,
                 const sc_core::sc_time &abs_req, const sc_core::sc_time &now)
{
    const sc_core::sc_time done = sc_core::sc_time::from_value(d.done);
    r.done = true;
    r.ready = done - now;
    if (d.status != GMMU_OK) { // a bus error (or a walk the tables refused)
        r.fault = d.w.fault;
        faults++;
        return;
    }
    finish(r, d.w);
    complete(r, s, &d.w, abs_req, sc_core::sc_time::from_value(d.start), done, d.walker);
}

void ptw::walk_serial(xlate_req &r, const sc_core::sc_time &t_req)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time abs_req = now + t_req;
    walk_start ps{};
    if (!prepare(r, false, t_req, ps))
        return;
    const gmmu_we_walk wk{r.va, ps.table, uint8_t(ps.level), uint8_t(access_of(r)), ps.pwc_hit, 0,
                          ps.pwc_cycles};
    gmmu_we_done d;
    if (gmmu_we_serial(eng, &eng_mem, &wk, abs_req.value(), &d) != GMMU_OK)
        report_error("ptw", std::string(name()) + ": the walk engine refused a serial walk");
    answer(r, ps, d, abs_req, now);
}

void ptw::walk_batch_scheduled(std::vector<xlate_req *> &reqs, const sc_core::sc_time &t_req)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time abs_req = now + t_req;
    std::vector<xlate_req *> pending;
    std::vector<walk_start> starts;
    pending.reserve(reqs.size());
    starts.reserve(reqs.size());
    batch_walks.clear();
    for (xlate_req *r : reqs) {
        walk_start s{};
        if (!prepare(*r, false, t_req, s))
            continue;
        batch_walks.push_back(gmmu_we_walk{r->va, s.table, uint8_t(s.level), uint8_t(access_of(*r)),
                                           s.pwc_hit, 0, s.pwc_cycles});
        pending.push_back(r);
        starts.push_back(s);
    }
    if (pending.empty())
        return;
    batch_done.resize(pending.size());
    const gmmu_status s = gmmu_we_batch(eng, cosim.sched_device(), &cosim.st, &eng_mem,
                                        batch_walks.data(), unsigned(batch_walks.size()),
                                        abs_req.value(), batch_done.data());
    cosim.sched_check_run(); // a lock-step mismatch stops the run here
    if (s != GMMU_OK)        // keep the unit usable; the batch is reported as faulted
        cosim.sched_reset();
    for (size_t i = 0; i < pending.size(); i++)
        answer(*pending[i], starts[i], batch_done[i], abs_req, now);
}

void ptw::walk_debug(xlate_req &r)
{
    walk_start ps{};
    if (!prepare(r, true, sc_core::SC_ZERO_TIME, ps))
        return;
    r.ready = sc_core::SC_ZERO_TIME;
    gmmu_mem_ops ops{&dbg_read, nullptr, &pt_isock};
    gmmu_walk_result w;
    const gmmu_status st = gmmu_walk_from(&ops, ps.table, ps.level, r.va, access_of(r), &w);
    if (st != GMMU_OK)
        r.fault = st == GMMU_EMEM ? GMMU_FAULT_BUS_ERROR : GMMU_FAULT_NOT_PRESENT;
    else
        finish(r, w);
}

void ptw::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (gp.get_command() != tlm::TLM_IGNORE_COMMAND || !x) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    // One handler per xlate_ext command the walker accepts (extensions.h).
    switch (x->op) {
    case xlate_ext::op_kind::translate:
        on_translate(*x, delay);
        break;
    case xlate_ext::op_kind::translate_debug:
        on_translate_debug(*x);
        break;
    case xlate_ext::op_kind::invalidate:
        invalidate(x->inv);
        break;
    case xlate_ext::op_kind::ldt_update:
    case xlate_ext::op_kind::ldt_evict:
    case xlate_ext::op_kind::prefetch:
    case xlate_ext::op_kind::probe: // PICLE/Valkyrie traffic never reaches a walker
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void ptw::on_translate(xlate_ext &x, sc_core::sc_time &delay)
{
    batches++;
    if (ws) {
        std::vector<xlate_req *> reqs;
        reqs.reserve(x.reqs.size());
        for (auto &r : x.reqs)
            reqs.push_back(&r);
        walk_batch_scheduled(reqs, delay);
    } else {
        for (auto &r : x.reqs)
            walk_serial(r, delay);
    }
    sc_core::sc_time done = delay;
    for (auto &r : x.reqs)
        if (r.ready > done)
            done = r.ready;
    delay = done;
}

void ptw::on_translate_debug(xlate_ext &x)
{
    for (auto &r : x.reqs)
        walk_debug(r);
}

unsigned ptw::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (!x || (x->op != xlate_ext::op_kind::translate &&
               x->op != xlate_ext::op_kind::translate_debug))
        return 0;
    on_translate_debug(*x);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return 0;
}

const stat_table<ptw> &ptw::stats_table()
{
    using json = nlohmann::json;
    using T = ptw;
    const auto sched = [](const T &c) { return c.ws != nullptr; };
    const auto line_cache = [](const T &c) { return bool(c.p.line_cache); };
    const auto any_pwc = [](const T &c) { return c.pwc_stepped() || c.pwc_ != nullptr; };
    const auto stepped_pwc = [](const T &c) { return c.pwc_stepped(); };
    const auto c_pwc = [](const T &c) { return !c.pwc_stepped() && c.pwc_ != nullptr; };
    // From the run loop's counters (the step outputs), so the C model and the
    // RTL report the same numbers. refs_merged = reads the walks consumed
    // minus reads issued (the model's refs_merged - refs_wasted; refs_wasted
    // is 0 in every run, docs/rtl_walk_sched.md).
    static const stat_table<ptw> table(
        30, "Page-table walker (`gpu.ptw`, `gpu.ptwN`)", "",
        {
            {"walks", "walks performed", [](const T &c) { return json(c.walks); }},
            {"pt_reads", "page-table memory reads issued on `pt_isock` (by b_transport, or from a DMI region)", [](const T &c) { return json(c.pt_reads); }},
            {"pt_writes", "A/D-bit write-backs (with `ptw.set_accessed_dirty`)", [](const T &c) { return json(c.pt_writes); }},
            {"faults", "walks that ended in a fault", [](const T &c) { return json(c.faults); }},
            {"memory_errors", "walks aborted by a memory error response", [](const T &c) { return json(c.mem_errors); }},
            {"batches", "translation batches received", [](const T &c) { return json(c.batches); }},
            {"walkers", "configured walkers", [](const T &c) { return json(c.p.walkers); }},
            {"inflight_merges", "requests served by a walk of the same page still in flight", [](const T &c) { return json(c.inflight_merges); }},
            {"invalidations", "invalidation requests received (`xlate_ext` op=invalidate)", [](const T &c) { return json(c.invalidations); }},
            {"dmi_reads", "of pt_reads, those served from a DMI region the target granted (`ptw.dmi`)", [](const T &c) { return json(c.dmi_reads); }},
            {"dmi_grants", "DMI regions the target granted for page-table reads", [](const T &c) { return json(c.dmi_grants); }},
            {"dmi_invalidations", "DMI revocations received from the target", [](const T &c) { return json(c.dmi_invalidations); }},
            {"line_cache_hits", "PTE reads served by the page-table-line cache (no memory read)", [](const T &c) { return json(c.line_hits); }},
            {"avg_walk_ns", "mean walk duration",
             [](const T &c) { return json(c.walks ? c.walk_time_sum.to_seconds() * 1e9 / double(c.walks) : 0.0); }},
            {"avg_queue_ns", "mean wait for a free walker (scheduled walks: for free MSHRs)",
             [](const T &c) { return json(c.walks ? c.queue_time_sum.to_seconds() * 1e9 / double(c.walks) : 0.0); }},
            {"sched.variant", "serial, tree or pairwise",
             [](const T &c) {
                 return json(!c.ws ? "serial" : c.p.sched.variant == GMMU_WS_TREE ? "tree" : "pairwise");
             }},
            {"sched.impl", "the scheduler's implementation: the C model or the Verilated RTL (tree, pairwise)",
             [](const T &c) { return json(c.cosim.sched_impl()); }, sched},
            {"sched.cosim", "the twin stepped in lock-step, or off (tree, pairwise)",
             [](const T &c) { return json(c.cosim.sched_check_name()); }, sched},
            {"sched.refs_issued", "PTE references issued (memory reads + line-cache hits)",
             [](const T &c) { return json(c.ws ? c.cosim.st.refs_issued : c.pt_reads + c.line_hits); }},
            {"sched.refs_merged", "identical references served by another walk's read (tree, pairwise)",
             [](const T &c) {
                 const uint64_t m = c.ws && c.cosim.st.refs_walked > c.cosim.st.refs_issued
                                        ? c.cosim.st.refs_walked - c.cosim.st.refs_issued
                                        : 0;
                 return json(m);
             }},
            {"sched.refs_walked", "PTE references the walks consumed (what serial walkers would read)",
             [](const T &c) { return json(c.ws ? c.cosim.st.refs_walked : c.pt_reads + c.line_hits); }},
            {"sched.same_line_back_to_back", "references to the 128-byte line of the previous reference",
             [](const T &c) { return json(c.ws ? c.cosim.st.same_line_back_to_back : c.same_line); }},
            {"sched.cycles", "scheduler cycles stepped (tree, pairwise)", [](const T &c) { return json(c.cosim.st.cycles); }, sched},
            {"sched.scans", "comparator scans (tree, pairwise)", [](const T &c) { return json(c.cosim.sched_scans()); }, sched},
            {"line_cache.accesses", "the page-table-line cache's lookups (with `ptw.line_cache.lines` > 0)",
             [](const T &c) { return json(c.lc->st.accesses); }, line_cache},
            {"line_cache.hits", "its hits", [](const T &c) { return json(c.lc->st.hits); }, line_cache},
            {"line_cache.misses", "its misses", [](const T &c) { return json(c.lc->st.misses); }, line_cache},
            {"line_cache.lines", "its 128-byte lines", [](const T &c) { return json(c.p.lc.lines); }, line_cache},
            {"pwc.kind", "page-walk cache kind (with `ptw.pwc` != none)",
             [](const T &c) { return json(gmmu_pwc_kind_name(c.p.pwc.kind)); }, any_pwc},
            {"pwc.impl", "the PWC's implementation stepped cycle by cycle: the C model or the Verilated RTL",
             [](const T &c) { return json(c.cosim.pwc_impl()); }, stepped_pwc},
            {"pwc.cosim", "the PWC twin stepped in lock-step, or off",
             [](const T &c) { return json(c.cosim.pwc_check_name()); }, stepped_pwc},
            {"pwc.cycles", "PWC cycles stepped", [](const T &c) { return json(c.cosim.pwc_cycles()); }, stepped_pwc},
            {"pwc.lookups", "PWC lookups",
             [](const T &c) {
                 return json(c.pwc_stepped() ? c.pwc_lookups : gmmu_pwc_get_stats(c.pwc_)->lookups);
             }, any_pwc},
            {"pwc.misses", "lookups that hit no level",
             [](const T &c) {
                 return json(c.pwc_stepped() ? c.pwc_hit[4] : gmmu_pwc_get_stats(c.pwc_)->misses);
             }, any_pwc},
            {"pwc.hit_l4", "lookups whose deepest hit was the L4 entry (the walk reads 3 levels)",
             [](const T &c) {
                 return json(c.pwc_stepped() ? c.pwc_hit[3] : gmmu_pwc_get_stats(c.pwc_)->hit_l4);
             }, any_pwc},
            {"pwc.hit_l3", "... the L3 entry (2 reads)",
             [](const T &c) {
                 return json(c.pwc_stepped() ? c.pwc_hit[2] : gmmu_pwc_get_stats(c.pwc_)->hit_l3);
             }, any_pwc},
            {"pwc.hit_l2", "... the L2 entry (the walk starts at the PT, one read)",
             [](const T &c) {
                 return json(c.pwc_stepped() ? c.pwc_hit[1] : gmmu_pwc_get_stats(c.pwc_)->hit_l2);
             }, any_pwc},
            {"pwc.bits", "PWC storage in bits",
             [](const T &c) {
                 return json(c.pwc_stepped() ? gmmu_pwc_config_bits(&c.p.pwc) : gmmu_pwc_bits(c.pwc_));
             }, any_pwc},
            {"pwc.evictions", "entries replaced (C model path)",
             [](const T &c) { return json(gmmu_pwc_get_stats(c.pwc_)->evictions); }, c_pwc},
            {"pwc.dependent_invalidations", "CPWC entries dropped because the L4/L3 entry they depend on was replaced (C model path)",
             [](const T &c) { return json(gmmu_pwc_get_stats(c.pwc_)->dependent_invalidations); }, c_pwc},
            {"pwc.context_flushes", "PWC flushes because the walked context (table root) changed",
             [](const T &c) { return json(c.pwc_ctx.flushes); }, any_pwc},
        });
    return table;
}

static const bool ptw_stats_declared = (ptw::stats_table(), true);

void ptw::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
