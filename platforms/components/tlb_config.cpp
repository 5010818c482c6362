#include "gmmu/components/tlb_config.h"

#include "gmmu/components/sm_core_spec.h"
#include "gmmu/components/sm_spec.h"

extern "C" {
#include "gmmu/tlb.h"
#include "gmmu/tlb_mshr.h"
#include "gmmu/xlate_timing.h"
}

namespace gmmu {

using field = descriptor<tlb_params>::field;
using json = nlohmann::json;

static uint32_t u32(const config &c, const std::string &k) { return uint32_t(c.i(k)); }

// The large-page arrays of one level (keys entries_2m, ways_2m, entries_1g,
// ways_1g), checked here so that every error names the key that causes it.
static void apply_large(tlb_params &p, const config &c, const std::string &k)
{
    const std::string pre = k.substr(0, k.rfind('.') + 1);
    const struct {
        const char *name;
        unsigned shift;
    } sizes[] = {{"2m", 21}, {"1g", 30}};
    unsigned n = 0;
    for (const auto &s : sizes) {
        const std::string ek = pre + "entries_" + s.name, wk = pre + "ways_" + s.name;
        const uint32_t entries = u32(c, ek);
        if (entries == 0)
            continue;
        if (s.shift <= p.model.page_shift)
            throw config_error("config key '" + ek + "': a large-page array needs a TLB page (" +
                               pre + "page_bytes) smaller than its page");
        gmmu_tlb_config lc{};
        lc.entries = entries;
        lc.ways = u32(c, wk) ? u32(c, wk) : entries;
        lc.page_shift = s.shift;
        lc.repl = p.model.repl;
        lc.lookup_cycles = p.model.lookup_cycles;
        gmmu_error err{};
        if (gmmu_tlb_config_check(&lc, &err) != GMMU_OK)
            throw config_error("config key '" + (std::string(err.field) == "entries" ? ek : wk) +
                               "': " + err.msg);
        p.model.large[n++] = {s.shift, lc.entries, lc.ways};
    }
}

const descriptor<tlb_params> &tlb_descriptor()
{
    static const descriptor<tlb_params> d = [] {
        descriptor<tlb_params> x({
        // Read by the platform (which instances exist).
        only_for(bool_field<tlb_params>("enabled", true, "Instantiate the {L} TLB level.", nullptr),
                 {"l2_tlb", "l3_tlb"}),
        int_field<tlb_params>("entries", 32, 1, GMMU_TLB_MAX_ENTRIES, "{L} TLB entries per instance.",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.model.entries = u32(c, k);
                              }, "entries"),
        int_field<tlb_params>("ways", 32, 1, GMMU_TLB_MAX_WAYS,
                              "{L} TLB ways per set (= entries: fully associative).",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.model.ways = u32(c, k);
                              }, "ways"),
        int_field<tlb_params>("sets", 0, 0, GMMU_TLB_MAX_ENTRIES,
                              "{L} TLB sets; 0 = entries / ways. With sets given, sets-1 sets of "
                              "`ways` and the last set takes the rest (65 = 6 x 8 + 1 x 17).",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.model.sets = u32(c, k);
                              }, "sets"),
        enum_field<tlb_params>("index", "modulo",
                               {{"modulo", GMMU_TLB_INDEX_MODULO}, {"residue", GMMU_TLB_INDEX_RESIDUE}},
                               "{L} set index: modulo = tag mod sets; residue = tag mod entries owned "
                               "by sets in proportion to their ways (non-uniform sets fill exactly; "
                               "docs/tlb.md).",
                               [](tlb_params &p, const config &c, const std::string &k) {
                                   p.model.index = gmmu_tlb_index(
                                       tlb_descriptor().enum_value("index", c.s(k), k));
                               }, "index"),
        int_field<tlb_params>("lookup_cycles", 1, 0, 100000, "{L} TLB lookup latency, cycles.",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.model.lookup_cycles = u32(c, k);
                              }, "lookup_cycles"),
        int_field<tlb_params>("ports", 32, 1, 32, "{L} TLB lookups per cycle.",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.ports = unsigned(c.i(k));
                              }, "ports"),
        only_for(int_field<tlb_params>(
                     "mshrs", 0, 0, 4096,
                     "{L} TLB MSHRs; > 0 switches the {L} to the MSHR timing model (merging, hits "
                     "under misses, stalls when full; docs/tlb.md); 0 = lookup_cycles + one cycle "
                     "per `ports` lookups.",
                     [](tlb_params &p, const config &c, const std::string &k) {
                         p.mshr.mshrs = u32(c, k);
                     }, "mshrs"),
                 {"l1_tlb"}),
        only_for(int_field<tlb_params>(
                     "max_misses", 0, 0, 4096,
                     "With {P}.mshrs: misses in flight at once (1 = no miss under miss); 0 = mshrs.",
                     [](tlb_params &p, const config &c, const std::string &k) {
                         p.mshr.max_outstanding = u32(c, k);
                     }, "max_outstanding"),
                 {"l1_tlb"}),
        only_for(bool_field<tlb_params>("hit_fast_path", true,
                                        "Serve a one-page warp access that hits the {L} TLB with one "
                                        "model call (gmmu_tlb_serve_hit) instead of the request batch. "
                                        "Results are identical either way (tested); false is for that "
                                        "test and for profiling.",
                                        [](tlb_params &p, const config &c, const std::string &k) {
                                            p.hit_fast_path = c.b(k);
                                        }),
                 {"l1_tlb"}),
        only_for(bool_field<tlb_params>("hits_under_miss", true,
                                        "With {P}.mshrs: false makes the {L} TLB blocking.",
                                        [](tlb_params &p, const config &c, const std::string &k) {
                                            p.mshr.hits_under_miss = c.b(k);
                                        }),
                 {"l1_tlb"}),
        only_for(enum_field<tlb_params>(
                     "latency_model", "fixed",
                     {{"fixed", GMMU_TLB_LATENCY_FIXED}, {"scaled", GMMU_TLB_LATENCY_SCALED}},
                     "{L} TLB access time: fixed = lookup_cycles whatever the entries and ports "
                     "(an ideal TLB when large); scaled = lookup_cycles + latency_step_cycles per "
                     "doubling above 128 entries and above 4 ports (docs/pichai_mmu.md).",
                     [](tlb_params &p, const config &c, const std::string &k) {
                         p.latency_model = unsigned(tlb_descriptor().enum_value("latency_model", c.s(k), k));
                     }),
                 {"l1_tlb"}),
        only_for(int_field<tlb_params>("latency_step_cycles", 1, 0, 1000,
                                       "With {P}.latency_model=scaled: cycles added per doubling of "
                                       "entries above 128 and of ports above 4.",
                                       [](tlb_params &p, const config &c, const std::string &k) {
                                           p.latency_step_cycles = unsigned(c.i(k));
                                       }),
                 {"l1_tlb"}),
        only_for(bool_field<tlb_params>(
                     "warp_lookups_together", false,
                     "With {P}.hits_under_miss=false: a warp access still looks up all its pages and "
                     "takes an MSHR per missing page; only later warp accesses wait for its misses "
                     "(pichai-asplos14's blocking TLB). false: each lookup waits for every "
                     "outstanding miss, the warp's own too.",
                     [](tlb_params &p, const config &c, const std::string &k) {
                         p.mshr.batch_issues_through = c.b(k);
                     }),
                 {"l1_tlb"}),
        enum_field<tlb_params>("replacement", "lru",
                               {{"lru", GMMU_TLB_REPL_LRU}, {"plru", GMMU_TLB_REPL_PLRU},
                                {"fifo", GMMU_TLB_REPL_FIFO}, {"random", GMMU_TLB_REPL_RANDOM}},
                               "{L} TLB replacement.",
                               [](tlb_params &p, const config &c, const std::string &k) {
                                   p.model.repl = gmmu_tlb_repl(
                                       tlb_descriptor().enum_value("replacement", c.s(k), k));
                               }, "replacement"),
        int_field<tlb_params>(
            "page_bytes", 0, 0, 1ll << 32,
            "Bytes one {L} entry translates (the TLB page); 0 = page_size. Smaller than page_size: "
            "large pages are cached in pieces.",
            [](tlb_params &p, const config &c, const std::string &k) {
                uint64_t page_bytes = uint64_t(c.i(k));
                if (page_bytes == 0)
                    page_bytes = uint64_t(c.i("page_size"));
                if (page_bytes < 4096)
                    throw config_error("config key '" + k + "': at least 4096");
                p.model.page_shift = gmmu_log2_u64(page_bytes);
            }, "page_shift", true),
        int_field<tlb_params>(
            "coverage_bytes", 0, 0, 1ll << 40,
            "If > 0, one {L} entry covers an aligned run of contiguous TLB pages of this many bytes "
            "(when the PTEs' contiguity hint says the run is contiguous).",
            [](tlb_params &p, const config &c, const std::string &k) {
                const uint64_t page_bytes = uint64_t(1) << p.model.page_shift; // page_bytes is applied first
                const uint64_t cov = uint64_t(c.i(k));
                if (cov && cov < page_bytes)
                    throw config_error("config key '" + k + "': smaller than the TLB page (" +
                                       std::to_string(page_bytes) + ")");
                // The driver's contiguity hint (PTE bits 11:9) vouches for at
                // most 2^7 pages of page_size; a larger coverage could never
                // take effect.
                const uint64_t max_cov = uint64_t(c.i("page_size")) << 7;
                if (cov > max_cov)
                    throw config_error("config key '" + k + "': at most " + std::to_string(max_cov) +
                                       " (128 pages of page_size: the most a PTE's contiguity hint "
                                       "vouches for)");
                p.model.coverage_shift = cov ? gmmu_log2_u64(cov) : 0;
            }, "coverage_shift", true),
        int_field<tlb_params>("fill_pages", 1, 1, 64,
                              "Each {L} miss fills this many neighbouring entries of a contiguous "
                              "aligned group.",
                              [](tlb_params &p, const config &c, const std::string &k) {
                                  p.model.fill_pages = u32(c, k);
                              }, "fill_pages", true),
        int_field<tlb_params>("entries_2m", 0, 0, 1 << 20,
                              "{L} entries for 2 MiB pages, side by side with the TLB-page entries "
                              "(0: 2 MiB pages are cached as TLB pages; docs/tlb.md).",
                              nullptr),
        int_field<tlb_params>("ways_2m", 0, 0, GMMU_TLB_MAX_WAYS,
                              "Ways of the {L} 2 MiB entries (0: fully associative).", nullptr),
        int_field<tlb_params>("entries_1g", 0, 0, 1 << 20,
                              "{L} entries for 1 GiB pages (0: cached as 2 MiB entries if there "
                              "are any, else as TLB pages).",
                              nullptr),
        int_field<tlb_params>("ways_1g", 0, 0, GMMU_TLB_MAX_WAYS,
                              "Ways of the {L} 1 GiB entries (0: fully associative).",
                              &apply_large),
        // Read by the platform (who shares an instance).
        int_field<tlb_params>("shared_by", 0, 0, 1024, "SMs sharing one {L} TLB; 0 = all SMs.",
                              nullptr),
        string_field<tlb_params>("groups", "",
                                 "Irregular sharing of the {L} TLB: groups of SM ids separated by "
                                 "';', each a list of ids and ranges ('0-2;3-5;6,7'); overrides "
                                 "shared_by.",
                                 nullptr),
        });
        // Members of the MSHR model the platform fills with constants the
        // checker accepts (gmmu_tlb_mshr_config defaults).
        x.c_field_elsewhere("targets", "").c_field_elsewhere("miss_cycles", "").c_field_elsewhere("merge_pages", "");
        return x;
    }();
    return d;
}

