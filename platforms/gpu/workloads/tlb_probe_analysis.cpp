// gmmu — the analysis of karnagel-damon17's pointer-chase curves (tlb_probe.h):
// rises of each stride's curve above a threshold taken from the curve's own
// noise, rises linked across strides into TLB levels, and the reader of
// measured chase CSVs. Shared by the in-simulator `tlb-probe` workload and the
// `gmmu-tlb-analyse` command; no SystemC here.
#include "gmmu/gpu/workloads/tlb_probe.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace gmmu {

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

// probe_noise_k x the robust spread of the differences around d[i] (d[i]
// itself left out): the median absolute deviation from their median, scaled
// by 1.4826 (a standard deviation for Gaussian noise). The window keeps
// 2 x probe_noise_window differences where the curve has them, shifted
// inwards at the curve's ends.
double noise_at(const std::vector<double> &d, size_t i)
{
    const size_t w = probe_noise_window, n = d.size();
    size_t lo = i >= w ? i - w : 0, hi = std::min(n, i + w + 1);
    while (hi - lo - 1 < 2 * w && (lo > 0 || hi < n)) {
        if (lo > 0)
            lo--;
        else
            hi++;
    }
    std::vector<double> win;
    for (size_t k = lo; k < hi; k++)
        if (k != i)
            win.push_back(d[k]);
    if (win.size() < 2)
        return 0;
    const double m = median(win);
    for (double &x : win)
        x = std::fabs(x - m);
    return probe_noise_k * 1.4826 * median(win);
}

} // namespace

std::vector<probe_step> probe_find_steps(const std::vector<probe_point> &curve, double tau_floor)
{
    std::vector<probe_step> out;
    const size_t m = curve.size();
    if (m < 2)
        return out;
    std::vector<double> d(m - 1), noise(m - 1);
    for (size_t i = 0; i + 1 < m; i++)
        d[i] = curve[i + 1].cycles - curve[i].cycles;
    for (size_t i = 0; i + 1 < m; i++)
        noise[i] = noise_at(d, i);
    auto over = [&](size_t i) { return d[i] > std::max(tau_floor, noise[i]); };

    // Runs of consecutive differences above the local threshold: (last flat
    // point, last raised point, noise band of the run).
    struct run {
        size_t a, b;
        double noise;
    };
    std::vector<run> runs;
    size_t i = 0;
    while (i + 1 < m) {
        if (!over(i)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        double nz = noise[i];
        while (j + 1 < m && over(j)) {
            nz = std::max(nz, noise[j]);
            j++;
        }
        // On a noisy curve every difference of the run must clear the run's
        // band (the largest of its local thresholds): a wobble next to a rise
        // whose own window happened to be quiet is not part of it.
        size_t a = i, b = j;
        const double band = std::max(tau_floor, nz);
        while (nz > 0 && a + 1 < b && d[a] <= band)
            a++;
        while (nz > 0 && b - 1 > a && d[b - 1] <= band)
            b--;
        runs.push_back({a, b, nz});
        i = j;
    }

    // Plateau values. On a deterministic curve (no noise) the points next to
    // the rise; on a noisy one the medians of the plateau's points (between
    // the neighbouring rises) within two octaves of the last flat distance,
    // and a rise whose plateaus differ by less than its threshold is noise:
    // it is dropped and the plateaus around it merge.
    auto dist = [&](size_t k) { return double(curve[k].elements) * double(curve[k].stride); };
    std::vector<probe_step> steps;
    for (bool changed = true; changed;) {
        changed = false;
        steps.clear();
        for (size_t r = 0; r < runs.size(); r++) {
            const run &rn = runs[r];
            probe_step s;
            s.stride = curve[rn.a].stride;
            s.flat_elements = curve[rn.a].elements;
            s.raised_elements = curve[rn.a + 1].elements;
            s.complete = rn.b + 1 < m;
            s.noise = rn.noise;
            s.threshold = std::max(tau_floor, rn.noise);
            if (rn.noise <= 0) {
                s.before = curve[rn.a].cycles;
                s.after = curve[rn.b].cycles;
            } else {
                const size_t prev_end = r ? runs[r - 1].b : 0;
                const size_t next_start = r + 1 < runs.size() ? runs[r + 1].a : m - 1;
                const double reach = dist(rn.a);
                std::vector<double> pre, post;
                for (size_t k = prev_end; k <= rn.a; k++)
                    if (dist(k) * 4 >= reach)
                        pre.push_back(curve[k].cycles);
                const double lim = std::max(4 * reach, dist(rn.b));
                for (size_t k = rn.b; k <= std::max(rn.b, next_start) && k < m; k++)
                    if (dist(k) <= lim)
                        post.push_back(curve[k].cycles);
                s.before = median(pre);
                s.after = median(post);
                if (s.height() <= s.threshold) {
                    runs.erase(runs.begin() + long(r));
                    changed = true;
                    break;
                }
            }
            steps.push_back(s);
        }
    }
    return steps;
}

static bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::max(a, b); }

