// The tlb-probe analysis on measured, noisy curves (#43): synthetic curves of
// planted hierarchies with added noise must give back the planted levels; the
// H200 measurements (experiments/h200/measured/chase.csv) must give the two
// levels its curves show; gmmu-tlb-analyse writes the probe's JSON and refuses
// bad input with one line and exit status 2.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include <nlohmann/json.hpp>

#include "gmmu/gpu/workloads/tlb_probe.h"

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;

struct planted {
    uint64_t entries, page;
    double delay;
};

// karnagel-damon17's curve of a fully associative hierarchy: past the reach
// E x max(s, P) of a level, an access misses it once per page at strides
// below the page (D x s / P) and every time at or above it (D). The noise is
// Gaussian with a spread that grows for short chains, as on the H200 (a
// short pass's timing wobbles more): sigma x (1 + 16 / n).
std::vector<gmmu::probe_point> synth(const std::vector<planted> &lv, double sigma, unsigned seed,
                                     uint64_t smin, uint64_t smax, uint64_t dmax)
{
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0.0, 1.0);
    std::vector<gmmu::probe_point> pts;
    for (uint64_t s = smin; s <= smax; s *= 2) {
        std::vector<uint64_t> ns;
        for (uint64_t o = 4; o <= 16384; o *= 2)
            for (uint64_t q = 0; q < 4; q++)
                if (o + o * q / 4 <= 16384 && (o + o * q / 4) * s <= dmax)
                    ns.push_back(o + o * q / 4);
        for (uint64_t n : ns) {
            double y = 270;
            for (const planted &l : lv)
                if (n * s > l.entries * std::max(s, l.page))
                    y += l.delay * std::min(1.0, double(s) / double(l.page));
            y += sigma * (1 + 16.0 / double(n)) * noise(rng);
            pts.push_back({s, n, y});
        }
    }
    return pts;
}

void expect_levels(const nlohmann::json &j, const std::vector<planted> &want, double delay_tol)
{
    const auto &lv = j["levels"];
    ASSERT_EQ(lv.size(), want.size()) << j["levels"].dump(1);
    for (size_t i = 0; i < want.size(); i++) {
        SCOPED_TRACE("level " + std::to_string(i + 1));
        EXPECT_EQ(lv[i]["entries"].get<uint64_t>(), want[i].entries);
        EXPECT_EQ(lv[i]["page_bytes"].get<uint64_t>(), want[i].page);
        EXPECT_EQ(lv[i]["reach_bytes"].get<uint64_t>(), want[i].entries * want[i].page);
        EXPECT_NEAR(lv[i]["miss_delay_cycles"].get<double>(), want[i].delay, delay_tol * want[i].delay);
        EXPECT_FALSE(lv[i].contains("page_bytes_max"));
    }
}

// One level, four seeds, three noise levels.
TEST(TlbAnalyseTest, FindsOnePlantedLevelUnderNoise)
{
    const std::vector<planted> want = {{64, 2 * MiB, 60}};
    for (double sigma : {0.2, 0.5, 1.0})
        for (unsigned seed = 1; seed <= 4; seed++) {
            SCOPED_TRACE("sigma " + std::to_string(sigma) + " seed " + std::to_string(seed));
            auto pts = synth(want, sigma, seed, 64 * KiB, 64 * MiB, 64 * GiB);
            expect_levels(gmmu::probe_analyze_points(pts, 0.1), want, 0.1);
        }
}

// Three levels with three pages, four seeds, three noise levels.
TEST(TlbAnalyseTest, FindsThreePlantedLevelsUnderNoise)
{
    const std::vector<planted> want = {{16, 64 * KiB, 40}, {256, 2 * MiB, 100}, {1024, 16 * MiB, 250}};
    for (double sigma : {0.2, 0.5, 1.0})
        for (unsigned seed = 1; seed <= 4; seed++) {
            SCOPED_TRACE("sigma " + std::to_string(sigma) + " seed " + std::to_string(seed));
            auto pts = synth(want, sigma, seed, 4 * KiB, 256 * MiB, 64 * GiB);
            expect_levels(gmmu::probe_analyze_points(pts, 0.1), want, 0.1);
        }
}

