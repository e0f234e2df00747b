"""`pip install --no-build-isolation ./python` with no prebuilt build tree: setup.py configures a
fresh CMake build itself (offline: Debian packages only), builds the module and the dpx tool,
and installs them into a virtual environment made with --system-site-packages; `import dpx`
then works from another directory and gives the same bits as the build tree's module.

The fresh tree is DPX_BUILD_DIR=<CMake build dir>/python_self_build, emptied first (so it is
configured by setup.py exactly as <repo>/build/python is when DPX_BUILD_DIR is unset). Slow: the
whole project is compiled (1429 s measured on two loaded cores; ccache, passed on from the build
tree's CMAKE_CXX_COMPILER_LAUNCHER, saves the compiles of a repeated run but not the LTO link of
the module). Registered only with -DDPX_TEST_PIP_SELF_BUILD=ON (python/tests/CMakeLists.txt)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCE = Path(os.environ.get("DPX_SOURCE_DIR", Path(__file__).resolve().parents[2]))
BUILD = os.environ.get("DPX_BINARY_DIR")


def launcher():
    cache = Path(BUILD) / "CMakeCache.txt"
    for line in cache.read_text().splitlines():
        if line.startswith("CMAKE_CXX_COMPILER_LAUNCHER:") and line.split("=", 1)[1]:
            return line.split("=", 1)[1]
    return os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER")


@pytest.mark.skipif(BUILD is None, reason="needs DPX_BINARY_DIR (set by CTest)")
def test_pip_install_builds_the_extension_itself(tmp_path):
    fresh = Path(BUILD) / "python_self_build"
    shutil.rmtree(fresh, ignore_errors=True)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    py = venv / "bin" / "python"
    env = dict(os.environ, DPX_BUILD_DIR=str(fresh), PIP_NO_INDEX="1",
               PIP_DISABLE_PIP_VERSION_CHECK="1", CMAKE_BUILD_PARALLEL_LEVEL="2")
    if launcher():
        env["CMAKE_CXX_COMPILER_LAUNCHER"] = launcher()
    env.pop("PYTHONPATH", None)
    proc = subprocess.run(
        [str(py), "-m", "pip", "install", "--no-build-isolation", "--quiet", str(SOURCE / "python")],
        env=env, capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-5000:]
    cache = (fresh / "CMakeCache.txt").read_text()
    assert f"Python_EXECUTABLE:FILEPATH={py}" in cache or str(py) in cache  # configured here
    script = (
        "import json, pathlib, dpx\n"
        "pkg = pathlib.Path(dpx.__file__).parent\n"
        "x = dpx.mechanisms.Laplace.from_scale(0.7).sample(dpx.Philox(7), 5)\n"
        "print(json.dumps({'pkg': str(pkg), 'tool': (pkg / 'bin' / 'dpx').is_file(),\n"
        "                  'x': list(x)}))\n"
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env.pop("DPX_BUILD_DIR")
    out = subprocess.run([str(py), "-c", script], cwd=elsewhere, env=env, capture_output=True,
                         text=True)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    assert got["pkg"].startswith(str(venv)) and got["tool"]
    import dpx

    assert got["x"] == list(dpx.mechanisms.Laplace.from_scale(0.7).sample(dpx.Philox(7), 5))
    shutil.rmtree(fresh, ignore_errors=True)