namespace {
struct chain {
    std::vector<probe_step> pts;
    std::vector<bool> doubled; // transition into pts[k] is at or above the page (k >= 1)
    bool prop = false;         // some transition was: now at strides >= the page
};
} // namespace

std::vector<probe_level> probe_analyze(const std::vector<probe_step> &steps_in,
                                       std::vector<probe_level> *unresolved,
                                       const std::map<uint64_t, uint64_t> *sweep)
{
    std::vector<probe_step> steps = steps_in;
    std::sort(steps.begin(), steps.end(), [](const probe_step &a, const probe_step &b) {
        return a.stride != b.stride ? a.stride < b.stride : a.reach() < b.reach();
    });
    // The swept stride before s (s / 2 when the sweep is not given: every
    // power of two), and the one after.
    auto prev_stride = [&](uint64_t s) -> uint64_t {
        if (!sweep)
            return s / 2;
        auto it = sweep->lower_bound(s);
        return it == sweep->begin() ? 0 : std::prev(it)->first;
    };
    auto next_stride = [&](uint64_t s) -> uint64_t {
        if (!sweep)
            return 0;
        auto it = sweep->upper_bound(s);
        return it == sweep->end() ? 0 : it->first;
    };
    std::vector<chain> chains;
    size_t i = 0;
    while (i < steps.size()) {
        const uint64_t s = steps[i].stride;
        size_t j = i;
        while (j < steps.size() && steps[j].stride == s)
            j++;
        std::vector<bool> taken(chains.size(), false);
        for (size_t k = i; k < j; k++) {
            const probe_step &st = steps[k];
            int best = -1;
            bool best_dbl = false;
            double best_score = 1e9;
            for (size_t c = 0; c < chains.size(); c++) {
                const probe_step &last = chains[c].pts.back();
                const bool consecutive = last.stride == prev_stride(s);
                // A chain at or above its page predicts its reach at every
                // larger stride (E x s): it may skip strides whose rise the
                // noise hid.
                const bool bridge = !consecutive && chains[c].prop && last.stride < s;
                if (taken[c] || (!consecutive && !bridge) || last.height() <= 0 || st.height() <= 0)
                    continue;
                const double q = double(s) / double(last.stride), lq = std::log2(q);
                const double a = double(st.reach()), a0 = double(last.reach());
                const double r = std::log2(st.height() / last.height());
                // The rises' noise bands (0 on deterministic curves) decide
                // whether a rise is told apart from q times the previous one
                // and from the previous one itself.
                const double u = std::hypot(st.noise, last.noise);
                const bool grown_ruled_out = std::fabs(st.height() - q * last.height()) > u;
                const bool equal_rise = r <= lq / 2 || std::fabs(st.height() - last.height()) <= u;
                const bool same = near(a, a0, 0.05);
                bool mult = false; // the reach grew by a power of two up to q
                for (double f = 2; f <= q * 1.001; f *= 2)
                    mult = mult || near(a, f * a0, 0.05);
                if (bridge) {
                    if (near(a, q * a0, 0.05) && equal_rise && std::fabs(r) + 1 < best_score)
                        best = int(c), best_dbl = true, best_score = std::fabs(r) + 1;
                    continue;
                }
                // Below the page (s < P): each access is a first touch of its
                // page half as often as at 2s, so the rise doubles with the
                // stride while the reach stays E x P. At and above the page
                // the rise stays; the reach doubles (E x s), or stays when a
                // power-of-two set count maps strided pages to fewer sets.
                // An unchanged reach with a rise that may have grown (within
                // the noise) is below the page: only a rise that clearly did
                // not grow says the reach stayed by set conflicts.
                if (same && !chains[c].prop && (r > lq / 2 || (u > 0 && !grown_ruled_out)) &&
                    std::fabs(r - lq) < best_score)
                    best = int(c), best_dbl = false, best_score = std::fabs(r - lq);
                if ((mult || (same && grown_ruled_out)) && equal_rise && std::fabs(r) < best_score)
                    best = int(c), best_dbl = true, best_score = std::fabs(r);
            }
            if (best < 0) {
                chains.push_back(chain{{st}, {false}, false});
                taken.push_back(true);
                continue;
            }
            chain &c = chains[size_t(best)];
            c.pts.push_back(st);
            c.doubled.push_back(best_dbl);
            c.prop = c.prop || best_dbl;
            taken[size_t(best)] = true;
        }
        i = j;
    }

    std::vector<probe_level> levels;
    for (const chain &c : chains) {
        probe_level lv;
        lv.evidence = c.pts;
        // The page is the last stride of the run of equal reaches, if a
        // doubling follows it and the run has at least two strides.
        size_t k = 1;
        while (k < c.pts.size() && !c.doubled[k])
            k++;
        bool resolved = k < c.pts.size() && k >= 2;
        const probe_step &knee = c.pts[std::min(k, c.pts.size()) - 1];
        lv.page_bytes = knee.stride;
        lv.reach_bytes = knee.reach();
        lv.entries = knee.flat_elements;
        std::vector<const probe_step *> h, h_any;
        for (size_t q = k - 1; q < c.pts.size(); q++) {
            h_any.push_back(&c.pts[q]);
            if (c.pts[q].complete)
                h.push_back(&c.pts[q]);
        }
        // The smallest complete rise at or above the page: where the rises of
        // two levels coincide (both reaches at E x s) they add up, and a rise
        // cut off by the end of the sweep is not complete. With noise, the
        // median of the rises within the smallest one's noise band.
        if (h.empty())
            h = h_any;
        std::sort(h.begin(), h.end(),
                  [](const probe_step *a, const probe_step *b) { return a->height() < b->height(); });
        if (!h.empty()) {
            std::vector<double> band;
            for (const probe_step *p : h)
                if (p->height() <= h.front()->height() + h.front()->noise)
                    band.push_back(p->height());
            lv.miss_delay_cycles = median(band);
        }
        // Rises that grew with the stride up to the chain's last stride s:
        // the page is s or more. The next swept stride s' bounds it: a page
        // >= s' would show the rise at the same reach R at s', and a page P
        // in [s, s') would show it at R x s' / P; where the sweep at s'
        // passed R without a rise of this chain, only the pages P with
        // R x s' / P beyond that sweep remain.
        if (!resolved && k == c.pts.size() && c.pts.size() >= 2 && sweep) {
            const probe_step &last = c.pts.back();
            const uint64_t s = last.stride, s2 = next_stride(s), R = last.reach();
            if (s2 && sweep->at(s2) > R) {
                uint64_t pmax = 0;
                for (uint64_t p = s; p < s2; p *= 2)
                    if (double(R) * double(s2) / double(p) >= double(sweep->at(s2)))
                        pmax = p;
                if (pmax) {
                    resolved = true;
                    lv.page_bytes = s;
                    lv.reach_bytes = R;
                    lv.entries = last.flat_elements;
                    lv.miss_delay_cycles = last.height();
                    lv.page_bytes_max = pmax;
                    lv.miss_delay_max = last.height() * double(pmax) / double(s);
                }
            }
        }
        if (resolved)
            levels.push_back(lv);
        else if (unresolved)
            unresolved->push_back(lv);
    }
    std::sort(levels.begin(), levels.end(),
              [](const probe_level &a, const probe_level &b) { return a.reach_bytes < b.reach_bytes; });
    return levels;
}

