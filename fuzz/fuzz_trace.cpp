// Fuzzing of the trace workload's parser: every input file is accepted or
// refused with a config_error naming FILE:LINE; nothing else may escape or
// crash.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmmu/gpu/config.h"
#include "gmmu/gpu/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::string path = "/tmp/gmmu_fuzz_trace_" + std::to_string(getpid()) + ".txt";
    static gmmu::config cfg = [] {
        gmmu::config c = gmmu::config::load("default", {});
        c.set("workload.path", path);
        return c;
    }();
    if (FILE *f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    try {
        auto wl = gmmu::make_workload("trace", cfg, 1);
    } catch (const gmmu::config_error &e) {
        if (std::string(e.what()).find(path) == std::string::npos) {
            std::fprintf(stderr, "fuzz_trace: error does not name the file: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}

// libsystemc (linked through the config code) refers to sc_main; libFuzzer's
// main() is the program's, so this is never called.
extern "C" int sc_main(int, char **) { return 0; }
