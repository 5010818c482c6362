// Input generators of the real kernels (gmmu/kernel_inputs.h): the
// `inputs` line, the layout check, and each generator's data structure,
// checked against what the benchmark's own code builds.
#include <gtest/gtest.h>

#include "kernel_inputs_test_util.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include "gmmu/kernel_inputs.h"
#include "gmmu/kernels.h"
#include "gmmu/rng.h"
#include "gmmu/sm_issue.h"
}

namespace {

// A kernel file's header for generator `line` with the given regions, and
// one instruction.
std::unique_ptr<gmmu_kernel> parse(const std::string &regions, const std::string &line, gmmu_error *err,
                                   gmmu_status *st)
{
    auto k = std::make_unique<gmmu_kernel>();
    const std::string text = "kernel t\n" + regions + line + "\ncode\n  addi r4, r0, 1\n";
    *st = gmmu_kernel_parse(k.get(), text.data(), text.size(), err);
    return k;
}

filled_regions fill(const gmmu_kernel &k, uint64_t seed) { return fill_regions(k, seed); }

TEST(KernelInputsTest, TheInputsLineSetsTheGeneratorAndItsArguments)
{
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input 2720\nregion input 272\nregion output 80\n",
                   "inputs kmeans points=10 features=34 clusters=1", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_kernel_inputs_arg(k.get(), "points"), 10u);
    EXPECT_EQ(gmmu_kernel_inputs_arg(k.get(), "features"), 34u);
    EXPECT_EQ(gmmu_kernel_inputs_arg(k.get(), "clusters"), 1u);
    EXPECT_EQ(gmmu_kernel_inputs_arg(k.get(), "nope"), 0u);
    EXPECT_EQ(k->inputs.line, 5u); // after the kernel line and three regions
    // Left out: the default (5 clusters).
    k = parse("region input 2720\nregion input 1360\nregion output 80\n", "inputs kmeans points=10", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    EXPECT_EQ(gmmu_kernel_inputs_arg(k.get(), "clusters"), 5u);
    // No inputs line: no generator, and nothing to check.
    auto plain = std::make_unique<gmmu_kernel>();
    const std::string text = "kernel p\nregion input 64\ncode\n addi r4, r0, 1\n";
    ASSERT_EQ(gmmu_kernel_parse(plain.get(), text.data(), text.size(), &err), GMMU_OK);
    EXPECT_EQ(plain->inputs.gen, 0u);
    EXPECT_EQ(gmmu_kernel_inputs_check(plain.get(), &err), GMMU_OK);
}

TEST(KernelInputsTest, BadInputsLinesAndLayoutsNameTheLineAndWhatIsWrong)
{
    struct Bad {
        std::string regions, line, want;
    } bad[] = {
        {"region input 64\n", "inputs nosuch", "line 3: unknown input generator 'nosuch'"},
        {"region input 64\n", "inputs kmeans size=3", "line 3: kmeans has no argument 'size'"},
        {"region input 64\n", "inputs kmeans points", "line 3: 'points' is not key=value"},
        {"region input 64\n", "inputs kmeans points=0", "'points' needs a number 1..2147483648, got '0'"},
        {"region input 64\n", "inputs kmeans points=-4", "'points' needs a number"},
        {"region input 64\n", "inputs kmeans points=1 points=2", "'points' given twice"},
        {"region input 64\n", "inputs memcached buckets=3", "buckets must be a power of two"},
        {"region input 64\n", "inputs streamcluster points=4 centres=5", "centres must not exceed points"},
        // The layout: the count, then each region's kind and size, named at
        // the inputs line.
        {"region input 64\n", "inputs kmeans points=10 features=2 clusters=1",
         "line 3: kmeans lays out 3 regions; the kernel declares 1"},
        {"region input 64\nregion input 64\nregion input 64\n", "inputs kmeans points=10 features=2 clusters=1",
         "line 5: kmeans: region 2 holds the membership (a word per point): region output 80"},
        {"region input 200000\nregion input 64\nregion output 64\n",
         "inputs kmeans points=10 features=2 clusters=1",
         "line 5: kmeans: region 0 holds the features (points x features words, feature-major): region "
         "input 160"},
    };
    for (const Bad &b : bad) {
        gmmu_error err{};
        gmmu_status st;
        parse(b.regions, b.line, &err, &st);
        EXPECT_EQ(st, GMMU_EINVAL) << b.line;
        EXPECT_NE(std::string(err.msg).find(b.want), std::string::npos) << b.line << " -> " << err.msg;
    }
    // Twice.
    gmmu_error err{};
    gmmu_status st;
    parse("region input 64\n", "inputs kmeans\ninputs kmeans", &err, &st);
    EXPECT_NE(std::string(err.msg).find("line 4: 'inputs' given twice (first on line 3)"), std::string::npos)
        << err.msg;
}

// kmeans: feature-major features in 0..65535; each centre is a copy of one
// point's features.
TEST(KernelInputsTest, KmeansCentresAreCopiesOfPoints)
{
    const uint64_t n = 1000, f = 7, c = 4;
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input " + std::to_string(n * f * 8) + "\nregion input " + std::to_string(c * f * 8) +
                       "\nregion output " + std::to_string(n * 8) + "\n",
                   "inputs kmeans points=1000 features=7 clusters=4", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 1);
    std::set<uint64_t> distinct;
    for (uint64_t i = 0; i < n * f; i++) {
        EXPECT_LT(d.w[0][i], 65536u);
        distinct.insert(d.w[0][i]);
    }
    EXPECT_GT(distinct.size(), n * f / 2); // uniform, not constant
    for (uint64_t j = 0; j < c; j++) {
        bool found = false;
        for (uint64_t p = 0; p < n && !found; p++) {
            bool all = true;
            for (uint64_t x = 0; x < f; x++)
                all &= d.w[1][j * f + x] == d.w[0][x * n + p];
            found = all;
        }
        EXPECT_TRUE(found) << "centre " << j;
    }
    for (uint64_t i = 0; i < n; i++)
        EXPECT_EQ(d.w[2][i], 0u); // the output region is left alone
    // Deterministic in the seed; another seed, another data set.
    filled_regions again = fill(*k, 1), other = fill(*k, 2);
    EXPECT_EQ(d.w, again.w);
    EXPECT_NE(d.w[0], other.w[0]);
}

