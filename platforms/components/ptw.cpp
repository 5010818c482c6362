#include "components/ptw.h"

#include <algorithm>

namespace gmmu {

ptw::ptw(sc_core::sc_module_name name, const ptw_params &params)
    : sc_module(name), tsock("tsock"), pt_isock("pt_isock"), p(params)
{
    if (p.walkers == 0)
        report_error("ptw", std::string(this->name()) + ": walkers: must be at least 1");
    free_at.assign(p.walkers, sc_core::SC_ZERO_TIME);
    tsock.register_b_transport(this, &ptw::b_transport);
    tsock.register_transport_dbg(this, &ptw::transport_dbg);
}

gmmu_status ptw::read_cb(void *ctx, uint64_t pa, uint64_t *val)
{
    auto *self = static_cast<ptw *>(ctx);
    tlm::tlm_generic_payload &g = self->pt_gp;
    g.set_command(tlm::TLM_READ_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(val));
    g.set_data_length(8);
    g.set_streaming_width(8);
    g.set_byte_enable_ptr(nullptr);
    g.set_dmi_allowed(false);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (self->debug_walk) {
        if (self->pt_isock->transport_dbg(g) != 8)
            return GMMU_EMEM;
        return GMMU_OK;
    }
    self->pt_reads++;
    self->pt_isock->b_transport(g, self->walk_delay);
    if (g.get_response_status() != tlm::TLM_OK_RESPONSE) {
        self->mem_error = true;
        return GMMU_EMEM;
    }
    return GMMU_OK;
}

gmmu_status ptw::write_cb(void *ctx, uint64_t pa, uint64_t val)
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
    if (self->debug_walk)
        return GMMU_OK; // a debug walk never changes the tables
    self->pt_writes++;
    self->pt_isock->b_transport(g, self->walk_delay);
    return g.get_response_status() == tlm::TLM_OK_RESPONSE ? GMMU_OK : GMMU_EMEM;
}

void ptw::walk_one(xlate_req &r, bool debug, const sc_core::sc_time &t_req)
{
    auto it = roots.find(r.asid);
    r.done = true;
    r.level_hit = 0;
    if (it == roots.end()) {
        r.fault = GMMU_FAULT_NOT_PRESENT; // no address space bound to this ASID
        r.ready = t_req;
        if (!debug)
            faults++;
        return;
    }
    gmmu_mem_ops ops{&ptw::read_cb, &ptw::write_cb, this};
    unsigned access = GMMU_ACC_USER | (r.write ? GMMU_ACC_WRITE : 0u) |
                      (p.set_accessed_dirty && !debug ? GMMU_ACC_SET_AD : 0u);
    gmmu_walk_result w;
    debug_walk = debug;
    mem_error = false;

    // Pick the walker that frees up first.
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time abs_req = now + t_req;
    size_t k = 0;
    if (!debug)
        for (size_t i = 1; i < free_at.size(); i++)
            if (free_at[i] < free_at[k])
                k = i;
    sc_core::sc_time start = debug ? abs_req : std::max(abs_req, free_at[k]);
    walk_delay = start - now; // reads are issued from the walk's start time

    gmmu_status s = gmmu_walk(&ops, it->second, r.va, access, &w);
    debug_walk = false;
    if (s != GMMU_OK) {
        r.fault = GMMU_FAULT_NOT_PRESENT;
        if (!debug)
            mem_errors++;
    } else {
        r.fault = w.fault;
        r.pa = w.pa;
        r.page_shift = w.page_shift;
        r.perms = w.pte & (GMMU_PTE_W | GMMU_PTE_U | GMMU_PTE_NX | GMMU_PTE_D | GMMU_PTE_A);
    }
    if (debug) {
        r.ready = sc_core::SC_ZERO_TIME;
        return;
    }
    walks++;
    if (r.fault != GMMU_FAULT_NONE)
        faults++;
    sc_core::sc_time walk_len = (walk_delay + now) - start;
    if (p.fixed_walk_cycles)
        walk_len = p.clock * p.fixed_walk_cycles;
    sc_core::sc_time done = start + walk_len;
    free_at[k] = done;
    walk_time_sum += walk_len;
    queue_time_sum += start - abs_req;
    r.ready = done - now;
}

void ptw::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (gp.get_command() != tlm::TLM_IGNORE_COMMAND || !x) {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    if (!x->debug)
        batches++;
    sc_core::sc_time done = delay;
    for (auto &r : x->reqs) {
        walk_one(r, x->debug, delay);
        if (r.ready > done)
            done = r.ready;
    }
    if (!x->debug)
        delay = done;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned ptw::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    auto *x = gp.get_extension<xlate_ext>();
    if (!x)
        return 0;
    for (auto &r : x->reqs)
        walk_one(r, true, sc_core::SC_ZERO_TIME);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return 0;
}

void ptw::dump_stats(nlohmann::json &j) const
{
    j["walks"] = walks;
    j["pt_reads"] = pt_reads;
    j["pt_writes"] = pt_writes;
    j["faults"] = faults;
    j["memory_errors"] = mem_errors;
    j["batches"] = batches;
    j["walkers"] = p.walkers;
    j["avg_walk_ns"] = walks ? walk_time_sum.to_seconds() * 1e9 / double(walks) : 0.0;
    j["avg_queue_ns"] = walks ? queue_time_sum.to_seconds() * 1e9 / double(walks) : 0.0;
}

} // namespace gmmu
