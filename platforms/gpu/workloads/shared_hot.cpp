// shared-hot: inter-CU page sharing (the pattern PICLE targets). Every warp
// interleaves accesses to a set of pages shared by all SMs (at random, or
// walked in order: a shared stream) with accesses to its own private pages
// (walked cyclically), which keep the shared L2 TLB busy evicting.
// Each warp access touches one page (32 consecutive words). Stores the data
// pattern on the first visit of every word, loads it back afterwards.
#include <array>

#include "gmmu/components/config.h"
#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"

namespace gmmu {
namespace {

// shared-hot's spec: its own workload.* keys.
struct shared_hot_config {
    uint64_t hot_pages = 8, private_pages = 64;
    unsigned hot_percent = 50;
    bool sequential = false; // workload.hot_order=sequential
};

const descriptor<shared_hot_config> &shared_hot_descriptor()
{
    using S = shared_hot_config;
    static const descriptor<S> d({
        int_field<S>("hot_pages", 8, 1, 1 << 20, "shared-hot: pages in the shared hot set.",
                     [](S &s, const config &c, const std::string &k) { s.hot_pages = uint64_t(c.i(k)); }),
        int_field<S>("hot_percent", 50, 0, 100,
                     "shared-hot: percent of accesses that go to the hot set (the rest stream privately).",
                     [](S &s, const config &c, const std::string &k) { s.hot_percent = unsigned(c.i(k)); }),
        int_field<S>("private_pages", 64, 1, 1 << 24, "shared-hot: private pages per warp.",
                     [](S &s, const config &c, const std::string &k) { s.private_pages = uint64_t(c.i(k)); }),
        enum_field<S>("hot_order", "random", {{"random", 0}, {"sequential", 1}},
                      "shared-hot: pick hot pages at random, or walk them in order (every warp the same "
                      "order: a shared stream each CU touches once).",
                      [](S &s, const config &c, const std::string &k) {
                          s.sequential = shared_hot_descriptor().enum_value("hot_order", c.s(k), k) == 1;
                      }),
    });
    return d;
}

const bool keys_registered =
    register_workload_spec(workload_spec_of("shared-hot", shared_hot_descriptor(), nullptr, nullptr));

class shared_hot : public workload {
  public:
    shared_hot(const config &c, uint64_t seed)
        : shared_hot(workload_config_from(c), workload_spec_from(shared_hot_descriptor(), c),
                     workload_machine_from(c), seed) {}
    shared_hot(const workload_config &w, const shared_hot_config &h, const workload_machine &m, uint64_t seed)
        : base(w.base_va), hot(h.hot_pages), pct(h.hot_percent), priv(h.private_pages), acc(w.accesses),
          warps(m.warps), total(m.sms * warps), psz(m.page_size), sequential(h.sequential)
    {
        st.resize(total);
        for (unsigned k = 0; k < total; k++)
            st[k].x = data_pattern(seed * 0x9E37ull + k) | 1;
        (void)keys_registered;
    }
    std::string name() const override { return "shared-hot"; }
    void setup(driver &drv, unsigned page_shift) override
    {
        drv.map(base, (hot + priv * total) * psz, page_shift);
    }
    bool next(unsigned sm, unsigned warp, warp_op &op) override
    {
        state &s = st[sm * warps + warp];
        if (s.n == 2 * acc)
            return false;
        s.x = s.x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t r = s.x >> 20;
        uint64_t page;
        if (r % 100 < pct) {
            page = sequential ? s.hot_pos++ % hot : (r / 100) % hot;
        } else {
            page = hot + (uint64_t(sm) * warps + warp) * priv + s.stream % priv;
            s.stream++;
        }
        // Word offset within the page: 32 consecutive words, rotating.
        uint64_t word = (r >> 13) % (psz / 256) * 32;
        op.write = s.n < acc; // first half stores, second half loads what anyone stored
        op.nlanes = 32;
        op.active = 0xFFFFFFFFu;
        for (unsigned l = 0; l < 32; l++)
            op.va[l] = base + page * psz + (word + l) * 8;
        s.n++;
        return true;
    }

  private:
    struct state {
        uint64_t x = 1, n = 0, stream = 0, hot_pos = 0;
    };
    uint64_t base, hot;
    unsigned pct;
    uint64_t priv, acc;
    unsigned warps, total;
    uint64_t psz;
    bool sequential;
    std::vector<state> st;
};

const bool registered = register_workload("shared-hot", [](const config &c, uint64_t seed) {
    return std::unique_ptr<workload>(new shared_hot(c, seed));
});

} // namespace
} // namespace gmmu