// streamcluster: every point is assigned to its nearest open centre, its
// cost the squared distance (weight 1); the centre table numbers the
// centres; each point's coordinate pointer is its first coordinate's VA.
TEST(KernelInputsTest, StreamclusterPointsAreAssignedToTheirNearestCentre)
{
    const uint64_t n = 300, dim = 5, nc = 6;
    gmmu_error err{};
    gmmu_status st;
    std::ostringstream r;
    r << "region input " << n * dim * 8 << "\nregion input " << n * 32 << "\nregion input " << n * 8
      << "\nregion output " << n * 8 << "\nregion output " << n * (nc + 1) * 8 << "\n";
    auto k = parse(r.str(), "inputs streamcluster points=300 dim=5 centres=6", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 3);
    auto dist = [&](uint64_t a, uint64_t b) {
        uint64_t s = 0;
        for (uint64_t x = 0; x < dim; x++) {
            const int64_t df = int64_t(d.w[0][x * n + a]) - int64_t(d.w[0][x * n + b]);
            s += uint64_t(df * df);
        }
        return s;
    };
    std::set<uint64_t> centres;
    for (uint64_t p = 0; p < n; p++)
        centres.insert(d.w[1][4 * p + 2]);
    EXPECT_LE(centres.size(), nc);
    std::set<uint64_t> numbers;
    for (uint64_t c : centres)
        numbers.insert(d.w[2][c]);
    EXPECT_EQ(numbers.size(), centres.size()); // distinct numbers 0..nc-1
    for (uint64_t v : numbers)
        EXPECT_LT(v, nc);
    for (uint64_t p = 0; p < n; p++) {
        const uint64_t a = d.w[1][4 * p + 2];
        EXPECT_EQ(d.w[1][4 * p + 0], 1u);
        EXPECT_EQ(d.w[1][4 * p + 1], k->region[0].base + p * 8);
        EXPECT_EQ(d.w[1][4 * p + 3], dist(p, a));
        for (uint64_t c : centres)
            EXPECT_LE(dist(p, a), dist(p, c)) << "point " << p;
    }
}

