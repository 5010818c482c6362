// gmmu_dpi's shared parts (dpi_internal.h): key strings, the last error,
// handle kinds.
#include "dpi_internal.h"

#include <mutex>
#include <unordered_set>

#include <nlohmann/json.hpp>

namespace gmmu_dpi_detail {

namespace {
// The live handles. A function-local static: handles made by other static
// initialisers find it built; it is never destroyed, so a handle freed at
// exit (an SV class's destructor, a C++ static) still finds it.
struct registry {
    std::mutex m;
    std::unordered_set<const void *> live;
};
registry &handles()
{
    static registry *r = new registry; // deliberately never freed (see above)
    return *r;
}
} // namespace

void enroll(const handle *h)
{
    auto &r = handles();
    std::lock_guard<std::mutex> g(r.m);
    r.live.insert(h);
}

void withdraw(const handle *h)
{
    auto &r = handles();
    std::lock_guard<std::mutex> g(r.m);
    r.live.erase(h);
}

bool is_live(const void *h)
{
    auto &r = handles();
    std::lock_guard<std::mutex> g(r.m);
    return h && r.live.count(h) != 0;
}

size_t live_count()
{
    auto &r = handles();
    std::lock_guard<std::mutex> g(r.m);
    return r.live.size();
}

std::string &last_error()
{
    thread_local std::string error;
    return error;
}

void set_error(std::string msg) { last_error() = std::move(msg); }

std::vector<kv> parse_keys(const char *text)
{
    std::vector<kv> out;
    const std::string s = text ? text : "";
    size_t i = 0;
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
        i++;
    if (i < s.size() && s[i] == '{') {
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(s);
        } catch (const nlohmann::json::exception &e) {
            throw gmmu::config_error(std::string("config JSON: ") + e.what());
        }
        if (!j.is_object())
            throw gmmu::config_error("config JSON: expected an object of key: value");
        for (auto it = j.begin(); it != j.end(); ++it) {
            const auto &v = it.value();
            if (v.is_string())
                out.push_back({it.key(), v.get<std::string>()});
            else if (v.is_boolean() || v.is_number_integer() || v.is_number_unsigned())
                out.push_back({it.key(), v.dump()});
            else
                throw gmmu::config_error("config key '" + it.key() +
                                         "': expected a number, a boolean or a string");
        }
        return out;
    }
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ','))
            i++;
        if (i >= s.size())
            break;
        size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != ',')
            j++;
        const std::string tok = s.substr(i, j - i);
        const size_t eq = tok.find('=');
        if (eq == std::string::npos || eq == 0)
            throw gmmu::config_error("config: '" + tok + "' is not key=value");
        out.push_back({tok.substr(0, eq), tok.substr(eq + 1)});
        i = j;
    }
    return out;
}

uint64_t parse_u64(const kv &p, uint64_t lo, uint64_t hi)
{
    const std::string &v = p.value;
    const bool hex = v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X');
    const size_t start = hex ? 2 : 0;
    if (v.size() <= start)
        throw gmmu::config_error("config key '" + p.key + "': expected an integer, got '" + v + "'");
    uint64_t x = 0;
    for (size_t k = start; k < v.size(); k++) {
        const char c = v[k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = unsigned(c - '0');
        else if (hex && c >= 'a' && c <= 'f')
            d = unsigned(c - 'a' + 10);
        else if (hex && c >= 'A' && c <= 'F')
            d = unsigned(c - 'A' + 10);
        else
            throw gmmu::config_error("config key '" + p.key + "': expected an integer, got '" + v + "'");
        const uint64_t base = hex ? 16 : 10;
        if (x > (UINT64_MAX - d) / base)
            throw gmmu::config_error("config key '" + p.key + "': '" + v + "' is out of range");
        x = x * base + d;
    }
    if (x < lo || x > hi)
        throw gmmu::config_error("config key '" + p.key + "': " + v + " is outside " +
                                 std::to_string(lo) + ".." + std::to_string(hi));
    return x;
}

bool parse_bool(const kv &p)
{
    if (p.value == "true" || p.value == "1")
        return true;
    if (p.value == "false" || p.value == "0")
        return false;
    throw gmmu::config_error("config key '" + p.key + "': expected true or false, got '" + p.value + "'");
}

const char *kind_name(kind k)
{
    switch (k) {
    case kind::tlb: return "TLB";
    case kind::pwc: return "page-walk cache";
    case kind::ws: return "walk scheduler";
    case kind::walker: return "walker";
    }
    return "?";
}

std::string strip_prefix(std::string msg)
{
    const std::string pre = std::string(kTlbPrefix) + ".";
    for (size_t at = msg.find(pre); at != std::string::npos; at = msg.find(pre, at))
        msg.erase(at, pre.size());
    return msg;
}

} // namespace gmmu_dpi_detail
