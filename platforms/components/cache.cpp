#include "gmmu/components/cache.h"

#include <algorithm>

namespace gmmu {

data_cache::data_cache(sc_core::sc_module_name name, const gmmu_cache_config &cfg,
                       sc_core::sc_time clk)
    : sc_module(name), tsock("tsock"), isock("isock"), pte_tsock("pte_tsock"), clock(clk)
{
    gmmu_error err{};
    if (gmmu_cache_create(&cfg, &c, &err) != GMMU_OK)
        report_error("cache", std::string(this->name()) + ": " + err.field + ": " + err.msg);
    tsock.register_b_transport(this, &data_cache::b_transport);
    tsock.register_transport_dbg(this, &data_cache::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &data_cache::get_direct_mem_ptr);
    pte_tsock.register_b_transport(this, &data_cache::pte_b_transport);
    pte_tsock.register_transport_dbg(this, &data_cache::transport_dbg);
    isock.register_invalidate_direct_mem_ptr(this, &data_cache::invalidate_from_below);
    wb_ext.timing_only = true;
    wb_ext.lane_bytes = 8;
    const unsigned lanes = std::min<unsigned>(cfg.line_bytes / 8u, warp_ext::lanes);
    wb_ext.nlanes = lanes;
    wb_ext.active = lanes >= 32 ? ~0u : (1u << lanes) - 1u;
    wb_gp.set_extension(&wb_ext);
}

data_cache::~data_cache()
{
    wb_gp.clear_extension(&wb_ext);
    gmmu_cache_destroy(c);
}

uint64_t data_cache::cycle_at(const sc_core::sc_time &delay) const
{
    return uint64_t((sc_core::sc_time_stamp() + delay) / clock);
}

void data_cache::write_back(uint64_t addr, const sc_core::sc_time &delay)
{
    wb_gp.set_command(tlm::TLM_WRITE_COMMAND);
    wb_gp.set_address(addr);
    for (unsigned l = 0; l < wb_ext.nlanes; l++)
        wb_ext.pa[l] = wb_ext.va[l] = addr + 8u * l;
    wb_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = delay; // the writer does not wait for it
    isock->b_transport(wb_gp, d);
}

void data_cache::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    access(gp, delay, false);
}

void data_cache::pte_b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    access(gp, delay, true);
}

void data_cache::access(tlm::tlm_generic_payload &gp, sc_core::sc_time &delay, bool pte)
{
    const tlm::tlm_command cmd = gp.get_command();
    if (cmd == tlm::TLM_IGNORE_COMMAND) {
        isock->b_transport(gp, delay);
        return;
    }
    const bool write = cmd == tlm::TLM_WRITE_COMMAND;
    const unsigned shift = c->line_shift;
    warp_ext *w = gp.get_extension<warp_ext>();
    lines.clear();
    if (w) {
        if (w->nlanes > warp_ext::lanes) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        for (unsigned l = 0; l < w->nlanes; l++)
            if (w->active & (1u << l)) {
                const uint64_t ln = w->pa[l] >> shift;
                if (std::find(lines.begin(), lines.end(), ln) == lines.end())
                    lines.push_back(ln);
            }
    } else {
        const uint64_t len = gp.get_data_length() ? gp.get_data_length() : 1;
        for (uint64_t ln = gp.get_address() >> shift; ln <= (gp.get_address() + len - 1) >> shift; ln++)
            lines.push_back(ln);
    }
    accesses++;
    pte_accesses += pte;
    const sc_core::sc_time in = delay;
    const uint64_t now = cycle_at(delay);
    // VIPT: the set was selected while the TLB translated.
    const uint64_t hidden =
        w && c->cfg.vipt ? gmmu_cache_index_overlap(&c->cfg, uint64_t(w->xlate_time / clock)) : 0;
    vipt_hidden_cycles += hidden;
    uint64_t ready = now + c->cfg.hit_cycles - hidden;
    missed.clear();
    const uint32_t owner = w && w->warp < 64 && w->block < (1u << 26) ? (w->block << 6 | w->warp)
                                                                     : GMMU_CACHE_NO_OWNER;
    // The scheduler sideband, when the warp's SM asked for it (CCWS).
    sched_sideband_ext *sb =
        w && reports_to_warp && !pte ? gp.get_extension<sched_sideband_ext>() : nullptr;
    for (uint64_t ln : lines) {
        gmmu_cache_result r;
        gmmu_cache_access_by(c, ln << shift, write, now, owner, &r);
        if (sb && r.evicted && !sb->l1_victim) {
            sb->l1_victim = true;
            sb->l1_victim_addr = r.evicted_addr;
            sb->l1_victim_owner = r.evicted_owner;
        }
        if (pte && !write)
            (r.hit ? pte_read_hits : pte_read_misses)++;
        if (r.hit)
            ready = std::max(ready, r.ready > now + c->cfg.hit_cycles ? r.ready : ready);
        else
            missed.push_back(ln);
        if (sb && !r.hit)
            sb->l1_miss = true;
        if (r.writeback)
            write_back(r.writeback_addr, delay);
    }
    const sc_core::sc_time hit_time = clock * double(c->cfg.hit_cycles - hidden);
    if (write && !c->cfg.write_allocate) {
        // Write-through: the next level books the write; the writer is done
        // once this cache has it.
        sc_core::sc_time d = delay + hit_time;
        isock->b_transport(gp, d);
        posted_writes++;
        forwarded++;
    } else if (write || missed.empty()) {
        // A hit, or a write absorbed by a write-allocate cache: data moves
        // functionally, no time is spent below.
        isock->transport_dbg(gp);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
    } else {
        sc_core::sc_time d = delay + hit_time;
        isock->b_transport(gp, d);
        forwarded++;
        const uint64_t done = std::max(cycle_at(d), now + c->cfg.hit_cycles - hidden);
        for (uint64_t ln : missed)
            gmmu_cache_fill_ready(c, ln << shift, done);
        ready = std::max(ready, done);
    }
    delay += clock * double(ready - now);
    if (w)
        w->data_delay = delay - in;
    gp.set_dmi_allowed(false); // timed accesses go through the cache
}

