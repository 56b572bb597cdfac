"""Rows of the comparison table and their formatting.

Every row compares one measured value of ours with a peer's (or with a fixed
limit) and states the goal and whether it was met. A side that could not be
measured makes the row "not measured: <reason>"; nothing is ever filled in.
"""

import re


def format_time(seconds):
    if seconds is None:
        return "—"
    # Rounded to the three digits shown before the unit is chosen: 999.6 ms is "1 s",
    # never "1e+03 ms".
    seconds = float(f"{seconds:.3g}")
    for unit, scale in (("s", 1), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9)):
        if seconds >= scale or unit == "ns":
            return f"{seconds / scale:.3g} {unit}"


def format_rss(nbytes):
    return "—" if nbytes is None else f"{nbytes / 1048576:.1f} MB"


def format_count(value):
    return "—" if value is None else f"{value:g}"


class Row:
    def __init__(self, work, ours, peer, ratio, goal, verdict):
        self.work, self.ours, self.peer, self.ratio, self.goal, self.verdict = work, ours, peer, ratio, goal, verdict

    @staticmethod
    def _missing(ours, peer=None):
        if ours.reason:
            return f"not measured: {ours.reason}"
        if peer is not None and peer.reason:
            return f"not measured: peer: {peer.reason}"
        return None

    @classmethod
    def speed(cls, work, ours, peer_label, peer, min_ratio, goal, per_op=False):
        """Time against a peer's time; ratio = peer time / our time."""
        ours_v = ours.time_per_op if per_op else ours.time
        peer_v = peer.time_per_op if per_op else peer.time
        suffix = "/op" if per_op else ""
        ours_text = format_time(ours_v) + (suffix if ours_v is not None else "")
        peer_text = _side(peer_label, peer, format_time(peer_v) + (suffix if peer_v is not None else ""))
        verdict = cls._missing(ours, peer)
        ratio_text = "—"
        if verdict is None:
            ratio = peer_v / ours_v if ours_v else float("inf")
            ratio_text = f"{ratio:.2f}×"
            verdict = "info" if min_ratio is None else ("pass" if ratio >= min_ratio else "FAIL")
        return cls(work, ours_text, peer_text, ratio_text, goal, verdict)

    @classmethod
    def memory(cls, work, ours, peer_label, peer, goal):
        """Peak RSS against a peer's; ratio = peer peak / our peak (≥ 1 passes)."""
        verdict = cls._missing(ours, peer)
        ratio_text = "—"
        if verdict is None:
            ratio = peer.peak / ours.peak if ours.peak else float("inf")
            ratio_text = f"{ratio:.2f}×"
            verdict = "pass" if ratio >= 1.0 else "FAIL"
        return cls(work, format_rss(ours.peak), _side(peer_label, peer, format_rss(peer.peak)), ratio_text, goal,
                   verdict)

    @classmethod
    def rss_limit(cls, work, ours, max_bytes, goal, peer_label="—"):
        """Peak RSS of ours against a fixed ceiling (the animation rows)."""
        verdict = cls._missing(ours)
        if verdict is None:
            verdict = "pass" if ours.peak <= max_bytes else "FAIL"
        return cls(work, format_rss(ours.peak) if ours.peak is not None else "—", peer_label, "—", goal, verdict)

    @classmethod
    def rate(cls, work, ours, min_rate, goal):
        """Operations per second of ours against a fixed floor."""
        verdict = cls._missing(ours)
        text = "—"
        if verdict is None:
            rate = 1 / ours.time_per_op if ours.time_per_op else float("inf")
            text = f"{rate / 1e6:.3g} M/s"
            verdict = "pass" if rate >= min_rate else "FAIL"
        return cls(work, text, "—", "—", goal, verdict)

    @classmethod
    def limit(cls, work, ours, max_seconds, goal):
        """Time per operation of ours against a fixed ceiling."""
        verdict = cls._missing(ours)
        if verdict is None:
            verdict = "pass" if ours.time_per_op <= max_seconds else "FAIL"
        text = format_time(ours.time_per_op) + "/op" if ours.time_per_op is not None else "—"
        return cls(work, text, "—", "—", goal, verdict)

    @classmethod
    def exact(cls, work, ours, peer_label, expected, goal):
        """A count observed while ours ran (e.g. requests in the access log)."""
        verdict = cls._missing(ours)
        value = ours.samples[0] if ours.samples else None
        if verdict is None:
            verdict = "pass" if value == expected else "FAIL"
        return cls(work, f"{format_count(value)} requests" if value is not None else "—",
                   peer_label, "—", goal, verdict)


