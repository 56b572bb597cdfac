"""The `quality` section of Benchmarks/compare: thumbnails at libvips' quality, and their CPU.

PSNR rows: scripts/thumbnail-quality.py makes the sources (12 MP baseline, progressive and
ICC-tagged JPEG, a 3000x2000 PNG, a 24 MP WebP) and scores our thumbnail (`webimage decode
--thumbnail SxS --out X.rgba`) and libvips' (pyvips `thumbnail_buffer`) against Pillow's
full decode + ImageCms sRGB + Lanczos, at 300, 500 and 1200 px. Goal: within 1 dB of libvips.

CPU rows (12 MP baseline and progressive JPEG to 500 px): CPU time per image, user + system,
all threads. Ours is `webimage-bench thumbnail` run twice with different iteration counts,
the difference of the two processes' CPU time divided by the extra iterations, so process
start and file reading cancel out. pyvips (`thumbnail_buffer` + `write_to_memory`, operation
cache off) and the floor, PyTurboJPEG decoding the same file at libvips' shrink-on-load scale
(1/4 here, TJPF_RGBA), are timed in this process with `time.process_time`. A speed row only
counts when our PSNR on that case is at least libvips'.
"""

import importlib.util
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from report import Row, format_time

SOURCES = [("baseline.jpg", "12 MP baseline JPEG"), ("progressive.jpg", "12 MP progressive JPEG"),
           ("icc.jpg", "12 MP ICC-tagged JPEG (orientation 6)"), ("large.png", "3000×2000 PNG"),
           ("bryce.webp", "11158×2156 WebP")]
SIZES = [300, 500, 1200]
SPEED = [("baseline.jpg", "12 MP baseline JPEG", 1.25), ("progressive.jpg", "12 MP progressive JPEG", 3.0)]
SPEED_SIZE = 500
ROWS = len(SOURCES) * len(SIZES) + 2 * len(SPEED)


