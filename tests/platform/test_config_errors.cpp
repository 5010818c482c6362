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

#include "gmmu/components/config.h"
#include "gmmu/gpu/platform.h"
#include "gmmu/gpu/workload.h"

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

// A folder of its own for each run: gmmu-sim locks its --out folder, and
// ctest runs these tests in parallel (the default "out" would be shared).
std::string own_out()
{
    static int n = 0;
    const auto *t = ::testing::UnitTest::GetInstance()->current_test_info();
    return tmp(std::string("out_") + (t ? t->name() : "x") + "_" + std::to_string(n++));
}

SimRun run_own(const std::string &args)
{
    return run_gmmu_sim(args + " --out " + own_out());
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
    const std::string out_dir = own_out();
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
        argv.push_back(const_cast<char *>("--out"));
        argv.push_back(const_cast<char *>(out_dir.c_str()));
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

// ---- item 11: messages that name the real problem ------------------------------

TEST(ConfigErrorsTest, IntegersTooLargeFor64BitsAreOutOfRangeAsGiven)
{
    // --set: out of range, not "expected a decimal integer".
    EXPECT_HAS(error_of("{}", {"sm.count=99999999999999999999"}),
               "config key 'sm.count': 99999999999999999999 out of range 1..1024");
    EXPECT_HAS(error_of("{}", {"sm.count=-99999999999999999999"}),
               "config key 'sm.count': -99999999999999999999 out of range 1..1024");
    EXPECT_HAS(error_of("{}", {"sm.count=0x10000000000000000"}),
               "config key 'sm.count': 0x10000000000000000 out of range");
    EXPECT_HAS(error_of("{}", {"sm.count=12abc"}), "expected a decimal integer (or 0x hex), got '12abc'");
    // JSON: 2^64-1 is named as 2^64-1, never 2^63-1; larger whole numbers
    // (kept as doubles by the parser) are out of range too.
    const std::string big = error_of(R"({"sm": {"count": 18446744073709551615}})");
    EXPECT_HAS(big, "config key 'sm.count': 18446744073709551615 out of range 1..1024");
    EXPECT_EQ(big.find("9223372036854775807"), std::string::npos) << big;
    EXPECT_HAS(error_of(R"({"sm": {"count": 9223372036854775808}})"), "9223372036854775808 out of range");
    EXPECT_HAS(error_of(R"({"sm": {"count": 100000000000000000000}})"), "out of range 1..1024");
    EXPECT_HAS(error_of(R"({"sm": {"count": 2.5}})"), "expected an integer, got 2.5");
}

TEST(ConfigErrorsTest, NegativeSmIdsInGroupsAreNotHugeOnes)
{
    gmmu::config c = gmmu::config::defaults();
    for (const char *bad : {"-1", "0--1", "0-1;2-3;-1", "+1", "1 2", "0x1", "99999999999999999999"}) {
        c.set("l2_tlb.groups", bad);
        try {
            gmmu::tlb_groups(c, "l2_tlb", 4);
            ADD_FAILURE() << bad << " accepted";
        } catch (const gmmu::config_error &e) {
            const std::string m = e.what();
            EXPECT_HAS(m, "config key 'l2_tlb.groups': '");
            EXPECT_HAS(m, "' is not an SM id or range");
            EXPECT_EQ(m.find("4294967295"), std::string::npos) << m;
        }
    }
    c.set("l2_tlb.groups", "0-1; 2 ,3");
    EXPECT_EQ(gmmu::tlb_groups(c, "l2_tlb", 4).size(), 2u);
    c.set("l2_tlb.groups", "0-999999999");
    try {
        gmmu::tlb_groups(c, "l2_tlb", 4);
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_HAS(std::string(e.what()), "config key 'l2_tlb.groups': SM 999999999 out of range 0..3");
    }
    SimRun r = run_own("--workload random-sample " + small + " --set l2_tlb.groups=-1");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "config key 'l2_tlb.groups': '-1' is not an SM id or range");
}

// Region sizes that the driver refused as "cannot map VA ... not canonical",
// naming no key.
TEST(ConfigErrorsTest, ProbeAndShareRegionsTooLargeNameTheirKey)
{
    SimRun r = run_own("--workload tlb-probe --quiet --set workload.probe_distance_max=35184372088832");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "config key 'workload.probe_distance_max': tlb-probe maps 35184372088832 bytes");
    EXPECT_EQ(r.out.find("driver:"), std::string::npos) << r.out;
    r = run_own("--workload tlb-share --quiet --set workload.share_levels=16:4096,100000000000:4096");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "config key 'workload.share_levels': '100000000000:4096' maps 2 x ENTRIES x PAGE_BYTES");
    EXPECT_EQ(r.out.find("driver:"), std::string::npos) << r.out;
    r = run_own("--workload tlb-share --quiet --set workload.share_levels=9223372036854775807:4096");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "config key 'workload.share_levels': '9223372036854775807:4096' maps");
}

