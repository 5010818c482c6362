// A TLB with 2 MiB and 1 GiB entries side by side with its 4 KiB entries
// (gmmu_tlb_config.large), in front of a flat memory: accesses anywhere
// inside a large page, one walk per large page, an access crossing TLB
// pages (inside a large page, and across separate frames), and DMI for a
// whole large page.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "gmmu/components/ptw.h"
#include "gmmu/components/tlb.h"
#include "tlm_harness.h"

extern "C" {
#include "gmmu/pagetable.h"
}

using namespace sc_core;

namespace {

// Flat memory of 4 GiB address space backed sparsely by 2 MiB chunks; DMI
// for a whole chunk.
struct FlatMem : sc_module {
    tlm_utils::multi_passthrough_target_socket<FlatMem> tsock{"tsock"};
    std::map<uint64_t, std::vector<uint8_t>> chunks;
    static constexpr uint64_t chunk = 1ull << 21;
    explicit FlatMem(sc_module_name n) : sc_module(n)
    {
        tsock.register_b_transport(this, &FlatMem::b_transport);
        tsock.register_transport_dbg(this, &FlatMem::dbg);
        tsock.register_get_direct_mem_ptr(this, &FlatMem::dmi);
    }
    uint8_t *at(uint64_t pa)
    {
        auto &c = chunks[pa / chunk];
        if (c.empty())
            c.resize(chunk);
        return &c[pa % chunk];
    }
    uint64_t read64(uint64_t pa)
    {
        uint64_t v;
        std::memcpy(&v, at(pa), 8);
        return v;
    }
    void write64(uint64_t pa, uint64_t v) { std::memcpy(at(pa), &v, 8); }
    unsigned dbg(int, tlm::tlm_generic_payload &gp)
    {
        const uint64_t a = gp.get_address(), n = gp.get_data_length();
        if (a / chunk != (a + n - 1) / chunk)
            return 0; // the test never crosses a chunk
        if (gp.is_write())
            std::memcpy(at(a), gp.get_data_ptr(), n);
        else
            std::memcpy(gp.get_data_ptr(), at(a), n);
        return unsigned(n);
    }
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_time &d)
    {
        accesses++;
        d += sc_time(10, SC_NS);
        gp.set_response_status(dbg(id, gp) == gp.get_data_length() ? tlm::TLM_OK_RESPONSE
                                                                    : tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
    bool dmi(int, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &d)
    {
        const uint64_t base = gp.get_address() / chunk * chunk;
        d.set_dmi_ptr(at(base));
        d.set_start_address(base);
        d.set_end_address(base + chunk - 1);
        d.allow_read_write();
        return true;
    }
    unsigned accesses = 0;
};

struct LargePageTest : ::testing::Test {
    TestInitiator ini{"ini"};
    FlatMem mem{"mem"};
    gmmu_pt *pt = nullptr; // owned
    ~LargePageTest() override { gmmu_pt_destroy(pt); }
    uint64_t next_table = 0x1000'0000;
    static gmmu_status rd(void *c, uint64_t pa, uint64_t *v)
    {
        *v = static_cast<LargePageTest *>(c)->mem.read64(pa);
        return GMMU_OK;
    }
    static gmmu_status wr(void *c, uint64_t pa, uint64_t v)
    {
        static_cast<LargePageTest *>(c)->mem.write64(pa, v);
        return GMMU_OK;
    }
    static gmmu_status alloc(void *c, uint64_t *pa)
    {
        auto *s = static_cast<LargePageTest *>(c);
        *pa = s->next_table;
        s->next_table += 4096;
        return GMMU_OK;
    }
    static gmmu::tlb_params params()
    {
        gmmu::tlb_params p;
        p.model.entries = 16;
        p.model.ways = 4;
        p.model.page_shift = 12;
        p.model.lookup_cycles = 1;
        p.model.large[0] = {21, 4, 4};
        p.model.large[1] = {30, 2, 2};
        p.ports = 4;
        return p;
    }
    gmmu::tlb l1{"l1", params()};
    gmmu::ptw walker{"ptw", gmmu::ptw_params{}};
    void SetUp() override
    {
        ini.isock.bind(l1.tsock);
        l1.isock.bind(mem.tsock);
        l1.miss_isock.bind(walker.tsock);
        walker.pt_isock.bind(mem.tsock);
        gmmu_mem_ops ops{&rd, &wr, this};
        gmmu_error err{};
        ASSERT_EQ(gmmu_pt_create(&ops, &alloc, this, &pt, &err), GMMU_OK);
        walker.set_root(0, pt->root);
        sc_start(SC_ZERO_TIME);
    }
    void map(uint64_t va, uint64_t pa, unsigned shift)
    {
        gmmu_error err{};
        ASSERT_EQ(gmmu_pt_map(pt, va, pa, shift, GMMU_MAP_W | GMMU_MAP_U, &err), GMMU_OK) << err.msg;
    }
    uint64_t walks() const
    {
        nlohmann::json j;
        walker.dump_stats(j);
        return j["walks"].get<uint64_t>();
    }
};

constexpr uint64_t V2 = 0x7f00'0020'0000ull, P2 = 0x4000'0000ull; // a 2 MiB page
constexpr uint64_t V1 = 0x7f40'0000'0000ull, P1 = 0x8000'0000ull; // a 1 GiB page

} // namespace

TEST_F(LargePageTest, OneEntryAnswersForEveryAddressOfALargePage)
{
    map(V2, P2, 21);
    map(V1, P1, 30);
    sc_time d = SC_ZERO_TIME;
    for (uint64_t off = 0; off < (2u << 20); off += 0x11000) {
        uint64_t v = off ^ 0xabcd;
        ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, V2 + off, &v, 8, d), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(mem.read64(P2 + off), off ^ 0xabcd);
    }
    for (uint64_t off = 0; off < (1ull << 30); off += 0x1234'5000) {
        uint64_t v = off;
        ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, V1 + off, &v, 8, d), tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(mem.read64(P1 + off), off);
    }
    EXPECT_EQ(walks(), 2u) << "one walk per large page";
    EXPECT_EQ(gmmu_tlb_stats_of(gmmu_tlb_large_array(l1.model(), 21))->fills, 1u);
    EXPECT_EQ(gmmu_tlb_stats_of(gmmu_tlb_large_array(l1.model(), 30))->fills, 1u);
    EXPECT_EQ(gmmu_tlb_stats_of(l1.model())->fills, 0u) << "no 4 KiB entry was spent on them";
    nlohmann::json j;
    l1.dump_stats(j);
    EXPECT_EQ(j["large_pages"]["2M"]["hits"].get<uint64_t>(), 1u * ((2u << 20) / 0x11000));
}

