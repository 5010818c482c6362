#include "gmmu/components/sm_core.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

extern "C" {
#include "gmmu/cache.h"
}

namespace gmmu {

kernel_source::~kernel_source() = default;

sc_core::sc_event &kernel_source::launch_event()
{
    static sc_core::sc_event never("kernel_source_one_launch"); // one launch: nothing to wait for
    return never;
}

sm_core::model_error::model_error(const std::string &f, const std::string &msg)
    : std::runtime_error(f + ": " + msg), field(f)
{
}

sm_core::sm_core(sc_core::sc_module_name name, const sm_params &params, const gmmu_sm_config &cfg,
                 kernel_source &k, data_checker &chk)
    : sm_base(name), isock("isock"), fault_isock("fault_isock"), p(params), ks(k), checker(chk)
{
    gmmu_sm_env env{};
    env.translate = &sm_core::c_translate;
    env.read64 = &sm_core::c_read;
    env.write64 = &sm_core::c_write;
    env.next_block = &sm_core::c_next;
    env.block_done = &sm_core::c_done;
    if (cfg.access_shape)
        env.shape = &sm_core::c_shape;
    env.ctx = this;
    gmmu_error err{};
    if (gmmu_sm_create(&cfg, &env, &sm, &err) != GMMU_OK)
        throw model_error(err.field, err.msg);
    // Launch at cycle 0 now: occupancy and log partitions are checked at
    // elaboration, and the first wave of blocks is handed out in SM order.
    if (gmmu_sm_launch(sm, &ks.kernel(), 0, &err) != GMMU_OK) {
        gmmu_sm_destroy(sm);
        throw model_error(err.field, err.msg);
    }
    gp.set_extension(&ext);
    if (gmmu_sm_needs_sideband(&cfg)) // CCWS/TCWS/TLB-aware TBC: ask the TLB and L1 for it
        gp.set_extension(&sb);
    gp.set_data_ptr(nullptr);
    gp.set_data_length(0);
    gp.set_streaming_width(0);
    fgp.set_command(tlm::TLM_IGNORE_COMMAND);
    fgp.set_data_ptr(nullptr);
    fgp.set_data_length(0);
    fgp.set_extension(&fext);
    ext.sm = p.id;
    ext.asid = p.asid;
    ext.lane_bytes = 8;
    ext.nlanes = warp_ext::lanes;
    ext.timing_only = true;
    isock.register_invalidate_direct_mem_ptr(this, &sm_core::invalidate_dmi);
    SC_THREAD(run);
}

sm_core::~sm_core()
{
    gp.clear_extension(&ext);
    if (gp.get_extension<sched_sideband_ext>())
        gp.clear_extension(&sb);
    fgp.clear_extension(&fext);
    gmmu_sm_destroy(sm);
}

void sm_core::fail(const std::string &msg)
{
    if (error.empty())
        error = std::string(name()) + ": " + msg;
}

void sm_core::run()
{
    qk.reset();
    for (;;) {
        while (!gmmu_sm_done(sm) && error.empty()) {
            const uint64_t t = gmmu_sm_next_cycle(sm);
            if (t == UINT64_MAX) {
                fail("the SM model has nothing to do but is not done");
                break;
            }
            const sc_core::sc_time target = p.clock * double(t);
            if (target > sc_core::sc_time_stamp() + qk.get_local_time()) {
                qk.set(target - sc_core::sc_time_stamp());
                if (qk.need_sync())
                    qk.sync();
            }
            gmmu_status st = gmmu_sm_step(sm, t);
            if (st != GMMU_OK && error.empty()) {
                const std::string why = gmmu_sm_failure(sm);
                fail(std::string("SM model step at cycle ") + std::to_string(t) + ": " +
                     (why.empty() ? std::string(gmmu_status_str(st)) : why));
            }
        }
        const sc_core::sc_time end = p.clock * double(sm->st.end_cycle);
        if (end > sc_core::sc_time_stamp() + qk.get_local_time())
            qk.set(end - sc_core::sc_time_stamp());
        qk.sync();
        // A kernel boundary: every SM finishes the launch before the next
        // one starts, at the time the last one finished.
        const unsigned was = ks.launch();
        ks.sm_finished_launch(p.id, !error.empty());
        while (!ks.program_over() && ks.launch() == was)
            wait(ks.launch_event());
        if (ks.program_over() || !error.empty())
            break;
        uint64_t now = cycles(sc_core::sc_time_stamp());
        if (now < sm->st.end_cycle)
            now = sm->st.end_cycle;
        gmmu_error err{};
        if (gmmu_sm_launch_next(sm, &ks.kernel(), now, &err) != GMMU_OK) {
            fail(std::string("launch ") + std::to_string(ks.launch()) + ": " + err.field + ": " + err.msg);
            ks.sm_finished_launch(p.id, true);
            break;
        }
    }
    done = true;
    if (on_finish)
        on_finish();
}

gmmu_status sm_core::translate(const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs)
{
    const sc_core::sc_time base = sc_core::sc_time_stamp();
    sc_core::sc_time t_req = p.clock * double(rq->now);
    if (t_req < base)
        t_req = base;
    const sc_core::sc_time off = t_req - base;
    requests++;
    for (int attempt = 0; attempt < 4; attempt++) {
        ext.warp = rq->warp;
        ext.block = rq->block_id;
        ext.active = rq->lane_mask ? rq->lane_mask : 1u;
        ext.send = attempt == 0 ? rq->send : 0; // a re-sent piece is a warp access of its own
        for (unsigned l = 0; l < warp_ext::lanes; l++) {
            ext.va[l] = rq->va + 8 * (l % (GMMU_SM_LINE_BYTES / 8)); // inside the line
            if (p.bypass)
                ext.pa[l] = ext.va[l]; // the no-MMU twin: PA = VA
        }
        ext.translated = false;
        ext.fault_mask = 0;
        ext.fault = GMMU_FAULT_NONE;
        ext.data_delay = sc_core::SC_ZERO_TIME;
        sb.clear(); // attached or not: clearing costs less than asking
        gp.set_command(rq->write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp.set_address(rq->va);
        gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time d = off;
        isock->b_transport(gp, d);
        const uint64_t total = d > off ? cycles(d - off) : 0;
        if (gp.get_response_status() == tlm::TLM_OK_RESPONSE) {
            // The memory reports what the data access added (latency and
            // bandwidth queueing); the rest is translation.
            uint64_t data = cycles(ext.data_delay);
            if (data > total)
                data = total;
            rs->fault = false;
            rs->tlb_cycles = uint32_t(total - data);
            rs->data_cycles = uint32_t(data);
            for (unsigned l = 0; l < warp_ext::lanes; l++)
                if (ext.active >> l & 1u) {
                    rs->l1_addr = ext.pa[l];
                    break;
                }
            rs->tlb_miss = sb.tlb_miss; // all 0 when not attached (sb.clear above)
            rs->l1_miss = sb.l1_miss;
            rs->l1_victim = sb.l1_victim && sb.l1_victim_owner != GMMU_CACHE_NO_OWNER;
            rs->l1_victim_addr = sb.l1_victim_addr;
            rs->l1_victim_block = sb.l1_victim_owner >> 6;
            rs->l1_victim_warp = sb.l1_victim_owner & 63u;
            rs->tlb_hit_depth = sb.tlb_hit_depth;
            rs->tlb_victim = sb.tlb_victim;
            rs->tlb_victim_va = sb.tlb_victim_va;
            rs->tlb_victim_block = sb.tlb_victim_owner >> 6;
            rs->tlb_victim_warp = sb.tlb_victim_owner & 63u;
            tlb_cycles_sum += total - data;
            data_cycles_sum += data;
            return GMMU_OK;
        }
        if (gp.get_response_status() != tlm::TLM_ADDRESS_ERROR_RESPONSE || !ext.fault_mask ||
            ext.fault != GMMU_FAULT_NOT_PRESENT) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "block %u warp %u: %s at VA 0x%" PRIx64, rq->block_id,
                          rq->warp, ext.fault_mask ? gmmu_fault_str(ext.fault) : "access failed",
                          ext.fault_mask ? ext.fault_va : rq->va);
            fail(buf);
            return GMMU_EFAULT;
        }
        // Not present: report it to the fault handler at the time the walk found it.
        fault_reports++;
        fext.va = ext.fault_va;
        fext.asid = p.asid;
        fext.sm = p.id;
        fgp.set_address(ext.fault_va);
        fgp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        sc_core::sc_time fd = d;
        fault_isock->b_transport(fgp, fd);
        if (fgp.get_response_status() != tlm::TLM_OK_RESPONSE) {
            char buf[160];
            std::snprintf(buf, sizeof buf,
                          "block %u warp %u: not-present fault at VA 0x%" PRIx64
                          " that the fault handler cannot resolve (%s)",
                          rq->block_id, rq->warp, ext.fault_va,
                          fgp.get_response_string().c_str());
            fail(buf);
            return GMMU_EFAULT;
        }
        if (fext.resolved) {
            lazy_retries++;
            continue; // present by now (LT skew): translate again
        }
        rs->fault = true;
        rs->tlb_cycles = uint32_t(total);
        rs->data_cycles = 0;
        rs->fault_ready = fext.ready_cycle;
        rs->fault_queue_pos = fext.queue_pos;
        return GMMU_OK;
    }
    fail("a resolved fault keeps faulting");
    return GMMU_EFAULT;
}

