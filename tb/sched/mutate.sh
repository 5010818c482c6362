#!/usr/bin/env bash
# Mutation check of the walk scheduler RTL (rtl/walk_sched.sv and its
# submodules rtl/ws_*.sv): each mutant is a single-point change (inverted
# comparison, dropped term, off-by-one index or width, stuck valid, wrong
# constant, wrong port connection) applied to a COPY of the RTL in the build
# folder (the search text must occur exactly once in all the files); it is
# Verilated with the bench's harness (tb/sched/mutate_main.cpp: seeded random
# lock-step against the C model, RTL assertions on) and counts as caught when
# the run reports a mismatch or an assertion. The tracked RTL is never touched.
#
# Speed: the mutants are built lean (no coverage, no trace, C++ at -O0) and
# with Verilator's loop unrolling limited (--unroll-count 4): the fully
# unrolled 4-MSHR model is ~4.7 MB of C++ (~25 s of g++ per mutant, which
# dominated the first version of this script), the rolled one ~1.3 MB (~5 s);
# it simulates ~10x slower (~12 k lock-step cycles/s), which costs less because
# most mutants fail within a few thousand cycles. A small geometry
# (4 MSHRs) first; a mutant that
# survives is built and run again at a second geometry (2 MSHRs with other
# pass / retire / walker counts), as tb/pwc/mutate.sh does. The harness
# object (the bench and the C model) is built once, at -O2.
#
# Usage: BUILD_DIR=<cmake build dir> tb/sched/mutate.sh [mutant-id ...]
#   WS_MUT_JOBS (default 2) mutants at once; WS_MUT_CYCLES (default 40000)
#   cycles per seed, WS_MUT_SEEDS (default 4) seeds per mutant and geometry;
#   WS_MUT_PAGE_ONLY=1 runs nothing and writes the report again from the last
#   full run's results in the build folder (e.g. after tb/dpi/mutate.sh has
#   added its verdicts).
# The report has a "DPI bench" column: the verdict of the SystemVerilog class
# benches (tb/dpi/mutate.sh, run first by `make mutate`) on the same mutant,
# read from BUILD_DIR/tb/dpi/mutate (tb/dpi/dpi_verdicts.py).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
twins=$root/platforms/rtl # the Verilated wrapper classes
build=${BUILD_DIR:-$root/build}
work=$build/tb/sched/mutate
models=$build/libgmmu_models.a
jobs_max=${WS_MUT_JOBS:-2}
cycles=${WS_MUT_CYCLES:-40000}
seeds=${WS_MUT_SEEDS:-4}
copt=${WS_MUT_COPT:--O0}   # C++ optimization of the Verilated mutants (compile time dominates)
unroll=${WS_MUT_UNROLL:-4} # Verilator --unroll-count (64 = Verilator's default, full unrolling)
hang_s=${WS_MUT_HANG_S:-600} # a mutant's run without a verdict by then is a hang (not a catch)
report=${WS_MUT_REPORT:-$root/docs/results/mutation_walk_sched.md} # written by a run of every mutant
page_only=${WS_MUT_PAGE_ONLY:-0}
if [ "$page_only" = 1 ] && [ ! -f "$work/run_info" ]; then
  echo "mutate.sh: WS_MUT_PAGE_ONLY=1 needs a full run's results in $work" >&2; exit 2
fi
[ -f "$models" ] || cmake --build "$build" --target gmmu_models >/dev/null
[ -f "$models" ] || { echo "mutate.sh: $models missing (build gmmu_models first)" >&2; exit 1; }
mkdir -p "$work"
t_start=$SECONDS

# the harness (bench + sequences, no Verilated header) is built once
if [ ! -f "$work/mutate_main.o" ] || [ -n "$(find "$here" "$twins" -name '*.h' -newer "$work/mutate_main.o")" ] ||
   [ "$here/mutate_main.cpp" -nt "$work/mutate_main.o" ]; then
  g++ -std=c++17 -O2 -Wall -Wextra -Werror -Wno-unused-parameter -I"$here" -I"$twins" -I"$root/models/include" \
    -I"$(dirname "$(command -v verilator)")/../share/verilator/include" \
    -c "$here/mutate_main.cpp" -o "$work/mutate_main.o"