nlohmann::json probe_result_json(const std::vector<probe_level> &levels,
                                 const std::vector<probe_level> &unresolved,
                                 const std::vector<uint64_t> &strides, uint64_t distance_max,
                                 uint64_t elements_max, size_t points, double rise_threshold_cycles)
{
    nlohmann::json j;
    j["levels"] = probe_levels_json(levels);
    j["unresolved"] = probe_levels_json(unresolved);
    j["method"] = {{"strides", strides},
                   {"distance_max", distance_max},
                   {"elements_max", elements_max},
                   {"points", points},
                   {"rise_threshold_cycles", rise_threshold_cycles}};
    return j;
}

nlohmann::json probe_levels_json(const std::vector<probe_level> &levels)
{
    nlohmann::json arr = nlohmann::json::array();
    for (const probe_level &l : levels) {
        nlohmann::json ev = nlohmann::json::array();
        for (const probe_step &s : l.evidence)
            ev.push_back({{"stride", s.stride},
                          {"reach_bytes", s.reach()},
                          {"first_raised_bytes", s.raised_elements * s.stride},
                          {"before_cycles", s.before},
                          {"after_cycles", s.after},
                          {"complete", s.complete}});
        nlohmann::json o = {{"entries", l.entries},
                            {"page_bytes", l.page_bytes},
                            {"reach_bytes", l.reach_bytes},
                            {"miss_delay_cycles", std::round(l.miss_delay_cycles * 100) / 100},
                            {"evidence", ev}};
        if (l.page_bytes_max > l.page_bytes) {
            o["page_bytes_max"] = l.page_bytes_max;
            o["miss_delay_cycles_max"] = std::round(l.miss_delay_max * 100) / 100;
        }
        arr.push_back(o);
    }
    return arr;
}

