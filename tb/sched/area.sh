#!/usr/bin/env bash
# Synthesize rtl/walk_sched.sv (and its submodules rtl/ws_*.sv) with Yosys at several configurations and report
# flop bits, cells, `stat -tech cmos` transistors, and chip area / gate
# equivalents with the OSU 0.18 um liberty (qflow-tech-osu018). Writes
# docs/results/area_walk_sched.md. Fails when a configuration's flop bits
# differ from the storage the C model's state implies (formula below and in
# docs/rtl_walk_sched.md, "Storage accounting").
#
# Usage: BUILD_DIR=<cmake build dir> tb/sched/area.sh [config ...]
#   config = variant:mshrs:walkers:scan_pass_cycles:retire_width[:generic]
#   (variant serial|tree|pair); default: the list below. ":generic" skips the
#   liberty mapping (abc) for a configuration too large to map in reasonable
#   time: flop bits, cells and transistors are still reported, area is not.
#   The default list's last entry, the 32-MSHR scheduler, takes ~85 minutes
#   and ~15 GB of memory (generic synthesis only, no liberty mapping).
#   WS_AREA_JOBS=n runs n syntheses at once (default 1). A configuration whose
#   results exist for the same RTL and script is not synthesized again.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$root/build}
out=$build/tb/sched/area
lib=/usr/share/qflow/tech/osu018/osu018_stdcells.lib
doc=$root/docs/results/area_walk_sched.md
# Liberty mapping: `abc -fast` (strash; dretime; map) by default. Yosys's
# full abc script (&fraig -x; scorr; dc2; dretime; &dch -f; &nf) did not map
# even the 2-MSHR scheduler (17 k gates) within 25 minutes on the shared,
# loaded 2-core machine; WS_AREA_ABC_FULL=1 selects it.
abcopt=-fast
[ "${WS_AREA_ABC_FULL:-0}" = 1 ] && abcopt=""
mkdir -p "$out"
command -v yosys >/dev/null || { echo "area.sh: yosys not found" >&2; exit 1; }
[ -f "$lib" ] || { echo "area.sh: liberty $lib not found (apt install qflow-tech-osu018)" >&2; exit 1; }

configs=("$@")
if [ ${#configs[@]} -eq 0 ]; then
  configs=(tree:2:1:1:4 tree:4:1:1:4 tree:8:1:1:4 pair:4:1:1:4 serial:4:2:1:4 tree:16:1:1:4 tree:32:1:1:4:generic)
fi

# ---- storage the C model's state implies, in bits (docs/rtl_walk_sched.md) ----
clog2() { local n=$1 b=0; while (( (1 << b) < n )); do b=$((b + 1)); done; echo $b; }
expected_bits() {
  local var=$1 n=$2 p=$4
  local s=$((4 * n)) sw; sw=$(clog2 $((4 * n)))
  # per MSHR: valid, done, va 64, access 2, start_level 2, level 2, next_scan 3,
  # fault 3, denied level 2 (a permission denial carried to the leaf: C
  # fault_level while walking), pte 64, table_base[1..4] 4 x 40,
  # ref[1..4] 4 x (1 + slot id)
  local mshr=$((1 + 1 + 64 + 2 + 2 + 2 + 3 + 3 + 2 + 64 + 4 * 40 + 4 * (1 + sw)))
  # per slot: state 2, level 2, known 1, key 40 (table PA[51:12] or parent slot id), index 9
  local slot=$((2 + 2 + 1 + 40 + 9))
  local age=$((s * (s - 1) / 2))   # slot creation order (C: slot seq)
  local issue=$((1 + 45))          # have_last, last_line = PA[51:7]
  local extra
  if [ "$var" = serial ]; then
    extra=$((n * (n - 1) / 2))     # MSHR allocation order (C: mshr seq)
  else
    # scan_active, scan_level 2, last_scan_level 2, scan_mask N, timer
    extra=$((1 + 2 + 2 + n + $(clog2 "$p")))
  fi
  echo $((n * mshr + s * slot + age + issue + extra))
}

synth_one() {
  local cfg=$1 var n w p r g vnum tag map stamp
  IFS=: read -r var n w p r g <<<"$cfg"
  case $var in serial) vnum=0 ;; tree) vnum=1 ;; pair) vnum=2 ;; *) echo "bad variant $var" >&2; return 1 ;; esac
  tag="${var}${n}w${w}p${p}r${r}"
  map="dfflibmap -liberty $lib
abc $abcopt -liberty $lib
opt_clean
tee -o $out/$tag.lib.txt stat -liberty $lib"
  [ "$g" = generic ] && map="" && rm -f "$out/$tag.lib.txt"
  cat >"$out/$tag.ys.new" <<EOF
