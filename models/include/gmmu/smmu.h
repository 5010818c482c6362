/* gmmu — the decisions of an SMMU-style translation front end, after the
 * Arm SMMUv3 programming interface (docs/smmu.md compares the two feature by
 * feature).
 *
 * This model owns what software sees and what the hardware decides; it does
 * no memory access and keeps no time (the TLM component, gmmu::smmu, reads
 * tables and queues from memory and schedules the work):
 *   - the register file (gmmu_smmu_regs): offsets and access widths, which
 *     fields are writable when, the queue pointers with their wrap bits,
 *     GERROR/GERRORN, the interrupt lines;
 *   - the formats in memory: stream table entries (STE), context
 *     descriptors (CD), commands and event records — decoders that refuse a
 *     malformed entry with the SMMUv3 event or command error it raises, and
 *     encoders for drivers and tests;
 *   - the mapping of a translation fault (gmmu_fault) to an event record and
 *     a TLM response.
 *
 * Formats in memory are little-endian 64-bit words. Lifecycle: the register
 * file is a plain struct; gmmu_smmu_regs_reset() puts it in its reset state. */
#ifndef GMMU_SMMU_H
#define GMMU_SMMU_H

#include "gmmu/pagetable.h"
#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- registers (byte offsets; page 1 starts at 0x10000) ------------------ */
#define GMMU_SMMU_IDR0 0x0000u
#define GMMU_SMMU_IDR1 0x0004u
#define GMMU_SMMU_AIDR 0x001cu
#define GMMU_SMMU_CR0 0x0020u
#define GMMU_SMMU_CR0ACK 0x0024u
#define GMMU_SMMU_CR1 0x0028u
#define GMMU_SMMU_CR2 0x002cu
#define GMMU_SMMU_IRQ_CTRL 0x0050u
#define GMMU_SMMU_IRQ_CTRLACK 0x0054u
#define GMMU_SMMU_GERROR 0x0060u
#define GMMU_SMMU_GERRORN 0x0064u
#define GMMU_SMMU_STRTAB_BASE 0x0080u     /* 64-bit */
#define GMMU_SMMU_STRTAB_BASE_CFG 0x0088u
#define GMMU_SMMU_CMDQ_BASE 0x0090u       /* 64-bit */
#define GMMU_SMMU_CMDQ_PROD 0x0098u
#define GMMU_SMMU_CMDQ_CONS 0x009cu
#define GMMU_SMMU_EVTQ_BASE 0x00a0u       /* 64-bit */
#define GMMU_SMMU_EVTQ_PROD 0x100a8u
#define GMMU_SMMU_EVTQ_CONS 0x100acu
#define GMMU_SMMU_REG_SPAN 0x20000u       /* bytes the register window decodes */

#define GMMU_SMMU_CR0_SMMUEN (1u << 0)
#define GMMU_SMMU_CR0_EVTQEN (1u << 2)
#define GMMU_SMMU_CR0_CMDQEN (1u << 3)
#define GMMU_SMMU_IRQ_GERROR (1u << 0)
#define GMMU_SMMU_IRQ_EVTQ (1u << 2)
#define GMMU_SMMU_GERROR_CMDQ_ERR (1u << 0)
#define GMMU_SMMU_GERROR_EVTQ_ABT (1u << 2)  /* an event record write got an error */
#define GMMU_SMMU_GERROR_MSI_CMDQ_ABT (1u << 4) /* a CMD_SYNC completion write got an error */

#define GMMU_SMMU_Q_OVF (1u << 31)           /* EVTQ_PROD.OVFLG / EVTQ_CONS.OVACKFLG */
#define GMMU_SMMU_CMDQ_CONS_ERR_SHIFT 24     /* CMDQ_CONS.ERR, bits 30:24 */
#define GMMU_SMMU_CERROR_NONE 0u
#define GMMU_SMMU_CERROR_ILL 1u              /* unknown opcode or a reserved field set */
#define GMMU_SMMU_CERROR_ABT 2u              /* the command read got an error response */

