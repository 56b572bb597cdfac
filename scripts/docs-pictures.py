#!/usr/bin/env python3
"""The documentation's pictures, made by the project's own code (`make docs` runs this).

    scripts/docs-pictures.py [--webimage PATH] [--out DIR] [--only NAME]...

Writes into Sources/WebImage/WebImage.docc/Resources/ (DocC's image folder; README.md links
the same files):

    thumbnails.jpg  the corpus' 12 MP photo (jpeg/large/dog_exif_extended_xmp_icc.jpg) fitted
                    into 300x300 by `webimage decode --thumbnail`, by libvips (pyvips
                    thumbnail_buffer) and by thumbor 7.8, side by side, each with its PSNR
                    against scripts/thumbnail-quality.py's reference (Pillow's full decode, ICC
                    to sRGB, EXIF upright, Lanczos to the same size)
    gallery.png     `webimage serve`'s /gallery page in headless Chromium
    resizing.jpg    the resizing types and gravities: one `webimage serve` request per cell,
                    the URL under each

and Benchmarks/ratios.svg, redrawn from Benchmarks/RESULTS.md (Benchmarks/Python/chart.py,
the chart `make bench` writes itself).

Needs the `webimage` tool (default .build/debug/webimage; `--webimage` or $WEBIMAGE), Pillow,
numpy and pyvips (`make test-venv`: run this with .build-test/venv/bin/python) and Debian's
chromium (`make test-deps`). thumbor runs from .build-bench/thumbor-venv, the bench's peer
(`make -C Benchmarks venv`, or `python3 -m venv .build-bench/thumbor-venv &&
.build-bench/thumbor-venv/bin/pip install thumbor==7.8.0`); without it Pillow's
draft + thumbnail takes its place and the picture says so. Everything runs on 127.0.0.1;
nothing is fetched from the network. Exit status 1 when a picture could not be made (the
message says what is missing), 0 otherwise.
"""

import argparse
import importlib.util
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "Tests/Fixtures/corpus"
RESOURCES = ROOT / "Sources/WebImage/WebImage.docc/Resources"
PHOTO = "jpeg/large/dog_exif_extended_xmp_icc.jpg"
THUMBOR = ROOT / ".build-bench/thumbor-venv/bin/thumbor"
PICTURES = ["thumbnails", "gallery", "resizing", "ratios"]

try:
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont
except ImportError as error:
    print(f"docs-pictures: {error}: run it with .build-test/venv/bin/python (`make test-venv`)", file=sys.stderr)
    sys.exit(1)


class Missing(Exception):
    """A picture cannot be made here; the message says what to install."""


def log(message):
    print(f"docs-pictures: {message}", file=sys.stderr, flush=True)


def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def fetch(url, timeout=60):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read(), response.headers.get("Content-Type", "")


FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")   # fonts-dejavu-core, which chromium brings


def font(size):
    """DejaVu Sans when it is there (it has ×, →), else Pillow's own default font."""
    if FONT.exists():
        return ImageFont.truetype(str(FONT), size)
    return ImageFont.load_default(size=size)


class Server:
    """A child process on a loopback port, stopped on exit; `ready` is polled until it answers."""

    def __init__(self, name, command, port, ready, work, env=None):
        self.name, self.port = name, port
        self.log_path = Path(work) / f"{name}.log"
        self.log_file = open(self.log_path, "wb")
        self.process = subprocess.Popen(command, stdout=self.log_file, stderr=subprocess.STDOUT,
                                        env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise Missing(f"{name} exited: {self.log_tail()}")
            try:
                fetch(f"http://127.0.0.1:{port}{ready}", timeout=2)
                return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        self.stop()
        raise Missing(f"{name} did not answer on port {port}: {self.log_tail()}")

    def log_tail(self):
        self.log_file.flush()
        return self.log_path.read_text(errors="replace")[-1500:]

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()


def port_is_free(port):
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)   # as the server binds: TIME_WAIT is no obstacle
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def start_serve(webimage, work):
    # 8080, serve's default, when it is free: the screenshot then shows the URLs a reader
    # gets, and stays the same from one `make docs` to the next.
    port = 8080 if port_is_free(8080) else free_port()
    return Server("webimage-serve", [webimage, "serve", "--unsigned", "--host", "127.0.0.1", "--port", str(port),
                                     "--local-root", str(CORPUS), "--no-cache"],
                  port, "/health", work)


def label(canvas, xy, lines, size=13, fill=(30, 30, 30)):
    draw = ImageDraw.Draw(canvas)
    x, y = xy
    for i, line in enumerate(lines):
        if not FONT.exists():
            line = line.replace("×", "x").replace("→", "->")
        draw.text((x, y + i * (size + 4)), line, font=font(size if i == 0 else size - 2), fill=fill)


# MARK: thumbnails.jpg: ours, libvips and thumbor beside the reference

