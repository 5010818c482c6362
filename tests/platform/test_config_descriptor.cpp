// The TLB levels' keys come from one descriptor (components/descriptor.h,
// components/tlb_config.cpp): same keys and ranges at every level, C checker
// verdicts named by real keys, enum text checked by the descriptor. The
// component specs (issue 42; components/*_spec.h) cover their groups' keys,
// and every field a C checker can name maps to a key that exists.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "gmmu/components/cache_spec.h"
#include "gmmu/components/fault_handler_spec.h"
#include "gmmu/components/ldt_spec.h"
#include "gmmu/components/memory_spec.h"
#include "gmmu/components/ptw_spec.h"
#include "gmmu/components/sm_core_spec.h"
#include "gmmu/components/sm_spec.h"
#include "gmmu/components/smmu_spec.h"
#include "gmmu/gpu/driver_spec.h"
#include "gmmu/gpu/platform_spec.h"
#include "gmmu/gpu/workload_spec.h"
#include "sim_run.h"
#include "gmmu/components/config.h"
#include "gmmu/components/tlb_config.h"

namespace {

const gmmu::key_spec *schema_key(const std::string &key)
{
    for (auto &s : gmmu::config_schema())
        if (s.key == key)
            return &s;
    return nullptr;
}

std::string error_of(const std::vector<std::string> &sets, const std::string &prefix, unsigned level)
{
    try {
        gmmu::config c = gmmu::config::load("default", sets);
        gmmu::tlb_params_from(c, prefix, level);
    } catch (const gmmu::config_error &e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(ConfigDescriptorTest, EveryTlbLevelHasTheDescriptorsKeysWithOneRange)
{
    std::map<std::string, std::set<std::string>> suffixes;
    for (auto &s : gmmu::config_schema()) {
        const auto dot = s.key.find('.');
        const std::string top = s.key.substr(0, dot);
        if (top == "l1_tlb" || top == "l2_tlb" || top == "l3_tlb")
            suffixes[top].insert(s.key.substr(dot + 1));
    }
    const auto &d = gmmu::tlb_descriptor();
    for (auto &lvl : gmmu::tlb_levels()) {
        std::set<std::string> want;
        for (auto &f : d.fields())
            if (f.only.empty() || std::find(f.only.begin(), f.only.end(), lvl.prefix) != f.only.end())
                want.insert(f.spec.key);
        EXPECT_EQ(suffixes[lvl.prefix], want) << lvl.prefix;
        for (auto &f : d.fields()) {
            const gmmu::key_spec *s = schema_key(lvl.prefix + "." + f.spec.key);
            if (!s)
                continue;
            EXPECT_EQ(s->min, f.spec.min) << s->key;
            EXPECT_EQ(s->max, f.spec.max) << s->key;
            EXPECT_EQ(s->choices, f.spec.choices) << s->key;
            EXPECT_EQ(s->doc.find('{'), std::string::npos) << s->key << ": " << s->doc;
        }
    }
    // Per-level defaults differ where the machines differ.
    EXPECT_EQ(schema_key("l1_tlb.entries")->def, 32);
    EXPECT_EQ(schema_key("l2_tlb.entries")->def, 512);
    EXPECT_EQ(schema_key("l3_tlb.lookup_cycles")->def, 20);
    EXPECT_EQ(schema_key("l2_tlb.mshrs"), nullptr) << "the MSHR model is wired at the L1 only";
}

TEST(ConfigDescriptorTest, CheckerFieldsMapToKeysThatExist)
{
    const auto &d = gmmu::tlb_descriptor();
    // Every field name the C checkers (gmmu_tlb_config_check,
    // gmmu_tlb_mshr_config_check) report for a member a key sets.
    for (const char *f : {"entries", "ways", "sets", "index", "lookup_cycles", "replacement",
                          "page_shift", "coverage_shift", "fill_pages", "ports"})
        for (auto &lvl : gmmu::tlb_levels()) {
            const std::string k = d.key_of(lvl.prefix, f);
            ASSERT_FALSE(k.empty()) << lvl.prefix << " " << f;
            EXPECT_NE(schema_key(k), nullptr) << k;
        }
    EXPECT_EQ(d.key_of("l1_tlb", "max_outstanding"), "l1_tlb.max_misses");
    EXPECT_EQ(d.key_of("l1_tlb", "page_shift"), "l1_tlb.page_bytes");
    EXPECT_EQ(d.key_of("l2_tlb", "max_outstanding"), "") << "no such key at the L2";
    EXPECT_EQ(d.key_of("l1_tlb", "targets"), "") << "no key sets the MSHR's targets";
}

TEST(ConfigDescriptorTest, ModelVerdictsNameTheKeyThatSetsTheField)
{
    // PLRU needs a power-of-two number of ways: the C model's verdict.
    const std::string plru = error_of({"l2_tlb.entries=48", "l2_tlb.ways=3", "l2_tlb.replacement=plru"},
                                      "l2_tlb", 2);
    EXPECT_NE(plru.find("config key 'l2_tlb.replacement'"), std::string::npos) << plru;
    const std::string mshr = error_of({"l1_tlb.mshrs=1", "l1_tlb.max_misses=4096"}, "l1_tlb", 1);
    EXPECT_NE(mshr.find("config key 'l1_tlb.max_misses'"), std::string::npos) << mshr;
    const std::string small = error_of({"l3_tlb.enabled=true", "l3_tlb.page_bytes=2048"}, "l3_tlb", 3);
    EXPECT_NE(small.find("config key 'l3_tlb.page_bytes'"), std::string::npos) << small;
}

TEST(ConfigDescriptorTest, EnumTextIsCheckedByTheDescriptor)
{
    const auto &d = gmmu::tlb_descriptor();
    EXPECT_EQ(d.enum_value("replacement", "fifo", "l1_tlb.replacement"), int(GMMU_TLB_REPL_FIFO));
    EXPECT_EQ(d.enum_value("index", "residue", "l2_tlb.index"), int(GMMU_TLB_INDEX_RESIDUE));
    try {
        d.enum_value("replacement", "lfu", "l3_tlb.replacement");
        ADD_FAILURE() << "unknown replacement accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("l3_tlb.replacement"), std::string::npos) << e.what();
    }
    EXPECT_THROW(gmmu::config::load("default", {"l2_tlb.replacement=lfu"}), gmmu::config_error);
}

TEST(ConfigDescriptorTest, ApplyFillsEveryMemberFromItsKey)
{
    gmmu::config c = gmmu::config::load(
        "default", {"l1_tlb.entries=64", "l1_tlb.ways=8", "l1_tlb.sets=8", "l1_tlb.index=residue",
                    "l1_tlb.lookup_cycles=3", "l1_tlb.ports=2", "l1_tlb.mshrs=4",
                    "l1_tlb.max_misses=2", "l1_tlb.hits_under_miss=false",
                    "l1_tlb.replacement=fifo", "l1_tlb.page_bytes=8192",
                    "l1_tlb.coverage_bytes=65536", "l1_tlb.fill_pages=4"});
    const gmmu::tlb_params p = gmmu::tlb_params_from(c, "l1_tlb", 1);
    EXPECT_EQ(p.model.entries, 64u);
    EXPECT_EQ(p.model.ways, 8u);
    EXPECT_EQ(p.model.sets, 8u);
    EXPECT_EQ(p.model.index, GMMU_TLB_INDEX_RESIDUE);
    EXPECT_EQ(p.model.lookup_cycles, 3u);
    EXPECT_EQ(p.ports, 2u);
    EXPECT_EQ(p.mshr.ports, 2u);
    EXPECT_EQ(p.mshr.mshrs, 4u);
    EXPECT_EQ(p.mshr.max_outstanding, 2u);
    EXPECT_FALSE(p.mshr.hits_under_miss);
    EXPECT_EQ(p.model.repl, GMMU_TLB_REPL_FIFO);
    EXPECT_EQ(p.model.page_shift, 13u);
    EXPECT_EQ(p.model.coverage_shift, 16u);
    EXPECT_EQ(p.model.fill_pages, 4u);
    EXPECT_EQ(p.level, 1u);
    // page_bytes 0 means page_size; without MSHRs the MSHR model stays off.
    const gmmu::tlb_params q = gmmu::tlb_params_from(gmmu::config::load("default", {}), "l2_tlb", 2);
    EXPECT_EQ(q.model.page_shift, 12u);
    EXPECT_EQ(q.mshr.mshrs, 0u);
    EXPECT_EQ(q.model.entries, 512u);
}

// ---- component specs (issue 42): keys and C error fields -----------------------

namespace {

// The field names a C checker can report: the string literals in the field
// argument of every gmmu_error_set(err, FIELD, ...) in the function's body,
// read from the source, so a new check in the model is seen here.
std::set<std::string> checker_fields(const std::string &file, const std::string &function)
{
    std::ifstream in(std::string(GMMU_SOURCE_DIR) + "/" + file);
    std::stringstream buf;
    buf << in.rdbuf();
    const std::string s = buf.str();
    const size_t at = s.find(function + "(");
    EXPECT_NE(at, std::string::npos) << file << " " << function;
    if (at == std::string::npos)
        return {};
    size_t open = s.find('{', at), end = open;
    for (int depth = 0; end < s.size(); end++) {
        depth += s[end] == '{' ? 1 : s[end] == '}' ? -1 : 0;
        if (depth == 0)
            break;
    }
    const std::string body = s.substr(open, end - open);
    std::set<std::string> out;
    static const std::regex call(R"(gmmu_error_set\(\s*err\s*,\s*([^;]*?),\s*")");
    static const std::regex literal(R"xx("([\w.\[\]]+)")xx");
    static const std::regex array_arg(R"(^\s*(\w+)\s*\[)");
    for (auto m = std::sregex_iterator(body.begin(), body.end(), call); m != std::sregex_iterator(); ++m) {
        std::string arg = (*m)[1];
        // A field named by an array of names (stc.c's entries_field[j]): the
        // literals of that array's definition in the file.
        std::smatch a;
        if (std::regex_search(arg, a, array_arg)) {
            const size_t def = s.find(std::string(a[1]) + "[");
            EXPECT_NE(def, std::string::npos) << file << ": " << a[1];
            if (def != std::string::npos)
                arg = s.substr(def, s.find(';', def) - def);
        }
        for (auto l = std::sregex_iterator(arg.begin(), arg.end(), literal); l != std::sregex_iterator(); ++l)
            out.insert((*l)[1]);
    }
    // NULL pointers, not fields.
    for (const char *ptr : {"config", "cache", "fault_handler", "cfg", "out", "ws", "lc", "sm", "ccws", "cpm", "ccache"})
        out.erase(ptr);
    EXPECT_FALSE(out.empty()) << file << " " << function;
    return out;
}

template <class D>
void expect_fields_map(const D &d, const std::string &prefix, const std::set<std::string> &fields)
{
    for (const std::string &f : fields) {
        const std::string k = d.real_key_of(prefix, f);
        if (k.empty()) {
            // Only a member the platform fills with a constant may have no key.
            auto e = d.c_fields_elsewhere().find(f);
            EXPECT_TRUE(e != d.c_fields_elsewhere().end() && e->second.empty())
                << prefix << ": C field '" << f << "' maps to no key";
            continue;
        }
        EXPECT_NE(schema_key(k), nullptr) << prefix << ": C field '" << f << "' maps to '" << k
                                          << "', which is not a key";
    }
}

} // namespace

// The specs' keys (issue 42), each component's own, collected from the specs
// themselves (not from the schema): every key in exactly one spec.
static std::map<std::string, std::string> spec_keys()
{
    std::map<std::string, std::string> owner; // key -> spec
    auto add = [&](const std::string &spec, const std::vector<gmmu::key_spec> &keys) {
        for (auto &k : keys)
            EXPECT_TRUE(owner.emplace(k.key, spec).second) << k.key << " in two specs";
    };
    add("platform", gmmu::platform_config_keys(""));
    add("platform", gmmu::platform_config_keys("sim"));
    add("platform", gmmu::platform_config_keys("mmu"));
    add("sm", gmmu::sm_config_keys());
    add("sm_core", gmmu::sm_core_config_keys());
    add("tlb", gmmu::tlb_config_keys());
    add("ptw", gmmu::ptw_config_keys());
    add("ldt", gmmu::ldt_config_keys());
    for (auto &l : gmmu::cache_levels())
        add("cache", gmmu::cache_config_keys(l.prefix));
    add("memory", gmmu::memory_config_keys());
    add("driver", gmmu::driver_config_keys(""));
    add("driver", gmmu::driver_config_keys("migrate"));
    add("smmu", gmmu::smmu_config_keys("migrate.smmu", ""));
    add("workload", gmmu::workload_config_keys());
    add("fault_handler", gmmu::fault_handler_config_keys());
    // Each workload's own spec, registered beside it (workloads/*.cpp).
    for (auto &w : gmmu::workload_specs())
        add("workload " + w.workload, w.keys);
    return owner;
}

// The union of the specs' keys is exactly the schema, and exactly the keys
// gmmu-sim --list-keys prints (and so docs/configs.md): no key outside a
// spec, no spec key the config does not know; defaults and help the same.
TEST(ComponentSpecTest, SpecKeysAreExactlyTheKeysGmmuSimKnows)
{
    const std::map<std::string, std::string> owner = spec_keys();
    std::set<std::string> specs, schema, listed;
    for (auto &[k, spec] : owner)
        specs.insert(k);
    for (auto &s : gmmu::config_schema())
        EXPECT_TRUE(schema.insert(s.key).second) << s.key << " twice in the schema";
    EXPECT_EQ(specs, schema);
    SimRun r = run_gmmu_sim("--list-keys");
    ASSERT_EQ(r.status, 0) << r.out;
    static const std::regex row(R"(^\| `([^`]+)` \|)");
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, row)) {
            EXPECT_TRUE(listed.insert(m[1]).second) << m[1] << " listed twice";
        }
    }
    EXPECT_EQ(specs, listed);
    EXPECT_GT(listed.size(), 170u) << "the parser reads --list-keys";
    // Each key accepted with its spec's default.
    for (auto &s : gmmu::config_schema())
        EXPECT_EQ(gmmu::config::defaults().value(s.key), s.def) << s.key;
}