unsigned data_cache::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    return isock->transport_dbg(gp);
}

bool data_cache::get_direct_mem_ptr(int, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi)
{
    return isock->get_direct_mem_ptr(gp, dmi);
}

void data_cache::invalidate_from_below(sc_dt::uint64 lo, sc_dt::uint64 hi)
{
    for (unsigned i = 0; i < tsock.size(); i++)
        tsock[i]->invalidate_direct_mem_ptr(lo, hi);
}

const stat_table<data_cache> &data_cache::stats_table()
{
    using json = nlohmann::json;
    using T = data_cache;
    static const stat_table<data_cache> table(
        60, "Data caches (`gpu.l1_cacheN`, `gpu.l2_cache`, with `l1_cache.enabled` / `l2_cache.enabled`)",
        "Counted per line (a warp access touching several lines counts each). Hits move their data through `transport_dbg`, so with caches `memory.debug_accesses` counts them too.",
        {
            {"accesses", "`b_transport` calls that reached the cache",
             [](const T &c) { return json(c.accesses); }},
            {"read_hits", "line lookups of reads that hit",
             [](const T &c) { return json(c.c->st.read_hits); }},
            {"read_misses", "line lookups of reads that missed",
             [](const T &c) { return json(c.c->st.read_misses); }},
            {"write_hits", "line lookups of writes that hit",
             [](const T &c) { return json(c.c->st.write_hits); }},
            {"write_misses", "line lookups of writes that missed (L1: a miss does not allocate; L2: it allocates the line dirty)",
             [](const T &c) { return json(c.c->st.write_misses); }},
            {"hits_under_fill", "hits on a line whose fill was still in flight: they complete with the fill",
             [](const T &c) { return json(c.c->st.hits_under_fill); }},
            {"evictions", "lines replaced",
             [](const T &c) { return json(c.c->st.evictions); }},
            {"writebacks", "dirty lines replaced and sent to the next level as timing-only writes",
             [](const T &c) { return json(c.c->st.writebacks); }},
            {"forwarded", "accesses sent down with `b_transport` (read misses, and the L1's posted writes)",
             [](const T &c) { return json(c.forwarded); }},
            {"posted_writes", "writes the L1 passed down without the writer waiting for them",
             [](const T &c) { return json(c.posted_writes); }},
            {"pte_accesses", "page-table walker accesses that reached the cache (on `pte_tsock`, `ptw.via`)",
             [](const T &c) { return json(c.pte_accesses); }, [](const T &c) { return c.pte_accesses > 0; }},
            {"pte_read_hits", "line lookups of walker reads that hit (also in `read_hits`)",
             [](const T &c) { return json(c.pte_read_hits); }, [](const T &c) { return c.pte_accesses > 0; }},
            {"pte_read_misses", "line lookups of walker reads that missed (also in `read_misses`)",
             [](const T &c) { return json(c.pte_read_misses); }, [](const T &c) { return c.pte_accesses > 0; }},
            {"vipt_hidden_cycles", "cycles of hit time hidden under translations (virtually indexed L1, `l1_cache.indexing=vipt`)",
             [](const T &c) { return json(c.vipt_hidden_cycles); }, [](const T &c) { return c.c->cfg.vipt; }},
            {"read_hit_rate", "`read_hits / (read_hits + read_misses)`",
             [](const T &c) { return json(c.c->st.read_hits + c.c->st.read_misses ? double(c.c->st.read_hits) / double(c.c->st.read_hits + c.c->st.read_misses) : 0.0); }},
        });
    return table;
}

static const bool data_cache_stats_declared = (data_cache::stats_table(), true);

void data_cache::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
