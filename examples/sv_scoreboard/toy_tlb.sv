// A toy TLB to verify: 4 entries, fully associative, LRU; lookup and fill in
// one cycle (a lookup's result is combinational; a hit makes the entry most
// recently used; a fill replaces the page's own entry, else the first free
// one, else the least recently used one). Recency: a last-use stamp per entry.
module toy_tlb (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        lookup_i,
  input  logic [35:0] vpn_i,
  output logic        hit_o,
  output logic [39:0] ppn_o,
  input  logic        fill_i,
  input  logic [35:0] fill_vpn_i,
  input  logic [39:0] fill_ppn_i
);
  logic        valid_q [4];
  logic [35:0] vpn_q   [4];
  logic [39:0] ppn_q   [4];
  logic [31:0] stamp_q [4];
  logic [31:0] now_q;

  logic [1:0] hit_idx, fill_idx;
  logic       fill_found;
  always_comb begin
    hit_o = 1'b0;
    hit_idx = 2'd0;
    for (int i = 0; i < 4; i++)
      if (valid_q[i] && vpn_q[i] == vpn_i) begin
        hit_o = 1'b1;
        hit_idx = 2'(i);
      end
    ppn_o = ppn_q[hit_idx];
  end

  always_comb begin
    fill_found = 1'b0;
    fill_idx = 2'd0;
    for (int i = 0; i < 4; i++)
      if (!fill_found && valid_q[i] && vpn_q[i] == fill_vpn_i) begin
        fill_idx = 2'(i);
        fill_found = 1'b1;
      end
    for (int i = 0; i < 4; i++)
      if (!fill_found && !valid_q[i]) begin
        fill_idx = 2'(i);
        fill_found = 1'b1;
      end
    if (!fill_found)  // all valid: the oldest stamp
      for (int i = 1; i < 4; i++)
        if (stamp_q[i] < stamp_q[fill_idx]) fill_idx = 2'(i);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      now_q <= 32'd1;
      for (int i = 0; i < 4; i++) begin
        valid_q[i] <= 1'b0;
        vpn_q[i] <= '0;
        ppn_q[i] <= '0;
        stamp_q[i] <= '0;
      end
    end else begin
      now_q <= now_q + 32'd1;
      if (fill_i) begin
        valid_q[fill_idx] <= 1'b1;
        vpn_q[fill_idx] <= fill_vpn_i;
        ppn_q[fill_idx] <= fill_ppn_i;
        stamp_q[fill_idx] <= now_q;
      end else if (lookup_i && hit_o) begin
        stamp_q[hit_idx] <= now_q;
      end
    end
  end
endmodule