def thumbnail_strip(webimage, work, out):
    quality = load_module("thumbnail_quality", ROOT / "scripts/thumbnail-quality.py")
    source = CORPUS / PHOTO
    size = 300
    ours_png = Path(work) / "ours.png"
    subprocess.run([webimage, "decode", str(source), "--thumbnail", f"{size}x{size}", "--out", str(ours_png)],
                   check=True, stdout=subprocess.DEVNULL)
    ours = np.asarray(Image.open(ours_png).convert("RGB"))
    vips = quality.libvips_thumbnail(str(source), size)[..., :3]
    third, third_name = peer_thumbnail(source, size, work)
    reference = quality.full_reference(str(source))

    def score(pixels):
        h, w = pixels.shape[:2]
        return quality.psnr(pixels, np.asarray(reference.resize((w, h), Image.Resampling.LANCZOS)))

    columns = [("webimage decode --thumbnail", ours), ("libvips: pyvips thumbnail_buffer", vips),
               (third_name, third)]
    pad, text_h, zoom, crop = 12, 44, 2, (80, 130, 140, 190)   # crop: the nose and mouth, 60×60
    crop_w, crop_h = crop[2] - crop[0], crop[3] - crop[1]
    thumb_h = max(c[1].shape[0] for c in columns)
    width = sum(c[1].shape[1] for c in columns) + pad * (len(columns) + 1)
    zoom_top = 30 + thumb_h + text_h
    height = zoom_top + crop_h * zoom + 62
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    label(canvas, (pad, 8), [f"{PHOTO} (4032×3024, EXIF orientation 6, ICC) fitted into {size}×{size}"], 13)
    x = pad
    scores = {}
    for name, pixels in columns:
        image = Image.fromarray(pixels)
        canvas.paste(image, (x, 30))
        draw.rectangle((x + crop[0], 30 + crop[1], x + crop[2], 30 + crop[3]), outline=(255, 64, 64))
        canvas.paste(image.crop(crop).resize((crop_w * zoom, crop_h * zoom), Image.Resampling.NEAREST), (x, zoom_top))
        db = score(pixels)
        scores[name] = round(db, 2)
        h, w = pixels.shape[:2]
        # thumbor's PIL engine decodes whole and resizes with Pillow's Lanczos: the reference's
        # own method, so its pixels can equal the reference (psnr() says 99 for "identical").
        shown = "= the reference" if db >= 99 else f"{db:.2f} dB"
        label(canvas, (x, 30 + h + 4), [f"{shown}  ({w}×{h})", name], 13)
        x += w + pad
    label(canvas, (pad, height - 54), [f"Below: each red square, {zoom}× (nearest neighbour). PSNR against Pillow's full decode",
                                       "+ ICC→sRGB + EXIF upright + Lanczos to the same size (scripts/thumbnail-quality.py);",
                                       "thumbor resizes the same way, so its pixels are the reference's." if third_name.startswith("thumbor")
                                       else "thumbor is not installed here: Pillow's draft + thumbnail stands in."], 12, (90, 90, 90))
    canvas.save(out, quality=75, optimize=True, progressive=True)
    log(f"{out.name}: " + json.dumps(scores, ensure_ascii=False))


def peer_thumbnail(source, size, work):
    """thumbor 7.8's fit-in from a file loader, as PNG; Pillow's draft + thumbnail when
    thumbor is not installed."""
    if os.access(THUMBOR, os.X_OK):
        files = Path(work) / "thumbor-files"
        files.mkdir(exist_ok=True)
        shutil.copyfile(source, files / "photo.jpg")
        conf = Path(work) / "thumbor.conf"
        conf.write_text("\n".join([
            "LOADER = 'thumbor.loaders.file_loader'", f"FILE_LOADER_ROOT_PATH = {str(files)!r}",
            "STORAGE = 'thumbor.storages.no_storage'", "RESULT_STORAGE = 'thumbor.result_storages.no_storage'",
            "ENGINE = 'thumbor.engines.pil'", "RESPECT_ORIENTATION = True", ""]))
        port = free_port()
        server = Server("thumbor", [str(THUMBOR), "-i", "127.0.0.1", "-p", str(port), "-c", str(conf), "-l", "warning"],
                        port, "/healthcheck", work)
        try:
            data, _ = fetch(server.url(f"/unsafe/fit-in/{size}x{size}/filters:format(png)/photo.jpg"))
        finally:
            server.stop()
        return np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), "thumbor 7.8: fit-in, PIL engine"
    log(f"thumbor is not installed ({THUMBOR}: `make -C Benchmarks venv`); Pillow takes its column")
    image = Image.open(source)
    image.draft("RGB", (size, size))
    from PIL import ImageOps
    image = ImageOps.exif_transpose(image).convert("RGB")
    image.thumbnail((size, size), Image.Resampling.LANCZOS)
    return np.asarray(image), "Pillow draft + thumbnail (thumbor not installed)"


# MARK: gallery.png: the playground page in headless Chromium

