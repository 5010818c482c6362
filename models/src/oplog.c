#include "gmmu/oplog.h"

#include <stdlib.h>
#include <string.h>

gmmu_status gmmu_oplog_config_check(const gmmu_oplog_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "oplog", "operand log config is NULL");
    if (c->partitions == 0 || c->partitions > 64)
        return gmmu_error_set(err, "oplog.partitions", "partitions %u out of range 1..64",
                              c->partitions);
    if (c->bytes % GMMU_OPLOG_ENTRY_BYTES != 0 || c->bytes > (64u << 20))
        return gmmu_error_set(err, "oplog_bytes",
                              "operand log size %u is not a multiple of %u B up to 64 MiB", c->bytes,
                              GMMU_OPLOG_ENTRY_BYTES);
    uint32_t per = c->bytes / GMMU_OPLOG_ENTRY_BYTES / c->partitions;
    if (per < 2)
        return gmmu_error_set(err, "oplog_bytes",
                              "operand log of %u B gives %u entries to each of %u resident blocks; a "
                              "store needs 2 (at least %u B)",
                              c->bytes, per, c->partitions,
                              2u * GMMU_OPLOG_ENTRY_BYTES * c->partitions);
    return GMMU_OK;
}

static void oplog_release(gmmu_oplog *x);

static gmmu_status oplog_init_into(gmmu_oplog *log, const gmmu_oplog_config *cfg, gmmu_error *err)
{
    if (!log)
        return gmmu_error_set(err, "oplog", "operand log pointer is NULL");
    gmmu_status s = gmmu_oplog_config_check(cfg, err);
    if (s != GMMU_OK)
        return s;
    memset(log, 0, sizeof *log);
    log->cfg = *cfg;
    log->per_part = cfg->bytes / GMMU_OPLOG_ENTRY_BYTES / cfg->partitions;
    size_t n = (size_t)log->per_part * cfg->partitions;
    log->data = calloc(n * GMMU_OPLOG_LANES, sizeof *log->data);
    log->used = calloc(n, 1);
    log->nused = calloc(cfg->partitions, sizeof *log->nused);
    if (!log->data || !log->used || !log->nused) {
        oplog_release(log);
        return GMMU_ENOMEM;
    }
    return GMMU_OK;
}

static void oplog_release(gmmu_oplog *log)
{
    if (!log)
        return;
    free(log->data);
    free(log->used);
    free(log->nused);
    log->data = NULL;
    log->used = NULL;
    log->nused = NULL;
}

uint32_t gmmu_oplog_partition_entries(const gmmu_oplog *log) { return log ? log->per_part : 0; }

uint32_t gmmu_oplog_partition_bytes(const gmmu_oplog *log)
{
    return log ? log->per_part * GMMU_OPLOG_ENTRY_BYTES : 0;
}

uint32_t gmmu_oplog_free_entries(const gmmu_oplog *log, uint32_t part)
{
    if (!log || !log->nused || part >= log->cfg.partitions)
        return 0;
    return log->per_part - log->nused[part];
}

static bool bad(const gmmu_oplog *log, uint32_t part) { return !log || !log->data || part >= log->cfg.partitions; }

gmmu_status gmmu_oplog_alloc(gmmu_oplog *log, uint32_t part, uint32_t n, uint32_t idx[2])
{
    if (bad(log, part) || !idx || n == 0 || n > 2)
        return GMMU_EINVAL;
    if (log->per_part - log->nused[part] < n) {
        log->st.full++;
        return GMMU_EBUSY;
    }
    uint8_t *u = log->used + (size_t)part * log->per_part;
    uint32_t got = 0;
    for (uint32_t e = 0; e < log->per_part && got < n; e++)
        if (!u[e]) {
            u[e] = 1;
            idx[got++] = e;
        }
    log->nused[part] += n;
    if (log->nused[part] > log->st.peak_used)
        log->st.peak_used = log->nused[part];
    log->st.allocs += n;
    return GMMU_OK;
}

