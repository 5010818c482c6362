// gmmu — driver of tb/pwc/mutate.sh: a short seeded lock-step bench of the
// one Verilated variant "mut" (a mutated copy of the RTL). Exit 0 when every
// run passes (mutant survived), 1 when a run fails (mutant caught).
//
//   mutant_main CYCLES SEED...
#include <cstdio>
#include <cstdlib>

#include "pwc_bench.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s CYCLES SEED...\n", argv[0]);
        return 2;
    }
    const uint64_t cycles = std::strtoull(argv[1], nullptr, 0);
    for (int i = 2; i < argc; i++) {
        pwcbench::RunOpts o;
        o.seed = std::strtoull(argv[i], nullptr, 0);
        o.cycles = cycles;
        o.fst_on_fail = false;
        o.state_every = 1;
        pwcbench::RunResult r = pwcbench::run_random("mut", o);
        if (!r.ok) {
            std::printf("%s\n", pwcbench::summary("mut", o, r).c_str());
            return 1;
        }
    }
    std::printf("survived %d seeds x %llu cycles\n", argc - 2, (unsigned long long)cycles);
    return 0;
}
