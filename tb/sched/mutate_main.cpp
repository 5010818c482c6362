// gmmu walk-scheduler mutation harness (tb/sched/mutate.sh): one Verilated
// configuration of a mutated rtl/walk_sched.sv in lock-step with the C model
// for a few seeded random runs. Exit 0: every cycle matched (mutant survived);
// 1: a mismatch or an RTL assertion caught the mutant; 2: usage/setup error.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rtl_walk_sched.h"
#include "sched_seq.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: %s <seeds> <cycles> <first seed>\n", argv[0]);
        return 2;
    }
    const unsigned seeds = (unsigned)std::strtoul(argv[1], nullptr, 0);
    const uint64_t cycles = std::strtoull(argv[2], nullptr, 0);
    const uint64_t seed0 = std::strtoull(argv[3], nullptr, 0);
    const auto cfgs = gmmu::RtlWalkSched::Available();
    if (cfgs.size() != 1)
        return 2;
    for (unsigned i = 0; i < seeds; i++) {
        const uint64_t seed = seed0 + i;
        sched_tb::RunResult r = sched_tb::RunRandom(cfgs[0], seed, cycles, 2);
        if (!r.ok) {
            std::printf("caught: %s\n", r.msg.substr(0, r.msg.find('\n', r.msg.find('\n') + 1)).c_str());
            return 1;
        }
    }
    std::printf("survived %u seeds x %llu cycles\n", seeds, (unsigned long long)cycles);
    return 0;
}
