"""URLs from two imgproxy URL builders published on PyPI, as their users write them.

Run by Tests/WebImageServerTests/Deploy/URLBuilderTests.swift with the test virtual
environment's Python (`make test-venv`):

    imgproxy_builders.py SOURCE_URL OUT.json

It reads the deployment's IMGPROXY_URL, IMGPROXY_KEY and IMGPROXY_SALT from the environment,
as both builders' users do (pyimgproxy reads them itself; an empty key is an unsigned
deployment, where both builders write a placeholder signature), builds each URL with the builder's
own API and writes a JSON list of cases: the URL and what imgproxy answers for it, from
imgproxy's documentation (docs/usage/processing.mdx), worked out by hand beside each case for
the 800x600 source the test serves (a 20 px white frame around a gradient). Nothing here
comes from the server under test.
"""

import json
import os
import sys

import imgproxy  # imgproxy 1.0.0: ImgProxy(...), path /{advanced}/g:{gravity}/rs:{type}:{w}:{h}:{enlarge}/{base64}{.ext}
import pyimgproxy  # pyimgproxy 0.4: ImgProxy().image(url).option(...).url, long option names, plain/ sources

SOURCE, OUT = sys.argv[1], sys.argv[2]
BASE = os.environ["IMGPROXY_URL"]
KEY, SALT = os.environ.get("IMGPROXY_KEY", ""), os.environ.get("IMGPROXY_SALT", "")
SIGNED = bool(KEY)

cases = []


def case(builder, what, url, status=200, size=None, fmt=None, header=None):
    cases.append({"builder": builder, "what": what, "url": url, "status": status,
                  "size": size, "format": fmt, "header": header})


# --- imgproxy 1.0.0 ------------------------------------------------------------------
B = "imgproxy 1.0.0"
signed = imgproxy.ImgProxy.factory(proxy_host=BASE, key=KEY, salt=SALT)

# rs:auto:0:0:0: nothing to fit, the source as it is (PNG stays PNG).
case(B, "defaults (rs:auto:0:0:0, g:ce)", signed(SOURCE)(), size=[800, 600], fmt="png")
# auto: a landscape box on a landscape source fills it.
case(B, "auto 300x200 (fill)", signed(SOURCE, width=300, height=200)(), size=[300, 200])
# auto: a portrait box on a landscape source fits: min(200/800, 300/600) = 0.25.
case(B, "auto 200x300 (fit)", signed(SOURCE, width=200, height=300)(), size=[200, 150])
# fit: min(300/800, 200/600) = 1/3: 266.7 x 200, rounded.
case(B, "fit 300x200", signed(SOURCE, resizing_type="fit", width=300, height=200)(), size=[267, 200])
case(B, "fill 300x300 gravity north", signed(SOURCE, resizing_type="fill", width=300, height=300, gravity="no")(), size=[300, 300])
case(B, "fill 200x200 smart gravity", signed(SOURCE, resizing_type="fill", width=200, height=200, gravity="sm")(), size=[200, 200])
# enlarge: width 1600 is scale 2.
case(B, "fit width 1600 enlarged", signed(SOURCE, resizing_type="fit", width=1600, enlarge=True)(), size=[1600, 1200])
# Without enlarge the scale stops at 1.
case(B, "fit width 1600 not enlarged", signed(SOURCE, resizing_type="fit", width=1600)(), size=[800, 600])
case(B, "extension .jpg", signed(SOURCE, resizing_type="fit", width=400, height=400, extension="jpg")(), size=[400, 300], fmt="jpeg")
case(B, "extension .webp", signed(SOURCE, resizing_type="fit", width=400, height=400, extension="webp")(), size=[400, 300], fmt="webp")
# Padding is added after the resize: 267+10+10 x 200+10+10.
case(B, "advanced pd:10", signed(SOURCE, "pd:10", resizing_type="fit", width=300, height=200)(), size=[287, 220])
# Rotation by 90 swaps the source's sides before the fit: min(300/600, 200/800) = 0.25.
case(B, "advanced rot:90", signed(SOURCE, "rot:90", resizing_type="fit", width=300, height=200)(), size=[150, 200])
# Crop first (400x300 in the centre), then fit: min(300/400, 200/300) = 2/3.
case(B, "advanced c:400:300", signed(SOURCE, "c:400:300", resizing_type="fit", width=300, height=200)(), size=[267, 200])
# The 20 px white frame is trimmed away.
case(B, "advanced t:10", signed(SOURCE, "t:10")(), size=[760, 560])
case(B, "advanced q:40/f:jpg", signed(SOURCE, "q:40", "f:jpg", resizing_type="fit", width=400, height=400)(), size=[400, 300], fmt="jpeg")
# extend without enlarge pads the 800x600 picture to the box.
case(B, "advanced bg:ff0000/ex:1", signed(SOURCE, "bg:ff0000", "ex:1", resizing_type="fit", width=1000, height=1000)(), size=[1000, 1000])
case(B, "advanced z:0.5", signed(SOURCE, "z:0.5")(), size=[400, 300])
# dpr 2 doubles the box: fit 400x300.
case(B, "advanced dpr:2", signed(SOURCE, "dpr:2", resizing_type="fit", width=200, height=150)(), size=[400, 300])
# A past expiry is 404.
case(B, "advanced exp:1 (expired)", signed(SOURCE, "exp:1")(), status=404)
case(B, "advanced fn:holiday/att:1", signed(SOURCE, "fn:holiday", "att:1")(), size=[800, 600],
     header=["Content-Disposition", "attachment; filename=\"holiday.png\""])
