// Samples the pins once per cycle, after the inputs settled and before the
// clock edge: the inputs the edge will take and the (registered) outputs.
class pwc_monitor;
  longint unsigned cycle;
  function pwc_obs sample(input pwc_pins_t in, input pwc_outs_t out);
    pwc_obs o = new;
    o.in = in;
    o.out = out;
    o.cycle = cycle++;
    return o;
  endfunction
endclass
