// rtl/cpwc.f: the files of the CPWC (top module cpwc, rtl/cpwc.sv), in
// dependency order, relative to this file. The one list of them:
// platforms/rtl/CMakeLists.txt, tb/pwc/area.sh and tb/pwc/mutate.sh read it.
//   verilator ... -F rtl/cpwc.f --top-module cpwc
// or, without the list, verilator ... -y rtl rtl/cpwc.sv (each module is in
// <module>.sv).
pwc_pipe.sv
cpwc_slot.sv
cpwc_lookup.sv
cpwc_fill.sv
cpwc_inval.sv
cpwc.sv
