// tb/dpi/soak_tb.sv — a long, random run over every function of gmmu_pkg,
// for the sanitizer build (ctest dpi.soak_asan: the bench and libgmmu_dpi
// built with AddressSanitizer + UndefinedBehaviorSanitizer, leak detection
// on). Each round makes models of every kind from random valid
// configurations (and bad ones, which must return null with a message),
// drives them with random calls (TLB lookups, fills and invalidations; PWC
// transactions and cycle steps; walk-scheduler cycles answered from a
// random memory; walks over the testbench's page tables, with accessed /
// dirty write-back; the coalescer; counters by name), misuses handles
// (double free, a freed handle, the wrong kind: each must be an error, not
// a crash) and frees what it made, while a pool of long-lived handles
// survives many rounds. The library's live-handle count must match what the
// bench holds after every round and be 0 at the end: a handle the library
// lost or kept is a failure here, and a leak inside the models is
// LeakSanitizer's at exit. Plusargs: +seed=N, +rounds=N (default 200).
module soak_tb;
  import gmmu_pkg::*;
  import tb_util_pkg::*;

  // page tables as a pure function of the address, plus what the walker
  // wrote back (accessed / dirty bits)
  class random_mem extends gmmu_pt_memory;
    longint unsigned written[longint unsigned];
    int unsigned salt;
    longint unsigned reads, writes;
    virtual function int read64(input longint unsigned pa, output longint unsigned data);
      reads++;
      if (written.exists(pa) != 0) data = written[pa];
      else begin
        // mostly present, writable, user tables a few MiB up; some leaves
        // and faults
        data = mix64(pa ^ 64'(salt));
        data = (data & 64'h0000_0000_3FFF_F000) | ((data & 64'h7) == 0 ? 64'h0 : 64'h7) |
               ((data[40 +: 3] == 3'd0) ? 64'h80 : 64'h0);
      end
      return 0;
    endfunction
    virtual function int write64(input longint unsigned pa, input longint unsigned data);
      writes++;
      written[pa] = data;
      return 0;
    endfunction
  endclass

  chandle pool[$];  // long-lived handles, freed at random later rounds
  int unsigned errors;
  longint unsigned calls;

  task automatic fail(input string what);
    $display("soak_tb: FAIL: %s", what);
    errors++;
  endtask

  function automatic void expect_live(input int n, input string where);
    if (gmmu_dpi_live_handles() != n) begin
      $display("soak_tb: FAIL: %s: the library holds %0d handles, the bench %0d", where,
               gmmu_dpi_live_handles(), n);
      errors++;
    end
  endfunction

  function automatic string pick(input string a[]);
    return a[$urandom_range(a.size() - 1)];
  endfunction

  function automatic chandle make_tlb();
    string cfgs[] = '{"entries=64 ways=4 replacement=lru", "entries=32 ways=32 replacement=fifo",
                      "entries=16 ways=2 replacement=random", "entries=8 ways=8 replacement=plru",
                      "{\"entries\": 128, \"ways\": 8, \"replacement\": \"lru\"}"};
    return gmmu_dpi_tlb_new(pick(cfgs));
  endfunction

  function automatic chandle make_pwc();
    string cfgs[] = '{"kind=cpwc cpwc.l4_entries=2 cpwc.l3_entries=8 cpwc.l2_blocks=5 cpwc.block_entries=2",
                      "kind=cpwc bits=5280", "kind=tpc tpc.entries=6 replacement=fifo", "kind=tpc",
                      "kind=stc", "kind=uptc"};
    return gmmu_dpi_pwc_new(pick(cfgs));
  endfunction

  function automatic chandle make_ws();
    string cfgs[] = '{"scheduler=tree mshrs=4", "scheduler=pairwise mshrs=8 retire_width=2",
                      "scheduler=serial mshrs=4 walkers=2", "{\"scheduler\": \"tree\", \"mshrs\": 16}"};
    return gmmu_dpi_ws_new(pick(cfgs));
  endfunction

  // bad configurations: null and a message, never a crash
  function automatic void bad_configs();
    string tlbs[] = '{"entries=64 ways=3", "entriez=4", "replacement=mru", "entries=", "{\"entries\": [1]}",
                      "{not json", "entries=0x", "entries=99999999999999999999999"};
    string pwcs[] = '{"kind=cpwc cpwc.l4_entries=3", "kind=nope", "bits=-1", "kind=tpc tpc.entries=0"};
    string wss[] = '{"scheduler=tree walkers=2", "{\"mshrs\": 65}", "scheduler=", "mshrs=4 mshrs"};
    chandle h;
    string msg;
    h = gmmu_dpi_tlb_new(pick(tlbs));
    msg = gmmu_dpi_last_error();
    if (h != null || msg.len() == 0) fail("a bad TLB configuration was accepted or gave no message");
    h = gmmu_dpi_pwc_new(pick(pwcs));
    msg = gmmu_dpi_last_error();
    if (h != null || msg.len() == 0) fail("a bad PWC configuration was accepted or gave no message");
    h = gmmu_dpi_ws_new(pick(wss));
    msg = gmmu_dpi_last_error();
    if (h != null || msg.len() == 0) fail("a bad scheduler configuration was accepted or gave no message");
    h = gmmu_dpi_walker_new("mem=-3 set_accessed_dirty=maybe");
    if (h != null) fail("a bad walker configuration was accepted");
  endfunction

  // counters by name: every listed name readable, an unknown one all ones
  function automatic void read_stats(input chandle h);
    string names = gmmu_dpi_stat_names(h);
    int from = 0;
    if (names.len() == 0) fail("a model without counters");
    for (int i = 0; i <= names.len(); i++) begin
      if (i == names.len() || names[i] == 8'h20) begin
        if (i > from) begin
          string cur = names.substr(from, i - 1);
          if (gmmu_dpi_has_stat(h, cur) != 1) fail({"listed counter not found: ", cur});
          void'(gmmu_dpi_stat(h, cur));
        end
        from = i + 1;
      end
    end
    if (gmmu_dpi_stat(h, "no_such_counter") != 64'hFFFF_FFFF_FFFF_FFFF) fail("unknown counter read");
    if ($urandom_range(3) == 0) gmmu_dpi_reset_stats(h);
  endfunction

  function automatic void use_tlb(input chandle h, input int n);
    longint unsigned ppn, perms, ev;
    int unsigned depth;
    for (int i = 0; i < n; i++) begin
      shortint unsigned asid = 16'($urandom_range(3));
      longint unsigned vpn = 64'($urandom_range(511));
      case ($urandom_range(9))
        0, 1, 2, 3: void'(gmmu_dpi_tlb_lookup(h, asid, vpn, ppn, perms, depth));
        4, 5, 6: void'(gmmu_dpi_tlb_fill(h, asid, vpn, mix64(vpn) >> 24, 64'($urandom_range(7)), ev));
        7: void'(gmmu_dpi_tlb_probe(h, asid, vpn, ppn));
        8: void'(gmmu_dpi_tlb_invalidate_page(h, asid, vpn));
        default: case ($urandom_range(2))
          0: void'(gmmu_dpi_tlb_invalidate_asid(h, asid));
          1: void'(gmmu_dpi_tlb_invalidate_range(h, asid, vpn << 12, (vpn + 64'($urandom_range(64))) << 12));
          default: void'(gmmu_dpi_tlb_invalidate_all(h));
        endcase
      endcase
    end
    void'(gmmu_dpi_tlb_page_shift(h));
    calls += 64'(n);
    read_stats(h);
  endfunction

  function automatic void use_pwc(input chandle h, input chandle walker, input int n);
    longint unsigned tb;
    int cyc;
    bit hv;
    bit [2:0] hl;
    longint unsigned hb;
    for (int i = 0; i < n; i++) begin
      longint unsigned va = {16'd0, 9'($urandom_range(3)), 9'($urandom_range(7)), 9'($urandom_range(15)),
                             9'($urandom_range(511)), 12'd0};
      case ($urandom_range(7))
        0, 1: void'(gmmu_dpi_pwc_lookup(h, 64'h1000, va, tb, cyc));
        2: void'(gmmu_dpi_pwc_fill_path(h, va, int'($urandom_range(15)), mix64(va) & 64'hFFFF_F000,
                                         mix64(va + 1) & 64'hFFFF_F000, mix64(va + 2) & 64'hFFFF_F000,
                                         mix64(va + 3) & 64'hFFFF_F000));
        3: void'(gmmu_dpi_pwc_fill_walk(h, walker, va));
        4: void'(gmmu_dpi_pwc_invalidate_range(h, va, va + 64'h20_0000));
        5: if ($urandom_range(15) == 0) void'(gmmu_dpi_pwc_invalidate_all(h));
        default:
          // the cycle interface (TPC and CPWC only: others return -1)
          void'(gmmu_dpi_pwc_step(h, 1'($urandom), va, 64'h1000, 1'($urandom), 3'($urandom), va,
                                  mix64(va) & 64'hFFFF_F000, mix64(va + 1) & 64'hFFFF_F000,
                                  mix64(va + 2) & 64'hFFFF_F000, 1'($urandom_range(15) == 0),
                                  1'($urandom), va, va + 64'h4000_0000, hv, hl, hb));
      endcase
    end
    void'(gmmu_dpi_pwc_latency(h));
    calls += 64'(n);
    read_stats(h);
  endfunction

  // cycles of the walk scheduler: random allocations, the requests answered
  // in order a few cycles later from random page-table words
  function automatic void use_ws(input chandle h, input int n);
    shortint unsigned tags[$];
    bit rv;
    bit [2:0] rl;
    shortint unsigned rt;
    longint unsigned rpa;
    bit [3:0] acc;
    bit [31:0] mshr;
    for (int c = 0; c < n; c++) begin
      bit [3:0] av = 4'($urandom) & {4{$urandom_range(3) == 0}};
      bit [255:0] va, tb;
      bit [15:0] lvl, ac;
      bit resp = tags.size() > 0 && $urandom_range(1) == 0;
      shortint unsigned tag = resp ? tags.pop_front() : 16'd0;
      for (int i = 0; i < 4; i++) begin
        va[i*64 +: 64] = {16'd0, 36'($urandom_range(4095)), 12'd0} << ($urandom_range(1) * 9);
        tb[i*64 +: 64] = {12'd0, 40'($urandom_range(1023)) + 40'd1, 12'd0};
        lvl[i*4 +: 4] = 4'($urandom_range(1, 4));
        ac[i*4 +: 4] = 4'($urandom_range(3));
      end
      if (gmmu_dpi_ws_step(h, av, va, tb, lvl, ac, resp, tag,
                           resp ? mix64(64'(tag) ^ 64'(c)) & 64'h0000_003F_FFFF_F0FF : 64'd0,
                           1'($urandom_range(7) != 0)) != 0) begin
        // a malformed cycle (e.g. a response to no request) is refused and
        // changes nothing: the scheduler starts over
        gmmu_dpi_ws_reset(h);
        tags.delete();
        continue;
      end
      gmmu_dpi_ws_req(h, rv, rl, rt, rpa);
      if (rv) tags.push_back(rt);
      gmmu_dpi_ws_accepted(h, acc, mshr);
      for (int i = 0; i < gmmu_dpi_ws_n_done(h); i++) begin
        int f, fl, ps, m, nr;
        longint unsigned dva, dpa, dpte;
        bit [255:0] dtb;
        void'(gmmu_dpi_ws_done(h, i, f, fl, ps, m, nr, dva, dpa, dpte, dtb));
      end
    end
    void'(gmmu_dpi_ws_free_mshrs(h));
    void'(gmmu_dpi_ws_idle(h));
    calls += 64'(n);
    read_stats(h);
  endfunction

  function automatic void use_walker(input chandle h, input int n);
    longint unsigned pa;
    int ps, f, fl;
    for (int i = 0; i < n; i++) begin
      longint unsigned va = {16'd0, 36'($urandom), 12'($urandom)};
      if ($urandom_range(15) == 0) va[63:48] = 16'hDEAD; // non-canonical
      void'(gmmu_dpi_walk(h, 64'h1000, int'($urandom_range(1, 4)), va, int'($urandom_range(3)), pa, ps, f, fl));
      void'(gmmu_dpi_walk_pte(h));
      void'(gmmu_dpi_walk_nreads(h));
      void'(gmmu_dpi_walk_table_base(h, int'($urandom_range(0, 5))));
    end
    calls += 64'(n);
    read_stats(h);
  endfunction

  function automatic void use_coalescer(input int n);
    longint unsigned va[32];
    longint unsigned vpn[32];
    bit [31:0] lane_mask[32];
    int lane_page[32];
    for (int k = 0; k < n; k++) begin
      int np;
      bit [31:0] active = $urandom;
      for (int i = 0; i < 32; i++) va[i] = 64'h10_0000 + 64'($urandom_range(1 << 16)) * 64'h40;
      np = gmmu_dpi_coalesce(va, int'($urandom_range(0, 33)), active, $urandom_range(1) != 0 ? 12 : 21,
                             vpn, lane_mask, lane_page);
      if (np > 32) fail("coalescer: more pages than lanes");
    end
    calls += 64'(n);
  endfunction

  // misuse: each an error with a message, never a crash
  function automatic void misuse();
    chandle h = make_tlb();
    chandle w;
    longint unsigned ppn, perms;
    int unsigned depth;
    string msg;
    if (h == null) begin fail({"TLB: ", gmmu_dpi_last_error()}); return; end
    w = gmmu_dpi_ws_new("scheduler=tree mshrs=4");
    if (gmmu_dpi_tlb_lookup(w, 16'd1, 64'd1, ppn, perms, depth) != -1) fail("a scheduler used as a TLB");
    gmmu_dpi_free(w);
    gmmu_dpi_free(h);
    gmmu_dpi_free(h); // twice
    msg = gmmu_dpi_last_error();
    if (msg.len() == 0) fail("double free without a message");
    if (gmmu_dpi_tlb_lookup(h, 16'd1, 64'd1, ppn, perms, depth) != -1) fail("a freed TLB answered");
    if (gmmu_dpi_stat(h, "hits") != 64'hFFFF_FFFF_FFFF_FFFF) fail("a freed handle's counter");
    if (gmmu_dpi_has_stat(h, "hits") != 0) fail("a freed handle has counters");
    gmmu_dpi_reset_stats(h);
    gmmu_dpi_free(null);
  endfunction

  initial begin
    int unsigned seed = seed_from_plusargs("soak_tb");
    int rounds;
    random_mem mem = new;
    void'($urandom(seed));
    if ($value$plusargs("rounds=%d", rounds) == 0) rounds = 200;
    mem.salt = seed;
    gmmu_attach_memory(1, mem);
    expect_live(0, "start");
    for (int r = 0; r < rounds; r++) begin
      chandle tlb = make_tlb();
      chandle pwc = make_pwc();
      chandle ws = make_ws();
      chandle walker = gmmu_dpi_walker_new($urandom_range(1) != 0 ? "mem=1 set_accessed_dirty=true" : "mem=1");
      if (tlb == null || pwc == null || ws == null || walker == null) begin
        $display("soak_tb: a valid configuration refused: %s", gmmu_dpi_last_error());
        $fatal(1, "soak_tb: round %0d", r);
      end
      expect_live(pool.size() + 4, "after the round's models");
      use_tlb(tlb, 400);
      use_walker(walker, 50);
      use_pwc(pwc, walker, 300);
      use_ws(ws, 300);
      use_coalescer(20);
      bad_configs();
      // the pool: keep one of this round's models, free a random older one
      case ($urandom_range(3))
        0: begin pool.push_back(tlb); tlb = null; end
        1: begin pool.push_back(pwc); pwc = null; end
        2: begin pool.push_back(ws); ws = null; end
        default: ;
      endcase
      if (pool.size() > 6) begin
        int k = $urandom_range(pool.size() - 1);
        gmmu_dpi_free(pool[k]);
        pool.delete(k);
      end
      gmmu_dpi_free(tlb);
      gmmu_dpi_free(pwc);
      gmmu_dpi_free(ws);
      gmmu_dpi_free(walker);
      if (r % 8 == 0) misuse();
      expect_live(pool.size(), $sformatf("end of round %0d", r));
      if (errors > 10) break;
    end
    while (pool.size() > 0) gmmu_dpi_free(pool.pop_back());
    expect_live(0, "end");
    $display("soak_tb: %0d rounds, %0d calls, %0d page-table reads, %0d A/D writes, %0d errors",
             rounds, calls, mem.reads, mem.writes, errors);
    if (errors != 0) $fatal(1, "soak_tb: %0d failures", errors);
    $display("soak_tb: PASS");
    $finish;
  end
endmodule
