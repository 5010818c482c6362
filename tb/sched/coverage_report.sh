#!/usr/bin/env bash
# Merge the coverage files the walk-scheduler cosim tests wrote and report
# them with verilator_coverage (total, per type, and every cover point of
# rtl/walk_sched.sv and its submodules with its count). Usage: coverage_report.sh <coverage dir>
set -euo pipefail
dir=${1:?coverage directory}
shopt -s nullglob
files=("$dir"/*.dat)
(( ${#files[@]} )) || { echo "no coverage files in $dir (run the cosim tests first)"; exit 1; }
merged="$dir/merged/walk_sched.dat"
mkdir -p "$dir/merged"
verilator_coverage --write "$merged" "${files[@]}"
echo "merged ${#files[@]} coverage files into $merged"
rm -rf "$dir/merged/annotated"
verilator_coverage --annotate "$dir/merged/annotated" --annotate-min 1 "$merged" | tail -n 3
python3 - "$merged" <<'PY'
import re, sys, collections
# Verilator names each parameterization of a submodule apart (page
# "v_line/ws_retire__M4_R1"), so the same source point appears once per
# geometry; a point counts once, hit when any geometry hits it.
points = collections.Counter()
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"C '(.*)' (\d+)$", line.strip())
    if not m:
        continue
    rec, n = m.group(1), int(m.group(2))
    f = dict(kv.split("\x02", 1) for kv in rec.split("\x01") if "\x02" in kv)
    f["page"] = re.sub(r"__\w+$", "", f.get("page", "?"))
    points[tuple(sorted(f.items()))] += n
tot = collections.Counter(); hit = collections.Counter(); covers = []
for key, n in points.items():
    f = dict(key)
    kind = f["page"].split("/")[0]
    tot[kind] += 1; hit[kind] += n > 0
    if kind == "v_user":
        covers.append((f.get("h", "") + " " + f.get("o", ""), n))
for k in sorted(tot):
    print(f"  {k:12s} {hit[k]:6d}/{tot[k]:<6d} {100.0*hit[k]/tot[k]:5.1f}%")
print(f"  {'all':12s} {sum(hit.values()):6d}/{sum(tot.values()):<6d} "
      f"{100.0*sum(hit.values())/max(1,sum(tot.values())):5.1f}%")
agg = collections.Counter()
for name, n in covers:
    agg[re.sub(r"^\S*?\.", "", name.split()[0]) if name else name] += 0
missed = [(nm, n) for nm, n in covers if n == 0]
print(f"  cover points: {len(covers) - len(missed)}/{len(covers)} hit")
for nm, n in sorted(covers):
    print(f"    {n:10d}  {nm}")
PY
