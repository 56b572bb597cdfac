"""The serve rows of `Benchmarks/compare`: `webimage serve` against thumbor 7.8 over HTTP.

Both proxies fetch their sources from one private nginx on 127.0.0.1 and are driven by
`wrk` with `wrk_paths.lua`, which gives every request the next URL of a list, so no two
requests share a source or an output. Ours is `webimage serve --no-cache` (release
build). thumbor runs as its users run it on a whole machine: one single-process instance
per core, each on its own port, no storage and no result storage (its `thumbor.conf` is
written here), the load split evenly (one wrk per instance, each with its share of the
connections and of the URLs). `thumbor --processes N` on one port is not used: its forked
workers race to accept wrk's keep-alive connections and one often takes them all, so
thumbor would run on one core. Each side's cores busy (user+sys CPU of its process trees
÷ wall time) is printed; a row where either side kept less than 1.5 of 2 cores busy says
so instead of giving a ratio. Memory is the peak of the process tree's
summed PSS (RSS with shared pages split among their sharers, so thumbor's forked
workers are not counted twice), sampled every 100 ms while that side runs; the summed
RSS is shown beside it.

One more row is ours against ours: the same binary with OpenTelemetry export on (every
request traced, `IMGPROXY_OPEN_TELEMETRY_ENABLE=1`, OTLP/HTTP to a loopback receiver,
otlp_sink.py) and off, on the 12 MP set at c=16, alternating in each round: what tracing
costs an operator who turns it on. With `WEBIMAGE_TOOL_BASELINE` naming a build without the
OpenTelemetry trait (`make demo`'s), that build takes turns too, and the row adds what
having the export compiled in, but off, costs.
"""

import base64
import os
import shutil
import time
from pathlib import Path

import threading

from http_load import Server, Side, fetch_image, free_port, tree_cpu, wrk
from report import Row

THUMBOR_CONF = """\
# Written by Benchmarks/Python/serve_bench.py: thumbor as a plain resizing proxy.
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
ENGINE = 'thumbor.engines.pil'
ALLOW_UNSAFE_URL = True
QUALITY = 80
AUTO_WEBP = False
RESPECT_ORIENTATION = False
PRESERVE_EXIF_INFO = False
HTTP_LOADER_MAX_CLIENTS = 64
"""


def format_bytes(count):
    return f"{count / 1048576:.1f} MB" if count >= 1 << 20 else f"{max(1, round(count / 1024))} KB"


def rate_text(side, cores):
    """A side's req/s, with its requests, CPU per request and cores busy when known."""
    if not side.rate:
        return "—"
    cpu = f", {side.cpu * 1e3:.0f} ms CPU each" if side.cpu is not None else ""
    busy = f", {side.cores_busy:.2f} of {cores} cores busy" if side.cores_busy is not None else ""
    return f"{side.rate:.1f} req/s ({side.requests} requests{cpu}{busy})"


def b64url(text):
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def output_format(source_url):
    """What both sides are asked for: GIF from a GIF (thumbor keeps GIF sources GIF
    whatever `format()` says), JPEG from everything else."""
    return "gif" if source_url.endswith(".gif") else "jpeg"


def ours_path(source_url, width, height):
    """imgproxy grammar (DESIGN.md "serve"): fit into the box, q80, format by extension."""
    extension = "gif" if output_format(source_url) == "gif" else "jpg"
    return f"/unsafe/rs:fit:{width}:{height}/q:80/{b64url(source_url)}.{extension}"


def thumbor_path(source_url, width, height):
    """thumbor's fit-in (no enlarging, like rs:fit), q80, the same format as ours."""
    return (f"/unsafe/fit-in/{width}x{height}/filters:quality(80):format({output_format(source_url)})/"
            f"{source_url.split('://', 1)[1]}")


def link_copies(sources, folder, count, suffix_of=lambda p: Path(p).suffix.lower()):
    """`count` hard links (copies where linking fails) cycling through `sources`, named
    00000.ext …, so every URL is distinct while the disk holds each file once."""
    folder.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(count):
        source = Path(sources[i % len(sources)])
        name = f"{i:05d}{suffix_of(source)}"
        target = folder / name
        if target.exists() and not os.path.samefile(source, target):
            target.unlink()  # left by a run with other sources
        if not target.exists():
            try:
                os.link(source, target)
            except OSError:
                shutil.copyfile(source, target)
        names.append(name)
    return names