// memcached: every item is on its bucket's chain (bucket = the kernel's
// sfu hash of its key), every request key is an item's, and the request
// popularity is Zipf: the most popular key takes about 1/zeta(n) of them.
TEST(KernelInputsTest, MemcachedChainsHoldEveryItemAndRequestsFollowZipf)
{
    const uint64_t n = 4096, nb = 1024, nr = 50000;
    gmmu_error err{};
    gmmu_status st;
    std::ostringstream r;
    r << "region input " << nb * 8 << "\nregion input " << n * 64 << "\nregion input " << nr * 8
      << "\nregion output " << nr * 8 << "\n";
    auto k = parse(r.str(), "inputs memcached items=4096 buckets=1024 requests=50000", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 1);
    const uint64_t items = k->region[1].base;
    std::set<uint64_t> keys;
    uint64_t chained = 0;
    gmmu_insn sfu{};
    sfu.op = GMMU_OP_SFU;
    for (uint64_t b = 0; b < nb; b++)
        for (uint64_t va = d.w[0][b]; va != 0; va = d.w[1][(va - items) / 8 + 1]) {
            ASSERT_EQ((va - items) % 64, 0u);
            ASSERT_LT((va - items) / 64, n);
            const uint64_t key = d.w[1][(va - items) / 8];
            EXPECT_EQ(gmmu_op_alu(&sfu, key, 0, 0) & (nb - 1), b);
            keys.insert(key);
            chained++;
        }
    EXPECT_EQ(chained, n);
    EXPECT_EQ(keys.size(), n);
    std::map<uint64_t, uint64_t> count;
    for (uint64_t i = 0; i < nr; i++) {
        EXPECT_TRUE(keys.count(d.w[2][i])) << "request " << i;
        count[d.w[2][i]]++;
    }
    uint64_t top = 0;
    for (auto &kv : count)
        top = std::max(top, kv.second);
    double zeta = 0;
    for (uint64_t i = 1; i <= n; i++)
        zeta += std::pow(double(i), -0.99);
    const double want = double(nr) / zeta; // rank 0's share (scrambling may merge ranks: at least)
    EXPECT_GT(double(top), 0.85 * want);
    EXPECT_LT(double(top), 1.3 * want);
}

// pathfinder: cells uniform in 0..9, row 0 in its own region.
TEST(KernelInputsTest, PathfinderCellsAreDigits)
{
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input 16000\nregion input 800\nregion output 800\n", "inputs pathfinder cols=100 rows=21",
                   &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 1);
    std::vector<uint64_t> seen(10, 0);
    for (uint64_t i = 0; i < 2000; i++) {
        ASSERT_LT(d.w[0][i], 10u);
        seen[d.w[0][i]]++;
    }
    for (uint64_t i = 0; i < 100; i++)
        ASSERT_LT(d.w[1][i], 10u);
    for (uint64_t v = 0; v < 10; v++)
        EXPECT_GT(seen[v], 100u) << v; // about 200 each
}

// hotspot: temperatures in 323000..342999, power in 0..999, both uniform.
TEST(KernelInputsTest, HotspotGridsHoldTemperaturesAndPower)
{
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input 80000\nregion input 80000\nregion output 80000\n", "inputs hotspot rows=100 cols=100",
                   &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 1);
    uint64_t lo_t = UINT64_MAX, hi_t = 0, lo_p = UINT64_MAX, hi_p = 0;
    for (uint64_t i = 0; i < 10000; i++) {
        lo_t = std::min(lo_t, d.w[0][i]);
        hi_t = std::max(hi_t, d.w[0][i]);
        lo_p = std::min(lo_p, d.w[1][i]);
        hi_p = std::max(hi_p, d.w[1][i]);
    }
    EXPECT_GE(lo_t, 323000u);
    EXPECT_LT(lo_t, 323100u);
    EXPECT_LE(hi_t, 342999u);
    EXPECT_GT(hi_t, 342900u);
    EXPECT_LT(lo_p, 5u);
    EXPECT_GT(hi_p, 994u);
    EXPECT_LE(hi_p, 999u);
}

