#!/usr/bin/env python3
"""The frame sizes of a binary's Swift `async` functions, largest first.

Every `async` function has an "async function pointer" record (its mangled name ends in
`Tu`): a 32-bit relative offset to the function, then the 32-bit size of the context
(frame) the caller allocates for it with `swift_task_alloc`. A load that waits (for a
transfer, a decode) keeps the frames of every function between its task and the wait,
so these sizes say what a waiting load holds; an `async` function's frame has room for
everything inlined into it, on every path.

    scripts/async-frames.py BINARY [FILTER] [COUNT]

prints COUNT rows (default 40) of `size  demangled name` whose demangled name contains
FILTER (default `WebImage`). A release build's binary gives the sizes users get, e.g.
Benchmarks/.build/release/webimage-bench.
"""
import struct
import subprocess
import sys


def sections(binary):
    """(address, file offset, size) of each ELF section."""
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout
    rows = []
    for line in out.splitlines():
        fields = line.replace("[ ", "[").split()
        if len(fields) > 6 and fields[0].startswith("[") and fields[0] != "[Nr]":
            try:
                rows.append((int(fields[3], 16), int(fields[4], 16), int(fields[5], 16)))
            except ValueError:
                pass
    return rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    binary = sys.argv[1]
    wanted = sys.argv[2] if len(sys.argv) > 2 else "WebImage"
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    symbols = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    pointers = [(int(f[0], 16), f[2]) for f in (line.split() for line in symbols.splitlines())
                if len(f) == 3 and f[2].endswith("Tu")]
    with open(binary, "rb") as handle:
        data = handle.read()
    where = [s for s in sections(binary) if s[0]]
    sized = []
    for address, name in pointers:
        for start, offset, size in where:
            if start <= address < start + size:
                _, context_size = struct.unpack_from("<iI", data, offset + address - start)
                sized.append((context_size, name))
                break
    names = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(n for _, n in sized),
                           capture_output=True, text=True, check=True).stdout.splitlines()
    rows = sorted(((size, demangled) for (size, _), demangled in zip(sized, names) if wanted in demangled), reverse=True)
    for size, demangled in rows[:count]:
        print(f"{size:6d}  {demangled.removeprefix('async function pointer to ')}")


if __name__ == "__main__":
    main()