// Without noise the analysis is the deterministic one: every rise is found
// at its exact bracket, the delays are exact.
TEST(TlbAnalyseTest, NoiselessCurvesGiveExactDelays)
{
    const std::vector<planted> want = {{16, 64 * KiB, 40}, {256, 2 * MiB, 100}, {1024, 16 * MiB, 250}};
    auto pts = synth(want, 0.0, 1, 4 * KiB, 256 * MiB, 64 * GiB);
    nlohmann::json j = gmmu::probe_analyze_points(pts, 0.1);
    expect_levels(j, want, 0.0);
    EXPECT_TRUE(j["unresolved"].empty()) << j["unresolved"].dump(1);
}

// ---- the H200 ----------------------------------------------------------------------------
const std::string h200_csv = std::string(GMMU_SOURCE_DIR) + "/experiments/h200/measured/chase.csv";

std::vector<gmmu::probe_point> h200(const std::string &run)
{
    std::vector<gmmu::probe_point> pts;
    std::string e = gmmu::probe_read_csv(h200_csv, run, pts);
    EXPECT_EQ(e, "");
    return pts;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// The rise of stride s's curve at distance R as read by eye: the median of
// the points in (R, 4R] minus the median of those in [R/4, R].
double rise_at(const std::vector<gmmu::probe_point> &pts, uint64_t s, uint64_t R)
{
    std::vector<double> lo, hi;
    for (const auto &p : pts) {
        if (p.stride != s)
            continue;
        const uint64_t x = p.stride * p.elements;
        if (x > R && x <= 4 * R)
            hi.push_back(p.cycles);
        if (x <= R && 4 * x >= R)
            lo.push_back(p.cycles);
    }
    EXPECT_FALSE(lo.empty() || hi.empty());
    return median(hi) - median(lo);
}

// The README's reading of the curves: an L1 of 16 entries of 16 MiB (flat
// to 256 MiB at strides <= 16 MiB, to 16 x s above), an L2 reaching 64 GiB
// whose rise still doubles from 16 to 32 MiB (so its page is 32 MiB or more;
// the file has no 64 MiB stride and the 128 MiB sweep ends at 112 GiB, which
// rules out 128 MiB: the page is 32 or 64 MiB).
TEST(TlbAnalyseTest, H200HasTwoLevelsInEachRun)
{
    for (const char *run : {"A", "B"}) {
        SCOPED_TRACE(std::string("run ") + run);
        auto pts = h200(run);
        nlohmann::json j = gmmu::probe_analyze_points(pts, 0.1);
        const auto &lv = j["levels"];
        ASSERT_EQ(lv.size(), 2u) << lv.dump(1);
        EXPECT_EQ(lv[0]["entries"].get<uint64_t>(), 16u);
        EXPECT_EQ(lv[0]["page_bytes"].get<uint64_t>(), 16 * MiB);
        EXPECT_EQ(lv[0]["reach_bytes"].get<uint64_t>(), 256 * MiB);
        EXPECT_FALSE(lv[0].contains("page_bytes_max"));
        EXPECT_EQ(lv[1]["entries"].get<uint64_t>(), 2048u);
        EXPECT_EQ(lv[1]["page_bytes"].get<uint64_t>(), 32 * MiB);
        EXPECT_EQ(lv[1]["page_bytes_max"].get<uint64_t>(), 64 * MiB);
        EXPECT_EQ(lv[1]["reach_bytes"].get<uint64_t>(), 64 * GiB);
        // Miss delays within 15% of the rises measured in this run: the L1's
        // at every stride >= its page whose reach the sweep passes (median),
        // the L2's at its largest stride (32 MiB; a lower bound of its delay).
        std::vector<double> l1;
        for (uint64_t s : {16 * MiB, 32 * MiB, 128 * MiB, 256 * MiB, 512 * MiB, 1024 * MiB})
            l1.push_back(rise_at(pts, s, 16 * s));
        const double r1 = median(l1), r2 = rise_at(pts, 32 * MiB, 64 * GiB);
        EXPECT_NEAR(lv[0]["miss_delay_cycles"].get<double>(), r1, 0.15 * r1);
        EXPECT_NEAR(lv[1]["miss_delay_cycles"].get<double>(), r2, 0.15 * r2);
        EXPECT_NEAR(lv[1]["miss_delay_cycles_max"].get<double>(), 2 * r2, 0.3 * r2);
        // Each level's evidence holds the strides that show it.
        EXPECT_GE(lv[0]["evidence"].size(), 4u);
        EXPECT_EQ(lv[1]["evidence"].size(), 4u);
    }
}

// ---- the command -------------------------------------------------------------------------
struct result {
    int status;
    std::string err;
};

result analyse(const std::string &args)
{
    const std::string errf = (std::filesystem::path(::testing::TempDir()) / "gmmu_tlb_analyse.err").string();
    const std::string cmd = std::string(GMMU_TLB_ANALYSE_BIN) + " " + args + " >/dev/null 2>" + errf;
    const int rc = std::system(cmd.c_str());
    std::ifstream in(errf);
    std::stringstream ss;
    ss << in.rdbuf();
    return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, ss.str()};
}

