#include <gtest/gtest.h>

#include <cstring>

#include "gmmu/components/memory.h"
#include "tlm_harness.h"

using namespace sc_core;

namespace {

struct MemoryTest : ::testing::Test {
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 7, sc_time(1, SC_NS)};
    void SetUp() override
    {
        ini.isock.bind(mem.tsock);
        sc_start(SC_ZERO_TIME);
    }
};

TEST_F(MemoryTest, PagesAreAllocatedOnFirstWriteOnly)
{
    uint64_t v = 0;
    sc_time d = SC_ZERO_TIME;
    // A read of untouched memory returns zero and allocates nothing, even at 16 GiB+.
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x400000000ull, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(mem.pages_allocated(), 0u);
    v = 0x1122334455667788ull;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x400000ff8ull, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.pages_allocated(), 1u);
    uint64_t back = 0;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x400000ff8ull, &back, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(back, v);
    EXPECT_EQ(d, sc_time(21, SC_NS)); // three accesses of 7 cycles
}

// write_lazy: the page reads its source until a write or a DMI grant
// copies it into a host page of its own; the source is never written, and a
// read after the copy sees what was written through either path.
TEST_F(MemoryTest, ALazyPageReadsItsSourceUntilItsFirstWriteCopiesIt)
{
    uint64_t src[512];
    for (unsigned i = 0; i < 512; i++)
        src[i] = 0x5000000000000000ull | i;
    const uint8_t *s8 = reinterpret_cast<const uint8_t *>(src);
    mem.write_lazy(0x40000, s8);
    mem.write_lazy(0x41000, s8);
    mem.write_lazy(0x42000, s8);
    EXPECT_EQ(mem.pages_allocated(), 3u);
    EXPECT_EQ(mem.read64(0x40008), src[1]);
    sc_time d;
    uint64_t v = 0;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x41ff8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, src[511]);
    // A write (backdoor, then TLM) copies first: the other words keep the source's values.
    mem.write64(0x40008, 7);
    EXPECT_EQ(mem.read64(0x40008), 7u);
    EXPECT_EQ(mem.read64(0x40010), src[2]);
    v = 9;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x41ff8, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.read64(0x41ff8), 9u);
    // A DMI grant of a page just read (its source cached for reads) copies it too.
    EXPECT_EQ(mem.read64(0x42000), src[0]);
    tlm::tlm_dmi dmi;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x42000);
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    EXPECT_NE(dmi.get_dmi_ptr(), s8);
    const uint64_t eleven = 11;
    std::memcpy(dmi.get_dmi_ptr(), &eleven, 8);
    EXPECT_EQ(mem.read64(0x42000), 11u);
    for (unsigned i = 0; i < 512; i++)
        ASSERT_EQ(src[i], 0x5000000000000000ull | i) << "word " << i; // never written
    EXPECT_EQ(mem.pages_allocated(), 3u);
    // A move takes the uncopied source along; write_lazy on a page that has
    // a host page writes it now; a page address must be page aligned.
    mem.write_lazy(0x50000, s8);
    mem.move_range(0x50000, 0x60000, 0x1000);
    EXPECT_EQ(mem.read64(0x60010), src[2]);
    EXPECT_EQ(mem.read64(0x50010), 0u);
    mem.write_lazy(0x40000, s8);
    EXPECT_EQ(mem.read64(0x40008), src[1]);
    EXPECT_THROW(mem.write_lazy(0x40008, s8), std::invalid_argument);
    EXPECT_THROW(mem.write_lazy(0x70000, nullptr), std::invalid_argument);
    EXPECT_EQ(mem.read64(0x70000), 0u);
}