def gallery_screenshot(server, work, out):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        raise Missing("chromium is not installed (`make test-deps`)")
    shot = Path(work) / "gallery-full.png"
    profile = Path(work) / "chromium-profile"
    subprocess.run([chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    f"--user-data-dir={profile}", "--hide-scrollbars", "--no-first-run", "--disable-extensions",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--force-color-profile=srgb", "--force-device-scale-factor=1",
                    # Only the loopback server exists for this browser.
                    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
                    "--virtual-time-budget=15000", "--window-size=1200,900", f"--screenshot={shot}",
                    server.url("/gallery")], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=180)
    image = Image.open(shot).convert("RGB")
    image = image.resize((image.width * 2 // 3, image.height * 2 // 3), Image.Resampling.LANCZOS)
    image.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(out, optimize=True)
    log(f"{out.name}: {image.width}×{image.height}")


# MARK: resizing.jpg: the resizing types and gravities, one request per cell

DOG = "local:///" + PHOTO
SUNSET = "example://sunset.jpg"
ROWS = [
    ("Resizing types: the portrait photo into a 160×96 box (fill-down differs from fill only when the box is larger than the source)",
     [(f"rs:{t}:160:96", DOG) for t in ("fit", "fill", "fill-down", "force", "auto")]),
    ("Gravity, fill 160×96 from the portrait photo (cut at the top or the bottom)",
     [(f"rs:fill:160:96/g:{g}", DOG) for g in ("no", "ce", "so", "sm")]),
    ("Gravity, fill 80×128 from the landscape example://sunset.jpg (cut at the left or the right)",
     [(f"rs:fill:80:128/g:{g}", SUNSET) for g in ("we", "ce", "ea", "sm")]),
]


def resizing_grid(server, out):
    cell_w, pad = 176, 10
    rows = []
    for title, cells in ROWS:
        images = []
        for options, source in cells:
            data, content_type = fetch(server.url(f"/unsafe/{options}/plain/{source}"))
            images.append((options, Image.open(io.BytesIO(data)).convert("RGB")))
        rows.append((title, images))
    columns = max(len(images) for _, images in rows)
    row_heights = [max(i.height for _, i in images) + 62 for _, images in rows]
    width = pad + columns * (cell_w + pad)
    height = sum(row_heights) + pad + 20
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(canvas)
    y = pad
    for (title, images), row_h in zip(rows, row_heights):
        label(canvas, (pad, y), [title], 13)
        x = pad
        for options, image in images:
            box_w, box_h = (int(v) for v in options.split("/")[0].split(":")[2:4])
            top = y + 22
            # The requested box, dashed, behind the result.
            for bx in range(x, x + box_w, 6):
                draw.line([(bx, top - 1), (min(bx + 3, x + box_w), top - 1)], fill=(160, 160, 160))
                draw.line([(bx, top + box_h), (min(bx + 3, x + box_w), top + box_h)], fill=(160, 160, 160))
            for by in range(top, top + box_h, 6):
                draw.line([(x - 1, by), (x - 1, min(by + 3, top + box_h))], fill=(160, 160, 160))
                draw.line([(x + box_w, by), (x + box_w, min(by + 3, top + box_h))], fill=(160, 160, 160))
            canvas.paste(image, (x, top))
            label(canvas, (x, top + max(box_h, image.height) + 5), [options, f"{image.width}×{image.height}"], 12)
            x += cell_w + pad
        y += row_h
    label(canvas, (pad, height - 18), ["Each cell: GET /unsafe/<options>/plain/<source> from webimage serve; "
                                       "dashed: the box asked for"], 11, (90, 90, 90))
    canvas.save(out, quality=75, optimize=True, progressive=True)
    log(f"{out.name}: {width}×{height}")


def ratio_chart():
    chart = load_module("chart", ROOT / "Benchmarks/Python/chart.py")
    if chart.main([str(ROOT / "Benchmarks/RESULTS.md"), str(ROOT / "Benchmarks/ratios.svg")]) != 0:
        raise Missing("Benchmarks/RESULTS.md has no Latest run table")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--webimage", default=os.environ.get("WEBIMAGE") or str(ROOT / ".build/debug/webimage"))
    parser.add_argument("--out", default=str(RESOURCES))
    parser.add_argument("--only", action="append", choices=PICTURES)
    args = parser.parse_args(argv)
    wanted = args.only or PICTURES
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    failures = []
    needs_tool = any(p in wanted for p in ("thumbnails", "gallery", "resizing"))
    if needs_tool and not os.access(args.webimage, os.X_OK):
        log(f"no webimage tool at {args.webimage} (`swift build --product webimage`, or --webimage PATH)")
        return 1
    with tempfile.TemporaryDirectory(prefix="webimage-docs-pictures-") as work:
        steps = [("ratios", ratio_chart),
                 ("thumbnails", lambda: thumbnail_strip(args.webimage, work, out / "thumbnails.jpg"))]
        server = None
        try:
            for name, step in steps:
                if name in wanted:
                    try:
                        step()
                    except (Missing, subprocess.CalledProcessError, OSError) as error:
                        failures.append(f"{name}: {error}")
            if "gallery" in wanted or "resizing" in wanted:
                try:
                    server = start_serve(args.webimage, work)
                    if "gallery" in wanted:
                        gallery_screenshot(server, work, out / "gallery.png")
                    if "resizing" in wanted:
                        resizing_grid(server, out / "resizing.jpg")
                except (Missing, subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
                    failures.append(f"serve pictures: {error}")
        finally:
            if server:
                server.stop()
    for failure in failures:
        log(failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