// A TLB the machine cannot allocate: the error says so (it was "gpu.l1_tlb0: : ").
TEST(ConfigErrorsTest, ATlbAllocationFailureSaysWhatFailed)
{
    if (sanitized)
        GTEST_SKIP() << "an address-space limit does not work under ASan";
    LimitedRun r = run_limited({"--workload", "random-sample", "--quiet", "--set", "sm.count=1",
                                "--set", "l1_tlb.entries=16777216", "--set", "l1_tlb.ways=1",
                                "--set", "workload.accesses=1"},
                               1ull << 30);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "gpu.l1_tlb0: out of memory allocating a TLB of 16777216 entries");
    EXPECT_EQ(r.out.find(": : "), std::string::npos) << r.out;
}

// ---- item 12: kernel files -----------------------------------------------------

TEST(ConfigErrorsTest, KernelFileDirectivesAreRefusedAtTheirLine)
{
    const std::string body = "region input 65536\ncode\n ld r5, r0, @0\n";
    struct Case {
        std::string text, want;
    } cases[] = {
        {"kernel a\nregs 0\n" + body, ":2: 'regs' needs one number 1..1048576"},
        {"kernel a\nwarps_per_block 0\n" + body, ":2: 'warps_per_block' needs one number 1..1048576"},
        {"kernel a\ngrid 0\n" + body, ":2: 'grid' needs one number 1..1048576"},
        {"kernel a\nregs 16\nkernel b\n" + body, ":3: 'kernel' given twice (first on line 1)"},
        {"kernel a\nregs 16\nregs 32\n" + body, ":3: 'regs' given twice (first on line 2)"},
    };
    int n = 0;
    for (const auto &c : cases) {
        const std::string path = write("k" + std::to_string(n++) + ".gk", c.text);
        SimRun r = run_own("--config tanasic17 --workload kernel --quiet --set sm.count=1 "
                                "--set workload.kernel_file=" + path);
        EXPECT_EQ(r.status, 2) << r.out;
        EXPECT_HAS(r.out, path + c.want);
    }
}

TEST(ConfigErrorsTest, AKernelFileLoadOutsideItsRegionsNamesTheFileAndInstruction)
{
    const std::string path = write("outside.gk", "kernel outside\nregion input 65536\ncode\n"
                                                 " addi r4, r0, @0\n"
                                                 " ld r5, r4, 0x20000000\n");
    SimRun r = run_own("--config tanasic17 --workload kernel --quiet --set sm.count=1 "
                            "--set workload.kernel_file=" + path);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, path + ":5: kernel 'outside' instruction 1 (ld) accesses VA 0x100020000000, "
                             "outside its regions");
    EXPECT_EQ(r.out.find("workload.kernel'"), std::string::npos) << r.out;
}

// ---- item 13: settings that would have no effect -------------------------------

TEST(ConfigErrorsTest, SettingsWithNoEffectAreRefused)
{
    SimRun r = run_own("--workload random-sample " + small + " --set workload.faults=true");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_HAS(r.out, "config key 'workload.faults': demand paging applies to the kernel workload "
                      "only (this run's is random-sample)");
    for (const std::string &kv : {std::string("ptw.cosim=true"), std::string("ptw.pwc_impl=rtl"),
                                  std::string("ptw.scheduler_impl=rtl"), std::string("rtl.fst=x.fst"),
                                  std::string("rtl.mismatch_cycles=8"),
                                  std::string("rtl.mismatch_fst=y.fst")}) {
        const std::string key = kv.substr(0, kv.find('='));
        EXPECT_HAS(error_of("{}", {"mmu.bypass=true", kv}),
                   "config key '" + key + "': ");
        EXPECT_HAS(error_of("{}", {"mmu.bypass=true", kv}), "has no effect with mmu.bypass=true");
        EXPECT_EQ(error_of("{}", {kv, "ptw.pwc=tpc"}).find("no effect"), std::string::npos);
    }
    EXPECT_EQ(error_of("{}", {"mmu.bypass=true"}), "");
}

} // namespace

// Issue 41, item 15: workload.map=touched costs about 8.7 KiB of host memory
// per sample, so more than touched_max_samples (2^20, about 9 GiB) is refused
// while the config is checked, before anything is mapped.
TEST(ConfigErrorsTest, TouchedMapRefusesMoreSamplesThanTheMachineHolds)
{
    const std::string base = R"({"sm": {"count": 1, "warps": 1},
        "workload": {"map": "touched", "active_lanes": 32, "accesses": )";
    const uint64_t at_limit = gmmu::touched_max_samples / 32;
    EXPECT_EQ(error_of(base + std::to_string(at_limit) + "}}"), "");
    const std::string e = error_of(base + std::to_string(at_limit + 1) + "}}");
    EXPECT_HAS(e, "config key 'workload.accesses'");
    EXPECT_HAS(e, "9 KiB of host memory per sample");
}
