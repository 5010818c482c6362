#!/usr/bin/env bash
# Preemptible GPU faults (tanasic-micro17): runs faults_experiment (already
# built in $BUILD_DIR) and writes docs/results/faults.md and faults_*.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
bin=$BUILD_DIR/bin/faults_experiment
if [ ! -x "$bin" ]; then
  echo "faults: $bin not found; build the faults_experiment target first" >&2
  exit 1
fi
out=$root/docs/results
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The two sweeps are independent: run them side by side.
"$bin" perf >"$tmp/perf.csv" 2>"$tmp/perf.err" & p1=$!
"$bin" faults >"$tmp/faults.csv" 2>"$tmp/faults.err" & p2=$!
"$bin" faults --cpu-servers 8 --oplog-variants --kernels sgemm-like,stencil-like,histo-like \
  >"$tmp/faults8.csv" 2>"$tmp/faults8.err" & p3=$!
rc=0
wait $p1 || { echo "faults: perf sweep failed:" >&2; cat "$tmp/perf.err" >&2; rc=1; }
wait $p2 || { echo "faults: fault sweep failed:" >&2; cat "$tmp/faults.err" >&2; rc=1; }
wait $p3 || { echo "faults: fault sweep (8 CPU handlers) failed:" >&2; cat "$tmp/faults8.err" >&2; rc=1; }
[ $rc -eq 0 ] || exit $rc
# python3 with matplotlib (Debian's python3-matplotlib lives under /usr/bin).
py=
for c in python3 /usr/bin/python3; do
  if command -v "$c" >/dev/null && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "faults: no python3 with matplotlib (apt-get install python3-matplotlib)" >&2
  exit 1
fi
"$py" "$here/plot.py" "$tmp/perf.csv" "$tmp/faults.csv" "$tmp/faults8.csv" "$out"
echo "faults: wrote $out/faults.md and $out/faults_{perf,oplog,usecases,usecases_8cpu}.png"
