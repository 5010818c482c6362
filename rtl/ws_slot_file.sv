// gmmu - walk scheduler slot file: the slot registers (C: gmmu_ws_slot, one
// per pending PTE read) and their age matrix, the read ports the response
// phase needs (the responding slot's state and level, the first free slot),
// and the age update: slots created this cycle are younger than all others.
// The next state of the other fields arrives from the phases
// (rtl/walk_sched.sv); this module only registers it.
module ws_slot_file #(
  parameter int unsigned Mshrs = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // next state from the phases
  input  logic [4*Mshrs*2-1:0]  s_state_d,
  input  logic [4*Mshrs*2-1:0]  s_lvl_d,
  input  logic [4*Mshrs-1:0]    s_known_d,
  input  logic [4*Mshrs*40-1:0] s_key_d,
  input  logic [4*Mshrs*9-1:0]  s_idx_d,
  input  logic [4*Mshrs-1:0]    created,        // slots created this cycle
  input  logic [4*Mshrs-1:0]    created_first,  // ... by the SERIAL response phase
  // registered state
  output logic [4*Mshrs*2-1:0]  s_state_q,
  output logic [4*Mshrs*2-1:0]  s_lvl_q,
  output logic [4*Mshrs-1:0]    s_known_q,
  output logic [4*Mshrs*40-1:0] s_key_q,
  output logic [4*Mshrs*9-1:0]  s_idx_q,
  output logic [4*Mshrs*(4*Mshrs-1)/2-1:0] s_age_q, // (a<b): 1 = a created before b
  // read ports
  input  logic [$clog2(4*Mshrs)-1:0] tag_i,     // the responding slot
  output logic [1:0]        tag_state_o,
  output logic [1:0]        tag_lvl_o,
  output logic              free_any_o,         // some slot is free before this cycle
  output logic [$clog2(4*Mshrs)-1:0] first_free_o // the lowest free slot id
);
  `include "ws_defs.svh"

  logic [SPairs-1:0] s_age_d;

  always_comb begin
    tag_state_o  = SlotFree;
    tag_lvl_o    = 2'd0;
    free_any_o   = 1'b0;
    first_free_o = '0;
    for (int s = 0; s < S; s++) begin
      if (SW'(s) == tag_i) begin
        tag_state_o = s_state_q[s*2 +: 2];
        tag_lvl_o   = s_lvl_q[s*2 +: 2];
      end
    end
    // first free slot before this cycle (SERIAL: the consumer's next read)
    for (int s = S - 1; s >= 0; s--) begin
      if (s_state_q[s*2 +: 2] == SlotFree) begin
        free_any_o   = 1'b1;
        first_free_o = SW'(s);
      end
    end
  end

  // slots created this cycle are younger than all others; among them the
  // SERIAL response's slot (created in phase 1) is older than the walker
  // dispatch slots (phase 4), which may reuse the lower id the response
  // freed; otherwise a phase creates its slots in id order
  // One row of the triangle at a time (row a: the pairs (a, b > a) at
  // pair_idx(a, a+1..S-1, S)): a slot a created now is older than a b created
  // with it unless b was created first and a was not, and younger than the
  // slots that exist; an existing slot a becomes older than every b created now.
  for (genvar a = 0; a < S - 1; a++) begin : gen_age_row
    localparam int unsigned P = pair_idx(a, a + 1, S);
    logic [S-2-a:0] made, first;
    assign made  = created[S-1:a+1];
    assign first = created_first[S-1:a+1];
    assign s_age_d[P +: S - 1 - a] = created[a] ?
        made & (created_first[a] ? '1 : ~first) :
        s_age_q[P +: S - 1 - a] | made;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s_state_q <= '0;
      s_lvl_q   <= '0;
      s_known_q <= '0;
      s_key_q   <= '0;
      s_idx_q   <= '0;
      s_age_q   <= '0;
    end else begin
      s_state_q <= s_state_d;
      s_lvl_q   <= s_lvl_d;
      s_known_q <= s_known_d;
      s_key_q   <= s_key_d;
      s_idx_q   <= s_idx_d;
      s_age_q   <= s_age_d;
    end
  end
endmodule