// Every field the C checkers can name maps to a key that exists (the LDT's
// "cus" is the L1 TLB count, set by sm.count: there is no picle.cus).
TEST(ComponentSpecTest, EveryCheckerFieldMapsToAKeyThatExists)
{
    for (auto &lvl : gmmu::tlb_levels())
        expect_fields_map(gmmu::tlb_descriptor(), lvl.prefix,
                          checker_fields("models/src/tlb_policy.c", "gmmu_status gmmu_tlb_config_check"));
    expect_fields_map(gmmu::tlb_descriptor(), "l1_tlb",
                      checker_fields("models/src/tlb_mshr.c", "gmmu_status gmmu_tlb_mshr_config_check"));
    const auto ldt = checker_fields("models/src/ldt.c", "gmmu_status gmmu_ldt_config_check");
    EXPECT_TRUE(ldt.count("cus")) << "the parser reads the checker";
    expect_fields_map(gmmu::ldt_descriptor(), "picle", ldt);
    EXPECT_EQ(gmmu::ldt_descriptor().real_key_of("picle", "cus"), "sm.count");
    EXPECT_EQ(gmmu::ldt_descriptor().real_key_of("picle", "ways"), "picle.ways");
    for (auto &l : gmmu::cache_levels()) {
        expect_fields_map(gmmu::cache_descriptor(), l.prefix,
                          checker_fields("models/src/cache.c", "gmmu_status gmmu_cache_config_check"));
        expect_fields_map(gmmu::cache_descriptor(), l.prefix,
                          checker_fields("models/src/cache.c", "gmmu_status gmmu_cache_vipt_check"));
    }
    EXPECT_EQ(gmmu::cache_descriptor().real_key_of("l1_cache", "vipt"), "l1_cache.indexing");
    EXPECT_EQ(gmmu::cache_descriptor().real_key_of("l2_cache", "hit_cycles"), "l2_cache.hit_cycles");
    expect_fields_map(gmmu::fault_handler_descriptor(), "fault",
                      checker_fields("models/src/fault_handler.c", "gmmu_status gmmu_fault_handler_config_check"));
    // Once named by concatenation as 'fault.granularity_shift', no key.
    EXPECT_EQ(gmmu::fault_handler_descriptor().real_key_of("fault", "granularity_shift"),
              "fault.granularity_bytes");
    EXPECT_EQ(gmmu::fault_handler_descriptor().real_key_of("fault", "clock_mhz"), "clock_mhz");
    // The walker: scheduler, page-walk caches (their geometry is what
    // ptw.pwc_bits buys), line cache.
    const auto &w = gmmu::ptw_descriptor();
    const auto ws = checker_fields("models/src/walk_sched.c", "gmmu_status gmmu_ws_config_check");
    EXPECT_TRUE(ws.count("retire_width")) << "the parser reads the checker";
    expect_fields_map(w, "ptw", ws);
    expect_fields_map(w, "ptw", checker_fields("models/src/walk_sched.c", "gmmu_status gmmu_ws_walkers_check"));
    expect_fields_map(w, "ptw", checker_fields("models/src/pwc.c", "gmmu_status gmmu_pwc_config_validate"));
    expect_fields_map(w, "ptw", checker_fields("models/src/pwc.c", "gmmu_status gmmu_pwc_config_for_bits"));
    for (const char *kind : {"tpc", "stc", "uptc", "cpwc"})
        expect_fields_map(w, "ptw", checker_fields("models/src/" + std::string(kind) + ".c",
                                                   "gmmu_status gmmu_" + std::string(kind) + "_validate"));
    EXPECT_TRUE(checker_fields("models/src/stc.c", "gmmu_status gmmu_stc_validate").count("stc.ways[2]"))
        << "the parser reads the checker's array of field names";
    expect_fields_map(w, "ptw", checker_fields("models/src/line_cache.c", "gmmu_status gmmu_line_cache_config_check"));
    // Once named by concatenation as 'ptw.retire_width' and 'ptw.line_cache.' + field.
    EXPECT_EQ(w.real_key_of("ptw", "retire_width"), "");
    EXPECT_EQ(w.real_key_of("ptw", "ways"), "ptw.line_cache.ways");
    EXPECT_EQ(w.real_key_of("ptw", "variant"), "ptw.scheduler");
    EXPECT_EQ(w.real_key_of("ptw", "cpwc.l2_blocks"), "ptw.pwc_bits");
    // The issue SM: its own checker and those of its throttle and compaction.
    const auto &sc = gmmu::sm_core_descriptor();
    const auto smf = checker_fields("models/src/sm_issue_config.c", "gmmu_status gmmu_sm_config_check");
    EXPECT_TRUE(smf.count("inflight_max")) << "the parser reads the checker";
    expect_fields_map(sc, "sm", smf);
    expect_fields_map(sc, "sm", checker_fields("models/src/ccws.c", "gmmu_status gmmu_ccws_config_check"));
    expect_fields_map(sc, "sm", checker_fields("models/src/tbc.c", "gmmu_status gmmu_cpm_config_check"));
    EXPECT_EQ(sc.real_key_of("sm", "max_warps"), "sm.warps");
    EXPECT_EQ(sc.real_key_of("sm", "counter_bits"), "sm.tbc.cpm_bits");
    EXPECT_EQ(sc.real_key_of("sm", "pages"), "l1_tlb.entries");
    EXPECT_EQ(sc.real_key_of("sm", "vta_ways"), "sm.ccws.vta_ways");
    // Once named by concatenation: 'sm.' + field.
    EXPECT_EQ(sc.real_key_of("sm", "inflight_max"), "");
    // The SMMU's configuration cache.
    expect_fields_map(gmmu::smmu_descriptor(), "migrate.smmu",
                      checker_fields("models/src/smmu.c", "gmmu_status gmmu_smmu_ccache_create"));
}

