// Copyright gmmu contributors.
// cpwc: compressed tree-structured page walk cache (Jia et al.), the RTL twin
// of the C golden model models/src/cpwc.c behind gmmu_pwc_step (pwc.h).
//
//   L4 PWC: L4Entries slots, direct-mapped by the low L4-index bits;
//           entry = valid, L4 index (tag), base of the L3 table.
//   L3 PWC: L3Entries slots, direct-mapped by {low L4-index bits, low
//           L3-index bits}; entry = valid, L3 index, base of the L2 table and
//           an L2Blocks-bit mask of the L2 blocks it owns (MSB = block 0).
//   L2 PWC: L2Blocks blocks of BlockEntries fully associative entries;
//           entry = valid, L2 index, base of the L1 table.
//
// One cycle (gmmu_pwc_step): the outputs show the lookup accepted
// LookupCycles + MuxCycles cycles ago; at the clock edge the lookup is
// evaluated on the current state (L4, L3 and every block compare in parallel,
// then the hitting L3 entry's mask selects the block hits), then the fill is
// applied, then the invalidation, which also squashes the lookups in flight.
// Table bases are 4 KiB aligned: a base field stores bits 63:12 (the C
// model masks the low 12 bits away; see docs/rtl_pwc.md for the accounting).
//
// Structure (docs/rtl_pwc.md, "Module structure"). This module holds the
// registers (storage, the L2 entries' age matrix) and the result pipeline;
// each phase of the cycle is a combinational module that takes the state as
// the phases before it left it and hands on what it changes:
//
//   cpwc_lookup  1. lookup on the state at the start of the cycle (level
//                code and base to the pipeline; the LRU touch touch_a)
//   cpwc_fill    2. fill: L4, L3 and L2 entries, victim choice on the age
//                matrix after touch_a; the fill's touch touch_b
//   cpwc_inval   3. invalidation on the state after the fill; squashes the
//                lookups in flight (pwc_pipe)
//   cpwc_slot    the slot numbers of a VA (lookup and fill)
//
// Signal suffixes: _q registered state; _a after the lookup's touch (age) or
// the fill's L4 step, _b after its L3 step, _c after the fill, _d next state.
// Between modules an array travels flat, entry e at [e*W +: W], and the L3
// masks in block order (own_*: bit b of slot t = slot t owns block b).
// The files, in dependency order: rtl/cpwc.f.
module cpwc #(
  parameter int unsigned L4Entries    = 2,   // power of two 1..512
  parameter int unsigned L3Entries    = 4,   // power of two, multiple of L4Entries
  parameter int unsigned L2Blocks     = 62,  // 1..256: mask width
  parameter int unsigned BlockEntries = 1,   // entries per block
  parameter int unsigned LookupCycles = 1,   // parallel compare latency
  parameter int unsigned MuxCycles    = 1,   // mask-select latency
  parameter bit          Lru          = 1'b1 // 1: LRU, 0: FIFO replacement
) (
  input  logic        clk_i,
  // the SVAs' `disable iff (!rst_ni)` is the only synchronous use
  /* verilator lint_off SYNCASYNCNET */
  input  logic        rst_ni,
  /* verilator lint_on SYNCASYNCNET */
  // lookup
  input  logic        lookup_valid_i,
  input  logic [63:0] lookup_va_i,
  input  logic [63:0] lookup_root_i,
  // fill (one walked path)
  input  logic        fill_valid_i,
  input  logic [2:0]  fill_levels_i,   // bit k-1: fill_base_lk_i valid
  input  logic [63:0] fill_va_i,
  input  logic [63:0] fill_base_l3_i,  // L3-table base (data of the L4 entry)
  input  logic [63:0] fill_base_l2_i,  // L2-table base (data of the L3 entry)
  input  logic [63:0] fill_base_l1_i,  // L1-table base (data of the L2 entry)
  // invalidation
  input  logic        inv_valid_i,
  input  logic        inv_all_i,
  input  logic [63:0] inv_lo_i,
  input  logic [63:0] inv_hi_i,
  // lookup result, LookupCycles + MuxCycles cycles after the request
  output logic        hit_valid_o,
  output logic [2:0]  hit_level_o,     // start level: 4 miss, 3, 2, 1
  output logic [63:0] hit_base_o       // table at the start level (root on a miss)
);

  localparam int unsigned TagW    = 9;
  localparam int unsigned BaseW   = 52;
  localparam int unsigned NB      = L2Blocks;
  localparam int unsigned BE      = BlockEntries;
  localparam int unsigned NE      = L2Blocks * BlockEntries;
  localparam int unsigned L3PerL4 = L3Entries / L4Entries;
  localparam int unsigned Lat     = LookupCycles + MuxCycles;
  localparam int unsigned RowW    = (NE > 1) ? NE - 1 : 1;  // a row of the age matrix

  // ---- storage (the bits the C model's accounting counts) -----------------
  // Mask bit NB-1-b of an L3 entry names block b, as in the C model.
  /* verilator coverage_off */
  logic [L4Entries-1:0] l4_valid_d;
  /* verilator coverage_on */
  logic [L4Entries-1:0] l4_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l4_tag_q  [L4Entries] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l4_base_q [L4Entries] /*verilator public_flat_rd*/;
  logic [L3Entries-1:0] l3_valid_d;
  /* verilator coverage_on */
  logic [L3Entries-1:0] l3_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l3_tag_q  [L3Entries] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l3_base_q [L3Entries] /*verilator public_flat_rd*/;
  logic [NB-1:0]        l3_mask_d [L3Entries];
  /* verilator coverage_on */
  logic [NB-1:0]        l3_mask_q [L3Entries] /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [NE-1:0]        l2_valid_d;
  /* verilator coverage_on */
  logic [NE-1:0]        l2_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l2_tag_q  [NE] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l2_base_q [NE] /*verilator public_flat_rd*/;
  /* verilator coverage_on */

  // mask <-> block order (bit b = block b)
  function automatic logic [NB-1:0] rev(input logic [NB-1:0] x);
    for (int unsigned i = 0; i < NB; i++) begin
      rev[i] = x[NB-1-i];
    end
  endfunction

  /* verilator coverage_off */
  logic [NB-1:0] own_q [L3Entries];  // L3 slot t owns block b: own_q[t][b]
  /* verilator coverage_on */
  for (genvar t = 0; t < L3Entries; t++) begin : gen_own_q
    assign own_q[t] = rev(l3_mask_q[t]);
  end

  // ---- the state, flat, for the phase modules ---------------------------------
  /* verilator coverage_off */
  logic [L4Entries*TagW-1:0]  l4_tag_q_flat;
  logic [L4Entries*BaseW-1:0] l4_base_q_flat;
  logic [L3Entries*TagW-1:0]  l3_tag_q_flat;
  logic [L3Entries*BaseW-1:0] l3_base_q_flat;
  logic [L3Entries*NB-1:0]    own_q_flat;
  logic [NE*TagW-1:0]         l2_tag_q_flat;
  logic [NE*BaseW-1:0]        l2_base_q_flat;
  /* verilator coverage_on */
  // Packed in always_comb loops: Verilator would join per-entry continuous
  // assigns into one concatenation, which it builds by copying the whole
  // vector once per entry (twice the simulation time at 62 entries).
  always_comb begin
    for (int unsigned s = 0; s < L4Entries; s++) begin
      l4_tag_q_flat[s*TagW +: TagW]    = l4_tag_q[s];
      l4_base_q_flat[s*BaseW +: BaseW] = l4_base_q[s];
    end
    for (int unsigned t = 0; t < L3Entries; t++) begin
      l3_tag_q_flat[t*TagW +: TagW]    = l3_tag_q[t];
      l3_base_q_flat[t*BaseW +: BaseW] = l3_base_q[t];
      own_q_flat[t*NB +: NB]           = own_q[t];
    end
    for (int unsigned k = 0; k < NE; k++) begin
      l2_tag_q_flat[k*TagW +: TagW]    = l2_tag_q[k];
      l2_base_q_flat[k*BaseW +: BaseW] = l2_base_q[k];
    end
  end

  // =========================================================================
  // 1. lookup, on the state at the start of the cycle (rtl/cpwc_lookup.sv)
  // =========================================================================
  /* verilator coverage_off */
  logic [1:0]       lk_code;
  logic [BaseW-1:0] lk_base;
  logic [NE-1:0]    touch_a;
  /* verilator coverage_on */

  cpwc_lookup #(
    .L4Entries    (L4Entries),
    .L3Entries    (L3Entries),
    .L2Blocks     (L2Blocks),
    .BlockEntries (BlockEntries),
    .Lru          (Lru)
  ) u_lookup (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .lookup_valid_i (lookup_valid_i),
    .lookup_va_i    (lookup_va_i),
    .l4_valid_q_i   (l4_valid_q),
    .l4_tag_q_i     (l4_tag_q_flat),
    .l4_base_q_i    (l4_base_q_flat),
    .l3_valid_q_i   (l3_valid_q),
    .l3_tag_q_i     (l3_tag_q_flat),
    .l3_base_q_i    (l3_base_q_flat),
    .own_q_i        (own_q_flat),
    .l2_valid_q_i   (l2_valid_q),
    .l2_tag_q_i     (l2_tag_q_flat),
    .l2_base_q_i    (l2_base_q_flat),
    .lk_code_o      (lk_code),
    .lk_base_o      (lk_base),
    .touch_a_o      (touch_a)
  );

  // ---- recency of the L2 entries: age matrix --------------------------------------
  // The C model stamps an entry from a global counter on every use (LRU) or
  // fill; only the order of the stamps of valid entries is observed. Row i
  // keeps, for every j > i, whether entry i was used before entry j:
  // NE*(NE-1)/2 flops. touch_a (the lookup's use) applies first, the fill's
  // touch_b after it; the fill's victim choice sees the order after touch_a
  // (age_a_rows: row i at [i*RowW +: RowW], its NE-1-i bits at the bottom).
  // No reset: an entry is always touched when it becomes valid.
  /* verilator coverage_off */
  logic [NE-1:0]     touch_b;
  logic [RowW-1:0]   age_a_row [NE];
  logic [NE*RowW-1:0] age_a_rows;
  /* verilator coverage_on */

  for (genvar i = 0; i < NE; i++) begin : gen_age
    if (i < NE - 1) begin : gen_up
      /* verilator coverage_off */
      logic [NE-2-i:0] age_q, age_a, age_d;
      /* verilator coverage_on */
      assign age_a = touch_a[NE-1:i+1] | (age_q & {(NE-1-i){!touch_a[i]}});
      assign age_d = touch_b[NE-1:i+1] | (age_a & {(NE-1-i){!touch_b[i]}});
      assign age_a_row[i] = RowW'(age_a);
      always_ff @(posedge clk_i) begin
        age_q <= age_d;
      end
    end
  end
  assign age_a_row[NE-1] = '0;
  always_comb begin
    for (int unsigned i = 0; i < NE; i++) begin
      age_a_rows[i*RowW +: RowW] = age_a_row[i];
    end
  end

  // =========================================================================
  // 2. fill (rtl/cpwc_fill.sv)
  // =========================================================================
  /* verilator coverage_off */
  logic [L4Entries-1:0]       l4_valid_a;
  logic [L3Entries-1:0]       l3_valid_b;
  logic [L3Entries*NB-1:0]    own_c;
  logic [NE-1:0]              l2_valid_c;
  logic [L4Entries*TagW-1:0]  l4_tag_d;
  logic [L4Entries*BaseW-1:0] l4_base_d;
  logic [L3Entries*TagW-1:0]  l3_tag_d;
  logic [L3Entries*BaseW-1:0] l3_base_d;
  logic [NE*TagW-1:0]         l2_tag_d;
  logic [NE*BaseW-1:0]        l2_base_d;
  /* verilator coverage_on */

  cpwc_fill #(
    .L4Entries    (L4Entries),
    .L3Entries    (L3Entries),
    .L2Blocks     (L2Blocks),
    .BlockEntries (BlockEntries),
    .Lru          (Lru)
  ) u_fill (
    .clk_i          (clk_i),
    .rst_ni         (rst_ni),
    .fill_valid_i   (fill_valid_i),
    .fill_levels_i  (fill_levels_i),
    .fill_va_i      (fill_va_i),
    .fill_base_l3_i (fill_base_l3_i),
    .fill_base_l2_i (fill_base_l2_i),
    .fill_base_l1_i (fill_base_l1_i),
    .l4_valid_q_i   (l4_valid_q),
    .l4_tag_q_i     (l4_tag_q_flat),
    .l4_base_q_i    (l4_base_q_flat),
    .l3_valid_q_i   (l3_valid_q),
    .l3_tag_q_i     (l3_tag_q_flat),
    .l3_base_q_i    (l3_base_q_flat),
    .own_q_i        (own_q_flat),
    .l2_valid_q_i   (l2_valid_q),
    .l2_tag_q_i     (l2_tag_q_flat),
    .l2_base_q_i    (l2_base_q_flat),
    .age_a_i        (age_a_rows),
    .l4_valid_a_o   (l4_valid_a),
    .l3_valid_b_o   (l3_valid_b),
    .own_c_o        (own_c),
    .l2_valid_c_o   (l2_valid_c),
    .l4_tag_d_o     (l4_tag_d),
    .l4_base_d_o    (l4_base_d),
    .l3_tag_d_o     (l3_tag_d),
    .l3_base_d_o    (l3_base_d),
    .l2_tag_d_o     (l2_tag_d),
    .l2_base_d_o    (l2_base_d),
    .touch_b_o      (touch_b)
  );

  // =========================================================================
  // 3. invalidation, after the fill (rtl/cpwc_inval.sv)
  // =========================================================================
  /* verilator coverage_off */
  logic [L3Entries*NB-1:0] own_d;
  /* verilator coverage_on */

  cpwc_inval #(
    .L4Entries    (L4Entries),
    .L3Entries    (L3Entries),
    .L2Blocks     (L2Blocks),
    .BlockEntries (BlockEntries)
  ) u_inval (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .inv_valid_i  (inv_valid_i),
    .inv_all_i    (inv_all_i),
    .inv_lo_i     (inv_lo_i),
    .inv_hi_i     (inv_hi_i),
    .l4_valid_a_i (l4_valid_a),
    .l4_tag_d_i   (l4_tag_d),
    .l3_valid_b_i (l3_valid_b),
    .own_c_i      (own_c),
    .l2_valid_c_i (l2_valid_c),
    .l4_valid_d_o (l4_valid_d),
    .l3_valid_d_o (l3_valid_d),
    .own_d_o      (own_d),
    .l2_valid_d_o (l2_valid_d)
  );

  for (genvar t = 0; t < L3Entries; t++) begin : gen_mask_d
    assign l3_mask_d[t] = rev(own_d[t*NB +: NB]);
  end

  // ---- state registers --------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      l4_valid_q <= '0;
      l3_valid_q <= '0;
      l2_valid_q <= '0;
    end else begin
      l4_valid_q <= l4_valid_d;
      l3_valid_q <= l3_valid_d;
      l2_valid_q <= l2_valid_d;
    end
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_mask_q
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        l3_mask_q[t] <= '0;
      end else begin
        l3_mask_q[t] <= l3_mask_d[t];
      end
    end
  end

  // Tags and bases need no reset: they are qualified by the valid bits.
  for (genvar s = 0; s < L4Entries; s++) begin : gen_l4_q
    always_ff @(posedge clk_i) begin
      l4_tag_q[s]  <= l4_tag_d[s*TagW +: TagW];
      l4_base_q[s] <= l4_base_d[s*BaseW +: BaseW];
    end
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_l3_q
    always_ff @(posedge clk_i) begin
      l3_tag_q[t]  <= l3_tag_d[t*TagW +: TagW];
      l3_base_q[t] <= l3_base_d[t*BaseW +: BaseW];
    end
  end
  for (genvar k = 0; k < NE; k++) begin : gen_l2_q
    always_ff @(posedge clk_i) begin
      l2_tag_q[k]  <= l2_tag_d[k*TagW +: TagW];
      l2_base_q[k] <= l2_base_d[k*BaseW +: BaseW];
    end
  end

  // ---- result pipeline ------------------------------------------------------------------
  pwc_pipe #(
    .Lat (Lat)
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

