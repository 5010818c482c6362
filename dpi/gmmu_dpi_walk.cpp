// gmmu_dpi: the page-walk caches, the walk scheduler and the page-table
// walker as DPI-C functions (docs/dpi.md; the common calls, the TLB and the
// coalescer are in gmmu_dpi.cpp).
#include <dlfcn.h>

#include <map>
#include <string>

#include "dpi_internal.h"
#include "gmmu/cpwc.h"
#include "gmmu/tpc.h"

#ifdef GMMU_DPI_CHECK_PROTOTYPES
// the prototypes Verilator derives from gmmu_pkg.sv (a mismatch does not compile)
#include "Vgmmu_pkg__Dpi.h"
#endif

using namespace gmmu_dpi_detail;

namespace {

// ---- page-walk caches ---------------------------------------------------------------

struct pwc_h final : handle {
    gmmu_pwc *p = nullptr;
    pwc_h() : handle(kind::pwc) {}
    ~pwc_h() override { gmmu_pwc_destroy(p); }
    std::vector<std::pair<const char *, uint64_t>> stats() const override
    {
        const gmmu_pwc_stats &s = *gmmu_pwc_get_stats(p);
        return {GMMU_STAT(s, lookups), GMMU_STAT(s, misses), GMMU_STAT(s, hit_l4), GMMU_STAT(s, hit_l3),
                GMMU_STAT(s, hit_l2), GMMU_STAT(s, lookup_cycles), GMMU_STAT(s, fills),
                GMMU_STAT(s, entries_written), GMMU_STAT(s, evictions), GMMU_STAT(s, invalidations),
                GMMU_STAT(s, entries_invalidated), GMMU_STAT(s, dependent_invalidations),
                GMMU_STAT(s, squashed), {"bits", gmmu_pwc_bits(p)}};
    }
    void reset_stats() override { gmmu_pwc_reset_stats(p); }
};

// Keys: kind (gmmu-sim ptw.pwc), bits (ptw.pwc_bits: the largest geometry of
// the kind's default shape in that many bits), replacement (lru, fifo) and the
// geometry fields under the C model's names (cpwc.l4_entries, tpc.entries,
// stc.entries_l2, ...), which are also the names its validator reports.
gmmu_pwc_config pwc_config_from(const char *text)
{
    const std::vector<kv> keys = parse_keys(text);
    gmmu_pwc_kind k = GMMU_PWC_NONE;
    bool have_kind = false;
    for (const kv &p : keys)
        if (p.key == "kind") {
            if (gmmu_pwc_kind_parse(p.value.c_str(), &k) != GMMU_OK || k == GMMU_PWC_NONE)
                throw gmmu::config_error("config key 'kind': '" + p.value +
                                         "' is not one of tpc, stc, uptc, cpwc");
            have_kind = true;
        }
    if (!have_kind)
        throw gmmu::config_error("config key 'kind' is not set (tpc, stc, uptc or cpwc)");
    gmmu_pwc_config cfg{};
    gmmu_error err{};
    gmmu_pwc_config_default(k, &cfg);
    for (const kv &p : keys)
        if (p.key == "bits") {
            if (gmmu_pwc_config_for_bits(k, parse_u64(p, 1, 1ull << 24), &cfg, &err) != GMMU_OK)
                throw gmmu::config_error("config key 'bits': " + std::string(err.msg));
        }
    const std::string kn = gmmu_pwc_kind_name(k);
    std::map<std::string, uint32_t *> fields = {
        {"tpc.entries", &cfg.tpc.entries},
        {"tpc.hit_cycles", &cfg.tpc.hit_cycles},
        {"stc.entries_l4", &cfg.stc.entries[0]},
        {"stc.entries_l3", &cfg.stc.entries[1]},
        {"stc.entries_l2", &cfg.stc.entries[2]},
        {"stc.ways_l4", &cfg.stc.ways[0]},
        {"stc.ways_l3", &cfg.stc.ways[1]},
        {"stc.ways_l2", &cfg.stc.ways[2]},
        {"stc.hit_cycles", &cfg.stc.hit_cycles},
        {"uptc.entries", &cfg.uptc.entries},
        {"uptc.ways", &cfg.uptc.ways},
        {"uptc.probe_cycles", &cfg.uptc.probe_cycles},
        {"cpwc.l4_entries", &cfg.cpwc.l4_entries},
        {"cpwc.l3_entries", &cfg.cpwc.l3_entries},
        {"cpwc.l2_blocks", &cfg.cpwc.l2_blocks},
        {"cpwc.block_entries", &cfg.cpwc.block_entries},
        {"cpwc.lookup_cycles", &cfg.cpwc.lookup_cycles},
        {"cpwc.mux_cycles", &cfg.cpwc.mux_cycles},
    };
    for (const kv &p : keys) {
        if (p.key == "kind" || p.key == "bits")
            continue;
        if (p.key == "replacement") {
            if (p.value == "lru")
                cfg.replacement = GMMU_PWC_REPL_LRU;
            else if (p.value == "fifo")
                cfg.replacement = GMMU_PWC_REPL_FIFO;
            else
                throw gmmu::config_error("config key 'replacement': '" + p.value +
                                         "' is not one of lru, fifo");
            continue;
        }
        auto f = fields.find(p.key);
        if (f == fields.end())
            throw gmmu::config_error("unknown page-walk-cache config key '" + p.key + "'");
        if (p.key.compare(0, kn.size() + 1, kn + ".") != 0)
            throw gmmu::config_error("config key '" + p.key + "': not a key of kind " + kn);
        *f->second = uint32_t(parse_u64(p, 0, UINT32_MAX));
    }
    if (gmmu_pwc_config_validate(&cfg, &err) != GMMU_OK)
        throw gmmu::config_error("config key '" + std::string(err.field) + "': " + err.msg);
    return cfg;
}

// ---- walk scheduler ------------------------------------------------------------------

struct ws_h final : handle {
    gmmu_walk_sched *ws = nullptr;
    gmmu_ws_out out{};
    ws_h() : handle(kind::ws) {}
    ~ws_h() override { gmmu_walk_sched_destroy(ws); }
    std::vector<std::pair<const char *, uint64_t>> stats() const override
    {
        const gmmu_ws_stats &s = ws->st;
        return {GMMU_STAT(s, cycles), GMMU_STAT(s, walks), GMMU_STAT(s, faults), GMMU_STAT(s, allocs),
                GMMU_STAT(s, alloc_rejects), GMMU_STAT(s, refs_walked), GMMU_STAT(s, refs_issued),
                GMMU_STAT(s, refs_merged), GMMU_STAT(s, refs_cancelled), GMMU_STAT(s, refs_wasted),
                GMMU_STAT(s, same_line_back_to_back), GMMU_STAT(s, scans), GMMU_STAT(s, scan_passes),
                GMMU_STAT(s, scan_busy_cycles), GMMU_STAT(s, line_groups),
                GMMU_STAT(s, mem_stall_cycles), GMMU_STAT(s, max_inflight),
                {"free_mshrs", gmmu_walk_sched_free_mshrs(ws)}};
    }
    void reset_stats() override { ws->st = gmmu_ws_stats{}; }
};

// Keys as gmmu-sim's ptw.* keys: scheduler (serial, tree, pairwise), mshrs,
// walkers, scan_pass_cycles; and retire_width (the step interface's own).
gmmu_ws_config ws_config_from(const char *text)
{
    gmmu_ws_config cfg{};
    gmmu_ws_config_default(&cfg);
    for (const kv &p : parse_keys(text)) {
        if (p.key == "scheduler") {
            if (p.value == "serial")
                cfg.variant = GMMU_WS_SERIAL;
            else if (p.value == "tree")
                cfg.variant = GMMU_WS_TREE;
            else if (p.value == "pairwise")
                cfg.variant = GMMU_WS_PAIRWISE;
            else
                throw gmmu::config_error("config key 'scheduler': '" + p.value +
                                         "' is not one of serial, tree, pairwise");
        } else if (p.key == "mshrs") {
            cfg.mshrs = uint32_t(parse_u64(p, 0, UINT32_MAX));
        } else if (p.key == "walkers") {
            cfg.walkers = uint32_t(parse_u64(p, 0, UINT32_MAX));
        } else if (p.key == "scan_pass_cycles") {
            cfg.scan_pass_cycles = uint32_t(parse_u64(p, 0, UINT32_MAX));
        } else if (p.key == "retire_width") {
            cfg.retire_width = uint32_t(parse_u64(p, 0, UINT32_MAX));
        } else {
            throw gmmu::config_error("unknown walk-scheduler config key '" + p.key + "'");
        }
    }
    gmmu_error err{};
    if (gmmu_ws_config_check(&cfg, &err) != GMMU_OK) {
        const std::string f = err.field;
        const std::string key = f == "variant" ? "scheduler" : f;
        throw gmmu::config_error("config key '" + key + "': " + err.msg);
    }
    return cfg;
}

// ---- walker ------------------------------------------------------------------------------

// The package's scope, where its exports live (gmmu_dpi_bind_scope).
svScope g_pkg_scope = nullptr;

struct walker_h final : handle {
    int mem_id = 0;
    bool set_ad = false;
    int (*read)(int, sv_u64, sv_u64 *) = nullptr;
    int (*write)(int, sv_u64, sv_u64) = nullptr;
    gmmu_walk_result last{};
    bool have_last = false;
    uint64_t walks = 0, faults = 0, reads = 0, mem_errors = 0;
    walker_h() : handle(kind::walker) {}
    std::vector<std::pair<const char *, uint64_t>> stats() const override
    {
        return {{"walks", walks}, {"faults", faults}, {"reads", reads}, {"mem_errors", mem_errors}};
    }
    void reset_stats() override { walks = faults = reads = mem_errors = 0; }
};

} // namespace

