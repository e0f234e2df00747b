#!/usr/bin/env python3
"""Render the figures of a dpx experiment (generic; no per-experiment code).

Usage: /usr/bin/python3 dpx_plot.py <results>/figures/figures.json

figures.json is written by the dpx harness (write_analysis; docs/outputs.md). Paths inside it
are relative to its own directory. For every figure it reads summary.csv (long layout: one row
per cell x metric) and draws, per series (distinct values of the series parameters), the
declared statistic of y against x:
  * statistic "mean":   the mean with a shaded band mean +/- 1.96 se (normal 95% CI of the mean,
                        the ci_lo/ci_hi columns);
  * statistic "median": the median with a shaded interquartile band (q25..q75).
The legend title states which. Dashed reference lines with the declared log-log slopes start at
the first (smallest-x) point of each series; fitted slopes with their bootstrap CI (from the
harness's rate fits, matched in C++ and stored as "annotations") are added to the series label.
Figures are rendered in parallel worker processes (one per core; DPX_PLOT_JOBS=N overrides;
the files do not depend on N), each written under a temporary name and renamed. Each figure is
written as <name>.pdf and <name>.png (3.3 x 2.4 in; with more than 5 legend
entries the legend goes below the axes and the figure grows). Exits 1 if any figure
failed (the others are still written), 2 on bad usage.
"""
import csv
import json
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