// backprop: units and weights in 0..65535, deltas too; the previous
// weight changes start at zero (an output region); inputs must be a
// multiple of 16.
TEST(KernelInputsTest, BackpropLayersAndTheirRule)
{
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input 264\nregion input 4488\nregion output 256\nregion input 136\nregion output 4488\n",
                   "inputs backprop inputs=32", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 2);
    std::set<uint64_t> w;
    for (uint64_t i = 0; i < 33 * 17; i++) {
        ASSERT_LT(d.w[1][i], 65536u);
        w.insert(d.w[1][i]);
        EXPECT_EQ(d.w[4][i], 0u);
    }
    EXPECT_GT(w.size(), 500u);
    for (uint64_t i = 0; i < 17; i++)
        EXPECT_LT(d.w[3][i], 65536u);
    parse("region input 64\n", "inputs backprop inputs=33", &err, &st);
    EXPECT_NE(std::string(err.msg).find("inputs must be a multiple of 16"), std::string::npos) << err.msg;
}

// lud: a diagonally dominant matrix (off-diagonal 0..65535, the diagonal
// 2^20 more), as Rodinia's create_matrix makes one that needs no pivoting;
// dim must be a multiple of 16.
TEST(KernelInputsTest, LudMatrixIsDiagonallyDominant)
{
    gmmu_error err{};
    gmmu_status st;
    auto k = parse("region input 18432\n", "inputs lud dim=48", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 3);
    std::set<uint64_t> off;
    for (uint64_t r = 0; r < 48; r++)
        for (uint64_t c = 0; c < 48; c++) {
            const uint64_t v = d.w[0][r * 48 + c];
            if (r == c) {
                EXPECT_GE(v, 1u << 20);
                EXPECT_LT(v, (1u << 20) + 65536u);
            } else {
                ASSERT_LT(v, 65536u);
                off.insert(v);
            }
        }
    EXPECT_GT(off.size(), 2000u);
    EXPECT_NE(fill(*k, 4).w[0], d.w[0]); // the seed decides the data
    parse("region input 18432\n", "inputs lud dim=40", &err, &st);
    EXPECT_NE(std::string(err.msg).find("dim must be a multiple of 16"), std::string::npos) << err.msg;
}

TEST(KernelInputsTest, ZipfDrawsFollowTheDistribution)
{
    gmmu_zipf z;
    gmmu_error err{};
    EXPECT_EQ(gmmu_zipf_init(&z, 1, 0.99, &err), GMMU_EINVAL);
    EXPECT_EQ(gmmu_zipf_init(&z, 100, 1.0, &err), GMMU_EINVAL);
    ASSERT_EQ(gmmu_zipf_init(&z, 1000, 0.99, &err), GMMU_OK);
    std::vector<uint64_t> c(1000, 0);
    uint64_t s = 42;
    const int N = 400000;
    for (int i = 0; i < N; i++) {
        s += GMMU_SPLITMIX64_GAMMA;
        const uint64_t r = gmmu_zipf_draw(&z, double(gmmu_mix64(s) >> 11) * 0x1.0p-53);
        ASSERT_LT(r, 1000u);
        c[r]++;
    }
    double zeta = 0;
    for (int i = 1; i <= 1000; i++)
        zeta += std::pow(double(i), -0.99);
    for (int r : {0, 1}) // exact for ranks 0 and 1; the rest approximately
        EXPECT_NEAR(double(c[size_t(r)]) / N, std::pow(double(r + 1), -0.99) / zeta, 0.004) << r;
    double head = 0, want = 0;
    for (int r = 0; r < 100; r++) {
        head += double(c[size_t(r)]) / N;
        want += std::pow(double(r + 1), -0.99) / zeta;
    }
    EXPECT_NEAR(head, want, 0.02);
    // The harmonic number of a large n, by the exact sum and the tail's integral.
    ASSERT_EQ(gmmu_zipf_init(&z, 3000000, 0.99, &err), GMMU_OK);
    double exact = 0;
    for (uint64_t i = 3000000; i >= 1; i--)
        exact += std::pow(double(i), -0.99);
    EXPECT_NEAR(z.zetan, exact, exact * 1e-9);
}

