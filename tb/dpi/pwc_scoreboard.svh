// Expected outputs from the C model's cycle step (gmmu_dpi_pwc_step) fed
// with the very inputs the monitor saw; every output compared every cycle.
class pwc_scoreboard;
  chandle model;
  longint unsigned checked, results, mismatches;

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

  function void report();
    $display("pwc_scoreboard: %0d cycles, %0d results, %0d mismatches; C model: lookups %0d misses %0d hit_l4 %0d hit_l3 %0d hit_l2 %0d evictions %0d squashed %0d",
             checked, results, mismatches, gmmu_dpi_stat(model, "lookups"), gmmu_dpi_stat(model, "misses"),
             gmmu_dpi_stat(model, "hit_l4"), gmmu_dpi_stat(model, "hit_l3"), gmmu_dpi_stat(model, "hit_l2"),
             gmmu_dpi_stat(model, "evictions"), gmmu_dpi_stat(model, "squashed"));
  endfunction
endclass
