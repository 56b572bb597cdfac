import Foundation

/// The two Python scripts of the LAION-style job test, run in the test venv: one writes the
/// list and the files nginx serves, the other reads the job's output with the packages
/// img2dataset's users read it with and compares it with expectations derived from the list.
enum LaionStyleFixture {
    /// `make.py ROOT BASE_URL LIST_FOLDER`: 300 small images (two JPEGs for each PNG, some PNGs
    /// with alpha) and 12 files that are not images under ROOT/img, and LIST_FOLDER/part-00000.parquet
    /// as LAION's metadata is laid out (SAMPLE_ID, URL, TEXT, HEIGHT, WIDTH, LICENSE, NSFW,
    /// similarity), written by pyarrow with snappy and dictionary encoding in four row groups.
    /// 10,000 rows: the images again and again with a different query string per row, null and
    /// malformed URLs, 404s, non-images, null captions, similarities and sizes. Prints what
    /// pyarrow says about the file, so the test can hold it to being that kind of file.
    static let makeScript = #"""
        import json, os, random, sys
        import pyarrow as pa, pyarrow.parquet as pq
        from PIL import Image
        root, base, out = sys.argv[1], sys.argv[2], sys.argv[3]
        rng = random.Random(35)
        os.makedirs(root + "/img", exist_ok=True)
        for n in range(300):
            w, h = rng.randint(40, 200), rng.randint(40, 200)
            if n % 3 == 2:
                im = Image.new("RGBA", (w, h), (rng.randrange(256), rng.randrange(256), rng.randrange(256), rng.randrange(64, 256)))
                im.putpixel((0, 0), (0, 0, 0, 0))
                im.save(f"{root}/img/{n}.png")
            else:
                im = Image.linear_gradient("L").resize((w, h)).convert("RGB")
                im.paste((rng.randrange(256), rng.randrange(256), rng.randrange(256)), (0, 0, w // 2, h // 2))
                im.save(f"{root}/img/{n}.jpg", quality=80)
        for k in range(12):
            with open(f"{root}/img/bad-{k}.jpg", "wb") as f:
                f.write(b"<html>not an image</html>\n" * (k + 1))
        pool = [f"a photo of thing {c} \u00e9t\u00e9 \u201cquoted\u201d, \U0001F600" for c in range(500)]
        urls, texts, sims, ws, hs = [], [], [], [], []
        for i in range(10_000):
            if i % 1000 == 7:
                url = None
            elif i % 1000 == 8:
                url = ["not a url", "", "mailto:someone@127.0.0.1"][(i // 1000) % 3]
            elif i % 250 == 17:
                url = f"{base}/img/missing-{i}.jpg"
            elif i % 900 == 33:
                url = f"{base}/img/bad-{(i // 900) % 12}.jpg"
            else:
                n = i % 300
                url = f"{base}/img/{n}.{'png' if n % 3 == 2 else 'jpg'}?row={i}"
            urls.append(url)
            texts.append(None if i % 97 == 5 else pool[rng.randrange(500)])
            sims.append(None if i % 113 == 0 else rng.random() * 0.2 + 0.28)
            ws.append(None if i % 89 == 0 else rng.randint(40, 4000))
            hs.append(None if i % 89 == 0 else rng.randint(40, 4000))
        table = pa.table({"SAMPLE_ID": pa.array(range(10_000), pa.int64()), "URL": urls, "TEXT": texts,
                          "HEIGHT": pa.array(hs, pa.int64()), "WIDTH": pa.array(ws, pa.int64()),
                          "LICENSE": ["?" if i % 3 else None for i in range(10_000)],
                          "NSFW": [["UNLIKELY", "UNSURE", "NSFW"][i % 3] for i in range(10_000)],
                          "similarity": pa.array(sims, pa.float64())})
        os.makedirs(out, exist_ok=True)
        path = out + "/part-00000.parquet"
        pq.write_table(table, path, compression="snappy", use_dictionary=True, row_group_size=3000)
        meta = pq.ParquetFile(path).metadata
        columns = {}
        for c in range(meta.num_columns):
            chunks = [meta.row_group(g).column(c) for g in range(meta.num_row_groups)]
            columns[chunks[0].path_in_schema] = {
                "type": chunks[0].physical_type, "compression": sorted({x.compression for x in chunks}),
                "dictionary": all(x.has_dictionary_page for x in chunks),
                "nulls": sum(x.statistics.null_count for x in chunks)}
        print(json.dumps({"rows": meta.num_rows, "rowGroups": meta.num_row_groups, "columns": columns}))
        """#

    /// `check.py LIST_FOLDER ROOT OUT PER_SHARD`: what each row must become, from img2dataset's
    /// documented semantics and the served folder alone — no URL or not http: failed_to_download
    /// (urllib refuses it); a path with no file: failed_to_download (nginx's 404); a file Pillow
    /// cannot open: failed_to_resize; otherwise success, a 256×256 border thumbnail, the key
    /// `shard * 10^ceil(log10(per_shard)) + index` — then the tars through `webdataset`, every
    /// `NNNNN.parquet` through pandas and DuckDB, and the stats files, each counted by status
    /// and compared row by row. Prints the counts of each reader and the first disagreements.
    static let checkScript = #"""
        import glob, io, json, math, os, sys
        from urllib.parse import urlsplit
        import duckdb, pandas, pyarrow.parquet as pq, webdataset
        from PIL import Image
        list_dir, root, out, per_shard = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
        rows = pq.read_table(list_dir).to_pylist()
        problems, sizes = [], {}
        def note(text):
            if len(problems) < 20:
                problems.append(text)
        def expected_status(url):
            if url is None or not url.startswith("http://"):
                return "failed_to_download"
            path = os.path.join(root, urlsplit(url).path.lstrip("/"))
            if not os.path.isfile(path):
                return "failed_to_download"
            try:
                with Image.open(path) as im:
                    im.load()
                    sizes[url] = im.size
                return "success"
            except Exception:
                return "failed_to_resize"
        digits = math.ceil(math.log10(per_shard))
        def key(i):
            return f"{(i // per_shard) * 10 ** digits + i % per_shard:0{digits + 5}d}"
        expected = {key(i): (row, expected_status(row["URL"])) for i, row in enumerate(rows)}
        counts = {"rows": len(rows)}
        for _, status in expected.values():
            counts[status] = counts.get(status, 0) + 1
        extra = ["NSFW", "similarity", "LICENSE"]
        def missing(v):
            return v is None or (isinstance(v, float) and math.isnan(v))
        def same(a, b):
            return missing(b) if missing(a) else a == b
        tar_keys = set()
        for sample in webdataset.WebDataset(sorted(glob.glob(out + "/*.tar")), shardshuffle=False):
            k = sample["__key__"]
            tar_keys.add(k)
            if k not in expected:
                note(f"tar {k}: no such row")
                continue
            row, status = expected[k]
            meta = json.loads(sample["json"])
            if status != "success":
                note(f"tar {k}: a sample for a row expected to be {status}")
            # img2dataset's webdataset writer: str(caption), or "" for a null caption.
            if sample["txt"].decode("utf-8") != ("" if row["TEXT"] is None else row["TEXT"]):
                note(f"tar {k}: txt {sample['txt'][:40]!r}")
            if meta.get("url") != row["URL"] or meta.get("key") != k or meta.get("status") != "success" \
                    or not same(meta.get("caption"), row["TEXT"]) or not all(same(meta.get(c), row[c]) for c in extra):
                note(f"tar {k}: json {meta}")
            with Image.open(io.BytesIO(sample["jpg"])) as im:
                im.load()
                if im.size != (256, 256):
                    note(f"tar {k}: {im.size}")
        metas = sorted(glob.glob(out + "/[0-9]*.parquet"))
        frame = pandas.concat([pandas.read_parquet(p) for p in metas], ignore_index=True)
        pandas_counts = {"rows": len(frame)}
        for record in frame.to_dict("records"):
            k = record["key"]
            pandas_counts[record["status"]] = pandas_counts.get(record["status"], 0) + 1
            if k not in expected:
                note(f"parquet {k}: no such row")
                continue
            row, status = expected[k]
            ok = status == "success"
            if record["status"] != status or not same(record["url"], row["URL"]) or not same(record["caption"], row["TEXT"]) \
                    or not all(same(record[c], row[c]) for c in extra) or ok == bool(pandas.notna(record["error_message"])) \
                    or (ok and (record["width"], record["height"]) != (256, 256)) \
                    or (ok and (record["original_width"], record["original_height"]) != sizes[row["URL"]]):
                note(f"parquet {k}: {record}, expected {status}")
        con = duckdb.connect()
        duck_counts = {"rows": con.execute("SELECT count(*) FROM read_parquet(?)", [metas]).fetchone()[0]}
        for status, n in con.execute("SELECT status, count(*) FROM read_parquet(?) GROUP BY status", [metas]).fetchall():
            duck_counts[status] = n
        lists = sorted(glob.glob(list_dir + "/*.parquet"))
        joined = con.execute(f"""SELECT count(*) FROM read_parquet(?) m JOIN read_parquet(?, file_row_number=true) l
            ON CAST(m.key AS BIGINT) = (l.file_row_number // {per_shard}) * {10 ** digits} + l.file_row_number % {per_shard}
            WHERE m.url IS NOT DISTINCT FROM l.URL AND m.caption IS NOT DISTINCT FROM l.TEXT
              AND m.similarity IS NOT DISTINCT FROM l.similarity""", [metas, lists]).fetchone()[0]
        stats_counts = {}
        for path in glob.glob(out + "/*_stats.json"):
            s = json.load(open(path))
            for field, name in (("count", "rows"), ("successes", "success"),
                                ("failed_to_download", "failed_to_download"), ("failed_to_resize", "failed_to_resize")):
                stats_counts[name] = stats_counts.get(name, 0) + s[field]
            if sum(s["status_dict"].values()) != s["count"] or s["status_dict"].get("success", 0) != s["successes"]:
                note(f"{path}: status_dict {s['status_dict']}")
        print(json.dumps({"expected": counts, "tarSamples": len(tar_keys),
                          "tarKeysMatch": tar_keys == {k for k, (_, s) in expected.items() if s == "success"},
                          "pandas": pandas_counts, "duckdb": duck_counts, "joined": joined, "stats": stats_counts,
                          "problems": problems}))
        """#
}
