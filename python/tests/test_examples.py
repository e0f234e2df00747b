"""The three example scripts of examples/python run and pass their own checks."""

import os
import subprocess
import sys
from pathlib import Path

import dpx


def run_example(source_dir, name, *args, cwd=None):
    # The scripts import the same dpx as this test (the build tree under CTest), from any cwd.
    pkg_parent = str(Path(dpx.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (pkg_parent, os.environ.get("PYTHONPATH", "")) if p)
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=path)
    proc = subprocess.run(
        [sys.executable, str(source_dir / "examples" / "python" / name), *map(str, args)],
        capture_output=True, text=True, env=env, cwd=cwd,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_dp_sgd_accounting(source_dir):
    out = run_example(source_dir, "dp_sgd_accounting.py")
    assert "pld: epsilon <=" in out and "re-accounted" in out


def test_ar1_private_mean(source_dir):
    out = run_example(source_dir, "ar1_private_mean.py")
    assert "predicted (dependent)" in out


def test_run_preset_plot(source_dir, tiny_preset, tmp_path):
    out = run_example(source_dir, "run_preset_plot.py", tiny_preset, tmp_path / "run", cwd=tmp_path)
    assert (tmp_path / "run" / "privacy_error_from_python.png").stat().st_size > 1000
    assert "tiny_private_mean" in out
