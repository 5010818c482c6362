#!/usr/bin/env bash
# Long lock-step runs of the walk-scheduler RTL against the C model (make
# cosim-long; not in CI): >= 10^8 cycles per geometry listed below.
#
# The CI bench (test_sched_cosim) carries coverage counters and FST tracing in
# every Verilated model; for the long runs this script builds each geometry
# lean instead: Verilator -O3, C++ -O2, no coverage, no trace, SVA assertions
# and X randomization (--x-assign/--x-initial unique) kept, linked with
# tb/sched/long_main.cpp (the bench's RunRandom without recording, cycles/s
# printed per seed). Builds are cached in <build>/tb/sched/long/<config>.
#
# Usage: BUILD_DIR=<cmake build dir> tb/sched/cosim_long.sh [config ...]
#   config = name:variant:mshrs:walkers:pass:retire (default: the list below)
#   WS_LONG_CYCLES  total cycles per configuration (default 100000000)
#   WS_LONG_SEEDS   seeds the total is split over (default 10)
#   WS_LONG_SEED    first seed (default from the date)
#   WS_LONG_JOBS    configurations run at once (default 1)
#   WS_LONG_BUILD_ONLY=1  build and stop
# `make cosim-long` turns the logs into docs/results/cosim_long.md
# (scripts/cosim_long_report.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
twins=$root/platforms/rtl # the Verilated wrapper classes
build=${BUILD_DIR:-$root/build}
work=$build/tb/sched/long
models=$build/libgmmu_models.a
total=${WS_LONG_CYCLES:-100000000}
seeds=${WS_LONG_SEEDS:-10}
seed0=${WS_LONG_SEED:-$(date +%Y%m%d)}
jobs_max=${WS_LONG_JOBS:-1}
mkdir -p "$work"
cmake --build "$build" --target gmmu_models >/dev/null
cfgs=("$@")
# one per variant, the small geometries (the 32-MSHR pichai14 model runs
# ~80x slower: its scan's N x S merge CAM and the response phase's
# MSHR x level x slot loops are evaluated every cycle)
[ ${#cfgs[@]} -gt 0 ] || cfgs=(tree4p1r4:1:4:1:1:4 pair4p2r2:2:4:1:2:2 serial4w2r2:0:4:2:1:2)

build_one() {
  local name=$1 variant=$2 mshrs=$3 walkers=$4 pass=$5 retire=$6 d=$work/$1
  local stamp
  stamp=$(cat "$root"/rtl/walk_sched.sv "$root"/rtl/ws_* "$here"/*.h "$here/long_main.cpp" "$twins"/rtl_walk_sched.* "$models" | md5sum | cut -c1-16)
  if [ -x "$d/obj/vlong" ] && [ "$(cat "$d/stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  rm -rf "$d"; mkdir -p "$d"
  echo "#include \"Vws_${name}.h\"" >"$d/ws_headers.inc"
  echo "#include \"Vws_${name}___024root.h\"" >>"$d/ws_headers.inc" # the wrapper reads the root
  echo "WS_CFG(${name}, ${variant}, ${mshrs}, ${walkers}, ${pass}, ${retire})" >"$d/ws_configs.inc"
  if ! verilator --cc --exe --build -j 1 --x-assign unique --x-initial unique --assert -O3 \
      --prefix "Vws_${name}" --top-module walk_sched -GVariant="$variant" -GMshrs="$mshrs" \
      -GWalkers="$walkers" -GScanPassCycles="$pass" -GRetireWidth="$retire" \
      -MAKEFLAGS "OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2" \
      --Mdir "$d/obj" -o vlong -I"$root/rtl" "$root/rtl/walk_sched.sv" "$twins/rtl_walk_sched.cpp" "$here/long_main.cpp" \
      -CFLAGS "-std=c++17 -O2 -I$here -I$twins -I$d -I$root/models/include" \
      -LDFLAGS "$models" >"$d/build.log" 2>&1; then
    echo "cosim_long.sh: build of $name failed (see $d/build.log)" >&2; return 1
  fi
  echo "$stamp" >"$d/stamp"
}

for c in "${cfgs[@]}"; do
  IFS=: read -r name variant mshrs walkers pass retire <<<"$c"
  build_one "$name" "$variant" "$mshrs" "$walkers" "$pass" "$retire"
done
[ "${WS_LONG_BUILD_ONLY:-0}" = 1 ] && exit 0

per=$(( (total + seeds - 1) / seeds ))
echo "cosim_long.sh: ${#cfgs[@]} configurations x $seeds seeds x $per cycles, first seed $seed0, logs in $work"
rm -f "$work"/*.log # scripts/cosim_long_report.py reads this run's only
pids=() fail=0
for c in "${cfgs[@]}"; do
  name=${c%%:*}
  "$work/$name/obj/vlong" "$seeds" "$per" "$seed0" >"$work/$name.log" 2>&1 &
  pids+=("$!:$name")
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 5; done
done
for p in "${pids[@]}"; do
  if ! wait "${p%%:*}"; then fail=1; echo "cosim_long.sh: ${p#*:} FAILED (see $work/${p#*:}.log)"; fi
  tail -1 "$work/${p#*:}.log"
done
exit $fail
