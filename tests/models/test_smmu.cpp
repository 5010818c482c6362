// Unit tests of the SMMU decisions (models/src/smmu.c): queue pointers with
// wrap bits, register semantics, the formats in memory, and the fault
// mapping — each checked against hand-computed values.
#include <gtest/gtest.h>

#include <map>

extern "C" {
#include "gmmu/smmu.h"
}

TEST(SmmuModelTest, QueuePointersWrapAndTellFullFromEmpty)
{
    const unsigned n = 2; // 4 entries: index bits 1:0, wrap bit 2
    EXPECT_TRUE(gmmu_smmu_q_empty(0, 0, n));
    uint32_t p = 0;
    for (int i = 0; i < 4; i++)
        p = gmmu_smmu_q_next(p, n);
    EXPECT_EQ(p, 0x4u) << "index 0, wrap 1";
    EXPECT_TRUE(gmmu_smmu_q_full(p, 0, n));
    EXPECT_FALSE(gmmu_smmu_q_empty(p, 0, n));
    for (int i = 0; i < 4; i++)
        p = gmmu_smmu_q_next(p, n);
    EXPECT_EQ(p, 0x0u) << "the wrap bit toggles back";
    EXPECT_EQ(gmmu_smmu_q_next(GMMU_SMMU_Q_OVF | 0x3, n), GMMU_SMMU_Q_OVF | 0x4)
        << "flags above the pointer are kept";
    EXPECT_EQ(gmmu_smmu_q_index(0x7, n), 3u);
    EXPECT_EQ(gmmu_smmu_q_log2(0x1234'5000ull | 25), GMMU_SMMU_QS_MAX) << "clamped";
    EXPECT_EQ(gmmu_smmu_q_addr(0x1234'5000ull | 25), 0x1234'5000ull);
}

TEST(SmmuModelTest, RegistersFollowTheirAccessRules)
{
    gmmu_smmu_regs r;
    gmmu_smmu_regs_reset(&r);
    uint32_t todo = 0;
    uint64_t v = 0;
    // 64-bit register written as two halves, read back either way.
    EXPECT_EQ(gmmu_smmu_reg_write(&r, GMMU_SMMU_STRTAB_BASE, 4, 0x8000'0040u, &todo), GMMU_SMMU_REG_OK);
    EXPECT_EQ(gmmu_smmu_reg_write(&r, GMMU_SMMU_STRTAB_BASE + 4, 4, 0x12, &todo), GMMU_SMMU_REG_OK);
    EXPECT_EQ(todo, GMMU_SMMU_DO_CONFIG);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, GMMU_SMMU_STRTAB_BASE, 8, &v), GMMU_SMMU_REG_OK);
    EXPECT_EQ(v, 0x12'8000'0040ull);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, GMMU_SMMU_STRTAB_BASE + 4, 4, &v), GMMU_SMMU_REG_OK);
    EXPECT_EQ(v, 0x12u);
    // Widths and holes.
    EXPECT_EQ(gmmu_smmu_reg_read(&r, GMMU_SMMU_CR0, 8, &v), GMMU_SMMU_REG_BAD_WIDTH);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, GMMU_SMMU_CR0, 2, &v), GMMU_SMMU_REG_BAD_WIDTH);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, GMMU_SMMU_CMDQ_BASE + 4, 8, &v), GMMU_SMMU_REG_BAD_WIDTH);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, 0x40, 4, &v), GMMU_SMMU_REG_BAD_ADDRESS);
    EXPECT_EQ(gmmu_smmu_reg_read(&r, 0xa8, 4, &v), GMMU_SMMU_REG_BAD_ADDRESS)
        << "EVTQ_PROD lives in page 1";
    // CR0 / CR0ACK; only the implemented bits stick.
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CR0, 4, 0xffff'ffffu, &todo);
    EXPECT_EQ(todo, GMMU_SMMU_DO_CONFIG | GMMU_SMMU_DO_CMDQ | GMMU_SMMU_DO_IRQ);
    gmmu_smmu_reg_read(&r, GMMU_SMMU_CR0ACK, 4, &v);
    EXPECT_EQ(v, GMMU_SMMU_CR0_SMMUEN | GMMU_SMMU_CR0_EVTQEN | GMMU_SMMU_CR0_CMDQEN);
    // With the SMMU and queues on, bases and CONS are frozen; PROD is not.
    gmmu_smmu_reg_write(&r, GMMU_SMMU_STRTAB_BASE, 8, 0x4000, &todo);
    EXPECT_EQ(r.strtab_base, 0x12'8000'0040ull);
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CMDQ_BASE, 8, 0x9000 | 3, &todo);
    EXPECT_EQ(r.cmdq_base, 0u);
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CR0, 4, 0, &todo);
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CMDQ_BASE, 8, 0x9000 | 3, &todo);
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CR0, 4, GMMU_SMMU_CR0_CMDQEN, &todo);
    EXPECT_FALSE(gmmu_smmu_cmdq_runnable(&r));
    gmmu_smmu_reg_write(&r, GMMU_SMMU_CMDQ_PROD, 4, 0xff, &todo);
    EXPECT_EQ(r.cmdq_prod, 0xfu) << "index and wrap bits of an 8-entry queue";
    EXPECT_EQ(todo, GMMU_SMMU_DO_CMDQ);
    EXPECT_TRUE(gmmu_smmu_cmdq_runnable(&r));
    // A command error stops the queue until GERRORN acknowledges it.
    r.irq_ctrl = GMMU_SMMU_IRQ_GERROR;
    gmmu_smmu_cmdq_error(&r, GMMU_SMMU_CERROR_ILL);
    EXPECT_FALSE(gmmu_smmu_cmdq_runnable(&r));
    EXPECT_TRUE(gmmu_smmu_gerror_irq(&r));
    EXPECT_EQ(r.cmdq_cons >> GMMU_SMMU_CMDQ_CONS_ERR_SHIFT, GMMU_SMMU_CERROR_ILL);
    gmmu_smmu_reg_write(&r, GMMU_SMMU_GERRORN, 4, r.gerror, &todo);
    EXPECT_TRUE(gmmu_smmu_cmdq_runnable(&r));
    EXPECT_FALSE(gmmu_smmu_gerror_irq(&r));
    // Read-only registers ignore writes.
    uint64_t idr1 = 0;
    gmmu_smmu_reg_read(&r, GMMU_SMMU_IDR1, 4, &idr1);
    EXPECT_EQ(gmmu_smmu_reg_write(&r, GMMU_SMMU_IDR1, 4, 0, &todo), GMMU_SMMU_REG_OK);
    gmmu_smmu_reg_read(&r, GMMU_SMMU_IDR1, 4, &v);
    EXPECT_EQ(v, idr1);
    EXPECT_EQ(idr1 & 0x3f, GMMU_SMMU_SIDSIZE);
}

