// The issue/commit SM (components/sm_core.h) outside the GPU platform: two
// SMs run the same kernel in one simulation, one through an L1 TLB and a
// walker over the test's own x86-64 tables (frames scattered), the other
// bypassed (PA = VA) in a memory of its own. Every register a block ends
// with and every output word must agree: data written through translated
// addresses reads back exactly. No gpu/ header is included.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "gmmu/components/fault_handler.h"
#include "gmmu/components/memory.h"
#include "gmmu/components/ptw.h"
#include "gmmu/components/sm_core.h"
#include "gmmu/components/tlb.h"
#include "test_space.h"

extern "C" {
#include "gmmu/kernels.h"
}

using namespace sc_core;

namespace {

// No demand paging: every region is mapped before the run.
struct NoPaging : gmmu::pager {
    bool classify(uint64_t, gmmu_fault_kind *) override { return false; }
    void make_present(uint64_t, uint64_t) override {}
};

struct Kernel : gmmu::kernel_source {
    gmmu_kernel k{};
    NoPaging pg;
    uint32_t next = 0;
    std::map<uint32_t, std::vector<uint64_t>> regs; // by block
    unsigned verified = 0;
    Kernel()
    {
        gmmu_kernel_params kp{};
        gmmu_error err{};
        EXPECT_EQ(gmmu_kernel_build(&k, "tiny", &kp, &err), GMMU_OK) << err.msg;
    }
    const gmmu_kernel &kernel() const override { return k; }
    bool demand_paging() const override { return false; }
    gmmu::pager &os_pager() override { return pg; }
    void next_block(unsigned, bool *got, uint32_t *block) override
    {
        *got = next < k.grid_blocks;
        if (*got)
            *block = next++;
    }
    void block_done(unsigned, uint32_t block, const uint64_t *r, uint32_t nw, uint32_t nr,
                    gmmu::data_checker &) override
    {
        regs[block].assign(r, r + size_t(nw) * nr * 32);
    }
    void verify_memory(gmmu::data_checker &) override { verified++; }
};

gmmu_sm_config sm_config()
{
    gmmu_sm_config c;
    gmmu_sm_config_tanasic17(&c);
    return c;
}

gmmu::fault_handler_params fh_params()
{
    gmmu::fault_handler_params p;
    gmmu_fault_handler_config_default(&p.model, GMMU_LINK_PCIE);
    return p;
}

gmmu::tlb_params l1_params()
{
    gmmu::tlb_params p;
    p.model.entries = 16;
    p.model.ways = 4;
    p.model.page_shift = 12;
    p.model.lookup_cycles = 1;
    p.ports = 4;
    return p;
}

constexpr uint64_t PBASE = 0x2000'0000ull;

struct SmCoreTest : ::testing::Test {
    gmmu::memory mem{"mem", 20, sc_time(1, SC_NS)};      // translated SM's memory
    gmmu::memory flat{"flat", 20, sc_time(1, SC_NS)};    // bypassed SM's memory
    Space space{mem, 0x0100'0000};
    Kernel ka, kb;
    gmmu::data_checker ca, cb;
    gmmu::tlb l1{"l1", l1_params()};
    gmmu::ptw walker{"ptw", gmmu::ptw_params{}};
    gmmu::fault_handler fa{"fa", fh_params(), ka.pg}, fb{"fb", fh_params(), kb.pg};
    std::unique_ptr<gmmu::sm_core> a, b;
    unsigned finished_a = 0;

    void SetUp() override
    {
        gmmu::sm_params pa;
        pa.id = 0;
        a = std::make_unique<gmmu::sm_core>("sm_mmu", pa, sm_config(), ka, ca);
        gmmu::sm_params pb = pa;
        pb.bypass = true;
        b = std::make_unique<gmmu::sm_core>("sm_flat", pb, sm_config(), kb, cb);
        a->on_finish = [this] { finished_a++; };
        a->isock.bind(l1.tsock);
        a->fault_isock.bind(fa.tsock);
        l1.isock.bind(mem.tsock);
        l1.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
        b->isock.bind(flat.tsock);
        b->fault_isock.bind(fb.tsock);
        // Every region's pages, in reverse frame order; inputs initialised
        // as a host would, at the frame (translated) or at the VA (flat).
        const gmmu_kernel &k = ka.kernel();
        uint64_t npages = 0;
        for (uint32_t r = 0; r < k.nregions; r++)
            npages += k.region[r].bytes / 4096;
        uint64_t frame = PBASE + (npages - 1) * 4096;
        for (uint32_t r = 0; r < k.nregions; r++) {
            const gmmu_region &g = k.region[r];
            for (uint64_t off = 0; off < g.bytes; off += 4096, frame -= 4096) {
                space.map(g.base + off, frame);
                if (g.kind != GMMU_REGION_INPUT)
                    continue;
                for (uint64_t w = 0; w < 4096; w += 8) {
                    mem.write64(frame + w, gmmu_kernel_input_value(g.base + off + w));
                    flat.write64(g.base + off + w, gmmu_kernel_input_value(g.base + off + w));
                }
            }
        }
        walker.set_root(0, space.pt->root);
    }
};

TEST_F(SmCoreTest, TranslatedRunComputesWhatTheBypassedRunDoes)
{
    sc_start();
    ASSERT_TRUE(a->finished() && b->finished());
    ASSERT_FALSE(a->failed()) << a->error_message();
    ASSERT_FALSE(b->failed()) << b->error_message();
    EXPECT_EQ(finished_a, 1u);
    const gmmu_kernel &k = ka.kernel();
    EXPECT_EQ(ka.regs.size(), k.grid_blocks);
    EXPECT_EQ(ka.regs, kb.regs);
    EXPECT_GT(a->accesses(), 0u);
    EXPECT_EQ(a->accesses(), b->accesses());
    nlohmann::json j;
    l1.dump_stats(j);
    EXPECT_GT(j["misses"].get<uint64_t>(), 0u); // the run did go through translation
    uint64_t words = 0, differ = 0;
    for (uint32_t r = 0; r < k.nregions; r++) {
        const gmmu_region &g = k.region[r];
        if (g.kind != GMMU_REGION_OUTPUT)
            continue;
        for (uint64_t va = g.base; va < g.base + g.bytes; va += 8) {
            const uint64_t got = mem.read64(space.walk(va, false).pa);
            differ += got != flat.read64(va);
            words += got != 0;
        }
    }
    EXPECT_EQ(differ, 0u);
    EXPECT_GT(words, 0u); // the kernel wrote its outputs
}

TEST_F(SmCoreTest, AConfigTheModelRefusesNamesItsField)
{
    gmmu_sm_config c = sm_config();
    c.max_warps = 0;
    gmmu::sm_params p;
    try {
        gmmu::sm_core bad("bad", p, c, kb, cb);
        FAIL() << "accepted max_warps = 0";
    } catch (const gmmu::sm_core::model_error &e) {
        EXPECT_EQ(e.field, "max_warps");
    }
}

} // namespace
