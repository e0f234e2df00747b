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

Presentation keys of a figure (docs/presets.md): labels, series_order, marked (broken or
control series: black, dotted, last), deterministic (no band), y_range (bands clipped),
max_series (more series: panels), style ("paper" or "slides"; DPX_PLOT_STYLE overrides).
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
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
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


STYLES = {
    # Single-column journal figure: 3.3 in wide axes, 7 pt text.
    "paper": {"size": (3.3, 2.4), "rc": {"font.size": 7, "axes.titlesize": 8,
                                         "legend.fontsize": 5.5, "axes.labelsize": 7,
                                         "xtick.labelsize": 6, "ytick.labelsize": 6},
              "legend_title": 5.5, "entry_in": 0.12, "line": 1.0, "marker": 2.5},
    # Slides: twice the size, 14 pt text, thicker lines.
    "slides": {"size": (6.4, 4.4), "rc": {"font.size": 14, "axes.titlesize": 15,
                                          "legend.fontsize": 11, "axes.labelsize": 14,
                                          "xtick.labelsize": 12, "ytick.labelsize": 12},
               "legend_title": 11, "entry_in": 0.24, "line": 2.0, "marker": 5},
}


def style_of(fig):
    """DPX_PLOT_STYLE (set by `dpx report --style`) wins over the figure's own style."""
    name = os.environ.get("DPX_PLOT_STYLE") or fig.get("style") or "paper"
    if name not in STYLES:
        raise ValueError(f"unknown style {name!r} (paper or slides)")
    return STYLES[name]


def series_label(names, values, labels):
    """Legend text of one series: with one series parameter just its (relabelled) value, else
    name=value pairs; labels maps parameter names and values to display text ("" hides a
    name)."""
    if len(names) == 1:
        return labels.get(values[0], values[0])
    parts = []
    for n, v in zip(names, values):
        shown = labels.get(n, n)
        parts.append(f"{shown}={labels.get(v, v)}" if shown else labels.get(v, v))
    return ", ".join(parts)


def ordered_keys(keys, order, marked):
    """series_order first (by the first series value), then the others by value; marked
    (broken or control) series last so they never hide in the middle of a legend."""
    rank = {v: i for i, v in enumerate(order)}

    def key(k):
        first = k[0] if k else ""
        is_marked = any(v in marked for v in k)
        return (is_marked, 0 if first in rank else 1, rank.get(first, 0),
                tuple(value_key(v) for v in k))
    return sorted(keys, key=key)


def panels_of(keys, max_series):
    """Splits the ordered series into balanced panels of at most max_series each."""
    if len(keys) <= max_series:
        return [keys]
    n = math.ceil(len(keys) / max_series)
    size = math.ceil(len(keys) / n)
    return [keys[i:i + size] for i in range(0, len(keys), size)]


def readable_log_ticks(axis, lo, hi, values=()):
    """Less than ~2 decades on a log axis: the default labels only powers of ten and may show a
    single tick. Then label the data's own x values when there are few (<= 8), else 1-2-5
    steps, in plain numbers."""
    from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter
    if not (lo > 0 and hi > 0) or hi / lo >= 100:
        return
    distinct = sorted(set(v for v in values if v > 0))
    if 2 <= len(distinct) <= 8:
        axis.set_major_locator(FixedLocator(distinct))
    else:
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def wrapped(label, width=48):
    """Long legend entries (marked series carry a note) wrap instead of widening the figure."""
    import textwrap
    lines = textwrap.wrap(label, width, break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines) if len(label) > width else label