TEST(SmmuModelTest, EventInterruptFollowsTheQueue)
{
    gmmu_smmu_regs r;
    gmmu_smmu_regs_reset(&r);
    r.evtq_base = 0x1000 | 2;
    r.cr0 = GMMU_SMMU_CR0_EVTQEN;
    r.irq_ctrl = GMMU_SMMU_IRQ_EVTQ;
    EXPECT_FALSE(gmmu_smmu_evtq_irq(&r));
    r.evtq_prod = 1;
    EXPECT_TRUE(gmmu_smmu_evtq_irq(&r));
    r.irq_ctrl = 0;
    EXPECT_FALSE(gmmu_smmu_evtq_irq(&r)) << "masked";
    r.irq_ctrl = GMMU_SMMU_IRQ_EVTQ;
    r.evtq_cons = 1;
    EXPECT_FALSE(gmmu_smmu_evtq_irq(&r));
}

TEST(SmmuModelTest, StreamTableEntriesAndContextDescriptorsRoundTripAndRefuseBadOnes)
{
    gmmu_smmu_ste ste{true, GMMU_SMMU_STE_CFG_S1, 0x4'5678'9a40ull, 3, GMMU_SMMU_PRIV_PRIV};
    uint64_t dw[2];
    gmmu_smmu_ste_encode(&ste, dw);
    EXPECT_EQ(dw[0], 0x4'5678'9a40ull | (5u << 1) | 1u | (3ull << 59));
    EXPECT_EQ(dw[1], 3ull << 48);
    gmmu_smmu_ste back;
    EXPECT_EQ(gmmu_smmu_ste_decode(dw, &back), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(back.cd_table, ste.cd_table);
    EXPECT_EQ(back.cd_max_log2, 3);
    EXPECT_EQ(back.privcfg, GMMU_SMMU_PRIV_PRIV);
    uint64_t bad[2] = {dw[0] & ~1ull, dw[1]};
    EXPECT_EQ(gmmu_smmu_ste_decode(bad, &back), GMMU_SMMU_C_BAD_STE) << "V = 0";
    bad[0] = dw[0] | (1u << 4);
    EXPECT_EQ(gmmu_smmu_ste_decode(bad, &back), GMMU_SMMU_C_BAD_STE) << "2-level CD table";
    bad[0] = (dw[0] & ~0xeull) | (6u << 1);
    EXPECT_EQ(gmmu_smmu_ste_decode(bad, &back), GMMU_SMMU_C_BAD_STE) << "stage 2";
    bad[0] = 1u | (5u << 1);
    EXPECT_EQ(gmmu_smmu_ste_decode(bad, &back), GMMU_SMMU_C_BAD_STE) << "no CD table";
    // CD addresses: substreams within S1CDMax only.
    uint64_t a = 0;
    EXPECT_EQ(gmmu_smmu_cd_addr(&ste, false, 0, &a), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(a, ste.cd_table);
    EXPECT_EQ(gmmu_smmu_cd_addr(&ste, true, 7, &a), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(a, ste.cd_table + 7 * 64);
    EXPECT_EQ(gmmu_smmu_cd_addr(&ste, true, 8, &a), GMMU_SMMU_C_BAD_SUBSTREAMID);
    ste.cd_max_log2 = 0;
    EXPECT_EQ(gmmu_smmu_cd_addr(&ste, true, 0, &a), GMMU_SMMU_C_BAD_SUBSTREAMID);
    // Stream table bounds.
    gmmu_smmu_regs r;
    gmmu_smmu_regs_reset(&r);
    r.strtab_base = 0x10'0000;
    r.strtab_cfg = 5;
    EXPECT_EQ(gmmu_smmu_ste_addr(&r, 31, &a), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(a, 0x10'0000u + 31 * 64);
    EXPECT_EQ(gmmu_smmu_ste_addr(&r, 32, &a), GMMU_SMMU_C_BAD_STREAMID);
    // CDs.
    gmmu_smmu_cd cd{true, 0x1234, 0x7'0000'0000ull};
    gmmu_smmu_cd_encode(&cd, dw);
    EXPECT_EQ(dw[0], (1ull << 31) | (0x1234ull << 48));
    gmmu_smmu_cd cb;
    EXPECT_EQ(gmmu_smmu_cd_decode(dw, &cb), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(cb.asid, 0x1234);
    EXPECT_EQ(cb.ttb0, cd.ttb0);
    dw[1] |= 0x800;
    EXPECT_EQ(gmmu_smmu_cd_decode(dw, &cb), GMMU_SMMU_C_BAD_CD) << "root not 4 KiB aligned";
    EXPECT_TRUE(gmmu_smmu_privileged(GMMU_SMMU_PRIV_INCOMING, true));
    EXPECT_FALSE(gmmu_smmu_privileged(GMMU_SMMU_PRIV_UNPRIV, true));
    EXPECT_TRUE(gmmu_smmu_privileged(GMMU_SMMU_PRIV_PRIV, false));
}

TEST(SmmuModelTest, CommandsDecodeTheirFieldsAndRefuseMalformedOnes)
{
    gmmu_smmu_cmd c{};
    c.op = GMMU_SMMU_CMD_TLBI_NH_VA;
    c.asid = 9;
    c.addr = 0x7f00'0020'0000ull;
    c.tg = 1;
    c.num = 3;
    c.scale = 2; // (3 + 1) << 2 = 16 pages
    uint64_t dw[2];
    gmmu_smmu_cmd_encode(&c, dw);
    gmmu_smmu_cmd d;
    ASSERT_EQ(gmmu_smmu_cmd_decode(dw, &d), GMMU_SMMU_CERROR_NONE);
    EXPECT_EQ(d.asid, 9);
    uint64_t lo, hi;
    gmmu_smmu_cmd_range(&d, &lo, &hi);
    EXPECT_EQ(lo, 0x7f00'0020'0000ull);
    EXPECT_EQ(hi, 0x7f00'0020'0000ull + 16 * 4096 - 1);
    c.tg = 0;
    c.num = c.scale = 0;
    gmmu_smmu_cmd_encode(&c, dw);
    ASSERT_EQ(gmmu_smmu_cmd_decode(dw, &d), GMMU_SMMU_CERROR_NONE);
    gmmu_smmu_cmd_range(&d, &lo, &hi);
    EXPECT_EQ(hi - lo, 4095u) << "one page";
    // Malformed: unknown opcode, a 16 KiB granule, a range without granule,
    // a range past the top of the address space, a reserved CS.
    uint64_t bad[2] = {0x7f, 0};
    EXPECT_EQ(gmmu_smmu_cmd_decode(bad, &d), GMMU_SMMU_CERROR_ILL);
    bad[0] = GMMU_SMMU_CMD_TLBI_NH_VAA;
    bad[1] = 2u << 10;
    EXPECT_EQ(gmmu_smmu_cmd_decode(bad, &d), GMMU_SMMU_CERROR_ILL);
    bad[0] = GMMU_SMMU_CMD_TLBI_NH_VAA | (1u << 12);
    bad[1] = 0;
    EXPECT_EQ(gmmu_smmu_cmd_decode(bad, &d), GMMU_SMMU_CERROR_ILL);
    bad[0] = GMMU_SMMU_CMD_TLBI_NH_VAA | (31u << 12) | (31u << 20);
    bad[1] = 0xffff'ffff'ffff'f000ull | (1u << 10);
    EXPECT_EQ(gmmu_smmu_cmd_decode(bad, &d), GMMU_SMMU_CERROR_ILL);
    bad[0] = GMMU_SMMU_CMD_SYNC | (3u << 12);
    bad[1] = 0;
    EXPECT_EQ(gmmu_smmu_cmd_decode(bad, &d), GMMU_SMMU_CERROR_ILL);
    // CMD_SYNC fields.
    gmmu_smmu_cmd s{};
    s.op = GMMU_SMMU_CMD_SYNC;
    s.cs = GMMU_SMMU_SYNC_CS_IRQ;
    s.msi_data = 0xdead'beef;
    s.msi_addr = 0x1234'5678;
    gmmu_smmu_cmd_encode(&s, dw);
    ASSERT_EQ(gmmu_smmu_cmd_decode(dw, &d), GMMU_SMMU_CERROR_NONE);
    EXPECT_EQ(d.msi_data, 0xdead'beefu);
    EXPECT_EQ(d.msi_addr, 0x1234'5678u);
}

TEST(SmmuModelTest, FaultsMapToEventsAndResponses)
{
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_NONE), GMMU_SMMU_EVT_NONE);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_NOT_PRESENT), GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_NONCANONICAL), GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_RESERVED), GMMU_SMMU_F_TRANSLATION);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_WRITE), GMMU_SMMU_F_PERMISSION);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_USER), GMMU_SMMU_F_PERMISSION);
    EXPECT_EQ(gmmu_smmu_event_of_fault(GMMU_FAULT_BUS_ERROR), GMMU_SMMU_F_WALK_EABT);
    EXPECT_EQ(gmmu_smmu_class_of_fault(GMMU_FAULT_BUS_ERROR), GMMU_SMMU_CLASS_TT);
    for (gmmu_fault f : {GMMU_FAULT_NOT_PRESENT, GMMU_FAULT_NONCANONICAL, GMMU_FAULT_RESERVED,
                         GMMU_FAULT_WRITE, GMMU_FAULT_USER})
        EXPECT_EQ(gmmu_smmu_class_of_fault(f), GMMU_SMMU_CLASS_IN) << int(f);
    EXPECT_EQ(gmmu_smmu_response_of(GMMU_SMMU_F_TRANSLATION), GMMU_SMMU_RESP_ADDRESS_ERROR);
    EXPECT_EQ(gmmu_smmu_response_of(GMMU_SMMU_F_PERMISSION), GMMU_SMMU_RESP_COMMAND_ERROR);
    EXPECT_EQ(gmmu_smmu_response_of(GMMU_SMMU_C_BAD_STE), GMMU_SMMU_RESP_GENERIC_ERROR);
    EXPECT_EQ(gmmu_smmu_response_of(GMMU_SMMU_F_WALK_EABT), GMMU_SMMU_RESP_GENERIC_ERROR);
    // Event records round-trip through their SMMUv3 layout.
    gmmu_smmu_event e{};
    e.id = GMMU_SMMU_F_PERMISSION;
    e.stream_id = 0xabcd;
    e.substream_id = 0x55;
    e.ssv = true;
    e.write = true;
    e.privileged = true;
    e.cls = GMMU_SMMU_CLASS_IN;
    e.reason = GMMU_FAULT_WRITE;
    e.input_addr = 0x7fff'1234'5678ull;
    uint64_t dw[4];
    gmmu_smmu_event_encode(&e, dw);
    EXPECT_EQ(dw[0], 0x13u | (1u << 11) | (0x55ull << 12) | (0xabcdull << 32));
    EXPECT_EQ(dw[1], (1ull << 33) | (2ull << 40) | (2ull << 56)) << "RnW = 0 for a write";
    gmmu_smmu_event b;
    gmmu_smmu_event_decode(dw, &b);
    EXPECT_EQ(b.stream_id, e.stream_id);
    EXPECT_EQ(b.substream_id, e.substream_id);
    EXPECT_TRUE(b.write);
    EXPECT_EQ(b.input_addr, e.input_addr);
    EXPECT_STREQ(gmmu_smmu_event_str(GMMU_SMMU_F_WALK_EABT), "F_WALK_EABT");
}

