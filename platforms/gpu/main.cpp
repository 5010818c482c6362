// gmmu-sim: run a GPU workload on the LT platform built from a config.
//   gmmu-sim --config NAME|PATH --workload NAME [--set key=value]... [--seed N] [--out DIR]
// Exit status: 0 success, 1 the run failed (fault, data mismatch), 2 bad input.
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <systemc>

#include <atomic>
#include <chrono>
#include <csignal>
#include <mutex>
#include <thread>

#include <pthread.h>
#include <semaphore.h>
#include <unistd.h>

#include "gmmu/components/sm_spec.h"
#include "gmmu/components/smmu.h"
#include "gmmu/components/stats.h"
#include "gmmu/components/timeline.h"
#include "gmmu/components/config.h"
#include "gmmu/gpu/outputs.h"
#include "gmmu/gpu/platform.h"
#include "gmmu/gpu/workload.h"

namespace {

// SystemC prints its banner when the simulation context starts, after this
// program's static initialisers and before sc_main, unless this is set.
const bool banner_off = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1) == 0; }();

int bad_input(const std::string &msg)
{
    std::fprintf(stderr, "gmmu-sim: error: %s\n", msg.c_str());
    return 2;
}

// ---- stopping (SIGINT, SIGTERM) ----
// The handler asks the simulation to stop at its next slice (the run then
// writes its partial stats and marks them incomplete) and wakes a watchdog
// thread. Whatever the program is doing when the watchdog wakes (set-up
// before the run, or a stop that took too long), it ends the process by
// `stop_grace` (0.45 s) after the signal, its run.json (when the outputs were set up)
// saying "interrupted": a stop request ends every run within one second.
constexpr auto stop_grace = std::chrono::milliseconds(450);
sem_t stop_sem;
std::atomic<int> stop_sig{0};
std::mutex outputs_mu;          // held while run.json or another output is written
std::string outputs_run_json;   // DIR/run.json, set before outputs_ready
std::atomic<bool> outputs_ready{false}; // the outputs exist (run.json says "running")
bool outputs_final = false;     // the final run.json is written: the watchdog stands down

void on_stop_signal(int sig)
{
    gmmu::request_stop(sig);
    int none = 0;
    stop_sig.compare_exchange_strong(none, sig);
    sem_post(&stop_sem);
}

