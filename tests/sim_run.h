// Run gmmu-sim (GMMU_SIM_BIN, set by CMake) as a child process and capture
// its exit status and combined output, for the tests that check the program
// end to end (exit codes, messages, stats.json).
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

struct SimRun {
    int status;      // exit status, or 128 + signal
    std::string out; // stdout and stderr
};

// `args` follow the program name; `prefix` goes between them (e.g. a fixed
// "--config X --workload Y").
// `wrapper` goes before the program (e.g. "timeout 60 ").
inline SimRun run_gmmu_sim(const std::string &args, const std::string &prefix = "",
                           const std::string &wrapper = "")
{
    std::string cmd = wrapper + std::string(GMMU_SIM_BIN) + " " + prefix + (prefix.empty() ? "" : " ") +
                      args + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    if (!p)
        return {-1, "popen failed: " + cmd};
    std::string out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        out.append(buf, n);
    int st = pclose(p);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out};
}
