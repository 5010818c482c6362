// Random stimulus from SV. A run draws a page-table world: a small pool of
// table frames that every non-leaf PTE points into (walks share tables and
// lines), PTEs a pure function of their PA (mostly present, some large pages
// aligned or not, random U/W and junk bits), VAs from few indices per level.
// The run goes in phases of 500..20,500 cycles; each phase draws its traffic
// knobs (how often allocations are offered and on how many ports, how often
// memory is ready: sometimes nearly never, so that scans run ahead of memory
// and MSHRs run short; the latency range; in-order or shuffled responses;
// whether walks start below the root), and one phase in four a new world.
// Each cycle: allocations of walks from the root or from a table a PWC would
// have supplied (start level 3..1), offered from a queue (an allocation the
// scheduler refuses is offered again, first, until taken), and the memory:
// the scheduler's requests come back after the phase's latencies, one per
// cycle, with mem_ready low as often as the phase says.
class ws_sequence;
  // the world
  longint unsigned salt;
  longint unsigned tables[];
  int unsigned present_pct, ps_pct, u_pct, w_pct;
  int unsigned idx4[], idx3[], idx2[];
  int unsigned l1_base, l1_span;
  // the phase's knobs (per mille where named p_)
  int unsigned p_alloc, p_slot, p_ready, lat_min, lat_max;
  bit in_order, mixed_start;
  longint unsigned phase_end;
  bit stop_alloc;

  // allocations not yet taken, oldest first, and where this cycle's went
  ws_item queue[$];
  int offered[4];

  // requests in flight: tag, PA, first cycle they may return
  int unsigned     pend_tag[$];
  longint unsigned pend_pa[$];
  longint unsigned pend_due[$];
  longint unsigned cycle;

  function automatic bit pct(input int unsigned per_mille);
    return ($urandom % 1000) < per_mille;
  endfunction

  function new();
    draw_world();
    draw_knobs();
    phase_end = 500 + $urandom % 20000;
  endfunction

  function void draw_world();
    int unsigned k = 2 + $urandom % 20;
    bit low = ($urandom % 4) == 0;
    salt = {$urandom, $urandom};
    tables = new[k];
    // frames anywhere in the 52-bit space, or (some worlds) in the first
    // 128 KiB, where a frame number can equal a slot id
    foreach (tables[i])
      tables[i] = low ? (64'((i + $urandom % 8) % 32) << 12)
                      : (({$urandom, $urandom} & 64'h000F_FFFF_FFFF_F000) | (64'(i) << 12));
    present_pct = 85 + $urandom % 16;
    ps_pct = $urandom % 10;
    if ($urandom % 3 == 0) ps_pct = 10 + $urandom % 30;
    u_pct = 75 + $urandom % 26;
    w_pct = 70 + $urandom % 31;
    idx4 = new[1 + $urandom % 3];
    idx3 = new[1 + $urandom % 4];
    idx2 = new[1 + $urandom % 8];
    foreach (idx4[i]) idx4[i] = $urandom % 512;
    foreach (idx3[i]) idx3[i] = $urandom % 512;
    foreach (idx2[i]) idx2[i] = $urandom % 512;
    l1_base = $urandom % 512;
    l1_span = 1 + $urandom % 64;
    // queued allocations of the old world stay valid walks: they are kept
  endfunction

  function void draw_knobs();
    p_alloc = 50 + $urandom % 951;
    p_slot = 200 + $urandom % 801;
    p_ready = 400 + $urandom % 601;
    if ($urandom % 3 == 0) p_ready = 1000;
    else if ($urandom % 6 == 0) p_ready = 20 + $urandom % 90;  // memory nearly blocked
    lat_min = 1 + $urandom % 4;
    lat_max = lat_min + (($urandom % 4 == 0) ? $urandom % 200 : $urandom % 40);
    in_order = ($urandom % 4) == 0;
    mixed_start = ($urandom % 2) == 0;
  endfunction

  // the page-table word at pa
  function automatic longint unsigned pte_at(input longint unsigned pa);
    longint unsigned h, h2, h3, pte, frame;
    int unsigned n;
    h = mix64(pa ^ salt);
    h2 = mix64(h);
    h3 = mix64(h2);
    pte = h3 & 64'hFFF0_0000_0000_0E18; // junk in ignored / NX / PWT / PCD bits
    if (h % 100 >= 64'(present_pct)) return pte & ~64'h1;
    pte |= 64'h21; // P, A
    if ((h >> 8) % 100 < 64'(u_pct)) pte |= 64'h4;
    if ((h >> 16) % 100 < 64'(w_pct)) pte |= 64'h2;
    if ((h >> 24) % 100 < 64'(ps_pct)) begin
      pte |= 64'h80;
      frame = h2 & 64'h000F_FFFF_FFFF_F000;
      case ((h >> 40) % 4)
        0: frame &= ~64'h3FFF_FFFF;                          // 1 GiB aligned
        1: frame &= ~64'h1F_FFFF;                            // 2 MiB aligned
        // one bit off; a quarter of these set bit 12 alone (PAT in a large
        // leaf, the bit just below a 2 MiB page's reserved ones)
        2: frame = (frame & ~64'h3FFF_FFFF) | (64'h1 << (((h >> 44) % 4 == 0) ? 12 : 12 + (h >> 48) % 18));
        default: ;                                           // random low bits
      endcase
      return pte | frame;
    end
    n = tables.size();
    n = 32'((h >> 32) % 64'(n));
    frame = tables[n];
    return pte | frame;
  endfunction

  function automatic longint unsigned pick_va();
    longint unsigned va;
    int unsigned r = $urandom % 100;
    if (r < 3) return {$urandom, $urandom};                   // mostly non-canonical
    if (r < 5) begin // either side of the canonical boundary: bit 47 and bits 63:48 disagree
      va = (64'($urandom) << 12 | (64'($urandom) << 32)) & 64'h0000_7FFF_FFFF_FFFF;
      return (r == 3) ? (va | 64'h0000_8000_0000_0000) : (va | 64'hFFFF_0000_0000_0000);
    end
    va = (64'(idx4[$urandom % idx4.size()]) << 39) | (64'(idx3[$urandom % idx3.size()]) << 30) |
         (64'(idx2[$urandom % idx2.size()]) << 21) |
         (64'((l1_base + $urandom % l1_span) % 512) << 12) | 64'($urandom % 4096);
    if (r < 8) va = 64'($urandom) << 12 | (64'($urandom) << 44);
    va &= 64'h0000_FFFF_FFFF_FFFF;
    if (va[47]) va[63:48] = '1;
    return va;
  endfunction

  function ws_item new_alloc();
    ws_item a = new;
    a.alloc_va[0] = pick_va();
    a.alloc_access[0] = $urandom % 4;
    a.alloc_start_level[0] = 4;
    a.alloc_table[0] = tables[0];
    if (mixed_start && $urandom % 3 == 0) begin
      a.alloc_start_level[0] = 1 + $urandom % 3;
      a.alloc_table[0] = tables[$urandom % tables.size()];
    end
    return a;
  endfunction

  function ws_item next();
    ws_item it = new;
    ws_item a;
    int unsigned n = 0;
    cycle++;
    if (cycle == phase_end) begin
      draw_knobs();
      if ($urandom % 4 == 0) draw_world();
      phase_end = cycle + 500 + $urandom % 20000;
    end
    for (int i = 0; i < 4; i++) begin
      offered[i] = -1;
      it.alloc_va[i] = {$urandom, $urandom};  // junk on an idle lane
      it.alloc_table[i] = {$urandom, $urandom} & 64'h000F_FFFF_FFFF_F000;
      it.alloc_start_level[i] = $urandom % 8;
      it.alloc_access[i] = $urandom % 4;
    end
    if (!stop_alloc && pct(p_alloc))
      for (int i = 0; i < 4; i++) begin
        if (!pct(p_slot)) continue;
        while (queue.size() <= n) queue.push_back(new_alloc());
        a = queue[n];
        it.alloc_valid[i] = 1'b1;
        it.alloc_va[i] = a.alloc_va[0];
        it.alloc_access[i] = a.alloc_access[0];
        it.alloc_start_level[i] = a.alloc_start_level[0];
        it.alloc_table[i] = a.alloc_table[0];
        offered[i] = int'(n);
        n++;
      end
    it.mem_ready = pct(p_ready);
    // one response among those due (the oldest, in an in-order phase)
    begin
      int unsigned due[$];
      foreach (pend_due[i]) if (pend_due[i] <= cycle) due.push_back(i);
      if (in_order && due.size() > 0 && due[0] != 0) due.delete();
      if (due.size() > 0 && pct(800)) begin
        int unsigned j = in_order ? 0 : due[$urandom % due.size()];
        it.resp_valid = 1'b1;
        it.resp_tag = pend_tag[j];
        it.resp_data = pte_at(pend_pa[j]);
        pend_tag.delete(j);
        pend_pa.delete(j);
        pend_due.delete(j);
      end else begin
        it.resp_tag = $urandom % 256;
        it.resp_data = {$urandom, $urandom};
      end
    end
    return it;
  endfunction

  // the scheduler's request of this cycle goes to memory; the allocations it
  // took leave the queue
  function void observe(input ws_obs o);
    for (int i = 3; i >= 0; i--)
      if (offered[i] >= 0 && o.out.alloc_accepted[i]) queue.delete(offered[i]);
    if (o.out.req_valid) begin
      pend_tag.push_back(int'(o.out.req_tag));
      pend_pa.push_back(64'(o.out.req_pa));
      pend_due.push_back(cycle + 64'(lat_min) + 64'($urandom % (lat_max - lat_min + 1)));
    end
  endfunction

  function int unsigned in_flight();
    return pend_tag.size();
  endfunction
endclass
