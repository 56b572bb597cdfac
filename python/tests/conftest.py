"""Fixtures of the package's tests, as img2dataset's own tests use them: a loopback origin
started here (http.server on 127.0.0.1, port 0) serving JPEGs made here, lists in every
input format written here, and readers of the output folder (webdataset, pyarrow, tfrecord)
that know nothing of webimage.

The binary: WEBIMAGE_BINARY (make test sets the debug build), else the repository's
.build/debug/webimage. The package itself is imported from python/src, and that folder is
put on PYTHONPATH so Spark's and Ray's workers, started from here, import it too.
"""

import csv
import glob
import hashlib
import io
import json
import math
import os
import signal
import sys
import tarfile
import threading
import time
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

SRC = Path(__file__).resolve().parents[1] / "src"
REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SRC))
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
# Spark and Ray on loopback only (Spark would bind the host's first interface address).
os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
os.environ.setdefault("RAY_AUTH_MODE", "disabled")
if not os.environ.get("WEBIMAGE_BINARY"):
    os.environ["WEBIMAGE_BINARY"] = str(REPO / ".build" / "debug" / "webimage")
if not os.access(os.environ["WEBIMAGE_BINARY"], os.X_OK):
    raise RuntimeError(f"no webimage binary at {os.environ['WEBIMAGE_BINARY']}: build it (swift build --product webimage)")


def image_size_of(i):
    """The source size of image i: varied, some wider, some taller."""
    return 40 + (i * 7) % 50, 30 + (i * 11) % 45


def make_jpeg(i):
    w, h = image_size_of(i)
    img = Image.new("RGB", (w, h), ((i * 37) % 256, (i * 91) % 256, (i * 53) % 256))
    for x in range(0, w, 5):
        img.putpixel((x, (x + i) % h), (255, 255, 255))
    out = io.BytesIO()
    img.save(out, "JPEG", quality=90)
    return out.getvalue()


class Origin:
    """/img/N.jpg: image N; /missing/N.jpg: 404; /trap/N.jpg: image N, but the first request
    waits until the test releases it (the kill-and-retry tests kill the binary meanwhile)."""

    def __init__(self):
        self.hits = Counter()
        self.active = 0
        self.peak = 0  # the most requests in progress at once since reset_peak()
        self.trapped = threading.Event()
        self.release = threading.Event()
        self.lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                kind, _, name = self.path.strip("/").partition("/")
                with origin.lock:
                    origin.hits[self.path] += 1
                    first = origin.hits[self.path] == 1
                    origin.active += 1
                    origin.peak = max(origin.peak, origin.active)
                try:
                    self.answer(kind, name, first)
                finally:
                    with origin.lock:
                        origin.active -= 1

            def answer(self, kind, name, first):
                if kind == "slow":
                    time.sleep(0.05)  # long enough for transfers to overlap
                if kind == "trap" and first:
                    origin.trapped.set()
                    origin.release.wait(60)
                if kind in ("img", "trap", "slow") and name.endswith(".jpg") and name[:-4].isdigit():
                    body = make_jpeg(int(name[:-4]))
                    self.send_response(200)
                    self.send_header("Content-Type", "image/jpeg")
                else:
                    body = b"not found"
                    self.send_response(404)
                    self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except OSError:
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def reset_peak(self):
        with self.lock:
            self.peak = 0

    def reset_trap(self):
        self.trapped.clear()
        self.release.clear()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.fixture(scope="session")
def origin():
    server = Origin()
    yield server
    server.close()


def rows_for(origin, count, missing=(), trap=()):
    """`count` rows: url and a caption with commas, quotes and non-ASCII text; rows in
    `missing` point at a 404, rows in `trap` at the trap."""
    rows = []
    for i in range(count):
        kind = "missing" if i in missing else "trap" if i in trap else "img"
        rows.append({"url": f"{origin.base}/{kind}/{i}.jpg", "caption": f'caption {i}, "quoted" é'})
    return rows


def write_list(rows, folder, input_format):
    """The rows as img2dataset reads that format (txt: the URL alone)."""
    path = Path(folder) / f"list.{input_format}"
    if input_format == "txt":
        path.write_text("".join(row["url"] + "\n" for row in rows))
    elif input_format in ("csv", "tsv"):
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=["url", "caption"], delimiter="," if input_format == "csv" else "\t")
            writer.writeheader()
            writer.writerows(rows)
    elif input_format == "json":
        path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    elif input_format == "jsonl":
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    elif input_format == "parquet":
        pq.write_table(pa.Table.from_pylist(rows), path)
    return str(path)


def key_of(row_index, per_shard, oom_shard_count=5):
    """img2dataset's compute_key: shard number, then the index within the shard."""
    shard, index = divmod(row_index, per_shard)
    oom_sample = math.ceil(math.log10(per_shard))
    return f"{(10 ** oom_sample) * shard + index:0{oom_sample + oom_shard_count}d}"


def expected_samples(origin, rows, per_shard, size, captions=True):
    """What img2dataset writes for `rows` with resize_mode border at `size`: per key, the
    url, caption, status and sizes, and the sha256 of the bytes the origin served."""
    out = {}
    for i, row in enumerate(rows):
        ok = "/missing/" not in row["url"]
        source = make_jpeg(i)
        w, h = image_size_of(i)
        out[key_of(i, per_shard)] = {
            "url": row["url"],
            "caption": row["caption"] if captions else None,
            "status": "success" if ok else "failed_to_download",
            "width": size if ok else None,
            "height": size if ok else None,
            "original_width": w if ok else None,
            "original_height": h if ok else None,
            "sha256": hashlib.sha256(source).hexdigest() if ok else None,
        }
    return out


