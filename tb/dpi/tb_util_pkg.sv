// tb/dpi/tb_util_pkg.sv — helpers shared by the DPI benches.
package tb_util_pkg;
  // splitmix64 finaliser: a page-table word or a table base as a pure
  // function of an address (same read, same data)
  function automatic longint unsigned mix64(input longint unsigned x0);
    longint unsigned x = x0 + 64'h9E37_79B9_7F4A_7C15;
    x = (x ^ (x >> 30)) * 64'hBF58_476D_1CE4_E5B9;
    x = (x ^ (x >> 27)) * 64'h94D0_49BB_1331_11EB;
    return x ^ (x >> 31);
  endfunction

  // +seed=N (default 1), printed so a failing run can be repeated
  function automatic int unsigned seed_from_plusargs(input string bench);
    int unsigned seed;
    if ($value$plusargs("seed=%d", seed) == 0) seed = 1;
    $display("%s: seed %0d (rerun with +seed=%0d)", bench, seed, seed);
    return seed;
  endfunction

  function automatic longint unsigned cycles_from_plusargs(input longint unsigned def);
    longint unsigned n;
    if ($value$plusargs("cycles=%d", n) == 0) n = def;
    return n;
  endfunction
endpackage
