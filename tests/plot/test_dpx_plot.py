"""dpx_plot.py presentation features (pytest under CTest, test plot_presentation):
series order and labels, marked series last, balanced panels above max_series, bands clipped to
y_range, no band for deterministic metrics, readable log ticks, styles; every check compares with
values written out by hand, and a figure is rendered to check the drawn artists."""
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

sys.path.insert(0, os.environ.get("DPX_PLOT_DIR", os.path.join(
    os.path.dirname(__file__), "..", "..", "libs", "harness", "python")))
import dpx_plot  # noqa: E402


def test_series_label_uses_label_map_and_hides_names():
    labels = {"method": "", "kov": "optimal (KOV)", "epsilon": "eps"}
    assert dpx_plot.series_label(["method"], ("kov",), labels) == "optimal (KOV)"
    assert dpx_plot.series_label(["method"], ("pld",), labels) == "pld"
    assert dpx_plot.series_label(["method", "epsilon"], ("kov", "0.5"), labels) == \
        "optimal (KOV), eps=0.5"


def test_order_puts_listed_first_and_marked_last():
    keys = [("c",), ("broken",), ("a",), ("b",), ("10",), ("9",)]
    got = dpx_plot.ordered_keys(keys, ["b", "a"], {"broken": "note"})
    assert got == [("b",), ("a",), ("9",), ("10",), ("c",), ("broken",)]


def test_panels_are_balanced_and_bounded():
    keys = [(str(i),) for i in range(27)]
    panels = dpx_plot.panels_of(keys, 8)
    assert [len(p) for p in panels] == [7, 7, 7, 6]
    assert sum(panels, []) == keys
    assert dpx_plot.panels_of(keys[:8], 8) == [keys[:8]]


def test_wrapped_only_long_labels():
    assert dpx_plot.wrapped("short") == "short"
    long = "laplace_mironov [broken by design: research-grade Laplace under attack]"
    assert "\n" in dpx_plot.wrapped(long)
    assert dpx_plot.wrapped(long).replace("\n", " ") == long


def write_summary(path, rows):
    cols = ["cell_id", "p_x", "p_s", "metric", "n_reps", "n_failed", "mean", "sd", "se",
            "median", "q25", "q75", "ci_lo", "ci_hi"]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([r.get(c, "1") for c in cols])


def render(tmp_path, fig, rows, monkeypatch=None):
    write_summary(tmp_path / "summary.csv", rows)
    captured = {}
    real_close = plt.close

    def keep(f):  # keep the figure for inspection
        captured["fig"] = f
    plt.close = keep
    try:
        dpx_plot.render(fig, dpx_plot.read_csv(tmp_path / "summary.csv"), str(tmp_path), 0.95)
    finally:
        plt.close = real_close
    assert (tmp_path / (fig["name"] + ".png")).is_file()
    assert (tmp_path / (fig["name"] + ".pdf")).is_file()
    return captured["fig"]


def rows_for(series, xs, mean, lo, hi):
    return [{"cell_id": f"{s}{x}", "p_x": str(x), "p_s": s, "metric": "f1", "n_reps": "5",
             "mean": str(mean), "ci_lo": str(lo), "ci_hi": str(hi), "median": str(mean),
             "q25": str(lo), "q75": str(hi)} for s in series for x in xs]


def band_extent(ax):
    ys = []
    for c in ax.collections:
        for p in c.get_paths():
            ys += list(p.vertices[:, 1])
    return (min(ys), max(ys)) if ys else None


def test_band_clipped_to_y_range(tmp_path):
    fig = {"name": "f1", "x": "x", "y": "f1", "series": ["s"], "logx": True, "logy": False,
           "y_range": [0, 1]}
    f = render(tmp_path, fig, rows_for(["a"], [1, 10], 0.9, 0.7, 1.2))
    lo, hi = band_extent(f.axes[0])
    assert hi == pytest.approx(1.0) and lo == pytest.approx(0.7)
    assert f.axes[0].get_ylim()[1] <= 1.03 + 1e-12


def test_no_band_when_deterministic(tmp_path):
    fig = {"name": "det", "x": "x", "y": "f1", "series": ["s"], "logx": True, "logy": True,
           "deterministic": True}
    f = render(tmp_path, fig, rows_for(["a", "b"], [1, 10, 100], 0.5, 0.4, 0.6))
    assert band_extent(f.axes[0]) is None
    assert "no band" in f.axes[0].get_legend().get_title().get_text()


def test_many_series_become_panels_and_marked_series_is_black(tmp_path):
    series = [f"t{i:02d}" for i in range(12)]
    fig = {"name": "many", "x": "x", "y": "f1", "series": ["s"], "logx": True, "logy": False,
           "marked": {"t03": "broken"}, "max_series": 8}
    f = render(tmp_path, fig, rows_for(series, [0.25, 0.5, 1, 2, 4], 0.5, 0.4, 0.6))
    plot_axes = [ax for ax in f.axes if ax.lines]
    assert len(plot_axes) == 2
    assert [len(ax.lines) for ax in plot_axes] == [6, 6]
    marked = [l for ax in plot_axes for l in ax.lines if "broken" in l.get_label()]
    assert len(marked) == 1 and marked[0].get_color() == "black"
    # the marked series is listed last
    assert "broken" in plot_axes[-1].lines[-1].get_label()
    # fewer than two decades and few x values: the data values label the log axis
    ticks = [t for t in plot_axes[0].get_xticks() if 0.2 <= t <= 5]
    assert ticks == pytest.approx([0.25, 0.5, 1, 2, 4])


def test_slides_style_is_larger(tmp_path, monkeypatch):
    fig = {"name": "s1", "x": "x", "y": "f1", "series": ["s"], "logx": True, "logy": False}
    paper = render(tmp_path, fig, rows_for(["a"], [1, 10], 0.5, 0.4, 0.6))
    monkeypatch.setenv("DPX_PLOT_STYLE", "slides")
    slides = render(tmp_path, dict(fig, name="s2"), rows_for(["a"], [1, 10], 0.5, 0.4, 0.6))
    assert slides.get_size_inches()[0] > 1.5 * paper.get_size_inches()[0]
    monkeypatch.setenv("DPX_PLOT_STYLE", "poster")
    with pytest.raises(ValueError):
        render(tmp_path, dict(fig, name="s3"), rows_for(["a"], [1, 10], 0.5, 0.4, 0.6))