/* Limits this implementation reports in IDR1. */
#define GMMU_SMMU_SIDSIZE 16u  /* StreamID bits */
#define GMMU_SMMU_SSIDSIZE 8u  /* SubstreamID bits */
#define GMMU_SMMU_QS_MAX 19u   /* log2 of the largest command / event queue */

/* Outcome of a register access. */
typedef enum gmmu_smmu_reg_status {
    GMMU_SMMU_REG_OK = 0,
    GMMU_SMMU_REG_BAD_ADDRESS, /* no register there (TLM address error) */
    GMMU_SMMU_REG_BAD_WIDTH    /* width or alignment the register does not accept (TLM burst error) */
} gmmu_smmu_reg_status;

/* What a register write asks the component to do next. */
#define GMMU_SMMU_DO_CMDQ (1u << 0)   /* consume commands (CMDQ_PROD written, queue enabled) */
#define GMMU_SMMU_DO_IRQ (1u << 1)    /* re-evaluate the interrupt lines */
#define GMMU_SMMU_DO_CONFIG (1u << 2) /* the stream table moved or SMMUEN changed: drop cached configuration */

typedef struct gmmu_smmu_regs {
    uint32_t cr0, cr1, cr2, irq_ctrl, gerror, gerrorn;
    uint64_t strtab_base;
    uint32_t strtab_cfg;
    uint64_t cmdq_base;
    uint32_t cmdq_prod, cmdq_cons;
    uint64_t evtq_base;
    uint32_t evtq_prod, evtq_cons;
} gmmu_smmu_regs;

void gmmu_smmu_regs_reset(gmmu_smmu_regs *r);
/* A register read of len bytes (4 or 8, naturally aligned; a 64-bit
 * register may be read as two 32-bit halves). */
gmmu_smmu_reg_status gmmu_smmu_reg_read(const gmmu_smmu_regs *r, uint32_t off, unsigned len,
                                        uint64_t *val);
/* A register write; *todo gets GMMU_SMMU_DO_* flags. Read-only registers
 * ignore writes (as SMMUv3 requires); a queue base or pointer written while
 * its queue is enabled is ignored (CONSTRAINED UNPREDICTABLE in SMMUv3). */
gmmu_smmu_reg_status gmmu_smmu_reg_write(gmmu_smmu_regs *r, uint32_t off, unsigned len,
                                         uint64_t val, uint32_t *todo);

/* Queue geometry from a *Q_BASE value: log2 of the entry count (clamped to
 * GMMU_SMMU_QS_MAX, as SMMUv3 does) and the base address. */
unsigned gmmu_smmu_q_log2(uint64_t q_base);
uint64_t gmmu_smmu_q_addr(uint64_t q_base);
/* Pointers carry an index (log2 bits) and a wrap bit above it. */
bool gmmu_smmu_q_empty(uint32_t prod, uint32_t cons, unsigned log2);
bool gmmu_smmu_q_full(uint32_t prod, uint32_t cons, unsigned log2);
uint32_t gmmu_smmu_q_index(uint32_t ptr, unsigned log2);
uint32_t gmmu_smmu_q_next(uint32_t ptr, unsigned log2); /* index + 1 with wrap; flags kept */

/* State of the interrupt lines (level-high): event queue not empty with
 * EVTQEN and its IRQ enabled; a GERROR bit active (GERROR != GERRORN) with
 * its IRQ enabled. */
bool gmmu_smmu_evtq_irq(const gmmu_smmu_regs *r);
bool gmmu_smmu_gerror_irq(const gmmu_smmu_regs *r);
/* Command queue may run: CMDQEN, no unacknowledged CMDQ_ERR, not empty. */
bool gmmu_smmu_cmdq_runnable(const gmmu_smmu_regs *r);
/* Stop the command queue on the command at CMDQ_CONS with error cerror
 * (CMDQ_CONS.ERR, GERROR.CMDQ_ERR toggled). */
void gmmu_smmu_cmdq_error(gmmu_smmu_regs *r, unsigned cerror);
/* Toggle a GERROR bit (an error becomes active until software toggles the
 * same bit of GERRORN). */
void gmmu_smmu_gerror_raise(gmmu_smmu_regs *r, uint32_t bit);