# resizing_algorithm is imgproxy Pro.
case(B, "advanced ra:lanczos2 (Pro)", signed(SOURCE, "ra:lanczos2")(), status=400)
# Without a key the builder signs "insecure": refused by a deployment that has a key, and
# any signature passes where there is none. auto with width 100 only: 100 x 75.
expected = {"status": 403} if SIGNED else {"size": [100, 75]}
case(B, "URL without a key", imgproxy.ImgProxy(SOURCE, proxy_host=BASE, width=100)(), **expected)
case(B, "URL with another key", imgproxy.ImgProxy(SOURCE, proxy_host=BASE, key="00" * 16, salt="11" * 16, width=100)(), **expected)

# --- pyimgproxy 0.4 ------------------------------------------------------------------
B = "pyimgproxy 0.4"
proxy = pyimgproxy.ImgProxy()  # IMGPROXY_URL, IMGPROXY_KEY, IMGPROXY_SALT from the environment
img = proxy.image(SOURCE)

case(B, "no options (plain source)", img.url, size=[800, 600], fmt="png")
case(B, "resize fit 300x200", img.resize("fit", 300, 200).url, size=[267, 200])
case(B, "resize fill 300x200 enlarge extend", img.resize("fill", 300, 200, True, True).url, size=[300, 200])
case(B, "resize auto 200x300 (fit)", img.resize("auto", 200, 300).url, size=[200, 150])
# size: width 300, the default type fit: 300 x 225.
case(B, "size 300", img.size(300).url, size=[300, 225])
case(B, "resizing_type force 300x300", img.resizing_type("force").width(300).height(300).url, size=[300, 300])
# fill-down: the 2:1 box is larger than the source, so the source is cropped to 2:1: 800x400.
case(B, "resizing_type fill-down 1000x500", img.resizing_type("fill-down").width(1000).height(500).url, size=[800, 400])
case(B, "width 400", img.width(400).url, size=[400, 300])
case(B, "height 150", img.height(150).url, size=[200, 150])
case(B, "zoom 0.5", img.zoom(0.5).url, size=[400, 300])
case(B, "zoom 0.5 x 0.25", img.zoom(0.5, 0.25).url, size=[400, 150])
case(B, "dpr 2, resize fit 150x100", img.dpr(2).resize("fit", 150, 100).url, size=[267, 200])
case(B, "enlarge, width 1600", img.enlarge(True).width(1600).url, size=[1600, 1200])
case(B, "extend, resize fit 1000x1000", img.extend(True).resize("fit", 1000, 1000).url, size=[1000, 1000])
# fit gives 300x225; extended to the box's 1:1 aspect ratio.
case(B, "extend_aspect_ratio, resize fit 300x300", img.extend_aspect_ratio(True).resize("fit", 300, 300).url, size=[300, 300])
case(B, "gravity soea 10 10, fill 200x200", img.gravity("soea", 10, 10).resize("fill", 200, 200).url, size=[200, 200])
case(B, "gravity fp 0.3 0.7, fill 200x200", img.gravity("fp", 0.3, 0.7).resize("fill", 200, 200).url, size=[200, 200])
case(B, "crop 0.5 x 0.5 (relative)", img.crop(0.5, 0.5).url, size=[400, 300])
case(B, "crop 200x100 nowe", img.crop(200, 100, "nowe").url, size=[200, 100])
# 0 is the source's full width.
case(B, "crop 0x300", img.crop(0, 300).url, size=[800, 300])
case(B, "trim 10", img.trim(10).url, size=[760, 560])
case(B, "trim 10 white, equal sides", img.trim(10, "ffffff", True, True).url, size=[760, 560])
# CSS order: top 10, right 20, bottom = top, left = right.
case(B, "padding 10 20", img.padding(10, 20).url, size=[840, 620])
case(B, "width 400, padding 10 20 30 40", img.width(400).padding(10, 20, 30, 40).url, size=[460, 340])
case(B, "auto_rotate false", img.auto_rotate(False).url, size=[800, 600])
case(B, "rotate 90", img.rotate(90).url, size=[600, 800])
case(B, "rotate 270, width 300", img.rotate(270).width(300).url, size=[300, 400])
case(B, "rotate 45 (not a multiple of 90)", img.rotate(45).url, status=400)
case(B, "flip (add_option)", img.add_option("flip", True, False).url, size=[800, 600])
case(B, "background hex, format jpg", img.background(hex_color="ff0000").format("jpg").url, size=[800, 600], fmt="jpeg")
case(B, "background r g b", img.background(red=0, green=128, blue=255).url, size=[800, 600])
case(B, "blur 2", img.blur(2).url, size=[800, 600])
case(B, "sharpen 0.5", img.sharpen(0.5).url, size=[800, 600])
case(B, "pixelate 8", img.pixelate(8).url, size=[800, 600])
case(B, "strip_metadata, keep_copyright, strip_color_profile",
     img.strip_metadata(True).keep_copyright(True).strip_color_profile(True).url, size=[800, 600])
