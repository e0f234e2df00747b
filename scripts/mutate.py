#!/usr/bin/env python3
"""Mutation testing of dpx (docs/mutation.md): seed the one-line bugs of tests/mutation/mutants.toml
one at a time into a scratch worktree, rebuild, run the checks expected to catch each, record
killed / survived / invalid, and write the summary page.

Usage (scripts/mutate.sh is the entry point; see --help):
  scripts/mutate.sh --lint                       every anchor applies exactly once (fast)
  scripts/mutate.sh [--only a,b] [--subset ci]   run mutants (scratch worktree, never the caller's)
      [--out docs/mutation.md] [--json FILE] [--before FILE] [--rev REV] [--build-dir DIR]
      [--stage preset|ctest]                     only the checks of one kind (preset: the verdicts)
  scripts/mutate.sh --in-place build/release ... mutate this checkout's files (restored after
                                                 each mutant) and rebuild its existing build tree
                                                 incrementally: the CI step, which reuses the tree
                                                 scripts/test.sh built
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    sys.exit("mutate: needs Python >= 3.11 (tomllib); run it with /usr/bin/python3")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CATALOGUE = os.path.join(ROOT, "tests", "mutation", "mutants.toml")
REQUIRED = ("id", "description", "file", "find", "replace", "catch", "build")
OPTIONAL = ("claim", "survives_because", "subset")
CHECK_RE = re.compile(r"^(preset|ctest):(.+)$")
MIN_KILL_RATE = 0.90
CHECK_TIMEOUT = 900  # seconds per check; CTest's own TIMEOUTs are shorter


def log(msg: str) -> None:
    print(f"mutate: {msg}", file=sys.stderr, flush=True)


# ---- catalogue -----------------------------------------------------------------------------


def load_catalogue(path: str) -> list[dict]:
    with open(path, "rb") as f:
        data = tomllib.load(f)
    mutants = data.get("mutant", [])
    if not mutants:
        raise SystemExit(f"mutate: {path} has no [[mutant]] entries")
    return mutants


def lint_entries(mutants: list[dict], claim_ids: set[str] | None) -> list[str]:
    """Structural errors of the catalogue (not the anchors)."""
    errors, seen = [], set()
    for i, m in enumerate(mutants):
        where = m.get("id", f"#{i + 1}")
        for k in REQUIRED:
            if k not in m:
                errors.append(f"{where}: missing '{k}'")
        for k in m:
            if k not in REQUIRED and k not in OPTIONAL:
                errors.append(f"{where}: unknown key '{k}'")
        if m.get("id") in seen:
            errors.append(f"{where}: duplicate id")
        seen.add(m.get("id"))
        if "find" in m and "\n" in m["find"] + m.get("replace", ""):
            errors.append(f"{where}: find/replace must be one line")
        if m.get("find") == m.get("replace"):
            errors.append(f"{where}: replace equals find")
        catch = m.get("catch", [])
        if not isinstance(catch, list) or not catch:
            errors.append(f"{where}: 'catch' must be a non-empty list")
        for c in catch if isinstance(catch, list) else []:
            if not CHECK_RE.match(str(c)):
                errors.append(f"{where}: catch entry '{c}' is not preset:NAME or ctest:REGEX")
            elif c.startswith("preset:"):
                name = c.split(":", 1)[1]
                if not os.path.isfile(os.path.join(ROOT, "experiments", name, "preset.toml")):
                    errors.append(f"{where}: no preset '{name}'")
        if not isinstance(m.get("build", []), list) or not m.get("build"):
            errors.append(f"{where}: 'build' must be a non-empty list of CMake targets")
        if claim_ids is not None and "claim" in m and m["claim"] not in claim_ids:
            errors.append(f"{where}: claim '{m['claim']}' is not in experiments/claims.toml")
        if "subset" in m and m["subset"] != "ci":
            errors.append(f"{where}: subset must be 'ci'")
    return errors


def anchor_error(src_root: str, m: dict) -> str | None:
    """None when m's anchor occurs in exactly one line of its file, else the reason."""
    path = os.path.join(src_root, m["file"])
    if not os.path.isfile(path):
        return f"file {m['file']} does not exist"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = text.count(m["find"])
    if count == 0:
        return "anchor not found"
    if count > 1:
        return f"anchor occurs {count} times (must be unique)"
    return None


