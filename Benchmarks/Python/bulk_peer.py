"""The bulk row of `Benchmarks/compare`: a URL list turned into resized JPEG files, by
`webimage fetch --file` (ours) and by img2dataset (the peer), each measured the same way.

    bulk_peer.py ours --bin WEBIMAGE LIST OUT [--size 256] [--quality 90] [--concurrency 16]
    bulk_peer.py img2dataset LIST OUT [--size 256] [--quality 90] [--processes N] [--threads 16]

Prints one JSON object like webimage-bench's: `samples` (wall seconds), `opsPerSample`
(images written), `peakRSSBytes` (the peak of the summed PSS (RSS with shared pages split
among their sharers) of the whole process tree, sampled every 100 ms (the scan of /proc costs CPU), since img2dataset runs
several forked processes), `cpuSeconds` (user +
system of the tree, from wait4) and `coresBusy` (cpuSeconds / wall).
"""

import argparse
import json
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


def measure(command, out_dir, pattern):
    """Runs `command`, sampling the tree's RSS; returns the report."""
    shutil.rmtree(out_dir, ignore_errors=True)
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
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
    images = sum(1 for _ in Path(out_dir).rglob(pattern)) if Path(out_dir).exists() else 0
    if images == 0:
        tail = b"".join(err_chunks).decode(errors="replace").strip().splitlines()
        return {"ok": False, "notMeasured": f"no images written (exit {code}): {(tail or [''])[-1][:120]}"}
    cpu = (usage.ru_utime + usage.ru_stime) if usage else 0.0
    return {"ok": True, "samples": [wall], "opsPerSample": images, "peakRSSBytes": peak,
            "cpuSeconds": cpu, "coresBusy": cpu / wall if wall else 0.0, "exitStatus": code}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("side", choices=["ours", "img2dataset"])
    parser.add_argument("list")
    parser.add_argument("out")
    parser.add_argument("--bin", help="the webimage executable (ours)")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--quality", type=int, default=90)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--processes", type=int, default=os.cpu_count())
    parser.add_argument("--threads", type=int, default=16)
    args = parser.parse_args()
    if args.side == "ours":
        if not args.bin or not os.access(args.bin, os.X_OK):
            print(json.dumps({"ok": False, "notMeasured": "webimage not built (swift build -c release --product webimage)"}))
            return 1
        command = [args.bin, "fetch", "--file", args.list, "--memory-only", "--quiet",
                   "--thumbnail", f"{args.size}x{args.size}", "--format", "jpeg", "--quality", str(args.quality),
                   "--out", args.out, "--out-layout", "shards:10000", "--concurrency", str(args.concurrency)]
    else:
        binary = Path(sys.executable).parent / "img2dataset"
        if not binary.exists():
            print(json.dumps({"ok": False, "notMeasured": "img2dataset not installed (make -C Benchmarks venv)"}))
            return 1
        # keep_ratio_largest: the longer side becomes --size, as our --thumbnail SxS fits the
        # box; neither side enlarges smaller images.
        command = [str(binary), "--url_list", args.list, "--input_format", "txt", "--output_folder", args.out,
                   "--output_format", "files", "--processes_count", str(args.processes),
                   "--thread_count", str(args.threads), "--image_size", str(args.size),
                   "--resize_mode", "keep_ratio_largest", "--resize_only_if_bigger", "True",
                   "--encode_format", "jpg", "--encode_quality", str(args.quality), "--retries", "0",
                   "--timeout", "30", "--enable_wandb", "False", "--distributor", "multiprocessing"]
    report = measure(command, args.out, "*.jpg")
    print(json.dumps(report))
    return 0 if report.get("ok") else 1


if __name__ == "__main__":
    sys.exit(main())
