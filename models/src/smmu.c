#include "gmmu/smmu.h"

#include <stdlib.h>
#include <string.h>

static uint64_t bits(uint64_t v, unsigned hi, unsigned lo)
{
    return (v >> lo) & ((hi - lo == 63) ? ~0ull : ((1ull << (hi - lo + 1)) - 1));
}

static uint64_t field(uint64_t v, unsigned hi, unsigned lo)
{
    return (v & ((hi - lo == 63) ? ~0ull : ((1ull << (hi - lo + 1)) - 1))) << lo;
}

/* ---- queues -------------------------------------------------------------- */
unsigned gmmu_smmu_q_log2(uint64_t q_base)
{
    unsigned n = (unsigned)bits(q_base, 4, 0);
    return n > GMMU_SMMU_QS_MAX ? GMMU_SMMU_QS_MAX : n;
}

uint64_t gmmu_smmu_q_addr(uint64_t q_base) { return q_base & 0x000fffffffffffe0ull; }

uint32_t gmmu_smmu_q_index(uint32_t ptr, unsigned log2) { return ptr & ((1u << log2) - 1u); }

static uint32_t q_wrap(uint32_t ptr, unsigned log2) { return (ptr >> log2) & 1u; }

bool gmmu_smmu_q_empty(uint32_t prod, uint32_t cons, unsigned log2)
{
    return gmmu_smmu_q_index(prod, log2) == gmmu_smmu_q_index(cons, log2) &&
           q_wrap(prod, log2) == q_wrap(cons, log2);
}

bool gmmu_smmu_q_full(uint32_t prod, uint32_t cons, unsigned log2)
{
    return gmmu_smmu_q_index(prod, log2) == gmmu_smmu_q_index(cons, log2) &&
           q_wrap(prod, log2) != q_wrap(cons, log2);
}

uint32_t gmmu_smmu_q_next(uint32_t ptr, unsigned log2)
{
    const uint32_t span = (2u << log2) - 1u; /* index and wrap bits */
    return (ptr & ~span) | ((ptr + 1u) & span);
}

/* ---- registers ----------------------------------------------------------- */
void gmmu_smmu_regs_reset(gmmu_smmu_regs *r) { memset(r, 0, sizeof *r); }

typedef enum { RO32, RW32, RW64 } reg_kind;

typedef struct {
    uint32_t off;
    reg_kind kind;
} reg_desc;

static const reg_desc k_regs[] = {
    {GMMU_SMMU_IDR0, RO32},          {GMMU_SMMU_IDR1, RO32},       {GMMU_SMMU_AIDR, RO32},
    {GMMU_SMMU_CR0, RW32},           {GMMU_SMMU_CR0ACK, RO32},     {GMMU_SMMU_CR1, RW32},
    {GMMU_SMMU_CR2, RW32},           {GMMU_SMMU_IRQ_CTRL, RW32},   {GMMU_SMMU_IRQ_CTRLACK, RO32},
    {GMMU_SMMU_GERROR, RO32},        {GMMU_SMMU_GERRORN, RW32},    {GMMU_SMMU_STRTAB_BASE, RW64},
    {GMMU_SMMU_STRTAB_BASE_CFG, RW32}, {GMMU_SMMU_CMDQ_BASE, RW64}, {GMMU_SMMU_CMDQ_PROD, RW32},
    {GMMU_SMMU_CMDQ_CONS, RW32},     {GMMU_SMMU_EVTQ_BASE, RW64},  {GMMU_SMMU_EVTQ_PROD, RW32},
    {GMMU_SMMU_EVTQ_CONS, RW32},
};

/* The register holding byte `off` for an access of len bytes, and the
 * 32-bit half it touches (0 low, 1 high) of a 64-bit register. */
static gmmu_smmu_reg_status find_reg(uint32_t off, unsigned len, const reg_desc **out,
                                     unsigned *half)
{
    for (size_t i = 0; i < sizeof k_regs / sizeof k_regs[0]; i++) {
        const reg_desc *d = &k_regs[i];
        const uint32_t size = d->kind == RW64 ? 8u : 4u;
        if (off < d->off || off >= d->off + size)
            continue;
        if ((len != 4 && len != 8) || (off & (len - 1u)) != 0 || len > size)
            return GMMU_SMMU_REG_BAD_WIDTH;
        *out = d;
        *half = (off - d->off) / 4u;
        return GMMU_SMMU_REG_OK;
    }
    return GMMU_SMMU_REG_BAD_ADDRESS;
}

