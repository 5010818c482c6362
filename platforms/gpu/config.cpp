#include "gmmu/gpu/config.h"
#include "gmmu/gpu/tlb_config.h"
#include "gmmu/gpu/workload.h"
#include "gmmu/components/cache_spec.h"
#include "gmmu/components/ldt_spec.h"
#include "gmmu/components/memory_spec.h"

#include <sys/stat.h>

extern "C" {
#include "gmmu/cache.h"
#include "gmmu/tlb.h"
#include "gmmu/walk_sched.h"
}

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gmmu {

using nlohmann::json;

static key_spec I(const std::string &k, int64_t def, int64_t lo, int64_t hi, const std::string &doc,
                  bool pow2 = false)
{
    key_spec s{k, key_type::integer, def, lo, hi, pow2, {}, doc};
    return s;
}
static key_spec B(const std::string &k, bool def, const std::string &doc)
{
    return key_spec{k, key_type::boolean, def, 0, 0, false, {}, doc};
}
static key_spec S(const std::string &k, const std::string &def, std::vector<std::string> choices,
                  const std::string &doc)
{
    return key_spec{k, key_type::string, def, 0, 0, false, std::move(choices), doc};
}

static std::vector<key_spec> &extra_keys()
{
    static std::vector<key_spec> extra;
    return extra;
}

bool register_config_keys(const std::vector<key_spec> &keys)
{
    auto &e = extra_keys();
    e.insert(e.end(), keys.begin(), keys.end());
    return true;
}

key_spec key_int(const std::string &k, int64_t def, int64_t lo, int64_t hi, const std::string &doc,
                 bool pow2)
{
    return key_spec{k, key_type::integer, def, lo, hi, pow2, {}, doc};
}
key_spec key_bool(const std::string &k, bool def, const std::string &doc)
{
    return key_spec{k, key_type::boolean, def, 0, 0, false, {}, doc};
}
key_spec key_string(const std::string &k, const std::string &def, std::vector<std::string> choices,
                    const std::string &doc)
{
    return key_spec{k, key_type::string, def, 0, 0, false, std::move(choices), doc};
}

const std::vector<key_spec> &config_schema()
{
    static std::vector<key_spec> all;
    static size_t extras_seen = ~size_t(0);
    if (extras_seen == extra_keys().size())
        return all;
    static const std::vector<key_spec> schema = {
        S("name", "default", {}, "Name of the configuration (informational)."),
        I("clock_mhz", 1000, 1, 100000, "Clock of every component, MHz."),
        I("page_size", 4096, 4096, 1073741824,
          "Page size the driver maps with: 4096, 2097152 (2 MiB) or 1073741824 (1 GiB).", true),
        I("sim.quantum_ns", 1000, 1, 1000000000, "Global quantum for temporal decoupling, ns."),
        I("sm.count", 4, 1, 1024, "Number of SMs."),
        I("sm.warps", 32, 1, 64, "Warps per SM."),
        I("sm.issue_width", 1, 1, 8, "Warp memory instructions issued per SM cycle."),
        B("sm.compute_on_pipeline", false,
          "sm.model=simple: a warp's non-memory cycles occupy the SM's one issue pipeline (no "
          "other warp issues while they run). false: they delay only their warp, so all the "
          "warps of an SM compute at once (docs/pichai_mmu.md)."),
        S("sm.model", "simple", {},
          "SM model: simple = warps issuing the workload's memory instructions; other models "
          "register themselves (docs/architecture.md)."),
        B("sm.overlap_cache_access", false,
          "Intra-warp overlap: the lanes of each page of a warp access go to the L1 data cache as "
          "soon as that page is translated, while its other pages still walk (docs/pichai_mmu.md; "
          "sm.model=issue: each 128-B line of an instruction when its own translation is done). "
          "false: every lane waits for the warp's (instruction's) last translation."),
        I("ptw.walkers", 1, 1, GMMU_WS_MAX_WALKERS, "Independent page-table walkers (serial scheduler)."),
        B("ptw.per_tlb", false,
          "One walker unit per last-level TLB instance (e.g. per SM, as in pichai14) instead of "
          "one shared by all."),
        S("ptw.via", "memory", {"memory", "l2_cache", "l1_cache"},
          "Where the walker's page-table reads go: straight to memory, or as cacheable reads "
          "through the shared L2 data cache (l2_cache.enabled) or through the L1 data cache of "
          "the walker's SM (l1_cache.enabled, one walker per L1 TLB: ptw.per_tlb=true, no L2 "
          "TLB). Cached, they compete with data for capacity (data_cache pte_* counters)."),
        I("ptw.fixed_walk_latency", 0, 0, 1000000,
          "If > 0, every walk takes this many cycles instead of the sum of its reads."),
        B("ptw.set_accessed_dirty", false,
          "Walker writes A/D bits back to the PTEs."),
        S("ptw.scheduler", "serial", {"serial", "tree", "pairwise"},
          "Walk scheduling: serial = ptw.walkers naive walkers; tree = comparator-tree "
          "scheduler coalescing a batch's walks; pairwise = all-pairs comparators."),
        I("ptw.mshrs", 32, 1, 64, "Walk-scheduler MSHRs (tree, pairwise): walks in flight at once, shared by every batch."),
        I("ptw.scan_pass_cycles", 1, 1, 16, "Cycles of one comparator pass (tree, pairwise)."),
        S("ptw.scheduler_impl", "c", {"c", "rtl"},
          "Walk-scheduler implementation (tree, pairwise): the C model, or its Verilated RTL twin "
          "rtl/walk_sched.sv (geometries built in platforms/rtl/CMakeLists.txt; docs/rtl_walk_sched.md)."),
        S("ptw.pwc", "none", {"none", "tpc", "stc", "uptc", "cpwc"},
          "Page-walk cache in the walker (docs/pwc.md)."),
        S("rtl.fst", "", {},
          "Write an FST waveform of the Verilated blocks inside the walker (ptw.pwc_impl=rtl, "
          "ptw.scheduler_impl=rtl or ptw.cosim=true) to this file; with both blocks the "
          "scheduler's goes to the same name with .sched before the extension. Empty: none."),
        I("rtl.mismatch_cycles", 64, 0, 1 << 20,
          "With ptw.cosim=true: a second RTL twin of each block runs this many cycles behind, so a "
          "lock-step mismatch writes the mismatching block's last this-many cycles, up to and "
          "including the mismatch, to rtl.mismatch_fst and the error names the file. 0: no "
          "second twin, no file."),
        S("rtl.mismatch_fst", "mismatch.fst", {},
          "Where a lock-step mismatch's waveform goes (rtl.mismatch_cycles); a relative path is "
          "taken from gmmu-sim's --out folder (other programs: the working directory)."),
        S("ptw.pwc_impl", "c", {"c", "rtl"},
          "Page-walk cache implementation: the C model, or its Verilated RTL twin (TPC and CPWC "
          "geometries built in platforms/rtl/CMakeLists.txt)."),
        B("ptw.cosim", false,
          "Step the C models and the RTL twins of the page-walk cache (tpc, cpwc) and of the "
          "walk scheduler (tree, pairwise) in lock-step; stop at the first output mismatch with "
          "a field-by-field diff."),
        I("ptw.pwc_bits", 0, 0, 1 << 24,
          "If > 0, size ptw.pwc to the largest geometry that fits this many bits; 0 = the kind's "
          "default geometry."),
        I("ptw.line_cache.lines", 0, 0, 1 << 20,
          "Page-table-line cache in the walker, 128-byte lines; 0 = none."),
        I("ptw.line_cache.ways", 4, 1, 1 << 20, "Page-table-line cache ways."),
        I("ptw.line_cache.hit_cycles", 1, 1, 100000, "Page-table-line cache hit latency, cycles."),
        I("ptw.line_cache.miss_cycles", 1, 0, 100000,
          "Page-table-line cache lookup cost added to a miss, cycles."),
        B("mmu.bypass", false,
          "No translation: SMs talk to memory directly with PA = VA (the no-MMU twin)."),
        I("contexts", 1, 1, 32,
          "Address spaces: SM i runs in context i mod contexts (ASID = context), each with its "
          "own page tables and frames; the workload is mapped at the same VAs in every context "
          "and each context's data is checked on its own."),
        I("migrate.interval_cycles", 0, 0, 1000000000,
          "Every this many cycles the driver migrates one mapped page (of a random context) to a "
          "new frame while the workload runs: not present, TLB invalidation and CMD_SYNC through "
          "an SMMU command queue, copy, remap; 0 = no migration (docs/smmu.md)."),
        I("migrate.copy_cycles", 256, 1, 100000000,
          "Cycles one page copy keeps the page not present (accesses to it stall and replay)."),
        I("migrate.seed", 1, 1, 1ll << 62, "Seed of the choice of the pages to migrate."),
        B("migrate.invalidate", true,
          "Invalidate the TLBs (TLBI + CMD_SYNC) before copying; false shows what a driver that "
          "skips it loses (the data check fails)."),
        S("workload.kind", "", {}, "Workload name (set by --workload)."),
        I("workload.region_bytes", 64ll << 20, 4096, 1ll << 45,
          "random-sample/stream: size of the mapped region, bytes; hash-group: size of the "
          "hash table."),
        I("workload.accesses", 64, 1, 1ll << 32,
          "random-sample: warp accesses per warp per phase (write phase, then read-back phase); "
          "hash-group: input loads (32 values) per warp."),
        I("workload.passes", 1, 1, 1 << 20, "stream: read passes after the write pass."),
        I("workload.tlb_scope", 0, 0, 1ll << 45,
          "random-sample, hash-group: TLB-conscious passes over scopes of this many bytes "
          "(0 = off)."),
        I("workload.base_va", 0x7f0000000000ll, 0, 0x7fffffffffffll,
          "Virtual base address of the workload's region."),
        S("workload.path", "", {}, "trace: path of the trace file."),
        I("workload.active_lanes", 32, 1, 32, "Active lanes per warp access."),
        S("workload.map", "region", {"region", "touched"},
          "random-sample: which pages the driver maps before the run: the whole region, or only "
          "the pages the samples touch (page tables and frames for those pages only, so a "
          "region of many TiB costs memory for what it samples; no contiguity hints)."),
    };
    all = schema;
    // Components with a spec: their rows where the flat rows were.
    auto splice = [](std::vector<key_spec> &v, const std::string &after, std::vector<key_spec> rows) {
        auto at = std::find_if(v.begin(), v.end(), [&](const key_spec &k) { return k.key == after; });
        v.insert(at + 1, rows.begin(), rows.end());
    };
    splice(all, "ptw.line_cache.miss_cycles", ldt_config_keys());
    splice(all, "picle.probe_cycles", cache_config_keys("l1_cache"));
    splice(all, "l1_cache.index_cycles", cache_config_keys("l2_cache"));
    splice(all, "l2_cache.hit_cycles", memory_config_keys());
    for (auto &k : tlb_config_keys())
        all.push_back(k);
    for (auto &k : extra_keys())
        all.push_back(k);
    std::stable_sort(all.begin(), all.end(), [](const key_spec &a, const key_spec &b) {
        auto top = [](const std::string &k) { return k.substr(0, k.find('.')); };
        static const std::vector<std::string> order = {"name", "clock_mhz", "page_size", "sim",
                                                       "sm", "l1_tlb", "l2_tlb", "l3_tlb",
                                                       "ptw", "memory", "mmu", "workload"};
        auto rank = [&](const std::string &k) {
            auto it = std::find(order.begin(), order.end(), top(k));
            return it - order.begin();
        };
        return rank(a.key) < rank(b.key);
    });
    extras_seen = extra_keys().size();
    return all;
}

static const key_spec *spec_of(const std::string &key)
{
    for (auto &s : config_schema())
        if (s.key == key)
            return &s;
    return nullptr;
}

static std::vector<std::string> split(const std::string &key)
{
    std::vector<std::string> parts;
    std::stringstream ss(key);
    std::string p;
    while (std::getline(ss, p, '.'))
        parts.push_back(p);
    return parts;
}

std::string config_dir()
{
    if (const char *e = std::getenv("GMMU_CONFIG_DIR"))
        return e;
    return GMMU_CONFIG_DIR;
}

const json *config::find(const std::string &key) const
{
    const json *n = &j;
    for (auto &p : split(key)) {
        if (!n->is_object() || !n->contains(p))
            return nullptr;
        n = &(*n)[p];
    }
    return n;
}

bool config::has(const std::string &key) const { return find(key) != nullptr; }

static const json &must(const json *n, const std::string &key)
{
    if (!n)
        throw config_error("config key '" + key + "' is not set");
    return *n;
}

int64_t config::i(const std::string &key) const { return must(find(key), key).get<int64_t>(); }
bool config::b(const std::string &key) const { return must(find(key), key).get<bool>(); }
double config::d(const std::string &key) const { return must(find(key), key).get<double>(); }
std::string config::s(const std::string &key) const
{
    return must(find(key), key).get<std::string>();
}

config config::defaults()
{
    config c;
    for (auto &s : config_schema()) {
        json *n = &c.j;
        for (auto &p : split(s.key))
            n = &(*n)[p];
        *n = s.def;
    }
    return c;
}

static std::string type_name(key_type t)
{
    switch (t) {
    case key_type::integer: return "integer";
    case key_type::boolean: return "boolean";
    case key_type::string: return "string";
    case key_type::number: return "number";
    }
    return "?";
}

static void check_value(const key_spec &s, const json &v)
{
    switch (s.type) {
    case key_type::integer: {
        const std::string range = std::to_string(s.min) + ".." + std::to_string(s.max);
        // A whole number too large for 64 bits (JSON 1e30, or
        // 100000000000000000000, which the parser keeps as a double): out of
        // range, not of the wrong type.
        if (v.is_number_float() && std::isfinite(v.get<double>()) &&
            std::fabs(v.get<double>()) >= 0x1p63 && std::floor(v.get<double>()) == v.get<double>())
            throw config_error("config key '" + s.key + "': " + v.dump() + " out of range " + range);
        if (!v.is_number_integer())
            throw config_error("config key '" + s.key + "': expected an integer, got " +
                               v.dump());
        // Above INT64_MAX (up to 2^64-1): named as given, never as 2^63-1.
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
            throw config_error("config key '" + s.key + "': " + v.dump() + " out of range " + range);
        const int64_t x = v.get<int64_t>();
        if (x < s.min || x > s.max)
            throw config_error("config key '" + s.key + "': " + std::to_string(x) +
                               " out of range " + range);
        if (s.pow2 && (x & (x - 1)) != 0)
            throw config_error("config key '" + s.key + "': " + std::to_string(x) +
                               " is not a power of two");
        break;
    }
    case key_type::boolean:
        if (!v.is_boolean())
            throw config_error("config key '" + s.key + "': expected true or false, got " +
                               v.dump());
        break;
    case key_type::number:
        if (!v.is_number())
            throw config_error("config key '" + s.key + "': expected a number, got " + v.dump());
        break;
    case key_type::string: {
        if (!v.is_string())
            throw config_error("config key '" + s.key + "': expected a string, got " + v.dump());
        if (!s.choices.empty()) {
            std::string x = v.get<std::string>();
            bool ok = false;
            std::string all;
            for (auto &c : s.choices) {
                ok |= c == x;
                all += (all.empty() ? "" : "|") + c;
            }
            if (!ok)
                throw config_error("config key '" + s.key + "': '" + x + "' is not one of " +
                                   all);
        }
        break;
    }
    }
}

// Walk a loaded JSON tree: every leaf must be a known key of the right type.
// Whether some key of the schema lies under `group` (e.g. "l1_tlb").
static bool is_group(const std::string &group)
{
    const std::string pre = group + ".";
    for (auto &s : config_schema())
        if (s.key.compare(0, pre.size(), pre) == 0)
            return true;
    return false;
}

static void check_tree(const json &n, const std::string &prefix)
{
    for (auto it = n.begin(); it != n.end(); ++it) {
        std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
        const key_spec *s = spec_of(key);
        if (it->is_object()) {
            if (s)
                throw config_error("config key '" + key + "': expected " +
                                   (s->type == key_type::integer   ? "an integer"
                                    : s->type == key_type::boolean ? "true or false"
                                    : s->type == key_type::number  ? "a number"
                                                                   : "a string") +
                                   ", got an object");
            if (!is_group(key))
                throw config_error("unknown config key '" + key + "'");
            check_tree(*it, key);
            continue;
        }
        if (!s) {
            if (is_group(key))
                throw config_error("config key '" + key + "' is a group of keys (" + key +
                                   ".*): expected an object, got " + it->type_name());
            throw config_error("unknown config key '" + key + "'");
        }
        check_value(*s, *it);
    }
}

static void merge(json &dst, const json &src)
{
    for (auto it = src.begin(); it != src.end(); ++it) {
        if (it->is_object() && dst.contains(it.key()) && dst[it.key()].is_object())
            merge(dst[it.key()], *it);
        else
            dst[it.key()] = *it;
    }
}

// Well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates,
// nothing above U+10FFFF), as the JSON writer requires of every string.
static bool valid_utf8(const std::string &s)
{
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
        const unsigned char c = (unsigned char)s[i];
        unsigned len = 0;
        unsigned char lo = 0x80, hi = 0xBF; // range of the second byte
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        const unsigned char c1 = (unsigned char)s[i + 1];
        if (c1 < lo || c1 > hi)
            return false;
        for (unsigned k = 2; k < len; k++) {
            const unsigned char ck = (unsigned char)s[i + k];
            if (ck < 0x80 || ck > 0xBF)
                return false;
        }
        i += len;
    }
    return true;
}