// The fault handler's config: the link's paper costs, then the keys (0 keeps
// the link's cost), the clock from clock_mhz; verdicts named by key.
TEST(ComponentSpecTest, FaultHandlerSpecAppliesTheLinkThenItsKeys)
{
    gmmu::config c = gmmu::config::load("default", {"fault.link=pcie", "fault.cpu_alloc_ns=777",
                                                    "fault.granularity_bytes=2097152", "fault.cpu_servers=3",
                                                    "fault.local_first_touch=true", "clock_mhz=1500"});
    const gmmu_fault_handler_config f = gmmu::fault_handler_config_from(c);
    gmmu_fault_handler_config pcie;
    gmmu_fault_handler_config_default(&pcie, GMMU_LINK_PCIE);
    EXPECT_EQ(f.cpu_transfer_ns, pcie.cpu_transfer_ns); // 0: the link's
    EXPECT_EQ(f.cpu_alloc_ns, 777u);
    EXPECT_EQ(f.granularity_shift, 21u);
    EXPECT_EQ(f.cpu_servers, 3u);
    EXPECT_TRUE(f.local_first_touch);
    EXPECT_EQ(f.clock_mhz, 1500u);
    EXPECT_EQ(f.max_pending, 65536u);
    try {
        gmmu::fault_handler_descriptor().enum_value("link", "usb", "fault.link");
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'fault.link': 'usb' is not one of nvlink, pcie"),
                  std::string::npos)
            << e.what();
    }
    const gmmu::config_error e = gmmu::fault_handler_descriptor().checker_error(
        "fault", "granularity_shift", "fault granularity 2^40 out of range 4 KiB..1 GiB");
    EXPECT_NE(std::string(e.what()).find("config key 'fault.granularity_bytes': fault granularity"),
              std::string::npos)
        << e.what();
}