// The example kernels parse, and their regions match their generators.
TEST(KernelInputsTest, TheExampleKernelsParseWithTheirGenerators)
{
    for (const char *name : {"kmeans", "streamcluster", "pathfinder", "memcached", "bfs", "hotspot", "backprop", "lud"}) {
        std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/examples/kernels/" + name + ".gk");
        std::stringstream b;
        b << in.rdbuf();
        const std::string text = b.str();
        ASSERT_FALSE(text.empty()) << name;
        gmmu_program p{};
        gmmu_error err{};
        ASSERT_EQ(gmmu_program_parse(&p, text.data(), text.size(), &err), GMMU_OK) << name << ": " << err.msg;
        const gmmu_kernel *k = &p.kernel[0];
        EXPECT_STREQ(gmmu_inputs_name(k->inputs.gen - 1), name);
        uint64_t bytes = 0;
        for (uint32_t r = 0; r < k->nregions; r++)
            bytes += k->region[r].bytes;
        EXPECT_GT(bytes, 1ull << 30) << name; // footprints over 1 GiB, as the paper's
        // bfs: two kernels a level, while a node set the stop flag; backprop
        // two kernels once; lud three (its host loop's first iteration),
        // each with its own block shape and grid.
        const std::string nm = name;
        EXPECT_EQ(p.nkernels, nm == "bfs" || nm == "backprop" ? 2u : nm == "lud" ? 3u : 1u) << name;
        if (nm == "lud") {
            EXPECT_EQ(p.kernel[0].warps_per_block, 1u);
            EXPECT_EQ(p.kernel[0].grid_blocks, 1u);
            EXPECT_EQ(p.kernel[1].grid_blocks, 767u);
            EXPECT_EQ(p.kernel[2].warps_per_block, 8u);
            EXPECT_EQ(p.kernel[2].grid_blocks, 767u * 767u);
            EXPECT_EQ(p.kernel[2].shared_bytes, 4096u);
        }
        EXPECT_EQ(p.while_va != 0, std::string(name) == "bfs") << name;
        gmmu_program_free(&p);
    }
}

// The generators whose inputs GMMU_INPUTS_CACHE keeps (docs/kernels.md,
// "Simulation cost"): the three that take seconds to generate.
TEST(KernelInputsTest, SlowGeneratorsAreMummergpuStreamclusterAndMemcached)
{
    std::vector<std::string> slow;
    for (unsigned i = 0; i < gmmu_inputs_count(); i++)
        if (gmmu_inputs_slow(i))
            slow.push_back(gmmu_inputs_name(i));
    EXPECT_EQ(slow, (std::vector<std::string>{"streamcluster", "memcached", "mummergpu"}));
    EXPECT_FALSE(gmmu_inputs_slow(gmmu_inputs_count()));
}

TEST(KernelInputsTest, AccessShapeCountsPagesAndSpan)
{
    uint64_t a[32];
    for (unsigned l = 0; l < 32; l++)
        a[l] = 0x100000000000ull + l * 8; // one 256-byte run
    gmmu_sm_shape s;
    gmmu_sm_access_shape(a, 0xFFFFFFFFu, &s);
    EXPECT_EQ(s.pages_4k, 1u);
    EXPECT_EQ(s.pages_2m, 1u);
    EXPECT_EQ(s.span, 256u);
    for (unsigned l = 0; l < 32; l++)
        a[l] = 0x100000000000ull + uint64_t(l) * 1048576 + 3; // 1 MiB apart, unaligned
    gmmu_sm_access_shape(a, 0xFFFFFFFFu, &s);
    EXPECT_EQ(s.pages_4k, 32u);
    EXPECT_EQ(s.pages_2m, 16u);
    EXPECT_EQ(s.span, 31ull * 1048576 + 8);
    gmmu_sm_access_shape(a, 0x5u, &s); // lanes 0 and 2
    EXPECT_EQ(s.pages_4k, 2u);
    EXPECT_EQ(s.pages_2m, 2u);
    EXPECT_EQ(s.span, 2ull * 1048576 + 8);
    gmmu_sm_access_shape(a, 0, &s);
    EXPECT_EQ(s.pages_4k, 0u);
    EXPECT_EQ(s.span, 0u);
}

} // namespace

