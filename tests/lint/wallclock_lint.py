#!/usr/bin/env python3
"""Fails when a test measures wall time (a loaded CI machine must not fail a correct build).

Hang detectors in dpx's tests bound CPU time (RLIMIT_CPU / getrusage of the child, std::clock,
time.process_time) or count iterations, never wall time. This lint rejects, in tests/ and
python/tests/, reading a wall clock (steady_clock, system_clock, high_resolution_clock,
clock_gettime, gettimeofday, time.time(), time.monotonic(), perf_counter, datetime.now()), a
sleeping poll or alarm outside the one polling helper (sleep_for, time.sleep, alarm, SIGALRM,
setitimer), a Python `timeout=` and a shell `timeout N`, and a CTest TIMEOUT below 300 s (CTest's
per-test TIMEOUT is the only wall-clock limit: a safety net against a child blocked forever, far
beyond any loaded-machine run).

ALLOWED lists the documented exceptions with their reason and their number of hits, so a new
one in an allowed file still fails.

Usage: wallclock_lint.py ROOT      scan ROOT/tests and ROOT/python/tests
       wallclock_lint.py --self-test   each pattern catches a bad line and passes a good one
Exit status 1 and one line per hit (path:line: what: text) when anything is found.
"""
import os
import re
import sys

DIRS = ("tests", os.path.join("python", "tests"))
SUFFIXES = (".cpp", ".hpp", ".h", ".py", ".sh", ".cmake", ".txt", ".in")
SKIP_DIRS = (os.path.join("tests", "data"), os.path.join("tests", "fuzz", "corpus"))
SELF = os.path.join("tests", "lint", "wallclock_lint.py")
MIN_CTEST_TIMEOUT = 300

CODE = [
    ("a wall clock", re.compile(
        r"\b(?:steady_clock|system_clock|high_resolution_clock|clock_gettime|gettimeofday)\b"
        r"|\btime\.(?:time|monotonic|perf_counter)(?:_ns)?\s*\(|\bperf_counter\b"
        r"|\bdatetime\.(?:datetime\.)?(?:now|utcnow)\s*\(")),
    ("a sleeping poll or alarm (use cli_util.hpp's wait_until)", re.compile(
        r"\bsleep_for\b|\bsleep_until\b|\busleep\s*\(|\bnanosleep\b|\btime\.sleep\s*\("
        r"|\balarm\s*\(|\bSIGALRM\b|\bsetitimer\b")),
    ("a wall-clock timeout", re.compile(
        r"\btimeout\s*=\s*[\w.]|\bmark\.timeout\b|^\s*(?:[\w$=\"'/.-]+\s+)*timeout\s+-?\d")),
]
CTEST = re.compile(r"\b(?:DISCOVERY_)?TIMEOUT\s+(\d+)\b")

# (path, what) -> (hits, reason)
ALLOWED = {
    (os.path.join("tests", "integration", "cli_util.hpp"), CODE[1][0]): (
        1, "wait_until's 5 ms pause between polls: the polling ends on the predicate, the "
           "child's exit or its CPU time, never on elapsed time"),
    (os.path.join("tests", "harness", "runner_test.cpp"), CODE[0][0]): (
        2, "TrivialReplicationThroughput prints the throughput and asserts nothing on it"),
    (os.path.join("tests", "browser", "check_html.py"), CODE[0][0]): (
        6, "waits on Chromium's DevTools socket and startup, bounded by TIMEOUT_S = 300 s, a "
           "safety net against a browser that never answers (the browser's CPU is not ours)"),
    (os.path.join("tests", "browser", "check_html.py"), CODE[1][0]): (
        2, "a pause while Chromium starts, and 0.3 s for late console messages (a late message "
           "can only be missed, never fail a correct page)"),
    (os.path.join("tests", "browser", "check_html.py"), CODE[2][0]): (
        4, "the same 300 s safety net on the DevTools socket and HTTP endpoint, and 10 s for "
           "Chromium to exit before it is killed (cleanup, fails nothing)"),
}

