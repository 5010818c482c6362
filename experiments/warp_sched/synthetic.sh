#!/usr/bin/env bash
# pichai-asplos14's TLB-aware warp scheduling on the pichai14 machines with
# the issue/commit SM and the six ISA "-like" kernels: CCWS with and without
# TLBs (figure 13), TA-CCWS's TLB weight (figure 16), TCWS's entries per warp
# (figure 17) and LRU-depth weights (figure 18), and the state each needs in
# bits (docs/results/warp_sched_synthetic.{md,png}); thread block compaction
# with and without TLBs (figure 20) and TLB-aware TBC by counter width
# (figure 22; docs/results/tbc_synthetic.{md,png}). make reproduce-synthetic.
# Parameters are fixed in warp_sched_synthetic.py and tbc_synthetic.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/warp_sched_synthetic.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp warp_sched_synthetic.md
/usr/bin/python3 "$here/tbc_synthetic.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp tbc_synthetic.md
