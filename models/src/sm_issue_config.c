/* gmmu — issue/commit SM: fault schemes and warp orders by name, the
 * configurations and their checks, occupancy. */

#include "sm_issue_internal.h"

/* ---- schemes and configs ------------------------------------------------- */

static const char *const SCHEME_NAMES[] = {"stall", "wd-commit", "wd-lastcheck", "replay-queue", "oplog"};
static const char *const ORDER_NAMES[] = {"lrr", "gto", "oldest"};

/* Index of str in names[0..n-1] into *out; GMMU_EINVAL if absent. */
static gmmu_status name_index(const char *const *names, unsigned n, const char *str, unsigned *out)
{
    if (!str || !out)
        return GMMU_EINVAL;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(str, names[i]) == 0) {
            *out = i;
            return GMMU_OK;
        }
    return GMMU_EINVAL;
}

const char *gmmu_fault_scheme_name(gmmu_fault_scheme s)
{
    return (unsigned)s < 5 ? SCHEME_NAMES[s] : "unknown";
}

gmmu_status gmmu_fault_scheme_parse(const char *str, gmmu_fault_scheme *out)
{
    unsigned i = 0;
    gmmu_status st = name_index(SCHEME_NAMES, 5, str, &i);
    if (st == GMMU_OK && out)
        *out = (gmmu_fault_scheme)i;
    return out ? st : GMMU_EINVAL;
}

const char *gmmu_warp_order_name(gmmu_warp_order o)
{
    return (unsigned)o < 3 ? ORDER_NAMES[o] : "unknown";
}

gmmu_status gmmu_warp_order_parse(const char *str, gmmu_warp_order *out)
{
    unsigned i = 0;
    gmmu_status st = name_index(ORDER_NAMES, 3, str, &i);
    if (st == GMMU_OK && out)
        *out = (gmmu_warp_order)i;
    return out ? st : GMMU_EINVAL;
}

gmmu_status gmmu_warp_scheduler_parse(const char *str, gmmu_sm_config *c)
{
    static const char *const THROTTLES[] = {"ccws", "ta-ccws", "tcws"};
    static const gmmu_throttle THROTTLE_OF[] = {GMMU_THROTTLE_CCWS, GMMU_THROTTLE_TA_CCWS,
                                                GMMU_THROTTLE_TCWS};
    static const char *const COMPACTIONS[] = {"tbc", "tlb-tbc"};
    static const gmmu_compaction COMPACTION_OF[] = {GMMU_COMPACT_TBC, GMMU_COMPACT_TLB_TBC};
    if (!c)
        return GMMU_EINVAL;
    unsigned i = 0;
    gmmu_warp_order order = GMMU_ORDER_LRR;
    if (name_index(THROTTLES, 3, str, &i) == GMMU_OK) {
        c->throttle = THROTTLE_OF[i];
        c->compaction = GMMU_COMPACT_NONE;
        c->order = GMMU_ORDER_GTO;
    } else if (name_index(COMPACTIONS, 2, str, &i) == GMMU_OK) {
        c->throttle = GMMU_THROTTLE_NONE;
        c->compaction = COMPACTION_OF[i];
        c->order = GMMU_ORDER_OLDEST;
    } else if (gmmu_warp_order_parse(str, &order) == GMMU_OK) {
        c->throttle = GMMU_THROTTLE_NONE;
        c->compaction = GMMU_COMPACT_NONE;
        c->order = order;
    } else {
        return GMMU_EINVAL;
    }
    return GMMU_OK;
}

void gmmu_sm_config_tanasic17(gmmu_sm_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->max_blocks = 16;
    c->max_warps = 64;
    c->regfile_bytes = 256u * 1024u;
    c->shared_bytes = 32u * 1024u;
    c->issue_width = 2;
    c->issue_cycles = 1;
    c->math_per_cycle = 2;
    c->sfu_per_cycle = 1;
    c->ldst_per_cycle = 1;
    c->ldst_queue = 2;
    c->opread_cycles = 1;
    c->alu_latency = 8;
    c->sfu_latency = 20;
    c->shared_latency = 24;
    c->coalesce_cycles = 2;
    c->overlap_lines = true;
    c->inflight_max = 1024;
    c->scheme = GMMU_SCHEME_STALL;
    c->oplog_bytes = 16384;
    c->replay_queue_entries = 32;
    c->block_switch = false;
    c->switch_threshold = 4;
    c->max_extra_blocks = 4;
    c->ctx_fixed_cycles = 500;
    c->ctx_bytes_per_cycle = 16; /* 256 GB/s shared by 16 SMs */
    c->rq_entry_bytes = 8;
    c->access_shape = false;
    c->compaction = GMMU_COMPACT_NONE;
    c->cpm.warps = 0; /* set at launch */
    c->cpm.counter_bits = 3;
    c->cpm.history = 2;
    c->cpm.pages = 128;
    c->cpm.flush_cycles = 500;
}

