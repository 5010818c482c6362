// Workload `kernel`: the synthetic kernels of models/include/gmmu/kernels.h
// (lbm-like, sgemm-like, stencil-like, histo-like, spmv-like, mriq-like,
// tiny; bfs-like, mummer-like, memcached-like, kmeans-like,
// streamcluster-like, pathfinder-like with divergent branches) run
// by the issue/commit SM model (sm.model=issue, sm_core.h).
//
//   --workload kernel --set workload.kernel=lbm-like [--set workload.faults=true]
//
// Data: input regions hold gmmu_kernel_input_value(va) (host-initialised),
// output regions start at zero.

// Seed (`--seed`): the inputs and the block placement. Seed 1 (the default)
// is the unseeded kernel: inputs gmmu_kernel_input_value(va), blocks handed
// out in id order. Any other seed mixes it into every input word and
// shuffles the order in which block ids are handed out (a Fisher-Yates
// shuffle driven by splitmix64 from the seed), so which blocks share an SM
// and run together changes; the reference run uses the same inputs. Without workload.faults every page is mapped
// before the run and the input data is written into GPU memory. With it the
// data starts CPU-resident: this workload is its CPU-side store (the initial
// data, computed from the address: gmmu_kernel_input_value), maps
// nothing up front, and is the fault handler's pager — a fault on an input
// region maps the region and copies its CPU data in (a migration), a fault on
// an output region only maps it (a first touch).
//
// Check: the kernel is also run by a plain functional interpreter
// (gmmu_kernel_ref_block), one thread at a time with its own pc, a block's
// threads phase by phase between barriers (no timing, no warps; the kernels
// are race-free, shared memory between barriers too, so any order gives the
// same result).
// Every finished block's registers and, at the end, every word of every
// region (read through the page tables, or from the CPU store for pages never
// made present) must equal the interpreter's; a difference fails the run.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "gmmu/gpu/outputs.h"
#include <sstream>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "gmmu/gpu/sm_core_config.h"
#include "gmmu/gpu/workload.h"
#include "gmmu/gpu/workload_spec.h"
#include "gmmu/rng.h"
#include "gmmu/kernel_inputs.h"

namespace gmmu {
namespace {

// A file of the inputs cache (GMMU_INPUTS_CACHE): `body` writes it into a
// temporary file, renamed to `path` only when every write succeeded, so a
// reader sees a whole file or none. A cache that cannot be written is only
// slower: nothing is reported.
template <class Body> void write_cache_file(const std::string &path, Body body)
{
    std::string tmpl = path + ".XXXXXX";
    const int fd = ::mkstemp(&tmpl[0]);
    if (fd < 0)
        return;
    std::FILE *f = ::fdopen(fd, "wb");
    if (!f) {
        ::close(fd);
        ::unlink(tmpl.c_str());
        return;
    }
    bool ok = body(f);
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(tmpl.c_str(), path.c_str()) != 0)
        ::unlink(tmpl.c_str());
}

// The words of a region the size of a benchmark's (over 1 GiB), zero to
// start with: calloc's large blocks are fresh anonymous memory, zero
// without a pass over them, and the host is asked for transparent huge
// pages, so that writing a region costs a fault per 2 MiB, not per 4 KiB,
// and the parts of an output region the reference run never writes are
// never backed. (A std::vector would first write every word with zero.)
class word_buf {
  public:
    word_buf() = default;
    explicit word_buf(size_t n) : n_(n), p_(static_cast<uint64_t *>(std::calloc(n ? n : 1, 8)))
    {
        if (!p_)
            throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        const uintptr_t huge = uintptr_t(2) << 20, at = reinterpret_cast<uintptr_t>(p_);
        const uintptr_t lo = (at + huge - 1) & ~(huge - 1), hi = (at + 8 * n) & ~(huge - 1);
        if (hi > lo)
            ::madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_HUGEPAGE); // a hint: else 4 KiB pages
#endif
    }
    // n words of the file fd at byte offset off (a multiple of the page
    // size), mapped copy on write: reading them costs no copy and no fresh
    // memory (the file's pages are shared with the page cache), and a write
    // copies only the 4 KiB page it lands in. An empty word_buf when the
    // file cannot be mapped.
    // The mapping covers whole pages: the bytes after the last word, up to
    // the page end, are the file's too (padded_bytes).
    static word_buf mapped(int fd, uint64_t off, size_t n)
    {
        word_buf b;
        if (!n)
            return b;
        // Mapped read only with its page-table entries filled in one call
        // (MAP_POPULATE on a writable private mapping would copy every
        // page), then made writable: a write still copies its page.
        void *m = ::mmap(nullptr, padded_bytes(n), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, off_t(off));
        if (m == MAP_FAILED)
            return b;
        if (::mprotect(m, padded_bytes(n), PROT_READ | PROT_WRITE) != 0) {
            ::munmap(m, padded_bytes(n));
            return b;
        }
        b.n_ = n;
        b.p_ = static_cast<uint64_t *>(m);
        b.mapped_ = true;
        return b;
    }
    // n words' bytes rounded up to a whole 4 KiB page.
    static uint64_t padded_bytes(uint64_t n) { return (8 * n + 4095) & ~uint64_t(4095); }
    word_buf(word_buf &&o) noexcept : n_(o.n_), p_(o.p_), mapped_(o.mapped_)
    {
        o.n_ = 0;
        o.p_ = nullptr;
        o.mapped_ = false;
    }
    word_buf &operator=(word_buf &&o) noexcept
    {
        std::swap(n_, o.n_);
        std::swap(p_, o.p_);
        std::swap(mapped_, o.mapped_);
        return *this;
    }
    word_buf(const word_buf &) = delete;
    word_buf &operator=(const word_buf &) = delete;
    ~word_buf()
    {
        if (mapped_)
            ::munmap(p_, padded_bytes(n_));
        else
            std::free(p_);
    }
    size_t size() const { return n_; }
    uint64_t *data() { return p_; }
    const uint64_t *data() const { return p_; }
    uint64_t &operator[](size_t i) { return p_[i]; }
    const uint64_t &operator[](size_t i) const { return p_[i]; }
    uint64_t *begin() { return p_; }
    uint64_t *end() { return p_ + n_; }
    const uint64_t *begin() const { return p_; }
    const uint64_t *end() const { return p_ + n_; }