/* ---- events -------------------------------------------------------------- */
typedef enum gmmu_smmu_event_id {
    GMMU_SMMU_EVT_NONE = 0x00,
    GMMU_SMMU_C_BAD_STREAMID = 0x02,
    GMMU_SMMU_F_STE_FETCH = 0x03,
    GMMU_SMMU_C_BAD_STE = 0x04,
    GMMU_SMMU_F_STREAM_DISABLED = 0x06,
    GMMU_SMMU_C_BAD_SUBSTREAMID = 0x08,
    GMMU_SMMU_F_CD_FETCH = 0x09,
    GMMU_SMMU_C_BAD_CD = 0x0a,
    GMMU_SMMU_F_WALK_EABT = 0x0b,
    GMMU_SMMU_F_TRANSLATION = 0x10,
    GMMU_SMMU_F_PERMISSION = 0x13
} gmmu_smmu_event_id;

/* Where a fault's address came from (event record CLASS). */
#define GMMU_SMMU_CLASS_CD 0u
#define GMMU_SMMU_CLASS_TT 1u  /* a page-table read */
#define GMMU_SMMU_CLASS_IN 2u  /* the input address */

typedef struct gmmu_smmu_event {
    uint8_t id;            /* gmmu_smmu_event_id */
    uint32_t stream_id;
    uint32_t substream_id;
    bool ssv;              /* substream_id valid */
    bool write;            /* RnW = !write */
    bool privileged;       /* PnU */
    bool instruction;      /* InD */
    uint8_t cls;           /* GMMU_SMMU_CLASS_* */
    uint8_t reason;        /* implementation defined (dword 1, bits 63:56): the gmmu_fault */
    uint64_t input_addr;
    uint64_t fetch_addr;   /* F_STE_FETCH / F_CD_FETCH: address of the failed read */
} gmmu_smmu_event;

#define GMMU_SMMU_EVT_BYTES 32u
void gmmu_smmu_event_encode(const gmmu_smmu_event *e, uint64_t dw[4]);
void gmmu_smmu_event_decode(const uint64_t dw[4], gmmu_smmu_event *e);
const char *gmmu_smmu_event_str(uint8_t id);

/* The event a translation fault raises (GMMU_SMMU_EVT_NONE for no fault). */
gmmu_smmu_event_id gmmu_smmu_event_of_fault(gmmu_fault f);
/* Its record's class: a page-table read that failed (GMMU_SMMU_CLASS_TT) for
 * a bus error on the walk, the input address (GMMU_SMMU_CLASS_IN) otherwise. */
uint8_t gmmu_smmu_class_of_fault(gmmu_fault f);

/* How a transaction that raised event `id` completes (the TLM component maps
 * these to tlm_response_status): translation faults as an address error,
 * permission faults as a command error, configuration faults and external
 * aborts as a generic error. */
typedef enum gmmu_smmu_resp {
    GMMU_SMMU_RESP_OK = 0,
    GMMU_SMMU_RESP_ADDRESS_ERROR,
    GMMU_SMMU_RESP_COMMAND_ERROR,
    GMMU_SMMU_RESP_GENERIC_ERROR
} gmmu_smmu_resp;
gmmu_smmu_resp gmmu_smmu_response_of(gmmu_smmu_event_id id);

/* ---- stream table entries and context descriptors ------------------------ */
#define GMMU_SMMU_STE_BYTES 64u
#define GMMU_SMMU_CD_BYTES 64u
#define GMMU_SMMU_STE_CFG_ABORT 0u
#define GMMU_SMMU_STE_CFG_BYPASS 4u
#define GMMU_SMMU_STE_CFG_S1 5u
#define GMMU_SMMU_PRIV_INCOMING 0u   /* STE.PRIVCFG: use the transaction's privilege */
#define GMMU_SMMU_PRIV_UNPRIV 2u
#define GMMU_SMMU_PRIV_PRIV 3u

