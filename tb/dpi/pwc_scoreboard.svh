// Expected outputs from the C model's cycle step (gmmu_dpi_pwc_step) fed
// with the very inputs the monitor saw; every output compared every cycle.
// White-box: after every clock edge the harness hands over the DUT's storage,
// slot by slot (check_cpwc_slot / check_tpc_slot), and it is compared with the
// model's (gmmu_dpi_cpwc_entry / gmmu_dpi_tpc_entry), as the C++ bench's
// state_diff does: a fault that the ports do not show yet (or ever) is caught
// where it is made.
class pwc_scoreboard;
  chandle model;
  longint unsigned checked, results, mismatches, slots_checked;

  function new(input string cfg);
    model = gmmu_dpi_pwc_new(cfg);
    if (model == null) $fatal(1, "pwc_scoreboard: %s", gmmu_dpi_last_error());
  endfunction

  function void check(input pwc_obs o);
    bit hv;
    bit [2:0] hl;
    longint unsigned hb;
    if (gmmu_dpi_pwc_step(model, o.in.lookup_valid, o.in.lookup_va, o.in.lookup_root,
                          o.in.fill_valid, o.in.fill_levels, o.in.fill_va, o.in.fill_base_l3,
                          o.in.fill_base_l2, o.in.fill_base_l1, o.in.inv_valid, o.in.inv_all,
                          o.in.inv_lo, o.in.inv_hi, hv, hl, hb) != 0)
      $fatal(1, "pwc_scoreboard: %s", gmmu_dpi_last_error());
    checked++;
    results += 64'(hv);
    if (o.out.hit_valid !== hv || o.out.hit_level !== hl || o.out.hit_base !== hb) begin
      mismatches++;
      $display("pwc_scoreboard: MISMATCH cycle %0d: RTL valid %b level %0d base %h, C model valid %b level %0d base %h",
               o.cycle, o.out.hit_valid, o.out.hit_level, o.out.hit_base, hv, hl, hb);
    end
  endfunction

  function automatic void slot_diff(input longint unsigned cycle, input string what,
                                    input longint unsigned rtl, input longint unsigned c);
    if (rtl !== c) begin
      mismatches++;
      if (mismatches <= 12)
        $display("pwc_scoreboard: STORAGE MISMATCH after the edge of cycle %0d: %s: RTL %h, C model %h",
                 cycle, what, rtl, c);
    end
  endfunction

  // CPWC slot (level 4, 3, 2; L2 slot = block x block_entries + way), the
  // RTL's base holding PA[63:12]; nb = the number of L2 blocks (mask width)
  function void check_cpwc_slot(input longint unsigned cycle, input int level, input int slot,
                                input int nb, input bit valid, input longint unsigned tag,
                                input longint unsigned base, input bit [255:0] mask);
    longint unsigned mt, mb;
    bit [255:0] mm;
    int v;
    string n;
    v = gmmu_dpi_cpwc_entry(model, level, slot, mt, mb, mm);
    if (v < 0) $fatal(1, "pwc_scoreboard: %s", gmmu_dpi_last_error());
    slots_checked++;
    n = $sformatf("L%0d[%0d]", level, slot);
    slot_diff(cycle, {n, ".valid"}, 64'(valid), 64'(v));
    if (v == 1) begin
      slot_diff(cycle, {n, ".tag"}, tag, mt);
      slot_diff(cycle, {n, ".base"}, base, mb >> 12);
    end
    // (the harness zero-extends the RTL's nb-bit mask; the model's bits
    // above nb are not storage)
    if (level == 3)
      for (int w = 0; w * 64 < nb; w++) begin
        longint unsigned keep = (nb - w * 64 >= 64) ? ~64'd0 : ((64'd1 << (nb - w * 64)) - 1);
        slot_diff(cycle, $sformatf("%s.mask[%0d]", n, w), mask[w*64 +: 64], mm[w*64 +: 64] & keep);
      end
  endfunction

  // TPC entry: valid, parts valid (pv bit j = part j), indices, PA[63:12] bases
  function void check_tpc_slot(input longint unsigned cycle, input int slot, input bit valid,
                               input bit [2:0] pv, input bit [26:0] idx, input longint unsigned b0,
                               input longint unsigned b1, input longint unsigned b2);
    int v, depth, rd;
    bit [26:0] mi;
    longint unsigned m0, m1, m2;
    string n;
    v = gmmu_dpi_tpc_entry(model, slot, depth, mi, m0, m1, m2);
    if (v < 0) $fatal(1, "pwc_scoreboard: %s", gmmu_dpi_last_error());
    slots_checked++;
    n = $sformatf("TPC[%0d]", slot);
    slot_diff(cycle, {n, ".valid"}, 64'(valid), 64'(v));
    if (v != 1) return;
    rd = pv[0] ? (pv[1] ? (pv[2] ? 3 : 2) : 1) : 0;
    slot_diff(cycle, {n, ".depth"}, 64'(rd), 64'(depth));
    for (int j = 0; j < depth && j < 3; j++) begin
      slot_diff(cycle, $sformatf("%s.idx[%0d]", n, j), 64'(idx[j*9 +: 9]), 64'(mi[j*9 +: 9]));
      slot_diff(cycle, $sformatf("%s.base[%0d]", n, j), j == 0 ? b0 : j == 1 ? b1 : b2,
                (j == 0 ? m0 : j == 1 ? m1 : m2) >> 12);
    end
  endfunction

  function void report();
    $display("pwc_scoreboard: %0d cycles, %0d results, %0d slots compared, %0d mismatches; C model: lookups %0d misses %0d hit_l4 %0d hit_l3 %0d hit_l2 %0d evictions %0d squashed %0d",
             checked, results, slots_checked, mismatches, gmmu_dpi_stat(model, "lookups"), gmmu_dpi_stat(model, "misses"),
             gmmu_dpi_stat(model, "hit_l4"), gmmu_dpi_stat(model, "hit_l3"), gmmu_dpi_stat(model, "hit_l2"),
             gmmu_dpi_stat(model, "evictions"), gmmu_dpi_stat(model, "squashed"));
  endfunction
endclass
