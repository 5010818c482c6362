// gmmu-sim as users run it: outputs, exit codes and bad-input messages.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cstring>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gmmu/components/config.h"
#include "gmmu/gpu/workload.h"

#include "sim_run.h"

namespace {

SimRun sim(const std::string &args) { return run_gmmu_sim(args); }

std::string tmp(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / "gmmu_cli";
    std::filesystem::create_directories(d);
    return (d / name).string();
}

std::string write(const std::string &name, const std::string &text)
{
    std::string p = tmp(name);
    std::ofstream(p) << text;
    return p;
}

nlohmann::json load(const std::string &path)
{
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

const std::string small = "--set sm.count=2 --set sm.warps=4 --set workload.region_bytes=1048576 "
                          "--set workload.accesses=8";

// ---- outputs -------------------------------------------------------------------
TEST(CliTest, DefaultRunPrintsSummaryAndWritesStatsAndConfig)
{
    std::string out = tmp("run1");
    SimRun r = sim("--config default --workload random-sample " + small + " --set l1_tlb.entries=64 --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    for (const char *s : {"warp accesses", "L1 TLB hit rate", "L2 TLB hit rate", "walks",
                          "page-table reads", "simulated time", "wall time", "warp accesses/wall s"})
        EXPECT_NE(r.out.find(s), std::string::npos) << s;
    nlohmann::json st = load(out + "/stats.json");
    EXPECT_GT(st["sim_time_ns"].get<double>(), 0.0);
    EXPECT_TRUE(st.contains("wall_s"));
    EXPECT_GT(st["gpu"]["l1_tlb0"]["accesses"].get<uint64_t>(), 0u);
    EXPECT_TRUE(st["gpu"]["ptw"].contains("walks"));
    EXPECT_TRUE(st["gpu"]["ptw"].contains("pt_reads"));
    nlohmann::json cfg = load(out + "/config.json");
    EXPECT_EQ(cfg["l1_tlb"]["entries"], 64); // the effective config, overrides included
    EXPECT_EQ(cfg["workload"]["kind"], "random-sample");
}

// Every shipped configuration (a new file in platforms/configs included) loads
// and runs a small workload of its kind with the data check passing: the
// random-sample workload, or a kernel on configs whose SM model is the issue SM.
TEST(CliTest, EveryNamedConfigLoadsAndRuns)
{
    std::vector<std::string> names;
    for (const auto &e : std::filesystem::directory_iterator(gmmu::config_dir()))
        if (e.path().extension() == ".json")
            names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    ASSERT_GE(names.size(), 10u) << gmmu::config_dir();
    for (const std::string &n : names) {
        SCOPED_TRACE(n);
        nlohmann::json cfg = load(gmmu::config_dir() + "/" + n + ".json");
        const bool issue = cfg.contains("sm") && cfg["sm"].value("model", "simple") == "issue";
        std::string out = tmp("named_" + n);
        SimRun r = sim("--config " + n +
                       (issue ? " --workload kernel --set workload.kernel=tiny"
                              : " --workload random-sample --set sm.warps=4 "
                                "--set workload.region_bytes=1048576 --set workload.accesses=8") +
                       " --out " + out);
        ASSERT_EQ(r.status, 0) << r.out;
        EXPECT_NE(r.out.find(" lanes read back, 0 wrong"), std::string::npos) << r.out;
        nlohmann::json eff = load(out + "/config.json");
        EXPECT_EQ(eff["name"], cfg.value("name", n)) << "the effective config is not the named one";
    }
}

TEST(CliTest, SameSeedSameResultsDifferentSeedDifferentAddresses)
{
    auto walks = [&](const std::string &seed, const std::string &name) {
        std::string out = tmp(name);
        SimRun r = sim("--workload random-sample " + small + " --seed " + seed + " --quiet --out " + out);
        EXPECT_EQ(r.status, 0) << r.out;
        nlohmann::json st = load(out + "/stats.json");
        return std::make_pair(st["gpu"]["l1_tlb0"]["hits"].get<uint64_t>() +
                                  st["gpu"]["l2_tlb"]["hits"].get<uint64_t>(),
                              st["sim_time_ns"].get<double>());
    };
    auto a = walks("5", "s5a"), b = walks("5", "s5b"), c = walks("6", "s6");
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
}

TEST(CliTest, TraceWorkloadMapsWhatItTouchesAndChecksData)
{
    std::string trace = write("ok.trace",
                              "# sm warp op vas\n"
                              "0 0 W 0x7f0000001000,0x7f0000001008,0x7f0000200000\n"
                              "\n"
                              "1 3 W 0x10000000   # another SM\n"
                              "0 0 R 0x7f0000001000,0x7f0000200000,0x7f0000300000\n"
                              "1 3 R 0x10000000\n");
    std::string out = tmp("trace_ok");
    SimRun r = sim("--workload trace --set workload.path=" + trace + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json st = load(out + "/stats.json");
    EXPECT_EQ(st["warp_accesses"], 4);
    EXPECT_EQ(st["gpu"]["driver"]["mapped_4k"], 4); // four distinct pages
    EXPECT_EQ(st["data_check"]["lanes_checked"], 4);
    EXPECT_EQ(st["data_check"]["mismatches"], 0);
}

TEST(CliTest, LatencyIsHiddenByOtherWarps)
{
    auto per_access = [&](const std::string &warps, const std::string &name) {
        std::string out = tmp(name);
        SimRun r = sim("--workload random-sample --set sm.count=1 --set sm.warps=" + warps +
                    " --set workload.accesses=" + std::to_string(64 / std::stoi(warps)) +
                    " --set ptw.walkers=16 --set workload.active_lanes=1 --quiet --out " + out);
        EXPECT_EQ(r.status, 0) << r.out;
        nlohmann::json st = load(out + "/stats.json");
        return st["sim_time_ns"].get<double>();
    };
    // Same warp accesses (one lane each, so walks are latency- not walker-bound);
    // 16 warps overlap their walks, 1 warp waits for each.
    double one = per_access("1", "w1"), many = per_access("16", "w16");
    EXPECT_LT(many * 4, one);
}

TEST(CliTest, SchedulerAndPageWalkCacheReportTheirCounters)
{
    std::string out = tmp("sched");
    SimRun r = sim("--workload random-sample " + small +
                " --set ptw.scheduler=tree --set ptw.pwc=cpwc --set ptw.pwc_bits=5280"
                " --set ptw.line_cache.lines=64 --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json p = load(out + "/stats.json")["gpu"]["ptw"];
    for (const char *k : {"refs_issued", "refs_merged", "same_line_back_to_back"})
        EXPECT_TRUE(p["sched"].contains(k)) << k;
    EXPECT_TRUE(p.contains("line_cache_hits"));
    EXPECT_EQ(p["pwc"]["bits"].get<uint64_t>(), (6u + 62u) * 74u + 4u * 62u); // 62-entry CPWC
    EXPECT_GT(p["pwc"]["lookups"].get<uint64_t>(), 0u);
    EXPECT_EQ(load(out + "/stats.json")["data_check"]["mismatches"], 0);
}

TEST(CliTest, ListKeysDocumentsEveryKey)
{
    SimRun r = sim("--list-keys");
    ASSERT_EQ(r.status, 0);
    for (auto &k : gmmu::config_schema())
        EXPECT_NE(r.out.find("`" + k.key + "`"), std::string::npos) << k.key;
}

TEST(CliTest, DocsConfigsMdListsTheSchema)
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/docs/configs.md");
    ASSERT_TRUE(in) << "docs/configs.md missing";
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string want = gmmu::config::schema_markdown();
    if (ss.str().find(want) == std::string::npos) {
        std::istringstream w(want);
        std::string line;
        while (std::getline(w, line))
            if (ss.str().find(line) == std::string::npos) {
                ADD_FAILURE() << "docs/configs.md is out of date (scripts/gen-docs.sh); "
                                 "first missing line:\n"
                              << line;
                return;
            }
        ADD_FAILURE() << "docs/configs.md is out of date: key order differs (scripts/gen-docs.sh)";
    }
}

// ---- bad input: one line naming the key or file:line, exit 2 ------------------
void expect_bad(const std::string &args, const std::string &needle)
{
    SimRun r = sim(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(needle), std::string::npos) << "message lacks '" << needle << "':\n" << r.out;
    // one line of error
    size_t errors = 0;
    std::istringstream ls(r.out);
    std::string line;
    while (std::getline(ls, line))
        errors += line.rfind("gmmu-sim: error:", 0) == 0;
    EXPECT_EQ(errors, 1u) << r.out;
    // and nothing else: no banner, no second line
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
}

// workload.map=touched maps only the sampled pages: a 1 TiB region of 4 KiB
// pages (refused whole: 2^28 pages) costs page tables and frames for the
// 2,048 samples; on a small region both modes give the same translations
// and timing, with fewer pages mapped.
TEST(CliTest, TouchedMapCostsOnlyTheSampledPages)
{
    const std::string tib = " --set workload.region_bytes=1099511627776 --set workload.base_va=0x7e0000000000";
    expect_bad("--workload random-sample " + small + tib + " --out " + tmp("tib-region"),
               "'workload.region_bytes'");
    std::string out = tmp("tib-touched");
    SimRun r = sim("--workload random-sample " + small + tib + " --set workload.map=touched --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json st = load(out + "/stats.json");
    const uint64_t samples = 2 * 4 * 8 * 32, mapped = st["gpu"]["driver"]["mapped_4k"].get<uint64_t>();
    EXPECT_LE(mapped, samples);
    EXPECT_GT(mapped, samples * 9 / 10); // almost every sample has a page of its own
    // A leaf table per sampled 2 MiB span at most, and the tables above it.
    EXPECT_LE(st["gpu"]["driver"]["page_table_pages"].get<uint64_t>(), 3 * mapped + 1);
    EXPECT_LE(st["gpu"]["memory"]["pages_allocated"].get<uint64_t>(), 4 * mapped + 1);
    EXPECT_EQ(st["data_check"]["lanes_checked"], samples);
    EXPECT_EQ(st["data_check"]["mismatches"], 0);

    auto run = [&](const std::string &mode) {
        std::string o = tmp("map-" + mode);
        SimRun x = sim("--workload random-sample " + small + " --set workload.region_bytes=16777216 "
                       "--set workload.map=" + mode + " --quiet --out " + o);
        EXPECT_EQ(x.status, 0) << x.out;
        return load(o + "/stats.json");
    };
    nlohmann::json reg = run("region"), tch = run("touched");
    EXPECT_EQ(reg["gpu"]["driver"]["mapped_4k"], 4096);
    EXPECT_LT(tch["gpu"]["driver"]["mapped_4k"].get<uint64_t>(), samples);
    EXPECT_EQ(reg["sim_time_ns"], tch["sim_time_ns"]);
    EXPECT_EQ(reg["gpu"]["ptw"]["walks"], tch["gpu"]["ptw"]["walks"]);
    EXPECT_EQ(reg["gpu"]["l1_tlb0"]["hits"], tch["gpu"]["l1_tlb0"]["hits"]);
    EXPECT_EQ(tch["data_check"]["mismatches"], 0);
}

TEST(CliTest, UnknownKeyIsNamed)
{
    expect_bad("--workload stream --set l1_tlb.entires=64", "l1_tlb.entires");
    std::string cfg = write("unknown.json", "{\n  \"sm\": {\"count\": 2, \"colour\": 3}\n}\n");
    expect_bad("--config " + cfg + " --workload stream", "sm.colour");
}

TEST(CliTest, WrongTypeIsNamed)
{
    expect_bad("--workload stream --set sm.count=four", "sm.count");
    expect_bad("--workload stream --set mmu.bypass=maybe", "mmu.bypass");
    std::string cfg = write("type.json", "{ \"l2_tlb\": { \"entries\": \"512\" } }");
    expect_bad("--config " + cfg + " --workload stream", "l2_tlb.entries");
}

TEST(CliTest, ZeroSizeIsRejected)
{
    expect_bad("--workload stream --set l1_tlb.entries=0", "l1_tlb.entries");
    expect_bad("--workload stream --set ptw.walkers=0", "ptw.walkers");
}

TEST(CliTest, OutOfRangeIsRejectedWithTheRange)
{
    expect_bad("--workload stream --set sm.warps=65", "1..64");
    expect_bad("--workload stream --set l1_tlb.ways=64", "l1_tlb.ways"); // more ways than entries
    expect_bad("--workload stream --set l1_tlb.replacement=mru", "l1_tlb.replacement");
    // coverage beyond what the contiguity hint can vouch for (2^7 pages)
    expect_bad("--workload stream --set l2_tlb.coverage_bytes=1048576", "l2_tlb.coverage_bytes");
    expect_bad("--workload stream --set ptw.pwc=lru", "ptw.pwc");
    expect_bad("--workload stream --set ptw.scheduler=tree --set ptw.walkers=8", "ptw.walkers");
}

TEST(CliTest, NonPowerOfTwoIsRejected)
{
    expect_bad("--workload stream --set page_size=12288", "page_size");
    expect_bad("--workload stream --set page_size=8192", "page_size"); // pow2 but not x86
}

TEST(CliTest, DataCachesSitBetweenTheL1TlbsAndTheMemory)
{
    std::string out = tmp("caches");
    SimRun r = sim("--config default --workload stream " + small +
                   " --set l1_cache.enabled=true --set l2_cache.enabled=true"
                   " --set memory.bytes_per_cycle=64 --out " + out);
    ASSERT_EQ(r.status, 0) << r.out; // includes the data check through the caches
    nlohmann::json st = load(out + "/stats.json");
    const nlohmann::json &g = st["gpu"];
    for (unsigned i = 0; i < 2; i++) { // one L1 data cache per L1 TLB (the small run has 2 SMs)
        const std::string n = std::to_string(i);
        ASSERT_TRUE(g.contains("l1_cache" + n)) << g.dump();
        EXPECT_EQ(g["l1_cache" + n]["accesses"], g["l1_tlb" + n]["warp_accesses"]);
    }
    EXPECT_FALSE(g.contains("l1_cache2"));
    EXPECT_GT(g["l2_cache"]["accesses"].get<uint64_t>(), 0u);
    // The stream's reads hit the lines its writes allocated in the L2: only
    // the walker's PTE reads (it is not behind the caches) reach the memory.
    EXPECT_GT(g["l2_cache"]["read_hits"].get<uint64_t>(), 0u);
    EXPECT_EQ(g["memory"]["reads"].get<uint64_t>(),
              g["l2_cache"]["forwarded"].get<uint64_t>() + g["ptw"]["pt_reads"].get<uint64_t>());
    EXPECT_GT(g["memory"]["bandwidth"]["bytes_booked"].get<uint64_t>(), 0u);
}

TEST(CliTest, DataCacheGeometryErrorsNameTheKey)
{
    expect_bad("--workload stream --set l1_cache.enabled=true --set l1_cache.ways=3", "l1_cache.ways");
    expect_bad("--workload stream --set l2_cache.enabled=true --set l2_cache.bytes=3000000",
               "l2_cache.bytes");
    expect_bad("--workload stream --set l1_cache.enabled=true --set l1_cache.line_bytes=96",
               "l1_cache.line_bytes");
    expect_bad("--workload stream --set memory.bytes_per_cycle=-1", "memory.bytes_per_cycle");
}

TEST(CliTest, UnreadableFilesAreNamed)
{
    expect_bad("--config /nonexistent/x.json --workload stream", "/nonexistent/x.json");
    expect_bad("--config no-such-config --workload stream", "no-such-config");
    expect_bad("--workload trace --set workload.path=/nonexistent/t.trace", "/nonexistent/t.trace");
    expect_bad("--workload trace", "workload.path");
    expect_bad("--workload no-such-workload", "no-such-workload");
}

TEST(CliTest, MalformedJsonNamesFileAndLine)
{
    std::string cfg = write("broken.json", "{\n  \"sm\": {\n    \"count\": 2,,\n  }\n}\n");
    expect_bad("--config " + cfg + " --workload stream", cfg + ":3:");
}

TEST(CliTest, MalformedTraceLinesNameFileAndLine)
{
    struct Case {
        const char *text, *needle;
    } cases[] = {
        {"0 0 R 0x1000\n0 0 X 0x2000\n", ":2: expected R or W"},
        {"0 0 R 1000\n", ":1: VA '1000' is not hexadecimal"},
        {"\n\n0 0 R\n", ":3: expected 'SM WARP R|W"},
        {"9 0 R 0x1000\n", ":1: SM 9 out of range"},
        {"0 99 R 0x1000\n", ":1: WARP 99 out of range"},
        {"0 0 R 0x0000800000000000\n", ":1: VA 0x0000800000000000 is not canonical"},
        {"0 0 R 0x1001\n", "not 8-byte aligned"},
        {"0 0 R 0x1000,\n", ":1: empty VA"},
        {"0 0 R 0x1000 extra\n", ":1: unexpected text"},
        {"-1 0 R 0x1000\n", ":1: SM '-1' is not a decimal"},
        {"# only a comment\n", "no accesses"},
    };
    int i = 0;
    for (auto &c : cases) {
        std::string t = write("bad" + std::to_string(i++) + ".trace", c.text);
        expect_bad("--workload trace --set workload.path=" + t, c.needle);
    }
    std::string many = "0 0 R ";
    for (int k = 0; k < 33; k++)
        many += (k ? ",0x" : "0x") + std::to_string(1000 + k) + "000";
    std::string t = write("many.trace", many + "\n");
    expect_bad("--workload trace --set workload.path=" + t, ":1: more than 32 VAs");
}

// The in-memory trace parser (what fuzz_trace drives) checks its SM and warp
// counts as the config keys would, instead of sizing its queues from them.
TEST(CliTest, TraceTextParserRefusesCountsOutsideTheKeysRanges)
{
    const std::string text = "0 0 R 0x1000\n";
    EXPECT_EQ(gmmu::parse_trace_text(text, "t.trace", 1, 1), 1u);
    EXPECT_EQ(gmmu::parse_trace_text(text, "t.trace", 1024, 64), 1u);
    struct Case {
        unsigned sms, warps;
        const char *needle;
    } cases[] = {{0, 1, "sms 0 is outside 1..1024"},
                 {1025, 1, "sms 1025"},
                 {1, 0, "warps 0 is outside 1..64"},
                 {1, 65, "warps 65"},
                 {~0u, ~0u, "sms 4294967295"}};
    for (auto &c : cases) {
        try {
            gmmu::parse_trace_text(text, "t.trace", c.sms, c.warps);
            ADD_FAILURE() << "accepted sms " << c.sms << " warps " << c.warps;
        } catch (const gmmu::config_error &e) {
            EXPECT_NE(std::string(e.what()).find(c.needle), std::string::npos) << e.what();
        }
    }
}

TEST(CliTest, BadCommandLineIsExit2)
{
    expect_bad("--workload stream --set novalue", "key=value");
    expect_bad("--workload stream --seed notanumber", "seed");
    SimRun r = sim("--workload stream --bogus-flag");
    EXPECT_EQ(r.status, 2);
}

// ---- fuzzing the parsers: any input gives success or a config_error --------------
TEST(CliTest, FuzzedTracesNeverCrashTheParser)
{
    const uint64_t seed = 20261122;
    std::mt19937_64 rng(seed);
    const std::string alphabet = "0123456789abcdefxXRW ,#\n\t-+";
    gmmu::config cfg = gmmu::config::load("default", {});
    int accepted = 0, rejected = 0;
    for (int it = 0; it < 300; it++) {
        std::string text = "0 0 W 0x7f0000001000,0x7f0000002000\n1 1 R 0x10000000\n";
        int muts = 1 + int(rng() % 6);
        for (int m = 0; m < muts; m++) {
            size_t pos = rng() % (text.size() + 1);
            if (rng() % 2 && pos < text.size())
                text.erase(pos, 1 + rng() % 3);
            else
                text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
        }
        std::string path = write("fuzz.trace", text);
        cfg.set("workload.path", path);
        try {
            auto wl = gmmu::make_workload("trace", cfg, 1);
            accepted++;
        } catch (const gmmu::config_error &e) {
            rejected++;
            EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << "seed " << seed;
        }
    }
    EXPECT_GT(accepted, 0);
    EXPECT_GT(rejected, 0);
}

// Found by fuzz_config: a number too large for a double made the JSON
// library throw out_of_range, which escaped the loader.
TEST(CliTest, ANumberOutOfRangeIsAConfigErrorWithItsLine)
{
    const std::string path = write("overflow.json", "{\n  \"sm\": {\n    \"count\": 8e999\n  }\n}\n");
    try {
        gmmu::config::load(path, {});
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find(path + ":3:"), std::string::npos) << e.what();
    }
    SimRun r = sim("--workload stream --config " + path);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find(path + ":3:"), std::string::npos) << r.out;
}

// Found by fuzz_config: a key with a newline in it gave a two-line error.
TEST(CliTest, ErrorsStayOneLineWhateverTheInputHolds)
{
    const std::string path = write("newline_key.json", "{ \"l1_tlb\": { \"ent\\nries\\u0001\": 4 } }\n");
    try {
        gmmu::config::load(path, {});
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        const std::string m = e.what();
        EXPECT_EQ(m.find('\n'), std::string::npos) << m;
        EXPECT_NE(m.find("l1_tlb.ent\\nries\\x01"), std::string::npos) << m;
    }
}

// Found by fuzz_config: a --set string that is not UTF-8 was accepted, the
// run went ahead and writing config.json threw (exit 1, no outputs); a value
// with a NUL in it reached the number parsers, which stopped at the NUL.
TEST(CliTest, SetValuesThatAreNotUtf8OrHoldANulAreRefused)
{
    gmmu::config c = gmmu::config::defaults();
    for (const std::string &bad : {std::string("a\xfd"), std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
                                   std::string("\xf4\x90\x80\x80"), std::string("\xe2\x82")}) {
        try {
            c.set("name", bad);
            ADD_FAILURE() << "accepted a value that is not UTF-8";
        } catch (const gmmu::config_error &e) {
            EXPECT_NE(std::string(e.what()).find("'name': the value is not valid UTF-8"), std::string::npos)
                << e.what();
        }
    }
    try {
        c.set("sm.count", std::string("4\0x", 3));
        ADD_FAILURE() << "accepted a NUL";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("'sm.count': the value contains a NUL byte"), std::string::npos)
            << e.what();
    }
    c.set("name", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); // well-formed: accepted
    EXPECT_EQ(c.s("name"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
    const std::string d = std::string(::testing::TempDir()) + "gmmu_cli_utf8";
    SimRun r = sim("--workload random-sample --quiet --set 'name=a\xfd' --out " + d);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("config key 'name': the value is not valid UTF-8"), std::string::npos) << r.out;
}

TEST(CliTest, FuzzedConfigsNeverCrashTheLoader)
{
    const uint64_t seed = 77;
    std::mt19937_64 rng(seed);
    const std::string base = "{ \"sm\": { \"count\": 4, \"warps\": 8 }, \"l1_tlb\": { \"entries\": 32, "
                             "\"ways\": 8 }, \"page_size\": 4096, \"mmu\": { \"bypass\": false } }";
    const std::string alphabet = "{}[]\":,0123456789.-aetrufl smw";
    int accepted = 0, rejected = 0;
    for (int it = 0; it < 300; it++) {
        std::string text = base;
        int muts = 1 + int(rng() % 4);
        for (int m = 0; m < muts; m++) {
            size_t pos = rng() % (text.size() + 1);
            if (rng() % 2 && pos < text.size())
                text.erase(pos, 1 + rng() % 2);
            else
                text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
        }
        std::string path = write("fuzz.json", text);
        try {
            gmmu::config::load(path, {});
            accepted++;
        } catch (const gmmu::config_error &) {
            rejected++;
        }
    }
    EXPECT_GT(accepted, 0) << "seed " << seed;
    EXPECT_GT(rejected, 0) << "seed " << seed;
}

} // namespace