case(B, "enforce_thumbnail", img.enforce_thumbnail(True).url, size=[800, 600])
case(B, "quality 50, format jpg", img.quality(50).format("jpg").url, size=[800, 600], fmt="jpeg")
case(B, "format webp", img.width(400).format("webp").url, size=[400, 300], fmt="webp")
case(B, "format avif", img.width(200).format("avif").url, size=[200, 150], fmt="avif")
case(B, "raw", img.raw(True).url, size=[800, 600])
case(B, "cachebuster", img.cachebuster("v2").url, size=[800, 600])
case(B, "return_attachment", img.return_attachment(True).url, size=[800, 600], header=["Content-Disposition", "attachment"])
# Security options need IMGPROXY_ALLOW_SECURITY_OPTIONS: 403 without it.
case(B, "max_src_resolution (security option)", img.max_src_resolution(50).url, status=403)
case(B, "max_src_file_size (security option)", img.max_src_file_size(100000).url, status=403)
# Pro options are refused.
case(B, "background_alpha (Pro)", img.background_alpha(0.5).url, status=400)
case(B, "brightness (Pro)", img.brightness(10).url, status=400)
case(B, "unsharp_masking (Pro)", img.unsharp_masking("auto", 1, 24).url, status=400)
# A query string makes pyimgproxy encode the source as base64.
case(B, "source with a query (base64)", img.source_url(SOURCE + "?v=1").width(400).url, size=[400, 300])

with open(OUT, "w") as f:
    json.dump(cases, f, indent=1)
