// Fuzzing of kernel files (programs: code sections and a host loop, whose
// cursor must end within its iterations) and control flow: any text is parsed or refused
// with an error naming a line (or, after parsing, the kernel and an
// instruction); an accepted kernel has no zero counts and a line for each
// instruction; its post-dominators are well formed, and a
// warp driven through its control flow by input-chosen branch outcomes
// keeps the reconvergence stack's invariants (every entry's lanes are a
// subset of the entry waiting at its reconvergence pc, unless that is the
// exit; the top is inside the code and has lanes). A kernel small enough is
// then run by the reference interpreter (gmmu_kernel_ref_block, block 0):
// it ends, or stops with an error naming an instruction of the kernel
// (shared accesses outside the array or racing, a bar in divergent code,
// global accesses outside the regions, a runaway thread).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>
#include <vector>

extern "C" {
#include "gmmu/kernel_inputs.h"
#include "gmmu/kernels.h"
#include "gmmu/simt_stack.h"
}

namespace {

// Global memory of the reference run: any word inside the kernel's regions.
struct Mem {
    const gmmu_kernel *k;
    std::unordered_map<uint64_t, uint64_t> words;
};

uint64_t *word(void *ctx, uint64_t va, bool)
{
    auto *m = static_cast<Mem *>(ctx);
    if (gmmu_kernel_region_of(m->k, va) < 0)
        return nullptr;
    auto it = m->words.find(va);
    if (it == m->words.end())
        it = m->words.emplace(va, gmmu_kernel_input_value(va)).first;
    return &it->second;
}

[[noreturn]] void die(const char *what, const gmmu_kernel *k, uint32_t pc)
{
    std::fprintf(stderr, "fuzz_kernel_text: %s (kernel '%.32s', pc %u)\n", what, k ? k->name : "-", pc);
    std::abort();
}

} // namespace

