/* gmmu — operand log (tanasic-micro17 §3.3).
 *
 * An SRAM of `bytes` holding the source operands of in-flight global memory
 * instructions. An entry is one warp-wide 64-bit operand: 32 lanes x 8 B =
 * 256 B. A load takes one entry (address), a store two (address, data).
 * At kernel launch the log is split evenly into one partition per resident
 * thread block (the SM's occupancy for that kernel); entries are allocated
 * at issue from the issuing block's partition (issue stalls when it is
 * full), written at operand read, freed after the instruction's last TLB
 * check, and read instead of the register file when a faulted instruction is
 * replayed. A partition is part of its block's context: it is saved and
 * restored when the block is switched out and in. */
#ifndef GMMU_OPLOG_H
#define GMMU_OPLOG_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_OPLOG_LANES 32u
#define GMMU_OPLOG_ENTRY_BYTES 256u /* 32 lanes x 8 B */

typedef struct gmmu_oplog_config {
    uint32_t bytes;      /* log capacity; a multiple of 256, >= 512 x partitions */
    uint32_t partitions; /* resident thread blocks at kernel launch, 1..64 */
} gmmu_oplog_config;

typedef struct gmmu_oplog_stats {
    uint64_t allocs, frees, writes, reads, full; /* full: allocations refused */
    uint64_t saves, restores;
    uint32_t peak_used; /* most entries in use in one partition */
} gmmu_oplog_stats;

typedef struct gmmu_oplog {
    gmmu_oplog_config cfg;
    uint32_t per_part; /* entries per partition */
    uint64_t *data;    /* [partition][entry][lane] */
    uint8_t *used;     /* [partition][entry] */
    uint32_t *nused;   /* [partition] */
    gmmu_oplog_stats st;
} gmmu_oplog;

/* A saved partition (context area in memory): per_part entries. */
typedef struct gmmu_oplog_context {
    uint64_t *data;
    uint8_t *used;
    uint32_t nused;
} gmmu_oplog_context;

gmmu_status gmmu_oplog_config_check(const gmmu_oplog_config *cfg, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_oplog_create(const gmmu_oplog_config *cfg, gmmu_oplog **out, gmmu_error *err);
void gmmu_oplog_destroy(gmmu_oplog *log);

uint32_t gmmu_oplog_partition_entries(const gmmu_oplog *log);
/* Bytes of one partition: what a block switch saves and restores. */
uint32_t gmmu_oplog_partition_bytes(const gmmu_oplog *log);
uint32_t gmmu_oplog_free_entries(const gmmu_oplog *log, uint32_t part);

/* Allocate n (1 or 2) entries of partition part; their indices go to idx[].
 * GMMU_EBUSY (and nothing allocated) when fewer than n are free. */
gmmu_status gmmu_oplog_alloc(gmmu_oplog *log, uint32_t part, uint32_t n, uint32_t idx[2]);
gmmu_status gmmu_oplog_write(gmmu_oplog *log, uint32_t part, uint32_t idx, const uint64_t lanes[32]);
gmmu_status gmmu_oplog_read(gmmu_oplog *log, uint32_t part, uint32_t idx, uint64_t lanes[32]);
gmmu_status gmmu_oplog_free(gmmu_oplog *log, uint32_t part, uint32_t idx);

/* Context switch: copy partition part out to ctx (and mark it empty), or
 * back in from ctx. ctx->data holds per_part x 32 words, ctx->used per_part. */
gmmu_status gmmu_oplog_save(gmmu_oplog *log, uint32_t part, gmmu_oplog_context *ctx);
gmmu_status gmmu_oplog_restore(gmmu_oplog *log, uint32_t part, const gmmu_oplog_context *ctx);

#ifdef __cplusplus
}
#endif
#endif
