#!/usr/bin/env python3
"""Tests of scripts/cosim_long_report.py on logs of its own: the C++ PWC and
scheduler benches' seeds and the SystemVerilog (DPI) benches' scoreboards
become one table per block, with cycles, mismatches and speed; a seed that
mismatched or never finished is counted; no logs at all is an error.

  test_cosim_long_report.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "cosim_long_report.py")


class CosimLongReportTest(unittest.TestCase):
    def setUp(self):
        self.build = tempfile.mkdtemp(prefix="gmmu-cosim-report-test-")
        self.out = os.path.join(self.build, "page.md")

    def tearDown(self):
        shutil.rmtree(self.build, ignore_errors=True)

    def write(self, rel, text):
        path = os.path.join(self.build, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def run_report(self):
        return subprocess.run([sys.executable, SCRIPT, self.build, self.out],
                              capture_output=True, text=True)

    def test_every_block_gets_its_table(self):
        self.write("tb/pwc/cosim_long_cpwc_paper.log",
                   "cpwc_paper seed 11 reset 0: 1000 cycles in 2.0 s\n"
                   "cpwc_paper seed 12 reset 0: 1000 cycles in 2.0 s\n")
        self.write("tb/sched/long/tree4p1r4.log",
                   "tree4p1r4 GMMU_SEED=0x10: 4000 cycles in 1.0 s (4000 cycles/s): ok\n"
                   "tree4p1r4 GMMU_SEED=0x11: 4000 cycles in 1.0 s (4000 cycles/s): MISMATCH\n")
        self.write("tb/dpi/cosim_long_cpwc_7.log",
                   "pwc_scoreboard: 500 cycles, 400 results, 9 slots compared, 0 mismatches; C model: x\n"
                   "pwc_tb: PASSED\n")
        self.write("tb/dpi/cosim_long_ws_tree_7.log",
                   "ws_scoreboard: 300 cycles, 20 requests, 10 walks, 2 mismatches; C model: x\n")
        self.write("tb/dpi/cosim_long_ws_tree_8.log", "ws_tb: started\n")  # stopped before its summary
        r = self.run_report()
        self.assertEqual(r.returncode, 0, r.stderr)
        page = open(self.out).read()
        self.assertIn("| cpwc_paper | 2 (11..12) | 2,000 | 0 | 4 | 500 |", page)
        self.assertIn("| tree4p1r4 | 2 (16..17) | 8,000 | 1 | 2 | 4,000 |", page)
        self.assertIn("## SystemVerilog benches through gmmu_dpi (tb/dpi)", page)
        self.assertIn("| cpwc | 7 | 500 | 0 | - | - |", page)
        self.assertIn("| ws_tree | 7 | 300 | 3 | - | - |", page)  # 2 mismatches + a seed that stopped
        self.assertIn("Total: 800 cycles, 3 mismatches.", page)

    def test_no_logs_is_an_error(self):
        r = self.run_report()
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no cosim-long logs", r.stderr)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
