// Copyright gmmu contributors.
// cpwc_fill: phase 2 of the CPWC's cycle (rtl/cpwc.sv), the fill of one
// walked path, after the lookup: (a) the L4 entry, whose replacement drops the
// L3 slots under it and their blocks; (b) the L3 entry, whose replacement
// drops its blocks; (c) the L2 entry in a block the L3 slot owns, a free
// block, or the least recently used block (its oldest entry, or taken over).
// The victim choice sees the recency after the lookup's touch (age_a_i).
// Hands the invalidation the state after the fill (valid bits, tags,
// ownership), the registers the next tags and bases, and the recency the
// fill's touch (touch_b_o). Combinational; the registers are in rtl/cpwc.sv.
//
// Flat ports carry one field per entry, entry e at [e*W +: W]; own_*: the L3
// masks in block order (bit b of slot t: slot t owns block b). age_a_i holds
// the rows of the age matrix's upper triangle (rtl/cpwc.sv, gen_age), row i
// at [i*(NE-1) +: NE-1], NE = L2Blocks*BlockEntries: bit j-i-1 = "entry i
// used before entry j" for j > i; the upper i bits of row i are 0.
module cpwc_fill #(
  parameter int unsigned L4Entries    = 2,
  parameter int unsigned L3Entries    = 4,
  parameter int unsigned L2Blocks     = 62,
  parameter int unsigned BlockEntries = 1,
  parameter bit          Lru          = 1'b1
) (
  /* verilator coverage_off */
  input  logic                                clk_i,   // assertions only
  input  logic                                rst_ni,
  input  logic                                fill_valid_i,
  input  logic [2:0]                          fill_levels_i,
  input  logic [63:0]                         fill_va_i,
  input  logic [63:0]                         fill_base_l3_i,
  input  logic [63:0]                         fill_base_l2_i,
  input  logic [63:0]                         fill_base_l1_i,
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
  // age matrix after the lookup's touch, one row of NE-1 bits per entry
  input  logic [L2Blocks*BlockEntries*((L2Blocks*BlockEntries > 1) ?
                                       L2Blocks*BlockEntries-1 : 1)-1:0] age_a_i,
  // state after the fill: valid bits and ownership (to the invalidation)
  output logic [L4Entries-1:0]                l4_valid_a_o,
  output logic [L3Entries-1:0]                l3_valid_b_o,
  output logic [L3Entries*L2Blocks-1:0]       own_c_o,
  output logic [L2Blocks*BlockEntries-1:0]    l2_valid_c_o,
  // next tags and bases (to the registers; the L4 tags also to the invalidation)
  output logic [L4Entries*9-1:0]              l4_tag_d_o,
  output logic [L4Entries*52-1:0]             l4_base_d_o,
  output logic [L3Entries*9-1:0]              l3_tag_d_o,
  output logic [L3Entries*52-1:0]             l3_base_d_o,
  output logic [L2Blocks*BlockEntries*9-1:0]  l2_tag_d_o,
  output logic [L2Blocks*BlockEntries*52-1:0] l2_base_d_o,
  // the entries the fill uses (written, or an existing path refilled)
  output logic [L2Blocks*BlockEntries-1:0]    touch_b_o
  /* verilator coverage_on */
);

  localparam int unsigned TagW    = 9;
  localparam int unsigned BaseW   = 52;
  localparam int unsigned NB      = L2Blocks;
  localparam int unsigned BE      = BlockEntries;
  localparam int unsigned NE      = L2Blocks * BlockEntries;
  localparam int unsigned L3PerL4 = L3Entries / L4Entries;
  localparam int unsigned L4W     = (L4Entries > 1) ? $clog2(L4Entries) : 1;
  localparam int unsigned L3W     = (L3Entries > 1) ? $clog2(L3Entries) : 1;
  localparam int unsigned RowW    = (NE > 1) ? NE - 1 : 1;

  // entries above i (bits i+1 .. NE-1)
  function automatic logic [NE-1:0] above(input int unsigned i);
    above = {NE{1'b1}} << (i + 1);
  endfunction

  // ---- the state, one array element per entry ------------------------------
  /* verilator coverage_off */
  logic [L4Entries-1:0] l4_valid_q;
  logic [TagW-1:0]      l4_tag_q  [L4Entries];
  logic [BaseW-1:0]     l4_base_q [L4Entries];
  logic [TagW-1:0]      l4_tag_d  [L4Entries];
  logic [BaseW-1:0]     l4_base_d [L4Entries];
  logic [L3Entries-1:0] l3_valid_q;
  logic [TagW-1:0]      l3_tag_q  [L3Entries];
  logic [BaseW-1:0]     l3_base_q [L3Entries];
  logic [TagW-1:0]      l3_tag_d  [L3Entries];
  logic [BaseW-1:0]     l3_base_d [L3Entries];
  logic [NB-1:0]        own_q     [L3Entries];  // L3 slot t owns block b: own_q[t][b]
  logic [NE-1:0]        l2_valid_q;
  logic [TagW-1:0]      l2_tag_q  [NE];
  logic [BaseW-1:0]     l2_base_q [NE];
  logic [TagW-1:0]      l2_tag_d  [NE];
  logic [BaseW-1:0]     l2_base_d [NE];
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
  // Packed in always_comb loops, as rtl/cpwc.sv explains (Verilator speed).
  always_comb begin
    for (int unsigned s = 0; s < L4Entries; s++) begin
      l4_tag_d_o[s*TagW +: TagW]    = l4_tag_d[s];
      l4_base_d_o[s*BaseW +: BaseW] = l4_base_d[s];
    end
    for (int unsigned t = 0; t < L3Entries; t++) begin
      l3_tag_d_o[t*TagW +: TagW]    = l3_tag_d[t];
      l3_base_d_o[t*BaseW +: BaseW] = l3_base_d[t];
      own_c_o[t*NB +: NB]           = own_c[t];
    end
    for (int unsigned k = 0; k < NE; k++) begin
      l2_tag_d_o[k*TagW +: TagW]    = l2_tag_d[k];
      l2_base_d_o[k*BaseW +: BaseW] = l2_base_d[k];
    end
  end

  // ---- recency: the rows of the age matrix (after the lookup's touch) ---------
  for (genvar i = 0; i < NE; i++) begin : gen_age
    if (i < NE - 1) begin : gen_up
      /* verilator coverage_off */
      logic [NE-2-i:0] age_a;   // bit j-i-1: entry i used before entry j
      /* verilator coverage_on */
      assign age_a = age_a_i[i*RowW +: NE-1-i];
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
  cpwc_slot #(
    .L4Entries (L4Entries),
    .L3Entries (L3Entries)
  ) u_slot (
    .i4_i (f_i4),
    .i3_i (f_i3),
    .s4_o (f_s4),
    .s3_o (f_s3)
  );
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

  /* verilator coverage_off */
  logic [NE-1:0] touch_b;
  /* verilator coverage_on */
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

  // ---- outputs ---------------------------------------------------------------
  assign l4_valid_a_o = l4_valid_a;
  assign l3_valid_b_o = l3_valid_b;
  assign l2_valid_c_o = l2_valid_c;
  assign touch_b_o    = touch_b;
  // the rows' upper bits (row i has NE-1-i bits)
  /* verilator coverage_off */
  logic [NE-1:0] unused_age;
  /* verilator coverage_on */
  for (genvar i = 0; i < NE; i++) begin : gen_unused_age
    if (i > 0) begin : gen_pad
      assign unused_age[i] = ^age_a_i[i*RowW + (NE-1-i) +: i];
    end else begin : gen_none
      assign unused_age[i] = 1'b0;
    end
  end

  // Address bits no entry depends on.
  /* verilator coverage_off */
  logic unused_addr;
  assign unused_addr = ^{fill_va_i[63:48], fill_va_i[20:0],
                         fill_base_l3_i[11:0], fill_base_l2_i[11:0], fill_base_l1_i[11:0]};
  /* verilator coverage_on */

`ifndef SYNTHESIS
  // ---- assertions (one cycle) ------------------------------------------------
  a_fill_exist_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_exist));
  a_fill_target_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot0(f_target));
  // exactly one victim block (block stamps are totally ordered, ties go low)
  a_victim_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $onehot(f_victim));

  // ---- cover points ------------------------------------------------------------
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
`endif

endmodule
