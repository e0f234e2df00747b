"""The .pyi stubs parse, are up to date with the compiled module, and every public object has a
docstring."""

import ast
import inspect
import subprocess
import sys
from pathlib import Path

import dpx

PKG_SRC = Path(__file__).resolve().parents[1] / "dpx"


def test_stubs_parse_and_are_current():
    for stub in PKG_SRC.glob("*.pyi"):
        ast.parse(stub.read_text(), filename=str(stub))
    tool = PKG_SRC.parent / "tools" / "gen_stubs.py"
    proc = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_public_object_has_a_docstring():
    missing = []
    for mod in (dpx, dpx.mechanisms, dpx.data, dpx.accounting, dpx.experiments, dpx.solvers, dpx.estimators, dpx.audit):
        assert mod.__doc__, mod.__name__
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.isclass(obj) or callable(obj):
                if not (obj.__doc__ or "").strip():
                    missing.append(f"{mod.__name__}.{name}")
                for attr, member in vars(obj).items() if inspect.isclass(obj) else ():
                    if attr.startswith("_") or not (callable(member) or isinstance(member, property)):
                        continue
                    if not (getattr(member, "__doc__", "") or "").strip():
                        missing.append(f"{mod.__name__}.{name}.{attr}")
    assert not missing, missing