namespace {

// bfs: the CSR graph is graphgen's: every edge both ways (the lists, as
// multisets, are symmetric), 2..4 draws per node (mean degree 6), the
// source in the frontier and visited at cost 0, every other cost -1.
TEST(KernelInputsTest, BfsGraphIsSymmetricWithGraphgensDegrees)
{
    const uint64_t n = 2000;
    std::ostringstream r;
    r << "region input " << 2 * n * 8 << "\nregion input " << 8 * n * 8 << "\nregion input " << n * 8
      << "\nregion output " << n * 8 << "\nregion input " << n * 8 << "\nregion input " << n * 8
      << "\nregion output 8\n";
    gmmu_error err{};
    gmmu_status st;
    auto k = parse(r.str(), "inputs bfs nodes=2000", &err, &st);
    ASSERT_EQ(st, GMMU_OK) << err.msg;
    filled_regions d = fill(*k, 5);
    std::map<std::pair<uint64_t, uint64_t>, int> arcs;
    uint64_t total = 0, src = n, sources = 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t first = d.w[0][2 * i], cnt = d.w[0][2 * i + 1];
        EXPECT_EQ(first, total) << i; // rows back to back, in node order
        EXPECT_GE(cnt, 2u) << i;      // at least its own 2 draws
        total += cnt;
        for (uint64_t e = first; e < first + cnt; e++) {
            ASSERT_LT(d.w[1][e], n);
            arcs[{i, d.w[1][e]}]++;
        }
        if (d.w[2][i]) {
            src = i;
            sources++;
        }
    }
    for (const auto &a : arcs) { // i -> j as often as j -> i (a loop i -> i twice per draw)
        const auto back = arcs.find(std::make_pair(a.first.second, a.first.first));
        ASSERT_NE(back, arcs.end());
        EXPECT_EQ(a.second, back->second) << a.first.first << " " << a.first.second;
    }
    EXPECT_NEAR(double(total) / double(n), 6.0, 0.3);
    ASSERT_EQ(sources, 1u);
    EXPECT_EQ(d.w[4][src], 1u);
    EXPECT_EQ(d.w[5][src], 0u);
    for (uint64_t i = 0; i < n; i++) {
        if (i != src) {
            EXPECT_EQ(d.w[5][i], UINT64_MAX) << i;
        }
    }
}

gmmu_status parse_program(const std::string &text, gmmu_program *p, gmmu_error *err)
{
    return gmmu_program_parse(p, text.data(), text.size(), err);
}