// The package's exports (gmmu_pkg.sv): the testbench's page-table memory.
// Weak: a simulator may leave the exports out of a design that never walks
// (Verilator drops an unused package's functions); then they are looked up
// when a walker is made, and a walker without them is refused.
extern "C" __attribute__((weak)) int gmmu_dpi_pt_read(int mem_id, sv_u64 pa, sv_u64 *data);
extern "C" __attribute__((weak)) int gmmu_dpi_pt_write(int mem_id, sv_u64 pa, sv_u64 data);

namespace {

using pt_read_fn = int (*)(int, sv_u64, sv_u64 *);
using pt_write_fn = int (*)(int, sv_u64, sv_u64);

pt_read_fn find_pt_read()
{
    if (&gmmu_dpi_pt_read != nullptr)
        return &gmmu_dpi_pt_read;
    return reinterpret_cast<pt_read_fn>(dlsym(RTLD_DEFAULT, "gmmu_dpi_pt_read"));
}

pt_write_fn find_pt_write()
{
    if (&gmmu_dpi_pt_write != nullptr)
        return &gmmu_dpi_pt_write;
    return reinterpret_cast<pt_write_fn>(dlsym(RTLD_DEFAULT, "gmmu_dpi_pt_write"));
}

gmmu_status walker_read(void *ctx, uint64_t pa, uint64_t *v)
{
    auto *w = static_cast<walker_h *>(ctx);
    w->reads++;
    sv_u64 d = 0;
    const int rc = w->read(w->mem_id, pa, &d);
    *v = d;
    if (rc != 0) {
        w->mem_errors++;
        return GMMU_EMEM;
    }
    return GMMU_OK;
}

gmmu_status walker_write(void *ctx, uint64_t pa, uint64_t v)
{
    auto *w = static_cast<walker_h *>(ctx);
    if (!w->write || w->write(w->mem_id, pa, v) != 0) {
        w->mem_errors++;
        return GMMU_EMEM;
    }
    return GMMU_OK;
}

// Keys: mem (the memory id the exported read is called with, 0..2^31-1),
// set_accessed_dirty (gmmu-sim ptw.set_accessed_dirty: walks write A/D bits
// through gmmu_dpi_pt_write).
void walker_config_from(const char *text, walker_h *w)
{
    for (const kv &p : parse_keys(text)) {
        if (p.key == "mem")
            w->mem_id = int(parse_u64(p, 0, INT32_MAX));
        else if (p.key == "set_accessed_dirty")
            w->set_ad = parse_bool(p);
        else
            throw gmmu::config_error("unknown walker config key '" + p.key + "'");
    }
}

} // namespace

