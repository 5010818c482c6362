#!/usr/bin/env bash
# gmmu-sweep's Slurm backend against a real single-node Slurm cluster
# (tests/slurm/slurm_cluster.sh): the same small sweep runs through
# `--backend local` and `--backend slurm` (an sbatch job array, chunked, with
# a concurrency limit), and the two merged tables must be identical byte for
# byte (the table has no wall-time column). The Slurm sweep's --out has a
# space, a '$' and a '%' in it (the job script quotes every path, the log
# names escape '%'). A second slurm run submits nothing (every point
# complete).
#   test_slurm_sweep.sh GMMU_SWEEP GMMU_SIM
set -euo pipefail
sweep=$(realpath "$1")
sim=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/gmmu-slurm-test.XXXXXX)
cleanup() { bash "$here/slurm_cluster.sh" stop "$work/cluster" || true; rm -rf "$work"; }
trap cleanup EXIT
export SLURM_CONF
SLURM_CONF=$(bash "$here/slurm_cluster.sh" start "$work/cluster")
cat > "$work/spec.json" <<'SPEC'
{"workloads": ["random-sample", "stream"],
 "set": {"sm.count": 2, "sm.warps": 4, "workload.region_bytes": 1048576, "workload.accesses": 8},
 "grid": {"ptw.pwc": ["none", "tpc", "cpwc"]}, "seeds": [1, 2],
 "stats": ["gpu.ptw.walks", "gpu.ptw.pt_reads", "gpu.l1_tlb0.hits", "sim_time_ns",
           "data_check.mismatches"]}
SPEC
"$sweep" run "$work/spec.json" --out "$work/local" --sim "$sim" -j 2 --quiet
"$sweep" merge "$work/local"
sl="$work/sw/sl 7 \$x 100%a"
timeout 300 "$sweep" run "$work/spec.json" --out "$sl" --sim "$sim" --backend slurm \
  --chunk 3 --max-concurrent 2 --wait
"$sweep" merge "$sl"
"$sweep" status "$sl"
cmp "$work/local/merged.csv" "$sl/merged.csv"
cmp "$work/local/merged.jsonl" "$sl/merged.jsonl"
[ "$(ls "$sl/slurm" | grep -c '^task-.*\.log$')" -eq 4 ] || { echo "expected 4 array tasks"; exit 1; }
"$sweep" run "$work/spec.json" --out "$sl" --sim "$sim" --backend slurm 2>&1 | grep -q "nothing to submit"
echo "slurm sweep: merged tables identical to the local backend's"
