"""Reference values for WebImage's /info tests, computed by independent implementations.

  reference.py hashes W H RAWFILE
      BlurHash (PyPI `blurhash`, halcy's pure-Python encoder) for 1x1, 4x3, 3x4 and 9x9
      components, and ThumbHash (PyPI `thumbhash-python`) as upper-case hex, of the
      W x H RGBA pixels in RAWFILE.

Prints one JSON document on stdout.
"""
import json
import sys


def hashes(width, height, path):
    import blurhash
    from thumbhash.encode import rgba_to_thumbhash
    data = open(path, "rb").read()
    assert len(data) == width * height * 4
    rows = [[[data[(y * width + x) * 4 + c] for c in range(3)] for x in range(width)] for y in range(height)]
    result = {"blurhash": {}}
    for cx, cy in ((1, 1), (4, 3), (3, 4), (9, 9)):
        result["blurhash"][f"{cx}x{cy}"] = blurhash.encode(rows, cx, cy)
    result["thumbhash"] = rgba_to_thumbhash(width, height, list(data)).hex().upper()
    return result


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "hashes":
        result = hashes(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        raise SystemExit(f"unknown mode {mode}")
    json.dump(result, sys.stdout)
