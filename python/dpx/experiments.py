"""Experiment presets: run them and load their results as pandas DataFrames.

Runs go through the ``dpx`` command-line tool (the same binary, cache and manifests as
``dpx run``): the one shipped inside the installed package, else ``$DPX_CLI``, else ``dpx`` on
PATH. Results are read from the output directory:

* ``tidy.csv`` (one row per replication) and ``summary.csv`` (one row per cell and metric) as
  DataFrames, ``rates.csv`` (the rate checks) as a DataFrame,
* ``manifest.json`` (preset text and hash, seeds, stream derivation, build) as a dict.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Union

from ._dpx import ValidationError

__all__ = ["Results", "cli_path", "list_presets", "load", "run"]

PathLike = Union[str, "os.PathLike[str]"]


def cli_path() -> str:
    """Path of the ``dpx`` tool used for runs (bundled, $DPX_CLI, or on PATH)."""
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


def _cli(args: List[str], quiet: bool = False) -> str:
    proc = subprocess.run([cli_path(), *args], capture_output=True, text=True)
    if proc.returncode == 2:
        raise ValidationError(proc.stderr.strip())
    if proc.returncode != 0:
        raise RuntimeError(f"dpx {' '.join(args)} failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def list_presets() -> Dict[str, str]:
    """Preset name -> one-line description (``dpx list``)."""
    out: Dict[str, str] = {}
    for line in _cli(["list"]).splitlines():
        if line.strip():
            name, _, desc = line.partition(" ")
            out[name] = desc.strip()
    return out


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
) -> Results:
    """Runs a preset with ``dpx run`` and returns its :func:`load`-ed results.

    ``name_or_path``: a preset name (see :func:`list_presets`) or a path to a preset .toml;
    ``quick``: apply the preset's [quick] overrides; ``out``: output directory (default
    ``results/<name>`` relative to the current directory); ``threads``: worker threads
    (default: all cores); ``force``: recompute cached blocks; ``check``: raise RuntimeError when
    a gated rate check fails. The GIL is not held while the tool runs (it is a subprocess).
    """
    name = str(name_or_path)
    args = ["run", name, "--quiet"]
    if quick:
        args.append("--quick")
    if out is None:
        stem = Path(name).parent.name if name.endswith(".toml") else name
        out = Path("results") / stem
    args += ["--out", str(out)]
    if threads is not None:
        args += ["--threads", str(int(threads))]
    if force:
        args.append("--force")
    if not figures:
        args.append("--no-figures")
    if check:
        args.append("--check")
    _cli(args)
    return load(out)
