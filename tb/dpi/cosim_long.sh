#!/usr/bin/env bash
# tb/dpi/cosim_long.sh — long runs of the SV class benches (make cosim-long,
# not in CI): every DPI bench (cpwc, tpc, walk scheduler serial / tree /
# pairwise) on 3 seeds; cycles per seed (x COSIM_SCALE, default 1): CPWC and
# TPC 2M, walk schedulers 1M -> 13M cycles checked against the C models
# through gmmu_dpi. Seeds differ from CI's (COSIM_SEED_BASE, default the
# date). Logs: BUILD_DIR/tb/dpi/cosim_long_<bench>_<seed>.log.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
JOBS=${COSIM_JOBS:-2}
SCALE=${COSIM_SCALE:-1}
BASE=${COSIM_SEED_BASE:-$(date +%Y%m%d)}
benches=(cpwc:2000000 tpc:2000000 ws_serial:1000000 ws_tree:1000000 ws_pairwise:1000000)
targets=()
for bc in "${benches[@]}"; do targets+=("dpi_${bc%%:*}"); done
cmake --build "$BUILD_DIR" --target "${targets[@]}" -j "$JOBS" >/dev/null
echo "cosim_long.sh (dpi): 3 seeds per bench, seed base $BASE, scale $SCALE"
rm -f "$BUILD_DIR"/tb/dpi/cosim_long_*.log
pids=()
names=()
fail=0
for bc in "${benches[@]}"; do
  b=${bc%%:*}
  n=$(( ${bc##*:} * SCALE ))
  for k in 0 1 2; do
    seed=$(( (BASE + k) % 2147483647 ))
    log=$BUILD_DIR/tb/dpi/cosim_long_${b}_${seed}.log
    "$BUILD_DIR/tb/dpi/dpi_$b/dpi_$b" +seed="$seed" +cycles="$n" >"$log" 2>&1 &
    pids+=($!)
    names+=("$b seed $seed ($n cycles)")
    if [ "${#pids[@]}" -ge "$JOBS" ]; then
      if ! wait "${pids[0]}"; then echo "FAILED: ${names[0]}"; fail=1; fi
      pids=("${pids[@]:1}"); names=("${names[@]:1}")
    fi
  done
done
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then echo "FAILED: ${names[$i]}"; fail=1; fi
done
grep -h "scoreboard:" "$BUILD_DIR"/tb/dpi/cosim_long_*.log || true
if [ $fail -ne 0 ]; then echo "cosim_long.sh (dpi): FAILED"; exit 1; fi
echo "cosim_long.sh (dpi): all passed"
