// gmmu_pkg: the gmmu C golden models as a reference for SystemVerilog
// testbenches, through the DPI-C library gmmu_dpi (dpi/gmmu_dpi*.cpp).
// docs/dpi.md describes every function and the compile lines.
//
//   chandle tlb = gmmu_pkg::gmmu_dpi_tlb_new("entries=64 ways=4 replacement=lru");
//   if (tlb == null) $fatal(1, "%s", gmmu_pkg::gmmu_dpi_last_error());
//
// Handles are freed with gmmu_dpi_free. Counters are read by name with
// gmmu_dpi_stat (gmmu_dpi_stat_names lists them). The page-table walker reads
// the testbench's memory: extend gmmu_pt_memory and attach it under the id
// the walker was created with ("mem=ID", default 0).
package gmmu_pkg;

  // ---- common ----------------------------------------------------------------
  import "DPI-C" function string gmmu_dpi_last_error();
  import "DPI-C" function string gmmu_dpi_version();
  // A freed (or foreign) handle passed again gets an error, not a crash.
  import "DPI-C" function void gmmu_dpi_free(input chandle h);
  // Handles alive now: 0 at the end of a testbench that freed what it made.
  import "DPI-C" function int gmmu_dpi_live_handles();
  // A counter of the handle's model by name; all ones (and last_error set) if
  // the model has no such counter.
  import "DPI-C" function longint unsigned gmmu_dpi_stat(input chandle h, input string name);
  import "DPI-C" function int gmmu_dpi_has_stat(input chandle h, input string name);
  import "DPI-C" function string gmmu_dpi_stat_names(input chandle h);
  import "DPI-C" function void gmmu_dpi_reset_stats(input chandle h);

  // ---- TLB (gmmu-sim's l1_tlb.* keys without the prefix) -----------------------
  import "DPI-C" function chandle gmmu_dpi_tlb_new(input string cfg);
  // 1 hit, 0 miss, -1 bad handle
  import "DPI-C" function int gmmu_dpi_tlb_lookup(input chandle h, input shortint unsigned asid,
      input longint unsigned vpn, output longint unsigned ppn, output longint unsigned perms,
      output int unsigned lru_depth);
  import "DPI-C" function int gmmu_dpi_tlb_probe(input chandle h, input shortint unsigned asid,
      input longint unsigned vpn, output longint unsigned ppn);
  // returns the number of entries evicted (-1 error)
  import "DPI-C" function int gmmu_dpi_tlb_fill(input chandle h, input shortint unsigned asid,
      input longint unsigned vpn, input longint unsigned ppn, input longint unsigned perms,
      output longint unsigned evicted_vpn);
  import "DPI-C" function int gmmu_dpi_tlb_invalidate_page(input chandle h,
      input shortint unsigned asid, input longint unsigned vpn);
  import "DPI-C" function int gmmu_dpi_tlb_invalidate_asid(input chandle h,
      input shortint unsigned asid);
  import "DPI-C" function int gmmu_dpi_tlb_invalidate_range(input chandle h,
      input shortint unsigned asid, input longint unsigned va_lo, input longint unsigned va_hi);
  import "DPI-C" function int gmmu_dpi_tlb_invalidate_all(input chandle h);
  import "DPI-C" function int gmmu_dpi_tlb_page_shift(input chandle h);

  // ---- page-walk caches (kind=tpc|stc|uptc|cpwc, bits=N, geometry keys) ---------
  import "DPI-C" function chandle gmmu_dpi_pwc_new(input string cfg);
  // returns the start level (4 = miss, 3..1), -1 on error
  import "DPI-C" function int gmmu_dpi_pwc_lookup(input chandle h, input longint unsigned root,
      input longint unsigned va, output longint unsigned table_base, output int cycles);
  import "DPI-C" function int gmmu_dpi_pwc_fill_path(input chandle h, input longint unsigned va,
      input int known, input longint unsigned base_l4, input longint unsigned base_l3,
      input longint unsigned base_l2, input longint unsigned base_l1);
  import "DPI-C" function int gmmu_dpi_pwc_fill_walk(input chandle pwc, input chandle walker,
      input longint unsigned va);
  import "DPI-C" function int gmmu_dpi_pwc_invalidate_all(input chandle h);
  import "DPI-C" function int gmmu_dpi_pwc_invalidate_range(input chandle h,
      input longint unsigned va_lo, input longint unsigned va_hi);
  import "DPI-C" function int gmmu_dpi_pwc_latency(input chandle h);
  // one clock cycle of the TPC / CPWC cycle model (the RTL twins' ports)
  import "DPI-C" function int gmmu_dpi_pwc_step(input chandle h,
      input bit lookup_valid, input longint unsigned lookup_va, input longint unsigned lookup_root,
      input bit fill_valid, input bit [2:0] fill_levels, input longint unsigned fill_va,
      input longint unsigned fill_base_l3, input longint unsigned fill_base_l2,
      input longint unsigned fill_base_l1,
      input bit inv_valid, input bit inv_all, input longint unsigned inv_lo,
      input longint unsigned inv_hi,
      output bit hit_valid, output bit [2:0] hit_level, output longint unsigned hit_base);

  // the model's storage, slot by slot, for white-box scoreboards (1 valid,
  // 0 empty, -1 error). CPWC: level 4, 3 or 2 (L2 slot = block x
  // block_entries + way); tag = the 9-bit index, mask = the L3 entry's
  // block mask (bit nb-1-b = block b, as rtl/cpwc.sv's l3_mask_q).
  import "DPI-C" function int gmmu_dpi_cpwc_entry(input chandle h, input int level, input int slot,
      output longint unsigned tag, output longint unsigned base, output bit [255:0] mask);
  // TPC: depth = parts valid (1..3), idx = L4 index [8:0], L3 [17:9], L2 [26:18]
  import "DPI-C" function int gmmu_dpi_tpc_entry(input chandle h, input int slot, output int depth,
      output bit [26:0] idx, output longint unsigned base0, output longint unsigned base1,
      output longint unsigned base2);

  // ---- walk scheduler (scheduler=serial|tree|pairwise, mshrs, walkers, ...) ------
  import "DPI-C" function chandle gmmu_dpi_ws_new(input string cfg);
  // one clock cycle; lane i: va/table_base bits 64i+63:64i, level/access 4i+3:4i
  import "DPI-C" function int gmmu_dpi_ws_step(input chandle h, input bit [3:0] alloc_valid,
      input bit [255:0] alloc_va, input bit [255:0] alloc_table_base,
      input bit [15:0] alloc_start_level, input bit [15:0] alloc_access,
      input bit resp_valid, input shortint unsigned resp_tag, input longint unsigned resp_data,
      input bit mem_ready);
  import "DPI-C" function void gmmu_dpi_ws_req(input chandle h, output bit valid,
      output bit [2:0] level, output shortint unsigned tag, output longint unsigned pa);
  import "DPI-C" function void gmmu_dpi_ws_accepted(input chandle h, output bit [3:0] accepted,
      output bit [31:0] mshr);
  import "DPI-C" function int gmmu_dpi_ws_n_done(input chandle h);
  // table_base: level k's table in bits 64(k-1)+63:64(k-1)
  import "DPI-C" function int gmmu_dpi_ws_done(input chandle h, input int i, output int fault,
      output int fault_level, output int page_shift, output int mshr, output int nreads,
      output longint unsigned va, output longint unsigned pa, output longint unsigned pte,
      output bit [255:0] table_base);
  import "DPI-C" function int gmmu_dpi_ws_free_mshrs(input chandle h);
  import "DPI-C" function int gmmu_dpi_ws_idle(input chandle h);
  import "DPI-C" function void gmmu_dpi_ws_reset(input chandle h);

  // ---- page-table walker (mem=ID, set_accessed_dirty=true|false) -----------------
  import "DPI-C" function chandle gmmu_dpi_walker_new(input string cfg);
  // 0: walk completed (fault: 0 none, 1 not present, 2 write, 3 user,
  // 4 non-canonical, 5 reserved); -1: bad arguments or a failed read
  import "DPI-C" context function int gmmu_dpi_walk(input chandle h,
      input longint unsigned table_base, input int start_level, input longint unsigned va,
      input int access, output longint unsigned pa, output int page_shift, output int fault,
      output int fault_level);
  import "DPI-C" function longint unsigned gmmu_dpi_walk_pte(input chandle h);
  import "DPI-C" function int gmmu_dpi_walk_nreads(input chandle h);
  import "DPI-C" function longint unsigned gmmu_dpi_walk_table_base(input chandle h,
      input int level);

  // ---- coalescer ---------------------------------------------------------------
  // returns the number of unique pages of the active lanes (-1 bad input)
  import "DPI-C" function int gmmu_dpi_coalesce(input longint unsigned va[32], input int nlanes,
      input bit [31:0] active, input int page_shift, output longint unsigned vpn[32],
      output bit [31:0] lane_mask[32], output int lane_page[32]);

  // ---- the testbench's page-table memory -----------------------------------------
  // Extend it and attach an object: the walker's reads (and, with
  // set_accessed_dirty, writes) of memory ID go to it. Return 0 on success.
  // (a class in a package of another name; its prototypes use no argument)
  /* verilator lint_off DECLFILENAME */
  /* verilator lint_off UNUSEDSIGNAL */
  /* verilator lint_off UNDRIVEN */
  virtual class gmmu_pt_memory;
    pure virtual function int read64(input longint unsigned pa, output longint unsigned data);
    // read-only unless overridden
    virtual function int write64(input longint unsigned pa, input longint unsigned data);
      return -1;
    endfunction
  endclass
  /* verilator lint_on UNDRIVEN */
  /* verilator lint_on UNUSEDSIGNAL */
  /* verilator lint_on DECLFILENAME */

  gmmu_pt_memory gmmu_memories[int];

  // the package's scope, where the exports below live, for the walker
  import "DPI-C" context function void gmmu_dpi_bind_scope();

  function automatic void gmmu_attach_memory(input int id, input gmmu_pt_memory m);
    gmmu_memories[id] = m;
    gmmu_dpi_bind_scope();
  endfunction

  export "DPI-C" function gmmu_dpi_pt_read;
  export "DPI-C" function gmmu_dpi_pt_write;

  function automatic int gmmu_dpi_pt_read(input int mem_id, input longint unsigned pa,
                                          output longint unsigned data);
    data = 64'd0;
    if (gmmu_memories.exists(mem_id) == 0) return -1;
    return gmmu_memories[mem_id].read64(pa, data);
  endfunction

  function automatic int gmmu_dpi_pt_write(input int mem_id, input longint unsigned pa,
                                           input longint unsigned data);
    if (gmmu_memories.exists(mem_id) == 0) return -1;
    return gmmu_memories[mem_id].write64(pa, data);
  endfunction

endpackage