static uint64_t reg_value(const gmmu_smmu_regs *r, uint32_t off)
{
    switch (off) {
    case GMMU_SMMU_IDR0:
        return 1u << 1; /* S1P: stage 1 translation; linear stream table only (ST_LEVEL 0) */
    case GMMU_SMMU_IDR1:
        return GMMU_SMMU_SIDSIZE | (GMMU_SMMU_SSIDSIZE << 6) | (GMMU_SMMU_QS_MAX << 16) |
               (GMMU_SMMU_QS_MAX << 21);
    case GMMU_SMMU_AIDR: return 0x2; /* SMMUv3.2 (range invalidation) */
    case GMMU_SMMU_CR0:
    case GMMU_SMMU_CR0ACK: return r->cr0;
    case GMMU_SMMU_CR1: return r->cr1;
    case GMMU_SMMU_CR2: return r->cr2;
    case GMMU_SMMU_IRQ_CTRL:
    case GMMU_SMMU_IRQ_CTRLACK: return r->irq_ctrl;
    case GMMU_SMMU_GERROR: return r->gerror;
    case GMMU_SMMU_GERRORN: return r->gerrorn;
    case GMMU_SMMU_STRTAB_BASE: return r->strtab_base;
    case GMMU_SMMU_STRTAB_BASE_CFG: return r->strtab_cfg;
    case GMMU_SMMU_CMDQ_BASE: return r->cmdq_base;
    case GMMU_SMMU_CMDQ_PROD: return r->cmdq_prod;
    case GMMU_SMMU_CMDQ_CONS: return r->cmdq_cons;
    case GMMU_SMMU_EVTQ_BASE: return r->evtq_base;
    case GMMU_SMMU_EVTQ_PROD: return r->evtq_prod;
    case GMMU_SMMU_EVTQ_CONS: return r->evtq_cons;
    default: return 0;
    }
}

gmmu_smmu_reg_status gmmu_smmu_reg_read(const gmmu_smmu_regs *r, uint32_t off, unsigned len,
                                        uint64_t *val)
{
    const reg_desc *d;
    unsigned half;
    gmmu_smmu_reg_status s = find_reg(off, len, &d, &half);
    if (s != GMMU_SMMU_REG_OK)
        return s;
    uint64_t v = reg_value(r, d->off);
    *val = len == 8 ? v : (uint32_t)(v >> (32u * half));
    return GMMU_SMMU_REG_OK;
}

/* Merge a write of len bytes at half into the 64-bit register value. */
static uint64_t merge64(uint64_t old, uint64_t val, unsigned len, unsigned half)
{
    if (len == 8)
        return val;
    const uint64_t mask = 0xffffffffull << (32u * half);
    return (old & ~mask) | (((uint64_t)(uint32_t)val << (32u * half)) & mask);
}

