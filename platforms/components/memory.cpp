#include "gmmu/components/memory.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include <sys/mman.h>

#include "gmmu/components/extensions.h"

namespace gmmu {

static const uint8_t zero_page[memory::page_size] = {};

#if defined(__SANITIZE_ADDRESS__)
#define GMMU_PAGE_ARENA_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GMMU_PAGE_ARENA_HEAP 1
#endif
#endif

memory::page_arena::~page_arena()
{
    for (auto &c : chunks) {
#ifdef GMMU_PAGE_ARENA_HEAP
        ::operator delete[](c.first);
#else
        munmap(c.first, c.second);
#endif
    }
}

uint8_t *memory::page_arena::take()
{
#ifdef GMMU_PAGE_ARENA_HEAP
    auto *p = static_cast<uint8_t *>(::operator new[](page_size));
    std::memset(p, 0, page_size);
    chunks.emplace_back(p, page_size);
    return p;
#else
    constexpr size_t arena_chunk_bytes = size_t(2) << 20; // one x86-64 huge page
    if (left == 0) {
        void *m = mmap(nullptr, arena_chunk_bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(m, arena_chunk_bytes, MADV_HUGEPAGE); // a hint: without it, 4 KiB pages
#endif
        chunks.emplace_back(m, arena_chunk_bytes);
        next = static_cast<uint8_t *>(m);
        left = arena_chunk_bytes / page_size;
    }
    uint8_t *p = next; // zero: fresh anonymous memory
    next += page_size;
    left--;
    return p;
#endif
}

memory::memory(sc_core::sc_module_name name, unsigned latency, sc_core::sc_time clk)
    : sc_module(name), tsock("tsock"), latency_cycles(latency), clock(clk)
{
    tsock.register_b_transport(this, &memory::b_transport);
    tsock.register_transport_dbg(this, &memory::transport_dbg);
    tsock.register_get_direct_mem_ptr(this, &memory::get_direct_mem_ptr);
}

memory::page_ref *memory::page_index::find(uint64_t ppn)
{
    const uint64_t li = ppn >> leaf_log2;
    if (li < low_leaves) {
        if (li >= low.size() || !low[li])
            return nullptr;
        page_ref &r = (*low[li])[ppn & ((1u << leaf_log2) - 1)];
        return r.page || r.src ? &r : nullptr;
    }
    auto it = high.find(ppn);
    return it == high.end() ? nullptr : &it->second;
}

memory::page_ref &memory::page_index::at(uint64_t ppn)
{
    const uint64_t li = ppn >> leaf_log2;
    if (li >= low_leaves)
        return high[ppn];
    if (li >= low.size())
        low.resize(li + 1);
    if (!low[li])
        low[li] = std::make_unique<leaf>();
    return (*low[li])[ppn & ((1u << leaf_log2) - 1)];
}

void memory::page_index::erase(uint64_t ppn)
{
    const uint64_t li = ppn >> leaf_log2;
    if (li >= low_leaves)
        high.erase(ppn);
    else if (li < low.size() && low[li])
        (*low[li])[ppn & ((1u << leaf_log2) - 1)] = page_ref{};
}

uint64_t memory::page_index::size() const
{
    uint64_t n = high.size();
    for (const auto &l : low)
        if (l)
            for (const page_ref &r : *l)
                n += r.page || r.src;
    return n;
}

uint8_t *memory::page_for_write(uint64_t pa)
{
    const uint64_t ppn = pa >> page_shift;
    if (ppn == last_ppn && !last_ro)
        return last_page;
    page_slot &c = page_cache[page_slot_of(ppn)];
    if (c.ppn == ppn && !c.ro) {
        last_ppn = ppn;
        last_ro = false;
        return last_page = c.page;
    }
    uint8_t *page = page_entry(ppn).page;
    c.ppn = last_ppn = ppn;
    c.ro = last_ro = false;
    return c.page = last_page = page;
}

memory::page_ref &memory::page_entry(uint64_t ppn)
{
    page_ref &r = pages.at(ppn);
    if (!r.page) {
        if (spare.empty()) {
            r.page = arena.take();
        } else {
            r.page = spare.back();
            spare.pop_back();
            std::memset(r.page, 0, page_size);
        }
        if (r.src) { // write_lazy's data, copied on first use
            std::memcpy(r.page, r.src, page_size);
            r.src = nullptr;
            forget_cached_page(ppn); // a cached read pointer may be the source
        }
    }
    return r;
}

void memory::forget_cached_page(uint64_t ppn)
{
    page_slot &c = page_cache[page_slot_of(ppn)];
    if (c.ppn == ppn)
        c = page_slot{};
    if (last_ppn == ppn) {
        last_ppn = ~0ull;
        last_page = nullptr;
        last_ro = false;
    }
}

void memory::write_lazy(uint64_t pa, const uint8_t *src)
{
    if (pa & (page_size - 1))
        throw std::invalid_argument("memory::write_lazy: address not page aligned");
    if (!src)
        throw std::invalid_argument("memory::write_lazy: no source");
    const uint64_t ppn = pa >> page_shift;
    page_ref &r = pages.at(ppn);
    if (r.page) {
        std::memcpy(r.page, src, page_size);
        return;
    }
    r.src = src;
    forget_cached_page(ppn);
}

const uint8_t *memory::page_for_read(uint64_t pa) const
{
    const uint64_t ppn = pa >> page_shift;
    if (ppn == last_ppn)
        return last_page;
    page_slot &c = page_cache[page_slot_of(ppn)];
    if (c.ppn == ppn) {
        last_ppn = ppn;
        last_ro = c.ro;
        return last_page = c.page;
    }
    const page_ref *found = pages.find(ppn);
    if (!found)
        return zero_page; // not cached: a later write allocates the page
    const page_ref &r = *found;
    c.ppn = last_ppn = ppn;
    c.ro = last_ro = !r.page;
    // A write_lazy source is only ever read through the caches (ro).
    return c.page = last_page = r.page ? r.page : const_cast<uint8_t *>(r.src);
}

void memory::copy(bool write, uint64_t pa, uint8_t *buf, uint64_t len)
{
    while (len) {
        uint64_t off = pa & (page_size - 1);
        uint64_t n = std::min<uint64_t>(len, page_size - off);
        if (write)
            std::memcpy(page_for_write(pa) + off, buf, n);
        else
            std::memcpy(buf, page_for_read(pa) + off, n);
        pa += n;
        buf += n;
        len -= n;
    }
}

void memory::forget_cached_pages()
{
    last_ppn = ~0ull;
    last_page = nullptr;
    last_ro = false;
    page_cache.fill(page_slot{});
}

void memory::move_range(uint64_t from, uint64_t to, uint64_t len)
{
    for (uint64_t off = 0; off < len; off += page_size) {
        const uint64_t s = (from + off) >> page_shift, d = (to + off) >> page_shift;
        // A DMI region of either page now points at the wrong host page (or
        // at one kept for reuse): revoked from every initiator, below.
        bool granted[2] = {false, false}; // s, d
        if (page_ref *dt = pages.find(d)) {
            granted[1] = dt->dmi;
            if (dt->page)
                spare.push_back(dt->page);
            pages.erase(d);
        }
        if (page_ref *st = pages.find(s)) {
            granted[0] = st->dmi;
            const page_ref moved{st->page, st->src, false};
            pages.erase(s);
            pages.at(d) = moved;
        } else if (s == d) {
            granted[0] = granted[1]; // the same page, revoked once
            granted[1] = false;
        }
        for (unsigned k = 0; k < 2; k++) {
            if (!granted[k])
                continue;
            dmi_pages--;
            const uint64_t ppn = k ? d : s;
            for (unsigned i = 0; i < tsock.size(); i++)
                tsock[i]->invalidate_direct_mem_ptr(ppn << page_shift, ((ppn + 1) << page_shift) - 1);
        }
    }
    forget_cached_pages();
}

void memory::write_bytes(uint64_t pa, const void *src, uint64_t len)
{
    copy(true, pa, const_cast<uint8_t *>(static_cast<const uint8_t *>(src)), len);
}

void memory::read_bytes(uint64_t pa, void *dst, uint64_t len) const
{
    const_cast<memory *>(this)->copy(false, pa, static_cast<uint8_t *>(dst), len);
}

uint64_t memory::read64(uint64_t pa) const
{
    uint64_t v = 0;
    read_bytes(pa, &v, 8);
    return v;
}

void memory::write64(uint64_t pa, uint64_t v) { write_bytes(pa, &v, 8); }

// After a warp's lanes, the host lines that follow its last 8-byte lane in
// that page are prefetched (to the second-level cache): a warp that streams
// finds its next access there, however many other warps' accesses come in
// between. The hardware's stream prefetchers follow a few dozen streams;
// an SM whose warps wait on walks, or a fine quantum, interleaves more.
static constexpr uint64_t next_lines_bytes = 256; // one warp access of 8-byte lanes

void memory::move_lanes(warp_ext &w, bool write)
{
    if (w.timing_only)
        return;
    for (unsigned l = 0; l < w.nlanes; l++) {
        if (!(w.active & (1u << l)))
            continue;
        uint64_t pa = w.pa[l];
        uint64_t off = pa & (page_size - 1);
        if (w.lane_bytes == 8 && off + 8 <= page_size) {
            // The usual lane: a constant-size copy compiles to one load and
            // one store, where the general one below calls memcpy.
            if (write)
                std::memcpy(page_for_write(pa) + off, &w.data[l], 8);
            else
                std::memcpy(&w.data[l], page_for_read(pa) + off, 8);
        } else if (off + w.lane_bytes <= page_size) {
            if (write)
                std::memcpy(page_for_write(pa) + off, &w.data[l], w.lane_bytes);
            else {
                w.data[l] = 0;
                std::memcpy(&w.data[l], page_for_read(pa) + off, w.lane_bytes);
            }
        } else {
            if (!write)
                w.data[l] = 0;
            copy(write, pa, reinterpret_cast<uint8_t *>(&w.data[l]), w.lane_bytes);
        }
    }
    // The last active lane's page is the last one looked up (the page
    // caches' last_ppn) unless it has no host page yet.
    const uint32_t lanes = w.nlanes >= 32 ? w.active : w.active & ((1u << w.nlanes) - 1);
    if (!lanes)
        return;
    const uint64_t pa = w.pa[31 - __builtin_clz(lanes)];
    if ((pa >> page_shift) != last_ppn || !last_page)
        return;
    for (uint64_t at = (pa & (page_size - 1)) + w.lane_bytes, k = 0; k < next_lines_bytes && at + k < page_size;
         k += 64)
        __builtin_prefetch(last_page + at + k, 0, 2);
}

void memory::b_transport(int, tlm::tlm_generic_payload &gp, sc_core::sc_time &delay)
{
    if (pause_flag && *pause_flag)
        sc_core::sc_pause();
    if (gp.get_byte_enable_ptr()) {
        gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
        return;
    }
    tlm::tlm_command cmd = gp.get_command();
    if (cmd == tlm::TLM_IGNORE_COMMAND) {
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return;
    }
    bool write = cmd == tlm::TLM_WRITE_COMMAND;
    uint64_t moved = 0; // bytes for the bandwidth booking
    // The DMI hint (TLM-2.0 8.2.4) says whether this access could have gone
    // by DMI: not when the memory books bandwidth (every timed access must
    // be booked), and not for a warp payload (its lanes are scattered).
    warp_ext *wx = gp.get_extension<warp_ext>();
    bool dmi_hint = !bw && !wx;
    if (auto *w = wx) {
        if (w->lane_bytes == 0 || w->lane_bytes > 8 || w->nlanes > warp_ext::lanes) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        move_lanes(*w, write);
        unsigned n = (unsigned)__builtin_popcount(w->active);
        moved = gmmu_mem_bw_warp_bytes(n, w->lane_bytes);
        if (write) {
            writes++;
            lane_writes += n;
            bytes_written += uint64_t(n) * w->lane_bytes;
        } else {
            reads++;
            lane_reads += n;
            bytes_read += uint64_t(n) * w->lane_bytes;
        }
    } else {
        unsigned len = gp.get_data_length();
        if (!gp.get_data_ptr() && len) {
            gp.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
            return;
        }
        const uint64_t pa = gp.get_address(), off = pa & (page_size - 1);
        if (len == 8 && off + 8 <= page_size) { // a PTE or any aligned word: no copy loop
            if (write) {
                std::memcpy(page_for_write(pa) + off, gp.get_data_ptr(), 8);
            } else {
                const uint8_t *page = page_for_read(pa);
                std::memcpy(gp.get_data_ptr(), page + off, 8);
                // A page never written has no host page to hand out: a DMI
                // grant would allocate one for a read.
                dmi_hint = dmi_hint && page != zero_page;
            }
        } else {
            copy(write, pa, gp.get_data_ptr(), len);
            dmi_hint = dmi_hint && (write || page_for_read(pa) != zero_page);
        }
        moved = len;
        if (write) {
            writes++;
            bytes_written += len;
        } else {
            reads++;
            bytes_read += len;
        }
    }
    sc_core::sc_time added = latency_time.get(clock, latency_cycles);
    if (bw && moved) {
        const sc_core::sc_time at = sc_core::sc_time_stamp() + delay;
        const uint64_t wait = gmmu_mem_bw_book(bw.get(), uint64_t(at / clock), moved);
        added += clock * double(wait);
    }
    delay += added;
    if (wx)
        wx->data_delay = added;
    gp.set_dmi_allowed(dmi_hint);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

void memory::set_bytes_per_cycle(unsigned bytes_per_cycle)
{
    bw.reset();
    if (!bytes_per_cycle)
        return;
    if (dmi_pages) {
        pages.for_each([](page_ref &r) { r.dmi = false; });
        dmi_pages = 0;
        for (unsigned i = 0; i < tsock.size(); i++)
            tsock[i]->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
    }
    gmmu_mem_bw_config c{};
    c.bytes_per_cycle = bytes_per_cycle;
    gmmu_mem_bw *b = nullptr;
    gmmu_error err{};
    if (gmmu_mem_bw_create(&c, &b, &err) != GMMU_OK)
        throw std::bad_alloc(); // bytes_per_cycle >= 1 here: only allocation fails
    bw.reset(b);
}

unsigned memory::transport_dbg(int, tlm::tlm_generic_payload &gp)
{
    tlm::tlm_command cmd = gp.get_command();
    unsigned len = gp.get_data_length();
    dbg_accesses++;
    if (pause_flag && *pause_flag && sc_core::sc_is_running())
        sc_core::sc_pause();
    if (cmd == tlm::TLM_IGNORE_COMMAND)
        return 0;
    if (auto *w = gp.get_extension<warp_ext>()) {
        // A warp payload (a data cache moving a hit's data): every active lane.
        if (w->lane_bytes == 0 || w->lane_bytes > 8 || w->nlanes > warp_ext::lanes)
            return 0;
        move_lanes(*w, cmd == tlm::TLM_WRITE_COMMAND);
        gp.set_response_status(tlm::TLM_OK_RESPONSE);
        return unsigned(__builtin_popcount(w->active)) * w->lane_bytes;
    }
    if (!gp.get_data_ptr())
        return 0;
    copy(cmd == tlm::TLM_WRITE_COMMAND, gp.get_address(), gp.get_data_ptr(), len);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
    return len;
}

bool memory::get_direct_mem_ptr(int, tlm::tlm_generic_payload &gp, tlm::tlm_dmi &dmi)
{
    // Neighbouring PPNs are not neighbours in host memory (each page is where
    // the arena put it when first written), so a DMI region is one 4 KiB page. The
    // page is allocated now so that writes through the pointer persist.
    uint64_t pa = gp.get_address() & ~(page_size - 1);
    page_ref &r = page_entry(pa >> page_shift);
    if (!r.dmi) {
        r.dmi = true;
        dmi_pages++;
    }
    dmi.set_dmi_ptr(r.page);
    dmi.set_start_address(pa);
    dmi.set_end_address(pa + page_size - 1);
    dmi.allow_read_write();
    dmi.set_read_latency(clock * latency_cycles);
    dmi.set_write_latency(clock * latency_cycles);
    dmi_grants++;
    return true;
}

const stat_table<memory> &memory::stats_table()
{
    using json = nlohmann::json;
    using T = memory;
    const auto has_bw = [](const T &c) { return c.bw != nullptr; };
    static const stat_table<memory> table(
        70, "Memory (`gpu.memory`)",
        "",
        {
            {"reads", "TLM data reads by b_transport (a warp access counts once; reads by DMI, such as the walker's with `ptw.dmi`, are not seen)",
             [](const T &c) { return json(c.reads); }},
            {"writes", "TLM data writes (a warp access counts once)",
             [](const T &c) { return json(c.writes); }},
            {"lane_reads", "lanes read",
             [](const T &c) { return json(c.lane_reads); }},
            {"lane_writes", "lanes written",
             [](const T &c) { return json(c.lane_writes); }},
            {"bytes_read", "bytes read by b_transport",
             [](const T &c) { return json(c.bytes_read); }},
            {"bytes_written", "bytes written",
             [](const T &c) { return json(c.bytes_written); }},
            {"debug_accesses", "debug transport calls",
             [](const T &c) { return json(c.dbg_accesses); }},
            {"dmi_grants", "DMI regions handed out",
             [](const T &c) { return json(c.dmi_grants); }},
            {"pages_allocated", "4 KiB pages that hold data: a host page, or a workload's input placed to be copied into one on its first write (`memory::write_lazy`)",
             [](const T &c) { return json(c.pages.size()); }},
            {"bandwidth.bytes_per_cycle", "with `memory.bytes_per_cycle` > 0: the limit",
             [](const T &c) { return json(c.bw->capacity >> GMMU_MEM_BW_WINDOW_SHIFT); }, has_bw},
            {"bandwidth.bytes_booked", "the bytes booked against it (a warp access books its active lanes' bytes in 32-byte sectors)",
             [](const T &c) { return json(c.bw->st.bytes_booked); }, has_bw},
            {"bandwidth.accesses_waited", "accesses that found their 64-cycle window full",
             [](const T &c) { return json(c.bw->st.waits); }, has_bw},
            {"bandwidth.wait_cycles", "the cycles they waited for one with room",
             [](const T &c) { return json(c.bw->st.wait_cycles); }, has_bw},
        });
    return table;
}

static const bool memory_stats_declared = (memory::stats_table(), true);

void memory::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
