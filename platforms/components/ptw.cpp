#include "gmmu/components/ptw.h"
#include "gmmu/components/timeline.h"

#include <algorithm>
#include <type_traits>

#include "gmmu/components/rtl_plugin.h"

extern "C" {
#include "gmmu/tlb.h"
}

namespace gmmu {

static pwc_rtl_factory &rtl_factory()
{
    static pwc_rtl_factory f;
    return f;
}
pwc_rtl_factory set_pwc_rtl_factory(pwc_rtl_factory f)
{
    std::swap(rtl_factory(), f);
    return f;
}
bool have_pwc_rtl() { return rtl_factory() || (load_rtl_plugin() && rtl_factory()); }

static ws_rtl_factory &sched_factory()
{
    static ws_rtl_factory f;
    return f;
}
ws_rtl_factory set_ws_rtl_factory(ws_rtl_factory f)
{
    std::swap(sched_factory(), f);
    return f;
}
bool have_ws_rtl() { return sched_factory() || (load_rtl_plugin() && sched_factory()); }
bool ws_rtl_geometry_ok(const gmmu_ws_config &cfg, std::string *why)
{
    if (!have_ws_rtl()) {
        if (why && load_rtl_plugin(why))
            *why = "the RTL plugin holds no walk scheduler";
        return false;
    }
    return sched_factory()(cfg, why) != nullptr;
}

std::string rtl_waveform_path(const std::string &path, bool pwc_too)
{
    if (!pwc_too)
        return path;
    const size_t slash = path.find_last_of('/');
    const size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash))
        return path + ".sched";
    return path.substr(0, dot) + ".sched" + path.substr(dot);
}

namespace {
struct c_ws_device : ws_step_device {
    gmmu_walk_sched *ws = nullptr; // owned by the ptw
    gmmu_status step(const gmmu_ws_in *in, gmmu_ws_out *out) override
    {
        return gmmu_walk_sched_step(ws, in, out);
    }
    bool quiescent() const override { return gmmu_walk_sched_quiescent(ws); }
    void skip(uint64_t cycles) override
    {
        ws->cycle += cycles;
        ws->st.cycles += cycles;
    }
    void reset() override { gmmu_walk_sched_reset(ws); }
    uint64_t scans() const override { return ws->st.scans; }
    std::string name() const override { return "C model"; }
};

struct c_pwc_device : pwc_cycle_device {
    gmmu_pwc *p = nullptr;
    ~c_pwc_device() override { gmmu_pwc_destroy(p); }
    gmmu_status step(const gmmu_pwc_cycle_in *in, gmmu_pwc_cycle_out *out) override
    {
        return gmmu_pwc_step(p, in, out);
    }
    std::string name() const override { return "C model"; }
};
} // namespace

