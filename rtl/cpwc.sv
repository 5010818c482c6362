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
  localparam int unsigned L4W     = (L4Entries > 1) ? $clog2(L4Entries) : 1;
  localparam int unsigned L3W     = (L3Entries > 1) ? $clog2(L3Entries) : 1;
  localparam int unsigned Lat     = LookupCycles + MuxCycles;
  localparam logic [8:0]  L4Mask  = 9'(L4Entries - 1);
  localparam logic [8:0]  L3Mask  = 9'(L3PerL4 - 1);

  // ---- storage (the bits the C model's accounting counts) -----------------
  // Mask bit NB-1-b of an L3 entry names block b, as in the C model.
  /* verilator coverage_off */
  logic [L4Entries-1:0] l4_valid_d;
  /* verilator coverage_on */
  logic [L4Entries-1:0] l4_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l4_tag_d  [L4Entries];
  logic [TagW-1:0]      l4_tag_q  [L4Entries] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l4_base_d [L4Entries];
  logic [BaseW-1:0]     l4_base_q [L4Entries] /*verilator public_flat_rd*/;
  logic [L3Entries-1:0] l3_valid_d;
  /* verilator coverage_on */
  logic [L3Entries-1:0] l3_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l3_tag_d  [L3Entries];
  logic [TagW-1:0]      l3_tag_q  [L3Entries] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l3_base_d [L3Entries];
  logic [BaseW-1:0]     l3_base_q [L3Entries] /*verilator public_flat_rd*/;
  logic [NB-1:0]        l3_mask_d [L3Entries];
  /* verilator coverage_on */
  logic [NB-1:0]        l3_mask_q [L3Entries] /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [NE-1:0]        l2_valid_d;
  /* verilator coverage_on */
  logic [NE-1:0]        l2_valid_q /*verilator public_flat_rd*/;
  /* verilator coverage_off */
  logic [TagW-1:0]      l2_tag_d  [NE];
  logic [TagW-1:0]      l2_tag_q  [NE] /*verilator public_flat_rd*/;
  logic [BaseW-1:0]     l2_base_d [NE];
  logic [BaseW-1:0]     l2_base_q [NE] /*verilator public_flat_rd*/;
  /* verilator coverage_on */

  // mask <-> block order (bit b = block b)
  function automatic logic [NB-1:0] rev(input logic [NB-1:0] x);
    for (int unsigned i = 0; i < NB; i++) begin
      rev[i] = x[NB-1-i];
    end
  endfunction

  // entries above i (bits i+1 .. NE-1)
  function automatic logic [NE-1:0] above(input int unsigned i);
    above = {NE{1'b1}} << (i + 1);
  endfunction

  /* verilator coverage_off */
  logic [NB-1:0] own_q [L3Entries];  // L3 slot t owns block b: own_q[t][b]
  /* verilator coverage_on */
  for (genvar t = 0; t < L3Entries; t++) begin : gen_own_q
    assign own_q[t] = rev(l3_mask_q[t]);
  end

  // ---- slot numbers ---------------------------------------------------------
  function automatic logic [L4W-1:0] slot4(input logic [8:0] i4);
    slot4 = L4W'(i4 & L4Mask);
  endfunction
  function automatic logic [L3W-1:0] slot3(input logic [8:0] i4, input logic [8:0] i3);
    /* verilator coverage_off */
    logic [17:0] hi, lo;
    /* verilator coverage_on */
    hi    = {9'd0, i4 & L4Mask};
    lo    = {9'd0, i3 & L3Mask};
    slot3 = L3W'((hi << $clog2(L3PerL4)) | lo);
  endfunction

  // =========================================================================
  // 1. lookup, on the state at the start of the cycle
  // =========================================================================
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
  logic [NE-1:0]        touch_a;
  /* verilator coverage_on */

  assign lk_i4    = lookup_va_i[47:39];
  assign lk_i3    = lookup_va_i[38:30];
  assign lk_i2    = lookup_va_i[29:21];
  assign lk_canon = (&lookup_va_i[63:47]) | ~(|lookup_va_i[63:47]);
  assign lk_s4    = slot4(lk_i4);
  assign lk_s3    = slot3(lk_i4, lk_i3);

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

  assign touch_a = (Lru && lookup_valid_i && lk_canon && lk_l2_hit) ? lk_ent_hit : '0;

  // ---- recency of the L2 entries: age matrix --------------------------------------
  // The C model stamps an entry from a global counter on every use (LRU) or
  // fill; only the order of the stamps of valid entries is observed. Row i
  // keeps, for every j > i, whether entry i was used before entry j:
  // NE*(NE-1)/2 flops. touch_a (the lookup's use) applies first, the fill's
  // touch_b after it; the fill's victim choice sees the order after touch_a.
  // No reset: an entry is always touched when it becomes valid.
  /* verilator coverage_off */
  logic [NE-1:0] touch_b;
  /* verilator coverage_on */

  for (genvar i = 0; i < NE; i++) begin : gen_age
    if (i < NE - 1) begin : gen_up
      /* verilator coverage_off */
      logic [NE-2-i:0] age_q, age_a, age_d;
      /* verilator coverage_on */
      assign age_a = touch_a[NE-1:i+1] | (age_q & {(NE-1-i){!touch_a[i]}});
      assign age_d = touch_b[NE-1:i+1] | (age_a & {(NE-1-i){!touch_b[i]}});
      always_ff @(posedge clk_i) begin
        age_q <= age_d;
      end
    end
  end

  // The whole matrix, one bit per pair, for blocks of more than one entry
  // (the block stamps and the oldest entry of a block, section 2b). Blocks of
  // one entry (the paper's geometry) choose their victim from the rows of the
  // triangle instead (gen_vic_entry), the same function with word-wide terms.
  if (BE > 1) begin : gen_mat
    /* verilator coverage_off */
    logic [NE-1:0] older [NE];   // older[i][j]: entry i older than j (after touch_a)
    /* verilator coverage_on */
    for (genvar i = 0; i < NE; i++) begin : gen_row
      for (genvar j = 0; j < NE; j++) begin : gen_col
        if (j == i) begin : gen_diag
          assign older[i][j] = 1'b0;
        end else if (j > i) begin : gen_upper
          assign older[i][j] = gen_age[i].gen_up.age_a[j-i-1];
        end else begin : gen_lower
          assign older[i][j] = !gen_age[j].gen_up.age_a[i-j-1];
        end
      end
    end
  end

  // =========================================================================
  // 2. fill
  // =========================================================================
  /* verilator coverage_off */
  logic [8:0]       f_i4, f_i3, f_i2;
  logic [L4W-1:0]   f_s4;
  logic [L3W-1:0]   f_s3;
  logic [BaseW-1:0] f_b3, f_b2, f_b1;
  /* verilator coverage_on */

  assign f_i4 = fill_va_i[47:39];
  assign f_i3 = fill_va_i[38:30];
  assign f_i2 = fill_va_i[29:21];
  assign f_s4 = slot4(f_i4);
  assign f_s3 = slot3(f_i4, f_i3);
  assign f_b3 = fill_base_l3_i[63:12];
  assign f_b2 = fill_base_l2_i[63:12];
  assign f_b1 = fill_base_l1_i[63:12];

  // -- 2a. L4 entry. Writing over a valid entry drops the L3 slots under it
  //        and the blocks they own.
  /* verilator coverage_off */
  logic [L4Entries-1:0] f_dec4, f_l4_tag_eq, f_l4_wr, f_l4_evict, f_l4_oks;
  logic [L4Entries-1:0] l4_valid_a;
  logic [L3Entries-1:0] f_kill3_a, l3_valid_a;
  logic [NB-1:0]        own_a [L3Entries];
  logic [NB-1:0]        f_killb_a;
  logic                 f_l4_ok;
  /* verilator coverage_on */

  for (genvar s = 0; s < L4Entries; s++) begin : gen_f_l4
    assign f_dec4[s]      = (f_s4 == L4W'(s));
    assign f_l4_tag_eq[s] = (l4_tag_q[s] == f_i4);
    assign f_l4_wr[s]     = fill_valid_i && fill_levels_i[2] && f_dec4[s] &&
                            !(l4_valid_q[s] && f_l4_tag_eq[s] && (l4_base_q[s] == f_b3));
    assign f_l4_evict[s]  = f_l4_wr[s] && l4_valid_q[s];
    assign l4_valid_a[s]  = l4_valid_q[s] || f_l4_wr[s];
    assign f_l4_oks[s]    = f_dec4[s] && l4_valid_a[s] && (f_l4_wr[s] || f_l4_tag_eq[s]);
    assign l4_tag_d[s]    = f_l4_wr[s] ? f_i4 : l4_tag_q[s];
    assign l4_base_d[s]   = f_l4_wr[s] ? f_b3 : l4_base_q[s];
  end
  assign f_l4_ok = |f_l4_oks;

  for (genvar t = 0; t < L3Entries; t++) begin : gen_f_kill3_a
    assign f_kill3_a[t]  = f_l4_evict[t / L3PerL4] && l3_valid_q[t];
    assign l3_valid_a[t] = l3_valid_q[t] && !f_kill3_a[t];
    assign own_a[t]      = f_kill3_a[t] ? '0 : own_q[t];
  end

  // -- 2b. L3 entry. Writing over a valid entry drops the blocks it owns.
  /* verilator coverage_off */
  logic [L3Entries-1:0] f_dec3, f_l3_tag_eq, f_l3_wr, f_l3_evict, f_l3_oks;
  logic [L3Entries-1:0] l3_valid_b;
  logic [NB-1:0]        own_b [L3Entries];
  logic [NB-1:0]        f_killb_b, f_own;
  logic                 f_l3_ok;
  /* verilator coverage_on */

  for (genvar t = 0; t < L3Entries; t++) begin : gen_f_l3
    assign f_dec3[t]      = (f_s3 == L3W'(t));
    assign f_l3_tag_eq[t] = (l3_tag_q[t] == f_i3);
    assign f_l3_wr[t]     = fill_valid_i && fill_levels_i[1] && f_l4_ok && f_dec3[t] &&
                            !(l3_valid_a[t] && f_l3_tag_eq[t] && (l3_base_q[t] == f_b2));
    assign f_l3_evict[t]  = f_l3_wr[t] && l3_valid_a[t];
    assign l3_valid_b[t]  = l3_valid_a[t] || f_l3_wr[t];
    assign own_b[t]       = f_l3_wr[t] ? '0 : own_a[t];
    assign f_l3_oks[t]    = f_dec3[t] && l3_valid_b[t] && (f_l3_wr[t] || f_l3_tag_eq[t]);
    assign l3_tag_d[t]    = f_l3_wr[t] ? f_i3 : l3_tag_q[t];
    assign l3_base_d[t]   = f_l3_wr[t] ? f_b2 : l3_base_q[t];
  end
  assign f_l3_ok = |f_l3_oks;

  always_comb begin
    f_killb_a = '0;
    f_killb_b = '0;
    f_own     = '0;
    for (int unsigned t = 0; t < L3Entries; t++) begin
      f_killb_a = f_killb_a | (own_q[t] & {NB{f_kill3_a[t]}});
      f_killb_b = f_killb_b | (own_a[t] & {NB{f_l3_evict[t]}});
      f_own     = f_own | (own_b[t] & {NB{f_dec3[t]}});
    end
  end

  // -- 2c. L2 entry of the fill's L3 slot: (0) the path is there: new base;
  //        (1) a free entry in a block the slot owns; (2) the lowest block
  //        nobody owns; (3) the least recently used (filled) block: its oldest
  //        entry if the slot owns it, else the block is taken over.
  /* verilator coverage_off */
  logic          f_l2_en;
  logic [NE-1:0] l2_valid_b, f_exist, f_free, f_first_free, f_oldest, f_target;
  logic [NB-1:0] f_unowned, f_first_unowned, f_victim, f_claim, f_drop;
  logic          f_have_exist, f_have_free, f_have_unowned, f_victim_own;
  /* verilator coverage_on */

  assign f_l2_en = fill_valid_i && fill_levels_i[0] && f_l4_ok && f_l3_ok;

  for (genvar k = 0; k < NE; k++) begin : gen_f_l2
    assign l2_valid_b[k] = l2_valid_q[k] && !f_killb_a[k / BE] && !f_killb_b[k / BE];
    assign f_exist[k]    = f_l2_en && l2_valid_b[k] && f_own[k / BE] && (l2_tag_q[k] == f_i2);
    assign f_free[k]     = !l2_valid_b[k] && f_own[k / BE];
    // oldest entry of its block (all valid when it is used)
    /* verilator coverage_off */
    logic [BE-1:0] newer;
    /* verilator coverage_on */
    for (genvar w = 0; w < BE; w++) begin : gen_w
      if ((k / BE) * BE + w == k) begin : gen_self
        assign newer[w] = 1'b1;
      end else begin : gen_other
        assign newer[w] = gen_mat.older[k][(k / BE) * BE + w];
      end
    end
    assign f_oldest[k] = &newer;
  end

  always_comb begin
    f_unowned = '1;
    for (int unsigned t = 0; t < L3Entries; t++) begin
      f_unowned = f_unowned & ~own_b[t];
    end
  end

  if (BE > 1) begin : gen_vic_block
    /* verilator coverage_off */
    logic [NB-1:0] f_bs_lt [NB];   // f_bs_lt[a][b]: block a's stamp < block b's stamp
    /* verilator coverage_on */
    // Block stamp (C: largest stamp of the block's valid entries, 0 if none):
    // block a is older than block b when some valid entry of b is younger than
    // every valid entry of a.
    for (genvar a = 0; a < NB; a++) begin : gen_bs_a
      for (genvar b = 0; b < NB; b++) begin : gen_bs_b
        if (a == b) begin : gen_same
          assign f_bs_lt[a][b] = 1'b0;
        end else begin : gen_pair
          /* verilator coverage_off */
          logic [BE-1:0] younger;  // entry wj of b younger than all valid entries of a
          /* verilator coverage_on */
          for (genvar wj = 0; wj < BE; wj++) begin : gen_j
            /* verilator coverage_off */
            logic [BE-1:0] beats;
            /* verilator coverage_on */
            for (genvar wi = 0; wi < BE; wi++) begin : gen_i
              assign beats[wi] = !l2_valid_b[a*BE + wi] || gen_mat.older[a*BE + wi][b*BE + wj];
            end
            assign younger[wj] = l2_valid_b[b*BE + wj] && (&beats);
          end
          assign f_bs_lt[a][b] = |younger;
        end
      end
    end

    // victim: the lowest-numbered block with the smallest stamp
    for (genvar b = 0; b < NB; b++) begin : gen_victim
      /* verilator coverage_off */
      logic [NB-1:0] wins;
      /* verilator coverage_on */
      for (genvar a = 0; a < NB; a++) begin : gen_a
        if (a < b) begin : gen_lower
          assign wins[a] = f_bs_lt[b][a];
        end else if (a > b) begin : gen_higher
          assign wins[a] = !f_bs_lt[a][b];
        end else begin : gen_self
          assign wins[a] = 1'b1;
        end
      end
      assign f_victim[b] = &wins;
    end

  end else begin : gen_vic_entry
    // One entry per block: a block's stamp is its entry's, 0 if invalid. With
    // v = l2_valid_b and A(a,b) = row[a][b] (a < b: entry a used before entry
    // b), the pairwise rule above becomes, for the victim b:
    //   every a < b: v[a] && !(v[b] && A(a,b))   (b's stamp below a's)
    //   every a > b: !v[b] || (v[a] && A(b,a))   (a's stamp not below b's)
    // The first is accumulated over the rows a (lo), the second reduces row b
    // (hi): NE word-wide terms each instead of NE*NE single-bit ones.
    /* verilator coverage_off */
    logic [NE-1:0] row [NE];   // row[a][b], b > a: entry a older than b; 0 at b <= a
    logic [NE-1:0] lo, hi;
    /* verilator coverage_on */
    for (genvar a = 0; a < NE; a++) begin : gen_row
      if (a < NE - 1) begin : gen_up
        assign row[a] = {gen_age[a].gen_up.age_a, (a + 1)'(0)};
      end else begin : gen_last
        assign row[a] = '0;
      end
    end
    always_comb begin
      lo = '1;
      for (int unsigned a = 0; a < NE; a++) begin
        lo = lo & (~above(a) | ({NE{l2_valid_b[a]}} & ~(l2_valid_b & row[a])));
      end
      for (int unsigned b = 0; b < NE; b++) begin
        hi[b] = !l2_valid_b[b] || &((l2_valid_b & row[b]) | ~above(b));
      end
    end
    assign f_victim = lo & hi;
  end

  assign f_first_free    = f_free & (~f_free + 1'b1);
  assign f_first_unowned = f_unowned & (~f_unowned + 1'b1);
  assign f_have_exist    = |f_exist;
  assign f_have_free     = |f_free;
  assign f_have_unowned  = |f_unowned;
  assign f_victim_own    = |(f_victim & f_own);

  always_comb begin
    f_claim  = '0;
    f_drop   = '0;
    f_target = '0;
    if (f_l2_en && !f_have_exist) begin
      if (f_have_free) begin
        f_target = f_first_free;
      end else if (f_have_unowned) begin
        f_claim = f_first_unowned;
      end else if (f_victim_own) begin
        for (int unsigned k = 0; k < NE; k++) begin
          f_target[k] = f_victim[k / BE] && f_oldest[k];
        end
      end else begin
        f_claim = f_victim;
        f_drop  = f_victim;
      end
      // a claimed block is filled from its first entry
      for (int unsigned b = 0; b < NB; b++) begin
        f_target[b*BE] = f_target[b*BE] | f_claim[b];
      end
    end
  end

  assign touch_b = f_target | ((Lru && f_l2_en) ? f_exist : '0);

  for (genvar k = 0; k < NE; k++) begin : gen_l2_wr
    assign l2_tag_d[k]  = f_target[k] ? f_i2 : l2_tag_q[k];
    assign l2_base_d[k] = (f_target[k] || f_exist[k]) ? f_b1 : l2_base_q[k];
  end

  // state after the fill
  /* verilator coverage_off */
  logic [NE-1:0] l2_valid_c;
  logic [NB-1:0] own_c [L3Entries];
  /* verilator coverage_on */
  for (genvar k = 0; k < NE; k++) begin : gen_l2_c
    assign l2_valid_c[k] = (l2_valid_b[k] && !f_drop[k / BE]) || f_target[k];
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_own_c
    assign own_c[t] = (own_b[t] & ~f_drop) | (f_claim & {NB{f_dec3[t]}});
  end

  // =========================================================================
  // 3. invalidation, after the fill. A range drops every L4 entry whose
  //    512 GiB region meets [lo, hi] with everything under it; the C model's
  //    L3 and L2 region checks can only hit entries under such an L4 entry
  //    (their regions lie inside its region), see docs/rtl_pwc.md.
  // =========================================================================
  /* verilator coverage_off */
  logic                 inv_range_ok, inv_every;
  logic [8:0]           inv_lo4, inv_hi4;
  logic [L4Entries-1:0] inv_l4;
  logic [L3Entries-1:0] inv_l3;
  logic [NB-1:0]        inv_blk;
  /* verilator coverage_on */

  assign inv_range_ok = inv_lo_i[47:0] <= inv_hi_i[47:0];
  assign inv_every    = inv_valid_i && (inv_all_i || !inv_range_ok);
  assign inv_lo4      = inv_lo_i[47:39];
  assign inv_hi4      = inv_hi_i[47:39];

  for (genvar s = 0; s < L4Entries; s++) begin : gen_inv_l4
    assign inv_l4[s] = inv_every ||
                       (inv_valid_i && l4_valid_a[s] &&
                        (l4_tag_d[s] >= inv_lo4) && (l4_tag_d[s] <= inv_hi4));
    assign l4_valid_d[s] = l4_valid_a[s] && !inv_l4[s];
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_inv_l3
    assign inv_l3[t]     = inv_l4[t / L3PerL4];
    assign l3_valid_d[t] = l3_valid_b[t] && !inv_l3[t];
    assign l3_mask_d[t]  = inv_l3[t] ? '0 : rev(own_c[t]);
  end
  always_comb begin
    inv_blk = '0;
    for (int unsigned t = 0; t < L3Entries; t++) begin
      inv_blk = inv_blk | (own_c[t] & {NB{inv_l3[t]}});
    end
  end
  // An L2 entry goes with its block's owner. Invalidate-all needs no term of
  // its own here: it drops every L3 slot, and every block holding a valid
  // entry is owned by a valid L3 slot (a_l2_owned), so inv_blk covers it.
  for (genvar k = 0; k < NE; k++) begin : gen_inv_l2
    assign l2_valid_d[k] = l2_valid_c[k] && !inv_blk[k / BE];
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
      l4_tag_q[s]  <= l4_tag_d[s];
      l4_base_q[s] <= l4_base_d[s];
    end
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_l3_q
    always_ff @(posedge clk_i) begin
      l3_tag_q[t]  <= l3_tag_d[t];
      l3_base_q[t] <= l3_base_d[t];
    end
  end
  for (genvar k = 0; k < NE; k++) begin : gen_l2_q
    always_ff @(posedge clk_i) begin
      l2_tag_q[k]  <= l2_tag_d[k];
      l2_base_q[k] <= l2_base_d[k];
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

  // Address bits no entry depends on.
  logic unused_addr;
  assign unused_addr = ^{lookup_va_i[20:0], fill_va_i[63:48], fill_va_i[20:0],
                         fill_base_l3_i[11:0], fill_base_l2_i[11:0], fill_base_l1_i[11:0],
                         inv_lo_i[63:48], inv_lo_i[38:0], inv_hi_i[63:48], inv_hi_i[38:0]};

`ifndef SYNTHESIS
  // ---- assertions (one cycle) ----------------------------------------------------------
  // At most one L2 entry hits among the blocks the L3 entry selects (fills
  // keep an owner's tags unique); L4 and L3 are direct-mapped (one slot each).
  a_l2_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_ent_hit));
  a_l4_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_l4_hits));
  a_l3_hit_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(lk_l3_hits));
  a_fill_exist_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_exist));
  a_fill_target_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_target));
  // exactly one victim block (block stamps are totally ordered, ties go low)
  a_victim_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot(f_victim));
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
    c_block_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
        lookup_valid_i && lk_l2_hit && (|lk_ent_hit[b*BE +: BE]));
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_sva_l3
    // an L3 entry hangs under the L4 entry of its slot
    a_l3_under_l4: assert property (@(posedge clk_i) disable iff (!rst_ni)
        l3_valid_q[t] |-> l4_valid_q[t / L3PerL4]);
  end

  // ---- cover points -------------------------------------------------------------------------
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
  // fills
  c_l4_replace: cover property (@(posedge clk_i) disable iff (!rst_ni) |f_l4_evict);
  c_l4_replace_drops_l3: cover property (@(posedge clk_i) disable iff (!rst_ni) |f_kill3_a);
  c_l3_replace: cover property (@(posedge clk_i) disable iff (!rst_ni) |f_l3_evict);
  c_l3_replace_drops_blocks: cover property (@(posedge clk_i) disable iff (!rst_ni)
      |f_killb_b);
  c_fill_exist: cover property (@(posedge clk_i) disable iff (!rst_ni) f_have_exist);
  c_fill_free: cover property (@(posedge clk_i) disable iff (!rst_ni)
      f_l2_en && !f_have_exist && f_have_free);
  c_fill_claim_unowned: cover property (@(posedge clk_i) disable iff (!rst_ni)
      f_l2_en && !f_have_exist && !f_have_free && f_have_unowned);
  c_fill_evict_own: cover property (@(posedge clk_i) disable iff (!rst_ni)
      f_l2_en && !f_have_exist && !f_have_free && !f_have_unowned && f_victim_own);
  c_fill_takeover: cover property (@(posedge clk_i) disable iff (!rst_ni)
      |f_drop);
  c_lookup_fill_inv: cover property (@(posedge clk_i) disable iff (!rst_ni)
      lookup_valid_i && fill_valid_i && inv_valid_i);
  // invalidation
  c_inv_all: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && inv_all_i);
  c_inv_range_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_every && (|(inv_l4 & l4_valid_a)));
  c_inv_range_miss: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_every && !(|(inv_l4 & l4_valid_a)));
  c_inv_range_reversed: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_all_i && !inv_range_ok);
  c_inv_squash_hit_in_flight: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && lookup_valid_i && lk_code != 2'd3);
`endif

endmodule
