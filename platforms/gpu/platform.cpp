#include "gmmu/gpu/platform.h"

#include "gmmu/components/cache_spec.h"
#include "gmmu/components/ldt_spec.h"
#include "gmmu/components/memory_spec.h"
#include "gmmu/components/ptw_spec.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/gpu/driver_spec.h"
#include "gmmu/gpu/outputs.h"
#include "gmmu/gpu/platform_build.h"

#include <algorithm>
#include <chrono>
#include <csignal>

#include <tlm_utils/tlm_quantumkeeper.h>

namespace gmmu {

static const stat_table<run_summary> &run_stats_table()
{
    using json = nlohmann::json;
    using T = run_summary;
    static const stat_table<run_summary> table(
        10, "Top level", "",
        {
            {"sim_time_ns", "simulated time when the last SM finished, ns",
             [](const T &c) { return json(c.r.sim_time_ns); }},
            {"wall_s", "wall-clock seconds of the simulation (`sc_start`), excluding set-up",
             [](const T &c) { return json(c.r.wall_s); }},
            {"warp_accesses", "warp memory instructions completed, all SMs",
             [](const T &c) { return json(c.r.warp_accesses); }},
            {"warp_accesses_per_wall_s", "`warp_accesses / wall_s`",
             [](const T &c) {
                 return json(c.r.wall_s > 0 ? double(c.r.warp_accesses) / c.r.wall_s : 0.0);
             }},
            {"data_check.lanes_checked", "lane loads whose value was checked",
             [](const T &c) { return json(c.r.lanes_checked); }},
            {"data_check.mismatches", "lane loads that returned a wrong value (the run fails if > 0)",
             [](const T &c) { return json(c.r.mismatches); }},
            {"seed", "the `--seed` of the run", [](const T &c) { return json(c.seed); }},
            {"completed", "false if a signal stopped the run early (the counters are then partial)",
             [](const T &c) { return json(c.r.interrupted_by == 0); }},
        });
    return table;
}

static const bool run_stats_declared = (run_stats_table(), true);

namespace {
volatile std::sig_atomic_t stop_signal = 0;
} // namespace

void request_stop(int signal) { stop_signal = signal; }

nlohmann::json run_stats(const run_result &r, uint64_t seed)
{
    nlohmann::json j = nlohmann::json::object();
    run_stats_table().dump(run_summary{r, seed}, j);
    return j;
}

gpu_platform::gpu_platform(sc_core::sc_module_name name, const config &c, workload &wl)
    : sc_module(name), cfg(c), clock(1e6 / double(c.i("clock_mhz")), sc_core::SC_PS)
{
    mem = build_memory(c, clock); // components/memory_spec.h
    mem->pause_when(&stop_signal); // a stop request ends the current slice at once
    drv = std::make_unique<driver>("driver", *mem);
    const driver_config dc = driver_config_from(c); // gpu/driver_spec.h
    const sm_config smc = sm_config_from(c);        // components/sm_spec.h
    const unsigned nctx = dc.contexts, nsm = smc.count;
    if (smc.params.timing_only && wl.reads_loaded_values())
        throw config_error("config key 'sm.timing_only': the " + wl.name() +
                           " workload uses the values its loads return; it needs the data");
    for (unsigned k = 1; k < nctx; k++) {
        // Context k: tables from 0x01000000 + k * 64 MiB, frames from 4 GiB + k TiB.
        const std::string nm = "driver" + std::to_string(k);
        ctx_drivers.push_back(std::make_unique<driver>(nm.c_str(), *mem, 0x01000000ull + (uint64_t(k) << 26),
                                                       0x100000000ull + (uint64_t(k) << 40)));
        ctx_checkers.push_back(std::make_unique<data_checker>());
        ctx_checkers.back()->salt = uint64_t(k) * 0x9E3779B97F4A7C15ull;
    }
    const bool bypass = c.b("mmu.bypass");
    if (!bypass)
        wire_translation(c, nsm, nctx);
    for (unsigned i = 0; i < nsm; i++) {
        sm_params sp = smc.params; // components/sm_spec.h
        sp.id = i;
        sp.bypass = bypass;
        sp.clock = clock;
        sp.asid = uint16_t(i % nctx);
        if (dc.migrate)
            sp.page_in_flight = [this](uint16_t asid, uint64_t va) { return migr && migr->in_flight(asid, va); };
        const std::string nm = "sm" + std::to_string(i);
        sms.push_back(build_sm(smc.model, nm.c_str(), sp, wl, checker_of(sp.asid), *this)); // gpu/platform_build.h
        if (bypass) {
            sms.back()->socket().bind(data_target(c));
            continue;
        }
        for (size_t k = 0; k < groups[0].size(); k++)
            if (std::find(groups[0][k].begin(), groups[0][k].end(), i) != groups[0][k].end())
                sms.back()->socket().bind(l1[k]->tsock);
    }
    for (unsigned k = 0; k < nctx; k++)
        wl.setup(driver_of(k), gmmu_log2_u64(uint64_t(c.i("page_size"))));
    if (dc.migrate) {
        migrator_params mp = dc.migration;
        mp.clock = clock;
        std::vector<driver *> drivers;
        for (unsigned k = 0; k < nctx; k++)
            drivers.push_back(&driver_of(k));
        migr = std::make_unique<migrator>("migrator", mp, *mem, drivers, [this] {
            for (auto &s : sms)
                if (!s->finished() && !s->failed())
                    return true;
            return false;
        });
        migr->unit.isock.bind(l1[0]->tsock);
        for (size_t k = 1; k < l1.size(); k++)
            migr->unit.inv_isock.bind(l1[k]->tsock);
        migr->unit.mem_isock.bind(mem->tsock);
    }
}

// The translation path (mmu.bypass=false): the TLB levels, the walkers
// behind the last level, the data caches in front of the memory and the
// PICLE LDT units, each from its builder, bound level by level.
void gpu_platform::wire_translation(const config &c, unsigned nsm, unsigned nctx)
{
    ptw_builder wb(c, clock);         // components/ptw_spec.h
    probe_walker_host(wb.cfg.params, output_folder()); // components/ptw_spec.h
    wparams = wb.cfg.params;
    // TLB levels, innermost first; each instance serves a group of SMs.
    std::vector<std::string> prefixes = {"l1_tlb"};
    for (const char *p : {"l2_tlb", "l3_tlb"})
        if (c.b(std::string(p) + ".enabled"))
            prefixes.push_back(p);
    for (size_t lv = 0; lv < prefixes.size(); lv++) {
        groups.push_back(tlb_groups(c, prefixes[lv], nsm));
        auto inst = build_tlb_level(c, prefixes[lv], unsigned(lv + 1), groups[lv].size()); // components/tlb_config.h
        if (lv == 0)
            l1 = std::move(inst);
        else
            outer.push_back(std::move(inst));
    }
    // Each instance's misses go to the next level's instance that holds
    // all of its SMs; the last level's to a walker (one shared, or one
    // per instance with ptw.per_tlb).
    auto level = [&](size_t lv) -> std::vector<std::unique_ptr<tlb>> & { return lv ? outer[lv - 1] : l1; };
    std::vector<std::vector<size_t>> parents;
    for (size_t lv = 0; lv + 1 < prefixes.size(); lv++) {
        parents.push_back(tlb_parents(groups[lv], groups[lv + 1], prefixes[lv], prefixes[lv + 1]));
        for (size_t k = 0; k < groups[lv].size(); k++)
            level(lv)[k]->miss_isock.bind(level(lv + 1)[parents[lv][k]]->tsock);
    }
    for (auto &t : level(prefixes.size() - 1)) {
        if (walkers.empty() || wb.cfg.per_tlb) {
            const bool many = wb.cfg.per_tlb && level(prefixes.size() - 1).size() > 1;
            walkers.push_back(wb.build((many ? "ptw" + std::to_string(walkers.size()) : "ptw").c_str()));
            for (unsigned k = 0; k < nctx; k++)
                walkers.back()->set_root(uint16_t(k), driver_of(k).root());
        }
        t->miss_isock.bind(walkers.back()->tsock);
    }
    for (auto &t : l1)
        t->isock.bind(data_target(c));
    // The walkers' page-table reads: memory, or a data cache (ptw.via).
    for (size_t k = 0; k < walkers.size(); k++) {
        if (wb.cfg.via == "l2_cache")
            walkers[k]->pt_isock.bind(l2_cache->pte_tsock);
        else if (wb.cfg.via == "l1_cache")
            walkers[k]->pt_isock.bind(l1_caches.at(k)->pte_tsock); // walker k serves l1[k]
        else
            walkers[k]->pt_isock.bind(mem->tsock);
    }
    walker = walkers.front().get();
    // PICLE / Valkyrie: an LDT unit beside each L2 instance.
    if (c.b("picle.enabled")) {
        const unsigned page_shift = tlb_params_from(c, "l2_tlb", 2).model.page_shift;
        for (size_t k = 0; k < outer[0].size(); k++) {
            const std::string nm = outer[0].size() > 1 ? "ldt" + std::to_string(k) : "ldt";
            ldts.push_back(build_ldt(c, unsigned(l1.size()), page_shift, clock, nm.c_str())); // components/ldt_spec.h
            outer[0][k]->ldt_isock.bind(ldts.back()->tsock);
            for (auto &t : l1)
                ldts.back()->push_isock.bind(t->tsock);
        }
        for (size_t k = 0; k < l1.size(); k++)
            l1[k]->ldt_isock.bind(ldts[parents[0][k]]->tsock);
    }
}

// The data side's next target for one more L1 client: a new L1 data cache
// (l1_cache.enabled) in front of the shared L2 data cache (l2_cache.enabled)
// in front of the memory, skipping the levels that are off.
tlm::tlm_base_target_socket_b<> &gpu_platform::data_target(const config &c)
{
    tlm::tlm_base_target_socket_b<> *below = &mem->tsock;
    if (c.b("l2_cache.enabled")) {
        if (!l2_cache) {
            l2_cache = build_cache(c, "l2_cache", true, clock, "l2_cache"); // components/cache_spec.h
            l2_cache->isock.bind(mem->tsock);
        }
        below = &l2_cache->tsock;
    }
    if (!c.b("l1_cache.enabled"))
        return *below;
    const std::string nm = "l1_cache" + std::to_string(l1_caches.size());
    l1_caches.push_back(build_cache(c, "l1_cache", false, clock, nm.c_str()));
    l1_caches.back()->reports_to_warp = true;
    l1_caches.back()->isock.bind(*below);
    return l1_caches.back()->tsock;
}

run_result gpu_platform::run()
{
    run_result r;
    tlm_utils::tlm_quantumkeeper::set_global_quantum(
        sc_core::sc_time(double(cfg.i("sim.quantum_ns")), sc_core::SC_NS));
    auto t0 = std::chrono::steady_clock::now();
    // In slices of simulated time, so a stop request (SIGINT/SIGTERM) is seen
    // between two slices; a slice ends early when no event is left, so the
    // run ends at the same time, with the same results, as one sc_start().
    const sc_core::sc_time slice(100, sc_core::SC_US);
    // Before the first sc_start nothing is scheduled yet, and the time to the
    // next activity reads as the end of time: the first slice is a plain one
    // (consulting it made the first slice the whole run, so a stop request
    // was seen only when the simulation had ended).
    bool started = false;
    do {
        // A slice reaches at least the next event (starvation would end it
        // without advancing time across a longer gap).
        const sc_core::sc_time next = started ? sc_core::sc_time_to_pending_activity() : slice;
        started = true;
        sc_core::sc_start(next > slice ? next : slice, sc_core::SC_EXIT_ON_STARVATION);
    } while (!stop_signal && sc_core::sc_pending_activity());
    r.interrupted_by = int(stop_signal);
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
    std::string first_mismatch;
    for (unsigned k = 0; k <= ctx_checkers.size(); k++) {
        const data_checker &ck = checker_of(k);
        r.lanes_checked += ck.checked;
        r.mismatches += ck.mismatches;
        if (first_mismatch.empty() && ck.mismatches)
            first_mismatch = (ctx_checkers.empty() ? "" : "context " + std::to_string(k) + ": ") +
                             ck.first_mismatch;
    }
    if (r.interrupted_by) {
        r.ok = false;
        r.error = "interrupted by signal " + std::to_string(r.interrupted_by) +
                  " at simulated time " + std::to_string(uint64_t(r.sim_time_ns)) + " ns";
        return r;
    }
    if (r.mismatches) {
        r.ok = false;
        if (r.error.empty())
            r.error = "data check failed: " + std::to_string(r.mismatches) +
                      " lanes wrong; first: " + first_mismatch;
    }
    return r;
}

} // namespace gmmu
