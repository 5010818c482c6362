#include "gpu/platform.h"

#include <chrono>

#include <tlm_utils/tlm_quantumkeeper.h>

namespace gmmu {

static gmmu_tlb_repl repl_of(const std::string &s)
{
    if (s == "plru")
        return GMMU_TLB_REPL_PLRU;
    if (s == "fifo")
        return GMMU_TLB_REPL_FIFO;
    if (s == "random")
        return GMMU_TLB_REPL_RANDOM;
    return GMMU_TLB_REPL_LRU;
}

tlb_params tlb_params_from(const config &c, const std::string &prefix, unsigned level)
{
    tlb_params p;
    p.model.entries = uint32_t(c.i(prefix + ".entries"));
    p.model.ways = uint32_t(c.i(prefix + ".ways"));
    p.model.page_shift = gmmu_log2_u64(uint64_t(c.i("page_size")));
    p.model.repl = repl_of(c.s(prefix + ".replacement"));
    p.model.lookup_cycles = uint32_t(c.i(prefix + ".lookup_cycles"));
    p.model.seed = 0x5eed0000ull + level;
    if (c.has(prefix + ".ports"))
        p.ports = unsigned(c.i(prefix + ".ports"));
    p.level = level;
    p.clock = sc_core::sc_time(1e6 / double(c.i("clock_mhz")), sc_core::SC_PS);
    // The C model validates the geometry too; surface its verdict as a config error.
    gmmu_error err{};
    if (gmmu_tlb_config_check(&p.model, &err) != GMMU_OK)
        throw config_error("config key '" + prefix + "." + err.field + "': " + err.msg);
    return p;
}

gmmu_pwc_config pwc_config_from(const config &c)
{
    gmmu_pwc_config pc{};
    gmmu_pwc_kind kind = GMMU_PWC_NONE;
    if (gmmu_pwc_kind_parse(c.s("ptw.pwc").c_str(), &kind) != GMMU_OK)
        throw config_error("config key 'ptw.pwc': unknown page-walk cache '" + c.s("ptw.pwc") + "'");
    gmmu_error err{};
    gmmu_status st = c.i("ptw.pwc_bits") > 0
                         ? gmmu_pwc_config_for_bits(kind, uint64_t(c.i("ptw.pwc_bits")), &pc, &err)
                         : gmmu_pwc_config_default(kind, &pc);
    if (st != GMMU_OK)
        throw config_error("config key 'ptw.pwc_bits': " + std::string(err.msg[0] ? err.msg : "no geometry fits"));
    if (gmmu_pwc_config_validate(&pc, &err) != GMMU_OK)
        throw config_error("config key 'ptw.pwc': " + std::string(err.field) + ": " + err.msg);
    return pc;
}

gpu_platform::gpu_platform(sc_core::sc_module_name name, const config &c, workload &wl)
    : sc_module(name), cfg(c), clock(1e6 / double(c.i("clock_mhz")), sc_core::SC_PS)
{
    mem = std::make_unique<memory>("memory", unsigned(c.i("memory.latency_cycles")), clock);
    drv = std::make_unique<driver>("driver", *mem);
    const unsigned nsm = unsigned(c.i("sm.count"));
    const bool bypass = c.b("mmu.bypass");

    if (!bypass) {
        ptw_params wp;
        wp.walkers = unsigned(c.i("ptw.walkers"));
        wp.fixed_walk_cycles = unsigned(c.i("ptw.fixed_walk_latency"));
        wp.set_accessed_dirty = c.b("ptw.set_accessed_dirty");
        wp.clock = clock;
        wp.pwc = pwc_config_from(c);
        wp.line_cache = c.i("ptw.line_cache.lines") > 0;
        if (wp.line_cache) {
            gmmu_line_cache_config_default(&wp.lc);
            wp.lc.lines = uint32_t(c.i("ptw.line_cache.lines"));
            wp.lc.ways = uint32_t(c.i("ptw.line_cache.ways"));
            wp.lc.hit_cycles = uint32_t(c.i("ptw.line_cache.hit_cycles"));
            wp.lc.miss_cycles = uint32_t(c.i("ptw.line_cache.miss_cycles"));
            gmmu_error err{};
            if (gmmu_line_cache_config_check(&wp.lc, &err) != GMMU_OK)
                throw config_error("config key 'ptw.line_cache." + std::string(err.field) +
                                   "': " + err.msg);
        }
        gmmu_ws_config_default(&wp.sched);
        const std::string sched = c.s("ptw.scheduler");
        wp.sched.variant = sched == "tree" ? GMMU_WS_TREE
                           : sched == "pairwise" ? GMMU_WS_PAIRWISE : GMMU_WS_SERIAL;
        wp.sched.mshrs = uint32_t(c.i("ptw.mshrs"));
        wp.sched.scan_pass_cycles = uint32_t(c.i("ptw.scan_pass_cycles"));
        if (wp.sched.variant != GMMU_WS_SERIAL) {
            gmmu_error err{};
            if (gmmu_ws_config_check(&wp.sched, &err) != GMMU_OK)
                throw config_error("config key 'ptw." + std::string(err.field) + "': " + err.msg);
        }
        walker = std::make_unique<ptw>("ptw", wp);
        walker->pt_isock.bind(mem->tsock);
        walker->set_root(0, drv->root());
        if (c.b("l2_tlb.enabled")) {
            l2 = std::make_unique<tlb>("l2_tlb", tlb_params_from(c, "l2_tlb", 2));
            l2->miss_isock.bind(walker->tsock);
        }
    }
    for (unsigned i = 0; i < nsm; i++) {
        sm_params sp;
        sp.id = i;
        sp.warps = unsigned(c.i("sm.warps"));
        sp.issue_width = unsigned(c.i("sm.issue_width"));
        sp.bypass = bypass;
        sp.clock = clock;
        sms.push_back(std::make_unique<sm>(("sm" + std::to_string(i)).c_str(), sp, wl, checker));
        if (bypass) {
            sms.back()->isock.bind(mem->tsock);
            continue;
        }
        l1.push_back(std::make_unique<tlb>(("l1_tlb" + std::to_string(i)).c_str(),
                                           tlb_params_from(c, "l1_tlb", 1)));
        sms.back()->isock.bind(l1.back()->tsock);
        l1.back()->isock.bind(mem->tsock);
        if (l2)
            l1.back()->miss_isock.bind(l2->tsock);
        else
            l1.back()->miss_isock.bind(walker->tsock);
    }
    wl.setup(*drv, gmmu_log2_u64(uint64_t(c.i("page_size"))));
}

run_result gpu_platform::run()
{
    run_result r;
    tlm_utils::tlm_quantumkeeper::set_global_quantum(
        sc_core::sc_time(double(cfg.i("sim.quantum_ns")), sc_core::SC_NS));
    auto t0 = std::chrono::steady_clock::now();
    sc_core::sc_start();
    auto t1 = std::chrono::steady_clock::now();
    r.wall_s = std::chrono::duration<double>(t1 - t0).count();
    r.sim_time_ns = sc_core::sc_time_stamp().to_seconds() * 1e9;
    r.ok = true;
    for (auto &s : sms) {
        r.warp_accesses += s->accesses();
        if (s->failed() && r.error.empty()) {
            r.error = s->error_message();
            r.ok = false;
        } else if (!s->finished() && r.error.empty()) {
            r.error = std::string(s->name()) + " did not finish";
            r.ok = false;
        }
    }
    r.lanes_checked = checker.checked;
    r.mismatches = checker.mismatches;
    if (checker.mismatches) {
        r.ok = false;
        if (r.error.empty())
            r.error = "data check failed: " + std::to_string(checker.mismatches) +
                      " lanes wrong; first: " + checker.first_mismatch;
    }
    return r;
}

} // namespace gmmu