// ---- measured curves ------------------------------------------------------------------
namespace {

std::vector<std::string> split_csv(const std::string &line)
{
    std::vector<std::string> f;
    std::string cur;
    for (char ch : line) {
        if (ch == ',') {
            f.push_back(cur);
            cur.clear();
        } else {
            cur += ch;
        }
    }
    f.push_back(cur);
    for (std::string &x : f) {
        const size_t b = x.find_first_not_of(" \t"), e = x.find_last_not_of(" \t");
        x = b == std::string::npos ? "" : x.substr(b, e - b + 1);
    }
    return f;
}

bool parse_u64(const std::string &s, uint64_t &v)
{
    if (s.empty() || s[0] < '0' || s[0] > '9')
        return false;
    errno = 0;
    char *end = nullptr;
    const unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (errno || *end)
        return false;
    v = x;
    return true;
}

bool parse_double(const std::string &s, double &v)
{
    if (s.empty())
        return false;
    errno = 0;
    char *end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return !errno && !*end && std::isfinite(v);
}

} // namespace

std::string probe_read_csv(const std::string &path, const std::string &run,
                           std::vector<probe_point> &points)
{
    points.clear();
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return path + ": is a folder, not a CSV file";
    std::ifstream in(path);
    if (!in)
        return path + ": cannot open: " + std::strerror(errno);
    std::string line;
    size_t lineno = 0;
    auto at = [&](const std::string &msg) { return path + ":" + std::to_string(lineno) + ": " + msg; };
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        lineno++;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") != std::string::npos) {
            header = split_csv(line);
            break;
        }
    }
    if (header.empty())
        return path + ": empty file (expected a header: run,stride_bytes,chain_length,cycles_per_access)";
    auto col = [&](const char *name) -> long {
        auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : long(it - header.begin());
    };
    const long c_run = col("run"), c_stride = col("stride_bytes"), c_len = col("chain_length"),
               c_cyc = col("cycles_per_access"), c_dist = col("distance_bytes");
    for (const char *need : {"run", "stride_bytes", "chain_length", "cycles_per_access"})
        if (col(need) < 0)
            return at(std::string("header has no column '") + need + "'");
    std::set<std::string> runs;
    std::set<std::pair<uint64_t, uint64_t>> seen;
    while (std::getline(in, line)) {
        lineno++;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        const std::vector<std::string> f = split_csv(line);
        if (f.size() != header.size())
            return at(std::to_string(f.size()) + " fields, the header has " +
                      std::to_string(header.size()));
        const std::string &r = f[size_t(c_run)];
        if (r.empty())
            return at("empty run");
        probe_point p;
        if (!parse_u64(f[size_t(c_stride)], p.stride) || p.stride == 0)
            return at("stride_bytes '" + f[size_t(c_stride)] + "' is not a positive integer");
        if (p.stride & (p.stride - 1))
            return at("stride_bytes " + f[size_t(c_stride)] + " is not a power of two");
        if (!parse_u64(f[size_t(c_len)], p.elements) || p.elements == 0)
            return at("chain_length '" + f[size_t(c_len)] + "' is not a positive integer");
        if (p.elements > (UINT64_MAX / p.stride))
            return at("chain_length x stride_bytes overflows 64 bits");
        if (!parse_double(f[size_t(c_cyc)], p.cycles) || p.cycles <= 0)
            return at("cycles_per_access '" + f[size_t(c_cyc)] + "' is not a positive number");
        if (c_dist >= 0) {
            uint64_t dist = 0;
            if (!parse_u64(f[size_t(c_dist)], dist) || dist != p.stride * p.elements)
                return at("distance_bytes '" + f[size_t(c_dist)] + "' is not stride_bytes x chain_length");
        }
        runs.insert(r);
        if (r != run && !run.empty())
            continue;
        if (run.empty() && runs.size() > 1)
            continue; // reported below: several runs, none chosen
        if (!seen.insert({p.stride, p.elements}).second)
            return at("a second point at stride_bytes " + f[size_t(c_stride)] + ", chain_length " +
                      f[size_t(c_len)] + " in run " + r);
        points.push_back(p);
    }
    std::string names;
    for (const std::string &r : runs)
        names += (names.empty() ? "" : ", ") + r;
    if (runs.empty())
        return path + ": no data lines after the header";
    if (run.empty() && runs.size() > 1) {
        points.clear();
        return path + ": holds runs " + names + ": choose one with --run";
    }
    if (!run.empty() && !runs.count(run))
        return "--run '" + run + "': no such run in " + path + " (runs: " + names + ")";
    return "";
}

