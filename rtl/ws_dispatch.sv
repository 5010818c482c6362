// gmmu - walk scheduler walker dispatch (C: phase_dispatch_serial), SERIAL:
// each idle walker takes the oldest waiting walk, which asks for its next
// read in the next free slot; a walker stays busy until its walk finishes.
module ws_dispatch #(
  parameter int unsigned Mshrs   = 4,
  parameter int unsigned Walkers = 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // walk state after the response and retire phases
  input  logic [Mshrs-1:0]        m_valid_d,
  input  logic [Mshrs-1:0]        m_done_d,
  input  logic [Mshrs*2-1:0]      m_lvl_d,
  input  logic [Mshrs*4*40-1:0]   m_tb_d,
  input  logic [Mshrs*64-1:0]     m_va_q,
  input  logic [((Mshrs > 1) ? Mshrs*(Mshrs-1)/2 : 1)-1:0] m_age_q, // (a<b) 1 = a older
  input  logic [Mshrs*3-1:0]      m_next_in,
  input  logic [Mshrs*4-1:0]      m_refv_in,
  input  logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_in,
  // slot state after the response and issue phases, and the free slots
  input  logic [4*Mshrs*2-1:0]    s_state_in,
  input  logic [4*Mshrs*2-1:0]    s_lvl_in,
  input  logic [4*Mshrs-1:0]      s_known_in,
  input  logic [4*Mshrs*40-1:0]   s_key_in,
  input  logic [4*Mshrs*9-1:0]    s_idx_in,
  input  logic [4*Mshrs-1:0]      free_post,
  input  logic [4*Mshrs*($clog2(4*Mshrs)+1)-1:0] free_rank,
  // state after this phase
  output logic [Mshrs*3-1:0]      m_next_d,
  output logic [Mshrs*4-1:0]      m_refv_d,
  output logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_d,
  output logic [4*Mshrs*2-1:0]    s_state_d,
  output logic [4*Mshrs*2-1:0]    s_lvl_d,
  output logic [4*Mshrs-1:0]      s_known_d,
  output logic [4*Mshrs*40-1:0]   s_key_d,
  output logic [4*Mshrs*9-1:0]    s_idx_d,
  output logic [4*Mshrs-1:0]      created
);
  `include "ws_defs.svh"

  logic [N-1:0]    elig;
  logic [CW-1:0]   active_walks;
  logic [CW-1:0]   idle_walkers;
  logic [N*CW-1:0] prank;
  logic [N-1:0]    dbg_dispatch;  // walks dispatched this cycle

  always_comb begin
    m_next_d  = m_next_in;
    m_refv_d  = m_refv_in;
    m_ref_d   = m_ref_in;
    s_state_d = s_state_in;
    s_lvl_d   = s_lvl_in;
    s_known_d = s_known_in;
    s_key_d   = s_key_in;
    s_idx_d   = s_idx_in;
    created   = '0;
    elig         = '0;
    active_walks = '0;
    prank        = '0;
    dbg_dispatch = '0;

    for (int i = 0; i < N; i++) begin
      if (m_valid_d[i] && !m_done_d[i] && m_next_d[i*3 +: 3] == 3'd0) begin
        active_walks = active_walks + CW'(1);
      end
    end
    idle_walkers = CW'(Walkers) - active_walks;
    for (int i = 0; i < N; i++) begin
      elig[i] = m_valid_d[i] && !m_done_d[i] && m_next_d[i*3 +: 3] != 3'd0;
    end
    for (int i = 0; i < N; i++) begin
      for (int j = 0; j < i; j++) begin
        if (elig[i] && elig[j] && m_age_q[pair_idx(j, i, N)]) begin
          prank[i*CW +: CW] = prank[i*CW +: CW] + CW'(1);
        end
      end
      for (int j = i + 1; j < N; j++) begin
        if (elig[i] && elig[j] && !m_age_q[pair_idx(i, j, N)]) begin
          prank[i*CW +: CW] = prank[i*CW +: CW] + CW'(1);
        end
      end
    end
    for (int i = 0; i < N; i++) begin
      if (elig[i] && prank[i*CW +: CW] < idle_walkers) begin
        dbg_dispatch[i] = 1'b1;
        m_next_d[i*3 +: 3] = 3'd0;
        for (int s = 0; s < S; s++) begin
          if (free_post[s] && free_rank[s*CW +: CW] == prank[i*CW +: CW]) begin
            created[s] = 1'b1;
            s_state_d[s*2 +: 2] = SlotQueued;
            s_lvl_d[s*2 +: 2]   = m_lvl_d[i*2 +: 2];
            s_known_d[s]        = 1'b1;
            s_idx_d[s*9 +: 9]   = va_index(m_va_q[i*64 + 12 +: 36], m_lvl_d[i*2 +: 2]);
            for (int l = 0; l < 4; l++) begin
              if (2'(l) == m_lvl_d[i*2 +: 2]) begin
                s_key_d[s*KW +: KW] = m_tb_d[(i*4 + l)*KW +: KW];
                m_refv_d[i*4 + l] = 1'b1;
                m_ref_d[(i*4 + l)*SW +: SW] = SW'(s);
              end
            end
          end
        end
      end
    end
  end

`ifndef SYNTHESIS
  a_serial_walkers: assert property (@(posedge clk_i) disable iff (!rst_ni)
    active_walks <= CW'(Walkers));
  c_dispatch_two_walkers: cover property (@(posedge clk_i) $countones(dbg_dispatch) >= 2);
`else
  logic unused_dbg;
  assign unused_dbg = ^{clk_i, rst_ni, dbg_dispatch};
`endif
endmodule