fi
# id|config|description|search|replace   (search must occur exactly once)
# config: name variant mshrs walkers pass retire
cat >"$work/mutants.txt" <<'EOF'
m01|tree|wrong fault code: not-present reported as write|cfault = FaultNotPres;|cfault = FaultWrite;
m02|tree|off-by-one level: PS checked at level 3 instead of 4|end else if (rdata[7] && t_lvl == 2'd3) begin|end else if (rdata[7] && t_lvl == 2'd2) begin
m03|tree|wrong bit: user check reads W|if (m_acc_q[i*2 + 1] && !rdata[2]) begin|if (m_acc_q[i*2 + 1] && !rdata[1]) begin
m04|tree|wrong index: write check reads the user flag|end else if (m_acc_q[i*2] && !rdata[1]) begin|end else if (m_acc_q[i*2 + 1] && !rdata[1]) begin
m05|tree|off-by-one width: 2 MiB reserved-bit check takes PAT (bit 12) as reserved|(t_lvl == 2'd1 && rdata[20:13] != 8'd0)|(t_lvl == 2'd1 && rdata[20:12] != 9'd0)
m06|tree|dropped term: PS no longer makes a leaf|cleaf = (t_lvl == 2'd0) \|\| rdata[7];|cleaf = (t_lvl == 2'd0);
m07|tree|off-by-one index: next table stored one level too high|              m_tb_d[(i*4 + l)*KW +: KW] = rframe;|              m_tb_d[(i*4 + l + 1)*KW +: KW] = rframe;
m08|tree|off-by-one level: children of the wrong level become known|s_lvl_q[s*2 +: 2] == t_lvl - 2'd1 && s_key_q[s*KW +: KW] == KW'(t_tag)) begin|s_lvl_q[s*2 +: 2] == t_lvl && s_key_q[s*KW +: KW] == KW'(t_tag)) begin
m09|tree|dropped update: converted child stays unknown|        conv[s]             = 1'b1;\n        s_known_d[s]        = 1'b1;|        conv[s]             = 1'b1;
m10|tree|stale holders: release uses the pre-response references|          if (m_refv_d[i*4 + l] && m_ref_d[(i*4 + l)*SW +: SW] == SW'(s)) begin\n            held[s] = 1'b1;|          if (m_refv_q[i*4 + l] && m_ref_q[(i*4 + l)*SW +: SW] == SW'(s)) begin\n            held[s] = 1'b1;
m11|tree|stuck slot: a cancelled reference is never freed|        cancelled[s] = 1'b1;\n        s_state_d[s*2 +: 2] = SlotFree;|        cancelled[s] = 1'b1;
m13|tree|one cycle late: retire sees the pre-response done bits|    .m_done_d  (m_done_p1),\n    .m_lvl_d   (m_lvl_p1),\n    .m_fault_d (m_fault_p1),|    .m_done_d  (m_done_q),\n    .m_lvl_d   (m_lvl_p1),\n    .m_fault_d (m_fault_p1),
m14|tree4p3r1|off-by-one: one more walk retired than retire_width|if (j < 32'(RetireWidth) && rdone[i] && rrank[i*3 +: 3] == 3'(j)) begin|if (j <= 32'(RetireWidth) && rdone[i] && rrank[i*3 +: 3] == 3'(j)) begin
m15|tree|off-by-one: nreads|                                      {1'b0, m_lvl_d[i*2 +: 2]} + 3'd1;|                                      {1'b0, m_lvl_d[i*2 +: 2]} + 3'd0;
m16|tree|wrong constant: 2 MiB page shift|done_page_shift_o[j*6 +: 6] = 6'd21;|done_page_shift_o[j*6 +: 6] = 6'd20;
m17|tree|off-by-one width: 2 MiB PA split|done_pa_o[j*52 +: 52] = {m_pte_d[i*64 + 21 +: 31], m_va_q[i*64 +: 21]};|done_pa_o[j*52 +: 52] = {m_pte_d[i*64 + 22 +: 30], m_va_q[i*64 +: 22]};
m18|tree|off-by-one: fault level|done_fault_level_o[j*3 +: 3] = {1'b0, m_lvl_d[i*2 +: 2]} + 3'd1;|done_fault_level_o[j*3 +: 3] = {1'b0, m_lvl_d[i*2 +: 2]} + 3'd0;
m19|tree|dropped term: unknown tables may issue|      cand[s] = s_state_q[s*2 +: 2] == SlotQueued && s_known_q[s];|      cand[s] = s_state_q[s*2 +: 2] == SlotQueued;
m21|tree|dropped line lock|pick_set = any_line ? cand_line : cand;|pick_set = cand;
m22|tree|inverted comparison: youngest slot issues first|assign older_hi[a] = \|(pick_set[S-1:a+1] & ~row);|assign older_hi[a] = \|(pick_set[S-1:a+1] & row);
m23|tree|dropped term: ignores mem_ready|issue = any_cand && mem_ready_i;|issue = any_cand;
m24|tree|off-by-one index: line of the last request|last_line_d = {pick_key, pick_idx[8:4]};|last_line_d = {pick_key, pick_idx[7:3]};
m25|tree|inverted comparison: scan waits with enough free slots|if (ecnt > free_cnt) begin|if (ecnt >= free_cnt) begin
m26|tree|wrong constant: scan level wraps to PD instead of PML4|try_lvl = (try_lvl == 2'd0) ? 2'd3 : try_lvl - 2'd1;|try_lvl = (try_lvl == 2'd0) ? 2'd2 : try_lvl - 2'd1;
m27|tree|stale level: scan key uses the pre-response walk level|      .m_lvl_d    (m_lvl_p1),\n      .m_tb_d     (m_tb_p1),\n      .m_va_q,\n      .retired,|      .m_lvl_d    (m_lvl_q),\n      .m_tb_d     (m_tb_p1),\n      .m_va_q,\n      .retired,
m28|tree|off-by-one width: line compare of the group|key[j*KW +: KW] == key[i*KW +: KW] && idx[j*9 + 4 +: 5] == idx[i*9 + 4 +: 5]) begin|key[j*KW +: KW] == key[i*KW +: KW] && idx[j*9 + 3 +: 5] == idx[i*9 + 3 +: 5]) begin
m29|tree|dropped term: merge ignores known/unknown key kind|s_known_d[s] == kn[i] && s_key_d[s*KW +: KW] == key[i*KW +: KW] &&|s_key_d[s*KW +: KW] == key[i*KW +: KW] &&
m31|pair|inverted comparison: new slots in descending index order|idx[j*9 +: 9] < idx[i*9 +: 9]))) begin|idx[j*9 +: 9] > idx[i*9 +: 9]))) begin
m32|pair|inverted comparison: groups in descending leader order|(gl[j*MshrIdW +: MshrIdW] < gl[i*MshrIdW +: MshrIdW] \|\||(gl[j*MshrIdW +: MshrIdW] > gl[i*MshrIdW +: MshrIdW] \|\|
m33|tree4p3r1|stuck timer: passes every cycle after the first|      if ((elig & ~grp) != '0) begin\n        scan_timer_d = TimerLoad;|      if ((elig & ~grp) != '0) begin\n        scan_timer_d = '0;
m34|serial|off-by-one: one walk more than idle walkers dispatched|if (elig[i] && prank[i*CW +: CW] < idle_walkers) begin|if (elig[i] && prank[i*CW +: CW] <= idle_walkers) begin
m35|serial|dropped term: busy walkers not counted|idle_walkers = CW'(Walkers) - active_walks;|idle_walkers = CW'(Walkers);
m36|serial|inverted comparison: youngest walk dispatched first|if (elig[i] && elig[j] && m_age_q[pair_idx(j, i, N)]) begin|if (elig[i] && elig[j] && !m_age_q[pair_idx(j, i, N)]) begin
m37|tree|off-by-one width: canonical check|canon  = (ava[63:47] == 17'd0) \|\| (ava[63:47] == 17'h1FFFF);|canon  = (ava[63:48] == 16'd0) \|\| (ava[63:47] == 17'h1FFFF);
m38|tree|stuck done: non-canonical walk never completes|m_done_d[i]           = !canon;|m_done_d[i]           = 1'b0;
m39|tree|dropped term: one allocation takes every free MSHR|if (!found && fmask[i]) begin|if (fmask[i]) begin
m40|tree|wrong source: MSHRs retired this cycle reusable at once|fmask = ~m_valid_q;|fmask = ~m_valid_d;
m41|tree|inverted age: new slots older than existing ones|        s_age_q[P +: S - 1 - a] \| made;|        s_age_q[P +: S - 1 - a] & ~made;
m42|tree|off-by-one: request level|req_level_o = {1'b0, pick_lvl} + 3'd1;|req_level_o = {1'b0, pick_lvl} + 3'd0;
m45|tree|stuck valid: a retired MSHR stays busy|          m_valid_d[i] = 1'b0;\n          retired[i] = 1'b1;|          retired[i] = 1'b1;
m46|serial|stuck valid: serial next read never requested|            serial_new = 1'b1;|            serial_new = 1'b0;
m47|tree|stale references: slot release sees the holders before this cycle's updates|          if (m_refv_d[i*4 + l] && m_ref_d[(i*4 + l)*SW +: SW] == SW'(s)) begin\n            held[s] = 1'b1;|          if (m_refv_q[i*4 + l] && m_ref_q[(i*4 + l)*SW +: SW] == SW'(s)) begin\n            held[s] = 1'b1;
m48|tree|dropped term: an earlier slot outside the pick set still blocks younger ones|assign younger_row[a] = {row & {(S-1-a){pick_set[a]}}, (a + 1)'(0)};|assign younger_row[a] = {row, (a + 1)'(0)};
m49|tree|dropped term: a lower denying entry replaces the first one|          if (cfault == FaultNone) begin\n            // the first denying entry|          if (1'b1) begin\n            // the first denying entry
m50|tree|wrong level: a permission fault reported at the leaf's level|= {1'b0, m_dlvl_d[i*2 +: 2]} + 3'd1;|= {1'b0, m_lvl_d[i*2 +: 2]} + 3'd1;
m51|tree|old order: a permission denial ends the walk before the leaf|        if (chard \|\| cleaf) begin|        if (chard \|\| cleaf \|\| cfault != FaultNone) begin
EOF

