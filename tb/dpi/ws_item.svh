// One cycle of walk-scheduler stimulus: up to four MSHR allocations (TLB
// misses), at most one memory response, and whether memory takes a request.
class ws_item;
  bit              alloc_valid[4];
  longint unsigned alloc_va[4];
  longint unsigned alloc_table[4];   // 4 KiB aligned PA of the table at start_level
  int unsigned     alloc_start_level[4];
  int unsigned     alloc_access[4];  // bit 0 write, bit 1 user
  bit              resp_valid;
  int unsigned     resp_tag;
  longint unsigned resp_data;
  bit              mem_ready;
endclass

// What the monitor saw in one cycle.
class ws_obs;
  ws_pins_t in;
  ws_outs_t out;
  longint unsigned cycle;
endclass
