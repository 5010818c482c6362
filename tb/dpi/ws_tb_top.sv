// tb/dpi/ws_tb_top.sv — harness of the walk-scheduler class bench: clock,
// reset, rtl/walk_sched.sv, and the per-cycle calls of sequence -> driver ->
// pins -> monitor -> scoreboard (and the sequence's memory sees the
// requests). Plusargs: +seed=N, +cycles=N. Allocations stop for the last
// quarter of the run and the run ends with every walk drained; exit status
// non-zero on the first mismatch or an RTL assertion.
module ws_tb_top #(
  parameter int unsigned Variant        = 1,
  parameter int unsigned Mshrs          = 4,
  parameter int unsigned Walkers        = 1,
  parameter int unsigned ScanPassCycles = 1,
  parameter int unsigned RetireWidth    = 4
);
  import ws_tb_pkg::*;
  import tb_util_pkg::*;

  logic clk = 1'b0;
  logic rst_n = 1'b0;
  ws_pins_t pins = '0;
  ws_outs_t outs;

  function automatic string model_cfg();
    string s;
    s = Variant == 0 ? "scheduler=serial" : Variant == 1 ? "scheduler=tree" : "scheduler=pairwise";
    return {s, $sformatf(" mshrs=%0d walkers=%0d scan_pass_cycles=%0d retire_width=%0d",
                         Mshrs, Walkers, ScanPassCycles, RetireWidth)};
  endfunction

  walk_sched #(.Variant(Variant), .Mshrs(Mshrs), .Walkers(Walkers),
               .ScanPassCycles(ScanPassCycles), .RetireWidth(RetireWidth)) dut (
    .clk_i(clk), .rst_ni(rst_n),
    .alloc_valid_i(pins.alloc_valid), .alloc_va_i(pins.alloc_va),
    .alloc_table_i(pins.alloc_table), .alloc_start_level_i(pins.alloc_start_level),
    .alloc_access_i(pins.alloc_access),
    .resp_valid_i(pins.resp_valid), .resp_tag_i(pins.resp_tag), .resp_data_i(pins.resp_data),
    .mem_ready_i(pins.mem_ready),
    .req_valid_o(outs.req_valid), .req_level_o(outs.req_level), .req_tag_o(outs.req_tag),
    .req_pa_o(outs.req_pa),
    .alloc_accepted_o(outs.alloc_accepted), .alloc_mshr_o(outs.alloc_mshr),
    .n_done_o(outs.n_done), .done_valid_o(outs.done_valid), .done_fault_o(outs.done_fault),
    .done_fault_level_o(outs.done_fault_level), .done_page_shift_o(outs.done_page_shift),
    .done_mshr_o(outs.done_mshr), .done_nreads_o(outs.done_nreads), .done_va_o(outs.done_va),
    .done_pa_o(outs.done_pa), .done_pte_o(outs.done_pte), .done_table_o(outs.done_table));

  initial begin
    ws_sequence seq;
    ws_driver drv;
    ws_monitor mon;
    ws_scoreboard sb;
    ws_obs obs;
    ws_item it;
    int unsigned seed;
    longint unsigned cycles, c;
    string cfg;
    cfg = model_cfg();
    seed = seed_from_plusargs("ws_tb");
    cycles = cycles_from_plusargs(20000);
    void'($urandom(seed));
    $display("ws_tb: model %s, %0d cycles", cfg, cycles);
    seq = new;
    drv = new;
    mon = new;
    sb = new(cfg);
    #5 clk = 1'b1;
    #5 clk = 1'b0;
    #5 clk = 1'b1;
    #4 rst_n = 1'b1;
    #1 clk = 1'b0;
    c = 0;
    // run, then drain: no allocations until no walk and no read is left
    while (c < cycles || gmmu_pkg::gmmu_dpi_ws_idle(sb.model) == 0) begin
      seq.stop_alloc = c >= cycles - cycles / 4;
      if (c > cycles + 100000) $fatal(1, "ws_tb: FAILED: the walks never drained (seed %0d)", seed);
      it = seq.next();
      drv.drive(it, pins);
      #1;
      obs = mon.sample(pins, outs);
      sb.check(obs);
      if (sb.mismatches != 0) begin
        sb.report();
        $fatal(1, "ws_tb: FAILED (seed %0d, cycle %0d)", seed, obs.cycle);
      end
      seq.observe(obs);
      #4 clk = 1'b1;
      #5 clk = 1'b0;
      c++;
    end
    sb.report();
    if (sb.walks == 0) $fatal(1, "ws_tb: FAILED: no walk completed");
    gmmu_pkg::gmmu_dpi_free(sb.model);
    $display("ws_tb: PASSED");
    $finish;
  end
endmodule