// The page index: a table up to 2 TiB of physical addresses, a hash map
// above. Pages on both sides hold their own bytes, count once each, move
// across the boundary both ways, and a moved-from page reads zero.
TEST_F(MemoryTest, PagesBelowAndAbove2TiBKeepTheirBytesAndMoveAcross)
{
    const uint64_t low = 0x7ff000, top_low = (2ull << 40) - 0x1000, high = 2ull << 40, far = 0xFFFFFFFFF000ull;
    mem.write64(low, 1);
    mem.write64(top_low + 8, 2);
    mem.write64(high + 16, 3);
    mem.write64(far + 0xff8, 4);
    EXPECT_EQ(mem.pages_allocated(), 4u);
    EXPECT_EQ(mem.read64(low), 1u);
    EXPECT_EQ(mem.read64(top_low + 8), 2u);
    EXPECT_EQ(mem.read64(high + 16), 3u);
    EXPECT_EQ(mem.read64(far + 0xff8), 4u);
    EXPECT_EQ(mem.read64(high + 0x1000), 0u); // untouched, above: zero, nothing allocated
    EXPECT_EQ(mem.pages_allocated(), 4u);
    mem.move_range(low, high + 0x3000, 0x1000); // table -> map
    mem.move_range(far, 0x5000, 0x1000);        // map -> table
    EXPECT_EQ(mem.pages_allocated(), 4u);
    EXPECT_EQ(mem.read64(low), 0u);
    EXPECT_EQ(mem.read64(far + 0xff8), 0u);
    EXPECT_EQ(mem.read64(high + 0x3000), 1u);
    EXPECT_EQ(mem.read64(0x5ff8), 4u);
}

TEST_F(MemoryTest, AccessAcrossPagesIsSplitCorrectly)
{
    uint8_t buf[64], back[64];
    for (int i = 0; i < 64; i++)
        buf[i] = uint8_t(i * 3 + 1);
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x1fe0, buf, 64, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mem.pages_allocated(), 2u);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x1fe0, back, 64, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(std::memcmp(buf, back, 64), 0);
}

// Host pages come from 2 MiB arena chunks of 512 pages: 1,300 pages written
// in scattered order (three chunks) each keep their own bytes, and every byte
// not written reads as zero.
TEST_F(MemoryTest, PagesFromSeveralArenaChunksKeepTheirOwnBytesAndStartZero)
{
    const unsigned pages = 1300;
    auto pa_of = [](unsigned i) { return 0x100000000ull + uint64_t(i) * 0x5000; }; // not adjacent
    for (unsigned k = 0; k < pages; k++) {
        const unsigned i = (k * 7919u) % pages;
        mem.write64(pa_of(i) + 8 * (i % 512), 0xA5A5000000000000ull | i);
    }
    EXPECT_EQ(mem.pages_allocated(), pages);
    unsigned wrong = 0;
    for (unsigned i = 0; i < pages; i++)
        for (unsigned w = 0; w < 512; w++) {
            const uint64_t want = w == i % 512 ? (0xA5A5000000000000ull | i) : 0;
            wrong += mem.read64(pa_of(i) + 8 * w) != want;
        }
    EXPECT_EQ(wrong, 0u);
}

// Pages sparse in physical memory (one per 2 MiB, as a 1 TiB region mapped
// where touched puts them) each need a leaf of the page index: a leaf stays
// small (64 pages, 1.5 KiB), not 12 KiB as leaves of 512 pages took.
TEST_F(MemoryTest, SparsePagesCostTheIndexLittle)
{
    const unsigned pages = 1000;
    for (unsigned i = 0; i < pages; i++)
        mem.write64(0x40000000ull + uint64_t(i) * 0x200000, i + 1);
    EXPECT_EQ(mem.pages_allocated(), pages);
    EXPECT_LT(mem.index_bytes(), uint64_t(pages) * 2048) << "bytes of index per sparse page";
    for (unsigned i = 0; i < pages; i++)
        ASSERT_EQ(mem.read64(0x40000000ull + uint64_t(i) * 0x200000), i + 1u);
}

TEST_F(MemoryTest, DebugTransportReadsAndWritesWithoutTime)
{
    uint32_t v = 0xCAFEF00Du, back = 0;
    EXPECT_EQ(ini.debug(tlm::TLM_WRITE_COMMAND, 0x5000, &v, 4), 4u);
    EXPECT_EQ(ini.debug(tlm::TLM_READ_COMMAND, 0x5000, &back, 4), 4u);
    EXPECT_EQ(back, v);
    EXPECT_EQ(mem.read64(0x5000) & 0xFFFFFFFFu, v);
}

