// Random stimulus from SV ($urandom, seeded by the top's +seed=). A run draws
// a small address layout (few L4/L3/L2 indices, so direct-mapped slots and
// blocks collide and fill up) and per-run rates, then each cycle a lookup
// (mostly on the layout's paths, some near misses, random and non-canonical
// VAs), a fill (a path with its bases, some with a changed base or partial
// levels) and, rarely, an invalidation (all, a path's region, one address, a
// reversed range).
class pwc_sequence;
  int unsigned i4s[], i3s[], i2s[];
  longint unsigned roots[2];
  int unsigned p_lookup, p_fill, p_inv, p_variant; // per mille
  int unsigned cur_root;

  function automatic bit pct(input int unsigned per_mille);
    return ($urandom % 1000) < per_mille;
  endfunction

  function automatic longint unsigned canon(input int unsigned i4, input int unsigned i3,
                                            input int unsigned i2, input int unsigned i1,
                                            input int unsigned off);
    longint unsigned va;
    va = (longint'(i4 & 9'h1FF) << 39) | (longint'(i3 & 9'h1FF) << 30) |
         (longint'(i2 & 9'h1FF) << 21) | (longint'(i1 & 9'h1FF) << 12) | longint'(off & 12'hFFF);
    if (va[47]) va[63:48] = '1;
    return va;
  endfunction

  // table bases of a path (a function of the indices and a variant: a
  // changed base is the same path filled with variant 1)
  function automatic longint unsigned base_of(input int unsigned lvl, input int unsigned i4,
                                              input int unsigned i3, input int unsigned i2,
                                              input bit variant);
    longint unsigned h;
    h = mix64(64'(lvl) ^ (64'(i4) << 8) ^ (64'(i3) << 20) ^ (64'(i2) << 32) ^
                 (variant ? 64'hABCD_0000_0000_0000 : 64'h0));
    return h & 64'h000F_FFFF_FFFF_F000;
  endfunction

  function new();
    i4s = new[1 + $urandom % 4];
    i3s = new[1 + $urandom % 5];
    i2s = new[2 + $urandom % 12];
    foreach (i4s[i]) i4s[i] = $urandom % 512;
    foreach (i3s[i]) i3s[i] = $urandom % 512;
    foreach (i2s[i]) i2s[i] = $urandom % 512;
    roots[0] = longint'($urandom) << 12;
    roots[1] = longint'($urandom) << 12;
    p_lookup = 300 + $urandom % 650;
    p_fill = 100 + $urandom % 500;
    p_inv = 1 + $urandom % 25;
    p_variant = $urandom % 150;
    cur_root = 0;
  endfunction

  function automatic longint unsigned pick_va();
    int unsigned r = $urandom % 100;
    int unsigned i4 = i4s[$urandom % i4s.size()];
    int unsigned i3 = i3s[$urandom % i3s.size()];
    int unsigned i2 = i2s[$urandom % i2s.size()];
    if (r < 80) return canon(i4, i3, i2, $urandom, $urandom);
    if (r < 88) begin // near miss: one index differs in its high bits only
      if ($urandom % 2 == 1) i4 = i4 ^ ((1 + $urandom % 511) & 9'h1FE);
      else i3 = i3 ^ ((1 + $urandom % 511) & 9'h1FE);
      return canon(i4, i3, i2, $urandom, $urandom);
    end
    if (r < 96) return canon($urandom, $urandom, $urandom, $urandom, $urandom);
    return {$urandom, $urandom} | (64'h1 << 50) & ~(64'h1 << 63); // non-canonical
  endfunction

  function pwc_item next();
    pwc_item it = new;
    if (pct(3)) cur_root = 1 - cur_root;
    it.lookup_valid = pct(p_lookup);
    if (it.lookup_valid) begin
      it.lookup_va = pick_va();
      it.lookup_root = pct(20) ? {$urandom, $urandom} : roots[cur_root];
    end
    it.fill_valid = pct(p_fill);
    if (it.fill_valid) begin
      int unsigned i4 = i4s[$urandom % i4s.size()];
      int unsigned i3 = i3s[$urandom % i3s.size()];
      int unsigned i2 = i2s[$urandom % i2s.size()];
      // a changed base: of the whole path, or of one level's table only
      // (the leaf table moved while the upper ones stayed)
      bit v = pct(p_variant);
      bit [2:0] vl = !v ? 3'b000 : pct(500) ? 3'b111 : 3'b001 << ($urandom % 3);
      longint unsigned noise = pct(100) ? longint'($urandom % 4096) : 0;
      it.fill_levels = pct(700) ? 3'b111 : 3'($urandom);
      it.fill_va = canon(i4, i3, i2, $urandom, $urandom);
      it.fill_base_l3 = base_of(3, i4, 0, 0, vl[2]) | noise;
      it.fill_base_l2 = base_of(2, i4, i3, 0, vl[1]) | noise;
      it.fill_base_l1 = base_of(1, i4, i3, i2, vl[0]) | noise;
    end
    it.inv_valid = pct(p_inv);
    if (it.inv_valid) begin
      int unsigned r = $urandom % 100;
      it.inv_all = r < 25;
      if (r < 55) begin // a path's region (or one address in it)
        it.inv_lo = pick_va();
        it.inv_hi = ($urandom % 2 == 1) ? it.inv_lo : it.inv_lo + (longint'($urandom) << ($urandom % 16));
      end else if (r < 85) begin
        it.inv_lo = canon($urandom, $urandom, 0, 0, 0);
        it.inv_hi = it.inv_lo + (longint'($urandom) << ($urandom % 20));
      end else begin // reversed range
        it.inv_lo = canon($urandom, 0, 0, 0, 0) + longint'($urandom);
        it.inv_hi = it.inv_lo - 1 - longint'($urandom % 32'h10_0000);
      end
    end
    return it;
  endfunction
endclass
