#include "gmmu/gpu/platform.h"

#include "gmmu/components/cache_spec.h"
#include "gmmu/components/ldt_spec.h"
#include "gmmu/components/memory_spec.h"
#include "gmmu/components/ptw_spec.h"
#include "gmmu/components/rtl_plugin.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/gpu/driver_spec.h"
#include "gmmu/gpu/outputs.h"

#include "gmmu/sm_list.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

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

static std::vector<std::pair<std::string, sm_factory>> &sm_registry()
{
    static std::vector<std::pair<std::string, sm_factory>> r;
    return r;
}

bool register_sm_model(const std::string &name, sm_factory f)
{
    sm_registry().emplace_back(name, std::move(f));
    return true;
}

std::vector<std::string> sm_model_names()
{
    std::vector<std::string> n = {"simple"};
    for (auto &r : sm_registry())
        n.push_back(r.first);
    return n;
}

std::vector<std::vector<unsigned>> tlb_groups(const config &c, const std::string &prefix,
                                              unsigned nsm)
{
    std::vector<std::vector<unsigned>> g;
    const std::string spec = c.s(prefix + ".groups");
    const std::string key = "config key '" + prefix + ".groups': ";
    if (spec.empty()) {
        unsigned k = unsigned(c.i(prefix + ".shared_by"));
        if (k == 0 || k > nsm)
            k = nsm;
        for (unsigned s0 = 0; s0 < nsm; s0 += k) {
            g.emplace_back();
            for (unsigned s = s0; s < std::min(nsm, s0 + k); s++)
                g.back().push_back(s);
        }
        return g;
    }
    std::vector<int> owner(nsm, -1);
    std::stringstream groups(spec);
    std::string grp;
    while (std::getline(groups, grp, ';')) {
        g.emplace_back();
        std::stringstream items(grp);
        std::string it;
        while (std::getline(items, it, ',')) {
            // ID or ID-ID, decimal ids (no sign: "-1" is no SM, not 2^32-1);
            // the one SM-list rule is gmmu_sm_range_parse (models/src/sm_list.c).
            uint32_t a = 0, b = 0;
            if (gmmu_sm_range_parse(it.c_str(), &a, &b) != GMMU_OK)
                throw config_error(key + "'" + it + "' is not an SM id or range");
            if (b >= nsm)
                throw config_error(key + "SM " + std::to_string(b) + " out of range 0.." +
                                   std::to_string(nsm - 1));
            for (unsigned s = a; s <= b; s++) {
                if (s >= nsm)
                    throw config_error(key + "SM " + std::to_string(s) + " out of range 0.." +
                                       std::to_string(nsm - 1));
                if (owner[s] >= 0)
                    throw config_error(key + "SM " + std::to_string(s) + " is in two groups");
                owner[s] = int(g.size() - 1);
                g.back().push_back(s);
            }
        }
        if (g.back().empty())
            throw config_error(key + "empty group");
    }
    for (unsigned s = 0; s < nsm; s++)
        if (owner[s] < 0)
            throw config_error(key + "SM " + std::to_string(s) + " is in no group");
    return g;
}