def load_script(root):
    spec = importlib.util.spec_from_file_location("thumbnail_quality", root / "scripts" / "thumbnail-quality.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class QualityBench:
    def __init__(self, root, shared, work_dir, bench, webimage, smoke, rounds, no_peers):
        self.root, self.shared, self.work = Path(root), Path(shared), Path(work_dir) / "quality"
        self.bench, self.webimage, self.smoke, self.no_peers = bench, webimage, smoke, no_peers
        self.rounds = 1 if smoke else (rounds or 5)

    def run(self):
        try:
            script = load_script(self.root)  # exits (SystemExit) without Pillow, numpy, pyvips
            self.work.mkdir(parents=True, exist_ok=True)
            script.make_fixtures(str(self.shared), str(self.work))
        except (SystemExit, ImportError, OSError) as error:
            reason = str(error) if isinstance(error, OSError) else "needs Pillow, numpy and pyvips"
            return [self.missing_row(work, goal, reason) for work, goal in self.works()]
        scores = self.scores(script)
        return self.psnr_rows(scores) + self.speed_rows(scores)

    PSNR_GOAL = "≥ libvips − 1 dB"
    FLOOR_GOAL = "— (the floor; ratio = its time ÷ ours)"

    def works(self):
        """(work, goal) of every row, in order."""
        for name, title in SOURCES:
            for size in SIZES:
                yield f"thumbnail PSNR vs full-decode Lanczos reference, {title} → {size} px", self.PSNR_GOAL
        for name, title, ratio in SPEED:
            yield (f"thumbnail CPU per image, {title} → {SPEED_SIZE} px, vs libvips",
                   f"≥ {ratio:g}× libvips' CPU, at ≥ its PSNR")
            yield f"thumbnail CPU per image, {title} → {SPEED_SIZE} px, vs the decode floor", self.FLOOR_GOAL

    @staticmethod
    def missing_row(work, goal, reason):
        return Row(work, "—", "—", "—", goal, f"not measured: {reason}")

    # MARK: PSNR

    def scores(self, script):
        """{(name, size): {"ours": dB, "libvips": dB}} or a reason string per case."""
        if self.webimage is None:
            return "webimage not built (swift build -c release --product webimage)"
        cases = []
        for name, _ in SOURCES:
            for size in SIZES:
                out = self.work / f"{name}-{size}.rgba"
                done = subprocess.run([self.webimage, "decode", str(self.work / name), "--thumbnail", f"{size}x{size}",
                                       "--out", str(out), "--json"], capture_output=True, text=True)
                lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
                if done.returncode != 0 or not lines:
                    return f"webimage decode failed: {(done.stderr.strip() or 'no output')[-120:]}"
                report = json.loads(lines[-1])
                cases.append({"name": name, "size": size, "output": str(out), "width": report["width"],
                              "height": report["height"]})
        cases_path = self.work / "cases.json"
        cases_path.write_text(json.dumps(cases))
        done = subprocess.run([sys.executable, str(self.root / "scripts" / "thumbnail-quality.py"), "measure",
                               str(self.work), str(cases_path)], capture_output=True, text=True)
        if done.returncode != 0:
            return f"thumbnail-quality.py measure failed: {done.stderr.strip()[-120:]}"
        scores = {}
        for line in done.stdout.splitlines():
            score = json.loads(line)
            scores[(score["name"], score["size"])] = score
        return scores

    def psnr_rows(self, scores):
        rows = []
        works = iter(self.works())
        for name, _ in SOURCES:
            for size in SIZES:
                work, goal = next(works)
                score = scores.get((name, size)) if isinstance(scores, dict) else None
                if score is None:
                    rows.append(self.missing_row(work, goal, scores if isinstance(scores, str) else "no score"))
                    continue
                delta = score["ours"] - score["libvips"]
                rows.append(Row(work, f"{score['ours']:.2f} dB", f"libvips thumbnail: {score['libvips']:.2f} dB",
                                f"{delta:+.2f} dB", goal, "pass" if delta >= -1 else "FAIL"))
        return rows

    # MARK: CPU

    def ours_cpu(self, path):
        """Seconds of CPU per thumbnail: two webimage-bench runs, their CPU difference."""
        if self.bench is None:
            raise RuntimeError("webimage-bench not built (make -C Benchmarks build)")
        counts = (1, 3) if self.smoke else (2, 12)
        spent = []
        for iterations in counts:
            before = children_cpu()
            done = subprocess.run([self.bench, "thumbnail", "--size", str(SPEED_SIZE), "--iterations",
                                   str(iterations), "--warmup", "1", str(path)], capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"webimage-bench failed: {done.stderr.strip()[-120:]}")
            spent.append(children_cpu() - before)
        return (spent[1] - spent[0]) / (counts[1] - counts[0])

    def peer_cpu(self, work, iterations):
        work()
        samples = []
        for _ in range(iterations):
            start = time.process_time()
            work()
            samples.append(time.process_time() - start)
        return statistics.median(samples)

    def speed_rows(self, scores):
        rows = []
        works = list(self.works())[len(SOURCES) * len(SIZES):]
        for index, (name, title, goal_ratio) in enumerate(SPEED):
            (vs_vips, vips_goal), (vs_floor, floor_goal) = works[2 * index], works[2 * index + 1]
            reason = "peers skipped (--no-peers)" if self.no_peers else None
            try:
                import pyvips
                from turbojpeg import TurboJPEG, TJPF_RGBA
            except ImportError as error:
                reason = reason or f"needs pyvips and PyTurboJPEG ({error})"
            if reason:
                rows += [self.missing_row(vs_vips, vips_goal, reason), self.missing_row(vs_floor, floor_goal, reason)]
                continue
            pyvips.cache_set_max(0)
            path = self.work / name
            data = path.read_bytes()
            turbo = TurboJPEG()
            # libvips' shrink-on-load for 4032×3024 → 500: 1/4.
            vips_work = lambda: pyvips.Image.thumbnail_buffer(data, SPEED_SIZE, height=SPEED_SIZE).write_to_memory()
            floor_work = lambda: turbo.decode(data, pixel_format=TJPF_RGBA, scaling_factor=(1, 4))
            ours, vips, floor = [], [], []
            try:
                for _ in range(self.rounds):
                    ours.append(self.ours_cpu(path))
                    vips.append(self.peer_cpu(vips_work, 3 if self.smoke else 10))
                    floor.append(self.peer_cpu(floor_work, 3 if self.smoke else 10))
            except RuntimeError as error:
                rows += [self.missing_row(vs_vips, vips_goal, str(error)),
                         self.missing_row(vs_floor, floor_goal, str(error))]
                continue
            ours_t, vips_t, floor_t = statistics.median(ours), statistics.median(vips), statistics.median(floor)
            score = scores.get((name, SPEED_SIZE)) if isinstance(scores, dict) else None
            ratio = vips_t / ours_t
            ours_text = format_time(ours_t)
            if score is None:
                verdict = "not measured: no PSNR for this case"
            else:
                ours_text += f" at {score['ours']:.2f} dB (libvips {score['libvips']:.2f} dB)"
                verdict = "pass" if ratio >= goal_ratio and score["ours"] >= score["libvips"] else "FAIL"
            rows.append(Row(vs_vips, ours_text, f"pyvips thumbnail_buffer: {format_time(vips_t)}",
                            f"{ratio:.2f}×", vips_goal, verdict))
            rows.append(Row(vs_floor, format_time(ours_t), f"PyTurboJPEG decode at 1/4: {format_time(floor_t)}",
                            f"{floor_t / ours_t:.2f}×", floor_goal, "info"))
        return rows
