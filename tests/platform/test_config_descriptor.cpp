// The TLB levels' keys come from one descriptor (gpu/descriptor.h,
// gpu/tlb_config.cpp): same keys and ranges at every level, C checker
// verdicts named by real keys, enum text checked by the descriptor.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "gmmu/gpu/config.h"
#include "gmmu/gpu/tlb_config.h"

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
