#!/usr/bin/env bash
# pichai-asplos14's GPU MMU study on the pichai14 machines with the six
# pichai benchmarks as their real algorithms (experiments/realkernels.py):
# the naive MMU against no translation (figure 2), the augmented MMU against
# the ideal TLB (figure 10) and one augmented walker against 8 naive ones
# (figure 11); at two seeds, figure 6's two lines through the 128-entry
# 4-port TLB and figure 7's non-blocking steps (the sweep real-kernels-more).
# Writes docs/results/pichai.md; the synthetic workloads' page is
# synthetic.sh's (make reproduce-synthetic).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/pichai.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp pichai.md
