"""The peers' side of `Benchmarks/compare`: the same work done the way a Python user
would do it, printed as the same JSON object `webimage-bench` prints.

    peers.py MODE [--iterations N] [--warmup N] [--size N] [--concurrency N] [--scale N] INPUT...

Inputs are read into memory first (as `webimage-bench` does), so only decoding is
timed. Exit 0 when measured; 1 with {"ok": false, "notMeasured": reason} when the
peer's library is not installed or the work failed.
"""

import argparse
import asyncio
import io
import json
import resource
import sys
import time


def peak_rss_bytes():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def read_all(paths):
    out = []
    for path in paths:
        with open(path, "rb") as f:
            out.append(f.read())
    return out


# MARK: the work, one function per mode; each returns a callable doing one iteration


def turbojpeg_decode(args):
    """libjpeg-turbo through PyTurboJPEG, to RGBA like WebImage's pixel model."""
    from turbojpeg import TurboJPEG, TJPF_RGBA
    jpeg, files = TurboJPEG(), read_all(args.inputs)
    return lambda: [jpeg.decode(data, pixel_format=TJPF_RGBA) for data in files]


def turbojpeg_scaled(args):
    """libjpeg-turbo through PyTurboJPEG at DCT scale 1/--scale, to RGBA: the peer of our
    scaled baseline decoder (the jpeg-scaled rows)."""
    from turbojpeg import TurboJPEG, TJPF_RGBA
    jpeg, files = TurboJPEG(), read_all(args.inputs)
    factor = (1, args.scale)
    return lambda: [jpeg.decode(data, pixel_format=TJPF_RGBA, scaling_factor=factor) for data in files]


def pillow_decode(args):
    """`Image.open().load()`: the first frame in the file's own mode (RGB for JPEG)."""
    from PIL import Image
    files = read_all(args.inputs)

    def run():
        for data in files:
            Image.open(io.BytesIO(data)).load()
    return run


def pillow_frames(args):
    """Every frame composed to RGBA (Pillow handles disposal) and kept until the file is
    done, as our decoder returns them all: a player holds every frame of the animation."""
    from PIL import Image, ImageSequence
    files = read_all(args.inputs)

    def run():
        for data in files:
            frames = [frame.convert("RGBA") for frame in ImageSequence.Iterator(Image.open(io.BytesIO(data)))]
            del frames
    return run


def pillow_frames_png(args):
    """Every frame composed to RGBA and saved as a PNG in memory (Pillow's defaults:
    compress_level 6), one at a time, as `webimage decode --all-frames` writes them.
    Reports the PNG bytes as pixelsPerSample, as webimage-bench's animation-png does."""
    from PIL import Image, ImageSequence
    files = read_all(args.inputs)
    written = [0]

    def run():
        written[0] = 0
        for data in files:
            for frame in ImageSequence.Iterator(Image.open(io.BytesIO(data))):
                out = io.BytesIO()
                frame.convert("RGBA").save(out, "PNG")
                written[0] += out.tell()
    run.produced = written
    return run


def pillow_frames_png_files(args):
    """pillow_frames_png, each frame written to its own file in a fresh temporary
    directory (plain writes, as Pillow's save does): `webimage decode --all-frames --out DIR`."""
    import os
    import shutil
    import tempfile
    from PIL import Image, ImageSequence
    files = read_all(args.inputs)

    def run():
        directory = tempfile.mkdtemp(prefix="peers-frames-")
        try:
            for data in files:
                for index, frame in enumerate(ImageSequence.Iterator(Image.open(io.BytesIO(data)))):
                    frame.convert("RGBA").save(os.path.join(directory, "frame-%04d.png" % index))
        finally:
            shutil.rmtree(directory, ignore_errors=True)
    return run


def pyvips_thumbnail(args):
    """`pyvips.Image.thumbnail_buffer`, pixels forced with `write_to_memory` (vips is lazy)."""
    import pyvips
    files = read_all(args.inputs)
    return lambda: [pyvips.Image.thumbnail_buffer(d, args.size, height=args.size).write_to_memory() for d in files]


def pillow_thumbnail(args):
    """`draft` (libjpeg DCT scaling) then `thumbnail` to fit the box."""
    from PIL import Image
    files = read_all(args.inputs)
    box = (args.size, args.size)

    def run():
        for data in files:
            image = Image.open(io.BytesIO(data))
            image.draft("RGB", box)
            image.thumbnail(box)
    return run