void config::set(const std::string &key, const std::string &value)
{
    const key_spec *s = spec_of(key);
    if (!s)
        throw config_error("unknown config key '" + key + "'");
    // A NUL would end the value for the number parsers and a byte sequence
    // that is not UTF-8 could not be written to config.json: refuse both
    // before anything runs.
    if (value.find('\0') != std::string::npos)
        throw config_error("config key '" + key + "': the value contains a NUL byte");
    if (!valid_utf8(value))
        throw config_error("config key '" + key + "': the value is not valid UTF-8");
    json v;
    switch (s->type) {
    case key_type::integer: {
        // Decimal, or hexadecimal with 0x; a leading 0 is never octal.
        errno = 0;
        char *end = nullptr;
        const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
        const bool neg_hex = value.size() > 3 && value[0] == '-' && value[1] == '0' &&
                             (value[2] == 'x' || value[2] == 'X');
        long long x = std::strtoll(value.c_str(), &end, hex || neg_hex ? 16 : 10);
        if (value.empty() || *end != '\0' || std::isspace((unsigned char)value[0]))
            throw config_error("config key '" + key + "': expected a decimal integer (or 0x hex), got '" +
                               value + "'");
        // An integer, too large for 64 bits: out of the key's range.
        if (errno == ERANGE)
            throw config_error("config key '" + key + "': " + value + " out of range " +
                               std::to_string(s->min) + ".." + std::to_string(s->max));
        v = (int64_t)x;
        break;
    }
    case key_type::boolean:
        if (value == "true" || value == "1")
            v = true;
        else if (value == "false" || value == "0")
            v = false;
        else
            throw config_error("config key '" + key + "': expected true or false, got '" +
                               value + "'");
        break;
    case key_type::number: {
        char *end = nullptr;
        double x = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0')
            throw config_error("config key '" + key + "': expected a number, got '" + value +
                               "'");
        v = x;
        break;
    }
    case key_type::string:
        v = value;
        break;
    }
    check_value(*s, v);
    json *n = &j;
    for (auto &p : split(key))
        n = &(*n)[p];
    *n = v;
}

