// gmmu walk-scheduler bench: sequences and the lock-step runner. Every cycle
// the C model (gmmu_walk_sched_step) and the RTL (gmmu::RtlWalkSched) get the
// same gmmu_ws_in and every field of their gmmu_ws_out is compared.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "rtl_walk_sched.h"
#include "sched_mem.h"
#include "sched_scoreboard.h"

namespace sched_tb {

// Traffic knobs of one phase of a random run.
struct Knobs {
    unsigned alloc_pct = 50; // per cycle: chance that allocations are offered
    unsigned slot_pct = 60;  // ... chance that each of the 4 ports carries one
    unsigned ready_pct = 100;
    unsigned lat_min = 1, lat_max = 20;
    bool in_order = false;
    bool mixed_start = true;

    static Knobs Draw(std::mt19937_64 &rng)
    {
        Knobs k;
        k.alloc_pct = 5 + (unsigned)(rng() % 96);
        k.slot_pct = 20 + (unsigned)(rng() % 81);
        k.ready_pct = 40 + (unsigned)(rng() % 61);
        if (rng() % 3 == 0)
            k.ready_pct = 100;
        else if (rng() % 6 == 0)
            k.ready_pct = 2 + (unsigned)(rng() % 9); // memory nearly blocked: scans run
                                                     // ahead, slots run short
        k.lat_min = 1 + (unsigned)(rng() % 4);
        k.lat_max = k.lat_min + (unsigned)(rng() % (rng() % 4 == 0 ? 200 : 40));
        k.in_order = rng() % 4 == 0;
        k.mixed_start = rng() % 2 == 0;
        return k;
    }
};

struct RunResult {
    bool ok = true;
    uint64_t fail_cycle = 0;
    std::string msg;
    uint64_t cycles = 0;
    uint64_t out_hash = 0xcbf29ce484222325ull;
    std::vector<std::pair<uint64_t, uint64_t>> reqs; // (cycle, pa)
    std::vector<std::pair<uint64_t, uint64_t>> dones; // (cycle, va)
    gmmu_ws_stats st{};
};

// The lock-step pair: C model and RTL of one configuration.
class LockStep {
public:
    // record: keep every request and completion in the RunResult (the
    // directed tests check them; long runs turn it off to bound memory).
    LockStep(const gmmu_ws_config &cfg, int rand_reset, uint64_t seed, const std::string &fst,
             bool record = true)
        : cfg_(cfg), record_(record)
    {
        gmmu_error err{};
        init_ok_ = gmmu_walk_sched_create(&cfg, &ws_, &err) == GMMU_OK;
        if (!init_ok_)
            msg_ = std::string("C model init: ") + err.field + ": " + err.msg;
        rtl_ = gmmu::RtlWalkSched::Create(cfg, &msg_, rand_reset, seed);
        if (rtl_ && !fst.empty())
            rtl_->OpenTrace(fst);
    }
    ~LockStep() { gmmu_walk_sched_destroy(ws_); }
    LockStep(const LockStep &) = delete;
    LockStep &operator=(const LockStep &) = delete;
    bool Ok() const { return init_ok_ && rtl_ != nullptr; }
    const std::string &Msg() const { return msg_; }
    gmmu_walk_sched &Model() { return *ws_; }
    gmmu::RtlWalkSched &Rtl() { return *rtl_; }

