#!/usr/bin/env python3
"""Decodes the image corpus with headless Chromium and writes reference pixels.

Starts a static HTTP server on 127.0.0.1 serving Tests/Fixtures/corpus, starts
chromedriver (loopback only) driving Debian's /usr/bin/chromium headless, and in one page
decodes every MANIFEST row whose expectation is a decode (ok, optional, lenient, sniff)
with createImageBitmap(blob, {colorSpaceConversion: "default", premultiplyAlpha: "none"}),
draws it on an sRGB canvas and reads it back with getImageData. Each image is reduced to
at most MAX_SIDE x MAX_SIDE cells: cell (i, j) averages the source pixels
x * cols // width == i, y * rows // height == j, premultiplied (round(c * a / 255)), with
integer rounding (2n + d) // 2d. Premultiplied values are what the canvas stores:
getImageData's unpremultiplied colours of nearly transparent pixels are rounding noise,
and premultiplying them again gives back exactly what the canvas held. The Swift test
(Tests/WebImageTests/Color) reduces our decode the same way.

Output: Tests/Fixtures/chromium-reference/reference.jsonl, a header line then one JSON
object per file: {"path", "width", "height", "cols", "rows", "rgba": base64} or
{"path", "error"}. Needs only Python's standard library, chromium and chromium-driver.

Usage: scripts/chromium-reference.py [--out FILE] [--only SUBSTRING]
"""
import argparse
import base64
import functools
import http.server
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "Tests", "Fixtures", "corpus")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "chromium-reference", "reference.jsonl")
MAX_SIDE = 16
DECODED = {"ok", "optional", "lenient", "sniff"}
BATCH = 16

PAGE = b"<!doctype html><meta charset=utf-8><title>reference</title>"

# Runs in the page: decode a batch of URLs, reduce each, return JSON-able results.
SCRIPT = r"""
const [urls, maxSide, timeoutMs] = [arguments[0], arguments[1], arguments[2]];
const done = arguments[arguments.length - 1];
function round(n, d) { return Math.floor((2 * n + d) / (2 * d)); }
function premultiply(c, a) { return Math.floor((2 * c * a + 255) / 510); }
async function decode(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error("HTTP " + response.status);
  const bitmap = await createImageBitmap(await response.blob(),
      {colorSpaceConversion: "default", premultiplyAlpha: "none"});
  const w = bitmap.width, h = bitmap.height;
  const canvas = new OffscreenCanvas(w, h);
  const ctx = canvas.getContext("2d", {colorSpace: "srgb", willReadFrequently: true});
  ctx.drawImage(bitmap, 0, 0);
  bitmap.close();
  const data = ctx.getImageData(0, 0, w, h, {colorSpace: "srgb"}).data;
  const cols = Math.min(maxSide, w), rows = Math.min(maxSide, h);
  const sums = new Float64Array(cols * rows * 5);
  const cx = new Int32Array(w);
  for (let x = 0; x < w; x++) cx[x] = Math.floor(x * cols / w);
  for (let y = 0; y < h; y++) {
    const cy = Math.floor(y * rows / h) * cols;
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4, c = (cy + cx[x]) * 5, a = data[i + 3];
      for (let k = 0; k < 3; k++) sums[c + k] += premultiply(data[i + k], a);
      sums[c + 3] += a; sums[c + 4] += 1;
    }
  }
  const out = new Uint8Array(cols * rows * 4);
  for (let c = 0; c < cols * rows; c++) {
    const n = sums[c * 5 + 4];
    for (let k = 0; k < 4; k++) out[c * 4 + k] = round(sums[c * 5 + k], n);
  }
  let binary = "";
  for (let i = 0; i < out.length; i++) binary += String.fromCharCode(out[i]);
  return {width: w, height: h, cols: cols, rows: rows, rgba: btoa(binary)};
}
function withTimeout(p) {
  return Promise.race([p, new Promise((_, reject) =>
      setTimeout(() => reject(new Error("timeout")), timeoutMs))]);
}
(async () => {
  const results = [];
  for (const url of urls) {
    try { results.push(await withTimeout(decode(url))); }
    catch (e) { results.push({error: String(e && e.message || e)}); }
  }
  done(results);
})();
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Handler(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)
            return
        super().do_GET()

    def log_message(self, *args):
        pass


def webdriver(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.load(response)["value"]


def rows_to_decode(only):
    with open(os.path.join(CORPUS, "MANIFEST.tsv"), encoding="utf-8") as f:
        lines = f.read().splitlines()[1:]
    paths = []
    for line in lines:
        cols = line.split("\t")
        if len(cols) >= 4 and cols[3] in DECODED and (only is None or only in cols[0]):
            paths.append(cols[0])
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default=OUT)
    parser.add_argument("--only")
    args = parser.parse_args()
    paths = rows_to_decode(args.only)

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=CORPUS))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"

    driver_port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={driver_port}", "--allowed-ips=127.0.0.1"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    profile = tempfile.mkdtemp(prefix="chromium-reference-")
    session = None
    try:
        for _ in range(100):
            try:
                webdriver(driver_port, "GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": "/usr/bin/chromium", "args": [
                "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--force-color-profile=srgb", f"--user-data-dir={profile}",
                "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-default-apps", "--disable-extensions",
                # Only the loopback server exists for this browser.
                "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            ]}}}}
        created = webdriver(driver_port, "POST", "/session", capabilities)
        session = created["sessionId"]
        version = created["capabilities"].get("browserVersion", "?")
        webdriver(driver_port, "POST", f"/session/{session}/timeouts", {"script": 600_000})
        webdriver(driver_port, "POST", f"/session/{session}/url", {"url": origin + "/"})

        lines = [json.dumps({"chromium": version, "maxSide": MAX_SIDE,
                             "decode": "createImageBitmap(colorSpaceConversion default, premultiplyAlpha none)"
                                       " + sRGB canvas getImageData",
                             "reduce": "box average of premultiplied RGBA, (2n+d)//2d"})]
        decoded = 0
        for start in range(0, len(paths), BATCH):
            batch = paths[start:start + BATCH]
            urls = [origin + "/" + urllib.request.pathname2url(p) for p in batch]
            results = webdriver(driver_port, "POST", f"/session/{session}/execute/async",
                                {"script": SCRIPT, "args": [urls, MAX_SIDE, 30_000]})
            for path, result in zip(batch, results):
                decoded += "error" not in result
                lines.append(json.dumps({"path": path, **result}, separators=(",", ":")))
            print(f"{start + len(batch)}/{len(paths)} files, {decoded} decoded", file=sys.stderr)
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {args.out}: {decoded} of {len(paths)} decoded by Chromium {version}", file=sys.stderr)
    finally:
        if session:
            try:
                webdriver(driver_port, "DELETE", f"/session/{session}")
            except OSError:
                pass
        driver.terminate()
        driver.wait(timeout=10)
        server.shutdown()


if __name__ == "__main__":
    main()