gmmu_smmu_reg_status gmmu_smmu_reg_write(gmmu_smmu_regs *r, uint32_t off, unsigned len,
                                         uint64_t val, uint32_t *todo)
{
    const reg_desc *d;
    unsigned half;
    *todo = 0;
    gmmu_smmu_reg_status s = find_reg(off, len, &d, &half);
    if (s != GMMU_SMMU_REG_OK || d->kind == RO32)
        return s;
    const uint32_t v32 = (uint32_t)val;
    const bool cmdq_on = (r->cr0 & GMMU_SMMU_CR0_CMDQEN) != 0;
    const bool evtq_on = (r->cr0 & GMMU_SMMU_CR0_EVTQEN) != 0;
    const bool smmu_on = (r->cr0 & GMMU_SMMU_CR0_SMMUEN) != 0;
    switch (d->off) {
    case GMMU_SMMU_CR0: {
        const uint32_t old = r->cr0;
        r->cr0 = v32 & (GMMU_SMMU_CR0_SMMUEN | GMMU_SMMU_CR0_EVTQEN | GMMU_SMMU_CR0_CMDQEN);
        if ((old ^ r->cr0) & GMMU_SMMU_CR0_SMMUEN)
            *todo |= GMMU_SMMU_DO_CONFIG;
        if (r->cr0 & GMMU_SMMU_CR0_CMDQEN)
            *todo |= GMMU_SMMU_DO_CMDQ;
        *todo |= GMMU_SMMU_DO_IRQ;
        break;
    }
    case GMMU_SMMU_CR1: r->cr1 = v32; break;
    case GMMU_SMMU_CR2: r->cr2 = v32; break;
    case GMMU_SMMU_IRQ_CTRL:
        r->irq_ctrl = v32 & (GMMU_SMMU_IRQ_GERROR | GMMU_SMMU_IRQ_EVTQ);
        *todo |= GMMU_SMMU_DO_IRQ;
        break;
    case GMMU_SMMU_GERRORN:
        r->gerrorn = v32 & (GMMU_SMMU_GERROR_CMDQ_ERR | GMMU_SMMU_GERROR_EVTQ_ABT |
                            GMMU_SMMU_GERROR_MSI_CMDQ_ABT);
        *todo |= GMMU_SMMU_DO_IRQ | GMMU_SMMU_DO_CMDQ; /* an acknowledged CMDQ_ERR resumes */
        break;
    case GMMU_SMMU_STRTAB_BASE:
        if (!smmu_on) {
            r->strtab_base = merge64(r->strtab_base, val, len, half) & 0x400fffffffffffc0ull;
            *todo |= GMMU_SMMU_DO_CONFIG;
        }
        break;
    case GMMU_SMMU_STRTAB_BASE_CFG:
        if (!smmu_on) {
            r->strtab_cfg = v32 & 0x3003fu; /* FMT[17:16], LOG2SIZE[5:0] */
            *todo |= GMMU_SMMU_DO_CONFIG;
        }
        break;
    case GMMU_SMMU_CMDQ_BASE:
        if (!cmdq_on)
            r->cmdq_base = merge64(r->cmdq_base, val, len, half) & 0x400fffffffffffffull;
        break;
    case GMMU_SMMU_CMDQ_PROD:
        r->cmdq_prod = v32 & ((2u << gmmu_smmu_q_log2(r->cmdq_base)) - 1u);
        *todo |= GMMU_SMMU_DO_CMDQ;
        break;
    case GMMU_SMMU_CMDQ_CONS:
        if (!cmdq_on)
            r->cmdq_cons = v32 & ((2u << gmmu_smmu_q_log2(r->cmdq_base)) - 1u);
        break;
    case GMMU_SMMU_EVTQ_BASE:
        if (!evtq_on)
            r->evtq_base = merge64(r->evtq_base, val, len, half) & 0x400fffffffffffffull;
        break;
    case GMMU_SMMU_EVTQ_PROD:
        if (!evtq_on)
            r->evtq_prod = v32 & (GMMU_SMMU_Q_OVF | ((2u << gmmu_smmu_q_log2(r->evtq_base)) - 1u));
        *todo |= GMMU_SMMU_DO_IRQ;
        break;
    case GMMU_SMMU_EVTQ_CONS:
        r->evtq_cons = v32 & (GMMU_SMMU_Q_OVF | ((2u << gmmu_smmu_q_log2(r->evtq_base)) - 1u));
        *todo |= GMMU_SMMU_DO_IRQ;
        break;
    default: break;
    }
    return GMMU_SMMU_REG_OK;
}

bool gmmu_smmu_evtq_irq(const gmmu_smmu_regs *r)
{
    const unsigned n = gmmu_smmu_q_log2(r->evtq_base);
    return (r->cr0 & GMMU_SMMU_CR0_EVTQEN) && (r->irq_ctrl & GMMU_SMMU_IRQ_EVTQ) &&
           !gmmu_smmu_q_empty(r->evtq_prod, r->evtq_cons, n);
}

bool gmmu_smmu_gerror_irq(const gmmu_smmu_regs *r)
{
    return (r->irq_ctrl & GMMU_SMMU_IRQ_GERROR) && (r->gerror ^ r->gerrorn) != 0;
}

