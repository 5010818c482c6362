// gmmu - walk scheduler comparator (C: phase_scan), TREE and PAIRWISE: a scan
// starts at the next level down that has waiting walks; each comparator pass
// (every ScanPassCycles cycles) groups the waiting walks whose next read is in
// the same 128-byte line (TREE: the lowest walk's line only; PAIRWISE: every
// line at once), merges each distinct PTE into a live read of it or a new slot,
// and ends the scan when no walk of the level is left. The scan registers
// live here.
module ws_scan #(
  parameter int unsigned Variant        = 1,
  parameter int unsigned Mshrs          = 4,
  parameter int unsigned ScanPassCycles = 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // walk state after the response and retire phases
  input  logic [Mshrs-1:0]        m_valid_d,
  input  logic [Mshrs-1:0]        m_done_d,
  input  logic [Mshrs*2-1:0]      m_lvl_d,
  input  logic [Mshrs*4*40-1:0]   m_tb_d,
  input  logic [Mshrs*64-1:0]     m_va_q,
  input  logic [Mshrs-1:0]        retired,
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
  input  logic [$clog2(4*Mshrs):0] free_cnt,
  // state after this phase
  output logic [Mshrs*3-1:0]      m_next_d,
  output logic [Mshrs*4-1:0]      m_refv_d,
  output logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_d,
  output logic [4*Mshrs*2-1:0]    s_state_d,
  output logic [4*Mshrs*2-1:0]    s_lvl_d,
  output logic [4*Mshrs-1:0]      s_known_d,
  output logic [4*Mshrs*40-1:0]   s_key_d,
  output logic [4*Mshrs*9-1:0]    s_idx_d,
  output logic [4*Mshrs-1:0]      created,
  // for the platform wrapper (skipping idle cycles, counting scans)
  output logic              scan_active_o,
  output logic              try_found_o
);
  `include "ws_defs.svh"

  localparam int unsigned TW = (ScanPassCycles > 1) ? $clog2(ScanPassCycles) : 1;
  localparam logic [TW-1:0] TimerLoad = TW'(ScanPassCycles - 1);

  logic              scan_active_q, scan_active_d;
  logic [1:0]        scan_lvl_q, scan_lvl_d;
  logic [1:0]        last_scan_lvl_q, last_scan_lvl_d;
  logic [TW-1:0]     scan_timer_q, scan_timer_d;
  logic [N-1:0]      scan_mask_q, scan_mask_d;

  logic [N-1:0]      elig;
  logic [N-1:0]      grp;          // members of this pass
  logic [N-1:0]      kn;           // scan key known
  logic [N*KW-1:0]   key;
  logic [N*9-1:0]    idx;
  logic [N-1:0]      rep;          // first member with its (known, key, index)
  logic [N*MshrIdW-1:0] gl;        // leader (group id) of each member
  logic [N-1:0]      ex_found;
  logic [N*SW-1:0]   ex_id;
  logic [N-1:0]      need_new;
  logic [N*CW-1:0]   nrank;
  logic [N*SW-1:0]   slot_of;
  logic              do_pass, try_stall, try_found;
  logic [1:0]        try_lvl, plvl;
  logic [CW-1:0]     ecnt;
  logic [N-1:0]      leader;
  logic [N-1:0]      dbg_members;  // MSHRs grouped by this cycle's pass
  logic [N-1:0]      dbg_merged;   // ... of which joined an existing slot
  logic              dbg_scan_stall;

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
    scan_active_d   = scan_active_q;
    scan_lvl_d      = scan_lvl_q;
    last_scan_lvl_d = last_scan_lvl_q;
    scan_timer_d    = scan_timer_q;
    scan_mask_d     = scan_mask_q & ~retired;
    elig      = '0;
    grp       = '0;
    kn        = '0;
    key       = '0;
    idx       = '0;
    rep       = '0;
    gl        = '0;
    ex_found  = '0;
    ex_id     = '0;
    need_new  = '0;
    nrank     = '0;
    slot_of   = '0;
    do_pass   = 1'b0;
    try_found = 1'b0;
    try_stall = 1'b0;
    try_lvl   = 2'd0;
    plvl      = 2'd0;
    ecnt      = '0;
    leader    = '0;
    dbg_members    = '0;
    dbg_merged     = '0;
    dbg_scan_stall = 1'b0;

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
  end

  assign scan_active_o = scan_active_q;
  assign try_found_o   = try_found;

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

`ifndef SYNTHESIS
  // no duplicate line reference in a line group: the slots one comparator
  // pass creates name distinct (known, table, index)
  logic chk_new_unique;
  // (pairs of created slots only: a few per pass, so the simulator does not
  // compare all S*(S-1)/2 pairs every cycle)
  always_comb begin
    chk_new_unique = 1'b1;
    for (int a = 0; a < S; a++) begin
      if (created[a]) begin
        for (int b = a + 1; b < S; b++) begin
          if (created[b] && s_known_d[a] == s_known_d[b] &&
              s_lvl_d[a*2 +: 2] == s_lvl_d[b*2 +: 2] &&
              s_key_d[a*KW +: KW] == s_key_d[b*KW +: KW] &&
              s_idx_d[a*9 +: 9] == s_idx_d[b*9 +: 9]) begin
            chk_new_unique = 1'b0;
          end
        end
      end
    end
  end
  a_no_dup_line_ref: assert property (@(posedge clk_i) disable iff (!rst_ni) chk_new_unique);
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

  c_merge_into_live_slot: cover property (@(posedge clk_i) dbg_merged != '0);
  c_pass_two_indices: cover property (@(posedge clk_i) $countones(grp & rep) >= 2);
  c_pass_two_groups: cover property (@(posedge clk_i)
    $countones(grp & rep) >= 2 && $countones(dbg_members & leader) == 1 &&
    $countones(created) >= 2);
  c_scan_continues: cover property (@(posedge clk_i) do_pass && scan_active_d);
`else
  logic unused_dbg;
  assign unused_dbg = ^{dbg_members, dbg_merged, dbg_scan_stall};
`endif
endmodule