namespace {

// Every check of one accepted kernel (of a program's code sections).
void check_kernel(const uint8_t *data, size_t size, gmmu_kernel *k, const uint32_t *line)
{
    gmmu_error err{};
    const uint32_t n = k->ninsns;
    // No count of 0 gets through (a zero line is refused, a missing one is
    // the default), and every instruction has a line of the text, in order.
    if (k->nregs == 0 || k->warps_per_block == 0 || k->grid_blocks == 0)
        die("a zero regs, warps_per_block or grid was accepted", k, 0);
    const uint32_t lines = 1 + uint32_t(std::count(data, data + size, uint8_t('\n')));
    for (uint32_t i = 0; i < n; i++)
        if (line[i] == 0 || line[i] > lines || (i > 0 && line[i] < line[i - 1]))
            die("an instruction's line is outside the text or out of order", k, i);
    std::vector<uint32_t> ipdom(n);
    if (gmmu_kernel_ipdom(k, ipdom.data(), &err) != GMMU_OK)
        die("a checked kernel has no post-dominators", k, 0);
    for (uint32_t i = 0; i < n; i++) {
        if (ipdom[i] > n || ipdom[i] == i)
            die("post-dominator out of range or itself", k, i);
        const gmmu_insn &in = k->code[i];
        // A non-branch, or a branch whose two edges agree, is post-dominated by its successor.
        if (!gmmu_op_is_branch(gmmu_op(in.op)) && ipdom[i] != i + 1)
            die("straight-line ipdom is not the next instruction", k, i);
        if (in.op == GMMU_OP_JMP && ipdom[i] != uint32_t(in.imm))
            die("jump's ipdom is not its target", k, i);
    }
    // Drive one warp: branch outcomes per lane from the input bytes.
    gmmu_simt_stack s;
    gmmu_simt_reset(&s, 0xFFFFFFFFu, n);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 0x100000001b3ull;
    for (uint32_t step = 0; step < 20000 && !gmmu_simt_done(&s); step++) {
        const uint32_t pc = gmmu_simt_pc(&s), mask = gmmu_simt_mask(&s);
        if (pc >= n || mask == 0)
            die("stack top outside the code or without lanes", k, pc);
        // Every entry above the bottom waits for an entry below whose pc is
        // its reconvergence pc (the lanes it split from): a superset of it.
        for (uint32_t e = 1; e < s.n; e++) {
            if (s.e[e].rpc == n)
                continue; // lanes that reconverge at the exit have nothing to wait for
            uint32_t j = e;
            while (j > 0 && s.e[j - 1].pc != s.e[e].rpc)
                j--;
            if (j == 0)
                die("an entry has no waiting entry at its reconvergence pc", k, pc);
            if (s.e[e].mask & ~s.e[j - 1].mask)
                die("an entry's lanes are not a subset of its waiting entry's", k, pc);
        }
        const gmmu_insn &in = k->code[pc];
        gmmu_status r;
        if (in.op == GMMU_OP_BRNZ) {
            h = h * 6364136223846793005ull + 1442695040888963407ull;
            r = gmmu_simt_branch(&s, mask & uint32_t(h >> 16), uint32_t(in.imm), ipdom[pc]);
        } else if (in.op == GMMU_OP_JMP) {
            r = gmmu_simt_branch(&s, mask, uint32_t(in.imm), ipdom[pc]);
        } else {
            r = gmmu_simt_step(&s); // BAR too: one warp alone never waits
        }
        if (r == GMMU_ENOMEM)
            break; // too deeply nested: refused, as the SM would
        if (r != GMMU_OK)
            die("the stack refused a valid step", k, pc);
    }
    // An input generator whose regions are small fills them: it succeeds,
    // and writes nothing into an output region.
    if (k->inputs.gen) {
        uint64_t bytes = 0;
        for (uint32_t r = 0; r < k->nregions; r++)
            bytes += k->region[r].bytes;
        if (bytes <= (256u << 10)) { // the nearest-centre search is points x dim x centres
            std::vector<std::vector<uint64_t>> w(k->nregions);
            std::vector<uint64_t *> p(k->nregions);
            for (uint32_t r = 0; r < k->nregions; r++) {
                w[r].assign(k->region[r].bytes / 8, 0);
                p[r] = w[r].data();
            }
            if (gmmu_kernel_inputs_fill(k, 1 + size, p.data(), &err) != GMMU_OK)
                die("the input generator refused a kernel the parser accepted", k, 0);
            for (uint32_t r = 0; r < k->nregions; r++)
                if (k->region[r].kind == GMMU_REGION_OUTPUT)
                    for (uint64_t v : w[r])
                        if (v != 0)
                            die("the input generator wrote into an output region", k, 0);
        }
    }
    // The reference interpreter on block 0 of a small kernel.
    if (uint64_t(k->warps_per_block) * k->nregs <= 1024 && k->shared_bytes <= 65536) {
        static std::vector<uint64_t> regs;
        regs.assign(size_t(k->warps_per_block) * k->nregs * GMMU_ISA_LANES, 0);
        Mem m{k, {}};
        gmmu_kernel_ref_stop why{};
        const gmmu_status rs = gmmu_kernel_ref_block(k, 0, regs.data(), word, &m, 256, &why, &err);
        if (rs != GMMU_OK) {
            if (rs != GMMU_EINVAL || why.kind < GMMU_REF_GLOBAL_OUTSIDE || why.kind > GMMU_REF_RUNAWAY ||
                why.pc >= n || std::strncmp(err.msg, "kernel '", 8) != 0 ||
                !std::strstr(err.msg, "instruction"))
                die("the reference run stopped without naming an instruction", k, why.pc);
            if ((why.kind == GMMU_REF_SHARED_OUTSIDE || why.kind == GMMU_REF_SHARED_RACE) &&
                !gmmu_op_is_shared(gmmu_op(k->code[why.pc].op)))
                die("a shared-memory error at an instruction that is not lds/sts", k, why.pc);
            if (why.kind == GMMU_REF_BAR_DIVERGENT && k->code[why.pc].op != GMMU_OP_BAR)
                die("a divergent-bar error at an instruction that is not bar", k, why.pc);
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gmmu_program p{};
    gmmu_error err{};
    const gmmu_status st = gmmu_program_parse(&p, reinterpret_cast<const char *>(data), size, &err);
    if (st != GMMU_OK) {
        const bool line = std::strcmp(err.field, "kernel.text") == 0 &&
                          std::strncmp(err.msg, "line ", 5) == 0;
        const bool insn = std::strncmp(err.msg, "kernel '", 8) == 0 && std::strstr(err.msg, "instruction");
        const bool other = err.field[0] && std::strncmp(err.field, "kernel", 6) == 0;
        if (!line && !insn && !other) {
            std::fprintf(stderr, "fuzz_kernel_text: error names neither a line nor an instruction: "
                                 "%s: %s\n", err.field, err.msg);
            std::abort();
        }
        if (p.kernel)
            die("a refused program kept its kernels", nullptr, 0);
        return 0;
    }
    // The host loop names only its own sections, its word is in a region,
    // and its cursor ends within max_iters iterations whatever the word.
    if (p.nkernels == 0 || p.nsteps == 0 || p.max_iters == 0)
        die("an accepted program has no kernel, no launch or no iteration", nullptr, 0);
    for (uint32_t i = 0; i < p.nsteps; i++)
        if (p.step[i] >= p.nkernels)
            die("a launch names no code section", nullptr, i);
    if (p.while_va && gmmu_kernel_region_of(&p.kernel[0], p.while_va) < 0)
        die("the host loop's word is outside the regions", nullptr, 0);
    gmmu_program_cursor c{};
    uint64_t clear = 0;
    gmmu_program_start(&p, &c, &clear);
    uint64_t launches = 0;
    while (!c.done && gmmu_program_advance(&p, &c, 1, &clear, &err) == GMMU_OK)
        launches++;
    if (!c.done || launches > uint64_t(p.max_iters) * p.nsteps)
        die("the host loop did not end within its iterations", nullptr, 0);
    for (uint32_t i = 0; i < p.nkernels; i++)
        check_kernel(data, size, &p.kernel[i], p.insn_line + size_t(i) * GMMU_KERNEL_MAX_INSNS);
    gmmu_program_free(&p);
    return 0;
}