void config::validate() const
{
    check_tree(j, "");
    // Cross-key rules.
    for (const tlb_level &lvl : tlb_levels()) {
        const std::string &k = lvl.prefix;
        if (spec_of(k + ".enabled") && !b(k + ".enabled"))
            continue;
        if (i(k + ".sets") == 0 && i(k + ".entries") % i(k + ".ways") != 0)
            throw config_error("config key '" + k + ".entries': " + std::to_string(i(k + ".entries")) +
                               " is not a multiple of " + k + ".ways (" +
                               std::to_string(i(k + ".ways")) + ")");
        if (s(k + ".groups").empty()) {
            const int64_t sb = i(k + ".shared_by"), n = i("sm.count");
            if (sb > n || (sb > 0 && n % sb != 0))
                throw config_error("config key '" + k + ".shared_by': " + std::to_string(sb) +
                                   " SMs per instance must divide sm.count (" + std::to_string(n) + ")");
        }
        if (i(k + ".ways") > i(k + ".entries"))
            throw config_error("config key '" + k + ".ways': " + std::to_string(i(k + ".ways")) +
                               " exceeds " + k + ".entries (" + std::to_string(i(k + ".entries")) +
                               ")");
        if (i(k + ".sets") > 0 && (i(k + ".sets") - 1) * i(k + ".ways") >= i(k + ".entries"))
            throw config_error("config key '" + k + ".sets': " + std::to_string(i(k + ".sets")) +
                               " sets of " + std::to_string(i(k + ".ways")) +
                               " ways need more than " + k + ".entries");
    }
    if (b("picle.enabled") && !b("l2_tlb.enabled"))
        throw config_error("config key 'picle.enabled': PICLE needs a shared L2 TLB (l2_tlb.enabled)");
    // Keys that would have no effect are refused, not ignored: with no MMU
    // there is no walker, so none of its RTL twins.
    if (b("mmu.bypass"))
        for (const char *k : {"ptw.scheduler_impl", "ptw.pwc_impl", "ptw.cosim", "rtl.fst",
                              "rtl.mismatch_cycles", "rtl.mismatch_fst"})
            if (*find(k) != spec_of(k)->def)
                throw config_error(std::string("config key '") + k + "': " + find(k)->dump() +
                                   " has no effect with mmu.bypass=true (no walker, no RTL)");
    for (const char *k : {"contexts", "migrate.interval_cycles"}) {
        const bool on = std::string(k) == "contexts" ? i(k) > 1 : i(k) > 0;
        if (on && b("mmu.bypass"))
            throw config_error(std::string("config key '") + k + "': needs translation (mmu.bypass=false)");
        if (on && s("sm.model") != "simple")
            throw config_error(std::string("config key '") + k + "': supported with sm.model=simple only");
    }
    if (b("sm.compute_on_pipeline") && s("sm.model") != "simple")
        throw config_error("config key 'sm.compute_on_pipeline': supported with sm.model=simple only "
                           "(the issue SM issues its non-memory instructions itself)");
    if (i("sm.issue_cycles") > 1 && s("sm.model") == "simple")
        throw config_error("config key 'sm.issue_cycles': supported with sm.model=issue only "
                           "(the simple SM's non-memory work: sm.compute_on_pipeline)");
    if (b("picle.enabled"))
        ldt_params_from(*this, 1); // the LDT's own checker (the CU count is checked when built)
    if (s("l1_cache.indexing") == "vipt" && b("l1_cache.enabled")) {
        gmmu_cache_config cc;
        gmmu_cache_config_default(&cc);
        cc.bytes = uint64_t(i("l1_cache.bytes"));
        cc.ways = uint32_t(i("l1_cache.ways"));
        cc.vipt = true;
        gmmu_error err{};
        if (gmmu_cache_vipt_check(&cc, gmmu_log2_u64(uint64_t(i("page_size"))), &err) != GMMU_OK)
            throw config_error("config key 'l1_cache.indexing': vipt needs l1_cache.bytes / "
                               "l1_cache.ways <= page_size (" + std::to_string(i("page_size")) +
                               "): " + err.msg + "; raise l1_cache.ways or use pipt");
    }
    // Each data cache's geometry and latencies: the C model's own checker.
    if (b("l1_cache.enabled"))
        cache_config_from(*this, "l1_cache", false);
    if (b("l2_cache.enabled"))
        cache_config_from(*this, "l2_cache", true);
    if (s("ptw.via") == "l2_cache" && !b("l2_cache.enabled"))
        throw config_error("config key 'ptw.via': l2_cache needs l2_cache.enabled=true");
    if (s("ptw.via") == "l1_cache" &&
        (!b("l1_cache.enabled") || !b("ptw.per_tlb") || b("l2_tlb.enabled")))
        throw config_error("config key 'ptw.via': l1_cache needs l1_cache.enabled=true and one "
                           "walker per L1 TLB (ptw.per_tlb=true, l2_tlb.enabled=false)");
    if (b("l3_tlb.enabled") && !b("l2_tlb.enabled"))
        throw config_error("config key 'l3_tlb.enabled': an L3 TLB needs l2_tlb.enabled");
    {
        // The walker limit is the walk scheduler's own rule (one place).
        const std::string sched = s("ptw.scheduler");
        const gmmu_ws_variant v = sched == "tree"       ? GMMU_WS_TREE
                                  : sched == "pairwise" ? GMMU_WS_PAIRWISE
                                                        : GMMU_WS_SERIAL;
        gmmu_error err{};
        if (gmmu_ws_walkers_check(v, static_cast<uint32_t>(i("ptw.walkers")), &err) != GMMU_OK)
            throw config_error("config key 'ptw.walkers': " + std::string(err.msg));
    }
    if (i("ptw.line_cache.lines") > 0 && i("ptw.line_cache.ways") > i("ptw.line_cache.lines"))
        throw config_error("config key 'ptw.line_cache.ways': exceeds ptw.line_cache.lines");
    int64_t ps = i("page_size");
    if (ps != 4096 && ps != (1 << 21) && ps != (1 << 30))
        throw config_error("config key 'page_size': " + std::to_string(ps) +
                           " is not 4096, 2097152 or 1073741824");
    if (i("workload.base_va") % ps != 0)
        throw config_error("config key 'workload.base_va': not aligned to page_size");
    // The driver maps a workload's whole region before the run, or with
    // workload.map=touched at most one page per sample.
    constexpr int64_t max_pages = int64_t(1) << 24;
    if (s("workload.map") == "region" && i("workload.region_bytes") / ps > max_pages)
        throw config_error("config key 'workload.region_bytes': " +
                           std::to_string(i("workload.region_bytes")) + " bytes are more than " +
                           std::to_string(max_pages) + " pages of page_size (" + std::to_string(ps) +
                           "), which the driver maps before the run; use a larger page_size, or "
                           "workload.map=touched");
    if (s("workload.map") == "touched") {
        // Each sample on a page of its own costs a frame that the write phase
        // fills and about one page-table page: 8.7 KiB of host memory per
        // sample, measured (262,144 samples over a 32 TiB region: 2.29 GB
        // peak RSS), so touched_max_samples (2^20, about 9 GiB) run on a
        // 24 GiB machine. Saturating: each factor is at most 2^32.
        const double samples = double(i("sm.count")) * double(i("sm.warps")) *
                               double(i("workload.accesses")) * double(i("workload.active_lanes"));
        if (samples > double(touched_max_samples))
            throw config_error(
                "config key 'workload.accesses': workload.map=touched costs about 9 KiB of host "
                "memory per sample, and sm.count x sm.warps x workload.accesses x "
                "workload.active_lanes = " + std::to_string(uint64_t(samples)) +
                " samples are more than " + std::to_string(touched_max_samples) + " (about 9 GiB)");
    }
    // tlb-probe maps workload.probe_distance_max bytes from workload.base_va.
    if (spec_of("workload.probe_distance_max")) {
        const int64_t dmax = i("workload.probe_distance_max");
        if (dmax / ps > max_pages || uint64_t(i("workload.base_va")) + uint64_t(dmax) > (1ull << 47))
            throw config_error("config key 'workload.probe_distance_max': tlb-probe maps " +
                               std::to_string(dmax) + " bytes from workload.base_va, more than " +
                               std::to_string(max_pages) + " pages of page_size or past 2^47");
    }
    if (uint64_t(i("workload.base_va")) + uint64_t(i("workload.region_bytes")) > (1ull << 47))
        throw config_error("config key 'workload.region_bytes': the region ends above the "
                           "canonical 48-bit user half (workload.base_va + workload.region_bytes > "
                           "2^47)");
}

