// gmmu-sim --trace-out: a Chrome/Perfetto trace-event timeline of the run.
// Its spans agree with stats.json, the window and the cap bound it, and bad
// options are refused before anything runs.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "sim_run.h"

namespace {

const std::string kRun = "--config default --workload random-sample --set workload.region_bytes=4194304 "
                         "--set workload.accesses=4 --quiet";

struct traced {
    nlohmann::json doc, stats;
    std::map<std::string, uint64_t> spans; // by name
};

traced run(const std::string &extra)
{
    const std::string dir = ::testing::TempDir() + "gmmu_timeline";
    const std::string file = dir + ".json";
    std::remove(file.c_str());
    SimRun r = run_gmmu_sim(kRun + " --out " + dir + " --trace-out " + file + " " + extra);
    EXPECT_EQ(r.status, 0) << r.out;
    traced t;
    std::ifstream f(file), s(dir + "/stats.json");
    if (!f || !s)
        return t;
    t.doc = nlohmann::json::parse(f);
    t.stats = nlohmann::json::parse(s);
    for (auto &e : t.doc["traceEvents"])
        if (e["ph"] == "X")
            t.spans[e["name"].get<std::string>()]++;
    return t;
}

} // namespace

TEST(TimelineTest, SpansAgreeWithTheStatistics)
{
    traced t = run("");
    ASSERT_TRUE(t.doc.contains("traceEvents"));
    EXPECT_EQ(t.spans["walk"], t.stats["gpu"]["ptw"]["walks"].get<uint64_t>());
    EXPECT_EQ(t.spans["load"] + t.spans["store"], t.stats["warp_accesses"].get<uint64_t>());
    uint64_t l1 = 0;
    for (auto &[k, v] : t.stats["gpu"].items())
        if (k.rfind("l1_tlb", 0) == 0)
            l1 += v["warp_accesses"].get<uint64_t>();
    EXPECT_GE(t.spans["translate"], l1) << "one span per L1 lookup batch, and the L2's";
    // Every span has a named track; times are within the run.
    std::map<int, std::string> names;
    for (auto &e : t.doc["traceEvents"])
        if (e["ph"] == "M" && e["name"] == "thread_name")
            names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
    const double end_us = t.stats["sim_time_ns"].get<double>() / 1000.0;
    for (auto &e : t.doc["traceEvents"]) {
        if (e["ph"] != "X")
            continue;
        ASSERT_TRUE(names.count(e["tid"].get<int>()));
        ASSERT_GE(e["dur"].get<double>(), 0.0);
        ASSERT_LE(e["ts"].get<double>() + e["dur"].get<double>(), end_us * 1.000001 + 1e-6);
    }
}

TEST(TimelineTest, WindowAndCapBoundTheTimeline)
{
    traced all = run("");
    traced win = run("--trace-window 100000:200000");
    uint64_t n = 0;
    for (auto &e : win.doc["traceEvents"]) {
        if (e["ph"] != "X")
            continue;
        n++;
        const double b = e["ts"].get<double>() * 1000.0, d = e["dur"].get<double>() * 1000.0;
        EXPECT_LE(b, 200000.0 + 1e-3);
        EXPECT_GE(b + d, 100000.0 - 1e-3);
    }
    EXPECT_GT(n, 0u);
    EXPECT_LT(n, all.doc["otherData"]["spans"].get<uint64_t>());
    traced capped = run("--trace-max-events 100");
    EXPECT_EQ(capped.doc["otherData"]["spans"], 100);
    EXPECT_GT(capped.doc["otherData"]["spans_dropped_by_cap"].get<uint64_t>(), 0u);
}

TEST(TimelineTest, BadTraceOptionsAreRefusedUpFront)
{
    for (const char *bad : {"--trace-out /nonexistent-dir/t.json", "--trace-out /tmp --quiet",
                            "--trace-out /tmp/t.json --trace-window 5", "--trace-out /tmp/t.json --trace-window 9:3",
                            "--trace-out /tmp/t.json --trace-max-events 0", "--trace-window 1:2"}) {
        SimRun r = run_gmmu_sim(kRun + " --out " + ::testing::TempDir() + "gmmu_tl_bad " + bad);
        EXPECT_EQ(r.status, 2) << bad << "\n" << r.out;
        EXPECT_NE(r.out.find("--trace"), std::string::npos) << bad << "\n" << r.out;
    }
}

// Walk spans sit on the track of the walker that made them (serial walkers)
// or of the scheduler (a scheduled walker): the names are built per walk only
// while a timeline records, and must still be right.
TEST(TimelineTest, WalksAreOnTheirWalkersTrack)
{
    for (const std::string &extra : {std::string("--set ptw.walkers=2"), std::string("--set ptw.scheduler=tree")}) {
        SCOPED_TRACE(extra);
        traced t = run(extra);
        std::map<int, std::string> names;
        for (auto &e : t.doc["traceEvents"])
            if (e["ph"] == "M" && e["name"] == "thread_name")
                names[e["tid"].get<int>()] = e["args"]["name"].get<std::string>();
        const bool scheduled = extra.find("scheduler") != std::string::npos;
        uint64_t walks = 0;
        for (auto &e : t.doc["traceEvents"]) {
            if (e["ph"] != "X" || e["name"] != "walk")
                continue;
            const std::string track = names[e["tid"].get<int>()];
            if (scheduled)
                EXPECT_EQ(track, "gpu.ptw.scheduler");
            else
                EXPECT_TRUE(track == "gpu.ptw.walker0" || track == "gpu.ptw.walker1") << track;
            walks++;
        }
        EXPECT_GT(walks, 0u);
    }
}
