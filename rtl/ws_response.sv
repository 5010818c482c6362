// gmmu - walk scheduler response phase (C: phase_response): the PTE read that
// returns this cycle is consumed by every walk that waits on it (the checks of
// gmmu_walk_from, in gmmu_pte_judge's order: not present, reserved bits, then
// a permission denial that is remembered in the MSHR's fault and denied-level
// registers and reported only at a present, well-formed leaf); a walk that
// hits a translation fault or reaches its leaf finishes, the others step one
// level down (SERIAL: and ask for the next read at once); queued reads of the table this read names become known; a queued
// read nobody holds any more is cancelled, and the responding slot is freed.
module ws_response #(
  parameter int unsigned Variant = 1,
  parameter int unsigned Mshrs   = 4
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  // gmmu_ws_in.resp
  input  logic              resp_valid_i,
  input  logic [7:0]        resp_tag_i,
  input  logic [63:0]       resp_data_i,
  // the responding slot (slot file read port) and the first free slot
  input  logic [1:0]        t_state,
  input  logic [1:0]        t_lvl,
  input  logic              free_any,
  input  logic [$clog2(4*Mshrs)-1:0] serial_new_id,
  // registered state
  input  logic [Mshrs-1:0]        m_valid_q,
  input  logic [Mshrs-1:0]        m_done_q,
  input  logic [Mshrs*64-1:0]     m_va_q,
  input  logic [Mshrs*2-1:0]      m_acc_q,
  input  logic [Mshrs*2-1:0]      m_lvl_q,
  input  logic [Mshrs*3-1:0]      m_next_q,
  input  logic [Mshrs*3-1:0]      m_fault_q,
  input  logic [Mshrs*2-1:0]      m_dlvl_q,
  input  logic [Mshrs*64-1:0]     m_pte_q,
  input  logic [Mshrs*4*40-1:0]   m_tb_q,
  input  logic [Mshrs*4-1:0]      m_refv_q,
  input  logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_q,
  input  logic [4*Mshrs*2-1:0]    s_state_q,
  input  logic [4*Mshrs*2-1:0]    s_lvl_q,
  input  logic [4*Mshrs-1:0]      s_known_q,
  input  logic [4*Mshrs*40-1:0]   s_key_q,
  input  logic [4*Mshrs*9-1:0]    s_idx_q,
  // state after this phase
  output logic [Mshrs-1:0]        m_done_d,
  output logic [Mshrs*2-1:0]      m_lvl_d,
  output logic [Mshrs*3-1:0]      m_next_d,
  output logic [Mshrs*3-1:0]      m_fault_d,
  output logic [Mshrs*2-1:0]      m_dlvl_d,
  output logic [Mshrs*64-1:0]     m_pte_d,
  output logic [Mshrs*4*40-1:0]   m_tb_d,
  output logic [Mshrs*4-1:0]      m_refv_d,
  output logic [Mshrs*4*$clog2(4*Mshrs)-1:0] m_ref_d,
  output logic [4*Mshrs*2-1:0]    s_state_d,
  output logic [4*Mshrs*2-1:0]    s_lvl_d,
  output logic [4*Mshrs-1:0]      s_known_d,
  output logic [4*Mshrs*40-1:0]   s_key_d,
  output logic [4*Mshrs*9-1:0]    s_idx_d,
  output logic [4*Mshrs-1:0]      created   // SERIAL: the next read's slot
);
  `include "ws_defs.svh"

  logic [SW-1:0]  t_tag;
  logic           ref_at_v;
  logic [SW-1:0]  ref_at;
  logic           t_live;
  logic [N-1:0]   consumer;
  logic [2:0]     cfault;
  logic           cleaf;
  logic           chard;
  logic [63:0]    rdata;
  logic [KW-1:0]  rframe;
  logic [S-1:0]   held;
  logic           serial_new;
  logic [S-1:0]   conv;
  logic [S-1:0]   cancelled;

  always_comb begin
    m_done_d  = m_done_q;
    m_lvl_d   = m_lvl_q;
    m_next_d  = m_next_q;
    m_fault_d = m_fault_q;
    m_dlvl_d  = m_dlvl_q;
    m_pte_d   = m_pte_q;
    m_tb_d    = m_tb_q;
    m_refv_d  = m_refv_q;
    m_ref_d   = m_ref_q;
    s_state_d = s_state_q;
    s_lvl_d   = s_lvl_q;
    s_known_d = s_known_q;
    s_key_d   = s_key_q;
    s_idx_d   = s_idx_q;
    created   = '0;
    consumer  = '0;
    cfault    = FaultNone;
    cleaf     = 1'b0;
    chard     = 1'b0;
    held      = '0;
    serial_new = 1'b0;
    conv      = '0;
    cancelled = '0;
    ref_at_v  = 1'b0;
    ref_at    = '0;

    rdata  = resp_data_i;
    rframe = resp_data_i[51:12];
    t_tag  = resp_tag_i[SW-1:0];
    t_live = resp_valid_i;

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
        // (a walk not done holds FaultNone or the denial it carries)
        cleaf = (t_lvl == 2'd0) || rdata[7];
        cfault = m_fault_q[i*3 +: 3];
        chard = 1'b1;
        if (!rdata[0]) begin
          cfault = FaultNotPres;
        end else if (rdata[7] && t_lvl == 2'd3) begin
          cfault = FaultReserved;
        end else if (cleaf && ((t_lvl == 2'd1 && rdata[20:13] != 8'd0) ||
                               (t_lvl == 2'd2 && rdata[29:13] != 17'd0))) begin
          // a large leaf's frame bits below its size; bit 12 is PAT
          cfault = FaultReserved;
        end else begin
          chard = 1'b0;
          if (cfault == FaultNone) begin
            // the first denying entry: remembered, judged at the leaf
            if (m_acc_q[i*2 + 1] && !rdata[2]) begin
              cfault = FaultUser;
              m_dlvl_d[i*2 +: 2] = t_lvl;
            end else if (m_acc_q[i*2] && !rdata[1]) begin
              cfault = FaultWrite;
              m_dlvl_d[i*2 +: 2] = t_lvl;
            end
          end
        end
        m_fault_d[i*3 +: 3] = cfault;
        if (chard || cleaf) begin
          // walk_finish: done; release the references below this level
          m_done_d[i] = 1'b1;
          m_next_d[i*3 +: 3] = 3'd0;
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
  end

  // lowRISC idiom: bits of the C-width port this configuration cannot use
  logic unused_tag_hi;
  assign unused_tag_hi = ^resp_tag_i[7:SW];

`ifndef SYNTHESIS
  // every not-done MSHR that names the responding slot at the slot's level
  // is at that level (so consuming needs no level compare)
  logic [N-1:0] chk_consumer_lvl;
  always_comb begin
    chk_consumer_lvl = '1;
    for (int i = 0; i < N; i++) begin
      if (consumer[i] && m_lvl_q[i*2 +: 2] != t_lvl) begin
        chk_consumer_lvl[i] = 1'b0;
      end
    end
  end
  // inputs the C model rejects with GMMU_EINVAL never arrive
  a_resp_tag_in_flight: assert property (@(posedge clk_i) disable iff (!rst_ni)
    !resp_valid_i || (resp_tag_i < 8'(S) && t_state == SlotInflight));
  // the C model's unreachable orphan paths (see rtl/walk_sched.sv): a
  // cancelled slot was never known, and a response's consumers are at its level
  a_cancelled_unknown: assert property (@(posedge clk_i) disable iff (!rst_ni)
    (cancelled & s_known_q) == '0);
  a_consumer_at_level: assert property (@(posedge clk_i) disable iff (!rst_ni)
    &chk_consumer_lvl);
  a_serial_one_consumer: assert property (@(posedge clk_i) disable iff (!rst_ni)
    Variant != VarSerial || ($onehot0(consumer) && (!serial_new || free_any)));

  c_merge_on_response: cover property (@(posedge clk_i) $countones(consumer) >= 2);
  c_reference_cancelled: cover property (@(posedge clk_i) cancelled != '0);
  c_table_becomes_known: cover property (@(posedge clk_i) conv != '0);
`else
  logic unused_chk;
  assign unused_chk = ^{clk_i, rst_ni, t_state, free_any, conv, cancelled};
`endif
endmodule