def apply_mutant(src_root: str, m: dict) -> str:
    """Applies m; returns the file's original text (for restore_file)."""
    path = os.path.join(src_root, m["file"])
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert text.count(m["find"]) == 1
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(m["find"], m["replace"], 1))
    return text


def restore_file(src_root: str, m: dict, text: str) -> None:
    """Writes the original text back with a fresh modification time (so make rebuilds)."""
    path = os.path.join(src_root, m["file"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def claim_ids() -> set[str]:
    with open(os.path.join(ROOT, "experiments", "claims.toml"), "rb") as f:
        return {c["id"] for c in tomllib.load(f).get("claim", [])}


def lint(mutants: list[dict]) -> int:
    errors = lint_entries(mutants, claim_ids())
    for m in mutants:
        if all(k in m for k in ("file", "find")):
            e = anchor_error(ROOT, m)
            if e:
                errors.append(f"{m.get('id')}: {m['file']}: {e}")
    for e in errors:
        print(f"mutate --lint: {e}", file=sys.stderr)
    if errors:
        return 1
    ci = sum(1 for m in mutants if m.get("subset") == "ci")
    print(f"mutate --lint: {len(mutants)} mutants, every anchor unique ({ci} in subset ci)")
    return 0


# ---- scratch worktree and build --------------------------------------------------------------


def run(cmd: list[str], cwd: str | None = None, timeout: float | None = None,
        env: dict | None = None) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace", timeout=timeout, env=env)
        return p.returncode, p.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        if isinstance(out, bytes):
            out = out.decode(errors="replace")
        return -999, out


def git(*args: str, cwd: str = ROOT) -> str:
    rc, out = run(["git", *args], cwd=cwd)
    if rc != 0:
        raise SystemExit(f"mutate: git {' '.join(args)} failed:\n{out}")
    return out.strip()


def prepare_scratch(build_dir: str, rev: str) -> str:
    """A detached worktree of rev at build_dir/src, reset to a clean state (the build tree
    src/build/ is ignored by git and survives, so later runs rebuild incrementally)."""
    src = os.path.join(build_dir, "src")
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    if not os.path.isdir(os.path.join(src, ".git")) and not os.path.isfile(
            os.path.join(src, ".git")):
        os.makedirs(build_dir, exist_ok=True)
        git("worktree", "add", "--detach", src, commit)
    else:
        git("checkout", "--detach", "--force", commit, cwd=src)
        git("reset", "--hard", "--quiet", commit, cwd=src)
        git("clean", "-fdq", cwd=src)
    return src


def cmake_cache_version(bin_dir: str) -> str | None:
    try:
        with open(os.path.join(bin_dir, "CMakeCache.txt"), encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    v = [re.search(rf"^CMAKE_CACHE_{k}_VERSION:INTERNAL=(\d+)", text, re.M) for k in
         ("MAJOR", "MINOR", "PATCH")]
    return ".".join(x.group(1) for x in v) if all(v) else None


def cmake_version(cmake: str) -> str:
    rc, out = run([cmake, "--version"])
    m = re.search(r"version (\d+\.\d+\.\d+)", out)
    return m.group(1) if m else "?"


def configure(src: str, cmake: str) -> str:
    """Release flags as the release preset, unity batches off (one source file per object:
    a mutant recompiles one file) and no Python module. Returns the binary dir."""
    bin_dir = os.path.join(src, "build", "release")
    have = cmake_cache_version(bin_dir)
    if have is not None and have != cmake_version(cmake):
        log(f"{bin_dir} was configured by CMake {have}: reconfiguring from scratch")
        shutil.rmtree(bin_dir)
    if not os.path.isfile(os.path.join(bin_dir, "CMakeCache.txt")) or have is None:
        rc, out = run([cmake, "--preset", "release", "-DDPX_UNITY_BUILD=OFF",
                       "-DDPX_BUILD_PYTHON=OFF"], cwd=src)
        if rc != 0:
            raise SystemExit(f"mutate: configuring the scratch tree failed:\n{out[-4000:]}")
    return bin_dir


def build(cmake: str, bin_dir: str, targets: list[str], jobs: int) -> tuple[bool, str]:
    rc, out = run([cmake, "--build", bin_dir, "-j", str(jobs), "--target", *targets])
    return rc == 0, out


def targets_of(m: dict, bin_dir: str, ctest: str, check: str | None = None) -> list[str]:
    """m's build list plus, for one check (or all), dpx for a preset and the executable of
    every test a CTest regex selects (so no check runs a binary left over from an earlier
    mutant)."""
    t = set(m["build"])
    for c in [check] if check else m["catch"]:
        kind, arg = c.split(":", 1)
        if kind == "preset":
            t.add("dpx")
            continue
        for test in ctest_tests(arg, bin_dir, ctest):
            cmd = test.get("command") or []
            if cmd:
                t.add(os.path.basename(cmd[0]))
    return sorted(t)


# ---- checks ----------------------------------------------------------------------------------


def first_failure_line(out: str) -> str:
    pats = [r"^.*\bFAIL(ED)?\b.*$", r"^.*Failure.*$", r"^.*error.*$", r"^.*Error.*$"]
    for p in pats:
        hits = [h.group(0).strip() for h in re.finditer(p, out, re.M)]
        hits = [h for h in hits if h and not h.startswith("[  PASSED")]
        if hits:
            return hits[0][:300]
    lines = [x for x in out.strip().splitlines() if x.strip()]
    return lines[-1][:300] if lines else "(no output)"


def gtest_failure(out: str) -> str:
    """The assertion line of a failed gtest ('file:line: Failure' + the next line)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if ": Failure" in line:
            nxt = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return f"{line.strip()} {nxt}"[:300]
    for line in lines:
        if "***Failed" in line or "(Failed)" in line or "***Timeout" in line:
            return line.strip()[:300]
    return first_failure_line(out)


def ctest_tests(regex: str, bin_dir: str, ctest: str) -> list[dict]:
    rc, out = run([ctest, "--test-dir", bin_dir, "--show-only=json-v1", "-R", regex])
    try:
        return json.loads(out).get("tests", [])
    except ValueError:
        return []


def run_check(check: str, src: str, bin_dir: str, ctest: str) -> tuple[bool, str]:
    """(passed, detail); passed is None when the check cannot run (no test matches), which
    is recorded and never counts as a kill. A preset that fails to run at all does count as
    failed: the baseline rerun on the unmutated tree catches that as an invalid check."""
    kind, arg = check.split(":", 1)
    if kind == "ctest":
        if not ctest_tests(arg, bin_dir, ctest):
            return None, "no registered test matches (its executable is not in 'build'?)"
        rc, out = run([ctest, "--test-dir", bin_dir, "-R", arg, "--output-on-failure",
                       "--no-tests=error"], timeout=CHECK_TIMEOUT,
                      env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        if rc == 0:
            return True, ""
        return False, "timeout" if rc == -999 else gtest_failure(out)
    with tempfile.TemporaryDirectory(prefix="dpx-mutate-") as tmp:
        rc, out = run([os.path.join(bin_dir, "bin", "dpx"), "run", arg, "--quick", "--check",
                       "--out", tmp], cwd=src, timeout=CHECK_TIMEOUT,
                      env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
        if rc == 0:
            return True, ""
        if rc == -999:
            return False, "timeout"
        return False, preset_failure(out, tmp)


def preset_failure(out: str, tmp: str) -> str:
    """The first failing gated rate of rates.json (name, group, fit), else the failure line."""
    for dirpath, _, files in sorted(os.walk(tmp)):
        if "rates.json" not in files:
            continue
        try:
            with open(os.path.join(dirpath, "rates.json"), encoding="utf-8") as f:
                rows = json.load(f)
        except (OSError, ValueError):
            continue
        for r in rows if isinstance(rows, list) else []:
            if not isinstance(r, dict) or r.get("pass", True) or r.get("informational"):
                continue
            if r.get("control"):
                continue
            name = r.get("rate", "?") + (f" [{r['group']}]" if r.get("group") else "")
            fit = r.get("slope") if r.get("kind") == "slope" else r.get("value")
            fit = f"{fit:.3g}" if isinstance(fit, (int, float)) else "n/a"
            ci = (f", CI [{r['ci_lo']:.3g}, {r['ci_hi']:.3g}]"
                  if isinstance(r.get("ci_lo"), (int, float)) and
                  isinstance(r.get("ci_hi"), (int, float)) else "")
            return (f"{os.path.basename(dirpath)}/{name}: {r.get('kind')} {fit}{ci}, "
                    f"control {r.get('control_verdict', '')}")[:300]
    return first_failure_line(out)


# ---- the run ---------------------------------------------------------------------------------


def select(mutants: list[dict], only: str | None, subset: str | None) -> list[dict]:
    out = mutants
    if subset:
        out = [m for m in out if m.get("subset") == subset]
    if only:
        ids = [s for s in only.split(",") if s]
        known = {m["id"] for m in mutants}
        bad = [i for i in ids if i not in known]
        if bad:
            raise SystemExit(f"mutate: unknown mutant id(s): {', '.join(bad)}")
        out = [m for m in out if m["id"] in ids]
    if not out:
        raise SystemExit("mutate: no mutant selected")
    return out


def run_mutants(mutants: list[dict], args) -> dict:
    cmake = args.cmake or shutil.which("cmake")
    ctest = os.path.join(os.path.dirname(os.path.realpath(shutil.which(cmake) or cmake)), "ctest")
    if not os.path.exists(ctest):
        ctest = shutil.which("ctest") or "ctest"
    if shutil.which("ccache") and "CMAKE_CXX_COMPILER_LAUNCHER" not in os.environ:
        os.environ["CMAKE_CXX_COMPILER_LAUNCHER"] = "ccache"
    os.environ.setdefault("CCACHE_BASEDIR", os.path.dirname(ROOT))
    t0 = time.monotonic()
    if args.in_place:
        # The caller's checkout and its configured build tree (unity batches as configured).
        src = ROOT
        bin_dir = os.path.abspath(args.in_place)
        if not os.path.isfile(os.path.join(bin_dir, "CMakeCache.txt")):
            raise SystemExit(f"mutate: --in-place {bin_dir} is not a configured build tree")
        commit = git("rev-parse", "HEAD")
        log(f"in place: {src} at {commit[:10]}, build tree {bin_dir}; -j{args.jobs}")
    else:
        src = prepare_scratch(args.build_dir, args.rev)
        commit = git("rev-parse", "HEAD", cwd=src)
        bin_dir = configure(src, cmake)
        log(f"scratch tree {src} at {commit[:10]}; CMake {cmake_version(cmake)}; -j{args.jobs}")
    if args.stage:
        # Only the checks of one kind; a mutant with none of that kind is not run.
        mutants = [{**m, "catch": [c for c in m["catch"] if c.startswith(args.stage + ":")]}
                   for m in mutants]
        mutants = [m for m in mutants if m["catch"]]
        if not mutants:
            raise SystemExit(f"mutate: no selected mutant has a {args.stage} check")
    # The unmutated targets first: registers the tests (gtest discovery runs after a build) and
    # makes the later builds incremental.
    initial = sorted({t for m in mutants for t in m["build"]} |
                     ({"dpx"} if any(c.startswith("preset:") for m in mutants for c in m["catch"])
                      else set()))
    ok, out = build(cmake, bin_dir, initial, args.jobs)
    if not ok:
        # Under --rev a target may not exist yet: keep the ones that build.
        bad = [t for t in initial if not build(cmake, bin_dir, [t], args.jobs)[0]]
        if not args.allow_missing or len(bad) == len(initial):
            raise SystemExit(f"mutate: the unmutated scratch tree does not build "
                             f"({', '.join(bad)}):\n{out[-4000:]}")
        log(f"unmutated targets that do not build here: {', '.join(bad)}")
    log(f"unmutated build of {', '.join(initial)}: {time.monotonic() - t0:.0f} s")
    results = []
    for i, m in enumerate(mutants, 1):
        r = {"id": m["id"], "description": m["description"], "file": m["file"],
             "catch": m["catch"], "claim": m.get("claim", ""), "subset": m.get("subset", ""),
             "survives_because": m.get("survives_because", "")}
        mt = time.monotonic()
        err = anchor_error(src, m)
        if err:
            r.update(status="n/a", detail=err)
            log(f"[{i}/{len(mutants)}] {m['id']}: n/a ({err})")
            results.append(r)
            continue
        original = apply_mutant(src, m)
        try:
            # Built lazily, check by check: a header mutant killed by a unit test does not
            # rebuild dpx for a preset that is never run.
            r.update(status="survived", detail="")
            built: set[str] = set()
            for check in m["catch"]:
                need = [t for t in targets_of(m, bin_dir, ctest, check) if t not in built]
                if need:
                    ok, out = build(cmake, bin_dir, need, args.jobs)
                    if not ok:
                        r.update(status="build_error", detail=first_failure_line(out))
                        break
                    built.update(need)
                passed, detail = run_check(check, src, bin_dir, ctest)
                if passed is None:
                    r.setdefault("not_run", []).append(check)
                    log(f"{m['id']}: {check} not run: {detail}")
                elif not passed:
                    r.update(status="killed", killed_by=check, detail=detail)
                    break
        finally:
            restore_file(src, m, original)
        r["seconds"] = round(time.monotonic() - mt, 1)
        log(f"[{i}/{len(mutants)}] {m['id']}: {r['status']} "
            f"{r.get('killed_by', '')} ({r['seconds']} s) {r.get('detail', '')[:160]}")
        results.append(r)
    # Baseline: every check that killed a mutant must pass on the unmutated tree, else the kill
    # says nothing (the mutant is then invalid).
    killers = sorted({r["killed_by"] for r in results if r["status"] == "killed"})
    if killers and not args.no_baseline:
        targets = sorted({t for m in mutants for c in killers if c in m["catch"]
                          for t in targets_of(m, bin_dir, ctest, c)})
        ok, out = build(cmake, bin_dir, targets, args.jobs)
        if not ok:
            raise SystemExit(f"mutate: the unmutated scratch tree does not build:\n{out[-4000:]}")
        for check in killers:
            passed, detail = run_check(check, src, bin_dir, ctest)
            log(f"baseline {check}: {'passes' if passed else 'FAILS ' + detail}")
            if passed is False:
                for r in results:
                    if r.get("killed_by") == check:
                        r.update(status="invalid",
                                 detail=f"{check} fails on the unmutated tree: {detail}")
    if args.in_place:
        # Leave the caller's build tree as it was: rebuild what the mutants touched.
        touched = sorted({t for m in mutants for t in targets_of(m, bin_dir, ctest)})
        ok, out = build(cmake, bin_dir, touched, args.jobs)
        if not ok:
            raise SystemExit(f"mutate: rebuilding the unmutated tree failed:\n{out[-4000:]}")
    wall = time.monotonic() - t0
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"commit": commit, "cmake": cmake_version(cmake), "jobs": args.jobs,
            "in_place": bool(args.in_place), "stage": args.stage or "all",
            "wall_seconds": round(wall, 1), "cpu_seconds": round(ru.ru_utime + ru.ru_stime, 1),
            "results": results}


def summary(run_: dict) -> dict:
    rs = run_["results"]
    n = {s: sum(1 for r in rs if r["status"] == s)
         for s in ("killed", "survived", "build_error", "invalid", "n/a")}
    valid = n["killed"] + n["survived"]
    n["rate"] = n["killed"] / valid if valid else 0.0
    n["valid"] = valid
    return n


def merge_runs(paths: list[str]) -> dict:
    runs = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            runs.append(json.load(f))
    merged = dict(runs[0])
    order = [r["id"] for r in runs[0]["results"]]
    by_id = {}
    for run_ in runs:
        for r in run_["results"]:
            if r["id"] not in order:
                order.append(r["id"])
            by_id[r["id"]] = r
    merged["results"] = [by_id[i] for i in order]
    merged["wall_seconds"] = round(sum(r["wall_seconds"] for r in runs), 1)
    cpus = [r.get("cpu_seconds") for r in runs]
    merged["cpu_seconds"] = round(sum(c for c in cpus if c is not None), 1)
    merged["cpu_partial"] = any(c is None for c in cpus)
    merged["commit"] = runs[-1]["commit"]
    merged["runs"] = len(runs)
    return merged


def md_escape(s: str) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def fmt_time(s: float) -> str:
    s = int(round(s))
    return f"{s // 60} min {s % 60:02d} s"


def write_page(path: str, run_: dict, before: dict | None, catalogue: list[dict],
               args) -> None:
    s = summary(run_)
    lines = [
        "# Mutation testing",
        "",
        "Seeded one-line bugs (tests/mutation/mutants.toml) that a developer could plausibly",
        "write: wrong sensitivity, mislabelled epsilon, composition ignored, dependence dropped,",
        "clipping removed, wrong delta, off-by-one iteration counts, wrong proximal thresholds,",
        "wrong step rules, wrong generator variances, accountant terms, audit intervals. Each is",
        "applied alone to a scratch worktree, the code is rebuilt, and the checks named in its",
        "`catch` list (the cheapest that should kill it: a CTest regex or `dpx run <preset> --quick",
        "--check`) run until one fails. A mutant is **killed** when a check fails, **survived**",
        "when all pass (the catalogue's `survives_because` says why, when known), **invalid** when",
        "it does not build or a killing check also fails without the mutant (every killing check",
        "is rerun on the unmutated tree). The kill rate is killed / (killed + survived).",
        "",
        "This page is written by `scripts/mutate.sh` (generated; do not edit by hand).",
        "",
        "## Summary",
        "",
        f"- Commit {run_['commit'][:10]}: **{s['valid']} valid mutants, {s['killed']} killed, "
        f"{s['survived']} survived, kill rate {100 * s['rate']:.0f} %** "
        f"({s['build_error']} build errors, {s['invalid']} invalid, {s['n/a']} not applicable).",
        f"- Cost: wall {fmt_time(run_['wall_seconds'])}, CPU "
        f"{'>= ' if run_.get('cpu_partial') else ''}{fmt_time(run_['cpu_seconds'])} "
        f"(user + system of all builds and checks; -j{run_['jobs']}, nice 10, ccache, "
        f"CMake {run_['cmake']}, "
        + ("in place in the checkout's own build tree (unity batches as configured)"
           if run_.get("in_place") else "incremental scratch build with unity batches off")
        + (f"; only the {run_['stage']} checks" if run_.get("stage", "all") != "all" else "")
        + (f"; {run_['runs']} runs merged (`--from-json`, saved under docs/results/mutation/): "
           f"each mutant's latest result, the costs summed, the build details those of the "
           f"first run" if run_.get("runs", 1) > 1 else "") + ").",
    ]
    if before:
        b = summary(before)
        lines += [
            f"- Before (commit {before['commit'][:10]}, the same catalogue where the anchors "
            f"apply): {b['valid']} valid mutants, {b['killed']} killed, {b['survived']} "
            f"survived, kill rate {100 * b['rate']:.0f} % ({b['n/a']} not applicable: the "
            f"line does not exist there; {b['build_error']} build errors, {b['invalid']} "
            f"invalid). Cost: wall {fmt_time(before['wall_seconds'])}, CPU "
            f"{'>= ' if before.get('cpu_partial') else ''}{fmt_time(before['cpu_seconds'])}.",
        ]
    lines += ["", "## Mutants", ""]
    head = "| id | mutant | catch | claim | result | detail |"
    sep = "|---|---|---|---|---|---|"
    if before:
        head = "| id | mutant | catch | claim | result | before | detail |"
        sep = "|---|---|---|---|---|---|---|"
    lines += [head, sep]
    bmap = {r["id"]: r for r in (before or {}).get("results", [])}
    cat = {m["id"]: m for m in catalogue}
    for r in run_["results"]:
        res = r["status"]
        if res == "killed":
            res = f"killed by `{r['killed_by']}`"
        detail = r.get("detail", "")
        if r["status"] == "survived":
            detail = r.get("survives_because") or "(no reason recorded)"
        r = {**r, **{k: cat[r["id"]][k] for k in ("description", "survives_because")
                     if r["id"] in cat and k in cat[r["id"]]}}
        if r["status"] == "survived":
            detail = r.get("survives_because") or "(no reason recorded)"
        detail = re.sub(r"\S*/src/(?=(libs|tests|apps|experiments)/)", "", detail)
        if r.get("not_run"):
            detail += f" (not run, no matching test: {', '.join(r['not_run'])})"
        cells = [f"`{r['id']}`", md_escape(r["description"]),
                 "<br>".join(f"`{md_escape(c)}`" for c in r["catch"]),
                 f"`{r['claim']}`" if r["claim"] else "", md_escape(res)]
        if before:
            br = bmap.get(r["id"])
            cells.append(md_escape(br["status"] if br else "not run"))
        cells.append(md_escape(detail))
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "## How to run it",
        "",
        "```",
        "scripts/mutate.sh --lint                  # every anchor applies uniquely (CTest mutation_lint)",
        "scripts/mutate.sh                         # the whole catalogue; writes docs/mutation.md",
        "scripts/mutate.sh --only id1,id2 --out /tmp/m.md   # rerun some mutants (e.g. the survivors)",
        "scripts/mutate.sh --in-place build/release --subset ci --out build/mutation/ci.md   # the .ci/run step",
        "scripts/mutate.sh --stage preset          # only the experiments' verdicts (dpx run --quick --check)",
        "scripts/mutate.sh --rev 4e5103d --build-dir build/mutation-before --json before.json",
        "```",
        "",
        "The scratch worktree is `build/mutation/src` (a `git worktree` of HEAD, or of `--rev`);",
        "the caller's tree is never modified, except under `--in-place BUILD_DIR`, which mutates",
        "the checkout's own files (each restored after its mutant, also on SIGTERM) and rebuilds",
        "its existing build tree incrementally — what CI does after `scripts/test.sh` built it.",
        "The first run builds the scratch tree (the targets",
        "the selected mutants name, unity batches off); later runs rebuild only what a mutant",
        "touches. `--json FILE` saves the results, `--before FILE` adds a saved run as the",
        "`before` column. The script exits non-zero when the kill rate is below 90 % or a mutant",
        "of the `ci` subset survives; a missing or non-unique anchor is refused (`--lint`), except",
        "under `--rev`, where it is reported as not applicable.",
        "",
    ]
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".mutation-", suffix=".md")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))
    os.replace(tmp, path)


def main() -> int:
    ap = argparse.ArgumentParser(prog="scripts/mutate.sh", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lint", action="store_true", help="only check that every anchor is unique")
    ap.add_argument("--only", help="comma-separated mutant ids")
    ap.add_argument("--subset", choices=["ci"], help="only the mutants of this subset")
    ap.add_argument("--out", help="summary page (default docs/mutation.md for a full run)")
    ap.add_argument("--json", help="also save the results as JSON")
    ap.add_argument("--before", help="a saved JSON run shown as the 'before' column")
    ap.add_argument("--rev", default="HEAD", help="commit of the scratch worktree (default HEAD)")
    ap.add_argument("--build-dir", help="scratch directory (default build/mutation)")
    ap.add_argument("--cmake", help="cmake executable (default: the one on PATH)")
    ap.add_argument("--in-place", metavar="BUILD_DIR",
                    help="mutate this checkout (each file restored after its mutant) and rebuild "
                    "the existing build tree BUILD_DIR incrementally (CI: build/release)")
    ap.add_argument("--stage", choices=["preset", "ctest"],
                    help="run only the checks of one kind (preset: do the experiments' verdicts "
                    "catch the mutant by themselves?)")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--nice", type=int, default=10)
    ap.add_argument("--no-baseline", action="store_true",
                    help="skip rerunning the killing checks on the unmutated tree")
    ap.add_argument("--from-json", help="write the page from saved runs (no build, no checks): "
                    "FILE[,FILE...], a later run's result replacing an earlier one's, costs "
                    "summed (e.g. the full run plus an --only rerun of some mutants)")
    ap.add_argument("--catalogue", default=CATALOGUE)
    args = ap.parse_args()
    mutants = load_catalogue(args.catalogue)
    if args.lint:
        return lint(mutants)
    errors = lint_entries(mutants, claim_ids())
    rev_is_head = git("rev-parse", args.rev) == git("rev-parse", "HEAD")
    args.allow_missing = not rev_is_head
    if rev_is_head:
        errors += [f"{m['id']}: {m['file']}: {e}" for m in mutants
                   if (e := anchor_error(ROOT, m))]
    if errors:
        for e in errors:
            print(f"mutate: {e}", file=sys.stderr)
        return 2
    selected = select(mutants, args.only, args.subset)
    args.build_dir = os.path.abspath(args.build_dir or os.path.join(ROOT, "build", "mutation"))
    if args.out is None and not args.only and not args.subset and rev_is_head:
        args.out = os.path.join(ROOT, "docs", "mutation.md")
    if args.from_json:
        result = merge_runs(args.from_json.split(","))
    else:
        os.nice(args.nice)
        # SIGTERM (a CI timeout) unwinds like Ctrl-C, so the mutated file is restored.
        signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
        result = run_mutants(selected, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1)
    before = None
    if args.before:
        before = merge_runs(args.before.split(","))
    if args.out:
        write_page(args.out, result, before, mutants, args)
        log(f"wrote {args.out}")
    s = summary(result)
    survivors = [r["id"] for r in result["results"] if r["status"] == "survived"]
    ci_survivors = [r["id"] for r in result["results"]
                    if r["status"] == "survived" and r["subset"] == "ci"]
    log(f"{s['killed']}/{s['valid']} killed ({100 * s['rate']:.0f} %), wall "
        f"{fmt_time(result['wall_seconds'])}, CPU {fmt_time(result['cpu_seconds'])}; "
        f"survivors: {','.join(survivors) or 'none'}")
    if ci_survivors:
        log(f"FAIL: ci-subset mutants survived: {','.join(ci_survivors)}")
        return 1
    if s["rate"] < MIN_KILL_RATE and not args.only:
        log(f"FAIL: kill rate {100 * s['rate']:.0f} % < {100 * MIN_KILL_RATE:.0f} %")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
