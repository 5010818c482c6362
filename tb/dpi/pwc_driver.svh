// Turns an item into the pin values of one cycle; fields of absent
// operations are driven with junk, as a real requester may leave them.
class pwc_driver;
  function void drive(input pwc_item it, output pwc_pins_t p);
    p.lookup_valid = it.lookup_valid;
    p.lookup_va    = it.lookup_valid ? it.lookup_va : {$urandom, $urandom};
    p.lookup_root  = it.lookup_valid ? it.lookup_root : {$urandom, $urandom};
    p.fill_valid   = it.fill_valid;
    p.fill_levels  = it.fill_valid ? it.fill_levels : 3'($urandom);
    p.fill_va      = it.fill_valid ? it.fill_va : {$urandom, $urandom};
    p.fill_base_l3 = it.fill_valid ? it.fill_base_l3 : {$urandom, $urandom};
    p.fill_base_l2 = it.fill_valid ? it.fill_base_l2 : {$urandom, $urandom};
    p.fill_base_l1 = it.fill_valid ? it.fill_base_l1 : {$urandom, $urandom};
    p.inv_valid    = it.inv_valid;
    p.inv_all      = it.inv_valid ? it.inv_all : 1'($urandom);
    p.inv_lo       = it.inv_valid ? it.inv_lo : {$urandom, $urandom};
    p.inv_hi       = it.inv_valid ? it.inv_hi : {$urandom, $urandom};
  endfunction
endclass
