#!/usr/bin/env python3
"""The C++ sources are clang-format clean (the repository's .clang-format).

    format_lint.py CLANG_FORMAT SOURCE_DIR   every *.cpp/*.hpp/*.h under the source directories
    format_lint.py CLANG_FORMAT --self-test  negative control: a mis-formatted file must be
                                             reported, its formatted form must pass

Prints one line per file that clang-format would change and exits 1 if there is any.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

DIRS = ("apps", "bench", "examples", "experiments", "libs", "python", "tests")
EXTS = (".cpp", ".hpp", ".h")


def sources(root: str) -> list[str]:
    out = []
    for d in DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = sorted(n for n in dirnames if n not in ("build", "__pycache__"))
            out += [os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(EXTS)]
    return out


def unformatted(clang_format: str, files: list[str]) -> list[str]:
    bad = []
    for i in range(0, len(files), 200):
        batch = files[i : i + 200]
        r = subprocess.run([clang_format, "--dry-run", "--Werror", "--style=file", *batch],
                           capture_output=True, text=True)
        if r.returncode != 0:
            flagged = {line.split(":", 1)[0] for line in r.stderr.splitlines() if ": error:" in line}
            bad += [f for f in batch if f in flagged] or batch
    return bad


def self_test(clang_format: str) -> int:
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, ".clang-format"), "w") as f:
            f.write("BasedOnStyle: Google\nColumnLimit: 100\n")
        bad, good = os.path.join(d, "bad.cpp"), os.path.join(d, "good.cpp")
        with open(bad, "w") as f:
            f.write("int  f( int x ){return x+1;}\n")
        with open(good, "w") as f:
            f.write("int f(int x) { return x + 1; }\n")
        if unformatted(clang_format, [bad]) != [bad]:
            print("format_lint self-test: a mis-formatted file was not reported")
            return 1
        if unformatted(clang_format, [good]):
            print("format_lint self-test: a formatted file was reported")
            return 1
    print("format_lint self-test: ok")
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print(__doc__)
        return 2
    clang_format = argv[1]
    if argv[2] == "--self-test":
        return self_test(clang_format)
    root = os.path.abspath(argv[2])
    files = sources(root)
    bad = unformatted(clang_format, files)
    for f in bad:
        print(f"not clang-format clean: {os.path.relpath(f, root)} "
              f"(fix: clang-format -i {os.path.relpath(f, root)})")
    print(f"format_lint: {len(files)} files, {len(bad)} not clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
