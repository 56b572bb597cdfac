"""Deterministic bench corpus: photograph-like images from a fixed seed.

A "photo" is smooth colour fields at three scales (sky-like gradients, mid-size
shapes, fine texture) plus per-pixel sensor noise, so JPEG sizes and entropy are
close to real camera pictures (about 0.3 bytes per pixel at quality 85).

With numpy + Pillow the full corpus is written; without them (the smoke test on a
bare system Python) a tiny corpus is written with the standard library only: PNG
via zlib, animated GIF via a plain LZW writer, and JPEG/WebP copied from the shared
real corpus, since neither can be encoded in a few lines of pure Python.
"""

import os
import shutil
import struct
import zlib
from pathlib import Path

SEED = 20261121
VERSION = "corpus-v2"

try:  # The full generator needs both; the fallback needs neither.
    import numpy as np
    from PIL import Image, ImageChops
    HAVE_IMAGING = True
except ImportError:  # pragma: no cover - depends on the interpreter
    HAVE_IMAGING = False

# Real files added to the generated ones (paths inside Tests/Fixtures/corpus).
REAL_LARGE_JPEGS = [
    "jpeg/sdwebimage/TestImageLarge.jpg",
    "jpeg/large/dog_exif_extended_xmp_icc.jpg",
    "jpeg/sdwebimage/TestJFIF.jpg",
    "jpeg/jpeg-decoder/large_image.jpg",
    "jpeg/sdwebimage/TestHDR.jpeg",
]
REAL_EXTRA = {
    "png": ["png/large/harvesters.png", "png/image-png/kodim23.png"],
    "gif": ["gif/image-gif/gifplayer-muybridge.gif", "gif/sdwebimage/1@2x.gif"],
    "webp": ["webp/sdwebimage/TestAnimatedImageMemory.webp", "webp/large/harvesters.lossless.webp"],
}
THUMBNAIL_SOURCE = "jpeg/sdwebimage/TestImageLarge.jpg"
THUMBNAIL_BASELINE_SIZE = (5250, 3450)


class Plan:
    """How big the corpus is: the full bench or the smoke test's tiny one."""

    def __init__(self, smoke, stdlib):
        self.smoke = smoke
        self.imaging = HAVE_IMAGING and not stdlib
        if smoke:
            self.photo_megapixels = [0.01, 0.02]
            self.small_count, self.small_size = 10, (48, 32)
            self.frames, self.anim_size, self.still_size = 3, (40, 30), (64, 48)
        else:
            self.photo_megapixels = [1 + 11 * i / 19 for i in range(20)]
            self.small_count, self.small_size = 1000, (560, 372)
            self.frames, self.anim_size, self.still_size = 24, (400, 300), (1600, 1067)

    @property
    def stamp(self):
        mode = "imaging" if self.imaging else "stdlib"
        return f"{VERSION} seed={SEED} smoke={self.smoke} {mode}"


def generate(out_dir, shared_corpus, smoke=False, stdlib=False, log=print):
    """Writes the corpus under `out_dir` unless the same one is already there.
    `stdlib` forces the standard-library fallback even where numpy and Pillow exist.

    Returns a dict of lists of paths: photos, small, png, gif, webp, large, thumbnail
    (the real progressive 4:4:4 photo), thumbnail-baseline (a generated baseline 4:2:0
    photo of the same size).
    """
    plan = Plan(smoke, stdlib)
    out = Path(out_dir)
    stamp_file = out / "STAMP"
    if not (stamp_file.exists() and stamp_file.read_text() == plan.stamp):
        if out.exists():
            shutil.rmtree(out)
        for sub in ("photos", "small", "png", "gif", "webp", "thumbs"):
            (out / sub).mkdir(parents=True)
        log(f"generating the bench corpus in {out} ({plan.stamp})")
        if plan.imaging:
            _generate_imaging(out, plan)
        else:
            _generate_stdlib(out, plan, Path(shared_corpus))
        stamp_file.write_text(plan.stamp)
    return _listing(out, Path(shared_corpus), plan)