static size_t line_of(const std::string &text, size_t byte)
{
    size_t line = 1;
    for (size_t k = 0; k < byte && k < text.size(); k++)
        line += text[k] == '\n';
    return line;
}

config config::load(const std::string &name_or_path, const std::vector<std::string> &sets)
{
    std::string path = name_or_path;
    bool is_path = name_or_path.find('/') != std::string::npos ||
                   (name_or_path.size() > 5 &&
                    name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
    if (!is_path)
        path = config_dir() + "/" + name_or_path + ".json";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (!is_path)
            throw config_error("unknown config '" + name_or_path + "' (no " + path + ")");
        throw config_error(path + ": cannot read config file: " + std::strerror(errno));
    }
    // Only a regular file: never block on a FIFO or read a device or a folder.
    if (!S_ISREG(st.st_mode))
        throw config_error(path + ": not a regular file");
    if (st.st_size > (16 << 20))
        throw config_error(path + ": larger than 16 MiB; not a config");
    std::ifstream in(path);
    if (!in)
        throw config_error(path + ": cannot read config file");
    std::stringstream buf;
    buf << in.rdbuf();
    if (in.bad())
        throw config_error(path + ":1: empty or unreadable config file");
    return from_text(buf.str(), path, sets);
}

// The deepest nesting a config file may have. The deepest key is three
// levels (ptw.line_cache.lines); the limit leaves room for objects where a
// value belongs, which check_tree names, and stops a file of a million '['
// before the parser builds (and check_tree recurses through) the tree.
constexpr unsigned max_config_depth = 64;

