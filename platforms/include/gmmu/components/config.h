// gmmu — configuration: a schema of every key (type, range, default, doc),
// named JSON configs in platforms/configs/, and --set overrides with dotted
// keys. The schema is the program's: the one it installs
// (install_config_schema; gmmu-sim's is gpu/config_schema.cpp, linked with
// gmmu_gpu) and the keys registered beside components (register_config_keys). Every error names the key (and file:line for
// JSON syntax errors) and is thrown as config_error.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gmmu {

// One line always: control characters that came from the input (a key or
// value with a newline, say) are shown escaped (\n, \x01).
struct config_error : std::runtime_error {
    explicit config_error(const std::string &msg) : std::runtime_error(one_line(msg)) {}

  private:
    static std::string one_line(const std::string &msg)
    {
        static const char hex[] = "0123456789abcdef";
        std::string out;
        out.reserve(msg.size());
        for (unsigned char ch : msg) {
            if (ch == '\n')
                out += "\\n";
            else if (ch == '\r')
                out += "\\r";
            else if (ch == '\t')
                out += "\\t";
            else if (ch < 0x20 || ch == 0x7f)
                out += std::string("\\x") + hex[ch >> 4] + hex[ch & 15];
            else
                out += char(ch);
        }
        return out;
    }
};

enum class key_type { integer, boolean, string, number };

struct key_spec {
    std::string key;            // dotted path, e.g. "l1_tlb.entries"
    key_type type;
    nlohmann::json def;         // default value
    int64_t min = 0, max = 0;   // integer range (inclusive)
    bool pow2 = false;          // integer must be a power of two
    std::vector<std::string> choices; // string keys: allowed values (empty = any)
    std::string doc;
};

class config;

// A program's schema: its components' keys under its prefixes, the order of
// the top-level groups (--list-keys; keys of other groups come last), and
// the rules between keys of different components that config::validate runs
// after each key's type and range check. gmmu-sim's is installed by the GPU
// platform library (gpu/config_schema.cpp); a program built from components
// alone installs none and registers its components' keys instead
// (examples/soc_smmu). The last install wins.
struct config_schema_def {
    std::function<std::vector<key_spec>()> keys;
    std::function<void(const config &)> rules;
    std::vector<std::string> group_order;
};
bool install_config_schema(config_schema_def def);

// Every key: the installed schema's plus those registered (workloads, an SoC's own).
const std::vector<key_spec> &config_schema();
// Add keys (e.g. a workload's "workload.*" parameters); call at static
// initialisation. Returns true so it can initialise a static.
bool register_config_keys(const std::vector<key_spec> &keys);
// The keys registered so far (each workload's own, beside it).
const std::vector<key_spec> &registered_config_keys();
// The schema row of `key`, or nullptr.
const key_spec *config_key_spec(const std::string &key);
key_spec key_int(const std::string &k, int64_t def, int64_t lo, int64_t hi, const std::string &doc,
                 bool pow2 = false);
key_spec key_bool(const std::string &k, bool def, const std::string &doc);
key_spec key_string(const std::string &k, const std::string &def, std::vector<std::string> choices,
                    const std::string &doc);

class config {
  public:
    // Load a named config (platforms/configs/NAME.json) or a path; then the
    // overrides "key=value" in order; then validate everything.
    static config load(const std::string &name_or_path, const std::vector<std::string> &sets);
    // The same from a config file's text already in memory; path names it in
    // errors (PATH:LINE).
    static config from_text(const std::string &text, const std::string &path,
                            const std::vector<std::string> &sets);
    static config defaults();

    int64_t i(const std::string &key) const;
    bool b(const std::string &key) const;
    double d(const std::string &key) const;
    std::string s(const std::string &key) const;
    bool has(const std::string &key) const;
    const nlohmann::json &value(const std::string &key) const; // any type; error if unset

    const nlohmann::json &tree() const { return j; } // effective config (nested)
    void set(const std::string &key, const std::string &value); // parses per schema type
    void validate() const;

    static std::string schema_markdown();

  private:
    nlohmann::json j = nlohmann::json::object();
    const nlohmann::json *find(const std::string &key) const;
};

std::string config_dir();

} // namespace gmmu
