// One lifecycle for every model (docs/architecture.md, Models):
// gmmu_X_create(<config and callbacks>, &x, &err) checks its arguments and
// returns the model in x, or refuses with GMMU_EINVAL, x set to NULL and err
// naming a field; gmmu_X_destroy(x) frees it and takes NULL.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "test_mem.h"

extern "C" {
#include "gmmu/cache.h"
#include "gmmu/ccws.h"
#include "gmmu/cpwc.h"
#include "gmmu/fault_handler.h"
#include "gmmu/ldt.h"
#include "gmmu/line_cache.h"
#include "gmmu/oplog.h"
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
#include "gmmu/replay_queue.h"
#include "gmmu/sm_issue.h"
#include "gmmu/stc.h"
#include "gmmu/tbc.h"
#include "gmmu/tlb.h"
#include "gmmu/tlb_mshr.h"
#include "gmmu/tpc.h"
#include "gmmu/uptc.h"
#include "gmmu/walk_merge.h"
#include "gmmu/walk_sched.h"
#include "gmmu/warp_sched.h"
}

namespace {

// One model's lifecycle, type-erased: create with a valid or a refused
// argument set, into an output slot (nullptr: no slot); destroy.
struct Model {
    std::string name;
    std::function<gmmu_status(bool valid, void **out, gmmu_error *err)> create;
    std::function<void(void *)> destroy;
};

template <class T, class Cfg>
Model make(const char *name, Cfg good, Cfg bad,
           gmmu_status (*create)(const Cfg *, T **, gmmu_error *), void (*destroy)(T *))
{
    return {name,
            [=](bool valid, void **out, gmmu_error *err) {
                const Cfg c = valid ? good : bad;
                return create(&c, reinterpret_cast<T **>(out), err);
            },
            [=](void *p) { destroy(static_cast<T *>(p)); }};
}

gmmu_status no_translate(void *, const gmmu_sm_mem_req *, gmmu_sm_mem_resp *) { return GMMU_OK; }
gmmu_status no_read(void *, uint64_t, uint64_t *v)
{
    *v = 0;
    return GMMU_OK;
}
gmmu_status no_write(void *, uint64_t, uint64_t) { return GMMU_OK; }
gmmu_status no_block(void *, uint32_t, bool *got, uint32_t *)
{
    *got = false;
    return GMMU_OK;
}

std::vector<Model> every_model(TestMem &mem, gmmu_mem_ops &ops)
{
    std::vector<Model> m;
    {
        gmmu_cache_config g, b;
        gmmu_cache_config_default(&g);
        b = g;
        b.ways = 3;
        m.push_back(make("cache", g, b, &gmmu_cache_create, &gmmu_cache_destroy));
    }
    {
        gmmu_ccws_config g, b;
        gmmu_ccws_config_default(&g, 4);
        b = g;
        b.vta_ways = 0;
        m.push_back(make("ccws", g, b, &gmmu_ccws_create, &gmmu_ccws_destroy));
    }
    {
        const gmmu_cpm_config g = {4, 3, 2, 16, 0}, b = {4, 0, 2, 16, 0};
        m.push_back(make("cpm", g, b, &gmmu_cpm_create, &gmmu_cpm_destroy));
    }
    {
        gmmu_fault_handler_config g, b;
        gmmu_fault_handler_config_default(&g, GMMU_LINK_NVLINK);
        b = g;
        b.cpu_servers = 0;
        m.push_back(make("fault_handler", g, b, &gmmu_fault_handler_create,
                         &gmmu_fault_handler_destroy));
    }
    {
        gmmu_ldt_config g{};
        g.entries = 64;
        g.ways = 4;
        g.cus = 8;
        gmmu_ldt_config b = g;
        b.ways = 3;
        m.push_back(make("ldt", g, b, &gmmu_ldt_create, &gmmu_ldt_destroy));
    }
    {
        gmmu_line_cache_config g, b;
        gmmu_line_cache_config_default(&g);
        b = g;
        b.line_bytes = 96;
        m.push_back(make("line_cache", g, b, &gmmu_line_cache_create, &gmmu_line_cache_destroy));
    }
    {
        const gmmu_oplog_config g{16384, 16}, b{4096, 16};
        m.push_back(make("oplog", g, b, &gmmu_oplog_create, &gmmu_oplog_destroy));
    }
    {
        const gmmu_rq_config g{4}, b{0};
        m.push_back(make("replay_queue", g, b, &gmmu_rq_create, &gmmu_rq_destroy));
    }
    {
        gmmu_tlb_mshr_config g{};
        g.ports = 1;
        g.mshrs = 4;
        g.merge_pages = 1;
        gmmu_tlb_mshr_config b = g;
        b.mshrs = 0;
        m.push_back(make("tlb_mshr", g, b, &gmmu_tlb_mshr_create, &gmmu_tlb_mshr_destroy));
    }
    {
        gmmu_ws_config g, b;
        gmmu_ws_config_default(&g);
        b = g;
        b.mshrs = 0;
        m.push_back(make("walk_sched", g, b, &gmmu_walk_sched_create, &gmmu_walk_sched_destroy));
    }
    {
        const gmmu_warp_picker_config g{32}, b{0};
        m.push_back(make("warp_picker", g, b, &gmmu_warp_picker_create, &gmmu_warp_picker_destroy));
    }
    {
        const gmmu_wm_config g{16}, b{3000};
        m.push_back(make("walk_merge", g, b, &gmmu_wm_create, &gmmu_wm_destroy));
    }
    {
        gmmu_tlb_config g{};
        g.entries = 64;
        g.ways = 4;
        g.page_shift = 12;
        gmmu_tlb_config b = g;
        b.entries = 0;
        m.push_back(make("tlb", g, b, &gmmu_tlb_create, &gmmu_tlb_destroy));
    }
    {
        gmmu_pwc_config g, b;
        EXPECT_EQ(gmmu_pwc_config_default(GMMU_PWC_CPWC, &g), GMMU_OK);
        b = g;
        b.cpwc.l3_entries = 0;
        m.push_back(make("pwc", g, b, &gmmu_pwc_create, &gmmu_pwc_destroy));
        m.push_back(make("cpwc", g, b, &gmmu_cpwc_create, &gmmu_cpwc_destroy));
    }
    for (gmmu_pwc_kind k : {GMMU_PWC_TPC, GMMU_PWC_STC, GMMU_PWC_UPTC}) {
        gmmu_pwc_config g;
        EXPECT_EQ(gmmu_pwc_config_default(k, &g), GMMU_OK);
        gmmu_pwc_config b = g;
        b.tpc.entries = 0;
        b.stc.entries[0] = 0;
        b.uptc.entries = 0;
        if (k == GMMU_PWC_TPC)
            m.push_back(make("tpc", g, b, &gmmu_tpc_create, &gmmu_tpc_destroy));
        else if (k == GMMU_PWC_STC)
            m.push_back(make("stc", g, b, &gmmu_stc_create, &gmmu_stc_destroy));
        else
            m.push_back(make("uptc", g, b, &gmmu_uptc_create, &gmmu_uptc_destroy));
    }
    // Built from more than a config: the page-table handle from its memory
    // and frame allocator, the SM from its config and callbacks.
    m.push_back({"pagetable",
                 [&mem, &ops](bool valid, void **out, gmmu_error *err) {
                     return gmmu_pt_create(valid ? &ops : nullptr, &TestMem::alloc, &mem,
                                           reinterpret_cast<gmmu_pt **>(out), err);
                 },
                 [](void *p) { gmmu_pt_destroy(static_cast<gmmu_pt *>(p)); }});
    m.push_back({"sm",
                 [](bool valid, void **out, gmmu_error *err) {
                     gmmu_sm_config c;
                     gmmu_sm_config_tanasic17(&c);
                     gmmu_sm_env env{};
                     env.translate = &no_translate;
                     env.read64 = &no_read;
                     env.write64 = &no_write;
                     env.next_block = &no_block;
                     if (!valid)
                         env.translate = nullptr;
                     return gmmu_sm_create(&c, &env, reinterpret_cast<gmmu_sm **>(out), err);
                 },
                 [](void *p) { gmmu_sm_destroy(static_cast<gmmu_sm *>(p)); }});
    return m;
}

TEST(LifecycleTest, EveryModelIsCreatedCheckedAndDestroyedAlike)
{
    TestMem mem;
    gmmu_mem_ops ops = mem.ops();
    const std::vector<Model> models = every_model(mem, ops);
    EXPECT_EQ(models.size(), 20u);
    for (const Model &m : models) {
        SCOPED_TRACE(m.name);
        gmmu_error err{};
        void *x = nullptr;
        ASSERT_EQ(m.create(true, &x, &err), GMMU_OK) << err.field << ": " << err.msg;
        EXPECT_NE(x, nullptr);
        m.destroy(x);
        // A refused argument: EINVAL, the output cleared, a field named.
        int sentinel = 0;
        x = &sentinel;
        err = gmmu_error{};
        EXPECT_EQ(m.create(false, &x, &err), GMMU_EINVAL);
        EXPECT_EQ(x, nullptr);
        EXPECT_NE(std::string(err.field), "");
        // No output slot: refused, nothing leaks (LeakSanitizer in make test).
        err = gmmu_error{};
        EXPECT_EQ(m.create(true, nullptr, &err), GMMU_EINVAL);
        EXPECT_NE(std::string(err.field), "");
        m.destroy(nullptr);
    }
}

} // namespace
