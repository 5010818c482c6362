/* gmmu — per-warp replay queue (tanasic-micro17 section 3.2).
 *
 * Global memory instructions enter the queue at issue and leave at commit,
 * so the queue holds them in program order. On a fault the faulted ones are
 * marked (squashed) and stay; they are the warp's replay list, part of its
 * context, and are replayed (oldest first) before the warp issues anything
 * new. An entry carries the instruction's PC and active lanes, a tag naming its in-flight
 * instance, and the operand-log entries that hold its source operands (if
 * the SM has an operand log). Fixed capacity, no allocation. */
#ifndef GMMU_REPLAY_QUEUE_H
#define GMMU_REPLAY_QUEUE_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMMU_RQ_MAX 64u
#define GMMU_RQ_NO_TAG 0xFFFFFFFFu

typedef enum gmmu_rq_state {
    GMMU_RQ_INFLIGHT = 0, /* issued, not yet committed */
    GMMU_RQ_FAULTED = 1   /* squashed on a fault, waits for replay */
} gmmu_rq_state;

typedef struct gmmu_rq_entry {
    uint32_t pc;
    uint32_t lanes;     /* active lanes at issue: a replay runs these, whatever the warp does since */
    uint32_t tag;       /* in-flight instance (GMMU_RQ_NO_TAG while faulted) */
    uint8_t state;      /* gmmu_rq_state */
    uint8_t log_n;      /* operand-log entries held (0..2) */
    uint32_t log_idx[2];
} gmmu_rq_entry;

typedef struct gmmu_replay_queue {
    uint32_t cap; /* 1..GMMU_RQ_MAX */
    uint32_t n;
    uint32_t nfaulted;
    gmmu_rq_entry e[GMMU_RQ_MAX]; /* program order, oldest first */
    uint64_t pushes, pops, faults, replays, full;
} gmmu_replay_queue;

typedef struct gmmu_rq_config {
    uint32_t entries; /* capacity, 1..GMMU_RQ_MAX */
} gmmu_rq_config;

/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_rq_create(const gmmu_rq_config *cfg, gmmu_replay_queue **out, gmmu_error *err);
void gmmu_rq_destroy(gmmu_replay_queue *q);
/* Append an issued global memory instruction (its active lanes, non-zero);
 * GMMU_EBUSY when full. */
gmmu_status gmmu_rq_push(gmmu_replay_queue *q, uint32_t pc, uint32_t lanes, uint32_t tag, uint8_t log_n,
                         const uint32_t log_idx[2]);
/* Remove the committed instance `tag`. GMMU_EINVAL if absent. */
gmmu_status gmmu_rq_commit(gmmu_replay_queue *q, uint32_t tag);
/* Squash the instance `tag` on a fault: it stays, marked faulted. */
gmmu_status gmmu_rq_fault(gmmu_replay_queue *q, uint32_t tag);
/* The oldest faulted entry (its index in e[] to *pos), or GMMU_EINVAL if none. */
gmmu_status gmmu_rq_next_replay(const gmmu_replay_queue *q, uint32_t *pos);
/* Re-issue the faulted entry at pos as in-flight instance `tag`. */
gmmu_status gmmu_rq_replay(gmmu_replay_queue *q, uint32_t pos, uint32_t tag);
gmmu_status gmmu_rq_find(const gmmu_replay_queue *q, uint32_t tag, uint32_t *pos);
bool gmmu_rq_full(const gmmu_replay_queue *q);

#ifdef __cplusplus
}
#endif
#endif