void sm_core::invalidate_dmi(sc_dt::uint64, sc_dt::uint64)
{
    for (auto &e : dmi)
        e = dmi_entry{};
}

uint8_t *sm_core::host_ptr(uint64_t va, bool write)
{
    const uint64_t vpn = va >> 12;
    dmi_entry &e = dmi[vpn % dmi.size()];
    if (e.vpn == vpn && (!write || e.writable))
        return e.ptr + (va & 0xFFF);
    dmi_misses++;
    tlm::tlm_generic_payload g;
    g.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    g.set_address(va);
    tlm::tlm_dmi d;
    if (!isock->get_direct_mem_ptr(g, d))
        return nullptr;
    const uint64_t lo = va & ~0xFFFull, hi = va | 0xFFFull;
    if (d.get_start_address() > lo || d.get_end_address() < hi || (write && !d.is_write_allowed()))
        return nullptr;
    e.vpn = vpn;
    e.ptr = d.get_dmi_ptr() + (lo - d.get_start_address());
    e.writable = d.is_write_allowed();
    return e.ptr + (va & 0xFFF);
}

gmmu_status sm_core::access(uint64_t va, uint64_t *val, bool write)
{
    if (uint8_t *h = host_ptr(va, write)) {
        if (write)
            std::memcpy(h, val, 8);
        else
            std::memcpy(val, h, 8);
        return GMMU_OK;
    }
    // No DMI: debug transport through the L1 TLB.
    dbg_accesses++;
    tlm::tlm_generic_payload g;
    g.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    g.set_address(va);
    g.set_data_ptr(reinterpret_cast<unsigned char *>(val));
    g.set_data_length(8);
    g.set_streaming_width(8);
    if (isock->transport_dbg(g) != 8) {
        char buf[120];
        std::snprintf(buf, sizeof buf, "functional %s at VA 0x%" PRIx64 " after its TLB check failed",
                      write ? "write" : "read", va);
        fail(buf);
        return GMMU_EMEM;
    }
    return GMMU_OK;
}

