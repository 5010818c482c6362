#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <set>
#include <sstream>

extern "C" {
#include "gmmu/pagetable.h"
}

namespace gmmu {

// ---- random-sample -----------------------------------------------------------------
// karnagel-damon17's random sampling: every lane draws element indices from
// its own linear congruential generator over a region of 8-byte elements. A
// write phase stores the samples, then the generators restart and a read
// phase loads the same samples back; workload.phases=read runs the read
// phase alone (loads of memory nothing stored: the data check expects a
// value only after a store).
class random_sample : public workload {
  public:
    random_sample(const config &c, uint64_t seed)
        : random_sample(workload_config_from(c), workload_machine_from(c), seed) {}
    random_sample(const workload_config &w, const workload_machine &m, uint64_t seed)
        : base(w.base_va), bytes(w.region_bytes), accesses(w.accesses), seed(seed),
          sms(m.sms), warps(m.warps),
          lanes_active(w.active_lanes), scope(w.tlb_scope), touched_only(w.map_touched),
          first_phase(w.read_only ? 1 : 0)
    {
        elems = bytes / 8;
        // workload.map=touched: the sample bound is workload_spec.h's (touched_max_samples).
        if (scope == 0 || scope >= bytes)
            scope = bytes;
        scopes = (bytes + scope - 1) / scope;
        st.resize(size_t(sms) * warps);
        for (unsigned s = 0; s < sms; s++)
            for (unsigned w = 0; w < warps; w++)
                reset(st[s * warps + w], s, w);
    }
    std::string name() const override { return "random-sample"; }
    void setup(driver &drv, unsigned page_shift) override
    {
        if (!touched_only) {
            drv.map(base, bytes, page_shift);
            return;
        }
        // workload.map=touched: replay every lane's generator once (the read
        // phase loads the same samples) and map the pages its active lanes
        // will touch.
        const uint32_t want = lanes_active == 32 ? 0xFFFFFFFFu : (1u << lanes_active) - 1u;
        const uint64_t mask = ~((uint64_t(1) << page_shift) - 1);
        std::vector<uint64_t> pages;
        state s;
        for (unsigned sm = 0; sm < sms; sm++)
            for (unsigned w = 0; w < warps; w++) {
                reset_lcg(s, sm, w);
                for (uint64_t n = 0; n < accesses; n++)
                    for (unsigned l = 0; l < 32; l++) {
                        s.x[l] = step(s.x[l]);
                        if (want >> l & 1)
                            pages.push_back((base + offset(s.x[l])) & mask);
                    }
            }
        std::sort(pages.begin(), pages.end());
        pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
        drv.map_touched(base, bytes, page_shift, pages);
    }
    // Phase 0 stores the samples, phase 1 loads them back. TLB-conscious
    // (workload.tlb_scope): each phase runs one pass per scope, and a pass
    // issues only the lanes whose sample falls in its scope, so the TLBs see
    // one scope at a time; every sample is still accessed exactly once.
    // Passes are kernel launches: no warp starts a pass before every warp has
    // finished the previous one (it waits), else the TLBs would see two scopes.
    next_status poll(unsigned sm, unsigned warp, warp_op &op) override
    {
        if (next(sm, warp, op))
            return next_status::issue;
        return st[sm * warps + warp].at_barrier ? next_status::wait : next_status::done;
    }
    bool next(unsigned sm, unsigned warp, warp_op &op) override
    {
        state &s = st[sm * warps + warp];
        const uint32_t want = lanes_active == 32 ? 0xFFFFFFFFu : (1u << lanes_active) - 1u;
        for (;;) {
            if (s.n == accesses) {
                if (scopes > 1 && !(s.phase == 1 && s.pass + 1 == scopes)) {
                    const uint64_t step = uint64_t(s.phase) * scopes + s.pass;
                    // No warp passes barrier k + 1 before every warp has
                    // left barrier k: two counters serve every barrier.
                    barrier &b = arrived[step & 1];
                    if (b.step != step)
                        b = barrier{step, 0};
                    if (!s.at_barrier) {
                        s.at_barrier = true;
                        b.count++;
                    }
                    if (b.count < st.size())
                        return false; // poll() turns this into next_status::wait
                    s.at_barrier = false;
                }
                if (++s.pass == scopes) {
                    if (s.phase == 1)
                        return false;
                    s.phase = 1;
                    s.pass = 0;
                }
                reset_lcg(s, sm, warp);
            }
            op.write = s.phase == 0;
            op.nlanes = 32;
            op.active = 0;
            const uint64_t lo = s.pass * scope, hi = lo + scope;
            for (unsigned l = 0; l < 32; l++) {
                s.x[l] = step(s.x[l]);
                const uint64_t off = offset(s.x[l]);
                op.va[l] = base + off;
                if ((want >> l & 1) && off >= lo && off < hi)
                    op.active |= 1u << l;
            }
            s.n++;
            if (op.active)
                return true;
        }
    }

