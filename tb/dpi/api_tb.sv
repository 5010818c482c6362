// tb/dpi/api_tb.sv — every model of gmmu_pkg called from SystemVerilog, with
// answers worked out by hand (not by the models): configuration (good and
// bad), TLB, page-walk cache, walker over the testbench's memory, coalescer,
// counters by name. Fails ($fatal) at the first wrong answer.
module api_tb;
  import gmmu_pkg::*;

  // A page table in an associative array: the walker reads it through
  // gmmu_dpi_pt_read. Maps VA 0x4020_1000 -> PA 0x7777_7000 (4 KiB page),
  // tables at 0x1000 (root), 0x2000, 0x3000, 0x4000.
  class sparse_mem extends gmmu_pt_memory;
    longint unsigned w[longint unsigned];
    int reads;
    virtual function int read64(input longint unsigned pa, output longint unsigned data);
      reads++;
      data = w.exists(pa) ? w[pa] : 64'd0;
      return 0;
    endfunction
  endclass

  int errors;
  task automatic check(input bit ok, input string what);
    if (!ok) begin
      $display("api_tb: FAIL: %s", what);
      errors++;
    end
  endtask

  initial begin
    chandle tlb, pwc, tpc, walker, ws, bad;
    longint unsigned ppn, perms, ev, pa, tb_out, tag, base, b1, b2;
    bit [255:0] mask;
    bit [26:0] idx;
    int unsigned depth;
    int rc, ps, fault, fl, cycles;
    sparse_mem mem;
    longint unsigned va[32];
    longint unsigned vpn[32];
    bit [31:0] lane_mask[32];
    int lane_page[32];
    string msg;

    // ---- configuration --------------------------------------------------------
    tlb = gmmu_dpi_tlb_new("entries=4 ways=2 replacement=lru");
    if (tlb == null) $fatal(1, "api_tb: %s", gmmu_dpi_last_error());
    bad = gmmu_dpi_tlb_new("entries=64 ways=3");
    msg = gmmu_dpi_last_error();
    check(bad == null, "entries=64 ways=3 accepted");
    $display("api_tb: bad TLB config -> %s", msg);
    check(msg.len() > 0 && $sformatf("%s", msg) != "", "no message for a bad TLB config");
    bad = gmmu_dpi_tlb_new("entriez=4");
    $display("api_tb: unknown key -> %s", gmmu_dpi_last_error());
    check(bad == null, "unknown TLB key accepted");
    bad = gmmu_dpi_tlb_new("replacement=mru");
    $display("api_tb: bad enum -> %s", gmmu_dpi_last_error());
    check(bad == null, "replacement=mru accepted");
    bad = gmmu_dpi_pwc_new("kind=cpwc cpwc.l4_entries=3");
    $display("api_tb: bad CPWC -> %s", gmmu_dpi_last_error());
    check(bad == null, "cpwc.l4_entries=3 accepted");
    bad = gmmu_dpi_ws_new("scheduler=tree walkers=2");
    $display("api_tb: bad scheduler -> %s", gmmu_dpi_last_error());
    check(bad == null, "tree with 2 walkers accepted");
    bad = gmmu_dpi_ws_new("{\"scheduler\": \"pairwise\", \"mshrs\": 65}");
    $display("api_tb: bad scheduler (JSON) -> %s", gmmu_dpi_last_error());
    check(bad == null, "65 MSHRs accepted");

    // ---- TLB: 2 sets x 2 ways, LRU --------------------------------------------
    check(gmmu_dpi_tlb_lookup(tlb, 16'd1, 64'h10, ppn, perms, depth) == 0, "hit in an empty TLB");
    check(gmmu_dpi_tlb_fill(tlb, 16'd1, 64'h10, 64'h99, 64'h0, ev) == 0, "fill evicted");
    check(gmmu_dpi_tlb_fill(tlb, 16'd1, 64'h12, 64'h98, 64'h0, ev) == 0, "second fill evicted");
    rc = gmmu_dpi_tlb_lookup(tlb, 16'd1, 64'h10, ppn, perms, depth);
    check(rc == 1 && ppn == 64'h99 && depth == 1, $sformatf("lookup 0x10: rc %0d ppn %h depth %0d", rc, ppn, depth));
    // set 0 holds 0x10 (MRU) and 0x12: a third page of set 0 evicts 0x12
    check(gmmu_dpi_tlb_fill(tlb, 16'd1, 64'h14, 64'h97, 64'h0, ev) == 1 && ev == 64'h12, $sformatf("LRU victim %h", ev));
    check(gmmu_dpi_tlb_lookup(tlb, 16'd2, 64'h10, ppn, perms, depth) == 0, "ASID 2 hit ASID 1's entry");
    check(gmmu_dpi_tlb_invalidate_page(tlb, 16'd1, 64'h10) == 1, "invalidate page");
    check(gmmu_dpi_tlb_probe(tlb, 16'd1, 64'h10, ppn) == 0, "invalidated page still present");
    check(gmmu_dpi_stat(tlb, "hits") == 1, $sformatf("hits %0d", gmmu_dpi_stat(tlb, "hits")));
    check(gmmu_dpi_stat(tlb, "misses") == 2, $sformatf("misses %0d", gmmu_dpi_stat(tlb, "misses")));
    check(gmmu_dpi_stat(tlb, "evictions") == 1, "evictions");
    check(gmmu_dpi_stat(tlb, "no_such") == 64'hFFFF_FFFF_FFFF_FFFF, "unknown counter");
    $display("api_tb: unknown counter -> %s", gmmu_dpi_last_error());
    check(gmmu_dpi_tlb_lookup(null, 16'd1, 64'h10, ppn, perms, depth) == -1, "null handle");

    // ---- walker over the testbench's memory ------------------------------------
    mem = new;
    // VA 0x4020_1000: L4 index 0, L3 index 1, L2 index 1, L1 index 1
    mem.w[64'h1000 + 8*0] = 64'h2000 | 64'h7;       // P W U
    mem.w[64'h2000 + 8*1] = 64'h3000 | 64'h7;
    mem.w[64'h3000 + 8*1] = 64'h4000 | 64'h7;
    mem.w[64'h4000 + 8*1] = 64'h7777_7000 | 64'h5;  // P U, read-only
    gmmu_attach_memory(3, mem);
    walker = gmmu_dpi_walker_new("mem=3");
    if (walker == null) $fatal(1, "api_tb: %s", gmmu_dpi_last_error());
    rc = gmmu_dpi_walk(walker, 64'h1000, 4, 64'h4020_1234, 2, pa, ps, fault, fl);
    check(rc == 0 && fault == 0 && pa == 64'h7777_7234 && ps == 12,
          $sformatf("walk: rc %0d fault %0d pa %h ps %0d", rc, fault, pa, ps));
    check(mem.reads == 4 && gmmu_dpi_walk_nreads(walker) == 4, "4 reads");
    check(gmmu_dpi_walk_table_base(walker, 2) == 64'h3000, "L2 table base");
    rc = gmmu_dpi_walk(walker, 64'h1000, 4, 64'h4020_1234, 3, pa, ps, fault, fl);
    check(rc == 0 && fault == 2 && fl == 1, $sformatf("write to read-only: fault %0d level %0d", fault, fl));
    rc = gmmu_dpi_walk(walker, 64'h1000, 4, 64'h5020_1234, 0, pa, ps, fault, fl);
    check(rc == 0 && fault == 1, "not present");

    // ---- page-walk cache: fill from the walk, then a hit at level 1 ------------
    pwc = gmmu_dpi_pwc_new("kind=cpwc cpwc.l4_entries=2 cpwc.l3_entries=4 cpwc.l2_blocks=8");
    if (pwc == null) $fatal(1, "api_tb: %s", gmmu_dpi_last_error());
    rc = gmmu_dpi_pwc_lookup(pwc, 64'h1000, 64'h4020_1234, tb_out, cycles);
    check(rc == 4 && tb_out == 64'h1000, "empty PWC: start at the root");
    rc = gmmu_dpi_walk(walker, 64'h1000, 4, 64'h4020_1234, 0, pa, ps, fault, fl);
    check(gmmu_dpi_pwc_fill_walk(pwc, walker, 64'h4020_1234) == 0, "fill from walk");
    rc = gmmu_dpi_pwc_lookup(pwc, 64'h1000, 64'h4020_1234, tb_out, cycles);
    check(rc == 1 && tb_out == 64'h4000, $sformatf("PWC hit: level %0d base %h", rc, tb_out));
    rc = gmmu_dpi_pwc_lookup(pwc, 64'h1000, 64'h4000_0000, tb_out, cycles);
    check(rc == 2 && tb_out == 64'h3000, $sformatf("PWC L3 hit: level %0d base %h", rc, tb_out));
    check(gmmu_dpi_stat(pwc, "hit_l2") == 1 && gmmu_dpi_stat(pwc, "hit_l3") == 1, "PWC counters");
    // the storage, slot by slot. L4 index 0 -> L3 table 0x2000 in L4 slot 0;
    // L3 index 1 -> 0x3000 in L3 slot 1 (L4 slot 0's pair of L3 slots, the
    // index's low bit), owning block 0 (mask bit nb-1-b = bit 7); L2 index 1
    // -> the L1 table 0x4000 in block 0's first entry
    rc = gmmu_dpi_cpwc_entry(pwc, 4, 0, tag, base, mask);
    check(rc == 1 && tag == 0 && base == 64'h2000 && mask == '0,
          $sformatf("CPWC L4[0]: rc %0d tag %0d base %h", rc, tag, base));
    check(gmmu_dpi_cpwc_entry(pwc, 3, 0, tag, base, mask) == 0, "CPWC L3[0] not empty");
    rc = gmmu_dpi_cpwc_entry(pwc, 3, 1, tag, base, mask);
    check(rc == 1 && tag == 1 && base == 64'h3000 && mask == 256'h80,
          $sformatf("CPWC L3[1]: rc %0d tag %0d base %h mask %h", rc, tag, base, mask[63:0]));
    rc = gmmu_dpi_cpwc_entry(pwc, 2, 0, tag, base, mask);
    check(rc == 1 && tag == 1 && base == 64'h4000, $sformatf("CPWC L2[0]: rc %0d tag %0d base %h", rc, tag, base));
    check(gmmu_dpi_cpwc_entry(pwc, 4, 1, tag, base, mask) == 0, "CPWC L4[1] not empty");
    check(gmmu_dpi_cpwc_entry(pwc, 4, 2, tag, base, mask) == -1, "CPWC L4[2] of 2 slots");
    $display("api_tb: no such slot -> %s", gmmu_dpi_last_error());
    check(gmmu_dpi_tpc_entry(pwc, 0, rc, idx, base, b1, b2) == -1, "a CPWC read as a TPC");
    $display("api_tb: wrong PWC kind -> %s", gmmu_dpi_last_error());
    tpc = gmmu_dpi_pwc_new("kind=tpc tpc.entries=4");
    if (tpc == null) $fatal(1, "api_tb: %s", gmmu_dpi_last_error());
    check(gmmu_dpi_pwc_fill_path(tpc, 64'h4020_1234, 'b11110, 64'h1000, 64'h2000, 64'h3000, 64'h4000) == 0,
          "TPC fill");
    check(gmmu_dpi_tpc_entry(tpc, 0, fl, idx, base, b1, b2) == 1 && fl == 3 && idx == 27'h40200 &&
          base == 64'h2000 && b1 == 64'h3000 && b2 == 64'h4000,
          $sformatf("TPC[0]: depth %0d idx %h bases %h %h %h", fl, idx, base, b1, b2));
    check(gmmu_dpi_tpc_entry(tpc, 1, fl, idx, base, b1, b2) == 0, "TPC[1] not empty");
    check(gmmu_dpi_cpwc_entry(tpc, 4, 0, tag, base, mask) == -1, "a TPC read as a CPWC");
    gmmu_dpi_free(tpc);
    void'(gmmu_dpi_pwc_invalidate_all(pwc));
    rc = gmmu_dpi_pwc_lookup(pwc, 64'h1000, 64'h4020_1234, tb_out, cycles);
    check(rc == 4, "hit after invalidate_all");

    // ---- coalescer ------------------------------------------------------------
    for (int i = 0; i < 32; i++) va[i] = 64'h10_0000 + 64'(i) * 64'h400; // 4 lanes per 4 KiB page
    rc = gmmu_dpi_coalesce(va, 32, 32'hFFFF_FFFF, 12, vpn, lane_mask, lane_page);
    check(rc == 8 && vpn[1] == 64'h101 && lane_mask[1] == 32'h0000_00F0 && lane_page[31] == 7,
          $sformatf("coalesce: %0d pages, vpn[1] %h mask[1] %h", rc, vpn[1], lane_mask[1]));

    // ---- walk scheduler handle --------------------------------------------------
    ws = gmmu_dpi_ws_new("scheduler=tree mshrs=8");
    if (ws == null) $fatal(1, "api_tb: %s", gmmu_dpi_last_error());
    check(gmmu_dpi_ws_free_mshrs(ws) == 8 && gmmu_dpi_ws_idle(ws) == 1, "fresh scheduler");
    check(gmmu_dpi_tlb_lookup(ws, 16'd1, 64'h10, ppn, perms, depth) == -1, "wrong handle kind");
    $display("api_tb: wrong kind -> %s", gmmu_dpi_last_error());

    gmmu_dpi_free(tlb);
    gmmu_dpi_free(pwc);
    gmmu_dpi_free(walker);
    gmmu_dpi_free(ws);
    if (errors != 0) $fatal(1, "api_tb: %0d checks failed", errors);
    $display("api_tb: PASS");
    $finish;
  end
endmodule