TEST_F(MemoryTest, DmiGivesAPagePointerThatSharesStorage)
{
    tlm::tlm_generic_payload gp;
    gp.set_address(0x7123);
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    EXPECT_EQ(dmi.get_start_address(), 0x7000u);
    EXPECT_EQ(dmi.get_end_address(), 0x7fffu);
    EXPECT_TRUE(dmi.is_read_write_allowed());
    uint64_t v = 0xABCDEF;
    std::memcpy(dmi.get_dmi_ptr() + 0x123, &v, 8);
    EXPECT_EQ(mem.read64(0x7123), v);
}

// The DMI hint of a response says whether a timed initiator may read that
// address by DMI instead: a plain access to a page that exists, yes; a page
// never written (a grant would allocate it for a read) or a warp payload, no.
TEST_F(MemoryTest, DmiHintIsSetForPlainAccessesToPagesThatExist)
{
    uint64_t v = 0;
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x9008, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(ini.last_dmi_hint);
    uint8_t buf[16];
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x9100, buf, 16, d), tlm::TLM_OK_RESPONSE);
    EXPECT_FALSE(ini.last_dmi_hint) << "a longer read of a page never written";
    EXPECT_EQ(mem.pages_allocated(), 0u);
    v = 42;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x9008, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(ini.last_dmi_hint);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x9010, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(ini.last_dmi_hint);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x9100, buf, 16, d), tlm::TLM_OK_RESPONSE);
    EXPECT_TRUE(ini.last_dmi_hint);
    gmmu::warp_ext ext;
    ext.active = 1;
    ext.va[0] = ext.pa[0] = 0x9008;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x9008);
    gp.set_extension(&ext);
    gp.set_dmi_allowed(false);
    ini.isock->b_transport(gp, d);
    gp.clear_extension(&ext);
    EXPECT_TRUE(gp.is_response_ok());
    EXPECT_FALSE(gp.is_dmi_allowed());
}

// A page migration moves host pages between physical addresses: a DMI
// region of either page would read the wrong bytes, so both are revoked.
TEST_F(MemoryTest, MoveRangeRevokesTheDmiRegionsOfTheMovedPages)
{
    mem.write64(0x20008, 7);
    mem.write64(0x31008, 9);
    tlm::tlm_dmi dmi;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    for (uint64_t pa : {0x20008ull, 0x31008ull, 0x50000ull}) {
        gp.set_address(pa);
        ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    }
    mem.move_range(0x20000, 0x31000, 0x1000);
    ASSERT_EQ(ini.invalidations.size(), 2u);
    EXPECT_EQ(ini.invalidations[0], std::make_pair(uint64_t(0x20000), uint64_t(0x20fff)));
    EXPECT_EQ(ini.invalidations[1], std::make_pair(uint64_t(0x31000), uint64_t(0x31fff)));
    EXPECT_EQ(mem.read64(0x31008), 7u);
    EXPECT_EQ(mem.read64(0x20008), 0u);
    // A page nobody holds by DMI moves without a revocation.
    mem.write64(0x60008, 1);
    mem.move_range(0x60000, 0x70000, 0x1000);
    EXPECT_EQ(ini.invalidations.size(), 2u);
    // Nor does a page that moved in after its region was revoked; a page
    // still held (0x50000) is revoked when it moves, once.
    mem.move_range(0x31000, 0x41000, 0x1000);
    EXPECT_EQ(ini.invalidations.size(), 2u);
    mem.move_range(0x50000, 0x51000, 0x1000);
    ASSERT_EQ(ini.invalidations.size(), 3u);
    EXPECT_EQ(ini.invalidations[2], std::make_pair(uint64_t(0x50000), uint64_t(0x50fff)));
    mem.move_range(0x51000, 0x50000, 0x1000);
    EXPECT_EQ(ini.invalidations.size(), 3u);
    EXPECT_EQ(mem.read64(0x41008), 7u);
}

