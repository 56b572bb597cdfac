"""Load-testing parts of the serve rows: a server as a child process tree with its memory
and CPU, wrk runs with `wrk_paths.lua`, and the format and size of an answer.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from bulk_peer import pss

LUA = Path(__file__).resolve().parent / "wrk_paths.lua"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tree(root):
    """{pid: (rss bytes, cpu seconds)} of `root` and its descendants, from /proc."""
    children, stats = {}, {}
    page, tick = os.sysconf("SC_PAGE_SIZE"), os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            stats[int(entry)] = (int(fields[21]) * page, (int(fields[11]) + int(fields[12])) / tick)
            children.setdefault(int(fields[1]), []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    found, stack = {}, [root]
    while stack:
        pid = stack.pop()
        found[pid] = stats.get(pid, (0, 0.0))
        stack += children.get(pid, [])
    return found


def tree_memory(root):
    """(summed PSS, summed RSS) in bytes of `root` and its descendants."""
    found = tree(root)
    return sum(pss(pid, rss) for pid, (rss, _) in found.items()), sum(rss for rss, _ in found.values())


def tree_cpu(root):
    """User + system CPU seconds of `root` and its live descendants so far."""
    return sum(cpu for _, cpu in tree(root).values())


def image_size(data):
    """("jpeg" or "gif", width, height) of an answer, or None when it is neither."""
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return "gif", int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        length = int.from_bytes(data[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return "jpeg", int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + length
    return None


def fetch_image(url):
    """GET `url`; the answer's ``image_size``, or None when it is not a 200 JPEG or GIF."""
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return image_size(response.read()) if response.status == 200 else None
    except (OSError, urllib.error.URLError):
        return None


class Server:
    """One proxy as a child process tree in its own process group (so thumbor's forked
    workers end with it), with a memory sampler that runs while a measurement does."""

    def __init__(self, label, command, port, health, log_path, env=None):
        """`env`: variables set for the process on top of this one's."""
        self.label, self.command, self.port, self.health = label, command, port, health
        self.env = {**os.environ, **env} if env else None
        self.log_path = Path(log_path)
        self.process = None
        self.peak_pss = self.peak_rss = 0
        self._sampling = None

    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout=30):
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(self.command, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.label} exited ({self.process.returncode}): {self.log_tail()}")
            try:
                with urllib.request.urlopen(self.base_url + self.health, timeout=1) as response:
                    if response.status == 200:
                        return self
            except (OSError, urllib.error.URLError):
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"{self.label} did not answer {self.health} within {timeout} s")

    def log_tail(self):
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "no log"
        # The error line, not the usage hint an argument parser prints after it.
        errors = [line for line in lines if "error" in line.lower()]
        return ((errors or lines) or ["no output"])[-1].strip()[:140]

    def sample(self):
        """Starts sampling memory; call the returned function to stop."""
        stop = threading.Event()

        def loop():
            while not stop.is_set():
                p, r = tree_memory(self.process.pid)
                self.peak_pss, self.peak_rss = max(self.peak_pss, p), max(self.peak_rss, r)
                stop.wait(0.1)
        thread = threading.Thread(target=loop, daemon=True)
        thread.start()

        def finish():
            stop.set()
            thread.join()
        return finish

    def stop(self):
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None


class Side:
    """One side of the serve rows: wrk results over all rounds, or why it has none."""

    def __init__(self, label):
        self.label = label
        self.rates, self.p50s, self.p99s, self.cpu_per_request, self.busy = [], [], [], [], []
        self.requests = self.failed = 0
        self.reason = None

    def add(self, report, cpu_seconds=None, wall_seconds=None):
        """One wrk report; `cpu_seconds` is what the server's process trees spent meanwhile,
        over `wall_seconds` (cores busy = the ratio)."""
        if "notMeasured" in report:
            self.reason = report["notMeasured"]
            return
        failed = report["connect"] + report["read"] + report["write"] + report["status"] + report["timeout"]
        self.requests += report["requests"]
        self.failed += failed
        if failed > 0.01 * max(1, report["requests"]):
            self.reason = f"{failed} of {report['requests']} requests failed"
            return
        self.rates.append(report["requests"] / (report["duration_us"] / 1e6))
        self.p50s.append(report["p50_us"] / 1e6)
        self.p99s.append(report["p99_us"] / 1e6)
        if cpu_seconds is not None and report["requests"]:
            self.cpu_per_request.append(cpu_seconds / report["requests"])
        if cpu_seconds is not None and wall_seconds:
            self.busy.append(cpu_seconds / wall_seconds)

    @staticmethod
    def median(values):
        return sorted(values)[len(values) // 2] if values else None

    @property
    def rate(self):
        return self.median(self.rates)

    @property
    def p50(self):
        return self.median(self.p50s)

    @property
    def p99(self):
        return self.median(self.p99s)

    @property
    def cores_busy(self):
        """Median cores kept busy (CPU ÷ wall) over the runs, or None."""
        return self.median(self.busy)

    @property
    def cpu(self):
        """Median CPU seconds per request, or None."""
        return self.median(self.cpu_per_request)


def wrk(base_url, paths_file, concurrency, seconds):
    """One wrk run; its JSON summary, or a not-measured report."""
    binary = shutil.which("wrk")
    if binary is None:
        return {"notMeasured": "wrk not installed (make -C Benchmarks deps)"}
    threads = min(2, concurrency)
    command = [binary, "-t", str(threads), "-c", str(concurrency), "-d", f"{seconds}s", "--timeout", "30s",
               "-s", str(LUA), base_url, "--", str(paths_file), str(threads)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=seconds + 90)
    except subprocess.TimeoutExpired:
        return {"notMeasured": "wrk did not finish"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"notMeasured": f"wrk failed: {(done.stderr.strip().splitlines() or ['no output'])[-1][:120]}"}
    return json.loads(lines[-1])
