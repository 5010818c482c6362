#!/usr/bin/env bash
# tb/pwc/coverage.sh — merge the Verilator coverage the PWC benches wrote
# ($BUILD_DIR/tb/pwc/cov/*.dat, one file per bench run) and report it:
# user cover points (hit kinds per level, mask patterns, fill kinds,
# invalidation, squash), line and toggle coverage, and the cover points
# never hit; per module, and for the CPWC also summed over its modules
# (rtl/cpwc.sv and its phase modules rtl/cpwc_*.sv). Annotated sources go to $BUILD_DIR/tb/pwc/cov_annotated/.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-rtl-pwc}
COV=$BUILD_DIR/tb/pwc/cov
shopt -s nullglob
files=("$COV"/*.dat)
[ ${#files[@]} -gt 0 ] || { echo "coverage.sh: no coverage in $COV (run: ctest -L cosim)" >&2; exit 2; }
verilator_coverage -write "$BUILD_DIR/tb/pwc/coverage_merged.dat" "${files[@]}"
verilator_coverage --annotate "$BUILD_DIR/tb/pwc/cov_annotated" "$BUILD_DIR/tb/pwc/coverage_merged.dat" \
  | grep -i "total" || true
python3 - "$BUILD_DIR/tb/pwc/coverage_merged.dat" <<'PY'
import re, sys
# A submodule Verilated with other parameters gets another name per variant
# (cpwc_fill__L2_LB4...); its points are merged over the variants by source
# position, as Verilator merges those of the top module (cpwc) itself.
pts, merged = {}, {}
for line in open(sys.argv[1], encoding='latin-1'):
    if not line.startswith("C '"):
        continue
    key, cnt = line[3:].rsplit("' ", 1)
    f = dict(kv.split('\x02', 1) for kv in key.split('\x01') if '\x02' in kv)
    page = f.get('page', '?').split('/')[0]
    kind = 'user' if 'user' in page else 'line' if 'line' in page else 'toggle' if 'toggle' in page else page
    mod = f.get('page', '?').split('/')[-1]
    if mod.startswith('cpwc_'):
        mod = mod.split('__')[0]
    name = f.get('o', '?') + ' @ ' + f.get('h', '?')
    k = (kind, mod, f.get('f'), f.get('l'), f.get('n'), name)
    merged[k] = merged.get(k, 0) + int(cnt)
for (kind, mod, _, _, _, name), cnt in merged.items():
    pts.setdefault((kind, mod), []).append((name, cnt))
for (kind, mod), v in sorted(pts.items()):
    hit = sum(1 for _, c in v if c > 0)
    print(f"coverage {mod:11s} {kind:7s}: {hit}/{len(v)} points hit ({100.0*hit/len(v):.1f}%)")
# per block: the CPWC is cpwc.sv and its phase modules cpwc_*.sv (rtl/cpwc.f)
tot = {}
for (kind, mod), v in pts.items():
    if mod.startswith('cpwc'):
        h, n = tot.get(kind, (0, 0))
        tot[kind] = (h + sum(1 for _, c in v if c > 0), n + len(v))
for kind, (h, n) in sorted(tot.items()):
    print(f"coverage {'CPWC total':11s} {kind:7s}: {h}/{n} points hit ({100.0*h/n:.1f}%)")
for (kind, mod), v in sorted(pts.items()):
    if kind == 'user':
        for n, c in v:
            if c == 0:
                print(f"  never hit: {mod}: {n}")
PY
