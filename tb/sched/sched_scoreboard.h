// gmmu walk-scheduler bench: scoreboard. Compares one cycle's gmmu_ws_out of
// the C model and of the RTL, every field of every entry (the C model zeroes
// unused entries, so must the RTL), and renders a field-by-field diff.
#pragma once

#include <cinttypes>
#include <cstdio>
#include <string>

extern "C" {
#include "gmmu/walk_sched.h"
}

namespace sched_tb {

class Scoreboard {
public:
    // True when every field is equal (the per-cycle test; Diff only on failure).
    static bool Equal(const gmmu_ws_out &c, const gmmu_ws_out &r)
    {
        if (c.req.valid != r.req.valid || c.req.level != r.req.level || c.req.tag != r.req.tag ||
            c.req.pa != r.req.pa || c.n_done != r.n_done)
            return false;
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++)
            if (c.alloc_accepted[k] != r.alloc_accepted[k] || c.alloc_mshr[k] != r.alloc_mshr[k])
                return false;
        for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX; j++) {
            const gmmu_ws_done &a = c.done[j], &b = r.done[j];
            if (a.valid != b.valid || a.fault != b.fault || a.fault_level != b.fault_level ||
                a.page_shift != b.page_shift || a.mshr != b.mshr || a.nreads != b.nreads ||
                a.va != b.va || a.pa != b.pa || a.pte != b.pte)
                return false;
            for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
                if (a.table_base[l] != b.table_base[l])
                    return false;
        }
        return true;
    }

    // Empty when equal; otherwise one line per differing field.
    static std::string Diff(const gmmu_ws_out &c, const gmmu_ws_out &r)
    {
        std::string d;
        Field(d, "req.valid", c.req.valid, r.req.valid);
        Field(d, "req.level", c.req.level, r.req.level);
        Field(d, "req.tag", c.req.tag, r.req.tag);
        Field(d, "req.pa", c.req.pa, r.req.pa);
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
            std::string p = "alloc[" + std::to_string(k) + "].";
            Field(d, p + "accepted", c.alloc_accepted[k], r.alloc_accepted[k]);
            Field(d, p + "mshr", c.alloc_mshr[k], r.alloc_mshr[k]);
        }
        Field(d, "n_done", c.n_done, r.n_done);
        for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX; j++) {
            const gmmu_ws_done &a = c.done[j], &b = r.done[j];
            std::string p = "done[" + std::to_string(j) + "].";
            Field(d, p + "valid", a.valid, b.valid);
            Field(d, p + "fault", a.fault, b.fault);
            Field(d, p + "fault_level", a.fault_level, b.fault_level);
            Field(d, p + "page_shift", a.page_shift, b.page_shift);
            Field(d, p + "mshr", a.mshr, b.mshr);
            Field(d, p + "nreads", a.nreads, b.nreads);
            Field(d, p + "va", a.va, b.va);
            Field(d, p + "pa", a.pa, b.pa);
            Field(d, p + "pte", a.pte, b.pte);
            for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
                Field(d, p + "table_base[" + std::to_string(l) + "]", a.table_base[l], b.table_base[l]);
        }
        return d;
    }

    // A hash of every output field (for comparing whole runs).
    static uint64_t Hash(uint64_t h, const gmmu_ws_out &o)
    {
        auto mix = [&h](uint64_t v) { h = (h ^ v) * 0x100000001B3ull; };
        mix(o.req.valid);
        mix(o.req.level);
        mix(o.req.tag);
        mix(o.req.pa);
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++)
            mix(((uint64_t)o.alloc_accepted[k] << 8) | o.alloc_mshr[k]);
        mix(o.n_done);
        for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX; j++) {
            const gmmu_ws_done &a = o.done[j];
            mix(((uint64_t)a.valid << 40) | ((uint64_t)a.fault << 32) | ((uint64_t)a.fault_level << 24) |
                ((uint64_t)a.page_shift << 16) | ((uint64_t)a.mshr << 8) | a.nreads);
            mix(a.va);
            mix(a.pa);
            mix(a.pte);
            for (unsigned l = 0; l <= GMMU_PT_LEVELS; l++)
                mix(a.table_base[l]);
        }
        return h;
    }

private:
    static void Field(std::string &d, const std::string &name, uint64_t c, uint64_t r)
    {
        if (c == r)
            return;
        char buf[160];
        std::snprintf(buf, sizeof buf, "  %-22s C model 0x%" PRIx64 "  RTL 0x%" PRIx64 "\n", name.c_str(), c, r);
        d += buf;
    }
};

} // namespace sched_tb