bool gmmu_smmu_cmdq_runnable(const gmmu_smmu_regs *r)
{
    if (!(r->cr0 & GMMU_SMMU_CR0_CMDQEN))
        return false;
    if ((r->gerror ^ r->gerrorn) & GMMU_SMMU_GERROR_CMDQ_ERR)
        return false;
    return !gmmu_smmu_q_empty(r->cmdq_prod, r->cmdq_cons, gmmu_smmu_q_log2(r->cmdq_base));
}

void gmmu_smmu_gerror_raise(gmmu_smmu_regs *r, uint32_t bit)
{
    if (((r->gerror ^ r->gerrorn) & bit) == 0)
        r->gerror ^= bit; /* only an inactive error becomes active */
}

void gmmu_smmu_cmdq_error(gmmu_smmu_regs *r, unsigned cerror)
{
    r->cmdq_cons = (r->cmdq_cons & ~(0x7fu << GMMU_SMMU_CMDQ_CONS_ERR_SHIFT)) |
                   ((cerror & 0x7fu) << GMMU_SMMU_CMDQ_CONS_ERR_SHIFT);
    gmmu_smmu_gerror_raise(r, GMMU_SMMU_GERROR_CMDQ_ERR);
}

/* ---- events -------------------------------------------------------------- */
void gmmu_smmu_event_encode(const gmmu_smmu_event *e, uint64_t dw[4])
{
    dw[0] = field(e->id, 7, 0) | field(e->ssv, 11, 11) | field(e->substream_id, 31, 12) |
            field(e->stream_id, 63, 32);
    dw[1] = field(e->privileged, 33, 33) | field(e->instruction, 34, 34) |
            field(!e->write, 35, 35) | field(e->cls, 41, 40) | field(e->reason, 63, 56);
    dw[2] = e->input_addr;
    dw[3] = e->fetch_addr & 0x000ffffffffffff8ull;
}

void gmmu_smmu_event_decode(const uint64_t dw[4], gmmu_smmu_event *e)
{
    memset(e, 0, sizeof *e);
    e->id = (uint8_t)bits(dw[0], 7, 0);
    e->ssv = bits(dw[0], 11, 11) != 0;
    e->substream_id = (uint32_t)bits(dw[0], 31, 12);
    e->stream_id = (uint32_t)bits(dw[0], 63, 32);
    e->privileged = bits(dw[1], 33, 33) != 0;
    e->instruction = bits(dw[1], 34, 34) != 0;
    e->write = bits(dw[1], 35, 35) == 0;
    e->cls = (uint8_t)bits(dw[1], 41, 40);
    e->reason = (uint8_t)bits(dw[1], 63, 56);
    e->input_addr = dw[2];
    e->fetch_addr = dw[3];
}

const char *gmmu_smmu_event_str(uint8_t id)
{
    switch (id) {
    case GMMU_SMMU_EVT_NONE: return "none";
    case GMMU_SMMU_C_BAD_STREAMID: return "C_BAD_STREAMID";
    case GMMU_SMMU_F_STE_FETCH: return "F_STE_FETCH";
    case GMMU_SMMU_C_BAD_STE: return "C_BAD_STE";
    case GMMU_SMMU_F_STREAM_DISABLED: return "F_STREAM_DISABLED";
    case GMMU_SMMU_C_BAD_SUBSTREAMID: return "C_BAD_SUBSTREAMID";
    case GMMU_SMMU_F_CD_FETCH: return "F_CD_FETCH";
    case GMMU_SMMU_C_BAD_CD: return "C_BAD_CD";
    case GMMU_SMMU_F_WALK_EABT: return "F_WALK_EABT";
    case GMMU_SMMU_F_TRANSLATION: return "F_TRANSLATION";
    case GMMU_SMMU_F_PERMISSION: return "F_PERMISSION";
    default: return "unknown";
    }
}

