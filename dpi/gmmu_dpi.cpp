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
// (platforms/components/tlb_config.cpp); the other models' keys map onto their C
// config structs and are checked by the models' own validators. A bad
// configuration returns a null handle; gmmu_dpi_last_error() says which key
// and why. Nothing here aborts: every bad input is a status or a null.
//
// This file: the common calls (errors, statistics, free), the TLB and the
// coalescer; gmmu_dpi_walk.cpp: page-walk caches, walk scheduler, walker;
// dpi_internal.{h,cpp}: what both share.
#include <string>

#include "dpi_internal.h"
#include "gmmu/components/tlb_config.h"

#ifdef GMMU_DPI_CHECK_PROTOTYPES
// the prototypes Verilator derives from gmmu_pkg.sv (a mismatch does not compile)
#include "Vgmmu_pkg__Dpi.h"
#endif

using namespace gmmu_dpi_detail;

namespace {

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

} // namespace

extern "C" {

// ---- common --------------------------------------------------------------------------------

const char *gmmu_dpi_last_error(void) { return last_error().c_str(); }

const char *gmmu_dpi_version(void) { return "gmmu_dpi 1"; }

int gmmu_dpi_live_handles(void) { return int(live_count()); }

void gmmu_dpi_free(void *h)
{
    auto *p = static_cast<handle *>(h);
    if (!p)
        return;
    if (!is_live(p)) {
        set_error("gmmu_dpi_free: not a live gmmu handle (freed twice, or not from gmmu_dpi)");
        return;
    }
    delete p;
}

int gmmu_dpi_has_stat(void *h, const char *name)
{
    auto *p = static_cast<handle *>(h);
    if (!p || !is_live(p) || !name)
        return 0;
    for (auto &s : p->stats())
        if (std::strcmp(s.first, name) == 0)
            return 1;
    return 0;
}

sv_u64 gmmu_dpi_stat(void *h, const char *name)
{
    auto *p = static_cast<handle *>(h);
    if (!p || !is_live(p)) {
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
    if (!p || !is_live(p))
        return "";
    for (auto &s : p->stats())
        names += (names.empty() ? "" : " ") + std::string(s.first);
    return names.c_str();
}

void gmmu_dpi_reset_stats(void *h)
{
    auto *p = static_cast<handle *>(h);
    if (p && is_live(p))
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


// SystemC; libsystemc refers to the program's sc_main. An SV simulator has
// none: this one satisfies the reference and is never called by gmmu_dpi (a
// SystemC program that loads gmmu_dpi keeps its own, found first).
__attribute__((weak)) int sc_main(int, char **)
{
    return 1;
}

} // extern "C"
