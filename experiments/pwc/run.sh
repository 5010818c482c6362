#!/usr/bin/env bash
# Page-walk-cache experiment -> docs/results/pwc.md and docs/results/pwc.png.
# Uses the already built $BUILD_DIR (default: build/ at the repository root).
# Env: ACCESSES (per stream, default 150000), SEEDS (stream seeds 1..SEEDS,
# default 3). Every seed runs every jitter; docs/pwc.md gives the averaging rule.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
exe=$build/bin/pwc_experiment
if [ ! -x "$exe" ]; then
  echo "run.sh: $exe is not built (cmake --build $build --target pwc_experiment)" >&2
  exit 1
fi
py=python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  py=/usr/bin/python3
  "$py" -c 'import matplotlib' 2>/dev/null || { echo "run.sh: python3 with matplotlib needed (Debian: python3-matplotlib)" >&2; exit 1; }
fi
out=$root/docs/results
csvdir=$build/pwc-results
mkdir -p "$out" "$csvdir"
rm -rf "$csvdir"/seed*
# The seeds are independent processes: JOBS at a time (experiments/jobs.sh).
source "$here/../jobs.sh"
for seed in $(seq 1 "${SEEDS:-3}"); do
  mkdir -p "$csvdir/seed$seed"
  job "$exe" --accesses "${ACCESSES:-150000}" --seed "$seed" --out "$csvdir/seed$seed" >/dev/null
done
jobs_wait
"$py" "$here/plot_pwc.py" "$csvdir" "$out"
echo "wrote $out/pwc.md and $out/pwc.png"
python3 "$root/scripts/page_provenance.py" stamp pwc.md
bash "$here/platform.sh"
