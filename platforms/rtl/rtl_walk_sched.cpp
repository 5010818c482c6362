// gmmu - Verilated walk scheduler behind the gmmu_walk_sched_step() signature.
#include "rtl_walk_sched.h"

#include <bitset>
#include <cstring>

#include "verilated.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif
#if VM_TRACE_FST
#include "verilated_fst_c.h"
#else
class VerilatedFstC; // mutate.sh builds the models without tracing
#endif

// One Verilated model per compiled configuration. platforms/rtl/CMakeLists.txt
// generates, from its one list of configurations, ws_headers.inc (the model
// headers) and ws_configs.inc (lines WS_CFG(name, variant, mshrs, walkers,
// scan_pass_cycles, retire_width)).
#include "ws_headers.inc"

namespace gmmu {
namespace {

// ---- bit access on Verilator port types -------------------------------------
// Wide ports (VlWide: 32-bit words) are written and read one word-aligned
// chunk (up to 32 bits) at a time (the per-bit loops of the first version
// took a sixth of the lean lock-step bench's time).
template <std::size_t W> void PutBits(VlWide<W> &w, unsigned lsb, unsigned width, uint64_t v)
{
    while (width) {
        const unsigned word = lsb / 32, off = lsb % 32;
        const unsigned n = width < 32 - off ? width : 32 - off;
        const uint32_t mask = (n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1u)) << off;
        w[word] = (w[word] & ~mask) | (((uint32_t)v << off) & mask);
        v >>= n; // n <= 32
        lsb += n;
        width -= n;
    }
}
template <std::size_t W> void ClearWide(VlWide<W> &w)
{
    for (std::size_t i = 0; i < W; i++)
        w[i] = 0;
}
template <typename T> void PutBits(T &w, unsigned lsb, unsigned width, uint64_t v)
{
    uint64_t mask = (width >= 64 ? ~0ull : ((1ull << width) - 1)) << lsb;
    w = (T)(((uint64_t)w & ~mask) | ((v << lsb) & mask));
}
template <std::size_t W> uint64_t GetBits(const VlWide<W> &w, unsigned lsb, unsigned width)
{
    uint64_t v = 0;
    unsigned got = 0;
    while (got < width) {
        const unsigned word = lsb / 32, off = lsb % 32;
        const unsigned n = width - got < 32 - off ? width - got : 32 - off;
        const uint32_t bits = (w[word] >> off) & (n == 32 ? 0xFFFFFFFFu : ((1u << n) - 1u));
        v |= (uint64_t)bits << got;
        lsb += n;
        got += n;
    }
    return v;
}
template <typename T> uint64_t GetBits(const T &w, unsigned lsb, unsigned width)
{
    uint64_t v = (uint64_t)w >> lsb;
    return width >= 64 ? v : (v & ((1ull << width) - 1));
}

bool AllocOk(const gmmu_ws_alloc &a)
{
    return a.start_level >= 1 && a.start_level <= 4 && !(a.table_base & 0xFFFull) &&
           !(a.table_base & ~GMMU_PTE_ADDR_MASK) &&
           !(a.access & ~(unsigned)(GMMU_ACC_WRITE | GMMU_ACC_USER));
}

template <class V> class VImpl final : public RtlWalkSched {
public:
    VImpl(const gmmu_ws_config &cfg, int rand_reset, uint64_t seed) : RtlWalkSched(cfg)
    {
        ctx_ = std::make_unique<VerilatedContext>();
        ctx_->fatalOnError(false); // an assertion failure is reported, not fatal
        ctx_->randReset(rand_reset);
        ctx_->randSeed((int)(seed & 0x7FFFFFFF));
#if VM_TRACE_FST
        ctx_->traceEverOn(true);
#endif
        top_ = std::make_unique<V>(ctx_.get(), "walk_sched");
        Reset();
    }
    ~VImpl() override
    {
        // Verilated runtime calls (scope teardown, SVA failures) act on the
        // thread's current context: make it ours, not that of the last
        // model another twin in this process built or stepped.
        Verilated::threadContextp(ctx_.get());
        CloseTrace();
        top_->final();
    }

    void Reset() override
    {
        Verilated::threadContextp(ctx_.get()); // see ~VImpl
        top_->clk_i = 0;
        top_->rst_ni = 1;
        ClearInputs();
        Eval();
        top_->rst_ni = 0;
        Eval();
        top_->clk_i = 1; // a clock edge inside reset changes nothing
        Eval();
        top_->clk_i = 0;
        Eval();
        top_->rst_ni = 1;
        Eval();
        inflight_.reset();
        scans_ = 0;
    }

    gmmu_status Step(const gmmu_ws_in *in, gmmu_ws_out *out) override
    {
        if (!in || !out)
            return GMMU_EINVAL;
        Verilated::threadContextp(ctx_.get()); // see ~VImpl
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++)
            if (in->alloc[k].valid && !AllocOk(in->alloc[k]))
                return GMMU_EINVAL;
        if (in->resp.valid && (in->resp.tag >= 4u * cfg_.mshrs || !inflight_[in->resp.tag]))
            return GMMU_EINVAL;
        // drive the inputs of this cycle with the clock low
        ClearInputs();
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
            const gmmu_ws_alloc &a = in->alloc[k];
            if (!a.valid)
                continue;
            PutBits(top_->alloc_valid_i, k, 1, 1);
            PutBits(top_->alloc_va_i, 64 * k, 64, a.va);
            PutBits(top_->alloc_table_i, 40 * k, 40, a.table_base >> 12);
            PutBits(top_->alloc_start_level_i, 3 * k, 3, a.start_level);
            PutBits(top_->alloc_access_i, 2 * k, 2, a.access);
        }
        top_->resp_valid_i = in->resp.valid ? 1 : 0;
        top_->resp_tag_i = in->resp.valid ? (uint8_t)in->resp.tag : 0;
        top_->resp_data_i = in->resp.valid ? in->resp.data : 0;
        top_->mem_ready_i = in->mem_ready ? 1 : 0;
        Eval();
        // sample the outputs of the cycle
        std::memset(out, 0, sizeof *out);
        out->req.valid = top_->req_valid_o;
        out->req.level = top_->req_level_o;
        out->req.tag = top_->req_tag_o;
        out->req.pa = top_->req_pa_o;
        for (unsigned k = 0; k < GMMU_WS_ALLOC_MAX; k++) {
            out->alloc_accepted[k] = (uint8_t)GetBits(top_->alloc_accepted_o, k, 1);
            out->alloc_mshr[k] = (uint8_t)GetBits(top_->alloc_mshr_o, 8 * k, 8);
        }
        out->n_done = top_->n_done_o;
        for (unsigned j = 0; j < GMMU_WS_RETIRE_MAX; j++) {
            gmmu_ws_done &d = out->done[j];
            d.valid = (uint8_t)GetBits(top_->done_valid_o, j, 1);
            d.fault = (uint8_t)GetBits(top_->done_fault_o, 3 * j, 3);
            d.fault_level = (uint8_t)GetBits(top_->done_fault_level_o, 3 * j, 3);
            d.page_shift = (uint8_t)GetBits(top_->done_page_shift_o, 6 * j, 6);
            d.mshr = (uint8_t)GetBits(top_->done_mshr_o, 8 * j, 8);
            d.nreads = (uint8_t)GetBits(top_->done_nreads_o, 3 * j, 3);
            d.va = GetBits(top_->done_va_o, 64 * j, 64);
            d.pa = GetBits(top_->done_pa_o, 52 * j, 52);
            d.pte = GetBits(top_->done_pte_o, 64 * j, 64);
            d.table_base[0] = 0;
            for (unsigned l = 1; l <= GMMU_PT_LEVELS; l++)
                d.table_base[l] = GetBits(top_->done_table_o, 160 * j + 40 * (l - 1), 40) << 12;
        }
        scans_ += top_->rootp->walk_sched__DOT__try_found & 1u;
        // the clock edge ends the cycle; the clock falls with the next
        // cycle's inputs (one evaluation fewer per cycle)
        top_->clk_i = 1;
        Eval();
        top_->clk_i = 0;
        if (in->resp.valid)
            inflight_[in->resp.tag] = false;
        if (out->req.valid)
            inflight_[out->req.tag] = true;
        cycles_++;
        return GMMU_OK;
    }