// The data caches' rules are cache.c's, named by key at either level, and
// the L1's vipt and index_cycles come from its keys (index_cycles kept for
// vipt only).
TEST(ComponentSpecTest, CacheSpecAppliesItsKeysAndNamesCheckerVerdictsByKey)
{
    gmmu::config c = gmmu::config::load("default", {"l1_cache.enabled=true", "l1_cache.bytes=4096",
                                                    "l1_cache.ways=2", "l1_cache.indexing=vipt",
                                                    "l1_cache.index_cycles=5", "l2_cache.hit_cycles=9"});
    const gmmu_cache_config l1 = gmmu::cache_config_from(c, "l1_cache", false);
    EXPECT_EQ(l1.bytes, 4096u);
    EXPECT_EQ(l1.ways, 2u);
    EXPECT_TRUE(l1.vipt);
    EXPECT_EQ(l1.index_cycles, 5u);
    EXPECT_FALSE(l1.write_allocate);
    const gmmu_cache_config l2 = gmmu::cache_config_from(c, "l2_cache", true);
    EXPECT_EQ(l2.bytes, uint64_t(2) << 20);
    EXPECT_EQ(l2.ways, 8u);
    EXPECT_EQ(l2.hit_cycles, 9u);
    EXPECT_FALSE(l2.vipt);
    EXPECT_TRUE(l2.write_allocate);
    c.set("l1_cache.indexing", "pipt");
    EXPECT_EQ(gmmu::cache_config_from(c, "l1_cache", false).index_cycles, 0u);
    for (const auto &[sets, key] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"l2_cache.enabled=true", "l2_cache.ways=3"}, "config key 'l2_cache.ways': 3 ways"},
             {{"l1_cache.enabled=true", "l1_cache.bytes=3000"}, "config key 'l1_cache.bytes': capacity 3000"},
             {{"l1_cache.enabled=true", "l1_cache.index_cycles=41"}, "config key 'l1_cache.index_cycles': index latency 41"},
         }) {
        try {
            gmmu::config::load("default", sets);
            ADD_FAILURE() << key << ": accepted";
        } catch (const gmmu::config_error &e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
}

// The LDT's rules are its C checker's, named by key: ways must divide entries
// (once config.cpp's own copy of the rule), and the CU count.
TEST(ComponentSpecTest, LdtSpecAppliesItsKeysAndNamesCheckerVerdictsByKey)
{
    gmmu::config c = gmmu::config::load("default", {"picle.enabled=true", "picle.entries=64", "picle.ways=4",
                                                    "picle.tag_bits=12", "picle.lookup_cycles=7",
                                                    "picle.probe=true", "picle.probe_cycles=3"});
    const gmmu::ldt_params p = gmmu::ldt_params_from(c, 6);
    EXPECT_EQ(p.model.entries, 64u);
    EXPECT_EQ(p.model.ways, 4u);
    EXPECT_EQ(p.model.cus, 6u);
    EXPECT_EQ(p.model.tag_bits, 12u);
    EXPECT_EQ(p.model.lookup_cycles, 7u);
    EXPECT_TRUE(p.probe);
    EXPECT_EQ(p.probe_cycles, 3u);
    try {
        gmmu::config::load("default", {"picle.enabled=true", "picle.entries=64", "picle.ways=3"});
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'picle.ways': LDT ways 3 must divide entries (64)"),
                  std::string::npos)
            << e.what();
    }
    try {
        gmmu::ldt_params_from(c, 5000);
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'sm.count': LDT CU count 5000"), std::string::npos)
            << e.what();
    }
}

