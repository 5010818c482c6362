// Fuzzing of the config loader and schema: the input is split into a JSON
// config file's text (parsed in memory by config::from_text, the part of
// config::load after reading the file) and `--set` lines. Every input must
// load or be refused with a config_error naming the file or a key; nothing
// else may escape, crash or hang.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "gmmu/components/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const std::string path = "fuzz.json"; // parsed in memory: no file I/O per input
    const std::string text(reinterpret_cast<const char *>(data), size);
    // First part: the file; after a NUL, one --set per line.
    const size_t nul = text.find('\0');
    const std::string file = text.substr(0, nul);
    std::vector<std::string> sets;
    if (nul != std::string::npos) {
        size_t at = nul + 1;
        while (at <= text.size() && sets.size() < 16) {
            size_t nl = text.find('\n', at);
            if (nl == std::string::npos)
                nl = text.size();
            sets.push_back(text.substr(at, nl - at));
            at = nl + 1;
        }
    }
    try {
        gmmu::config c = gmmu::config::from_text(file, path, sets);
        (void)c.tree().dump();
    } catch (const gmmu::config_error &e) {
        const std::string msg = e.what();
        if (msg.empty() || msg.find('\n') != std::string::npos) {
            std::fprintf(stderr, "fuzz_config: error is not one line: '%s'\n", msg.c_str());
            std::abort();
        }
    }
    return 0;
}

// libsystemc (linked through the config code) refers to sc_main; libFuzzer's
// main() is the program's, so this is never called.
extern "C" int sc_main(int, char **) { return 0; }
