#!/usr/bin/env bash
# Preemptible GPU faults on the SystemC platform (tanasic-micro17): runs
# gmmu-sim (already built in $BUILD_DIR) with the tanasic17 config and the
# kernel workload, and writes docs/results/faults_platform.md and
# faults_platform_*.png. Every comparison uses stats.json sim_time_ns; every
# run checks its data against the reference run and against the fault-free
# run's hashes (kernel.json).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
sim=$BUILD_DIR/bin/gmmu-sim
if [ ! -x "$sim" ]; then
  echo "faults_platform: $sim not found; build the gmmu-sim target first" >&2
  exit 1
fi
# python3 with matplotlib (Debian's python3-matplotlib lives under /usr/bin).
py=
for c in /usr/bin/python3 python3; do
  if command -v "$c" >/dev/null && "$c" -c 'import matplotlib' 2>/dev/null; then py=$c; break; fi
done
if [ -z "$py" ]; then
  echo "faults_platform: no python3 with matplotlib (apt-get install python3-matplotlib)" >&2
  exit 1
fi
"$py" "$here/sweep.py" --sim "$sim" --out "$root/docs/results" --jobs "${JOBS:-2}" "$@"
python3 "$root/scripts/page_provenance.py" stamp faults_platform.md
