// Run gmmu-sim (GMMU_SIM_BIN, set by CMake) as a child process and capture
// its exit status and combined output, for the tests that check the program
// end to end (exit codes, messages, stats.json).
#pragma once

#include <sys/wait.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

struct SimRun {
    int status;      // exit status, or 128 + signal
    std::string out; // stdout and stderr
};

// gmmu-sim locks its --out folder for the run, and ctest runs tests in
// parallel: a run given no --out gets a fresh folder of its own instead of
// the shared default "out" of the working directory.
// (removed after the run: a test that reads outputs names its own --out).
inline std::string sim_run_default_out(const std::string &args)
{
    if (args.find("--out") != std::string::npos)
        return "";
    const char *t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/gmmu_sim_out_XXXXXX";
    if (!mkdtemp(tmpl.data()))
        return "";
    return tmpl;
}

// `args` follow the program name; `prefix` goes between them (e.g. a fixed
// "--config X --workload Y").
// `wrapper` goes before the program (e.g. "timeout 60 ").
inline SimRun run_gmmu_sim(const std::string &args, const std::string &prefix = "",
                           const std::string &wrapper = "")
{
    std::string cmd = wrapper + std::string(GMMU_SIM_BIN) + " " + prefix + (prefix.empty() ? "" : " ") +
                      args;
    const std::string own = sim_run_default_out(prefix + " " + args);
    if (!own.empty())
        cmd += " --out '" + own + "'";
    cmd += " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return {-1, "popen failed: " + cmd};
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    int st = pclose(p);
    if (!own.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(own, ec);
    }
    return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out};
}