// Refuse a file nested deeper than max_config_depth: one pass over the text,
// constant memory, before any JSON is parsed.
static void check_depth(const std::string &text, const std::string &path)
{
    unsigned depth = 0;
    bool in_string = false, escaped = false;
    for (size_t k = 0; k < text.size(); k++) {
        const char ch = text[k];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"') {
            in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (++depth > max_config_depth)
                throw config_error(path + ":" + std::to_string(line_of(text, k)) +
                                   ": JSON nested deeper than " + std::to_string(max_config_depth) +
                                   " levels (the deepest config key has 3)");
        } else if ((ch == '}' || ch == ']') && depth > 0) {
            depth--;
        }
    }
}

// Dotted keys in a file mean what they mean to --set: {"sm.count": 2} is
// {"sm": {"count": 2}}, at any level ({"ptw": {"line_cache.lines": 8}}).
// Every leaf (a value, or an empty object) is collected under its full
// dotted key, then the tree is built again; one key given twice (nested and
// dotted) is an error naming it. Memory: the leaves' keys, at most
// max_config_depth parts each.
static void collect_leaves(const json &n, const std::string &prefix,
                           std::vector<std::pair<std::string, const json *>> &leaves)
{
    for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string &k = it.key();
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (k.empty() || k.front() == '.' || k.back() == '.' || k.find("..") != std::string::npos)
            throw config_error("unknown config key '" + key + "'");
        if (it->is_object() && !it->empty())
            collect_leaves(*it, key, leaves);
        else
            leaves.push_back({key, &*it});
    }
}

