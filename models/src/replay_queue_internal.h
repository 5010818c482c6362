/* gmmu — in-library lifecycle of the replay queue. Users create queues with
 * gmmu_rq_create (gmmu/replay_queue.h); the issue/commit SM (sm_issue.c)
 * embeds one queue per warp context and (re)initialises it in place with
 * this when a block takes the context. Private to models/src. */
#ifndef GMMU_REPLAY_QUEUE_INTERNAL_H
#define GMMU_REPLAY_QUEUE_INTERNAL_H

#include "gmmu/replay_queue.h"

/* Empty q and give it cap entries (1..GMMU_RQ_MAX). */
gmmu_status gmmu_rq_init_into(gmmu_replay_queue *q, uint32_t cap, gmmu_error *err);

#endif
