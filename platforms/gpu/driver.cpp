#include "gmmu/gpu/driver.h"

#include <stdexcept>

namespace gmmu {

driver::driver(sc_core::sc_module_name name, memory &m, uint64_t pt_base, uint64_t data_base)
    : sc_module(name), mem(m), next_pt(pt_base), next_data(data_base), data_limit(1ull << 52)
{
    gmmu_mem_ops ops = mem_ops();
    gmmu_error err{};
    if (gmmu_pt_create(&ops, &driver::alloc_frame, this, &pt, &err) != GMMU_OK)
        report_error("driver", std::string("page-table init: ") + err.field + ": " + err.msg);
}

driver::~driver() { gmmu_pt_destroy(pt); }

gmmu_status driver::rd(void *ctx, uint64_t pa, uint64_t *v)
{
    *v = static_cast<driver *>(ctx)->mem.read64(pa);
    return GMMU_OK;
}

gmmu_status driver::wr(void *ctx, uint64_t pa, uint64_t v)
{
    static_cast<driver *>(ctx)->mem.write64(pa, v);
    return GMMU_OK;
}

gmmu_status driver::alloc_frame(void *ctx, uint64_t *pa)
{
    auto *d = static_cast<driver *>(ctx);
    *pa = d->next_pt;
    d->next_pt += 4096;
    return GMMU_OK;
}

gmmu_mem_ops driver::mem_ops() const
{
    return gmmu_mem_ops{&driver::rd, &driver::wr, const_cast<driver *>(this)};
}

bool driver::is_mapped(uint64_t va) const { return translate(va) != ~0ull; }

uint64_t driver::translate(uint64_t va) const
{
    gmmu_mem_ops ops = mem_ops();
    gmmu_walk_result r;
    if (gmmu_walk(&ops, pt->root, va, 0, &r) != GMMU_OK || r.fault != GMMU_FAULT_NONE)
        return ~0ull;
    return r.pa;
}

void driver::map(uint64_t va, uint64_t bytes, unsigned page_shift, uint64_t flags)
{
    map_in(va, bytes, page_shift, flags, nullptr);
}

void driver::map_touched(uint64_t va, uint64_t bytes, unsigned page_shift,
                         const std::vector<uint64_t> &touched, uint64_t flags)
{
    map_in(va, bytes, page_shift, flags, &touched);
}

void driver::map_in(uint64_t va, uint64_t bytes, unsigned page_shift, uint64_t flags,
                    const std::vector<uint64_t> *only)
{
    uint64_t psz = 1ull << page_shift;
    uint64_t lo = va & ~(psz - 1);
    uint64_t hi = (va + bytes + psz - 1) & ~(psz - 1);
    // Data frames follow the VAs contiguously from a base aligned like the
    // region, so aligned VA blocks inside [lo, hi) land on aligned PA blocks.
    uint64_t align = psz;
    while (align < (1ull << 30) && (lo & align) == 0 && align * 2 <= hi - lo)
        align *= 2;
    next_data = (next_data + align - 1) & ~(align - 1);
    const uint64_t pa_base = next_data;
    if (pa_base + (hi - lo) > data_limit)
        throw std::runtime_error("driver: physical memory exhausted");
    // Either every page of [lo, hi) or, with `only`, the listed pages (in
    // ascending order, each page-aligned): the same frames either way.
    size_t k = 0;
    for (uint64_t v = only ? 0 : lo;; v += psz) {
        if (only) {
            if (k == only->size())
                break;
            v = (*only)[k++];
            if (v < lo || v >= hi || (v & (psz - 1)) || (k > 1 && v <= (*only)[k - 2]))
                throw std::runtime_error("driver: touched pages not ascending, aligned and in the region");
        } else if (v >= hi) {
            break;
        }
        uint64_t pa = pa_base + (v - lo);
        // Contiguity hint: largest aligned block of 2^n pages (n <= 7) inside
        // the range whose PA block is aligned the same way; none when only
        // some pages are mapped (the block's other pages may not be).
        unsigned n = 0;
        while (n < 7 && !only) {
            uint64_t blk = psz << (n + 1);
            uint64_t b_lo = v & ~(blk - 1);
            if (b_lo < lo || b_lo + blk > hi || ((pa - (v - b_lo)) & (blk - 1)) != 0)
                break;
            n++;
        }
        gmmu_error err{};
        gmmu_status s = gmmu_pt_map(pt, v, pa, page_shift, flags | GMMU_MAP_CONTIG(n), &err);
        if (s == GMMU_EEXIST)
            continue;
        if (s != GMMU_OK) {
            char buf[64];
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
            throw std::runtime_error(std::string("driver: cannot map VA ") + buf + ": " +
                                     (s == GMMU_EINVAL ? std::string(err.field) + ": " + err.msg
                                                       : gmmu_status_str(s)));
        }
        bytes_mapped += psz;
        mapped.push_back(v);
    }
    mapped_shift = page_shift;
    next_data = pa_base + (hi - lo);
}

static std::string hex(uint64_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return buf;
}

void driver::set_present(uint64_t va, bool present)
{
    gmmu_status s = gmmu_pt_update_leaf(pt, va, present ? GMMU_PTE_P : 0, present ? 0 : GMMU_PTE_P);
    if (s != GMMU_OK)
        throw std::runtime_error("driver: cannot change VA " + hex(va) + ": " + gmmu_status_str(s));
}

void driver::clear_contiguity(uint64_t va_lo, uint64_t va_hi)
{
    const uint64_t psz = 1ull << mapped_shift;
    for (uint64_t v = va_lo & ~(psz - 1); v <= va_hi && v >= (va_lo & ~(psz - 1)); v += psz)
        gmmu_pt_update_leaf(pt, v, 0, GMMU_PTE_CONTIG_MASK); // unmapped pages: nothing to do
}

uint64_t driver::alloc_frame_of(unsigned page_shift)
{
    for (size_t k = free_frames.size(); k-- > 0;)
        if (free_frames[k].second == page_shift) {
            const uint64_t pa = free_frames[k].first;
            free_frames.erase(free_frames.begin() + std::ptrdiff_t(k));
            return pa;
        }
    const uint64_t psz = 1ull << page_shift;
    next_data = (next_data + psz - 1) & ~(psz - 1);
    const uint64_t pa = next_data;
    if (pa + psz > data_limit)
        throw std::runtime_error("driver: physical memory exhausted");
    next_data += psz;
    return pa;
}

void driver::free_frame(uint64_t pa, unsigned page_shift)
{
    free_frames.emplace_back(pa & ~((1ull << page_shift) - 1), page_shift);
}

void driver::set_frame(uint64_t va, uint64_t pa)
{
    gmmu_status s = gmmu_pt_set_frame(pt, va, pa, nullptr);
    if (s != GMMU_OK)
        throw std::runtime_error("driver: cannot move VA " + hex(va) + " to " + hex(pa) + ": " +
                                 gmmu_status_str(s));
}

const stat_table<driver> &driver::stats_table()
{
    using json = nlohmann::json;
    using T = driver;
    static const stat_table<driver> table(
        75, "Driver (`gpu.driver`)",
        "",
        {
            {"bytes_mapped", "bytes of virtual memory mapped",
             [](const T &c) { return json(c.bytes_mapped); }},
            {"page_table_pages", "page-table pages allocated",
             [](const T &c) { return json(c.pt->table_pages); }},
            {"mapped_4k", "4 KiB pages mapped",
             [](const T &c) { return json(c.pt->mapped_pages[0]); }},
            {"mapped_2m", "2 MiB pages mapped",
             [](const T &c) { return json(c.pt->mapped_pages[1]); }},
            {"mapped_1g", "1 GiB pages mapped",
             [](const T &c) { return json(c.pt->mapped_pages[2]); }},
            {"root_pa", "physical address of the root table (CR3)",
             [](const T &c) { return json(c.pt->root); }},
        });
    return table;
}

static const bool driver_stats_declared = (driver::stats_table(), true);

void driver::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
