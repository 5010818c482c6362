// gmmu — the issue/commit SM's spec (issue 42): its own `sm.*` keys (fault
// scheme, warp scheduler and its throttles and compaction, blocks, context
// switching, issue stage), the gmmu_sm_config member each fills, and every
// field the C checkers (gmmu_sm_config_check, gmmu_ccws_config_check,
// gmmu_cpm_config_check) can name as the key that sets it. The keys every SM
// model reads (sm.count, sm.warps, ...) are components/sm_spec.h's; the
// fault.* keys the fault handler's (components/fault_handler_spec.h). The
// schema, --list-keys and docs/configs.md take these rows from here.
#pragma once

#include <string>
#include <vector>

#include "gmmu/components/descriptor.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/components/tlb_config.h"

extern "C" {
#include "gmmu/sm_issue.h"
}

namespace gmmu {

// gmmu_sm_config from the keys, and the TCWS settings that replace the CCWS
// victim tag array when sm.warp_scheduler=tcws.
struct issue_sm_config {
    gmmu_sm_config model;
    uint32_t tcws_epw = 8;
    uint32_t tcws_weight[4] = {1, 2, 4, 8};
};

namespace sm_core_spec_detail {
inline uint32_t u32(const config &c, const std::string &k) { return uint32_t(c.i(k)); }
} // namespace sm_core_spec_detail

const descriptor<issue_sm_config> &sm_core_descriptor();

namespace sm_core_spec_detail {
// The warp scheduler sets the C model's order, throttle and compaction; the
// mapping is the C model's (gmmu_warp_scheduler_parse).
inline void apply_warp_scheduler(issue_sm_config &s, const config &c, const std::string &k)
{
    const std::string ws = c.s(k);
    if (gmmu_warp_scheduler_parse(ws.c_str(), &s.model) != GMMU_OK)
        throw config_error("config key '" + k + "': unknown warp scheduler '" + ws + "'");
}
inline void apply_tcws_weight(issue_sm_config &s, const config &c, const std::string &k)
{
    s.tcws_weight[k.back() - '0'] = u32(c, k);
}
} // namespace sm_core_spec_detail

inline const descriptor<issue_sm_config> &sm_core_descriptor()
{
    using S = issue_sm_config;
    using namespace sm_core_spec_detail;
    static const descriptor<S> d = [] {
        descriptor<S> x({
        enum_field<S>("fault_scheme", "stall",
                      {{"stall", GMMU_SCHEME_STALL}, {"wd-commit", GMMU_SCHEME_WD_COMMIT},
                       {"wd-lastcheck", GMMU_SCHEME_WD_LASTCHECK},
                       {"replay-queue", GMMU_SCHEME_REPLAY_QUEUE}, {"oplog", GMMU_SCHEME_OPLOG}},
                      "sm.model=issue: fault scheme (docs/faults.md): stall-on-fault, warp disable "
                      "until commit / last TLB check, replay queue, operand log.",
                      [](S &s, const config &c, const std::string &k) {
                          s.model.scheme = gmmu_fault_scheme(
                              sm_core_descriptor().enum_value("fault_scheme", c.s(k), k));
                      }, "fault_scheme"),
        // The values index the choices; apply_warp_scheduler maps the text.
        enum_field<S>("warp_scheduler", "lrr",
                      {{"lrr", 0}, {"gto", 1}, {"oldest", 2}, {"ccws", 3}, {"ta-ccws", 4},
                       {"tcws", 5}, {"tbc", 6}, {"tlb-tbc", 7}},
                      "sm.model=issue: warp scheduler (docs/warp_sched.md, docs/tbc.md): lrr = loose "
                      "round robin, gto = greedy then oldest, oldest = by age alone; ccws = gto with "
                      "memory instructions throttled by lost-locality scores (L1 victim tag arrays), "
                      "ta-ccws = ccws weighting a VTA hit that also missed the TLB by "
                      "sm.ccws.tlb_weight; tcws = gto throttled by TLB-based VTAs (sm.tcws.*); tbc = "
                      "thread block compaction (block-wide reconvergence stacks, dynamic warps, "
                      "oldest first); tlb-tbc = tbc compacting only threads whose warps share pages "
                      "(Common Page Matrix, sm.tbc.*).",
                      &apply_warp_scheduler, "order"),
        int_field<S>("tbc.cpm_bits", 3, 1, 8,
                     "sm.warp_scheduler=tlb-tbc: bits of each Common Page Matrix counter; threads of "
                     "two warps are compacted together only when the counter is at its maximum.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.cpm.counter_bits = u32(c, k);
                     }, "counter_bits"),
        int_field<S>("tbc.cpm_history", 2, 1, 8,
                     "sm.warp_scheduler=tlb-tbc: warps remembered per L1 TLB entry.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.cpm.history = u32(c, k);
                     }, "history"),
        int_field<S>("tbc.cpm_flush_cycles", 500, 0, 1000000,
                     "sm.warp_scheduler=tlb-tbc: every counter clears this often (cycles; 0 = never).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.cpm.flush_cycles = u32(c, k);
                     }),
        int_field<S>("tcws.epw", 8, 1, 64,
                     "sm.warp_scheduler=tcws: VTA entries per warp (virtual page tags, fully "
                     "associative).",
                     [](S &s, const config &c, const std::string &k) { s.tcws_epw = u32(c, k); }),
        int_field<S>("tcws.weight_d0", 1, 0, 1024,
                     "sm.warp_scheduler=tcws: score weight of an L1 TLB hit at LRU depth 0 (most "
                     "recent); 0 or a power of two, 0 = no score.",
                     &apply_tcws_weight, "depth_weight"),
        int_field<S>("tcws.weight_d1", 2, 0, 1024, "sm.warp_scheduler=tcws: the same at depth 1.",
                     &apply_tcws_weight),
        int_field<S>("tcws.weight_d2", 4, 0, 1024, "sm.warp_scheduler=tcws: the same at depth 2.",
                     &apply_tcws_weight),
        int_field<S>("tcws.weight_d3", 8, 0, 1024,
                     "sm.warp_scheduler=tcws: the same at depth 3 (and deeper hits of wider sets: "
                     "depths above 3 use no score).",
                     &apply_tcws_weight),
        int_field<S>("ccws.vta_entries", 16, 1, 64,
                     "sm.warp_scheduler=ccws|ta-ccws: victim tag array entries per warp.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.vta_entries = u32(c, k);
                     }, "vta_entries"),
        int_field<S>("ccws.vta_ways", 8, 1, 64,
                     "sm.warp_scheduler=ccws|ta-ccws: VTA associativity (divides the entries).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.vta_ways = u32(c, k);
                     }, "vta_ways"),
        int_field<S>("ccws.base_score", 100, 1, 1 << 20,
                     "sm.warp_scheduler=ccws|ta-ccws: lost-locality score of a warp that lost nothing; "
                     "the cutoff is this times the active warps.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.base_score = u32(c, k);
                     }, "base_score"),
        int_field<S>("ccws.hit_score", 100, 1, 1 << 20,
                     "sm.warp_scheduler=ccws|ta-ccws: score added by a VTA hit (times its weight).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.hit_score = u32(c, k);
                     }, "hit_score"),
        int_field<S>("ccws.decay", 1, 0, 1 << 20,
                     "sm.warp_scheduler=ccws|ta-ccws: score lost per cycle down to the base.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.decay = u32(c, k);
                     }, "decay"),
        int_field<S>("ccws.tlb_weight", 4, 1, 1024,
                     "sm.warp_scheduler=ta-ccws: weight of a VTA hit whose access missed the L1 TLB "
                     "(power of two).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.tlb_weight = u32(c, k);
                     }, "tlb_weight"),
        int_field<S>("ccws.cache_weight", 1, 1, 1024,
                     "sm.warp_scheduler=ta-ccws: weight of a VTA hit whose access hit the L1 TLB "
                     "(power of two).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ccws.cache_weight = u32(c, k);
                     }, "cache_weight"),
        int_field<S>("oplog_bytes", 16384, 512, 1 << 22,
                     "sm.model=issue, oplog: operand-log capacity, bytes (256-B entries split evenly "
                     "among the resident blocks).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.oplog_bytes = u32(c, k);
                     }, "oplog_bytes"),
        int_field<S>("replay_queue_entries", 32, 1, 64,
                     "sm.model=issue: replay-queue entries per warp.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.replay_queue_entries = u32(c, k);
                     }, "replay_queue_entries"),
        bool_field<S>("block_switch", false,
                     "sm.model=issue: switch faulted blocks out (preemptible schemes only).",
                      [](S &s, const config &c, const std::string &k) {
                          s.model.block_switch = c.b(k);
                      }, "block_switch"),
        int_field<S>("switch_threshold", 4, 0, 1 << 20,
                     "sm.model=issue: switch a block out when its fault's pending-queue position "
                     "exceeds this.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.switch_threshold = u32(c, k);
                     }),
        int_field<S>("max_extra_blocks", 4, 0, 64,
                     "sm.model=issue: blocks an SM may own beyond its resident limit (off-chip).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.max_extra_blocks = u32(c, k);
                     }, "max_extra_blocks"),
        int_field<S>("ctx_fixed_cycles", 500, 0, 1000000,
                     "sm.model=issue: fixed cycles of one context save or restore.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ctx_fixed_cycles = u32(c, k);
                     }, "ctx_fixed_cycles"),
        int_field<S>("ctx_bytes_per_cycle", 16, 1, 1 << 20,
                     "sm.model=issue: context save/restore bandwidth, bytes per cycle.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ctx_bytes_per_cycle = u32(c, k);
                     }, "ctx_bytes_per_cycle"),
        int_field<S>("max_blocks", 16, 1, 64, "sm.model=issue: resident thread blocks per SM.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.max_blocks = u32(c, k);
                     }, "max_blocks"),
        int_field<S>("regfile_bytes", 262144, 1024, 64ll << 20,
                     "sm.model=issue: register file per SM, bytes.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.regfile_bytes = u32(c, k);
                     }, "regfile_bytes"),
        int_field<S>("shared_bytes", 32768, 0, 64ll << 20,
                     "sm.model=issue: shared memory per SM, bytes.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.shared_bytes = u32(c, k);
                     }, "shared_bytes"),
        int_field<S>("issue_cycles", 1, 1, 32,
                     "sm.model=issue: cycles the issue stage stays busy after a cycle in which it "
                     "issued (32 / lanes of the pipeline: 4 for the 8-lane pipeline of "
                     "pichai-asplos14).",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.issue_cycles = u32(c, k);
                     }, "issue_cycles"),
        bool_field<S>("access_shape", false,
                      "sm.model=issue: count the shape of every global memory instruction (4 KiB and "
                      "2 MiB pages, address span) into gpu.smN.page_divergence_max .. span_max, and the "
                      "distinct pages they touch into gpu.smN.pages_touched(_2m), and the same by "
                      "instruction into OUT/kernel.json (by_instruction), for characterising a "
                      "kernel (docs/kernels.md); off, nothing is counted.",
                      [](S &s, const config &c, const std::string &k) {
                          s.model.access_shape = c.b(k);
                      }, "access_shape"),
        int_field<S>("ldst_queue", 2, 1, 64,
                     "sm.model=issue: global memory instructions in the ld/st unit before issue "
                     "stalls.",
                     [](S &s, const config &c, const std::string &k) {
                         s.model.ldst_queue = u32(c, k);
                     }, "ldst_queue"),
        });
        // Fields of the C model no key of this spec sets: the SM's shared keys
        // (sm_spec.h), the L1 TLB the CPM shadows, the warp scheduler's other
        // two choices; warps a checker sets to 1 itself; the constants of
        // the tanasic17 SM the platform keeps.
        x.c_field_elsewhere("max_warps", "sm.warps")
            .c_field_elsewhere("warps", "sm.warps")
            .c_field_elsewhere("issue_width", "sm.issue_width")
            .c_field_elsewhere("overlap_lines", "sm.overlap_cache_access")
            .c_field_elsewhere("pages", "l1_tlb.entries")
            .c_field_elsewhere("throttle", "sm.warp_scheduler")
            .c_field_elsewhere("compaction", "sm.warp_scheduler");
        for (const char *f : {"math_per_cycle", "sfu_per_cycle", "ldst_per_cycle", "opread_cycles",
                              "alu_latency", "sfu_latency", "coalesce_cycles", "inflight_max",
                              "rq_entry_bytes"})
            x.c_field_elsewhere(f, "");
        return x;
    }();
    return d;
}

