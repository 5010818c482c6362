#!/usr/bin/env python3
"""Generate docs/results/README.md, the results index, from the claim rules
(experiments/claims.json) and the figures the pages' generators write
(docs/results/PAGE.figures.json: the mean over seeds and its 95% interval,
experiments/seedstats.py). Every verdict is computed here by its rule; none
is written by hand.

Usage:
  results_index.py            write docs/results/README.md (atomically)
  results_index.py --check    exit 1 when README.md is not what the rules
                              and figures give (it was edited by hand, or a
                              figures file changed without regenerating it)
  results_index.py --verdicts print id, verdict (for tests)

Verdicts: holds, does not hold, no difference (an effect whose 95% interval
contains 0), tested (an exact result guarded by tests in make test), not run
(the page has no figures file with that figure yet).
"""
import json
import os
import sys
import tempfile

ROOT = os.path.abspath(os.environ.get("GMMU_RESULTS_ROOT") or
                       os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RESULTS = os.path.join(ROOT, "docs", "results")
CLAIMS = os.path.join(ROOT, "experiments", "claims.json")
HEAD = os.path.join(RESULTS, "index_head.md")
UNJUDGED = os.path.join(RESULTS, "unjudged.md")
OUT = os.path.join(RESULTS, "README.md")

KINDS = {"magnitude", "range", "at_most", "at_least", "sign", "order", "test"}


class IndexError_(Exception):
    pass


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise IndexError_(f"{os.path.relpath(path, ROOT)}: {e}")


def load_claims():
    doc = load_json(CLAIMS)
    tol = doc.get("policy", {}).get("tolerance")
    if not isinstance(tol, (int, float)) or not 0 <= tol < 1:
        raise IndexError_("experiments/claims.json: policy.tolerance must be a number in [0, 1)")
    claims = doc.get("claims")
    if not isinstance(claims, list) or not claims:
        raise IndexError_("experiments/claims.json: no 'claims' list")
    seen = set()
    for i, c in enumerate(claims):
        where = f"experiments/claims.json: claims[{i}]"
        for k in ("id", "paper", "claim", "page", "rule"):
            if k not in c:
                raise IndexError_(f"{where}: no '{k}'")
        if c["id"] in seen:
            raise IndexError_(f"{where}: id '{c['id']}' twice")
        seen.add(c["id"])
        kind = c["rule"].get("kind")
        if kind not in KINDS:
            raise IndexError_(f"{where} ({c['id']}): rule.kind '{kind}' is not one of {', '.join(sorted(KINDS))}")
        if kind not in ("test", "order") and "figure" not in c:
            raise IndexError_(f"{where} ({c['id']}): a '{kind}' rule needs a figure")
        if kind == "order" and len(c["rule"].get("figures", [])) < 2:
            raise IndexError_(f"{where} ({c['id']}): an 'order' rule needs at least two figures")
    return doc, claims, float(tol)


class Figures:
    """Figures of the pages, read on demand (PAGE.figures.json)."""

    def __init__(self):
        self.pages = {}

    def get(self, ref):
        page, _, name = ref.partition(":")
        if not name:
            raise IndexError_(f"experiments/claims.json: figure '{ref}' is not PAGE.md:NAME")
        if page not in self.pages:
            path = os.path.join(RESULTS, page[:-3] + ".figures.json" if page.endswith(".md") else page)
            self.pages[page] = load_json(path) if os.path.isfile(path) else None
        doc = self.pages[page]
        if doc is None:
            return None
        return doc["figures"].get(name)


def diff_summary(a, b):
    """The seed-by-seed difference b - a, summarised (same seeds, same order)."""
    sys.path.insert(0, os.path.join(ROOT, "experiments"))
    import seedstats
    if a["n"] != b["n"]:
        raise IndexError_("order: figures with different seed counts cannot be paired")
    return seedstats.summary([y - x for x, y in zip(a["samples"], b["samples"])])


def contains_zero(s):
    return s["ci95"] is not None and s["lo"] <= 0 <= s["hi"]


def judge(claim, figs, tol):
    """(verdict, ours text)"""
    r = claim["rule"]
    kind = r["kind"]
    if kind == "test":
        return "tested", "exact; guarded by " + ", ".join(f"`{t}`" for t in r["tests"])
    if kind == "order":
        fs = [figs.get(ref) for ref in r["figures"]]
        if any(f is None for f in fs):
            return "not run", "-"
        diffs = [diff_summary(a, b) for a, b in zip(fs, fs[1:])]
        ours = " < ".join(_fmt(f) for f in fs)
        if any(d["mean"] <= 0 and not contains_zero(d) for d in diffs):
            return "does not hold", ours
        if any(contains_zero(d) or d["ci95"] is None for d in diffs):
            return "no difference" if any(contains_zero(d) for d in diffs) else "holds (1 seed)", ours
        return "holds", ours
    f = figs.get(claim["figure"])
    if f is None:
        return "not run", "-"
    ours = _fmt(f)
    one = f["ci95"] is None
    if r.get("effect") and contains_zero(f):
        return "no difference", ours
    m = f["mean"]
    if kind == "magnitude":
        v = r["value"]
        ok = abs(m - v) <= tol * abs(v)
    elif kind == "range":
        ok = r["lo"] - tol * abs(r["lo"]) <= m <= r["hi"] + tol * abs(r["hi"])
    elif kind == "at_most":
        ok = m <= r["value"] + tol * abs(r["value"])
    elif kind == "at_least":
        ok = m >= r["value"] - tol * abs(r["value"])
    elif kind == "sign":
        if one:
            ok = (m < 0) if r["expect"] == "negative" else (m > 0)
        else:
            ok = (f["hi"] < 0) if r["expect"] == "negative" else (f["lo"] > 0)
    else:  # pragma: no cover (load_claims refuses other kinds)
        raise IndexError_(f"{claim['id']}: rule kind {kind}")
    verdict = "holds" if ok else "does not hold"
    return (verdict + " (1 seed)") if one else verdict, ours


def _fmt(f):
    m = f["mean"]
    digits = 3 if abs(m) < 10 else 1
    if f["ci95"] is None:
        return f"{m:.{digits}f} (1 seed)"
    return f"{m:.{digits}f} ± {f['ci95']:.{digits}f} ({f['n']} seeds)"


def _rule_text(r):
    k = r["kind"]
    eff = ", effect" if r.get("effect") else ""
    if k == "magnitude":
        return f"magnitude {r['value']:g}{eff}"
    if k == "range":
        return f"range {r['lo']:g}..{r['hi']:g}{eff}"
    if k in ("at_most", "at_least"):
        return f"{k.replace('_', ' ')} {r['value']:g}{eff}"
    if k == "sign":
        return f"{r['expect']}{eff}"
    if k == "order":
        return "increasing, paired by seed"
    return "tests"


def render():
    doc, claims, tol = load_claims()
    figs = Figures()
    lines = []
    for path in (HEAD,):
        with open(path) as f:
            lines.append(f.read().rstrip("\n"))
    lines += ["", f"Tolerance policy (`experiments/claims.json`): {doc['policy']['text']}", "",
              "| paper | claim | ours (mean ± 95% interval) | rule | verdict | page |",
              "|---|---|---|---|---|---|"]
    for c in claims:
        verdict, ours = judge(c, figs, tol)
        note = f" ({c['note']})" if c.get("note") else ""
        lines.append(f"| {c['paper']} | {c['claim']}{note} | {ours} | {_rule_text(c['rule'])} | "
                     f"**{verdict}** | [{c['page']}]({c['page']}) |")
    if os.path.isfile(UNJUDGED):
        with open(UNJUDGED) as f:
            lines += ["", f.read().rstrip("\n")]
    return "\n".join(lines) + "\n"


def verdicts():
    _, claims, tol = load_claims()
    figs = Figures()
    return [(c["id"], judge(c, figs, tol)[0]) for c in claims]


def main(argv):
    try:
        if argv[1:] == ["--verdicts"]:
            for cid, v in verdicts():
                print(f"{cid}\t{v}")
            return 0
        text = render()
        if argv[1:] == ["--check"]:
            with open(OUT) as f:
                if f.read() != text:
                    print("docs/results/README.md: not what experiments/claims.json and the pages' figures "
                          "give; regenerate it with scripts/results_index.py (never edit it by hand)",
                          file=sys.stderr)
                    return 1
            return 0
        if argv[1:]:
            print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
            return 2
        fd, tmp = tempfile.mkstemp(dir=RESULTS, prefix=".README.md.")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, OUT)
        print("wrote docs/results/README.md")
        return 0
    except IndexError_ as e:
        print(f"results_index: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