static uint64_t *entry(gmmu_oplog *log, uint32_t part, uint32_t idx)
{
    return log->data + ((size_t)part * log->per_part + idx) * GMMU_OPLOG_LANES;
}

gmmu_status gmmu_oplog_write(gmmu_oplog *log, uint32_t part, uint32_t idx, const uint64_t lanes[32])
{
    if (bad(log, part) || idx >= log->per_part || !lanes ||
        !log->used[(size_t)part * log->per_part + idx])
        return GMMU_EINVAL;
    memcpy(entry(log, part, idx), lanes, GMMU_OPLOG_ENTRY_BYTES);
    log->st.writes++;
    return GMMU_OK;
}

gmmu_status gmmu_oplog_read(gmmu_oplog *log, uint32_t part, uint32_t idx, uint64_t lanes[32])
{
    if (bad(log, part) || idx >= log->per_part || !lanes ||
        !log->used[(size_t)part * log->per_part + idx])
        return GMMU_EINVAL;
    memcpy(lanes, entry(log, part, idx), GMMU_OPLOG_ENTRY_BYTES);
    log->st.reads++;
    return GMMU_OK;
}

gmmu_status gmmu_oplog_free(gmmu_oplog *log, uint32_t part, uint32_t idx)
{
    if (bad(log, part) || idx >= log->per_part)
        return GMMU_EINVAL;
    uint8_t *u = &log->used[(size_t)part * log->per_part + idx];
    if (!*u)
        return GMMU_EINVAL;
    *u = 0;
    log->nused[part]--;
    log->st.frees++;
    return GMMU_OK;
}

gmmu_status gmmu_oplog_save(gmmu_oplog *log, uint32_t part, gmmu_oplog_context *ctx)
{
    if (bad(log, part) || !ctx || !ctx->data || !ctx->used)
        return GMMU_EINVAL;
    memcpy(ctx->data, entry(log, part, 0), (size_t)log->per_part * GMMU_OPLOG_ENTRY_BYTES);
    memcpy(ctx->used, log->used + (size_t)part * log->per_part, log->per_part);
    ctx->nused = log->nused[part];
    memset(entry(log, part, 0), 0, (size_t)log->per_part * GMMU_OPLOG_ENTRY_BYTES);
    memset(log->used + (size_t)part * log->per_part, 0, log->per_part);
    log->nused[part] = 0;
    log->st.saves++;
    return GMMU_OK;
}

gmmu_status gmmu_oplog_restore(gmmu_oplog *log, uint32_t part, const gmmu_oplog_context *ctx)
{
    if (bad(log, part) || !ctx || !ctx->data || !ctx->used || ctx->nused > log->per_part)
        return GMMU_EINVAL;
    if (log->nused[part] != 0)
        return GMMU_EBUSY;
    memcpy(entry(log, part, 0), ctx->data, (size_t)log->per_part * GMMU_OPLOG_ENTRY_BYTES);
    memcpy(log->used + (size_t)part * log->per_part, ctx->used, log->per_part);
    log->nused[part] = ctx->nused;
    log->st.restores++;
    return GMMU_OK;
}

gmmu_status gmmu_oplog_create(const gmmu_oplog_config *cfg, gmmu_oplog **out, gmmu_error *err)
{
    if (!out)
        return gmmu_error_set(err, "oplog", "output pointer is NULL");
    *out = NULL;
    gmmu_oplog *x = calloc(1, sizeof *x);
    if (!x)
        return GMMU_ENOMEM;
    const gmmu_status s = oplog_init_into(x, cfg, err);
    if (s != GMMU_OK) {
        oplog_release(x);
        free(x);
        return s;
    }
    *out = x;
    return GMMU_OK;
}

void gmmu_oplog_destroy(gmmu_oplog *x)
{
    if (!x)
        return;
    oplog_release(x);
    free(x);
}