// The memory's keys fill the config it is built with.
TEST(ComponentSpecTest, MemorySpecAppliesItsKeys)
{
    const gmmu::memory_config d = gmmu::memory_config_from(gmmu::config::defaults());
    EXPECT_EQ(d.latency_cycles, 100u);
    EXPECT_EQ(d.bytes_per_cycle, 0u);
    const gmmu::memory_config m = gmmu::memory_config_from(
        gmmu::config::load("default", {"memory.latency_cycles=7", "memory.bytes_per_cycle=64"}));
    EXPECT_EQ(m.latency_cycles, 7u);
    EXPECT_EQ(m.bytes_per_cycle, 64u);
}

// The walker's keys fill ptw_params; its rules are the C models' checkers,
// named by key.
TEST(ComponentSpecTest, PtwSpecAppliesItsKeysAndNamesCheckerVerdictsByKey)
{
    const gmmu::ptw_config p = gmmu::ptw_config_from(gmmu::config::load(
        "default", {"ptw.scheduler=tree", "ptw.mshrs=12", "ptw.scan_pass_cycles=3", "ptw.pwc=uptc",
                    "ptw.pwc_bits=20000", "ptw.line_cache.lines=64", "ptw.line_cache.ways=8",
                    "ptw.line_cache.hit_cycles=2", "ptw.line_cache.miss_cycles=0",
                    "ptw.fixed_walk_latency=9", "ptw.set_accessed_dirty=true", "ptw.per_tlb=true",
                    "rtl.mismatch_cycles=7", "rtl.mismatch_fst=x.fst"}));
    EXPECT_EQ(p.params.sched.variant, GMMU_WS_TREE);
    EXPECT_EQ(p.params.sched.mshrs, 12u);
    EXPECT_EQ(p.params.sched.scan_pass_cycles, 3u);
    EXPECT_EQ(p.params.walkers, 1u);
    EXPECT_EQ(p.params.pwc.kind, GMMU_PWC_UPTC);
    gmmu_pwc_config want{};
    gmmu_error err{};
    ASSERT_EQ(gmmu_pwc_config_for_bits(GMMU_PWC_UPTC, 20000, &want, &err), GMMU_OK);
    EXPECT_EQ(p.params.pwc.uptc.entries, want.uptc.entries);
    EXPECT_TRUE(p.params.line_cache);
    EXPECT_EQ(p.params.lc.lines, 64u);
    EXPECT_EQ(p.params.lc.ways, 8u);
    EXPECT_EQ(p.params.lc.hit_cycles, 2u);
    EXPECT_EQ(p.params.lc.miss_cycles, 0u);
    EXPECT_EQ(p.params.fixed_walk_cycles, 9u);
    EXPECT_TRUE(p.params.set_accessed_dirty);
    EXPECT_TRUE(p.per_tlb);
    EXPECT_EQ(p.params.mismatch_cycles, 7u);
    EXPECT_EQ(p.params.mismatch_fst, "x.fst");
    EXPECT_FALSE(gmmu::ptw_config_from(gmmu::config::defaults()).params.line_cache);
    for (const auto &[sets, key] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"ptw.scheduler=tree", "ptw.walkers=8"}, "config key 'ptw.walkers': walkers = 8"},
             {{"ptw.line_cache.lines=6", "ptw.line_cache.ways=4"}, "config key 'ptw.line_cache.ways': lines (6)"},
             {{"ptw.line_cache.lines=12", "ptw.line_cache.ways=4"}, "config key 'ptw.line_cache.lines': sets"},
             {{"ptw.pwc=cpwc", "ptw.pwc_bits=10"}, "config key 'ptw.pwc_bits': 10 bits hold no CPWC"},
             {{"ptw.cosim=true"}, "config key 'ptw.cosim': nothing to co-simulate"},
             {{"rtl.mismatch_fst="}, "config key 'rtl.mismatch_fst': expected a file name"},
         }) {
        try {
            gmmu::config::load("default", sets);
            ADD_FAILURE() << key << ": accepted";
        } catch (const gmmu::config_error &e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
}

// The SMs', the driver's, the platform's and the workloads' specs fill what
// their components are built from, and their rules name the key.
TEST(ComponentSpecTest, SmDriverPlatformAndWorkloadSpecsApplyTheirKeys)
{
    const gmmu::config c = gmmu::config::load(
        "default", {"sm.count=6", "sm.warps=16", "sm.issue_width=2", "sm.model=issue",
                    "sm.warp_scheduler=tcws", "sm.tcws.epw=4", "sm.tcws.weight_d3=0", "sm.max_blocks=9",
                    "sm.oplog_bytes=1024", "sm.overlap_cache_access=true", "l1_tlb.entries=64",
                    "clock_mhz=1500", "page_size=2097152", "sim.quantum_ns=7", "name=x",
                    "workload.base_va=0x200000", "workload.map=touched", "workload.accesses=3"});
    const gmmu::sm_config s = gmmu::sm_config_from(c);
    EXPECT_EQ(s.count, 6u);
    EXPECT_EQ(s.params.warps, 16u);
    EXPECT_EQ(s.params.issue_width, 2u);
    EXPECT_EQ(s.model, "issue");
    const gmmu_sm_config m = gmmu::sm_core_config_from(c);
    EXPECT_EQ(m.max_warps, 16u);
    EXPECT_EQ(m.issue_width, 2u);
    EXPECT_EQ(m.throttle, GMMU_THROTTLE_TCWS);
    EXPECT_EQ(m.order, GMMU_ORDER_GTO);
    EXPECT_EQ(m.ccws.vta_entries, 4u);
    EXPECT_EQ(m.ccws.vta_ways, 4u);
    EXPECT_EQ(m.ccws.depth_weight[0], 1u);
    EXPECT_EQ(m.ccws.depth_weight[3], 0u);
    EXPECT_EQ(m.max_blocks, 9u);
    EXPECT_EQ(m.oplog_bytes, 1024u);
    EXPECT_TRUE(m.overlap_lines);
    EXPECT_EQ(m.cpm.pages, 64u);
    const gmmu::platform_config p = gmmu::platform_config_from(c);
    EXPECT_EQ(p.name, "x");
    EXPECT_EQ(p.clock_mhz, 1500u);
    EXPECT_EQ(p.page_size, 2097152u);
    EXPECT_EQ(p.quantum_ns, 7u);
    EXPECT_FALSE(p.bypass);
    const gmmu::workload_config w = gmmu::workload_config_from(c);
    EXPECT_EQ(w.base_va, 0x200000u);
    EXPECT_TRUE(w.map_touched);
    EXPECT_EQ(w.accesses, 3u);
    const gmmu::driver_config d = gmmu::driver_config_from(
        gmmu::config::load("default", {"contexts=3", "migrate.interval_cycles=500", "migrate.copy_cycles=9",
                                       "migrate.seed=5", "migrate.invalidate=false"}));
    EXPECT_EQ(d.contexts, 3u);
    EXPECT_TRUE(d.migrate);
    EXPECT_EQ(d.migration.interval_cycles, 500u);
    EXPECT_EQ(d.migration.copy_cycles, 9u);
    EXPECT_EQ(d.migration.seed, 5u);
    EXPECT_FALSE(d.migration.invalidate);
    EXPECT_FALSE(gmmu::driver_config_from(gmmu::config::defaults()).migrate);
    const gmmu::smmu_params sp = gmmu::smmu_params_from(
        gmmu::config::load("default", {"migrate.smmu.cmd_cycles=3", "migrate.smmu.lookup_cycles=4",
                                       "migrate.smmu.config_entries=0", "migrate.smmu.reg_cycles=5"}),
        "migrate.smmu");
    EXPECT_EQ(sp.cmd_cycles, 3u);
    EXPECT_EQ(sp.lookup_cycles, 4u);
    EXPECT_EQ(sp.config_entries, 0u);
    EXPECT_EQ(sp.reg_cycles, 5u);
    EXPECT_EQ(gmmu::driver_config_from(gmmu::config::load("default", {"migrate.smmu.cmd_cycles=7"}))
                  .migration.smmu.cmd_cycles,
              7u);
    for (const auto &[sets, key] :
         std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"page_size=8192"}, "config key 'page_size': 8192 is not 4096"},
             {{"mmu.bypass=true", "rtl.fst=x.fst"}, "config key 'rtl.fst': \"x.fst\" has no effect"},
             {{"contexts=2", "sm.model=issue"}, "config key 'contexts': supported with sm.model=simple only"},
             {{"sm.issue_cycles=2"}, "config key 'sm.issue_cycles': supported with sm.model=issue only"},
             {{"workload.base_va=4097"}, "config key 'workload.base_va': not aligned"},
             {{"workload.region_bytes=35184372088832"}, "config key 'workload.region_bytes': 35184372088832 bytes"},
             {{"l1_tlb.entries=48"}, "config key 'l1_tlb.entries': 48 is not a multiple of l1_tlb.ways"},
             {{"l1_tlb.entries=16", "l1_tlb.ways=32"}, "config key 'l1_tlb.ways': TLB ways 32 out of range"},
             {{"l2_tlb.sets=40"}, "config key 'l2_tlb.sets': TLB sets 40"},
         }) {
        try {
            gmmu::config::load("default", sets);
            ADD_FAILURE() << key << ": accepted";
        } catch (const gmmu::config_error &e) {
            EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
        }
    }
    // The issue SM's C checker, named by key.
    gmmu::config b = gmmu::config::load("default", {"sm.model=issue", "sm.block_switch=true"});
    try {
        gmmu::sm_core_config_from(b);
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'sm.block_switch': block switching needs"),
                  std::string::npos) << e.what();
    }
}

