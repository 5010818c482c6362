// tb/dpi/ws_tb_pkg.sv — class bench of the walk scheduler RTL
// (rtl/walk_sched.sv) against the C model's cycle step (gmmu_walk_sched_step)
// through gmmu_pkg. As in pwc_tb_pkg, the classes are untimed and
// ws_tb_top.sv calls them once per cycle.
package ws_tb_pkg;
  import gmmu_pkg::*;
  import tb_util_pkg::*;

  // the DUT's inputs of one cycle (gmmu_ws_in)
  typedef struct packed {
    logic [3:0]   alloc_valid;
    logic [255:0] alloc_va;
    logic [159:0] alloc_table;        // table_base[51:12] per lane
    logic [11:0]  alloc_start_level;
    logic [7:0]   alloc_access;       // {user, write} per lane
    logic         resp_valid;
    logic [7:0]   resp_tag;
    logic [63:0]  resp_data;
    logic         mem_ready;
  } ws_pins_t;

  // the DUT's outputs of one cycle (gmmu_ws_out)
  typedef struct packed {
    logic         req_valid;
    logic [2:0]   req_level;
    logic [7:0]   req_tag;
    logic [51:0]  req_pa;
    logic [3:0]   alloc_accepted;
    logic [31:0]  alloc_mshr;
    logic [2:0]   n_done;
    logic [3:0]   done_valid;
    logic [11:0]  done_fault;
    logic [11:0]  done_fault_level;
    logic [23:0]  done_page_shift;
    logic [31:0]  done_mshr;
    logic [11:0]  done_nreads;
    logic [255:0] done_va;
    logic [207:0] done_pa;
    logic [255:0] done_pte;
    logic [639:0] done_table;
  } ws_outs_t;

  `include "ws_item.svh"
  `include "ws_sequence.svh"
  `include "ws_driver.svh"
  `include "ws_monitor.svh"
  `include "ws_scoreboard.svh"
endpackage
