"""Run an experiment preset (quick form) and plot a figure from its results DataFrame.

    python3 examples/python/run_preset_plot.py [PRESET_OR_TOML] [OUT_DIR]

Defaults: the private_mean preset (about a minute on two cores) into results/private_mean.
Draws the mean squared privacy error against n for each mechanism and epsilon, with the
expected slope -2, into OUT_DIR/privacy_error_from_python.png.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import dpx  # noqa: E402

preset = sys.argv[1] if len(sys.argv) > 1 else "private_mean"
out = Path(sys.argv[2]) if len(sys.argv) > 2 else Path("results") / "private_mean"

res = dpx.experiments.run(preset, quick=True, out=out)
print(f"{res.name}: {len(res.tidy)} replications, {len(res.summary)} summary rows")
print(res.rates[["rate", "group", "slope", "expected", "pass"]].to_string(index=False))

s = res.summary[res.summary.metric == "sq_err_private"]
fig, ax = plt.subplots(figsize=(5, 4))
for (mech, eps), g in s.groupby(["p_mechanism", "p_epsilon"]):
    g = g.sort_values("p_n")
    ax.errorbar(g.p_n, g["mean"], yerr=1.96 * g.se, marker="o", label=f"{mech}, eps={eps:g}")
n = np.array([s.p_n.min(), s.p_n.max()], dtype=float)
ax.plot(n, s["mean"].max() * (n / n[0]) ** -2.0, "k--", label="slope -2")
ax.set(xscale="log", yscale="log", xlabel="n", ylabel="E(private - sample mean)^2")
ax.legend(fontsize=7)
fig.tight_layout()
png = out / "privacy_error_from_python.png"
fig.savefig(png, dpi=100)
print(f"figure: {png}")
assert bool(res.rates["pass"].all()), "a rate check failed"
