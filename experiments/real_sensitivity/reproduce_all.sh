#!/usr/bin/env bash
# The real kernels' remaining sensitivity figures of pichai-asplos14 at two
# seeds (figure 6's grid, TA-CCWS, TCWS, TLB-aware TBC; experiments/
# real_sensitivity/real_sensitivity.py): docs/results/real_sensitivity.md.
# make reproduce-all runs it after make reproduce, whose sweeps real-kernels
# and real-kernels-more it reads (and runs, if they are not done).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/real_sensitivity.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp real_sensitivity.md
