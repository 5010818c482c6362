#!/usr/bin/env bash
# TLB experiment (karnagel-damon17) -> docs/results/tlb.md and PNGs.
#  1. tlb-probe on k80 and p100: the TLB table from pointer-chase curves;
#  2. tlb-share on both, with the levels the probe found: sharing matrices;
#  3. random-sample and hash-group over table/region sizes 64 MiB..16 GiB,
#     plain and TLB-conscious (workload.tlb_scope = 128 MiB and 2 GiB).
# Uses the already built $BUILD_DIR (default: build/ at the repository root).
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
sizes=${SIZES_MIB:-"64 96 128 192 256 512 1024 1536 2048 3072 4096 8192 16384"}
scopes="0 134217728 2147483648"
t0=$(date +%s)

for gpu in k80 p100; do
  echo "== $gpu: tlb-probe"
  "$sim" --config "$gpu" --workload tlb-probe --quiet --out "$work/probe_$gpu"
  "$py" "$root/scripts/plot_tlb_probe.py" "$work/probe_$gpu" "$out/tlb_probe_$gpu.png" "$gpu"
  echo "== $gpu: tlb-share (levels from the probe)"
  "$sim" --config "$gpu" --workload tlb-share --quiet --out "$work/share_$gpu" \
    --set workload.share_from="$work/probe_$gpu/tlb_probe.json"
done

for gpu in k80 p100; do
  if [ "$gpu" = k80 ]; then warps=${K80_WARPS:-16}; acc=${K80_ACCESSES:-16}
  else warps=${P100_WARPS:-8}; acc=${P100_ACCESSES:-8}; fi
  for wl in random-sample hash-group; do
    echo "== $gpu: $wl over $(echo $sizes | wc -w) sizes (warps/SM $warps, accesses/warp $acc)"
    for mib in $sizes; do
      bytes=$((mib << 20))
      for scope in $scopes; do
        # A scope as large as the region is the plain run.
        if [ "$scope" != 0 ] && [ "$scope" -ge "$bytes" ]; then continue; fi
        "$sim" --config "$gpu" --workload "$wl" --quiet --out "$work/${wl}_${gpu}_${scope}_${mib}" \
          --set sm.warps="$warps" --set workload.accesses="$acc" \
          --set workload.region_bytes="$bytes" --set workload.tlb_scope="$scope"
      done
    done
  done
done

"$py" "$here/report.py" "$work" "$out" "$(( $(date +%s) - t0 ))"
echo "wrote $out/tlb.md and $out/tlb_*.png ($(( $(date +%s) - t0 )) s)"
