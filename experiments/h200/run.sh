#!/usr/bin/env bash
# The h200 config against the measured H200 (experiments/h200/measured/):
# the tlb-probe beside the chase, the random-read throughput relative to
# 16 GiB, and karnagel-damon17's TLB-conscious passes as a prediction.
# Writes docs/results/h200.{md,figures.json} and h200_*.png.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/h200.py" "$BUILD_DIR/bin/gmmu-sim" "$BUILD_DIR/bin/gmmu-tlb-analyse" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp h200.md
