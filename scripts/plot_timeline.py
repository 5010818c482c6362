#!/usr/bin/env python3
"""Render a window of a gmmu-sim timeline (--trace-out) as a PNG: one row per
track, one bar per span, coloured by span name.

usage: plot_timeline.py TRACE.json --window START:END --out PNG
                        [--tracks REGEX] [--max-tracks N]
(START/END in simulated ns)"""
import argparse
import json
import os
import re
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("trace")
    ap.add_argument("--window", required=True, help="START:END, simulated ns")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tracks", default=".", help="regular expression: tracks to draw")
    ap.add_argument("--max-tracks", type=int, default=24)
    a = ap.parse_args()
    try:
        lo, hi = (float(x) for x in a.window.split(":"))
    except ValueError:
        sys.exit(f"plot_timeline: --window '{a.window}': expected START:END in ns")
    try:
        with open(a.trace) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_timeline: {a.trace}: {e}")
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"]
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    pick = re.compile(a.tracks)
    spans = {}
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        b, d = e["ts"] * 1000.0, e["dur"] * 1000.0
        if b + d < lo or b > hi:
            continue
        track = names.get(e["tid"], str(e["tid"]))
        if pick.search(track):
            spans.setdefault(track, []).append((b, d, e["name"]))
    tracks = sorted(spans)[: a.max_tracks]
    colours = {}
    palette = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    fig, ax = plt.subplots(figsize=(11, 0.35 * len(tracks) + 1.5))
    for row, t in enumerate(tracks):
        for b, d, n in spans[t]:
            c = colours.setdefault(n, palette[len(colours) % len(palette)])
            ax.broken_barh([(b / 1000.0, max(d, 0.5) / 1000.0)], (row - 0.4, 0.8), facecolor=c,
                           edgecolor="white", linewidth=0.6)
    ax.set_yticks(range(len(tracks)))
    ax.set_yticklabels(tracks, fontsize=7)
    ax.set_xlim(lo / 1000.0, hi / 1000.0)
    ax.set_xlabel("simulated time (us)")
    ax.invert_yaxis()
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()],
              labels=list(colours), loc="upper right", fontsize=7)
    fig.tight_layout()
    folder = os.path.dirname(os.path.abspath(a.out))
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".png")
    os.close(fd)
    fig.savefig(tmp, dpi=110)
    os.chmod(tmp, 0o644)
    os.replace(tmp, a.out)


if __name__ == "__main__":
    main()
