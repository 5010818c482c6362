// gmmu — the configuration class (components/config.h): the schema of the
// keys a program knows, JSON configs, --set overrides, validation.
#include "gmmu/components/config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gmmu {

using nlohmann::json;

static std::vector<key_spec> &extra_keys()
{
    static std::vector<key_spec> extra;
    return extra;
}

const std::vector<key_spec> &registered_config_keys() { return extra_keys(); }

bool register_config_keys(const std::vector<key_spec> &keys)
{
    auto &e = extra_keys();
    e.insert(e.end(), keys.begin(), keys.end());
    return true;
}

key_spec key_int(const std::string &k, int64_t def, int64_t lo, int64_t hi, const std::string &doc,
                 bool pow2)
{
    return key_spec{k, key_type::integer, def, lo, hi, pow2, {}, doc};
}
key_spec key_bool(const std::string &k, bool def, const std::string &doc)
{
    return key_spec{k, key_type::boolean, def, 0, 0, false, {}, doc};
}
key_spec key_string(const std::string &k, const std::string &def, std::vector<std::string> choices,
                    const std::string &doc)
{
    return key_spec{k, key_type::string, def, 0, 0, false, std::move(choices), doc};
}

// The program's schema (install_config_schema): gmmu-sim's, when the GPU
// platform library is linked (gpu/config_schema.cpp); none for a program
// built from components alone, which registers its components' keys.
static config_schema_def &installed_schema()
{
    static config_schema_def def;
    return def;
}
static unsigned &installed_generation()
{
    static unsigned gen = 0;
    return gen;
}

bool install_config_schema(config_schema_def def)
{
    installed_schema() = std::move(def);
    installed_generation()++;
    return true;
}

const std::vector<key_spec> &config_schema()
{
    static std::vector<key_spec> all;
    static size_t extras_seen = ~size_t(0);
    static unsigned gen_seen = ~0u;
    if (extras_seen == extra_keys().size() && gen_seen == installed_generation())
        return all;
    // The installed schema's keys, then the keys registered beside their
    // components (workloads, an SoC's own), grouped by top-level key in the
    // installed schema's order (stable: each group keeps its order).
    const config_schema_def &def = installed_schema();
    all = def.keys ? def.keys() : std::vector<key_spec>{};
    for (auto &k : extra_keys())
        all.push_back(k);
    std::stable_sort(all.begin(), all.end(), [&def](const key_spec &a, const key_spec &b) {
        auto top = [](const std::string &k) { return k.substr(0, k.find('.')); };
        auto rank = [&](const std::string &k) {
            auto it = std::find(def.group_order.begin(), def.group_order.end(), top(k));
            return it - def.group_order.begin();
        };
        return rank(a.key) < rank(b.key);
    });
    extras_seen = extra_keys().size();
    gen_seen = installed_generation();
    return all;
}

static const key_spec *spec_of(const std::string &key)
{
    for (auto &s : config_schema())
        if (s.key == key)
            return &s;
    return nullptr;
}

static std::vector<std::string> split(const std::string &key)
{
    std::vector<std::string> parts;
    std::stringstream ss(key);
    std::string p;
    while (std::getline(ss, p, '.'))
        parts.push_back(p);
    return parts;
}

std::string config_dir()
{
    if (const char *e = std::getenv("GMMU_CONFIG_DIR"))
        return e;
    return GMMU_CONFIG_DIR;
}

const json *config::find(const std::string &key) const
{
    const json *n = &j;
    for (auto &p : split(key)) {
        if (!n->is_object() || !n->contains(p))
            return nullptr;
        n = &(*n)[p];
    }
    return n;
}

bool config::has(const std::string &key) const { return find(key) != nullptr; }

static const json &must(const json *n, const std::string &key)
{
    if (!n)
        throw config_error("config key '" + key + "' is not set");
    return *n;
}

