"""Installation: `pip install --no-build-isolation ./python` into a fresh virtual environment made
with --system-site-packages (Debian's numpy, pandas, pytest), reusing this build tree
(DPX_BUILD_DIR; without it setup.py configures and builds <repo>/build/python itself, the same
CMake target), then `import dpx` from an unrelated directory uses the installed copy: the
compiled module, the stubs, the bundled dpx tool and the shipped presets. Offline: pip is told
not to reach any index."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("DPX_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD = os.environ.get("DPX_BINARY_DIR")


@pytest.mark.skipif(BUILD is None, reason="needs DPX_BINARY_DIR (set by CTest)")
def test_pip_install_into_venv_and_import_elsewhere(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    env = dict(os.environ, DPX_BUILD_DIR=BUILD, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)  # the installed package, not the build tree's copy
    before = sorted(p.name for p in (SOURCE / "python").iterdir())
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-build-isolation", "--quiet", str(SOURCE / "python")],
        env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The install leaves the source tree as it was (setuptools builds under the CMake tree).
    assert sorted(p.name for p in (SOURCE / "python").iterdir()) == before
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = textwrap.dedent(
        """
        import json, pathlib, dpx
        pkg = pathlib.Path(dpx.__file__).parent
        r = dpx.estimators.winsorized_mean(dpx.data.AR1().sample(500, dpx.Philox(1)), 1.0, 1e-6,
                                           3.0, dpx.Philox(2))
        print(json.dumps({
            "pkg": str(pkg),
            "stubs": sorted(p.name for p in pkg.glob("*.pyi")),
            "tool": (pkg / "bin" / "dpx").is_file(),
            "presets": "private_mean" in dpx.experiments.list_presets(),
            "estimate": r.estimate,
        }))
        """
    )
    env.pop("DPX_BUILD_DIR")
    env.pop("DPX_EXPERIMENTS_DIR", None)
    out = subprocess.run([str(py), "-c", script], cwd=elsewhere, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    import json
    got = json.loads(out.stdout)
    assert got["pkg"].startswith(str(venv))
    assert "solvers.pyi" in got["stubs"] and "estimators.pyi" in got["stubs"]
    assert got["tool"] and got["presets"]
    # The installed module computes what the build tree's does (same seed, same bits).
    import dpx
    want = dpx.estimators.winsorized_mean(dpx.data.AR1().sample(500, dpx.Philox(1)), 1.0, 1e-6, 3.0,
                                          dpx.Philox(2)).estimate
    assert got["estimate"] == want


def test_pip_install_without_cmake_fails_with_one_clear_message(tmp_path):
    # No prebuilt tree and no cmake on PATH: the install stops with one message naming what is
    # missing and the two ways out (install the Debian packages, or reuse a build tree).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    env = dict(os.environ, PATH="", DPX_BUILD_DIR=str(tmp_path / "unconfigured"), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--no-build-isolation",
         str(SOURCE / "python")],
        env=env, capture_output=True, text=True,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert out.count("error: dpx: cmake was not found on PATH") == 1, out
    assert "scripts/deps.sh" in out and "DPX_BUILD_DIR=build/release pip install" in out, out
    assert not (tmp_path / "unconfigured" / "CMakeCache.txt").exists()