  private:
    struct state {
        std::array<uint64_t, 32> x{};
        uint64_t n = 0, pass = 0;
        int phase = 0;
        bool at_barrier = false;
    };
    static uint64_t step(uint64_t x) { return x * 6364136223846793005ull + 1442695040888963407ull; }
    uint64_t offset(uint64_t x) const { return ((x >> 17) % elems) * 8; }
    void reset_lcg(state &s, unsigned sm, unsigned warp)
    {
        for (unsigned l = 0; l < 32; l++)
            s.x[l] = data_pattern(seed * 0x100000001B3ull + (uint64_t(sm) << 32) + (warp << 8) + l);
        s.n = 0;
    }
    void reset(state &s, unsigned sm, unsigned warp)
    {
        reset_lcg(s, sm, warp);
        s.pass = 0;
        s.phase = first_phase;
    }
    uint64_t base, bytes, accesses, seed, elems;
    unsigned sms, warps, lanes_active;
    uint64_t scope, scopes;
    bool touched_only;
    int first_phase; // 0: write, then read; 1: read only
    struct barrier {
        uint64_t step = ~0ull; // phase x scopes + pass
        uint64_t count = 0;    // warps that finished it
    };
    std::array<barrier, 2> arrived; // the barriers of steps 2k and 2k + 1
    std::vector<state> st;
};

// ---- stream ----------------------------------------------------------------------
// Each warp streams through its own contiguous slice of the region, 32
// consecutive 8-byte words per instruction: one write pass, then
// workload.passes read passes.
class stream : public workload {
  public:
    stream(const config &c, uint64_t) : stream(workload_config_from(c), workload_machine_from(c)) {}
    stream(const workload_config &w, const workload_machine &m)
        : base(w.base_va), bytes(w.region_bytes), passes(w.passes), warps(m.warps),
          lanes_active(w.active_lanes)
    {
        unsigned total = m.sms * warps;
        slice = (bytes / total) & ~uint64_t(255);
        if (slice == 0)
            throw config_error("config key 'workload.region_bytes': stream needs at least 256 bytes "
                               "per warp (" + std::to_string(total * 256) + " bytes)");
        pos.assign(total, 0);
        pass.assign(total, 0);
    }
    std::string name() const override { return "stream"; }
    void setup(driver &drv, unsigned page_shift) override { drv.map(base, bytes, page_shift); }
    bool next(unsigned sm, unsigned warp, warp_op &op) override
    {
        size_t k = size_t(sm) * warps + warp;
        if (pos[k] >= slice) {
            pos[k] = 0;
            pass[k]++;
        }
        if (pass[k] > passes)
            return false;
        uint64_t start = base + k * slice + pos[k];
        op.write = pass[k] == 0;
        op.nlanes = 32;
        op.active = lanes_active == 32 ? 0xFFFFFFFFu : (1u << lanes_active) - 1u;
        for (unsigned l = 0; l < 32; l++)
            op.va[l] = start + 8ull * l;
        pos[k] += 256;
        return true;
    }

  private:
    uint64_t base, bytes, passes, slice;
    unsigned warps, lanes_active;
    std::vector<uint64_t> pos, pass;
};

std::string read_input_file(const std::string &key, const std::string &path, uint64_t max_bytes)
{
    const std::string who = "config key '" + key + "': " + path + ": ";
    const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        throw config_error(who + std::strerror(errno));
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        throw config_error(who + "not a regular file");
    }
    const auto too_big = [&] {
        close(fd);
        return config_error(who + "larger than " + std::to_string(max_bytes >> 20) + " MiB");
    };
    if (uint64_t(st.st_size) > max_bytes)
        throw too_big();
    std::string text;
    text.reserve(size_t(st.st_size));
    char buf[1 << 16];
    for (;;) {
        const ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int e = errno;
            close(fd);
            throw config_error(who + std::strerror(e));
        }
        if (n == 0)
            break;
        text.append(buf, size_t(n));
        if (text.size() > max_bytes) // the file grew while read
            throw too_big();
    }
    close(fd);
    return text;
}

