#!/usr/bin/env bash
# tb/pwc/cosim_long.sh — long lock-step runs (make cosim-long, not in CI):
# at least 10^8 cycles per block. Each random variant runs 3 seeds; cycles
# per seed (x COSIM_SCALE, default 1): cpwc_paper 6M (the slowest model),
# cpwc_example 14M, cpwc_fifo 14M -> CPWC 102M cycles; tpc_paper 17M,
# tpc_fifo 17M -> TPC 102M. Seeds differ from CI's (COSIM_SEED_BASE, default
# the date). Storage is compared every 16 cycles (every cycle in CI), outputs
# every cycle. The runs use test_rtl_pwc_lean: the same benches linked
# against the platform's flavour of the Verilated models (no coverage
# counters, Verilator -O3; assertions and X randomization kept), so they add
# no coverage: the merged coverage is that of the CI runs (ctest's
# pwc_coverage_report). `make cosim-long` turns the logs into
# docs/results/cosim_long.md (scripts/cosim_long_report.py).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-rtl-pwc}
JOBS=${COSIM_JOBS:-2}
SCALE=${COSIM_SCALE:-1}
export GMMU_COSIM_SEED_BASE=${COSIM_SEED_BASE:-$(date +%Y%m%d)}
export GMMU_COSIM_STATE_EVERY=${COSIM_STATE_EVERY:-16}
cmake --build "$BUILD_DIR" --target test_rtl_pwc_lean -j "$JOBS" >/dev/null
BIN=$BUILD_DIR/bin/test_rtl_pwc_lean
echo "cosim_long.sh: 3 seeds per variant, seed base $GMMU_COSIM_SEED_BASE, scale $SCALE"
rm -f "$BUILD_DIR"/tb/pwc/cosim_long_*.log # scripts/cosim_long_report.py reads this run's only
pids=()
fail=0
for vc in cpwc_paper:6000000 cpwc_example:14000000 cpwc_fifo:14000000 \
          tpc_paper:17000000 tpc_fifo:17000000; do
  v=${vc%%:*}
  GMMU_COSIM_CYCLES=$(python3 -c "print(int(${vc#*:} * $SCALE))") "$BIN" --gtest_filter="Variants/PwcRtlRandom.LockStepWithCModel/$v" \
    > "$BUILD_DIR/tb/pwc/cosim_long_$v.log" 2>&1 &
  pids+=("$!:$v")
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 2; done
done
for p in "${pids[@]}"; do
  if ! wait "${p%%:*}"; then fail=1; echo "cosim_long.sh: ${p#*:} FAILED (see $BUILD_DIR/tb/pwc/cosim_long_${p#*:}.log)"; fi
done
grep -h "cycles/s" "$BUILD_DIR"/tb/pwc/cosim_long_*.log || true
exit $fail