gmmu_smmu_event_id gmmu_smmu_event_of_fault(gmmu_fault f)
{
    switch (f) {
    case GMMU_FAULT_NONE: return GMMU_SMMU_EVT_NONE;
    case GMMU_FAULT_WRITE:
    case GMMU_FAULT_USER: return GMMU_SMMU_F_PERMISSION;
    case GMMU_FAULT_BUS_ERROR: return GMMU_SMMU_F_WALK_EABT;
    case GMMU_FAULT_NOT_PRESENT:
    case GMMU_FAULT_NONCANONICAL:
    case GMMU_FAULT_RESERVED: return GMMU_SMMU_F_TRANSLATION;
    }
    return GMMU_SMMU_F_TRANSLATION;
}

uint8_t gmmu_smmu_class_of_fault(gmmu_fault f)
{
    return f == GMMU_FAULT_BUS_ERROR ? GMMU_SMMU_CLASS_TT : GMMU_SMMU_CLASS_IN;
}

gmmu_smmu_resp gmmu_smmu_response_of(gmmu_smmu_event_id id)
{
    switch (id) {
    case GMMU_SMMU_EVT_NONE: return GMMU_SMMU_RESP_OK;
    case GMMU_SMMU_F_TRANSLATION: return GMMU_SMMU_RESP_ADDRESS_ERROR;
    case GMMU_SMMU_F_PERMISSION: return GMMU_SMMU_RESP_COMMAND_ERROR;
    default: return GMMU_SMMU_RESP_GENERIC_ERROR;
    }
}

/* ---- STE / CD ------------------------------------------------------------ */
gmmu_smmu_event_id gmmu_smmu_ste_addr(const gmmu_smmu_regs *r, uint32_t sid, uint64_t *addr)
{
    if (bits(r->strtab_cfg, 17, 16) != 0)
        return GMMU_SMMU_C_BAD_STE; /* 2-level stream tables are not walked by this model */
    unsigned log2 = (unsigned)bits(r->strtab_cfg, 5, 0);
    if (log2 > GMMU_SMMU_SIDSIZE)
        log2 = GMMU_SMMU_SIDSIZE;
    if ((uint64_t)sid >= (1ull << log2))
        return GMMU_SMMU_C_BAD_STREAMID;
    *addr = (r->strtab_base & 0x000fffffffffffc0ull) + (uint64_t)sid * GMMU_SMMU_STE_BYTES;
    return GMMU_SMMU_EVT_NONE;
}

gmmu_smmu_event_id gmmu_smmu_ste_decode(const uint64_t dw[2], gmmu_smmu_ste *ste)
{
    memset(ste, 0, sizeof *ste);
    ste->valid = bits(dw[0], 0, 0) != 0;
    ste->config = (uint8_t)bits(dw[0], 3, 1);
    ste->cd_table = dw[0] & 0x000fffffffffffc0ull;
    ste->cd_max_log2 = (uint8_t)bits(dw[0], 63, 59);
    ste->privcfg = (uint8_t)bits(dw[1], 49, 48);
    if (!ste->valid)
        return GMMU_SMMU_C_BAD_STE;
    switch (ste->config) {
    case GMMU_SMMU_STE_CFG_ABORT:
    case GMMU_SMMU_STE_CFG_BYPASS: return GMMU_SMMU_EVT_NONE;
    case GMMU_SMMU_STE_CFG_S1:
        if (bits(dw[0], 5, 4) != 0 || ste->cd_table == 0 || ste->cd_max_log2 > GMMU_SMMU_SSIDSIZE ||
            ste->privcfg == 1)
            return GMMU_SMMU_C_BAD_STE;
        return GMMU_SMMU_EVT_NONE;
    default: return GMMU_SMMU_C_BAD_STE; /* stage 2 and nested configurations are not modelled */
    }
}

void gmmu_smmu_ste_encode(const gmmu_smmu_ste *ste, uint64_t dw[2])
{
    dw[0] = field(ste->valid, 0, 0) | field(ste->config, 3, 1) |
            (ste->cd_table & 0x000fffffffffffc0ull) | field(ste->cd_max_log2, 63, 59);
    dw[1] = field(ste->privcfg, 49, 48);
}

