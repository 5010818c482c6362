#!/usr/bin/env bash
# pichai-asplos14's TLB-aware warp scheduling and thread block compaction on
# the pichai14 machines with the issue/commit SM running the six pichai
# benchmarks as their real algorithms (experiments/realkernels.py): CCWS and
# TCWS with and without TLBs (docs/results/warp_sched.md), TBC and TLB-aware
# TBC (docs/results/tbc.md). The synthetic kernels' pages are synthetic.sh's
# (make reproduce-synthetic).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/warp_sched.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp warp_sched.md
/usr/bin/python3 "$here/tbc.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp tbc.md
