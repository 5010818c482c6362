/* gmmu — page-fault resolution cost model (tanasic-micro17 sections 2.3,
 * 4.2, 5.3, 5.4).
 *
 * Faults are resolved at a granularity of 2^granularity_shift bytes (64 KiB):
 * a fault on a region that is already being resolved merges with it and
 * completes at the same time at no extra cost. A new fault is served by:
 *  - the CPU path (interrupt, handler, transfer, page-table update): a
 *    region holding CPU data (GMMU_FAULT_MIGRATE) costs cpu_transfer_ns, a
 *    first touch (GMMU_FAULT_FIRST_TOUCH, nothing to copy) cpu_alloc_ns;
 *    cpu_servers faults are served at once (1: one by one, as the paper's
 *    driver does), the others queue in arrival order;
 *  - local handling (local_first_touch): first-touch faults run a handler on
 *    the GPU that allocates and maps the page itself: local_ns each,
 *    local_servers at once; migrations still take the CPU path.
 * Costs are converted to cycles of a clock of clock_mhz.
 *
 * The model keeps the pending-fault queue (fixed capacity) and reports each
 * fault's position in it: the number of pending faults that will resolve
 * before it. That position drives block switching. No allocation after init. */
#ifndef GMMU_FAULT_HANDLER_H
#define GMMU_FAULT_HANDLER_H

#include "gmmu/status.h"

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gmmu_fault_kind {
    GMMU_FAULT_MIGRATE = 0,    /* page data lives in CPU memory: transfer it */
    GMMU_FAULT_FIRST_TOUCH = 1 /* never touched: allocate and map only */
} gmmu_fault_kind;

typedef enum gmmu_link {
    GMMU_LINK_NVLINK = 0,
    GMMU_LINK_PCIE = 1
} gmmu_link;

#define GMMU_FH_MAX_SERVERS 4096u

typedef struct gmmu_fault_handler_config {
    uint32_t clock_mhz;         /* 1000 */
    uint32_t granularity_shift; /* 12..30; 16 = 64 KiB */
    uint32_t cpu_transfer_ns;   /* NVLink 12000, PCIe 25000 */
    uint32_t cpu_alloc_ns;      /* NVLink 10000, PCIe 12000 */
    uint32_t cpu_servers;       /* 1..4096 */
    bool local_first_touch;     /* handle first-touch faults on the GPU */
    uint32_t local_ns;          /* 20000 */
    uint32_t local_servers;     /* 1..4096 */
    uint32_t max_pending;       /* capacity of the pending-fault queue, 1..1048576 */
} gmmu_fault_handler_config;

/* Paper costs for a link (CPU path, no local handling, 1 CPU server). */
void gmmu_fault_handler_config_default(gmmu_fault_handler_config *c, gmmu_link link);

typedef struct gmmu_fault_ticket {
    uint64_t ready;     /* cycle at which the region is mapped */
    uint32_t queue_pos; /* pending faults resolving before this one */
    bool merged;        /* joined a fault already pending for the region */
    bool local;         /* resolved by the GPU-local handler */
} gmmu_fault_ticket;

typedef struct gmmu_fault_handler_stats {
    uint64_t faults, merged, cpu_migrate, cpu_alloc, local, full;
    uint64_t busy_cycles; /* summed service time */
    uint32_t peak_pending;
} gmmu_fault_handler_stats;

typedef struct gmmu_fh_pending {
    uint64_t region;
    uint64_t ready;
} gmmu_fh_pending;

typedef struct gmmu_fault_handler {
    gmmu_fault_handler_config cfg;
    uint64_t cpu_transfer_cyc, cpu_alloc_cyc, local_cyc;
    uint64_t *cpu_free;   /* per CPU server: cycle it becomes free */
    uint64_t *local_free; /* per GPU handler */
    gmmu_fh_pending *pend;
    uint32_t npend;
    gmmu_fault_handler_stats st;
} gmmu_fault_handler;

gmmu_status gmmu_fault_handler_config_check(const gmmu_fault_handler_config *c, gmmu_error *err);
/* Lifecycle (every model alike, docs/architecture.md): create checks cfg, names a bad
 * field in err and returns the model in *out; destroy frees it (NULL is a no-op). */
gmmu_status gmmu_fault_handler_create(const gmmu_fault_handler_config *cfg,
                                      gmmu_fault_handler **out, gmmu_error *err);
void gmmu_fault_handler_destroy(gmmu_fault_handler *fh);

/* Raise a fault on va at cycle now. GMMU_EBUSY if the pending queue is full. */
gmmu_status gmmu_fault_handler_raise(gmmu_fault_handler *fh, uint64_t now, uint64_t va,
                                     gmmu_fault_kind kind, gmmu_fault_ticket *t);
/* Pending faults (ready > now). */
uint32_t gmmu_fault_handler_pending(gmmu_fault_handler *fh, uint64_t now);

#ifdef __cplusplus
}
#endif
#endif