read_verilog -sv -defer -I$root/rtl $(echo "$root"/rtl/ws_*.sv) $root/rtl/walk_sched.sv
hierarchy -top walk_sched -chparam Variant $vnum -chparam Mshrs $n -chparam Walkers $w -chparam ScanPassCycles $p -chparam RetireWidth $r
synth -top walk_sched -flatten
tee -o $out/$tag.generic.txt stat
tee -o $out/$tag.cmos.txt stat -tech cmos
$map
EOF
  stamp=$(cat "$root"/rtl/walk_sched.sv "$root"/rtl/ws_* "$out/$tag.ys.new" | md5sum | cut -c1-16)
  if [ "$(cat "$out/$tag.stamp" 2>/dev/null)" = "$stamp" ]; then
    echo "area.sh: $tag: results of the same RTL and script kept"
    return 0
  fi
  mv "$out/$tag.ys.new" "$out/$tag.ys"
  local t0=$SECONDS
  if ! yosys -q -l "$out/$tag.log" -s "$out/$tag.ys" >/dev/null 2>&1; then
    echo "area.sh: yosys failed for $cfg (log: $out/$tag.log)" >&2
    return 1
  fi
  echo $((SECONDS - t0)) >"$out/$tag.secs"
  echo "$stamp" >"$out/$tag.stamp"
  echo "area.sh: $tag synthesized in $((SECONDS - t0)) s"
}

jobs_max=${WS_AREA_JOBS:-1}
pids=()
for cfg in "${configs[@]}"; do
  synth_one "$cfg" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 2; done
done
fail=0
for pid in "${pids[@]}"; do wait "$pid" || fail=1; done
[ $fail -eq 0 ] || exit 1

nand2=$(awk '/cell \(NAND2X1\)/{f=1} f&&/area/{gsub(/[;:]/," ");print $2; exit}' "$lib")
rows=""
bad=0
for cfg in "${configs[@]}"; do
  IFS=: read -r var n w p r g <<<"$cfg"
  tag="${var}${n}w${w}p${p}r${r}"
  g=$out/$tag.generic.txt
  flops=$(awk '/\$_(DFF|DFFE|SDFF|SDFFE|SDFFCE|ALDFF|ALDFFE|DFFSR|DFFSRE|DLATCH)[A-Z0-9_]*_ /{s+=$2} END{print s+0}' "$g")
  latches=$(awk '/\$_DLATCH/{s+=$2} END{print s+0}' "$g")
  cells=$(awk '/Number of cells:/{print $4; exit}' "$g")
  trans=$(awk '/Estimated number of transistors:/{print $5; exit}' "$out/$tag.cmos.txt")
  if [ -f "$out/$tag.lib.txt" ]; then
    area=$(awk '/Chip area for/{print $NF; exit}' "$out/$tag.lib.txt")
    libcells=$(awk '/Number of cells:/{print $4; exit}' "$out/$tag.lib.txt")
    ge=$(awk -v a="$area" -v g="$nand2" 'BEGIN{printf "%.0f", a / g}')
  else
    area="-" libcells="-" ge="-"
  fi
  exp=$(expected_bits "$var" "$n" "$w" "$p")
  secs=$(cat "$out/$tag.secs")
  status=ok
  if [ "$flops" != "$exp" ]; then status="MISMATCH"; bad=1; fi
  if [ "$latches" != 0 ]; then status="$status, $latches latches"; bad=1; fi
  printf '%-22s flop bits %7s (expected %7s, %s)  cells %8s  transistors %9s  area %12s um^2  GE %8s  lib cells %7s  [%ss]\n' \
    "$tag" "$flops" "$exp" "$status" "$cells" "$trans" "$area" "$ge" "$libcells" "$secs"
  rows+="| $var | $n | $w | $p | $r | $flops | $exp | $cells | $trans | $libcells | $area | $ge | $secs |"$'\n'
done

mkdir -p "$(dirname "$doc")"
{
  echo "# Walk scheduler RTL area (rtl/walk_sched.sv and rtl/ws_*.sv)"
  echo
  echo "Generated by \`tb/sched/area.sh\` (\`make area\`) on $(date -u +%Y-%m-%d) with $(yosys -V | head -1)."
  echo "Flow per configuration: \`synth -flatten\` (generic cells, flop bits, \`stat -tech cmos\`"
  echo "transistors), then \`dfflibmap\` + \`abc ${abcopt:+$abcopt }-liberty\` + \`stat -liberty\` with the OSU 0.18 um"
  echo "library of qflow-tech-osu018 (chip area; gate equivalents = area / NAND2X1 area = area / $nand2 um^2)."
  echo
  echo "Synthesis time is wall time on the shared 2-core machine (load varies); \"-\" in the area"
  echo "columns: the configuration was synthesized generically only (\":generic\", no liberty mapping)."
  echo
  echo "\"Expected\" is the storage the C model's state implies (docs/rtl_walk_sched.md,"
  echo "\"Storage accounting\"); the script fails when Yosys keeps a different number of flop bits."
  echo
  echo "| variant | MSHRs | walkers | pass cycles | retire | flop bits | expected bits | generic cells | transistors (cmos) | OSU018 cells | area (um^2) | GE (NAND2) | synthesis (s) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  printf '%s' "$rows"
} >"$doc"
echo "wrote $doc"
if [ "$doc" = "$root/docs/results/area_walk_sched.md" ]; then
  python3 "$root/scripts/page_provenance.py" stamp area_walk_sched.md
fi
if [ $bad -ne 0 ]; then
  echo "area.sh: flop bits differ from the C model's storage accounting (or latches found)" >&2
  exit 1
fi
echo "walk_sched area: flop bits equal the C model's storage accounting at all ${#configs[@]} configurations"
