#!/usr/bin/env bash
# tb/pwc/coverage.sh — merge the Verilator coverage the PWC benches wrote
# ($BUILD_DIR/tb/pwc/cov/*.dat, one file per bench run) and report it:
# user cover points (hit kinds per level, mask patterns, fill kinds,
# invalidation, squash), line and toggle coverage, and the cover points
# never hit. Annotated sources go to $BUILD_DIR/tb/pwc/cov_annotated/.
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
pts = {}
for line in open(sys.argv[1], encoding='latin-1'):
    if not line.startswith("C '"):
        continue
    key, cnt = line[3:].rsplit("' ", 1)
    f = dict(kv.split('\x02', 1) for kv in key.split('\x01') if '\x02' in kv)
    page = f.get('page', '?').split('/')[0]
    kind = 'user' if 'user' in page else 'line' if 'line' in page else 'toggle' if 'toggle' in page else page
    mod = f.get('page', '?').split('/')[-1]
    name = f.get('o', '?') + ' @ ' + f.get('h', '?')
    pts.setdefault((kind, mod), []).append((name, int(cnt)))
for (kind, mod), v in sorted(pts.items()):
    hit = sum(1 for _, c in v if c > 0)
    print(f"coverage {mod:9s} {kind:7s}: {hit}/{len(v)} points hit ({100.0*hit/len(v):.1f}%)")
for (kind, mod), v in sorted(pts.items()):
    if kind == 'user':
        for n, c in v:
            if c == 0:
                print(f"  never hit: {mod}: {n}")
PY
