"""Experiment presets: run them and load their results as pandas DataFrames.

Runs call the experiment harness in this process (``dpx::harness::run_preset``, the call
``dpx run`` makes, with every experiment driver linked into the module; the GIL is released
while it runs): same cache, manifests and byte-identical ``tidy.csv`` as ``dpx run``. The
presets are found as ``dpx list`` finds them ($DPX_EXPERIMENTS_DIR, ./experiments, the copies
shipped inside the installed package, or the source tree's). Results are read from the output
directory:

* ``tidy.csv`` (one row per replication) and ``summary.csv`` (one row per cell and metric) as
  DataFrames, ``rates.csv`` (the rate checks) as a DataFrame,
* ``manifest.json`` (preset text and hash, seeds, stream derivation, build) as a dict.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Union

from ._dpx import ValidationError
from ._dpx import experiments as _native

__all__ = ["Results", "cli_path", "list_presets", "load", "run"]

PathLike = Union[str, "os.PathLike[str]"]


def cli_path() -> str:
    """Path of the ``dpx`` command-line tool (bundled in the installed package, $DPX_CLI, or on
    PATH), for work the Python API does not cover (``dpx report``, ``dpx collect``, ...)."""
    bundled = Path(__file__).resolve().parent / "bin" / "dpx"
    if bundled.is_file():
        return str(bundled)
    env = os.environ.get("DPX_CLI")
    if env:
        return env
    found = shutil.which("dpx")
    if found:
        return found
    raise FileNotFoundError(
        "dpx.experiments: the dpx command-line tool was not found (set DPX_CLI to its path)"
    )


_PKG_SHARE = Path(__file__).resolve().parent / "share" / "dpx"


def _harness_env() -> None:
    """Points the in-process harness at the presets and plotting script shipped inside an
    installed package, where the bundled ``dpx`` tool would find them (next to itself); an
    explicit $DPX_EXPERIMENTS_DIR / $DPX_PLOT_SCRIPT or a ./experiments directory wins, as for
    the tool."""
    shipped = _PKG_SHARE / "experiments"
    if (
        "DPX_EXPERIMENTS_DIR" not in os.environ
        and not any(Path("experiments").glob("*/preset.toml"))
        and shipped.is_dir()
    ):
        os.environ["DPX_EXPERIMENTS_DIR"] = str(shipped)
    plot = _PKG_SHARE / "dpx_plot.py"
    if "DPX_PLOT_SCRIPT" not in os.environ and plot.is_file():
        os.environ["DPX_PLOT_SCRIPT"] = str(plot)


def list_presets() -> Dict[str, str]:
    """Preset name -> one-line description (as ``dpx list``)."""
    _harness_env()
    return dict(_native.list_presets())


@dataclass
class Results:
    """The results of one preset run (see :func:`load`)."""

    out_dir: Path
    tidy: "object"
    summary: "object"
    rates: "object"
    manifest: Dict

    @property
    def name(self) -> str:
        """The experiment's name (from the manifest)."""
        return self.manifest.get("experiment", "")


def load(out_dir: PathLike):
    """Reads a results directory into :class:`Results` (pandas DataFrames + manifest dict).

    Missing files (e.g. a sharded run not yet collected) give ``None`` for that field.
    """
    import pandas as pd

    d = Path(out_dir)
    if not d.is_dir():
        raise ValidationError(f"experiments.load: out_dir = {d} is invalid (not a directory)")

    def csv(name):
        p = d / name
        # keep_default_na=False: an empty message column stays "", not NaN.
        return pd.read_csv(p, keep_default_na=False, na_values=["nan", "NaN", ""]) if p.is_file() else None

    manifest_path = d / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    return Results(d, csv("tidy.csv"), csv("summary.csv"), csv("rates.csv"), manifest)


def run(
    name_or_path: PathLike,
    quick: bool = True,
    out: Optional[PathLike] = None,
    threads: Optional[int] = None,
    force: bool = False,
    figures: bool = True,
    check: bool = False,
    overrides: Optional[Dict[str, str]] = None,
) -> Results:
    """Runs a preset in-process (as ``dpx run``) and returns its :func:`load`-ed results.

    ``name_or_path``: a preset name (see :func:`list_presets`) or a path to a preset .toml;
    ``quick``: apply the preset's [quick] overrides; ``out``: output directory (default
    ``results/<name>`` relative to the current directory); ``threads``: worker threads
    (default: all cores); ``force``: recompute cached blocks; ``check``: raise RuntimeError when
    a gated rate check fails; ``overrides``: ``{"key": "value"}`` edits of the preset (``dpx run
    --set key=value``). Bad presets or options raise :class:`dpx.ValidationError`. The GIL is
    released while the harness runs.
    """
    name = str(name_or_path)
    if threads is not None and int(threads) < 1:
        raise ValidationError(f"experiments.run: threads = {threads} is invalid (must be >= 1)")
    _harness_env()
    summary = _native.run_preset(
        name,
        quick=bool(quick),
        out="" if out is None else str(out),
        threads=0 if threads is None else int(threads),
        force=bool(force),
        figures=bool(figures),
        quiet=True,
        overrides=[f"{k}={v}" for k, v in (overrides or {}).items()],
    )
    if summary["status"] == "interrupted":
        raise RuntimeError(f"dpx.experiments.run: {name} was interrupted; rerun to resume")
    if check and summary["rates_passed"] != summary["rates_checked"]:
        raise RuntimeError(
            f"dpx.experiments.run: {summary['rates_checked'] - summary['rates_passed']} of "
            f"{summary['rates_checked']} gated rate checks failed for {name} "
            f"(see {summary['report_path']})"
        )
    return load(summary["out_dir"])