def read_metadata(folder):
    """Every row of the per-shard parquet files, by key (the image column left out)."""
    rows = {}
    for path in sorted(glob.glob(f"{folder}/*.parquet")):
        for row in pq.read_table(path).to_pylist():
            row.pop("jpg", None)
            assert row["key"] not in rows, f"key {row['key']} twice"
            rows[row["key"]] = row
    return rows


def read_images(folder, output_format):
    """The images written, by key: {key: (image bytes, caption text or None, json or None)}."""
    found = {}

    def put(key, value):
        assert key not in found, f"key {key} twice"
        found[key] = value

    if output_format == "webdataset":
        import webdataset as wds

        tars = sorted(glob.glob(f"{folder}/*.tar"))
        for sample in wds.WebDataset(tars, shardshuffle=False):
            txt = sample.get("txt")
            put(sample["__key__"], (sample["jpg"], txt.decode() if txt is not None else None, json.loads(sample["json"])))
    elif output_format == "files":
        for path in sorted(glob.glob(f"{folder}/[0-9]*/*.jpg")):
            stem = path[:-4]
            txt = Path(stem + ".txt").read_text() if os.path.exists(stem + ".txt") else None
            put(Path(stem).name, (Path(path).read_bytes(), txt, json.loads(Path(stem + ".json").read_text())))
    elif output_format == "parquet":
        for path in sorted(glob.glob(f"{folder}/*.parquet")):
            for row in pq.read_table(path).to_pylist():
                # img2dataset's parquet writer keeps its schema's columns: the caption as
                # `caption`, no `txt`.
                if row["jpg"] is not None:
                    put(row["key"], (row["jpg"], row.get("caption"), None))
    elif output_format == "tfrecord":
        from tfrecord.reader import tfrecord_loader

        for path in sorted(glob.glob(f"{folder}/*.tfrecord")):
            for record in tfrecord_loader(path, None):
                txt = bytes(record["txt"]).decode() if "txt" in record else None
                put(bytes(record["key"]).decode(), (bytes(record["jpg"]), txt, None))
    return found


def check_output(origin, folder, rows, output_format, per_shard, size, captions=True):
    """The folder holds what img2dataset's documented semantics say: every row once in the
    metadata with its status and sizes, every success's image (size × size, border) once,
    one NNNNN_stats.json per shard with its counts, and no partial file."""
    want = expected_samples(origin, rows, per_shard, size, captions)
    meta = read_metadata(folder)
    assert sorted(meta) == sorted(want)
    for key, expected in want.items():
        got = meta[key]
        for field, value in expected.items():
            if field == "caption" and not captions:
                assert "caption" not in got or got["caption"] is None
                continue
            assert got[field] == value, (key, field, got[field], value)
    images = read_images(folder, output_format)
    successes = {k for k, v in want.items() if v["status"] == "success"}
    assert set(images) == successes
    for key, (data, txt, js) in images.items():
        with Image.open(io.BytesIO(data)) as img:
            assert img.format == "JPEG" and img.size == (size, size)
        if captions:
            assert txt == want[key]["caption"]
        if js is not None:
            assert js["key"] == key and js["url"] == want[key]["url"] and js["status"] == "success"
    shards = math.ceil(len(rows) / per_shard)
    for shard in range(shards):
        stats = json.loads(Path(f"{folder}/{shard:05d}_stats.json").read_text())
        keys = [k for k in want if int(k) // (10 ** math.ceil(math.log10(per_shard))) == shard]
        assert stats["count"] == len(keys)
        assert stats["successes"] == len([k for k in keys if k in successes])
    assert sorted(glob.glob(f"{folder}/*_stats.json")) == [f"{folder}/{s:05d}_stats.json" for s in range(shards)]
    leftovers = [p for p in Path(folder).rglob("*") if "partial" in p.name or p.name.startswith(".")]
    assert leftovers == []
    return images, meta


def webimage_pids(folder, extra=""):
    """Processes of the binary writing into `folder` (found in /proc by their command line)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            args = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if args and args[0].endswith(b"webimage") and len(args) > 1 and args[1] == b"img2dataset":
            text = b" ".join(args).decode(errors="replace")
            if folder in text and extra in text:
                pids.append(int(entry))
    return pids


def kill_mid_shard(origin, folder, partial_name, extra=""):
    """Runs beside a download: when the trap row's request arrives, waits for the shard's
    partial file (samples before the trap are in it), kills the binary writing that shard
    with SIGKILL, and releases the trap. Returns a dict the test reads afterwards."""
    seen = {}

    def watch():
        if not origin.trapped.wait(120):
            seen["error"] = "the trap was never requested"
            return
        deadline = time.time() + 60  # the samples before the trap are written first; slow under load
        while time.time() < deadline and not Path(folder, partial_name).exists():
            time.sleep(0.05)
        seen["partial_existed"] = Path(folder, partial_name).exists()
        seen["killed"] = webimage_pids(folder, extra)
        for pid in seen["killed"]:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.5)
        origin.release.set()

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    return seen, thread
