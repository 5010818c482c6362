#include "gmmu/components/smmu.h"

#include <cstring>

namespace gmmu {

namespace {

tlm::tlm_response_status tlm_status_of(gmmu_smmu_resp r)
{
    switch (r) {
    case GMMU_SMMU_RESP_OK: return tlm::TLM_OK_RESPONSE;
    case GMMU_SMMU_RESP_ADDRESS_ERROR: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    case GMMU_SMMU_RESP_COMMAND_ERROR: return tlm::TLM_COMMAND_ERROR_RESPONSE;
    case GMMU_SMMU_RESP_GENERIC_ERROR: return tlm::TLM_GENERIC_ERROR_RESPONSE;
    }
    return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

} // namespace

smmu::smmu(sc_core::sc_module_name name, const smmu_params &params)
    : sc_module(name), tsock("tsock"), isock("isock"), bypass_isock("bypass_isock"),
      mem_isock("mem_isock"), inv_isock("inv_isock"), reg_tsock("reg_tsock"),
      evtq_irq("evtq_irq"), gerror_irq("gerror_irq"), p(params)
{
    if (p.cmd_cycles == 0)
        report_error("smmu", std::string(this->name()) + ": cmd_cycles: must be at least 1");
    gmmu_smmu_ccache *cc = nullptr;
    gmmu_error err{};
    if (gmmu_smmu_ccache_create(p.config_entries, &cc, &err) != GMMU_OK)
        report_error("smmu", std::string(this->name()) + ": " + err.field + ": " + err.msg);
    ccache.reset(cc);
    gmmu_smmu_regs_reset(&r);
    tsock.register_b_transport(this, &smmu::b_transport);
    tsock.register_transport_dbg(this, &smmu::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &smmu::get_direct_mem_ptr);
    isock.register_invalidate_direct_mem_ptr(this, &smmu::invalidate_dmi_from_below);
    reg_tsock.register_b_transport(this, &smmu::reg_b_transport);
    reg_tsock.register_transport_dbg(this, &smmu::reg_transport_dbg);
    SC_HAS_PROCESS(smmu);
    SC_THREAD(cmdq_thread);
    // The interrupt lines are driven by this one process (whichever
    // initiator's thread raised the event), a delta cycle after the change.
    SC_METHOD(drive_irq);
    sensitive << irq_ev;
    dont_initialize();
}

void smmu::set_port_stream(unsigned port, uint32_t stream_id)
{
    if (port_sid.size() <= port) {
        const size_t old = port_sid.size();
        port_sid.resize(port + 1);
        for (size_t i = old; i < port_sid.size(); i++)
            port_sid[i] = uint32_t(i);
    }
    port_sid[port] = stream_id;
}

// ---- memory accesses of the SMMU itself -------------------------------------

bool smmu::mem_read(uint64_t pa, uint64_t *dw, unsigned n, sc_core::sc_time &delay, bool debug)
{
    unsigned char buf[64];
    tlm::tlm_generic_payload g;
    g.set_command(tlm::TLM_READ_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(buf);
    g.set_data_length(n * 8);
    g.set_streaming_width(n * 8);
    g.set_byte_enable_ptr(nullptr);
    g.set_dmi_allowed(false);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (debug) {
        if (mem_isock->transport_dbg(g) != n * 8)
            return false;
    } else {
        mem_isock->b_transport(g, delay);
        if (!g.is_response_ok())
            return false;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t v = 0;
        for (unsigned b = 0; b < 8; b++)
            v |= uint64_t(buf[i * 8 + b]) << (8 * b);
        dw[i] = v;
    }
    return true;
}

bool smmu::mem_write(uint64_t pa, const void *data, unsigned len, sc_core::sc_time &delay)
{
    unsigned char buf[64];
    std::memcpy(buf, data, len);
    tlm::tlm_generic_payload g;
    g.set_command(tlm::TLM_WRITE_COMMAND);
    g.set_address(pa);
    g.set_data_ptr(buf);
    g.set_data_length(len);
    g.set_streaming_width(len);
    g.set_byte_enable_ptr(nullptr);
    g.set_dmi_allowed(false);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    mem_isock->b_transport(g, delay);
    return g.is_response_ok();
}

// ---- stream contexts --------------------------------------------------------

namespace {
struct read_ctx {
    smmu *self;
    sc_core::sc_time *delay;
    bool debug;
};
} // namespace

bool smmu::read2(void *ctx, uint64_t pa, uint64_t dw[2])
{
    auto *rc = static_cast<read_ctx *>(ctx);
    return rc->self->mem_read(pa, dw, 2, *rc->delay, rc->debug);
}

smmu::context smmu::resolve(uint32_t sid, bool ssv, uint32_t ssid, sc_core::sc_time &delay,
                            bool debug)
{
    context c{};
    if (!(r.cr0 & GMMU_SMMU_CR0_SMMUEN)) {
        c.abort = true; // disabled: every transaction terminates (GBPA.ABORT behaviour)
        return c;
    }
    if (!debug)
        delay += cycles_time(p.clock, p.lookup_cycles);
    if (const context *hit = gmmu_smmu_ccache_find(ccache.get(), sid, ssv, ssid)) {
        if (!debug)
            config_hits++;
        return *hit;
    }
    if (!debug)
        config_fetches++;
    read_ctx rc{this, &delay, debug};
    gmmu_smmu_resolve(&r, sid, ssv, ssid, bypass_isock.size() != 0, &smmu::read2, &rc, &c);
    // Only valid configurations are cached (FIFO replacement, in C); a
    // faulting one is fetched again.
    if (!debug && c.event == GMMU_SMMU_EVT_NONE)
        gmmu_smmu_ccache_insert(ccache.get(), sid, ssv, ssid, &c);
    return c;
}

void smmu::config_drop(bool all, uint32_t sid, bool cd_only, uint32_t ssid)
{
    gmmu_smmu_ccache_drop(ccache.get(), all, sid, cd_only, ssid);
}

// ---- events and interrupts --------------------------------------------------

void smmu::raise(const gmmu_smmu_event &e)
{
    events++;
    if (on_event)
        on_event(e);
    if (!(r.cr0 & GMMU_SMMU_CR0_EVTQEN)) {
        events_lost_disabled++;
        return;
    }
    const unsigned n = gmmu_smmu_q_log2(r.evtq_base);
    if (gmmu_smmu_q_full(r.evtq_prod, r.evtq_cons, n)) {
        // Overflow: the new record is lost, none already queued is; OVFLG
        // toggles to differ from the OVACKFLG software last wrote.
        events_lost_overflow++;
        if (((r.evtq_prod ^ r.evtq_cons) & GMMU_SMMU_Q_OVF) == 0)
            r.evtq_prod ^= GMMU_SMMU_Q_OVF;
        update_irq();
        return;
    }
    uint64_t dw[4];
    gmmu_smmu_event_encode(&e, dw);
    unsigned char rec[GMMU_SMMU_EVT_BYTES];
    for (unsigned i = 0; i < 4; i++)
        for (unsigned b = 0; b < 8; b++)
            rec[i * 8 + b] = (unsigned char)(dw[i] >> (8 * b));
    const uint64_t pa = gmmu_smmu_q_addr(r.evtq_base) +
                        uint64_t(gmmu_smmu_q_index(r.evtq_prod, n)) * GMMU_SMMU_EVT_BYTES;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME; // posted: the faulting transaction does not wait
    if (!mem_write(pa, rec, GMMU_SMMU_EVT_BYTES, d)) {
        events_lost_abort++;
        gmmu_smmu_gerror_raise(&r, GMMU_SMMU_GERROR_EVTQ_ABT);
    } else {
        r.evtq_prod = gmmu_smmu_q_next(r.evtq_prod, n);
    }
    update_irq();
}

void smmu::update_irq()
{
    const bool ev = gmmu_smmu_evtq_irq(&r), ge = gmmu_smmu_gerror_irq(&r);
    if (ev != irq_evtq_state || ge != irq_gerror_state)
        irq_ev.notify(sc_core::SC_ZERO_TIME);
    irq_evtq_state = ev;
    irq_gerror_state = ge;
}

void smmu::drive_irq()
{
    if (evtq_irq.size())
        evtq_irq->write(irq_evtq_state);
    if (gerror_irq.size())
        gerror_irq->write(irq_gerror_state);
}

// ---- device traffic ---------------------------------------------------------

void smmu::b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    transactions++;
    ctx_ext own;
    ctx_ext *cx = gp.get_extension<ctx_ext>();
    const bool attached = cx == nullptr;
    if (attached) {
        own.stream_id = size_t(id) < port_sid.size() ? port_sid[size_t(id)] : uint32_t(id);
        cx = &own;
    }
    const bool write = gp.get_command() == tlm::TLM_WRITE_COMMAND;
    const uint64_t va = gp.get_address();
    context c = resolve(cx->stream_id, cx->substream_valid, cx->substream_id, delay, false);
    gmmu_smmu_event e{};
    e.stream_id = cx->stream_id;
    e.substream_id = cx->substream_id;
    e.ssv = cx->substream_valid;
    e.write = write;
    e.privileged = cx->privileged;
    e.input_addr = va;
    if (c.abort) {
        aborted++;
        gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
        return;
    }
    if (c.event != GMMU_SMMU_EVT_NONE) {
        faults++;
        e.id = uint8_t(c.event);
        e.cls = GMMU_SMMU_CLASS_CD;
        e.fetch_addr = c.fetch_addr;
        raise(e);
        gp.set_response_status(tlm_status_of(gmmu_smmu_response_of(c.event)));
        return;
    }
    if (c.bypass) {
        bypassed++;
        bypass_isock->b_transport(gp, delay);
        return;
    }
    // The context comes from the tables, never from the initiator.
    cx->resolved = true;
    cx->asid = c.asid;
    cx->root = c.root;
    cx->privileged = gmmu_smmu_privileged(c.privcfg, cx->privileged);
    e.privileged = cx->privileged;
    cx->fault = GMMU_FAULT_NONE;
    if (attached)
        gp.set_extension(&own);
    isock->b_transport(gp, delay);
    const gmmu_fault f = cx->fault;
    if (attached)
        gp.clear_extension(&own);
    if (f == GMMU_FAULT_NONE) {
        translated++;
        return;
    }
    faults++;
    const gmmu_smmu_event_id id_ev = gmmu_smmu_event_of_fault(f);
    e.id = uint8_t(id_ev);
    e.cls = gmmu_smmu_class_of_fault(f);
    e.reason = uint8_t(f);
    e.input_addr = cx->fault_va;
    raise(e);
    gp.set_response_status(tlm_status_of(gmmu_smmu_response_of(id_ev)));
}

unsigned smmu::transport_dbg(int id, tlm::tlm_generic_payload &gp)
{
    ctx_ext own;
    ctx_ext *cx = gp.get_extension<ctx_ext>();
    const bool attached = cx == nullptr;
    if (attached) {
        own.stream_id = size_t(id) < port_sid.size() ? port_sid[size_t(id)] : uint32_t(id);
        cx = &own;
    }
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    context c = resolve(cx->stream_id, cx->substream_valid, cx->substream_id, d, true);
    if (c.abort || c.event != GMMU_SMMU_EVT_NONE)
        return 0;
    if (c.bypass)
        return bypass_isock->transport_dbg(gp);
    cx->resolved = true;
    cx->asid = c.asid;
    cx->root = c.root;
    cx->privileged = gmmu_smmu_privileged(c.privcfg, cx->privileged);
    if (attached)
        gp.set_extension(&own);
    const unsigned n = isock->transport_dbg(gp);
    if (attached)
        gp.clear_extension(&own);
    return n;
}

bool smmu::get_direct_mem_ptr(int, tlm::tlm_generic_payload &, tlm::tlm_dmi &dmi)
{
    // Every access is checked against the current tables: no direct pointer.
    dmi.set_start_address(0);
    dmi.set_end_address(~sc_dt::uint64(0));
    dmi.set_granted_access(tlm::tlm_dmi::DMI_ACCESS_NONE);
    return false;
}

void smmu::invalidate_dmi_from_below(sc_dt::uint64, sc_dt::uint64) {}

// ---- registers --------------------------------------------------------------

void smmu::reg_b_transport(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    reg_accesses++;
    delay += cycles_time(p.clock, p.reg_cycles);
    const unsigned len = gp.get_data_length();
    if (gp.get_byte_enable_ptr()) {
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    if (gp.get_streaming_width() < len || (len != 4 && len != 8)) {
        gp.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
        return;
    }
    const uint64_t addr = gp.get_address();
    if (addr >= GMMU_SMMU_REG_SPAN) {
        gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
        return;
    }
    unsigned char *data = gp.get_data_ptr();
    gmmu_smmu_reg_status s;
    if (gp.is_read()) {
        uint64_t v = 0;
        s = gmmu_smmu_reg_read(&r, uint32_t(addr), len, &v);
        if (s == GMMU_SMMU_REG_OK)
            for (unsigned b = 0; b < len; b++)
                data[b] = (unsigned char)(v >> (8 * b));
    } else if (gp.is_write()) {
        uint64_t v = 0;
        for (unsigned b = 0; b < len; b++)
            v |= uint64_t(data[b]) << (8 * b);
        uint32_t todo = 0;
        s = gmmu_smmu_reg_write(&r, uint32_t(addr), len, v, &todo);
        if (todo & GMMU_SMMU_DO_CONFIG)
            config_drop(true, 0, false, 0);
        if (todo & GMMU_SMMU_DO_CMDQ)
            cmdq_ev.notify(delay);
        if (todo & GMMU_SMMU_DO_IRQ)
            update_irq();
    } else {
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
    gp.set_response_status(s == GMMU_SMMU_REG_OK           ? tlm::TLM_OK_RESPONSE
                           : s == GMMU_SMMU_REG_BAD_WIDTH ? tlm::TLM_BURST_ERROR_RESPONSE
                                                          : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

unsigned smmu::reg_transport_dbg(tlm::tlm_generic_payload &gp)
{
    // Debug reads only: a debug write must not start commands or clear errors.
    const unsigned len = gp.get_data_length();
    if (!gp.is_read() || (len != 4 && len != 8) || gp.get_address() >= GMMU_SMMU_REG_SPAN)
        return 0;
    uint64_t v = 0;
    if (gmmu_smmu_reg_read(&r, uint32_t(gp.get_address()), len, &v) != GMMU_SMMU_REG_OK)
        return 0;
    for (unsigned b = 0; b < len; b++)
        gp.get_data_ptr()[b] = (unsigned char)(v >> (8 * b));
    return len;
}

// ---- command queue ----------------------------------------------------------

void smmu::send_invalidate(const xlate_ext::inv_desc &inv, sc_core::sc_time &delay)
{
    invalidations++;
    tlm::tlm_generic_payload g;
    xlate_ext x;
    x.op = xlate_ext::op_kind::invalidate;
    x.inv = inv;
    g.set_command(tlm::TLM_IGNORE_COMMAND);
    g.set_address(0);
    g.set_data_ptr(nullptr);
    g.set_data_length(0);
    g.set_extension(&x);
    g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    isock->b_transport(g, delay);
    for (unsigned i = 0; i < inv_isock.size(); i++) {
        g.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        inv_isock[i]->b_transport(g, delay);
    }
    g.clear_extension(&x);
}

void smmu::execute(const gmmu_smmu_cmd &c, sc_core::sc_time &delay)
{
    using scope = xlate_ext::inv_desc::scope;
    switch (c.op) {
    case GMMU_SMMU_CMD_CFGI_STE: config_drop(false, c.stream_id, false, 0); break;
    case GMMU_SMMU_CMD_CFGI_CD: config_drop(false, c.stream_id, true, c.substream_id); break;
    case GMMU_SMMU_CMD_CFGI_ALL:
    case GMMU_SMMU_CMD_CFGI_CD_ALL: config_drop(true, 0, false, 0); break;
    case GMMU_SMMU_CMD_TLBI_NH_ALL:
    case GMMU_SMMU_CMD_TLBI_NSNH_ALL: send_invalidate({scope::all, 0, 0, 0}, delay); break;
    case GMMU_SMMU_CMD_TLBI_NH_ASID: send_invalidate({scope::asid, c.asid, 0, 0}, delay); break;
    case GMMU_SMMU_CMD_TLBI_NH_VA:
    case GMMU_SMMU_CMD_TLBI_NH_VAA: {
        uint64_t lo, hi;
        gmmu_smmu_cmd_range(&c, &lo, &hi);
        send_invalidate({c.op == GMMU_SMMU_CMD_TLBI_NH_VA ? scope::asid_range : scope::range,
                         c.asid, lo, hi},
                        delay);
        break;
    }
    case GMMU_SMMU_CMD_SYNC:
        // Commands complete in order, so every earlier one is complete here.
        syncs++;
        if (c.cs == GMMU_SMMU_SYNC_CS_IRQ && c.msi_addr) {
            unsigned char le[4];
            for (unsigned b = 0; b < 4; b++)
                le[b] = (unsigned char)(c.msi_data >> (8 * b));
            if (!mem_write(c.msi_addr, le, 4, delay)) {
                gmmu_smmu_gerror_raise(&r, GMMU_SMMU_GERROR_MSI_CMDQ_ABT);
                update_irq();
            }
        }
        break;
    default: break; // CMD_PREFETCH_CONFIG: a hint, nothing to do
    }
}

void smmu::cmdq_thread()
{
    for (;;) {
        if (!gmmu_smmu_cmdq_runnable(&r)) {
            sc_core::wait(cmdq_ev);
            continue;
        }
        const unsigned n = gmmu_smmu_q_log2(r.cmdq_base);
        const uint64_t pa = gmmu_smmu_q_addr(r.cmdq_base) +
                            uint64_t(gmmu_smmu_q_index(r.cmdq_cons, n)) * GMMU_SMMU_CMD_BYTES;
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        uint64_t dw[2];
        unsigned cerror = GMMU_SMMU_CERROR_NONE;
        gmmu_smmu_cmd c{};
        if (!mem_read(pa, dw, 2, d, false))
            cerror = GMMU_SMMU_CERROR_ABT;
        else
            cerror = gmmu_smmu_cmd_decode(dw, &c);
        if (cerror != GMMU_SMMU_CERROR_NONE) {
            // Stop on the bad command (CONS points at it) until software
            // acknowledges GERROR.CMDQ_ERR; nothing queued after it is lost.
            command_errors++;
            gmmu_smmu_cmdq_error(&r, cerror);
            update_irq();
            continue;
        }
        execute(c, d);
        d += cycles_time(p.clock, p.cmd_cycles);
        sc_core::wait(d);
        commands++;
        r.cmdq_cons = gmmu_smmu_q_next(r.cmdq_cons, n) & ~(0x7fu << GMMU_SMMU_CMDQ_CONS_ERR_SHIFT);
    }
}

// ---- statistics -------------------------------------------------------------

const stat_table<smmu> &smmu::stats_table()
{
    using json = nlohmann::json;
    using T = smmu;
    static const stat_table<T> table(
        45, "SMMU front end (`smmu`)",
        "An SMMU-style front end (docs/smmu.md), in platforms that instantiate one.",
        {
            {"transactions", "device transactions received on `tsock`", [](const T &c) { return json(c.transactions); }},
            {"translated", "transactions translated and forwarded without fault", [](const T &c) { return json(c.translated); }},
            {"bypassed", "transactions sent untranslated (STE Config = bypass)", [](const T &c) { return json(c.bypassed); }},
            {"aborted", "transactions terminated without an event (SMMUEN = 0 or STE Config = abort)", [](const T &c) { return json(c.aborted); }},
            {"faults", "transactions that raised an event (configuration or translation fault)", [](const T &c) { return json(c.faults); }},
            {"events", "events raised (queued or not)", [](const T &c) { return json(c.events); }},
            {"events_lost.overflow", "events not queued: event queue full", [](const T &c) { return json(c.events_lost_overflow); }},
            {"events_lost.disabled", "events not queued: event queue disabled (CR0.EVTQEN = 0)", [](const T &c) { return json(c.events_lost_disabled); }},
            {"events_lost.abort", "events not queued: the record write got an error (GERROR.EVTQ_ABT_ERR)", [](const T &c) { return json(c.events_lost_abort); }},
            {"config.hits", "stream contexts found in the configuration cache", [](const T &c) { return json(c.config_hits); }},
            {"config.fetches", "stream contexts read from the stream table (and CD table)", [](const T &c) { return json(c.config_fetches); }},
            {"commands", "commands executed", [](const T &c) { return json(c.commands); }},
            {"command_errors", "commands refused (CMDQ_CONS.ERR set, queue stopped)", [](const T &c) { return json(c.command_errors); }},
            {"invalidations", "TLB invalidations sent (TLBI_* commands)", [](const T &c) { return json(c.invalidations); }},
            {"syncs", "CMD_SYNC completed", [](const T &c) { return json(c.syncs); }},
            {"register_accesses", "register reads and writes on `reg_tsock`", [](const T &c) { return json(c.reg_accesses); }},
        });
    return table;
}

static const bool smmu_stats_declared = (smmu::stats_table(), true);

void smmu::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
