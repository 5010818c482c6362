// Copyright gmmu contributors.
// cpwc_lookup: phase 1 of the CPWC's cycle (rtl/cpwc.sv), the lookup, on the
// state at the start of the cycle. The L4 slot, the L3 slot and every L2
// entry compare in parallel; the hitting L3 entry's mask then selects the
// block hits (AND-OR mux). Hands the result pipeline the level code and the
// table base, and the recency its LRU touch (touch_a_o: the L2 entry a full
// hit used). Combinational; the registers are in rtl/cpwc.sv.
//
// Flat ports carry one field per entry, entry e at [e*W +: W]; own_q_i is the
// L3 masks in block order (bit b of slot t: slot t owns block b).
module cpwc_lookup #(
  parameter int unsigned L4Entries    = 2,
  parameter int unsigned L3Entries    = 4,
  parameter int unsigned L2Blocks     = 62,
  parameter int unsigned BlockEntries = 1,
  parameter bit          Lru          = 1'b1
) (
  /* verilator coverage_off */
  input  logic                                clk_i,   // assertions only
  input  logic                                rst_ni,
  input  logic                                lookup_valid_i,
  input  logic [63:0]                         lookup_va_i,
  // state at the start of the cycle
  input  logic [L4Entries-1:0]                l4_valid_q_i,
  input  logic [L4Entries*9-1:0]              l4_tag_q_i,
  input  logic [L4Entries*52-1:0]             l4_base_q_i,
  input  logic [L3Entries-1:0]                l3_valid_q_i,
  input  logic [L3Entries*9-1:0]              l3_tag_q_i,
  input  logic [L3Entries*52-1:0]             l3_base_q_i,
  input  logic [L3Entries*L2Blocks-1:0]       own_q_i,
  input  logic [L2Blocks*BlockEntries-1:0]    l2_valid_q_i,
  input  logic [L2Blocks*BlockEntries*9-1:0]  l2_tag_q_i,
  input  logic [L2Blocks*BlockEntries*52-1:0] l2_base_q_i,
  // result: start level - 1 (3 = miss), table base bits 63:12
  output logic [1:0]                          lk_code_o,
  output logic [51:0]                         lk_base_o,
  output logic [L2Blocks*BlockEntries-1:0]    touch_a_o
  /* verilator coverage_on */
);

  localparam int unsigned TagW    = 9;
  localparam int unsigned BaseW   = 52;
  localparam int unsigned NB      = L2Blocks;
  localparam int unsigned BE      = BlockEntries;
  localparam int unsigned NE      = L2Blocks * BlockEntries;
  localparam int unsigned L4W     = (L4Entries > 1) ? $clog2(L4Entries) : 1;
  localparam int unsigned L3W     = (L3Entries > 1) ? $clog2(L3Entries) : 1;

  // ---- the state, one array element per entry ------------------------------
  /* verilator coverage_off */
  logic [L4Entries-1:0] l4_valid_q;
  logic [TagW-1:0]      l4_tag_q  [L4Entries];
  logic [BaseW-1:0]     l4_base_q [L4Entries];
  logic [L3Entries-1:0] l3_valid_q;
  logic [TagW-1:0]      l3_tag_q  [L3Entries];
  logic [BaseW-1:0]     l3_base_q [L3Entries];
  logic [NB-1:0]        own_q     [L3Entries];  // L3 slot t owns block b: own_q[t][b]
  logic [NE-1:0]        l2_valid_q;
  logic [TagW-1:0]      l2_tag_q  [NE];
  logic [BaseW-1:0]     l2_base_q [NE];
  /* verilator coverage_on */

  assign l4_valid_q = l4_valid_q_i;
  assign l3_valid_q = l3_valid_q_i;
  assign l2_valid_q = l2_valid_q_i;
  for (genvar s = 0; s < L4Entries; s++) begin : gen_l4_q
    assign l4_tag_q[s]  = l4_tag_q_i[s*TagW +: TagW];
    assign l4_base_q[s] = l4_base_q_i[s*BaseW +: BaseW];
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_l3_q
    assign l3_tag_q[t]  = l3_tag_q_i[t*TagW +: TagW];
    assign l3_base_q[t] = l3_base_q_i[t*BaseW +: BaseW];
    assign own_q[t]     = own_q_i[t*NB +: NB];
  end
  for (genvar k = 0; k < NE; k++) begin : gen_l2_q
    assign l2_tag_q[k]  = l2_tag_q_i[k*TagW +: TagW];
    assign l2_base_q[k] = l2_base_q_i[k*BaseW +: BaseW];
  end

  // ---- lookup ----------------------------------------------------------------
  /* verilator coverage_off */
  logic [8:0]           lk_i4, lk_i3, lk_i2;
  logic                 lk_canon;
  logic [L4W-1:0]       lk_s4;
  logic [L3W-1:0]       lk_s3;
  logic [L4Entries-1:0] lk_dec4, lk_l4_hits;
  logic [L3Entries-1:0] lk_dec3, lk_l3_hits;
  logic                 lk_l4_hit, lk_l3_hit, lk_l2_hit;
  logic [BaseW-1:0]     lk_l4_base, lk_l3_base, lk_l2_base;
  logic [NB-1:0]        lk_sel;      // blocks the hitting L3 entry's mask selects
  logic [NE-1:0]        lk_tag_hit;  // step 1: every L2 entry compares in parallel
  logic [NE-1:0]        lk_ent_hit;  // step 2: hits in the selected blocks
  logic [1:0]           lk_code;
  logic [BaseW-1:0]     lk_base;
  /* verilator coverage_on */

  assign lk_i4    = lookup_va_i[47:39];
  assign lk_i3    = lookup_va_i[38:30];
  assign lk_i2    = lookup_va_i[29:21];
  assign lk_canon = (&lookup_va_i[63:47]) | ~(|lookup_va_i[63:47]);

  cpwc_slot #(
    .L4Entries (L4Entries),
    .L3Entries (L3Entries)
  ) u_slot (
    .i4_i (lk_i4),
    .i3_i (lk_i3),
    .s4_o (lk_s4),
    .s3_o (lk_s3)
  );

  for (genvar s = 0; s < L4Entries; s++) begin : gen_lk_l4
    assign lk_dec4[s]    = (lk_s4 == L4W'(s));
    assign lk_l4_hits[s] = lk_dec4[s] && l4_valid_q[s] && (l4_tag_q[s] == lk_i4);
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_lk_l3
    assign lk_dec3[t]    = (lk_s3 == L3W'(t));
    assign lk_l3_hits[t] = lk_dec3[t] && l3_valid_q[t] && (l3_tag_q[t] == lk_i3);
  end
  for (genvar k = 0; k < NE; k++) begin : gen_lk_l2
    assign lk_tag_hit[k] = l2_valid_q[k] && (l2_tag_q[k] == lk_i2);
    assign lk_ent_hit[k] = lk_tag_hit[k] && lk_sel[k / BE];
  end

  // one-hot selects as AND-OR multiplexers
  always_comb begin
    lk_l4_base = '0;
    for (int unsigned s = 0; s < L4Entries; s++) begin
      lk_l4_base = lk_l4_base | (l4_base_q[s] & {BaseW{lk_dec4[s]}});
    end
    lk_l3_base = '0;
    lk_sel     = '0;
    for (int unsigned t = 0; t < L3Entries; t++) begin
      lk_l3_base = lk_l3_base | (l3_base_q[t] & {BaseW{lk_dec3[t]}});
      lk_sel     = lk_sel | (own_q[t] & {NB{lk_dec3[t]}});
    end
    lk_l2_base = '0;
    for (int unsigned k = 0; k < NE; k++) begin
      lk_l2_base = lk_l2_base | (l2_base_q[k] & {BaseW{lk_ent_hit[k]}});
    end
  end

  assign lk_l4_hit = |lk_l4_hits;
  assign lk_l3_hit = lk_l4_hit && (|lk_l3_hits);
  assign lk_l2_hit = lk_l3_hit && (|lk_ent_hit);

  always_comb begin
    if (!lk_canon || !lk_l4_hit) begin
      lk_code = 2'd3;
      lk_base = '0;
    end else if (!lk_l3_hit) begin
      lk_code = 2'd2;
      lk_base = lk_l4_base;
    end else if (!lk_l2_hit) begin
      lk_code = 2'd1;
      lk_base = lk_l3_base;
    end else begin
      lk_code = 2'd0;
      lk_base = lk_l2_base;
    end
  end

  assign lk_code_o = lk_code;
  assign lk_base_o = lk_base;
  assign touch_a_o = (Lru && lookup_valid_i && lk_canon && lk_l2_hit) ? lk_ent_hit : '0;

  // Address bits no entry depends on.
  /* verilator coverage_off */
  logic unused_va;
  assign unused_va = ^lookup_va_i[20:0];
  /* verilator coverage_on */

`ifndef SYNTHESIS
  // ---- assertions (one cycle) ------------------------------------------------
  // At most one L2 entry hits among the blocks the L3 entry selects (fills
  // keep an owner's tags unique); L4 and L3 are direct-mapped (one slot each).
  a_l2_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_ent_hit));
  a_l4_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_l4_hits));
  a_l3_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_l3_hits));

  // ---- cover points ------------------------------------------------------------
  for (genvar b = 0; b < NB; b++) begin : gen_cov_block
    c_block_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
        lookup_valid_i && lk_l2_hit && (|lk_ent_hit[b*BE +: BE]));
  end
  // hit kinds per level
  c_miss: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_canon && lk_code == 2'd3);
  c_miss_l4_tag: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_canon && (|(lk_dec4 & l4_valid_q)) && !lk_l4_hit);
  c_noncanonical: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && !lk_canon);
  c_hit_l4: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd2);
  c_hit_l3: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd1);
  c_hit_l2: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_code == 2'd0);
  // mask patterns of the hitting L3 entry
  c_mask_empty: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_l3_hit && lk_sel == '0);
  c_mask_one_block: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_l3_hit && $onehot(lk_sel));
  c_mask_several_blocks: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_l3_hit && !$onehot0(lk_sel));
  c_mask_all_blocks: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_l3_hit && (&lk_sel));
  // an L2 tag hits in a block the mask does not select (the mux matters)
  c_tag_hit_unselected: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && lk_l3_hit && (|lk_tag_hit) && !(|lk_ent_hit));
`endif

endmodule