const json &config::value(const std::string &key) const { return must(find(key), key); }
const key_spec *config_key_spec(const std::string &key) { return spec_of(key); }
int64_t config::i(const std::string &key) const { return must(find(key), key).get<int64_t>(); }
bool config::b(const std::string &key) const { return must(find(key), key).get<bool>(); }
double config::d(const std::string &key) const { return must(find(key), key).get<double>(); }
std::string config::s(const std::string &key) const
{
    return must(find(key), key).get<std::string>();
}

config config::defaults()
{
    config c;
    for (auto &s : config_schema()) {
        json *n = &c.j;
        for (auto &p : split(s.key))
            n = &(*n)[p];
        *n = s.def;
    }
    return c;
}

static std::string type_name(key_type t)
{
    switch (t) {
    case key_type::integer: return "integer";
    case key_type::boolean: return "boolean";
    case key_type::string: return "string";
    case key_type::number: return "number";
    }
    return "?";
}

static void check_value(const key_spec &s, const json &v)
{
    switch (s.type) {
    case key_type::integer: {
        const std::string range = std::to_string(s.min) + ".." + std::to_string(s.max);
        // A whole number too large for 64 bits (JSON 1e30, or
        // 100000000000000000000, which the parser keeps as a double): out of
        // range, not of the wrong type.
        if (v.is_number_float() && std::isfinite(v.get<double>()) &&
            std::fabs(v.get<double>()) >= 0x1p63 && std::floor(v.get<double>()) == v.get<double>())
            throw config_error("config key '" + s.key + "': " + v.dump() + " out of range " + range);
        if (!v.is_number_integer())
            throw config_error("config key '" + s.key + "': expected an integer, got " +
                               v.dump());
        // Above INT64_MAX (up to 2^64-1): named as given, never as 2^63-1.
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
            throw config_error("config key '" + s.key + "': " + v.dump() + " out of range " + range);
        const int64_t x = v.get<int64_t>();
        if (x < s.min || x > s.max)
            throw config_error("config key '" + s.key + "': " + std::to_string(x) +
                               " out of range " + range);
        if (s.pow2 && (x & (x - 1)) != 0)
            throw config_error("config key '" + s.key + "': " + std::to_string(x) +
                               " is not a power of two");
        break;
    }
    case key_type::boolean:
        if (!v.is_boolean())
            throw config_error("config key '" + s.key + "': expected true or false, got " +
                               v.dump());
        break;
    case key_type::number:
        if (!v.is_number())
            throw config_error("config key '" + s.key + "': expected a number, got " + v.dump());
        break;
    case key_type::string: {
        if (!v.is_string())
            throw config_error("config key '" + s.key + "': expected a string, got " + v.dump());
        if (!s.choices.empty()) {
            std::string x = v.get<std::string>();
            bool ok = false;
            std::string all;
            for (auto &c : s.choices) {
                ok |= c == x;
                all += (all.empty() ? "" : "|") + c;
            }
            if (!ok)
                throw config_error("config key '" + s.key + "': '" + x + "' is not one of " +
                                   all);
        }
        break;
    }
    }
}

// Walk a loaded JSON tree: every leaf must be a known key of the right type.
// Whether some key of the schema lies under `group` (e.g. "l1_tlb").
static bool is_group(const std::string &group)
{
    const std::string pre = group + ".";
    for (auto &s : config_schema())
        if (s.key.compare(0, pre.size(), pre) == 0)
            return true;
    return false;
}

static void check_tree(const json &n, const std::string &prefix)
{
    for (auto it = n.begin(); it != n.end(); ++it) {
        std::string key = prefix.empty() ? it.key() : prefix + "." + it.key();
        const key_spec *s = spec_of(key);
        if (it->is_object()) {
            if (s)
                throw config_error("config key '" + key + "': expected " +
                                   (s->type == key_type::integer   ? "an integer"
                                    : s->type == key_type::boolean ? "true or false"
                                    : s->type == key_type::number  ? "a number"
                                                                   : "a string") +
                                   ", got an object");
            if (!is_group(key))
                throw config_error("unknown config key '" + key + "'");
            check_tree(*it, key);
            continue;
        }
        if (!s) {
            if (is_group(key))
                throw config_error("config key '" + key + "' is a group of keys (" + key +
                                   ".*): expected an object, got " + it->type_name());
            throw config_error("unknown config key '" + key + "'");
        }
        check_value(*s, *it);
    }
}

