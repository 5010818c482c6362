#!/usr/bin/env bash
# pichai-asplos14's GPU MMU study on the synthetic workloads (the six
# pichai-bench workloads on the simple SM, the six ISA "-like" kernels on the
# issue/commit SM): figures 2, 10 and 11, TLB size and ports with their access
# time (figure 6), non-blocking steps (figure 7), the sensitivity rows and the
# non-memory work on the pipeline. Writes docs/results/pichai_synthetic.{md,png}
# (make reproduce-synthetic). Parameters are fixed in pichai_synthetic.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/pichai_synthetic.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp pichai_synthetic.md