cfg_args() {
  case $1 in
    # geometry 1 (every mutant)
    tree) echo "tree4p1r4 1 4 1 1 4" ;;
    tree4p3r1) echo "tree4p3r1 1 4 1 3 1" ;;
    pair) echo "pair4p1r2 2 4 1 1 2" ;;
    serial) echo "serial4w2r2 0 4 2 1 2" ;;
    # geometry 2 (survivors of geometry 1)
    tree.2) echo "tree2p2r1 1 2 1 2 1" ;;
    tree4p3r1.2) echo "tree2p3r2 1 2 1 3 2" ;;
    pair.2) echo "pair2p2r1 2 2 1 2 1" ;;
    serial.2) echo "serial2w1r1 0 2 1 1 1" ;;
    *) echo "bad config $1" >&2; return 1 ;;
  esac
}

# the scheduler's RTL files (the top module and its submodules)
rtl_files=("$root/rtl/walk_sched.sv" "$root"/rtl/ws_*.sv "$root/rtl/ws_defs.svh")

# build one model: $1 = folder, $2 = RTL folder (walk_sched.sv, ws_*), $3 = config key
build_model() {
  local dir=$1 rtl=$2 name variant mshrs walkers pass retire
  read -r name variant mshrs walkers pass retire <<<"$(cfg_args "$3")"
  mkdir -p "$dir"
  echo "#include \"Vws_${name}.h\"" >"$dir/ws_headers.inc"
  echo "#include \"Vws_${name}___024root.h\"" >>"$dir/ws_headers.inc"
  echo "WS_CFG(${name}, ${variant}, ${mshrs}, ${walkers}, ${pass}, ${retire})" >"$dir/ws_configs.inc"
  rm -rf "$dir/obj"
  verilator --cc --exe --build -j 1 --x-assign unique --x-initial unique --assert -O3 \
    --unroll-count "$unroll" --unroll-stmts 1000 \
    --prefix "Vws_${name}" --top-module walk_sched -GVariant="$variant" -GMshrs="$mshrs" \
    -GWalkers="$walkers" -GScanPassCycles="$pass" -GRetireWidth="$retire" \
    -MAKEFLAGS "OPT_FAST=$copt OPT_SLOW=$copt OPT_GLOBAL=$copt" \
    --Mdir "$dir/obj" -o vsim -I"$rtl" "$rtl/walk_sched.sv" "$twins/rtl_walk_sched.cpp" \
    -CFLAGS "-std=c++17 $copt -I$here -I$twins -I$dir -I$root/models/include" \
    -LDFLAGS "$work/mutate_main.o $models" >"$dir/build.log" 2>&1
}