extern "C" {

// Called by the package (gmmu_attach_memory): remember its scope, from which
// the walker calls the exported gmmu_dpi_pt_read / _write.
void gmmu_dpi_bind_scope(void) { g_pkg_scope = svGetScope(); }

// ---- page-walk caches ---------------------------------------------------------------------------

void *gmmu_dpi_pwc_new(const char *cfg)
{
    return make("gmmu_dpi_pwc_new", [&]() -> void * {
        const gmmu_pwc_config c = pwc_config_from(cfg);
        auto h = std::make_unique<pwc_h>();
        gmmu_error err{};
        if (gmmu_pwc_create(&c, &h->p, &err) != GMMU_OK)
            throw gmmu::config_error("config key '" + std::string(err.field) + "': " + err.msg);
        return h.release();
    });
}

// Functional lookup: returns the start level (4 = miss: walk from root, 3..1),
// -1 on error; table_base = the table to start from; cycles = its latency.
int gmmu_dpi_pwc_lookup(void *h, sv_u64 root, sv_u64 va, sv_u64 *table_base, int *cycles)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_lookup");
    if (!p)
        return -1;
    gmmu_pwc_hit hit{};
    if (gmmu_pwc_lookup(p->p, root, va, &hit) != GMMU_OK) {
        set_error("gmmu_dpi_pwc_lookup: the model refused the lookup");
        return -1;
    }
    *table_base = hit.table_base;
    *cycles = int(hit.cycles);
    return int(hit.start_level);
}

