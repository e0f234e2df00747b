"""Writes the parity and time-ratio tables of the peer suite at the end of the session.

Output: $DPX_PEERS_OUT (default <source>/build/peers)/parity.md and parity.json; the path is
printed in pytest's terminal summary.
"""

from __future__ import annotations

import json
import math
import os
import platform
import statistics
from importlib import metadata
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("DPX_SOURCE_DIR", Path(__file__).resolve().parents[3]))
OUT_DIR = Path(os.environ.get("DPX_PEERS_OUT", SOURCE_DIR / "build" / "peers"))
PEER_PACKAGES = ("dp-accounting", "prv-accountant", "opendp", "autodp", "diffprivlib", "numpy", "scipy", "mpmath")
_written: list = []


def _versions():
    out = {}
    for p in PEER_PACKAGES:
        try:
            out[p] = metadata.version(p)
        except metadata.PackageNotFoundError:
            out[p] = "missing"
    return out


def _fmt(x):
    if x is None:
        return "—"
    if isinstance(x, float) and (math.isinf(x) or math.isnan(x)):
        return str(x)
    return f"{x:.6g}"


def write_tables():
    from . import test_parity as tp
    from . import peers as P

    if not tp.RESULTS:
        return None
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    versions = _versions()
    families = []
    for s in tp.SETTINGS:
        if s.family not in families:
            families.append(s.family)
    peers = list(P.PEERS)
    # cells per family, failures, peers found wrong
    summary = {}
    for r in tp.RESULTS:
        f = summary.setdefault(r["family"], {"cells": 0, "dpx_below_exact": 0, "dpx_looser": 0,
                                              "peer_wrong": 0, "peer_inf_or_refused": 0})
        f["cells"] += 1
        if r["exact"] is not None and r["dpx"] < r["exact"] * (1 - tp.REL):
            f["dpx_below_exact"] += 1
        f["dpx_looser"] += bool(r["looser_than"])
        f["peer_wrong"] += len(r["wrong"])
        f["peer_inf_or_refused"] += sum(1 for v in r["peers"].values() if math.isinf(v) or math.isnan(v))
    # time ratios per family and peer: median over the family's settings of peer / dpx
    ratios = {}
    for rec in tp._CACHE.values():
        fam = rec["setting"].family
        for name, t in rec["times"].items():
            ratios.setdefault((fam, name), []).append(t / max(rec["dpx_time"], 1e-6))
    lines = [
        "# dpx peer parity",
        "",
        f"`scripts/test.sh --peers`; Python {platform.python_version()}; "
        + ", ".join(f"{k} {v}" for k, v in versions.items()),
        "",
        "## Cells",
        "",
        "| family | cells | dpx < exact | dpx > a peer | peer below exact or the referee (wrong) | peer inf / refused |",
        "|---|---|---|---|---|---|",
    ]
    for fam in families:
        f = summary.get(fam)
        if f:
            lines.append(f"| {fam} | {f['cells']} | {f['dpx_below_exact']} | {f['dpx_looser']} | "
                         f"{f['peer_wrong']} | {f['peer_inf_or_refused']} |")
    lines += ["", "## Where a peer was found wrong (or refused)", ""]
    lines += [f"* {f}" for f in P.FINDINGS] or ["(none)"]
    lines += ["", "## CPU time ratio peer / dpx (median over the family's ledgers; > 1: dpx faster)", "",
              "| family | " + " | ".join(peers) + " |", "|---" * (len(peers) + 1) + "|"]
    for fam in families:
        cells = []
        for name in peers:
            v = ratios.get((fam, name))
            cells.append(f"{statistics.median(v):.3g} ({len(v)})" if v else "—")
        lines.append(f"| {fam} | " + " | ".join(cells) + " |")
    lines += ["", "## Every cell (ε upper bounds)", "",
              "| family | ledger | δ | exact | dpx | " + " | ".join(peers) + " |", "|---" * (len(peers) + 5) + "|"]
    for r in tp.RESULTS:
        vals = []
        for name in peers:
            v = r["peers"].get(name)
            mark = " (wrong)" if name in r["wrong"] else (" (dpx looser)" if name in r["looser_than"] else "")
            vals.append(_fmt(v) + mark if v is not None else "—")
        lines.append(f"| {r['family']} | {r['setting']} | {r['delta']:g} | {_fmt(r['exact'])} | "
                     f"{_fmt(r['dpx'])} | " + " | ".join(vals) + " |")
    md = OUT_DIR / "parity.md"
    md.write_text("\n".join(lines) + "\n")
    js = {
        "versions": versions,
        "findings": P.FINDINGS,
        "summary": summary,
        "time_ratio_median": {f"{k[0]}/{k[1]}": statistics.median(v) for k, v in ratios.items()},
        "cells": [{k: v for k, v in r.items()} for r in tp.RESULTS],
        "times": [{"setting": rec["setting"].label, "family": rec["setting"].family, "dpx": rec["dpx_time"],
                   **rec["times"]} for rec in tp._CACHE.values()],
    }
    (OUT_DIR / "parity.json").write_text(json.dumps(js, indent=1, default=str))
    return md


def pytest_sessionfinish(session, exitstatus):
    try:
        md = write_tables()
    except ImportError:
        md = None
    if md:
        _written.append(md)


def pytest_terminal_summary(terminalreporter):
    for md in _written:
        terminalreporter.write_line(f"dpx peers: parity and time-ratio tables written to {md}")