static void merge(json &dst, const json &src)
{
    for (auto it = src.begin(); it != src.end(); ++it) {
        if (it->is_object() && dst.contains(it.key()) && dst[it.key()].is_object())
            merge(dst[it.key()], *it);
        else
            dst[it.key()] = *it;
    }
}

// Well-formed UTF-8 (Unicode table 3-7: no overlong forms, no surrogates,
// nothing above U+10FFFF), as the JSON writer requires of every string.
static bool valid_utf8(const std::string &s)
{
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
        const unsigned char c = (unsigned char)s[i];
        unsigned len = 0;
        unsigned char lo = 0x80, hi = 0xBF; // range of the second byte
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            len = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (i + len > n)
            return false;
        const unsigned char c1 = (unsigned char)s[i + 1];
        if (c1 < lo || c1 > hi)
            return false;
        for (unsigned k = 2; k < len; k++) {
            const unsigned char ck = (unsigned char)s[i + k];
            if (ck < 0x80 || ck > 0xBF)
                return false;
        }
        i += len;
    }
    return true;
}

void config::set(const std::string &key, const std::string &value)
{
    const key_spec *s = spec_of(key);
    if (!s)
        throw config_error("unknown config key '" + key + "'");
    // A NUL would end the value for the number parsers and a byte sequence
    // that is not UTF-8 could not be written to config.json: refuse both
    // before anything runs.
    if (value.find('\0') != std::string::npos)
        throw config_error("config key '" + key + "': the value contains a NUL byte");
    if (!valid_utf8(value))
        throw config_error("config key '" + key + "': the value is not valid UTF-8");
    json v;
    switch (s->type) {
    case key_type::integer: {
        // Decimal, or hexadecimal with 0x; a leading 0 is never octal.
        errno = 0;
        char *end = nullptr;
        const bool hex = value.size() > 2 && value[0] == '0' && (value[1] == 'x' || value[1] == 'X');
        const bool neg_hex = value.size() > 3 && value[0] == '-' && value[1] == '0' &&
                             (value[2] == 'x' || value[2] == 'X');
        long long x = std::strtoll(value.c_str(), &end, hex || neg_hex ? 16 : 10);
        if (value.empty() || *end != '\0' || std::isspace((unsigned char)value[0]))
            throw config_error("config key '" + key + "': expected a decimal integer (or 0x hex), got '" +
                               value + "'");
        // An integer, too large for 64 bits: out of the key's range.
        if (errno == ERANGE)
            throw config_error("config key '" + key + "': " + value + " out of range " +
                               std::to_string(s->min) + ".." + std::to_string(s->max));
        v = (int64_t)x;
        break;
    }
    case key_type::boolean:
        if (value == "true" || value == "1")
            v = true;
        else if (value == "false" || value == "0")
            v = false;
        else
            throw config_error("config key '" + key + "': expected true or false, got '" +
                               value + "'");
        break;
    case key_type::number: {
        char *end = nullptr;
        double x = std::strtod(value.c_str(), &end);
        if (value.empty() || *end != '\0')
            throw config_error("config key '" + key + "': expected a number, got '" + value +
                               "'");
        v = x;
        break;
    }
    case key_type::string:
        v = value;
        break;
    }
    check_value(*s, v);
    json *n = &j;
    for (auto &p : split(key))
        n = &(*n)[p];
    *n = v;
}

void config::validate() const
{
    check_tree(j, "");
    // The rules between components' keys, and each spec's own checks
    // (gmmu-sim's: gpu/config_schema.cpp).
    if (installed_schema().rules)
        installed_schema().rules(*this);
}

static size_t line_of(const std::string &text, size_t byte)
{
    size_t line = 1;
    for (size_t k = 0; k < byte && k < text.size(); k++)
        line += text[k] == '\n';
    return line;
}

