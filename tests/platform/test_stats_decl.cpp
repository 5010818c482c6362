// Statistics are declared once (components/stats.h): docs/stats.md is made
// from the declarations, and every counter a run writes is declared.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "gmmu/components/stats.h"
#include "gmmu/gpu/platform.h"

namespace {

void leaves(const nlohmann::json &j, const std::string &path, std::vector<std::string> &out)
{
    if (j.is_object()) {
        for (auto &[k, v] : j.items())
            leaves(v, path.empty() ? k : path + "." + k, out);
        return;
    }
    out.push_back(path);
}

} // namespace

TEST(StatsDeclTest, DocsStatsMdIsGeneratedFromTheDeclarations)
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/docs/stats.md");
    ASSERT_TRUE(in) << "docs/stats.md missing";
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str(), want = gmmu::stats_markdown();
    ASSERT_GE(doc.size(), want.size());
    EXPECT_EQ(doc.substr(doc.size() - want.size()), want)
        << "docs/stats.md is out of date (scripts/gen-docs.sh)";
    // Every component kind that counts has a section.
    std::set<std::string> titles;
    for (auto &s : gmmu::stat_sections())
        titles.insert(s.title.substr(0, s.title.find(' ')));
    for (const char *t : {"Top", "TLB", "Page-table", "PICLE", "SM", "Issue/commit", "Data", "Memory",
                          "Driver", "Fault"})
        EXPECT_TRUE(titles.count(t)) << t;
}

TEST(StatsDeclTest, EveryCounterOfTheGoldenRunsIsDeclared)
{
    std::set<std::string> declared;
    for (auto &s : gmmu::stat_sections())
        for (auto &r : s.rows)
            declared.insert(r.key);
    const std::filesystem::path dir = std::string(GMMU_SOURCE_DIR) + "/tests/golden/stats";
    unsigned files = 0, keys = 0;
    for (auto &e : std::filesystem::directory_iterator(dir)) {
        std::ifstream f(e.path());
        const nlohmann::json j = nlohmann::json::parse(f);
        std::vector<std::string> ls;
        leaves(j, "", ls);
        files++;
        for (const std::string &path : ls) {
            // gpu.l1_tlb0.mshr.allocated -> l1_tlb0.mshr.allocated -> mshr.allocated
            bool found = false;
            for (size_t at = 0; !found && at != std::string::npos;) {
                found = declared.count(path.substr(at)) != 0;
                const size_t dot = path.find('.', at);
                at = dot == std::string::npos ? dot : dot + 1;
            }
            EXPECT_TRUE(found) << e.path().filename() << ": " << path << " is not declared";
            keys++;
        }
    }
    EXPECT_GT(files, 20u);
    EXPECT_GT(keys, 1000u);
}

TEST(StatsDeclTest, ConditionalGroupsAppearOnlyWhereTheirComponentHasThem)
{
    auto load = [](const std::string &name) {
        std::ifstream f(std::string(GMMU_SOURCE_DIR) + "/tests/golden/stats/" + name + ".json");
        return nlohmann::json::parse(f);
    };
    const nlohmann::json plain = load("default-random"), mshr = load("default-mshr");
    EXPECT_FALSE(plain["gpu"]["l1_tlb0"].contains("mshr"));
    ASSERT_TRUE(mshr["gpu"]["l1_tlb0"].contains("mshr"));
    EXPECT_TRUE(mshr["gpu"]["l1_tlb0"]["mshr"].contains("allocated"));
    EXPECT_FALSE(plain["gpu"]["ptw"].contains("pwc"));
}

TEST(StatsDeclTest, RunStatsComeFromTheTopLevelTable)
{
    gmmu::run_result r;
    r.warp_accesses = 10;
    r.wall_s = 2;
    r.interrupted_by = 2;
    const nlohmann::json j = gmmu::run_stats(r, 7);
    EXPECT_EQ(j["warp_accesses_per_wall_s"], 5.0);
    EXPECT_EQ(j["seed"], 7u);
    EXPECT_EQ(j["completed"], false);
    EXPECT_TRUE(j["data_check"].is_object());
}