gpu_platform::gpu_platform(sc_core::sc_module_name name, const config &c, workload &wl)
    : sc_module(name), cfg(c), clock(1e6 / double(c.i("clock_mhz")), sc_core::SC_PS)
{
    const memory_config mc = memory_config_from(c); // components/memory_spec.h
    mem = std::make_unique<memory>("memory", mc.latency_cycles, clock);
    mem->set_bytes_per_cycle(mc.bytes_per_cycle);
    mem->pause_when(&stop_signal); // a stop request ends the current slice at once
    drv = std::make_unique<driver>("driver", *mem);
    const driver_config dc = driver_config_from(c); // gpu/driver_spec.h
    const sm_config smc = sm_config_from(c);        // components/sm_spec.h
    const unsigned nctx = dc.contexts;
    for (unsigned k = 1; k < nctx; k++) {
        // Context k: tables from 0x01000000 + k * 64 MiB, frames from 4 GiB + k TiB.
        const std::string nm = "driver" + std::to_string(k);
        ctx_drivers.push_back(std::make_unique<driver>(nm.c_str(), *mem, 0x01000000ull + (uint64_t(k) << 26),
                                                       0x100000000ull + (uint64_t(k) << 40)));
        ctx_checkers.push_back(std::make_unique<data_checker>());
        ctx_checkers.back()->salt = uint64_t(k) * 0x9E3779B97F4A7C15ull;
    }
    const unsigned nsm = smc.count;
    const bool bypass = c.b("mmu.bypass");

    if (!bypass) {
        // The walker's keys and their C checkers: components/ptw_spec.h.
        const ptw_config pc = ptw_config_from(c);
        ptw_params wp = pc.params;
        wp.clock = clock;
        if ((wp.pwc_rtl || wp.pwc_cosim) && !have_pwc_rtl()) {
            std::string why;
            load_rtl_plugin(&why);
            throw config_error("config key 'ptw.pwc_impl': " + why);
        }
        if (wp.sched_rtl || wp.sched_cosim) {
            // Verilator fixed the RTL's parameters at build time
            std::string why;
            if (!ws_rtl_geometry_ok(wp.sched, &why))
                throw config_error(std::string("config key 'ptw.scheduler_impl'") +
                                   (wp.sched_rtl ? "" : " (ptw.cosim=true)") + ": " + why);
        }
        if (!wp.rtl_fst.empty()) {
            // The waveform files must be writable before the run starts.
            const bool pwc_twin = wp.pwc_rtl || wp.pwc_cosim;
            const bool sched_twin = wp.sched_rtl || wp.sched_cosim;
            std::vector<std::string> files;
            if (pwc_twin)
                files.push_back(wp.rtl_fst);
            if (sched_twin)
                files.push_back(rtl_waveform_path(wp.rtl_fst, pwc_twin));
            for (const std::string &f : files) {
                const bool existed = std::filesystem::exists(f);
                std::ofstream probe(f, std::ios::app);
                if (!probe)
                    throw config_error("config key 'rtl.fst': cannot write " + f);
                probe.close();
                if (!existed)
                    std::filesystem::remove(f);
            }
        }
        {
            const std::filesystem::path f = wp.mismatch_fst;
            wp.mismatch_fst = f.is_absolute() ? f.string() : (std::filesystem::path(output_folder()) / f).string();
            std::error_code ec;
            const std::filesystem::path dir = std::filesystem::absolute(wp.mismatch_fst, ec).parent_path();
            // --out is created after the platform; any other folder must exist
            if ((wp.pwc_cosim || wp.sched_cosim) && wp.mismatch_cycles && f.is_absolute() &&
                !std::filesystem::is_directory(dir, ec))
                throw config_error("config key 'rtl.mismatch_fst': no folder " + dir.string());
            if (std::filesystem::is_directory(wp.mismatch_fst, ec))
                throw config_error("config key 'rtl.mismatch_fst': " + wp.mismatch_fst +
                                   " is a folder, expected a file name");
        }
        wparams = wp;

        // TLB levels, innermost first; each instance serves a group of SMs.
        std::vector<std::string> prefixes = {"l1_tlb"};
        if (c.b("l2_tlb.enabled"))
            prefixes.push_back("l2_tlb");
        if (c.b("l3_tlb.enabled"))
            prefixes.push_back("l3_tlb");
        for (size_t lv = 0; lv < prefixes.size(); lv++) {
            groups.push_back(tlb_groups(c, prefixes[lv], nsm));
            tlb_params tp = tlb_params_from(c, prefixes[lv], unsigned(lv + 1));
            // The simple SM sends whole warps: the TLB splits them by page. The issue
            // SM sends one line per request and overlaps in its own model.
            tp.overlap_cache_access =
                lv == 0 && c.b("sm.overlap_cache_access") && c.s("sm.model") == "simple";
            tp.track_owners = lv == 0 && c.s("sm.model") == "issue" && c.s("sm.warp_scheduler") == "tcws";
            std::vector<std::unique_ptr<tlb>> inst;
            for (size_t k = 0; k < groups[lv].size(); k++) {
                std::string nm = prefixes[lv];
                if (lv == 0 || groups[lv].size() > 1)
                    nm += std::to_string(k);
                tp.cu = unsigned(k);
                inst.push_back(std::make_unique<tlb>(nm.c_str(), tp));
            }
            if (lv == 0)
                l1 = std::move(inst);
            else
                outer.push_back(std::move(inst));
        }
        // Bind each instance's misses to the next level's instance that holds
        // all of its SMs (the walker after the last level).
        auto level_inst = [&](size_t lv) -> std::vector<std::unique_ptr<tlb>> & {
            return lv == 0 ? l1 : outer[lv - 1];
        };
        for (size_t lv = 0; lv < prefixes.size(); lv++) {
            for (size_t k = 0; k < groups[lv].size(); k++) {
                tlb &t = *level_inst(lv)[k];
                if (lv + 1 == prefixes.size()) {
                    // The walker: one shared, or one per last-level TLB instance.
                    if (walkers.empty() || c.b("ptw.per_tlb")) {
                        std::string nm = c.b("ptw.per_tlb") && groups[lv].size() > 1
                                             ? "ptw" + std::to_string(walkers.size())
                                             : "ptw";
                        walkers.push_back(std::make_unique<ptw>(nm.c_str(), wparams));
                        for (unsigned k = 0; k < nctx; k++)
                            walkers.back()->set_root(uint16_t(k), driver_of(k).root());
                    }
                    t.miss_isock.bind(walkers.back()->tsock);
                    continue;
                }
                const auto &mine = groups[lv][k];
                size_t up = groups[lv + 1].size();
                for (size_t u = 0; u < groups[lv + 1].size() && up == groups[lv + 1].size(); u++)
                    if (std::find(groups[lv + 1][u].begin(), groups[lv + 1][u].end(), mine[0]) !=
                        groups[lv + 1][u].end())
                        up = u;
                for (unsigned s : mine)
                    if (std::find(groups[lv + 1][up].begin(), groups[lv + 1][up].end(), s) ==
                        groups[lv + 1][up].end())
                        throw config_error("config key '" + prefixes[lv + 1] +
                                           ".groups': SMs sharing one " + prefixes[lv] +
                                           " instance must share one " + prefixes[lv + 1] +
                                           " instance (SM " + std::to_string(mine[0]) + " and " +
                                           std::to_string(s) + " are split)");
                t.miss_isock.bind(level_inst(lv + 1)[up]->tsock);
            }
        }
        for (auto &t : l1)
            t->isock.bind(data_target(c));
        // The walkers' page-table reads: memory, or a data cache (ptw.via).
        const std::string via = c.s("ptw.via");
        for (size_t k = 0; k < walkers.size(); k++) {
            if (via == "l2_cache")
                walkers[k]->pt_isock.bind(l2_cache->pte_tsock);
            else if (via == "l1_cache")
                walkers[k]->pt_isock.bind(l1_caches.at(k)->pte_tsock); // walker k serves l1[k]
            else
                walkers[k]->pt_isock.bind(mem->tsock);
        }
        walker = walkers.front().get();

        // PICLE / Valkyrie: an LDT unit beside each L2 instance.
        if (c.b("picle.enabled")) {
            ldt_params lp = ldt_params_from(c, unsigned(l1.size())); // components/ldt_spec.h
            lp.page_shift = tlb_params_from(c, "l2_tlb", 2).model.page_shift;
            lp.clock = clock;
            for (size_t k = 0; k < outer[0].size(); k++) {
                std::string nm = outer[0].size() > 1 ? "ldt" + std::to_string(k) : "ldt";
                ldts.push_back(std::make_unique<ldt_unit>(nm.c_str(), lp));
                outer[0][k]->ldt_isock.bind(ldts.back()->tsock);
                for (auto &t : l1)
                    ldts.back()->push_isock.bind(t->tsock);
            }
            for (size_t k = 0; k < l1.size(); k++) {
                unsigned sm0 = groups[0][k][0];
                for (size_t u = 0; u < groups[1].size(); u++)
                    if (std::find(groups[1][u].begin(), groups[1][u].end(), sm0) != groups[1][u].end())
                        l1[k]->ldt_isock.bind(ldts[u]->tsock);
            }
        }
    }
    const std::string &model = smc.model;
    for (unsigned i = 0; i < nsm; i++) {
        sm_params sp = smc.params; // components/sm_spec.h
        sp.id = i;
        sp.bypass = bypass;
        sp.clock = clock;
        sp.asid = uint16_t(i % nctx);
        if (dc.migrate)
            sp.page_in_flight = [this](uint16_t asid, uint64_t va) {
                return migr && migr->in_flight(asid, va);
            };
        const std::string nm = "sm" + std::to_string(i);
        if (model == "simple") {
            sms.push_back(std::make_unique<sm>(nm.c_str(), sp, wl, checker_of(sp.asid)));
        } else {
            sm_factory *f = nullptr;
            for (auto &r : sm_registry())
                if (r.first == model)
                    f = &r.second;
            if (!f)
                throw config_error("config key 'sm.model': unknown SM model '" + model + "'");
            sms.push_back((*f)(nm.c_str(), sp, wl, *this));
        }
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

// The data side's next target for one more L1 client: a new L1 data cache
// (l1_cache.enabled) in front of the shared L2 data cache (l2_cache.enabled)
// in front of the memory, skipping the levels that are off.
tlm::tlm_base_target_socket_b<> &gpu_platform::data_target(const config &c)
{
    tlm::tlm_base_target_socket_b<> *below = &mem->tsock;
    if (c.b("l2_cache.enabled")) {
        if (!l2_cache) {
            l2_cache = std::make_unique<data_cache>("l2_cache", cache_config_from(c, "l2_cache", true), clock);
            l2_cache->isock.bind(mem->tsock);
        }
        below = &l2_cache->tsock;
    }
    if (!c.b("l1_cache.enabled"))
        return *below;
    const std::string nm = "l1_cache" + std::to_string(l1_caches.size());
    const gmmu_cache_config l1c = cache_config_from(c, "l1_cache", false); // components/cache_spec.h
    l1_caches.push_back(std::make_unique<data_cache>(nm.c_str(), l1c, clock));
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
