// gmmu_dpi — the C golden models as DPI-C functions for SystemVerilog
// testbenches (docs/dpi.md). The SV side is dpi/gmmu_pkg.sv; every function
// here has its `import "DPI-C"` there, with svdpi.h types: chandle handles,
// longint unsigned addresses, svBitVecVal for the vectors the RTL ports carry.
//
// Models: TLB, page-walk caches (functional calls and the cycle step),
// walk scheduler (cycle step), page-table walker (reads page tables through
// the package's exported gmmu_dpi_pt_read), coalescer.
//
// Configuration comes from key strings ("entries=64 ways=4") or a JSON object
// ('{"entries": 64}'). The TLB's keys are gmmu-sim's l1_tlb.* keys, parsed
// and checked by gmmu-sim's own config class and TLB descriptor
// (platforms/gpu/tlb_config.cpp); the other models' keys map onto their C
// config structs and are checked by the models' own validators. A bad
// configuration returns a null handle; gmmu_dpi_last_error() says which key
// and why. Nothing here aborts: every bad input is a status or a null.
#include <dlfcn.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <svdpi.h>

#include "gmmu/gpu/config.h"
#include "gmmu/gpu/tlb_config.h"

#ifdef GMMU_DPI_CHECK_PROTOTYPES
// the prototypes Verilator derives from gmmu_pkg.sv (a mismatch does not compile)
#include "Vgmmu_pkg__Dpi.h"
#endif

extern "C" {
#include "gmmu/coalescer.h"
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
#include "gmmu/tlb.h"
#include "gmmu/walk_sched.h"
}

// svdpi.h: longint unsigned is unsigned long long.
using sv_u64 = unsigned long long;

namespace {

thread_local std::string g_error;

void set_error(std::string msg) { g_error = std::move(msg); }

// ---- key strings ---------------------------------------------------------------

struct kv {
    std::string key, value;
};

// "k=v k2=v2" (whitespace or commas between pairs) or a JSON object whose
// values are numbers, booleans or strings. Throws config_error.
std::vector<kv> parse_keys(const char *text)
{
    std::vector<kv> out;
    const std::string s = text ? text : "";
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
        i++;
    if (i < s.size() && s[i] == '{') {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(s);
        } catch (const nlohmann::json::exception &e) {
            throw gmmu::config_error(std::string("config JSON: ") + e.what());
        }
        if (!j.is_object())
            throw gmmu::config_error("config JSON: expected an object of key: value");
        for (auto it = j.begin(); it != j.end(); ++it) {
            const auto &v = it.value();
            if (v.is_string())
                out.push_back({it.key(), v.get<std::string>()});
            else if (v.is_boolean() || v.is_number_integer() || v.is_number_unsigned())
                out.push_back({it.key(), v.dump()});
            else
                throw gmmu::config_error("config key '" + it.key() +
                                         "': expected a number, a boolean or a string");
        }
        return out;
    }
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ','))
            i++;
        if (i >= s.size())
            break;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != ',')
            j++;
        const std::string tok = s.substr(i, j - i);
        const size_t eq = tok.find('=');
        if (eq == std::string::npos || eq == 0)
            throw gmmu::config_error("config: '" + tok + "' is not key=value");
        out.push_back({tok.substr(0, eq), tok.substr(eq + 1)});
        i = j;
    }
    return out;
}

