#include "gmmu/components/sm.h"

#include "gmmu/components/timeline.h"

extern "C" {
#include "gmmu/sm_simple.h"
#include "gmmu/warp_sched.h"
}

#include <cinttypes>
#include <algorithm>
#include <cstdio>
#include <memory>

#include <tlm_utils/tlm_quantumkeeper.h>

namespace gmmu {

sm::sm(sc_core::sc_module_name name, const sm_params &params, warp_source &w, data_checker &c)
    : sm_base(name), isock("isock"), p(params), wl(w), chk(c)
{
    gp.set_extension(&ext);
    gp.set_data_ptr(nullptr);
    gp.set_data_length(0);
    gp.set_streaming_width(0);
    SC_THREAD(run);
}

sm::~sm() { gp.clear_extension(&ext); }

// The lanes' VAs (and PAs when bypassed), without a test per lane. Eight
// bytes at a time: the workload has just stored them so, and a wider load
// (a vectorized loop, or memcpy's 32-byte loads) cannot take the data of
// several narrower stores still in flight and waits for them to retire
// (measured: memcpy here made the bypassed platform run about 10% slower
// with fewer instructions). The empty asm keeps the compiler from vectorizing.
static void copy_lanes(uint64_t *va, uint64_t *pa, const uint64_t *src, unsigned n)
{
    if (pa) {
        for (unsigned l = 0; l < n; l++) {
            uint64_t v = src[l];
            __asm__("" : "+r"(v));
            va[l] = v;
            pa[l] = v;
        }
        return;
    }
    for (unsigned l = 0; l < n; l++) {
        uint64_t v = src[l];
        __asm__("" : "+r"(v));
        va[l] = v;
    }
}

void sm::run()
{
    tlm_utils::tlm_quantumkeeper qk;
    qk.reset();
    const sc_core::sc_time cyc = p.clock;
    // Per warp: when it may issue (sc_time value), whether it has finished;
    // the picker keeps both and chooses the warp (models/src/warp_sched.c).
    gmmu_warp_picker *pk = nullptr;
    gmmu_error perr{};
    const gmmu_warp_picker_config pcfg{p.warps};
    if (gmmu_warp_picker_create(&pcfg, &pk, &perr) != GMMU_OK) {
        error = std::string("SM warp picker: ") + perr.field + ": " + perr.msg;
        done = true;
        return;
    }
    std::unique_ptr<gmmu_warp_picker, void (*)(gmmu_warp_picker *)> picker(
        pk, &gmmu_warp_picker_destroy);
    // Issue width, non-memory work and replay (models/src/sm_simple.c).
    gmmu_sm_simple *ms = nullptr;
    gmmu_sm_simple_config mcfg{};
    mcfg.warps = p.warps;
    mcfg.issue_width = p.issue_width;
    mcfg.retry_cycles = p.retry_cycles;
    mcfg.compute_on_pipeline = p.compute_on_pipeline;
    if (p.page_in_flight) {
        mcfg.page_in_flight = [](void *ctx, uint16_t asid, uint64_t va) {
            return static_cast<const sm *>(ctx)->p.page_in_flight(asid, va);
        };
        mcfg.ctx = this;
    }
    if (gmmu_sm_simple_create(&mcfg, &ms, &perr) != GMMU_OK) {
        error = std::string("SM model: ") + perr.field + ": " + perr.msg;
        done = true;
        return;
    }
    std::unique_ptr<gmmu_sm_simple, void (*)(gmmu_sm_simple *)> model(ms, &gmmu_sm_simple_destroy);
    std::vector<warp_op> stalled(p.page_in_flight ? p.warps : 0); // the access a warp replays
    unsigned live = p.warps, rr = 0;
    warp_op op;
    ext.sm = p.id;
    ext.asid = p.asid;
    ext.lane_bytes = 8;
    ext.timing_only = p.timing_only; // the memory moves no data, nothing is checked

    while (live > 0) {
        const unsigned w = gmmu_warp_picker_pick(pk, rr);
        // Advance to the warp's ready time, then ask the warp source.
        const sc_core::sc_time ready_w = sc_core::sc_time::from_value(gmmu_warp_picker_ready(pk, w));
        sc_core::sc_time now = sc_core::sc_time_stamp() + qk.get_local_time();
        if (ready_w > now) {
            idle_cycles += (ready_w.value() - now.value()) / cyc.value(); // whole cycles, as the quotient's floor
            qk.set(ready_w - sc_core::sc_time_stamp());
            now = ready_w;
            gmmu_sm_simple_new_cycle(ms);
            if (qk.need_sync()) {
                qk.sync();
                now = sc_core::sc_time_stamp();
            }
        }
        if (const uint32_t owed = gmmu_sm_simple_pipeline(ms, w)) {
            // The warp's non-memory instructions run now, back to back on
            // the SM's pipeline; every other warp waits for it.
            pipeline_compute_cycles += owed;
            qk.inc(cyc * double(owed));
            if (qk.need_sync())
                qk.sync();
            now = sc_core::sc_time_stamp() + qk.get_local_time();
        }
        next_status ns = next_status::issue;
        if (gmmu_sm_simple_take_replay(ms, w)) {
            op = stalled[w];
        } else {
            ns = wl.poll(p.id, w, op);
        }
        if (ns == next_status::done) {
            gmmu_warp_picker_finish(pk, w);
            live--;
            continue;
        }
        if (ns == next_status::wait) {
            // Not ready (e.g. waiting for another SM's stage): retry later;
            // other warps of this SM keep issuing meanwhile.
            gmmu_warp_picker_set(pk, w, (now + cyc * wl.wait_cycles()).value());
            continue;
        }
        rr = (w + 1) % p.warps;
        ext.warp = w;
        ext.nlanes = op.nlanes;
        ext.active = op.active;
        ext.translated = false;
        ext.fault_mask = 0;
        const unsigned nl = std::min<unsigned>(op.nlanes, warp_ext::lanes); // more: the TLB refuses it
        copy_lanes(ext.va.data(), p.bypass ? ext.pa.data() : nullptr, op.va.data(), nl);
        if (op.write && !p.timing_only)
            for (unsigned l = 0; l < nl; l++)
                if (op.active >> l & 1)
                    ext.data[l] = op.explicit_data ? op.data[l] : chk.pattern(op.va[l]);
        gp.set_command(op.write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(op.va[0]);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time delay = qk.get_local_time();
        const sc_core::sc_time issue_offset = delay;
        isock->b_transport(gp, delay);
        uint32_t retry = 0;
        if (gp.get_response_status() != tlm::TLM_OK_RESPONSE &&
            gmmu_sm_simple_fault(ms, w, ext.fault_mask != 0, ext.fault, p.asid, ext.fault_va, &retry)) {
            // No lane touched memory: stall the warp, then replay the access.
            stalled[w] = op;
            gmmu_warp_picker_set(pk, w, (now + (delay - issue_offset) + cyc * retry).value());
            fault_replays++;
            continue;
        }
        if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
            char buf[200];
            if (ext.fault_mask)
                snprintf(buf, sizeof buf, "SM %u warp %u: %s fault at VA 0x%" PRIx64, p.id, w,
                         gmmu_fault_str(ext.fault), ext.fault_va);
            else
                snprintf(buf, sizeof buf, "SM %u warp %u: access at VA 0x%" PRIx64 " failed: %s",
                         p.id, w, op.va[0], gp.get_response_string().c_str());
            error = buf;
            break;
        }
        sc_core::sc_time latency = delay - issue_offset;
        latency_sum += latency;
        if (timeline *tl = active_timeline())
            tl->span(std::string(name()) + ".warp" + std::to_string(w), op.write ? "store" : "load",
                     now, now + latency,
                     {{"va", op.va[0]}, {"lanes", __builtin_popcount(op.active)},
                      {"pages", ext.page_divergence}});
        if (const uint32_t after = gmmu_sm_simple_completed(ms, w, op.compute_cycles))
            gmmu_warp_picker_set(pk, w, (now + latency + cyc * double(after)).value());
        else
            gmmu_warp_picker_set(pk, w, (now + latency).value());
        warp_accesses++;
        unsigned n = (unsigned)__builtin_popcount(op.active);
        lanes += n;
        for (unsigned l = 0; l < op.nlanes && !p.timing_only; l++) {
            if (!(op.active >> l & 1))
                continue;
            if (op.write && op.explicit_data)
                chk.stored_value(op.va[l], op.data[l]);
            else if (op.write)
                chk.stored(op.va[l]);
            else
                chk.check(op.va[l], ext.data[l]);
        }
        (op.write ? stores : loads)++;
        wl.completed(p.id, w, op, ext.data.data(), now, latency);
        if (gmmu_sm_simple_issued(ms))
            qk.inc(cyc);
        if (qk.need_sync())
            qk.sync();
    }
    // The SM is done when its last access completes.
    sc_core::sc_time last = sc_core::sc_time_stamp() + qk.get_local_time();
    for (unsigned k = 0; k < p.warps; k++)
        if (sc_core::sc_time::from_value(gmmu_warp_picker_ready(pk, k)) > last)
            last = sc_core::sc_time::from_value(gmmu_warp_picker_ready(pk, k));
    qk.set(last - sc_core::sc_time_stamp());
    qk.sync();
    end_time = sc_core::sc_time_stamp();
    done = true;
}

const stat_table<sm> &sm::stats_table()
{
    using json = nlohmann::json;
    using T = sm;
    static const stat_table<sm> table(
        50, "SM (`gpu.smN`, `sm.model=simple`)",
        "",
        {
            {"warp_accesses", "warp memory instructions issued",
             [](const T &c) { return json(c.warp_accesses); }},
            {"loads", "of them loads",
             [](const T &c) { return json(c.loads); }},
            {"stores", "of them stores",
             [](const T &c) { return json(c.stores); }},
            {"lanes", "their active lanes",
             [](const T &c) { return json(c.lanes); }},
            {"idle_cycles", "cycles the SM had no ready warp",
             [](const T &c) { return json(c.idle_cycles); }},
            {"avg_access_latency_ns", "mean latency of a warp access (translation + memory)",
             [](const T &c) { return json(c.warp_accesses ? c.latency_sum.to_seconds() * 1e9 / double(c.warp_accesses) : 0.0); }},
            {"finish_ns", "time the SM's last access completed",
             [](const T &c) { return json(c.end_time.to_seconds() * 1e9); }},
            {"pipeline_compute_cycles", "cycles the SM's pipeline spent on warps' non-memory work (with `sm.compute_on_pipeline`)",
             [](const T &c) { return json(c.pipeline_compute_cycles); },
             [](const T &c) { return c.p.compute_on_pipeline; }},
            {"fault_replays", "accesses replayed after a not-present fault on a page being migrated (with `migrate.interval_cycles`)",
             [](const T &c) { return json(c.fault_replays); },
             [](const T &c) { return bool(c.p.page_in_flight); }},
        });
    return table;
}

static const bool sm_stats_declared = (sm::stats_table(), true);

void sm::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