run_model() { timeout "$hang_s" "$1/obj/vsim" "$seeds" "$cycles" 0x6d757400 >"$1/run.log" 2>&1; }

want=("$@")
if [ "$page_only" != 1 ]; then
# ---- the unmutated RTL must pass every configuration used (kept while the
# ---- RTL, the bench and the settings are unchanged) ----
stamp=$(cat "${rtl_files[@]}" "$here"/*.h "$here"/*.cpp "$models" | md5sum | cut -c1-16)"-$cycles-$seeds-$copt-$unroll"
base() {
  local d=$work/base_$1
  if [ "$(cat "$d/stamp" 2>/dev/null)" = "$stamp" ]; then return 0; fi
  build_model "$d" "$root/rtl" "$1" && run_model "$d" && echo "$stamp" >"$d/stamp"
}
# the geometries of the selected mutants (all 8 for a full run)
bkeys=()
while IFS='|' read -r id key _; do
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $id "* ]]; then continue; fi
  for k in "$key" "$key.2"; do [[ " ${bkeys[*]} " == *" $k "* ]] || bkeys+=("$k"); done
done <"$work/mutants.txt"
bpids=()
for key in "${bkeys[@]}"; do
  base "$key" & bpids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 1; done
done
for i in "${!bkeys[@]}"; do
  if ! wait "${bpids[$i]}"; then
    echo "mutate.sh: the unmutated RTL fails to build or run at ${bkeys[$i]} (see $work/base_${bkeys[$i]}/build.log, run.log)" >&2; exit 1
  fi
done
echo "mutate.sh: unmutated RTL passes at ${bkeys[*]} ($((SECONDS - t_start)) s); $seeds seeds x $cycles cycles per mutant and geometry"

# ---- mutants ----
one() {
  local line=$1 id key desc d g verdict="" how=""
  IFS='|' read -r id key desc _ _ <<<"$line"
  d=$work/$id
  rm -rf "$d"; mkdir -p "$d"
  mkdir -p "$d/rtl"
  if ! python3 - "$d/rtl" "$line" "${rtl_files[@]}" >"$d/file" <<'PY'
import os, re, sys
dst, line, srcs = sys.argv[1], sys.argv[2], sys.argv[3:]
f = re.split(r"(?<!\\)\|", line)
unesc = lambda t: t.replace("\\n", "\n").replace("\\|", "|")
search, repl = unesc(f[3]), unesc(f[4])
texts = {s: open(s).read() for s in srcs}
n = sum(t.count(search) for t in texts.values())
if n != 1:
    sys.exit(f"search text occurs {n} times")
for s, t in texts.items():
    open(os.path.join(dst, os.path.basename(s)), "w").write(t.replace(search, repl))
    if search in t:
        print(os.path.basename(s))  # the mutated file, for the report
PY
  then echo "$id|invalid|pattern" >"$d/result"; return; fi
  for g in "$key" "$key.2"; do
    if ! build_model "$d/$g" "$d/rtl" "$g"; then echo "$id|invalid|build ($g)" >"$d/result"; return; fi
    local rc=0
    run_model "$d/$g" || rc=$?
    if [ $rc -eq 124 ]; then
      # no verdict from the bench: a hang is not a catch
      verdict="hung"
      how="no result within ${hang_s} s at $(cfg_args "$g" | cut -d' ' -f1) (timeout)"
      rm -rf "$d/$g/obj"
      break
    elif [ $rc -ne 0 ]; then
      verdict="caught at $(cfg_args "$g" | cut -d' ' -f1): $(grep -m1 -E 'caught|Assertion|%Error' "$d/$g/run.log" | cut -c1-110)"
      rm -rf "$d/$g/obj"
      break
    fi
    rm -rf "$d/$g/obj"
  done
  if [ "$verdict" = hung ]; then echo "$id|hung|$desc|$how" >"$d/result"
  elif [ -n "$verdict" ]; then echo "$id|caught|$desc|$verdict" >"$d/result"
  else echo "$id|survived|$desc|both geometries" >"$d/result"; fi
}
# (the functions run in forked subshells; nothing to export)
mapfile -t lines <"$work/mutants.txt"
pids=()
for line in "${lines[@]}"; do
  id=${line%%|*}
  if [ ${#want[@]} -gt 0 ] && [[ ! " ${want[*]} " == *" $id "* ]]; then continue; fi
  one "$line" &
  pids+=($!)
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do sleep 1; done
done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
# what the page says of the run, kept for WS_MUT_PAGE_ONLY
if [ $# -eq 0 ]; then printf '%s\n' "$(date +%F)" "$((SECONDS - t_start))" "$cycles" "$seeds" "$hang_s" >"$work/run_info"; fi
fi

# Score: caught / mutants that build (a hang is listed, and is not a catch).
# There is no list of "equivalent" mutants: paths the C rules make
# unreachable are not in the RTL (the orphan slot state, see rtl/walk_sched.sv),
# and the RTL asserts the invariant instead.
python3 - "$work" "$report" "$seeds" "$cycles" "$hang_s" "$((SECONDS - t_start))" "$#" "$build" "$here/../dpi" <<'PY' | tee "$work/summary.txt"
import sys, os
work, report, seeds, cycles, hang_s, wall, nargs, build = sys.argv[1:9]
sys.path.insert(0, sys.argv[9])
import dpi_verdicts  # tb/dpi/dpi_verdicts.py: the DPI bench's column
dpi, dpi_day = dpi_verdicts.load(build)
run_day = ""
if nargs == "0":  # the full run's own figures (WS_MUT_PAGE_ONLY writes them again)
    run_day, wall, cycles, seeds, hang_s = open(os.path.join(work, "run_info")).read().split("\n")[:5]
rows, n = [], dict(caught=0, survived=0, hung=0, invalid=0)
for line in open(os.path.join(work, "mutants.txt")):
    mid, cfg, what = line.split("|")[:3]
    rf = os.path.join(work, mid, "result")
    if not os.path.exists(rf):
        continue
    r = open(rf).read().strip().split("|")
    res, how = r[1], (r[3] if len(r) > 3 else r[2])
    n[res] = n.get(res, 0) + 1
    ff = os.path.join(work, mid, "file")
    fname = (open(ff).read().strip() if os.path.exists(ff) else "") or "-"
    rows.append((mid, fname, cfg, res, what, how if res != "invalid" else r[2]))
    print(f"  {mid:4s} {res:9s} {what}  [{how}]")
built = n["caught"] + n["survived"] + n["hung"]
score = 100.0 * n["caught"] / built if built else 0.0
print(f"walk_sched mutation score: {n['caught']}/{built} caught ({score:.1f}%); "
      f"{n['survived']} survived, {n['hung']} hung, {n['invalid']} did not build or apply "
      f"({seeds} seeds x {cycles} cycles per mutant and geometry, {wall} s)")
if nargs == "0":
    md = ["# Mutation of the walk-scheduler RTL", "",
          "Generated by `tb/sched/mutate.sh` (`make mutate`); do not edit. Each mutant is one",
          "single-point change to a copy of the RTL (`rtl/walk_sched.sv` and its `rtl/ws_*.sv`",
          "submodules), verilated with `--assert` and run",
          f"in lock-step with the C model ({seeds} seeds x {cycles} cycles at a 4-MSHR geometry; a survivor",
          "again at a 2-MSHR one). Score = caught / mutants that build; a run without a verdict after",
          f"{hang_s} s is a hang and is not counted as caught.", "",
          "| file | mutants | built | caught | survived | hung | score | DPI bench killed |",
          "|---|---|---|---|---|---|---|---|",
          ]
    for fname in sorted({r[1] for r in rows}) + ["all"]:
        fr = [r for r in rows if fname in ("all", r[1])]
        c = {k: sum(r[3] == k for r in fr) for k in ("caught", "survived", "hung", "invalid")}
        b = c["caught"] + c["survived"] + c["hung"]
        label = "**all**" if fname == "all" else f"`{fname}`"
        md.append(f"| {label} | {len(fr)} | {b} | {c['caught']} | {c['survived']} | {c['hung']} | "
                  f"{(100.0 * c['caught'] / b if b else 0.0):.1f}% | {dpi_verdicts.count(dpi, [r[0] for r in fr])} |")
    md += ["", f"Run of {run_day}, {wall} s wall.", "",
           dpi_verdicts.paragraph(dpi, dpi_day, [r[0] for r in rows]), "",
           "| id | file | geometry | result | mutation | detail | DPI bench |", "|---|---|---|---|---|---|---|"]
    for mid, fname, cfg, res, what, how in rows:
        md.append(f"| {mid} | `{fname}` | {cfg} | {res} | {what} | {how.replace('|', '/')} | "
                  f"{dpi_verdicts.cell(dpi, mid)} |")
    tmp = report + ".tmp"
    open(tmp, "w").write("\n".join(md) + "\n")
    os.replace(tmp, report)
    if os.path.realpath(os.path.dirname(report)).endswith(os.sep + os.path.join('docs', 'results')):
        import subprocess  # the page's provenance stamp (scripts/page_provenance.py)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(report), '..', '..', 'scripts', 'page_provenance.py'),
                        'stamp', os.path.basename(report)], check=True)
    print(f"mutate.sh: report written to {report}")
sys.exit(0 if built and score >= 95.0 else 1)
PY
