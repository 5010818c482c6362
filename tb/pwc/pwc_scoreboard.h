// gmmu — CPWC/TPC RTL benches: the scoreboard. Renders a cycle's inputs,
// diffs the outputs and the storage of the C model and the RTL field by field,
// and Harness steps both in lock-step, matching each lookup to its result at
// exactly the model's latency (as tb/sched's sched_scoreboard.h).
#pragma once

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <sstream>
#include <string>

extern "C" {
#include "gmmu/cpwc.h"
#include "gmmu/pwc.h"
#include "gmmu/tpc.h"
}

#include "pwc_bench.h"
#include "pwc_mem.h"

namespace pwcbench {

using gmmu::RtlPwc;
using gmmu::RtlPwcField;

// ---- scoreboard ------------------------------------------------------------------
struct PwcDel {
    void operator()(gmmu_pwc *p) const { gmmu_pwc_destroy(p); }
};

inline std::string in_str(const gmmu_pwc_cycle_in &in)
{
    std::ostringstream o;
    o << "inputs: lookup " << unsigned(in.lookup_valid) << " va " << hex(in.lookup_va) << " root "
      << hex(in.lookup_root) << " | fill " << unsigned(in.fill_valid) << " levels "
      << unsigned(in.fill_levels) << " va " << hex(in.fill_va) << " l3 " << hex(in.fill_base_l3)
      << " l2 " << hex(in.fill_base_l2) << " l1 " << hex(in.fill_base_l1) << " | inv "
      << unsigned(in.inv_valid) << " all " << unsigned(in.inv_all) << " lo " << hex(in.inv_lo)
      << " hi " << hex(in.inv_hi);
    return o.str();
}

inline std::string out_diff(const gmmu_pwc_cycle_out &m, const gmmu_pwc_cycle_out &r)
{
    std::ostringstream o;
    auto f = [&](const char *n, uint64_t a, uint64_t b) {
        o << "  " << n << ": model " << hex(a) << " rtl " << hex(b) << (a != b ? "   <-- differs" : "")
          << "\n";
    };
    f("hit_valid", m.hit_valid, r.hit_valid);
    f("start_level", m.start_level, r.start_level);
    f("table_base", m.table_base, r.table_base);
    return o.str();
}

// Storage of the C model vs the RTL's; empty string when equal.
inline std::string state_diff(const gmmu_pwc *p, const RtlPwc &rtl)
{
    std::ostringstream o;
    int shown = 0;
    auto bad = [&](const std::string &what, uint64_t m, uint64_t r) {
        if (m == r)
            return;
        if (shown++ < 12)
            o << "  " << what << ": model " << hex(m) << " rtl " << hex(r) << "\n";
    };
    const gmmu_pwc_config *cfg = gmmu_pwc_get_config(p);
    if (cfg->kind == GMMU_PWC_CPWC) {
        const gmmu_cpwc *c = gmmu_pwc_cpwc(p);
        const unsigned l4 = cfg->cpwc.l4_entries, l3 = cfg->cpwc.l3_entries,
                       nb = cfg->cpwc.l2_blocks, be = cfg->cpwc.block_entries;
        gmmu_cpwc_entry_view v;
        for (unsigned s = 0; s < l4; s++) {
            gmmu_cpwc_l4_entry(c, s, &v);
            std::string n = "L4[" + std::to_string(s) + "].";
            bad(n + "valid", v.valid, rtl.field(RtlPwcField::L4Valid, s));
            if (v.valid) {
                bad(n + "tag", v.tag, rtl.field(RtlPwcField::L4Tag, s));
                bad(n + "base", v.base >> 12, rtl.field(RtlPwcField::L4Base, s));
            }
        }
        for (unsigned s = 0; s < l3; s++) {
            gmmu_cpwc_l3_entry(c, s, &v);
            std::string n = "L3[" + std::to_string(s) + "].";
            bad(n + "valid", v.valid, rtl.field(RtlPwcField::L3Valid, s));
            if (v.valid) {
                bad(n + "tag", v.tag, rtl.field(RtlPwcField::L3Tag, s));
                bad(n + "base", v.base >> 12, rtl.field(RtlPwcField::L3Base, s));
            }
            for (unsigned w = 0; w * 64 < nb; w++) {
                unsigned width = std::min(64u, nb - w * 64);
                uint64_t mm = width == 64 ? v.mask[w] : (v.mask[w] & ((1ull << width) - 1));
                bad(n + "mask[" + std::to_string(w) + "]", mm,
                    rtl.field(RtlPwcField::L3Mask, s, w * 64, width));
            }
        }
        for (unsigned b = 0; b < nb; b++)
            for (unsigned w = 0; w < be; w++) {
                unsigned k = b * be + w;
                gmmu_cpwc_l2_entry(c, b, w, &v);
                std::string n = "L2[" + std::to_string(b) + "][" + std::to_string(w) + "].";
                bad(n + "valid", v.valid, rtl.field(RtlPwcField::L2Valid, k));
                if (v.valid) {
                    bad(n + "tag", v.tag, rtl.field(RtlPwcField::L2Tag, k));
                    bad(n + "base", v.base >> 12, rtl.field(RtlPwcField::L2Base, k));
                }
            }
    } else {
        const gmmu_tpc *t = gmmu_pwc_tpc(p);
        for (unsigned i = 0; i < cfg->tpc.entries; i++) {
            gmmu_tpc_entry_view v;
            gmmu_tpc_entry(t, i, &v);
            std::string n = "TPC[" + std::to_string(i) + "].";
            bad(n + "valid", v.valid, rtl.field(RtlPwcField::TpcValid, i));
            if (!v.valid)
                continue;
            uint64_t pv = rtl.field(RtlPwcField::TpcPartValid, i);
            unsigned depth = (pv & 1) ? ((pv & 2) ? ((pv & 4) ? 3 : 2) : 1) : 0;
            bad(n + "depth", v.depth, depth);
            for (unsigned j = 0; j < v.depth && j < 3; j++) {
                bad(n + "idx[" + std::to_string(j) + "]", v.idx[j],
                    rtl.field(RtlPwcField::TpcIdx, i, 9 * j, 9));
                const RtlPwcField bf[3] = {RtlPwcField::TpcBase0, RtlPwcField::TpcBase1,
                                           RtlPwcField::TpcBase2};
                bad(n + "base[" + std::to_string(j) + "]", v.base[j] >> 12, rtl.field(bf[j], i));
            }
        }
    }
    if (shown > 12)
        o << "  ... " << (shown - 12) << " more\n";
    return o.str();
}

// Lock-step pair: C model and RTL stepped with the same inputs, every output
// compared, issued lookups matched to results at exactly the model latency.
class Harness {
public:
    Harness(const std::string &variant, const RunOpts &opt) : opt_(opt)
    {
        gmmu::RtlPwcOptions ro;
        ro.reset_values = opt.reset_values;
        ro.seed = opt.seed;
        ro.fst = opt.fst;
        ro.coverage = opt.coverage;
        rtl_ = gmmu::make_rtl_pwc(variant, ro);
        if (!rtl_) {
            fail(0, "no RTL variant named " + variant);
            return;
        }
        gmmu_pwc *p = nullptr;
        gmmu_error err{};
        if (gmmu_pwc_create(&rtl_->config(), &p, &err) != GMMU_OK) {
            fail(0, std::string("gmmu_pwc_create: ") + err.field + ": " + err.msg);
            return;
        }
        model_.reset(p);
        lat_ = gmmu_pwc_latency(p);
    }
    bool ok() const { return res_.ok; }
    RunResult &result() { return res_; }
    gmmu_pwc *model() { return model_.get(); }
    RtlPwc &rtl() { return *rtl_; }
    unsigned latency() const { return lat_; }
    uint64_t now() const { return cycle_; }