#ifdef GMMU_HAVE_RTL
namespace {

// The same workload with the C page-walk cache, its RTL twin, and both in
// lock-step gives identical statistics.
TEST(CliTest, RtlPageWalkCacheGivesIdenticalStats)
{
    const std::string args = "--workload random-sample --set sm.count=2 --set sm.warps=4 "
                             "--set workload.accesses=8 --set workload.region_bytes=268435456 "
                             "--set ptw.pwc_bits=5280 --quiet";
    for (const char *kind : {"cpwc", "tpc"}) {
        nlohmann::json ref;
        for (const char *mode : {"--set ptw.pwc_impl=c", "--set ptw.pwc_impl=rtl",
                                 "--set ptw.pwc_impl=rtl --set ptw.cosim=true"}) {
            std::string out = tmp(std::string("rtl_") + kind + std::to_string(std::strlen(mode)));
            SimRun r = sim(args + " --set ptw.pwc=" + kind + " " + mode + " --out " + out);
            ASSERT_EQ(r.status, 0) << mode << "\n" << r.out;
            nlohmann::json st = load(out + "/stats.json");
            nlohmann::json key = {st["sim_time_ns"], st["gpu"]["ptw"]["pt_reads"],
                                  st["gpu"]["ptw"]["walks"], st["gpu"]["ptw"]["pwc"]["lookups"],
                                  st["gpu"]["ptw"]["pwc"]["hit_l2"], st["gpu"]["ptw"]["pwc"]["hit_l3"],
                                  st["gpu"]["ptw"]["pwc"]["misses"], st["gpu"]["l1_tlb0"]["hits"]};
            if (ref.is_null())
                ref = key;
            EXPECT_EQ(key, ref) << kind << " " << mode;
        }
    }
}

TEST(CliTest, RtlNeedsAGeometryThatWasBuilt)
{
    expect_bad("--workload stream --set ptw.pwc=cpwc --set ptw.pwc_bits=9000 --set ptw.pwc_impl=rtl",
               "pwc_impl");
    expect_bad("--workload stream --set ptw.pwc=stc --set ptw.pwc_impl=rtl", "ptw.pwc_impl");
}


// ---- the output folder -------------------------------------------------------------
TEST(CliOutputsTest, AnUnusableOutFolderIsRefusedBeforeTheRun)
{
    const auto t0 = std::chrono::steady_clock::now();
    SimRun r = sim("--config pichai14 --workload random-sample --out /proc/gmmu-out");
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--out /proc/gmmu-out"), std::string::npos) << r.out;
    std::string file = write("a-file", "x");
    r = sim("--workload stream " + small + " --out " + file);
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_NE(r.out.find("--out " + file), std::string::npos) << r.out;
    // refused before anything ran (a pichai14 run takes seconds)
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}

TEST(CliOutputsTest, PreviousOutputsNeverLookCurrent)
{
    const std::string out = tmp("stale");
    std::filesystem::create_directories(out);
    std::ofstream(out + "/stats.json") << "{\"stale\": 1}\n";
    std::ofstream(out + "/run.json") << "{\"completed\": true}\n";
    // a new run replaces them, and says it completed
    SimRun r = sim("--workload stream " + small + " --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_FALSE(load(out + "/stats.json").contains("stale"));
    EXPECT_TRUE(load(out + "/stats.json")["completed"].get<bool>());
    EXPECT_EQ(load(out + "/run.json")["status"], "completed");
    std::ofstream(out + "/stats.json") << "{\"stale\": 1}\n";
    r = sim("--workload stream " + small + " --set sm.count=0 --out " + out); // bad input: untouched
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(load(out + "/stats.json").contains("stale"));
    // no temporary files are left behind
    for (auto &e : std::filesystem::directory_iterator(out))
        EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(CliOutputsTest, SignalStopsTheRunAndMarksItsOutputsIncomplete)
{
    for (int sig : {SIGINT, SIGTERM}) {
        const std::string out = tmp("signal" + std::to_string(sig));
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
            // (a run whose slices are short in wall time: it stops at the next
            // one and writes its partial stats; StopTest covers the rest)
            execl(GMMU_SIM_BIN, GMMU_SIM_BIN, "--config", "default", "--workload", "stream",
                  "--set", "workload.passes=800", "--quiet", "--out", out.c_str(), (char *)nullptr);
            _exit(127);
        }
        // wait until the run has started (its run.json says running)
        for (int i = 0; i < 200; i++) {
            std::ifstream in(out + "/run.json");
            if (in && nlohmann::json::parse(in, nullptr, false).value("status", "") == "running")
                break;
            usleep(20000);
        }
        usleep(200000);
        kill(pid, sig);
        int st = 0;
        ASSERT_EQ(waitpid(pid, &st, 0), pid);
        ASSERT_TRUE(WIFEXITED(st));
        EXPECT_EQ(WEXITSTATUS(st), 128 + sig);
        nlohmann::json run = load(out + "/run.json");
        EXPECT_EQ(run["status"], "interrupted");
        EXPECT_FALSE(run["completed"].get<bool>());
        EXPECT_EQ(run["exit_status"].get<int>(), 128 + sig);
        nlohmann::json stats = load(out + "/stats.json");
        EXPECT_FALSE(stats["completed"].get<bool>());
        EXPECT_GT(stats["sim_time_ns"].get<double>(), 0.0);
        EXPECT_TRUE(load(out + "/config.json").contains("sm"));
    }
}


// Every class of bad input: exit 2 and one line naming the file, a real key or
// FILE:LINE, before anything runs (each case got through, or failed late or
// wrongly, before this table existed).
TEST(CliBadInputTest, EveryClassIsRefusedUpFront)
{
    const std::string fifo = tmp("fifo.json");
    std::filesystem::remove(fifo);
    ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
    const std::string dir = tmp("dir.json");
    std::filesystem::create_directories(dir);
    const std::string stream = " --workload stream " + small;
    struct bad {
        std::string args, needle;
    } cases[] = {
        {"--config " + write("objname.json", "{\"name\": {}}") + stream, "'name': expected a string"},
        {"--config " + write("objcount.json", "{\"sm\": {\"count\": {}}}") + stream,
         "'sm.count': expected an integer"},
        {"--config " + write("group5.json", "{\"l1_tlb\": 5}") + stream, "'l1_tlb' is a group of keys"},
        {"--config " + dir + stream, dir + ": not a regular file"},
        {"--config /proc/self/mem" + stream, "/proc/self/mem:1: empty or unreadable"},
        {"--config " + fifo + stream, fifo + ": not a regular file"},
        {"--config " + write("bom.json", "\xEF\xBB\xBF{\"sm\": {\"count\": 2}}") + stream,
         "byte-order mark"},
        {"--config " + write("dup.json", "{\"sm\": {\"count\": 2, \"count\": 3}}") + stream,
         "'sm.count' appears twice"},
        {"--set l1_tlb.mshrs=1 --set l1_tlb.max_misses=4096" + stream, "'l1_tlb.max_misses'"},
        {"--config tanasic17 --workload kernel --set workload.iters=300", "'workload.iters': 300 out of range 0..256"},
        {"--set l1_tlb.entries=48" + stream, "'l1_tlb.entries': 48 is not a multiple of l1_tlb.ways"},
        {"--set l1_tlb.shared_by=3 --set sm.count=4 --workload stream", "'l1_tlb.shared_by'"},
        {"--set l2_tlb.shared_by=8 --set sm.count=4 --workload stream", "'l2_tlb.shared_by'"},
        {"--seed -1" + stream, "--seed '-1'"},
        {"--seed 18446744073709551616" + stream, "--seed '18446744073709551616'"},
        {"--seed ''" + stream, "--seed ''"},
        {"--workload trace --set workload.path=" + write("last.trace", "0 0 R 0xfffffffffffffff8\n"),
         "last.trace:1: VA 0xfffffffffffffff8 is in the last page"},
        {"--config tanasic17 --workload kernel --set workload.kernel=stencil-like "
         "--set workload.grid_blocks=26214",
         "'workload.grid_blocks'"},
        {"--workload stream --set workload.region_bytes=2199023255552", "'workload.region_bytes'"},
        {"--workload stream --set workload.map=touched", "'workload.map': touched applies to the random-sample"},
        {"--workload random-sample --set workload.map=touched --set workload.accesses=4294967296",
         "'workload.accesses': workload.map=touched"},
        {"--workload random-sample --set workload.map=touched --set workload.base_va=0x7f8000000000 "
         "--set workload.region_bytes=1099511627776",
         "'workload.region_bytes': the region ends above"},
        {"--workload stream --set l2_tlb.entries=16777216 --set l2_tlb.ways=16777216", "'l2_tlb.ways'"},
        {"--workload hash-group --set sm.timing_only=true", "'sm.timing_only': the hash-group workload"},
        {"--workload tlb-probe --set sm.timing_only=true", "'sm.timing_only': the tlb-probe workload"},
        {"--config tanasic17 --workload kernel --set sm.timing_only=true",
         "'sm.timing_only': supported with sm.model=simple only"},
    };
    for (const bad &c : cases) {
        SCOPED_TRACE(c.args);
        const auto t0 = std::chrono::steady_clock::now();
        expect_bad(c.args + " --out " + tmp("bad-out"), c.needle);
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
    }
    // --set integers are decimal (a leading 0 is not octal) or 0x hexadecimal
    nlohmann::json cfg;
    SimRun r = sim(stream + " --set sm.count=010 --set sm.warps=0x4 --quiet --out " + tmp("dec"));
    ASSERT_EQ(r.status, 0) << r.out;
    cfg = load(tmp("dec") + "/config.json");
    EXPECT_EQ(cfg["sm"]["count"].get<int>(), 10);
    EXPECT_EQ(cfg["sm"]["warps"].get<int>(), 4);
}

} // namespace
#endif

// sm.timing_only: the same translations, times and statistics without the
// data: the memory allocates host pages for the page tables only, and no
// lane is checked.
TEST(CliTest, TimingOnlyRunsTheSameMachineWithoutData)
{
    const std::string args = "--workload stream --set sm.count=2 --set sm.warps=4 "
                             "--set workload.region_bytes=1048576 --set workload.passes=1";
    ASSERT_EQ(sim(args + " --quiet --out " + tmp("to_data")).status, 0);
    SimRun r = sim(args + " --set sm.timing_only=true --out " + tmp("to_none"));
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_NE(r.out.find("data check           off (sm.timing_only"), std::string::npos) << r.out;
    nlohmann::json with = load(tmp("to_data") + "/stats.json"), without = load(tmp("to_none") + "/stats.json");
    EXPECT_GT(with["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
    EXPECT_EQ(without["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
    const uint64_t tables = with["gpu"]["driver"]["page_table_pages"].get<uint64_t>();
    EXPECT_EQ(with["gpu"]["memory"]["pages_allocated"].get<uint64_t>(), tables + 256); // 1 MiB of data
    EXPECT_EQ(without["gpu"]["memory"]["pages_allocated"].get<uint64_t>(), tables);
    // Everything else is the run with data.
    for (auto *j : {&with, &without}) {
        j->erase("wall_s");
        j->erase("warp_accesses_per_wall_s");
        (*j)["data_check"].erase("lanes_checked");
        (*j)["gpu"]["memory"].erase("pages_allocated");
    }
    EXPECT_EQ(with.dump(1), without.dump(1));
}

TEST(CliTest, TwoMegabytePagesLiveInTheirOwnTlbEntries)
{
    // 2 MiB pages; the L1 TLBs keep 4 KiB TLB pages with 8 entries for
    // 2 MiB pages beside them: every L1 hit is a 2 MiB entry's.
    std::string out = tmp("large");
    SimRun r = sim("--workload random-sample " + small +
                   " --set page_size=2097152 --set workload.region_bytes=16777216"
                   " --set l1_tlb.page_bytes=4096 --set l1_tlb.entries_2m=8 --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json s = load(out + "/stats.json");
    nlohmann::json l1 = s["gpu"]["l1_tlb0"];
    ASSERT_TRUE(l1.contains("large_pages")) << l1.dump();
    EXPECT_GT(l1["large_pages"]["2M"]["hits"].get<uint64_t>(), 0u);
    EXPECT_EQ(l1["large_pages"]["2M"]["hits"], l1["hits"]);
    EXPECT_EQ(l1["fills"].get<uint64_t>(), 0u);
    EXPECT_EQ(s["data_check"]["mismatches"], 0);
    // A large-page array the TLB page cannot sit under is refused, by key.
    SimRun bad = sim("--workload random-sample " + small +
                     " --set page_size=2097152 --set l1_tlb.entries_2m=8 --quiet --out " + out);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.out.find("l1_tlb.entries_2m"), std::string::npos) << bad.out;
    SimRun ways = sim("--workload random-sample " + small +
                      " --set l1_tlb.entries_2m=8 --set l1_tlb.ways_2m=16 --quiet --out " + out);
    EXPECT_EQ(ways.status, 2);
    EXPECT_NE(ways.out.find("l1_tlb.ways_2m"), std::string::npos) << ways.out;
}

// ---- several address spaces, pages migrated under load ----------------------

TEST(CliTest, ContextsKeepTheirOwnDataAtTheSameVas)
{
    // SM i runs in context i mod 3: the same VAs in three address spaces,
    // each checked against its own store data.
    std::string out = tmp("ctx");
    SimRun r = sim("--workload random-sample " + small + " --set sm.count=3 --set contexts=3 --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json s = load(out + "/stats.json");
    EXPECT_EQ(s["data_check"]["mismatches"], 0);
    EXPECT_GT(s["data_check"]["lanes_checked"].get<uint64_t>(), 0u);
    for (const char *d : {"driver", "driver1", "driver2"}) {
        ASSERT_TRUE(s["gpu"].contains(d)) << d;
        EXPECT_EQ(s["gpu"][d]["bytes_mapped"], s["gpu"]["driver"]["bytes_mapped"]) << d;
    }
    EXPECT_NE(s["gpu"]["driver1"]["root_pa"], s["gpu"]["driver"]["root_pa"]);
    SimRun bad = sim("--workload random-sample " + small + " --set contexts=2 --set mmu.bypass=true --quiet --out " + out);
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.out.find("'contexts'"), std::string::npos) << bad.out;
}

TEST(CliTest, PagesMigratedUnderLoadLoseNothing)
{
    // Small region: pages are touched often, so accesses meet pages in
    // migration and replay.
    std::string out = tmp("migrate");
    SimRun r = sim("--workload random-sample --set sm.count=4 --set sm.warps=4"
                   " --set workload.region_bytes=1048576 --set workload.accesses=64"
                   " --set contexts=2 --set migrate.interval_cycles=500 --quiet --out " + out);
    ASSERT_EQ(r.status, 0) << r.out;
    nlohmann::json s = load(out + "/stats.json");
    const nlohmann::json &m = s["gpu"]["migrator"];
    EXPECT_GT(m["migrations"].get<uint64_t>(), 100u);
    EXPECT_EQ(m["smmu"]["syncs"], m["migrations"]);
    EXPECT_EQ(m["smmu"]["invalidations"], m["migrations"]);
    uint64_t replays = 0;
    for (int i = 0; i < 4; i++)
        replays += s["gpu"]["sm" + std::to_string(i)]["fault_replays"].get<uint64_t>();
    EXPECT_GT(replays, 0u) << "some accesses met a page in migration";
    EXPECT_EQ(s["data_check"]["mismatches"], 0);
    // The same driver without the invalidation: writes through stale TLB
    // entries land in the old frames after the copy, and the data check sees
    // them lost (a region beyond the TLBs' reach, so old and new frames mix).
    SimRun broken = sim("--workload random-sample --set sm.count=4 --set sm.warps=4"
                        " --set workload.region_bytes=16777216 --set workload.accesses=64"
                        " --set contexts=2 --set migrate.interval_cycles=300"
                        " --set migrate.invalidate=false --quiet --out " + out);
    EXPECT_EQ(broken.status, 1) << broken.out;
    EXPECT_NE(broken.out.find("data check failed"), std::string::npos) << broken.out;
}
