// gmmu - walk scheduler retire phase (C: phase_retire): the first RetireWidth
// walks that are done (after this cycle's response) leave their MSHRs, in
// MSHR order, as the done[] entries of gmmu_ws_out.
module ws_retire #(
  parameter int unsigned Mshrs       = 4,
  parameter int unsigned RetireWidth = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // state before the cycle, and after the response phase
  input  logic [Mshrs-1:0]        m_valid_q,
  input  logic [Mshrs*64-1:0]     m_va_q,
  input  logic [Mshrs*2-1:0]      m_start_q,
  input  logic [Mshrs-1:0]        m_done_d,
  input  logic [Mshrs*2-1:0]      m_lvl_d,
  input  logic [Mshrs*3-1:0]      m_fault_d,
  input  logic [Mshrs*2-1:0]      m_dlvl_d,
  input  logic [Mshrs*64-1:0]     m_pte_d,
  input  logic [Mshrs*4*40-1:0]   m_tb_d,
  // state after this phase
  output logic [Mshrs-1:0]        m_valid_d,
  output logic [Mshrs-1:0]        retired,   // MSHRs freed this cycle
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

  logic [N-1:0]   rdone;
  logic [N*3-1:0] rrank;
  logic [2:0]     rcnt;
  logic [2:0]     nd;

  always_comb begin
    m_valid_d          = m_valid_q;
    retired            = '0;
    done_valid_o       = 4'd0;
    done_fault_o       = '0;
    done_fault_level_o = '0;
    done_page_shift_o  = '0;
    done_mshr_o        = '0;
    done_nreads_o      = '0;
    done_va_o          = '0;
    done_pa_o          = '0;
    done_pte_o         = '0;
    done_table_o       = '0;
    rdone = '0;
    rrank = '0;
    rcnt  = 3'd0;
    nd    = 3'd0;

    for (int i = 0; i < N; i++) begin
      rdone[i] = m_valid_q[i] && m_done_d[i];
      rrank[i*3 +: 3] = rcnt;
      if (rdone[i] && rcnt != 3'd4) begin
        rcnt = rcnt + 3'd1;
      end
    end
    for (int j = 0; j < 4; j++) begin
      for (int i = 0; i < N; i++) begin
        if (j < 32'(RetireWidth) && rdone[i] && rrank[i*3 +: 3] == 3'(j)) begin
          nd = 3'(j + 1);
          m_valid_d[i] = 1'b0;
          retired[i] = 1'b1;
          done_valid_o[j] = 1'b1;
          done_mshr_o[j*8 +: 8] = 8'(i);
          done_va_o[j*64 +: 64] = m_va_q[i*64 +: 64];
          done_fault_o[j*3 +: 3] = m_fault_d[i*3 +: 3];
          done_table_o[j*160 +: 160] = m_tb_d[i*4*KW +: 4*KW];
          if (m_fault_d[i*3 +: 3] == FaultUser || m_fault_d[i*3 +: 3] == FaultWrite) begin
            // a permission fault is the first denying entry's, above the leaf or at it
            done_fault_level_o[j*3 +: 3] = {1'b0, m_dlvl_d[i*2 +: 2]} + 3'd1;
          end else if (m_fault_d[i*3 +: 3] != FaultNone) begin
            done_fault_level_o[j*3 +: 3] = {1'b0, m_lvl_d[i*2 +: 2]} + 3'd1;
          end
          if (m_fault_d[i*3 +: 3] != FaultNonCanon) begin
            done_nreads_o[j*3 +: 3] = {1'b0, m_start_q[i*2 +: 2]} -
                                      {1'b0, m_lvl_d[i*2 +: 2]} + 3'd1;
          end
          if (m_fault_d[i*3 +: 3] == FaultNone) begin
            done_pte_o[j*64 +: 64] = m_pte_d[i*64 +: 64];
            unique case (m_lvl_d[i*2 +: 2])
              2'd0: begin
                done_page_shift_o[j*6 +: 6] = 6'd12;
                done_pa_o[j*52 +: 52] = {m_pte_d[i*64 + 12 +: 40], m_va_q[i*64 +: 12]};
              end
              2'd1: begin
                done_page_shift_o[j*6 +: 6] = 6'd21;
                done_pa_o[j*52 +: 52] = {m_pte_d[i*64 + 21 +: 31], m_va_q[i*64 +: 21]};
              end
              default: begin
                done_page_shift_o[j*6 +: 6] = 6'd30;
                done_pa_o[j*52 +: 52] = {m_pte_d[i*64 + 30 +: 22], m_va_q[i*64 +: 30]};
              end
            endcase
          end
        end
      end
    end
    n_done_o = nd;
  end

`ifndef SYNTHESIS
  a_retired_were_done: assert property (@(posedge clk_i) disable iff (!rst_ni)
    32'(n_done_o) <= 32'(RetireWidth) && $countones(done_valid_o) == 32'(n_done_o));
  c_retire_full_width: cover property (@(posedge clk_i)
    32'(n_done_o) == 32'(RetireWidth) && $countones(rdone) > 32'(RetireWidth));
  for (genvar f = 1; f <= 5; f++) begin : gen_cover_fault
    c_fault_kind: cover property (@(posedge clk_i)
      done_valid_o[0] && done_fault_o[2:0] == 3'(f));
  end
  for (genvar l = 0; l < 3; l++) begin : gen_cover_page
    c_page_size: cover property (@(posedge clk_i)
      done_valid_o[0] && done_fault_o[2:0] == 3'd0 && done_page_shift_o[5:0] == 6'(12 + 9 * l));
  end
`else
  logic unused_clk;
  assign unused_clk = ^{clk_i, rst_ni};
`endif
endmodule