`ifndef SYNTHESIS
  // ---- assertions (one cycle) ----------------------------------------------------------
  // Invariants of the registered state; each phase module checks its own.
  a_out_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
      hit_valid_o |-> (hit_level_o >= 3'd1 && hit_level_o <= 3'd4));
  for (genvar b = 0; b < NB; b++) begin : gen_sva_block
    /* verilator coverage_off */
    logic [L3Entries-1:0] owners;
    /* verilator coverage_on */
    for (genvar t = 0; t < L3Entries; t++) begin : gen_owner
      assign owners[t] = own_q[t][b];
    end
    // a block has at most one owner, and only valid L3 entries own blocks
    a_owner_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
        $onehot0(owners) && ((owners & ~l3_valid_q) == '0));
    // valid L2 entries live in owned blocks only
    a_l2_owned: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (|l2_valid_q[b*BE +: BE]) |-> (|owners));
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_sva_l3
    // an L3 entry hangs under the L4 entry of its slot
    a_l3_under_l4: assert property (@(posedge clk_i) disable iff (!rst_ni)
        l3_valid_q[t] |-> l4_valid_q[t / L3PerL4]);
  end

  // ---- cover points (across the phases) -----------------------------------------------------
  c_lookup_fill_inv: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && fill_valid_i && inv_valid_i);
  c_inv_squash_hit_in_flight: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && lookup_valid_i && lk_code != 2'd3);
`endif

endmodule