// Fill a walked path: known bit k (k = 1..4) says base_lk is the table used at level k.
int gmmu_dpi_pwc_fill_path(void *h, sv_u64 va, int known, sv_u64 base_l4, sv_u64 base_l3,
                           sv_u64 base_l2, sv_u64 base_l1)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_fill_path");
    if (!p)
        return -1;
    gmmu_pwc_path path{};
    path.va = va;
    path.known = unsigned(known) & 0x1Eu;
    path.base[4] = base_l4;
    path.base[3] = base_l3;
    path.base[2] = base_l2;
    path.base[1] = base_l1;
    if (gmmu_pwc_fill_path(p->p, &path) != GMMU_OK) {
        set_error("gmmu_dpi_pwc_fill_path: the model refused the path");
        return -1;
    }
    return 0;
}

int gmmu_dpi_pwc_invalidate_all(void *h)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_invalidate_all");
    if (!p)
        return -1;
    gmmu_pwc_invalidate_all(p->p);
    return 0;
}

int gmmu_dpi_pwc_invalidate_range(void *h, sv_u64 va_lo, sv_u64 va_hi)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_invalidate_range");
    if (!p)
        return -1;
    gmmu_pwc_invalidate_range(p->p, va_lo, va_hi);
    return 0;
}

int gmmu_dpi_pwc_latency(void *h)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_latency");
    return p ? int(gmmu_pwc_latency(p->p)) : -1;
}

// One clock cycle of the cycle-step model (TPC, CPWC; pwc.h): the outputs of
// this cycle, then the inputs applied at the edge. 0 ok, -1 error.
int gmmu_dpi_pwc_step(void *h, svBit lookup_valid, sv_u64 lookup_va, sv_u64 lookup_root,
                      svBit fill_valid, const svBitVecVal *fill_levels, sv_u64 fill_va,
                      sv_u64 fill_base_l3, sv_u64 fill_base_l2, sv_u64 fill_base_l1,
                      svBit inv_valid, svBit inv_all, sv_u64 inv_lo, sv_u64 inv_hi,
                      svBit *hit_valid, svBitVecVal *hit_level, sv_u64 *hit_base)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_pwc_step");
    if (!p)
        return -1;
    gmmu_pwc_cycle_in in{};
    in.lookup_valid = lookup_valid & 1u;
    in.lookup_va = lookup_va;
    in.lookup_root = lookup_root;
    in.fill_valid = fill_valid & 1u;
    in.fill_levels = uint8_t(fill_levels[0] & 7u);
    in.fill_va = fill_va;
    in.fill_base_l3 = fill_base_l3;
    in.fill_base_l2 = fill_base_l2;
    in.fill_base_l1 = fill_base_l1;
    in.inv_valid = inv_valid & 1u;
    in.inv_all = inv_all & 1u;
    in.inv_lo = inv_lo;
    in.inv_hi = inv_hi;
    gmmu_pwc_cycle_out out{};
    if (gmmu_pwc_step(p->p, &in, &out) != GMMU_OK) {
        set_error("gmmu_dpi_pwc_step: the model refused the cycle (no cycle model for this kind?)");
        return -1;
    }
    *hit_valid = out.hit_valid;
    *hit_level = out.hit_valid ? out.start_level : 0;
    *hit_base = out.hit_valid ? out.table_base : 0;
    return 0;
}

// ---- the storage, slot by slot (white-box scoreboards) ----------------------------

