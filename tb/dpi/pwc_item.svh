// One cycle of page-walk-cache stimulus: a lookup, a fill and an
// invalidation, each present or not (all three may be in one cycle).
class pwc_item;
  bit              lookup_valid;
  longint unsigned lookup_va, lookup_root;
  bit              fill_valid;
  bit [2:0]        fill_levels;
  longint unsigned fill_va, fill_base_l3, fill_base_l2, fill_base_l1;
  bit              inv_valid, inv_all;
  longint unsigned inv_lo, inv_hi;
endclass

// What the monitor saw in one cycle: the inputs on the pins and the outputs.
class pwc_obs;
  pwc_pins_t in;
  pwc_outs_t out;
  longint unsigned cycle;
endclass
