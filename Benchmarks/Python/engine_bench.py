"""The `engine` rows of Benchmarks/compare: our whole proxy request against libvips' work alone.

imgproxy is libvips doing a fixed list of steps, one thread per image. These rows put our
whole request (HTTP in, fetch from nginx, decode, resample, encode, HTTP out) beside
libvips 8.18 (PyPI's pyvips-binary 8.18.7, the libvips imgproxy ships, in
`.build-bench/vips818-venv`) doing only the image work, with no HTTP, on one thread
(Benchmarks/Python/vips_engine.py), and Debian's 8.14 beside it for scale.

The source is the thumbnail test's 12 MP baseline JPEG (scripts/thumbnail-quality.py
`fixtures`), under 600 names on a private nginx so no two requests share a source; ours is
`webimage serve --no-cache` driven by wrk at 4 connections, CPU per request = the
server's user + system CPU ÷ requests (its cores busy printed). The shapes are the
thumbnail test's (fit 300, 500 and 1200 px boxes) and fit 673×500, all JPEG q80. Per
shape, three rows:

1. ours (libvips' shrink-on-load rule, the default) against libvips' `thumbnail` (the same
   rule and kernel: equal work): goal ≥ 1.3×, at ≥ its PSNR;
2. ours against libvips doing imgproxy's steps (imgproxy shrinks harder on load): ≥ 1.0×;
3. ours with `WEBIMAGE_SHRINK_ON_LOAD=imgproxy` (imgproxy's rule) against imgproxy's
   steps: ≥ 1.3× at ≥ its PSNR.

PSNR is each output's against the thumbnail test's reference: Pillow's full decode,
Lanczos-resized to that output's size (scripts/thumbnail-quality.py).

The two sides alternate, as the other sections' do: each round measures ours (every shape,
both rules) and then libvips (every shape, both versions), and each figure is the median
over the rounds. Measuring all of one side first let the machine's drift between the two
halves read as a ratio: on 2026-12-01 a full run's imgproxy-steps rows read 0.92–0.98×, with
our CPU per request as in the run before and libvips' 17–22 % lower, and the section run
alone minutes later read 0.97–1.05×.
"""

import importlib.util
import json
import statistics
import subprocess
import time
import urllib.request
from pathlib import Path

from http_load import Server, Side, free_port, tree_cpu, wrk
from report import Row
from serve_bench import b64url, link_copies

SHAPES = [(300, 300), (500, 500), (1200, 1200), (673, 500)]
ROWS = 3 * len(SHAPES)
VIPS_VENV = ".build-bench/vips818-venv/bin/python"


def shape_text(shape):
    return f"fit {shape[0]} px" if shape[0] == shape[1] else f"fit {shape[0]}×{shape[1]}"