// One CPWC slot: level 4 or 3 (slot < l4/l3 entries), or 2 (slot = block x
// block_entries + way, the RTL's flat L2 index). tag = the level's 9-bit
// index, base = the table it points to, mask = the L3 entry's block mask
// (bit nb-1-b = block b, as the model and rtl/cpwc.sv's l3_mask_q hold it;
// zero for L4 and L2). 1 valid, 0 empty, -1 error.
int gmmu_dpi_cpwc_entry(void *h, int level, int slot, sv_u64 *tag, sv_u64 *base, svBitVecVal *mask)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_cpwc_entry");
    if (!p)
        return -1;
    const gmmu_cpwc *c = gmmu_pwc_cpwc(p->p);
    if (!c) {
        set_error("gmmu_dpi_cpwc_entry: the page-walk cache is not a CPWC (kind=cpwc)");
        return -1;
    }
    const gmmu_pwc_config *cfg = gmmu_pwc_get_config(p->p);
    gmmu_cpwc_entry_view v{};
    gmmu_status st = GMMU_EINVAL;
    if (slot >= 0 && level == 4)
        st = gmmu_cpwc_l4_entry(c, unsigned(slot), &v);
    else if (slot >= 0 && level == 3)
        st = gmmu_cpwc_l3_entry(c, unsigned(slot), &v);
    else if (slot >= 0 && level == 2)
        st = gmmu_cpwc_l2_entry(c, unsigned(slot) / cfg->cpwc.block_entries,
                                unsigned(slot) % cfg->cpwc.block_entries, &v);
    if (st != GMMU_OK) {
        set_error("gmmu_dpi_cpwc_entry: no slot " + std::to_string(slot) + " at level " +
                  std::to_string(level) + " (levels 4, 3, 2; slots from 0 up to the level's entries)");
        return -1;
    }
    *tag = v.tag;
    *base = v.base;
    for (unsigned w = 0; w < GMMU_PWC_CPWC_MAX_BLOCKS / 64u; w++) {
        mask[2 * w] = svBitVecVal(level == 3 ? v.mask[w] : 0);
        mask[2 * w + 1] = svBitVecVal(level == 3 ? v.mask[w] >> 32 : 0);
    }
    return v.valid ? 1 : 0;
}

// One TPC entry: depth = parts valid (1 = L4, 2 = L4+L3, 3 = L4+L3+L2),
// idx = the parts' 9-bit indices (L4 at bits 8:0, L3 at 17:9, L2 at 26:18),
// base0..2 = the L3-, L2- and L1-table bases. 1 valid, 0 empty, -1 error.
int gmmu_dpi_tpc_entry(void *h, int slot, int *depth, svBitVecVal *idx, sv_u64 *base0, sv_u64 *base1,
                       sv_u64 *base2)
{
    auto *p = as<pwc_h>(h, kind::pwc, "gmmu_dpi_tpc_entry");
    if (!p)
        return -1;
    const gmmu_tpc *t = gmmu_pwc_tpc(p->p);
    if (!t) {
        set_error("gmmu_dpi_tpc_entry: the page-walk cache is not a TPC (kind=tpc)");
        return -1;
    }
    gmmu_tpc_entry_view v{};
    if (slot < 0 || gmmu_tpc_entry(t, uint32_t(slot), &v) != GMMU_OK) {
        set_error("gmmu_dpi_tpc_entry: no entry " + std::to_string(slot) + " (tpc.entries is " +
                  std::to_string(gmmu_tpc_entries(t)) + ")");
        return -1;
    }
    *depth = int(v.depth);
    idx[0] = svBitVecVal(v.idx[0] & 0x1FFu) | svBitVecVal(v.idx[1] & 0x1FFu) << 9 |
             svBitVecVal(v.idx[2] & 0x1FFu) << 18;
    *base0 = v.base[0];
    *base1 = v.base[1];
    *base2 = v.base[2];
    return v.valid ? 1 : 0;
}

// ---- walk scheduler -------------------------------------------------------------------------------------

void *gmmu_dpi_ws_new(const char *cfg)
{
    return make("gmmu_dpi_ws_new", [&]() -> void * {
        const gmmu_ws_config c = ws_config_from(cfg);
        auto h = std::make_unique<ws_h>();
        gmmu_error err{};
        if (gmmu_walk_sched_create(&c, &h->ws, &err) != GMMU_OK)
            throw gmmu::config_error("config key '" + std::string(err.field) + "': " + err.msg);
        return h.release();
    });
}