typedef struct gmmu_smmu_ste {
    bool valid;
    uint8_t config;       /* GMMU_SMMU_STE_CFG_* */
    uint64_t cd_table;    /* S1ContextPtr: the linear CD table */
    uint8_t cd_max_log2;  /* S1CDMax: the table holds 2^n CDs (n = 0: one, no substreams) */
    uint8_t privcfg;      /* GMMU_SMMU_PRIV_* */
} gmmu_smmu_ste;

typedef struct gmmu_smmu_cd {
    bool valid;
    uint16_t asid;
    uint64_t ttb0;        /* root of the x86-64 4-level table (PML4), 4 KiB aligned */
} gmmu_smmu_cd;

/* Address of stream `sid`'s STE, or an event (C_BAD_STREAMID past the table,
 * C_BAD_STE for a table format this model does not walk). */
gmmu_smmu_event_id gmmu_smmu_ste_addr(const gmmu_smmu_regs *r, uint32_t sid, uint64_t *addr);
/* Decode the first two words of an STE: NONE, or C_BAD_STE (V = 0 is
 * reported as C_BAD_STE too, as SMMUv3 does; a reserved Config, an S1 entry
 * with a non-linear CD format, an unaligned or zero CD pointer). */
gmmu_smmu_event_id gmmu_smmu_ste_decode(const uint64_t dw[2], gmmu_smmu_ste *ste);
void gmmu_smmu_ste_encode(const gmmu_smmu_ste *ste, uint64_t dw[2]);
/* Address of the CD for (ste, ssid); substream_valid false selects CD 0.
 * C_BAD_SUBSTREAMID for a SubstreamID past S1CDMax (or any with S1CDMax 0). */
gmmu_smmu_event_id gmmu_smmu_cd_addr(const gmmu_smmu_ste *ste, bool substream_valid,
                                     uint32_t ssid, uint64_t *addr);
/* NONE, or C_BAD_CD (V = 0, or TTB0 not 4 KiB aligned or zero). */
gmmu_smmu_event_id gmmu_smmu_cd_decode(const uint64_t dw[2], gmmu_smmu_cd *cd);
void gmmu_smmu_cd_encode(const gmmu_smmu_cd *cd, uint64_t dw[2]);
/* The privilege a transaction runs with under STE.PRIVCFG. */
bool gmmu_smmu_privileged(uint8_t privcfg, bool incoming);

/* ---- a stream's context: STE and CD fetched and decoded ------------------ */
/* Reads the two 64-bit words at pa into dw (little-endian); false: the read
 * got an error response. */
typedef bool (*gmmu_smmu_read2_fn)(void *ctx, uint64_t pa, uint64_t dw[2]);

typedef struct gmmu_smmu_context {
    gmmu_smmu_event_id event; /* NONE, or the configuration fault to record */
    uint64_t fetch_addr;      /* F_STE_FETCH / F_CD_FETCH: the read that failed */
    bool abort;               /* SMMUEN = 0 or STE Config = abort: terminate, no event */
    bool bypass;              /* STE Config = bypass: the address is the PA */
    uint16_t asid;            /* stage 1: the CD's ASID and table root */
    uint64_t root;
    uint8_t privcfg;          /* STE.PRIVCFG */
} gmmu_smmu_context;

/* Resolve the context of (sid, substream) from the stream table and CD table
 * in memory, reading each descriptor through `read` (one fetch rule for STE
 * and CD: address or C_BAD_*, read or F_*_FETCH with its address, decode or
 * C_BAD_*). has_bypass: the caller has an untranslated path (else a bypass
 * STE is C_BAD_STE). Returns c->event. */
gmmu_smmu_event_id gmmu_smmu_resolve(const gmmu_smmu_regs *r, uint32_t sid, bool ssv,
                                     uint32_t ssid, bool has_bypass, gmmu_smmu_read2_fn read,
                                     void *ctx, gmmu_smmu_context *c);

/* ---- the configuration cache: resolved contexts, FIFO replacement -------- */
/* Holds up to `capacity` contexts keyed by (StreamID, SubstreamID if valid);
 * when full, an insertion replaces the oldest insertion (FIFO: hits do not
 * refresh an entry). capacity 0 keeps nothing. */