// Every workload key is in a spec (issue 42): gmmu-sim registers no flat
// key rows, only workload specs, each of a workload it knows; their C
// fields name keys that exist; and a spec's rules are the ones users see.
TEST(ComponentSpecTest, WorkloadKeysAreTheirWorkloadsSpecs)
{
    std::set<std::string> in_specs, registered;
    std::set<std::string> names;
    for (auto &w : gmmu::workload_specs()) {
        names.insert(w.workload);
        const auto known = gmmu::workload_names();
        EXPECT_NE(std::find(known.begin(), known.end(), w.workload), known.end()) << w.workload;
        for (auto &k : w.keys) {
            EXPECT_EQ(k.key.rfind("workload.", 0), 0u) << k.key;
            in_specs.insert(k.key);
        }
    }
    for (auto &k : gmmu::registered_config_keys())
        registered.insert(k.key);
    EXPECT_EQ(registered, in_specs) << "a key registered as a flat row, outside a workload's spec";
    EXPECT_EQ(names, (std::set<std::string>{"kernel", "pichai-bench", "shared-hot", "tlb-probe", "tlb-share"}));
    EXPECT_EQ(in_specs.size(), 19u);
    // The kernel's C model (gmmu_kernel_build) names its fields; each maps
    // to a key of the kernel's spec ("kernel", the pointer, to none).
    const gmmu::workload_spec_def *kernel = nullptr;
    for (auto &w : gmmu::workload_specs())
        if (w.workload == "kernel")
            kernel = &w;
    ASSERT_NE(kernel, nullptr);
    const auto kf = checker_fields("models/src/kernels_builtin.c", "gmmu_status gmmu_kernel_build");
    EXPECT_TRUE(kf.count("kernel.iters")) << "the parser reads the checker";
    for (const std::string &f : kf) {
        auto m = kernel->c_fields.find(f);
        ASSERT_NE(m, kernel->c_fields.end()) << "C field '" << f << "' maps to no key";
        if (!m->second.empty()) {
            EXPECT_NE(schema_key(m->second), nullptr) << f << " -> " << m->second;
        }
    }
    EXPECT_EQ(kernel->c_fields.at("kernel.grid_blocks"), "workload.grid_blocks");
    EXPECT_EQ(kernel->c_fields.at("kernel.name"), "workload.kernel");
    // The kernel spec refuses its key on another workload.
    const gmmu::config f = gmmu::config::load("default", {"workload.faults=true"});
    try {
        gmmu::make_workload("stream", f, 1);
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'workload.faults': demand paging applies to the "
                                             "kernel workload only (this run's is stream)"),
                  std::string::npos)
            << e.what();
    }
    // tlb-probe's rule runs when a config is validated, whatever the workload.
    try {
        gmmu::config::load("default", {"workload.probe_distance_max=35184372088832"});
        ADD_FAILURE() << "accepted";
    } catch (const gmmu::config_error &e) {
        EXPECT_NE(std::string(e.what()).find("config key 'workload.probe_distance_max': tlb-probe maps "
                                             "35184372088832 bytes"),
                  std::string::npos)
            << e.what();
    }
}