    // One cycle; false (with res filled) on the first mismatch.
    bool Step(const gmmu_ws_in &in, gmmu_ws_out &out, uint64_t seed, RunResult &res)
    {
        gmmu_ws_out r{};
        gmmu_status sc = gmmu_walk_sched_step(ws_, &in, &out);
        gmmu_status sr = rtl_->Step(&in, &r);
        const uint64_t cyc = res.cycles++;
        res.out_hash = Scoreboard::Hash(res.out_hash, r);
        if (record_) {
            if (out.req.valid)
                res.reqs.emplace_back(cyc, out.req.pa);
            for (unsigned j = 0; j < out.n_done; j++)
                res.dones.emplace_back(cyc, out.done[j].va);
        }
        // Every cycle: the outputs, and what the platform reads besides them
        // (gmmu_ws_run_device's idle-cycle skip, the scans counter). The diff
        // text is built only on a mismatch.
        if (sc == GMMU_OK && sr == GMMU_OK && Scoreboard::Equal(out, r) &&
            gmmu_walk_sched_quiescent(ws_) == rtl_->Quiescent() &&
            ws_->st.scans == rtl_->ScansStarted() && !rtl_->AssertionFailed())
            return true;
        std::string d;
        if (sc != GMMU_OK || sr != GMMU_OK)
            d = "  step status: C model " + std::to_string(sc) + ", RTL " + std::to_string(sr) + "\n";
        d += Scoreboard::Diff(out, r);
        // what the platform reads besides the outputs (gmmu_ws_run_device's
        // idle-cycle skip, the scans counter)
        if (gmmu_walk_sched_quiescent(ws_) != rtl_->Quiescent())
            d += "  quiescent              C model " + std::to_string(gmmu_walk_sched_quiescent(ws_)) +
                 "  RTL " + std::to_string(rtl_->Quiescent()) + "\n";
        if (ws_->st.scans != rtl_->ScansStarted())
            d += "  scans started          C model " + std::to_string(ws_->st.scans) + "  RTL " +
                 std::to_string(rtl_->ScansStarted()) + "\n";
        if (rtl_->AssertionFailed())
            d += "  an RTL assertion failed (see the %Error line above)\n";
        res.ok = false;
        res.fail_cycle = cyc;
        char head[200];
        std::snprintf(head, sizeof head, "mismatch at cycle %llu, config %s, GMMU_SEED=0x%llx:\n",
                      (unsigned long long)cyc, gmmu::RtlWalkSched::Name(cfg_).c_str(),
                      (unsigned long long)seed);
        res.msg = head + d;
        return false;
    }

