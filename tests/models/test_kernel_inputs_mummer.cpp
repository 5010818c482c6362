// The mummergpu input generator (models/src/kernel_inputs_mummer.c) and
// its kernel (examples/kernels/mummergpu.gk): the suffix tree read back
// through the texels as the kernel reads them, MUMmerGPU's numbering and
// 32 x 32 blocks, the reads, determinism, and the kernel's matches against
// a plain walk of the tree.
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
}

namespace {

constexpr uint64_t kRoot = 0x10000; // texel (0, 1): id 1

struct Args {
    uint64_t ref = 3000, reads = 64, len = 100, err = 10, mml = 20, wide = 16;
};

// The regions the generator lays out for a (the texture: whole 32-row
// stripes of 4096 16-byte texels for 1.66 (ref + 2) + 4096 ids).
std::vector<uint64_t> region_bytes(const Args &a)
{
    const uint64_t m = a.ref + 2, ids = m + m * 66 / 100 + 4096;
    const uint64_t tex = (ids + (1u << 17) - 1) / (1u << 17) * 32 * 4096 * 16;
    return {tex,
            tex,
            (a.ref + 3) * 8,
            a.reads * (a.len + 2) * 8,
            a.reads * 8,
            a.reads * 8,
            a.reads * (a.len - a.mml + 1) * 8};
}

std::string header(const Args &a)
{
    std::ostringstream h;
    const auto b = region_bytes(a);
    for (size_t r = 0; r < b.size(); r++)
        h << "region " << (r < 6 ? "input " : "output ") << b[r] << "\n";
    // A line holds at most 6 tokens: the two left out are set separately.
    h << "inputs mummergpu ref=" << a.ref << " reads=" << a.reads << " read_len=" << a.len
      << " min_match=" << a.mml << "\n";
    return h.str();
}

std::unique_ptr<gmmu_kernel> kernel(const Args &a)
{
    auto k = std::make_unique<gmmu_kernel>();
    const std::string text = "kernel t\n" + header(a) + "code\n  addi r4, r0, 1\n";
    gmmu_error err{};
    EXPECT_EQ(gmmu_kernel_parse(k.get(), text.data(), text.size(), &err), GMMU_OK) << err.msg;
    // error_permille and wide_depth: the generator's arguments 3 and 5.
    k->inputs.arg[3] = a.err;
    k->inputs.arg[5] = a.wide;
    return k;
}

using Filled = filled_regions;
Filled fill(const gmmu_kernel &k, uint64_t seed) { return fill_regions(k, seed); }

uint64_t id2addr(uint64_t id)
{
    const uint64_t bigx = id & 0x1FFFF, bigy = id >> 17;
    return (bigx >> 5) | ((bigy << 5) + (bigx & 0x1F)) << 16;
}
uint64_t addr2id(uint64_t a)
{
    const uint64_t x = a & 0xFFFF, y = a >> 16;
    return (x << 5) + (y & 0x1F) + ((y >> 5) << 17);
}

// The tree as the kernel sees it: texel (x, y) at words (y * 4096 + x) * 2.
struct Tree {
    const std::vector<uint64_t> &node, &child, &ref;
    static uint64_t texel(uint64_t a) { return ((a >> 16) * 4096 + (a & 0xFFFF)) * 2; }
    uint64_t start(uint64_t a) const { return node[texel(a)] & 0xFFFFFFFF; }
    uint64_t end(uint64_t a) const { return node[texel(a)] >> 32; }
    uint64_t suffix(uint64_t a) const { return node[texel(a) + 1] & 0xFFFFFFFF; }
    uint64_t parent(uint64_t a) const { return node[texel(a) + 1] >> 32; }
    uint64_t next(uint64_t a, uint64_t c) const // c: 1..4 for A C G T
    {
        return (child[texel(a) + (c - 1) / 2] >> (32 * ((c - 1) & 1))) & 0xFFFFFFFF;
    }
    // The longest prefix of s[from..] spelled from the root.
    size_t match(const std::vector<uint64_t> &s, size_t from) const
    {
        uint64_t cur = kRoot;
        size_t i = from, l = 0;
        while (i < s.size() && s[i] >= 1 && s[i] <= 4) {
            const uint64_t nx = next(cur, s[i]);
            if (!nx)
                return l;
            for (uint64_t p = start(nx); p <= end(nx) && i < s.size(); p++, i++, l++)
                if (ref[p] != s[i])
                    return l;
            cur = nx;
        }
        return l;
    }
    uint64_t depth(uint64_t a) const // string depth
    {
        uint64_t d = 0;
        for (; a != kRoot; a = parent(a))
            d += end(a) - start(a) + 1;
        return d;
    }
};

// Every suffix of the reference is spelled from the root through the
// texels; a string that is not in the reference is not.
TEST(MummerInputsTest, TheSuffixTreeHoldsEverySuffixAndNothingElse)
{
    Args a;
    auto k = kernel(a);
    Filled f = fill(*k, 1);
    const auto &ref = f.w[2];
    ASSERT_EQ(ref[0], 6u); // 's'
    ASSERT_EQ(ref[a.ref + 1], 5u); // '$'
    Tree t{f.w[0], f.w[1], ref};
    std::vector<uint64_t> text(ref.begin() + 1, ref.begin() + 1 + a.ref);
    for (size_t i = 0; i < text.size(); i++)
        ASSERT_EQ(t.match(text, i), text.size() - i) << "suffix " << i;
    // Strings of 9 bases: ref has under 3000 of the 262144; the absent ones
    // stop short of their end, the present ones are spelled whole.
    std::string s(text.begin(), text.end());
    for (char &c : s)
        c = "ACGT"[c - 1];
    unsigned absent = 0;
    for (uint64_t x = 0; x < 2000; x++) {
        std::vector<uint64_t> q(9);
        std::string qs(9, 'A');
        uint64_t v = x * 2654435761u;
        for (unsigned i = 0; i < 9; i++, v >>= 2) {
            q[i] = 1 + (v & 3);
            qs[i] = "ACGT"[v & 3];
        }
        const bool in = s.find(qs) != std::string::npos;
        absent += !in;
        EXPECT_EQ(t.match(q, 0) == 9, in) << qs;
    }
    EXPECT_GT(absent, 1000u);
    // Suffix links: an internal node spelling cX links to the node spelling X.
    unsigned links = 0;
    for (uint64_t id = 2; id < 3 * a.ref; id++) {
        const uint64_t ad = id2addr(id);
        if (t.end(ad) == a.ref + 1 || t.node[Tree::texel(ad)] == 0)
            continue; // a leaf, or no node
        const uint64_t d = t.depth(ad), sl = t.suffix(ad);
        // The node's string: the text at its edge's end minus its depth.
        const uint64_t from = t.end(ad) + 1 - d;
        ASSERT_EQ(t.depth(sl), d - 1) << id;
        std::vector<uint64_t> str(ref.begin() + from + 1, ref.begin() + t.end(ad) + 1);
        EXPECT_EQ(t.match(str, 0), d - 1);
        links++;
    }
    EXPECT_GT(links, a.ref / 2);
}

// MUMmerGPU's renumberTree and id2addr: breadth first while the tree depth
// is under wide_depth (nodes of one depth take consecutive ids, so they
// share 32 x 32 blocks), then each deeper node's subtree four levels down
// in preorder (one subtree to a block).
TEST(MummerInputsTest, NodesShareBlocksByDepthNearTheRootAndBySubtreeBelow)
{
    Args a;
    a.wide = 3; // a 3000-base tree is 6-12 levels deep: both parts show
    auto k = kernel(a);
    Filled f = fill(*k, 1);
    Tree t{f.w[0], f.w[1], f.w[2]};
    // The tree back from the parent links: ids 1..n, none missing.
    std::map<uint64_t, std::vector<uint64_t>> kids; // by id, in A C G T $ s order
    std::map<uint64_t, unsigned> depth{{1, 0}};
    uint64_t n = 1;
    while (t.node[Tree::texel(id2addr(n + 1))] != 0)
        n++;
    EXPECT_GT(n, a.ref + 2);
    for (uint64_t id = 2; id <= n; id++)
        kids[addr2id(t.parent(id2addr(id)))].push_back(id);
    for (auto &kv : kids)
        std::sort(kv.second.begin(), kv.second.end(), [&](uint64_t x, uint64_t y) {
            return f.w[2][t.start(id2addr(x))] < f.w[2][t.start(id2addr(y))];
        });
    std::vector<uint64_t> order{1};
    for (size_t i = 0; i < order.size(); i++)
        for (uint64_t c : kids[order[i]]) {
            depth[c] = depth[order[i]] + 1;
            order.push_back(c);
        }
    ASSERT_EQ(order.size(), n); // every id reached from the root once
    // Near the root: ids grow with depth.
    unsigned maxdepth = 0;
    std::map<unsigned, std::pair<uint64_t, uint64_t>> span; // depth -> (min id, max id)
    for (auto &kv : depth) {
        maxdepth = std::max(maxdepth, kv.second);
        auto &s = span.try_emplace(kv.second, kv.first, kv.first).first->second;
        s.first = std::min(s.first, kv.first);
        s.second = std::max(s.second, kv.first);
    }
    ASSERT_GT(maxdepth, a.wide + 5);
    for (unsigned d = 0; d + 1 < a.wide + 1; d++)
        EXPECT_LT(span[d].second, span[d + 1].first) << "depth " << d;
    // Below: a node dequeued at depth >= wide_depth is followed by its
    // descendants one to four levels down, in preorder.
    unsigned tall = 0;
    for (uint64_t id = 1; id <= n; id++) {
        if (depth[id] != a.wide)
            continue;
        std::vector<uint64_t> pre;
        std::vector<std::pair<uint64_t, unsigned>> st{{id, 0}};
        while (!st.empty()) {
            auto [u, l] = st.back();
            st.pop_back();
            if (l)
                pre.push_back(u);
            if (l < 4)
                for (auto it = kids[u].rbegin(); it != kids[u].rend(); ++it)
                    st.push_back({*it, l + 1});
        }
        for (size_t i = 0; i < pre.size(); i++)
            ASSERT_EQ(pre[i], id + 1 + i) << "node " << id;
        tall += pre.size() > 1;
    }
    EXPECT_GT(tall, 10u);
    // id2addr: 32 ids down a column, then the next column of the stripe.
    EXPECT_EQ(id2addr(1), kRoot);
    EXPECT_EQ(id2addr(32), 1u);          // (1, 0)
    EXPECT_EQ(id2addr(31), 31u << 16);   // (0, 31)
    EXPECT_EQ(id2addr(1 << 17), 32u << 16); // the next stripe
    for (uint64_t id = 1; id <= n; id++)
        ASSERT_EQ(addr2id(id2addr(id)), id);
}

// Reads: uniform substrings of the reference with substitutions at
// error_permille / 1000, framed as MUMmerGPU's query text.
TEST(MummerInputsTest, ReadsAreReferenceSubstringsWithTheStatedErrorRate)
{
    for (uint64_t rate : {0u, 10u, 100u}) {
        Args a;
        a.ref = 20000;
        a.reads = 2000;
        a.err = rate;
        auto k = kernel(a);
        Filled f = fill(*k, 3);
        const auto &ref = f.w[2];
        // Placed by 8-mer seeds at offsets 0, 8, ...: at 10% errors a read
        // has an exact one with probability 1 - (1 - 0.9^8)^12 > 0.998.
        std::map<std::vector<uint64_t>, std::vector<uint64_t>> seeds;
        for (uint64_t p = 1; p + 8 <= a.ref + 1; p++)
            seeds[std::vector<uint64_t>(ref.begin() + p, ref.begin() + p + 8)].push_back(p);
        uint64_t diffs = 0, placed = 0;
        for (uint64_t r = 0; r < a.reads; r++) {
            ASSERT_EQ(f.w[4][r], r * (a.len + 2));
            ASSERT_EQ(f.w[5][r], a.len);
            const uint64_t *q = &f.w[3][r * (a.len + 2)];
            ASSERT_EQ(q[0], 7u); // 'q'
            ASSERT_EQ(q[a.len + 1], 0u);
            uint64_t best = a.len + 1;
            for (uint64_t o = 0; o + 8 <= a.len; o += 8) {
                auto it = seeds.find(std::vector<uint64_t>(q + 1 + o, q + 9 + o));
                if (it == seeds.end())
                    continue;
                for (uint64_t p : it->second) {
                    if (p < 1 + o || p - o + a.len > a.ref + 1)
                        continue;
                    uint64_t d = 0;
                    for (uint64_t i = 0; i < a.len; i++)
                        d += q[1 + i] != ref[p - o + i];
                    best = std::min(best, d);
                }
            }
            if (best <= a.len) {
                placed++;
                diffs += best;
            }
        }
        EXPECT_GE(placed, a.reads * 99 / 100) << rate;
        const double got = double(diffs) / double(placed * a.len), want = rate / 1000.0;
        // Binomial over 200000 bases: 4 standard deviations.
        EXPECT_NEAR(got, want, 4 * std::sqrt(want * (1 - want) / (placed * a.len)) + 1e-9) << rate;
    }
}

TEST(MummerInputsTest, TheSeedDecidesTheInputs)
{
    Args a;
    auto k = kernel(a);
    Filled one = fill(*k, 1), again = fill(*k, 1), two = fill(*k, 2);
    for (uint32_t r = 0; r < 6; r++) {
        EXPECT_EQ(one.w[r], again.w[r]) << r;
        if (r != 4 && r != 5) { // addresses and lengths do not depend on the seed
            EXPECT_NE(one.w[r], two.w[r]) << r;
        }
    }
}

TEST(MummerInputsTest, TheExampleKernelParsesWithItsGeneratorOverOneGiB)
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/examples/kernels/mummergpu.gk");
    std::stringstream b;
    b << in.rdbuf();
    const std::string text = b.str();
    ASSERT_FALSE(text.empty());
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    ASSERT_EQ(gmmu_kernel_parse(k.get(), text.data(), text.size(), &err), GMMU_OK) << err.msg;
    EXPECT_STREQ(gmmu_inputs_name(k->inputs.gen - 1), "mummergpu");
    uint64_t bytes = 0;
    for (uint32_t r = 0; r < k->nregions; r++)
        bytes += k->region[r].bytes;
    EXPECT_GT(bytes, 1ull << 30);
    EXPECT_LT(bytes, 13ull << 27); // 1.3 GiB: a run holds it three times
    EXPECT_EQ(uint64_t(k->grid_blocks) * k->warps_per_block * 32, gmmu_kernel_inputs_arg(k.get(), "reads"));
}

