"""Shared fixtures: the dpx command-line tool (for bit-identity comparisons) and paths."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
SOURCE_DIR = Path(os.environ.get("DPX_SOURCE_DIR", HERE.parents[1]))


def _cli_path():
    env = os.environ.get("DPX_CLI")
    if env:
        return env
    for candidate in (SOURCE_DIR / "build" / "release" / "bin" / "dpx",):
        if candidate.is_file():
            return str(candidate)
    return shutil.which("dpx")


@pytest.fixture(scope="session")
def cli():
    """run(*args) -> stdout of the dpx tool (fails the test if it exits non-zero)."""
    path = _cli_path()
    if path is None:
        pytest.fail("the dpx tool was not found: set DPX_CLI (CTest does)")

    def run(*args, expect=0):
        proc = subprocess.run([path, *map(str, args)], capture_output=True, text=True)
        assert proc.returncode == expect, proc.stderr
        return proc.stdout if expect == 0 else proc.stderr

    run.path = path
    run.json = lambda *args: json.loads(run(*args))
    return run


@pytest.fixture(scope="session")
def tiny_preset():
    return HERE / "data" / "tiny_private_mean.toml"


@pytest.fixture(scope="session")
def source_dir():
    return SOURCE_DIR