    void Finish(RunResult &res) { res.st = ws_->st; }

private:
    gmmu_ws_config cfg_;
    bool record_;
    gmmu_walk_sched *ws_ = nullptr; // the C model (gmmu_walk_sched_create), owned
    bool init_ok_ = false;
    std::string msg_;
    std::unique_ptr<gmmu::RtlWalkSched> rtl_;
};

// Random stimulus: allocations from a synthetic world (re-drawn with the
// knobs in phases), random latencies, out-of-order responses, back-pressure.
// Ends with a drain: no new allocations until the model is idle.
inline RunResult RunRandom(const gmmu_ws_config &cfg, uint64_t seed, uint64_t cycles, int rand_reset,
                           const std::string &fst = "", uint64_t stop_at = UINT64_MAX,
                           const std::string &cov = "", bool record = true)
{
    RunResult res;
    LockStep ls(cfg, rand_reset, seed, fst, record);
    if (!ls.Ok()) {
        res.ok = false;
        res.msg = ls.Msg();
        return res;
    }
    std::mt19937_64 rng(seed);
    auto world = std::make_unique<SynthWorld>(rng);
    Knobs k = Knobs::Draw(rng);
    uint64_t phase_end = 500 + rng() % 20000;
    Responder mem;
    std::vector<gmmu_ws_alloc> queue;
    const uint64_t drain_limit = cycles + 20000;
    for (uint64_t now = 0; now < drain_limit && now <= stop_at; now++) {
        const bool draining = now >= cycles;
        if (draining && gmmu_walk_sched_idle(&ls.Model()) && mem.pend.empty())
            break;
        if (now == phase_end) {
            k = Knobs::Draw(rng);
            if (rng() % 4 == 0)
                world = std::make_unique<SynthWorld>(rng);
            phase_end = now + 500 + rng() % 20000;
        }
        mem.lat_min = k.lat_min;
        mem.lat_max = k.lat_max;
        mem.in_order = k.in_order;
        gmmu_ws_in in{};
        int offered[GMMU_WS_ALLOC_MAX] = {-1, -1, -1, -1};
        if (!draining && rng() % 100 < k.alloc_pct) {
            size_t next = 0;
            for (unsigned p = 0; p < GMMU_WS_ALLOC_MAX; p++) {
                if (rng() % 100 >= k.slot_pct)
                    continue;
                while (queue.size() <= next) {
                    gmmu_ws_alloc a{};
                    a.va = world->DrawVa(rng);
                    a.table_base = world->tables[0];
                    a.start_level = 4;
                    a.access = (uint8_t)(rng() % 4);
                    if (k.mixed_start && rng() % 3 == 0) {
                        a.start_level = (uint8_t)(1 + rng() % 3);
                        a.table_base = world->tables[rng() % world->tables.size()];
                    }
                    a.valid = 1;
                    queue.push_back(a);
                }
                in.alloc[p] = queue[next];
                offered[p] = (int)next++;
            }
        }
        in.resp = mem.Next(now, rng);
        in.mem_ready = rng() % 100 < k.ready_pct;
        gmmu_ws_out out{};
        if (!ls.Step(in, out, seed, res))
            break;
        if (out.req.valid)
            mem.Issue(out.req.tag, world->Read(out.req.pa), now, rng);
        std::vector<size_t> taken;
        for (unsigned p = 0; p < GMMU_WS_ALLOC_MAX; p++)
            if (offered[p] >= 0 && out.alloc_accepted[p])
                taken.push_back((size_t)offered[p]);
        for (auto it = taken.rbegin(); it != taken.rend(); ++it)
            queue.erase(queue.begin() + (std::ptrdiff_t)*it);
    }
    if (res.ok && stop_at == UINT64_MAX && !gmmu_walk_sched_idle(&ls.Model())) {
        res.ok = false;
        char m[120];
        std::snprintf(m, sizeof m, "the scheduler did not drain within 20000 cycles (GMMU_SEED=0x%llx)",
                      (unsigned long long)seed);
        res.msg = m;
    }
    ls.Finish(res);
    if (!cov.empty())
        ls.Rtl().WriteCoverage(cov);
    return res;
}

// Directed run in the shape of gmmu_walk_sched_run(): allocations offered as
// MSHRs free (up to 4 a cycle, in order), fixed latency, in-order responses,
// memory always ready.
inline RunResult RunDirected(const gmmu_ws_config &cfg, PteSource &mem_src,
                             const std::vector<gmmu_ws_alloc> &allocs, unsigned latency,
                             const std::string &fst = "", const std::string &cov = "")
{
    RunResult res;
    LockStep ls(cfg, 0, 0, fst);
    if (!ls.Ok()) {
        res.ok = false;
        res.msg = ls.Msg();
        return res;
    }
    std::mt19937_64 rng(1);
    Responder mem;
    mem.lat_min = mem.lat_max = latency;
    size_t next = 0, done = 0;
    for (uint64_t now = 0; done < allocs.size() && now < 100000; now++) {
        gmmu_ws_in in{};
        unsigned offer = gmmu_walk_sched_free_mshrs(&ls.Model());
        offer = std::min<unsigned>({offer, GMMU_WS_ALLOC_MAX, (unsigned)(allocs.size() - next)});
        for (unsigned p = 0; p < offer; p++) {
            in.alloc[p] = allocs[next + p];
            in.alloc[p].valid = 1;
        }
        in.resp = mem.Next(now, rng);
        in.mem_ready = 1;
        gmmu_ws_out out{};
        if (!ls.Step(in, out, 0, res))
            break;
        if (out.req.valid)
            mem.Issue(out.req.tag, mem_src.Read(out.req.pa), now, rng);
        for (unsigned p = 0; p < offer; p++)
            next += out.alloc_accepted[p];
        done += out.n_done;
    }
    ls.Finish(res);
    if (!cov.empty())
        ls.Rtl().WriteCoverage(cov);
    return res;
}

} // namespace sched_tb