uint32_t gmmu_sm_distinct_pages(const uint64_t addr[32], uint32_t mask)
{
    uint64_t seen[32];
    uint32_t n = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        const uint64_t p = addr[l] >> 12;
        uint32_t k = 0;
        while (k < n && seen[k] != p)
            k++;
        if (k == n)
            seen[n++] = p;
    }
    return n;
}

void gmmu_sm_access_shape(const uint64_t addr[32], uint32_t mask, gmmu_sm_shape *out)
{
    uint64_t p4[32], p2[32], lo = UINT64_MAX, hi = 0;
    uint32_t n4 = 0, n2 = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (!(mask >> l & 1u))
            continue;
        const uint64_t a = addr[l] & ~7ull, q4 = a >> 12, q2 = a >> 21;
        lo = a < lo ? a : lo;
        hi = a > hi ? a : hi;
        uint32_t k = 0;
        while (k < n4 && p4[k] != q4)
            k++;
        if (k == n4)
            p4[n4++] = q4;
        k = 0;
        while (k < n2 && p2[k] != q2)
            k++;
        if (k == n2)
            p2[n2++] = q2;
    }
    out->pages_4k = n4;
    out->pages_2m = n2;
    out->span = mask ? hi - lo + 8 : 0;
}

uint64_t gmmu_sm_throttle_state_bits(const gmmu_sm_config *c)
{
    if (!c || c->throttle == GMMU_THROTTLE_NONE)
        return 0;
    unsigned offset = 0; /* the SM's requests are GMMU_SM_LINE_BYTES lines */
    while ((1u << offset) < GMMU_SM_LINE_BYTES)
        offset++;
    const unsigned tag_bits = c->throttle == GMMU_THROTTLE_TCWS ? 48u - 12u : 48u - offset;
    gmmu_ccws_config cc = c->ccws;
    cc.warps = c->max_warps;
    return gmmu_ccws_state_bits(&cc, tag_bits, 16u);
}

