// Turns an item into the pin values of one cycle (RTL port packing: lane i
// of a vector at bits i*W +: W). Absent operations carry junk.
class ws_driver;
  function void drive(input ws_item it, output ws_pins_t p);
    for (int i = 0; i < 4; i++) begin
      p.alloc_valid[i] = it.alloc_valid[i];
      p.alloc_va[i*64 +: 64] = it.alloc_va[i];
      p.alloc_table[i*40 +: 40] = it.alloc_table[i][51:12];
      p.alloc_start_level[i*3 +: 3] = 3'(it.alloc_start_level[i]);
      p.alloc_access[i*2 +: 2] = 2'(it.alloc_access[i]);
    end
    p.resp_valid = it.resp_valid;
    p.resp_tag = 8'(it.resp_tag);
    p.resp_data = it.resp_data;
    p.mem_ready = it.mem_ready;
  endfunction
endclass
