"""The bulk rows of `Benchmarks/compare`: a LAION-style parquet list of image URLs with
captions turned into webdataset tar shards with parquet metadata (border 256, JPEG q95, 1,000
samples per shard) by `webimage img2dataset` (ours) and by img2dataset 1.47 (the peer), with
the same arguments in img2dataset's spelling (`--input_format parquet --url_col URL
--caption_col TEXT …`), each measured the same way, then both outputs checked and scored.

    bulk_peer.py list ROWS.json LIST.parquet
    bulk_peer.py ours --bin WEBIMAGE LIST OUT [--size 256] [--quality 95] [--per-shard 1000] [--processes 2] [--concurrency 32]
    bulk_peer.py img2dataset LIST OUT [--size 256] [--quality 95] [--per-shard 1000] [--processes 2] [--threads 16]
    bulk_peer.py python --bin WEBIMAGE LIST OUT [the options of ours]

`python` is ours called from Python: `webimage.download(...)` of the repository's package
(python/src, the binary from --bin), with the same values as `ours`, in a Python process of
its own, measured the same way (its interpreter included).
    bulk_peer.py check LIST OURS_OUT PEER_OUT --sources DIR [--size 256] [--sample 300]

`list` writes the rows (a JSON array of objects with URL, TEXT, similarity, WIDTH, HEIGHT;
nulls kept) as LAION's metadata files are written: pyarrow, snappy, dictionary encoding,
string URL/TEXT, double similarity, int64 WIDTH/HEIGHT; it prints `ok` and the encodings.

A run prints one JSON object: `samples` (wall seconds), `opsPerSample` (successful samples,
from the shards' `_stats.json`), `peakRSSBytes` (the peak of the summed PSS — RSS with shared
pages split among their sharers — of the whole process tree, sampled every 100 ms, since
img2dataset runs several processes), `cpuSeconds` (user + system of the tree, from wait4) and
`coresBusy` (cpuSeconds / wall).

`check` opens our shards with the `webdataset` package and requires every sample's image,
caption and JSON to agree with the list (img2dataset writes a null caption as an empty `.txt`
and `null` in the JSON), then scores both sides' thumbnails by PSNR against a reference made
from the source file: a full decode (Pillow, no EXIF rotation, alpha on white), Lanczos to
img2dataset's border size, white padding. It prints `ok`, `verified`, `problems`, `oursPSNR`,
`peerPSNR` (mean dB over the samples both sides wrote).
"""

import argparse
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


def write_list(args):
    """The rows of a JSON file as a LAION-style parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    rows = json.load(open(args.list))
    table = pa.table({"URL": pa.array([r["URL"] for r in rows], pa.string()),
                      "TEXT": pa.array([r["TEXT"] for r in rows], pa.string()),
                      "similarity": pa.array([r["similarity"] for r in rows], pa.float64()),
                      "WIDTH": pa.array([r["WIDTH"] for r in rows], pa.int64()),
                      "HEIGHT": pa.array([r["HEIGHT"] for r in rows], pa.int64())})
    pq.write_table(table, args.out, compression="snappy", use_dictionary=True, row_group_size=4096)
    meta = pq.ParquetFile(args.out).metadata
    print(json.dumps({"ok": True, "rows": meta.num_rows, "rowGroups": meta.num_row_groups,
                      "dictionary": all(meta.row_group(g).column(c).has_dictionary_page
                                        for g in range(meta.num_row_groups) for c in range(meta.num_columns))}))
    return 0


def check(args):
    from PIL import Image
    import pyarrow.parquet as pq
    rows = pq.read_table(args.list, columns=["URL", "TEXT"]).to_pylist()
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
        if row is None or row["URL"] is None:
            problems.append(f"{key}: " + ("no such row" if row is None else "a sample for a row without a URL"))
            continue
        meta = json.loads(sample["json"])
        caption = "" if row["TEXT"] is None else row["TEXT"]
        if sample.get("txt", b"").decode("utf-8") != caption or meta.get("caption") != row["TEXT"]:
            problems.append(f"{key}: caption differs")
        if meta.get("url") != row["URL"] or meta.get("key") != key or meta.get("status") != "success":
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
        if by_key.get(key, {}).get("URL") is None:
            continue
        source = Path(args.sources) / Path(by_key[key]["URL"]).name
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


def common(args):
    """The job in img2dataset's spelling, the same on both sides: LAION's parquet columns,
    webdataset shards, border resize, JPEG at the given quality, no retries, no wandb."""
    return ["--input_format", "parquet", "--url_col", "URL", "--caption_col", "TEXT",
            "--output_folder", args.out, "--output_format", "webdataset",
            "--number_sample_per_shard", str(args.per_shard), "--image_size", str(args.size),
            "--resize_mode", "border", "--encode_format", "jpg", "--encode_quality", str(args.quality),
            "--retries", "0", "--timeout", "30", "--enable_wandb", "False", "--distributor", "multiprocessing"]


def download_from_python(args):
    """`ours` through the Python package: download() with the values `ours` passes."""
    if not args.bin or not os.access(args.bin, os.X_OK):
        print(json.dumps({"ok": False, "notMeasured": "webimage not built (make wheel builds the release binary)"}))
        return 1
    package = Path(__file__).resolve().parents[2] / "python" / "src"
    call = ("import webimage; webimage.download(url_list={list!r}, input_format='parquet', url_col='URL', "
            "caption_col='TEXT', output_folder={out!r}, output_format='webdataset', number_sample_per_shard={per}, "
            "image_size={size}, resize_mode='border', encode_format='jpg', encode_quality={quality}, retries=0, "
            "timeout=30, processes_count={processes}, thread_count={concurrency}, "
            "per_host_concurrency={concurrency})").format(
        list=args.list, out=args.out, per=args.per_shard, size=args.size, quality=args.quality,
        processes=args.processes, concurrency=args.concurrency)
    env = dict(os.environ, PYTHONPATH=str(package), WEBIMAGE_BINARY=args.bin)
    report = measure([sys.executable, "-c", call], args.out, env)
    print(json.dumps(report))
    return 0 if report.get("ok") else 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("side", choices=["list", "ours", "python", "img2dataset", "check"])
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
    if args.side == "list":
        return write_list(args)
    if args.side == "check":
        return check(args)
    if args.side == "python":
        return download_from_python(args)
    if args.side == "ours":
        if not args.bin or not os.access(args.bin, os.X_OK):
            print(json.dumps({"ok": False, "notMeasured": "webimage not built (swift build -c release --product webimage)"}))
            return 1
        # img2dataset's own arguments, as the peer's below, except: thread_count is the transfers
        # at once over the whole job here (img2dataset's is per process, so processes × threads
        # there), and per_host_concurrency (ours) as many as the transfers, since every URL is
        # on one local nginx and img2dataset has no per-host limit.
        command = [args.bin, "img2dataset", "--url_list", args.list] + common(args) + [
            "--processes_count", str(args.processes), "--thread_count", str(args.concurrency),
            "--per_host_concurrency", str(args.concurrency)]
        env = None
    else:
        binary = Path(sys.executable).parent / "img2dataset"
        if not binary.exists():
            print(json.dumps({"ok": False, "notMeasured": "img2dataset not installed (make -C Benchmarks venv)"}))
            return 1
        command = [str(binary), "--url_list", args.list] + common(args) + [
            "--processes_count", str(args.processes), "--thread_count", str(args.threads)]
        # albumentations would ask PyPI for a newer version at import.
        env = dict(os.environ, NO_ALBUMENTATIONS_UPDATE="1")
    report = measure(command, args.out, env)
    print(json.dumps(report))
    return 0 if report.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