gmmu_status gmmu_sm_config_check(const gmmu_sm_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "sm", "SM config is NULL");
    if (c->max_blocks == 0 || c->max_blocks > 64)
        return gmmu_error_set(err, "max_blocks", "resident blocks %u out of range 1..64", c->max_blocks);
    if (c->max_warps == 0 || c->max_warps > 256)
        return gmmu_error_set(err, "max_warps", "resident warps %u out of range 1..256", c->max_warps);
    if (c->regfile_bytes < 8u * LANES * 4u || c->regfile_bytes > (64u << 20))
        return gmmu_error_set(err, "regfile_bytes", "register file %u B out of range 1 KiB..64 MiB",
                              c->regfile_bytes);
    if (c->shared_bytes > (64u << 20))
        return gmmu_error_set(err, "shared_bytes", "shared memory %u B out of range 0..64 MiB",
                              c->shared_bytes);
    if (c->issue_width == 0 || c->issue_width > 8)
        return gmmu_error_set(err, "issue_width", "issue width %u out of range 1..8", c->issue_width);
    if (c->issue_cycles == 0 || c->issue_cycles > 32)
        return gmmu_error_set(err, "issue_cycles", "issue cycles %u out of range 1..32", c->issue_cycles);
    if (c->math_per_cycle == 0 || c->math_per_cycle > 8)
        return gmmu_error_set(err, "math_per_cycle", "math units %u out of range 1..8", c->math_per_cycle);
    if (c->sfu_per_cycle == 0 || c->sfu_per_cycle > 8)
        return gmmu_error_set(err, "sfu_per_cycle", "SFUs %u out of range 1..8", c->sfu_per_cycle);
    if (c->ldst_per_cycle != 1)
        return gmmu_error_set(err, "ldst_per_cycle",
                              "ld/st units %u: the model has one memory pipeline (1)", c->ldst_per_cycle);
    if ((unsigned)c->order > GMMU_ORDER_OLDEST)
        return gmmu_error_set(err, "order", "unknown warp order %u", (unsigned)c->order);
    if ((unsigned)c->throttle > GMMU_THROTTLE_TCWS)
        return gmmu_error_set(err, "throttle", "unknown throttle %u", (unsigned)c->throttle);
    if (c->throttle != GMMU_THROTTLE_NONE) {
        gmmu_ccws_config cc = c->ccws;
        cc.warps = 1; /* set at launch */
        gmmu_status st = gmmu_ccws_config_check(&cc, err);
        if (st != GMMU_OK)
            return st;
    }
    if ((unsigned)c->compaction > GMMU_COMPACT_TLB_TBC)
        return gmmu_error_set(err, "compaction", "unknown compaction %u", (unsigned)c->compaction);
    if (c->compaction != GMMU_COMPACT_NONE && c->throttle != GMMU_THROTTLE_NONE)
        return gmmu_error_set(err, "compaction",
                              "thread block compaction has its own scheduler; it takes no throttle");
    if (c->compaction == GMMU_COMPACT_TLB_TBC) {
        gmmu_cpm_config pc = c->cpm;
        pc.warps = 1; /* set at launch */
        gmmu_status st = gmmu_cpm_config_check(&pc, err);
        if (st != GMMU_OK)
            return st;
    }
    if (c->ldst_queue == 0 || c->ldst_queue > 1024)
        return gmmu_error_set(err, "ldst_queue", "ld/st unit queue %u out of range 1..1024",
                              c->ldst_queue);
    if (c->opread_cycles == 0 || c->opread_cycles > 100)
        return gmmu_error_set(err, "opread_cycles", "operand read delay %u out of range 1..100",
                              c->opread_cycles);
    if (c->alu_latency == 0 || c->alu_latency > 1000)
        return gmmu_error_set(err, "alu_latency", "ALU latency %u out of range 1..1000", c->alu_latency);
    if (c->sfu_latency == 0 || c->sfu_latency > 1000)
        return gmmu_error_set(err, "sfu_latency", "SFU latency %u out of range 1..1000", c->sfu_latency);
    if (c->coalesce_cycles > 1000)
        return gmmu_error_set(err, "coalesce_cycles", "coalescer delay %u out of range 0..1000",
                              c->coalesce_cycles);
    if (c->inflight_max < 8 || c->inflight_max > 65536)
        return gmmu_error_set(err, "inflight_max", "in-flight slots %u out of range 8..65536",
                              c->inflight_max);
    if ((unsigned)c->scheme > GMMU_SCHEME_OPLOG)
        return gmmu_error_set(err, "fault_scheme", "unknown fault scheme %d (stall, wd-commit, "
                              "wd-lastcheck, replay-queue, oplog)", (int)c->scheme);
    if (c->scheme == GMMU_SCHEME_OPLOG &&
        (c->oplog_bytes < 2u * GMMU_OPLOG_ENTRY_BYTES || c->oplog_bytes % GMMU_OPLOG_ENTRY_BYTES ||
         c->oplog_bytes > (64u << 20)))
        return gmmu_error_set(err, "oplog_bytes",
                              "operand log %u B: a multiple of 256 B between 512 B and 64 MiB",
                              c->oplog_bytes);
    if (c->replay_queue_entries == 0 || c->replay_queue_entries > GMMU_RQ_MAX)
        return gmmu_error_set(err, "replay_queue_entries", "replay queue entries %u out of range 1..%u",
                              c->replay_queue_entries, GMMU_RQ_MAX);
    if (c->block_switch && c->scheme == GMMU_SCHEME_STALL)
        return gmmu_error_set(err, "block_switch",
                              "block switching needs preemptible faults (any scheme but stall)");
    if (c->max_extra_blocks > 64)
        return gmmu_error_set(err, "max_extra_blocks", "extra blocks %u out of range 0..64",
                              c->max_extra_blocks);
    if (c->ctx_bytes_per_cycle == 0 || c->ctx_bytes_per_cycle > 65536)
        return gmmu_error_set(err, "ctx_bytes_per_cycle", "context bandwidth %u out of range 1..65536",
                              c->ctx_bytes_per_cycle);
    if (c->ctx_fixed_cycles > 10000000)
        return gmmu_error_set(err, "ctx_fixed_cycles", "context fixed cost %u out of range 0..1e7",
                              c->ctx_fixed_cycles);
    if (c->rq_entry_bytes > 4096)
        return gmmu_error_set(err, "rq_entry_bytes", "replay entry size %u out of range 0..4096",
                              c->rq_entry_bytes);
    return GMMU_OK;
}