static json undot(const json &file)
{
    std::vector<std::pair<std::string, const json *>> leaves;
    collect_leaves(file, "", leaves);
    const auto group_error = [](const std::string &key, const json &v) {
        return config_error("config key '" + key + "' is a group of keys (" + key +
                            ".*): expected an object, got " + v.type_name());
    };
    json out = json::object();
    for (const auto &[key, v] : leaves) {
        const std::vector<std::string> parts = split(key);
        json *n = &out;
        std::string at;
        for (size_t p = 0; p + 1 < parts.size(); p++) {
            at = at.empty() ? parts[p] : at + "." + parts[p];
            if (n->contains(parts[p]) && !(*n)[parts[p]].is_object())
                throw group_error(at, (*n)[parts[p]]);
            n = &(*n)[parts[p]];
        }
        if (n->contains(parts.back())) {
            const json &old = (*n)[parts.back()];
            if (old.is_object() && v->is_object())
                continue; // an empty group given twice
            if (old.is_object() && !old.empty())
                throw group_error(key, *v);
            throw config_error("config key '" + key + "' is given twice (once nested, once dotted)");
        }
        (*n)[parts.back()] = *v;
    }
    return out;
}

config config::from_text(const std::string &text, const std::string &path,
                         const std::vector<std::string> &sets)
{
    if (text.empty())
        throw config_error(path + ":1: empty or unreadable config file");
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        throw config_error(path + ":1: starts with a UTF-8 byte-order mark; save it without one");
    check_depth(text, path);
    json file;
    // Duplicate keys are an error (JSON parsers differ on which one wins).
    std::vector<std::pair<std::string, std::vector<std::string>>> scopes; // (dotted path, keys seen)
    std::string last_key, duplicate;
    auto cb = [&](int, json::parse_event_t ev, json &parsed) {
        switch (ev) {
        case json::parse_event_t::object_start: {
            std::string at = scopes.empty() ? "" : scopes.back().first;
            if (!scopes.empty() && !last_key.empty())
                at = at.empty() ? last_key : at + "." + last_key;
            scopes.push_back({at, {}});
            break;
        }
        case json::parse_event_t::key: {
            last_key = parsed.get<std::string>();
            auto &seen = scopes.back().second;
            if (duplicate.empty() && std::find(seen.begin(), seen.end(), last_key) != seen.end())
                duplicate = scopes.back().first.empty() ? last_key
                                                        : scopes.back().first + "." + last_key;
            seen.push_back(last_key);
            break;
        }
        case json::parse_event_t::object_end:
            scopes.pop_back();
            break;
        default:
            break;
        }
        return true;
    };
    try {
        file = json::parse(text, cb);
        if (!duplicate.empty())
            throw config_error(path + ": config key '" + duplicate + "' appears twice");
    } catch (const json::parse_error &e) {
        throw config_error(path + ":" + std::to_string(line_of(text, e.byte ? e.byte - 1 : 0)) +
                           ": invalid JSON: " + e.what());
    } catch (const json::exception &e) {
        // e.g. out_of_range 406, a number too large for a double: the
        // message quotes the number; its first occurrence gives the line.
        const std::string what = e.what();
        size_t at = 0;
        const size_t q1 = what.find('\''), q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
        if (q2 != std::string::npos) {
            const size_t found = text.find(what.substr(q1 + 1, q2 - q1 - 1));
            if (found != std::string::npos)
                at = found;
        }
        throw config_error(path + ":" + std::to_string(line_of(text, at)) + ": invalid JSON: " + what);
    }
    if (!file.is_object())
        throw config_error(path + ":1: config must be a JSON object");
    try {
        file = undot(file);
        check_tree(file, "");
    } catch (const config_error &e) {
        throw config_error(path + ": " + e.what());
    }
    config c = defaults();
    merge(c.j, file);
    for (auto &kv : sets) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw config_error("--set '" + kv + "': expected key=value");
        c.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    c.validate();
    return c;
}

std::string config::schema_markdown()
{
    std::ostringstream o;
    o << "| key | type | range / values | default | meaning |\n|---|---|---|---|---|\n";
    for (auto &s : config_schema()) {
        std::string range;
        if (s.type == key_type::integer)
            range = std::to_string(s.min) + ".." + std::to_string(s.max) +
                    (s.pow2 ? ", power of two" : "");
        else if (s.type == key_type::boolean)
            range = "true, false";
        else if (!s.choices.empty()) {
            for (auto &c : s.choices)
                range += (range.empty() ? "" : ", ") + c;
        } else
            range = "any";
        o << "| `" << s.key << "` | " << type_name(s.type) << " | " << range << " | `"
          << s.def.dump() << "` | " << s.doc << " |\n";
    }
    return o.str();
}

} // namespace gmmu
