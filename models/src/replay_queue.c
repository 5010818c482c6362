#include "replay_queue_internal.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_rq_init_into(gmmu_replay_queue *q, uint32_t cap, gmmu_error *err)
{
    if (!q)
        return gmmu_error_set(err, "replay_queue", "replay queue pointer is NULL");
    if (cap == 0 || cap > GMMU_RQ_MAX)
        return gmmu_error_set(err, "replay_queue_entries", "replay queue entries %u out of range 1..%u",
                              cap, GMMU_RQ_MAX);
    memset(q, 0, sizeof *q);
    q->cap = cap;
    return GMMU_OK;
}

bool gmmu_rq_full(const gmmu_replay_queue *q) { return !q || q->n >= q->cap; }

gmmu_status gmmu_rq_push(gmmu_replay_queue *q, uint32_t pc, uint32_t lanes, uint32_t tag, uint8_t log_n,
                         const uint32_t log_idx[2])
{
    if (!q || lanes == 0 || log_n > 2 || (log_n && !log_idx) || tag == GMMU_RQ_NO_TAG)
        return GMMU_EINVAL;
    if (q->n >= q->cap) {
        q->full++;
        return GMMU_EBUSY;
    }
    gmmu_rq_entry *e = &q->e[q->n++];
    e->pc = pc;
    e->lanes = lanes;
    e->tag = tag;
    e->state = GMMU_RQ_INFLIGHT;
    e->log_n = log_n;
    e->log_idx[0] = log_n > 0 ? log_idx[0] : 0;
    e->log_idx[1] = log_n > 1 ? log_idx[1] : 0;
    q->pushes++;
    return GMMU_OK;
}

gmmu_status gmmu_rq_find(const gmmu_replay_queue *q, uint32_t tag, uint32_t *pos)
{
    if (!q || !pos || tag == GMMU_RQ_NO_TAG)
        return GMMU_EINVAL;
    for (uint32_t i = 0; i < q->n; i++)
        if (q->e[i].tag == tag) {
            *pos = i;
            return GMMU_OK;
        }
    return GMMU_EINVAL;
}

gmmu_status gmmu_rq_commit(gmmu_replay_queue *q, uint32_t tag)
{
    uint32_t pos;
    if (gmmu_rq_find(q, tag, &pos) != GMMU_OK)
        return GMMU_EINVAL;
    memmove(&q->e[pos], &q->e[pos + 1], (q->n - pos - 1) * sizeof q->e[0]);
    q->n--;
    q->pops++;
    return GMMU_OK;
}

gmmu_status gmmu_rq_fault(gmmu_replay_queue *q, uint32_t tag)
{
    uint32_t pos;
    if (gmmu_rq_find(q, tag, &pos) != GMMU_OK)
        return GMMU_EINVAL;
    q->e[pos].state = GMMU_RQ_FAULTED;
    q->e[pos].tag = GMMU_RQ_NO_TAG;
    q->nfaulted++;
    q->faults++;
    return GMMU_OK;
}

gmmu_status gmmu_rq_next_replay(const gmmu_replay_queue *q, uint32_t *pos)
{
    if (!q || !pos)
        return GMMU_EINVAL;
    for (uint32_t i = 0; i < q->n; i++)
        if (q->e[i].state == GMMU_RQ_FAULTED) {
            *pos = i;
            return GMMU_OK;
        }
    return GMMU_EINVAL;
}

gmmu_status gmmu_rq_replay(gmmu_replay_queue *q, uint32_t pos, uint32_t tag)
{
    if (!q || pos >= q->n || q->e[pos].state != GMMU_RQ_FAULTED || tag == GMMU_RQ_NO_TAG)
        return GMMU_EINVAL;
    q->e[pos].state = GMMU_RQ_INFLIGHT;
    q->e[pos].tag = tag;
    q->nfaulted--;
    q->replays++;
    return GMMU_OK;
}

gmmu_status gmmu_rq_create(const gmmu_rq_config *cfg, gmmu_replay_queue **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "replay_queue", "output pointer is NULL");
    *out = NULL;
    if (!cfg)
        return gmmu_error_set(err, "cfg", "config is NULL");
    gmmu_replay_queue *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = gmmu_rq_init_into(x, cfg->entries, err);
    if (s != GMMU_OK) {
        /* nothing allocated yet */
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_rq_destroy(gmmu_replay_queue *x)
{
    if (!x)
        return;
    free(x);
}
