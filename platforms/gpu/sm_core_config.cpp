// gmmu — the issue/commit SM (components/sm_core.h) in the GPU platform:
// its `sm.*` config keys (the `fault.*` keys are the fault handler's spec,
// components/fault_handler_spec.h), the configs it is built from, and
// the `sm.model=issue` factory that connects it to the platform's fault
// handler and kernel workload.
#include "gmmu/gpu/sm_core_config.h"

#include "gmmu/components/fault_handler_spec.h"
#include "gmmu/gpu/platform.h"

namespace gmmu {

static const std::vector<key_spec> &sm_core_keys()
{
    static const std::vector<key_spec> k = {
        key_string("sm.fault_scheme", "stall",
                   {"stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog"},
                   "sm.model=issue: fault scheme (docs/faults.md): stall-on-fault, warp disable "
                   "until commit / last TLB check, replay queue, operand log."),
        key_string("sm.warp_scheduler", "lrr",
                   {"lrr", "gto", "oldest", "ccws", "ta-ccws", "tcws", "tbc", "tlb-tbc"},
                   "sm.model=issue: warp scheduler (docs/warp_sched.md, docs/tbc.md): lrr = loose "
                   "round robin, gto = greedy then oldest, oldest = by age alone; ccws = gto with "
                   "memory instructions throttled by lost-locality scores (L1 victim tag arrays), "
                   "ta-ccws = ccws weighting a VTA hit that also missed the TLB by "
                   "sm.ccws.tlb_weight; tcws = gto throttled by TLB-based VTAs (sm.tcws.*); tbc = "
                   "thread block compaction (block-wide reconvergence stacks, dynamic warps, "
                   "oldest first); tlb-tbc = tbc compacting only threads whose warps share pages "
                   "(Common Page Matrix, sm.tbc.*)."),
        key_int("sm.tbc.cpm_bits", 3, 1, 8,
                "sm.warp_scheduler=tlb-tbc: bits of each Common Page Matrix counter; threads of "
                "two warps are compacted together only when the counter is at its maximum."),
        key_int("sm.tbc.cpm_history", 2, 1, 8,
                "sm.warp_scheduler=tlb-tbc: warps remembered per L1 TLB entry."),
        key_int("sm.tbc.cpm_flush_cycles", 500, 0, 1000000,
                "sm.warp_scheduler=tlb-tbc: every counter clears this often (cycles; 0 = never)."),
        key_int("sm.tcws.epw", 8, 1, 64,
                "sm.warp_scheduler=tcws: VTA entries per warp (virtual page tags, fully "
                "associative)."),
        key_int("sm.tcws.weight_d0", 1, 0, 1024,
                "sm.warp_scheduler=tcws: score weight of an L1 TLB hit at LRU depth 0 (most "
                "recent); 0 or a power of two, 0 = no score."),
        key_int("sm.tcws.weight_d1", 2, 0, 1024, "sm.warp_scheduler=tcws: the same at depth 1."),
        key_int("sm.tcws.weight_d2", 4, 0, 1024, "sm.warp_scheduler=tcws: the same at depth 2."),
        key_int("sm.tcws.weight_d3", 8, 0, 1024,
                "sm.warp_scheduler=tcws: the same at depth 3 (and deeper hits of wider sets: "
                "depths above 3 use no score)."),
        key_int("sm.ccws.vta_entries", 16, 1, 64,
                "sm.warp_scheduler=ccws|ta-ccws: victim tag array entries per warp."),
        key_int("sm.ccws.vta_ways", 8, 1, 64,
                "sm.warp_scheduler=ccws|ta-ccws: VTA associativity (divides the entries)."),
        key_int("sm.ccws.base_score", 100, 1, 1 << 20,
                "sm.warp_scheduler=ccws|ta-ccws: lost-locality score of a warp that lost nothing; "
                "the cutoff is this times the active warps."),
        key_int("sm.ccws.hit_score", 100, 1, 1 << 20,
                "sm.warp_scheduler=ccws|ta-ccws: score added by a VTA hit (times its weight)."),
        key_int("sm.ccws.decay", 1, 0, 1 << 20,
                "sm.warp_scheduler=ccws|ta-ccws: score lost per cycle down to the base."),
        key_int("sm.ccws.tlb_weight", 4, 1, 1024,
                "sm.warp_scheduler=ta-ccws: weight of a VTA hit whose access missed the L1 TLB "
                "(power of two)."),
        key_int("sm.ccws.cache_weight", 1, 1, 1024,
                "sm.warp_scheduler=ta-ccws: weight of a VTA hit whose access hit the L1 TLB "
                "(power of two)."),
        key_int("sm.oplog_bytes", 16384, 512, 1 << 22,
                "sm.model=issue, oplog: operand-log capacity, bytes (256-B entries split evenly "
                "among the resident blocks)."),
        key_int("sm.replay_queue_entries", 32, 1, 64,
                "sm.model=issue: replay-queue entries per warp."),
        key_bool("sm.block_switch", false,
                 "sm.model=issue: switch faulted blocks out (preemptible schemes only)."),
        key_int("sm.switch_threshold", 4, 0, 1 << 20,
                "sm.model=issue: switch a block out when its fault's pending-queue position "
                "exceeds this."),
        key_int("sm.max_extra_blocks", 4, 0, 64,
                "sm.model=issue: blocks an SM may own beyond its resident limit (off-chip)."),
        key_int("sm.ctx_fixed_cycles", 500, 0, 1000000,
                "sm.model=issue: fixed cycles of one context save or restore."),
        key_int("sm.ctx_bytes_per_cycle", 16, 1, 1 << 20,
                "sm.model=issue: context save/restore bandwidth, bytes per cycle."),
        key_int("sm.max_blocks", 16, 1, 64, "sm.model=issue: resident thread blocks per SM."),
        key_int("sm.regfile_bytes", 262144, 1024, 64ll << 20,
                "sm.model=issue: register file per SM, bytes."),
        key_int("sm.shared_bytes", 32768, 0, 64ll << 20,
                "sm.model=issue: shared memory per SM, bytes."),
        key_int("sm.issue_cycles", 1, 1, 32,
                "sm.model=issue: cycles the issue stage stays busy after a cycle in which it "
                "issued (32 / lanes of the pipeline: 4 for the 8-lane pipeline of "
                "pichai-asplos14)."),
        key_int("sm.ldst_queue", 2, 1, 64,
                "sm.model=issue: global memory instructions in the ld/st unit before issue "
                "stalls."),
    };
    return k;
}

static std::string key_of_sm_field(const std::string &f)
{
    if (f == "max_warps")
        return "sm.warps";
    if (f == "order" || f == "throttle" || f == "compaction")
        return "sm.warp_scheduler";
    if (f == "counter_bits")
        return "sm.tbc.cpm_bits";
    if (f == "history")
        return "sm.tbc.cpm_history";
    if (f == "pages")
        return "l1_tlb.entries";
    if (f == "depth_weight")
        return "sm.tcws.weight_d0";
    if (f == "vta_entries" || f == "vta_ways" || f == "base_score" || f == "hit_score" ||
        f == "decay" || f == "tlb_weight" || f == "cache_weight")
        return "sm.ccws." + f;
    return "sm." + f;
}

gmmu_sm_config sm_core_config(const config &c)
{
    gmmu_sm_config s;
    gmmu_sm_config_tanasic17(&s);
    if (gmmu_fault_scheme_parse(c.s("sm.fault_scheme").c_str(), &s.scheme) != GMMU_OK)
        throw config_error("config key 'sm.fault_scheme': unknown scheme '" +
                           c.s("sm.fault_scheme") + "'");
    s.max_warps = uint32_t(c.i("sm.warps"));
    s.issue_width = uint32_t(c.i("sm.issue_width"));
    s.issue_cycles = uint32_t(c.i("sm.issue_cycles"));
    s.oplog_bytes = uint32_t(c.i("sm.oplog_bytes"));
    s.replay_queue_entries = uint32_t(c.i("sm.replay_queue_entries"));
    s.block_switch = c.b("sm.block_switch");
    s.switch_threshold = uint32_t(c.i("sm.switch_threshold"));
    s.max_extra_blocks = uint32_t(c.i("sm.max_extra_blocks"));
    s.ctx_fixed_cycles = uint32_t(c.i("sm.ctx_fixed_cycles"));
    s.ctx_bytes_per_cycle = uint32_t(c.i("sm.ctx_bytes_per_cycle"));
    s.max_blocks = uint32_t(c.i("sm.max_blocks"));
    s.regfile_bytes = uint32_t(c.i("sm.regfile_bytes"));
    s.shared_bytes = uint32_t(c.i("sm.shared_bytes"));
    s.ldst_queue = uint32_t(c.i("sm.ldst_queue"));
    s.overlap_lines = c.b("sm.overlap_cache_access");
    const std::string ws = c.s("sm.warp_scheduler");
    if (gmmu_warp_scheduler_parse(ws.c_str(), &s) != GMMU_OK) // order, throttle, compaction
        throw config_error("config key 'sm.warp_scheduler': unknown warp scheduler '" + ws + "'");
    gmmu_ccws_config_default(&s.ccws, 1);
    s.ccws.vta_entries = uint32_t(c.i("sm.ccws.vta_entries"));
    s.ccws.vta_ways = uint32_t(c.i("sm.ccws.vta_ways"));
    s.ccws.base_score = uint32_t(c.i("sm.ccws.base_score"));
    s.ccws.hit_score = uint32_t(c.i("sm.ccws.hit_score"));
    s.ccws.decay = uint32_t(c.i("sm.ccws.decay"));
    s.ccws.tlb_weight = uint32_t(c.i("sm.ccws.tlb_weight"));
    s.ccws.cache_weight = uint32_t(c.i("sm.ccws.cache_weight"));
    if (s.throttle == GMMU_THROTTLE_TCWS) {
        s.ccws.vta_entries = s.ccws.vta_ways = uint32_t(c.i("sm.tcws.epw"));
        for (unsigned d = 0; d < 4; d++) {
            const std::string k = "sm.tcws.weight_d" + std::to_string(d);
            const uint32_t w = uint32_t(c.i(k));
            if (w & (w - 1))
                throw config_error("config key '" + k + "': " + std::to_string(w) +
                                   " is not 0 or a power of two");
            s.ccws.depth_weight[d] = w;
        }
    }
    s.cpm.counter_bits = uint32_t(c.i("sm.tbc.cpm_bits"));
    s.cpm.history = uint32_t(c.i("sm.tbc.cpm_history"));
    s.cpm.flush_cycles = uint32_t(c.i("sm.tbc.cpm_flush_cycles"));
    s.cpm.pages = uint32_t(c.i("l1_tlb.entries"));
    if (s.block_switch && s.scheme == GMMU_SCHEME_STALL)
        throw config_error("config key 'sm.block_switch': needs a preemptible sm.fault_scheme "
                           "(not stall)");
    gmmu_error err{};
    if (gmmu_sm_config_check(&s, &err) != GMMU_OK)
        throw config_error("config key '" + key_of_sm_field(err.field) + "': " + err.msg);
    return s;
}

// The fault handler's keys and checks are its spec's (components/fault_handler_spec.h).
gmmu_fault_handler_config fault_handler_config(const config &c) { return fault_handler_config_from(c); }

static std::unique_ptr<sm_base> make_sm_core(const char *name, const sm_params &p, workload &wl,
                                             gpu_platform &gpu)
{
    auto *ks = dynamic_cast<kernel_source *>(&wl);
    if (!ks)
        throw config_error("config key 'sm.model': the issue SM runs kernel workloads "
                           "(--workload kernel), not '" + wl.name() + "'");
    if (p.bypass && ks->demand_paging())
        throw config_error("config key 'workload.faults': demand paging needs the MMU "
                           "(mmu.bypass=false)");
    gmmu_sm_config c = sm_core_config(gpu.cfg);
    c.sm_id = p.id;
    fault_handler *fh = nullptr;
    for (auto &e : gpu.extras)
        if ((fh = dynamic_cast<fault_handler *>(e.get())))
            break;
    if (!fh) {
        fault_handler_params fp;
        fp.model = fault_handler_config(gpu.cfg);
        fp.clock = gpu.clock;
        if (ks->demand_paging() &&
            (1ull << fp.model.granularity_shift) < uint64_t(gpu.cfg.i("page_size")))
            throw config_error("config key 'fault.granularity_bytes': smaller than page_size");
        auto u = std::make_unique<fault_handler>("fault_handler", fp, ks->os_pager());
        fh = u.get();
        gpu.extras.push_back(std::move(u));
    }
    std::unique_ptr<sm_core> s;
    try {
        s = std::make_unique<sm_core>(name, p, c, *ks, gpu.checker);
    } catch (const sm_core::model_error &e) {
        throw config_error("config key '" + key_of_sm_field(e.field) + "': " +
                           std::string(e.what()).substr(e.field.size() + 2));
    }
    s->fault_isock.bind(fh->tsock);
    // The last SM to finish checks the final memory against the reference.
    s->on_finish = [&gpu, ks] {
        bool all = true, any_failed = false;
        for (auto &m : gpu.sms) {
            all = all && m->finished();
            any_failed = any_failed || m->failed();
        }
        if (all && !any_failed)
            ks->verify_memory(gpu.checker);
    };
    return s;
}

[[maybe_unused]] static const bool sm_core_registered =
    register_config_keys(sm_core_keys()) && register_config_keys(fault_handler_config_keys()) &&
    register_sm_model("issue", make_sm_core);


} // namespace gmmu