gmmu_smmu_event_id gmmu_smmu_cd_addr(const gmmu_smmu_ste *ste, bool substream_valid,
                                     uint32_t ssid, uint64_t *addr)
{
    uint32_t index = 0;
    if (substream_valid) {
        if (ste->cd_max_log2 == 0 || (uint64_t)ssid >= (1ull << ste->cd_max_log2))
            return GMMU_SMMU_C_BAD_SUBSTREAMID;
        index = ssid;
    }
    *addr = ste->cd_table + (uint64_t)index * GMMU_SMMU_CD_BYTES;
    return GMMU_SMMU_EVT_NONE;
}

gmmu_smmu_event_id gmmu_smmu_cd_decode(const uint64_t dw[2], gmmu_smmu_cd *cd)
{
    memset(cd, 0, sizeof *cd);
    cd->valid = bits(dw[0], 31, 31) != 0;
    cd->asid = (uint16_t)bits(dw[0], 63, 48);
    cd->ttb0 = dw[1] & 0x000ffffffffffff0ull;
    if (!cd->valid || cd->ttb0 == 0 || (cd->ttb0 & 0xfffu) != 0)
        return GMMU_SMMU_C_BAD_CD;
    return GMMU_SMMU_EVT_NONE;
}

void gmmu_smmu_cd_encode(const gmmu_smmu_cd *cd, uint64_t dw[2])
{
    dw[0] = field(cd->valid, 31, 31) | field(cd->asid, 63, 48);
    dw[1] = cd->ttb0 & 0x000ffffffffffff0ull;
}

bool gmmu_smmu_privileged(uint8_t privcfg, bool incoming)
{
    switch (privcfg) {
    case GMMU_SMMU_PRIV_UNPRIV: return false;
    case GMMU_SMMU_PRIV_PRIV: return true;
    default: return incoming;
    }
}

/* ---- context resolution -------------------------------------------------- */
/* The one fetch of a descriptor (STE or CD): its address (an event when there
 * is none), the read (fetch_fault with the address on an error response). */
static gmmu_smmu_event_id fetch_desc(gmmu_smmu_event_id addr_event, uint64_t pa,
                                     gmmu_smmu_event_id fetch_fault, gmmu_smmu_read2_fn read,
                                     void *ctx, uint64_t dw[2], gmmu_smmu_context *c)
{
    if (addr_event != GMMU_SMMU_EVT_NONE)
        return addr_event;
    if (!read(ctx, pa, dw)) {
        c->fetch_addr = pa;
        return fetch_fault;
    }
    return GMMU_SMMU_EVT_NONE;
}

gmmu_smmu_event_id gmmu_smmu_resolve(const gmmu_smmu_regs *r, uint32_t sid, bool ssv,
                                     uint32_t ssid, bool has_bypass, gmmu_smmu_read2_fn read,
                                     void *ctx, gmmu_smmu_context *c)
{
    memset(c, 0, sizeof *c);
    if (!(r->cr0 & GMMU_SMMU_CR0_SMMUEN)) {
        c->abort = true; /* disabled: every transaction terminates (GBPA.ABORT behaviour) */
        return c->event;
    }
    uint64_t dw[2], pa = 0;
    gmmu_smmu_event_id e = gmmu_smmu_ste_addr(r, sid, &pa);
    e = fetch_desc(e, pa, GMMU_SMMU_F_STE_FETCH, read, ctx, dw, c);
    gmmu_smmu_ste ste;
    if (e == GMMU_SMMU_EVT_NONE)
        e = gmmu_smmu_ste_decode(dw, &ste);
    if (e != GMMU_SMMU_EVT_NONE)
        return c->event = e;
    c->privcfg = ste.privcfg;
    if (ste.config == GMMU_SMMU_STE_CFG_ABORT) {
        c->abort = true;
        return c->event;
    }
    if (ste.config == GMMU_SMMU_STE_CFG_BYPASS) {
        if (!has_bypass)
            return c->event = GMMU_SMMU_C_BAD_STE; /* no untranslated path */
        c->bypass = true;
        return c->event;
    }
    e = gmmu_smmu_cd_addr(&ste, ssv, ssid, &pa);
    e = fetch_desc(e, pa, GMMU_SMMU_F_CD_FETCH, read, ctx, dw, c);
    gmmu_smmu_cd cd;
    if (e == GMMU_SMMU_EVT_NONE)
        e = gmmu_smmu_cd_decode(dw, &cd);
    if (e != GMMU_SMMU_EVT_NONE)
        return c->event = e;
    c->asid = cd.asid;
    c->root = cd.ttb0;
    return c->event;
}

