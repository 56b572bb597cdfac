"""The bulk rows of `Benchmarks/compare`: a CSV of image URLs with captions turned into
webdataset tar shards (border 256, JPEG q95, 1,000 samples per shard) by `webimage fetch
--file` (ours) and by img2dataset 1.47 (the peer), each measured the same way, then both
outputs checked and scored.

    bulk_peer.py ours --bin WEBIMAGE LIST OUT [--size 256] [--quality 95] [--per-shard 1000] [--concurrency 32]
    bulk_peer.py img2dataset LIST OUT [--size 256] [--quality 95] [--per-shard 1000] [--processes 2] [--threads 16]
    bulk_peer.py check LIST OURS_OUT PEER_OUT --sources DIR [--size 256] [--sample 300]

A run prints one JSON object: `samples` (wall seconds), `opsPerSample` (successful samples,
from the shards' `_stats.json`), `peakRSSBytes` (the peak of the summed PSS — RSS with shared
pages split among their sharers — of the whole process tree, sampled every 100 ms, since
img2dataset runs several processes), `cpuSeconds` (user + system of the tree, from wait4) and
`coresBusy` (cpuSeconds / wall).

`check` opens our shards with the `webdataset` package and requires every sample's image,
caption and JSON to agree with the list, then scores both sides' thumbnails by PSNR against
a reference made from the source file: a full decode (Pillow, no EXIF rotation, alpha on
white), Lanczos to img2dataset's border size, white padding. It prints `ok`, `verified`,
`problems`, `oursPSNR`, `peerPSNR` (mean dB over the samples both sides wrote).
"""

import argparse
import csv
import glob
import hashlib
import io
import json
import math
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path


def tree_rss(root):
    """Summed PSS in bytes of `root` and its descendants, from /proc."""
    children, rss = {}, {}
    page = os.sysconf("SC_PAGE_SIZE")
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            pid, ppid = int(entry), int(fields[1])
            rss[pid] = int(fields[21]) * page
            children.setdefault(ppid, []).append(pid)
        except (OSError, IndexError, ValueError):
            continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += pss(pid, rss.get(pid, 0))
        stack += children.get(pid, [])
    return total


def pss(pid, fallback):
    """The proportional set size of `pid`: its RSS with each shared page split among the
    processes sharing it, so forked workers are not counted twice. RSS where unavailable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as f:
            for line in f:
                if line.startswith("Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return fallback


def successes(out_dir):
    """Successful samples written, summed over the shards' stats files."""
    total = 0
    for path in glob.glob(os.path.join(out_dir, "*_stats.json")):
        try:
            with open(path) as f:
                total += int(json.load(f).get("successes", 0))
        except (OSError, ValueError):
            continue
    return total


def measure(command, out_dir, env=None):
    """Runs `command`, sampling the tree's PSS; returns the report."""
    shutil.rmtree(out_dir, ignore_errors=True)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = 0
    err_chunks = []

    def drain():
        err_chunks.append(process.stderr.read())
    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    # wait4 reaps it and gives the CPU of it and every descendant it waited for
    # (Popen.poll would reap it first and lose that).
    usage, code = None, None
    while True:
        peak = max(peak, tree_rss(process.pid))
        pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
        if pid == process.pid:
            usage, code = rusage, os.waitstatus_to_exitcode(status)
            process.returncode = code
            break
        time.sleep(0.1)
    wall = time.perf_counter() - start
    reader.join(timeout=5)
    images = successes(out_dir)
    if images == 0:
        tail = b"".join(err_chunks).decode(errors="replace").strip().splitlines()
        return {"ok": False, "notMeasured": f"no samples written (exit {code}): {(tail or [''])[-1][:120]}"}
    cpu = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    return {"ok": True, "samples": [wall], "opsPerSample": images, "peakRSSBytes": peak,
            "cpuSeconds": cpu, "coresBusy": cpu / wall if wall else 0.0, "exitStatus": code}


# MARK: check: webdataset read-back and PSNR against a full-decode Lanczos reference