  private:
    size_t n_ = 0;
    uint64_t *p_ = nullptr;
    bool mapped_ = false; // p_ is a mapping of n_ words (munmap), else calloc's (free)
};

// The built-in kernels, as the model lists them.
std::vector<std::string> kernel_names()
{
    std::vector<std::string> v;
    for (unsigned i = 0; i < gmmu_kernel_count(); i++)
        v.push_back(gmmu_kernel_name(i));
    return v;
}

// The kernel workload's spec: its own workload.* keys, and its rule that
// demand paging (workload.faults) is refused on any other workload.
struct kernel_config {
    std::string kernel = "sgemm-like", kernel_file;
    gmmu_kernel_params params{}; // grid_blocks, iters
    bool faults = false;
};

const descriptor<kernel_config> &kernel_descriptor()
{
    using K = kernel_config;
    static const descriptor<K> d = [] {
        std::vector<std::pair<std::string, int>> kernels;
        for (const std::string &n : kernel_names())
            kernels.emplace_back(n, int(kernels.size()));
        // The C model's field names (gmmu_kernel_build) are these keys';
        // its "kernel" is the kernel pointer the workload passes, no key.
        descriptor<K> x({
            enum_field<K>("kernel", "sgemm-like", kernels,
                          "kernel: which synthetic kernel (docs/faults.md; bfs-like and the ones after it "
                          "branch and diverge, docs/simt.md).",
                          [](K &k, const config &c, const std::string &key) { k.kernel = c.s(key); },
                          "kernel.name"),
            string_field<K>("kernel_file", "",
                            "kernel: a kernel file (docs/simt.md, 'Kernel files') to run instead of "
                            "workload.kernel; errors name FILE:LINE.",
                            [](K &k, const config &c, const std::string &key) { k.kernel_file = c.s(key); }),
            int_field<K>("grid_blocks", 0, 0, 1 << 20, "kernel: thread blocks; 0 = the kernel's default.",
                         [](K &k, const config &c, const std::string &key) {
                             k.params.grid_blocks = uint32_t(c.i(key));
                         }, "kernel.grid_blocks"),
            int_field<K>("iters", 0, 0, 256, "kernel: loop trip count before unrolling; 0 = the kernel's default.",
                         [](K &k, const config &c, const std::string &key) {
                             k.params.iters = uint32_t(c.i(key));
                         }, "kernel.iters"),
            bool_field<K>("faults", false,
                          "kernel: demand paging: data starts CPU-resident and nothing is mapped; pages are "
                          "made present by the fault handler (64 KiB regions).",
                          [](K &k, const config &c, const std::string &key) { k.faults = c.b(key); }),
        });
        x.c_field_elsewhere("kernel", "");
        return x;
    }();
    return d;
}

const bool keys_registered = register_workload_spec(workload_spec_of(
    "kernel", kernel_descriptor(), nullptr, [](const config &c, const std::string &name) {
        if (name != "kernel" && workload_spec_from(kernel_descriptor(), c).faults)
            throw config_error("config key 'workload.faults': demand paging applies to the kernel "
                               "workload only (this run's is " + name + ")");
    }));

uint64_t hash_regs(const uint64_t *r, size_t n, uint32_t block)
{
    uint64_t h = 0xcbf29ce484222325ull ^ block;
    for (size_t i = 0; i < n; i++)
        h = (h ^ r[i]) * 0x100000001b3ull;
    return h;
}

class kernel_workload : public workload, public kernel_source, public pager {
  public:
    kernel_workload(const config &c, uint64_t sd)
        : kernel_workload(c, workload_spec_from(kernel_descriptor(), c), workload_machine_from(c), sd) {}
    kernel_workload(const config &c, const kernel_config &kc, const workload_machine &m, uint64_t sd)
        : seed(sd)
    {
        if (m.sm_model != "issue")
            throw config_error("config key 'sm.model': workload kernel needs sm.model=issue");
        gmmu_kernel_params kp = kc.params;
        gmmu_error err{};
        window = "grid " + std::to_string(kp.grid_blocks) + " iters " + std::to_string(kp.iters);
        if (!kc.kernel_file.empty()) {
            load_file(kc.kernel_file);
            gmmu_program_window(&prog, kp.grid_blocks);
        } else {
            prog_id = "built-in " + kc.kernel;
            // A built-in kernel: a program of one launch.
            prog.kernel = static_cast<gmmu_kernel *>(std::calloc(1, sizeof(gmmu_kernel)));
            if (!prog.kernel)
                throw std::bad_alloc();
            prog.nkernels = prog.nsteps = prog.max_iters = 1;
            if (gmmu_kernel_build(prog.kernel, kc.kernel.c_str(), &kp, &err) != GMMU_OK) {
                // The model's fields, as the config keys that set them (the
                // kernel spec's; a field it does not name is workload.kernel's).
                const std::string key = kernel_descriptor().real_key_of("workload", err.field);
                throw config_error("config key '" + (key.empty() ? "workload.kernel" : key) + "': " + err.msg);
            }
        }
        uint64_t clear = 0;
        gmmu_program_start(&prog, &cur, &clear);
        k = &prog.kernel[prog.step[0]];
        demand = kc.faults;
        bypass = m.bypass;
        nsm = m.sms;
        smc = sm_core_config(c);
        start_launch();
        // Each kernel's block order (its own grid), shuffled alike.
        order_of.resize(prog.nkernels);
        for (uint32_t i = 0; i < prog.nkernels; i++) {
            std::vector<uint32_t> &order = order_of[i];
            const uint32_t grid = prog.kernel[i].grid_blocks;
            order.resize(grid);
            for (uint32_t b = 0; b < grid; b++)
                order[b] = b;
            if (seed != 1) {
                uint64_t st = seed;
                for (uint32_t j = grid; j > 1; j--) {
                    st += GMMU_SPLITMIX64_GAMMA;
                    std::swap(order[j - 1], order[gmmu_mix64(st) % j]);
                }
            }
        }
        // GMMU_INPUTS_CACHE (docs/kernels.md, "Simulation cost"): the
        // reference run's record. A check (gmmu-sim --check) that finds one
        // for this program, window, seed, layout and binary leaves the
        // inputs and the reference run out: they were built and ran without
        // an error before; its set-up maps the regions as a run's does.
        const char *dir = std::getenv("GMMU_INPUTS_CACHE");
        const std::string rec = dir && *dir ? reference_cache_path(dir) : std::string();
        if (check_only() && !rec.empty() && reference_known(rec)) {
            data = false;
            return;
        }
        build_inputs();
        if (rec.empty() || !load_reference(rec)) {
            reference();
            if (!rec.empty())
                save_reference(rec);
        }
    }