def render(fig, summary, out_dir, confidence):
    name, xname, yname = fig["name"], fig["x"], fig["y"]
    statistic = fig.get("statistic", "mean")
    series = fig.get("series", [])
    where = fig.get("where", {})
    logx, logy = fig.get("logx", True), fig.get("logy", True)
    labels = fig.get("labels") or {}
    marked = fig.get("marked") or {}
    deterministic = bool(fig.get("deterministic", False))
    y_range = fig.get("y_range")
    max_series = int(fig.get("max_series") or 8)
    st = style_of(fig)
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
                f"{series_label(series, key, {}) or '(all)'}: add the differing parameters "
                "to series or where")
        pts[x] = (y, lo, hi)
    if not curves:
        raise ValueError(f"no rows of summary.csv match metric {yname!r} and the filters")

    notes = {}
    for a in fig.get("annotations", []):
        key = tuple(a["series"].get(s, None) for s in series)
        if key not in notes:
            notes[key] = a

    plt.rcParams.update(st["rc"])
    refs = fig.get("reference_slopes", [])
    panels = panels_of(ordered_keys(list(curves), fig.get("series_order") or [], marked),
                       max_series)
    # Legend entries of the fullest panel: up to 5 fit inside the axes; more go into a strip
    # below each panel, and the figure grows by that strip (the axes keep their size).
    width, height = st["size"]
    n_entries = max(len(p) for p in panels) + len(refs)
    strip = st["entry_in"] * n_entries + 0.15 if n_entries > 5 else 0.0
    ncols = 1 if len(panels) == 1 else 2
    nrows = math.ceil(len(panels) / ncols)
    rows = []
    for _ in range(nrows):
        rows += [height] + ([strip] if strip else [])
    f, axes = plt.subplots(len(rows), ncols, figsize=(width * ncols, sum(rows)),
                           layout="constrained", squeeze=False,
                           gridspec_kw={"height_ratios": rows})
    per_row = 2 if strip else 1
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    pct = f"{100 * confidence:g}"
    if deterministic:
        band = "exact values (deterministic: no band)"
    elif statistic == "mean":
        band = "mean, band: 95% CI of the mean"
    else:
        band = "median, band: interquartile range"
    if y_range and not deterministic:
        band += f", clipped to [{y_range[0]:g}, {y_range[1]:g}]"
    if any(a.get("slope") is not None for a in notes.values()):
        band += f"; fit: slope [{pct}% bootstrap CI]"
    shown_names = [labels.get(s, s) for s in series if labels.get(s, s)]
    legend_title = (", ".join(shown_names) + ": " if len(series) == 1 and shown_names else "") \
        + band
    xs_all, first_ax = [], None
    for pi, keys in enumerate(panels):
        ax = axes[(pi // ncols) * per_row][pi % ncols]
        legend_ax = axes[(pi // ncols) * per_row + 1][pi % ncols] if strip else None
        if first_ax is None:
            first_ax = ax
        else:
            ax.sharex(first_ax)
            ax.sharey(first_ax)
        for i, key in enumerate(keys):
            pts = sorted((x, v) for x, v in curves[key].items()
                         if not math.isnan(x) and not math.isnan(v[0])
                         and (not logx or x > 0) and (not logy or v[0] > 0))
            if not pts:
                continue
            xs = [p[0] for p in pts]
            ys = [p[1][0] for p in pts]
            xs_all += xs
            lo = [p[1][1] if not math.isnan(p[1][1]) else p[1][0] for p in pts]
            hi = [p[1][2] if not math.isnan(p[1][2]) else p[1][0] for p in pts]
            if y_range:  # a band never leaves the metric's range (e.g. F1 in [0, 1])
                lo = [min(max(v, y_range[0]), y_range[1]) for v in lo]
                hi = [min(max(v, y_range[0]), y_range[1]) for v in hi]
            if logy:  # a band reaching <= 0 cannot be drawn on a log axis: clip it
                lo = [l if l > 0 else y * 1e-3 for l, y in zip(lo, ys)]
            label = series_label(series, key, labels) or statistic
            note = next((marked[v] for v in key if v in marked), None)
            a = notes.get(key)
            if a is not None and a.get("slope") is not None:
                label += f" (fit {fmt(a['slope'])} [{fmt(a['ci_lo'])}, {fmt(a['ci_hi'])}])"
            if note is not None:  # broken or control series: black, dotted, labelled
                color, marker, linestyle = "black", "x", ":"
                label += f" [{note}]"
            else:
                # Each series its own colour and (hollow) marker, so curves that coincide stay
                # visible; past the colour cycle the line style changes too.
                color = colors[i % len(colors)]
                marker = MARKERS[i % len(MARKERS)]
                linestyle = SERIES_STYLES[(i // len(colors)) % len(SERIES_STYLES)]
            ax.plot(xs, ys, marker=marker, markersize=st["marker"] * 1.3, linewidth=st["line"],
                    linestyle=linestyle, color=color, label=wrapped(label),
                    markerfacecolor="none",
                    markeredgewidth=0.6 * st["line"])
            if not deterministic:
                ax.fill_between(xs, lo, hi, color=color, alpha=0.2, linewidth=0)
            # Reference power laws y0 * (x / x0)^k through the first point.
            if xs[0] > 0 and len(xs) > 1:
                rx = [xs[0] * (xs[-1] / xs[0]) ** (t / 32) for t in range(33)]
                for j, k in enumerate(refs):
                    ax.plot(rx, [ys[0] * (x / xs[0]) ** k for x in rx],
                            linestyle=LINESTYLES[j % len(LINESTYLES)],
                            linewidth=0.8 * st["line"], color=color, alpha=0.7)
        handles, leg_labels = ax.get_legend_handles_labels()
        for j, k in enumerate(refs):
            handles.append(Line2D([], [], linestyle=LINESTYLES[j % len(LINESTYLES)],
                                  color="gray", linewidth=0.8 * st["line"]))
            leg_labels.append(f"reference slope {fmt(k)}")
        if logx:
            ax.set_xscale("log")
        if logy:
            ax.set_yscale("log")
        ax.set_xlabel(fig.get("xlabel") or xname)
        ax.set_ylabel(fig.get("ylabel") or f"{statistic} {yname}")
        if fig.get("title"):
            ax.set_title(fig["title"] + (f" ({pi + 1}/{len(panels)})" if len(panels) > 1
                                         else ""))
        if legend_ax is None:
            ax.legend(handles, leg_labels, title=legend_title, title_fontsize=st["legend_title"],
                      loc="best", frameon=True, framealpha=0.8, edgecolor="none")
        else:  # many curves: in the strip below the axes, so the legend never hides data
            legend_ax.axis("off")
            legend_ax.legend(handles, leg_labels, title=legend_title,
                             title_fontsize=st["legend_title"], loc="upper center",
                             frameon=False)
        ax.grid(True, which="major", linewidth=0.3, alpha=0.5)
    for k in range(len(panels), nrows * ncols):  # unused cells of the panel grid
        axes[(k // ncols) * per_row][k % ncols].axis("off")
        if strip:
            axes[(k // ncols) * per_row + 1][k % ncols].axis("off")
    if y_range and not logy:
        lo_, hi_ = first_ax.get_ylim()
        pad = 0.03 * (y_range[1] - y_range[0])
        first_ax.set_ylim(max(lo_, y_range[0] - pad), min(hi_, y_range[1] + pad))
    if logx and xs_all:
        readable_log_ticks(first_ax.xaxis, min(xs_all), max(xs_all), xs_all)
    if logy:
        lo_, hi_ = first_ax.get_ylim()
        readable_log_ticks(first_ax.yaxis, lo_, hi_)
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
