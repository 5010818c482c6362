#!/usr/bin/env bash
# Characterisation of the real kernels (examples/kernels/*.gk with an input
# generator) before any MMU result: memory references per instruction, the
# miss rate of the 128-entry L1 TLB, page divergence and the span of a warp
# access, at 4 KiB and 2 MiB pages, beside pichai-asplos14's figure 3.
# Writes docs/results/kernels.{md,figures.json}. Parameters are fixed in
# characterise.py.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$root/build}
/usr/bin/python3 "$here/characterise.py" "$BUILD_DIR/bin/gmmu-sim" "$root/docs/results"
python3 "$root/scripts/page_provenance.py" stamp kernels.md