nlohmann::json probe_analyze_points(const std::vector<probe_point> &points_in, double tau_floor)
{
    std::vector<probe_point> points = points_in;
    std::sort(points.begin(), points.end(), [](const probe_point &a, const probe_point &b) {
        return a.stride != b.stride ? a.stride < b.stride : a.elements < b.elements;
    });
    std::map<uint64_t, uint64_t> sweep; // stride -> largest distance
    std::vector<uint64_t> strides;
    std::vector<probe_step> steps;
    uint64_t dmax = 0, nmax = 0;
    for (size_t i = 0; i < points.size();) {
        size_t j = i;
        while (j < points.size() && points[j].stride == points[i].stride)
            j++;
        std::vector<probe_point> curve(points.begin() + long(i), points.begin() + long(j));
        for (const probe_step &s : probe_find_steps(curve, tau_floor))
            steps.push_back(s);
        const uint64_t s = points[i].stride;
        strides.push_back(s);
        sweep[s] = curve.back().elements * s;
        dmax = std::max(dmax, sweep[s]);
        nmax = std::max(nmax, curve.back().elements);
        i = j;
    }
    std::vector<probe_level> unresolved;
    std::vector<probe_level> levels = probe_analyze(steps, &unresolved, &sweep);
    nlohmann::json j = probe_result_json(levels, unresolved, strides, dmax, nmax, points.size(), tau_floor);
    j["method"]["noise_k"] = probe_noise_k;
    j["method"]["noise_window"] = probe_noise_window;
    return j;
}

} // namespace gmmu