// What a workload is built for comes from the other components' parsed
// specs: the SMs', the platform's and the driver's.
TEST(ComponentSpecTest, WorkloadMachineComesFromTheOwningSpecs)
{
    const gmmu::workload_machine m = gmmu::workload_machine_from(gmmu::config::load(
        "default", {"sm.count=6", "sm.warps=16", "page_size=2097152", "clock_mhz=1500", "contexts=3"}));
    EXPECT_EQ(m.sms, 6u);
    EXPECT_EQ(m.warps, 16u);
    EXPECT_EQ(m.sm_model, "simple");
    EXPECT_EQ(m.page_size, 2097152u);
    EXPECT_EQ(m.clock_mhz, 1500u);
    EXPECT_FALSE(m.bypass);
    EXPECT_EQ(m.contexts, 3u);
    const gmmu::workload_machine b =
        gmmu::workload_machine_from(gmmu::config::load("default", {"mmu.bypass=true", "sm.model=issue"}));
    EXPECT_TRUE(b.bypass);
    EXPECT_EQ(b.sm_model, "issue");
}

// A spec's rule that depends on another component's key reads it through
// that component's spec (descriptor::flag): a key the owner does not have is
// a logic error, not a silent read.
TEST(ComponentSpecTest, CrossSpecFlagsAreReadThroughTheirOwners)
{
    const gmmu::config c = gmmu::config::load("default", {"l1_cache.enabled=true", "l2_tlb.enabled=false"});
    EXPECT_TRUE(gmmu::cache_enabled(c, "l1_cache"));
    EXPECT_FALSE(gmmu::cache_enabled(c, "l2_cache"));
    EXPECT_TRUE(gmmu::tlb_level_enabled(c, "l1_tlb")) << "the L1 TLB has no enabled key and is always built";
    EXPECT_FALSE(gmmu::tlb_level_enabled(c, "l2_tlb"));
    EXPECT_THROW(gmmu::cache_descriptor().flag(c, "l1_cache", "bytes"), std::logic_error);
    EXPECT_THROW(gmmu::cache_descriptor().flag(c, "l1_cache", "enabeld"), std::logic_error);
    EXPECT_THROW(gmmu::tlb_descriptor().flag(c, "l1_tlb", "enabled"), std::logic_error);
    // ptw.via's rule sees the caches and TLBs their specs build.
    EXPECT_NO_THROW(gmmu::config::load("default", {"l1_cache.enabled=true", "l2_tlb.enabled=false",
                                                   "ptw.per_tlb=true", "ptw.via=l1_cache"}));
    EXPECT_THROW(gmmu::config::load("default", {"l1_cache.enabled=true", "l2_tlb.enabled=true",
                                                "ptw.per_tlb=true", "ptw.via=l1_cache"}),
                 gmmu::config_error);
}
