// Random stimulus from SV. A run draws a page-table world: a small pool of
// table frames that every non-leaf PTE points into (walks share tables and
// lines), PTEs a pure function of their PA (mostly present, some large pages
// aligned or not, random U/W and junk bits), VAs from few indices per level.
// Each cycle: allocations of walks from the root or from a table a PWC would
// have supplied (start level 3..1), and the memory: the scheduler's requests
// come back after random latencies in random order, one per cycle, with
// mem_ready sometimes low.
class ws_sequence;
  longint unsigned salt;
  longint unsigned tables[];
  int unsigned present_pct, ps_pct, u_pct, w_pct;
  int unsigned idx4[], idx3[], idx2[];
  int unsigned l1_base, l1_span;
  int unsigned p_alloc, p_ready; // per mille
  bit stop_alloc;

  // requests in flight: tag, PA, first cycle they may return
  int unsigned     pend_tag[$];
  longint unsigned pend_pa[$];
  longint unsigned pend_due[$];
  longint unsigned cycle;

  function automatic bit pct(input int unsigned per_mille);
    return ($urandom % 1000) < per_mille;
  endfunction

  function new();
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
    p_alloc = 50 + $urandom % 600;
    p_ready = 700 + $urandom % 301;
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

  function ws_item next();
    ws_item it = new;
    cycle++;
    for (int i = 0; i < 4; i++) begin
      it.alloc_valid[i] = !stop_alloc && pct(p_alloc / (i + 1));
      it.alloc_va[i] = pick_va();
      it.alloc_access[i] = ($urandom % 2 == 1) ? 0 : $urandom % 4;
      if ($urandom % 100 < 75) begin
        it.alloc_start_level[i] = 4;
        it.alloc_table[i] = tables[0];
      end else begin
        it.alloc_start_level[i] = 1 + $urandom % 3;
        it.alloc_table[i] = tables[$urandom % tables.size()];
      end
    end
    it.mem_ready = pct(p_ready);
    // one response among those due, in random order
    begin
      int unsigned due[$];
      foreach (pend_due[i]) if (pend_due[i] <= cycle) due.push_back(i);
      if (due.size() > 0 && pct(800)) begin
        int unsigned j = due[$urandom % due.size()];
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

  // the scheduler's request of this cycle goes to memory
  function void observe(input ws_obs o);
    if (o.out.req_valid) begin
      pend_tag.push_back(int'(o.out.req_tag));
      pend_pa.push_back(64'(o.out.req_pa));
      pend_due.push_back(cycle + 1 + (($urandom % 4 == 0) ? $urandom % 60 : $urandom % 6));
    end
  endfunction

  function int unsigned in_flight();
    return pend_tag.size();
  endfunction
endclass