// gmmu_smmu_resolve: one fetch rule for the STE and the CD (address or a
// C_BAD_* event, read or F_*_FETCH naming the failed address, decode).
namespace {
struct DescMem {
    std::map<uint64_t, uint64_t> words;
    uint64_t fail_lo = ~0ull, fail_hi = 0; // reads in [fail_lo, fail_hi] get an error
    unsigned reads = 0;
    static bool read2(void *ctx, uint64_t pa, uint64_t dw[2])
    {
        auto *m = static_cast<DescMem *>(ctx);
        m->reads++;
        if (pa >= m->fail_lo && pa <= m->fail_hi)
            return false;
        dw[0] = m->words.count(pa) ? m->words[pa] : 0;
        dw[1] = m->words.count(pa + 8) ? m->words[pa + 8] : 0;
        return true;
    }
    void put(uint64_t pa, const uint64_t dw[2])
    {
        words[pa] = dw[0];
        words[pa + 8] = dw[1];
    }
};
} // namespace

TEST(SmmuModelTest, ResolveFetchesTheStreamTableEntryThenTheContextDescriptor)
{
    gmmu_smmu_regs r;
    gmmu_smmu_regs_reset(&r);
    r.strtab_base = 0x10000;
    r.strtab_cfg = 4; // 16 streams
    DescMem m;
    gmmu_smmu_context c;
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, false, 0, true, &DescMem::read2, &m, &c), GMMU_SMMU_EVT_NONE);
    EXPECT_TRUE(c.abort) << "SMMUEN = 0";
    EXPECT_EQ(m.reads, 0u);
    r.cr0 = GMMU_SMMU_CR0_SMMUEN;
    uint64_t dw[2];
    const gmmu_smmu_ste s1{true, GMMU_SMMU_STE_CFG_S1, 0x20000, 1, GMMU_SMMU_PRIV_UNPRIV};
    gmmu_smmu_ste_encode(&s1, dw);
    m.put(0x10000 + 1 * 64, dw);
    const gmmu_smmu_cd cd1{true, 7, 0x55000};
    gmmu_smmu_cd_encode(&cd1, dw);
    m.put(0x20000 + 64, dw); // CD 1
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, true, 1, true, &DescMem::read2, &m, &c), GMMU_SMMU_EVT_NONE);
    EXPECT_FALSE(c.abort);
    EXPECT_FALSE(c.bypass);
    EXPECT_EQ(c.asid, 7u);
    EXPECT_EQ(c.root, 0x55000u);
    EXPECT_EQ(c.privcfg, GMMU_SMMU_PRIV_UNPRIV);
    EXPECT_EQ(m.reads, 2u) << "the STE, then the CD";
    // Each fetch's failure names its own address and event.
    m.fail_lo = m.fail_hi = 0x10000 + 64;
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, true, 1, true, &DescMem::read2, &m, &c), GMMU_SMMU_F_STE_FETCH);
    EXPECT_EQ(c.fetch_addr, 0x10040u);
    m.fail_lo = m.fail_hi = 0x20000 + 64;
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, true, 1, true, &DescMem::read2, &m, &c), GMMU_SMMU_F_CD_FETCH);
    EXPECT_EQ(c.fetch_addr, 0x20040u);
    m.fail_lo = ~0ull;
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, true, 0, true, &DescMem::read2, &m, &c), GMMU_SMMU_C_BAD_CD)
        << "CD 0 never written";
    EXPECT_EQ(gmmu_smmu_resolve(&r, 1, true, 2, true, &DescMem::read2, &m, &c),
              GMMU_SMMU_C_BAD_SUBSTREAMID);
    EXPECT_EQ(gmmu_smmu_resolve(&r, 16, false, 0, true, &DescMem::read2, &m, &c),
              GMMU_SMMU_C_BAD_STREAMID);
    EXPECT_EQ(gmmu_smmu_resolve(&r, 3, false, 0, true, &DescMem::read2, &m, &c), GMMU_SMMU_C_BAD_STE)
        << "V = 0";
    // Bypass and abort need no CD.
    const gmmu_smmu_ste by{true, GMMU_SMMU_STE_CFG_BYPASS, 0, 0, 0};
    gmmu_smmu_ste_encode(&by, dw);
    m.put(0x10000 + 2 * 64, dw);
    m.reads = 0;
    EXPECT_EQ(gmmu_smmu_resolve(&r, 2, false, 0, true, &DescMem::read2, &m, &c), GMMU_SMMU_EVT_NONE);
    EXPECT_TRUE(c.bypass);
    EXPECT_EQ(m.reads, 1u);
    EXPECT_EQ(gmmu_smmu_resolve(&r, 2, false, 0, false, &DescMem::read2, &m, &c), GMMU_SMMU_C_BAD_STE)
        << "no untranslated path";
    const gmmu_smmu_ste ab{true, GMMU_SMMU_STE_CFG_ABORT, 0, 0, 0};
    gmmu_smmu_ste_encode(&ab, dw);
    m.put(0x10000 + 2 * 64, dw);
    EXPECT_EQ(gmmu_smmu_resolve(&r, 2, false, 0, true, &DescMem::read2, &m, &c), GMMU_SMMU_EVT_NONE);
    EXPECT_TRUE(c.abort);
}

