"""Where a 12 MP serve request's CPU goes: `webimage serve --no-cache` behind the same nginx
origin and the same URL list as the serve rows (run `compare --only serve` first: it makes
the 4032×3024 sources and the mixed set), driven by wrk at c=4 while `perf record` samples the server; the
samples are then summed by stage (decode, resample, encode, colour, fetch/HTTP, memory,
Swift runtime, scheduling, kernel) from their symbol and library names.

    python profile_serve.py [--set big|mixed] [--seconds 20] [--concurrency 4] [--webimage PATH]
                            [--keep perf.data] [--report perf.data]

Prints the table as Markdown and, last, one JSON line. Linux only (perf)."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))

from http_load import Server, free_port, tree_cpu, wrk  # noqa: E402
from nginx_origin import NginxOrigin  # noqa: E402
from serve_bench import ServeBench, ours_path  # noqa: E402

# First match wins: (stage, pattern on "dso symbol").
STAGES = [
    ("libjpeg-turbo, unnamed (Debian strips it: the 1/4-scale decode and the q80 encode together)",
     r"libjpeg\.so.*0x"),
    ("decode (libjpeg-turbo: entropy, IDCT, upsampling, colour conversion)",
     r"decode_mcu|jpeg_idct|jsimd_idct|jsimd_h2v|jsimd_ycc|ycc_rgb|h2v[12]_|sep_upsample|process_data_simple"
     r"|decompress_onepass|jpeg_read|jpeg_consume|jpeg_fill|fill_bit_buffer|jpeg_huff_decode|decode_mcu"),
    ("encode (libjpeg-turbo: colour conversion, FDCT, quantise, Huffman)",
     r"jsimd_fdct|jsimd_rgb_ycc|jsimd_quantize|encode_mcu|jsimd_huff|jpeg_fdct|forward_DCT|rgb_ycc|compress_data"
     r"|jpeg_write|jsimd_h2v[12]_downsample|jsimd_encode|finish_pass_huff|emit_|flush_bits|empty_output"),
    ("other codecs (libpng + zlib, libwebp, libgif, our GIF LZW decoder and palette quantiser)",
     r"libpng|libz\.so|libwebp|libsharpyuv|libgif|GIFLZW|GIFQuantizer|GIFEncoder|GIFDecoder|PNGCoder|WebPCoder"),
    ("resample (Lanczos3, CResample)", r"CResample|resample|lanczos|Lanczos|wi_rs_|vertical_avx|horizontal_avx|"
     r"vertical_sse|horizontal_sse"),
    ("colour (lcms2)", r"liblcms|cms[A-Z]"),
    ("fetch + HTTP (SwiftNIO, AsyncHTTPClient, Hummingbird, sockets)",
     r"NIO|AsyncHTTPClient|Hummingbird|HTTPTypes|HTTPParser|llhttp|c_nio|sendmsg|recvmsg|readv|writev|tcp_|ip_|skb|"
     r"sock_|__sys_recv|__sys_send|epoll|inet_|loopback|netif|__netif|net_rx|dev_hard"),
    ("memory (malloc, free, memcpy, page faults)",
     r"malloc|free|memcpy|memmove|memset|_int_|cfree|mmap|munmap|page_fault|clear_page|do_anonymous|handle_mm"
     r"|alloc_pages|__alloc|zap_|unmap_|rmqueue|get_page|free_pages|release_pages|lru_"),
    ("Swift runtime (retain/release, metadata, existentials)", r"swift_|libswiftCore|\$ss"),
    ("scheduling (Dispatch, Swift concurrency, futex, context switches)",
     r"libdispatch|dispatch_|swift_task|swift_job|futex|schedule|__switch_to|finish_task_switch|pthread_cond|"
     r"libswift_Concurrency|try_to_wake|select_task|enqueue_task|dequeue_task|pick_next"),
]


def stage_of(dso, symbol):
    text = f"{dso} {symbol}"
    for name, pattern in STAGES:
        if re.search(pattern, text):
            return name
    if dso.startswith("[kernel"):
        return "kernel, other (syscalls, interrupts)"
    return "other (WebImage code, parsing, libc)"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--set", choices=["big", "mixed", "cached"], default="big",
                        help="the 12 MP row's sources (default), the mixed row's with its four boxes, or "
                             "the cached row: caches on, one 12 MP URL asked again and again (use --concurrency 1)")
    parser.add_argument("--webimage", default=str(ROOT / ".build/release/webimage"))
    parser.add_argument("--keep", help="keep perf.data here")
    parser.add_argument("--report", help="only summarise this perf.data (from --keep)")
    args = parser.parse_args()

    if args.report:
        summarise(args.report, None, None, None, args.concurrency)
        return
    work = ROOT / ".build-bench/run/serve"
    root = work / "root"
    folder = "big" if args.set == "cached" else args.set
    names = sorted(p.name for p in (root / folder).iterdir())
    if not names:
        sys.exit("no 12 MP sources: run `compare --only serve` first")
    bench = ServeBench(ROOT / ".build-bench/run", ROOT / "Tests/Fixtures/corpus", None, args.webimage, None,
                       False, 1, log=lambda s: None)
    origin = NginxOrigin(root, Path(tempfile.mkdtemp(prefix="profile-nginx-"))).start()
    port = free_port()
    caching = ["--cache-dir", tempfile.mkdtemp(prefix="profile-cache-")] if args.set == "cached" else ["--no-cache"]
    server = Server("webimage serve", [args.webimage, "serve", *caching, "--allow-private-addresses",
                                       "--host", "127.0.0.1", "--port", str(port)],
                    port, "/health", work / "profile.log").start()
    data = args.keep or str(Path(tempfile.mkdtemp(prefix="profile-")) / "perf.data")
    try:
        if args.set == "cached":
            paths = [ours_path(f"{origin.base_url}/big/{names[0]}", ServeBench.BIG_BOX, ServeBench.BIG_BOX)]
        else:
            boxes = ServeBench.MIXED_BOXES
            sizes = bench.big_sizes if args.set == "big" else (lambda i: boxes[i % len(boxes)])
            paths = [ours_path(f"{origin.base_url}/{folder}/{n}", *sizes(i)) for i, n in enumerate(names)]
        listing = work / "profile-paths.txt"
        listing.write_text("".join(p + "\n" for p in paths))
        wrk(server.base_url, listing, args.concurrency, 2)  # warm-up, unmeasured
        pid = server.process.pid
        cpu = tree_cpu(pid)
        report = {}

        def load():
            report.update(wrk(server.base_url, listing, args.concurrency, args.seconds))
        thread = threading.Thread(target=load)
        start = time.monotonic()
        thread.start()
        subprocess.run(["perf", "record", "-q", "-F", "997", "-g", "-p", str(pid), "-o", data, "--",
                        "sleep", str(args.seconds)], check=True, stdout=subprocess.DEVNULL)
        thread.join()
        wall = time.monotonic() - start
        spent = tree_cpu(pid) - cpu
    finally:
        server.stop()
        origin.stop()

    if "p99_us" in report:
        print(f"latency p50 {report['p50_us'] / 1000:.2f} ms, p99 {report['p99_us'] / 1000:.2f} ms")
    summarise(data, report.get("requests", 0), wall, spent, args.concurrency)


def summarise(data, requests, wall, spent, concurrency):
    # Self time per (dso, symbol): no call-graph accumulation, so the stages add up to 100 %.
    text = subprocess.run(["perf", "report", "-i", data, "--no-children", "--sort", "dso,symbol", "--stdio",
                           "-g", "none", "--percent-limit", "0"], capture_output=True, text=True).stdout
    stages, top = {}, []
    for line in text.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.k]\]\s+(.*)$", line)
        if not match:
            continue
        share, dso, symbol = float(match.group(1)), match.group(2), match.group(3).strip()
        stage = stage_of(dso, symbol)
        stages[stage] = stages.get(stage, 0.0) + share
        top.append((share, dso, symbol, stage))
    per_request_ms = 1000 * spent / requests if requests else None
    if per_request_ms:
        print(f"{requests} requests in {wall:.1f} s at c={concurrency}: {requests / wall:.1f} req/s, "
              f"{spent / wall:.2f} cores busy, {per_request_ms:.1f} ms CPU per request\n")
    print("| stage | share of server CPU | ms per request |")
    print("|---|---|---|")
    for stage, share in sorted(stages.items(), key=lambda kv: -kv[1]):
        ms = per_request_ms * share / 100 if per_request_ms else 0
        print(f"| {stage} | {share:.1f} % | {ms:.1f} |")
    print("\nTop symbols:")
    for share, dso, symbol, stage in sorted(top, reverse=True)[:25]:
        print(f"  {share:5.2f} %  {dso:28.28}  {symbol[:70]}")
    print(json.dumps({"requests": requests, "wall": wall, "cpu": spent, "msPerRequest": per_request_ms,
                      "stages": stages}))


if __name__ == "__main__":
    main()