// One clock cycle (gmmu_walk_sched_step). The vectors follow the RTL ports:
// lane i of alloc_va / alloc_table_base is bits 64i+63:64i, of
// alloc_start_level / alloc_access bits 4i+3:4i. The outputs are read with
// gmmu_dpi_ws_req / _accepted / _done. 0 ok, -1 error (a malformed input:
// the model's state is unchanged).
int gmmu_dpi_ws_step(void *h, const svBitVecVal *alloc_valid, const svBitVecVal *alloc_va,
                     const svBitVecVal *alloc_table_base, const svBitVecVal *alloc_start_level,
                     const svBitVecVal *alloc_access, svBit resp_valid, unsigned short resp_tag,
                     sv_u64 resp_data, svBit mem_ready)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_step");
    if (!w)
        return -1;
    gmmu_ws_in in{};
    for (unsigned i = 0; i < GMMU_WS_ALLOC_MAX; i++) {
        in.alloc[i].valid = uint8_t((alloc_valid[0] >> i) & 1u);
        in.alloc[i].va = word64(alloc_va, i);
        in.alloc[i].table_base = word64(alloc_table_base, i);
        in.alloc[i].start_level = uint8_t(field(alloc_start_level, 4 * i, 4));
        in.alloc[i].access = uint8_t(field(alloc_access, 4 * i, 4));
    }
    in.resp.valid = resp_valid & 1u;
    in.resp.tag = resp_tag;
    in.resp.data = resp_data;
    in.mem_ready = mem_ready & 1u;
    if (gmmu_walk_sched_step(w->ws, &in, &w->out) != GMMU_OK) {
        set_error("gmmu_dpi_ws_step: malformed input (start level, table base, access, or a "
                  "response tag not in flight)");
        w->out = gmmu_ws_out{};
        return -1;
    }
    return 0;
}

void gmmu_dpi_ws_req(void *h, svBit *valid, svBitVecVal *level, unsigned short *tag, sv_u64 *pa)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_req");
    const gmmu_ws_req r = w ? w->out.req : gmmu_ws_req{};
    *valid = r.valid;
    *level = r.level;
    *tag = r.tag;
    *pa = r.pa;
}

// accepted bit i: alloc lane i took MSHR bits 8i+7:8i of mshr.
void gmmu_dpi_ws_accepted(void *h, svBitVecVal *accepted, svBitVecVal *mshr)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_accepted");
    accepted[0] = 0;
    mshr[0] = 0;
    if (!w)
        return;
    for (unsigned i = 0; i < GMMU_WS_ALLOC_MAX; i++) {
        accepted[0] |= svBitVecVal(w->out.alloc_accepted[i] & 1u) << i;
        mshr[0] |= svBitVecVal(w->out.alloc_mshr[i]) << (8 * i);
    }
}

int gmmu_dpi_ws_n_done(void *h)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_n_done");
    return w ? int(w->out.n_done) : -1;
}

// Completed walk i (< n_done): returns 1 and its fields, 0 if i >= n_done.
// table_base: level k's table PA in bits 64(k-1)+63:64(k-1).
int gmmu_dpi_ws_done(void *h, int i, int *fault, int *fault_level, int *page_shift, int *mshr,
                     int *nreads, sv_u64 *va, sv_u64 *pa, sv_u64 *pte, svBitVecVal *table_base)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_done");
    const bool ok = w && i >= 0 && unsigned(i) < w->out.n_done;
    const gmmu_ws_done d = ok ? w->out.done[i] : gmmu_ws_done{};
    *fault = d.fault;
    *fault_level = d.fault_level;
    *page_shift = d.page_shift;
    *mshr = d.mshr;
    *nreads = d.nreads;
    *va = d.va;
    *pa = d.pa;
    *pte = d.pte;
    for (unsigned k = 0; k < GMMU_PT_LEVELS; k++) {
        table_base[2 * k] = svBitVecVal(d.table_base[k + 1]);
        table_base[2 * k + 1] = svBitVecVal(d.table_base[k + 1] >> 32);
    }
    return ok ? 1 : 0;
}

int gmmu_dpi_ws_free_mshrs(void *h)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_free_mshrs");
    return w ? int(gmmu_walk_sched_free_mshrs(w->ws)) : -1;
}

int gmmu_dpi_ws_idle(void *h)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_idle");
    return w ? int(gmmu_walk_sched_idle(w->ws)) : -1;
}