inline std::vector<key_spec> sm_core_config_keys() { return sm_core_descriptor().keys("sm", {"", {}}); }

// The issue SM's gmmu_sm_config: the tanasic17 SM, then the keys; the C
// model's checkers' verdicts name the key that sets the field. What every
// SM model shares (warps, issue width, overlap) comes from the SMs' parsed
// spec (sm_spec.h), the L1 TLB's size from the TLB's (tlb_config.h).
inline gmmu_sm_config sm_core_config_from(const config &c)
{
    const auto &d = sm_core_descriptor();
    issue_sm_config s;
    gmmu_sm_config_tanasic17(&s.model);
    gmmu_ccws_config_default(&s.model.ccws, 1);
    const sm_config sm = sm_config_from(c);
    s.model.max_warps = sm.params.warps;
    s.model.issue_width = sm.params.issue_width;
    s.model.overlap_lines = sm.overlap_cache_access;
    s.model.cpm.pages = tlb_params_from(c, "l1_tlb", 1).model.entries;
    d.apply(c, "sm", s);
    if (s.model.throttle == GMMU_THROTTLE_TCWS) {
        s.model.ccws.vta_entries = s.model.ccws.vta_ways = s.tcws_epw;
        for (unsigned k = 0; k < 4; k++) {
            // The checker names the array (depth_weight); the key names the depth.
            gmmu_ccws_config one = s.model.ccws;
            for (unsigned j = 0; j < 4; j++)
                one.depth_weight[j] = j == k ? s.tcws_weight[k] : 0;
            one.warps = 1;
            gmmu_error err{};
            if (gmmu_ccws_config_check(&one, &err) != GMMU_OK && std::string(err.field) == "depth_weight")
                throw config_error("config key 'sm.tcws.weight_d" + std::to_string(k) + "': " + err.msg);
            s.model.ccws.depth_weight[k] = s.tcws_weight[k];
        }
    }
    gmmu_error err{};
    if (gmmu_sm_config_check(&s.model, &err) != GMMU_OK)
        throw d.checker_error("sm", err.field, err.msg);
    return s.model;
}

} // namespace gmmu
