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

} // namespace