// An unsigned integer value of key (decimal or 0x hex). Throws config_error.
uint64_t parse_u64(const kv &p, uint64_t lo, uint64_t hi)
{
    const std::string &v = p.value;
    const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const size_t start = hex ? 2 : 0;
    if (v.size() <= start)
        throw gmmu::config_error("config key '" + p.key + "': expected an integer, got '" + v + "'");
    uint64_t x = 0;
    for (size_t k = start; k < v.size(); k++) {
        const char c = v[k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = unsigned(c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            d = unsigned(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F')
            d = unsigned(c - 'A' + 10);
        else
            throw gmmu::config_error("config key '" + p.key + "': expected an integer, got '" + v + "'");
        const uint64_t base = hex ? 16 : 10;
        if (x > (UINT64_MAX - d) / base)
            throw gmmu::config_error("config key '" + p.key + "': '" + v + "' is out of range");
        x = x * base + d;
    }
    if (x < lo || x > hi)
        throw gmmu::config_error("config key '" + p.key + "': " + v + " is outside " +
                                 std::to_string(lo) + ".." + std::to_string(hi));
    return x;
}

bool parse_bool(const kv &p)
{
    if (p.value == "true" || p.value == "1")
        return true;
    if (p.value == "false" || p.value == "0")
        return false;
    throw gmmu::config_error("config key '" + p.key + "': expected true or false, got '" + p.value + "'");
}

// ---- handles -----------------------------------------------------------------------

constexpr uint32_t kMagic = 0x676d6d75u; // "gmmu"

enum class kind { tlb, pwc, ws, walker };

const char *kind_name(kind k)
{
    switch (k) {
    case kind::tlb: return "TLB";
    case kind::pwc: return "page-walk cache";
    case kind::ws: return "walk scheduler";
    case kind::walker: return "walker";
    }
    return "?";
}

struct handle {
    uint32_t magic = kMagic;
    kind k;
    explicit handle(kind kk) : k(kk) {}
    virtual ~handle() { magic = 0; }
    // Counters by name (the C model's stats struct field names).
    virtual std::vector<std::pair<const char *, uint64_t>> stats() const = 0;
    virtual void reset_stats() = 0;
};

// The handle behind h if it is a live one of kind k; else null and an error.
template <class T>
T *as(void *h, kind k, const char *fn)
{
    auto *p = static_cast<handle *>(h);
    if (!p) {
        set_error(std::string(fn) + ": null handle");
        return nullptr;
    }
    if (p->magic != kMagic) {
        set_error(std::string(fn) + ": not a live gmmu handle");
        return nullptr;
    }
    if (p->k != k) {
        set_error(std::string(fn) + ": a " + kind_name(p->k) + " handle, expected a " + kind_name(k));
        return nullptr;
    }
    return static_cast<T *>(p);
}

#define GMMU_STAT(s, f) {#f, (s).f}

// ---- TLB -------------------------------------------------------------------------

struct tlb_h final : handle {
    gmmu_tlb *t = nullptr;
    tlb_h() : handle(kind::tlb) {}
    ~tlb_h() override { gmmu_tlb_destroy(t); }
    std::vector<std::pair<const char *, uint64_t>> stats() const override
    {
        const gmmu_tlb_stats &s = *gmmu_tlb_stats_of(t);
        return {GMMU_STAT(s, accesses), GMMU_STAT(s, hits), GMMU_STAT(s, misses), GMMU_STAT(s, fills),
                GMMU_STAT(s, evictions), GMMU_STAT(s, invalidations),
                GMMU_STAT(s, prefetch_fills), GMMU_STAT(s, prefetch_redundant),
                GMMU_STAT(s, prefetch_hits), GMMU_STAT(s, prefetch_evicted_unused),
                GMMU_STAT(s, prefetch_victim_useful), GMMU_STAT(s, coverage_fills),
                GMMU_STAT(s, stale_fills_dropped), {"occupancy", gmmu_tlb_occupancy(t)}};
    }
    void reset_stats() override { set_error("TLB counters cannot be reset: create a new TLB"); }
};

// The keys of gmmu-sim's l1_tlb level, without the prefix. Parsed, checked
// and turned into the model's config by gmmu-sim's own code (config::set,
// config::validate, tlb_params_from, i.e. tlb_descriptor()); its messages
// name "l1_tlb.KEY", shown here as "KEY".
const char kTlbPrefix[] = "l1_tlb";

std::string strip_prefix(std::string msg)
{
    const std::string pre = std::string(kTlbPrefix) + ".";
    for (size_t at = msg.find(pre); at != std::string::npos; at = msg.find(pre, at))
        msg.erase(at, pre.size());
    return msg;
}

gmmu_tlb_config tlb_config_from(const char *text)
{
    gmmu::config c = gmmu::config::defaults();
    for (const kv &p : parse_keys(text)) {
        const auto *f = gmmu::tlb_descriptor().find(p.key);
        if (!f || !f->apply)
            throw gmmu::config_error("unknown TLB config key '" + p.key + "'");
        c.set(std::string(kTlbPrefix) + "." + p.key, p.value);
    }
    c.validate();
    return gmmu::tlb_params_from(c, kTlbPrefix, 1).model;
}

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

// Runs f; a thrown config_error (or anything else) becomes the last error and
// a null handle.
template <class F>
void *make(const char *fn, F f)
{
    try {
        g_error.clear();
        return f();
    } catch (const std::exception &e) {
        set_error(std::string(fn) + ": " + strip_prefix(e.what()));
    } catch (...) {
        set_error(std::string(fn) + ": unknown error");
    }
    return nullptr;
}

uint64_t word64(const svBitVecVal *v, unsigned i)
{
    return uint64_t(v[2 * i]) | (uint64_t(v[2 * i + 1]) << 32);
}

unsigned field(const svBitVecVal *v, unsigned lsb, unsigned width)
{
    unsigned x = 0;
    for (unsigned b = 0; b < width; b++)
        x |= ((v[(lsb + b) / 32] >> ((lsb + b) % 32)) & 1u) << b;
    return x;
}

} // namespace

extern "C" {

// ---- common --------------------------------------------------------------------------------

const char *gmmu_dpi_last_error(void) { return g_error.c_str(); }

// Called by the package (gmmu_attach_memory): remember its scope, from which
// the walker calls the exported gmmu_dpi_pt_read / _write.
void gmmu_dpi_bind_scope(void) { g_pkg_scope = svGetScope(); }

const char *gmmu_dpi_version(void) { return "gmmu_dpi 1"; }

void gmmu_dpi_free(void *h)
{
    auto *p = static_cast<handle *>(h);
    if (!p)
        return;
    if (p->magic != kMagic) {
        set_error("gmmu_dpi_free: not a live gmmu handle");
        return;
    }
    delete p;
}

int gmmu_dpi_has_stat(void *h, const char *name)
{
    auto *p = static_cast<handle *>(h);
    if (!p || p->magic != kMagic || !name)
        return 0;
    for (auto &s : p->stats())
        if (std::strcmp(s.first, name) == 0)
            return 1;
    return 0;
}

sv_u64 gmmu_dpi_stat(void *h, const char *name)
{
    auto *p = static_cast<handle *>(h);
    if (!p || p->magic != kMagic) {
        set_error("gmmu_dpi_stat: not a live gmmu handle");
        return UINT64_MAX;
    }
    std::string known;
    for (auto &s : p->stats()) {
        if (name && std::strcmp(s.first, name) == 0)
            return s.second;
        known += (known.empty() ? "" : ", ") + std::string(s.first);
    }
    set_error(std::string("gmmu_dpi_stat: the ") + kind_name(p->k) + " has no counter '" +
              (name ? name : "") + "' (" + known + ")");
    return UINT64_MAX;
}

// Space-separated counter names of the handle's model.
const char *gmmu_dpi_stat_names(void *h)
{
    thread_local std::string names;
    names.clear();
    auto *p = static_cast<handle *>(h);
    if (!p || p->magic != kMagic)
        return "";
    for (auto &s : p->stats())
        names += (names.empty() ? "" : " ") + std::string(s.first);
    return names.c_str();
}

void gmmu_dpi_reset_stats(void *h)
{
    auto *p = static_cast<handle *>(h);
    if (p && p->magic == kMagic)
        p->reset_stats();
}

// ---- TLB ----------------------------------------------------------------------------------

void *gmmu_dpi_tlb_new(const char *cfg)
{
    return make("gmmu_dpi_tlb_new", [&]() -> void * {
        const gmmu_tlb_config c = tlb_config_from(cfg);
        auto h = std::make_unique<tlb_h>();
        gmmu_error err{};
        if (gmmu_tlb_create(&c, &h->t, &err) != GMMU_OK)
            throw gmmu::config_error("TLB model field '" + std::string(err.field) + "': " + err.msg);
        return h.release();
    });
}

// 1 hit, 0 miss, -1 bad handle. On a hit: ppn, perms, LRU depth (0 = MRU).
int gmmu_dpi_tlb_lookup(void *h, unsigned short asid, sv_u64 vpn, sv_u64 *ppn, sv_u64 *perms,
                        unsigned *lru_depth)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_lookup");
    if (!t)
        return -1;
    gmmu_tlb_result r{};
    if (gmmu_tlb_lookup(t->t, asid, vpn, &r) != GMMU_OK)
        return -1;
    *ppn = r.hit ? r.ppn : 0;
    *perms = r.hit ? r.perms : 0;
    *lru_depth = r.hit ? r.lru_depth : 0;
    return r.hit ? 1 : 0;
}

// Look up without changing state or counters: 1 present, 0 absent, -1 bad handle.
int gmmu_dpi_tlb_probe(void *h, unsigned short asid, sv_u64 vpn, sv_u64 *ppn)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_probe");
    if (!t)
        return -1;
    gmmu_tlb_entry e{};
    const bool hit = gmmu_tlb_probe(t->t, asid, vpn, &e);
    *ppn = hit ? e.ppn + (vpn - e.vpn) : 0;
    return hit ? 1 : 0;
}

// Install one page; returns the number of valid entries evicted, -1 on error.
// evicted_vpn: the first victim's VPN (0 if none).
int gmmu_dpi_tlb_fill(void *h, unsigned short asid, sv_u64 vpn, sv_u64 ppn, sv_u64 perms,
                      sv_u64 *evicted_vpn)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_fill");
    if (!t)
        return -1;
    gmmu_tlb_fill_out o{};
    if (gmmu_tlb_fill_ex(t->t, asid, vpn, ppn, perms, 0, 0, &o) != GMMU_OK) {
        set_error("gmmu_dpi_tlb_fill: the model refused the fill");
        return -1;
    }
    *evicted_vpn = o.nvictims ? o.victims[0].vpn : 0;
    return int(o.nvictims);
}

