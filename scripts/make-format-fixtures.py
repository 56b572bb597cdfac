#!/usr/bin/env python3
"""Writes the small AVIF/HEIC/JPEG XL test files in Tests/Fixtures/generated and the
reference decode of each, made by the Python plugins the issue names.

Run from the repository root:

    python3 -m venv .build-fixtures/venv
    .build-fixtures/venv/bin/pip install pillow pillow-avif-plugin pillow-heif pillow-jxl-plugin
    .build-fixtures/venv/bin/python scripts/make-format-fixtures.py

Every reference is RGBA8 as a PNG (`<name>.<frame>.png`), already turned upright the way
the plugin shows it (irot/imir for AVIF and HEIF, the codestream orientation for JPEG XL).
REFERENCES.tsv lists, per file: its frames, their durations in ms, the display size, and
how exact the match must be (`exact` for lossless files, `lossy` otherwise; the Swift tests
say what each allows). Files the plugins cannot write (10/12-bit AVIF, image sequences
beyond 8-bit, animated or ICC-tagged JPEG XL, HEIC thumbnails) are not made here: the tests use the
corpus's own such files, whose references are written from the plugins' decodes too
(`corpus-*` rows, cropped to keep the folder small).
"""
import io
import os
import sys

import pillow_avif  # noqa: F401  (registers AVIF with Pillow where Pillow lacks it)
import pillow_heif
import pillow_jxl  # noqa: F401  (registers JPEG XL)
from PIL import Image, ImageDraw, ImageOps

pillow_heif.register_heif_opener()

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "Tests", "Fixtures", "generated")
CORPUS = os.path.join(ROOT, "Tests", "Fixtures", "corpus")
rows = []


def picture(width=64, height=48, alpha=False, shift=0):
    """A gradient with shapes: smooth areas and edges, asymmetric so turns show."""
    im = Image.new("RGBA", (width, height))
    px = im.load()
    for y in range(height):
        for x in range(width):
            a = 255 if not alpha else max(0, min(255, 40 + 215 * x // (width - 1)))
            px[x, y] = ((x * 4 + shift) % 256, (y * 5) % 256, (128 + x - y + shift) % 256, a)
    d = ImageDraw.Draw(im)
    d.rectangle([4 + shift % 20, 4, 20 + shift % 20, 14], fill=(250, 30, 30, 255))
    d.ellipse([36, 20, 58, 42], fill=(20, 200, 60, 255 if not alpha else 128))
    d.line([0, height - 1, width // 2, 0], fill=(255, 255, 0, 255), width=2)
    return im if alpha else im.convert("RGB")


def references(name, data, kind, limit=None, crop=None):
    """Decodes `data` with the plugins and writes one PNG per frame."""
    im = Image.open(io.BytesIO(data))
    frames, durations = [], []
    for index in range(getattr(im, "n_frames", 1)):
        if limit is not None and index >= limit:
            break
        im.seek(index)
        frame = ImageOps.exif_transpose(im.convert("RGBA"))
        frame.info.pop("icc_profile", None)  # the reference holds the stored samples, untagged
        if crop:
            frame = frame.crop(crop)
        path = f"{name}.{index}.png"
        frame.save(os.path.join(OUT, path))
        frames.append(path)
        durations.append(str(im.info.get("duration", 0) if getattr(im, "n_frames", 1) > 1 else 0))
    w, h = ImageOps.exif_transpose(im.convert("RGBA")).size if not crop else (crop[2] - crop[0], crop[3] - crop[1])
    rows.append([name, kind, str(len(frames)), ",".join(durations), f"{w}x{h}",
                 ",".join(map(str, crop)) if crop else "", ",".join(frames)])


def write(name, data, kind):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    references(name, data, kind)


def encoded(im, fmt, **kwargs):
    out = io.BytesIO()
    im.save(out, format=fmt, **kwargs)
    return out.getvalue()


def exif_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))

    # AVIF (libavif through Pillow): 8-bit still, alpha, a sequence, orientation from
    # EXIF (libavif writes it as irot/imir), lossless.
    write("still.avif", encoded(picture(), "AVIF", quality=80, speed=6), "lossy")
    write("alpha.avif", encoded(picture(alpha=True), "AVIF", quality=80, speed=6), "lossy")
    frames = [picture(shift=s) for s in (0, 40, 80)]
    write("sequence.avif", encoded(frames[0], "AVIF", save_all=True, append_images=frames[1:],
                                   duration=[100, 200, 300], quality=80, speed=6), "lossy")
    for value in (5, 6):
        write(f"orientation-{value}.avif",
              encoded(picture(), "AVIF", quality=80, speed=6, exif=exif_orientation(value)), "lossy")

    # HEIC (libheif + x265 through pillow-heif): 8-bit, alpha, 10-bit, orientation.
    write("still.heic", encoded(picture(), "HEIF", quality=80), "lossy")
    write("alpha.heic", encoded(picture(alpha=True), "HEIF", quality=80), "lossy")
    deep = pillow_heif.from_bytes(mode="RGB;16", size=(64, 48),
                                  data=b"".join(int(((x * 1024 + y * 37) % 65536)).to_bytes(2, sys.byteorder) * 3
                                                for y in range(48) for x in range(64)))
    out = io.BytesIO()
    deep.save(out, format="HEIF", quality=90)
    write("10bit.heic", out.getvalue(), "lossy")
    write("orientation-6.heic", encoded(picture(), "HEIF", quality=80, exif=exif_orientation(6)), "lossy")

    # JPEG XL (libjxl through pillow-jxl-plugin): lossy still, lossless with alpha, orientation.
    write("still.jxl", encoded(picture(), "JXL", quality=85), "lossy")
    write("alpha-lossless.jxl", encoded(picture(alpha=True), "JXL", lossless=True), "exact")

    # A wide-gamut ICC profile (DCI-P3 D65, from a corpus PNG) embedded in AVIF and HEIC:
    # the references keep the stored samples, the tests check the conversion to sRGB.
    # (pillow-jxl-plugin writes no ICC profile; the JPEG XL test makes its own file.)
    with Image.open(os.path.join(CORPUS, "png/wuffs/red-blue-gradient.dcip3d65-no-chrm-no-gama.png")) as source:
        icc = source.info["icc_profile"]
    with open(os.path.join(OUT, "dci-p3-d65.icc"), "wb") as f:
        f.write(icc)
    write("p3.avif", encoded(picture(), "AVIF", quality=80, speed=6, icc_profile=icc), "lossy")
    write("p3.heic", encoded(picture(), "HEIF", quality=80, icc_profile=icc), "lossy")

    # Corpus files the plugins cannot write: 10/12-bit AVIF and a 12-bit sequence.
    for path, crop in [
        ("avif/libavif/colors-animated-12bpc-keyframes-0-2-3.avif", None),
        ("avif/libavif/cosmos1650_yuv444_10bpc_p3pq.avif", (480, 180, 544, 244)),
        ("avif/libavif/weld_sato_12B_8B_q0.avif", (480, 300, 544, 364)),
    ]:
        with open(os.path.join(CORPUS, path), "rb") as f:
            name = "corpus-" + os.path.basename(path)
            references(name, f.read(), "lossy", crop=crop)
            rows[-1].insert(0, path)
    with open(os.path.join(OUT, "REFERENCES.tsv"), "w") as f:
        f.write("file\tkind\tframes\tdurations_ms\tdisplay\tcrop\treferences\n")
        for row in rows:
            if len(row) == 8:  # a corpus file: its corpus path replaces the name
                row = [row[0]] + row[2:]
            f.write("\t".join(row) + "\n")
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    main()
