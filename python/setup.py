"""Builds the dpx extension module with the project's CMake build and installs the package.

The CMake build directory is $DPX_BUILD_DIR when set (absolute, or relative to the repository
root; an existing, configured build such as build/release is reused as is), otherwise
<repo>/build/python, configured and built here for this interpreter (Release, tests off; the
first build compiles the libraries, the dpx tool and the module: minutes). When cmake, the
compiler or a dependency is missing, the install stops with one message saying what to run
(HOW_TO_BUILD). The package also gets the dpx command-line tool (dpx/bin/dpx,
used by dpx.experiments), the preset files and the plotting script (dpx/share/dpx/...), laid
out so that the tool finds them next to itself.
"""

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def cmake_build_dir() -> Path:
    """$DPX_BUILD_DIR (relative paths from the repository root: pip runs this script from
    python/, so DPX_BUILD_DIR=build/release reuses the release preset's build), else
    <repo>/build/python."""
    env_dir = os.environ.get("DPX_BUILD_DIR")
    return (ROOT / env_dir).resolve() if env_dir else ROOT / "build" / "python"


# setuptools' own scratch files (build/, dpx.egg-info) go under the CMake build tree, so that an
# install leaves the source tree untouched.
SCRATCH = cmake_build_dir() / "setuptools"
SCRATCH.mkdir(parents=True, exist_ok=True)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


HOW_TO_BUILD = """\
The extension is built with the project's CMake build (offline, Debian packages only):
  - install the build dependencies (scripts/deps.sh lists them: cmake, g++, python3-dev,
    pybind11-dev, ...; `bash -c '. scripts/deps.sh && dpx_ensure_packages "${DPX_PACKAGES[@]}"'`
    installs the missing ones as root or prints the apt-get line), then run the same pip command
    again (it configures and builds <repo>/build/python itself), or
  - reuse a build tree you already have:
      cmake --preset release && cmake --build --preset release -j2 --target dpx_python dpx
      DPX_BUILD_DIR=build/release pip install --no-build-isolation ./python"""


def fail(what: str) -> None:
    """Stops the build with one clear message (pip prints it under the build's output)."""
    raise SystemExit(f"\nerror: dpx: {what}\n{HOW_TO_BUILD}\n")


def run(step: str, build_dir: Path, args: list) -> None:
    try:
        subprocess.run(args, check=True)
    except FileNotFoundError:
        fail(f"{args[0]} was not found on PATH")
    except subprocess.CalledProcessError:
        fail(f"{step} in {build_dir} failed (its output is above; `pip install -v` shows all of it)")


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        env_dir = os.environ.get("DPX_BUILD_DIR")
        build_dir = cmake_build_dir()
        if shutil.which("cmake") is None:
            fail("cmake was not found on PATH")
        if not env_dir or not (build_dir / "CMakeCache.txt").is_file():
            # DPX_PYTHON_REQUIRED: a missing pybind11-dev or python3-dev is a configure error
            # here (a plain build only warns and skips the module).
            run(
                "configuring the CMake build",
                build_dir,
                [
                    "cmake", "-S", str(ROOT), "-B", str(build_dir),
                    "-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG",
                    "-DDPX_BUILD_PYTHON=ON", "-DDPX_PYTHON_REQUIRED=ON", "-DDPX_BUILD_TESTS=OFF",
                    "-DDPX_BUILD_APPS=ON", "-DDPX_INSTALL=OFF", f"-DPython_EXECUTABLE={sys.executable}",
                ],
            )
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
        run(
            "building the CMake targets dpx_python and dpx",
            build_dir,
            ["cmake", "--build", str(build_dir), "-j", jobs, "--target", "dpx_python", "dpx"],
        )
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        module = build_dir / "python" / "dpx" / f"_dpx{suffix}"
        if not module.is_file():
            raise RuntimeError(
                f"{module} was not built: the build in {build_dir} targets another Python "
                f"(reconfigure it with -DPython_EXECUTABLE={sys.executable})"
            )
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(module, target)
        pkg = target.parent
        (pkg / "bin").mkdir(exist_ok=True)
        shutil.copy2(build_dir / "bin" / "dpx", pkg / "bin" / "dpx")
        share = pkg / "share" / "dpx"
        for preset in (ROOT / "experiments").glob("*/preset.toml"):
            dest = share / "experiments" / preset.parent.name
            dest.mkdir(parents=True, exist_ok=True)
            shutil.copy2(preset, dest / "preset.toml")
        shutil.copy2(ROOT / "libs" / "harness" / "python" / "dpx_plot.py", share / "dpx_plot.py")


setup(
    ext_modules=[CMakeExtension("dpx._dpx")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(SCRATCH / "build")}, "egg_info": {"egg_base": str(SCRATCH)}},
)