LINESTYLES = ["--", ":", "-.", (0, (5, 1, 1, 1, 1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "P"]
SERIES_STYLES = ["-", (0, (4, 1)), (0, (1, 1)), (0, (3, 1, 1, 1)), (0, (6, 2)), (0, (2, 2))]


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def value_key(v):
    """Numeric-aware sort key for rendered parameter values (numbers first)."""
    f = as_float(v)
    return (0, f, v) if not math.isnan(f) else (1, 0.0, v)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt(x):
    return f"{x:.2f}".replace("-", "\u2212")


def series_label(names, values):
    return ", ".join(f"{n}={v}" for n, v in zip(names, values))


def render(fig, summary, out_dir, confidence):
    name, xname, yname = fig["name"], fig["x"], fig["y"]
    statistic = fig.get("statistic", "mean")
    series = fig.get("series", [])
    where = fig.get("where", {})
    logx, logy = fig.get("logx", True), fig.get("logy", True)
    if summary and ("p_" + xname) not in summary[0]:
        raise ValueError(f"parameter {xname!r} is not a column of summary.csv")
    for k in list(where) + series:
        if summary and ("p_" + k) not in summary[0]:
            raise ValueError(f"parameter {k!r} is not a column of summary.csv")

    curves = {}
    for r in summary:
        if r["metric"] != yname:
            continue
        if any(r["p_" + k] != v for k, v in where.items()):
            continue
        if int(r["n_reps"]) == 0:
            continue
        key = tuple(r["p_" + s] for s in series)
        x = as_float(r["p_" + xname])
        if statistic == "median":
            y, lo, hi = as_float(r["median"]), as_float(r["q25"]), as_float(r["q75"])
        else:
            y, lo, hi = as_float(r["mean"]), as_float(r["ci_lo"]), as_float(r["ci_hi"])
        pts = curves.setdefault(key, {})
        if x in pts:
            raise ValueError(
                f"several cells at {xname}={r['p_' + xname]} in series "
                f"{series_label(series, key) or '(all)'}: add the differing parameters "
                "to series or where")
        pts[x] = (y, lo, hi)
    if not curves:
        raise ValueError(f"no rows of summary.csv match metric {yname!r} and the filters")

    notes = {}
    for a in fig.get("annotations", []):
        key = tuple(a["series"].get(s, None) for s in series)
        if key not in notes:
            notes[key] = a

    plt.rcParams.update({"font.size": 7, "axes.titlesize": 8, "legend.fontsize": 5.5,
                         "axes.labelsize": 7, "xtick.labelsize": 6, "ytick.labelsize": 6})
    # Legend entries: one per curve plus one per reference slope. Up to 5 fit inside the axes;
    # more go into a strip below, and the figure grows by that strip (the axes keep 3.3 x 2.4).
    n_entries = len(curves) + len(fig.get("reference_slopes", []))
    if n_entries <= 5:
        f, ax = plt.subplots(figsize=(3.3, 2.4), layout="constrained")
        legend_ax = None
    else:
        strip = 0.12 * n_entries + 0.15
        f, (ax, legend_ax) = plt.subplots(2, 1, figsize=(3.3, 2.4 + strip), layout="constrained",
                                          gridspec_kw={"height_ratios": [2.4, strip]})
        legend_ax.axis("off")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    refs = fig.get("reference_slopes", [])
    for i, key in enumerate(sorted(curves, key=lambda k: tuple(value_key(v) for v in k))):
        color = colors[i % len(colors)]
        pts = sorted((x, v) for x, v in curves[key].items()
                     if not math.isnan(x) and not math.isnan(v[0])
                     and (not logx or x > 0) and (not logy or v[0] > 0))
        if not pts:
            continue
        xs = [p[0] for p in pts]
        ys = [p[1][0] for p in pts]
        lo = [p[1][1] if not math.isnan(p[1][1]) else p[1][0] for p in pts]
        hi = [p[1][2] if not math.isnan(p[1][2]) else p[1][0] for p in pts]
        if logy:  # a band reaching <= 0 cannot be drawn on a log axis: clip it
            lo = [l if l > 0 else y * 1e-3 for l, y in zip(lo, ys)]
        label = series_label(series, key) or statistic
        a = notes.get(key)
        if a is not None and a.get("slope") is not None:
            label += f" (fit {fmt(a['slope'])} [{fmt(a['ci_lo'])}, {fmt(a['ci_hi'])}])"
        # Past the colour cycle, the marker and line style change too, so no two series look
        # alike (e.g. 27 audit targets).
        cycle = i // len(colors)
        ax.plot(xs, ys, marker=MARKERS[cycle % len(MARKERS)], markersize=2.5, linewidth=1.0,
                linestyle=SERIES_STYLES[cycle % len(SERIES_STYLES)], color=color, label=label)
        ax.fill_between(xs, lo, hi, color=color, alpha=0.2, linewidth=0)
        # Reference power laws y0 * (x / x0)^k through the first point (straight on log-log).
        if xs[0] > 0 and len(xs) > 1:
            rx = [xs[0] * (xs[-1] / xs[0]) ** (t / 32) for t in range(33)]
            for j, k in enumerate(refs):
                ax.plot(rx, [ys[0] * (x / xs[0]) ** k for x in rx],
                        linestyle=LINESTYLES[j % len(LINESTYLES)], linewidth=0.8, color=color,
                        alpha=0.7)
    handles, labels = ax.get_legend_handles_labels()
    for j, k in enumerate(refs):
        handles.append(Line2D([], [], linestyle=LINESTYLES[j % len(LINESTYLES)], color="gray",
                              linewidth=0.8))
        labels.append(f"reference slope {fmt(k)}")
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(fig.get("xlabel") or xname)
    ax.set_ylabel(fig.get("ylabel") or f"{statistic} {yname}")
    if fig.get("title"):
        ax.set_title(fig["title"])
    pct = f"{100 * confidence:g}"
    band = ("mean, band: 95% CI of the mean" if statistic == "mean"
            else "median, band: interquartile range")
    if any(a.get("slope") is not None for a in notes.values()):
        band += f"; fit: slope [{pct}% bootstrap CI]"
    if legend_ax is None:
        ax.legend(handles, labels, title=band, title_fontsize=5.5, loc="best", frameon=True,
                  framealpha=0.8, edgecolor="none")
    else:  # many curves: in the strip below the axes, so the legend never hides data
        legend_ax.legend(handles, labels, title=band, title_fontsize=5.5, loc="upper center",
                         frameon=False)
    ax.grid(True, which="major", linewidth=0.3, alpha=0.5)
    base = os.path.join(out_dir, name)
    # Written under a temporary name and renamed: an interrupted run never leaves a truncated
    # figure behind.
    f.savefig(base + ".pdf.tmp", format="pdf", metadata={"CreationDate": None})
    os.replace(base + ".pdf.tmp", base + ".pdf")
    f.savefig(base + ".png.tmp", format="png", dpi=200, metadata={"Software": None})
    os.replace(base + ".png.tmp", base + ".png")
    plt.close(f)


def render_one(job):
    """Renders one figure; returns an error message or None (one bad figure must not stop the
    others)."""
    fig, summary, out_dir, confidence = job
    try:
        render(fig, summary, out_dir, confidence)
        return None
    except Exception as e:
        return f"dpx_plot: figure {fig.get('name')!r}: {e}"


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    spec_path = argv[1]
    with open(spec_path) as f:
        spec = json.load(f)
    base = os.path.dirname(os.path.abspath(spec_path))
    summary = read_csv(os.path.join(base, spec.get("summary", "../summary.csv")))
    out_dir = os.path.join(base, spec.get("output_dir", "."))
    os.makedirs(out_dir, exist_ok=True)
    confidence = float(spec.get("confidence", 0.95))
    jobs = [(fig, summary, out_dir, confidence) for fig in spec.get("figures", [])]
    # Figures are independent: render them on every core (the harness runs this between
    # experiments, when its own threads are idle). Each figure's files depend only on its own
    # inputs, so the output is the same for any number of workers. DPX_PLOT_JOBS overrides.
    workers = int(os.environ.get("DPX_PLOT_JOBS", "0")) or (os.cpu_count() or 1)
    workers = max(1, min(workers, len(jobs)))
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            errors = pool.map(render_one, jobs, chunksize=1)
    else:
        errors = [render_one(j) for j in jobs]
    failures = [e for e in errors if e]
    for e in failures:
        print(e, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
