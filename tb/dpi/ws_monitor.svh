// Samples the pins once per cycle, after the inputs settled and before the
// clock edge (the scheduler's outputs are combinational from its state and
// the cycle's inputs).
class ws_monitor;
  longint unsigned cycle;
  function ws_obs sample(input ws_pins_t in, input ws_outs_t out);
    ws_obs o = new;
    o.in = in;
    o.out = out;
    o.cycle = cycle++;
    return o;
  endfunction
endclass
