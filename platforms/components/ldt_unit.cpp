#include "gmmu/components/ldt_unit.h"

namespace gmmu {

ldt_unit::ldt_unit(sc_core::sc_module_name name, const ldt_params &params)
    : sc_module(name), tsock("tsock"), push_isock("push_isock"), p(params)
{
    gmmu_error err{};
    if (gmmu_ldt_create(&p.model, &ldt, &err) != GMMU_OK)
        report_error("ldt", std::string(this->name()) + ": " + err.field + ": " + err.msg);
    tsock.register_b_transport(this, &ldt_unit::b_transport);
    out_gp.set_command(tlm::TLM_IGNORE_COMMAND);
    out_gp.set_data_ptr(nullptr);
    out_gp.set_data_length(0);
    out_gp.set_extension(&out_ext);
}

ldt_unit::~ldt_unit()
{
    out_gp.clear_extension(&out_ext);
    gmmu_ldt_destroy(ldt);
}

void ldt_unit::push(unsigned cu, const xlate_req &r, const sc_core::sc_time &delay)
{
    if (cu >= push_isock.size())
        return;
    out_ext.op = xlate_ext::op_kind::prefetch;
    out_ext.cu = cu;
    out_ext.reqs.assign(1, r);
    out_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = delay;
    push_isock[cu]->b_transport(out_gp, d);
    pushes_sent++;
}

void ldt_unit::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (!x || gp.get_command() != tlm::TLM_IGNORE_COMMAND) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    // One handler per xlate_ext command the LDT unit accepts (extensions.h).
    switch (x->op) {
    case xlate_ext::op_kind::ldt_update:
        on_update(*x);
        break;
    case xlate_ext::op_kind::ldt_evict:
        on_evict(*x, delay);
        break;
    case xlate_ext::op_kind::probe:
        on_probe(*x, delay);
        break;
    case xlate_ext::op_kind::translate:
    case xlate_ext::op_kind::translate_debug:
    case xlate_ext::op_kind::invalidate:
    case xlate_ext::op_kind::prefetch: // the TLBs' and walker's commands, not the LDT's
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void ldt_unit::on_update(const xlate_ext &x)
{
    for (auto &r : x.reqs) {
        uint32_t cyc = 0;
        gmmu_ldt_update(ldt, r.asid, r.va >> p.page_shift, x.cu, &cyc);
    }
    // off the L1's critical path: no delay added
}

void ldt_unit::on_evict(const xlate_ext &x, const sc_core::sc_time &delay)
{
    // Copy: pushing re-enters the L1 TLBs, which may reuse payloads.
    std::vector<xlate_req> evicted = x.reqs;
    for (auto &r : evicted) {
        uint32_t cus[1024], n = 0, cyc = 0;
        if (gmmu_ldt_on_evict(ldt, r.asid, r.va >> p.page_shift, cus, 1024, &n, &cyc) != GMMU_OK)
            continue;
        sc_core::sc_time d = delay + p.clock * cyc;
        for (uint32_t k = 0; k < n; k++)
            push(cus[k], r, d);
    }
}

void ldt_unit::on_probe(xlate_ext &x, sc_core::sc_time &delay)
{
    if (!p.probe)
        return;
    sc_core::sc_time done = delay;
    for (auto &r : x.reqs) {
        probes++;
        uint32_t peers[1024], n = 0;
        if (gmmu_ldt_sharers(ldt, r.asid, r.va >> p.page_shift, x.cu, peers, 1024, &n) != GMMU_OK)
            continue;
        for (uint32_t k = 0; k < n && !r.done; k++) {
            if (peers[k] >= push_isock.size())
                continue;
            peers_probed++;
            out_ext.op = xlate_ext::op_kind::probe;
            out_ext.cu = peers[k];
            out_ext.reqs.assign(1, r);
            out_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
            sc_core::sc_time d = delay;
            push_isock[peers[k]]->b_transport(out_gp, d);
            if (out_ext.reqs[0].done && out_ext.reqs[0].fault == GMMU_FAULT_NONE) {
                r = out_ext.reqs[0];
                r.ready = delay + p.clock * (p.probe_cycles * (k + 1));
                if (r.ready > done)
                    done = r.ready;
                probe_hits++;
            }
        }
    }
    delay = done;
}

const stat_table<ldt_unit> &ldt_unit::stats_table()
{
    using json = nlohmann::json;
    using T = ldt_unit;
    static const stat_table<ldt_unit> table(
        40, "PICLE LDT (`gpu.ldtN`, with `picle.enabled`)",
        "",
        {
            {"updates", "L1 TLB accesses recorded",
             [](const T &c) { return json(c.ldt->st.updates); }},
            {"lookups", "L2 TLB evictions looked up",
             [](const T &c) { return json(c.ldt->st.lookups); }},
            {"lookup_hits", "lookups that found the page",
             [](const T &c) { return json(c.ldt->st.lookup_hits); }},
            {"replacements", "LDT entries replaced (sharing history lost)",
             [](const T &c) { return json(c.ldt->st.replacements); }},
            {"prefetches_issued", "translations pushed into L1 TLBs",
             [](const T &c) { return json(c.pushes_sent); }},
            {"probes", "Valkyrie: L1 misses probed",
             [](const T &c) { return json(c.probes); }},
            {"peers_probed", "Valkyrie: peer L1s asked",
             [](const T &c) { return json(c.peers_probed); }},
            {"probe_hits", "Valkyrie: misses served by a peer",
             [](const T &c) { return json(c.probe_hits); }},
            {"storage_bits", "LDT storage",
             [](const T &c) { return json(gmmu_ldt_storage_bits(&c.p.model)); }},
        });
    return table;
}

static const bool ldt_unit_stats_declared = (ldt_unit::stats_table(), true);

void ldt_unit::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
