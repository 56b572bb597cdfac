#!/usr/bin/env python3
# Run once with Pillow (pip install pillow); the output is embedded in
# Sources/webimage/Demo/DemoProgressiveJPEG.swift as base64.
# Makes the demo's progressive JPEG: a synthetic landscape (sky, sun, hills), no external source.
import math, random, sys
from PIL import Image, ImageDraw, ImageFilter
W, H = 480, 320
random.seed(7)
img = Image.new("RGB", (W, H))
px = img.load()
for y in range(H):
    t = y / H
    for x in range(W):
        if t < 0.55:
            r, g, b = int(70 + 120 * t), int(130 + 90 * t), int(220 - 40 * t)
        else:
            u = (t - 0.55) / 0.45
            r, g, b = int(40 + 30 * u), int(90 + 40 * u), int(140 - 30 * u)
        px[x, y] = (r, g, b)
d = ImageDraw.Draw(img)
d.ellipse((340, 40, 400, 100), fill=(255, 225, 140))
for layer, (col, base, amp) in enumerate([((90, 110, 120), 150, 40), ((50, 90, 60), 180, 25), ((30, 70, 40), 200, 15)]):
    pts = [(0, H)]
    for x in range(0, W + 8, 8):
        y = base + amp * math.sin(x / (40 + 20 * layer) + layer) + random.uniform(-6, 6)
        pts.append((x, y))
    pts.append((W, H))
    d.polygon(pts, fill=col)
noise = Image.effect_noise((W, H), 18).convert("RGB")
img = Image.blend(img.filter(ImageFilter.GaussianBlur(1.2)), noise, 0.08)
img.save(sys.argv[1] if len(sys.argv) > 1 else "progressive.jpg", "JPEG", quality=82, progressive=True, optimize=True)