def reference_thumbnail(path, size):
    """img2dataset's border geometry on a full decode: the longer side to `size` (Python
    round), Lanczos, white padding with the odd pixel at the bottom/right."""
    from PIL import Image
    with Image.open(path) as image:
        image.seek(0)
        if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
            rgba = image.convert("RGBA")
            white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
            image = Image.alpha_composite(white, rgba).convert("RGB")
        else:
            image = image.convert("RGB")
        w, h = image.size
        scale = size / max(w, h)
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        image = image.resize((nw, nh), Image.LANCZOS)
        canvas = Image.new("RGB", (size, size), (255, 255, 255))
        canvas.paste(image, ((size - nw) // 2, (size - nh) // 2))
        return canvas


def psnr(a, b):
    import numpy
    x = numpy.asarray(a, dtype=numpy.float64)
    y = numpy.asarray(b, dtype=numpy.float64)
    if x.shape != y.shape:
        return None
    mse = float(numpy.mean((x - y) ** 2))
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def read_shards(out_dir):
    """key → sample dict, through the webdataset package."""
    import webdataset as wds
    shards = sorted(glob.glob(os.path.join(out_dir, "*.tar")))
    if not shards:
        return {}
    return {s["__key__"]: s for s in wds.WebDataset(shards, shardshuffle=False)}


def check(args):
    from PIL import Image
    rows = list(csv.DictReader(open(args.list, newline="")))
    problems = []
    ours = read_shards(args.out)
    peer = read_shards(args.peer) if args.peer and os.path.isdir(args.peer) else {}
    digits = math.ceil(math.log10(args.per_shard))
    by_key = {}
    for i, row in enumerate(rows):
        key = f"{(i // args.per_shard) * 10 ** digits + i % args.per_shard:0{digits + 5}d}"
        by_key[key] = row
    for key, sample in ours.items():
        row = by_key.get(key)
        if row is None:
            problems.append(f"{key}: no such row")
            continue
        meta = json.loads(sample["json"])
        if sample.get("txt", b"").decode("utf-8") != row["caption"] or meta.get("caption") != row["caption"]:
            problems.append(f"{key}: caption differs")
        if meta.get("url") != row["url"] or meta.get("key") != key or meta.get("status") != "success":
            problems.append(f"{key}: json differs")
        try:
            image = Image.open(io.BytesIO(sample["jpg"]))
            if image.size != (args.size, args.size):
                problems.append(f"{key}: {image.size}")
        except Exception as error:  # noqa: BLE001 - any undecodable image is a problem to report
            problems.append(f"{key}: {error}")
    keys = sorted(set(ours) & set(peer))[: args.sample] if peer else sorted(ours)[: args.sample]
    ours_scores, peer_scores = [], []
    for key in keys:
        source = Path(args.sources) / Path(by_key[key]["url"]).name
        try:
            reference = reference_thumbnail(source, args.size)
        except Exception:  # noqa: BLE001 - a source Pillow cannot read is skipped for both sides
            continue
        for sample_set, scores in ((ours, ours_scores), (peer, peer_scores)):
            if key in sample_set:
                value = psnr(Image.open(io.BytesIO(sample_set[key]["jpg"])).convert("RGB"), reference)
                if value is not None:
                    scores.append(value)
    mean = (lambda xs: sum(xs) / len(xs) if xs else None)
    report = {"ok": True, "verified": len(ours), "problems": problems[:10], "problemCount": len(problems),
              "scored": len(ours_scores), "oursPSNR": mean(ours_scores), "peerPSNR": mean(peer_scores)}
    print(json.dumps(report))
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("side", choices=["ours", "img2dataset", "check"])
    parser.add_argument("list")
    parser.add_argument("out")
    parser.add_argument("peer", nargs="?")
    parser.add_argument("--bin", help="the webimage executable (ours)")
    parser.add_argument("--sources", help="the folder nginx serves the images from (check)")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=95)
    parser.add_argument("--per-shard", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--sample", type=int, default=300)
    args = parser.parse_args()
    if args.side == "check":
        return check(args)
    if args.side == "ours":
        if not args.bin or not os.access(args.bin, os.X_OK):
            print(json.dumps({"ok": False, "notMeasured": "webimage not built (swift build -c release --product webimage)"}))
            return 1
        # --per-host-concurrency as many as the transfers: every URL is on one local nginx,
        # and img2dataset has no per-host limit.
        command = [args.bin, "fetch", "--file", args.list, "--input-format", "csv", "--url-col", "url",
                   "--caption-col", "caption", "--output-format", "webdataset",
                   "--number-sample-per-shard", str(args.per_shard), "--resize-mode", "border",
                   "--image-size", str(args.size), "--encode-format", "jpg", "--encode-quality", str(args.quality),
                   "--concurrency", str(args.concurrency), "--per-host-concurrency", str(args.concurrency),
                   "--timeout", "30", "--out", args.out]
        env = None
    else:
        binary = Path(sys.executable).parent / "img2dataset"
        if not binary.exists():
            print(json.dumps({"ok": False, "notMeasured": "img2dataset not installed (make -C Benchmarks venv)"}))
            return 1
        command = [str(binary), "--url_list", args.list, "--input_format", "csv", "--url_col", "url",
                   "--caption_col", "caption", "--output_folder", args.out, "--output_format", "webdataset",
                   "--processes_count", str(args.processes), "--thread_count", str(args.threads),
                   "--number_sample_per_shard", str(args.per_shard), "--image_size", str(args.size),
                   "--resize_mode", "border", "--encode_format", "jpg", "--encode_quality", str(args.quality),
                   "--retries", "0", "--timeout", "30", "--enable_wandb", "False", "--distributor", "multiprocessing"]
        # albumentations would ask PyPI for a newer version at import.
        env = dict(os.environ, NO_ALBUMENTATIONS_UPDATE="1")
    report = measure(command, args.out, env)
    print(json.dumps(report))
    return 0 if report.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
