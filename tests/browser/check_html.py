#!/usr/bin/python3
"""Loads HTML pages in headless Chromium through the DevTools protocol and checks them.

For every page: no console error, no uncaught exception, no failed load and no request that
leaves the machine (only file: and data: URLs), every <img> decoded (naturalWidth > 0), and a
screenshot that is not blank (grey-level standard deviation and share of non-background
pixels). Prints one line per page and exits 1 when a page fails a check.

    check_html.py [--expect-failure] PAGE.html...

--expect-failure inverts the exit status (every page must fail a check): the negative control
that shows the checks can fail. Needs Debian's chromium, python3-websocket, python3-matplotlib
and python3-numpy.
"""
import argparse
import base64
import io
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import matplotlib.image
import numpy as np
import websocket

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
    "--window-size=1280,1600", "--remote-debugging-port=0", "--remote-allow-origins=*",
]
# A screenshot with less grey-level spread than this, or fewer non-background pixels, is blank.
MIN_STD = 0.02
MIN_INK = 0.002
TIMEOUT_S = 300  # safety net for a browser that never answers, not a speed limit


class Session:
    """One DevTools websocket connection to a page target."""

    def __init__(self, url):
        self.ws = websocket.create_connection(url, timeout=TIMEOUT_S, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == my_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            if "method" in msg:
                self.events.append(msg)
        raise TimeoutError(method)

    def wait_event(self, method):
        for e in self.events:
            if e["method"] == method:
                return e
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline:
            msg = json.loads(self.ws.recv())
            if "method" in msg:
                self.events.append(msg)
                if msg["method"] == method:
                    return msg
        raise TimeoutError(method)

    def close(self):
        self.ws.close()


IMAGE_CHECK = """(() => {
  const imgs = Array.from(document.images);
  const bad = imgs.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.alt || i.src.slice(0, 60));
  return JSON.stringify({images: imgs.length, broken: bad, title: document.title,
                         text: document.body ? document.body.innerText.length : 0});
})()"""


def check_page(browser_port, path):
    """Returns (problems, info) for one page."""
    url = pathlib.Path(path).resolve().as_uri()
    req = urllib.request.Request(f"http://127.0.0.1:{browser_port}/json/new?about:blank",
                                 method="PUT")
    with urllib.request.urlopen(req, timeout=TIMEOUT_S) as r:
        target = json.load(r)
    s = Session(target["webSocketDebuggerUrl"])
    problems = []
    try:
        for domain in ("Page", "Runtime", "Log", "Network"):
            s.call(f"{domain}.enable")
        s.call("Page.navigate", url=url)
        s.wait_event("Page.loadEventFired")
        time.sleep(0.3)  # late console messages
        info = json.loads(s.call("Runtime.evaluate", expression=IMAGE_CHECK,
                                 returnByValue=True)["result"]["value"])
        shot = s.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        # Drain pending events.
        s.ws.settimeout(0.5)
        try:
            while True:
                msg = json.loads(s.ws.recv())
                if "method" in msg:
                    s.events.append(msg)
        except (websocket.WebSocketTimeoutException, TimeoutError):
            pass
    finally:
        s.close()
        urllib.request.urlopen(f"http://127.0.0.1:{browser_port}/json/close/{target['id']}",
                               timeout=TIMEOUT_S).close()

    for e in s.events:
        m, p = e["method"], e.get("params", {})
        if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            problems.append(f"console.{p['type']}: {args}")
        elif m == "Runtime.exceptionThrown":
            problems.append("exception: " + p["exceptionDetails"].get("text", ""))
        elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
            problems.append("log error: " + p["entry"].get("text", ""))
        elif m == "Network.requestWillBeSent":
            u = p["request"]["url"]
            if not (u.startswith("file:") or u.startswith("data:")):
                problems.append("network request: " + u)
        elif m == "Network.loadingFailed":
            problems.append("load failed: " + p.get("errorText", ""))
    if info["broken"]:
        problems.append(f"{len(info['broken'])} of {info['images']} images not rendered: "
                        + ", ".join(info["broken"]))
    pixels = matplotlib.image.imread(io.BytesIO(base64.b64decode(shot["data"])), format="png")
    grey = pixels[..., :3].mean(axis=2)
    std = float(grey.std())
    background = float(np.median(grey))
    ink = float((np.abs(grey - background) > 0.1).mean())
    if std < MIN_STD or ink < MIN_INK:
        problems.append(f"blank screenshot (grey std {std:.4f}, ink {ink:.4f})")
    info.update(std=std, ink=ink)
    return problems, info


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect-failure", action="store_true")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("pages", nargs="+")
    args = ap.parse_args()

    profile = tempfile.mkdtemp(prefix="dpx-chromium-")
    proc = subprocess.Popen([args.chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                             "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    failed = 0
    try:
        port_file = pathlib.Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + TIMEOUT_S
        while not port_file.exists() or not port_file.read_text().strip():
            if proc.poll() is not None or time.monotonic() > deadline:
                sys.exit(f"check_html: chromium did not start (status {proc.poll()})")
            time.sleep(0.1)
        port = int(port_file.read_text().split()[0])
        for page in args.pages:
            problems, info = check_page(port, page)
            status = "FAIL" if problems else "ok"
            print(f"{status} {page}: {info['images']} images, {info['text']} characters, "
                  f"screenshot grey std {info['std']:.3f}, ink {info['ink']:.3f}")
            for p in problems:
                print(f"    {p}")
            failed += bool(problems)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)
    if args.expect_failure:
        if failed != len(args.pages):
            print(f"check_html: {len(args.pages) - failed} page(s) expected to fail passed")
            return 1
        return 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