    // ---- workload ----
    void setup(driver &d, unsigned shift) override
    {
        drv = &d;
        page_shift = shift;
        if (bypass) { // no MMU: the data lives at PA = VA, nothing is mapped
            uint64_t page[512];
            for (uint32_t r = 0; r < k->nregions; r++) {
                if (k->region[r].kind != GMMU_REGION_INPUT)
                    continue; // output regions start at zero, as fresh memory reads
                const size_t words = k->region[r].bytes / 8;
                for (size_t w0 = 0; w0 < words; w0 += 512) {
                    const size_t nw = std::min<size_t>(512, words - w0);
                    const uint64_t pa = k->region[r].base + 8 * w0;
                    if (const uint64_t *src = cpu_piece(r, w0, nw, pa)) {
                        drv->write_phys_lazy(pa, reinterpret_cast<const uint8_t *>(src));
                        continue;
                    }
                    for (size_t w = 0; w < nw; w++)
                        page[w] = cpu_word(r, w0 + w);
                    drv->write_phys(pa, page, nw * 8);
                }
            }
            return;
        }
        if (!demand)
            for (uint32_t r = 0; r < k->nregions; r++)
                make_present(k->region[r].base, k->region[r].bytes);
        if (prog.while_va)
            host_write(prog.while_va, 0); // the first iteration's clear
    }
    bool next(unsigned, unsigned, warp_op &) override { return false; }
    std::string name() const override { return "kernel"; }
    // OUT/kernel.json: hashes of the final memory and registers (equal for
    // every scheme, with or without faults) and the reference run's.
    bool finish(const std::string &out_dir, std::string &error) override
    {
        uint64_t ref_mem = 0xcbf29ce484222325ull, ref_regs = 0;
        for (uint32_t r = 0; r < k->nregions; r++)
            for (uint64_t v : ref[r])
                ref_mem = (ref_mem ^ v) * 0x100000001b3ull;
        for (uint64_t li = 0; li < reg_hash.size(); li++)
            for (uint32_t b = 0; b < reg_hash[li].size(); b++)
                ref_regs += reg_hash[li][b] * (2 * uint64_t(b) + 1) * (2 * li + 1);
        nlohmann::json j = {{"kernel", prog.name[0] ? prog.name : prog.kernel[0].name},
                            {"launches", launches},
                            {"demand_paging", demand},
                            {"memory_hash", run_mem_hash},
                            {"register_hash", run_reg_hash},
                            {"reference_memory_hash", ref_mem},
                            {"reference_register_hash", ref_regs}};
        if (!shapes.empty())
            j["by_instruction"] = shapes_json();
        if (std::string e = write_output(out_dir, "kernel.json", j.dump(2) + "\n"); !e.empty()) {
            error = "cannot write " + e;
            return false;
        }
        return true;
    }