def _listing(out, shared, plan):
    def files(sub):
        return sorted(str(p) for p in (out / sub).iterdir() if p.is_file())

    def real(paths):
        return [str(shared / p) for p in paths if (shared / p).is_file()]

    photos = files("photos")
    listing = {"photos": photos, "small": files("small")}
    for fmt in ("png", "gif", "webp"):
        listing[fmt] = files(fmt) + ([] if plan.smoke else real(REAL_EXTRA[fmt]))
    if plan.smoke:
        listing["thumbnail"] = photos[-1:]
        listing["thumbnail-baseline"] = photos[:1]
        listing["large"] = photos
    else:
        listing["thumbnail"] = real([THUMBNAIL_SOURCE])
        listing["thumbnail-baseline"] = files("thumbs") if plan.imaging else []
        big = real(REAL_LARGE_JPEGS)
        listing["large"] = big + photos[len(photos) - (20 - len(big)):]
    return listing


# MARK: numpy + Pillow


def _photo(rng, width, height):
    """An RGB photograph-like image: smooth fields at three scales plus noise.

    Each layer is an 8-bit image centred on 128, upsampled and summed with saturation
    by Pillow's C code, so a 12 MP photo takes about a second.
    """
    def layer(cells_x, cells_y, amplitude):
        coarse = rng.integers(128 - amplitude, 128 + amplitude + 1, (max(2, cells_y), max(2, cells_x), 3),
                              dtype=np.uint8)
        return Image.fromarray(coarse, "RGB").resize((width, height), Image.BICUBIC)

    img = layer(4, 3, 100)
    img = ImageChops.add(img, layer(width // 48, height // 48, 45), 1.0, -128)
    img = ImageChops.add(img, layer(width // 4, height // 4, 34), 1.0, -128)
    noise = Image.fromarray(rng.integers(119, 138, (height, width, 3), dtype=np.uint8), "RGB")
    return ImageChops.add(img, noise, 1.0, -128)


def _generate_imaging(out, plan):
    rng = np.random.default_rng(SEED)
    for i, mp in enumerate(plan.photo_megapixels):
        width = int(round((mp * 1e6 * 1.5) ** 0.5))
        height = int(round(width / 1.5))
        _photo(rng, width, height).save(out / "photos" / f"photo-{i + 1:02d}.jpg", quality=85)
    if not plan.smoke:
        # The size of THUMBNAIL_SOURCE, stored the way most cameras and sites store
        # photos (baseline, 4:2:0), where libjpeg's DCT scaling pays off.
        big = _photo(np.random.default_rng([SEED, 5250]), *THUMBNAIL_BASELINE_SIZE)
        big.save(out / "thumbs" / "baseline-5250x3450.jpg", quality=85, subsampling="4:2:0", progressive=False)
    sw, sh = plan.small_size
    for i in range(plan.small_count):
        small = np.random.default_rng([SEED, i])
        _photo(small, sw, sh).save(out / "small" / f"s{i:04d}.jpg", quality=85)

    still_w, still_h = plan.still_size
    still = _photo(rng, still_w, still_h)
    still.save(out / "png" / "photo-rgb.png")
    alpha = np.tile(np.linspace(0, 255, still_w, dtype=np.float32), (still_h, 1)).astype(np.uint8)
    rgba = still.copy()
    rgba.putalpha(Image.fromarray(alpha))
    rgba.save(out / "png" / "photo-rgba.png")
    still.quantize(256).save(out / "png" / "photo-palette.png")
    still.save(out / "webp" / "photo-lossy.webp", quality=80)
    rgba.resize((still_w // 2, still_h // 2)).save(out / "webp" / "photo-lossless.webp", lossless=True)

    aw, ah = plan.anim_size
    scene = _photo(rng, aw * 2, ah)
    frames = [scene.crop((k * aw // plan.frames, 0, k * aw // plan.frames + aw, ah)) for k in range(plan.frames)]
    palette_frames = [f.quantize(256) for f in frames]
    palette_frames[0].save(out / "gif" / "pan.gif", save_all=True, append_images=palette_frames[1:],
                           duration=40, loop=0)
    frames[0].save(out / "webp" / "pan.webp", save_all=True, append_images=frames[1:],
                   duration=40, loop=0, quality=80)


# MARK: standard library only (smoke fallback)


class _Noise:
    """A tiny seeded LCG, so the fallback corpus is deterministic without `random` state."""

    def __init__(self, seed):
        self.state = seed & 0xFFFFFFFF

    def next(self, spread):
        self.state = (self.state * 1664525 + 1013904223) & 0xFFFFFFFF
        return (self.state >> 16) % (2 * spread + 1) - spread


def _rgb_rows(width, height, noise, offset=0):
    rows = []
    for y in range(height):
        row = bytearray()
        for x in range(width):
            for c in range(3):
                v = (x + offset) * 255 // width * (c + 1) // 3 + y * 255 // height * (3 - c) // 3
                row.append(max(0, min(255, v // 2 + 64 + noise.next(6))))
        rows.append(bytes(row))
    return rows


def _png(path, width, height, rows, channels):
    def chunk(tag, body):
        return struct.pack(">I", len(body)) + tag + body + struct.pack(">I", zlib.crc32(tag + body))

    colour_type = 6 if channels == 4 else 2
    raw = b"".join(b"\x00" + row for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, colour_type, 0, 0, 0)
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                           + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def _lzw_uncompressed(indices):
    """GIF LZW data with 8-bit minimum code size that never grows its table:
    a clear code every 250 pixels keeps every code 9 bits wide."""
    clear, end = 256, 257
    codes = []
    for start in range(0, len(indices), 250):
        codes.append(clear)
        codes.extend(indices[start:start + 250])
    codes.append(end)
    out, acc, bits = bytearray(), 0, 0
    for code in codes:
        acc |= code << bits
        bits += 9
        while bits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        out.append(acc & 0xFF)
    blocks = bytearray([8])
    for i in range(0, len(out), 255):
        part = out[i:i + 255]
        blocks += bytes([len(part)]) + part
    return bytes(blocks + b"\x00")


def _gif(path, width, height, frames):
    palette = b"".join(bytes([(i & 0xE0), (i & 0x1C) << 3, (i & 0x03) << 6]) for i in range(256))
    data = bytearray(b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, 0, 0) + palette)
    data += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"  # loop forever
    for indices in frames:
        data += b"\x21\xF9\x04\x04" + struct.pack("<H", 4) + b"\x00\x00"  # 40 ms, keep previous
        data += b"\x2C" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        data += _lzw_uncompressed(indices)
    data += b"\x3B"
    Path(path).write_bytes(bytes(data))


def _small_real(shared, fmt, count):
    """The `count` smallest decodable files of `fmt` of at least 4 KB (so they hold
    real pixels, not 1×1 edge cases) listed in the shared MANIFEST.tsv."""
    manifest = shared / "MANIFEST.tsv"
    if not manifest.is_file():
        return []
    rows = []
    for line in manifest.read_text().splitlines()[1:]:
        cols = line.split("\t")
        if len(cols) > 4 and cols[2] == fmt and cols[3] == "ok" and int(cols[1]) >= 4096 \
                and (shared / cols[0]).is_file():
            rows.append((int(cols[1]), cols[0]))
    return [shared / p for _, p in sorted(rows)[:count]]


def _generate_stdlib(out, plan, shared):
    noise = _Noise(SEED)
    w, h = plan.still_size
    _png(out / "png" / "photo-rgb.png", w, h, _rgb_rows(w, h, noise), 3)
    rgba = [bytes(b for i in range(0, len(r), 3) for b in (r[i], r[i + 1], r[i + 2], i * 255 // len(r)))
            for r in _rgb_rows(w, h, noise)]
    _png(out / "png" / "photo-rgba.png", w, h, rgba, 4)
    aw, ah = plan.anim_size
    frames = []
    for k in range(plan.frames):
        rows = _rgb_rows(aw, ah, noise, offset=k * 4)
        frames.append([(r[i] & 0xE0) | ((r[i + 1] >> 3) & 0x1C) | (r[i + 2] >> 6)
                       for r in rows for i in range(0, len(r), 3)])
    _gif(out / "gif" / "pan.gif", aw, ah, frames)
    for i, src in enumerate(_small_real(shared, "jpeg", len(plan.photo_megapixels))):
        shutil.copyfile(src, out / "photos" / f"photo-{i + 1:02d}.jpg")
    for i, src in enumerate(_small_real(shared, "jpeg", plan.small_count)):
        shutil.copyfile(src, out / "small" / f"s{i:04d}.jpg")
    for src in _small_real(shared, "webp", 2):
        shutil.copyfile(src, out / "webp" / src.name)


def file_bytes(paths):
    return sum(os.path.getsize(p) for p in paths)