class EngineBench:
    def __init__(self, root, shared, work_dir, webimage, smoke, rounds, no_peers, bench_python, log):
        self.root, self.shared, self.work = Path(root), Path(shared), Path(work_dir) / "engine"
        self.webimage, self.smoke, self.no_peers, self.log = webimage, smoke, no_peers, log
        self.rounds = 1 if smoke else (rounds or 2)
        self.seconds = 1 if smoke else 6
        self.count = 20 if smoke else 600
        self.iterations = 2 if smoke else 12
        self.bench_python = bench_python

    def works(self):
        for shape in SHAPES:
            base = f"12 MP baseline JPEG → {shape_text(shape)}, JPEG q80: our whole request (serve --no-cache, wrk c=4)"
            yield (f"{base} against libvips' thumbnail (same shrink-on-load rule and kernel), CPU per image",
                   "≥ 1.3× libvips 8.18 thumbnail, at ≥ its PSNR")
            yield f"{base} against libvips doing imgproxy's steps, CPU per image", "≥ 1.0× libvips 8.18 imgproxy steps"
            yield (f"{base.replace('serve --no-cache', 'serve --no-cache, WEBIMAGE_SHRINK_ON_LOAD=imgproxy')} "
                   f"against libvips doing imgproxy's steps, CPU per image",
                   "≥ 1.3× libvips 8.18 imgproxy steps, at ≥ its PSNR")

    def missing(self, reason):
        return [Row(work, "—", "—", "—", goal, f"not measured: {reason}") for work, goal in self.works()]

    def run(self):
        if self.webimage is None:
            return self.missing("webimage not built (swift build -c release --product webimage)")
        quality = self.load_quality()
        if quality is None:
            return self.missing("needs Pillow, numpy and pyvips (make -C Benchmarks venv)")
        self.work.mkdir(parents=True, exist_ok=True)
        source = self.work / "baseline.jpg"
        if not source.exists():
            quality.make_fixtures(str(self.shared), str(self.work))
        from nginx_origin import NginxOrigin
        names = link_copies([source], self.work / "root" / "engine", self.count)
        ours, samples, reason = {}, {}, None
        try:
            origin = NginxOrigin(self.work / "root", self.work / "nginx").start()
            try:
                for _ in range(self.rounds):
                    self.measure_ours(origin, names, ours)
                    if reason is None:
                        reason = self.measure_peers(source, samples)
            finally:
                origin.stop()
        except RuntimeError as error:
            return self.missing(str(error))
        peers = reason or self.peer_figures(samples)
        reference = quality.full_reference(str(source))
        return self.rows(ours, peers, quality, reference)

    def load_quality(self):
        try:
            spec = importlib.util.spec_from_file_location("thumbnail_quality",
                                                          self.root / "scripts" / "thumbnail-quality.py")
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
        except (SystemExit, ImportError):
            return None

    # MARK: ours

    def measure_ours(self, origin, names, results):
        """One round for both shrink-on-load rules, the sources `names` on `origin`, added to
        `results`: {(rule, shape): (Side, first output bytes)}."""
        for rule in ("libvips", "imgproxy"):
            port = free_port()
            env = {"WEBIMAGE_SHRINK_ON_LOAD": rule}
            server = Server(f"webimage serve ({rule} rule)",
                            ["env", *(f"{k}={v}" for k, v in env.items()), self.webimage, "serve", "--no-cache",
                             "--allow-private-addresses", "--host", "127.0.0.1", "--port", str(port)],
                            port, "/health", self.work / f"ours-{rule}.log").start()
            try:
                for shape in SHAPES:
                    paths = [f"/unsafe/rs:fit:{shape[0]}:{shape[1]}/q:80/{b64url(origin.base_url + '/engine/' + n)}.jpg"
                             for n in names]
                    first = self.fetch(server.base_url + paths[0])
                    if first is None:
                        raise RuntimeError(f"{server.label} did not answer a JPEG ({server.log_tail()})")
                    listing = self.work / f"paths-{rule}-{shape[0]}x{shape[1]}.txt"
                    listing.write_text("".join(p + "\n" for p in paths))
                    side, _ = results.setdefault((rule, shape), (Side(f"ours-{rule}"), first))
                    if not self.smoke:
                        wrk(server.base_url, listing, 4, 1)  # warm-up: connections, allocator
                    cpu = tree_cpu(server.process.pid)
                    start = time.monotonic()
                    report = wrk(server.base_url, listing, 4, self.seconds)
                    side.add(report, tree_cpu(server.process.pid) - cpu, time.monotonic() - start)
            finally:
                server.stop()

    @staticmethod
    def fetch(url):
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
                return data if response.status == 200 and data[:2] == b"\xff\xd8" else None
        except OSError:
            return None

    # MARK: libvips

    def measure_peers(self, source, samples):
        """One round of libvips, added to `samples`: {(version label, mode, shape): [report]};
        `None`, or why libvips 8.18 cannot be measured (then no round is)."""
        if self.no_peers:
            return "peers skipped (--no-peers)"
        pythons = [("8.18", self.root / VIPS_VENV)]
        if self.bench_python:
            pythons.append(("Debian", Path(self.bench_python)))
        for label, python in pythons:
            if not python.exists():
                if label == "8.18":
                    return "libvips 8.18 not installed (make -C Benchmarks venv: .build-bench/vips818-venv)"
                continue
            for mode in ("thumbnail", "imgproxy"):
                for shape in SHAPES:
                    done = subprocess.run([str(python), str(self.root / "Benchmarks/Python/vips_engine.py"), mode,
                                           str(shape[0]), str(shape[1]), str(self.iterations),
                                           str(self.peer_output(label, mode, shape)), str(source)],
                                          capture_output=True, text=True)
                    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
                    if done.returncode != 0 or not lines:
                        if label == "8.18":
                            return f"vips_engine.py failed: {(done.stderr.strip() or 'no output')[-120:]}"
                        continue  # Debian's libvips is only for scale: its row text leaves it out
                    samples.setdefault((label, mode, shape), []).append(json.loads(lines[-1]))
        return None

    def peer_output(self, label, mode, shape):
        return self.work / f"vips-{label}-{mode}-{shape[0]}x{shape[1]}.jpg"

    def peer_figures(self, samples):
        """{(version label, mode, shape): {"cpu", "version", "output"}}: each median over the rounds."""
        return {key: {"cpu": statistics.median(s["cpu"] for s in reports), "version": reports[0]["version"],
                      "output": self.peer_output(*key).read_bytes()}
                for key, reports in samples.items()}

    # MARK: rows

    @staticmethod
    def psnr(quality, reference, jpeg):
        import io
        import numpy as np
        from PIL import Image
        image = Image.open(io.BytesIO(jpeg)).convert("RGB")
        expected = np.asarray(reference.resize(image.size, Image.Resampling.LANCZOS))
        return quality.psnr(np.asarray(image), expected), image.size

    def rows(self, ours, peers, quality, reference):
        rows = []
        works = iter(self.works())
        for shape in SHAPES:
            for rule, mode, goal_ratio, needs_psnr in (("libvips", "thumbnail", 1.3, True),
                                                       ("libvips", "imgproxy", 1.0, False),
                                                       ("imgproxy", "imgproxy", 1.3, True)):
                work, goal = next(works)
                side, output = ours[(rule, shape)]
                if side.reason or side.cpu is None:
                    rows.append(Row(work, "—", "—", "—", goal, f"not measured: {side.reason or 'no CPU figure'}"))
                    continue
                ours_db, ours_size = self.psnr(quality, reference, output)
                ours_text = (f"{side.cpu * 1e3:.1f} ms CPU per request at {ours_db:.2f} dB ({ours_size[0]}×{ours_size[1]}, "
                             f"{side.cores_busy:.2f} of 2 cores busy)")
                if isinstance(peers, str):
                    rows.append(Row(work, ours_text, "—", "—", goal, f"not measured: {peers}"))
                    continue
                peer = peers.get(("8.18", mode, shape))
                if peer is None:
                    rows.append(Row(work, ours_text, "—", "—", goal, "not measured: libvips 8.18 gave no figure"))
                    continue
                peer_db, _ = self.psnr(quality, reference, peer["output"])
                name = "thumbnail" if mode == "thumbnail" else "imgproxy's steps"
                peer_text = f"libvips {peer['version']} {name}, one thread: {peer['cpu'] * 1e3:.1f} ms at {peer_db:.2f} dB"
                debian = peers.get(("Debian", mode, shape))
                if debian:
                    peer_text += f" (Debian's {debian['version']}: {debian['cpu'] * 1e3:.1f} ms)"
                ratio = peer["cpu"] / side.cpu
                passed = ratio >= goal_ratio and (not needs_psnr or ours_db >= peer_db)
                rows.append(Row(work, ours_text, peer_text, f"{ratio:.2f}×", goal, "pass" if passed else "FAIL"))
        return rows
