// gmmu - page-walk scheduler ("PTW coalescer"), synthesizable RTL twin of the
// C golden model models/src/walk_sched.c (gmmu_walk_sched_step). One clock
// cycle of this module equals one call of the step function: the outputs are
// the fields of gmmu_ws_out, combinational from the registered state and the
// inputs of the cycle (gmmu_ws_in). docs/rtl_walk_sched.md maps every C state
// field to a register here and explains what is derived instead of stored.
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

  // ---------------------------------------------------------------------------
  // Parameters
  // ---------------------------------------------------------------------------
  localparam int unsigned VarSerial = 0;
  localparam int unsigned VarTree   = 1;
  localparam int unsigned VarPair   = 2;

  localparam int unsigned N     = Mshrs;
  localparam int unsigned S     = 4 * Mshrs;            // slot file (C: nslots)
  localparam int unsigned SW    = $clog2(S);            // slot id bits
  localparam int unsigned CW    = SW + 1;               // counters up to S
  localparam int unsigned KW    = 40;                   // table frame number
  localparam int unsigned SPairs = S * (S - 1) / 2;     // slot age matrix
  localparam int unsigned MPairs = (N > 1) ? N * (N - 1) / 2 : 1;
  localparam int unsigned MshrIdW = (N > 1) ? $clog2(N) : 1;
  localparam int unsigned TW    = (ScanPassCycles > 1) ? $clog2(ScanPassCycles) : 1;
  localparam logic [TW-1:0] TimerLoad = TW'(ScanPassCycles - 1);
  localparam bit HasScan = (Variant == VarTree) || (Variant == VarPair);

  // slot states (C: GMMU_WS_SLOT_*)
  localparam logic [1:0] SlotFree     = 2'd0;
  localparam logic [1:0] SlotQueued   = 2'd1;
  localparam logic [1:0] SlotInflight = 2'd2;
  // The C model's fourth state, GMMU_WS_SLOT_ORPHAN (in flight, no consumer
  // left), is unreachable under its own rules (docs/rtl_walk_sched.md, C-model
  // item 8); the RTL has no such state and asserts the invariant that makes
  // it unreachable instead (a_held_iff_live, a_cancelled_unknown,
  // a_consumer_at_level): the lock-step bench checks it every cycle.

  // faults (C: gmmu_fault)
  localparam logic [2:0] FaultNone     = 3'd0;
  localparam logic [2:0] FaultNotPres  = 3'd1;
  localparam logic [2:0] FaultWrite    = 3'd2;
  localparam logic [2:0] FaultUser     = 3'd3;
  localparam logic [2:0] FaultNonCanon = 3'd4;
  localparam logic [2:0] FaultReserved = 3'd5;

  // ---------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------
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

  // ---------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------
  // MSHRs (C: gmmu_ws_mshr)
  // The registers marked public_flat_rd are read by the platform wrapper
  // (tb/sched/rtl_walk_sched.cpp: Quiescent(), ScansStarted()) to skip idle
  // cycles and count scans; the metacomments change nothing else.
  logic [N-1:0]        m_valid_q /*verilator public_flat_rd*/, m_valid_d;
  logic [N-1:0]        m_done_q /*verilator public_flat_rd*/, m_done_d;
  logic [N*64-1:0]     m_va_q, m_va_d;
  logic [N*2-1:0]      m_acc_q, m_acc_d;       // {user, write}
  logic [N*2-1:0]      m_start_q, m_start_d;   // start_level - 1
  logic [N*2-1:0]      m_lvl_q, m_lvl_d;       // level - 1
  logic [N*3-1:0]      m_next_q /*verilator public_flat_rd*/, m_next_d; // next_scan (0 none, 1..4)
  logic [N*3-1:0]      m_fault_q, m_fault_d;
  logic [N*64-1:0]     m_pte_q, m_pte_d;       // leaf PTE (valid when fault == 0)
  logic [N*4*KW-1:0]   m_tb_q, m_tb_d;         // tb[1..4] frame numbers
  logic [N*4-1:0]      m_refv_q, m_refv_d;     // ref[1..4] != NO_SLOT
  logic [N*4*SW-1:0]   m_ref_q, m_ref_d;
  // slots (C: gmmu_ws_slot)
  logic [S*2-1:0]      s_state_q /*verilator public_flat_rd*/, s_state_d;
  logic [S*2-1:0]      s_lvl_q, s_lvl_d;       // level - 1
  logic [S-1:0]        s_known_q /*verilator public_flat_rd*/, s_known_d;
  logic [S*KW-1:0]     s_key_q, s_key_d;       // known ? table frame : parent slot id
  logic [S*9-1:0]      s_idx_q, s_idx_d;
  logic [SPairs-1:0]   s_age_q, s_age_d;       // (a<b): 1 = a created before b
  // issue (C: have_last, last_line)
  logic                have_last_q, have_last_d;
  logic [44:0]         last_line_q, last_line_d; // PA[51:7]

  // ---------------------------------------------------------------------------
  // Combinational temporaries
  // ---------------------------------------------------------------------------
  logic [1:0]          t_state, t_lvl;
  logic [SW-1:0]       t_tag;
  logic                ref_at_v;
  logic [SW-1:0]       ref_at;
  logic [1:0]          pick_lvl;
  logic [KW-1:0]       pick_key;
  logic [8:0]          pick_idx;
  logic                t_live;
  logic [N-1:0]        consumer;
  logic [2:0]          cfault;
  logic                cleaf;
  logic [63:0]         rdata;
  logic [KW-1:0]       rframe;
  logic [S-1:0]        held;
  logic [S-1:0]        created;
  logic [S-1:0]        created_first;  // SERIAL: created by the response phase
  logic [S-1:0]        free_pre;
  logic                serial_new;
  logic [SW-1:0]       serial_new_id;
  logic [S-1:0]        conv;
  logic [S-1:0]        cancelled;
  // retire
  logic [N-1:0]        rdone;
  logic [N*3-1:0]      rrank;
  logic [2:0]          rcnt;
  logic [2:0]          nd;
  // issue
  logic [S-1:0]        cand, cand_line, pick_set, pick;
  logic                any_cand, any_line, issue;
  logic [SW-1:0]       pick_id;
  // slot allocation
  logic [S-1:0]        free_post;
  logic [S*CW-1:0]     free_rank;
  logic [CW-1:0]       free_cnt;
  // allocation
  logic [N-1:0]        fmask;
  logic [N-1:0]        alloc_set;
  logic                found;
  logic [63:0]         ava;
  logic [1:0]          astart;
  logic                canon;

  logic [N-1:0]        dbg_members;   // MSHRs grouped by this cycle's pass
  logic [N-1:0]        dbg_merged;    // ... of which joined an existing slot
  logic [N-1:0]        dbg_dispatch;  // SERIAL walks dispatched this cycle
  logic                dbg_reject;    // an allocation found no free MSHR
  logic                dbg_scan_stall;

  // scan state / temporaries (declared for every variant, used by TREE/PAIRWISE)
  logic                scan_active_q /*verilator public_flat_rd*/, scan_active_d;
  logic [1:0]          scan_lvl_q, scan_lvl_d;
  logic [1:0]          last_scan_lvl_q, last_scan_lvl_d;
  logic [TW-1:0]       scan_timer_q, scan_timer_d;
  logic [N-1:0]        scan_mask_q, scan_mask_d;
  logic [MPairs-1:0]   m_age_q, m_age_d;

  logic [N-1:0]        elig;
  logic [N-1:0]        grp;          // members of this pass
  logic [N-1:0]        kn;           // scan key known
  logic [N*KW-1:0]     key;
  logic [N*9-1:0]      idx;
  logic [N-1:0]        rep;          // first member with its (known, key, index)
  logic [N*MshrIdW-1:0] gl;          // leader (group id) of each member
  logic [N-1:0]        ex_found;
  logic [N*SW-1:0]     ex_id;
  logic [N-1:0]        need_new;
  logic [N*CW-1:0]     nrank;
  logic [N*SW-1:0]     slot_of;
  logic                do_pass, try_stall;
  logic                try_found /*verilator public_flat_rd*/; // a scan starts this cycle
  logic [1:0]          try_lvl, plvl;
  logic [CW-1:0]       ecnt;
  logic [N-1:0]        leader;
  logic [CW-1:0]       active_walks;
  logic [CW-1:0]       idle_walkers;
  logic [N*CW-1:0]     prank;

  // ---------------------------------------------------------------------------
  // Next state and outputs
  // ---------------------------------------------------------------------------
  always_comb begin
    // ---- defaults ----
    m_valid_d   = m_valid_q;
    m_done_d    = m_done_q;
    m_va_d      = m_va_q;
    m_acc_d     = m_acc_q;
    m_start_d   = m_start_q;
    m_lvl_d     = m_lvl_q;
    m_next_d    = m_next_q;
    m_fault_d   = m_fault_q;
    m_pte_d     = m_pte_q;
    m_tb_d      = m_tb_q;
    m_refv_d    = m_refv_q;
    m_ref_d     = m_ref_q;
    s_state_d   = s_state_q;
    s_lvl_d     = s_lvl_q;
    s_known_d   = s_known_q;
    s_key_d     = s_key_q;
    s_idx_d     = s_idx_q;
    s_age_d     = s_age_q;
    have_last_d = have_last_q;
    last_line_d = last_line_q;
    scan_active_d   = scan_active_q;
    scan_lvl_d      = scan_lvl_q;
    last_scan_lvl_d = last_scan_lvl_q;
    scan_timer_d    = scan_timer_q;
    scan_mask_d     = scan_mask_q;
    m_age_d         = m_age_q;

    req_valid_o        = 1'b0;
    req_level_o        = 3'd0;
    req_tag_o          = 8'd0;
    req_pa_o           = 52'd0;
    alloc_accepted_o   = 4'd0;
    alloc_mshr_o       = '0;
    n_done_o           = 3'd0;
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

    consumer      = '0;
    cfault        = FaultNone;
    cleaf         = 1'b0;
    held          = '0;
    created       = '0;
    created_first = '0;
    free_pre      = '0;
    serial_new    = 1'b0;
    serial_new_id = '0;
    conv          = '0;
    cancelled     = '0;
    rdone         = '0;
    rrank         = '0;
    rcnt          = 3'd0;
    nd            = 3'd0;
    cand          = '0;
    cand_line     = '0;
    pick_set      = '0;
    pick          = '0;
    any_cand      = 1'b0;
    any_line      = 1'b0;
    issue         = 1'b0;
    pick_id       = '0;
    pick_lvl      = 2'd0;
    pick_key      = '0;
    pick_idx      = 9'd0;
    ref_at_v      = 1'b0;
    ref_at        = '0;
    free_post     = '0;
    free_rank     = '0;
    free_cnt      = '0;
    fmask         = '0;
    alloc_set     = '0;
    found         = 1'b0;
    ava           = '0;
    astart        = '0;
    canon         = 1'b0;
    dbg_members   = '0;
    dbg_merged    = '0;
    dbg_dispatch  = '0;
    dbg_reject    = 1'b0;
    dbg_scan_stall = 1'b0;
    elig          = '0;
    grp           = '0;
    kn            = '0;
    key           = '0;
    idx           = '0;
    rep           = '0;
    gl            = '0;
    ex_found      = '0;
    ex_id         = '0;
    need_new      = '0;
    nrank         = '0;
    slot_of       = '0;
    do_pass       = 1'b0;
    try_found     = 1'b0;
    try_stall     = 1'b0;
    try_lvl       = 2'd0;
    plvl          = 2'd0;
    ecnt          = '0;
    leader        = '0;
    active_walks  = '0;
    idle_walkers  = '0;
    prank         = '0;

    rdata  = resp_data_i;
    rframe = resp_data_i[51:12];
    t_tag  = resp_tag_i[SW-1:0];
    t_state = SlotFree;
    t_lvl   = 2'd0;
    for (int s = 0; s < S; s++) begin
      if (SW'(s) == t_tag) begin
        t_state = s_state_q[s*2 +: 2];
        t_lvl   = s_lvl_q[s*2 +: 2];
      end
    end
    t_live  = resp_valid_i;

    // first free slot before this cycle (SERIAL: the consumer's next read)
    for (int s = S - 1; s >= 0; s--) begin
      if (s_state_q[s*2 +: 2] == SlotFree) begin
        free_pre[s] = 1'b1;
        serial_new_id = SW'(s);
      end
    end

    // =========================================================================
    // 1. response (C: phase_response)
    // =========================================================================
    for (int i = 0; i < N; i++) begin
      ref_at_v = 1'b0;
      ref_at   = '0;
      for (int l = 0; l < 4; l++) begin
        if (2'(l) == t_lvl) begin
          ref_at_v = m_refv_q[i*4 + l];
          ref_at   = m_ref_q[(i*4 + l)*SW +: SW];
        end
      end
      // (an MSHR naming the in-flight slot is at its level: a_consumer_at_level)
      if (t_live && m_valid_q[i] && !m_done_q[i] && ref_at_v && ref_at == t_tag) begin
        consumer[i] = 1'b1;
        // walk_consume: the same checks in the same order as gmmu_walk_from
        for (int l = 0; l < 4; l++) begin
          if (2'(l) == t_lvl) begin
            m_refv_d[i*4 + l] = 1'b0;
          end
        end
        cleaf = (t_lvl == 2'd0) || rdata[7];
        if (!rdata[0]) begin
          cfault = FaultNotPres;
        end else if (rdata[7] && t_lvl == 2'd3) begin
          cfault = FaultReserved;
        end else if (m_acc_q[i*2 + 1] && !rdata[2]) begin
          cfault = FaultUser;
        end else if (m_acc_q[i*2] && !rdata[1]) begin
          cfault = FaultWrite;
        end else if (cleaf && ((t_lvl == 2'd1 && rdata[20:12] != 9'd0) ||
                               (t_lvl == 2'd2 && rdata[29:12] != 18'd0))) begin
          cfault = FaultReserved;
        end else begin
          cfault = FaultNone;
        end
        if (cfault != FaultNone || cleaf) begin
          // walk_finish: done; release the references below this level
          m_done_d[i] = 1'b1;
          m_next_d[i*3 +: 3] = 3'd0;
          m_fault_d[i*3 +: 3] = cfault;
          if (cfault == FaultNone) begin
            m_pte_d[i*64 +: 64] = rdata;
          end
          for (int k = 0; k < 3; k++) begin
            if (k < 32'(t_lvl)) begin
              m_refv_d[i*4 + k] = 1'b0;
            end
          end
        end else begin
          m_lvl_d[i*2 +: 2] = t_lvl - 2'd1;
          for (int l = 0; l < 3; l++) begin
            if (2'(l + 1) == t_lvl) begin
              m_tb_d[(i*4 + l)*KW +: KW] = rframe;
              if (Variant == VarSerial) begin
                // serial_next_read: the walker asks for the next level at once
                serial_new = 1'b1;
                m_refv_d[i*4 + l] = 1'b1;
                m_ref_d[(i*4 + l)*SW +: SW] = serial_new_id;
              end
            end
          end
        end
      end
    end
    if (serial_new) begin
      for (int s = 0; s < S; s++) begin
        if (SW'(s) == serial_new_id) begin
          created[s] = 1'b1;
          created_first[s] = 1'b1;
          s_state_d[s*2 +: 2] = SlotQueued;
          s_lvl_d[s*2 +: 2]   = t_lvl - 2'd1;
          s_known_d[s]        = 1'b1;
          s_key_d[s*KW +: KW] = rframe;
          for (int i = 0; i < N; i++) begin
            if (consumer[i]) begin
              s_idx_d[s*9 +: 9] = va_index(m_va_q[i*64 + 12 +: 36], t_lvl - 2'd1);
            end
          end
        end
      end
    end
    // the tables named "the one this read returns" are now known
    for (int s = 0; s < S; s++) begin
      if (t_live && t_lvl != 2'd0 && s_state_q[s*2 +: 2] == SlotQueued && !s_known_q[s] &&
          s_lvl_q[s*2 +: 2] == t_lvl - 2'd1 && s_key_q[s*KW +: KW] == KW'(t_tag)) begin
        conv[s]             = 1'b1;
        s_known_d[s]        = 1'b1;
        s_key_d[s*KW +: KW] = rframe;
      end
    end
    // slot_release: a queued slot nobody holds any more is cancelled (an
    // in-flight one is only released by its own response, which frees it)
    for (int i = 0; i < N; i++) begin
      for (int l = 0; l < 4; l++) begin
        for (int s = 0; s < S; s++) begin
          if (m_refv_d[i*4 + l] && m_ref_d[(i*4 + l)*SW +: SW] == SW'(s)) begin
            held[s] = 1'b1;
          end
        end
      end
    end
    for (int s = 0; s < S; s++) begin
      if (s_state_d[s*2 +: 2] == SlotQueued && !held[s]) begin
        cancelled[s] = 1'b1;
        s_state_d[s*2 +: 2] = SlotFree;
      end
      if (resp_valid_i && SW'(s) == t_tag) begin
        s_state_d[s*2 +: 2] = SlotFree;
      end
    end

    // =========================================================================
    // 2. retire (C: phase_retire): the first RetireWidth done MSHRs
    // =========================================================================
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
          scan_mask_d[i] = 1'b0;
          done_valid_o[j] = 1'b1;
          done_mshr_o[j*8 +: 8] = 8'(i);
          done_va_o[j*64 +: 64] = m_va_q[i*64 +: 64];
          done_fault_o[j*3 +: 3] = m_fault_d[i*3 +: 3];
          done_table_o[j*160 +: 160] = m_tb_d[i*4*KW +: 4*KW];
          if (m_fault_d[i*3 +: 3] != FaultNone) begin
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

    // =========================================================================
    // 3. issue (C: phase_issue): oldest ready slot, same line as the last first
    // =========================================================================
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

    // =========================================================================
    // 4. comparator (C: phase_scan) or walker dispatch (C: phase_dispatch_serial)
    // =========================================================================
    if (HasScan) begin
      // ---- start a scan at the next level down that has work ----
      if (!scan_active_q) begin
        try_lvl = last_scan_lvl_q;
        for (int t = 0; t < 4; t++) begin
          try_lvl = (try_lvl == 2'd0) ? 2'd3 : try_lvl - 2'd1;
          if (!try_found && !try_stall) begin
            ecnt = '0;
            elig = '0;
            for (int i = 0; i < N; i++) begin
              if (m_valid_d[i] && !m_done_d[i] && m_next_d[i*3 +: 3] == {1'b0, try_lvl} + 3'd1) begin
                elig[i] = 1'b1;
                ecnt = ecnt + CW'(1);
              end
            end
            if (elig != '0) begin
              if (ecnt > free_cnt) begin
                try_stall = 1'b1;   // wait for reads to return slots
              end else begin
                try_found     = 1'b1;
                scan_active_d = 1'b1;
                scan_lvl_d    = try_lvl;
                scan_mask_d   = elig;
                scan_timer_d  = TimerLoad;
              end
            end
          end
        end
        dbg_scan_stall = try_stall;
      end
      // ---- one comparator pass when the timer runs out ----
      if (scan_active_d) begin
        if (scan_timer_d != '0) begin
          scan_timer_d = scan_timer_d - TW'(1);
        end else begin
          do_pass = 1'b1;
        end
      end
      plvl = scan_lvl_d;
      elig = '0;
      for (int i = 0; i < N; i++) begin
        elig[i] = scan_mask_d[i] && m_valid_d[i] && !m_done_d[i] &&
                  m_next_d[i*3 +: 3] == {1'b0, plvl} + 3'd1;
        // how MSHR i names the table of plvl: by PA once known, else by the
        // slot of the upper-level read that returns it
        kn[i] = m_lvl_d[i*2 +: 2] == plvl;
        for (int l = 0; l < 4; l++) begin
          if (2'(l) == plvl) begin
            if (kn[i]) begin
              key[i*KW +: KW] = m_tb_d[(i*4 + l)*KW +: KW];
            end else if (l < 3) begin
              key[i*KW +: KW] = KW'(m_ref_d[(i*4 + l + 1)*SW +: SW]);
            end
          end
        end
        idx[i*9 +: 9] = va_index(m_va_q[i*64 + 12 +: 36], plvl);
      end
      // leader: lowest eligible MSHR still in the scan
      for (int i = N - 1; i >= 0; i--) begin
        if (elig[i]) begin
          leader = '0;
          leader[i] = 1'b1;
        end
      end
      if (do_pass) begin
        // members and their group leader
        for (int i = 0; i < N; i++) begin
          for (int j = N - 1; j >= 0; j--) begin
            if (j <= i && elig[j] && elig[i] && kn[j] == kn[i] &&
                key[j*KW +: KW] == key[i*KW +: KW] && idx[j*9 + 4 +: 5] == idx[i*9 + 4 +: 5]) begin
              gl[i*MshrIdW +: MshrIdW] = MshrIdW'(j);
              if (Variant == VarPair || leader[j]) begin
                grp[i] = 1'b1;
              end
            end
          end
        end
        // representatives: first member with its (known, key, index)
        for (int i = 0; i < N; i++) begin
          rep[i] = grp[i];
          for (int j = 0; j < N; j++) begin
            if (j < i && grp[j] && kn[j] == kn[i] && key[j*KW +: KW] == key[i*KW +: KW] &&
                idx[j*9 +: 9] == idx[i*9 +: 9]) begin
              rep[i] = 1'b0;
            end
          end
        end
        // merge into a live slot with the same (level, known, key, index): first by id
        for (int i = 0; i < N; i++) begin
          for (int s = S - 1; s >= 0; s--) begin
            if (grp[i] && s_state_d[s*2 +: 2] != SlotFree && s_lvl_d[s*2 +: 2] == plvl &&
                s_known_d[s] == kn[i] && s_key_d[s*KW +: KW] == key[i*KW +: KW] &&
                s_idx_d[s*9 +: 9] == idx[i*9 +: 9]) begin
              ex_found[i] = 1'b1;
              ex_id[i*SW +: SW] = SW'(s);
            end
          end
          need_new[i] = grp[i] && !ex_found[i];
        end
        // new slots in (group leader, index) order, each the next free slot
        for (int i = 0; i < N; i++) begin
          for (int j = 0; j < N; j++) begin
            if (need_new[j] && rep[j] && need_new[i] &&
                (gl[j*MshrIdW +: MshrIdW] < gl[i*MshrIdW +: MshrIdW] ||
                 (gl[j*MshrIdW +: MshrIdW] == gl[i*MshrIdW +: MshrIdW] &&
                  idx[j*9 +: 9] < idx[i*9 +: 9]))) begin
              nrank[i*CW +: CW] = nrank[i*CW +: CW] + CW'(1);
            end
          end
        end
        for (int i = 0; i < N; i++) begin
          slot_of[i*SW +: SW] = ex_id[i*SW +: SW];
          for (int s = 0; s < S; s++) begin
            if (need_new[i] && free_post[s] && free_rank[s*CW +: CW] == nrank[i*CW +: CW]) begin
              slot_of[i*SW +: SW] = SW'(s);
              if (rep[i]) begin
                created[s] = 1'b1;
                s_state_d[s*2 +: 2] = SlotQueued;
                s_lvl_d[s*2 +: 2]   = plvl;
                s_known_d[s]        = kn[i];
                s_key_d[s*KW +: KW] = key[i*KW +: KW];
                s_idx_d[s*9 +: 9]   = idx[i*9 +: 9];
              end
            end
          end
          if (grp[i]) begin
            for (int l = 0; l < 4; l++) begin
              if (2'(l) == plvl) begin
                m_refv_d[i*4 + l] = 1'b1;
                m_ref_d[(i*4 + l)*SW +: SW] = slot_of[i*SW +: SW];
              end
            end
            m_next_d[i*3 +: 3] = {1'b0, plvl};
          end
        end
        dbg_members = grp;
        dbg_merged  = grp & ex_found;
        scan_mask_d = scan_mask_d & ~grp;
        if ((elig & ~grp) != '0) begin
          scan_timer_d = TimerLoad;
        end else begin
          scan_active_d   = 1'b0;
          scan_mask_d     = '0;
          last_scan_lvl_d = plvl;
        end
      end
    end else begin
      // ---- SERIAL: each idle walker takes the oldest waiting walk ----
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

    // slots created this cycle are younger than all others; among them the
    // SERIAL response's slot (created in phase 1) is older than the walker
    // dispatch slots (phase 4), which may reuse the lower id the response
    // freed; otherwise a phase creates its slots in id order
    for (int a = 0; a < S; a++) begin
      for (int b = a + 1; b < S; b++) begin
        if (created[a] && created[b]) begin
          s_age_d[pair_idx(a, b, S)] = created_first[a] || !created_first[b];
        end else if (created[b]) begin
          s_age_d[pair_idx(a, b, S)] = 1'b1;
        end else if (created[a]) begin
          s_age_d[pair_idx(a, b, S)] = 1'b0;
        end
      end
    end

    // =========================================================================
    // 5. allocation (C: phase_alloc) into MSHRs free at the start of the cycle
    // =========================================================================
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

  // ---------------------------------------------------------------------------
  // Registers
  // ---------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      m_valid_q   <= '0;
      m_done_q    <= '0;
      m_va_q      <= '0;
      m_acc_q     <= '0;
      m_start_q   <= '0;
      m_lvl_q     <= '0;
      m_next_q    <= '0;
      m_fault_q   <= '0;
      m_pte_q     <= '0;
      m_tb_q      <= '0;
      m_refv_q    <= '0;
      m_ref_q     <= '0;
      s_state_q   <= '0;
      s_lvl_q     <= '0;
      s_known_q   <= '0;
      s_key_q     <= '0;
      s_idx_q     <= '0;
      s_age_q     <= '0;
      have_last_q <= 1'b0;
      last_line_q <= '0;
    end else begin
      m_valid_q   <= m_valid_d;
      m_done_q    <= m_done_d;
      m_va_q      <= m_va_d;
      m_acc_q     <= m_acc_d;
      m_start_q   <= m_start_d;
      m_lvl_q     <= m_lvl_d;
      m_next_q    <= m_next_d;
      m_fault_q   <= m_fault_d;
      m_pte_q     <= m_pte_d;
      m_tb_q      <= m_tb_d;
      m_refv_q    <= m_refv_d;
      m_ref_q     <= m_ref_d;
      s_state_q   <= s_state_d;
      s_lvl_q     <= s_lvl_d;
      s_known_q   <= s_known_d;
      s_key_q     <= s_key_d;
      s_idx_q     <= s_idx_d;
      s_age_q     <= s_age_d;
      have_last_q <= have_last_d;
      last_line_q <= last_line_d;
    end
  end

  if (HasScan) begin : gen_scan_regs
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        scan_active_q   <= 1'b0;
        scan_lvl_q      <= 2'd0;
        last_scan_lvl_q <= 2'd0;   // level 1: the first scan is at level 4
        scan_mask_q     <= '0;
      end else begin
        scan_active_q   <= scan_active_d;
        scan_lvl_q      <= scan_lvl_d;
        last_scan_lvl_q <= last_scan_lvl_d;
        scan_mask_q     <= scan_mask_d;
      end
    end
    if (ScanPassCycles > 1) begin : gen_timer
      always_ff @(posedge clk_i or negedge rst_ni) begin
        if (!rst_ni) begin
          scan_timer_q <= '0;
        end else begin
          scan_timer_q <= scan_timer_d;
        end
      end
    end else begin : gen_no_timer
      assign scan_timer_q = '0;
      logic unused_timer;
      assign unused_timer = ^scan_timer_d;
    end
    assign m_age_q = '0;
    logic unused_m_age;
    assign unused_m_age = ^m_age_d;
  end else begin : gen_walker_regs
    logic unused_scan;
    assign unused_scan = ^{scan_active_d, scan_lvl_d, last_scan_lvl_d, scan_timer_d, scan_mask_d};
    assign scan_active_q   = 1'b0;
    assign scan_lvl_q      = 2'd0;
    assign last_scan_lvl_q = 2'd0;
    assign scan_timer_q    = '0;
    assign scan_mask_q     = '0;
    if (N > 1) begin : gen_mshr_age
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
  end

  // lowRISC idiom: bits of the C-width ports this configuration cannot use
  logic unused_tag_hi;
  assign unused_tag_hi = ^resp_tag_i[7:SW];

`ifndef SYNTHESIS
  // ---------------------------------------------------------------------------
  // One-cycle assertions (checked by the bench with --assert)
  // ---------------------------------------------------------------------------
  logic [S-1:0] held_next;
  logic [S-1:0] chk_ref_live;
  logic         chk_new_unique;
  logic [N-1:0] chk_consumer_lvl;
  always_comb begin
    held_next      = '0;
    chk_ref_live   = '1;
    chk_new_unique = 1'b1;
    // every not-done MSHR that names the responding slot at the slot's level
    // is at that level (so consuming needs no level compare)
    chk_consumer_lvl = '1;
    for (int i = 0; i < N; i++) begin
      if (consumer[i] && m_lvl_q[i*2 +: 2] != t_lvl) begin
        chk_consumer_lvl[i] = 1'b0;
      end
    end
    for (int i = 0; i < N; i++) begin
      for (int l = 0; l < 4; l++) begin
        for (int s = 0; s < S; s++) begin
          if (m_refv_d[i*4 + l] && m_ref_d[(i*4 + l)*SW +: SW] == SW'(s)) begin
            held_next[s] = 1'b1;
          end
          // every reference an MSHR holds names a live slot of that level
          if (m_refv_q[i*4 + l] && m_ref_q[(i*4 + l)*SW +: SW] == SW'(s) &&
              (s_state_q[s*2 +: 2] == SlotFree || s_lvl_q[s*2 +: 2] != 2'(l))) begin
            chk_ref_live[s] = 1'b0;
          end
        end
      end
    end
    // no duplicate line reference in a line group: the slots one comparator
    // pass creates name distinct (known, table, index). (SERIAL walkers never
    // merge, so two of them may ask for the same PTE in one cycle.)
    for (int a = 0; a < S && HasScan; a++) begin
      for (int b = a + 1; b < S; b++) begin
        if (created[a] && created[b] && s_known_d[a] == s_known_d[b] &&
            s_lvl_d[a*2 +: 2] == s_lvl_d[b*2 +: 2] &&
            s_key_d[a*KW +: KW] == s_key_d[b*KW +: KW] &&
            s_idx_d[a*9 +: 9] == s_idx_d[b*9 +: 9]) begin
          chk_new_unique = 1'b0;
        end
      end
    end
  end

  // inputs the C model rejects with GMMU_EINVAL never arrive
  a_resp_tag_in_flight: assert property (@(posedge clk_i) disable iff (!rst_ni)
    !resp_valid_i || (resp_tag_i < 8'(S) && t_state == SlotInflight));
  for (genvar k = 0; k < 4; k++) begin : gen_alloc_chk
    a_alloc_start_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !alloc_valid_i[k] || (alloc_start_level_i[k*3 +: 3] >= 3'd1 &&
                            alloc_start_level_i[k*3 +: 3] <= 3'd4));
  end
  // a slot is queued or in flight exactly while some MSHR holds it
  for (genvar s = 0; s < S; s++) begin : gen_slot_chk
    a_held_iff_live: assert property (@(posedge clk_i) disable iff (!rst_ni)
      ((s_state_d[s*2 +: 2] == SlotQueued || s_state_d[s*2 +: 2] == SlotInflight) ==
       held_next[s]));
  end
  a_ref_names_live_slot: assert property (@(posedge clk_i) disable iff (!rst_ni)
    &chk_ref_live);
  // the C model's unreachable orphan paths (see SlotInflight above): a
  // cancelled slot was never known, and a response's consumers are at its level
  a_cancelled_unknown: assert property (@(posedge clk_i) disable iff (!rst_ni)
    (cancelled & s_known_q) == '0);
  a_consumer_at_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
    &chk_consumer_lvl);
  a_no_dup_line_ref: assert property (@(posedge clk_i) disable iff (!rst_ni) chk_new_unique);
  a_pick_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni)
    $onehot0(pick) && (!any_cand || $onehot(pick)));
  a_leader_onehot: assert property (@(posedge clk_i) disable iff (!rst_ni) $onehot0(leader));
  // a scan never has to wait for slots (docs/rtl_walk_sched.md, C-model item
  // 9): an MSHR holds at most one slot per level, and one waiting for a scan
  // at level l holds none at l or below, so the 4 x Mshrs slots always leave
  // at least one free slot per waiting MSHR. The wait logic above mirrors the
  // C model's defensive branch; this checks every cycle that it stays idle.
  a_scan_never_waits_for_slots: assert property (@(posedge clk_i) disable iff (!rst_ni)
    !dbg_scan_stall);
  // scans reserve slots before they start: every new reference finds a free slot
  a_slots_suffice: assert property (@(posedge clk_i) disable iff (!rst_ni)
    $countones(need_new & rep) <= 32'(free_cnt));
  a_serial_one_consumer: assert property (@(posedge clk_i) disable iff (!rst_ni)
    Variant != VarSerial || ($onehot0(consumer) && (!serial_new || free_pre != '0)));
  a_serial_walkers: assert property (@(posedge clk_i) disable iff (!rst_ni)
    Variant != VarSerial || active_walks <= CW'(Walkers));
  a_retired_were_done: assert property (@(posedge clk_i) disable iff (!rst_ni)
    32'(n_done_o) <= 32'(RetireWidth) && $countones(done_valid_o) == 32'(n_done_o));

  // ---------------------------------------------------------------------------
  // Cover points (merged by the bench with verilator_coverage)
  // ---------------------------------------------------------------------------
  c_merge_on_response: cover property (@(posedge clk_i) $countones(consumer) >= 2);
  c_merge_into_live_slot: cover property (@(posedge clk_i) dbg_merged != '0);
  c_reference_cancelled: cover property (@(posedge clk_i) cancelled != '0);
  c_table_becomes_known: cover property (@(posedge clk_i) conv != '0);
  c_same_line_back_to_back: cover property (@(posedge clk_i) issue && any_line);
  c_line_lock_beats_older: cover property (@(posedge clk_i)
    issue && any_line && (cand & ~cand_line) != '0);
  c_mem_stall: cover property (@(posedge clk_i) any_cand && !mem_ready_i);
  c_mshr_full_reject: cover property (@(posedge clk_i) dbg_reject);
  c_mshrs_all_busy: cover property (@(posedge clk_i) m_valid_q == '1);
  c_four_allocs: cover property (@(posedge clk_i) alloc_accepted_o == 4'hF);
  c_retire_full_width: cover property (@(posedge clk_i)
    32'(n_done_o) == 32'(RetireWidth) && $countones(rdone) > 32'(RetireWidth));
  c_pass_two_indices: cover property (@(posedge clk_i) $countones(grp & rep) >= 2);
  c_pass_two_groups: cover property (@(posedge clk_i)
    $countones(grp & rep) >= 2 && $countones(dbg_members & leader) == 1 &&
    $countones(created) >= 2);
  c_scan_continues: cover property (@(posedge clk_i) do_pass && scan_active_d);
  c_dispatch_two_walkers: cover property (@(posedge clk_i) $countones(dbg_dispatch) >= 2);
  for (genvar f = 1; f <= 5; f++) begin : gen_cover_fault
    c_fault_kind: cover property (@(posedge clk_i)
      done_valid_o[0] && done_fault_o[2:0] == 3'(f));
  end
  for (genvar l = 0; l < 3; l++) begin : gen_cover_page
    c_page_size: cover property (@(posedge clk_i)
      done_valid_o[0] && done_fault_o[2:0] == 3'd0 && done_page_shift_o[5:0] == 6'(12 + 9 * l));
  end
  for (genvar l = 1; l <= 4; l++) begin : gen_cover_level
    c_issue_level: cover property (@(posedge clk_i) req_valid_o && req_level_o == 3'(l));
  end
`endif

endmodule
