// Copyright gmmu contributors.
// pwc_pipe: result pipeline shared by the page-walk caches (cpwc, tpc).
//
// A lookup result enters at the clock edge of the cycle it is accepted and
// leaves on the outputs exactly Lat cycles later (gmmu_pwc_step: "appears on
// `out` exactly L calls later"). Outputs are registered. squash_i (an
// invalidation this cycle) turns every result entering or still inside the
// pipeline into a miss (start level 4, base = the lookup's root), so no stale
// table base leaves the cache. The result already on the outputs this cycle
// is not affected, as in the C model.
//
// Stage contents: valid, level code (start level - 1: 0 = L1 hit ... 3 = miss),
// the 4 KiB-aligned table base of a hit (bits 63:12) and the lookup's root,
// which is what a miss returns.
module pwc_pipe #(
  parameter int unsigned Lat = 2
) (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [1:0]  in_code_i,   // start level - 1
  input  logic [51:0] in_base_i,   // table base bits 63:12 (hits)
  input  logic [63:0] in_root_i,   // returned on a miss
  input  logic        squash_i,
  output logic        hit_valid_o,
  output logic [2:0]  hit_level_o,
  output logic [63:0] hit_base_o
);

  logic [Lat-1:0] valid_q;
  logic [1:0]     code_q [Lat];
  /* verilator coverage_off */
  logic [51:0]    base_q [Lat];
  logic [63:0]    root_q [Lat];
  /* verilator coverage_on */

  // Stage 0 takes the new lookup, stage i the content of stage i-1; the last
  // stage drives the outputs. A squash forces every stage's code to "miss".
  for (genvar i = 0; i < Lat; i++) begin : gen_stage
    /* verilator coverage_off */
    logic        valid_d;
    logic [1:0]  code_d;
    logic [51:0] base_d;
    logic [63:0] root_d;
    /* verilator coverage_on */
    if (i == 0) begin : gen_first
      assign valid_d = in_valid_i;
      assign code_d  = squash_i ? 2'd3 : in_code_i;
      assign base_d  = in_base_i;
      assign root_d  = in_root_i;
    end else begin : gen_next
      assign valid_d = valid_q[i-1];
      assign code_d  = squash_i ? 2'd3 : code_q[i-1];
      assign base_d  = base_q[i-1];
      assign root_d  = root_q[i-1];
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q[i] <= 1'b0;
      end else begin
        valid_q[i] <= valid_d;
      end
    end
    // Data carry no reset: they are qualified by valid_q.
    always_ff @(posedge clk_i) begin
      code_q[i] <= code_d;
      base_q[i] <= base_d;
      root_q[i] <= root_d;
    end
  end

  /* verilator coverage_off */
  logic [1:0] out_code;
  /* verilator coverage_on */
  assign out_code = code_q[Lat-1];

  assign hit_valid_o = valid_q[Lat-1];
  assign hit_level_o = hit_valid_o ? {1'b0, out_code} + 3'd1 : 3'd0;
  assign hit_base_o  = !hit_valid_o         ? 64'd0 :
                       (out_code == 2'd3)   ? root_q[Lat-1] :
                                              {base_q[Lat-1], 12'h000};

endmodule