typedef struct gmmu_smmu_ccache gmmu_smmu_ccache;
gmmu_status gmmu_smmu_ccache_create(uint32_t capacity, gmmu_smmu_ccache **out, gmmu_error *err);
void gmmu_smmu_ccache_destroy(gmmu_smmu_ccache *c);
/* The cached context of the key, or NULL. */
const gmmu_smmu_context *gmmu_smmu_ccache_find(const gmmu_smmu_ccache *c, uint32_t sid, bool ssv,
                                               uint32_t ssid);
/* Insert (or replace) the key's context; returns whether another entry was
 * evicted to make room. */
bool gmmu_smmu_ccache_insert(gmmu_smmu_ccache *c, uint32_t sid, bool ssv, uint32_t ssid,
                             const gmmu_smmu_context *ctx);
/* Drop every entry (all), or stream sid's (CFGI_STE), or only those of its
 * CD ssid (cd_only, CFGI_CD; an entry without a SubstreamID uses CD 0).
 * Returns the number dropped. */
uint32_t gmmu_smmu_ccache_drop(gmmu_smmu_ccache *c, bool all, uint32_t sid, bool cd_only,
                               uint32_t ssid);
uint32_t gmmu_smmu_ccache_size(const gmmu_smmu_ccache *c);

/* ---- commands ------------------------------------------------------------ */
#define GMMU_SMMU_CMD_BYTES 16u
typedef enum gmmu_smmu_opcode {
    GMMU_SMMU_CMD_PREFETCH_CONFIG = 0x01,
    GMMU_SMMU_CMD_CFGI_STE = 0x03,
    GMMU_SMMU_CMD_CFGI_ALL = 0x04,
    GMMU_SMMU_CMD_CFGI_CD = 0x05,
    GMMU_SMMU_CMD_CFGI_CD_ALL = 0x06,
    GMMU_SMMU_CMD_TLBI_NH_ALL = 0x10,
    GMMU_SMMU_CMD_TLBI_NH_ASID = 0x11,
    GMMU_SMMU_CMD_TLBI_NH_VA = 0x12,
    GMMU_SMMU_CMD_TLBI_NH_VAA = 0x13,
    GMMU_SMMU_CMD_TLBI_NSNH_ALL = 0x30,
    GMMU_SMMU_CMD_SYNC = 0x46
} gmmu_smmu_opcode;
#define GMMU_SMMU_SYNC_CS_NONE 0u
#define GMMU_SMMU_SYNC_CS_IRQ 1u /* completion signalled by a 32-bit write of msi_data to msi_addr */
#define GMMU_SMMU_SYNC_CS_SEV 2u

typedef struct gmmu_smmu_cmd {
    uint8_t op;           /* gmmu_smmu_opcode */
    uint32_t stream_id;   /* CFGI_STE, CFGI_CD */
    uint32_t substream_id;/* CFGI_CD */
    uint16_t asid;        /* TLBI_NH_ASID, TLBI_NH_VA */
    uint64_t addr;        /* TLBI_NH_VA(A): first byte, 4 KiB aligned */
    uint8_t num, scale;   /* range: (num + 1) << scale pages of 4 KiB (tg = 1) */
    uint8_t tg;           /* 0: one page at addr; 1: 4 KiB granule range */
    uint8_t cs;           /* CMD_SYNC completion signal */
    uint32_t msi_data;
    uint64_t msi_addr;    /* 4-byte aligned */
} gmmu_smmu_cmd;

/* Decode a command; returns GMMU_SMMU_CERROR_NONE or GMMU_SMMU_CERROR_ILL
 * (unknown opcode, a range with a granule other than 4 KiB, a range past the
 * top of the address space). */
unsigned gmmu_smmu_cmd_decode(const uint64_t dw[2], gmmu_smmu_cmd *c);
void gmmu_smmu_cmd_encode(const gmmu_smmu_cmd *c, uint64_t dw[2]);
/* Inclusive VA range a TLBI_NH_VA / TLBI_NH_VAA covers. */
void gmmu_smmu_cmd_range(const gmmu_smmu_cmd *c, uint64_t *lo, uint64_t *hi);

#ifdef __cplusplus
}
#endif
#endif
