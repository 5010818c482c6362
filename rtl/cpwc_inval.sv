// Copyright gmmu contributors.
// cpwc_inval: phase 3 of the CPWC's cycle (rtl/cpwc.sv), the invalidation,
// after the fill. A range drops every L4 entry whose 512 GiB region meets
// [lo, hi] with everything under it; the C model's L3 and L2 region checks
// can only hit entries under such an L4 entry (their regions lie inside its
// region), see docs/rtl_pwc.md. Invalidate-all, and a reversed range (the
// model's "invalidate all"), drop every entry. Takes the state the fill left
// (rtl/cpwc_fill.sv) and hands the registers the next valid bits and
// ownership. Combinational; the registers are in rtl/cpwc.sv.
//
// Flat ports carry one field per entry, entry e at [e*W +: W]; own_*: the L3
// masks in block order (bit b of slot t: slot t owns block b).
module cpwc_inval #(
  parameter int unsigned L4Entries    = 2,
  parameter int unsigned L3Entries    = 4,
  parameter int unsigned L2Blocks     = 62,
  parameter int unsigned BlockEntries = 1
) (
  /* verilator coverage_off */
  input  logic                             clk_i,   // assertions only
  input  logic                             rst_ni,
  input  logic                             inv_valid_i,
  input  logic                             inv_all_i,
  input  logic [63:0]                      inv_lo_i,
  input  logic [63:0]                      inv_hi_i,
  // state after the fill
  input  logic [L4Entries-1:0]             l4_valid_a_i,
  input  logic [L4Entries*9-1:0]           l4_tag_d_i,
  input  logic [L3Entries-1:0]             l3_valid_b_i,
  input  logic [L3Entries*L2Blocks-1:0]    own_c_i,
  input  logic [L2Blocks*BlockEntries-1:0] l2_valid_c_i,
  // next valid bits and ownership
  output logic [L4Entries-1:0]             l4_valid_d_o,
  output logic [L3Entries-1:0]             l3_valid_d_o,
  output logic [L3Entries*L2Blocks-1:0]    own_d_o,
  output logic [L2Blocks*BlockEntries-1:0] l2_valid_d_o
  /* verilator coverage_on */
);

  localparam int unsigned TagW    = 9;
  localparam int unsigned NB      = L2Blocks;
  localparam int unsigned BE      = BlockEntries;
  localparam int unsigned NE      = L2Blocks * BlockEntries;
  localparam int unsigned L3PerL4 = L3Entries / L4Entries;

  // ---- the state after the fill, one array element per entry -----------------
  /* verilator coverage_off */
  logic [L4Entries-1:0] l4_valid_a, l4_valid_d;
  logic [TagW-1:0]      l4_tag_d [L4Entries];
  logic [L3Entries-1:0] l3_valid_b, l3_valid_d;
  logic [NB-1:0]        own_c    [L3Entries];
  logic [NB-1:0]        own_d    [L3Entries];
  logic [NE-1:0]        l2_valid_c, l2_valid_d;
  /* verilator coverage_on */

  assign l4_valid_a   = l4_valid_a_i;
  assign l3_valid_b   = l3_valid_b_i;
  assign l2_valid_c   = l2_valid_c_i;
  assign l4_valid_d_o = l4_valid_d;
  assign l3_valid_d_o = l3_valid_d;
  assign l2_valid_d_o = l2_valid_d;
  for (genvar s = 0; s < L4Entries; s++) begin : gen_l4_d
    assign l4_tag_d[s] = l4_tag_d_i[s*TagW +: TagW];
  end
  for (genvar t = 0; t < L3Entries; t++) begin : gen_own
    assign own_c[t] = own_c_i[t*NB +: NB];
  end
  // packed in a loop, as rtl/cpwc.sv explains (Verilator speed)
  always_comb begin
    for (int unsigned t = 0; t < L3Entries; t++) begin
      own_d_o[t*NB +: NB] = own_d[t];
    end
  end

  // ---- invalidation ------------------------------------------------------------
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
    assign own_d[t]      = inv_l3[t] ? '0 : own_c[t];
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

  // Address bits no entry depends on.
  /* verilator coverage_off */
  logic unused_addr;
  assign unused_addr = ^{inv_lo_i[63:48], inv_hi_i[63:48]};
  /* verilator coverage_on */

`ifndef SYNTHESIS
  // ---- cover points ------------------------------------------------------------
  c_inv_all: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && inv_all_i);
  c_inv_range_hit: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_every && (|(inv_l4 & l4_valid_a)));
  c_inv_range_miss: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_every && !(|(inv_l4 & l4_valid_a)));
  c_inv_range_reversed: cover property (@(posedge clk_i) disable iff (!rst_ni)
      inv_valid_i && !inv_all_i && !inv_range_ok);
`endif

endmodule