def big_variants(shared, out_dir, log):
    """4032×3024 JPEGs of about 2.5 MB: two real corpus photos re-encoded without their
    EXIF orientation (so both proxies do the same work), and their mirror images. With
    the standard library only (the smoke run), the first photo as it is."""
    sources = [shared / "jpeg/sdwebimage/TestJFIF.jpg", shared / "jpeg/large/dog_exif_extended_xmp_icc.jpg"]
    sources = [s for s in sources if s.is_file()]
    try:
        from PIL import Image, ImageOps
    except ImportError:
        return sources[:1]
    out_dir.mkdir(parents=True, exist_ok=True)
    made = []
    for i, source in enumerate(sources):
        with Image.open(source) as image:
            pixels = image.convert("RGB").resize((4032, 3024))
        for j, variant in enumerate((pixels, ImageOps.mirror(pixels))):
            target = out_dir / f"big-{i}{j}.jpg"
            if not target.exists():
                log(f"serve: encoding {target.name}")
                # The quality that lands closest to 2.5 MB: the size the issue names.
                best = None
                for quality in (95, 92, 89, 86, 83, 80):
                    variant.save(target, "JPEG", quality=quality, subsampling="4:2:0")
                    size = target.stat().st_size
                    if best is None or abs(size - 2_500_000) < abs(best[1] - 2_500_000):
                        best = (quality, size)
                    if size <= 2_500_000:
                        break
                variant.save(target, "JPEG", quality=best[0], subsampling="4:2:0")
            made.append(target)
    return made


def still_gifs(shared, out_dir, log):
    """Single-frame GIFs: two small real ones, and (with Pillow) a corpus photo quantized
    to 256 colours at 640×480 and 1600×1200."""
    real = [shared / "gif/pillow/hopper_zero_comment_subblocks.gif", shared / "gif/image-gif/alpha_gif_a.gif"]
    made = [p for p in real if p.is_file()]
    photo = shared / "jpeg/sdwebimage/TestJFIF.jpg"
    try:
        from PIL import Image
    except ImportError:
        return made
    if not photo.is_file():
        return made
    out_dir.mkdir(parents=True, exist_ok=True)
    for size in ((640, 480), (1600, 1200)):
        target = out_dir / f"still-{size[0]}x{size[1]}.gif"
        if not target.exists():
            log(f"serve: encoding {target.name}")
            with Image.open(photo) as image:
                image.convert("RGB").resize(size).quantize(256).save(target, "GIF")
        made.append(target)
    return made