#if VM_TRACE_FST
    bool OpenTrace(const std::string &path) override
    {
        CloseTrace();
        tfp_ = std::make_unique<VerilatedFstC>();
        top_->trace(tfp_.get(), 99);
        tfp_->open(path.c_str());
        return tfp_->isOpen();
    }
    void CloseTrace() override
    {
        if (tfp_) {
            tfp_->close();
            tfp_.reset();
        }
    }
#else
    bool OpenTrace(const std::string &) override { return false; }
    void CloseTrace() override {}
#endif
#if VM_COVERAGE
    void WriteCoverage(const std::string &path) override { ctx_->coveragep()->write(path.c_str()); }
#else
    void WriteCoverage(const std::string &) override {}
#endif
    bool AssertionFailed() const override { return ctx_->gotError(); }
    uint64_t Cycles() const override { return cycles_; }
    uint64_t ScansStarted() const override { return scans_; }
    bool Quiescent() const override
    {
        const auto *r = top_->rootp;
        const unsigned n = cfg_.mshrs, slots = 4 * cfg_.mshrs;
        if (r->walk_sched__DOT__scan_active_q & 1u)
            return false;
        for (unsigned s = 0; s < slots; s++)
            if (GetBits(r->walk_sched__DOT__s_state_q, 2 * s, 2) == GMMU_WS_SLOT_QUEUED &&
                GetBits(r->walk_sched__DOT__s_known_q, s, 1))
                return false;
        // SERIAL: a walker is busy with each MSHR dispatched and not done
        unsigned busy_walkers = 0;
        bool waiting = false;
        for (unsigned i = 0; i < n; i++) {
            if (!GetBits(r->walk_sched__DOT__m_valid_q, i, 1))
                continue;
            if (GetBits(r->walk_sched__DOT__m_done_q, i, 1))
                return false;
            if (GetBits(r->walk_sched__DOT__m_next_q, 3 * i, 3))
                waiting = true;
            else
                busy_walkers++;
        }
        if (!waiting)
            return true;
        return cfg_.variant == GMMU_WS_SERIAL && busy_walkers >= cfg_.walkers;
    }

