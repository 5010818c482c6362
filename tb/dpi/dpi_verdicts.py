"""The DPI bench's verdicts on the RTL mutants, for the mutation pages.

tb/dpi/mutate.sh runs every mutant of tb/pwc/mutate.sh and tb/sched/mutate.sh
against the SystemVerilog class benches of tb/dpi (expected values from the C
models through gmmu_pkg / gmmu_dpi) and leaves one result file per mutant,
BUILD/tb/dpi/mutate/ID/result: `id|file|verdict|mutation|detail`, verdict one
of killed, survived, invalid. The page writers of tb/pwc/mutate.sh and
tb/sched/mutate.sh import this module to add a "DPI bench" column beside the
C++ bench's result; a mutant the DPI run did not reach reads "not run".
"""
import datetime
import os


def load(build_dir):
    """{id: (verdict, detail)} and the date of the newest result (or None)."""
    work = os.path.join(build_dir, "tb", "dpi", "mutate")
    out, newest = {}, None
    if not os.path.isdir(work):
        return out, None
    for mid in sorted(os.listdir(work)):
        rf = os.path.join(work, mid, "result")
        if not os.path.isfile(rf):
            continue
        f = open(rf).read().strip().split("|")
        if len(f) < 3 or f[0] != mid:
            raise SystemExit(f"{rf}: not a DPI mutant result (id|file|verdict|mutation|detail)")
        out[mid] = (f[2], f[4] if len(f) > 4 else "")
        t = os.path.getmtime(rf)
        newest = t if newest is None or t > newest else newest
    day = datetime.date.fromtimestamp(newest).isoformat() if newest else None
    return out, day


def missed():
    """{id: why} from tb/dpi/missed.txt: survivors the DPI benches are known to miss."""
    out = {}
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "missed.txt")) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            mid, sep, why = line.rstrip("\n").partition("|")
            if not sep or not why:
                raise SystemExit(f"tb/dpi/missed.txt:{n}: expected id|why")
            out[mid] = why
    return out


def cell(verdicts, mid):
    """The per-mutant cell: killed / survived (with the known reason) / invalid, or not run."""
    if mid not in verdicts:
        return "not run"
    v, how = verdicts[mid]
    why = missed().get(mid) if v == "survived" else None
    if why:
        return f"survived (missed: {why})"
    return v if v == "killed" else f"{v}: {how.replace('|', '/')}" if how else v


def count(verdicts, ids):
    """'killed/reached' over the given ids ('-' when none was reached)."""
    got = [verdicts[i][0] for i in ids if i in verdicts]
    built = [v for v in got if v != "invalid"]
    return f"{sum(v == 'killed' for v in built)}/{len(built)}" if built else "-"


def paragraph(verdicts, day, ids):
    """The page's sentence on the DPI column."""
    reached = [i for i in ids if i in verdicts]
    if not reached:
        return ("DPI bench column: not run (tb/dpi/mutate.sh, `make mutate`, runs each mutant against the "
                "SystemVerilog class benches of tb/dpi, whose scoreboards take their expected values from "
                "the C models through gmmu_pkg; docs/dpi.md).")
    missed = [i for i in reached if verdicts[i][0] == "survived"]
    s = (f"DPI bench column: the same mutants run against the SystemVerilog class benches of tb/dpi "
         f"(sequence, driver, monitor, scoreboard; expected values from the C models through gmmu_pkg: "
         f"the outputs every cycle and, in the page-walk-cache benches, the storage slot by slot after "
         f"every clock edge; docs/dpi.md) by tb/dpi/mutate.sh, run of {day}: {count(verdicts, ids)} killed")
    if len(reached) < len(ids):
        s += f"; {len(ids) - len(reached)} not run"
    s += "; survivors: " + (", ".join(missed) if missed else "none") + "."
    return s
