// gmmu — the walker's co-simulation harness (walk_cosim.h).
#include "gmmu/components/walk_cosim.h"

#include <algorithm>
#include <cstdio>
#include <type_traits>

#include "gmmu/components/rtl_plugin.h"
#include "gmmu/components/stats.h"

namespace gmmu {

// ---- the RTL factory registry -----------------------------------------------------
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

// ---- the C models as step devices ---------------------------------------------------
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

walk_cosim::walk_cosim(std::string owner_, const params &params) : owner(std::move(owner_)), p(params)
{
    dev_.step = &walk_cosim::ws_step_cb;
    dev_.quiescent = &walk_cosim::ws_quiescent_cb;
    dev_.skip = &walk_cosim::ws_skip_cb;
    dev_.ctx = this;
}

walk_cosim::~walk_cosim() = default;

void walk_cosim::attach_pwc(gmmu_pwc *c_model, const gmmu_pwc_config &cfg)
{
    auto c = std::make_unique<c_pwc_device>();
    c->p = c_model; // the C model now runs through its cycle-step interface
    if (cfg.kind != GMMU_PWC_TPC && cfg.kind != GMMU_PWC_CPWC)
        report_error("ptw", owner + ": pwc_impl: only TPC and CPWC have RTL twins");
    if (!have_pwc_rtl())
        report_error("ptw", owner + ": pwc_impl: this program was built without the RTL (Verilator)");
    std::string why;
    std::unique_ptr<pwc_cycle_device> rtl = rtl_factory()(cfg, &why);
    if (!rtl)
        report_error("ptw", owner + ": pwc_impl: " + why);
    if (!p.rtl_fst.empty() && !rtl->open_waveform(p.rtl_fst, &why))
        report_error("ptw", owner + ": rtl_fst: " + why);
    if (p.pwc_cosim && p.mismatch_cycles) {
        std::unique_ptr<pwc_cycle_device> twin = rtl_factory()(cfg, &why);
        if (!twin)
            report_error("ptw", owner + ": pwc_impl: " + why);
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

void walk_cosim::attach_sched(gmmu_walk_sched *ws, const gmmu_ws_config &cfg, bool pwc_waveform_too)
{
    dev_.mshrs = cfg.mshrs;
    auto c = std::make_unique<c_ws_device>();
    c->ws = ws;
    if (!p.sched_rtl && !p.sched_cosim) {
        ws_dev = std::move(c);
        return;
    }
    if (!have_ws_rtl())
        report_error("ptw", owner + ": scheduler_impl: this program was built without the RTL "
                                    "(Verilator)");
    std::string why;
    std::unique_ptr<ws_step_device> rtl = sched_factory()(cfg, &why);
    if (!rtl)
        report_error("ptw", owner + ": scheduler_impl: " + why);
    if (!p.rtl_fst.empty() && !rtl->open_waveform(rtl_waveform_path(p.rtl_fst, pwc_waveform_too), &why))
        report_error("ptw", owner + ": rtl_fst: " + why);
    if (p.sched_cosim && p.mismatch_cycles) {
        std::unique_ptr<ws_step_device> twin = sched_factory()(cfg, &why);
        if (!twin)
            report_error("ptw", owner + ": scheduler_impl: " + why);
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
}

// ---- lock-step: a waveform of the cycles before a mismatch -----------------------
void walk_cosim::pwc_replay(pwc_cycle_device &d, const gmmu_pwc_cycle_in &in)
{
    gmmu_pwc_cycle_out out;
    (void)d.step(&in, &out); // the twin's answers were checked when the block gave them
}

void walk_cosim::ws_replay(ws_step_device &d, const ws_event &e)
{
    gmmu_ws_out out;
    if (e.skip_before)
        d.skip(e.skip_before);
    if (e.reset_before)
        d.reset();
    (void)d.step(&e.in, &out);
}

template <class W> std::string walk_cosim::mismatch_waveform(W &w, const char *block)
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

// ---- page-walk cache ---------------------------------------------------------------
void walk_cosim::pwc_step(const gmmu_pwc_cycle_in &in, gmmu_pwc_cycle_out &out)
{
    if (pwc_window)
        pwc_window->record(in);
    if (pwc_dev->step(&in, &out) != GMMU_OK)
        report_error("ptw", owner + ": " + pwc_dev->name() + " rejected a PWC input" +
                                (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
    if (pwc_check) {
        gmmu_pwc_cycle_out o2{};
        if (pwc_check->step(&in, &o2) != GMMU_OK)
            report_error("ptw", owner + ": " + pwc_check->name() + " rejected a PWC input" +
                                    (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
        if (out.hit_valid != o2.hit_valid ||
            (out.hit_valid && (out.start_level != o2.start_level || out.table_base != o2.table_base))) {
            char buf[400];
            snprintf(buf, sizeof buf,
                     "%s: PWC co-simulation mismatch at PWC cycle %llu: %s {hit_valid=%u start_level=%u "
                     "table_base=0x%llx} vs %s {hit_valid=%u start_level=%u table_base=0x%llx}",
                     owner.c_str(), (unsigned long long)pwc_cycle, pwc_dev->name().c_str(),
                     out.hit_valid, out.start_level, (unsigned long long)out.table_base,
                     pwc_check->name().c_str(), o2.hit_valid, o2.start_level,
                     (unsigned long long)o2.table_base);
            report_error("ptw", buf + (pwc_window ? mismatch_waveform(*pwc_window, "PWC") : ""));
        }
    }
    pwc_cycle++;
}

// ---- walk scheduler: the step device the run loop drives ---------------------------
static void ws_diff(std::string &d, const char *field, uint64_t a, uint64_t b)
{
    if (a == b)
        return;
    char buf[160];
    snprintf(buf, sizeof buf, "\n  %-22s 0x%llx vs 0x%llx", field, (unsigned long long)a,
             (unsigned long long)b);
    d += buf;
}

// Every output field of one cycle, "" when equal.
static std::string ws_out_diff(const gmmu_ws_out &a, const gmmu_ws_out &b)
{
    std::string d;
    ws_diff(d, "req.valid", a.req.valid, b.req.valid);
    if (a.req.valid || b.req.valid) {
        ws_diff(d, "req.level", a.req.level, b.req.level);
        ws_diff(d, "req.tag", a.req.tag, b.req.tag);
        ws_diff(d, "req.pa", a.req.pa, b.req.pa);
    }
    char f[64];
    for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
        snprintf(f, sizeof f, "alloc_accepted[%u]", k);
        ws_diff(d, f, a.alloc_accepted[k], b.alloc_accepted[k]);
        if (a.alloc_accepted[k] || b.alloc_accepted[k]) {
            snprintf(f, sizeof f, "alloc_mshr[%u]", k);
            ws_diff(d, f, a.alloc_mshr[k], b.alloc_mshr[k]);
        }
    }
    ws_diff(d, "n_done", a.n_done, b.n_done);
    for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX && j < std::max(a.n_done, b.n_done); j++) {
        const gmmu_ws_done &x = a.done[j], &y = b.done[j];
        auto field = [&](const char *name, uint64_t u, uint64_t v) {
            snprintf(f, sizeof f, "done[%u].%s", j, name);
            ws_diff(d, f, u, v);
        };
        field("valid", x.valid, y.valid);
        field("mshr", x.mshr, y.mshr);
        field("fault", x.fault, y.fault);
        field("fault_level", x.fault_level, y.fault_level);
        field("page_shift", x.page_shift, y.page_shift);
        field("nreads", x.nreads, y.nreads);
        field("va", x.va, y.va);
        field("pa", x.pa, y.pa);
        field("pte", x.pte, y.pte);
        for (unsigned l = 1; l <= GMMU_PT_LEVELS; l++) {
            char tb[24];
            snprintf(tb, sizeof tb, "table_base[%u]", l);
            field(tb, x.table_base[l], y.table_base[l]);
        }
    }
    return d;
}

gmmu_status walk_cosim::ws_step_cb(void *ctx, const gmmu_ws_in *in, gmmu_ws_out *out)
{
    auto *self = static_cast<walk_cosim *>(ctx);
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
    const std::string d = ws_out_diff(*out, o2);
    if (!d.empty()) {
        char head[160];
        snprintf(head, sizeof head, "walk-scheduler co-simulation mismatch at scheduler cycle %llu (",
                 (unsigned long long)self->st.cycles);
        self->ws_mismatch = std::string(head) + self->ws_dev->name() + " vs " +
                            self->ws_check->name() + "):" + d;
        return GMMU_EINVAL;
    }
    return GMMU_OK;
}

bool walk_cosim::ws_quiescent_cb(void *ctx)
{
    auto *self = static_cast<walk_cosim *>(ctx);
    bool q = self->ws_dev->quiescent();
    if (self->ws_check && self->ws_mismatch.empty() && self->ws_check->quiescent() != q) {
        char buf[200];
        snprintf(buf, sizeof buf,
                 "walk-scheduler co-simulation mismatch after scheduler cycle %llu: quiescent %d "
                 "(%s) vs %d (%s)",
                 (unsigned long long)self->st.cycles, q, self->ws_dev->name().c_str(), !q,
                 self->ws_check->name().c_str());
        self->ws_mismatch = buf;
        return false; // the next step reports it
    }
    return q;
}

void walk_cosim::ws_skip_cb(void *ctx, uint64_t cycles)
{
    auto *self = static_cast<walk_cosim *>(ctx);
    self->ws_dev->skip(cycles);
    if (self->ws_check)
        self->ws_check->skip(cycles);
    self->ws_pending.skip_before += cycles;
}

void walk_cosim::sched_check_run()
{
    if (!ws_mismatch.empty())
        report_error("ptw", owner + ": " + ws_mismatch +
                                (ws_window ? mismatch_waveform(*ws_window, "walk scheduler") : ""));
}

void walk_cosim::sched_reset()
{
    ws_dev->reset();
    if (ws_check)
        ws_check->reset();
    ws_pending.reset_before = true;
    st.have_last = 0;
}

} // namespace gmmu
