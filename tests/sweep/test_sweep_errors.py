#!/usr/bin/env python3
"""gmmu-sweep's error paths (tools/gmmu-sweep; docs/sweeps.md): every bad
input is one line on stderr and exit 2, never a Python traceback, and the
spec is checked whole (by gmmu-sim --check and --list-stats) before anything
runs or is submitted. Also: outputs are never renamed over a non-regular
file and get the user's umask; -j 1 runs one gmmu-sim at a time; SIGTERM
stops the running gmmu-sims; the Slurm job script quotes every path and
--wait fails when points are missing.

  test_sweep_errors.py --sweep build/bin/gmmu-sweep --sim build/bin/gmmu-sim
"""
import argparse
import csv
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None
SMALL = {"sm.count": 1, "sm.warps": 2, "workload.region_bytes": 65536, "workload.accesses": 2}


def sweep(*args, check=False, env=None, timeout=120, umask=None, cwd=None):
    p = subprocess.run([sys.executable, ARGS.sweep] + list(args), capture_output=True, text=True, env=env,
                       timeout=timeout, cwd=cwd, preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
    if check and p.returncode != 0:
        raise AssertionError("gmmu-sweep %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    return p


class SweepErrorTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gmmu-sweep-err-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.dir, *parts)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def spec(self, d, name="spec.json"):
        return self.write(name, json.dumps(d))

    def refused(self, p, msg):
        """Exit 2, one line, no traceback, naming msg."""
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertNotIn("Traceback", p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertTrue(p.stderr.startswith("gmmu-sweep: "), p.stderr)
        self.assertIn(msg, p.stderr)

    def run_spec(self, spec_path, out=None, *more):
        out = out or self.path("out")
        return sweep("run", spec_path, "--out", out, "--sim", ARGS.sim, "-j", "2", "--quiet", *more)

    def small_sweep(self, n=2):
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64][:n]},
                          "stats": ["gpu.l1_tlb0.hits"]}, "small.json")
        out = self.path("small")
        sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--quiet", check=True)
        with open(os.path.join(out, "sweep.json")) as f:
            ids = [p["id"] for p in json.load(f)["points"]]
        return out, ids

    # ---- item 18: every traceback case is one line and exit 2 ------------------------

    def test_timeout_s_nan_infinity_and_huge(self):
        for text in ['{"timeout_s": NaN}', '{"timeout_s": Infinity}', '{"timeout_s": -Infinity}']:
            self.refused(self.run_spec(self.write("t.json", text)), "not a number JSON allows")
        self.refused(self.run_spec(self.spec({"timeout_s": 1e308})), "'timeout_s'")
        self.refused(self.run_spec(self.spec({"timeout_s": 2592001})), "'timeout_s'")
        toml = self.write("t.toml", 'timeout_s = nan\n')
        self.refused(self.run_spec(toml), "not a finite number")
        self.refused(self.run_spec(self.write("t2.toml", 'timeout_s = inf\n')), "not a finite number")
        self.assertFalse(os.path.exists(self.path("out")), "nothing ran")

    def test_a_nul_character_in_a_value(self):
        for spec in [{"grid": {"ptw.pwc": ["none", "t\u0000pc"]}}, {"set": {"sm.count": "1\u0000"}},
                     {"workloads": ["stream\u0000"]}, {"config": "de\u0000fault"},
                     {"points": [{"label": "a\u0000b"}]}, {"stats": ["sim_time_ns\u0000"]}]:
            self.refused(self.run_spec(self.spec(spec)), "NUL character")
        self.refused(self.run_spec(self.write("s.json", '{"workloads": ["\\ud800"]}')), "lone surrogate")

    def test_no_sbatch_on_path(self):
        spec = self.spec({"set": SMALL})
        env = dict(os.environ, PATH=self.path("empty-bin"))
        os.mkdir(self.path("empty-bin"))
        p = sweep("run", spec, "--out", self.path("out"), "--sim", ARGS.sim, "--backend", "slurm", env=env)
        self.refused(p, "not found on PATH")
        p = sweep("run", spec, "--out", self.path("out"), "--sim", ARGS.sim, "--backend", "slurm",
                  "--sbatch", self.path("no-such-sbatch"))
        self.refused(p, "--sbatch")
        self.assertFalse(os.path.exists(self.path("out")), "nothing written")

    def test_run_out_is_a_file(self):
        f = self.write("afile", "mine\n")
        self.refused(self.run_spec(self.spec({"set": SMALL}), f), "not a folder")
        with open(f) as h:
            self.assertEqual(h.read(), "mine\n")
        self.refused(self.run_spec(self.spec({"set": SMALL}), os.path.join(f, "sub")), "")

    def test_truncated_sweep_stats_and_failed_json(self):
        out, ids = self.small_sweep()
        sj = os.path.join(out, "sweep.json")
        with open(sj) as f:
            whole = f.read()
        with open(sj, "w") as f:
            f.write(whole[:len(whole) // 2])
        for args in (["status", out], ["merge", out],
                     ["run", self.path("small.json"), "--out", out, "--sim", ARGS.sim]):
            self.refused(sweep(*args), "sweep.json")
        with open(sj, "w") as f:
            f.write(whole)
        # A point's stats.json cut short: merge names it.
        st = os.path.join(out, "points", ids[0], "stats.json")
        with open(st) as f:
            text = f.read()
        with open(st, "w") as f:
            f.write(text[:40])
        self.refused(sweep("merge", out), st)
        with open(st, "w") as f:
            f.write(text)
        # A failed point whose failed.json is cut short: status names it.
        os.unlink(os.path.join(out, "points", ids[1], "done"))
        fj = os.path.join(out, "points", ids[1], "failed.json")
        with open(fj, "w") as f:
            f.write('{"exit_code": 1, "stderr_t')
        self.refused(sweep("status", out), fj)
        with open(fj, "w") as f:
            f.write('{"exit_code": "x", "stderr_tail": 3}')
        self.refused(sweep("status", out), fj)
        # An edited sweep.json whose id would name a folder outside the sweep.
        bad = json.loads(whole)
        bad["points"][0]["id"] = "../../etc"
        with open(sj, "w") as f:
            json.dump(bad, f)
        self.refused(sweep("status", out), "not a sweep.json gmmu-sweep wrote")

    def test_unwritable_csv(self):
        out, _ = self.small_sweep(1)
        f = self.write("afile", "x")
        self.refused(sweep("merge", out, "--csv", os.path.join(f, "t.csv")), "--csv")
        self.refused(sweep("merge", out, "--csv", out), "is a folder")
        self.refused(sweep("merge", out, "--csv", "/proc/version"), "--csv /proc/version: cannot write")
        self.refused(sweep("merge", out, "--jsonl", os.path.join(f, "t.jsonl")), "--jsonl")

    def test_plot_missing_table_and_non_numeric_y(self):
        png = self.path("p.png")
        self.refused(sweep("plot", self.path("nope.csv"), "--x", "a", "--y", "b", "--out", png), "nope.csv")
        t = self.write("t.csv", "status,x,y\nok,1,2\nok,2,abc\nfailed,3,\n")
        self.refused(sweep("plot", t, "--x", "x", "--y", "y", "--out", png), "'abc'")
        self.refused(sweep("plot", t, "--x", "x", "--y", "z", "--out", png), "no column 'z'")
        self.refused(sweep("plot", self.write("e.csv", ""), "--x", "x", "--y", "y", "--out", png), "empty table")
        self.refused(sweep("plot", self.write("n.csv", "status,x,y\nok,1,nan\n"), "--x", "x", "--y", "y",
                           "--out", png), "'nan'")
        with open(self.path("bin.csv"), "wb") as f:
            f.write(b"status,x,y\nok,1,\xff\n")
        self.refused(sweep("plot", self.path("bin.csv"), "--x", "x", "--y", "y", "--out", png), "not a CSV table")
        self.refused(sweep("plot", self.path("."), "--x", "x", "--y", "y", "--out", png), "is a folder")
        self.assertFalse(os.path.exists(png))

    def test_an_unexpected_error_is_one_line(self):
        # The top-level guard: an exception no check foresaw (here planted
        # into `status`) still ends as one line and exit 2.
        code = ("import importlib.machinery, importlib.util, sys\n"
                "l = importlib.machinery.SourceFileLoader('gs', %r)\n"
                "s = importlib.util.spec_from_loader('gs', l); m = importlib.util.module_from_spec(s)\n"
                "l.exec_module(m)\n"
                "def boom(out):\n    raise ZeroDivisionError('planted\\nsecond line')\n"
                "m.status = boom\n"
                "sys.exit(m.guarded_main(['status', '.']))\n" % ARGS.sweep)
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.refused(p, "internal error (please report): ZeroDivisionError: planted second line")

    # ---- item 16 (sweep spec): non-regular and oversized spec files ----------------------

    def test_fifo_folder_and_oversized_spec_are_refused_without_blocking(self):
        fifo = self.path("spec.json")
        os.mkfifo(fifo)
        t0 = time.time()
        self.refused(self.run_spec(fifo), "not a regular file")
        self.assertLess(time.time() - t0, 10)
        self.refused(self.run_spec(self.dir), "is a folder")
        big = self.path("big.json")
        with open(big, "wb") as f:
            f.truncate((64 << 20) + 1)
        self.refused(self.run_spec(big), "at most")
        self.refused(self.run_spec(self.path("missing.json")), "No such file")

    # ---- item 19: the whole spec is checked before anything runs -------------------------

    def test_duplicate_keys_are_refused(self):
        p = self.run_spec(self.write("d.json", '{"grid": {"ptw.pwc": ["none"], "ptw.pwc": ["tpc"]}}'))
        self.refused(p, "key 'ptw.pwc' given twice")
        self.refused(self.run_spec(self.write("d2.json", '{"seeds": [1], "seeds": [2]}')), "given twice")
        self.refused(self.run_spec(self.write("d.toml", 'seeds = [1]\nseeds = [2]\n')), "not valid TOML")

    def test_values_configs_workloads_and_stats_are_checked_by_gmmu_sim(self):
        out = self.path("out")
        cases = [({"set": SMALL, "grid": {"l1_tlb.ways": [4, 64]}}, "l1_tlb.ways"),
                 ({"set": dict(SMALL, **{"sm.count": "abc"})}, "sm.count"),
                 ({"set": SMALL, "grid": {"ptw.pwc": ["none", "bogus"]}}, "ptw.pwc"),
                 ({"set": SMALL, "workloads": ["stream", "no-such-workload"]}, "no-such-workload"),
                 ({"set": SMALL, "config": "no-such-config"}, "no-such-config"),
                 ({"points": [{"label": "fine", "set": SMALL},
                              {"label": "bad", "set": dict(SMALL, **{"sm.warps": 0})}]}, "point 'bad'"),
                 ({"set": SMALL, "stats": ["gpu.l1_tlb0.nope"]}, "no statistic 'gpu.l1_tlb0.nope'"),
                 ({"set": SMALL, "stats": ["gpu.nosuch.hits"]}, "no statistic")]
        for spec, msg in cases:
            for backend in ("local", "slurm"):
                p = sweep("run", self.spec(spec), "--out", out, "--sim", ARGS.sim, "--backend", backend,
                          "--sbatch", sys.executable)
                self.refused(p, msg)
                self.assertIn("spec.json", p.stderr)
                self.assertFalse(os.path.exists(out), "nothing ran or was submitted")
        # Known statistics, a folder of them, and instance numbers pass.
        ok = self.spec({"set": SMALL, "stats": ["gpu.l1_tlb0.hits", "gpu.ptw", "sim_time_ns",
                                                "data_check.mismatches", "gpu.l1_tlb0.large_pages.2M.hits"]})
        p = sweep("run", ok, "--out", out, "--sim", ARGS.sim, "--dry-run")
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_a_resumed_sweep_checks_only_the_points_not_complete(self):
        log = self.path("checks.log")
        path = self.path("log-sim")
        with open(path, "w") as f:
            f.write("#!%s\nimport os, sys\nif '--check' in sys.argv:\n    open(%r, 'a').write('c\\n')\n"
                    "os.execv(%r, [%r] + sys.argv[1:])\n" % (sys.executable, log, ARGS.sim, ARGS.sim))
        os.chmod(path, 0o755)
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64, 128]}, "seeds": [1, 2]})
        out = self.path("out")

        def checks():
            if not os.path.exists(log):
                return 0
            with open(log) as f:
                n = len(f.read().split())
            os.unlink(log)
            return n
        sweep("run", spec, "--out", out, "--sim", path, "--quiet", check=True)
        self.assertEqual(checks(), 3, "one check per distinct run (seeds share one)")
        sweep("run", spec, "--out", out, "--sim", path, "--quiet", check=True)
        self.assertEqual(checks(), 0, "every point complete: nothing to check")
        with open(os.path.join(out, "sweep.json")) as f:
            first = json.load(f)["points"][0]["id"]
        os.unlink(os.path.join(out, "points", first, "done"))
        sweep("run", spec, "--out", out, "--sim", path, "--quiet", check=True)
        self.assertEqual(checks(), 1)

    def test_gmmu_sim_check_simulates_nothing_and_writes_nothing(self):
        out = self.path("simout")
        p = subprocess.run([ARGS.sim, "--check", "--config", "default", "--workload", "stream",
                            "--set", "workload.passes=100000", "--out", out], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertFalse(os.path.exists(out))
        p = subprocess.run([ARGS.sim, "--check", "--workload", "stream", "--set", "l1_tlb.ways=4096"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("l1_tlb.ways", p.stderr)

    # ---- item 7 (Python half): outputs never replace a non-regular file -------------------

    def test_outputs_to_symlinks_fifos_and_devices(self):
        out, _ = self.small_sweep(1)
        # A symlink: its target is replaced, the link stays a link.
        target = self.write("target.csv", "old\n")
        link = self.path("link.csv")
        os.symlink(target, link)
        sweep("merge", out, "--csv", link, check=True)
        self.assertTrue(os.path.islink(link))
        with open(target) as f:
            self.assertTrue(f.read().startswith("id,index,"))
        # A FIFO with a reader: written in place; without one: refused, not blocked on.
        fifo = self.path("fifo.csv")
        os.mkfifo(fifo)
        self.refused(sweep("merge", out, "--csv", fifo, timeout=30), "no reader")
        reader = subprocess.Popen(["cat", fifo], stdout=subprocess.PIPE, text=True)
        time.sleep(0.3)
        sweep("merge", out, "--csv", fifo, check=True, timeout=30)
        got, _ = reader.communicate(timeout=30)
        self.assertTrue(got.startswith("id,index,"), got)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        # A character device (a copy of /dev/null): written in place, still a device.
        dev = self.path("null")
        try:
            os.mknod(dev, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except OSError:
            dev = None
        if dev:
            sweep("merge", out, "--csv", dev, "--jsonl", dev, check=True)
            self.assertTrue(stat.S_ISCHR(os.lstat(dev).st_mode), "the device was replaced")
        # A socket is neither: refused.
        import socket
        sock_path = self.path("sock")
        s = socket.socket(socket.AF_UNIX)
        s.bind(sock_path)
        try:
            self.refused(sweep("merge", out, "--csv", sock_path), "not a regular file; not replaced")
        finally:
            s.close()
        self.assertTrue(stat.S_ISSOCK(os.lstat(sock_path).st_mode))

    # ---- item 21: -j, SIGTERM, umask -------------------------------------------------------

    def wrapper_sim(self, body):
        """A gmmu-sim stand-in: --list-keys/--list-stats/--check go to the real
        one; a run does body (with RUN = the real command)."""
        path = self.path("wrap-sim")
        with open(path, "w") as f:
            f.write("#!%s\nimport os, subprocess, sys, time\nREAL = %r\n"
                    "if any(a in sys.argv for a in ('--list-keys', '--list-stats', '--check')):\n"
                    "    os.execv(REAL, [REAL] + sys.argv[1:])\n"
                    "RUN = [REAL] + sys.argv[1:]\n%s\n" % (sys.executable, ARGS.sim, body))
        os.chmod(path, 0o755)
        return path

    def test_jobs_1_runs_one_gmmu_sim_at_a_time(self):
        running = self.path("running")
        os.mkdir(running)
        log = self.path("concurrency.log")
        sim = self.wrapper_sim(
            "mark = os.path.join(%r, str(os.getpid()))\nopen(mark, 'w').close()\n"
            "with open(%r, 'a') as f:\n    f.write('%%d\\n' %% len(os.listdir(%r)))\n"
            "time.sleep(0.3)\nrc = subprocess.call(RUN)\nos.unlink(mark)\nsys.exit(rc)\n" % (running, log, running))
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64, 128]}, "seeds": [1, 2]})
        for jobs, expect in (("1", 1), ("2", 2)):
            if os.path.exists(log):
                os.unlink(log)
            p = sweep("run", spec, "--out", self.path("out" + jobs), "--sim", sim, "-j", jobs, "--quiet")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(log) as f:
                seen = [int(x) for x in f.read().split()]
            self.assertEqual(len(seen), 6)
            self.assertEqual(max(seen), expect, "-j %s: at most (and, with 0.3 s runs, exactly) %d at once"
                             % (jobs, expect))

    def test_sigterm_stops_the_running_gmmu_sims(self):
        pids = self.path("pids")
        os.mkdir(pids)
        sim = self.wrapper_sim("open(os.path.join(%r, str(os.getpid())), 'w').close()\ntime.sleep(120)\n" % pids)
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64, 128, 256]}})
        out = self.path("out")
        p = subprocess.Popen([sys.executable, ARGS.sweep, "run", spec, "--out", out, "--sim", sim, "-j", "2"],
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        deadline = time.time() + 60
        while len(os.listdir(pids)) < 2 and time.time() < deadline:
            time.sleep(0.05)
        self.assertEqual(len(os.listdir(pids)), 2)
        t0 = time.time()
        p.send_signal(signal.SIGTERM)  # to gmmu-sweep alone, not its process group
        _, err = p.communicate(timeout=60)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertLess(time.time() - t0, 10)
        self.assertNotIn("Traceback", err)
        for pid in os.listdir(pids):
            gone = False
            for _ in range(50):
                try:
                    os.kill(int(pid), 0)
                except ProcessLookupError:
                    gone = True
                    break
                time.sleep(0.1)
            self.assertTrue(gone, "gmmu-sim %s still runs after gmmu-sweep got SIGTERM" % pid)
        self.assertEqual(len(os.listdir(pids)), 2, "no point started after the signal")
        pts = os.path.join(out, "points")
        self.assertFalse(any(os.path.exists(os.path.join(pts, i, "failed.json")) for i in os.listdir(pts)),
                         "a stopped point is not a failure")

    def test_outputs_get_the_users_umask(self):
        spec = self.spec({"set": SMALL})
        for mask, mode in ((0o022, 0o644), (0o077, 0o600), (0o002, 0o664)):
            out = self.path("out%o" % mask)
            p = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--quiet", umask=mask)
            self.assertEqual(p.returncode, 0, p.stderr)
            sweep("merge", out, umask=mask, check=True)
            pid = os.listdir(os.path.join(out, "points"))[0]
            for f in ("sweep.json", "merged.csv", "merged.jsonl", "configs.json",
                      os.path.join("points", pid, "point.json"), os.path.join("points", pid, "done")):
                self.assertEqual(stat.S_IMODE(os.stat(os.path.join(out, f)).st_mode), mode, (f, oct(mask)))

    # ---- item 20: the Slurm job script quotes every path; --wait and missing points -------

    def fake_sbatch(self, run_tasks=True):
        """sbatch for a test: reads the options gmmu-sweep gives (in the
        script's #SBATCH lines or on the command line), runs every
        array task of the job script with bash one after the other (its output
        to --output with %a and %% expanded), prints a job id."""
        path = self.path("sbatch")
        with open(path, "w") as f:
            f.write("""#!%s
import re, subprocess, sys
job = sys.argv[-1]
opts = {}
for line in open(job):  # #SBATCH lines first, the command line's options win (as sbatch)
    if line.startswith("#SBATCH --") and "=" in line:
        k, v = line[len("#SBATCH --"):].rstrip("\\n").split("=", 1)
        opts[k] = v
opts.update(a[2:].split("=", 1) for a in sys.argv[1:-1] if "=" in a)
lo, hi = re.match(r"(\\d+)-(\\d+)", opts["array"]).groups()
if %r:
    for t in range(int(lo), int(hi) + 1):
        log = re.sub(r"%%(%%|a)", lambda m: "%%" if m.group(1) == "%%" else str(t), opts["output"])
        with open(log, "w") as out:
            subprocess.run(["bash", job], stdout=out, stderr=subprocess.STDOUT,
                           env=dict(__import__("os").environ, SLURM_ARRAY_TASK_ID=str(t)))
print("4242")
""" % (sys.executable, run_tasks))
        os.chmod(path, 0o755)
        return path

    def test_slurm_job_script_quotes_every_path(self):
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64, 128]}})
        out = self.path("sw", "sl 7 $(touch pwned) 100%a;")
        os.makedirs(os.path.dirname(out))
        p = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--backend", "slurm", "--chunk", "2",
                  "--sbatch", self.fake_sbatch(), "--wait", cwd=self.dir)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertFalse(os.path.exists(self.path("pwned")))
        st = sweep("status", out, check=True).stdout
        self.assertIn("3 points, 3 complete, 0 failed", st)
        logs = sorted(n for n in os.listdir(os.path.join(out, "slurm")) if n.endswith(".log"))
        self.assertEqual(logs, ["task-0.log", "task-1.log"])

    def test_slurm_wait_fails_when_points_are_missing(self):
        spec = self.spec({"set": SMALL, "grid": {"l1_tlb.entries": [32, 64]}})
        out = self.path("out")
        p = sweep("run", spec, "--out", out, "--sim", ARGS.sim, "--backend", "slurm",
                  "--sbatch", self.fake_sbatch(run_tasks=False), "--wait")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertIn("2 of 2 points not complete", p.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--sweep", required=True)
    ap.add_argument("--sim", required=True)
    ARGS, rest = ap.parse_known_args()
    ARGS.sweep = os.path.abspath(ARGS.sweep)
    ARGS.sim = os.path.abspath(ARGS.sim)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