std::string tmp(const std::string &name)
{
    auto d = std::filesystem::path(::testing::TempDir()) / ("gmmu_tlb_analyse_" + name);
    std::filesystem::remove_all(d);
    return d.string();
}

TEST(TlbAnalyseTest, CommandWritesTheProbesJson)
{
    const std::string out = tmp("out");
    result r = analyse(h200_csv + " --run B --out " + out);
    ASSERT_EQ(r.status, 0) << r.err;
    std::ifstream in(out + "/tlb_probe.json");
    nlohmann::json j = nlohmann::json::parse(in);
    nlohmann::json want = gmmu::probe_analyze_points(h200("B"), 0.1);
    EXPECT_EQ(j["levels"], want["levels"]);
    EXPECT_EQ(j["unresolved"], want["unresolved"]);
    EXPECT_EQ(j["method"]["source"]["run"], "B");
    EXPECT_TRUE(std::filesystem::is_regular_file(out + "/tlb_probe.csv"));
    for (auto &e : std::filesystem::directory_iterator(out)) // no temporary files left
        EXPECT_TRUE(e.path().filename() == "tlb_probe.json" || e.path().filename() == "tlb_probe.csv")
            << e.path();
}

TEST(TlbAnalyseTest, CommandRefusesBadInputWithOneLine)
{
    const std::string out = tmp("bad"), dir = tmp("csvs");
    std::filesystem::create_directories(dir);
    auto write = [&](const std::string &name, const std::string &text) {
        std::ofstream(dir + "/" + name) << text;
        return dir + "/" + name;
    };
    const std::string hdr = "run,stride_bytes,chain_length,distance_bytes,cycles_per_access\n";
    struct bad {
        std::string args, want;
    } cases[] = {
        {dir + "/missing.csv --run A --out " + out, "missing.csv: cannot open"},
        {write("letters.csv", hdr + "A,1024,4,4096,270\nA,1024,x,5120,271\n") + " --run A --out " + out,
         "letters.csv:3: chain_length 'x'"},
        {write("fields.csv", hdr + "A,1024,4,4096\n") + " --out " + out, "fields.csv:2: 4 fields"},
        {write("dist.csv", hdr + "A,1024,4,4097,270\n") + " --out " + out, "dist.csv:2: distance_bytes"},
        {write("npot.csv", hdr + "A,1000,4,4000,270\n") + " --out " + out, "npot.csv:2: stride_bytes 1000"},
        {write("dup.csv", hdr + "A,1024,4,4096,270\nA,1024,4,4096,271\n") + " --out " + out,
         "dup.csv:3: a second point"},
        {write("nohdr.csv", "A,1024,4,4096,270\n") + " --out " + out, "nohdr.csv:1: header has no column"},
        {write("nan.csv", hdr + "A,1024,4,4096,nan\n") + " --out " + out, "nan.csv:2: cycles_per_access"},
        {h200_csv + " --run C --out " + out, "--run 'C': no such run"},
        {h200_csv + " --out " + out, "choose one with --run"},
        {h200_csv + " --run A", "--out DIR is required"},
        {h200_csv + " --run A --out " + out + " --frobnicate", "unknown option '--frobnicate'"},
        {"--run A --out " + out, "no CSV given"},
        {dir + " --run A --out " + out, "is a folder"},
    };
    for (const bad &c : cases) {
        SCOPED_TRACE(c.args);
        result r = analyse(c.args);
        EXPECT_EQ(r.status, 2);
        EXPECT_NE(r.err.find(c.want), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(std::filesystem::exists(out + "/tlb_probe.json"));
    }
    // A failed call leaves an earlier output as it was.
    ASSERT_EQ(analyse(h200_csv + " --run A --out " + out).status, 0);
    std::ifstream a(out + "/tlb_probe.json");
    std::stringstream before;
    before << a.rdbuf();
    EXPECT_EQ(analyse(dir + "/letters.csv --run A --out " + out).status, 2);
    std::ifstream b(out + "/tlb_probe.json");
    std::stringstream after;
    after << b.rdbuf();
    EXPECT_EQ(before.str(), after.str());
}

} // namespace
