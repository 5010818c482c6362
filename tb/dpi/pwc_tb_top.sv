// tb/dpi/pwc_tb_top.sv — harness of the page-walk-cache class bench: clock,
// reset, the DUT (rtl/cpwc.sv, or rtl/tpc.sv with +define+PWC_TPC), and the
// per-cycle calls of sequence -> driver -> pins -> monitor -> scoreboard.
// Plusargs: +seed=N, +cycles=N. Exit status non-zero on the first mismatch
// (or on an RTL assertion).
module pwc_tb_top #(
  parameter int unsigned L4Entries    = 2,
  parameter int unsigned L3Entries    = 8,
  parameter int unsigned L2Blocks     = 5,
  parameter int unsigned BlockEntries = 2,
  parameter int unsigned LookupCycles = 1,
  parameter int unsigned MuxCycles    = 1,
  parameter int unsigned Entries      = 6,  // TPC
  parameter int unsigned HitCycles    = 2,  // TPC
  parameter bit          Lru          = 1'b1
);
  import pwc_tb_pkg::*;
  import tb_util_pkg::*;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  pwc_pins_t pins = '0;
  pwc_outs_t outs;

`ifdef PWC_TPC
  function automatic string model_cfg();
    // (Verilator 5.006 formats a string-valued %s argument or a concatenated
    // format as a number: the pieces are joined instead)
    string s;
    s = $sformatf("kind=tpc tpc.entries=%0d tpc.hit_cycles=%0d", Entries, HitCycles);
    return {s, Lru ? " replacement=lru" : " replacement=fifo"};
  endfunction
  tpc #(.Entries(Entries), .HitCycles(HitCycles), .Lru(Lru)) dut (
`else
  function automatic string model_cfg();
    string s;
    s = $sformatf("kind=cpwc cpwc.l4_entries=%0d cpwc.l3_entries=%0d", L4Entries, L3Entries);
    s = {s, $sformatf(" cpwc.l2_blocks=%0d cpwc.block_entries=%0d", L2Blocks, BlockEntries)};
    s = {s, $sformatf(" cpwc.lookup_cycles=%0d cpwc.mux_cycles=%0d", LookupCycles, MuxCycles)};
    return {s, Lru ? " replacement=lru" : " replacement=fifo"};
  endfunction
  cpwc #(.L4Entries(L4Entries), .L3Entries(L3Entries), .L2Blocks(L2Blocks),
         .BlockEntries(BlockEntries), .LookupCycles(LookupCycles), .MuxCycles(MuxCycles),
         .Lru(Lru)) dut (
`endif
    .clk_i(clk), .rst_ni(rst_n),
    .lookup_valid_i(pins.lookup_valid), .lookup_va_i(pins.lookup_va),
    .lookup_root_i(pins.lookup_root),
    .fill_valid_i(pins.fill_valid), .fill_levels_i(pins.fill_levels), .fill_va_i(pins.fill_va),
    .fill_base_l3_i(pins.fill_base_l3), .fill_base_l2_i(pins.fill_base_l2),
    .fill_base_l1_i(pins.fill_base_l1),
    .inv_valid_i(pins.inv_valid), .inv_all_i(pins.inv_all), .inv_lo_i(pins.inv_lo),
    .inv_hi_i(pins.inv_hi),
    .hit_valid_o(outs.hit_valid), .hit_level_o(outs.hit_level), .hit_base_o(outs.hit_base));

  // White-box: the DUT's storage after a clock edge, slot by slot, to the
  // scoreboard (hierarchical references into rtl/cpwc.sv or rtl/tpc.sv)
  function automatic void check_storage(pwc_scoreboard sb, longint unsigned cycle);
`ifdef PWC_TPC
    for (int i = 0; i < int'(Entries); i++)
      sb.check_tpc_slot(cycle, i, dut.valid_q[i], dut.pv_q[i], dut.idx_q[i], 64'(dut.base0_q[i]),
                        64'(dut.base1_q[i]), 64'(dut.base2_q[i]));
`else
    for (int s = 0; s < int'(L4Entries); s++)
      sb.check_cpwc_slot(cycle, 4, s, int'(L2Blocks), dut.l4_valid_q[s], 64'(dut.l4_tag_q[s]),
                         64'(dut.l4_base_q[s]), '0);
    for (int t = 0; t < int'(L3Entries); t++)
      sb.check_cpwc_slot(cycle, 3, t, int'(L2Blocks), dut.l3_valid_q[t], 64'(dut.l3_tag_q[t]),
                         64'(dut.l3_base_q[t]), 256'(dut.l3_mask_q[t]));
    for (int k = 0; k < int'(L2Blocks * BlockEntries); k++)
      sb.check_cpwc_slot(cycle, 2, k, int'(L2Blocks), dut.l2_valid_q[k], 64'(dut.l2_tag_q[k]),
                         64'(dut.l2_base_q[k]), '0);
`endif
  endfunction

  initial begin
    pwc_sequence seq;
    pwc_driver drv;
    pwc_monitor mon;
    pwc_scoreboard sb;
    pwc_obs obs;
    int unsigned seed;
    longint unsigned cycles;
    string cfg;
    cfg = model_cfg();
    seed = seed_from_plusargs("pwc_tb");
    cycles = cycles_from_plusargs(20000);
    void'($urandom(seed));
    $display("pwc_tb: model %s, %0d cycles", cfg, cycles);
    seq = new;
    drv = new;
    mon = new;
    sb = new(cfg);
    // reset: two edges with rst_n low (the C model starts in the reset state)
    #5 clk = 1'b1;
    #5 clk = 1'b0;
    #5 clk = 1'b1;
    #4 rst_n = 1'b1;
    #1 clk = 1'b0;
    for (longint unsigned c = 0; c < cycles; c++) begin
      // clock low: drive this cycle's inputs, let them settle, sample, check
      drv.drive(seq.next(), pins);
      #1;
      obs = mon.sample(pins, outs);
      sb.check(obs);
      if (sb.mismatches != 0) begin
        sb.report();
        $fatal(1, "pwc_tb: FAILED (seed %0d, cycle %0d)", seed, obs.cycle);
      end
      #4 clk = 1'b1;
      #1;
      check_storage(sb, obs.cycle);
      if (sb.mismatches != 0) begin
        sb.report();
        $fatal(1, "pwc_tb: FAILED (seed %0d, after the clock edge of cycle %0d)", seed, obs.cycle);
      end
      #4 clk = 1'b0;
    end
    sb.report();
    if (sb.results == 0 || gmmu_pkg::gmmu_dpi_stat(sb.model, "hit_l2") == 0)
      $fatal(1, "pwc_tb: FAILED: the stimulus never reached a full hit");
    gmmu_pkg::gmmu_dpi_free(sb.model);
    $display("pwc_tb: PASSED");
    $finish;
  end
endmodule
