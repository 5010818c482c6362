#include "gmmu/gpu/migrator.h"

#include <stdexcept>

namespace gmmu {

migrator::migrator(sc_core::sc_module_name name, const migrator_params &params, memory &m,
                   std::vector<driver *> contexts, std::function<bool()> run_check)
    : sc_module(name), unit("smmu", params.smmu), reg_isock("reg_isock"), p(params), mem(m),
      ctx(std::move(contexts)), running(std::move(run_check)),
      rng(params.seed ? params.seed : 0x9E3779B97F4A7C15ull)
{
    reg_isock.bind(unit.reg_tsock);
    SC_THREAD(run);
}

bool migrator::in_flight(uint16_t asid, uint64_t va) const
{
    if (asid >= ctx.size())
        return false;
    const uint64_t psz = 1ull << ctx[asid]->page_shift();
    return moving.count({asid, va & ~(psz - 1)}) != 0;
}

void migrator::reg_write(uint32_t off, uint64_t v, unsigned len)
{
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(off);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&v));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    reg_isock->b_transport(gp, d);
    if (!gp.is_response_ok())
        report_error("migrator", std::string(name()) + ": SMMU register write refused");
    wait(d);
}

void migrator::command(const gmmu_smmu_cmd &c)
{
    uint64_t dw[2];
    gmmu_smmu_cmd_encode(&c, dw);
    const uint64_t slot = p.cmdq_pa + 16ull * gmmu_smmu_q_index(cmd_prod, p.cmdq_log2);
    mem.write64(slot, dw[0]);
    mem.write64(slot + 8, dw[1]);
    cmd_prod = gmmu_smmu_q_next(cmd_prod, p.cmdq_log2);
    commands++;
}

static uint64_t xorshift(uint64_t &s)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

void migrator::migrate_one()
{
    const uint16_t asid = uint16_t(xorshift(rng) % ctx.size());
    driver &d = *ctx[asid];
    if (d.pages().empty())
        return;
    const uint64_t va = d.pages()[xorshift(rng) % d.pages().size()];
    const unsigned shift = d.page_shift();
    const uint64_t psz = 1ull << shift;
    const uint64_t old_pa = d.translate(va);
    if (old_pa == ~0ull)
        return; // not present (cannot happen: one migration at a time)
    // 1. Not present; the block's frames are no longer contiguous.
    const uint64_t block = psz << 7, block_lo = va & ~(block - 1);
    d.set_present(va, false);
    moving.insert({asid, va});
    d.clear_contiguity(block_lo, block_lo + block - 1);
    // 2. Invalidate the block in every TLB and the walker, and wait for it.
    if (p.invalidate) {
        gmmu_smmu_cmd inv{};
        inv.op = GMMU_SMMU_CMD_TLBI_NH_VA;
        inv.asid = asid;
        inv.addr = block_lo;
        inv.tg = 1;
        inv.scale = uint8_t(shift - 12 + 7); // (0 + 1) << scale 4 KiB pages = the block
        command(inv);
        gmmu_smmu_cmd sync{};
        sync.op = GMMU_SMMU_CMD_SYNC;
        sync.cs = GMMU_SMMU_SYNC_CS_IRQ;
        sync.msi_addr = p.sync_pa;
        sync.msi_data = ++token;
        command(sync);
        reg_write(GMMU_SMMU_CMDQ_PROD, cmd_prod, 4);
        const sc_core::sc_time poll = cycles_time(p.clock, 8);
        while (uint32_t(mem.read64(p.sync_pa)) != token) {
            wait(poll);
            sync_wait_cycles += 8;
        }
    }
    // 3. Copy the frame; the page stays not present meanwhile.
    // (The model moves the host pages behind the frame instead of copying
    // them: the same contents at the new frame, the old one free again.)
    const uint64_t new_pa = d.alloc_frame_of(shift);
    mem.move_range(old_pa & ~(psz - 1), new_pa, psz);
    bytes_copied += psz;
    wait(cycles_time(p.clock, p.copy_cycles));
    // 4. Remap.
    d.set_frame(va, new_pa);
    d.set_present(va, true);
    d.free_frame(old_pa, shift);
    moving.erase({asid, va});
    migrations++;
}

void migrator::run()
{
    reg_write(GMMU_SMMU_CMDQ_BASE, p.cmdq_pa | p.cmdq_log2, 8);
    reg_write(GMMU_SMMU_CR0, GMMU_SMMU_CR0_CMDQEN, 4);
    const sc_core::sc_time interval = cycles_time(p.clock, p.interval_cycles);
    for (;;) {
        wait(interval);
        if (!running())
            return;
        migrate_one();
    }
}

const stat_table<migrator> &migrator::stats_table()
{
    using json = nlohmann::json;
    using T = migrator;
    static const stat_table<T> table(
        76, "Page migration (`gpu.migrator`, with `migrate.interval_cycles`)",
        "The SMMU whose command queue carries the invalidations reports under `gpu.migrator.smmu`.",
        {
            {"migrations", "pages moved to a new frame", [](const T &c) { return json(c.migrations); }},
            {"commands", "commands queued (TLBI_NH_VA and CMD_SYNC per migration)", [](const T &c) { return json(c.commands); }},
            {"sync_wait_cycles", "cycles the driver waited for CMD_SYNC completions", [](const T &c) { return json(c.sync_wait_cycles); }},
            {"bytes_copied", "bytes of frames copied", [](const T &c) { return json(c.bytes_copied); }},
        });
    return table;
}

static const bool migrator_stats_declared = (migrator::stats_table(), true);

void migrator::dump_stats(nlohmann::json &j) const { stats_table().dump(*this, j); }

} // namespace gmmu
