"""libvips doing a proxy's work on one thread, as imgproxy runs it: the `engine` rows' peer.

    vips_engine.py MODE WIDTH HEIGHT ITERATIONS OUT FILE...

Run by the Python of a virtual environment whose pyvips loads the libvips to measure
(`.build-bench/vips818-venv`: pyvips-binary 8.18.7, the libvips imgproxy ships; the bench
venv: Debian's 8.14). One thread (`VIPS_CONCURRENCY=1`, set before pyvips loads, which is
what imgproxy sets), operation cache off. For each iteration, one FILE after another (a
12 MP JPEG), fitted into WIDTH×HEIGHT (no enlarging) and saved as JPEG q80 with
optimised Huffman tables and no metadata (imgproxy's `vips_jpegsave_go`):

- `thumbnail`: `thumbnail_buffer`, libvips' own shrink-on-load rule (a JPEG is decoded at
  1/n leaving the Lanczos3 resample at least a factor 2) and kernel: the same rule as
  ours by default.
- `imgproxy`: imgproxy's steps: the JPEG loaded with `shrink` n from imgproxy's rule
  (n = 8, 4, 2 when the integer part of 1/scale is at least that), then `resize` by what
  is left of the scale on each axis (Lanczos3, libvips' default kernel), then the save.

Prints one JSON line: libvips' version, the median CPU seconds (user + system of this
process, `time.process_time`) per image over ITERATIONS × files after one warm-up pass,
and the output size; writes the last output's bytes to OUT (for its PSNR).
"""

import json
import os
import statistics
import sys
import time

os.environ["VIPS_CONCURRENCY"] = "1"
import pyvips  # noqa: E402

pyvips.cache_set_max(0)


def save(image):
    try:
        return image.jpegsave_buffer(Q=80, optimize_coding=True, keep="none")
    except pyvips.Error:  # libvips before 8.15 has `strip` where 8.15 has `keep`
        return image.jpegsave_buffer(Q=80, optimize_coding=True, strip=True)


def imgproxy_shrink(scale):
    """imgproxy's JPEG shrink-on-load: from the integer part of 1/scale."""
    shrink = int(1 / scale)
    return 8 if shrink >= 8 else 4 if shrink >= 4 else 2 if shrink >= 2 else 1


def fit(data, width, height, mode):
    if mode == "thumbnail":
        return save(pyvips.Image.thumbnail_buffer(data, width, height=height, size="down"))
    header = pyvips.Image.new_from_buffer(data, "")
    scale = min(1.0, width / header.width, height / header.height)
    n = imgproxy_shrink(scale)
    image = pyvips.Image.jpegload_buffer(data, shrink=n, access="sequential")
    # What is left of the scale after the load, per axis, to land on the rounded size.
    target_w, target_h = max(1, round(header.width * scale)), max(1, round(header.height * scale))
    image = image.resize(target_w / image.width, vscale=target_h / image.height, kernel="lanczos3")
    return save(image)


def main(argv):
    if len(argv) < 6 or argv[0] not in ("thumbnail", "imgproxy"):
        print(__doc__, file=sys.stderr)
        return 64
    mode, width, height, iterations, out = argv[0], int(argv[1]), int(argv[2]), int(argv[3]), argv[4]
    sources = []
    for path in argv[5:]:
        with open(path, "rb") as f:
            sources.append(f.read())
    last = None
    for data in sources:  # warm-up: libvips' first call loads its modules
        last = fit(data, width, height, mode)
    samples = []
    for _ in range(iterations):
        for data in sources:
            start = time.process_time()
            last = fit(data, width, height, mode)
            samples.append(time.process_time() - start)
    with open(out, "wb") as f:
        f.write(last)
    check = pyvips.Image.new_from_buffer(last, "")
    print(json.dumps({"version": f"{pyvips.version(0)}.{pyvips.version(1)}.{pyvips.version(2)}",
                      "cpu": statistics.median(samples), "size": [check.width, check.height]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
