// tb/dpi/pwc_tb_pkg.sv — class bench of a page-walk cache RTL twin
// (rtl/cpwc.sv or rtl/tpc.sv) against the C model's cycle step, reached
// through gmmu_pkg (DPI-C). Sequence, driver, monitor and scoreboard are in
// their own files; pwc_tb_top.sv owns the clock and calls them each cycle
// (the classes are untimed: Verilator 5.006 cannot wait on events through a
// virtual interface inside a class).
package pwc_tb_pkg;
  import gmmu_pkg::*;
  import tb_util_pkg::*;

  // the DUT's inputs of one cycle (what the driver puts on the pins)
  typedef struct packed {
    logic        lookup_valid;
    logic [63:0] lookup_va;
    logic [63:0] lookup_root;
    logic        fill_valid;
    logic [2:0]  fill_levels;
    logic [63:0] fill_va;
    logic [63:0] fill_base_l3;
    logic [63:0] fill_base_l2;
    logic [63:0] fill_base_l1;
    logic        inv_valid;
    logic        inv_all;
    logic [63:0] inv_lo;
    logic [63:0] inv_hi;
  } pwc_pins_t;

  // the DUT's outputs of one cycle
  typedef struct packed {
    logic        hit_valid;
    logic [2:0]  hit_level;
    logic [63:0] hit_base;
  } pwc_outs_t;

  `include "pwc_item.svh"
  `include "pwc_sequence.svh"
  `include "pwc_driver.svh"
  `include "pwc_monitor.svh"
  `include "pwc_scoreboard.svh"
endpackage
