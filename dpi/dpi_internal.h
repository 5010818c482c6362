// Internal to gmmu_dpi (docs/dpi.md): what the DPI-C functions of
// gmmu_dpi.cpp (common, TLB, coalescer) and gmmu_dpi_walk.cpp (page-walk
// caches, walk scheduler, walker) share: key-string parsing, the last error,
// and the handles the SV side holds as chandles.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <svdpi.h>

#include "gmmu/components/config.h"

extern "C" {
#include "gmmu/coalescer.h"
#include "gmmu/pagetable.h"
#include "gmmu/pwc.h"
#include "gmmu/tlb.h"
#include "gmmu/walk_sched.h"
}

// svdpi.h: longint unsigned is unsigned long long.
using sv_u64 = unsigned long long;

namespace gmmu_dpi_detail {

// The message gmmu_dpi_last_error() returns (per thread).
std::string &last_error();
void set_error(std::string msg);

// ---- key strings ---------------------------------------------------------------

struct kv {
    std::string key, value;
};

// "k=v k2=v2" (whitespace or commas between pairs) or a JSON object whose
// values are numbers, booleans or strings. Throws config_error.
std::vector<kv> parse_keys(const char *text);
// An unsigned integer value of key (decimal or 0x hex). Throws config_error.
uint64_t parse_u64(const kv &p, uint64_t lo, uint64_t hi);
bool parse_bool(const kv &p);

// ---- handles -----------------------------------------------------------------------

enum class kind { tlb, pwc, ws, walker };

const char *kind_name(kind k);

// Every handle alive is in a registry (a set of addresses, under a lock): a
// chandle is dereferenced only after it is found there, so a freed, foreign
// or forged handle gets an error, never a read of freed memory.
struct handle;
void enroll(const handle *h);
void withdraw(const handle *h);
bool is_live(const void *h);
size_t live_count();

struct handle {
    kind k;
    explicit handle(kind kk) : k(kk) { enroll(this); }
    virtual ~handle() { withdraw(this); }
    handle(const handle &) = delete;
    handle &operator=(const handle &) = delete;
    // Counters by name (the C model's stats struct field names).
    virtual std::vector<std::pair<const char *, uint64_t>> stats() const = 0;
    virtual void reset_stats() = 0;
};

// The handle behind h if it is a live one of kind k; else null and an error.
template <class T>
T *as(void *h, kind k, const char *fn)
{
    auto *p = static_cast<handle *>(h);
    if (!p) {
        set_error(std::string(fn) + ": null handle");
        return nullptr;
    }
    if (!is_live(p)) {
        set_error(std::string(fn) + ": not a live gmmu handle (freed, or not from gmmu_dpi)");
        return nullptr;
    }
    if (p->k != k) {
        set_error(std::string(fn) + ": a " + kind_name(p->k) + " handle, expected a " + kind_name(k));
        return nullptr;
    }
    return static_cast<T *>(p);
}

#define GMMU_STAT(s, f) {#f, (s).f}

// The keys of gmmu-sim's l1_tlb level, without the prefix. Parsed, checked
// and turned into the model's config by gmmu-sim's own code (config::set,
// config::validate, tlb_params_from, i.e. tlb_descriptor()); its messages
// name "l1_tlb.KEY", shown here as "KEY".
inline constexpr char kTlbPrefix[] = "l1_tlb";

// A message with every "l1_tlb." removed (the TLB's keys are shown bare).
std::string strip_prefix(std::string msg);

// Runs f; a thrown config_error (or anything else) becomes the last error and
// a null handle.
template <class F>
void *make(const char *fn, F f)
{
    try {
        last_error().clear();
        return f();
    } catch (const std::exception &e) {
        set_error(std::string(fn) + ": " + strip_prefix(e.what()));
    } catch (...) {
        set_error(std::string(fn) + ": unknown error");
    }
    return nullptr;
}

inline uint64_t word64(const svBitVecVal *v, unsigned i)
{
    return uint64_t(v[2 * i]) | (uint64_t(v[2 * i + 1]) << 32);
}

inline unsigned field(const svBitVecVal *v, unsigned lsb, unsigned width)
{
    unsigned x = 0;
    for (unsigned b = 0; b < width; b++)
        x |= ((v[(lsb + b) / 32] >> ((lsb + b) % 32)) & 1u) << b;
    return x;
}

} // namespace gmmu_dpi_detail