ptw::ptw(sc_core::sc_module_name name, const ptw_params &params)
    : sc_module(name), tsock("tsock"), pt_isock("pt_isock"), p(params)
{
    const std::string me = this->name();
    if (p.walkers == 0)
        report_error("ptw", me + ": walkers: must be at least 1");
    gmmu_error err{};
    if (p.pwc.kind != GMMU_PWC_NONE && gmmu_pwc_create(&p.pwc, &pwc_, &err) != GMMU_OK)
        report_error("ptw", me + ": pwc." + err.field + ": " + err.msg);
    if (pwc_ && (p.pwc_rtl || p.pwc_cosim)) {
        if (p.pwc.kind != GMMU_PWC_TPC && p.pwc.kind != GMMU_PWC_CPWC)
            report_error("ptw", me + ": pwc_impl: only TPC and CPWC have RTL twins");
        if (!have_pwc_rtl())
            report_error("ptw", me + ": pwc_impl: this program was built without the RTL (Verilator)");
        std::string why;
        std::unique_ptr<pwc_cycle_device> rtl = rtl_factory()(p.pwc, &why);
        if (!rtl)
            report_error("ptw", me + ": pwc_impl: " + why);
        auto c = std::make_unique<c_pwc_device>();
        c->p = pwc_; // the C model now runs through its cycle-step interface
        pwc_ = nullptr;
        if (!p.rtl_fst.empty() && !rtl->open_waveform(p.rtl_fst, &why))
            report_error("ptw", me + ": rtl_fst: " + why);
        if (p.pwc_cosim && p.mismatch_cycles) {
            std::unique_ptr<pwc_cycle_device> twin = rtl_factory()(p.pwc, &why);
            if (!twin)
                report_error("ptw", me + ": pwc_impl: " + why);
            pwc_window.reset(new decltype(pwc_window)::element_type(std::move(twin), p.mismatch_cycles));
        }
        if (p.pwc_rtl) {
            pwc_dev = std::move(rtl);
            if (p.pwc_cosim)
                pwc_check = std::move(c);
        } else {
            pwc_dev = std::move(c);
            pwc_check = std::move(rtl);
        }
    }
    if (p.line_cache && gmmu_line_cache_create(&p.lc, &lc, &err) != GMMU_OK)
        report_error("ptw", me + ": line_cache." + err.field + ": " + err.msg);
    if (p.sched.variant != GMMU_WS_SERIAL) {
        if (gmmu_walk_sched_create(&p.sched, &ws, &err) != GMMU_OK)
            report_error("ptw", me + ": scheduler." + err.field + ": " + err.msg);
        auto c = std::make_unique<c_ws_device>();
        c->ws = ws;
        if (p.sched_rtl || p.sched_cosim) {
            if (!have_ws_rtl())
                report_error("ptw", me + ": scheduler_impl: this program was built without the RTL "
                                         "(Verilator)");
            std::string why;
            std::unique_ptr<ws_step_device> rtl = sched_factory()(p.sched, &why);
            if (!rtl)
                report_error("ptw", me + ": scheduler_impl: " + why);
            if (!p.rtl_fst.empty() &&
                !rtl->open_waveform(rtl_waveform_path(p.rtl_fst, pwc_dev != nullptr), &why))
                report_error("ptw", me + ": rtl_fst: " + why);
            if (p.sched_cosim && p.mismatch_cycles) {
                std::unique_ptr<ws_step_device> twin = sched_factory()(p.sched, &why);
                if (!twin)
                    report_error("ptw", me + ": scheduler_impl: " + why);
                ws_window.reset(new decltype(ws_window)::element_type(std::move(twin), p.mismatch_cycles));
            }
            if (p.sched_rtl) {
                ws_dev = std::move(rtl);
                if (p.sched_cosim)
                    ws_check = std::move(c);
            } else {
                ws_dev = std::move(c);
                ws_check = std::move(rtl);
            }
        } else {
            ws_dev = std::move(c);
        }
    }
    // Serial: when each walker is free; scheduled: when each MSHR is free.
    free_at.assign(ws ? p.sched.mshrs : p.walkers, 0);
    gmmu_error wm_err{};
    const gmmu_wm_config wm_cfg{inflight_slots};
    if (gmmu_wm_create(&wm_cfg, &wm, &wm_err) != GMMU_OK)
        report_error("ptw", std::string("walks in flight: ") + wm_err.msg);
    tsock.register_b_transport(this, &ptw::b_transport);
    tsock.register_transport_dbg(this, &ptw::transport_dbg);
}

ptw::~ptw()
{
    gmmu_pwc_destroy(pwc_);
    gmmu_line_cache_destroy(lc);
    gmmu_wm_destroy(wm);
    gmmu_walk_sched_destroy(ws);
}

// ---- lock-step: a waveform of the cycles before a mismatch -----------------------
void ptw::pwc_replay(pwc_cycle_device &d, const gmmu_pwc_cycle_in &in)
{
    gmmu_pwc_cycle_out out;
    (void)d.step(&in, &out); // the twin's answers were checked when the block gave them
}

void ptw::ws_replay(ws_step_device &d, const ws_event &e)
{
    gmmu_ws_out out;
    if (e.skip_before)
        d.skip(e.skip_before);
    if (e.reset_before)
        d.reset();
    (void)d.step(&e.in, &out);
}

template <class W> std::string ptw::mismatch_waveform(W &w, const char *block)
{
    const uint64_t n = w.held(), last = w.recorded() - 1;
    std::string why;
    if (!w.dump(p.mismatch_fst, &why))
        return "; no waveform of the last cycles: " + why;
    char buf[200];
    if constexpr (std::is_same_v<W, decltype(pwc_window)::element_type>)
        snprintf(buf, sizeof buf, "; the RTL %s's last %llu cycles (PWC cycles %llu..%llu) are in ",
                 block, (unsigned long long)n, (unsigned long long)(last + 1 - n),
                 (unsigned long long)last);
    else // the run loop skips quiescent cycles: the scheduler's cycle numbers differ
        snprintf(buf, sizeof buf, "; the RTL %s's last %llu cycles, up to the mismatch, are in ",
                 block, (unsigned long long)n);
    return buf + p.mismatch_fst;
}

