// The Verilated walk scheduler (rtl/walk_sched.sv) inside the platform:
// gmmu-sim with --set ptw.scheduler_impl=rtl and --set ptw.cosim=true, run as
// users run it. ctest label "cosim" (docs/rtl_walk_sched.md).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim_run.h"

namespace {

SimRun sim(const std::string &args) { return run_gmmu_sim(args); }

std::string tmp(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / "gmmu_rtl_sched";
    std::filesystem::create_directories(d);
    return (d / name).string();
}

nlohmann::json load(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

// stats.json without what is allowed to differ between implementations: wall
// time, and the strings naming the implementation.
nlohmann::json counters(nlohmann::json j)
{
    j.erase("wall_s");
    j.erase("warp_accesses_per_wall_s");
    std::function<void(nlohmann::json &)> strip = [&](nlohmann::json &o) {
        if (!o.is_object())
            return;
        if (o.contains("sched") && o["sched"].is_object()) {
            o["sched"].erase("impl");
            o["sched"].erase("cosim");
        }
        for (auto &kv : o.items())
            strip(kv.value());
    };
    strip(j);
    return j;
}

// Every walker's scheduler block (ptw, or ptw0.. with ptw.per_tlb).
std::vector<nlohmann::json> sched_blocks(const nlohmann::json &st)
{
    std::vector<nlohmann::json> v;
    for (auto &kv : st["gpu"].items())
        if (kv.key().rfind("ptw", 0) == 0 && kv.value().contains("sched"))
            v.push_back(kv.value()["sched"]);
    return v;
}

struct Case {
    const char *name;
    std::string args;
    const char *rtl; // RtlWalkSched::Name() of the geometry
};

// pichai14 (tree, 32 MSHRs, a scheduler per SM reading through the L2) on a small run,
// and the pairwise scheduler at a geometry built into tb/sched.
const Case kCases[] = {
    {"pichai14",
     "--config pichai14 --workload random-sample --set sm.count=2 --set sm.warps=2 "
     "--set workload.accesses=2 --quiet",
     "tree32p1r4"},
    {"pairwise8",
     "--workload random-sample --set ptw.scheduler=pairwise --set ptw.mshrs=8 "
     "--set sm.count=2 --set sm.warps=4 --set workload.accesses=4 "
     "--set workload.region_bytes=268435456 --set ptw.line_cache.lines=64 --quiet",
     "pair8p1r4"},
};

void ExpectSameStats(const Case &c)
{
    {
        nlohmann::json ref;
        const char *const modes[] = {"--set ptw.scheduler_impl=c", "--set ptw.scheduler_impl=rtl",
                                     "--set ptw.scheduler_impl=rtl --set ptw.cosim=true",
                                     "--set ptw.scheduler_impl=c --set ptw.cosim=true"};
        for (unsigned m = 0; m < 4; m++) {
            std::string out = tmp(std::string(c.name) + "_" + std::to_string(m));
            SimRun r = sim(c.args + " " + modes[m] + " --out " + out);
            ASSERT_EQ(r.status, 0) << c.name << " " << modes[m] << "\n" << r.out;
            nlohmann::json st = load(out + "/stats.json");
            // the run went through the intended implementation(s)
            std::vector<nlohmann::json> blocks = sched_blocks(st);
            ASSERT_FALSE(blocks.empty()) << c.name;
            uint64_t issued = 0, scans = 0;
            const std::string rtl = std::string("RTL ") + c.rtl;
            for (const nlohmann::json &b : blocks) {
                EXPECT_EQ(b["impl"], m == 1 || m == 2 ? rtl : std::string("C model")) << modes[m];
                EXPECT_EQ(b["cosim"], m == 2 ? std::string("C model") : m == 3 ? rtl : "off")
                    << modes[m];
                issued += b["refs_issued"].get<uint64_t>();
                scans += b["scans"].get<uint64_t>();
            }
            EXPECT_GT(issued, 0u) << c.name << ": the scheduler issued no read";
            EXPECT_GT(scans, 0u) << c.name;
            EXPECT_EQ(st["data_check"]["mismatches"], 0) << c.name << " " << modes[m];
            nlohmann::json key = counters(st);
            if (ref.is_null()) {
                ref = key;
                continue;
            }
            EXPECT_EQ(key["sim_time_ns"], ref["sim_time_ns"]) << c.name << " " << modes[m];
            EXPECT_EQ(key, ref) << c.name << " " << modes[m] << ": stats.json differs:\n"
                                << nlohmann::json::diff(ref, key).dump(1);
        }
    }
}

// scheduler_impl=c, rtl, rtl + cosim, c + cosim: identical stats.json
// counters and simulated time.
TEST(RtlSchedPlatform, Pichai14RtlAndLockStepGiveTheCModelsStats) { ExpectSameStats(kCases[0]); }
TEST(RtlSchedPlatform, PairwiseRtlAndLockStepGiveTheCModelsStats) { ExpectSameStats(kCases[1]); }

TEST(RtlSchedPlatform, GeometryNotBuiltExitsTwoNamingTheKey)
{
    for (const char *mode : {"--set ptw.scheduler_impl=rtl", "--set ptw.cosim=true"}) {
        SimRun r = sim(std::string("--workload stream --set ptw.scheduler=tree --set ptw.mshrs=12 ") +
                       mode + " --out " + tmp("bad"));
        EXPECT_EQ(r.status, 2) << mode << "\n" << r.out;
        EXPECT_NE(r.out.find("ptw.scheduler_impl"), std::string::npos) << r.out;
        EXPECT_NE(r.out.find("ptw.mshrs=12"), std::string::npos) << r.out;
        // the geometries that were built, pichai14's among them
        EXPECT_NE(r.out.find("ptw.scheduler=tree ptw.mshrs=32 ptw.scan_pass_cycles=1"),
                  std::string::npos)
            << r.out;
        EXPECT_NE(r.out.find("gmmu-sim: error: config key 'ptw.scheduler_impl'"), std::string::npos)
            << r.out;
    }
    SimRun r = sim("--workload stream --set ptw.scheduler=serial --set ptw.scheduler_impl=rtl --out " +
                   tmp("bad_serial"));
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("ptw.scheduler_impl"), std::string::npos) << r.out;
}

// Both twins in one process (PWC and scheduler RTL): the run ends, and the
// numbers are the C models'. Each Verilated model must act on its own
// context (a run once hung at exit tearing down the TPC with the
// scheduler's context current).
TEST(RtlSchedPlatform, PwcAndSchedulerTwinsTogetherGiveTheCModelsStats)
{
    const std::string base = "--workload random-sample --set sm.count=2 --set sm.warps=2 "
                             "--set workload.accesses=2 --quiet --set ptw.scheduler=tree "
                             "--set ptw.pwc=cpwc ";
    nlohmann::json ref;
    for (const char *mode : {"--set ptw.pwc_impl=c --set ptw.scheduler_impl=c",
                             "--set ptw.pwc_impl=rtl --set ptw.scheduler_impl=rtl",
                             "--set ptw.cosim=true"}) {
        const std::string out = tmp(std::string("both_") + std::to_string(ref.is_null() ? 0 : 1) +
                                    (std::string(mode).find("cosim") != std::string::npos ? "c" : ""));
        SimRun r = sim(base + mode + " --out " + out);
        ASSERT_EQ(r.status, 0) << mode << "\n" << r.out;
        nlohmann::json st = counters(load(out + "/stats.json"));
        for (auto &kv : st["gpu"].items())
            if (kv.value().is_object() && kv.value().contains("pwc")) {
                kv.value()["pwc"].erase("impl");
                kv.value()["pwc"].erase("cosim");
                // counted by the stepped path only
                kv.value()["pwc"].erase("cycles");
                kv.value()["pwc"].erase("evictions");
                kv.value()["pwc"].erase("dependent_invalidations");
            }
        EXPECT_EQ(st["data_check"]["mismatches"], 0) << mode;
        if (ref.is_null())
            ref = st;
        else
            EXPECT_EQ(st, ref) << mode << ": stats.json differs:\n"
                               << nlohmann::json::diff(ref, st).dump(1);
    }
}

// rtl.fst: one FST per Verilated block in the walker, written while the run
// goes; the scheduler's beside the PWC's (".sched" before the extension).
TEST(RtlSchedPlatform, RtlFstWritesAWaveformOfEachVerilatedBlock)
{
    namespace fs = std::filesystem;
    const std::string dir = tmp("fst");
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string base = "--workload random-sample --set sm.count=2 --set sm.warps=2 "
                             "--set workload.accesses=2 --quiet --set ptw.scheduler=tree ";
    SimRun r = sim(base + "--set ptw.pwc=tpc --set ptw.cosim=true --set rtl.fst=" + dir +
                   "/run.fst --out " + dir + "/o1");
    ASSERT_EQ(r.status, 0) << r.out;
    for (const char *f : {"/run.fst", "/run.sched.fst"}) {
        ASSERT_TRUE(fs::exists(dir + f)) << f;
        std::ifstream in(dir + f, std::ios::binary);
        char magic = 0;
        in.read(&magic, 1);
        EXPECT_EQ(magic, 0) << f << ": not an FST file (header block type 0)";
        EXPECT_GT(fs::file_size(dir + f), 1000u) << f;
    }
    // the scheduler alone: its waveform under the name given
    r = sim(base + "--set ptw.scheduler_impl=rtl --set rtl.fst=" + dir + "/sched_only.fst --out " +
            dir + "/o2");
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_TRUE(fs::exists(dir + "/sched_only.fst"));
    EXPECT_FALSE(fs::exists(dir + "/sched_only.sched.fst"));
    // no Verilated block: refused before the run, naming the key
    r = sim(base + "--set rtl.fst=" + dir + "/none.fst --out " + dir + "/o3");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("'rtl.fst'"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir + "/none.fst"));
    // a file that cannot be written: refused before the run, naming the key
    r = sim(base + "--set ptw.scheduler_impl=rtl --set rtl.fst=/proc/gmmu_no/w.fst --out " + dir +
            "/o4");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("config key 'rtl.fst': cannot write /proc/gmmu_no/w.fst"),
              std::string::npos)
        << r.out;
    EXPECT_FALSE(fs::exists(dir + "/o4/stats.json"));
}