config config::load(const std::string &name_or_path, const std::vector<std::string> &sets)
{
    std::string path = name_or_path;
    bool is_path = name_or_path.find('/') != std::string::npos ||
                   (name_or_path.size() > 5 &&
                    name_or_path.compare(name_or_path.size() - 5, 5, ".json") == 0);
    if (!is_path)
        path = config_dir() + "/" + name_or_path + ".json";
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) {
        if (!is_path)
            throw config_error("unknown config '" + name_or_path + "' (no " + path + ")");
        throw config_error(path + ": cannot read config file: " + std::strerror(errno));
    }
    // Only a regular file: never block on a FIFO or read a device or a folder.
    if (!S_ISREG(st.st_mode))
        throw config_error(path + ": not a regular file");
    if (st.st_size > (16 << 20))
        throw config_error(path + ": larger than 16 MiB; not a config");
    std::ifstream in(path);
    if (!in)
        throw config_error(path + ": cannot read config file");
    std::stringstream buf;
    buf << in.rdbuf();
    if (in.bad())
        throw config_error(path + ":1: empty or unreadable config file");
    return from_text(buf.str(), path, sets);
}

// The deepest nesting a config file may have. The deepest key is three
// levels (ptw.line_cache.lines); the limit leaves room for objects where a
// value belongs, which check_tree names, and stops a file of a million '['
// before the parser builds (and check_tree recurses through) the tree.
constexpr unsigned max_config_depth = 64;

// Refuse a file nested deeper than max_config_depth: one pass over the text,
// constant memory, before any JSON is parsed.
static void check_depth(const std::string &text, const std::string &path)
{
    unsigned depth = 0;
    bool in_string = false, escaped = false;
    for (size_t k = 0; k < text.size(); k++) {
        const char ch = text[k];
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (ch == '\\')
                escaped = true;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"') {
            in_string = true;
        } else if (ch == '{' || ch == '[') {
            if (++depth > max_config_depth)
                throw config_error(path + ":" + std::to_string(line_of(text, k)) +
                                   ": JSON nested deeper than " + std::to_string(max_config_depth) +
                                   " levels (the deepest config key has 3)");
        } else if ((ch == '}' || ch == ']') && depth > 0) {
            depth--;
        }
    }
}

// Dotted keys in a file mean what they mean to --set: {"sm.count": 2} is
// {"sm": {"count": 2}}, at any level ({"ptw": {"line_cache.lines": 8}}).
// Every leaf (a value, or an empty object) is collected under its full
// dotted key, then the tree is built again; one key given twice (nested and
// dotted) is an error naming it. Memory: the leaves' keys, at most
// max_config_depth parts each.
static void collect_leaves(const json &n, const std::string &prefix,
                           std::vector<std::pair<std::string, const json *>> &leaves)
{
    for (auto it = n.begin(); it != n.end(); ++it) {
        const std::string &k = it.key();
        const std::string key = prefix.empty() ? k : prefix + "." + k;
        if (k.empty() || k.front() == '.' || k.back() == '.' || k.find("..") != std::string::npos)
            throw config_error("unknown config key '" + key + "'");
        if (it->is_object() && !it->empty())
            collect_leaves(*it, key, leaves);
        else
            leaves.push_back({key, &*it});
    }
}

static json undot(const json &file)
{
    std::vector<std::pair<std::string, const json *>> leaves;
    collect_leaves(file, "", leaves);
    const auto group_error = [](const std::string &key, const json &v) {
        return config_error("config key '" + key + "' is a group of keys (" + key +
                            ".*): expected an object, got " + v.type_name());
    };
    json out = json::object();
    for (const auto &[key, v] : leaves) {
        const std::vector<std::string> parts = split(key);
        json *n = &out;
        std::string at;
        for (size_t p = 0; p + 1 < parts.size(); p++) {
            at = at.empty() ? parts[p] : at + "." + parts[p];
            if (n->contains(parts[p]) && !(*n)[parts[p]].is_object())
                throw group_error(at, (*n)[parts[p]]);
            n = &(*n)[parts[p]];
        }
        if (n->contains(parts.back())) {
            const json &old = (*n)[parts.back()];
            if (old.is_object() && v->is_object())
                continue; // an empty group given twice
            if (old.is_object() && !old.empty())
                throw group_error(key, *v);
            throw config_error("config key '" + key + "' is given twice (once nested, once dotted)");
        }
        (*n)[parts.back()] = *v;
    }
    return out;
}