private:
    void ClearInputs()
    {
        top_->alloc_valid_i = 0;
        ClearWide(top_->alloc_va_i);
        ClearWide(top_->alloc_table_i);
        top_->alloc_start_level_i = 0;
        top_->alloc_access_i = 0;
        top_->resp_valid_i = 0;
        top_->resp_tag_i = 0;
        top_->resp_data_i = 0;
        top_->mem_ready_i = 0;
    }
    void Eval()
    {
        top_->eval();
#if VM_TRACE_FST
        if (tfp_)
            tfp_->dump(ctx_->time());
#endif
        ctx_->timeInc(1);
    }

    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<V> top_;
#if VM_TRACE_FST
    std::unique_ptr<VerilatedFstC> tfp_;
#else
    std::unique_ptr<int> tfp_; // never set
#endif
    std::bitset<4 * GMMU_WS_MAX_MSHRS> inflight_;
    uint64_t cycles_ = 0;
    uint64_t scans_ = 0;
};

struct Entry {
    gmmu_ws_config cfg;
    std::unique_ptr<RtlWalkSched> (*make)(const gmmu_ws_config &, int, uint64_t);
};

template <class V>
std::unique_ptr<RtlWalkSched> Make(const gmmu_ws_config &cfg, int rand_reset, uint64_t seed)
{
    return std::make_unique<VImpl<V>>(cfg, rand_reset, seed);
}

const std::vector<Entry> &Registry()
{
#define WS_CFG(name, v, m, w, p, r) \
    Entry{gmmu_ws_config{(gmmu_ws_variant)(v), m, w, p, r}, &Make<Vws_##name>},
    static const std::vector<Entry> reg = {
#include "ws_configs.inc"
    };
#undef WS_CFG
    return reg;
}

bool Same(const gmmu_ws_config &a, const gmmu_ws_config &b)
{
    return a.variant == b.variant && a.mshrs == b.mshrs && a.walkers == b.walkers &&
           a.scan_pass_cycles == b.scan_pass_cycles && a.retire_width == b.retire_width;
}

} // namespace

std::unique_ptr<RtlWalkSched> RtlWalkSched::Create(const gmmu_ws_config &cfg, std::string *err,
                                                   int rand_reset, uint64_t seed)
{
    for (const Entry &e : Registry())
        if (Same(e.cfg, cfg))
            return e.make(cfg, rand_reset, seed);
    if (err) {
        *err = "no Verilated walk scheduler for " + Name(cfg) + "; compiled:";
        for (const Entry &e : Registry())
            *err += " " + Name(e.cfg);
    }
    return nullptr;
}

std::vector<gmmu_ws_config> RtlWalkSched::Available()
{
    std::vector<gmmu_ws_config> v;
    for (const Entry &e : Registry())
        v.push_back(e.cfg);
    return v;
}

std::string RtlWalkSched::Name(const gmmu_ws_config &cfg)
{
    static const char *const kVar[] = {"serial", "tree", "pair"};
    std::string s = (unsigned)cfg.variant < 3 ? kVar[cfg.variant] : "variant?";
    s += std::to_string(cfg.mshrs);
    if (cfg.variant == GMMU_WS_SERIAL)
        s += "w" + std::to_string(cfg.walkers);
    else
        s += "p" + std::to_string(cfg.scan_pass_cycles);
    s += "r" + std::to_string(cfg.retire_width);
    return s;
}

} // namespace gmmu