// ---- trace -----------------------------------------------------------------------
// Text format, one warp access per line: `SM WARP R|W VA[,VA...]`, SM and WARP
// decimal, 1..32 VAs in hexadecimal with 0x; `#` starts a comment.
// Held compactly (a warp's VAs in one array, a byte per access), so the
// accesses of a trace cost about what its text does.
class trace : public workload {
  public:
    trace(const config &c, uint64_t) : trace(workload_config_from(c), workload_machine_from(c)) {}
    trace(const workload_config &wc, const workload_machine &m) : sms(m.sms), warps(m.warps)
    {
        path = wc.path; // gpu/workload_spec.h
        if (path.empty())
            throw config_error("config key 'workload.path': the trace workload needs a file "
                               "(--set workload.path=FILE)");
        q.resize(size_t(sms) * warps);
        parse(read_input_file("workload.path", path, trace_max_bytes));
        // Refused before anything is mapped: each distinct page costs a
        // mapping, page-table space and (when written) a frame.
        const unsigned shift = gmmu_log2_u64(m.page_size);
        std::set<uint64_t> pages;
        for (auto &w : q)
            for (uint64_t va : w.vas)
                if (pages.insert(va >> shift).second && pages.size() > trace_max_pages)
                    throw config_error("config key 'workload.path': " + path + ": touches more than " +
                                       std::to_string(trace_max_pages) + " distinct pages of page_size");
    }
    // The same parser over a trace file's text in memory.
    trace(const std::string &text, const std::string &p, unsigned s, unsigned w)
        : path(p), sms(s), warps(w)
    {
        q.resize(size_t(sms) * warps);
        parse(text);
    }
    size_t accesses() const
    {
        size_t n = 0;
        for (auto &w : q)
            n += w.ops.size();
        return n;
    }
    std::string name() const override { return "trace"; }
    void setup(driver &drv, unsigned page_shift) override
    {
        std::set<uint64_t> pages;
        for (auto &w : q)
            for (uint64_t va : w.vas)
                pages.insert(va >> page_shift);
        for (uint64_t p : pages)
            drv.map(p << page_shift, 1ull << page_shift, page_shift);
    }
    bool next(unsigned sm, unsigned warp, warp_op &op) override
    {
        auto &w = q[size_t(sm) * warps + warp];
        if (w.next_op == w.ops.size())
            return false;
        const uint8_t m = w.ops[w.next_op++];
        op = warp_op{};
        op.write = m & 0x80;
        op.nlanes = m & 0x3F;
        for (unsigned l = 0; l < op.nlanes; l++)
            op.va[l] = w.vas[w.next_va++];
        op.active = op.nlanes == 32 ? 0xFFFFFFFFu : (1u << op.nlanes) - 1u;
        return true;
    }

  private:
    [[noreturn]] void fail(size_t line, const std::string &msg)
    {
        throw config_error(path + ":" + std::to_string(line) + ": " + msg);
    }
    void parse(const std::string &all)
    {
        std::istringstream in(all);
        std::string text;
        size_t line = 0, ops = 0;
        while (std::getline(in, text)) {
            line++;
            auto hash = text.find('#');
            if (hash != std::string::npos)
                text.resize(hash);
            std::istringstream ls(text);
            std::string s_sm, s_warp, s_rw, s_vas, extra;
            if (!(ls >> s_sm))
                continue; // blank or comment
            if (!(ls >> s_warp >> s_rw >> s_vas))
                fail(line, "expected 'SM WARP R|W VA[,VA...]'");
            if (ls >> extra)
                fail(line, "unexpected text '" + extra + "' after the VA list");
            unsigned sm = parse_dec(line, s_sm, "SM", sms);
            unsigned warp = parse_dec(line, s_warp, "WARP", warps);
            warp_op op;
            if (s_rw == "R" || s_rw == "r")
                op.write = false;
            else if (s_rw == "W" || s_rw == "w")
                op.write = true;
            else
                fail(line, "expected R or W, got '" + s_rw + "'");
            op.nlanes = 0;
            std::stringstream vs(s_vas);
            std::string tok;
            while (std::getline(vs, tok, ',')) {
                if (op.nlanes == 32)
                    fail(line, "more than 32 VAs");
                op.va[op.nlanes++] = parse_va(line, tok);
            }
            if (op.nlanes == 0 || s_vas.back() == ',')
                fail(line, "empty VA in the list");
            warp_q &wq = q[size_t(sm) * warps + warp];
            wq.ops.push_back(uint8_t((op.write ? 0x80 : 0) | op.nlanes));
            wq.vas.insert(wq.vas.end(), op.va.begin(), op.va.begin() + op.nlanes);
            ops++;
        }
        if (in.bad())
            throw config_error(path + ": read error");
        if (ops == 0)
            throw config_error(path + ": trace has no accesses");
    }
    unsigned parse_dec(size_t line, const std::string &s, const char *what, unsigned limit)
    {
        if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), ::isdigit))
            fail(line, std::string(what) + " '" + s + "' is not a decimal number");
        unsigned long v = std::stoul(s);
        if (v >= limit)
            fail(line, std::string(what) + " " + s + " out of range 0.." + std::to_string(limit - 1));
        return unsigned(v);
    }
    uint64_t parse_va(size_t line, const std::string &s)
    {
        if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s.size() > 18 ||
            !std::all_of(s.begin() + 2, s.end(), ::isxdigit))
            fail(line, "VA '" + s + "' is not hexadecimal with 0x");
        uint64_t v = std::stoull(s.substr(2), nullptr, 16);
        if (!gmmu_va_canonical(v))
            fail(line, "VA " + s + " is not canonical (48-bit)");
        if (v & 7)
            fail(line, "VA " + s + " is not 8-byte aligned");
        if (v >= 0xFFFFFFFFFFFFF000ull)
            fail(line, "VA " + s + " is in the last page of the address space, which gmmu does not map");
        return v;
    }
    struct warp_q {
        std::vector<uint8_t> ops;   // per access: bit 7 write, bits 0..5 lanes
        std::vector<uint64_t> vas;  // every access's VAs, in order
        size_t next_op = 0, next_va = 0;
    };
    std::string path;
    unsigned sms, warps;
    std::vector<warp_q> q;
};