config config::from_text(const std::string &text, const std::string &path,
                         const std::vector<std::string> &sets)
{
    if (text.empty())
        throw config_error(path + ":1: empty or unreadable config file");
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0)
        throw config_error(path + ":1: starts with a UTF-8 byte-order mark; save it without one");
    check_depth(text, path);
    json file;
    // Duplicate keys are an error (JSON parsers differ on which one wins).
    std::vector<std::pair<std::string, std::vector<std::string>>> scopes; // (dotted path, keys seen)
    std::string last_key, duplicate;
    auto cb = [&](int, json::parse_event_t ev, json &parsed) {
        switch (ev) {
        case json::parse_event_t::object_start: {
            std::string at = scopes.empty() ? "" : scopes.back().first;
            if (!scopes.empty() && !last_key.empty())
                at = at.empty() ? last_key : at + "." + last_key;
            scopes.push_back({at, {}});
            break;
        }
        case json::parse_event_t::key: {
            last_key = parsed.get<std::string>();
            auto &seen = scopes.back().second;
            if (duplicate.empty() && std::find(seen.begin(), seen.end(), last_key) != seen.end())
                duplicate = scopes.back().first.empty() ? last_key
                                                        : scopes.back().first + "." + last_key;
            seen.push_back(last_key);
            break;
        }
        case json::parse_event_t::object_end:
            scopes.pop_back();
            break;
        default:
            break;
        }
        return true;
    };
    try {
        file = json::parse(text, cb);
        if (!duplicate.empty())
            throw config_error(path + ": config key '" + duplicate + "' appears twice");
    } catch (const json::parse_error &e) {
        throw config_error(path + ":" + std::to_string(line_of(text, e.byte ? e.byte - 1 : 0)) +
                           ": invalid JSON: " + e.what());
    } catch (const json::exception &e) {
        // e.g. out_of_range 406, a number too large for a double: the
        // message quotes the number; its first occurrence gives the line.
        const std::string what = e.what();
        size_t at = 0;
        const size_t q1 = what.find('\''), q2 = q1 == std::string::npos ? q1 : what.find('\'', q1 + 1);
        if (q2 != std::string::npos) {
            const size_t found = text.find(what.substr(q1 + 1, q2 - q1 - 1));
            if (found != std::string::npos)
                at = found;
        }
        throw config_error(path + ":" + std::to_string(line_of(text, at)) + ": invalid JSON: " + what);
    }
    if (!file.is_object())
        throw config_error(path + ":1: config must be a JSON object");
    try {
        file = undot(file);
        check_tree(file, "");
    } catch (const config_error &e) {
        throw config_error(path + ": " + e.what());
    }
    config c = defaults();
    merge(c.j, file);
    for (auto &kv : sets) {
        auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw config_error("--set '" + kv + "': expected key=value");
        c.set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    c.validate();
    return c;
}

std::string config::schema_markdown()
{
    std::ostringstream o;
    o << "| key | type | range / values | default | meaning |\n|---|---|---|---|---|\n";
    for (auto &s : config_schema()) {
        std::string range;
        if (s.type == key_type::integer)
            range = std::to_string(s.min) + ".." + std::to_string(s.max) +
                    (s.pow2 ? ", power of two" : "");
        else if (s.type == key_type::boolean)
            range = "true, false";
        else if (!s.choices.empty()) {
            for (auto &c : s.choices)
                range += (range.empty() ? "" : ", ") + c;
        } else
            range = "any";
        o << "| `" << s.key << "` | " << type_name(s.type) << " | " << range << " | `"
          << s.def.dump() << "` | " << s.doc << " |\n";
    }
    return o.str();
}

} // namespace gmmu