TEST_F(MemoryTest, WarpPayloadServesEveryActiveLane)
{
    gmmu::warp_ext ext;
    ext.nlanes = 32;
    ext.active = 0xFFFF0000u; // upper half only
    for (unsigned l = 0; l < 32; l++) {
        ext.va[l] = ext.pa[l] = 0x10000 + 4096ull * l + 8 * l;
        ext.data[l] = 1000 + l;
    }
    sc_time d;
    ASSERT_EQ(ini.warp(tlm::TLM_WRITE_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
    for (unsigned l = 0; l < 32; l++)
        EXPECT_EQ(mem.read64(ext.pa[l]), l >= 16 ? 1000u + l : 0u) << "lane " << l;
    for (auto &x : ext.data)
        x = 0;
    ASSERT_EQ(ini.warp(tlm::TLM_READ_COMMAND, ext, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ext.data[20], 1020u);
    EXPECT_EQ(d, sc_time(14, SC_NS)); // a warp access costs one memory latency
}

TEST_F(MemoryTest, ByteEnablesAreRejected)
{
    uint8_t be[4] = {0xff, 0, 0xff, 0};
    uint32_t v = 0;
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    gp.set_data_length(4);
    gp.set_byte_enable_ptr(be);
    gp.set_byte_enable_length(4);
    sc_time d;
    ini.isock->b_transport(gp, d);
    EXPECT_EQ(gp.get_response_status(), tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
}

} // namespace

namespace {

TEST(MemoryBandwidthTest, AccessesBeyondTheWindowsBytesWaitForTheNextWindow)
{
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 7, sc_time(1, SC_NS)};
    ini.isock.bind(mem.tsock);
    mem.set_bytes_per_cycle(2); // 128 bytes per 64-cycle window
    sc_start(SC_ZERO_TIME);
    uint8_t buf[64] = {};
    sc_time d1 = SC_ZERO_TIME, d2 = SC_ZERO_TIME, d3 = SC_ZERO_TIME;
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x0, buf, 64, d1), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(ini.access(tlm::TLM_WRITE_COMMAND, 0x40, buf, 64, d2), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x80, buf, 64, d3), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(d1, sc_time(7, SC_NS));
    EXPECT_EQ(d2, sc_time(7, SC_NS));      // the window still had room
    EXPECT_EQ(d3, sc_time(64 + 7, SC_NS)); // full: starts with the next window
    nlohmann::json j;
    mem.dump_stats(j);
    EXPECT_EQ(j["bandwidth"]["accesses_waited"], 1u);
    EXPECT_EQ(j["bandwidth"]["wait_cycles"], 64u);
    EXPECT_EQ(j["bandwidth"]["bytes_booked"], 192u);
    // A warp access books its active lanes' bytes in 32-byte sectors.
    gmmu::warp_ext ext;
    ext.active = 0x7; // 3 lanes x 8 B -> one 32-B sector
    for (unsigned l = 0; l < 3; l++)
        ext.va[l] = ext.pa[l] = 0x1000 + 8 * l;
    sc_time d4 = sc_time(200, SC_NS);
    ASSERT_EQ(ini.warp(tlm::TLM_READ_COMMAND, ext, d4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ext.data_delay, sc_time(7, SC_NS));
    mem.dump_stats(j);
    EXPECT_EQ(j["bandwidth"]["bytes_booked"], 224u);
}

// A memory that books bandwidth must see every timed access: its responses
// carry no DMI hint, and setting a bandwidth revokes the regions granted.
TEST(MemoryBandwidthTest, ABandwidthClearsTheDmiHintAndRevokesGrantedRegions)
{
    TestInitiator ini{"ini"};
    gmmu::memory mem{"mem", 7, sc_time(1, SC_NS)};
    ini.isock.bind(mem.tsock);
    sc_start(SC_ZERO_TIME);
    mem.write64(0x4000, 5);
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_address(0x4000);
    tlm::tlm_dmi dmi;
    ASSERT_TRUE(ini.isock->get_direct_mem_ptr(gp, dmi));
    mem.set_bytes_per_cycle(8);
    ASSERT_EQ(ini.invalidations.size(), 1u);
    EXPECT_EQ(ini.invalidations[0].first, 0u);
    EXPECT_EQ(ini.invalidations[0].second, ~uint64_t(0));
    uint64_t v = 0;
    sc_time d;
    ASSERT_EQ(ini.access(tlm::TLM_READ_COMMAND, 0x4000, &v, 8, d), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 5u);
    EXPECT_FALSE(ini.last_dmi_hint);
}

} // namespace