const std::vector<tlb_level> &tlb_levels()
{
    static const std::vector<tlb_level> levels = {
        {"l1_tlb", {"L1", {{"entries", 32}, {"ways", 32}, {"lookup_cycles", 1}, {"ports", 4},
                           {"shared_by", 1}}}},
        {"l2_tlb", {"L2", {{"enabled", true}, {"entries", 512}, {"ways", 16}, {"lookup_cycles", 10},
                           {"ports", 32}, {"shared_by", 0}}}},
        {"l3_tlb", {"L3", {{"enabled", false}, {"entries", 1024}, {"ways", 8}, {"lookup_cycles", 20},
                           {"ports", 32}, {"shared_by", 0}}}},
    };
    return levels;
}

std::vector<key_spec> tlb_config_keys()
{
    std::vector<key_spec> all;
    for (auto &l : tlb_levels()) {
        auto k = tlb_descriptor().keys(l.prefix, l.info);
        all.insert(all.end(), k.begin(), k.end());
    }
    return all;
}

bool tlb_level_enabled(const config &c, const std::string &prefix)
{
    return prefix == tlb_levels().front().prefix || tlb_descriptor().flag(c, prefix, "enabled");
}

static config_error checker_error(const std::string &prefix, const gmmu_error &err)
{
    return tlb_descriptor().checker_error(prefix, err.field, err.msg);
}

