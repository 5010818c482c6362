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
    cand      = '0;
    cand_line = '0;
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
  end

  // The oldest of pick_set: slot a is dropped when some b in pick_set is
  // older. Row a of the age triangle (s_age_q at pair_idx(a, a+1..S-1, S);
  // bit b-a-1 is 1 when a is older than b) answers both halves a word at a
  // time: a later b is older where the row is 0 (older_hi[a]); an earlier b
  // in pick_set is older than every later slot where its own row is 1
  // (younger_row[b], OR-ed over b into younger).
  logic [S-1:0] older_hi, younger;
  logic [S-1:0] younger_row [S];
  for (genvar a = 0; a < S; a++) begin : gen_pick_row
    if (a < S - 1) begin : gen_row
      localparam int unsigned P = pair_idx(a, a + 1, S);
      logic [S-2-a:0] row;
      assign row = s_age_q[P +: S - 1 - a];
      assign older_hi[a] = |(pick_set[S-1:a+1] & ~row);
      assign younger_row[a] = {row & {(S-1-a){pick_set[a]}}, (a + 1)'(0)};
    end else begin : gen_last
      assign older_hi[a] = 1'b0;
      assign younger_row[a] = '0;
    end
  end
  always_comb begin
    younger = '0;
    for (int b = 0; b < S; b++) begin
      younger = younger | younger_row[b];
    end
    pick = pick_set & ~older_hi & ~younger;
  end

  always_comb begin
    s_state_d   = s_state_in;
    have_last_d = have_last_q;
    last_line_d = last_line_q;
    req_valid_o = 1'b0;
    req_level_o = 3'd0;
    req_tag_o   = 8'd0;
    req_pa_o    = 52'd0;
    pick_id   = '0;
    pick_lvl  = 2'd0;
    pick_key  = '0;
    pick_idx  = 9'd0;
    free_post = '0;
    free_rank = '0;
    free_cnt  = '0;
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
