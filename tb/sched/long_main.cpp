// gmmu walk-scheduler long lock-step driver (tb/sched/cosim_long.sh): one
// lean Verilated configuration of rtl/walk_sched.sv (no coverage, no trace,
// assertions on) in lock-step with the C model for several seeded random runs
// of many cycles each (the bench's RunRandom, requests and completions not
// recorded so memory stays flat). Prints the seed, cycles and cycles/s of
// every run. Exit 0: every cycle of every run matched; 1: a mismatch or an
// RTL assertion (the message names the cycle and GMMU_SEED); 2: usage.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rtl_walk_sched.h"
#include "sched_seq.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s <seeds> <cycles per seed> <first seed>\n", argv[0]);
        return 2;
    }
    const unsigned seeds = (unsigned)std::strtoul(argv[1], nullptr, 0);
    const uint64_t cycles = std::strtoull(argv[2], nullptr, 0);
    const uint64_t seed0 = std::strtoull(argv[3], nullptr, 0);
    const auto cfgs = gmmu::RtlWalkSched::Available();
    if (cfgs.size() != 1)
        return 2;
    const std::string name = gmmu::RtlWalkSched::Name(cfgs[0]);
    uint64_t total = 0;
    double secs = 0;
    for (unsigned i = 0; i < seeds; i++) {
        const uint64_t seed = seed0 + i;
        auto t0 = std::chrono::steady_clock::now();
        sched_tb::RunResult r = sched_tb::RunRandom(cfgs[0], seed, cycles, 0, "", UINT64_MAX, "", false);
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        total += r.cycles;
        secs += s;
        std::printf("%s GMMU_SEED=0x%llx: %llu cycles in %.1f s (%.0f cycles/s), %llu walks, %llu reads, "
                    "%llu merged: %s\n",
                    name.c_str(), (unsigned long long)seed, (unsigned long long)r.cycles, s,
                    r.cycles / (s > 0 ? s : 1), (unsigned long long)r.st.walks,
                    (unsigned long long)r.st.refs_issued, (unsigned long long)r.st.refs_merged,
                    r.ok ? "ok" : "MISMATCH");
        std::fflush(stdout);
        if (!r.ok) {
            std::printf("%s\n", r.msg.c_str());
            return 1;
        }
    }
    std::printf("%s total: %llu lock-step cycles in %.0f s (%.0f cycles/s), no mismatch\n", name.c_str(),
                (unsigned long long)total, secs, total / (secs > 0 ? secs : 1));
    return 0;
}
