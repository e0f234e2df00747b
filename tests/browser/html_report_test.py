#!/usr/bin/python3
"""CTest html_report_browser: `dpx run` and `dpx report` write report.html per preset and an
index.html over the results directory; every page loads in headless Chromium without console
errors or network requests, every figure renders and the screenshots are not blank
(check_html.py). Negative controls (a broken image with a console error, a blank page, a page
requesting a URL) must fail the same checks.

    html_report_test.py DPX_EXE WORK_DIR
"""
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
CHECK = [sys.executable, str(HERE / "check_html.py")]

PRESET = """
[experiment]
name = "{name}"
description = "Browser test preset {name}: Laplace privacy error against n"
driver = "private_mean"
base_seed = 7
replications = 40
replication_block = 20

[grid]
n = {{ geometric = [100, 10000], points = 5, integer = true }}
mechanism = "laplace"
epsilon = [0.5, 1.0]
{figures}
[[rate]]
name = "privacy_error"
description = "2/(n eps)^2"
x = "n"
y = "sq_err_private"
group_by = ["epsilon"]
expected_slope = -2.0
tolerance = 0.2
"""
FIGURE = """
[[figure]]
name = "privacy_error"
title = "Privacy error"
x = "n"
y = "sq_err_private"
series = ["epsilon"]
reference_slopes = [-2.0]
"""


def run(cmd, cwd):
    r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    print("$", " ".join(map(str, cmd)), "->", r.returncode)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        sys.exit(f"command failed: {cmd}")
    return r


def main():
    dpx, work = sys.argv[1], pathlib.Path(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    (work / "presets").mkdir(parents=True)
    for name, figures in (("browser_a", FIGURE), ("browser_b", "")):
        (work / "presets" / f"{name}.toml").write_text(PRESET.format(name=name, figures=figures))
        run([dpx, "run", f"presets/{name}.toml", "--threads", "1", "--quiet"], work)
    # dpx report rewrites the pages from the files; report.md keeps one provenance section.
    run([dpx, "report", "presets/browser_a.toml"], work)
    results = work / "results"
    pages = [results / "index.html", results / "browser_a" / "report.html",
             results / "browser_b" / "report.html"]
    for p in pages:
        if not p.is_file():
            sys.exit(f"missing {p}")
    md = (results / "browser_a" / "report.md").read_text()
    if md.count("## Provenance") != 1 or "| commit |" not in md:
        sys.exit("report.md must have exactly one provenance section with the commit")
    html = pages[1].read_text()
    for needle in ("data:image/png;base64,", "Rate checks", "Provenance", "privacy_error"):
        if needle not in html:
            sys.exit(f"report.html lacks {needle!r}")
    for bad in ("<script", "http://", "https://", "@import", "url("):
        if bad in html or bad in pages[0].read_text():
            sys.exit(f"a page contains {bad!r} (pages must be self-contained)")
    if subprocess.run(CHECK + [str(p) for p in pages]).returncode != 0:
        sys.exit("a page failed the browser checks")

    # Negative controls: each must fail a check.
    controls = work / "controls"
    controls.mkdir()
    (controls / "broken.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>b</title></head><body>"
        "<h1>Broken image</h1><p>text text text</p>"
        "<img alt='broken' src='data:image/png;base64,AAAA'>"
        "<script>console.error('deliberate error')</script></body></html>")
    (controls / "blank.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>blank</title></head>"
        "<body></body></html>")
    (controls / "network.html").write_text(
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>n</title></head><body>"
        "<h1>Requests a URL</h1><p>text text text</p>"
        "<img alt='remote' src='http://127.0.0.1:9/x.png'></body></html>")
    if subprocess.run(CHECK + ["--expect-failure"] +
                      [str(controls / f) for f in ("broken.html", "blank.html",
                                                   "network.html")]).returncode != 0:
        sys.exit("a negative control passed the browser checks")
    print("html_report_browser: OK")


if __name__ == "__main__":
    main()
