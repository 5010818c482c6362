// Expected outputs from the C model's cycle step (gmmu_dpi_ws_step) fed with
// the inputs the monitor saw; every output field compared every cycle.
class ws_scoreboard;
  chandle model;
  longint unsigned checked, walks, requests, mismatches;

  function new(input string cfg);
    model = gmmu_dpi_ws_new(cfg);
    if (model == null) $fatal(1, "ws_scoreboard: %s", gmmu_dpi_last_error());
  endfunction

  function automatic void diff(input ws_obs o, input string what, input longint unsigned rtl,
                               input longint unsigned c);
    if (rtl !== c) begin
      mismatches++;
      $display("ws_scoreboard: MISMATCH cycle %0d: %s: RTL %h, C model %h", o.cycle, what, rtl, c);
    end
  endfunction

  function void check(input ws_obs o);
    bit [255:0] va, tb;
    bit [15:0] lvl, acc;
    bit rv;
    bit [2:0] rl;
    shortint unsigned rt;
    longint unsigned rpa;
    bit [3:0] acc_ok;
    bit [31:0] acc_mshr;
    int n;
    for (int i = 0; i < 4; i++) begin
      va[i*64 +: 64] = o.in.alloc_va[i*64 +: 64];
      tb[i*64 +: 64] = {12'd0, o.in.alloc_table[i*40 +: 40], 12'd0};
      lvl[i*4 +: 4] = {1'b0, o.in.alloc_start_level[i*3 +: 3]};
      acc[i*4 +: 4] = {2'b0, o.in.alloc_access[i*2 +: 2]};
    end
    if (gmmu_dpi_ws_step(model, o.in.alloc_valid, va, tb, lvl, acc, o.in.resp_valid,
                         16'(o.in.resp_tag), o.in.resp_data, o.in.mem_ready) != 0)
      $fatal(1, "ws_scoreboard: cycle %0d: %s", o.cycle, gmmu_dpi_last_error());
    checked++;
    gmmu_dpi_ws_req(model, rv, rl, rt, rpa);
    diff(o, "req.valid", 64'(o.out.req_valid), 64'(rv));
    if (rv) begin
      requests++;
      diff(o, "req.level", 64'(o.out.req_level), 64'(rl));
      diff(o, "req.tag", 64'(o.out.req_tag), 64'(rt));
      diff(o, "req.pa", 64'(o.out.req_pa), rpa);
    end
    gmmu_dpi_ws_accepted(model, acc_ok, acc_mshr);
    diff(o, "alloc_accepted", 64'(o.out.alloc_accepted), 64'(acc_ok));
    for (int i = 0; i < 4; i++)
      if (acc_ok[i]) diff(o, $sformatf("alloc_mshr[%0d]", i), 64'(o.out.alloc_mshr[i*8 +: 8]),
                          64'(acc_mshr[i*8 +: 8]));
    n = gmmu_dpi_ws_n_done(model);
    diff(o, "n_done", 64'(o.out.n_done), 64'(n));
    diff(o, "done_valid", 64'(o.out.done_valid), 64'((1 << n) - 1));
    for (int i = 0; i < n; i++) begin
      int fault, fl, ps, mshr, nreads;
      longint unsigned dva, dpa, dpte;
      bit [255:0] dtb;
      void'(gmmu_dpi_ws_done(model, i, fault, fl, ps, mshr, nreads, dva, dpa, dpte, dtb));
      walks++;
      diff(o, $sformatf("done[%0d].fault", i), 64'(o.out.done_fault[i*3 +: 3]), 64'(fault));
      diff(o, $sformatf("done[%0d].fault_level", i), 64'(o.out.done_fault_level[i*3 +: 3]), 64'(fl));
      diff(o, $sformatf("done[%0d].page_shift", i), 64'(o.out.done_page_shift[i*6 +: 6]), 64'(ps));
      diff(o, $sformatf("done[%0d].mshr", i), 64'(o.out.done_mshr[i*8 +: 8]), 64'(mshr));
      diff(o, $sformatf("done[%0d].nreads", i), 64'(o.out.done_nreads[i*3 +: 3]), 64'(nreads));
      diff(o, $sformatf("done[%0d].va", i), o.out.done_va[i*64 +: 64], dva);
      diff(o, $sformatf("done[%0d].pa", i), 64'(o.out.done_pa[i*52 +: 52]), dpa);
      diff(o, $sformatf("done[%0d].pte", i), o.out.done_pte[i*64 +: 64], dpte);
      for (int l = 0; l < 4; l++)
        diff(o, $sformatf("done[%0d].table_base[%0d]", i, l + 1),
             {12'd0, o.out.done_table[(i*4 + l)*40 +: 40], 12'd0}, dtb[l*64 +: 64]);
    end
  endfunction

  function void report();
    $display("ws_scoreboard: %0d cycles, %0d requests, %0d walks, %0d mismatches; C model: walks %0d faults %0d refs_merged %0d line_groups %0d same_line_back_to_back %0d",
             checked, requests, walks, mismatches, gmmu_dpi_stat(model, "walks"),
             gmmu_dpi_stat(model, "faults"), gmmu_dpi_stat(model, "refs_merged"),
             gmmu_dpi_stat(model, "line_groups"), gmmu_dpi_stat(model, "same_line_back_to_back"));
  endfunction
endclass
