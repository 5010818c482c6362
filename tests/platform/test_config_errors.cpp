// Config and kernel-file inputs that used to be misread or badly reported
// (issue 41, items 9-13): dotted keys in files, deep nesting, integers too
// large for 64 bits, signed SM ids, allocation failures, keys that name
// nothing, kernel-file directives, and settings that have no effect.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gmmu/gpu/config.h"
#include "gmmu/gpu/platform.h"

#include "sim_run.h"

namespace {

std::string tmp(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / "gmmu_config_errors";
    std::filesystem::create_directories(d);
    return (d / name).string();
}

std::string write(const std::string &name, const std::string &text)
{
    std::string p = tmp(name);
    std::ofstream(p, std::ios::binary) << text;
    return p;
}

// The message of the config_error that from_text throws, or "" if it loads.
std::string error_of(const std::string &text, const std::vector<std::string> &sets = {})
{
    try {
        gmmu::config::from_text(text, "f.json", sets);
    } catch (const gmmu::config_error &e) {
        return e.what();
    }
    return "";
}

#define EXPECT_HAS(hay, needle) EXPECT_NE(std::string(hay).find(needle), std::string::npos) << (hay)

#if defined(__SANITIZE_ADDRESS__)
constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool sanitized = true;
#else
constexpr bool sanitized = false;
#endif
#else
constexpr bool sanitized = false;
#endif

// gmmu-sim run directly (no shell), with an address-space limit (0: none),
// and its peak resident memory.
struct LimitedRun {
    int status;
    std::string out;
    long max_rss_kib;
};

LimitedRun run_limited(const std::vector<std::string> &args, rlim_t as_bytes)
{
    int fd[2];
    if (pipe(fd) != 0)
        return {-1, "pipe failed", 0};
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        if (as_bytes) {
            rlimit rl{as_bytes, as_bytes};
            setrlimit(RLIMIT_AS, &rl);
        }
        std::vector<char *> argv;
        argv.push_back(const_cast<char *>(GMMU_SIM_BIN));
        for (auto &a : args)
            argv.push_back(const_cast<char *>(a.c_str()));
        argv.push_back(nullptr);
        execv(GMMU_SIM_BIN, argv.data());
        _exit(127);
    }
    close(fd[1]);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fd[0], buf, sizeof buf)) > 0)
        out.append(buf, size_t(n));
    close(fd[0]);
    int st = 0;
    rusage ru{};
    wait4(pid, &st, 0, &ru);
    return {WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st), out, ru.ru_maxrss};
}

const std::string small = "--set sm.count=2 --set sm.warps=4 --set workload.region_bytes=1048576 "
                          "--set workload.accesses=8 --quiet";

// ---- item 9: one language for files and --set ----------------------------------

TEST(ConfigErrorsTest, DottedKeysInAFileMeanWhatTheyMeanToSet)
{
    gmmu::config c = gmmu::config::from_text(
        R"({"sm.count": 2, "ptw": {"line_cache.lines": 8}, "l1_tlb.entries": 64, "sm": {"warps": 8}})",
        "f.json", {});
    EXPECT_EQ(c.i("sm.count"), 2);
    EXPECT_EQ(c.i("sm.warps"), 8);
    EXPECT_EQ(c.i("ptw.line_cache.lines"), 8);
    EXPECT_EQ(c.i("l1_tlb.entries"), 64);
    // The effective config is nested only: no dotted key is left in it.
    EXPECT_FALSE(c.tree().contains("sm.count"));
    EXPECT_FALSE(c.tree()["ptw"].contains("line_cache.lines"));
    // gmmu-sim runs with 2 SMs and records only the nested form.
    const std::string out = tmp("dotted_out");
    SimRun r = run_gmmu_sim("--workload random-sample --config " +
                            write("dotted.json", R"({"sm.count": 2, "sm.warps": 4})") +
                            " --set workload.region_bytes=1048576 --set workload.accesses=8 --quiet "
                            "--out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    std::ifstream in(out + "/config.json");
    const nlohmann::json cfg = nlohmann::json::parse(in);
    EXPECT_EQ(cfg["sm"]["count"], 2);
    EXPECT_FALSE(cfg.contains("sm.count"));
    std::ifstream sin(out + "/stats.json");
    const nlohmann::json st = nlohmann::json::parse(sin);
    EXPECT_TRUE(st["gpu"].contains("l1_tlb1"));
    EXPECT_FALSE(st["gpu"].contains("l1_tlb2"));
}

TEST(ConfigErrorsTest, AKeyGivenNestedAndDottedIsNamed)
{
    EXPECT_HAS(error_of(R"({"sm": {"count": 2}, "sm.count": 3})"),
               "f.json: config key 'sm.count' is given twice (once nested, once dotted)");
    EXPECT_HAS(error_of(R"({"ptw": {"line_cache": {"lines": 2}, "line_cache.lines": 4}})"),
               "config key 'ptw.line_cache.lines' is given twice");
    // A value where the dotted key needs a group.
    EXPECT_HAS(error_of(R"({"sm": 4, "sm.count": 3})"),
               "config key 'sm' is a group of keys (sm.*): expected an object, got number");
    // Empty parts name no key.
    EXPECT_HAS(error_of(R"({"sm..count": 3})"), "unknown config key 'sm..count'");
    EXPECT_HAS(error_of(R"({"sm.": 3})"), "unknown config key 'sm.'");
    EXPECT_HAS(error_of(R"({".sm": 3})"), "unknown config key '.sm'");
    EXPECT_HAS(error_of(R"({"sm.nope": 3})"), "unknown config key 'sm.nope'");
    // A dotted key of the wrong type is named as the nested one would be.
    EXPECT_HAS(error_of(R"({"sm.count": "two"})"), "config key 'sm.count': expected an integer");
}

// ---- item 10: deep nesting -----------------------------------------------------

TEST(ConfigErrorsTest, DeepNestingIsRefusedNamingTheDepth)
{
    std::string at64, at65;
    for (int d = 0; d < 63; d++)
        at64 += "{\"a\":";
    at64 += "{}";
    for (int d = 0; d < 63; d++)
        at64 += "}";
    // 64 levels: the depth is fine, the key is not.
    EXPECT_HAS(error_of(at64), "unknown config key 'a'");
    at65 = "\n[" + at64 + "]";
    EXPECT_HAS(error_of(at65), "f.json:2: JSON nested deeper than 64 levels");
    // Brackets inside strings are not nesting.
    EXPECT_HAS(error_of("{\"name\": \"" + std::string(200, '{') + "\"}"), "");
    EXPECT_EQ(error_of("{\"name\": \"" + std::string(200, '[') + "\\\"\"}"), "");
}

// A 1.1 MB file of nested objects (it took 23.6 GB) is refused at once, in
// little memory: gmmu-sim runs under a 4 GiB address-space limit.
TEST(ConfigErrorsTest, ADeepFileIsRefusedEarlyInLinearMemory)
{
    std::string text;
    const int depth = 220000;
    text.reserve(size_t(depth) * 6 + 8);
    for (int d = 0; d < depth; d++)
        text += "{\"a\":";
    text += "1";
    text.append(size_t(depth), '}');
    ASSERT_GT(text.size(), 1100000u);
    const std::string path = write("deep.json", text);
    LimitedRun r = run_limited({"--workload", "random-sample", "--config", path}, sanitized ? 0 : (4ull << 30));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, path + ":1: JSON nested deeper than 64 levels");
    EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << r.out; // one line
    if (!sanitized) {
        EXPECT_LT(r.max_rss_kib, 256 * 1024) << "peak RSS KiB";
    }
}

} // namespace