tlb_params tlb_params_from(const config &c, const std::string &prefix, unsigned level)
{
    // The keys' own rules: sets = 0 means uniform sets of `ways`; the SMs
    // sharing an instance divide sm.count (groups, if given, are checked
    // where the platform forms them). Geometry limits are the C checker's.
    const std::string k = prefix + ".";
    if (c.i(k + "sets") == 0 && c.i(k + "ways") <= c.i(k + "entries") &&
        c.i(k + "entries") % c.i(k + "ways") != 0)
        throw config_error("config key '" + k + "entries': " + std::to_string(c.i(k + "entries")) +
                           " is not a multiple of " + k + "ways (" + std::to_string(c.i(k + "ways")) +
                           ")");
    if (c.s(k + "groups").empty()) {
        const int64_t sb = c.i(k + "shared_by"), n = c.i("sm.count");
        if (sb > n || (sb > 0 && n % sb != 0))
            throw config_error("config key '" + k + "shared_by': " + std::to_string(sb) +
                               " SMs per instance must divide sm.count (" + std::to_string(n) + ")");
    }
    tlb_params p;
    tlb_descriptor().apply(c, prefix, p);
    p.model.seed = 0x5eed0000ull + level;
    p.level = level;
    p.clock = sc_core::sc_time(1e6 / double(c.i("clock_mhz")), sc_core::SC_PS);
    // The access time the TLB's size and ports give (fixed: lookup_cycles).
    p.base_lookup_cycles = p.model.lookup_cycles;
    p.model.lookup_cycles = gmmu_tlb_access_cycles(gmmu_tlb_latency_model(p.latency_model),
                                                   p.model.lookup_cycles, p.latency_step_cycles,
                                                   p.model.entries, p.ports);
    gmmu_error err{};
    if (p.mshr.mshrs > 0) {
        p.mshr.ports = p.ports;
        if (gmmu_tlb_mshr_config_check(&p.mshr, &err) != GMMU_OK)
            throw checker_error(prefix, err);
    } else {
        p.mshr = gmmu_tlb_mshr_config{}; // the simple timing model
    }
    if (gmmu_tlb_config_check(&p.model, &err) != GMMU_OK)
        throw checker_error(prefix, err);
    return p;
}

