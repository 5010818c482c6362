#!/usr/bin/env bash
# PICLE / Valkyrie on the `picle` machine (garg-picle): L1 TLB miss rate and
# run time without PICLE, with PICLE pushes, and with Valkyrie peer probes,
# for a workload whose pages all CUs share (random-sample over one region)
# and one whose pages are private (stream: every warp its own slice).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/picle.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp picle.md
