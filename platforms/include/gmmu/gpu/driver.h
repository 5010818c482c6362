// gmmu — driver/OS model: owns the x86-64 page tables of the GPU address
// space, writes genuine PTEs into simulated physical memory (through the
// memory's backdoor, as a CPU would), and hands out physical frames. Data
// frames are allocated contiguously in VA order, as a GPU driver does.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <vector>

#include <systemc>

#include "gmmu/components/memory.h"
#include "gmmu/components/stats.h"

extern "C" {
#include "gmmu/pagetable.h"
}

namespace gmmu {

class driver : public sc_core::sc_module, public stats_provider {
  public:
    // Page tables are allocated from pt_base up; data frames from data_base up.
    driver(sc_core::sc_module_name name, memory &mem, uint64_t pt_base = 0x01000000ull,
           uint64_t data_base = 0x100000000ull);
    ~driver() override;
    driver(const driver &) = delete;
    driver &operator=(const driver &) = delete;

    uint64_t root() const { return pt->root; }
    // Map [va, va+bytes) with pages of 2^page_shift (va and bytes rounded out to
    // pages); already-mapped pages are skipped. Throws std::runtime_error.
    void map(uint64_t va, uint64_t bytes, unsigned page_shift, uint64_t flags = GMMU_MAP_W | GMMU_MAP_U);
    // Map only the pages of [va, va+bytes) listed in touched (page-aligned
    // VAs, ascending), each to the frame map() would give it; the region's
    // physical range is reserved whole (memory is sparse, so that costs
    // nothing) and no contiguity hints are set. Page tables and frames then
    // grow with the touched pages, not the region.
    void map_touched(uint64_t va, uint64_t bytes, unsigned page_shift,
                     const std::vector<uint64_t> &touched, uint64_t flags = GMMU_MAP_W | GMMU_MAP_U);
    bool is_mapped(uint64_t va) const;
    // Independent functional walk (for checkers): PA of va or ~0 on fault.
    uint64_t translate(uint64_t va) const;
    const gmmu_pt &table() const { return *pt; }
    gmmu_mem_ops mem_ops() const;
    // Host copies to and from physical memory (a workload's set-up and
    // data check): the bytes of [pa, pa + len), any alignment, untimed.
    void write_phys(uint64_t pa, const void *src, uint64_t len) { mem.write_bytes(pa, src, len); }
    void read_phys(uint64_t pa, void *dst, uint64_t len) const { mem.read_bytes(pa, dst, len); }
    // A 4 KiB page of data placed at pa (4 KiB aligned) without a copy until
    // the page is first written (memory::write_lazy: src must outlive the
    // memory's use of it, unchanged).
    void write_phys_lazy(uint64_t pa, const uint8_t *src) { mem.write_lazy(pa, src); }

    // Page migration (platforms/gpu/migrator.h), in the order a driver does
    // it: make the page (VA of any byte in it) not present, drop the
    // contiguity hints of its aligned block of 2^7 pages (the frames stop
    // being contiguous), allocate a new frame, copy, point the PTE at it and
    // make it present again. Throws std::runtime_error.
    void set_present(uint64_t va, bool present);
    void clear_contiguity(uint64_t va_lo, uint64_t va_hi);
    uint64_t alloc_frame_of(unsigned page_shift);
    void set_frame(uint64_t va, uint64_t pa);
    // A frame no PTE points at any more (a migrated page's old frame):
    // alloc_frame_of hands it out again before new physical memory.
    void free_frame(uint64_t pa, unsigned page_shift);
    // Pages mapped so far (their VAs, in mapping order) and their size.
    const std::vector<uint64_t> &pages() const { return mapped; }
    unsigned page_shift() const { return mapped_shift; }

    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<driver> &stats_table();

  private:
    static gmmu_status rd(void *ctx, uint64_t pa, uint64_t *v);
    static gmmu_status wr(void *ctx, uint64_t pa, uint64_t v);
    static gmmu_status alloc_frame(void *ctx, uint64_t *pa);
    void map_in(uint64_t va, uint64_t bytes, unsigned page_shift, uint64_t flags,
                const std::vector<uint64_t> *only);

    memory &mem;
    gmmu_pt *pt = nullptr; // the page-table handle (gmmu_pt_create), owned
    uint64_t next_pt, next_data;
    uint64_t data_limit;
    uint64_t bytes_mapped = 0;
    std::vector<uint64_t> mapped;
    unsigned mapped_shift = 12;
    std::vector<std::pair<uint64_t, unsigned>> free_frames; // (PA, page shift)
};

} // namespace gmmu