std::vector<std::unique_ptr<tlb>> build_tlb_level(const config &c, const std::string &prefix,
                                                  unsigned level, size_t instances)
{
    tlb_params tp = tlb_params_from(c, prefix, level);
    // The simple SM sends whole warps: the TLB splits them by page. The issue
    // SM sends one line per request and overlaps in its own model.
    // What the L1 needs to know of its SM comes from the SMs' specs
    // (sm_spec.h, sm_core_spec.h), not from their keys by name.
    if (level == 1) {
        const sm_config sm = sm_config_from(c);
        tp.overlap_cache_access = sm.overlap_cache_access && sm.model == "simple";
        if (sm.model == "issue") { // the SM attaches the sideband when its scheduler reads it
            const gmmu_sm_config sc = sm_core_config_from(c);
            tp.track_owners = sc.throttle == GMMU_THROTTLE_TCWS;
            tp.sched_sideband = gmmu_sm_needs_sideband(&sc);
        }
    }
    std::vector<std::unique_ptr<tlb>> inst;
    for (size_t k = 0; k < instances; k++) {
        const std::string nm = level == 1 || instances > 1 ? prefix + std::to_string(k) : prefix;
        tp.cu = unsigned(k);
        inst.push_back(std::make_unique<tlb>(nm.c_str(), tp));
    }
    return inst;
}

} // namespace gmmu
