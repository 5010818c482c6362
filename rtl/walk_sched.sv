// gmmu - page-walk scheduler ("PTW coalescer"), synthesizable RTL twin of the
// C golden model models/src/walk_sched.c (gmmu_walk_sched_step). One clock
// cycle of this module equals one call of the step function: the outputs are
// the fields of gmmu_ws_out, combinational from the registered state and the
// inputs of the cycle (gmmu_ws_in). docs/rtl_walk_sched.md maps every C state
// field to a register (declared here, held in the register files below) and
// explains what is derived instead of stored.
//
// Variant 0 = SERIAL (Walkers naive walkers), 1 = TREE (one line group per
// comparator pass), 2 = PAIRWISE (all line groups in one pass).
// Supported ranges: Mshrs 1..32 (the C model allows 64), Walkers 1..32
// (SERIAL; 1 otherwise), ScanPassCycles 1..16, RetireWidth 1..4.
//
// Port widths follow the C structs where they carry information: tags and
// MSHR ids are 8 bits (uint8/uint16 in C, < 256), table bases are the 40-bit
// frame number PA[51:12] (the C model rejects any other bit), PAs are 52 bits.
module walk_sched #(
  parameter int unsigned Variant        = 1,
  parameter int unsigned Mshrs          = 32,
  parameter int unsigned Walkers        = 1,
  parameter int unsigned ScanPassCycles = 1,
  parameter int unsigned RetireWidth    = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // gmmu_ws_in.alloc[0..3]
  input  logic [3:0]        alloc_valid_i,
  input  logic [4*64-1:0]   alloc_va_i,
  input  logic [4*40-1:0]   alloc_table_i,       // table_base[51:12]
  input  logic [4*3-1:0]    alloc_start_level_i, // 1..4
  input  logic [4*2-1:0]    alloc_access_i,      // {user, write}
  // gmmu_ws_in.resp, mem_ready
  input  logic              resp_valid_i,
  input  logic [7:0]        resp_tag_i,
  input  logic [63:0]       resp_data_i,
  input  logic              mem_ready_i,
  // gmmu_ws_out.req
  output logic              req_valid_o,
  output logic [2:0]        req_level_o,
  output logic [7:0]        req_tag_o,
  output logic [51:0]       req_pa_o,
  // gmmu_ws_out.alloc_accepted / alloc_mshr
  output logic [3:0]        alloc_accepted_o,
  output logic [4*8-1:0]    alloc_mshr_o,
  // gmmu_ws_out.n_done / done[0..3] (entries >= n_done are all zero)
  output logic [2:0]        n_done_o,
  output logic [3:0]        done_valid_o,
  output logic [4*3-1:0]    done_fault_o,
  output logic [4*3-1:0]    done_fault_level_o,
  output logic [4*6-1:0]    done_page_shift_o,
  output logic [4*8-1:0]    done_mshr_o,
  output logic [4*3-1:0]    done_nreads_o,
  output logic [4*64-1:0]   done_va_o,
  output logic [4*52-1:0]   done_pa_o,
  output logic [4*64-1:0]   done_pte_o,
  output logic [4*4*40-1:0] done_table_o         // table_base[1..4][51:12], level 1 lowest
);

  `include "ws_defs.svh"

  localparam bit HasScan = (Variant == VarTree) || (Variant == VarPair);

  // The C model's fourth slot state, GMMU_WS_SLOT_ORPHAN (in flight, no
  // consumer left), is unreachable under its own rules (docs/rtl_walk_sched.md,
  // C-model item 8); the RTL has no such state and asserts the invariant that
  // makes it unreachable instead (a_held_iff_live here, a_cancelled_unknown and
  // a_consumer_at_level in ws_response): the lock-step bench checks it every
  // cycle.

  // ---------------------------------------------------------------------------
  // Structure. One cycle runs the C model's phases in its order; each phase is
  // a module whose always_comb takes the state as the phases before it left it
  // and hands on what it changes:
  //
  //   ws_slot_file  slot registers, age matrix, read ports (responding slot,
  //                 first free slot)
  //   ws_response   1. consume the returning PTE, finish or step walks, cancel
  //   ws_retire     2. done walks leave their MSHRs (done[] outputs)
  //   ws_issue      3. send the oldest ready read (line lock registers here)
  //   ws_scan       4. comparator passes (TREE, PAIRWISE; scan registers here)
  //   ws_dispatch   4. idle walkers take waiting walks (SERIAL)
  //   ws_mshr_file  5. allocation into free MSHRs; MSHR registers and the
  //                 SERIAL walk ages
  //
  // Signal suffixes: _q registered state; _p1 after the response, _p2 after
  // retire, _p3 after issue, _p4 after scan/dispatch (phase 5 and the age
  // update happen inside the register files).
  // ---------------------------------------------------------------------------

  // MSHRs (C: gmmu_ws_mshr)
  // The registers marked public_flat_rd are read by the platform wrapper
  // (platforms/rtl/rtl_walk_sched.cpp: Quiescent(), ScansStarted()) to skip
  // idle cycles and count scans; the metacomments change nothing else.
  logic [N-1:0]        m_valid_q /*verilator public_flat_rd*/;
  logic [N-1:0]        m_done_q /*verilator public_flat_rd*/;
  logic [N*64-1:0]     m_va_q;
  logic [N*2-1:0]      m_acc_q;       // {user, write}
  logic [N*2-1:0]      m_start_q;     // start_level - 1
  logic [N*2-1:0]      m_lvl_q;       // level - 1
  logic [N*3-1:0]      m_next_q /*verilator public_flat_rd*/; // next_scan (0 none, 1..4)
  logic [N*3-1:0]      m_fault_q;     // while walking: the permission denial carried
  logic [N*2-1:0]      m_dlvl_q;      // level - 1 of the denying entry
  logic [N*64-1:0]     m_pte_q;       // leaf PTE (valid when fault == 0)
  logic [N*4*KW-1:0]   m_tb_q;        // tb[1..4] frame numbers
  logic [N*4-1:0]      m_refv_q;      // ref[1..4] != NO_SLOT
  logic [N*4*SW-1:0]   m_ref_q;
  logic [MPairs-1:0]   m_age_q;       // SERIAL: (a<b) 1 = a older
  // slots (C: gmmu_ws_slot)
  logic [S*2-1:0]      s_state_q /*verilator public_flat_rd*/;
  logic [S*2-1:0]      s_lvl_q;       // level - 1
  logic [S-1:0]        s_known_q /*verilator public_flat_rd*/;
  logic [S*KW-1:0]     s_key_q;       // known ? table frame : parent slot id
  logic [S*9-1:0]      s_idx_q;
  logic [SPairs-1:0]   s_age_q;       // (a<b): 1 = a created before b
  // scan (TREE, PAIRWISE)
  logic                scan_active_q /*verilator public_flat_rd*/;
  logic                try_found /*verilator public_flat_rd*/; // a scan starts this cycle

  // slot file read ports
  logic [1:0]          t_state, t_lvl;
  logic                free_any;
  logic [SW-1:0]       first_free;

  // after 1. response
  logic [N-1:0]        m_done_p1;
  logic [N*2-1:0]      m_lvl_p1;
  logic [N*3-1:0]      m_next_p1, m_fault_p1;
  logic [N*2-1:0]      m_dlvl_p1;
  logic [N*64-1:0]     m_pte_p1;
  logic [N*4*KW-1:0]   m_tb_p1;
  logic [N*4-1:0]      m_refv_p1;
  logic [N*4*SW-1:0]   m_ref_p1;
  logic [S*2-1:0]      s_state_p1, s_lvl_p1;
  logic [S-1:0]        s_known_p1;
  logic [S*KW-1:0]     s_key_p1;
  logic [S*9-1:0]      s_idx_p1;
  logic [S-1:0]        created_p1;
  // after 2. retire
  logic [N-1:0]        m_valid_p2, retired;
  // after 3. issue
  logic [S*2-1:0]      s_state_p3;
  logic [S-1:0]        free_post;
  logic [S*CW-1:0]     free_rank;
  logic [CW-1:0]       free_cnt;
  // after 4. scan / dispatch
  logic [N*3-1:0]      m_next_p4;
  logic [N*4-1:0]      m_refv_p4;
  logic [N*4*SW-1:0]   m_ref_p4;
  logic [S*2-1:0]      s_state_p4, s_lvl_p4;
  logic [S-1:0]        s_known_p4;
  logic [S*KW-1:0]     s_key_p4;
  logic [S*9-1:0]      s_idx_p4;
  logic [S-1:0]        created_p4;
  // the references the MSHRs hold next cycle (after 5. allocation)
  logic [N*4-1:0]      m_refv_next;
  logic [N*4*SW-1:0]   m_ref_next;

  ws_slot_file #(.Mshrs(Mshrs)) u_slots (
    .clk_i, .rst_ni,
    .s_state_d     (s_state_p4),
    .s_lvl_d       (s_lvl_p4),
    .s_known_d     (s_known_p4),
    .s_key_d       (s_key_p4),
    .s_idx_d       (s_idx_p4),
    .created       (created_p1 | created_p4),
    .created_first (created_p1),
    .s_state_q, .s_lvl_q, .s_known_q, .s_key_q, .s_idx_q, .s_age_q,
    .tag_i         (resp_tag_i[SW-1:0]),
    .tag_state_o   (t_state),
    .tag_lvl_o     (t_lvl),
    .free_any_o    (free_any),
    .first_free_o  (first_free)
  );

  ws_response #(.Variant(Variant), .Mshrs(Mshrs)) u_response (
    .clk_i, .rst_ni,
    .resp_valid_i, .resp_tag_i, .resp_data_i,
    .t_state, .t_lvl, .free_any,
    .serial_new_id (first_free),
    .m_valid_q, .m_done_q, .m_va_q, .m_acc_q, .m_lvl_q, .m_next_q, .m_fault_q,
    .m_dlvl_q, .m_pte_q, .m_tb_q, .m_refv_q, .m_ref_q,
    .s_state_q, .s_lvl_q, .s_known_q, .s_key_q, .s_idx_q,
    .m_done_d  (m_done_p1),
    .m_lvl_d   (m_lvl_p1),
    .m_next_d  (m_next_p1),
    .m_fault_d (m_fault_p1),
    .m_dlvl_d  (m_dlvl_p1),
    .m_pte_d   (m_pte_p1),
    .m_tb_d    (m_tb_p1),
    .m_refv_d  (m_refv_p1),
    .m_ref_d   (m_ref_p1),
    .s_state_d (s_state_p1),
    .s_lvl_d   (s_lvl_p1),
    .s_known_d (s_known_p1),
    .s_key_d   (s_key_p1),
    .s_idx_d   (s_idx_p1),
    .created   (created_p1)
  );

  ws_retire #(.Mshrs(Mshrs), .RetireWidth(RetireWidth)) u_retire (
    .clk_i, .rst_ni,
    .m_valid_q, .m_va_q, .m_start_q,
    .m_done_d  (m_done_p1),
    .m_lvl_d   (m_lvl_p1),
    .m_fault_d (m_fault_p1),
    .m_dlvl_d  (m_dlvl_p1),
    .m_pte_d   (m_pte_p1),
    .m_tb_d    (m_tb_p1),
    .m_valid_d (m_valid_p2),
    .retired,
    .n_done_o, .done_valid_o, .done_fault_o, .done_fault_level_o, .done_page_shift_o,
    .done_mshr_o, .done_nreads_o, .done_va_o, .done_pa_o, .done_pte_o, .done_table_o
  );

  ws_issue #(.Mshrs(Mshrs)) u_issue (
    .clk_i, .rst_ni, .mem_ready_i,
    .req_valid_o, .req_level_o, .req_tag_o, .req_pa_o,
    .s_state_q, .s_lvl_q, .s_known_q, .s_key_q, .s_idx_q, .s_age_q,
    .s_state_in (s_state_p1),
    .s_state_d  (s_state_p3),
    .free_post, .free_rank, .free_cnt
  );

  if (HasScan) begin : gen_scan
    ws_scan #(.Variant(Variant), .Mshrs(Mshrs), .ScanPassCycles(ScanPassCycles)) u_scan (
      .clk_i, .rst_ni,
      .m_valid_d  (m_valid_p2),
      .m_done_d   (m_done_p1),
      .m_lvl_d    (m_lvl_p1),
      .m_tb_d     (m_tb_p1),
      .m_va_q,
      .retired,
      .m_next_in  (m_next_p1),
      .m_refv_in  (m_refv_p1),
      .m_ref_in   (m_ref_p1),
      .s_state_in (s_state_p3),
      .s_lvl_in   (s_lvl_p1),
      .s_known_in (s_known_p1),
      .s_key_in   (s_key_p1),
      .s_idx_in   (s_idx_p1),
      .free_post, .free_rank, .free_cnt,
      .m_next_d   (m_next_p4),
      .m_refv_d   (m_refv_p4),
      .m_ref_d    (m_ref_p4),
      .s_state_d  (s_state_p4),
      .s_lvl_d    (s_lvl_p4),
      .s_known_d  (s_known_p4),
      .s_key_d    (s_key_p4),
      .s_idx_d    (s_idx_p4),
      .created    (created_p4),
      .scan_active_o (scan_active_q),
      .try_found_o   (try_found)
    );
    logic unused_walkers;
    assign unused_walkers = ^m_age_q;
  end else begin : gen_dispatch
    ws_dispatch #(.Mshrs(Mshrs), .Walkers(Walkers)) u_dispatch (
      .clk_i, .rst_ni,
      .m_valid_d  (m_valid_p2),
      .m_done_d   (m_done_p1),
      .m_lvl_d    (m_lvl_p1),
      .m_tb_d     (m_tb_p1),
      .m_va_q,
      .m_age_q,
      .m_next_in  (m_next_p1),
      .m_refv_in  (m_refv_p1),
      .m_ref_in   (m_ref_p1),
      .s_state_in (s_state_p3),
      .s_lvl_in   (s_lvl_p1),
      .s_known_in (s_known_p1),
      .s_key_in   (s_key_p1),
      .s_idx_in   (s_idx_p1),
      .free_post, .free_rank,
      .m_next_d   (m_next_p4),
      .m_refv_d   (m_refv_p4),
      .m_ref_d    (m_ref_p4),
      .s_state_d  (s_state_p4),
      .s_lvl_d    (s_lvl_p4),
      .s_known_d  (s_known_p4),
      .s_key_d    (s_key_p4),
      .s_idx_d    (s_idx_p4),
      .created    (created_p4)
    );
    assign scan_active_q = 1'b0;
    assign try_found     = 1'b0;
    logic unused_scan;
    assign unused_scan = ^{retired, free_cnt};
  end

  ws_mshr_file #(.Variant(Variant), .Mshrs(Mshrs)) u_mshrs (
    .clk_i, .rst_ni,
    .alloc_valid_i, .alloc_va_i, .alloc_table_i, .alloc_start_level_i, .alloc_access_i,
    .alloc_accepted_o, .alloc_mshr_o,
    .m_valid_p (m_valid_p2),
    .m_done_p  (m_done_p1),
    .m_lvl_p   (m_lvl_p1),
    .m_next_p  (m_next_p4),
    .m_fault_p (m_fault_p1),
    .m_dlvl_p  (m_dlvl_p1),
    .m_pte_p   (m_pte_p1),
    .m_tb_p    (m_tb_p1),
    .m_refv_p  (m_refv_p4),
    .m_ref_p   (m_ref_p4),
    .m_valid_q, .m_done_q, .m_va_q, .m_acc_q, .m_start_q, .m_lvl_q, .m_next_q,
    .m_fault_q, .m_dlvl_q, .m_pte_q, .m_tb_q, .m_refv_q, .m_ref_q, .m_age_q,
    .m_refv_next_o (m_refv_next),
    .m_ref_next_o  (m_ref_next)
  );

`ifndef SYNTHESIS
  // ---------------------------------------------------------------------------
  // Invariants across the two register files (checked by the bench with
  // --assert); each phase module checks its own.
  // ---------------------------------------------------------------------------
  // (each reference indexes its slot: N*4 steps, not N*4*S, every cycle)
  logic [S-1:0] held_next;
  logic         chk_ref_live;
  always_comb begin
    held_next    = '0;
    chk_ref_live = 1'b1;
    for (int i = 0; i < N; i++) begin
      for (int l = 0; l < 4; l++) begin
        if (m_refv_next[i*4 + l] && 32'(m_ref_next[(i*4 + l)*SW +: SW]) < S) begin
          held_next[m_ref_next[(i*4 + l)*SW +: SW]] = 1'b1;
        end
        // every reference an MSHR holds names a live slot of that level
        if (m_refv_q[i*4 + l] && 32'(m_ref_q[(i*4 + l)*SW +: SW]) < S &&
            (s_state_q[32'(m_ref_q[(i*4 + l)*SW +: SW])*2 +: 2] == SlotFree ||
             s_lvl_q[32'(m_ref_q[(i*4 + l)*SW +: SW])*2 +: 2] != 2'(l))) begin
          chk_ref_live = 1'b0;
        end
      end
    end
  end
  // a slot is queued or in flight exactly while some MSHR holds it
  for (genvar s = 0; s < S; s++) begin : gen_slot_chk
    a_held_iff_live: assert property (@(posedge clk_i) disable iff (!rst_ni)
      ((s_state_p4[s*2 +: 2] == SlotQueued || s_state_p4[s*2 +: 2] == SlotInflight) ==
       held_next[s]));
  end
  a_ref_names_live_slot: assert property (@(posedge clk_i) disable iff (!rst_ni)
    chk_ref_live);
`else
  logic unused_chk;
  assign unused_chk = ^{m_refv_next, m_ref_next, scan_active_q, try_found};
`endif

endmodule