    // ---- kernel_source ----
    const gmmu_kernel &kernel() const override { return *k; }
    void note_shape(uint32_t pc, uint32_t lanes, const gmmu_sm_shape &sh) override
    {
        pc_shape &v = shapes[{uint32_t(k - prog.kernel), pc}];
        v.count++;
        v.lanes += lanes;
        v.pages += sh.pages_4k;
        v.pages_2m += sh.pages_2m;
        v.span += sh.span;
        v.pages_max = std::max(v.pages_max, sh.pages_4k);
    }
    unsigned launch() const override { return launches - 1; }
    bool program_over() const override { return over; }
    sc_core::sc_event &launch_event() override { return next_launch; }
    // The last SM to finish a launch runs the host loop's step
    // (gmmu_program_advance): the next launch, or the end.
    void sm_finished_launch(unsigned, bool failed) override
    {
        over = over || failed;
        if (++arrived < nsm && !over)
            return;
        arrived = 0;
        if (!over) {
            uint64_t clear = 0;
            gmmu_error err{};
            if (gmmu_program_advance(&prog, &cur, prog.while_va ? host_read(prog.while_va) : 0, &clear, &err) !=
                GMMU_OK) {
                host_error = std::string("the host loop: ") + err.msg + " (the reference run's ended after " +
                             std::to_string(ref_launches) + " launches)";
                over = true;
            } else if (cur.done) {
                over = true;
            } else {
                if (clear)
                    host_write(clear, 0);
                k = &prog.kernel[prog.step[cur.step]];
                start_launch();
            }
        }
        next_launch.notify(sc_core::SC_ZERO_TIME);
    }
    bool demand_paging() const override { return demand; }
    pager &os_pager() override { return *this; }
    void next_block(unsigned sm, bool *got, uint32_t *id) override
    {
        if (sm < nsm && launched[sm] < waves) {
            uint64_t b = uint64_t(launched[sm]++) * nsm + sm;
            *got = b < k->grid_blocks;
            if (*got)
                *id = order_of[size_t(k - prog.kernel)][b];
            return;
        }
        *got = next_id < k->grid_blocks;
        if (*got)
            *id = order_of[size_t(k - prog.kernel)][next_id++];
    }
    void block_done(unsigned sm, uint32_t id, const uint64_t *regs, uint32_t nw, uint32_t nr,
                    data_checker &chk) override
    {
        chk.checked++;
        const uint64_t h = hash_regs(regs, size_t(nw) * nr * 32, id);
        const uint64_t li = launches - 1;
        run_reg_hash += h * (2 * uint64_t(id) + 1) * (2 * li + 1); // order-independent
        if (li >= reg_hash.size() || id >= reg_hash[li].size() || h != reg_hash[li][id]) {
            chk.mismatches++;
            if (chk.first_mismatch.empty())
                chk.first_mismatch = "registers of block " + std::to_string(id) + " (SM " + std::to_string(sm) +
                                     ", launch " + std::to_string(li) + ") differ from the reference run";
        }
    }
    void verify_memory(data_checker &chk) override
    {
        if (!host_error.empty() || launches != ref_launches) {
            chk.mismatches++;
            if (chk.first_mismatch.empty())
                chk.first_mismatch = !host_error.empty() ? host_error
                                                         : std::to_string(launches) + " launches, the reference run " +
                                                               std::to_string(ref_launches);
        }
        for (uint32_t r = 0; r < k->nregions; r++) {
            const gmmu_region &g = k->region[r];
            uint64_t page[512];
            for (uint64_t pg = 0; pg < g.bytes; pg += 4096) {
                const uint64_t pa = bypass ? g.base + pg : drv->translate(g.base + pg);
                const uint64_t w0 = pg / 8, nw = std::min<uint64_t>(512, g.bytes / 8 - w0);
                if (pa != ~0ull)
                    drv->read_phys(pa, page, nw * 8);
                for (uint64_t w = w0; w < w0 + nw; w++) {
                    // A page never made present still holds the CPU copy.
                    const uint64_t v = pa != ~0ull ? page[w - w0] : cpu_word(r, w);
                    chk.checked++;
                    run_mem_hash = (run_mem_hash ^ v) * 0x100000001b3ull;
                    if (v != ref[r][w]) {
                        chk.mismatches++;
                        if (chk.first_mismatch.empty()) {
                            char buf[160];
                            std::snprintf(buf, sizeof buf,
                                          "memory at VA 0x%" PRIx64 ": 0x%" PRIx64
                                          ", reference run 0x%" PRIx64,
                                          g.base + 8 * w, v, ref[r][w]);
                            chk.first_mismatch = buf;
                        }
                    }
                }
            }
        }
    }

    // ---- pager ----
    bool classify(uint64_t va, gmmu_fault_kind *kind) override
    {
        int r = gmmu_kernel_region_of(k, va);
        if (r < 0)
            return false;
        *kind = k->region[r].kind == GMMU_REGION_INPUT ? GMMU_FAULT_MIGRATE : GMMU_FAULT_FIRST_TOUCH;
        return true;
    }
    void make_present(uint64_t va, uint64_t bytes) override
    {
        if (!drv)
            throw std::runtime_error("kernel workload: fault before setup");
        for (uint32_t r = 0; r < k->nregions; r++) {
            const gmmu_region &g = k->region[r];
            const uint64_t lo = std::max(va, g.base), hi = std::min(va + bytes, g.base + g.bytes);
            if (lo >= hi)
                continue;
            drv->map(lo, hi - lo, page_shift);
            if (g.kind != GMMU_REGION_INPUT)
                continue; // first touch: fresh zeroed frames, nothing to copy
            // Copy the CPU-resident data into the new GPU frames.
            uint64_t page[512];
            for (uint64_t pg = lo; pg < hi; pg += 4096) {
                const uint64_t pa = drv->translate(pg);
                const uint64_t end = std::min(pg + 4096, hi);
                if (const uint64_t *src = cpu_piece(r, (pg - g.base) / 8, (end - pg) / 8, pa)) {
                    drv->write_phys_lazy(pa, reinterpret_cast<const uint8_t *>(src));
                    continue;
                }
                for (uint64_t a = pg; a < end; a += 8)
                    page[(a - pg) / 8] = cpu_word(r, (a - g.base) / 8);
                drv->write_phys(pa, page, end - pg);
            }
        }
    }

