#!/usr/bin/env bash
# Soak: run gmmu-sim over a matrix of platforms, workloads, fault schemes,
# block switching and seeds until SOAK_LANES lanes have been checked
# (default 10^8), and fail on the first run that exits non-zero or reads a
# wrong value. Not part of CI (make soak); docs/reliability.md has figures.
# usage: scripts/soak.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sim=$build/bin/gmmu-sim
target=${SOAK_LANES:-100000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/gmmu-soak.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Each line: arguments of one run (the seed is added).
matrix=()
for scheme in stall wd-commit wd-lastcheck replay-queue oplog; do
  for kernel in lbm-like stencil-like sgemm-like histo-like spmv-like mriq-like; do
    matrix+=("--config tanasic17 --workload kernel --set workload.kernel=$kernel --set workload.grid_blocks=32 --set workload.faults=true --set sm.fault_scheme=$scheme")
    if [ "$scheme" != stall ]; then
      matrix+=("--config tanasic17 --workload kernel --set workload.kernel=$kernel --set workload.grid_blocks=48 --set workload.faults=true --set sm.fault_scheme=$scheme --set sm.block_switch=true --set sm.max_blocks=4 --set sm.switch_threshold=1")
    fi
  done
done
for pwc in none tpc stc uptc cpwc; do
  matrix+=("--config default --workload random-sample --set ptw.pwc=$pwc --set workload.region_bytes=67108864 --set workload.accesses=16")
done
matrix+=("--config default --workload random-sample --set l1_tlb.mshrs=8 --set l1_tlb.ways=8 --set ptw.scheduler=tree --set workload.accesses=16")
matrix+=("--config default --workload stream --set l1_cache.enabled=true --set l2_cache.enabled=true --set workload.passes=2")
matrix+=("--config default --workload hash-group --set workload.accesses=8")
matrix+=("--config k80 --workload random-sample --set workload.region_bytes=1073741824 --set workload.accesses=4")
matrix+=("--config p100 --workload random-sample --set workload.region_bytes=1073741824 --set workload.accesses=4")
matrix+=("--config pichai14 --workload random-sample --set workload.accesses=4")
matrix+=("--config picle --workload shared-hot --set sm.count=16 --set picle.probe=true")
# Several address spaces with pages migrated under load through the SMMU
# command queue (invalidations racing walks and TLB fills); @SEED@ becomes
# the run's seed.
for pwc in none tpc stc uptc cpwc; do
  matrix+=("--config default --workload random-sample --set ptw.pwc=$pwc --set contexts=3 --set sm.count=6 --set migrate.interval_cycles=700 --set migrate.seed=@SEED@ --set workload.region_bytes=4194304 --set workload.accesses=16")
done
matrix+=("--config default --workload random-sample --set page_size=2097152 --set l1_tlb.page_bytes=4096 --set l1_tlb.entries_2m=16 --set contexts=2 --set migrate.interval_cycles=2000 --set migrate.seed=@SEED@ --set workload.region_bytes=33554432 --set workload.accesses=8")
matrix+=("--config k80 --workload random-sample --set contexts=2 --set migrate.interval_cycles=200 --set migrate.seed=@SEED@ --set workload.region_bytes=268435456 --set workload.accesses=4")
matrix+=("--config default --workload stream --set contexts=2 --set l1_tlb.mshrs=8 --set l1_tlb.ways=8 --set migrate.interval_cycles=500 --set migrate.seed=@SEED@ --set workload.passes=2")

lanes=0 runs=0 seed=1 last_seed=1 migrations=0
start=$(date +%s)
while [ "$lanes" -lt "$target" ]; do
  for args in "${matrix[@]}"; do
    args=${args//@SEED@/$seed}
    out="$work/run"
    rm -rf "$out"
    # shellcheck disable=SC2086
    if ! "$sim" $args --seed "$seed" --out "$out" --quiet > "$work/log" 2>&1; then
      echo "soak: FAILED: gmmu-sim $args --seed $seed"; tail -n 20 "$work/log"; exit 1
    fi
    read -r checked wrong moved < <(python3 -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['data_check']['lanes_checked'], s['data_check']['mismatches'], s['gpu'].get('migrator', {}).get('migrations', 0))" "$out/stats.json")
    if [ "$wrong" != 0 ]; then
      echo "soak: FAILED: $wrong wrong lanes: gmmu-sim $args --seed $seed"; exit 1
    fi
    lanes=$((lanes + checked)); runs=$((runs + 1)); last_seed=$seed; migrations=$((migrations + moved))
    [ "$lanes" -ge "$target" ] && break
  done
  seed=$((seed + 1))
  printf 'soak: %d runs, %d lanes checked, 0 wrong, %d s\n' "$runs" "$lanes" "$(( $(date +%s) - start ))"
done
printf 'soak: done: %d runs (%d configurations, seeds 1..%d), %d lanes checked, 0 wrong, %d pages migrated under load, %d s\n' \
  "$runs" "${#matrix[@]}" "$last_seed" "$lanes" "$migrations" "$(( $(date +%s) - start ))"
