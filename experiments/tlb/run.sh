#!/usr/bin/env bash
# TLB experiment (karnagel-damon17) -> docs/results/tlb.md and PNGs.
#  1. tlb-probe on k80 and p100: the TLB table from pointer-chase curves;
#  2. tlb-share on both, with the levels the probe found: sharing matrices;
#  3. random-sample and hash-group over table/region sizes 64 MiB..16 GiB,
#     plain and TLB-conscious (workload.tlb_scope = 128 MiB and 2 GiB).
# Uses the already built $BUILD_DIR (default: build/ at the repository root);
# the runs go through gmmu-sweep (tlb.py).
# Env: SIZES_MIB (region sizes), K80_WARPS/K80_ACCESSES, P100_WARPS/P100_ACCESSES
# (warps per SM and accesses per warp and phase; see docs/tlb_probe.md).
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
sim=$build/bin/gmmu-sim
if [ ! -x "$sim" ]; then
  echo "run.sh: $sim is not built (cmake --build $build --target gmmu-sim)" >&2
  exit 1
fi
py=python3
if ! "$py" -c 'import matplotlib' 2>/dev/null; then
  py=/usr/bin/python3
  "$py" -c 'import matplotlib' 2>/dev/null || { echo "run.sh: python3 with matplotlib needed (Debian: python3-matplotlib)" >&2; exit 1; }
fi
out=$root/docs/results
work=$build/tlb-results
rm -rf "$work"
mkdir -p "$out" "$work"
# The runs go through gmmu-sweep (tlb.py; experiments/sweeplib.py); their
# folders are linked into $work under the names report.py reads.
secs=$("$py" "$here/tlb.py" "$sim" "$work" | tail -1)
for gpu in k80 p100; do
  "$py" "$root/scripts/plot_tlb_probe.py" "$work/probe_$gpu" "$out/tlb_probe_$gpu.png" "$gpu"
done

"$py" "$here/report.py" "$work" "$out" "$secs"
python3 "$root/scripts/page_provenance.py" stamp tlb.md
echo "wrote $out/tlb.md and $out/tlb_*.png ($secs s of gmmu-sim time)"
