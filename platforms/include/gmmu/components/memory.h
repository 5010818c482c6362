// gmmu — sparse physical memory: a TLM-2.0 LT target whose 4 KiB pages are
// allocated on first write (reads of untouched memory return zero without
// allocating), so address spaces of many GiB cost only what is touched.
//
// Supports: b_transport (plain payloads and warp payloads: every active lane
// at warp_ext::pa), transport_dbg (plain and warp payloads), DMI (page-sized regions, read/write),
// byte enables are rejected with TLM_BYTE_ENABLE_ERROR_RESPONSE.
// The DMI hint of a b_transport response is set for a plain access to a
// page that exists when no bandwidth is booked: a timed initiator (the page
// walker) may then read by DMI. Functional initiators may ask for DMI at any
// time. move_range revokes the DMI regions of the pages it moves.
#pragma once

#include <array>
#include <csignal>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "gmmu/components/extensions.h"
#include "gmmu/components/stats.h"
#include "gmmu/mem_bw.h"

namespace gmmu {

struct warp_ext;

class memory : public sc_core::sc_module, public stats_provider {
  public:
    tlm_utils::multi_passthrough_target_socket<memory> tsock; // any number of initiators

    static constexpr unsigned page_shift = 12;
    static constexpr uint64_t page_size = 1ull << page_shift;

    // latency: per access (a warp access costs one latency: lanes are served
    // by parallel channels); clock period for the cycle->time conversion.
    memory(sc_core::sc_module_name name, unsigned latency_cycles, sc_core::sc_time clock);

    // Backdoor access for the driver/OS model and tests (no timing, no stats).
    void write_bytes(uint64_t pa, const void *src, uint64_t len);
    void read_bytes(uint64_t pa, void *dst, uint64_t len) const;
    uint64_t read64(uint64_t pa) const;
    void write64(uint64_t pa, uint64_t v);

    // The page at pa (page aligned) holds the page_size bytes at src, read
    // from there until its first write or DMI grant copies them into a host
    // page of its own: a workload that places a large input this way costs
    // the pages the run touches, not the whole input. src must stay valid
    // and unchanged while the memory holds the page (a move_range moves it
    // with the page). A page that already has a host page is written now.
    void write_lazy(uint64_t pa, const uint8_t *src);

    // Pages that hold data: a host page, or a write_lazy source not yet copied.
    uint64_t pages_allocated() const { return pages.size(); }
    // Host bytes the page index takes (its directory and leaves, not the
    // hash map above 2 TiB): what sparse physical pages cost beside their
    // host pages.
    uint64_t index_bytes() const { return pages.index_bytes(); }

    // Move the contents of [from, from + len) to [to, to + len) (page
    // aligned, not overlapping) without copying: the host pages that back
    // the source now back the destination, the source reads zero, and host
    // pages the destination had are kept for reuse. A page migration moves
    // its frame this way, so the host memory a run holds does not grow with
    // the migrations, and a 1 GiB frame costs only its touched pages.
    void move_range(uint64_t from, uint64_t to, uint64_t len);

    // Bandwidth (0 = unlimited, the default): b_transport moves at most this
    // many bytes per clock cycle; which 64-cycle window an access is booked
    // in and how long it waits is gmmu/mem_bw.h's, and the wait is added to
    // its delay. A warp access moves its active lanes' bytes rounded up to
    // 32-byte sectors. DMI and debug accesses are not booked, so a memory
    // that books bandwidth clears the DMI hint of its responses (a timed
    // initiator keeps to b_transport) and setting a bandwidth revokes the
    // DMI regions granted before.
    void set_bytes_per_cycle(unsigned bytes_per_cycle);

    // Stop requests (a flag a signal handler sets, or null): once *flag is
    // non-zero, every access calls sc_core::sc_pause(), so sc_start returns
    // at the end of the current delta cycle however much simulated time its
    // slice had left (a slow configuration takes seconds of wall time per
    // simulated microsecond). Costs one load per access until then.
    void pause_when(const volatile std::sig_atomic_t *flag) { pause_flag = flag; }
    void dump_stats(nlohmann::json &j) const override;
    // The counters dump_stats writes, declared once (docs/stats.md is made from it).
    static const stat_table<memory> &stats_table();

    unsigned latency_cycles;
    sc_core::sc_time clock;
    cycles_time_memo latency_time; // latency_cycles as a time

  private:
    void b_transport(int id, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload &gp);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi);

    uint8_t *page_for_write(uint64_t pa);
    const uint8_t *page_for_read(uint64_t pa) const;
    void copy(bool write, uint64_t pa, uint8_t *buf, uint64_t len);
    void move_lanes(warp_ext &w, bool write);

