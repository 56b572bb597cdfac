#!/usr/bin/env python3
"""Colour-tagged APNGs for the corpus: wuffs' animated-red-blue.apng with a gAMA chunk
(gamma 1.0) and with the iCCP chunk (a DCI-P3 D65 profile) of wuffs'
red-blue-gradient.dcip3d65-no-chrm-no-gama.png, each inserted right after IHDR, so
the lazy and eager APNG decoders both have a colour conversion to agree on.

Run from the repository root: python3 scripts/make-color-apng.py
"""
import struct
import zlib

CORPUS = "Tests/Fixtures/corpus/png/"
SOURCE = CORPUS + "wuffs/animated-red-blue.apng"
PROFILE = CORPUS + "wuffs/red-blue-gradient.dcip3d65-no-chrm-no-gama.png"
OUT = CORPUS + "wuffs-derived/"


def chunks(data):
    """(type, payload, whole chunk bytes) of every chunk after the signature."""
    i = 8
    while i < len(data):
        (n,) = struct.unpack(">I", data[i:i + 4])
        yield data[i + 4:i + 8], data[i + 8:i + 8 + n], data[i:i + 12 + n]
        i += 12 + n


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def with_chunk_after_ihdr(data, extra):
    out = data[:8]
    for kind, _, whole in chunks(data):
        out += whole
        if kind == b"IHDR":
            out += extra
    return out


def main():
    source = open(SOURCE, "rb").read()
    iccp = next(whole for kind, _, whole in chunks(open(PROFILE, "rb").read()) if kind == b"iCCP")
    outputs = {
        "animated-red-blue.gamma1dot0.apng": chunk(b"gAMA", struct.pack(">I", 100000)),
        "animated-red-blue.dcip3d65.apng": iccp,
    }
    import os
    os.makedirs(OUT, exist_ok=True)
    for name, extra in outputs.items():
        data = with_chunk_after_ihdr(source, extra)
        open(OUT + name, "wb").write(data)
        print(name, len(data))


if __name__ == "__main__":
    main()
