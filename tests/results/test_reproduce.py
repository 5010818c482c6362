#!/usr/bin/env python3
"""make reproduce's driver (experiments/reproduce.sh) on a scratch tree of
fake experiments: every run.sh runs once; pichai, picle, warp_sched and
kernels run in that order (they share the real-kernel sweep and its inputs)
while the other pages run beside them; a failing page does not stop the others, is named, and makes
the driver fail; a folder without run.sh is not a page, and a synthetic.sh
(make reproduce-synthetic's) is not run."""
import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "experiments", "reproduce.sh")


class ReproduceTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.exp = os.path.join(self.tmp, "experiments")
        self.build = os.path.join(self.tmp, "build")
        self.stamps = os.path.join(self.tmp, "stamps")
        os.makedirs(self.exp)
        os.makedirs(self.stamps)
        shutil.copy(SCRIPT, self.exp)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def page(self, name, body="sleep 0.5", run=True):
        d = os.path.join(self.exp, name)
        os.makedirs(d)
        if run:
            p = os.path.join(d, "run.sh")
            with open(p, "w") as f:
                # each page records when it started and ended (ns)
                f.write(f"#!/bin/bash\necho start $(date +%s%N) >> {self.stamps}/{name}\n"
                        f"{body}\nrc=$?\necho end $(date +%s%N) >> {self.stamps}/{name}\nexit $rc\n")
            os.chmod(p, 0o755)

    def run_script(self):
        env = dict(os.environ, BUILD_DIR=self.build)
        return subprocess.run(["bash", os.path.join(self.exp, "reproduce.sh")], env=env,
                              capture_output=True, text=True, timeout=60)

    def times(self, name):
        with open(os.path.join(self.stamps, name)) as f:
            lines = [ln.split() for ln in f]
        self.assertEqual([k for k, _ in lines], ["start", "end"], f"{name} ran once")
        return int(lines[0][1]), int(lines[1][1])

    def test_chains(self):
        for p in ("pichai", "picle", "warp_sched", "kernels", "faults_platform", "tlb"):
            self.page(p)
        self.page("notapage", run=False)
        # a synthetic workloads' page is make reproduce-synthetic's, not make reproduce's
        with open(os.path.join(self.exp, "pichai", "synthetic.sh"), "w") as f:
            f.write(f"#!/bin/bash\necho ran >> {self.stamps}/synthetic\n")
        os.chmod(os.path.join(self.exp, "pichai", "synthetic.sh"), 0o755)
        r = self.run_script()
        self.assertEqual(r.returncode, 0, r.stderr)
        ps, pe = self.times("pichai")
        cs, ce = self.times("picle")
        ws, we = self.times("warp_sched")
        ks, ke = self.times("kernels")
        self.assertTrue(pe <= cs and ce <= ws and we <= ks, "the real-kernel chain runs in order")
        fs, fe = self.times("faults_platform")
        ts, te = self.times("tlb")
        self.assertTrue(fe <= ts, "the other pages run one after another")
        self.assertTrue(fs < pe and ps < fe, "the two chains run side by side")
        self.assertFalse(os.path.exists(os.path.join(self.stamps, "notapage")))
        self.assertFalse(os.path.exists(os.path.join(self.stamps, "synthetic")))
        for p in ("pichai", "picle", "warp_sched", "kernels", "faults_platform", "tlb"):
            self.assertTrue(os.path.exists(os.path.join(self.build, "reproduce", p + ".log")))

    def test_a_failing_page_is_named_and_the_rest_still_run(self):
        self.page("pichai")
        self.page("picle", body="echo broken-page-output; exit 3")
        self.page("warp_sched")
        self.page("kernels")
        self.page("tlb")
        r = self.run_script()
        self.assertEqual(r.returncode, 1)
        self.assertIn("picle FAILED (exit 3)", r.stderr)
        self.assertIn("broken-page-output", r.stderr)
        self.times("warp_sched")
        self.times("tlb")


if __name__ == "__main__":
    unittest.main()
