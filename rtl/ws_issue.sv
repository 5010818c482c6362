// gmmu - walk scheduler issue phase (C: phase_issue): when memory takes a
// request, the oldest queued read of a known table goes out, preferring one
// in the same 128-byte line as the last read (the line lock; its registers,
// C: have_last and last_line, live here). Also ranks the slots free after
// this cycle's response for the phase that creates slots next.
module ws_issue #(
  parameter int unsigned Mshrs = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  logic              mem_ready_i,
  // gmmu_ws_out.req
  output logic              req_valid_o,
  output logic [2:0]        req_level_o,
  output logic [7:0]        req_tag_o,
  output logic [51:0]       req_pa_o,
  // the slot file before the cycle
  input  logic [4*Mshrs*2-1:0]    s_state_q,
  input  logic [4*Mshrs*2-1:0]    s_lvl_q,
  input  logic [4*Mshrs-1:0]      s_known_q,
  input  logic [4*Mshrs*40-1:0]   s_key_q,
  input  logic [4*Mshrs*9-1:0]    s_idx_q,
  input  logic [4*Mshrs*(4*Mshrs-1)/2-1:0] s_age_q,
  // slot states after the response phase, and after this one
  input  logic [4*Mshrs*2-1:0]    s_state_in,
  output logic [4*Mshrs*2-1:0]    s_state_d,
  // free slots after this phase and the rank of each among them
  output logic [4*Mshrs-1:0]      free_post,
  output logic [4*Mshrs*($clog2(4*Mshrs)+1)-1:0] free_rank,
  output logic [$clog2(4*Mshrs):0] free_cnt
);
  `include "ws_defs.svh"

  logic          have_last_q, have_last_d;
  logic [44:0]   last_line_q, last_line_d; // PA[51:7]
  logic [S-1:0]  cand, cand_line, pick_set, pick;
  logic          any_cand, any_line, issue;
  logic [SW-1:0] pick_id;
  logic [1:0]    pick_lvl;
  logic [KW-1:0] pick_key;
  logic [8:0]    pick_idx;

  always_comb begin
    s_state_d   = s_state_in;
    have_last_d = have_last_q;
    last_line_d = last_line_q;
    req_valid_o = 1'b0;
    req_level_o = 3'd0;
    req_tag_o   = 8'd0;
    req_pa_o    = 52'd0;
    cand      = '0;
    cand_line = '0;
    pick      = '0;
    pick_id   = '0;
    pick_lvl  = 2'd0;
    pick_key  = '0;
    pick_idx  = 9'd0;
    free_post = '0;
    free_rank = '0;
    free_cnt  = '0;

    for (int s = 0; s < S; s++) begin
      // (a slot cancelled this cycle is never a candidate: it is unknown,
      // a_cancelled_unknown)
      cand[s] = s_state_q[s*2 +: 2] == SlotQueued && s_known_q[s];
      cand_line[s] = cand[s] && have_last_q &&
                     {s_key_q[s*KW +: KW], s_idx_q[s*9 + 4 +: 5]} == last_line_q;
    end
    any_cand = |cand;
    any_line = |cand_line;
    pick_set = any_line ? cand_line : cand;
    for (int a = 0; a < S; a++) begin
      pick[a] = pick_set[a];
      for (int b = a + 1; b < S; b++) begin
        if (pick_set[b] && !s_age_q[pair_idx(a, b, S)]) begin
          pick[a] = 1'b0;   // b is older
        end
      end
      for (int b = 0; b < a; b++) begin
        if (pick_set[b] && s_age_q[pair_idx(b, a, S)]) begin
          pick[a] = 1'b0;   // b is older
        end
      end
    end
    issue = any_cand && mem_ready_i;
    for (int s = 0; s < S; s++) begin
      if (pick[s]) begin
        pick_id  = SW'(s);
        pick_lvl = s_lvl_q[s*2 +: 2];
        pick_key = s_key_q[s*KW +: KW];
        pick_idx = s_idx_q[s*9 +: 9];
        if (issue) begin
          s_state_d[s*2 +: 2] = SlotInflight;
        end
      end
    end
    if (issue) begin
      req_valid_o = 1'b1;
      req_tag_o   = 8'(pick_id);
      req_level_o = {1'b0, pick_lvl} + 3'd1;
      req_pa_o    = {pick_key, pick_idx, 3'b000};
      have_last_d = 1'b1;
      last_line_d = {pick_key, pick_idx[8:4]};
    end

    // free slots after the response, and the rank of each among them
    for (int s = 0; s < S; s++) begin
      free_post[s] = s_state_d[s*2 +: 2] == SlotFree;
      free_rank[s*CW +: CW] = free_cnt;
      if (free_post[s]) begin
        free_cnt = free_cnt + CW'(1);
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      have_last_q <= 1'b0;
      last_line_q <= '0;
    end else begin
      have_last_q <= have_last_d;
      last_line_q <= last_line_d;
    end
  end

`ifndef SYNTHESIS
  a_pick_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
    $onehot0(pick) && (!any_cand || $onehot(pick)));
  c_same_line_back_to_back: cover property (@(posedge clk_i) issue && any_line);
  c_line_lock_beats_older: cover property (@(posedge clk_i)
    issue && any_line && (cand & ~cand_line) != '0);
  c_mem_stall: cover property (@(posedge clk_i) any_cand && !mem_ready_i);
  for (genvar l = 1; l <= 4; l++) begin : gen_cover_level
    c_issue_level: cover property (@(posedge clk_i) req_valid_o && req_level_o == 3'(l));
  end
`endif
endmodule