def _side(label, measure, value_text):
    """The peer cell: its value, or why it has none (so a broken peer shows even
    when our side is also missing)."""
    if measure.reason:
        return f"{label}: not measured ({measure.reason})"
    return f"{label}: {value_text}"


def _cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


class Table:
    HEADER = ("work", "ours", "peer", "ratio", "goal", "result")

    LEGEND = """\
`ratio` = how many times better we are: peer time ÷ our time for time rows,
peer peak RSS ÷ our peak RSS for the memory row (above 1 = we win). Times are
medians over all rounds; our side and the peers run alternately, one process per
side per round, each timing its own work in-process after a warm-up (inputs read
into memory first, so only decoding is timed), except curl whose wall time
includes its process start.

What each row measures:
- full JPEG decode: every photo of the generated set (20 photos, 1–12 MP,
  quality 85) decoded once per iteration; ours to RGBA via
  `ImageCodersManager.shared.decode`, PyTurboJPEG `decode(pixel_format=TJPF_RGBA)`
  (raw libjpeg-turbo), Pillow `Image.open(BytesIO).load()` (RGB).
- thumbnail: to fit 400×400, two 5250×3450 files: the real
  `jpeg/sdwebimage/TestImageLarge.jpg` (progressive, 4:4:4) and a generated
  baseline 4:2:0 quality-85 photo (how most photos are stored);
  ours `ImageDecodeOptions(thumbnailPixelSize:)`, pyvips `thumbnail_buffer` +
  `write_to_memory`, Pillow `draft` + `thumbnail`, and our own full decode +
  `PixelBuffer.resampled` (the thumbnail path must be ≥ 4× faster than that).
- PNG / GIF / WebP: generated files (RGB, RGBA, palette PNG; a 24-frame panning
  GIF and WebP; lossy and lossless WebP) plus real ones from Tests/Fixtures/corpus;
  ours decodes all frames to RGBA, Pillow `load()` for PNG and every frame
  `convert("RGBA")` for GIF/WebP, each file's frames kept until it is done (as
  ours returns them all).
- memory cache get/set: per-operation time of `MemoryCache<String, DecodedImage>`
  (`value(forKey:)` / `setValue(_:forKey:cost:)`, 256 MB cost limit, nothing
  evicted) against a `Mutex<[String: DecodedImage]>` doing the same operations
  on 1024 URL keys, on 1 and 2 threads; the rate row is gets per second on one thread.
- disk cache hit: per-hit time of `await DiskCache.data(forKey:)` for a ~50 KB
  entry (key to file name, then open + fstat + read + close on a thread of the
  blocking-I/O pool while the task waits; the data only, no decoding) against
  open + fstat + read() + close of the same file on the calling thread.
- manager memory hit: per-load time of `await ImageManager.loadImage(with:)` with
  default options, answered from the memory cache (on the calling task, no queue hop).
- network: 1000 distinct ~50 KB JPEGs from a private nginx on 127.0.0.1, 16 at
  once, cold cache. Transfer only: ours through a new `ImageDownloader` with
  `.avoidDecodeImage` (16 concurrent transfers, all 1000 requested at once)
  against curl (`--parallel --parallel-max 16`, one process: curl is not
  CPU-bound here, and two processes measured slower); then, no goal, the
  transport's floor: AsyncHTTPClient alone, configured as the downloader
  configures it, a delegate gathering each body. Download + decode to RGBA
  through a new `ImageDownloader`, against aiohttp downloading and Pillow decoding
  on the default thread pool (one worker process per core, started before the
  clock, each with its share of the list and of the 16); then, no goal, the same
  downloader keeping every decoded image until the last is in (released inside
  the round): the floor of any cache that keeps them, against the downloader.
  The same through a new `ImageManager` (default options, memory and disk cache
  cold in a fresh temporary directory, so every image is also stored; the disk
  writes a round leaves running are finished after it, untimed, so no round
  inherits another's and a round that stored fewer entries fails), against
  aiohttp + Pillow, against the downloader and against the keep floor (no goal
  here: this machine's root ext4 has no journal, and without one ext4 will not
  reuse an inode deleted in the last 60 s (360 s while its inode table block is
  dirty) and reads past each such inode for every file it creates
  (`recently_deleted()` in fs/ext4/ialloc.c, skipped when there is a journal),
  so this row pays for the files the rows before it deleted, the manager's own
  earlier rounds among them); the same manager with `cacheMemoryOnly`, no goal:
  the gate's row without the disk tier's writes; the same manager once more with
  `TMPDIR` on tmpfs (`/dev/shm`), no goal: the file system's share; and the same
  manager with its caches on a journaled ext4 (a 1 GiB image file on the same
  disk, made by a default `mkfs.ext4`, loop-mounted; needs root), against the
  keep floor: issue #48's gate (≥ 0.95×), the file system a user's disk has. The
  keep floor once more, each body also stored in a `DiskCache` on that ext4 as the
  manager's background store does (without the HTTP metadata attribute), no goal:
  against the floor, what writing the files alone costs; the gate's manager against
  it, what the manager's own work costs over the files it must write. Each side prints the cores it kept busy over the measured time (user +
  system CPU of its processes ÷ wall); a peer under 1.5 of 2 cores makes the row
  "not comparable" instead of pass or fail.
- 100 concurrent loads of one URL: requests nginx logged for that URL while ours
  ran 100 concurrent `loadImage` calls on one new `ImageDownloader`.
- animation: `gif/image-gif/gifplayer-muybridge.gif` (380 frames of 472×298;
  214 MB of RGBA decoded whole: 380 × 472 × 298 × 4 bytes, 204 MiB). Played once
  through `AnimatedImagePlayer` (default buffer of 3 frames, a clock that never waits, so every frame is
  decoded and shown): the process's peak RSS against a 40 MB ceiling. Every frame
  decoded once in order through `AnimatedImage.forEachFrame` (buffers recycled,
  nothing kept) against Pillow converting every frame to RGBA. Open + first frame
  through `AnimatedImage` against the eager decoder's `firstFrameOnly` decode of
  the same file (same first image, as a still). `webimage decode FILE --json`
  (frames, loop count and durations; each frame decoded and dropped) and
  `webimage decode FILE --all-frames --out DIR` (every frame written as PNG):
  the child process's peak RSS (GNU time's %M) against 40 MB and 60 MB.
- peak RSS: VmHWM of the process thumbnailing 20 large JPEGs (5 real large
  photos + the 15 largest generated ones) once, ours vs Pillow draft+thumbnail.
- serve: the image proxy over HTTP, driven by wrk (Python/wrk_paths.lua: every
  request a different URL) against thumbor 7.8 (`--processes` = cores, no storage,
  no result storage, PIL engine), both fetching from a private nginx. Ours is
  `webimage serve --no-cache` (release). 12 MP rows: 4032×3024 ~2.5 MB JPEGs (two
  corpus photos re-encoded without EXIF, and their mirror images, hard-linked under
  4000 names) to fit boxes of 440–560 px, JPEG q80, at 4 and 16 connections;
  req/s, and the server's CPU per request (its process tree's user+system time ÷
  requests). Memory: peak of the summed PSS of each server's process tree over
  those runs (summed RSS in brackets). Mixed: generated and real JPEG/PNG/WebP/GIF
  files to four boxes, JPEG q80 (a source either side refuses is left out of both).
  Cached: `webimage serve` with its caches, one URL asked again and again on one
  connection; wrk's p99.
- quality (Python/quality.py): PSNR (R, G, B of every pixel) of our thumbnail
  (`webimage decode --thumbnail SxS`) and of libvips' (pyvips `thumbnail_buffer`,
  Debian's libvips 8.14, defaults) against a reference: Pillow's full decode,
  ImageCms to sRGB, EXIF orientation, Pillow Lanczos to the same size; sources from
  scripts/thumbnail-quality.py (the 12 MP corpus photo re-encoded baseline and
  progressive q90 4:2:0, the original ICC-tagged file, a 3000×2000 PNG of it,
  `webp/large/bryce.webp`). CPU per image (user+system, all threads) for 500 px:
  ours from two `webimage-bench thumbnail` runs of different lengths (the difference
  over the extra iterations), pyvips with its operation cache off and PyTurboJPEG
  at 1/4 timed in-process with `process_time`.
- engine (Python/engine_bench.py): our whole request (`webimage serve --no-cache`,
  wrk at 4 connections; the server's CPU per request) against libvips 8.18.7 (PyPI's
  pyvips-binary, the libvips imgproxy ships) doing only the image work on one thread
  (`VIPS_CONCURRENCY=1`, as imgproxy sets it; `process_time` per image), Debian's
  8.14 beside it for scale: the 12 MP baseline JPEG of the quality rows under 600
  names, fitted to 300, 500, 1200 px and 673×500, JPEG q80; libvips' `thumbnail`
  (its own shrink-on-load rule, ours by default) and imgproxy's steps (shrink on
  load by imgproxy's rule, Lanczos3 `resize`, `jpegsave`). The two sides alternate
  round by round.
"""

    def __init__(self, rows):
        self.rows = rows

    def markdown(self):
        lines = ["| " + " | ".join(self.HEADER) + " |", "|" + "---|" * len(self.HEADER)]
        for r in self.rows:
            lines.append("| " + " | ".join(_cell(c) for c in (r.work, r.ours, r.peer, r.ratio, r.goal, r.verdict))
                         + " |")
        return "\n".join(lines)


