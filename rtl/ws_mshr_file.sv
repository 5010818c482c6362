// gmmu - walk scheduler MSHR file: the MSHR registers (C: gmmu_ws_mshr, one
// per walk), the allocation phase (C: phase_alloc) that writes new walks into
// the MSHRs free at the start of the cycle, and for SERIAL the age matrix of
// the walks (which waiting walk an idle walker takes first). The next state of
// the walk fields arrives from the phases before it (rtl/walk_sched.sv).
module ws_mshr_file #(
  parameter int unsigned Variant = 1,
  parameter int unsigned Mshrs   = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // gmmu_ws_in.alloc[0..3]
  input  logic [3:0]        alloc_valid_i,
  input  logic [4*64-1:0]   alloc_va_i,
  input  logic [4*40-1:0]   alloc_table_i,       // table_base[51:12]
  input  logic [4*3-1:0]    alloc_start_level_i, // 1..4
  input  logic [4*2-1:0]    alloc_access_i,      // {user, write}
  // gmmu_ws_out.alloc_accepted / alloc_mshr
  output logic [3:0]        alloc_accepted_o,
  output logic [4*8-1:0]    alloc_mshr_o,
  // the walk fields after the response, retire and scan/dispatch phases
  input  logic [Mshrs-1:0]        m_valid_p,
  input  logic [Mshrs-1:0]        m_done_p,
  input  logic [Mshrs*2-1:0]      m_lvl_p,
  input  logic [Mshrs*3-1:0]      m_next_p,
  input  logic [Mshrs*3-1:0]      m_fault_p,
  input  logic [Mshrs*2-1:0]      m_dlvl_p,
  input  logic [Mshrs*64-1:0]     m_pte_p,
  input  logic [Mshrs*4*40-1:0]   m_tb_p,
  input  logic [Mshrs*4-1:0]      m_refv_p,
  input  logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_p,
  // registered state
  output logic [Mshrs-1:0]        m_valid_q,
  output logic [Mshrs-1:0]        m_done_q,
  output logic [Mshrs*64-1:0]     m_va_q,
  output logic [Mshrs*2-1:0]      m_acc_q,     // {user, write}
  output logic [Mshrs*2-1:0]      m_start_q,   // start_level - 1
  output logic [Mshrs*2-1:0]      m_lvl_q,     // level - 1
  output logic [Mshrs*3-1:0]      m_next_q,    // next_scan (0 none, 1..4)
  output logic [Mshrs*3-1:0]      m_fault_q,   // fault; while walking: the denial carried
  output logic [Mshrs*2-1:0]      m_dlvl_q,    // level - 1 of the denying entry
  output logic [Mshrs*64-1:0]     m_pte_q,     // leaf PTE (valid when fault == 0)
  output logic [Mshrs*4*40-1:0]   m_tb_q,      // tb[1..4] frame numbers
  output logic [Mshrs*4-1:0]      m_refv_q,    // ref[1..4] != NO_SLOT
  output logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_q,
  output logic [((Mshrs > 1) ? Mshrs*(Mshrs-1)/2 : 1)-1:0] m_age_q, // SERIAL: (a<b) 1 = a older
  // the references of the next cycle (for the slot-file invariants)
  output logic [Mshrs*4-1:0]      m_refv_next_o,
  output logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_next_o
);
  `include "ws_defs.svh"

  logic [N-1:0]      m_valid_d, m_done_d;
  logic [N*64-1:0]   m_va_d, m_pte_d;
  logic [N*2-1:0]    m_acc_d, m_start_d, m_lvl_d;
  logic [N*3-1:0]    m_next_d, m_fault_d;
  logic [N*4*KW-1:0] m_tb_d;
  logic [N*4-1:0]    m_refv_d;
  logic [N*4*SW-1:0] m_ref_d;
  logic [MPairs-1:0] m_age_d;

  logic [N-1:0]      fmask;
  logic [N-1:0]      alloc_set;
  logic              found;
  logic [63:0]       ava;
  logic [1:0]        astart;
  logic              canon;
  logic              dbg_reject;    // an allocation found no free MSHR

  // ===========================================================================
  // 5. allocation (C: phase_alloc) into MSHRs free at the start of the cycle
  // ===========================================================================
  always_comb begin
    m_valid_d = m_valid_p;
    m_done_d  = m_done_p;
    m_va_d    = m_va_q;
    m_acc_d   = m_acc_q;
    m_start_d = m_start_q;
    m_lvl_d   = m_lvl_p;
    m_next_d  = m_next_p;
    m_fault_d = m_fault_p;
    m_pte_d   = m_pte_p;
    m_tb_d    = m_tb_p;
    m_refv_d  = m_refv_p;
    m_ref_d   = m_ref_p;
    m_age_d   = m_age_q;
    alloc_accepted_o = 4'd0;
    alloc_mshr_o     = '0;
    alloc_set  = '0;
    found      = 1'b0;
    ava        = '0;
    astart     = '0;
    canon      = 1'b0;
    dbg_reject = 1'b0;

    fmask = ~m_valid_q;
    for (int k = 0; k < 4; k++) begin
      if (alloc_valid_i[k]) begin
        found = 1'b0;
        ava    = alloc_va_i[k*64 +: 64];
        astart = 2'(alloc_start_level_i[k*3 +: 3] - 3'd1);
        canon  = (ava[63:47] == 17'd0) || (ava[63:47] == 17'h1FFFF);
        for (int i = 0; i < N; i++) begin
          if (!found && fmask[i]) begin
            found = 1'b1;
            fmask[i] = 1'b0;
            alloc_set[i] = 1'b1;
            alloc_accepted_o[k] = 1'b1;
            alloc_mshr_o[k*8 +: 8] = 8'(i);
            m_valid_d[i]          = 1'b1;
            m_done_d[i]           = !canon;
            m_va_d[i*64 +: 64]    = ava;
            m_acc_d[i*2 +: 2]     = alloc_access_i[k*2 +: 2];
            m_start_d[i*2 +: 2]   = astart;
            m_lvl_d[i*2 +: 2]     = astart;
            m_next_d[i*3 +: 3]    = canon ? {1'b0, astart} + 3'd1 : 3'd0;
            m_fault_d[i*3 +: 3]   = canon ? FaultNone : FaultNonCanon;
            m_refv_d[i*4 +: 4]    = 4'd0;
            m_tb_d[i*4*KW +: 4*KW] = '0;
            for (int l = 0; l < 4; l++) begin
              if (canon && 2'(l) == astart) begin
                m_tb_d[(i*4 + l)*KW +: KW] = alloc_table_i[k*KW +: KW];
              end
            end
          end
        end
        if (!found) begin
          dbg_reject = 1'b1;
        end
      end
    end
    // SERIAL: walks allocated this cycle are younger than all others, in id order
    if (Variant == VarSerial && N > 1) begin
      for (int a = 0; a < N; a++) begin
        for (int b = a + 1; b < N; b++) begin
          if (alloc_set[b]) begin
            m_age_d[pair_idx(a, b, N)] = 1'b1;
          end else if (alloc_set[a]) begin
            m_age_d[pair_idx(a, b, N)] = 1'b0;
          end
        end
      end
    end
  end

  assign m_refv_next_o = m_refv_d;
  assign m_ref_next_o  = m_ref_d;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_q <= '0;
      m_done_q  <= '0;
      m_va_q    <= '0;
      m_acc_q   <= '0;
      m_start_q <= '0;
      m_lvl_q   <= '0;
      m_next_q  <= '0;
      m_fault_q <= '0;
      m_dlvl_q  <= '0;
      m_pte_q   <= '0;
      m_tb_q    <= '0;
      m_refv_q  <= '0;
      m_ref_q   <= '0;
    end else begin
      m_valid_q <= m_valid_d;
      m_done_q  <= m_done_d;
      m_va_q    <= m_va_d;
      m_acc_q   <= m_acc_d;
      m_start_q <= m_start_d;
      m_lvl_q   <= m_lvl_d;
      m_next_q  <= m_next_d;
      m_fault_q <= m_fault_d;
      m_dlvl_q  <= m_dlvl_p;
      m_pte_q   <= m_pte_d;
      m_tb_q    <= m_tb_d;
      m_refv_q  <= m_refv_d;
      m_ref_q   <= m_ref_d;
    end
  end

  // the walk ages order SERIAL dispatch only
  if (Variant == VarSerial && N > 1) begin : gen_mshr_age
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        m_age_q <= '0;
      end else begin
        m_age_q <= m_age_d;
      end
    end
  end else begin : gen_no_mshr_age
    assign m_age_q = '0;
    logic unused_m_age;
    assign unused_m_age = ^m_age_d;
  end

`ifndef SYNTHESIS
  for (genvar k = 0; k < 4; k++) begin : gen_alloc_chk
    a_alloc_start_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !alloc_valid_i[k] || (alloc_start_level_i[k*3 +: 3] >= 3'd1 &&
                            alloc_start_level_i[k*3 +: 3] <= 3'd4));
  end
  c_mshr_full_reject: cover property (@(posedge clk_i) dbg_reject);
  c_mshrs_all_busy: cover property (@(posedge clk_i) m_valid_q == '1);
  c_four_allocs: cover property (@(posedge clk_i) alloc_accepted_o == 4'hF);
`else
  logic unused_dbg;
  assign unused_dbg = dbg_reject;
`endif
endmodule
