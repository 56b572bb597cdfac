#!/usr/bin/env python3
"""Thumbnail quality against a reference nobody here wrote, side by side with libvips.

    thumbnail-quality.py fixtures CORPUS DIR
    thumbnail-quality.py measure DIR CASES.json

`fixtures` writes the sources into DIR, derived deterministically (for a given Pillow) from
the corpus' 12 MP photo (jpeg/large/dog_exif_extended_xmp_icc.jpg: 4032x3024, 4:2:0, an
sRGB ICC profile, EXIF orientation 6):

    baseline.jpg     the photo's pixels re-encoded by Pillow, quality 90, 4:2:0, no profile, no EXIF
    progressive.jpg  the same, progressive (libjpeg's standard scan script)
    icc.jpg          the original file (ICC-tagged, rotated by EXIF)
    large.png        3000x2000: the photo's 3:2 centre band, Lanczos-resized by Pillow
    bryce.webp       the corpus' 11158x2156 lossy WebP (webp/large/bryce.webp)

`measure` reads CASES.json, a list of {"name", "size", "output", "width", "height"}: a
thumbnail of DIR/name fitted to a size x size box that our code wrote as raw RGBA to
`output`. For each case it builds the reference -- Pillow's full decode of the source,
converted to sRGB with ImageCms when it embeds an ICC profile, turned upright by its EXIF
orientation, Lanczos-resized by Pillow to exactly our width x height -- and prints one
JSON object per line: our PSNR against it, and the PSNR of libvips' thumbnail
(pyvips.Image.thumbnail_buffer(data, size, height=size), Debian's libvips, default options)
against the same reference resized to libvips' own output size. PSNR is over the R, G and
B samples of every pixel. Needs Pillow, numpy and pyvips; exit 2 when they are missing.
"""

import io
import json
import math
import os
import shutil
import sys

try:
    import numpy as np
    import pyvips
    from PIL import Image, ImageCms
except ImportError as error:  # the caller skips the quality check and says why
    print(f"thumbnail-quality: {error}", file=sys.stderr)
    sys.exit(2)

PHOTO = "jpeg/large/dog_exif_extended_xmp_icc.jpg"
WEBP = "webp/large/bryce.webp"
TRANSPOSE = {2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180,
             4: Image.Transpose.FLIP_TOP_BOTTOM, 5: Image.Transpose.TRANSPOSE,
             6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE, 8: Image.Transpose.ROTATE_90}


def make_fixtures(corpus, out):
    os.makedirs(out, exist_ok=True)
    photo = Image.open(os.path.join(corpus, PHOTO)).convert("RGB")
    photo.save(os.path.join(out, "baseline.jpg"), quality=90, subsampling=2)
    photo.save(os.path.join(out, "progressive.jpg"), quality=90, subsampling=2, progressive=True)
    width, height = photo.size
    band = width * 2 // 3
    top = (height - band) // 2
    photo.crop((0, top, width, top + band)).resize((3000, 2000), Image.Resampling.LANCZOS) \
        .save(os.path.join(out, "large.png"))
    shutil.copyfile(os.path.join(corpus, PHOTO), os.path.join(out, "icc.jpg"))
    shutil.copyfile(os.path.join(corpus, WEBP), os.path.join(out, "bryce.webp"))


def full_reference(path):
    """Pillow's full decode, in sRGB, upright."""
    image = Image.open(path)
    image.load()
    profile = image.info.get("icc_profile")
    orientation = image.getexif().get(0x0112, 1)
    rgb = image.convert("RGB")
    if profile:
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile))
        rgb = ImageCms.profileToProfile(rgb, source, ImageCms.createProfile("sRGB"), outputMode="RGB")
    if orientation in TRANSPOSE:
        rgb = rgb.transpose(TRANSPOSE[orientation])
    return rgb


def psnr(a, b):
    diff = a[..., :3].astype(np.float64) - b[..., :3].astype(np.float64)
    mse = float(np.mean(diff * diff))
    return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)


def libvips_thumbnail(path, size):
    with open(path, "rb") as f:
        image = pyvips.Image.thumbnail_buffer(f.read(), size, height=size)
    return np.ndarray(buffer=image.write_to_memory(), dtype=np.uint8,
                      shape=(image.height, image.width, image.bands))


def measure(directory, cases_path):
    with open(cases_path) as f:
        cases = json.load(f)
    references = {}
    for case in cases:
        name, size, width, height = case["name"], case["size"], case["width"], case["height"]
        path = os.path.join(directory, name)
        if name not in references:
            references = {name: full_reference(path)}  # one full-size image in memory at a time
        reference = references[name]
        with open(case["output"], "rb") as f:
            ours = np.frombuffer(f.read(), np.uint8).reshape(height, width, 4)
        vips = libvips_thumbnail(path, size)
        at = lambda w, h: np.asarray(reference.resize((w, h), Image.Resampling.LANCZOS))
        print(json.dumps({"name": name, "size": size, "ours": round(psnr(ours, at(width, height)), 2),
                          "oursSize": [width, height], "libvips": round(psnr(vips, at(vips.shape[1], vips.shape[0])), 2),
                          "libvipsSize": [int(vips.shape[1]), int(vips.shape[0])]}), flush=True)


def main(argv):
    if len(argv) == 3 and argv[0] == "fixtures":
        make_fixtures(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "measure":
        measure(argv[1], argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
