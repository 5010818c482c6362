#!/usr/bin/env bash
# make reproduce: every experiment's run.sh (experiments/*/run.sh), as two
# chains run side by side so that both of a two-core machine's cores stay
# busy through each page's single-job parts (its analysis, its serial runs,
# the end of each sweep):
#   - the real-kernel chain: pichai, picle and warp_sched (with tbc), in that
#     order, since they share the sweep `real-kernels` (pichai runs it, the
#     others read its finished runs) and one gmmu-sweep folder must not be
#     run twice at once; then kernels (the characterisation), which reads
#     the same cached inputs (docs/kernels.md) that pichai's runs generated;
#   - every other page, in name order.
# The synthetic workloads' pages (experiments/*/synthetic.sh) are not here:
# make reproduce-synthetic runs them.
# Each page's output goes to BUILD_DIR/reproduce/PAGE.log; one line per page
# says when it started, how long it took and whether it passed. Both chains
# always finish; the script fails, naming each page that failed, if one did.
#   BUILD_DIR=... [JOBS=N] experiments/reproduce.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
: "${BUILD_DIR:?BUILD_DIR must name the build folder}"
logs="$BUILD_DIR/reproduce"
mkdir -p "$logs"
rm -f "$logs"/*.failed

real_chain=(pichai picle warp_sched kernels)
other_chain=()
for d in "$here"/*/; do
  p=$(basename "$d")
  [ -x "$d/run.sh" ] || continue
  case " ${real_chain[*]} " in *" $p "*) ;; *) other_chain+=("$p") ;; esac
done

# One chain: run its pages one after another; a failed page is marked and the
# chain goes on (the pages do not depend on one another's success).
run_chain() {
  local p t0 rc
  for p in "$@"; do
    [ -x "$here/$p/run.sh" ] || { echo "reproduce: experiments/$p/run.sh is missing" >&2; : >"$logs/$p.failed"; continue; }
    t0=$(date +%s)
    echo "reproduce: $p started $(date -u +%H:%M:%S)"
    BUILD_DIR="$BUILD_DIR" bash "$here/$p/run.sh" >"$logs/$p.log" 2>&1
    rc=$?
    if [ "$rc" = 0 ]; then
      echo "reproduce: $p done in $(( $(date +%s) - t0 )) s"
    else
      echo "reproduce: $p FAILED (exit $rc) after $(( $(date +%s) - t0 )) s; its log: $logs/$p.log" >&2
      : >"$logs/$p.failed"
    fi
  done
}

# Each chain in a process group of its own (set -m), so that an interrupt
# stops everything it started, sweeps and their runs included.
set -m
pids=()
stop() {
  trap - INT TERM
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  wait
  echo "reproduce: interrupted" >&2
  exit 130
}
trap stop INT TERM

start=$(date +%s)
run_chain "${real_chain[@]}" & pids+=("$!")
run_chain "${other_chain[@]}" & pids+=("$!")
wait "${pids[@]}"
trap - INT TERM

failed=()
for f in "$logs"/*.failed; do
  [ -e "$f" ] && failed+=("$(basename "$f" .failed)")
done
echo "reproduce: $(( $(date +%s) - start )) s in all"
if [ "${#failed[@]}" -gt 0 ]; then
  for p in "${failed[@]}"; do
    echo "reproduce: $p failed; the end of $logs/$p.log:" >&2
    tail -n 20 "$logs/$p.log" >&2
  done
  exit 1
fi
