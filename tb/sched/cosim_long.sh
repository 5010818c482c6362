#!/usr/bin/env bash
# Long lock-step run of the walk-scheduler RTL against the C model: at least
# 10^8 cycles in total over the compiled configurations (not part of CI; takes
# hours). Each configuration runs WS_LONG_SEEDS seeds of GMMU_CYCLES cycles.
# Usage: BUILD_DIR=<cmake build dir> tb/sched/cosim_long.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
bin=$build/bin/test_sched_cosim
[ -x "$bin" ] || cmake --build "$build" --target test_sched_cosim -j2
seeds=${WS_LONG_SEEDS:-4}
# cycles per seed and configuration: 8 configurations x 4 seeds x 3.2e6 = 1.02e8
cycles=${WS_LONG_CYCLES:-3200000}
total=0
for s in $(seq 1 "$seeds"); do
  seed=$(printf '0x%x' $((0x10ab0000 + s)))
  for cfg in $("$bin" --gtest_list_tests --gtest_filter='*SchedRandom*' | awk '/^  /{print $1}'); do
    echo "== $cfg GMMU_SEED=$seed GMMU_CYCLES=$cycles"
    GMMU_SEED=$seed GMMU_CYCLES=$cycles "$bin" --gtest_filter="Configs/SchedRandom.RtlMatchesCModelEveryCycle/$cfg" \
      | grep -E '^\[ (cycles|seed) \]|FAIL|mismatch|waveform'
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "cosim_long: $cfg failed with GMMU_SEED=$seed" >&2; exit 1; }
    total=$((total + cycles))
  done
done
echo "walk_sched cosim-long: $total lock-step cycles without a mismatch"