// The configuration cache's replacement (FIFO: the oldest insertion goes,
// hits do not refresh) and its CFGI drops.
TEST(SmmuModelTest, ConfigurationCacheReplacesTheOldestInsertionAndDropsByCommand)
{
    gmmu_smmu_ccache *c = nullptr;
    ASSERT_EQ(gmmu_smmu_ccache_create(3, &c, nullptr), GMMU_OK);
    gmmu_smmu_context x{};
    for (uint16_t k = 1; k <= 3; k++) {
        x.asid = k;
        EXPECT_FALSE(gmmu_smmu_ccache_insert(c, k, false, 0, &x));
    }
    ASSERT_NE(gmmu_smmu_ccache_find(c, 1, false, 0), nullptr) << "a hit does not refresh";
    x.asid = 4;
    EXPECT_TRUE(gmmu_smmu_ccache_insert(c, 4, false, 0, &x));
    EXPECT_EQ(gmmu_smmu_ccache_find(c, 1, false, 0), nullptr) << "stream 1 was inserted first";
    ASSERT_NE(gmmu_smmu_ccache_find(c, 2, false, 0), nullptr);
    EXPECT_EQ(gmmu_smmu_ccache_find(c, 4, false, 0)->asid, 4u);
    x.asid = 44; // a refill of a cached key keeps its age
    EXPECT_FALSE(gmmu_smmu_ccache_insert(c, 2, false, 0, &x));
    x.asid = 5;
    EXPECT_TRUE(gmmu_smmu_ccache_insert(c, 5, true, 3, &x));
    EXPECT_EQ(gmmu_smmu_ccache_find(c, 2, false, 0), nullptr);
    EXPECT_EQ(gmmu_smmu_ccache_size(c), 3u);
    // Substreams: CFGI_CD drops one CD's entries, CFGI_STE the stream's.
    EXPECT_EQ(gmmu_smmu_ccache_find(c, 5, true, 2), nullptr) << "another substream";
    EXPECT_EQ(gmmu_smmu_ccache_drop(c, false, 5, true, 2), 0u);
    EXPECT_EQ(gmmu_smmu_ccache_drop(c, false, 5, true, 3), 1u);
    EXPECT_EQ(gmmu_smmu_ccache_drop(c, false, 4, false, 0), 1u);
    EXPECT_EQ(gmmu_smmu_ccache_size(c), 1u);
    EXPECT_EQ(gmmu_smmu_ccache_drop(c, true, 0, false, 0), 1u);
    EXPECT_EQ(gmmu_smmu_ccache_size(c), 0u);
    gmmu_smmu_ccache_destroy(c);
    ASSERT_EQ(gmmu_smmu_ccache_create(0, &c, nullptr), GMMU_OK);
    EXPECT_FALSE(gmmu_smmu_ccache_insert(c, 1, false, 0, &x));
    EXPECT_EQ(gmmu_smmu_ccache_find(c, 1, false, 0), nullptr) << "0 entries: nothing kept";
    gmmu_smmu_ccache_destroy(c);
}