// Programs: code sections, the launch order, the host loop, and the
// cursor's decisions.
TEST(KernelProgramTest, SectionsLaunchOrderAndHostLoop)
{
    const std::string text = "kernel prog\nregs 8\ngrid 2\nregion output 64\nlaunch b a b\n"
                             "repeat_while @0+8 5\n"
                             "code a\n  addi r4, r0, 1\n"
                             "code b\n  addi r4, r0, 2\n  bad r4\n";
    gmmu_program p{};
    gmmu_error err{};
    // An error inside a later section names the file's line.
    ASSERT_EQ(parse_program(text, &p, &err), GMMU_EINVAL);
    EXPECT_NE(std::string(err.msg).find("line 11: unknown instruction 'bad'"), std::string::npos) << err.msg;
    const std::string good = text.substr(0, text.size() - std::string("  bad r4\n").size()) + "  shli r5, r4, 1\n";
    ASSERT_EQ(parse_program(good, &p, &err), GMMU_OK) << err.msg;
    EXPECT_STREQ(p.name, "prog");
    ASSERT_EQ(p.nkernels, 2u);
    EXPECT_STREQ(p.kernel[0].name, "a");
    EXPECT_STREQ(p.kernel[1].name, "b");
    EXPECT_EQ(p.kernel[0].ninsns, 1u);
    EXPECT_EQ(p.kernel[1].ninsns, 2u);
    EXPECT_EQ(p.kernel[1].nregs, 8u); // the shared header
    EXPECT_EQ(p.kernel[1].grid_blocks, 2u);
    EXPECT_EQ(p.insn_line[GMMU_KERNEL_MAX_INSNS + 1], 11u);
    ASSERT_EQ(p.nsteps, 3u);
    EXPECT_EQ(p.step[0], 1u);
    EXPECT_EQ(p.step[1], 0u);
    EXPECT_EQ(p.step[2], 1u);
    EXPECT_EQ(p.while_va, p.kernel[0].region[0].base + 8);
    EXPECT_EQ(p.max_iters, 5u);
    // The host loop: three launches an iteration, another while the word is
    // set, a runaway after 5.
    gmmu_program_cursor c{};
    uint64_t clear = 0;
    gmmu_program_start(&p, &c, &clear);
    EXPECT_EQ(clear, p.while_va);
    std::vector<uint32_t> seq;
    gmmu_status st = GMMU_OK;
    for (int launches = 0; launches < 100 && !c.done; launches++) {
        seq.push_back(p.step[c.step]);
        st = gmmu_program_advance(&p, &c, /*word=*/seq.size() < 6 ? 1 : 0, &clear, &err);
        if (st != GMMU_OK)
            break;
        EXPECT_EQ(clear, c.step == 0 && !c.done ? p.while_va : 0u);
    }
    EXPECT_EQ(st, GMMU_OK);
    EXPECT_EQ(seq, (std::vector<uint32_t>{1, 0, 1, 1, 0, 1})); // the word read 0 after the second
    gmmu_program_start(&p, &c, &clear);
    int n = 0;
    while (!c.done && (st = gmmu_program_advance(&p, &c, 1, &clear, &err)) == GMMU_OK)
        n++;
    EXPECT_EQ(st, GMMU_EINVAL);
    EXPECT_EQ(n + 1, 15); // 5 iterations of 3 launches, the last one refused
    EXPECT_NE(std::string(err.msg).find("ran 5 iterations"), std::string::npos) << err.msg;
    gmmu_program_free(&p);
    // One code section, no launch line: one launch, then done.
    ASSERT_EQ(parse_program("kernel one\ncode\n  addi r4, r0, 1\n", &p, &err), GMMU_OK) << err.msg;
    EXPECT_EQ(p.nkernels, 1u);
    gmmu_program_start(&p, &c, &clear);
    EXPECT_EQ(clear, 0u);
    ASSERT_EQ(gmmu_program_advance(&p, &c, 7, &clear, &err), GMMU_OK);
    EXPECT_TRUE(c.done);
    gmmu_program_free(&p);
}