int gmmu_dpi_tlb_invalidate_page(void *h, unsigned short asid, sv_u64 vpn)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_invalidate_page");
    return t ? int(gmmu_tlb_invalidate_page(t->t, asid, vpn)) : -1;
}

int gmmu_dpi_tlb_invalidate_asid(void *h, unsigned short asid)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_invalidate_asid");
    return t ? int(gmmu_tlb_invalidate_asid(t->t, asid)) : -1;
}

int gmmu_dpi_tlb_invalidate_range(void *h, unsigned short asid, sv_u64 va_lo, sv_u64 va_hi)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_invalidate_range");
    return t ? int(gmmu_tlb_invalidate_range(t->t, asid, va_lo, va_hi)) : -1;
}

int gmmu_dpi_tlb_invalidate_all(void *h)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_invalidate_all");
    if (!t)
        return -1;
    gmmu_tlb_invalidate_all(t->t);
    return 0;
}

int gmmu_dpi_tlb_page_shift(void *h)
{
    auto *t = as<tlb_h>(h, kind::tlb, "gmmu_dpi_tlb_page_shift");
    return t ? int(gmmu_tlb_config_of(t->t)->page_shift) : -1;
}

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

// ---- coalescer ---------------------------------------------------------------------------------------

// The active lanes (bit i of active) of va[0..nlanes) grouped by page of
// 2^page_shift bytes: returns the number of unique pages (-1 on bad input);
// vpn[j], lane_mask[j] for j < that; lane_page[i] = index of lane i's page.
int gmmu_dpi_coalesce(const sv_u64 *va, int nlanes, const svBitVecVal *active, int page_shift,
                      sv_u64 *vpn, svBitVecVal *lane_mask, int *lane_page)
{
    gmmu_coalesced c{};
    if (nlanes < 0 || nlanes > int(GMMU_WARP_LANES) || page_shift < 0 || page_shift > 63 ||
        gmmu_coalesce(reinterpret_cast<const uint64_t *>(va), uint32_t(nlanes), active[0], unsigned(page_shift), &c) != GMMU_OK) {
        set_error("gmmu_dpi_coalesce: nlanes must be 0..32 and page_shift 0..63");
        return -1;
    }
    for (unsigned j = 0; j < GMMU_WARP_LANES; j++) {
        vpn[j] = j < c.npages ? c.vpn[j] : 0;
        lane_mask[j] = j < c.npages ? c.lane_mask[j] : 0;
        lane_page[j] = c.lane_page[j];
    }
    return int(c.npages);
}

// The TLB's configuration code is gmmu-sim's (TLM library), which links
// SystemC; libsystemc refers to the program's sc_main. An SV simulator has
// none: this one satisfies the reference and is never called by gmmu_dpi (a
// SystemC program that loads gmmu_dpi keeps its own, found first).
__attribute__((weak)) int sc_main(int, char **)
{
    return 1;
}

} // extern "C"
