// gmmu-sim's stopping, output folder and input limits (issue 41, items 5-8,
// 14-16): a stop request ends every workload within a second, one run per
// output folder, outputs that are not regular files are never replaced, no
// stale outputs of another workload, migration does not grow host memory,
// and inputs are bounded.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim_run.h"

namespace {

namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

std::string tmp(const std::string &name)
{
    auto d = fs::path(::testing::TempDir()) / "gmmu_stop";
    fs::create_directories(d);
    return (d / name).string();
}

nlohmann::json load(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in, nullptr, false);
}

std::vector<std::string> split(const std::string &s)
{
    std::vector<std::string> v;
    std::istringstream in(s);
    for (std::string w; in >> w;)
        v.push_back(w);
    return v;
}

// gmmu-sim ARGS --quiet --out OUT in the background, stderr to OUT.err.
pid_t spawn(const std::string &args, const std::string &out)
{
    std::vector<std::string> a = split(args);
    a.insert(a.begin(), GMMU_SIM_BIN);
    a.push_back("--quiet");
    a.push_back("--out");
    a.push_back(out);
    const std::string err = out + ".err";
    const pid_t pid = fork();
    if (pid == 0) {
        const int null = open("/dev/null", O_WRONLY);
        const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(null, 1);
        dup2(e, 2);
        std::vector<char *> argv;
        for (auto &s : a)
            argv.push_back(s.data());
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    return pid;
}

bool run_json_says(const std::string &out, const std::string &status)
{
    const nlohmann::json j = load(out + "/run.json");
    return j.is_object() && j.value("status", "") == status;
}

struct stop_case {
    std::string name, args;
    bool wait_running = true; // signal after the run started (else: during set-up)
};

// Every workload, and the issue SM (which runs kernels), on a run far longer
// than the test: SIGINT at a short delay ends it with exit 130 in under 1 s,
// run.json "interrupted" and, when the run had started, stats.json saying
// completed false. Before the fix, the first slice of the run was the whole
// simulation (the stream repro ran on for 100+ s after SIGINT), and a
// random-sample with tlb_scope=1 spent seconds and 1 GB on set-up.
TEST(StopTest, EveryWorkloadStopsWithinOneSecond)
{
    const std::string trace = tmp("long_trace.txt");
    {
        std::ofstream t(trace);
        // 32 lanes on 32 pages each: every access walks
        for (int i = 0; i < 20000; i++) {
            t << i % 2 << " " << i % 4 << (i < 10000 ? " W " : " R ");
            for (int l = 0; l < 32; l++)
                t << (l ? "," : "") << "0x" << std::hex
                  << (0x10000000 + (uint64_t(i * 32 + l) * 7919 % 100000) * 4096) << std::dec;
            t << "\n";
        }
    }
    const std::vector<stop_case> cases = {
        {"stream", "--workload stream --set workload.passes=800 --set sm.count=1"},
        {"random_sample", "--workload random-sample --set workload.accesses=4000"},
        {"random_scope", "--workload random-sample --set workload.tlb_scope=1 --set workload.accesses=2"},
        {"pichai14_early", "--config pichai14 --workload random-sample --set workload.accesses=4000"},
        {"trace", "--workload trace --set sm.count=2 --set sm.warps=4 --set workload.path=" + trace},
        {"tlb_probe", "--workload tlb-probe"},
        {"tlb_share", "--workload tlb-share --set workload.share_levels=2048:4096,16384:65536"
                      " --set sm.count=8"},
        {"hash_group", "--workload hash-group --set workload.accesses=100000"},
        {"kernel_issue_sm", "--workload kernel --set sm.model=issue --set workload.grid_blocks=2000"},
        {"kernel_setup", "--workload kernel --set sm.model=issue --set workload.grid_blocks=2000", false},
    };
    // Three at a time: the machine running the tests is shared.
    for (size_t k0 = 0; k0 < cases.size(); k0 += 3) {
        struct live {
            const stop_case *c;
            std::string out;
            pid_t pid;
            clk::time_point sent{};
            double took = -1;
            int status = -1;
        };
        std::vector<live> runs;
        for (size_t k = k0; k < std::min(cases.size(), k0 + 3); k++) {
            const std::string out = tmp("stop_" + cases[k].name);
            fs::remove_all(out);
            runs.push_back({&cases[k], out, spawn(cases[k].args, out)});
        }
        for (auto &r : runs) {
            if (r.c->wait_running)
                for (int i = 0; i < 500 && !run_json_says(r.out, "running"); i++)
                    usleep(10000);
        }
        usleep(300000);
        for (auto &r : runs) {
            r.sent = clk::now();
            ASSERT_EQ(kill(r.pid, SIGINT), 0);
        }
        for (size_t done = 0; done < runs.size();) {
            for (auto &r : runs) {
                if (r.took >= 0)
                    continue;
                int st = 0;
                if (waitpid(r.pid, &st, WNOHANG) == r.pid) {
                    r.took = std::chrono::duration<double>(clk::now() - r.sent).count();
                    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
                    done++;
                }
            }
            usleep(2000);
        }
        for (auto &r : runs) {
            std::ifstream e(r.out + ".err");
            const std::string err((std::istreambuf_iterator<char>(e)), std::istreambuf_iterator<char>());
            SCOPED_TRACE(r.c->name + ": " + err);
            EXPECT_EQ(r.status, 130);
            EXPECT_LT(r.took, 1.0);
            if (!fs::exists(r.out + "/run.json")) {
                EXPECT_FALSE(r.c->wait_running) << "the run had started: run.json expected";
                continue;
            }
            const nlohmann::json run = load(r.out + "/run.json");
            EXPECT_EQ(run.value("status", ""), "interrupted");
            EXPECT_EQ(run.value("exit_status", 0), 130);
            if (fs::exists(r.out + "/stats.json"))
                EXPECT_FALSE(load(r.out + "/stats.json").value("completed", true));
            else
                // The stream and random-sample repros stop at a slice
                // with their partial stats; a run still in its set-up (trace,
                // kernel), in one long delta cycle (pichai14 at time 0), or
                // slowed by a loaded machine ends by the watchdog without them.
                EXPECT_TRUE(r.c->name != "stream" && r.c->name != "random_sample")
                    << "no partial stats";
        }
    }
}

// Two runs on one --out: the second is refused while the first holds the
// folder, and writes nothing there. Before the fix both ran and B's
// config.json sat next to A's stats.json.
TEST(OutputsTest, SecondRunOnAHeldFolderIsRefused)
{
    const std::string out = tmp("held");
    fs::remove_all(out);
    const pid_t a = spawn("--workload stream --set workload.passes=800 --set sm.count=1", out);
    for (int i = 0; i < 500 && !run_json_says(out, "running"); i++)
        usleep(10000);
    ASSERT_TRUE(run_json_says(out, "running"));
    std::ifstream c0(out + "/config.json");
    const std::string before((std::istreambuf_iterator<char>(c0)), std::istreambuf_iterator<char>());
    const auto t0 = clk::now();
    SimRun b = run_gmmu_sim("--workload random-sample --set workload.accesses=8 --quiet --out " + out);
    EXPECT_EQ(b.status, 2) << b.out;
    EXPECT_NE(b.out.find("--out " + out + ": another gmmu-sim run (pid " + std::to_string(a) + ")"),
              std::string::npos)
        << b.out;
    EXPECT_EQ(std::count(b.out.begin(), b.out.end(), '\n'), 1) << b.out;
    EXPECT_LT(std::chrono::duration<double>(clk::now() - t0).count(), 5.0);
    std::ifstream c1(out + "/config.json");
    const std::string after((std::istreambuf_iterator<char>(c1)), std::istreambuf_iterator<char>());
    EXPECT_EQ(before, after);
    EXPECT_TRUE(run_json_says(out, "running"));
    kill(a, SIGINT);
    int st = 0;
    ASSERT_EQ(waitpid(a, &st, 0), a);
    EXPECT_EQ(WEXITSTATUS(st), 130);
    // the folder is free again
    b = run_gmmu_sim("--workload random-sample --set workload.accesses=8 --set sm.count=2 --quiet --out " + out);
    EXPECT_EQ(b.status, 0) << b.out;
}

// Outputs that are not regular files: a FIFO and a character device are
// written in place, a symlink is followed (the link stays), a FIFO nobody
// reads is refused rather than waited on. Before the fix each became a
// regular file (so --trace-out /dev/null as root would replace /dev/null).
TEST(OutputsTest, DevicesFifosAndSymlinksAreNotReplaced)
{
    const std::string dir = tmp("special");
    fs::remove_all(dir);
    fs::create_directories(dir + "/out");
    const std::string run = "--workload random-sample --set sm.count=2 --set sm.warps=4 "
                            "--set workload.region_bytes=1048576 --set workload.accesses=8 --quiet";
    // a character device: a copy of /dev/null (needs CAP_MKNOD; else /dev/null itself is
    // not touched by this test)
    const std::string dev = dir + "/null";
    const bool have_dev = mknod(dev.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0;
    if (have_dev) {
        SimRun r = run_gmmu_sim(run + " --out " + dir + "/out --trace-out " + dev);
        EXPECT_EQ(r.status, 0) << r.out;
        struct stat st {};
        ASSERT_EQ(lstat(dev.c_str(), &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << "the device was replaced";
        // and as stats.json in the output folder
        const std::string dev2 = dir + "/out/stats.json";
        fs::remove(dev2);
        ASSERT_EQ(mknod(dev2.c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
        r = run_gmmu_sim(run + " --out " + dir + "/out");
        EXPECT_EQ(r.status, 0) << r.out;
        ASSERT_EQ(lstat(dev2.c_str(), &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode)) << "stats.json the device was replaced";
        fs::remove(dev2);
    } else {
        std::printf("(no CAP_MKNOD: character device case skipped)\n");
    }
    // a FIFO with a reader gets the trace; the FIFO stays
    const std::string fifo = dir + "/trace.fifo";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    std::string got;
    std::thread reader([&] {
        std::ifstream in(fifo);
        got.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    });
    SimRun r = run_gmmu_sim(run + " --out " + dir + "/out --trace-out " + fifo);
    // the reader may not have opened the FIFO yet when the run wrote: retry once it has
    for (int i = 0; i < 100 && r.status != 0; i++) {
        usleep(20000);
        r = run_gmmu_sim(run + " --out " + dir + "/out --trace-out " + fifo);
    }
    reader.join();
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_NE(got.find("traceEvents"), std::string::npos);
    struct stat st {};
    ASSERT_EQ(lstat(fifo.c_str(), &st), 0);
    EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
    // a FIFO nobody reads: refused at once, not waited on
    const auto t0 = clk::now();
    r = run_gmmu_sim(run + " --out " + dir + "/out --trace-out " + fifo);
    EXPECT_EQ(r.status, 1) << r.out;
    EXPECT_NE(r.out.find(fifo + ": a FIFO with no reader"), std::string::npos) << r.out;
    EXPECT_LT(std::chrono::duration<double>(clk::now() - t0).count(), 10.0);
    // symlinks: stats.json and the trace follow them to their targets
    fs::remove(dir + "/out/stats.json");
    fs::create_symlink("../stats-target.json", dir + "/out/stats.json");
    fs::create_symlink("trace-target.json", dir + "/trace-link.json");
    r = run_gmmu_sim(run + " --out " + dir + "/out --trace-out " + dir + "/trace-link.json");
    EXPECT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::is_symlink(dir + "/out/stats.json"));
    EXPECT_TRUE(fs::is_symlink(dir + "/trace-link.json"));
    EXPECT_TRUE(load(dir + "/stats-target.json").value("completed", false));
    EXPECT_TRUE(load(dir + "/trace-target.json").contains("traceEvents"));
    for (auto &e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

// Outputs of another workload left in --out are removed when a run starts
// (before the fix tlb_probe.json and .csv of an earlier run stayed and
// looked current).
TEST(OutputsTest, OutputsOfAnotherWorkloadAreRemoved)
{
    const std::string out = tmp("other_wl");
    fs::remove_all(out);
    fs::create_directories(out);
    for (const char *f : {"tlb_probe.json", "tlb_probe.csv", "tlb_share.json", "hash_group.json", "kernel.json"})
        std::ofstream(out + "/" + f) << "stale\n";
    std::ofstream(out + "/mine.txt") << "a user's file\n";
    SimRun r = run_gmmu_sim("--workload stream --set sm.count=2 --set sm.warps=4 "
                            "--set workload.region_bytes=1048576 --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    for (const char *f : {"tlb_probe.json", "tlb_probe.csv", "tlb_share.json", "hash_group.json", "kernel.json"})
        EXPECT_FALSE(fs::exists(out + "/" + f)) << f;
    EXPECT_TRUE(fs::exists(out + "/mine.txt"));
}

// Migrating 2 MiB pages: the memory's host pages stay what the run touches
// (before the fix each migration copied the frame into new host pages and
// kept the old ones: 512 more 4 KiB host pages per migration).
TEST(ResourceTest, MigrationDoesNotGrowHostMemory)
{
    const std::string base = "--workload random-sample --set page_size=2097152 --set sm.count=2 "
                             "--set sm.warps=4 --set workload.region_bytes=16777216 "
                             "--set workload.accesses=256 --quiet --out ";
    const std::string o1 = tmp("mig_off"), o2 = tmp("mig_on");
    SimRun off = run_gmmu_sim(base + o1);
    ASSERT_EQ(off.status, 0) << off.out;
    SimRun on = run_gmmu_sim(base + o2 + " --set migrate.interval_cycles=200");
    ASSERT_EQ(on.status, 0) << on.out;
    const nlohmann::json s1 = load(o1 + "/stats.json"), s2 = load(o2 + "/stats.json");
    const uint64_t migrations = s2["gpu"]["migrator"]["migrations"].get<uint64_t>();
    EXPECT_GT(migrations, 50u);
    EXPECT_EQ(s2["data_check"]["mismatches"], 0);
    const uint64_t p1 = s1["gpu"]["memory"]["pages_allocated"].get<uint64_t>();
    const uint64_t p2 = s2["gpu"]["memory"]["pages_allocated"].get<uint64_t>();
    EXPECT_LE(p2, p1 + 512) << migrations << " migrations";
    // 1 GiB pages: a migration moves only the frame's touched host pages
    const std::string o3 = tmp("mig_1g");
    SimRun g = run_gmmu_sim("--workload random-sample --set page_size=1073741824 --set sm.count=2 "
                            "--set sm.warps=4 --set workload.region_bytes=2147483648 "
                            "--set workload.accesses=64 --set migrate.interval_cycles=2000 --quiet --out " + o3);
    ASSERT_EQ(g.status, 0) << g.out;
    const nlohmann::json s3 = load(o3 + "/stats.json");
    EXPECT_GT(s3["gpu"]["migrator"]["migrations"].get<uint64_t>(), 3u);
    EXPECT_LT(s3["gpu"]["memory"]["pages_allocated"].get<uint64_t>(), 20000u);
}

// Inputs: a device, a FIFO or an oversized file as the trace or share_from
// is refused at once with one line naming the key, exit 2 (before the fix a
// trace from /dev/zero grew to the memory limit and a FIFO blocked forever).
TEST(InputTest, TraceAndShareFromAreBounded)
{
    const std::string fifo = tmp("input.fifo");
    fs::remove(fifo);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    const std::string big = tmp("big_trace.txt");
    {
        // sparse: 129 MiB of nothing, past trace_max_bytes
        std::ofstream(big).close();
        fs::resize_file(big, (uint64_t(129) << 20));
    }
    const std::string many = tmp("many_pages.txt");
    {
        // 2^20 + 32 distinct 4 KiB pages, 32 per line
        std::ofstream t(many);
        uint64_t p = 0;
        for (int line = 0; line < (1 << 15) + 1; line++) {
            t << "0 0 W ";
            for (int l = 0; l < 32; l++, p++)
                t << (l ? "," : "") << "0x" << std::hex << (0x100000000ull + p * 4096) << std::dec;
            t << "\n";
        }
    }
    struct bad {
        std::string args, needle;
    } cases[] = {
        {"--workload trace --set workload.path=/dev/zero", "config key 'workload.path': /dev/zero: not a regular file"},
        {"--workload trace --set workload.path=" + fifo, "config key 'workload.path': " + fifo + ": not a regular file"},
        {"--workload trace --set workload.path=" + big, "config key 'workload.path': " + big + ": larger than 128 MiB"},
        {"--workload trace --set workload.path=" + many, "touches more than 1048576 distinct pages"},
        {"--workload tlb-share --set workload.share_from=" + fifo, "config key 'workload.share_from': " + fifo + ": not a regular file"},
        {"--workload tlb-share --set workload.share_from=/dev/zero", "config key 'workload.share_from': /dev/zero: not a regular file"},
        {"--workload tlb-share --set workload.share_from=" + big, "config key 'workload.share_from': " + big + ": larger than 1 MiB"},
    };
    for (const auto &c : cases) {
        const auto t0 = clk::now();
        // under timeout(1): before the fix a FIFO blocked the run forever
        SimRun r = run_gmmu_sim(c.args + " --quiet --out " + tmp("bad_in"), "", "timeout 60 ");
        EXPECT_EQ(r.status, 2) << c.args << ": " << r.out;
        EXPECT_NE(r.out.find(c.needle), std::string::npos) << c.args << ": " << r.out;
        EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
        EXPECT_LT(std::chrono::duration<double>(clk::now() - t0).count(), 30.0) << c.args;
    }
}

} // namespace