// The example kernel's code, interpreted over a small tree (the reference
// interpreter, as the data check runs it): at every start position of
// every read it records the longest match of the rest of the read from
// the root, when at least min_match_len long: the node where the match
// ends and the characters matched along its edge (0: at the node itself).
struct Mem {
    const gmmu_kernel *k;
    std::vector<uint64_t *> w;
};
uint64_t *word(void *ctx, uint64_t va, bool)
{
    Mem *m = static_cast<Mem *>(ctx);
    for (uint32_t r = 0; r < m->k->nregions; r++)
        if (va >= m->k->region[r].base && va < m->k->region[r].base + m->k->region[r].bytes)
            return m->w[r] + (va - m->k->region[r].base) / 8;
    return nullptr;
}

TEST(MummerKernelTest, TheKernelRecordsTheLongestMatchAtEveryReadPosition)
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/examples/kernels/mummergpu.gk");
    std::stringstream b;
    b << in.rdbuf();
    std::string text = b.str();
    Args a;
    a.ref = 5000;
    a.reads = 512; // two blocks
    a.err = 20;
    // The file's header with small regions, and its read count in the code.
    std::istringstream lines(text);
    std::string line, out;
    while (std::getline(lines, line)) {
        if (line.rfind("region", 0) == 0 || line.rfind("inputs", 0) == 0 || line.rfind("grid", 0) == 0)
            continue;
        if (line.rfind("code", 0) == 0)
            out += header(a) + "grid 2\n";
        const size_t at = line.find("movi r4, 131072");
        if (at != std::string::npos)
            line.replace(at, 15, "movi r4, 512");
        out += line + "\n";
    }
    auto k = std::make_unique<gmmu_kernel>();
    gmmu_error err{};
    ASSERT_EQ(gmmu_kernel_parse(k.get(), out.data(), out.size(), &err), GMMU_OK) << err.msg;
    k->inputs.arg[3] = a.err;
    Filled f = fill(*k, 5);
    Mem mem{k.get(), f.p};
    std::vector<uint64_t> regs(size_t(k->warps_per_block) * k->nregs * 32);
    for (uint32_t blk = 0; blk < 2; blk++) {
        gmmu_kernel_ref_stop why{};
        ASSERT_EQ(gmmu_kernel_ref_block(k.get(), blk, regs.data(), word, &mem, 1ull << 24, &why, &err), GMMU_OK)
            << err.msg;
    }
    Tree t{f.w[0], f.w[1], f.w[2]};
    const uint64_t per = a.len - a.mml + 1;
    unsigned recorded = 0, short_ = 0;
    for (uint64_t r = 0; r < a.reads; r++) {
        std::vector<uint64_t> q(f.w[3].begin() + r * (a.len + 2) + 1, f.w[3].begin() + r * (a.len + 2) + 1 + a.len);
        for (uint64_t s = 0; s < per; s++) {
            const size_t want = t.match(q, s);
            const uint64_t res = f.w[6][r * per + s];
            if (want < a.mml) {
                EXPECT_EQ(res, 0u) << "read " << r << " at " << s;
                short_++;
                continue;
            }
            const uint64_t node = res & 0xFFFFFFFF, eml = res >> 32;
            ASSERT_NE(node, 0u) << "read " << r << " at " << s;
            const uint64_t got = eml ? t.depth(t.parent(node)) + eml : t.depth(node);
            ASSERT_EQ(got, want) << "read " << r << " at " << s;
            recorded++;
        }
    }
    // 2% substitutions: most positions match 20 bases or more, some do not.
    EXPECT_GT(recorded, a.reads * per / 2);
    EXPECT_GT(short_, 100u);
}

} // namespace