/* ---- configuration cache ---------------------------------------------------- */
typedef struct ccache_entry {
    uint32_t sid, ssid;
    bool ssv;
    gmmu_smmu_context ctx;
} ccache_entry;

struct gmmu_smmu_ccache {
    uint32_t cap, n;
    ccache_entry *e; /* e[0..n): oldest insertion first */
};

gmmu_status gmmu_smmu_ccache_create(uint32_t capacity, gmmu_smmu_ccache **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "ccache", "output pointer is NULL");
    *out = NULL;
    if (capacity > (1u << 20))
        return gmmu_error_set(err, "config_entries", "configuration cache of %u entries out of "
                              "range 0..%u", capacity, 1u << 20);
    gmmu_smmu_ccache *c = calloc(1, sizeof *c);
    if (!c)
        return GMMU_ENOMEM;
    c->cap = capacity;
    if (capacity && !(c->e = calloc(capacity, sizeof *c->e))) {
        free(c);
        return GMMU_ENOMEM;
    }
    *out = c;
    return GMMU_OK;
}

void gmmu_smmu_ccache_destroy(gmmu_smmu_ccache *c)
{
    if (!c)
        return;
    free(c->e);
    free(c);
}

static bool ccache_match(const ccache_entry *e, uint32_t sid, bool ssv, uint32_t ssid)
{
    return e->sid == sid && e->ssv == ssv && (!ssv || e->ssid == ssid);
}

const gmmu_smmu_context *gmmu_smmu_ccache_find(const gmmu_smmu_ccache *c, uint32_t sid, bool ssv,
                                               uint32_t ssid)
{
    for (uint32_t i = 0; c && i < c->n; i++)
        if (ccache_match(&c->e[i], sid, ssv, ssid))
            return &c->e[i].ctx;
    return NULL;
}

bool gmmu_smmu_ccache_insert(gmmu_smmu_ccache *c, uint32_t sid, bool ssv, uint32_t ssid,
                             const gmmu_smmu_context *ctx)
{
    if (!c || c->cap == 0)
        return false;
    for (uint32_t i = 0; i < c->n; i++)
        if (ccache_match(&c->e[i], sid, ssv, ssid)) {
            c->e[i].ctx = *ctx; /* refreshed in place: keeps its age */
            return false;
        }
    bool evicted = false;
    if (c->n == c->cap) { /* FIFO: the oldest insertion goes */
        memmove(c->e, c->e + 1, (size_t)(c->n - 1) * sizeof *c->e);
        c->n--;
        evicted = true;
    }
    ccache_entry *e = &c->e[c->n++];
    e->sid = sid;
    e->ssv = ssv;
    e->ssid = ssv ? ssid : 0;
    e->ctx = *ctx;
    return evicted;
}

uint32_t gmmu_smmu_ccache_drop(gmmu_smmu_ccache *c, bool all, uint32_t sid, bool cd_only,
                               uint32_t ssid)
{
    if (!c)
        return 0;
    uint32_t kept = 0, dropped = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const ccache_entry *e = &c->e[i];
        const uint32_t cd = e->ssv ? e->ssid : 0u; /* no SubstreamID: CD 0 */
        const bool match = all || (e->sid == sid && (!cd_only || cd == ssid));
        if (match) {
            dropped++;
            continue;
        }
        c->e[kept++] = *e;
    }
    c->n = kept;
    return dropped;
}

uint32_t gmmu_smmu_ccache_size(const gmmu_smmu_ccache *c) { return c ? c->n : 0; }