void gmmu_dpi_ws_reset(void *h)
{
    auto *w = as<ws_h>(h, kind::ws, "gmmu_dpi_ws_reset");
    if (w) {
        gmmu_walk_sched_reset(w->ws);
        w->out = gmmu_ws_out{};
    }
}

// ---- walker ---------------------------------------------------------------------------------------------------

void *gmmu_dpi_walker_new(const char *cfg)
{
    return make("gmmu_dpi_walker_new", [&]() -> void * {
        auto h = std::make_unique<walker_h>();
        walker_config_from(cfg, h.get());
        h->read = find_pt_read();
        h->write = find_pt_write();
        if (!h->read)
            throw gmmu::config_error("the design has no gmmu_dpi_pt_read export (gmmu_pkg.sv "
                                     "compiled in, and gmmu_attach_memory called?)");
        return h.release();
    });
}

// Walk va from the table at table_base of level start_level (4 = root)
// with access bits (1 write, 2 user), reading PTEs through the package's
// exported gmmu_dpi_pt_read. Returns 0 when the walk completed (fault says
// whether it faulted: gmmu_fault), -1 on bad arguments or a failed read.
int gmmu_dpi_walk(void *h, sv_u64 table_base, int start_level, sv_u64 va, int access,
                  sv_u64 *pa, int *page_shift, int *fault, int *fault_level)
{
    auto *w = as<walker_h>(h, kind::walker, "gmmu_dpi_walk");
    *pa = 0;
    *page_shift = 0;
    *fault = 0;
    *fault_level = 0;
    if (!w)
        return -1;
    w->have_last = false;
    if (start_level < 1 || start_level > 4 || access < 0 || access > 3) {
        set_error("gmmu_dpi_walk: start_level must be 1..4 and access 0..3");
        return -1;
    }
    const gmmu_mem_ops mem{&walker_read, w->set_ad ? &walker_write : nullptr, w};
    unsigned acc = unsigned(access);
    if (w->set_ad)
        acc |= GMMU_ACC_SET_AD;
    gmmu_walk_result r{};
    const svScope caller = g_pkg_scope ? svSetScope(g_pkg_scope) : nullptr;
    const gmmu_status st = gmmu_walk_from(&mem, table_base, unsigned(start_level), va, acc, &r);
    if (g_pkg_scope)
        svSetScope(caller);
    if (st != GMMU_OK) {
        set_error(std::string("gmmu_dpi_walk: ") + gmmu_status_str(st) +
                  (st == GMMU_EMEM ? " (gmmu_dpi_pt_read reported an error)" : ""));
        return -1;
    }
    w->walks++;
    w->faults += r.fault != GMMU_FAULT_NONE;
    w->last = r;
    w->have_last = true;
    *pa = r.pa;
    *page_shift = int(r.page_shift);
    *fault = int(r.fault);
    *fault_level = int(r.fault_level);
    return 0;
}

// Details of the last completed walk: leaf PTE, reads, and the table used at
// level k (k = 1..4; 0 for levels the walk did not use).
sv_u64 gmmu_dpi_walk_pte(void *h)
{
    auto *w = as<walker_h>(h, kind::walker, "gmmu_dpi_walk_pte");
    return w && w->have_last ? w->last.pte : 0;
}

int gmmu_dpi_walk_nreads(void *h)
{
    auto *w = as<walker_h>(h, kind::walker, "gmmu_dpi_walk_nreads");
    return w && w->have_last ? int(w->last.nreads) : 0;
}

sv_u64 gmmu_dpi_walk_table_base(void *h, int level)
{
    auto *w = as<walker_h>(h, kind::walker, "gmmu_dpi_walk_table_base");
    if (!w || !w->have_last || level < 1 || level > 4)
        return 0;
    return w->last.table_base[level];
}

// Fill the PWC with what the walker's last walk of va found (gmmu_pwc_fill).
int gmmu_dpi_pwc_fill_walk(void *pwc, void *walker, sv_u64 va)
{
    auto *p = as<pwc_h>(pwc, kind::pwc, "gmmu_dpi_pwc_fill_walk");
    auto *w = as<walker_h>(walker, kind::walker, "gmmu_dpi_pwc_fill_walk");
    if (!p || !w)
        return -1;
    if (!w->have_last) {
        set_error("gmmu_dpi_pwc_fill_walk: the walker has no completed walk");
        return -1;
    }
    return gmmu_pwc_fill(p->p, va, &w->last) == GMMU_OK ? 0 : -1;
}

} // extern "C"
