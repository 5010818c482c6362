// Copyright gmmu contributors.
// cpwc_slot: the CPWC's slot numbers of a VA (rtl/cpwc.sv), used by the
// lookup (rtl/cpwc_lookup.sv) and the fill (rtl/cpwc_fill.sv). The L4 store
// is direct-mapped by the low L4-index bits, the L3 store by {low L4-index
// bits, low L3-index bits}, as the C model (models/src/cpwc.c).
module cpwc_slot #(
  parameter int unsigned L4Entries = 2,  // power of two 1..512
  parameter int unsigned L3Entries = 4   // power of two, multiple of L4Entries
) (
  /* verilator coverage_off */
  input  logic [8:0] i4_i,  // L4 index, VA[47:39]
  input  logic [8:0] i3_i,  // L3 index, VA[38:30]
  output logic [((L4Entries > 1) ? $clog2(L4Entries) : 1)-1:0] s4_o,
  output logic [((L3Entries > 1) ? $clog2(L3Entries) : 1)-1:0] s3_o
  /* verilator coverage_on */
);

  localparam int unsigned L3PerL4 = L3Entries / L4Entries;
  localparam int unsigned L4W     = (L4Entries > 1) ? $clog2(L4Entries) : 1;
  localparam int unsigned L3W     = (L3Entries > 1) ? $clog2(L3Entries) : 1;
  localparam logic [8:0]  L4Mask  = 9'(L4Entries - 1);
  localparam logic [8:0]  L3Mask  = 9'(L3PerL4 - 1);

  /* verilator coverage_off */
  logic [17:0] hi, lo;
  /* verilator coverage_on */
  assign hi   = {9'd0, i4_i & L4Mask};
  assign lo   = {9'd0, i3_i & L3Mask};
  assign s4_o = L4W'(i4_i & L4Mask);
  assign s3_o = L3W'((hi << $clog2(L3PerL4)) | lo);

endmodule