TEST_F(LargePageTest, AnAccessMayCrossTlbPagesInsideALargePage)
{
    map(V2, P2, 21);
    const uint8_t in[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    uint8_t buf[16];
    std::memcpy(buf, in, 16);
    sc_time d = SC_ZERO_TIME;
    const uint64_t va = V2 + 0x5000 - 8; // 8 bytes in each of two 4 KiB pages
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, va, buf, 16, d), tlm::TLM_OK_RESPONSE);
    uint8_t out[16] = {};
    ASSERT_EQ(ini.debug(tlm::TLM_READ_COMMAND, va, out, 16), 16u);
    EXPECT_EQ(std::memcmp(out, in, 16), 0);
    EXPECT_EQ(std::memcmp(mem.at(P2 + 0x5000 - 8), in, 16), 0);
}

TEST_F(LargePageTest, AnAccessOverSeparateFramesIsSplitAndAFaultTouchesNothing)
{
    map(0x10000, 0x30000, 12);
    map(0x11000, 0x50000, 12); // not adjacent to the first frame
    uint8_t buf[16];
    for (unsigned i = 0; i < 16; i++)
        buf[i] = uint8_t(0xa0 + i);
    sc_time d = SC_ZERO_TIME;
    uint64_t warm = 0; // both translations in the TLB first
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x10000, &warm, 8, d), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x11000, &warm, 8, d), tlm::TLM_OK_RESPONSE);
    const unsigned before = mem.accesses;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x11000 - 8, buf, 16, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.accesses - before, 2u) << "one forward per frame";
    EXPECT_EQ(std::memcmp(mem.at(0x31000 - 8), buf, 8), 0);
    EXPECT_EQ(std::memcmp(mem.at(0x50000), buf + 8, 8), 0);
    // The next page is unmapped: the access faults and writes nothing.
    uint8_t zero[16] = {};
    std::memcpy(buf, zero, 16);
    buf[0] = 0x77;
    EXPECT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x12000 - 8, buf, 16, d),
              tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_NE(*mem.at(0x51000 - 8), 0x77);
}

TEST_F(LargePageTest, DmiCoversTheWholeLargePage)
{
    map(V2, P2, 21);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(V2 + 0x12345);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    EXPECT_EQ(dmi.get_start_address(), V2);
    EXPECT_EQ(dmi.get_end_address(), V2 + (2u << 20) - 1);
    EXPECT_EQ(dmi.get_dmi_ptr(), mem.at(P2));
    // An invalidation of one 4 KiB page inside it revokes the region.
    ini.invalidations.clear();
    l1.invalidate_page(0, V2 + 0x3000);
    ASSERT_FALSE(ini.invalidations.empty());
    EXPECT_LE(ini.invalidations[0].first, V2 + 0x3000);
    EXPECT_GE(ini.invalidations[0].second, V2 + 0x3fff);
}
