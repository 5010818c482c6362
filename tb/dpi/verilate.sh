#!/usr/bin/env bash
# tb/dpi/verilate.sh LOG ARGS... — run `verilator ARGS...` for a DPI bench
# with its output in LOG (the last lines shown on failure). The sub-make
# Verilator starts must not inherit the calling make's jobserver flags.
set -uo pipefail
log=$1
shift
unset MAKEFLAGS MFLAGS MAKELEVEL
if ! verilator "$@" >"$log" 2>&1; then
  tail -n 30 "$log"
  echo "verilate.sh: verilator failed (full log: $log)" >&2
  exit 1
fi
