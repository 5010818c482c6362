#!/usr/bin/env bash
# Stop soak (not CI): for SOAK_SECONDS (default 600) start random gmmu-sim
# runs (every workload, both SM models) and send each SIGINT at a random time
# (SOAK_MAX_DELAY seconds at most, default 3), SOAK_JOBS runs at a time
# (default 2); now and then a second run on the same --out. Asserts:
#   - an interrupted run exits 130 within 1 s of the signal (a run that ended
#     before its signal exits 0, its run.json "completed"; so may one whose
#     signal came during its last slice or output phase, within 1 s, with
#     complete stats);
#   - its run.json says "interrupted" (completed false, exit_status 130), and
#     its stats.json, when there is one, says completed false;
#   - outputs are never mixed: config.json and stats.json are this run's
#     (workload.kind, seed), no temporary file is left, and a second run on a
#     folder that a run holds is refused (exit 2) and writes nothing.
# Prints the counts at the end; exit 1 on the first violation (its details
# printed). usage: scripts/soak_sigint.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
sim=$build/bin/gmmu-sim
[ -x "$sim" ] || { echo "soak-sigint: no $sim (make build first)" >&2; exit 2; }
exec python3 - "$sim" "${SOAK_SECONDS:-600}" "${SOAK_JOBS:-2}" "${SOAK_MAX_DELAY:-3}" "${SOAK_SEED:-1}" <<'EOF'
import json, os, random, shutil, signal, subprocess, sys, tempfile, time

sim, seconds, jobs, max_delay, seed = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5])
rng = random.Random(seed)
work = tempfile.mkdtemp(prefix="gmmu-soak-sigint.")
trace = os.path.join(work, "trace.txt")
with open(trace, "w") as f:
    for i in range(20000):  # 32 lanes on 32 pages each: every access walks
        vas = ",".join("0x%x" % (0x10000000 + ((i * 32 + l) * 7919 % 100000) * 4096) for l in range(32))
        f.write("%d %d %s %s\n" % (i % 2, i % 4, "W" if i < 10000 else "R", vas))

# (workload, arguments): runs long enough that most are interrupted.
cases = [
    ("random-sample", "--set workload.accesses=200000"),
    ("random-sample", "--set workload.accesses=4000"),
    ("random-sample", "--set workload.tlb_scope=1 --set workload.accesses=2"),
    ("random-sample", "--config pichai14"),
    ("stream", "--set workload.passes=800 --set sm.count=1"),
    ("trace", "--set workload.path=%s --set sm.count=2 --set sm.warps=4" % trace),
    ("tlb-probe", ""),
    ("tlb-share", "--set workload.share_levels=2048:4096,16384:65536 --set sm.count=8"),
    ("hash-group", "--set workload.accesses=100000"),
    ("kernel", "--set workload.grid_blocks=2000"),
]

counts = {"before_handler": 0, "runs": 0, "interrupted": 0, "completed_first": 0, "completed_at_signal": 0, "refused_second": 0, "second_ran": 0}
worst = 0.0
lat = []

def fail(msg, run):
    print("soak-sigint: FAIL: %s\n  run: %s" % (msg, " ".join(run["argv"])), file=sys.stderr)
    for f in ("run.json", "stats.json"):
        p = os.path.join(run["out"], f)
        if os.path.exists(p):
            print("  %s: %s" % (f, open(p).read()[:400]), file=sys.stderr)
    print("  stderr: %s" % run.get("err", "")[-400:], file=sys.stderr)
    sys.exit(1)

def load(p):
    with open(p) as f:
        return json.load(f)

def start(out, wl, args, model, s):
    argv = [sim, "--workload", wl, "--seed", str(s), "--quiet", "--out", out]
    # the issue SM runs kernels only; every other workload runs on the simple SM
    argv += ["--set", "sm.model=" + ("issue" if wl == "kernel" else "simple")]
    argv += args.split()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return {"p": p, "argv": argv, "out": out, "wl": wl, "seed": s}