    // Host pages come from an arena of 2 MiB chunks (page_arena, memory.cpp):
    // mapped anonymous memory reads as zero without a memset, is never freed
    // before the memory is, and is asked for transparent huge pages, so
    // touching a new page rarely costs a fault of its own. Under
    // AddressSanitizer every page is a heap block of its own instead, so an
    // access that runs past a page end is reported.
    class page_arena {
      public:
        page_arena() = default;
        page_arena(const page_arena &) = delete;
        page_arena &operator=(const page_arena &) = delete;
        ~page_arena();
        uint8_t *take(); // a zeroed page_size page
      private:
        std::vector<std::pair<void *, size_t>> chunks; // mapped: address, bytes
        [[maybe_unused]] uint8_t *next = nullptr; // (unused when every page is a heap block)
        [[maybe_unused]] size_t left = 0;         // pages left in the current chunk
    };
    page_arena arena;
    // A page of simulated memory: its host page, and whether a DMI pointer
    // to it was handed out (kept beside the page, so that a grant costs the
    // page's own lookup and nothing more).
    struct page_ref {
        uint8_t *page = nullptr;       // the host page, or null while src holds the data
        const uint8_t *src = nullptr;  // write_lazy's source (read only), until copied
        bool dmi = false;
    };
    // The pages by PPN: a directory of leaves of 64 pages (256 KiB of
    // physical addresses each, 1.5 KiB per leaf) up to 2 TiB, where the
    // platform's memory lies, and a hash map above it. A lookup is two loads
    // where a hash map took a division and a chain walk: every DMI grant and
    // every access that misses the page cache below looks a page up. Leaves
    // stay small because pages may be sparse in physical memory (a 1 TiB
    // region mapped where touched puts nearly every page in a leaf of its
    // own: 12 KiB per page with leaves of 512, docs/performance.md, Scale).
    class page_index {
      public:
        page_ref *find(uint64_t ppn); // null when the page holds nothing
        const page_ref *find(uint64_t ppn) const { return const_cast<page_index *>(this)->find(ppn); }
        page_ref &at(uint64_t ppn); // the page's entry, made when absent (empty)
        void erase(uint64_t ppn);
        uint64_t size() const; // pages that hold something (a host page or a source)
        uint64_t index_bytes() const
        {
            uint64_t n = low.capacity() * sizeof(low[0]);
            for (const auto &l : low)
                n += l ? sizeof(leaf) : 0;
            return n;
        }
        template <class F> void for_each(F f)
        {
            for (auto &l : low)
                if (l)
                    for (page_ref &r : *l)
                        if (r.page || r.src)
                            f(r);
            for (auto &h : high)
                f(h.second);
        }

      private:
        static constexpr unsigned leaf_log2 = 6;
        static constexpr uint64_t low_leaves = 1ull << (29 - leaf_log2); // 2 TiB of physical addresses
        using leaf = std::array<page_ref, 1u << leaf_log2>;
        std::vector<std::unique_ptr<leaf>> low;    // by PPN >> leaf_log2, grown as needed
        std::unordered_map<uint64_t, page_ref> high; // PPNs above them
    };
    page_index pages;                             // by PPN, into the arena
    std::vector<uint8_t *> spare;                 // host pages move_range freed (not zeroed)
    uint64_t dmi_pages = 0;                       // pages whose dmi is set
    page_ref &page_entry(uint64_t ppn);           // with a host page (allocated, or copied from src)
    void forget_cached_page(uint64_t ppn);
    void forget_cached_pages();
    // Direct-mapped cache of allocated pages in front of the map (emptied
    // when move_range changes the owners of pages): the warps of an SM and the page
    // walker interleave accesses to a few hundred pages, each a hash-map
    // lookup otherwise.
    // A slot (and the last page) may hold a write_lazy source for reads:
    // ro says so, and a write then takes the slow path.
    struct page_slot {
        uint64_t ppn = ~0ull;
        uint8_t *page = nullptr;
        bool ro = false;
    };
    mutable uint64_t last_ppn = ~0ull; // the page of the previous access
    mutable uint8_t *last_page = nullptr;
    mutable bool last_ro = false;
    static constexpr unsigned page_cache_log2 = 9;
    mutable std::array<page_slot, 1u << page_cache_log2> page_cache{};
    static unsigned page_slot_of(uint64_t ppn)
    {
        return unsigned((ppn * 0x9E3779B97F4A7C15ull) >> (64 - page_cache_log2));
    }

    // The bandwidth windows (gmmu/mem_bw.h); null = unlimited.
    std::unique_ptr<gmmu_mem_bw, void (*)(gmmu_mem_bw *)> bw{nullptr, &gmmu_mem_bw_destroy};
    const volatile std::sig_atomic_t *pause_flag = nullptr;

    uint64_t reads = 0, writes = 0, lane_reads = 0, lane_writes = 0, bytes_read = 0,
             bytes_written = 0, dbg_accesses = 0, dmi_grants = 0;
};

} // namespace gmmu