size_t parse_trace_text(const std::string &text, const std::string &path, unsigned sms, unsigned warps)
{
    // The same ranges as the config keys the trace workload reads.
    if (sms < 1 || sms > 1024)
        throw config_error("parse_trace_text: sms " + std::to_string(sms) + " is outside 1..1024 (sm.count)");
    if (warps < 1 || warps > 64)
        throw config_error("parse_trace_text: warps " + std::to_string(warps) + " is outside 1..64 (sm.warps)");
    return trace(text, path, sms, warps).accesses();
}

static std::vector<std::pair<std::string, workload_factory>> &registry()
{
    static std::vector<std::pair<std::string, workload_factory>> r;
    return r;
}

bool register_workload(const std::string &name, workload_factory f)
{
    registry().emplace_back(name, std::move(f));
    return true;
}

std::vector<std::string> workload_names()
{
    std::vector<std::string> n = {"random-sample", "stream", "trace"};
    for (auto &r : registry())
        n.push_back(r.first);
    return n;
}

static std::vector<workload_spec_def> &spec_registry()
{
    static std::vector<workload_spec_def> r;
    return r;
}

bool register_workload_spec(workload_spec_def def)
{
    register_config_keys(def.keys);
    spec_registry().push_back(std::move(def));
    return true;
}

const std::vector<workload_spec_def> &workload_specs() { return spec_registry(); }

namespace {
bool check_only_flag = false;
}
void set_check_only(bool on) { check_only_flag = on; }
bool check_only() { return check_only_flag; }

std::unique_ptr<workload> make_workload(const std::string &name, const config &cfg, uint64_t seed)
{
    // The common keys that apply to one workload (gpu/workload_spec.h), then
    // each workload's own spec (workload.faults: the kernel's).
    const workload_config w = workload_config_from(cfg);
    if (w.map_touched && name != "random-sample")
        throw config_error("config key 'workload.map': touched applies to the random-sample "
                           "workload only (this run's is " + name + ")");
    if (w.read_only && name != "random-sample")
        throw config_error("config key 'workload.phases': read applies to the random-sample "
                           "workload only (this run's is " + name + ")");
    for (const workload_spec_def &s : workload_specs())
        if (s.refuse)
            s.refuse(cfg, name);
    for (auto &r : registry())
        if (r.first == name)
            return r.second(cfg, seed);
    if (name == "random-sample")
        return std::make_unique<random_sample>(cfg, seed);
    if (name == "stream")
        return std::make_unique<stream>(cfg, seed);
    if (name == "trace")
        return std::make_unique<trace>(cfg, seed);
    std::string all;
    for (auto &n : workload_names())
        all += (all.empty() ? "" : ", ") + n;
    throw config_error("unknown workload '" + name + "' (known: " + all + ")");
}

} // namespace gmmu
