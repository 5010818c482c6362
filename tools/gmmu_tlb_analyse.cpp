// gmmu-tlb-analyse: karnagel-damon17's TLB analysis of a measured chase CSV.
//   gmmu-tlb-analyse CSV [--run NAME] --out DIR
// Reads the pointer-chase curves of one run (docs/tlb_probe.md section 3 gives
// the format), finds the TLB levels with the analysis the in-simulator
// `tlb-probe` uses, and writes DIR/tlb_probe.json (the probe's schema) and
// DIR/tlb_probe.csv (the points analysed, as the probe writes them), each
// atomically. Exit status: 0 success, 2 bad input (one line on stderr).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "gmmu/gpu/outputs.h"
#include "gmmu/gpu/workloads/tlb_probe.h"

namespace {

constexpr double tau_floor = 0.1; // the in-simulator probe's threshold: the floor

int bad_input(const std::string &msg)
{
    std::fprintf(stderr, "gmmu-tlb-analyse: error: %s\n", msg.c_str());
    return 2;
}

const char *usage = "usage: gmmu-tlb-analyse CSV [--run NAME] --out DIR\n"
                    "  CSV   pointer-chase measurements: header run,stride_bytes,chain_length,"
                    "cycles_per_access (docs/tlb_probe.md)\n"
                    "  --run NAME  the run to analyse (needed when the file holds several)\n"
                    "  --out DIR   folder for tlb_probe.json and tlb_probe.csv (created)\n";

} // namespace

int main(int argc, char **argv)
{
    std::string csv, run, out;
    bool have_run = false, have_out = false;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            std::fputs(usage, stdout);
            return 0;
        }
        if (a == "--run" || a == "--out") {
            if (i + 1 >= argc)
                return bad_input(a + ": needs a value");
            (a == "--run" ? run : out) = argv[++i];
            (a == "--run" ? have_run : have_out) = true;
            continue;
        }
        if (a.rfind("--run=", 0) == 0 || a.rfind("--out=", 0) == 0) {
            const bool r = a[2] == 'r';
            (r ? run : out) = a.substr(6);
            (r ? have_run : have_out) = true;
            continue;
        }
        if (a.size() > 1 && a[0] == '-')
            return bad_input("unknown option '" + a + "' (see --help)");
        if (!csv.empty())
            return bad_input("a second CSV '" + a + "': one file per call");
        csv = a;
    }
    if (csv.empty())
        return bad_input("no CSV given (see --help)");
    if (!have_out || out.empty())
        return bad_input("--out DIR is required");
    if (have_run && run.empty())
        return bad_input("--run: empty run name");

    std::vector<gmmu::probe_point> points;
    if (std::string e = gmmu::probe_read_csv(csv, run, points); !e.empty())
        return bad_input(e);

    nlohmann::json j = gmmu::probe_analyze_points(points, tau_floor);
    j["method"]["source"] = {{"csv", csv}, {"run", run}};

    std::error_code ec;
    std::filesystem::create_directories(out, ec);
    if (ec || !std::filesystem::is_directory(out))
        return bad_input("--out '" + out + "': not a folder I can create" +
                         (ec ? ": " + ec.message() : std::string()));
    if (std::string e = gmmu::write_atomic(out + "/tlb_probe.json", j.dump(2) + "\n"); !e.empty())
        return bad_input("cannot write " + e);
    std::sort(points.begin(), points.end(), [](const gmmu::probe_point &a, const gmmu::probe_point &b) {
        return a.stride != b.stride ? a.stride < b.stride : a.elements < b.elements;
    });
    std::string text = "stride,distance,cycles_per_access\n";
    for (const gmmu::probe_point &p : points) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%" PRIu64 ",%" PRIu64 ",%.4f\n", p.stride, p.stride * p.elements,
                      p.cycles);
        text += buf;
    }
    if (std::string e = gmmu::write_atomic(out + "/tlb_probe.csv", text); !e.empty())
        return bad_input("cannot write " + e);
    std::printf("%zu level(s), %zu unresolved: %s/tlb_probe.json\n", j["levels"].size(),
                j["unresolved"].size(), out.c_str());
    return 0;
}