    struct Issued {
        uint64_t cycle, va, root;
    };

    // One cycle; false on any mismatch (details in result()).
    bool step(const gmmu_pwc_cycle_in &in, gmmu_pwc_cycle_out *out, Issued *done)
    {
        gmmu_pwc_cycle_out m, r;
        if (gmmu_pwc_step(model_.get(), &in, &m) != GMMU_OK)
            return fail(cycle_, "gmmu_pwc_step rejected the inputs\n" + in_str(in));
        if (rtl_->step(&in, &r) != GMMU_OK)
            return fail(cycle_, "RTL step rejected the inputs\n" + in_str(in));
        if (std::memcmp(&m, &r, sizeof m) != 0)
            return fail(cycle_, "output mismatch\n" + out_diff(m, r) + "  " + in_str(in));
        if (rtl_->assertion_failed())
            return fail(cycle_, "SVA assertion failed (see the %Error line above)\n  " + in_str(in));
        hash(m);
        if (m.hit_valid) {
            if (pending_.empty())
                return fail(cycle_, "a result with no lookup in flight");
            Issued is = pending_.front();
            pending_.pop_front();
            if (cycle_ - is.cycle != lat_)
                return fail(cycle_, "lookup latency " + std::to_string(cycle_ - is.cycle) +
                                        " cycles, model says " + std::to_string(lat_));
            if (m.start_level == 4 && m.table_base != is.root)
                return fail(cycle_, "a miss must return the lookup's root");
            if (done)
                *done = is;
        }
        if (in.lookup_valid)
            pending_.push_back({cycle_, in.lookup_va, in.lookup_root});
        cycle_++;
        *out = m;
        if (opt_.state_every && cycle_ % opt_.state_every == 0)
            return check_state();
        return true;
    }
    bool check_state()
    {
        std::string d = state_diff(model_.get(), *rtl_);
        if (!d.empty())
            return fail(cycle_ - 1, "storage differs after the cycle's clock edge\n" + d);
        return true;
    }
    // Run idle cycles until both pipelines are empty; leftovers fail.
    bool drain()
    {
        gmmu_pwc_cycle_in in;
        std::memset(&in, 0, sizeof in);
        gmmu_pwc_cycle_out o;
        for (unsigned i = 0; i < lat_; i++)
            if (!step(in, &o, nullptr))
                return false;
        if (!pending_.empty())
            return fail(cycle_, std::to_string(pending_.size()) + " lookups never returned");
        return check_state();
    }
    bool fail(uint64_t cycle, const std::string &why)
    {
        if (res_.ok) {
            res_.ok = false;
            res_.fail_cycle = cycle;
            res_.why = why;
        }
        return false;
    }
    void finish() { res_.cycles = cycle_; }

private:
    void hash(const gmmu_pwc_cycle_out &o)
    {
        const unsigned char *b = reinterpret_cast<const unsigned char *>(&o);
        uint64_t h = res_.trace_hash ? res_.trace_hash : 1469598103934665603ull;
        for (size_t i = 0; i < sizeof o; i++)
            h = (h ^ b[i]) * 1099511628211ull;
        res_.trace_hash = h;
    }
    RunOpts opt_;
    RunResult res_;
    std::unique_ptr<RtlPwc> rtl_;
    std::unique_ptr<gmmu_pwc, PwcDel> model_;
    unsigned lat_ = 1;
    uint64_t cycle_ = 0;
    std::deque<Issued> pending_;
};

} // namespace pwcbench
