// Fuzzing of the trace workload's parser: every input is a trace file's text,
// parsed in memory by parse_trace_text (the parser `--workload trace` runs on
// workload.path's contents, for the default config's SMs and warps); it is
// accepted or refused with a config_error naming FILE:LINE; nothing else may
// escape or crash.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gmmu/components/config.h"
#include "gmmu/gpu/workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::string path = "fuzz.trace";
    static const gmmu::config cfg = gmmu::config::load("default", {});
    static const unsigned sms = unsigned(cfg.i("sm.count")), warps = unsigned(cfg.i("sm.warps"));
    const std::string text(reinterpret_cast<const char *>(data), size);
    try {
        const size_t n = gmmu::parse_trace_text(text, path, sms, warps);
        if (n == 0) {
            std::fprintf(stderr, "fuzz_trace: accepted a trace with no accesses\n");
            std::abort();
        }
    } catch (const gmmu::config_error &e) {
        if (std::string(e.what()).rfind(path + ":", 0) != 0) {
            std::fprintf(stderr, "fuzz_trace: error does not start with the file: %s\n", e.what());
            std::abort();
        }
    }
    return 0;
}

// libsystemc (linked through the config code) refers to sc_main; libFuzzer's
// main() is the program's, so this is never called.
extern "C" int sc_main(int, char **) { return 0; }
