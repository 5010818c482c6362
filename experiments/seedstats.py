"""Figures over seeds: the mean and its 95% confidence interval, and the
machine-readable figures file a results page writes beside itself
(docs/results/NAME.figures.json), which scripts/results_index.py judges by
the rules in experiments/claims.json (docs/results/README.md).

A figure is a list of samples, one per seed, in the order of the page's seed
list. Its interval is the Student t interval of the mean: mean +- t(0.975,
n-1) * s / sqrt(n), s the sample standard deviation. With one sample there is
no interval (None), and a page must say so.
"""
import json
import math
import os
import tempfile

# Two-sided 95% quantiles of Student's t by degrees of freedom (1..30); above
# 30 the normal quantile 1.96 is within 2.2% of t.
_T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
         2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
         2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def t975(dof):
    if dof < 1:
        raise ValueError("t975: at least one degree of freedom")
    return _T975[dof - 1] if dof <= len(_T975) else 1.96


def summary(samples):
    """{'n', 'mean', 'sd', 'ci95': half width or None, 'lo', 'hi', 'samples'}."""
    xs = [float(x) for x in samples]
    if not xs:
        raise ValueError("summary: no samples")
    if any(math.isnan(x) or math.isinf(x) for x in xs):
        raise ValueError("summary: a sample is not a finite number")
    n = len(xs)
    mean = sum(xs) / n
    if n == 1:
        return {"n": 1, "mean": mean, "sd": None, "ci95": None, "lo": mean, "hi": mean, "samples": xs}
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = t975(n - 1) * sd / math.sqrt(n)
    return {"n": n, "mean": mean, "sd": sd, "ci95": half, "lo": mean - half, "hi": mean + half,
            "samples": xs}


def fmt(s, digits=3, scale=1.0, unit=""):
    """'0.613 +- 0.012' (or '0.613, 1 seed'), scaled (e.g. 100 for percent)."""
    m = s["mean"] * scale
    if s["ci95"] is None:
        return f"{m:.{digits}f}{unit} (1 seed)"
    return f"{m:.{digits}f}{unit} ± {s['ci95'] * scale:.{digits}f}"


def write_figures(out_dir, page, figures, seeds, note=""):
    """Write OUT_DIR/PAGE.figures.json atomically: {'page', 'seeds', 'note',
    'figures': {name: summary}}. figures: {name: [sample per seed]}."""
    doc = {"page": page + ".md", "seeds": list(seeds), "note": note,
           "figures": {name: summary(v) for name, v in sorted(figures.items())}}
    for name, s in doc["figures"].items():
        if s["n"] != len(seeds):
            raise ValueError(f"{page}: figure {name} has {s['n']} samples for {len(seeds)} seeds")
    path = os.path.join(out_dir, page + ".figures.json")
    fd, tmp = tempfile.mkstemp(dir=out_dir, prefix="." + page + ".")
    with os.fdopen(fd, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
    return path