// rtl.mismatch_cycles / rtl.mismatch_fst: the second twins that keep the
// last cycles for a mismatch's waveform change no result, leave no file when
// the twins agree, and bad values are refused before the run.
TEST(RtlSchedPlatform, MismatchWaveformTwinsChangeNothingAndBadKeysExitTwo)
{
    namespace fs = std::filesystem;
    const std::string dir = tmp("mismatch");
    fs::remove_all(dir);
    const std::string base = "--workload random-sample --set sm.count=2 --set sm.warps=2 "
                             "--set workload.accesses=2 --quiet --set ptw.scheduler=tree "
                             "--set ptw.pwc=cpwc --set ptw.cosim=true ";
    nlohmann::json ref;
    for (const char *cycles : {"0", "64", "1000"}) {
        const std::string out = dir + "/o" + cycles;
        SimRun r = sim(base + "--set rtl.mismatch_cycles=" + cycles + " --out " + out);
        ASSERT_EQ(r.status, 0) << r.out;
        EXPECT_FALSE(fs::exists(out + "/mismatch.fst")) << "no mismatch, no waveform";
        nlohmann::json st = counters(load(out + "/stats.json"));
        if (ref.is_null())
            ref = st;
        EXPECT_EQ(st, ref) << "rtl.mismatch_cycles=" << cycles;
    }
    for (const auto &[set, want] : std::vector<std::pair<std::string, std::string>>{
             {"rtl.mismatch_fst=/proc/gmmu_no/m.fst", "config key 'rtl.mismatch_fst': no folder /proc/gmmu_no"},
             {"rtl.mismatch_fst=", "'rtl.mismatch_fst'"},
             {"rtl.mismatch_fst=/tmp", "config key 'rtl.mismatch_fst': /tmp is a folder"},
             {"rtl.mismatch_cycles=2000000", "rtl.mismatch_cycles"},
             {"rtl.mismatch_cycles=-1", "rtl.mismatch_cycles"}}) {
        SimRun r = sim(base + "--set " + set + " --out " + dir + "/bad");
        EXPECT_EQ(r.status, 2) << set << "\n" << r.out;
        EXPECT_NE(r.out.find(want), std::string::npos) << set << "\n" << r.out;
        EXPECT_FALSE(fs::exists(dir + "/bad/stats.json")) << set;
    }
}

} // namespace