class ServeBench:
    """Runs the serve section and returns its rows (``ROWS`` of them, always)."""

    ROWS = 7
    BIG_BOX = 500
    MIXED_BOXES = [(160, 160), (320, 240), (500, 500), (800, 600)]

    def __init__(self, work_dir, shared, corpus, webimage, thumbor, smoke, rounds, log, skip_peer=None):
        """`webimage` and `thumbor` are the executables (None when missing); `skip_peer`
        says why thumbor does not run at all (`--no-peers`)."""
        self.work_dir = Path(work_dir) / "serve"
        self.shared, self.corpus, self.webimage, self.thumbor = Path(shared), corpus, webimage, thumbor
        self.peer_reason = skip_peer
        self.smoke, self.log = smoke, log
        self.rounds = 1 if smoke else (rounds or 2)
        self.seconds = 1 if smoke else 10
        self.count = 60 if smoke else 4000
        self.cores = os.cpu_count() or 1

    # MARK: inputs

    def big_sizes(self, i):
        """Boxes around 500×500, different for neighbouring requests."""
        return self.BIG_BOX - 60 + (i * 37) % 121, self.BIG_BOX - 60 + (i * 53) % 121

    def mixed_sources(self):
        """Small and large JPEG, PNG, WebP and still GIF files (generated and real), a few of
        each from smallest to largest. Animated GIFs are left out: thumbor answers them with
        a resized animation whatever format it is asked for, which is other work."""
        picks = []
        for key in ("small", "photos", "png", "webp"):
            files = sorted(self.corpus.get(key, []), key=lambda p: os.path.getsize(p))
            if files:
                step = max(1, len(files) // 4)
                picks += files[::step][:4] + ([files[-1]] if files[-1] not in files[::step][:4] else [])
        return picks + still_gifs(self.shared, self.work_dir / "variants", self.log)

    def write_paths(self, name, paths):
        target = self.work_dir / name
        target.write_text("".join(p + "\n" for p in paths))
        return target

    # MARK: the run

    def run(self):
        big = {4: (Side("ours"), Side("thumbor")), 16: (Side("ours"), Side("thumbor"))}
        mixed = (Side("ours"), Side("thumbor"))
        cached = Side("ours")
        traced = (Side("tracing on"), Side("tracing off"), Side("built without it"))
        memory = {}
        notes = {"mixed": 0}
        self.origin, self.servers, self.sink = None, {}, None
        try:
            self.start()
            self.measure(self.origin, self.servers, big, mixed, cached, memory, notes, traced)
        except RuntimeError as error:
            for side in [s for pair in list(big.values()) + [mixed, traced] for s in pair] + [cached]:
                side.reason = side.reason or str(error)
        finally:
            for server in self.servers.values():
                server.stop()
            if self.origin:
                self.origin.stop()
            if self.sink:
                notes["exports"] = self.sink.received()
                self.sink.stop()
        return self.rows(big, mixed, cached, memory, notes) + [self.tracing_row(*traced, notes)]

    def start(self):
        """Links the sources, starts nginx and both proxies (kept in self.origin and
        self.servers, so run() stops whatever did start)."""
        from nginx_origin import NginxOrigin
        if self.webimage is None:
            raise RuntimeError("webimage not built (swift build -c release --product webimage)")
        root = self.work_dir / "root"
        self.big_names = link_copies(big_variants(self.shared, self.work_dir / "variants", self.log),
                                     root / "big", self.count)
        if not self.big_names:
            raise RuntimeError("no 12 MP source (is Tests/Fixtures/corpus there?)")
        self.mixed = self.mixed_sources()
        self.mixed_names = link_copies(self.mixed, root / "mixed", self.count)
        self.origin = NginxOrigin(root, self.work_dir / "nginx").start()
        self.servers["ours"] = self.ours("ours", "webimage serve", self.webimage, ["--no-cache"]).start()
        from otlp_sink import OTLPSink
        self.sink = OTLPSink().start()
        # A build without the OpenTelemetry trait refuses the setting: the row says so.
        self.tracing_reason = self.start_optional("ours-traced", self.ours(
            "ours-traced", "webimage serve (OpenTelemetry on)", self.webimage, ["--no-cache"],
            env={"IMGPROXY_OPEN_TELEMETRY_ENABLE": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": self.sink.endpoint,
                 "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_SERVICE_NAME": "webimage-bench"}))
        baseline = os.environ.get("WEBIMAGE_TOOL_BASELINE")
        self.baseline_reason = (self.start_optional("ours-baseline", self.ours(
            "ours-baseline", "webimage serve (built without OpenTelemetry)", baseline, ["--no-cache"]))
            if baseline else "no build without the trait named (WEBIMAGE_TOOL_BASELINE)")
        if self.peer_reason is None and (self.thumbor is None or not os.access(self.thumbor, os.X_OK)):
            self.peer_reason = "thumbor not installed (make -C Benchmarks venv)"
        if self.peer_reason is None:
            conf = self.work_dir / "thumbor.conf"
            conf.write_text(THUMBOR_CONF)
            try:
                for n in range(self.cores):
                    port = free_port()
                    self.servers[f"thumbor-{n}"] = Server(
                        f"thumbor #{n}", [self.thumbor, "-i", "127.0.0.1", "-p", str(port), "-c", str(conf),
                                          "--processes", "1", "-l", "error"],
                        port, "/healthcheck", self.work_dir / f"thumbor-{n}.log").start()
            except RuntimeError as error:
                self.peer_reason = str(error)

    def ours(self, name, label, binary, extra, env=None):
        """`webimage serve` from `binary` on a free loopback port (not started), sources on
        private addresses allowed, logging to `name`.log."""
        port = free_port()
        return Server(label, [binary, "serve", "--allow-private-addresses", "--host", "127.0.0.1",
                              "--port", str(port), *extra],
                      port, "/health", self.work_dir / f"{name}.log", env=env)

    def start_optional(self, name, server):
        """Starts `server` as self.servers[name]; why not, when it did not start."""
        try:
            self.servers[name] = server.start()
        except RuntimeError as error:
            return str(error)
        return None

    def urls(self, origin, folder, names, sizes, builder):
        return [builder(f"{origin.base_url}/{folder}/{name}", *sizes(i)) for i, name in enumerate(names)]

    def check(self, server, paths, sizes, sources):
        """Every listed path once; the indices whose answer has the format asked for and
        fits its box."""
        good = []
        for i, path in enumerate(paths):
            got = fetch_image(server.base_url + path)
            w, h = sizes(i)
            if got and got[0] == output_format(sources[i]) and got[1] <= w and got[2] <= h:
                good.append(i)
            else:
                self.log(f"serve: {server.label} answered {got or 'no image'} for a {w}×{h} box: {path[:120]}")
        return good

    def groups(self):
        """(label, servers, URL builder) per side: ours, and thumbor's instances."""
        sides = [("ours", [self.servers["ours"]], ours_path)]
        thumbors = [server for name, server in sorted(self.servers.items()) if name.startswith("thumbor")]
        if thumbors:
            sides.append(("thumbor", thumbors, thumbor_path))
        return sides

    def load(self, label, servers, paths, concurrency, seconds):
        """Drives `servers` together for `seconds`: one wrk per server with its share of the
        connections and of the URLs (every n-th). Returns (merged wrk report, CPU seconds
        the servers' process trees spent, wall seconds)."""
        n = len(servers)
        shares = [concurrency // n + (1 if i < concurrency % n else 0) for i in range(n)]
        files = [self.write_paths(f"{label}-part{i}.txt", paths[i::n]) for i in range(n)]
        reports = [None] * n
        cpu = sum(tree_cpu(server.process.pid) for server in servers)
        start = time.monotonic()

        def run(i):
            reports[i] = wrk(servers[i].base_url, files[i], max(1, shares[i]), seconds)
        threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.monotonic() - start
        spent = sum(tree_cpu(server.process.pid) for server in servers) - cpu
        for report in reports:
            if "notMeasured" in report:
                return report, spent, wall
        merged = {key: sum(r[key] for r in reports) for key in
                  ("requests", "bytes", "connect", "read", "write", "status", "timeout")}
        merged["duration_us"] = max(r["duration_us"] for r in reports)
        merged["p50_us"] = max(r["p50_us"] for r in reports)
        merged["p99_us"] = max(r["p99_us"] for r in reports)
        return merged, spent, wall

    def sampling(self, servers):
        """Starts sampling the memory of every server; call the result to stop."""
        stops = [server.sample() for server in servers]
        return lambda: [stop() for stop in stops]

    tracing_reason = None
    baseline_reason = None

    def measure(self, origin, servers, big, mixed, cached, memory, notes, traced):
        sides = self.groups()
        if len(sides) < 2:
            for pair in list(big.values()) + [mixed]:
                pair[1].reason = self.peer_reason
        # The 12 MP set first, so its memory peak is its own (no mixed source seen yet).
        self.measure_big(origin, sides, big)
        memory.update({label: (sum(s.peak_pss for s in group), sum(s.peak_rss for s in group))
                       for label, group, _ in sides})
        self.measure_mixed(origin, sides, mixed, notes)
        self.measure_tracing(origin, traced)
        self.servers["ours"].stop()
        self.measure_cached(origin, cached)

    @staticmethod
    def rotated(sides, r):
        """`sides` with who goes first alternating between rounds."""
        return sides[r % len(sides):] + sides[:r % len(sides)]

    def measure_big(self, origin, sides, big):
        """Both 12 MP rows: a sample URL per side must come back as a JPEG within its box;
        a warm-up; then c=4 and c=16 in each round, memory sampled."""
        paths = {label: self.urls(origin, "big", self.big_names, self.big_sizes, builder) for label, _, builder in sides}
        for label, group, builder in sides:
            sample = builder(f"{origin.base_url}/big/{self.big_names[0]}", *self.big_sizes(0))
            for server in group:
                if not self.check(server, [sample], self.big_sizes, [self.big_names[0]]):
                    for pair in big.values():
                        pair[0 if label == "ours" else 1].reason = \
                            f"{server.label} did not answer a resized JPEG ({server.log_tail()})"
        for label, group, _ in sides:  # unmeasured: connection pools, allocators
            self.load(label, group, paths[label], 4, 1 if self.smoke else 2)
        for r in range(self.rounds):
            for concurrency, pair in big.items():
                for label, group, _ in self.rotated(sides, r):
                    side = pair[0] if label == "ours" else pair[1]
                    if side.reason is None:
                        finish = self.sampling(group)
                        report, cpu, wall = self.load(label, group, paths[label], concurrency, self.seconds)
                        side.add(report, cpu, wall)
                        finish()

    def measure_mixed(self, origin, sides, mixed, notes):
        """The mixed row: only sources both sides turn into what was asked (a source either
        refuses is dropped from both, and counted in the row's text)."""
        boxes = self.MIXED_BOXES
        sources = len(self.mixed)
        first = self.mixed_names[:sources]  # each source once

        def box(i):
            return boxes[i % len(boxes)]
        keep = set(range(sources))
        for label, group, builder in sides:
            keep &= set(self.check(group[0], self.urls(origin, "mixed", first, box, builder), box, first))
        notes["mixed"], notes["mixed_total"] = len(keep), sources
        sizes = sorted(os.path.getsize(p) for i, p in enumerate(self.mixed) if i in keep)
        notes["mixed_bytes"] = f"{format_bytes(sizes[0])}–{format_bytes(sizes[-1])}" if sizes else "—"
        if not keep:
            for side in mixed:
                side.reason = "no mixed source that both sides serve"
            return
        kept = [n for i, n in enumerate(self.mixed_names) if i % sources in keep]
        paths = {label: self.urls(origin, "mixed", kept, box, builder) for label, _, builder in sides}
        for r in range(self.rounds):
            for label, group, _ in self.rotated(sides, r):
                side = mixed[0] if label == "ours" else mixed[1]
                if side.reason is None:
                    report, cpu, wall = self.load(label, group, paths[label], 16, self.seconds)
                    side.add(report, cpu, wall)

    def measure_tracing(self, origin, traced):
        """Ours with OpenTelemetry on against ours with it off: the same binary, the same
        12 MP requests at c=16, taking turns in each round (after a warm-up of each)."""
        on, off, baseline = traced
        if self.tracing_reason or "ours-traced" not in self.servers:
            on.reason = off.reason = baseline.reason = self.tracing_reason or "not started"
            return
        pairs = [(on, self.servers["ours-traced"]), (off, self.servers["ours"])]
        if "ours-baseline" in self.servers:
            pairs.append((baseline, self.servers["ours-baseline"]))
        else:
            baseline.reason = self.baseline_reason or "not started"
        paths = self.urls(origin, "big", self.big_names, self.big_sizes, ours_path)
        for side, server in pairs:
            self.load(side.label, [server], paths, 4, 1 if self.smoke else 2)
        for r in range(self.rounds):
            for side, server in self.rotated(pairs, r):
                report, cpu, wall = self.load(side.label, [server], paths, 16, self.seconds)
                side.add(report, cpu, wall)
        self.servers.pop("ours-traced").stop()
        if "ours-baseline" in self.servers:
            self.servers.pop("ours-baseline").stop()

    def measure_cached(self, origin, cached):
        """A second server with its caches on: one URL asked once to fill them, then again
        and again by one connection; the p99 of those repeats."""
        cache_dir = self.work_dir / "cache"
        shutil.rmtree(cache_dir, ignore_errors=True)
        server = self.ours("cached", "webimage serve (caches on)", self.webimage, ["--cache-dir", str(cache_dir)])
        try:
            server.start()
        except RuntimeError as error:
            cached.reason = str(error)
            return
        try:
            path = ours_path(f"{origin.base_url}/big/{self.big_names[0]}", self.BIG_BOX, self.BIG_BOX)
            if not fetch_image(server.base_url + path):
                cached.reason = f"the first request failed ({server.log_tail()})"
                return
            for _ in range(self.rounds):
                cpu, start = tree_cpu(server.process.pid), time.monotonic()
                report = wrk(server.base_url, self.write_paths("cached.txt", [path]), 4, self.seconds)
                cached.add(report, tree_cpu(server.process.pid) - cpu, time.monotonic() - start)
        finally:
            server.stop()

    def decode_scales(self):
        """{n: share of the requests} for the DCT scale 1/n our decoder picks for each 12 MP
        request's box: libvips' rule (JPEGDecodePlan), n = 8, 4, 2 when the shrink from the
        source to the fitted size is at least 16, 8, 4 (else 1)."""
        counts = {}
        for i in range(self.count):
            w, h = self.big_sizes(i)
            scale = min(w / 4032, h / 3024)
            target_w, target_h = max(1, round(4032 * scale)), max(1, round(3024 * scale))
            shrink = min(4032 / target_w, 3024 / target_h)
            n = 8 if shrink >= 16 else 4 if shrink >= 8 else 2 if shrink >= 4 else 1
            counts[n] = counts.get(n, 0) + 1
        return {n: c / self.count for n, c in sorted(counts.items())}

    def decode_floor(self):
        """libjpeg-turbo's own decode of the 12 MP sources at the scale we decode each request
        at (``decode_scales``), weighted by how often each scale comes up: (CPU seconds per
        decode, the mix as text) from PyTurboJPEG; None without it."""
        try:
            from turbojpeg import TurboJPEG
        except ImportError:
            return None
        jpeg = TurboJPEG()
        files = sorted(set(self.big_names))[:4]
        data = [(self.work_dir / "root" / "big" / name).read_bytes() for name in files]
        rounds = 2 if self.smoke else 10
        floor, parts = 0.0, []
        for n, share in self.decode_scales().items():
            for d in data:
                jpeg.decode(d, scaling_factor=(1, n))
            start = time.process_time()
            for _ in range(rounds):
                for d in data:
                    jpeg.decode(d, scaling_factor=(1, n))
            seconds = (time.process_time() - start) / (rounds * len(data))
            floor += share * seconds
            parts.append(f"1/{n} {seconds * 1e3:.1f} ms × {share:.0%}")
        return floor, ", ".join(parts)

    # MARK: rows

    def rows(self, big, mixed, cached, memory, notes):
        big_work = (f"4032×3024 JPEGs (~2.5 MB) under {self.count} names from local nginx → fit 440–560 px "
                    f"boxes, JPEG q80, serve --no-cache")
        peer_label = f"thumbor 7.8 ({self.cores} single-process instances, load split)"
        rows = [self.rate_row(f"{big_work}, wrk c={c}", *big[c], peer_label, 1.4, self.cores) for c in (4, 16)]
        rows.append(self.floor_row(big_work, big[4][0], self.decode_floor()))
        rows.append(self.memory_row(big_work + ", peak memory (PSS summed over processes; RSS in brackets)",
                                    big[4][0], big[4][1], memory, peer_label))
        total = notes.get("mixed_total", 0)
        mixed_work = (f"mixed set: {notes['mixed']} of {total} JPEG/PNG/WebP/GIF sources "
                      f"({notes.get('mixed_bytes', '—')}) × 4 boxes 160–800 px → JPEG q80 (GIF → GIF), wrk c=16")
        rows.append(self.rate_row(mixed_work, *mixed, peer_label, 2.5, self.cores))
        verdict = Row._missing(cached)
        p99, cpu = cached.p99, cached.cpu
        if verdict is None and cpu is None:
            verdict = "not measured: no CPU figure"
        elif verdict is None:
            verdict = "pass" if p99 <= 0.001 and cpu <= 0.00025 else "FAIL"
        ours_text = "—"
        if p99 is not None:
            ours_text = f"p99 {p99 * 1e3:.2f} ms (p50 {cached.p50 * 1e3:.2f} ms)"
            if cpu is not None:
                ours_text += f", {cpu * 1e6:.0f} µs CPU per request, {cached.cores_busy:.2f} of {self.cores} cores busy"
        rows.append(Row("cached result: one URL repeated (serve with its caches on), wrk c=4, p99 latency and CPU "
                        "per request (wrk on the same cores)", ours_text, "—", "—", "p99 ≤ 1 ms, ≤ 0.25 ms CPU", verdict))
        return rows

    @staticmethod
    def rate_row(work, ours, peer, peer_label, goal, cores):
        """Requests per second, with each side's cores busy; no ratio unless both sides kept
        at least 1.5 of 2 cores (0.75 of the machine) busy."""
        def text(side):
            return rate_text(side, cores)
        verdict, ratio = Row._missing(ours, peer), "—"
        if verdict is None:
            floor = 0.75 * cores
            idle = [(name, side.cores_busy) for name, side in (("ours", ours), ("thumbor", peer))
                    if side.cores_busy is not None and side.cores_busy < floor]
            if idle:
                verdict = "not comparable: " + ", ".join(f"{name} used {busy:.2f} of {cores} cores" for name, busy in idle)
            else:
                ratio = f"{ours.rate / peer.rate:.2f}×"
                verdict = "pass" if ours.rate >= goal * peer.rate else "FAIL"
        peer_text = f"{peer_label}: " + (f"not measured ({peer.reason})" if peer.reason else text(peer))
        return Row(work, text(ours), peer_text, ratio, f"≥ {goal}× thumbor's req/s", verdict)

    def tracing_row(self, on, off, baseline, notes):
        """What OpenTelemetry costs when it is on: its req/s over the same binary's with it
        off (same run). The ratio is the finding ("info"); FAIL when no span arrived."""
        def text(side):
            return rate_text(side, self.cores)
        exports, size = notes.get("exports", (0, 0))
        verdict, ratio = Row._missing(on, off), "—"
        if verdict is None:
            ratio = f"{on.rate / off.rate:.2f}×"
            verdict = "info" if exports else "FAIL"
        ours_text = text(on) + (f"; {exports} OTLP exports, {format_bytes(size)} of spans received" if exports
                                else "; no trace export arrived")
        peer_text = "the same serve with it off: " + text(off) + "; built without the trait: " + (
            text(baseline) if baseline.rate else f"not measured ({baseline.reason})")
        if baseline.rate and off.rate:
            ratio += f" (off vs built without it: {off.rate / baseline.rate:.2f}×)"
        return Row("4032×3024 JPEGs → fit 440–560 px, serve --no-cache, wrk c=16: OpenTelemetry on (every request "
                   "traced, OTLP/HTTP to a loopback receiver) vs off, same binary, turns in one run",
                   ours_text, peer_text, ratio, "says what tracing costs", verdict)

    @staticmethod
    def floor_row(work, ours, floor):
        """Our CPU per request against libjpeg-turbo's own decode of the same files at the
        scale we decode each request at (#36: ≤ 1.1× it)."""
        verdict = Row._missing(ours)
        ours_text = f"{ours.cpu * 1e3:.1f} ms CPU per request" if ours.cpu is not None else "—"
        floor_text = (f"PyTurboJPEG decode at our scales ({floor[1]}): {floor[0] * 1e3:.1f} ms CPU" if floor is not None
                      else "PyTurboJPEG: not installed")
        ratio = "—"
        if verdict is None and (ours.cpu is None or floor is None):
            verdict = "not measured: no CPU figure"
        elif verdict is None:
            ratio = f"{ours.cpu / floor[0]:.2f}× the floor"
            verdict = "pass" if ours.cpu <= 1.1 * floor[0] else "FAIL"
        return Row(work + ", CPU per request against the decode floor (wrk c=4)", ours_text, floor_text, ratio,
                   "≤ 1.1× libjpeg-turbo's decode at our scale", verdict)

    @staticmethod
    def memory_row(work, ours, peer, memory, peer_label):
        def text(label):
            p, r = memory.get(label, (0, 0))
            return f"{p / 1048576:.0f} MB ({r / 1048576:.0f} MB)" if p else "—"
        verdict, ratio = Row._missing(ours, peer), "—"
        if verdict is None and memory.get("ours", (0, 0))[0] and memory.get("thumbor", (0, 0))[0]:
            ratio = f"{memory['thumbor'][0] / memory['ours'][0]:.2f}×"
            verdict = "pass" if memory["ours"][0] <= memory["thumbor"][0] else "FAIL"
        elif verdict is None:
            verdict = "not measured: no memory sample"
        peer_text = f"{peer_label}: " + (f"not measured ({peer.reason})" if peer.reason else text("thumbor"))
        return Row(work, text("ours"), peer_text, ratio, "≤ thumbor's peak", verdict)