gmmu_status sm_core::c_translate(void *ctx, const gmmu_sm_mem_req *rq, gmmu_sm_mem_resp *rs)
{
    return static_cast<sm_core *>(ctx)->translate(rq, rs);
}
gmmu_status sm_core::c_read(void *ctx, uint64_t va, uint64_t *v)
{
    return static_cast<sm_core *>(ctx)->access(va, v, false);
}
gmmu_status sm_core::c_write(void *ctx, uint64_t va, uint64_t v)
{
    return static_cast<sm_core *>(ctx)->access(va, &v, true);
}
gmmu_status sm_core::c_next(void *ctx, uint32_t smid, bool *got, uint32_t *id)
{
    static_cast<sm_core *>(ctx)->ks.next_block(smid, got, id);
    return GMMU_OK;
}
void sm_core::c_shape(void *ctx, uint32_t pc, uint32_t lanes, const gmmu_sm_shape *sh)
{
    static_cast<sm_core *>(ctx)->ks.note_shape(pc, lanes, *sh);
}

gmmu_status sm_core::c_done(void *ctx, uint32_t smid, uint32_t id, const uint64_t *regs,
                            uint32_t nw, uint32_t nr)
{
    auto *self = static_cast<sm_core *>(ctx);
    self->ks.block_done(smid, id, regs, nw, nr, self->checker);
    return GMMU_OK;
}

