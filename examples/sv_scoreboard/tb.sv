// The scoreboard takes every expected answer from gmmu's C TLB model
// (gmmu_pkg::gmmu_dpi_tlb_*), configured like gmmu-sim's l1_tlb keys. Each
// cycle either a lookup or a fill (of the page just missed), random pages
// from a small set so the 4 entries thrash. +seed=N.
module tb;
  import gmmu_pkg::*;
  logic clk = 1'b0, rst_n = 1'b0;
  logic lookup = 1'b0, fill = 1'b0;
  logic [35:0] vpn = '0, fill_vpn = '0;
  logic [39:0] fill_ppn = '0;
  logic hit;
  logic [39:0] ppn;

  toy_tlb dut (.clk_i(clk), .rst_ni(rst_n), .lookup_i(lookup), .vpn_i(vpn), .hit_o(hit),
               .ppn_o(ppn), .fill_i(fill), .fill_vpn_i(fill_vpn), .fill_ppn_i(fill_ppn));

  initial begin
    chandle ref_tlb;
    int unsigned seed, errors, r;
    longint unsigned eppn;
    /* verilator lint_off UNUSEDSIGNAL */
    longint unsigned eperms, ev;  // outputs this bench has no use for
    int unsigned depth;
    /* verilator lint_on UNUSEDSIGNAL */
    int rc;
    if ($value$plusargs("seed=%d", seed) == 0) seed = 1;
    $display("sv_scoreboard: seed %0d", seed);
    void'($urandom(seed));
    ref_tlb = gmmu_dpi_tlb_new("entries=4 ways=4 replacement=lru");
    if (ref_tlb == null) $fatal(1, "sv_scoreboard: %s", gmmu_dpi_last_error());
    #5 rst_n = 1'b1;
    for (int c = 0; c < 2000; c++) begin
      lookup = 1'b1;
      fill = 1'b0;
      r = $urandom % 7;
      vpn = 36'(r);
      #1;
      rc = gmmu_dpi_tlb_lookup(ref_tlb, 16'd0, 64'(vpn), eppn, eperms, depth);
      if (rc != 32'(hit) || (hit && 64'(ppn) != eppn)) begin
        $display("sv_scoreboard: MISMATCH cycle %0d vpn %0d: DUT hit %b ppn %h, model hit %0d ppn %h",
                 c, vpn, hit, ppn, rc, eppn);
        errors++;
      end
      #4 clk = 1'b1;
      #5 clk = 1'b0;
      if (rc == 0) begin // the walker's answer: fill it
        lookup = 1'b0;
        fill = 1'b1;
        fill_vpn = vpn;
        fill_ppn = 40'(vpn) + 40'h1000;
        void'(gmmu_dpi_tlb_fill(ref_tlb, 16'd0, 64'(fill_vpn), 64'(fill_ppn), 64'h0, ev));
        #5 clk = 1'b1;
        #5 clk = 1'b0;
      end
    end
    $display("sv_scoreboard: model hits %0d misses %0d evictions %0d, %0d mismatches",
             gmmu_dpi_stat(ref_tlb, "hits"), gmmu_dpi_stat(ref_tlb, "misses"),
             gmmu_dpi_stat(ref_tlb, "evictions"), errors);
    gmmu_dpi_free(ref_tlb);
    if (errors != 0) $fatal(1, "sv_scoreboard: FAILED");
    $display("sv_scoreboard: PASSED");
    $finish;
  end
endmodule