// A named section may open with its own regs, warps_per_block, grid and
// shared lines: they replace the shared header's for that section alone.
TEST(KernelProgramTest, SectionsMayHaveTheirOwnBlockShapeAndGrid)
{
    const std::string text = "kernel prog\nregs 8\nwarps_per_block 2\ngrid 5\nlaunch a b\n"
                             "code a\ngrid 1\nwarps_per_block 1\nshared 256\n  addi r4, r0, 1\n"
                             "code b\n  addi r4, r0, 2\n";
    gmmu_program p{};
    gmmu_error err{};
    ASSERT_EQ(parse_program(text, &p, &err), GMMU_OK) << err.msg;
    EXPECT_EQ(p.kernel[0].grid_blocks, 1u);
    EXPECT_EQ(p.kernel[0].warps_per_block, 1u);
    EXPECT_EQ(p.kernel[0].shared_bytes, 256u);
    EXPECT_EQ(p.kernel[0].nregs, 8u);
    EXPECT_EQ(p.insn_line[0], 10u);
    EXPECT_EQ(p.kernel[1].grid_blocks, 5u); // the header's
    EXPECT_EQ(p.kernel[1].warps_per_block, 2u);
    EXPECT_EQ(p.kernel[1].shared_bytes, 0u);
    // workload.grid_blocks: a window of each launch; a smaller grid keeps
    // its own (0 leaves the grids).
    gmmu_program_window(&p, 0);
    EXPECT_EQ(p.kernel[1].grid_blocks, 5u);
    gmmu_program_window(&p, 3);
    EXPECT_EQ(p.kernel[0].grid_blocks, 1u);
    EXPECT_EQ(p.kernel[1].grid_blocks, 3u);
    gmmu_program_free(&p);
    // One kernel: the key sets its grid, larger or smaller.
    ASSERT_EQ(parse_program("kernel one\ngrid 4\ncode\n  addi r4, r0, 1\n", &p, &err), GMMU_OK) << err.msg;
    gmmu_program_window(&p, 9);
    EXPECT_EQ(p.kernel[0].grid_blocks, 9u);
    gmmu_program_free(&p);
    struct Bad {
        std::string text, want;
    } bad[] = {
        // twice in one section
        {"kernel p\nlaunch a b\ncode a\ngrid 2\ngrid 3\n addi r4, r0, 1\ncode b\n addi r4, r0, 1\n",
         "line 5: 'grid' given twice in this section (first on line 4)"},
        // after the section's first instruction: an unknown instruction
        {"kernel p\nlaunch a b\ncode a\n addi r4, r0, 1\ngrid 2\ncode b\n addi r4, r0, 1\n",
         "line 5: unknown instruction 'grid'"},
        // a bad value
        {"kernel p\nlaunch a b\ncode a\nwarps_per_block 0\n addi r4, r0, 1\ncode b\n addi r4, r0, 1\n",
         "line 4: 'warps_per_block' needs one number 1..1048576"},
        // a file of one code section has no section header
        {"kernel p\ncode\ngrid 2\n addi r4, r0, 1\n", "line 3: unknown instruction 'grid'"},
    };
    for (const Bad &b : bad) {
        gmmu_program q{};
        EXPECT_EQ(parse_program(b.text, &q, &err), GMMU_EINVAL) << b.text;
        EXPECT_NE(std::string(err.msg).find(b.want), std::string::npos) << b.text << " -> " << err.msg;
    }
}

TEST(KernelProgramTest, BadProgramsNameTheLine)
{
    struct Bad {
        std::string text, want;
    } bad[] = {
        {"kernel p\ncode a\n addi r4, r0, 1\ncode b\n addi r4, r0, 1\n", "line 4: several code sections need a 'launch' line"},
        {"kernel p\nlaunch a c\ncode a\n addi r4, r0, 1\n", "line 2: 'launch': no code section 'c'"},
        {"kernel p\nlaunch a\nlaunch a\ncode a\n addi r4, r0, 1\n", "line 3: 'launch' given twice"},
        {"kernel p\nlaunch a\ncode a\n addi r4, r0, 1\ncode a\n addi r4, r0, 1\n", "line 5: code section 'a' given twice"},
        {"kernel p\nlaunch a\ncode a\n addi r4, r0, 1\ncode\n addi r4, r0, 1\n", "line 5: a program of several code sections names each one"},
        {"kernel p\nregion output 64\nrepeat_while @1 4\ncode\n addi r4, r0, 1\n", "line 3: 'repeat_while @R+OFFSET MAX'"},
        {"kernel p\nregion output 64\nrepeat_while @0+4 4\ncode\n addi r4, r0, 1\n", "line 3: 'repeat_while"},
        {"kernel p\nregion output 64\nrepeat_while @0 0\ncode\n addi r4, r0, 1\n", "line 3: 'repeat_while"},
        {"kernel p\ncode a\n addi r4, r0, 1\ncode b\n addi r4, r0, 1\ncode c\n addi r4, r0, 1\ncode d\n addi r4, r0, "
         "1\ncode e\n",
         "line 10: more than 4 code sections"},
    };
    for (const Bad &b : bad) {
        gmmu_program p{};
        gmmu_error err{};
        EXPECT_EQ(parse_program(b.text, &p, &err), GMMU_EINVAL) << b.text;
        EXPECT_NE(std::string(err.msg).find(b.want), std::string::npos) << b.text << " -> " << err.msg;
        EXPECT_EQ(p.kernel, nullptr);
    }
}

} // namespace
