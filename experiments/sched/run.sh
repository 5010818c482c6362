#!/usr/bin/env bash
# Page-walk scheduling experiment -> docs/results/sched.md and docs/results/sched.png.
# Uses the already built $BUILD_DIR (default: build/ at the repository root).
# Env: WARPS (warps per point, default 400), SEEDS (stream seeds, default 1,2,3).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
exe=$build/bin/sched_experiment
if [ ! -x "$exe" ]; then
  echo "run.sh: $exe is not built (cmake --build $build --target sched_experiment)" >&2
  exit 1
fi
py=python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  py=/usr/bin/python3
  "$py" -c 'import matplotlib' 2>/dev/null || { echo "run.sh: python3 with matplotlib needed (Debian: python3-matplotlib)" >&2; exit 1; }
fi
out=$root/docs/results
mkdir -p "$out"
# One run per stream seed (SEEDS, default 1-3): the headline figures are
# given over them; the detailed tables are the first seed's.
# The seeds are independent processes: JOBS at a time (experiments/jobs.sh),
# each one's output printed after all have finished, in seed order.
seeds=${SEEDS:-1,2,3}
csvs=""
source "$here/../jobs.sh"
for seed in ${seeds//,/ }; do
  csv=$build/sched_seed$seed.csv
  job "$exe" --warps "${WARPS:-400}" --seed "$seed" --out "$csv" >"$csv.log"
  csvs=${csvs:+$csvs,}$csv
done
jobs_wait
for seed in ${seeds//,/ }; do
  cat "$build/sched_seed$seed.csv.log"
done
"$py" "$here/plot_sched.py" "$csvs" "$out" "$seeds"
python3 "$root/scripts/page_provenance.py" stamp sched.md
