// gmmu — one config descriptor per component.
//
// A descriptor lists, once, every key a component reads: its suffix, type,
// range or allowed values, help text, the member of the component's
// parameter struct it fills, and the name the C model's checker gives that
// member in a gmmu_error. The same table
//   - produces the schema rows for each prefix the component is used under
//     (l1_tlb, l2_tlb and l3_tlb share the TLB descriptor), which feed
//     --list-keys, validation and docs/configs.md;
//   - fills the parameter struct from a validated config;
//   - maps a C checker's field name back to the key that sets it.
// Help text may say {L} (the prefix's label, e.g. "L2") and {P} (the
// prefix, e.g. "l2_tlb"). Per-prefix defaults override a field's default.
#pragma once

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gmmu/components/config.h"

namespace gmmu {

template <class T>
class descriptor {
  public:
    // Fills the struct from the value of key prefix.suffix.
    using apply_fn = std::function<void(T &, const config &, const std::string &key)>;

    struct field {
        key_spec spec;                    // spec.key is the suffix
        std::string c_field;              // the C checker's name for the member ("" = none)
        apply_fn apply;                   // null: read by the platform, not the struct
        std::vector<std::string> only;    // prefixes that have this key (empty = all)
        std::vector<std::pair<std::string, int>> values; // enum keys: text -> C value
    };

    struct prefix_info {
        std::string label;                        // {L} in help text
        std::map<std::string, nlohmann::json> defaults; // suffix -> default
    };

    explicit descriptor(std::vector<field> fields) : fields_(std::move(fields)) {}

    // C checker fields that no key of this component sets: the key (full
    // name) that does (the LDT's "cus" is the L1 TLB count: sm.count), or ""
    // for a member the platform fills with a constant the checker accepts.
    descriptor &c_field_elsewhere(const std::string &c_field, const std::string &key)
    {
        elsewhere_[c_field] = key;
        return *this;
    }
    const std::map<std::string, std::string> &c_fields_elsewhere() const { return elsewhere_; }

    // The schema rows of one prefix.
    std::vector<key_spec> keys(const std::string &prefix, const prefix_info &info) const
    {
        std::vector<key_spec> out;
        for (const field &f : fields_) {
            if (!has(f, prefix))
                continue;
            key_spec s = f.spec;
            s.key = full(prefix, f.spec.key);
            auto d = info.defaults.find(f.spec.key);
            if (d != info.defaults.end())
                s.def = d->second;
            s.doc = expand(s.doc, prefix, info.label);
            out.push_back(std::move(s));
        }
        for (auto &d : info.defaults)
            if (!find(d.first) || !has(*find(d.first), prefix))
                throw std::logic_error("descriptor: default for unknown key " + full(prefix, d.first));
        return out;
    }

    // Fill `out` from the keys under `prefix`.
    void apply(const config &c, const std::string &prefix, T &out) const
    {
        for (const field &f : fields_)
            if (f.apply && has(f, prefix))
                f.apply(out, c, full(prefix, f.spec.key));
    }

    // The key that sets the member the C checker calls `c_field`, or "".
    std::string key_of(const std::string &prefix, const std::string &c_field) const
    {
        for (const field &f : fields_)
            if (!f.c_field.empty() && f.c_field == c_field && has(f, prefix))
                return full(prefix, f.spec.key);
        return "";
    }

    // The key that sets C field `c_field` under `prefix`: this component's
    // own, or one listed by c_field_elsewhere; "" if neither.
    std::string real_key_of(const std::string &prefix, const std::string &c_field) const
    {
        const std::string k = key_of(prefix, c_field);
        if (!k.empty())
            return k;
        auto e = elsewhere_.find(c_field);
        return e == elsewhere_.end() ? "" : e->second;
    }

    // A C checker's error as "config key 'K': MSG", K the key that sets the
    // field; a field no key sets (a constant of the platform) is named as the
    // model's field under the prefix.
    config_error checker_error(const std::string &prefix, const std::string &c_field,
                               const std::string &msg) const
    {
        const std::string key = real_key_of(prefix, c_field);
        if (key.empty())
            return config_error("config '" + prefix + "': " + msg + " (model field '" + c_field + "')");
        return config_error("config key '" + key + "': " + msg);
    }

