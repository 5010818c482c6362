#include "gmmu/components/fault_handler.h"

namespace gmmu {

pager::~pager() = default;

fault_handler::fault_handler(sc_core::sc_module_name name, const fault_handler_params &params,
                             pager &pgr)
    : sc_module(name), tsock("tsock"), p(params), pg(pgr)
{
    gmmu_error err{};
    if (gmmu_fault_handler_create(&p.model, &fh, &err) != GMMU_OK)
        report_error("fault_handler",
                     std::string(this->name()) + ": " + err.field + ": " + err.msg);
    shift = p.model.granularity_shift;
    tsock.register_b_transport(this, &fault_handler::b_transport);
    SC_METHOD(apply_due);
    sensitive << wake;
    dont_initialize();
}

fault_handler::~fault_handler() { gmmu_fault_handler_destroy(fh); }

void fault_handler::resolve(uint64_t region)
{
    const uint64_t lo = region << shift, bytes = 1ull << shift;
    pg.make_present(lo, bytes);
    resolved++;
    if (on_resolved)
        on_resolved(lo, lo + bytes - 1);
}

void fault_handler::apply_due()
{
    const uint64_t now = cycle_of(sc_core::sc_time_stamp());
    while (!due.empty() && due.top().first <= now) {
        const uint64_t region = due.top().second;
        due.pop();
        auto it = scheduled.find(region);
        if (it == scheduled.end())
            continue; // already resolved lazily
        scheduled.erase(it);
        resolve(region);
    }
    if (!due.empty())
        wake.notify(p.clock * due.top().first - sc_core::sc_time_stamp());
}

void fault_handler::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    auto *x = gp.get_extension<fault_ext>();
    if (gp.get_command() != tlm::TLM_IGNORE_COMMAND || !x) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    reports++;
    const uint64_t now = cycle_of(sc_core::sc_time_stamp() + delay);
    const uint64_t region = x->va >> shift;
    x->resolved = x->merged = x->local = false;
    x->queue_pos = 0;
    auto it = scheduled.find(region);
    if (it != scheduled.end() && it->second <= now) {
        // LT skew: this SM is past the resolution time before global time
        // reached it. Resolve now; the SM retries at once.
        const uint64_t ready = it->second;
        scheduled.erase(it);
        resolve(region);
        lazy_resolves++;
        x->resolved = true;
        x->ready_cycle = ready;
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    gmmu_fault_kind kind = GMMU_FAULT_FIRST_TOUCH;
    if (!pg.classify(x->va, &kind)) {
        not_paged++; // not demand-paged: a genuine fault the SM must report
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    gmmu_fault_ticket t{};
    gmmu_status s = gmmu_fault_handler_raise(fh, now, x->va, kind, &t);
    if (s != GMMU_OK) {
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE); // pending queue full
        return;
    }
    if (it == scheduled.end()) {
        if (t.merged) {
            // The model still holds the region as pending although it was
            // resolved (reported at an earlier cycle than the resolution by
            // another SM's skewed clock): it is present already.
            late_reports++;
            x->resolved = true;
            x->ready_cycle = t.ready;
            gp.set_response_status(tlm::TLM_OK_RESPONSE);
            return;
        }
        scheduled[region] = t.ready;
        due.emplace(t.ready, region);
        (kind == GMMU_FAULT_MIGRATE ? migrate_regions : first_touch_regions)++;
        wake.notify(p.clock * t.ready - sc_core::sc_time_stamp());
    }
    x->ready_cycle = t.ready;
    x->queue_pos = t.queue_pos;
    x->merged = t.merged;
    x->local = t.local;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

const stat_table<fault_handler> &fault_handler::stats_table()
{
    using json = nlohmann::json;
    using T = fault_handler;
    static const stat_table<fault_handler> table(
        80, "Fault handler (`gpu.fault_handler`, with `workload.faults`)",
        "",
        {
            {"reports", "fault reports received",
             [](const T &c) { return json(c.reports); }},
            {"faults", "new faults queued for resolution (not merged, not refused)",
             [](const T &c) { return json(c.fh->st.faults); }},
            {"merged", "faults on a region already pending: they complete with it at no extra cost",
             [](const T &c) { return json(c.fh->st.merged); }},
            {"cpu_migrate", "new faults served by the CPU path with a data transfer",
             [](const T &c) { return json(c.fh->st.cpu_migrate); }},
            {"cpu_alloc", "new first-touch faults served by the CPU path (nothing to copy)",
             [](const T &c) { return json(c.fh->st.cpu_alloc); }},
            {"local", "new first-touch faults handled on the GPU (with local first-touch handling)",
             [](const T &c) { return json(c.fh->st.local); }},
            {"queue_full", "faults refused because the pending queue was full",
             [](const T &c) { return json(c.fh->st.full); }},
            {"busy_cycles", "summed service cycles of the new faults",
             [](const T &c) { return json(c.fh->st.busy_cycles); }},
            {"peak_pending", "most faults pending at once",
             [](const T &c) { return json(c.fh->st.peak_pending); }},
            {"regions_resolved", "regions made present",
             [](const T &c) { return json(c.resolved); }},
            {"regions_migrated", "regions scheduled for resolution that held CPU data",
             [](const T &c) { return json(c.migrate_regions); }},
            {"regions_first_touch", "regions scheduled for resolution on first touch",
             [](const T &c) { return json(c.first_touch_regions); }},
            {"lazy_resolves", "regions resolved at a report whose time was already past their resolution time (loosely-timed skew)",
             [](const T &c) { return json(c.lazy_resolves); }},
            {"late_reports", "reports of a region already resolved that the model still held pending (skew)",
             [](const T &c) { return json(c.late_reports); }},
            {"not_demand_paged", "reports outside the demand-paged regions (genuine faults, returned to the SM)",
             [](const T &c) { return json(c.not_paged); }},
            {"granularity_bytes", "bytes one fault resolves",
             [](const T &c) { return json(1ull << c.shift); }},
        });
    return table;
}

static const bool fault_handler_stats_declared = (fault_handler::stats_table(), true);

void fault_handler::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
