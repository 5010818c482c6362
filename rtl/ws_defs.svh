// gmmu - constants and helpers shared by the walk scheduler's modules
// (rtl/walk_sched.sv and its submodules rtl/ws_*.sv). Included inside each
// module body after its parameter list; every module has the parameter Mshrs.
// Not every module uses every constant, hence the lint waiver.

/* verilator lint_off UNUSEDPARAM */
localparam int unsigned N      = Mshrs;
localparam int unsigned S      = 4 * Mshrs;            // slot file (C: nslots)
localparam int unsigned SW     = $clog2(S);            // slot id bits
localparam int unsigned CW     = SW + 1;               // counters up to S
localparam int unsigned KW     = 40;                   // table frame number
localparam int unsigned SPairs = S * (S - 1) / 2;      // slot age matrix
localparam int unsigned MPairs = (N > 1) ? N * (N - 1) / 2 : 1;
localparam int unsigned MshrIdW = (N > 1) ? $clog2(N) : 1;

// variants
localparam int unsigned VarSerial = 0;
localparam int unsigned VarTree   = 1;
localparam int unsigned VarPair   = 2;

// slot states (C: GMMU_WS_SLOT_*)
localparam logic [1:0] SlotFree     = 2'd0;
localparam logic [1:0] SlotQueued   = 2'd1;
localparam logic [1:0] SlotInflight = 2'd2;

// faults (C: gmmu_fault)
localparam logic [2:0] FaultNone     = 3'd0;
localparam logic [2:0] FaultNotPres  = 3'd1;
localparam logic [2:0] FaultWrite    = 3'd2;
localparam logic [2:0] FaultUser     = 3'd3;
localparam logic [2:0] FaultNonCanon = 3'd4;
localparam logic [2:0] FaultReserved = 3'd5;
/* verilator lint_on UNUSEDPARAM */

// The helpers are left out of line coverage: every module that includes this
// file gets its own copy, and a module that never calls one (or calls it only
// at some levels) would count its lines as missed; the lines of the phases
// that call them are covered.
/* verilator coverage_off */

// 9-bit table index of va at level l (l = level - 1, 0 = PT .. 3 = PML4)
// (vpn = va[47:12])
function automatic logic [8:0] va_index(input logic [35:0] vpn, input logic [1:0] l);
  logic [8:0] r;
  unique case (l)
    2'd0:    r = vpn[8:0];
    2'd1:    r = vpn[17:9];
    2'd2:    r = vpn[26:18];
    default: r = vpn[35:27];
  endcase
  va_index = r;
endfunction

// position of the pair (a < b) in a triangular age matrix of n entries
function automatic int unsigned pair_idx(input int unsigned a, input int unsigned b,
                                         input int unsigned n);
  pair_idx = a * n - (a * (a + 1)) / 2 + (b - a - 1);
endfunction

/* verilator coverage_on */