// Per-warp-slot counters of the resident warp slots.
static nlohmann::json slot_array(const gmmu_sm &sm, const uint64_t *v)
{
    nlohmann::json a = nlohmann::json::array();
    const uint64_t n = sm.kernel ? uint64_t(sm.st.resident_blocks) * sm.kernel->warps_per_block : 0;
    for (uint64_t i = 0; i < n && i < GMMU_SM_MAX_WARP_SLOTS; i++)
        a.push_back(v[i]);
    return a;
}

const stat_table<sm_core> &sm_core::stats_table()
{
    using json = nlohmann::json;
    using T = sm_core;
    static const stat_table<sm_core> table(
        55, "Issue/commit SM (`gpu.smN`, `sm.model=issue`)",
        "The counters of the issue/commit SM model with the fault schemes (docs/faults_platform.md).",
        {
            {"scheme", "the fault scheme (`sm.fault_scheme`)",
             [](const T &c) { return json(gmmu_fault_scheme_name(c.sm->cfg.scheme)); }},
            {"end_cycle", "cycle the last block finished",
             [](const T &c) { return json(c.sm->st.end_cycle); }},
            {"issued", "instructions issued, replays included",
             [](const T &c) { return json(c.sm->st.issued); }},
            {"replayed", "replay issues",
             [](const T &c) { return json(c.sm->st.replayed); }},
            {"committed", "instructions committed",
             [](const T &c) { return json(c.sm->st.committed); }},
            {"mem_insns", "global memory instructions that passed their TLB checks",
             [](const T &c) { return json(c.sm->st.mem_insns); }},
            {"mem_pages", "distinct 4 KiB pages of those instructions' active lanes, summed",
             [](const T &c) { return json(c.sm->st.mem_pages); }},
            {"mem_static_warps", "static warps those instructions' active lanes belong to, summed (mem_insns without compaction)",
             [](const T &c) { return json(c.sm->st.mem_static_warps); }},
            {"mem_static_pages", "distinct pages of each static warp's share of those lanes, summed",
             [](const T &c) { return json(c.sm->st.mem_static_pages); }},
            {"page_divergence_avg", "distinct 4 KiB pages per global memory instruction (its active lanes)",
             [](const T &c) { return json(c.sm->st.mem_insns ? double(c.sm->st.mem_pages) / double(c.sm->st.mem_insns) : 0.0); }},
            {"requests", "translate calls",
             [](const T &c) { return json(c.sm->st.requests); }},
            {"faults", "faulting instructions (squashed, or stalled under the stall scheme)",
             [](const T &c) { return json(c.sm->st.faults); }},
            {"fault_retries", "stall scheme: re-sent requests",
             [](const T &c) { return json(c.sm->st.fault_retries); }},
            {"stall_wd", "warp-cycles blocked by warp disable",
             [](const T &c) { return json(c.sm->st.stall_wd); }},
            {"stall_war", "warp-cycles blocked by a pending source read (WAR)",
             [](const T &c) { return json(c.sm->st.stall_war); }},
            {"stall_oplog_full", "warp-cycles blocked by a full operand-log partition",
             [](const T &c) { return json(c.sm->st.stall_oplog_full); }},
            {"stall_rq_full", "warp-cycles blocked by a full replay queue",
             [](const T &c) { return json(c.sm->st.stall_rq_full); }},
            {"stall_pool_full", "warp-cycles blocked with no free in-flight instruction slot",
             [](const T &c) { return json(c.sm->st.stall_pool_full); }},
            {"stall_ldst_busy", "warp-cycles blocked by a full ld/st unit",
             [](const T &c) { return json(c.sm->st.stall_ldst_busy); }},
            {"stall_throttled", "warp-cycles a memory instruction was held by the CCWS throttle",
             [](const T &c) { return json(c.sm->st.stall_throttled); }},
            {"vta_hits", "CCWS: L1 misses (TCWS: L1 TLB misses) found in the warp's victim tag array (lost locality)",
             [](const T &c) { return json(c.sm->st.vta_hits); }},
            {"lines_lost", "CCWS: L1 victims (TCWS: L1 TLB victims) entered into their owner warp's victim tag array",
             [](const T &c) { return json(c.sm->st.lines_lost); }},
            {"throttle_state_bits", "hardware state of the warp throttle in bits (VTAs and scores of every warp slot; 0 without one)",
             [](const T &c) { return json(gmmu_sm_throttle_state_bits(&c.sm->cfg)); }},
            {"issued_by_warp_slot", "instructions issued per warp slot (resident block slot x warps per block + warp; with compaction the slot of the dynamic warp), an array",
             [](const T &c) { return slot_array(*c.sm, c.sm->st.issued_by_slot); }},
            {"held_by_warp_slot", "warp-cycles the scheduler held each warp slot's warp (CCWS-family throttle or a compaction synchronisation), an array",
             [](const T &c) { return slot_array(*c.sm, c.sm->st.held_by_slot); }},
            {"branches", "branch instructions issued (also counted in issued and committed)",
             [](const T &c) { return json(c.sm->st.branches); }},
            {"divergent_branches", "branches whose active lanes split the warp",
             [](const T &c) { return json(c.sm->st.divergent_branches); }},
            {"simt_peak_depth", "deepest reconvergence stack of any warp (with compaction: of any block)",
             [](const T &c) { return json(c.sm->st.simt_peak_depth); }},
            {"active_lanes", "active lanes of first issues (replays not counted)",
             [](const T &c) { return json(c.sm->st.active_lanes); }},
            {"simd_utilization", "active lanes per lane slot of first issues: active_lanes / (32 x (issued - replayed))",
             [](const T &c) { const uint64_t n = c.sm->st.issued - c.sm->st.replayed; return json(n ? double(c.sm->st.active_lanes) / (32.0 * double(n)) : 0.0); }},
            {"page_divergence_static_avg", "distinct 4 KiB pages per static warp's share of a global memory instruction's lanes (page divergence before compaction; equals page_divergence_avg without it)",
             [](const T &c) { return json(c.sm->st.mem_static_warps ? double(c.sm->st.mem_static_pages) / double(c.sm->st.mem_static_warps) : 0.0); }},
            {"page_divergence_max", "sm.access_shape: the most distinct 4 KiB pages of one global memory instruction",
             [](const T &c) { return json(c.sm->st.mem_pages_max); }, &sm_core::shape_on},
            {"page_divergence_2m_avg", "sm.access_shape: distinct 2 MiB pages per global memory instruction",
             [](const T &c) { return json(c.sm->st.mem_insns ? double(c.sm->st.mem_pages_2m) / double(c.sm->st.mem_insns) : 0.0); }, &sm_core::shape_on},
            {"page_divergence_2m_max", "sm.access_shape: the most distinct 2 MiB pages of one global memory instruction",
             [](const T &c) { return json(c.sm->st.mem_pages_2m_max); }, &sm_core::shape_on},
            {"span_avg_bytes", "sm.access_shape: address span of a global memory instruction's active lanes (highest - lowest word + 8 B), mean",
             [](const T &c) { return json(c.sm->st.mem_insns ? double(c.sm->st.mem_span_bytes) / double(c.sm->st.mem_insns) : 0.0); }, &sm_core::shape_on},
            {"span_max_bytes", "sm.access_shape: the widest such span",
             [](const T &c) { return json(c.sm->st.mem_span_max); }, &sm_core::shape_on},
            {"pages_touched", "sm.access_shape: distinct 4 KiB pages the global memory instructions touched (a private TLB misses at least once on each)",
             [](const T &c) { return json(c.sm->st.touched_4k); }, &sm_core::shape_on},
            {"pages_touched_2m", "sm.access_shape: distinct 2 MiB pages they touched",
             [](const T &c) { return json(c.sm->st.touched_2m); }, &sm_core::shape_on},
            {"compactions", "tbc/tlb-tbc: times a block's threads were regrouped into dynamic warps",
             [](const T &c) { return json(c.sm->st.compactions); }},
            {"dynamic_warps", "tbc/tlb-tbc: dynamic warps formed",
             [](const T &c) { return json(c.sm->st.dynamic_warps); }},
            {"mixed_warps", "tbc/tlb-tbc: dynamic warps holding threads of two or more static warps",
             [](const T &c) { return json(c.sm->st.mixed_warps); }},
            {"cpm_updates", "tlb-tbc: Common Page Matrix counter increments (TLB hits on pages other warps used)",
             [](const T &c) { return json(c.sm->st.cpm_updates); }},
            {"cpm_saturations", "tlb-tbc: increments that brought a counter to its maximum",
             [](const T &c) { return json(c.sm->st.cpm_saturations); }},
            {"cpm_state_bits", "tlb-tbc: Common Page Matrix state in bits (counters of every pair of the SM's warp slots plus the warp history of every L1 TLB entry; 0 otherwise)",
             [](const T &c) {
                 gmmu_cpm_config m = c.sm->cfg.cpm;
                 m.warps = c.sm->cfg.max_warps;
                 return json(c.sm->cfg.compaction == GMMU_COMPACT_TLB_TBC ? gmmu_cpm_state_bits(&m, m.pages) : 0);
             }},
            {"block_syncs", "tbc/tlb-tbc: block-wide synchronisations (conditional branches and reconvergence points)",
             [](const T &c) { return json(c.sm->st.block_syncs); }},
            {"stall_sync", "tbc/tlb-tbc: warp-cycles a dynamic warp waited at a block-wide synchronisation for the block's other warps",
             [](const T &c) { return json(c.sm->st.stall_sync); }},
            {"regroup_wait_cycles", "tbc/tlb-tbc: block-cycles from a change of the block-wide stack's top to the regrouping (the model waits for the block's in-flight instructions)",
             [](const T &c) { return json(c.sm->st.regroup_wait_cycles); }},
            {"blocks_started", "thread blocks started",
             [](const T &c) { return json(c.sm->st.blocks_started); }},
            {"blocks_done", "thread blocks finished",
             [](const T &c) { return json(c.sm->st.blocks_done); }},
            {"switch_outs", "blocks switched out while their faults resolve",
             [](const T &c) { return json(c.sm->st.switch_outs); }},
            {"restores", "switched-out blocks restored",
             [](const T &c) { return json(c.sm->st.restores); }},
            {"extra_blocks", "blocks taken on beyond the resident limit to replace a switched-out one",
             [](const T &c) { return json(c.sm->st.extra_blocks); }},
            {"peak_extra_blocks", "most blocks owned beyond the resident limit",
             [](const T &c) { return json(c.sm->st.peak_extra_blocks); }},
            {"peak_offchip", "most switched-out block contexts held off chip at once",
             [](const T &c) { return json(c.sm->st.peak_offchip); }},
            {"ctx_cycles", "summed save and restore cycles",
             [](const T &c) { return json(c.sm->st.ctx_cycles); }},
            {"resident_blocks", "occupancy of the launched kernel (resident blocks)",
             [](const T &c) { return json(c.sm->st.resident_blocks); }},
            {"oplog_partition_bytes", "bytes of one operand-log partition (0 without an operand log)",
             [](const T &c) { return json(c.sm->st.oplog_partition_bytes); }},
            {"tlm_requests", "translate calls the C model made through the TLM path",
             [](const T &c) { return json(c.requests); }},
            {"fault_reports", "not-present faults reported to the fault handler",
             [](const T &c) { return json(c.fault_reports); }},
            {"lazy_retries", "translations retried because the handler found the region present already (loosely-timed skew)",
             [](const T &c) { return json(c.lazy_retries); }},
            {"dmi_misses", "data accesses whose page was not in the SM's DMI table (asked for a DMI pointer)",
             [](const T &c) { return json(c.dmi_misses); }},
            {"debug_accesses", "data accesses made with debug transport through the L1 TLB (no DMI pointer)",
             [](const T &c) { return json(c.dbg_accesses); }},
            {"avg_tlb_cycles", "mean cycles of a translate call spent on translation (total minus data)",
             [](const T &c) { return json(c.requests ? double(c.tlb_cycles_sum) / double(c.requests) : 0.0); }},
            {"avg_data_cycles", "mean cycles of a translate call spent on the data access (latency and bandwidth queueing)",
             [](const T &c) { return json(c.requests ? double(c.data_cycles_sum) / double(c.requests) : 0.0); }},
        });
    return table;
}

static const bool sm_core_stats_declared = (sm_core::stats_table(), true);

void sm_core::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