class ResultsPage:
    """Benchmarks/RESULTS.md: the newest run first, then the history.

    The page is, in order: a title and one line saying how it is laid out; `## Latest run`
    (date, machine, command, the ratio chart, the table); `## What each row measures` (the
    legend, regenerated each time); `## History` (superseded runs and the notes written
    about them by hand, newest first). A new run replaces the Latest run section and moves
    the one it replaces, unchanged but for its heading, to the top of the history, just
    below HISTORY_MARK; everything already in the history is kept as it is.
    """

    TITLE = "# WebImage benchmark results"
    LATEST = "## Latest run"
    LEGEND_HEADING = "## What each row measures"
    HISTORY = "## History"
    HISTORY_MARK = "<!-- compare: a superseded Latest run goes below this line, newest first -->"
    INTRO = ("The newest `make bench` run first, with its chart ([ratios.svg](ratios.svg), written by the\n"
             "same run); older runs and the notes written about them are under History, newest first.")
    HISTORY_INTRO = ("**History: superseded runs.** Kept for the record of what was measured, profiled and\n"
                     "changed; the rows above replace the rows of the same name below.")

    @classmethod
    def sections(cls, text):
        """The text of each `## ` section of a page, by heading (the part before the
        first one under "")."""
        parts, heading, current = {}, "", []
        for line in text.split("\n"):
            if line.startswith("## "):
                parts[heading] = "\n".join(current)
                heading, current = line, []
            else:
                current.append(line)
        parts[heading] = "\n".join(current)
        return parts

    @classmethod
    def history(cls, old_text):
        """The old page's history with its Latest run moved to the top of it. An old page
        of the earlier layout (a table, then "## Profiling notes") becomes history whole."""
        if not old_text.strip():
            return ""
        parts = cls.sections(old_text)
        latest = next((body for heading, body in parts.items() if heading.startswith(cls.LATEST)), None)
        if latest is None:   # the earlier layout: the whole old page is history
            body = old_text.split("\n", 1)[1] if old_text.startswith(cls.TITLE) else old_text
            demoted = "### Superseded run\n" + body.replace("\n## ", "\n### ").strip()
            older = ""
        else:
            heading = next(h for h in parts if h.startswith(cls.LATEST))
            date = re.search(r"- date: ([^\n]+)", latest)
            title = heading[len(cls.LATEST):].strip(" :—-") or (date.group(1) if date else "")
            lines = [l for l in latest.strip().split("\n") if not l.startswith("![")]   # the chart is the new run's
            demoted = f"### Superseded run: {title}\n\n" + "\n".join(lines).replace("\n### ", "\n#### ").strip()
            history = next((body for h, body in parts.items() if h.startswith(cls.HISTORY)), "")
            older = history.split(cls.HISTORY_MARK, 1)[1].strip() if cls.HISTORY_MARK in history else history.strip()
        return demoted + ("\n\n" + older if older else "")

    @classmethod
    def render(cls, latest_heading, latest_body, legend, history):
        return (f"{cls.TITLE}\n\n{cls.INTRO}\n\n{latest_heading}\n\n{latest_body.strip()}\n\n"
                f"{cls.LEGEND_HEADING}\n\n{legend.strip()}\n\n"
                f"{cls.HISTORY}\n\n{cls.HISTORY_INTRO}\n\n{cls.HISTORY_MARK}\n\n{history.strip()}\n")