// ---- page-walk cache through its cycle-step interface --------------------------
void ptw::pwc_step(const gmmu_pwc_cycle_in &in, gmmu_pwc_cycle_out &out)
{
    if (pwc_window)
        pwc_window->record(in);
    if (pwc_dev->step(&in, &out) != GMMU_OK)
        report_error("ptw", std::string(name()) + ": " + pwc_dev->name() + " rejected a PWC input" +
                             (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
    if (pwc_check) {
        gmmu_pwc_cycle_out o2{};
        if (pwc_check->step(&in, &o2) != GMMU_OK)
            report_error("ptw", std::string(name()) + ": " + pwc_check->name() + " rejected a PWC input" +
                                 (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
        if (out.hit_valid != o2.hit_valid ||
            (out.hit_valid && (out.start_level != o2.start_level || out.table_base != o2.table_base))) {
            char buf[400];
            snprintf(buf, sizeof buf,
                     "%s: PWC co-simulation mismatch at PWC cycle %llu: %s {hit_valid=%u start_level=%u "
                     "table_base=0x%llx} vs %s {hit_valid=%u start_level=%u table_base=0x%llx}",
                     name(), (unsigned long long)pwc_cycle, pwc_dev->name().c_str(), out.hit_valid,
                     out.start_level, (unsigned long long)out.table_base, pwc_check->name().c_str(),
                     o2.hit_valid, o2.start_level, (unsigned long long)o2.table_base);
            report_error("ptw", buf + (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
        }
    }
    pwc_cycle++;
}

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
    pwc_step(in, out);
    in.lookup_valid = 0;
    while (!out.hit_valid) {
        if (++cycles > 64)
            report_error("ptw", std::string(name()) + ": the PWC gave no lookup result in 64 cycles");
        pwc_step(in, out);
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

bool ptw::debug_walk_full(uint64_t root, uint64_t va, gmmu_walk_result &w)
{
    gmmu_mem_ops ops{&dbg_read, nullptr, &pt_isock};
    return gmmu_walk(&ops, root, va, 0, &w) == GMMU_OK && w.fault == GMMU_FAULT_NONE;
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
    pwc_step(in, out);
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
    pwc_step(in, out);
}

uint64_t ptw::cycles_of(const sc_core::sc_time &t) const { return t.value() / p.clock.value(); }

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

bool ptw::tlm_read(uint64_t pa, uint64_t *val, sc_core::sc_time &delay)
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
    if (debug_walk)
        return pt_isock->transport_dbg(g) == 8;
    pt_isock->b_transport(g, delay);
    return g.get_response_status() == tlm::TLM_OK_RESPONSE;
}

// One PTE read of a timed walk. A line-cache hit is served without a memory
// read (its data functionally by debug transport). *latency_cycles is the
// memory latency met (0 on a line-cache hit).
bool ptw::pt_read(uint64_t pa, uint64_t *val, uint32_t *latency_cycles, bool)
{
    same_line += (pa >> 7) == last_line;
    last_line = pa >> 7;
    if (p.line_cache && gmmu_line_cache_probe(lc, pa)) {
        line_hits++;
        *latency_cycles = 0;
        debug_walk = true;
        bool ok = tlm_read(pa, val, walk_delay);
        debug_walk = false;
        return ok;
    }
    sc_core::sc_time d = walk_delay;
    pt_reads++;
    if (!tlm_read(pa, val, d))
        return false;
    const uint64_t lat = (d - walk_delay).value();
    if (lat != lat_memo_value) {
        lat_memo_value = lat;
        lat_memo_cycles = lat / p.clock.value();
    }
    *latency_cycles = uint32_t(lat_memo_cycles);
    return true;
}

gmmu_status ptw::read_cb(void *ctx, uint64_t pa, uint64_t *val)
{
    auto *self = static_cast<ptw *>(ctx);
    if (self->debug_walk)
        return self->tlm_read(pa, val, self->walk_delay) ? GMMU_OK : GMMU_EMEM;
    uint32_t mem_lat = 0;
    if (!self->pt_read(pa, val, &mem_lat, false)) {
        self->mem_errors++;
        return GMMU_EMEM;
    }
    uint32_t lat = mem_lat;
    if (self->p.line_cache) {
        uint64_t now = self->cycles_of(sc_core::sc_time_stamp() + self->walk_delay);
        gmmu_line_cache_access(self->lc, pa, now, mem_lat ? mem_lat : 1, &lat, nullptr);
    }
    self->walk_delay += self->read_time.get(self->p.clock, lat);
    return GMMU_OK;
}

gmmu_status ptw::write_cb(void *ctx, uint64_t pa, uint64_t val)
{
    auto *self = static_cast<ptw *>(ctx);
    if (self->debug_walk)
        return GMMU_OK; // a debug walk never changes the tables
    tlm::tlm_generic_payload &g = self->pt_gp;
    g.set_command(tlm::TLM_WRITE_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(&val));
    g.set_data_length(8);
    g.set_streaming_width(8);
    g.set_byte_enable_ptr(nullptr);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    self->pt_writes++;
    self->pt_isock->b_transport(g, self->walk_delay);
    return g.get_response_status() == tlm::TLM_OK_RESPONSE ? GMMU_OK : GMMU_EMEM;
}

// ---- walk scheduler through its cycle-step interface ---------------------------
static void ws_diff(std::string &d, const char *field, uint64_t a, uint64_t b)
{
    if (a == b)
        return;
    char buf[160];
    snprintf(buf, sizeof buf, "\n  %-22s 0x%llx vs 0x%llx", field, (unsigned long long)a,
             (unsigned long long)b);
    d += buf;
}

gmmu_status ptw::ws_step_cb(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out)
{
    auto *self = static_cast<ptw *>(ctx);
    if (!self->ws_mismatch.empty())
        return GMMU_EINVAL;
    if (self->ws_window) {
        self->ws_pending.in = *in;
        self->ws_window->record(self->ws_pending);
        self->ws_pending = ws_event{};
    }
    gmmu_status s = self->ws_dev->step(in, out);
    if (s != GMMU_OK && self->ws_check) { // in lock-step: e.g. an SVA failure of the RTL
        self->ws_mismatch = self->ws_dev->name() + " rejected a scheduler input";
        return s;
    }
    if (s != GMMU_OK || !self->ws_check)
        return s;
    gmmu_ws_out o2;
    if (self->ws_check->step(in, &o2) != GMMU_OK) {
        self->ws_mismatch = self->ws_check->name() + " rejected a scheduler input that " +
                            self->ws_dev->name() + " took";
        return GMMU_EINVAL;
    }
    std::string d;
    ws_diff(d, "req.valid", out->req.valid, o2.req.valid);
    if (out->req.valid || o2.req.valid) {
        ws_diff(d, "req.level", out->req.level, o2.req.level);
        ws_diff(d, "req.tag", out->req.tag, o2.req.tag);
        ws_diff(d, "req.pa", out->req.pa, o2.req.pa);
    }
    char f[64];
    for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
        snprintf(f, sizeof f, "alloc_accepted[%u]", k);
        ws_diff(d, f, out->alloc_accepted[k], o2.alloc_accepted[k]);
        if (out->alloc_accepted[k] || o2.alloc_accepted[k]) {
            snprintf(f, sizeof f, "alloc_mshr[%u]", k);
            ws_diff(d, f, out->alloc_mshr[k], o2.alloc_mshr[k]);
        }
    }
    ws_diff(d, "n_done", out->n_done, o2.n_done);
    for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX && j < std::max(out->n_done, o2.n_done); j++) {
        const gmmu_ws_done &a = out->done[j], &b = o2.done[j];
        auto field = [&](const char *name, uint64_t x, uint64_t y) {
            snprintf(f, sizeof f, "done[%u].%s", j, name);
            ws_diff(d, f, x, y);
        };
        field("valid", a.valid, b.valid);
        field("mshr", a.mshr, b.mshr);
        field("fault", a.fault, b.fault);
        field("fault_level", a.fault_level, b.fault_level);
        field("page_shift", a.page_shift, b.page_shift);
        field("nreads", a.nreads, b.nreads);
        field("va", a.va, b.va);
        field("pa", a.pa, b.pa);
        field("pte", a.pte, b.pte);
        for (unsigned l = 1; l <= GMMU_PT_LEVELS; l++) {
            char tb[24];
            snprintf(tb, sizeof tb, "table_base[%u]", l);
            field(tb, a.table_base[l], b.table_base[l]);
        }
    }
    if (!d.empty()) {
        char head[160];
        snprintf(head, sizeof head, "walk-scheduler co-simulation mismatch at scheduler cycle %llu (",
                 (unsigned long long)self->ws_st.cycles);
        self->ws_mismatch = std::string(head) + self->ws_dev->name() + " vs " +
                            self->ws_check->name() + "):" + d;
        return GMMU_EINVAL;
    }
    return GMMU_OK;
}

bool ptw::ws_quiescent_cb(void *ctx)
{
    auto *self = static_cast<ptw *>(ctx);
    bool q = self->ws_dev->quiescent();
    if (self->ws_check && self->ws_mismatch.empty() && self->ws_check->quiescent() != q) {
        char buf[200];
        snprintf(buf, sizeof buf,
                 "walk-scheduler co-simulation mismatch after scheduler cycle %llu: quiescent %d "
                 "(%s) vs %d (%s)",
                 (unsigned long long)self->ws_st.cycles, q, self->ws_dev->name().c_str(), !q,
                 self->ws_check->name().c_str());
        self->ws_mismatch = buf;
        return false; // the next step reports it
    }
    return q;
}

void ptw::ws_skip_cb(void *ctx, uint64_t cycles)
{
    auto *self = static_cast<ptw *>(ctx);
    self->ws_dev->skip(cycles);
    if (self->ws_check)
        self->ws_check->skip(cycles);
    self->ws_pending.skip_before += cycles;
}

gmmu_status ptw::sched_mem_cb(void *ctx, uint64_t pa, uint64_t *data, uint32_t *lat)
{
    auto *self = static_cast<ptw *>(ctx);
    uint32_t l = 0;
    if (!self->pt_read(pa, data, &l, true)) {
        self->mem_errors++;
        return GMMU_EMEM;
    }
    *lat = l ? l : 1;
    return GMMU_OK;
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
// merge with a walk in flight, PWC lookup), the walk itself (a serial walker
// reading through read_cb, or the scheduler's step device), complete
// (counters, timeline, the walk recorded for merging, the PWC filled).

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

void ptw::walk_serial(xlate_req &r, bool debug, const sc_core::sc_time &t_req)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time abs_req = now + t_req;
    walk_start ps{};
    if (!prepare(r, debug, t_req, ps))
        return;
    const unsigned k = debug ? 0 : gmmu_ws_pick_walker(free_at.data(), unsigned(free_at.size()));
    sc_core::sc_time start =
        debug ? abs_req : std::max(abs_req, sc_core::sc_time::from_value(free_at[k]));
    walk_delay = start - now;
    if (ps.pwc_hit)
        walk_delay += cycles_time(p.clock, ps.pwc_cycles);
    gmmu_mem_ops ops{&ptw::read_cb, &ptw::write_cb, this};
    unsigned access = access_of(r) | (p.set_accessed_dirty && !debug ? GMMU_ACC_SET_AD : 0u);
    gmmu_walk_result w;
    debug_walk = debug;
    gmmu_status st = gmmu_walk_from(&ops, ps.table, ps.level, r.va, access, &w);
    debug_walk = false;
    if (st != GMMU_OK) {
        r.fault = st == GMMU_EMEM ? GMMU_FAULT_BUS_ERROR : GMMU_FAULT_NOT_PRESENT;
        r.ready = debug ? sc_core::SC_ZERO_TIME : walk_delay;
        if (!debug)
            faults++;
        return;
    }
    finish(r, w);
    if (debug) {
        r.ready = sc_core::SC_ZERO_TIME;
        return;
    }
    sc_core::sc_time walk_len = (walk_delay + now) - start;
    if (p.fixed_walk_cycles)
        walk_len = cycles_time(p.clock, p.fixed_walk_cycles);
    const sc_core::sc_time done = start + walk_len;
    free_at[k] = done.value();
    r.ready = done - now;
    complete(r, ps, &w, abs_req, start, done, int(k));
}

void ptw::walk_batch_scheduled(std::vector<xlate_req *> &reqs, const sc_core::sc_time &t_req)
{
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    const sc_core::sc_time abs_req = now + t_req;
    std::vector<xlate_req *> pending;
    std::vector<gmmu_ws_alloc> allocs;
    std::vector<walk_start> starts;
    pending.reserve(reqs.size());
    allocs.reserve(reqs.size());
    starts.reserve(reqs.size());
    unsigned pwc_lookups = 0, pwc_lat = 0;
    for (xlate_req *r : reqs) {
        walk_start s{};
        if (!prepare(*r, false, t_req, s))
            continue;
        gmmu_ws_alloc a{};
        a.va = r->va;
        a.valid = 1;
        a.start_level = uint8_t(s.level);
        a.table_base = s.table;
        a.access = uint8_t(access_of(*r));
        if (s.pwc_hit) {
            pwc_lat = std::max(pwc_lat, s.pwc_cycles);
            pwc_lookups++;
        }
        pending.push_back(r);
        starts.push_back(s);
        allocs.push_back(a);
    }
    if (pending.empty())
        return;
    // One PWC port, pipelined: lookups finish at latency + (n - 1).
    unsigned pwc_total = pwc_lookups ? pwc_lat + pwc_lookups - 1 : 0;
    // Walks of earlier batches still hold MSHRs; this batch starts once it has its own.
    const sc_core::sc_time start = sc_core::sc_time::from_value(gmmu_ws_batch_start(
        free_at.data(), unsigned(free_at.size()), unsigned(pending.size()), abs_req.value()));
    walk_delay = start - now + cycles_time(p.clock, pwc_total); // base of the scheduler's reads
    const sc_core::sc_time base = walk_delay;
    std::vector<gmmu_ws_result> res(pending.size());
    uint64_t cycles = 0;
    gmmu_ws_device dev{};
    dev.step = &ptw::ws_step_cb;
    dev.quiescent = &ptw::ws_quiescent_cb;
    dev.skip = &ptw::ws_skip_cb;
    dev.ctx = this;
    dev.mshrs = p.sched.mshrs;
    gmmu_status s = gmmu_ws_run_device(&dev, lc, allocs.data(),
                                       unsigned(allocs.size()), &ptw::sched_mem_cb, this,
                                       res.data(), &cycles, &ws_st);
    if (!ws_mismatch.empty())
        report_error("ptw", std::string(name()) + ": " + ws_mismatch +
                                (ws_window ? mismatch_waveform(*ws_window, "walk scheduler") : ""));
    if (s != GMMU_OK) {
        // keep the unit usable; report the batch as faulted
        ws_dev->reset();
        if (ws_check)
            ws_check->reset();
        ws_pending.reset_before = true;
        ws_st.have_last = 0;
        for (xlate_req *r : pending) {
            r->done = true;
            r->fault = s == GMMU_EMEM ? GMMU_FAULT_BUS_ERROR : GMMU_FAULT_NOT_PRESENT;
            r->ready = base;
            faults++;
        }
        return;
    }
    done_at.resize(pending.size());
    for (size_t i = 0; i < pending.size(); i++) {
        xlate_req &r = *pending[i];
        const gmmu_ws_result &w = res[i];
        r.done = true;
        r.level_hit = 0;
        r.fault = w.fault;
        r.pa = w.pa;
        r.page_shift = w.page_shift;
        r.contig_log2 = unsigned((w.pte & GMMU_PTE_CONTIG_MASK) >> GMMU_PTE_CONTIG_SHIFT);
        // The scheduler reports the leaf; the permissions of every level and
        // the PWC path come from the same tables read functionally (no time).
        gmmu_walk_result full{};
        const bool have_full =
            w.fault == GMMU_FAULT_NONE && debug_walk_full(starts[i].root, r.va, full);
        r.perms = have_full ? full.perms | (w.pte & (GMMU_PTE_A | GMMU_PTE_D))
                            : w.pte & GMMU_PTE_PERM_MASK;
        sc_core::sc_time done = now + base + cycles_time(p.clock, w.done_cycle + 1);
        if (p.fixed_walk_cycles)
            done = start + cycles_time(p.clock, p.fixed_walk_cycles);
        r.ready = done - now;
        done_at[i] = done.value();
        complete(r, starts[i], have_full ? &full : nullptr, abs_req, start, done, -1);
    }
    gmmu_ws_batch_hold(free_at.data(), unsigned(free_at.size()), done_at.data(),
                       unsigned(done_at.size()));
}

void ptw::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (gp.get_command() != tlm::TLM_IGNORE_COMMAND || !x) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (x->op == xlate_ext::op_kind::invalidate) {
        invalidate(x->inv);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    if (x->op != xlate_ext::op_kind::translate) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (x->debug) {
        for (auto &r : x->reqs)
            walk_serial(r, true, sc_core::SC_ZERO_TIME);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    batches++;
    if (ws) {
        std::vector<xlate_req *> reqs;
        reqs.reserve(x->reqs.size());
        for (auto &r : x->reqs)
            reqs.push_back(&r);
        walk_batch_scheduled(reqs, delay);
    } else {
        for (auto &r : x->reqs)
            walk_serial(r, false, delay);
    }
    sc_core::sc_time done = delay;
    for (auto &r : x->reqs)
        if (r.ready > done)
            done = r.ready;
    delay = done;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned ptw::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (!x)
        return 0;
    for (auto &r : x->reqs)
        walk_serial(r, true, sc_core::SC_ZERO_TIME);
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
            {"pt_reads", "page-table memory reads issued (TLM reads on `pt_isock`)", [](const T &c) { return json(c.pt_reads); }},
            {"pt_writes", "A/D-bit write-backs (with `ptw.set_accessed_dirty`)", [](const T &c) { return json(c.pt_writes); }},
            {"faults", "walks that ended in a fault", [](const T &c) { return json(c.faults); }},
            {"memory_errors", "walks aborted by a memory error response", [](const T &c) { return json(c.mem_errors); }},
            {"batches", "translation batches received", [](const T &c) { return json(c.batches); }},
            {"walkers", "configured walkers", [](const T &c) { return json(c.p.walkers); }},
            {"inflight_merges", "requests served by a walk of the same page still in flight", [](const T &c) { return json(c.inflight_merges); }},
            {"invalidations", "invalidation requests received (`xlate_ext` op=invalidate)", [](const T &c) { return json(c.invalidations); }},
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
             [](const T &c) { return json(c.ws_dev->name()); }, sched},
            {"sched.cosim", "the twin stepped in lock-step, or off (tree, pairwise)",
             [](const T &c) { return json(c.ws_check ? c.ws_check->name() : std::string("off")); }, sched},
            {"sched.refs_issued", "PTE references issued (memory reads + line-cache hits)",
             [](const T &c) { return json(c.ws ? c.ws_st.refs_issued : c.pt_reads + c.line_hits); }},
            {"sched.refs_merged", "identical references served by another walk's read (tree, pairwise)",
             [](const T &c) {
                 const uint64_t m = c.ws && c.ws_st.refs_walked > c.ws_st.refs_issued
                                        ? c.ws_st.refs_walked - c.ws_st.refs_issued
                                        : 0;
                 return json(m);
             }},
            {"sched.refs_walked", "PTE references the walks consumed (what serial walkers would read)",
             [](const T &c) { return json(c.ws ? c.ws_st.refs_walked : c.pt_reads + c.line_hits); }},
            {"sched.same_line_back_to_back", "references to the 128-byte line of the previous reference",
             [](const T &c) { return json(c.ws ? c.ws_st.same_line_back_to_back : c.same_line); }},
            {"sched.cycles", "scheduler cycles stepped (tree, pairwise)", [](const T &c) { return json(c.ws_st.cycles); }, sched},
            {"sched.scans", "comparator scans (tree, pairwise)", [](const T &c) { return json(c.ws_dev->scans()); }, sched},
            {"line_cache.accesses", "the page-table-line cache's lookups (with `ptw.line_cache.lines` > 0)",
             [](const T &c) { return json(c.lc->st.accesses); }, line_cache},
            {"line_cache.hits", "its hits", [](const T &c) { return json(c.lc->st.hits); }, line_cache},
            {"line_cache.misses", "its misses", [](const T &c) { return json(c.lc->st.misses); }, line_cache},
            {"line_cache.lines", "its 128-byte lines", [](const T &c) { return json(c.p.lc.lines); }, line_cache},
            {"pwc.kind", "page-walk cache kind (with `ptw.pwc` != none)",
             [](const T &c) { return json(gmmu_pwc_kind_name(c.p.pwc.kind)); }, any_pwc},
            {"pwc.impl", "the PWC's implementation stepped cycle by cycle: the C model or the Verilated RTL",
             [](const T &c) { return json(c.pwc_dev->name()); }, stepped_pwc},
            {"pwc.cosim", "the PWC twin stepped in lock-step, or off",
             [](const T &c) { return json(c.pwc_check ? c.pwc_check->name() : std::string("off")); }, stepped_pwc},
            {"pwc.cycles", "PWC cycles stepped", [](const T &c) { return json(c.pwc_cycle); }, stepped_pwc},
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