  private:
    // A kernel file: a regular file of at most 1 MiB; errors as FILE:LINE.
    void load_file(const std::string &path)
    {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0)
            throw config_error("config key 'workload.kernel_file': " + path + ": " +
                               std::strerror(errno));
        if (!S_ISREG(st.st_mode))
            throw config_error("config key 'workload.kernel_file': " + path + ": not a regular file");
        if (st.st_size > (1 << 20))
            throw config_error("config key 'workload.kernel_file': " + path +
                               ": larger than 1 MiB; not a kernel file");
        std::ifstream in(path, std::ios::binary);
        std::stringstream buf;
        buf << in.rdbuf();
        if (!in && !in.eof())
            throw config_error("config key 'workload.kernel_file': " + path + ": cannot read");
        const std::string text = buf.str();
        gmmu_error err{};
        file = path;
        char hx[20];
        std::snprintf(hx, sizeof hx, "%016" PRIx64, fnv(text.data(), text.size(), 0xcbf29ce484222325ull));
        prog_id = "file " + std::string(hx);
        if (gmmu_program_parse(&prog, text.data(), text.size(), &err) != GMMU_OK) {
            std::string msg = err.msg;
            if (std::strcmp(err.field, "kernel.text") == 0 && msg.rfind("line ", 0) == 0) {
                const size_t colon = msg.find(':');
                throw config_error(path + ":" + msg.substr(5, colon - 5) + msg.substr(colon));
            }
            throw config_error(path + ": " + msg);
        }
    }

    // The kernel's input generator (gmmu/kernel_inputs.h) writes the input
    // regions as the reference run's starting memory; they are also the
    // CPU-side store (the generated data is not a function of the address),
    // with the pieces the reference run writes kept first (keep_page).
    void build_inputs()
    {
        ref.clear();
        reg_hash.clear();
        ref_launches = 0;
        if (!k->inputs.gen) {
            for (uint32_t r = 0; r < k->nregions; r++) {
                const gmmu_region &g = k->region[r];
                word_buf init(g.bytes / 8);
                if (g.kind == GMMU_REGION_INPUT)
                    for (size_t w = 0; w < init.size(); w++)
                        init[w] = input_word(g.base + 8 * w);
                ref.push_back(std::move(init));
            }
            wrote.assign(k->nregions, {});
            for (uint32_t r = 0; r < k->nregions; r++)
                wrote[r].assign((ref[r].size() + kept_words - 1) / kept_words, 0);
            return;
        }
        std::vector<uint64_t *> words(k->nregions);
        for (uint32_t r = 0; r < k->nregions; r++) {
            ref.emplace_back(k->region[r].bytes / 8);
            words[r] = ref[r].data();
        }
        const char *dir = std::getenv("GMMU_INPUTS_CACHE");
        const std::string cached =
            dir && *dir && gmmu_inputs_slow(k->inputs.gen - 1) ? inputs_cache_path(dir) : std::string();
        if (cached.empty() || !load_inputs(cached)) {
            gmmu_error err{};
            if (gmmu_kernel_inputs_fill(k, seed, words.data(), &err) != GMMU_OK) {
                if (!file.empty())
                    throw config_error(file + ":" + std::to_string(k->inputs.line) + ": " + err.msg);
                throw config_error("config key 'workload.kernel': " + std::string(err.msg));
            }
            if (!cached.empty())
                save_inputs(cached);
        }
        kept.assign(k->nregions, {});
        wrote.assign(k->nregions, {});
        for (uint32_t r = 0; r < k->nregions; r++) {
            wrote[r].assign((ref[r].size() + kept_words - 1) / kept_words, 0);
            if (k->region[r].kind == GMMU_REGION_INPUT)
                kept[r].slot.assign((ref[r].size() + kept_words - 1) / kept_words, 0);
        }
    }

    // GMMU_INPUTS_CACHE=DIR (docs/kernels.md, "Simulation cost"): a slow
    // generator's input regions (gmmu_inputs_slow) are kept in DIR, one file per generator,
    // arguments, seed, region layout and gmmu-sim binary, and a later run
    // with the same reads them back instead of generating them again. The
    // file starts with that key and ends with a checksum of its words; a
    // file whose key, size or checksum does not match is ignored (and
    // replaced). Nothing a run writes depends on the cache.
    static uint64_t fnv(const void *p, size_t n, uint64_t h)
    {
        const auto *b = static_cast<const uint8_t *>(p);
        for (size_t i = 0; i < n; i++)
            h = (h ^ b[i]) * 0x100000001b3ull;
        return h;
    }
    static uint64_t exe_hash()
    {
        static const uint64_t exe = [] {
            uint64_t h = 0xcbf29ce484222325ull; // FNV-1a over the running binary
            std::ifstream in("/proc/self/exe", std::ios::binary);
            char buf[1 << 16];
            while (in.read(buf, sizeof buf) || in.gcount() > 0) {
                h = fnv(buf, size_t(in.gcount()), h);
                if (!in)
                    break;
            }
            return h;
        }();
        return exe;
    }
    std::string inputs_key() const
    {
        const uint64_t exe = exe_hash();
        std::string key = "gmmu-inputs 2 " + std::string(gmmu_inputs_name(k->inputs.gen - 1));
        for (uint64_t a : k->inputs.arg)
            key += " " + std::to_string(a);
        key += " seed " + std::to_string(seed);
        for (uint32_t r = 0; r < k->nregions; r++)
            key += std::string(k->region[r].kind == GMMU_REGION_INPUT ? " in " : " out ") +
                   std::to_string(k->region[r].bytes);
        char hx[20];
        std::snprintf(hx, sizeof hx, "%016" PRIx64, exe);
        return key + " exe " + hx;
    }
    std::string inputs_cache_path(const std::string &dir) const
    {
        const std::string key = inputs_key();
        uint64_t h = 0xcbf29ce484222325ull;
        for (unsigned char ch : key)
            h = (h ^ ch) * 0x100000001b3ull;
        char name[40];
        std::snprintf(name, sizeof name, "inputs-%016" PRIx64 ".bin", h);
        return dir + "/" + name;
    }
    // The words' checksum: a damaged file is never read as inputs.
    static uint64_t words_sum(const word_buf &w, uint64_t h)
    {
        for (uint64_t x : w)
            h = (h ^ x) * 0x100000001b3ull;
        return h;
    }
    // The key's length (8 bytes), the key and zero bytes up to a 4 KiB
    // boundary; each input region's words and zero bytes up to the next;
    // then the words' checksum (8 bytes). A region starts on a page, so a
    // run maps it (word_buf::mapped) rather than reading it: a 1.1 GiB
    // input costs neither a copy nor 1.1 GiB of fresh memory.
    std::string inputs_head() const
    {
        const std::string key = inputs_key();
        const uint64_t n = key.size();
        std::string h(reinterpret_cast<const char *>(&n), 8);
        h += key;
        h.resize(size_t((h.size() + 4095) & ~size_t(4095)), '\0');
        return h;
    }
    bool load_inputs(const std::string &path)
    {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        const std::string head = inputs_head();
        uint64_t size = head.size() + 8;
        for (uint32_t r = 0; r < k->nregions; r++)
            if (k->region[r].kind == GMMU_REGION_INPUT)
                size += word_buf::padded_bytes(ref[r].size());
        struct stat st{};
        bool ok = ::fstat(fd, &st) == 0 && uint64_t(st.st_size) == size;
        std::string got(head.size(), '\0');
        ok = ok && ::pread(fd, &got[0], got.size(), 0) == ssize_t(got.size()) && got == head;
        std::vector<word_buf> words(k->nregions);
        uint64_t off = head.size(), sum = 0xcbf29ce484222325ull, want = 0;
        for (uint32_t r = 0; r < k->nregions && ok; r++) {
            if (k->region[r].kind != GMMU_REGION_INPUT)
                continue;
            words[r] = word_buf::mapped(fd, off, ref[r].size());
            ok = words[r].size() == ref[r].size();
            sum = words_sum(words[r], sum);
            const auto *pad = reinterpret_cast<const uint8_t *>(words[r].data());
            for (uint64_t b = 8 * ref[r].size(); ok && b < word_buf::padded_bytes(ref[r].size()); b++)
                ok = pad[b] == 0;
            off += word_buf::padded_bytes(ref[r].size());
        }
        ok = ok && ::pread(fd, &want, 8, off_t(off)) == 8 && want == sum;
        ::close(fd); // the mappings stay
        if (!ok) // a stale or damaged file: generate afresh
            return false;
        for (uint32_t r = 0; r < k->nregions; r++)
            if (k->region[r].kind == GMMU_REGION_INPUT)
                ref[r] = std::move(words[r]);
        return true;
    }
    // Written whole or not at all (write_cache_file).
    void save_inputs(const std::string &path) const
    {
        const std::string head = inputs_head();
        write_cache_file(path, [&](std::FILE *f) {
            static const char zeros[4096] = {};
            bool ok = std::fwrite(head.data(), 1, head.size(), f) == head.size();
            uint64_t sum = 0xcbf29ce484222325ull;
            for (uint32_t r = 0; r < k->nregions && ok; r++)
                if (k->region[r].kind == GMMU_REGION_INPUT) {
                    const size_t pad = size_t(word_buf::padded_bytes(ref[r].size()) - 8 * ref[r].size());
                    ok = std::fwrite(ref[r].data(), 8, ref[r].size(), f) == ref[r].size() &&
                         std::fwrite(zeros, 1, pad, f) == pad;
                    sum = words_sum(ref[r], sum);
                }
            return ok && std::fwrite(&sum, 8, 1, f) == 1;
        });
    }

    // The reference run's record (GMMU_INPUTS_CACHE): what reference()
    // leaves, for one program (the kernel file's text, or the built-in's
    // name), window, seed, region layout and gmmu-sim binary: the launches,
    // every block's register hash, and each 4 KiB piece the run wrote, with
    // its final words. A later run with the same key builds its inputs (or
    // reads them, gmmu_inputs_slow) and writes these pieces over them instead
    // of running the reference again; the result is the same memory, kept
    // pieces and hashes. File: the key's length (8 bytes), the key, the
    // words, their checksum; a file whose key, size or checksum does not
    // match is ignored (and replaced).
    std::string reference_key() const
    {
        std::string key = "gmmu-reference 1 " + prog_id + " " + window + " seed " + std::to_string(seed);
        for (uint32_t r = 0; r < k->nregions; r++)
            key += std::string(k->region[r].kind == GMMU_REGION_INPUT ? " in " : " out ") +
                   std::to_string(k->region[r].base) + "+" + std::to_string(k->region[r].bytes);
        char hx[20];
        std::snprintf(hx, sizeof hx, "%016" PRIx64, exe_hash());
        return key + " exe " + hx;
    }
    std::string reference_cache_path(const std::string &dir) const
    {
        const std::string key = reference_key();
        char name[40];
        std::snprintf(name, sizeof name, "reference-%016" PRIx64 ".bin",
                      fnv(key.data(), key.size(), 0xcbf29ce484222325ull));
        return dir + "/" + name;
    }
    // A record with this key is there (its words are not read: a check only
    // needs to know that this reference run completed; a run reads them all).
    bool reference_known(const std::string &path) const
    {
        std::ifstream in(path, std::ios::binary);
        const std::string key = reference_key();
        uint64_t n = 0;
        std::string got(key.size(), '\0');
        return in.read(reinterpret_cast<char *>(&n), 8) && n == key.size() && in.read(&got[0], std::streamsize(n)) &&
               got == key;
    }
    std::vector<uint64_t> reference_words() const
    {
        std::vector<uint64_t> v{ref_launches, reg_hash.size()};
        for (const auto &l : reg_hash) {
            v.push_back(l.size());
            v.insert(v.end(), l.begin(), l.end());
        }
        for (uint32_t r = 0; r < k->nregions; r++) {
            uint64_t n = 0;
            for (uint8_t x : wrote[r])
                n += x;
            v.push_back(n);
            for (uint64_t p = 0; p < wrote[r].size(); p++)
                if (wrote[r][p]) {
                    const uint64_t w0 = p * kept_words, nw = std::min<uint64_t>(kept_words, ref[r].size() - w0);
                    v.push_back(p);
                    v.insert(v.end(), ref[r].begin() + w0, ref[r].begin() + w0 + nw);
                }
        }
        return v;
    }
    bool load_reference(const std::string &path)
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (!in)
            return false;
        const std::string key = reference_key();
        const uint64_t size = uint64_t(in.tellg());
        in.seekg(0);
        uint64_t n = 0;
        std::string got(key.size(), '\0');
        if (size < 8 + key.size() + 24 || (size - 8 - key.size()) % 8 || !in.read(reinterpret_cast<char *>(&n), 8) ||
            n != key.size() || !in.read(&got[0], std::streamsize(n)) || got != key)
            return false;
        std::vector<uint64_t> v((size - 8 - key.size()) / 8);
        if (!in.read(reinterpret_cast<char *>(v.data()), std::streamsize(8 * v.size())) ||
            fnv(v.data(), 8 * (v.size() - 1), 0xcbf29ce484222325ull) != v.back())
            return false;
        v.pop_back();
        // Parsed in full before anything is changed: a record that does not
        // fit this layout leaves the inputs as built.
        size_t i = 0;
        auto take = [&](uint64_t &x) { return i < v.size() ? (x = v[i++], true) : false; };
        uint64_t launches = 0, nl = 0;
        if (!take(launches) || !take(nl) || nl > v.size())
            return false;
        std::vector<std::vector<uint64_t>> hashes(nl);
        for (auto &l : hashes) {
            uint64_t nb = 0;
            if (!take(nb) || nb > v.size() - i)
                return false;
            l.assign(v.begin() + long(i), v.begin() + long(i + nb));
            i += nb;
        }
        std::vector<std::vector<std::pair<uint64_t, size_t>>> pieces(k->nregions); // (piece, first word in v)
        for (uint32_t r = 0; r < k->nregions; r++) {
            uint64_t np = 0;
            if (!take(np) || np > wrote[r].size())
                return false;
            for (uint64_t j = 0; j < np; j++) {
                uint64_t p = 0;
                if (!take(p) || p >= wrote[r].size())
                    return false;
                const uint64_t nw = std::min<uint64_t>(kept_words, ref[r].size() - p * kept_words);
                if (nw > v.size() - i)
                    return false;
                pieces[r].emplace_back(p, i);
                i += nw;
            }
        }
        if (i != v.size())
            return false;
        for (uint32_t r = 0; r < k->nregions; r++)
            for (const auto &pc : pieces[r]) {
                const uint64_t w0 = pc.first * kept_words, nw = std::min<uint64_t>(kept_words, ref[r].size() - w0);
                if (r < kept.size())
                    keep_page(r, w0); // the generated words, as the reference run's first write keeps them
                wrote[r][pc.first] = 1;
                std::copy(v.begin() + long(pc.second), v.begin() + long(pc.second + nw), ref[r].begin() + w0);
            }
        ref_launches = launches;
        reg_hash = std::move(hashes);
        return true;
    }
    // Written whole or not at all, as the inputs are.
    void save_reference(const std::string &path) const
    {
        std::vector<uint64_t> v = reference_words();
        v.push_back(fnv(v.data(), 8 * v.size(), 0xcbf29ce484222325ull));
        const std::string key = reference_key();
        write_cache_file(path, [&](std::FILE *f) {
            const uint64_t n = key.size();
            return std::fwrite(&n, 8, 1, f) == 1 && std::fwrite(key.data(), 1, n, f) == n &&
                   std::fwrite(v.data(), 8, v.size(), f) == v.size();
        });
    }

    // Functional interpreter: the expected final memory and registers
    // (gmmu_kernel_ref_block: each thread alone with its own pc, a block's
    // threads phase by phase between barriers). An error names what wrote
    // the kernel: the file's line, or the built-in kernel's key.
    static uint64_t *ref_word(void *ctx, uint64_t va, bool write)
    {
        auto *self = static_cast<kernel_workload *>(ctx);
        const int r = gmmu_kernel_region_of(self->k, va);
        if (r < 0)
            return nullptr;
        const uint64_t w = (va - self->k->region[r].base) / 8;
        if (write && size_t(r) < self->kept.size())
            self->keep_page(uint32_t(r), w);
        if (write && size_t(r) < self->wrote.size())
            self->wrote[size_t(r)][w / kept_words] = 1;
        return &self->ref[size_t(r)][w];
    }
    // The program's launches in order, the host loop's steps between them
    // on the reference memory (gmmu_program_advance, as the timed run).
    void reference()
    {
        gmmu_program_cursor c{};
        uint64_t clear = 0;
        gmmu_program_start(&prog, &c, &clear);
        while (!c.done) {
            if (clear)
                *ref_word(this, clear, true) = 0;
            const uint32_t ki = prog.step[c.step];
            const gmmu_kernel *rk = &prog.kernel[ki];
            const uint32_t wpb = rk->warps_per_block, nr = rk->nregs;
            std::vector<uint64_t> regs(size_t(wpb) * nr * 32);
            reg_hash.emplace_back(rk->grid_blocks, 0);
            for (uint32_t b = 0; b < rk->grid_blocks; b++) {
                gmmu_kernel_ref_stop why{};
                gmmu_error err{};
                if (gmmu_kernel_ref_block(rk, b, regs.data(), &kernel_workload::ref_word, this, 1ull << 32, &why,
                                          &err) != GMMU_OK) {
                    if (!file.empty() && why.kind != 0)
                        throw config_error(file + ":" +
                                           std::to_string(prog.insn_line[size_t(ki) * GMMU_KERNEL_MAX_INSNS + why.pc]) +
                                           ": " + err.msg);
                    if (!file.empty())
                        throw config_error(file + ": " + err.msg);
                    throw config_error("config key 'workload.kernel': " + std::string(err.msg));
                }
                reg_hash.back()[b] = hash_regs(regs.data(), regs.size(), b);
            }
            ref_launches++;
            gmmu_error err{};
            if (gmmu_program_advance(&prog, &c, prog.while_va ? *ref_word(this, prog.while_va, false) : 0, &clear,
                                     &err) != GMMU_OK)
                throw config_error(file + ":" + std::to_string(prog.while_line) + ": " + err.msg +
                                   " (the reference run)");
        }
    }

    // A new launch of kernel k: its blocks handed out from the start.
    void start_launch()
    {
        waves = gmmu_sm_occupancy(&smc, k);
        launched.assign(nsm, 0);
        next_id = std::min<uint64_t>(k->grid_blocks, uint64_t(waves) * nsm);
        launches++;
    }

    // The host's own accesses to GPU memory (the host loop's word), as a
    // cudaMemcpy: through the page tables; a page not present is made
    // present first (a write) or read from the CPU-side store.
    uint64_t host_read(uint64_t va)
    {
        const uint64_t pa = bypass ? va : drv->translate(va);
        uint64_t v = 0;
        if (pa != ~0ull) {
            drv->read_phys(pa, &v, 8);
            return v;
        }
        const int r = gmmu_kernel_region_of(k, va);
        return r < 0 ? 0 : cpu_word(uint32_t(r), (va - k->region[r].base) / 8);
    }
    void host_write(uint64_t va, uint64_t v)
    {
        uint64_t pa = bypass ? va : drv->translate(va);
        if (pa == ~0ull) {
            const uint64_t psz = 1ull << page_shift;
            make_present(va & ~(psz - 1), psz);
            pa = drv->translate(va);
        }
        drv->write_phys(pa, &v, 8);
    }

    // The kernels and their host loop (one launch for a built-in), freed
    // with the workload, or when its constructor throws.
    struct owned_program : gmmu_program {
        owned_program() : gmmu_program{} {}
        ~owned_program() { gmmu_program_free(this); }
        owned_program(const owned_program &) = delete;
        owned_program &operator=(const owned_program &) = delete;
    };
    owned_program prog;
    gmmu_program_cursor cur{};   // the timed run's place in it
    // sm.access_shape: every SM's global memory instructions, summed by
    // (code section, pc), for kernel.json's "by_instruction".
    struct pc_shape {
        uint64_t count = 0, lanes = 0, pages = 0, pages_2m = 0, span = 0;
        uint32_t pages_max = 0;
    };
    std::map<std::pair<uint32_t, uint32_t>, pc_shape> shapes;
    nlohmann::json shapes_json() const
    {
        nlohmann::json a = nlohmann::json::array();
        for (const auto &[at, v] : shapes) {
            const gmmu_kernel &kk = prog.kernel[at.first];
            const uint32_t line =
                prog.insn_line ? prog.insn_line[size_t(at.first) * GMMU_KERNEL_MAX_INSNS + at.second] : 0;
            a.push_back({{"code", kk.name},
                         {"pc", at.second},
                         {"line", line}, // in workload.kernel_file (0: a built-in kernel)
                         {"op", gmmu_kernel_op_name(gmmu_op(kk.code[at.second].op))},
                         {"count", v.count},
                         {"lanes", v.lanes},
                         {"pages", v.pages},
                         {"pages_2m", v.pages_2m},
                         {"span_bytes", v.span},
                         {"pages_max", v.pages_max}});
        }
        return a;
    }
    gmmu_kernel *k = nullptr;    // the current launch's kernel (every kernel has the same regions)
    gmmu_sm_config smc{};        // for the occupancy of each launch
    uint64_t launches = 0, ref_launches = 0;
    unsigned arrived = 0;        // SMs done with the current launch
    bool over = false;           // the program has ended (or an SM failed)
    std::string host_error;
    sc_core::sc_event next_launch; // unnamed: a process may build several workloads
    std::string file;            // workload.kernel_file, or "" (built-in)
    bool demand = false;
    bool bypass = false; // mmu.bypass: PA = VA
    unsigned nsm = 1, waves = 1;
    std::vector<unsigned> launched;
    uint64_t next_id = 0;
    uint64_t seed = 1;
    std::vector<std::vector<uint32_t>> order_of; // kernel i's n-th block handed out is order_of[i][n]
    uint64_t input_word(uint64_t va) const
    {
        const uint64_t v = gmmu_kernel_input_value(va);
        return seed == 1 ? v : gmmu_mix64(v ^ (seed * GMMU_SPLITMIX64_GAMMA));
    }
    // The CPU-side store: the initial data, never changed by the GPU (a
    // fault copies it in), so computed rather than kept: one host copy of a
    // region (the reference) instead of two, for footprints over 1 GiB.
    uint64_t cpu_word(uint32_t r, uint64_t w) const
    {
        const gmmu_region &g = k->region[r];
        if (g.kind != GMMU_REGION_INPUT || !data)
            return 0;
        if (!k->inputs.gen)
            return input_word(g.base + 8 * w);
        const uint32_t s = kept[r].slot[w / kept_words];
        return s ? kept[r].page[s - 1][w % kept_words] : ref[r][w];
    }
    // Words [w0, w0 + n) of input region r as they sit in the CPU store, for
    // placing at pa without a copy (memory::write_lazy), or null: only a
    // whole 4 KiB piece of generated inputs, at a 4 KiB-aligned PA. The
    // store never changes after the reference run, so the words stay valid.
    const uint64_t *cpu_piece(uint32_t r, uint64_t w0, uint64_t n, uint64_t pa) const
    {
        static const uint64_t zeros[kept_words] = {};
        if (!data) // a check without the data: the same calls, zero words
            return k->region[r].kind == GMMU_REGION_INPUT && n == kept_words && w0 % kept_words == 0 && !(pa & 4095)
                       ? zeros
                       : nullptr;
        if (!k->inputs.gen || k->region[r].kind != GMMU_REGION_INPUT || n != kept_words || w0 % kept_words ||
            (pa & 4095))
            return nullptr;
        const uint32_t s = kept[r].slot[w0 / kept_words];
        return s ? kept[r].page[s - 1].data() : ref[r].data() + w0;
    }
    // Generated inputs: the CPU-side store is the reference memory (ref)
    // but for the 4 KiB pieces of input regions the reference run wrote,
    // whose generated words are kept here before its first write to them
    // (copy on write: one host copy of a 1 GiB input, not two).
    static constexpr uint64_t kept_words = 512;
    struct kept_region {
        std::vector<uint32_t> slot;                  // piece -> 1 + its index in page, or 0: unwritten
        std::vector<std::vector<uint64_t>> page;     // the generated words of written pieces
    };
    std::vector<kept_region> kept;
    std::vector<std::vector<uint8_t>> wrote; // per region and 4 KiB piece: the reference run wrote it
    std::string prog_id, window;             // the reference record's key (program text or name; window)
    bool data = true;                        // false: a check that left the inputs and reference out
    void keep_page(uint32_t r, uint64_t w)
    {
        kept_region &kr = kept[r];
        if (kr.slot.empty())
            return; // not an input region
        uint32_t &s = kr.slot[w / kept_words];
        if (s)
            return;
        const uint64_t w0 = w / kept_words * kept_words;
        const uint64_t n = std::min<uint64_t>(kept_words, ref[r].size() - w0);
        kr.page.emplace_back(ref[r].begin() + w0, ref[r].begin() + w0 + n);
        s = uint32_t(kr.page.size());
    }
    std::vector<word_buf> ref;              // reference final memory, per region
    std::vector<std::vector<uint64_t>> reg_hash; // reference final registers, per launch and block
    driver *drv = nullptr;
    unsigned page_shift = 12;
    uint64_t run_mem_hash = 0xcbf29ce484222325ull, run_reg_hash = 0;
};

const bool registered = register_workload("kernel", [](const config &c, uint64_t seed) {
    (void)keys_registered;
    return std::unique_ptr<workload>(new kernel_workload(c, seed));
});

} // namespace
} // namespace gmmu