void gmmu_machine_config_tanasic17(gmmu_machine_config *c)
{
    if (!c)
        return;
    memset(c, 0, sizeof *c);
    c->num_sms = 16;
    c->clock_mhz = 1000;
    gmmu_sm_config_tanasic17(&c->sm);
    c->line_bytes = 128;
    c->l1_bytes = 32u * 1024u;
    c->l1_ways = 4;
    c->l1_mshrs = 32;
    c->l1_latency = 40;
    c->l1_tlb_entries = 32;
    c->l1_tlb_ways = 8;
    c->l1_tlb_latency = 1;
    c->l2_bytes = 2u * 1024u * 1024u;
    c->l2_ways = 8;
    c->l2_latency = 70;
    c->l2_mshrs = 512;
    c->l2_tlb_entries = 1024;
    c->l2_tlb_ways = 8;
    c->l2_tlb_mshrs = 128;
    c->l2_tlb_latency = 70;
    c->walkers = 64;
    c->walk_latency = 500;
    c->dram_bytes_per_cycle = 256; /* 256 GB/s at 1 GHz */
    c->dram_latency = 200;
}

gmmu_status gmmu_machine_config_check(const gmmu_machine_config *c, gmmu_error *err)
{
    if (!c)
        return gmmu_error_set(err, "machine", "machine config is NULL");
    if (c->num_sms == 0 || c->num_sms > 1024)
        return gmmu_error_set(err, "num_sms", "SMs %u out of range 1..1024", c->num_sms);
    if (c->clock_mhz == 0 || c->clock_mhz > 100000)
        return gmmu_error_set(err, "clock_mhz", "clock %u MHz out of range 1..100000", c->clock_mhz);
    if (c->line_bytes != GMMU_SM_LINE_BYTES)
        return gmmu_error_set(err, "line_bytes", "line size %u: the SM coalesces 128-B lines",
                              c->line_bytes);
    if (c->l1_ways == 0 || c->l1_bytes < c->line_bytes * c->l1_ways)
        return gmmu_error_set(err, "l1_bytes", "L1 of %u B cannot hold %u ways of 128-B lines",
                              c->l1_bytes, c->l1_ways);
    if (c->l1_tlb_entries == 0 || c->l1_tlb_ways == 0 || c->l1_tlb_ways > c->l1_tlb_entries)
        return gmmu_error_set(err, "l1_tlb_entries", "L1 TLB %u entries / %u ways invalid",
                              c->l1_tlb_entries, c->l1_tlb_ways);
    if (c->l2_ways == 0 || c->l2_bytes < c->line_bytes * c->l2_ways)
        return gmmu_error_set(err, "l2_bytes", "L2 of %u B cannot hold %u ways of 128-B lines",
                              c->l2_bytes, c->l2_ways);
    if (c->l2_tlb_entries == 0 || c->l2_tlb_ways == 0 || c->l2_tlb_ways > c->l2_tlb_entries)
        return gmmu_error_set(err, "l2_tlb_entries", "L2 TLB %u entries / %u ways invalid",
                              c->l2_tlb_entries, c->l2_tlb_ways);
    if (c->walkers == 0)
        return gmmu_error_set(err, "walkers", "at least one page-table walker");
    if (c->dram_bytes_per_cycle == 0)
        return gmmu_error_set(err, "dram_bytes_per_cycle", "DRAM bandwidth must be > 0");
    return gmmu_sm_config_check(&c->sm, err);
}

uint32_t gmmu_sm_occupancy(const gmmu_sm_config *c, const gmmu_kernel *k)
{
    if (!c || !k || k->warps_per_block == 0 || k->nregs == 0)
        return 0;
    uint32_t n = c->max_blocks;
    uint32_t w = c->max_warps / k->warps_per_block;
    if (w < n)
        n = w;
    uint64_t rf = (uint64_t)k->warps_per_block * k->nregs * LANES * 8u;
    uint64_t r = c->regfile_bytes / rf;
    if (r < n)
        n = (uint32_t)r;
    if (k->shared_bytes) {
        uint32_t s = c->shared_bytes / k->shared_bytes;
        if (s < n)
            n = s;
    }
    return n;
}