def fit(width, height, box):
    """The size fitting `box` × `box` that webimage-bench's resample mode asks for (its
    ImageDecodeOptions.targetSize): the longer side `box`, the other rounded, at least 1."""
    scale = min(box / width, box / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def pyvips_resize(args):
    """libvips' Lanczos3 `resize` of an image already decoded into memory, on one thread
    (as imgproxy runs it), pixels forced with `write_to_memory`."""
    import pyvips
    pyvips.voperation.cache_set_max(0)
    pyvips.vips_lib.vips_concurrency_set(1)
    images = [pyvips.Image.new_from_buffer(d, "").copy_memory() for d in read_all(args.inputs)]

    def run():
        for image in images:
            width, height = fit(image.width, image.height, args.size)
            image.resize(width / image.width, vscale=height / image.height, kernel="lanczos3").write_to_memory()
    return run


def pillow_resize(args):
    """Pillow's `resize` with LANCZOS of an RGBA image already decoded into memory."""
    from PIL import Image
    images = []
    for data in read_all(args.inputs):
        image = Image.open(io.BytesIO(data)).convert("RGBA")
        image.load()
        images.append(image)

    def run():
        for image in images:
            image.resize(fit(image.width, image.height, args.size), Image.LANCZOS)
    return run


def _fetch_and_decode(urls, concurrency):
    """Downloads `urls` with aiohttp, `concurrency` at once on one session, decoding each
    body with Pillow on the default thread pool; returns this process's CPU seconds."""
    import aiohttp
    from PIL import Image

    def decode(body):
        image = Image.open(io.BytesIO(body))
        image.load()
        return image.size

    async def fetch_all():
        limit = asyncio.Semaphore(concurrency)
        connector = aiohttp.TCPConnector(limit=concurrency)
        loop = asyncio.get_running_loop()
        async with aiohttp.ClientSession(connector=connector) as session:
            async def one(url):
                async with limit:
                    async with session.get(url) as response:
                        response.raise_for_status()
                        body = await response.read()
                    return await loop.run_in_executor(None, decode, body)
            return await asyncio.gather(*(one(u) for u in urls))

    before = cpu_seconds()
    asyncio.run(fetch_all())
    return cpu_seconds() - before


def _fetch_and_decode_chunk(job):
    return _fetch_and_decode(*job)


def _warm(_):
    import aiohttp  # noqa: F401  (imported in the worker before the clock starts)
    from PIL import Image  # noqa: F401
    return 0


def aiohttp_pillow(args):
    """Download every URL listed in the input files with aiohttp and decode each body with
    Pillow, `--concurrency` at once in all; with `--processes N` (N > 1) the list is split
    over N worker processes (started and warmed before the clock), so the peer can use
    the whole machine as a user who wanted the speed would run it. The workers' CPU is
    added to ``run.child_cpu`` for the cores-busy figure."""
    import aiohttp  # noqa: F401  (a missing package is reported before any worker starts)
    urls = [line.strip() for path in args.inputs for line in open(path) if line.strip()]
    processes = max(1, args.processes)

    def run():
        if processes == 1:
            _fetch_and_decode(urls, args.concurrency)
            return
        jobs = [(urls[i::processes], max(1, args.concurrency // processes)) for i in range(processes)]
        run.child_cpu += sum(run.pool.map(_fetch_and_decode_chunk, jobs))
    run.child_cpu = 0.0
    if processes > 1:
        import concurrent.futures
        import multiprocessing
        run.pool = concurrent.futures.ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        list(run.pool.map(_warm, range(processes)))
    return run


MODES = {
    "turbojpeg-decode": turbojpeg_decode,
    "turbojpeg-scaled": turbojpeg_scaled,
    "pillow-decode": pillow_decode,
    "pillow-frames": pillow_frames,
    "pillow-frames-png": pillow_frames_png,
    "pillow-frames-png-files": pillow_frames_png_files,
    "pyvips-thumbnail": pyvips_thumbnail,
    "pillow-thumbnail": pillow_thumbnail,
    "pyvips-resize": pyvips_resize,
    "pillow-resize": pillow_resize,
    "aiohttp-pillow": aiohttp_pillow,
}


def cpu_seconds():
    """User + system CPU of this process, every thread, in seconds."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv):
    parser = argparse.ArgumentParser(prog="peers.py")
    parser.add_argument("mode", choices=sorted(MODES))
    parser.add_argument("inputs", nargs="*")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--size", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--processes", type=int, default=1)
    parser.add_argument("--scale", type=int, default=1, help="DCT scale 1/N (turbojpeg-scaled)")
    args = parser.parse_intermixed_args(argv)
    report = {"mode": args.mode, "ok": False}
    try:
        work = MODES[args.mode](args)
        for _ in range(args.warmup):
            work()
        samples = []
        cpu_before = cpu_seconds() + getattr(work, "child_cpu", 0.0)
        for _ in range(max(1, args.iterations)):
            start = time.perf_counter()
            work()
            samples.append(time.perf_counter() - start)
        cpu = cpu_seconds() + getattr(work, "child_cpu", 0.0) - cpu_before
        report.update(ok=True, samples=samples, opsPerSample=len(args.inputs), peakRSSBytes=peak_rss_bytes())
        if sum(samples) > 0:
            # Every thread of this process (the executor's decode threads too) over the
            # measured wall time: the cores this side kept busy.
            report["coresBusy"] = cpu / sum(samples)
        if hasattr(work, "produced"):
            report["pixelsPerSample"] = work.produced[0]
    except ImportError as error:
        report["notMeasured"] = f"{error.name or error} not installed"
    except Exception as error:  # a failed peer is reported as a row, not a crash
        report["notMeasured"] = f"{type(error).__name__}: {error}"
    print(json.dumps(report, sort_keys=True))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