BAD = [
    ("a wall clock", "  const auto t0 = std::chrono::steady_clock::now();"),
    ("a wall clock", "    start = time.monotonic()"),
    ("a wall clock", "t = time.time()"),
    ("a wall clock", "elapsed = time.perf_counter() - t0"),
    ("a wall clock", "  auto d = std::chrono::system_clock::now() + 60s;"),
    ("a sleeping poll or alarm (use cli_util.hpp's wait_until)",
     "    std::this_thread::sleep_for(std::chrono::milliseconds(5));"),
    ("a sleeping poll or alarm (use cli_util.hpp's wait_until)", "        time.sleep(0.1)"),
    ("a sleeping poll or alarm (use cli_util.hpp's wait_until)", "  alarm(30);"),
    ("a wall-clock timeout", "    r = subprocess.run(cmd, timeout=60)"),
    ("a wall-clock timeout", "timeout 30 build/release/bin/dpx calibrate"),
    ("a wall-clock timeout", "@pytest.mark.timeout(10)"),
]
GOOD = [
    "  const std::clock_t start = std::clock();",
    "    cpu = time.process_time()",
    "  getrusage(RUSAGE_CHILDREN, &ru);",
    "  // a hang detector bounds CPU time, not wall time (no steady clock here)",
    "    r = subprocess.run(cmd, check=True)",
    "  EXPECT_EQ(r.timed_out, false);",
    "  wall_s = row.wall_s",
]
BAD_CTEST = ["  TIMEOUT 120)", "    DISCOVERY_TIMEOUT 60"]
GOOD_CTEST = ["  TIMEOUT 300)", "set(timeout 3600)", "LABEL unit TIMEOUT 600)"]


def code_hits(line):
    return [what for what, rx in CODE if rx.search(line)]


def ctest_hit(line):
    return any(int(m.group(1)) < MIN_CTEST_TIMEOUT for m in CTEST.finditer(line))


def scan(root):
    hits, counts = [], {}
    for d in DIRS:
        for base, dirs, files in os.walk(os.path.join(root, d)):
            rel_base = os.path.relpath(base, root)
            if any(rel_base == s or rel_base.startswith(s + os.sep) for s in SKIP_DIRS):
                dirs[:] = []
                continue
            for f in sorted(files):
                rel = os.path.join(rel_base, f)
                if rel == SELF or not f.endswith(SUFFIXES):
                    continue
                cmake = f == "CMakeLists.txt" or f.endswith(".cmake")
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
                    for n, line in enumerate(fh, 1):
                        text = line.rstrip("\n")
                        if cmake:
                            if ctest_hit(text):
                                hits.append(f"{rel}:{n}: a CTest TIMEOUT below "
                                            f"{MIN_CTEST_TIMEOUT} s: {text.strip()}")
                            continue
                        for what in code_hits(text):
                            counts.setdefault((rel, what), []).append(f"{rel}:{n}: {what}: "
                                                                      f"{text.strip()}")
    for key, lines in sorted(counts.items()):
        allowed = ALLOWED.get(key, (0, ""))[0]
        if len(lines) > allowed:
            hits.extend(lines if allowed == 0 else
                        [f"{key[0]}: {len(lines)} hits of {key[1]}, {allowed} allowed"] + lines)
    for key, (n, _) in sorted(ALLOWED.items()):
        if len(counts.get(key, [])) < n:
            hits.append(f"{key[0]}: {len(counts.get(key, []))} hits of {key[1]}, "
                        f"{n} allowed: lower the allowance in {SELF}")
    return hits


def self_test():
    bad = 0
    for what, line in BAD:
        if what not in code_hits(line):
            print(f"self-test: '{what}' misses: {line}")
            bad += 1
    for line in GOOD:
        if code_hits(line):
            print(f"self-test: {code_hits(line)} flags a good line: {line}")
            bad += 1
    for line in BAD_CTEST:
        if not ctest_hit(line):
            print(f"self-test: the CTest TIMEOUT check misses: {line}")
            bad += 1
    for line in GOOD_CTEST:
        if ctest_hit(line):
            print(f"self-test: the CTest TIMEOUT check flags a good line: {line}")
            bad += 1
    return bad


def main(argv):
    if argv[1:] == ["--self-test"]:
        return 1 if self_test() else 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    hits = scan(argv[1])
    for h in hits:
        print(h)
    return 1 if hits else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