def check(run, rc, after_signal):
    global worst
    out = run["out"]
    leftovers = [f for f in os.listdir(out) if ".tmp." in f] if os.path.isdir(out) else []
    if leftovers:
        fail("temporary files left: %s" % leftovers, run)
    rj = load(os.path.join(out, "run.json")) if os.path.exists(os.path.join(out, "run.json")) else None
    if rc == 130:
        if after_signal is None:
            fail("exit 130 without a signal", run)
        worst = max(worst, after_signal)
        lat.append(after_signal)
        if after_signal > 1.0:
            fail("exited %.3f s after SIGINT" % after_signal, run)
        counts["interrupted"] += 1
        if rj is not None and (rj["status"] != "interrupted" or rj["completed"] or rj["exit_status"] != 130):
            fail("run.json does not say interrupted", run)
        sp = os.path.join(out, "stats.json")
        if os.path.exists(sp) and load(sp).get("completed", True):
            fail("stats.json of an interrupted run says completed", run)
    elif rc == -2 and after_signal is not None:
        # SIGINT before gmmu-sim installed its handler (process start-up):
        # the default action, which a shell reports as 130; nothing written
        counts["before_handler"] += 1
        return  # it wrote nothing: what the folder holds is an earlier run's
    elif rc == 0:
        if after_signal is not None:
            # The signal came during the last slice or the output phase: the
            # run was complete and says so. Allowed within 1 s of the signal.
            if after_signal > 1.0:
                fail("exit 0 %.3f s after SIGINT" % after_signal, run)
            worst = max(worst, after_signal)
            counts["completed_at_signal"] += 1
            sp = os.path.join(out, "stats.json")
            if not os.path.exists(sp) or not load(sp).get("completed", False):
                fail("exit 0 after SIGINT without complete stats", run)
        else:
            counts["completed_first"] += 1
        if rj is None or rj["status"] != "completed":
            fail("exit 0 but run.json says %s" % rj, run)
    else:
        fail("exit %d" % rc, run)
    # never mixed: the outputs there are this run's
    cp, sp = os.path.join(out, "config.json"), os.path.join(out, "stats.json")
    if os.path.exists(cp) and load(cp)["workload"]["kind"] != run["wl"]:
        fail("config.json of another run", run)
    if os.path.exists(sp) and load(sp)["seed"] != run["seed"]:
        fail("stats.json of another run", run)

t_end = time.monotonic() + seconds
n = 0
while time.monotonic() < t_end:
    batch = []
    for j in range(jobs):
        n += 1
        out = os.path.join(work, "out%d" % j)
        if rng.random() < 0.5:
            shutil.rmtree(out, ignore_errors=True)
        wl, args = rng.choice(cases)
        r = start(out, wl, args, None, n)
        r["delay"] = rng.uniform(0, max_delay)
        batch.append(r)
        counts["runs"] += 1
    # now and then a second run on a folder a run holds
    second = None
    if rng.random() < 0.2:
        time.sleep(0.3)
        first = batch[0]
        if first["p"].poll() is None and os.path.exists(os.path.join(first["out"], "run.json")):
            before = open(os.path.join(first["out"], "config.json")).read()
            s = subprocess.run([sim, "--workload", "stream", "--quiet", "--out", first["out"]],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            still = first["p"].poll() is None
            if s.returncode == 2 and "another gmmu-sim run" in s.stderr:
                counts["refused_second"] += 1
                if open(os.path.join(first["out"], "config.json")).read() != before:
                    fail("a refused second run changed config.json", first)
            elif still:
                fail("second run on a held folder: exit %d: %s" % (s.returncode, s.stderr), first)
            else:
                counts["second_ran"] += 1  # the first had ended meanwhile
                first["second_ran"] = True
    t0 = time.monotonic()
    live = list(batch)
    while live:
        now = time.monotonic()
        for r in list(live):
            rc = r["p"].poll()
            if rc is not None:
                r["rc"], r["t"] = rc, now
                live.remove(r)
            elif "sent" not in r and now >= t0 + r["delay"]:
                r["p"].send_signal(signal.SIGINT)
                r["sent"] = time.monotonic()
        time.sleep(0.002)
    for r in batch:
        r["err"] = r["p"].stderr.read().decode(errors="replace")
        if r.get("second_ran"):
            continue
        check(r, r["rc"], None if "sent" not in r else r["t"] - r["sent"])

lat.sort()
med = lat[len(lat) // 2] if lat else 0.0
print("soak-sigint: %.0f s, %d runs: %d interrupted (exit 130; stop latency median %.3f s, worst %.3f s), "
      "%d killed in start-up before the handler (no outputs), %d ended before their signal, %d complete within 1 s of it, %d second runs on a held folder refused, %d after it was free; 0 violations"
      % (seconds, counts["runs"], counts["interrupted"], med, worst, counts["before_handler"], counts["completed_first"],
         counts["completed_at_signal"], counts["refused_second"], counts["second_ran"]))
shutil.rmtree(work, ignore_errors=True)
EOF
