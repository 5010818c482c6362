// Copyright gmmu contributors.
// tpc: translation-path cache, the baseline of the CPWC paper and the RTL
// twin of the C golden model models/src/tpc.c behind gmmu_pwc_step (pwc.h).
//
// Entries fully associative; an entry holds one walk path:
// valid, the L4, L3 and L2 indices and the bases of the L3, L2 and L1 tables.
// A base field is the 4 KiB-aligned base (bits 63:12) plus a part-valid bit
// (the C model keeps it in bit 0 of its 64-bit base field), so partial paths
// (1 GiB / 2 MiB leaves, faulting walks) share the format.
//
// One cycle (gmmu_pwc_step): the outputs show the lookup accepted HitCycles
// cycles ago; at the clock edge the lookup (longest prefix over all entries,
// lowest entry first among equals) is evaluated on the current state, then
// the fill, then the invalidation, which also squashes the lookups in flight.
module tpc #(
  parameter int unsigned Entries   = 24,
  parameter int unsigned HitCycles = 1,
  parameter bit          Lru       = 1'b1 // 1: LRU, 0: FIFO replacement
) (
  input  logic        clk_i,
  // the SVAs' `disable iff (!rst_ni)` is the only synchronous use
  /* verilator lint_off SYNCASYNCNET */
  input  logic        rst_ni,
  /* verilator lint_on SYNCASYNCNET */
  input  logic        lookup_valid_i,
  input  logic [63:0] lookup_va_i,
  input  logic [63:0] lookup_root_i,
  input  logic        fill_valid_i,
  input  logic [2:0]  fill_levels_i,   // bit k-1: fill_base_lk_i valid
  input  logic [63:0] fill_va_i,
  input  logic [63:0] fill_base_l3_i,
  input  logic [63:0] fill_base_l2_i,
  input  logic [63:0] fill_base_l1_i,
  input  logic        inv_valid_i,
  input  logic        inv_all_i,
  input  logic [63:0] inv_lo_i,
  input  logic [63:0] inv_hi_i,
  output logic        hit_valid_o,
  output logic [2:0]  hit_level_o,
  output logic [63:0] hit_base_o
);

  localparam int unsigned N     = Entries;
  localparam int unsigned TagW  = 9;
  localparam int unsigned BaseW = 52;

  // ---- storage: part j = 0 (L4 index, L3-table base), 1 (L3, L2), 2 (L2, L1)
  /* verilator coverage_off */
  logic [N-1:0]      valid_d;
  /* verilator coverage_on */
  logic [N-1:0]      valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [2:0]        pv_d   [N];                            // part j valid: bit j
  /* verilator coverage_on */
  logic [2:0]        pv_q   [N] /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [3*TagW-1:0] idx_d  [N];                            // part j at j*TagW
  logic [3*TagW-1:0] idx_q  [N] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]  base0_d [N];                           // L3-table bases
  logic [BaseW-1:0]  base0_q [N] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]  base1_d [N];                           // L2-table bases
  logic [BaseW-1:0]  base1_q [N] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]  base2_d [N];                           // L1-table bases
  logic [BaseW-1:0]  base2_q [N] /*verilator public_flat_rd*/;
  /* verilator coverage_on */

  // ---- 1. lookup --------------------------------------------------------------------
  /* verilator coverage_off */
  logic [3*TagW-1:0] lk_idx;
  logic              lk_canon;
  logic [N-1:0]      lk_ge1, lk_ge2, lk_ge3, lk_best, lk_sel;
  logic [1:0]        lk_code;
  logic [BaseW-1:0]  lk_base;
  logic [N-1:0]      touch_a;
  /* verilator coverage_on */

  assign lk_idx   = {lookup_va_i[29:21], lookup_va_i[38:30], lookup_va_i[47:39]};
  assign lk_canon = (&lookup_va_i[63:47]) | ~(|lookup_va_i[63:47]);

  for (genvar i = 0; i < N; i++) begin : gen_lk
    assign lk_ge1[i] = valid_q[i] && pv_q[i][0] && (idx_q[i][0 +: TagW] == lk_idx[0 +: TagW]);
    assign lk_ge2[i] = lk_ge1[i] && pv_q[i][1] && (idx_q[i][TagW +: TagW] == lk_idx[TagW +: TagW]);
    assign lk_ge3[i] = lk_ge2[i] && pv_q[i][2] &&
                       (idx_q[i][2*TagW +: TagW] == lk_idx[2*TagW +: TagW]);
  end

  // longest prefix; among equals the lowest-numbered entry
  always_comb begin
    if (!lk_canon) begin
      lk_best = '0;
      lk_code = 2'd3;
    end else if (|lk_ge3) begin
      lk_best = lk_ge3;
      lk_code = 2'd0;
    end else if (|lk_ge2) begin
      lk_best = lk_ge2;
      lk_code = 2'd1;
    end else if (|lk_ge1) begin
      lk_best = lk_ge1;
      lk_code = 2'd2;
    end else begin
      lk_best = '0;
      lk_code = 2'd3;
    end
  end
  assign lk_sel = lk_best & (~lk_best + 1'b1);

  always_comb begin
    lk_base = '0;
    for (int unsigned i = 0; i < N; i++) begin
      unique case (lk_code)
        2'd0:    lk_base = lk_base | (base2_q[i] & {BaseW{lk_sel[i]}});
        2'd1:    lk_base = lk_base | (base1_q[i] & {BaseW{lk_sel[i]}});
        default: lk_base = lk_base | (base0_q[i] & {BaseW{lk_sel[i]}});
      endcase
    end
  end

  assign touch_a = (Lru && lookup_valid_i) ? lk_sel : '0;

  // ---- recency: age matrix (see cpwc.sv) ---------------------------------------------
  /* verilator coverage_off */
  logic [N-1:0] touch_b;
  logic [N-1:0] older [N];   // older[i][j]: entry i older than j (after touch_a)
  /* verilator coverage_on */

  for (genvar i = 0; i < N; i++) begin : gen_age
    if (i < N - 1) begin : gen_up
      /* verilator coverage_off */
      logic [N-2-i:0] age_q, age_a, age_d;
      /* verilator coverage_on */
      assign age_a = touch_a[N-1:i+1] | (age_q & {(N-1-i){!touch_a[i]}});
      assign age_d = touch_b[N-1:i+1] | (age_a & {(N-1-i){!touch_b[i]}});
      always_ff @(posedge clk_i) begin
        age_q <= age_d;
      end
    end
    for (genvar j = 0; j < N; j++) begin : gen_col
      if (j == i) begin : gen_diag
        assign older[i][j] = 1'b0;
      end else if (j > i) begin : gen_upper
        assign older[i][j] = gen_up.age_a[j-i-1];
      end else begin : gen_lower
        assign older[i][j] = !gen_age[j].gen_up.age_a[i-j-1];
      end
    end
  end

  // ---- 2. fill ---------------------------------------------------------------------------
  /* verilator coverage_off */
  logic [3*TagW-1:0] f_idx;
  logic [BaseW-1:0]  f_b3, f_b2, f_b1;
  logic [1:0]        f_depth;          // known prefix of the path from the top: 0..3
  logic [N-1:0]      f_ge1, f_ge2, f_ge3, f_cover, f_extend, f_oldest;
  logic [N-1:0]      f_first_cover, f_first_extend, f_first_free, f_target;
  logic              f_en, f_fc, f_fe, f_ff;
  logic [1:0]        f_from;           // first part written (extending an entry)
  /* verilator coverage_on */

  assign f_idx   = {fill_va_i[29:21], fill_va_i[38:30], fill_va_i[47:39]};
  assign f_b3    = fill_base_l3_i[63:12];
  assign f_b2    = fill_base_l2_i[63:12];
  assign f_b1    = fill_base_l1_i[63:12];
  assign f_depth = !fill_levels_i[2] ? 2'd0 :
                   !fill_levels_i[1] ? 2'd1 :
                   !fill_levels_i[0] ? 2'd2 : 2'd3;
  assign f_en    = fill_valid_i && (f_depth != 2'd0);

  for (genvar i = 0; i < N; i++) begin : gen_f
    assign f_ge1[i] = valid_q[i] && pv_q[i][0] && (idx_q[i][0 +: TagW] == f_idx[0 +: TagW]);
    assign f_ge2[i] = f_ge1[i] && pv_q[i][1] && (idx_q[i][TagW +: TagW] == f_idx[TagW +: TagW]);
    assign f_ge3[i] = f_ge2[i] && pv_q[i][2] &&
                      (idx_q[i][2*TagW +: TagW] == f_idx[2*TagW +: TagW]);
    // an entry covering the path (match length >= depth)
    assign f_cover[i]  = (f_depth == 2'd1) ? f_ge1[i] :
                         (f_depth == 2'd2) ? f_ge2[i] : f_ge3[i];
    // an entry whose whole (shorter) path is a prefix of this one
    assign f_extend[i] = (f_ge1[i] && !pv_q[i][1]) || (f_ge2[i] && !pv_q[i][2]) || f_ge3[i];
    /* verilator coverage_off */
    logic [N-1:0] newer;
    /* verilator coverage_on */
    for (genvar j = 0; j < N; j++) begin : gen_j
      if (j == i) begin : gen_self
        assign newer[j] = 1'b1;
      end else begin : gen_other
        assign newer[j] = older[i][j];
      end
    end
    assign f_oldest[i] = &newer;
  end

  assign f_first_cover  = f_cover & (~f_cover + 1'b1);
  assign f_first_extend = f_extend & (~f_extend + 1'b1);
  assign f_first_free   = ~valid_q & (valid_q + 1'b1);
  assign f_fc = |f_cover;
  assign f_fe = |f_extend;
  assign f_ff = |(~valid_q);

  always_comb begin
    f_target = '0;
    if (f_en && !f_fc) begin
      if (f_fe) begin
        f_target = f_first_extend;
      end else if (f_ff) begin
        f_target = f_first_free;
      end else begin
        f_target = f_oldest;
      end
    end
    f_from = 2'd0;
    for (int unsigned i = 0; i < N; i++) begin
      if (f_fe && f_first_extend[i]) begin
        f_from = !pv_q[i][1] ? 2'd1 : 2'd2;
      end
    end
  end

  assign touch_b = f_target | ((Lru && f_en && f_fc) ? f_first_cover : '0);

  // parts written by this fill: from f_from (0 for a new entry) up to the depth
  /* verilator coverage_off */
  logic [2:0] f_write, f_clear;
  /* verilator coverage_on */
  for (genvar j = 0; j < 3; j++) begin : gen_part
    assign f_write[j] = (2'(j) >= f_from) && (2'(j) < f_depth);
    assign f_clear[j] = !f_fe && (2'(j) >= f_depth);
  end

  // ---- 3. invalidation (after the fill): a range drops every entry whose
  //         512 GiB L4 region meets [lo, hi]; the C model's L3/L2 region checks
  //         are nested in it, so no entry is ever shortened (docs/rtl_pwc.md).
  /* verilator coverage_off */
  logic       inv_range_ok, inv_every;
  logic [8:0] inv_lo4, inv_hi4;
  /* verilator coverage_on */

  assign inv_range_ok = inv_lo_i[47:0] <= inv_hi_i[47:0];
  assign inv_every    = inv_valid_i && (inv_all_i || !inv_range_ok);
  assign inv_lo4      = inv_lo_i[47:39];
  assign inv_hi4      = inv_hi_i[47:39];

  for (genvar i = 0; i < N; i++) begin : gen_next
    /* verilator coverage_off */
    logic inv_hit;
    /* verilator coverage_on */
    assign pv_d[i] = f_target[i] ? ((pv_q[i] | f_write) & ~f_clear) : pv_q[i];
    for (genvar j = 0; j < 3; j++) begin : gen_idx
      assign idx_d[i][j*TagW +: TagW] = (f_target[i] && f_write[j]) ? f_idx[j*TagW +: TagW] :
                                                                    idx_q[i][j*TagW +: TagW];
    end
    assign base0_d[i] = (f_target[i] && f_write[0]) ? f_b3 : base0_q[i];
    assign base1_d[i] = (f_target[i] && f_write[1]) ? f_b2 : base1_q[i];
    assign base2_d[i] = (f_target[i] && f_write[2]) ? f_b1 : base2_q[i];
    assign inv_hit    = inv_every ||
                        (inv_valid_i && pv_d[i][0] && (idx_d[i][0 +: TagW] >= inv_lo4) &&
                         (idx_d[i][0 +: TagW] <= inv_hi4));
    assign valid_d[i] = (valid_q[i] || f_target[i]) && !inv_hit;

    // Indices, bases and part-valid bits are qualified by valid_q.
    always_ff @(posedge clk_i) begin
      pv_q[i]    <= pv_d[i];
      idx_q[i]   <= idx_d[i];
      base0_q[i] <= base0_d[i];
      base1_q[i] <= base1_d[i];
      base2_q[i] <= base2_d[i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
    end else begin
      valid_q <= valid_d;
    end
  end

  // ---- result pipeline ---------------------------------------------------------------
  pwc_pipe #(
    .Lat (HitCycles)
  ) u_pipe (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .in_valid_i  (lookup_valid_i),
    .in_code_i   (lk_code),
    .in_base_i   (lk_base),
    .in_root_i   (lookup_root_i),
    .squash_i    (inv_valid_i),
    .hit_valid_o (hit_valid_o),
    .hit_level_o (hit_level_o),
    .hit_base_o  (hit_base_o)
  );

  logic unused_addr;
  assign unused_addr = ^{lookup_va_i[20:0], fill_va_i[63:48], fill_va_i[20:0],
                         fill_base_l3_i[11:0], fill_base_l2_i[11:0], fill_base_l1_i[11:0],
                         inv_lo_i[63:48], inv_lo_i[38:0], inv_hi_i[63:48], inv_hi_i[38:0]};

`ifndef SYNTHESIS
  // ---- assertions (one cycle) -------------------------------------------------------
  // a full path is stored at most once (fills extend or cover instead)
  a_full_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_ge3));
  a_fill_full_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_ge3));
  a_lookup_sel_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_sel));
  a_fill_target_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_target));
  a_out_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
      hit_valid_o |-> (hit_level_o >= 3'd1 && hit_level_o <= 3'd4));
  for (genvar i = 0; i < N; i++) begin : gen_sva_entry
    // valid parts form a prefix starting at the L4 part
    /* verilator coverage_off */
    logic [2:0] pv;
    /* verilator coverage_on */
    assign pv = pv_q[i];
    a_parts_prefix: assert property (@(posedge clk_i) disable iff (!rst_ni)
        valid_q[i] |-> (pv[0] && (pv[2] -> pv[1])));
    c_entry_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
        lookup_valid_i && lk_sel[i]);
  end

  // ---- cover points -------------------------------------------------------------------
  c_miss: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_canon && lk_code == 2'd3);
  c_noncanonical: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && !lk_canon);
  c_hit_l4: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd2);
  c_hit_l3: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd1);
  c_hit_l2: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd0);
  c_hit_l3_several: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd1 && !$onehot(lk_best));
  c_fill_cover: cover property (@(posedge clk_i) disable iff (!rst_ni) f_en && f_fc);
  c_fill_extend: cover property (@(posedge clk_i) disable iff (!rst_ni) f_en && !f_fc && f_fe);
  c_fill_free: cover property (@(posedge clk_i) disable iff (!rst_ni)
      f_en && !f_fc && !f_fe && f_ff);
  c_fill_evict: cover property (@(posedge clk_i) disable iff (!rst_ni)
      f_en && !f_fc && !f_fe && !f_ff);
  c_fill_partial: cover property (@(posedge clk_i) disable iff (!rst_ni)
      fill_valid_i && (f_depth == 2'd1 || f_depth == 2'd2));
  c_inv_all: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && inv_all_i);
  c_inv_range_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_all_i && inv_range_ok && ((valid_q & ~valid_d) != '0));
  c_inv_range_reversed: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_all_i && !inv_range_ok);
  c_squash_hit_in_flight: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && lookup_valid_i && lk_code != 2'd3);
`endif

endmodule