    // An enum key's C value; unknown text is an error naming the key and the
    // allowed values (the schema refuses it first; this keeps the rule here).
    int enum_value(const std::string &suffix, const std::string &text, const std::string &key) const
    {
        const field *f = find(suffix);
        if (!f || f->values.empty())
            throw std::logic_error("descriptor: " + suffix + " is not an enum key");
        std::string allowed;
        for (auto &v : f->values) {
            if (v.first == text)
                return v.second;
            allowed += (allowed.empty() ? "" : ", ") + v.first;
        }
        throw config_error("config key '" + key + "': '" + text + "' is not one of " + allowed);
    }

    // A boolean key of this component that no member holds (read by whoever
    // builds it, as `enabled`: whether a level exists), for another spec's
    // rule that depends on it: the key must be one of this spec's under
    // `prefix` (a logic_error otherwise), so such a rule reads the owner's
    // key through the owner's spec and cannot name a key that does not exist.
    bool flag(const config &c, const std::string &prefix, const std::string &suffix) const
    {
        for (const field &f : fields_)
            if (f.spec.key == suffix && has(f, prefix) && f.spec.type == key_type::boolean)
                return c.b(full(prefix, suffix));
        throw std::logic_error("descriptor: " + full(prefix, suffix) + " is not a boolean key of this spec");
    }

    const std::vector<field> &fields() const { return fields_; }

    // A key's full name: prefix.suffix, or the suffix alone under the
    // prefix "" (the platform's top-level keys: name, clock_mhz, ...).
    static std::string full(const std::string &prefix, const std::string &suffix)
    {
        return prefix.empty() ? suffix : prefix + "." + suffix;
    }

    const field *find(const std::string &suffix) const
    {
        for (const field &f : fields_)
            if (f.spec.key == suffix)
                return &f;
        return nullptr;
    }

  private:
    std::vector<field> fields_;
    std::map<std::string, std::string> elsewhere_;

    static bool has(const field &f, const std::string &prefix)
    {
        if (f.only.empty())
            return true;
        for (auto &p : f.only)
            if (p == prefix)
                return true;
        return false;
    }

    static std::string expand(std::string s, const std::string &prefix, const std::string &label)
    {
        for (auto [tok, val] : {std::pair<std::string, std::string>{"{L}", label}, {"{P}", prefix}}) {
            for (size_t at = s.find(tok); at != std::string::npos; at = s.find(tok, at + val.size()))
                s.replace(at, tok.size(), val);
        }
        return s;
    }
};

// Builders for descriptor fields.
template <class T>
typename descriptor<T>::field int_field(const std::string &suffix, int64_t def, int64_t lo,
                                        int64_t hi, const std::string &doc,
                                        typename descriptor<T>::apply_fn apply,
                                        std::string c_field = "", bool pow2 = false)
{
    return {key_int(suffix, def, lo, hi, doc, pow2), std::move(c_field), std::move(apply), {}, {}};
}

template <class T>
typename descriptor<T>::field bool_field(const std::string &suffix, bool def, const std::string &doc,
                                         typename descriptor<T>::apply_fn apply,
                                         std::string c_field = "")
{
    return {key_bool(suffix, def, doc), std::move(c_field), std::move(apply), {}, {}};
}

template <class T>
typename descriptor<T>::field enum_field(const std::string &suffix, const std::string &def,
                                         std::vector<std::pair<std::string, int>> values,
                                         const std::string &doc,
                                         typename descriptor<T>::apply_fn apply,
                                         std::string c_field = "")
{
    std::vector<std::string> names;
    for (auto &v : values)
        names.push_back(v.first);
    return {key_string(suffix, def, names, doc), std::move(c_field), std::move(apply), {},
            std::move(values)};
}

template <class T>
typename descriptor<T>::field string_field(const std::string &suffix, const std::string &def,
                                           const std::string &doc,
                                           typename descriptor<T>::apply_fn apply,
                                           std::string c_field = "")
{
    return {key_string(suffix, def, {}, doc), std::move(c_field), std::move(apply), {}, {}};
}

template <class F>
F only_for(F f, std::vector<std::string> prefixes)
{
    f.only = std::move(prefixes);
    return f;
}

} // namespace gmmu