void watchdog()
{
    while (sem_wait(&stop_sem) != 0) {
    }
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        // The lock, unless main holds it past the deadline (a write slowed by a
        // busy disk): the deadline wins; main's temporary files are removed.
        std::unique_lock<std::mutex> g(outputs_mu, std::try_to_lock);
        const bool late = std::chrono::steady_clock::now() - t0 >= stop_grace;
        if (g.owns_lock() && outputs_final)
            return; // main is ending the run itself
        if (g.owns_lock() || late) {
            // Before the outputs exist (set-up) there is nothing to stop gracefully.
            const std::string run_json = outputs_ready.load() ? outputs_run_json : std::string();
            if (run_json.empty() || late) {
                const int sig = stop_sig.load();
                const std::string why = "interrupted by signal " + std::to_string(sig) +
                                        (run_json.empty() ? " during set-up"
                                                          : " before the simulation reached a safe point");
                if (!run_json.empty()) {
                    const std::string dir = run_json.substr(0, run_json.size() - 8);
                    for (const std::string &f : gmmu::run_output_names())
                        unlink((dir + "/" + f + ".tmp." + std::to_string(getpid())).c_str());
                    gmmu::write_atomic(run_json,
                                       gmmu::run_record("interrupted", 128 + sig, why).dump(2) + "\n");
                }
                std::fprintf(stderr, "gmmu-sim: %s; %s\n", why.c_str(),
                             run_json.empty() ? "no outputs written" : "outputs are marked incomplete");
                std::fflush(stderr);
                _exit(128 + sig);
            }
        }
        if (g.owns_lock())
            g.unlock();
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

void install_stop_handlers()
{
    sem_init(&stop_sem, 0, 0);
    // The watchdog never takes the signals itself.
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    std::thread(watchdog).detach();
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

} // namespace

int sc_main(int argc, char **argv)
{
    (void)banner_off;
    install_stop_handlers(); // first: a signal from now on ends the run as a stop request
    std::string cfg_name = "default", wl_name, out_dir = "out";
    std::vector<std::string> sets;
    uint64_t seed = 1;
    std::string seed_text = "1";
    bool list_keys = false, list_stats = false, quiet = false, check = false;
    std::string trace_out, trace_window, trace_max_text = "1000000";

    CLI::App app{"gmmu-sim: GPU address translation on a SystemC/TLM-2.0 LT platform"};
    app.add_option("--config", cfg_name, "named config (platforms/configs/NAME.json) or a JSON path");
    app.add_option("--workload", wl_name, "random-sample | stream | trace | ... (--list-workloads)");
    app.add_option("--set", sets, "override a config key: key=value (repeatable)");
    app.add_option("--seed", seed_text, "seed of the workload's generators (decimal, 0..2^64-1)");
    app.add_option("--out", out_dir, "folder for stats.json and config.json");
    app.add_flag("--list-keys", list_keys, "print every config key as a Markdown table and exit");
    app.add_flag("--list-stats", list_stats,
                 "print every statistic of stats.json as Markdown tables and exit");
    app.add_flag("--quiet", quiet, "no summary on stdout");
    app.add_flag("--check", check,
                 "validate the config, --set values and workload as a run would, then exit 0 "
                 "without simulating or writing anything (or exit 2 with the error)");
    app.add_option("--trace-out", trace_out,
                   "write a timeline of the run (Chrome/Perfetto trace-event JSON) to this file");
    app.add_option("--trace-window", trace_window,
                   "with --trace-out: only spans overlapping START:END, simulated ns (END empty: to the end)");
    app.add_option("--trace-max-events", trace_max_text,
                   "with --trace-out: keep at most this many spans (default 1000000)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp &e) {
        return app.exit(e);
    } catch (const CLI::ParseError &e) {
        return bad_input(e.what());
    }
    {
        // Decimal digits only: no sign, no empty text, no wrap-around.
        errno = 0;
        char *end = nullptr;
        const unsigned long long v = std::strtoull(seed_text.c_str(), &end, 10);
        if (seed_text.empty() || seed_text.find_first_not_of("0123456789") != std::string::npos ||
            errno == ERANGE || *end != '\0')
            return bad_input("--seed '" + seed_text + "': expected a decimal integer 0..18446744073709551615");
        seed = uint64_t(v);
    }
    if (list_keys) {
        std::cout << gmmu::config::schema_markdown();
        return 0;
    }
    if (list_stats) {
        // Components the GPU platform does not instantiate declare their
        // counters too (the SMMU front end of SoC platforms).
        gmmu::smmu::stats_table();
        std::cout << gmmu::stats_markdown();
        return 0;
    }
    if (wl_name.empty())
        return bad_input("--workload is required (random-sample, stream, trace)");
    uint64_t win_lo = 0, win_hi = 0, trace_max = 0;
    {
        auto decimal = [](const std::string &t, uint64_t &v) {
            if (t.empty() || t.find_first_not_of("0123456789") != std::string::npos || t.size() > 19)
                return false;
            v = std::strtoull(t.c_str(), nullptr, 10);
            return true;
        };
        if (!decimal(trace_max_text, trace_max) || trace_max == 0)
            return bad_input("--trace-max-events '" + trace_max_text + "': expected a positive decimal integer");
        if (!trace_window.empty()) {
            const size_t colon = trace_window.find(':');
            const std::string a = trace_window.substr(0, colon);
            const std::string b = colon == std::string::npos ? "" : trace_window.substr(colon + 1);
            if (colon == std::string::npos || !decimal(a, win_lo) || (!b.empty() && !decimal(b, win_hi)) ||
                (!b.empty() && win_hi < win_lo))
                return bad_input("--trace-window '" + trace_window + "': expected START:END in ns (START <= END, END may be empty)");
        }
        if ((!trace_window.empty() || trace_max_text != "1000000") && trace_out.empty())
            return bad_input("--trace-window and --trace-max-events need --trace-out");
        if (!trace_out.empty()) {
            std::error_code ec;
            const std::filesystem::path parent =
                std::filesystem::absolute(trace_out, ec).parent_path();
            if (ec || !std::filesystem::is_directory(parent, ec) || access(parent.c_str(), W_OK) != 0)
                return bad_input("--trace-out " + trace_out + ": its folder does not exist or is not writable");
            if (std::filesystem::is_directory(trace_out, ec))
                return bad_input("--trace-out " + trace_out + ": is a folder");
        }
    }

    gmmu::config cfg;
    std::unique_ptr<gmmu::workload> wl;
    std::unique_ptr<gmmu::gpu_platform> plat;
    try {
        cfg = gmmu::config::load(cfg_name, sets);
        cfg.set("workload.kind", wl_name);
    } catch (const gmmu::config_error &e) {
        return bad_input(e.what());
    } catch (const std::exception &e) {
        return bad_input(e.what());
    }
    if (check) {
        // The config, the --set values and the workload validated and the
        // platform built exactly as a run would, then exit 0; --out untouched.
        try {
            gmmu::set_check_only(true);
            wl = gmmu::make_workload(wl_name, cfg, seed);
            sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
            plat = std::make_unique<gmmu::gpu_platform>("gpu", cfg, *wl);
        } catch (const gmmu::config_error &e) {
            return bad_input(e.what());
        } catch (const sc_core::sc_report &e) {
            return bad_input(e.get_msg());
        } catch (const std::exception &e) {
            return bad_input(e.what());
        }
        return 0;
    }

    // Outputs: checked (and the folder locked, and the previous run's
    // outputs removed) before the set-up, which can take seconds; the
    // effective config and a "running" record first, so a run stopped or
    // failed at any point is never mistaken for a complete one, and no
    // earlier run's outputs stay to look like this one's.
    if (std::string why = gmmu::prepare_out_dir(out_dir); !why.empty())
        return bad_input("--out " + out_dir + ": " + why);
    // run.json's last write ends the watchdog's watch (the run is then ending).
    auto write_or_fail = [&](const std::string &file, const std::string &text) {
        std::lock_guard<std::mutex> g(outputs_mu);
        std::string e = gmmu::write_atomic(out_dir + "/" + file, text);
        if (!e.empty())
            std::fprintf(stderr, "gmmu-sim: cannot write %s\n", e.c_str());
        if (file == "run.json" && text.find("\"running\"") == std::string::npos)
            outputs_final = true;
        return e.empty();
    };
    if (!write_or_fail("config.json", cfg.tree().dump(2) + "\n") ||
        !write_or_fail("run.json", gmmu::run_record("running", -1, "").dump(2) + "\n"))
        return 1;
    {
        std::lock_guard<std::mutex> g(outputs_mu);
        outputs_run_json = out_dir + "/run.json";
        outputs_ready.store(true);
    }
    // Bad input found by the set-up: exit 2, and run.json says so.
    auto bad_setup = [&](const std::string &msg) {
        write_or_fail("run.json", gmmu::run_record("failed", 2, msg).dump(2) + "\n");
        return bad_input(msg);
    };
    try {
        wl = gmmu::make_workload(wl_name, cfg, seed);
        sc_core::sc_report_handler::set_actions(sc_core::SC_WARNING, sc_core::SC_DO_NOTHING);
        gmmu::set_output_folder(out_dir); // relative rtl.mismatch_fst
        plat = std::make_unique<gmmu::gpu_platform>("gpu", cfg, *wl);
    } catch (const gmmu::config_error &e) {
        return bad_setup(e.what());
    } catch (const sc_core::sc_report &e) {
        return bad_setup(e.get_msg());
    } catch (const std::exception &e) {
        return bad_setup(e.what());
    }

    std::unique_ptr<gmmu::timeline> tl;
    if (!trace_out.empty()) {
        tl = std::make_unique<gmmu::timeline>(win_lo, win_hi, trace_max);
        gmmu::set_active_timeline(tl.get());
    }
    gmmu::run_result r;
    try {
        r = plat->run();
    } catch (const sc_core::sc_report &e) {
        std::fprintf(stderr, "gmmu-sim: simulation error: %s\n", e.get_msg());
        write_or_fail("run.json", gmmu::run_record("failed", 1, e.get_msg()).dump(2) + "\n");
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "gmmu-sim: simulation error: %s\n", e.what());
        write_or_fail("run.json", gmmu::run_record("failed", 1, e.what()).dump(2) + "\n");
        return 1;
    }

    nlohmann::json stats = gmmu::collect_stats();
    stats.update(gmmu::run_stats(r, seed));
    if (tl) {
        const std::string e = gmmu::write_atomic(trace_out, tl->document());
        gmmu::set_active_timeline(nullptr);
        if (!e.empty()) {
            std::fprintf(stderr, "gmmu-sim: cannot write %s\n", e.c_str());
            return 1;
        }
    }
    if (!write_or_fail("stats.json", stats.dump(2) + "\n"))
        return 1;
    if (r.interrupted_by) {
        const int code = 128 + r.interrupted_by;
        std::fprintf(stderr, "gmmu-sim: %s; outputs in %s are marked incomplete\n", r.error.c_str(),
                     out_dir.c_str());
        write_or_fail("run.json", gmmu::run_record("interrupted", code, r.error).dump(2) + "\n");
        // Now, not after the simulation's and the workload's destructors
        // (a large run takes seconds to tear down).
        std::fflush(nullptr);
        _exit(code);
    }

    if (!quiet) {
        const auto &g = stats["gpu"];
        std::printf("gmmu-sim: config %s, workload %s, seed %" PRIu64 "\n",
                    cfg.s("name").c_str(), wl_name.c_str(), seed);
        std::printf("  SMs %lld x %lld warps, page %lld B%s\n", (long long)cfg.i("sm.count"),
                    (long long)cfg.i("sm.warps"), (long long)cfg.i("page_size"),
                    cfg.b("mmu.bypass") ? ", translation bypassed" : "");
        std::printf("  warp accesses        %" PRIu64 "\n", r.warp_accesses);
        if (!cfg.b("mmu.bypass")) {
            for (int lv = 1; lv <= 3; lv++) {
                const std::string pre = "l" + std::to_string(lv) + "_tlb";
                uint64_t a = 0, h = 0, n = 0;
                for (auto &[k, v] : g.items())
                    if (k.rfind(pre, 0) == 0) {
                        a += v.value("accesses", uint64_t(0));
                        h += v.value("hits", uint64_t(0));
                        n++;
                    }
                if (n)
                    std::printf("  L%d TLB hit rate      %.2f%% (%" PRIu64 " lookups, %" PRIu64
                                " instance%s)\n",
                                lv, a ? 100.0 * double(h) / double(a) : 0.0, a, n, n > 1 ? "s" : "");
            }
            uint64_t walks = 0, reads = 0;
            for (auto &[k, v] : g.items())
                if (k.rfind("ptw", 0) == 0) {
                    walks += v.value("walks", uint64_t(0));
                    reads += v.value("pt_reads", uint64_t(0));
                }
            std::printf("  walks                %" PRIu64 "\n", walks);
            std::printf("  page-table reads     %" PRIu64 "\n", reads);
        }
        if (gmmu::sm_config_from(cfg).params.timing_only) // components/sm_spec.h
            std::printf("  data check           off (sm.timing_only: no data moved)\n");
        else
            std::printf("  data check           %" PRIu64 " lanes read back, %" PRIu64 " wrong\n",
                        r.lanes_checked, r.mismatches);
        std::printf("  simulated time       %.0f ns\n", r.sim_time_ns);
        std::printf("  wall time            %.3f s\n", r.wall_s);
        std::printf("  warp accesses/wall s %.0f\n",
                    r.wall_s > 0 ? double(r.warp_accesses) / r.wall_s : 0.0);
        std::printf("  outputs              %s/stats.json, %s/config.json\n", out_dir.c_str(),
                    out_dir.c_str());
    }
    {
        std::string werr;
        if (!wl->finish(out_dir, werr)) {
            std::fprintf(stderr, "gmmu-sim: workload %s: %s\n", wl_name.c_str(), werr.c_str());
            write_or_fail("run.json", gmmu::run_record("failed", 1, werr).dump(2) + "\n");
            return 1;
        }
    }
    if (!r.ok) {
        std::fprintf(stderr, "gmmu-sim: run failed: %s\n", r.error.c_str());
        write_or_fail("run.json", gmmu::run_record("failed", 1, r.error).dump(2) + "\n");
        return 1;
    }
    if (!write_or_fail("run.json", gmmu::run_record("completed", 0, "").dump(2) + "\n"))
        return 1;
    return 0;
}