/* ---- commands ------------------------------------------------------------ */
unsigned gmmu_smmu_cmd_decode(const uint64_t dw[2], gmmu_smmu_cmd *c)
{
    memset(c, 0, sizeof *c);
    c->op = (uint8_t)bits(dw[0], 7, 0);
    switch (c->op) {
    case GMMU_SMMU_CMD_PREFETCH_CONFIG:
    case GMMU_SMMU_CMD_CFGI_STE:
    case GMMU_SMMU_CMD_CFGI_CD:
        c->stream_id = (uint32_t)bits(dw[0], 63, 32);
        c->substream_id = (uint32_t)bits(dw[0], 31, 12);
        return GMMU_SMMU_CERROR_NONE;
    case GMMU_SMMU_CMD_CFGI_ALL:
    case GMMU_SMMU_CMD_CFGI_CD_ALL:
    case GMMU_SMMU_CMD_TLBI_NH_ALL:
    case GMMU_SMMU_CMD_TLBI_NSNH_ALL: return GMMU_SMMU_CERROR_NONE;
    case GMMU_SMMU_CMD_TLBI_NH_ASID:
        c->asid = (uint16_t)bits(dw[0], 63, 48);
        return GMMU_SMMU_CERROR_NONE;
    case GMMU_SMMU_CMD_TLBI_NH_VA:
    case GMMU_SMMU_CMD_TLBI_NH_VAA: {
        if (c->op == GMMU_SMMU_CMD_TLBI_NH_VA)
            c->asid = (uint16_t)bits(dw[0], 63, 48);
        c->num = (uint8_t)bits(dw[0], 16, 12);
        c->scale = (uint8_t)bits(dw[0], 24, 20);
        c->tg = (uint8_t)bits(dw[1], 11, 10);
        c->addr = dw[1] & ~0xfffull;
        if (c->tg > 1)
            return GMMU_SMMU_CERROR_ILL; /* only the 4 KiB granule exists in x86-64 tables */
        if (c->tg == 0 && (c->num || c->scale))
            return GMMU_SMMU_CERROR_ILL; /* a range needs its granule */
        uint64_t lo, hi;
        gmmu_smmu_cmd_range(c, &lo, &hi);
        if (hi < lo)
            return GMMU_SMMU_CERROR_ILL; /* past the top of the address space */
        return GMMU_SMMU_CERROR_NONE;
    }
    case GMMU_SMMU_CMD_SYNC:
        c->cs = (uint8_t)bits(dw[0], 13, 12);
        c->msi_data = (uint32_t)bits(dw[0], 63, 32);
        c->msi_addr = dw[1] & 0x000ffffffffffffcull;
        if (c->cs == 3)
            return GMMU_SMMU_CERROR_ILL;
        return GMMU_SMMU_CERROR_NONE;
    default: return GMMU_SMMU_CERROR_ILL;
    }
}

void gmmu_smmu_cmd_encode(const gmmu_smmu_cmd *c, uint64_t dw[2])
{
    dw[0] = field(c->op, 7, 0);
    dw[1] = 0;
    switch (c->op) {
    case GMMU_SMMU_CMD_PREFETCH_CONFIG:
    case GMMU_SMMU_CMD_CFGI_STE:
    case GMMU_SMMU_CMD_CFGI_CD:
        dw[0] |= field(c->stream_id, 63, 32) | field(c->substream_id, 31, 12);
        break;
    case GMMU_SMMU_CMD_TLBI_NH_ASID: dw[0] |= field(c->asid, 63, 48); break;
    case GMMU_SMMU_CMD_TLBI_NH_VA:
    case GMMU_SMMU_CMD_TLBI_NH_VAA:
        if (c->op == GMMU_SMMU_CMD_TLBI_NH_VA)
            dw[0] |= field(c->asid, 63, 48);
        dw[0] |= field(c->num, 16, 12) | field(c->scale, 24, 20);
        dw[1] = (c->addr & ~0xfffull) | field(c->tg, 11, 10);
        break;
    case GMMU_SMMU_CMD_SYNC:
        dw[0] |= field(c->cs, 13, 12) | field(c->msi_data, 63, 32);
        dw[1] = c->msi_addr & 0x000ffffffffffffcull;
        break;
    default: break;
    }
}

void gmmu_smmu_cmd_range(const gmmu_smmu_cmd *c, uint64_t *lo, uint64_t *hi)
{
    *lo = c->addr & ~0xfffull;
    const uint64_t pages = c->tg == 0 ? 1ull : ((uint64_t)c->num + 1u) << c->scale;
    *hi = *lo + (pages << 12) - 1u; /* wraps (hi < lo) past the top */
}
