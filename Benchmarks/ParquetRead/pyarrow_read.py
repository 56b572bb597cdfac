# pyarrow's side of the parquet-read row, for scale: the same file's projected columns read
# into Arrow arrays on one thread (read_table with use_threads=False, pyarrow's CPU and I/O
# pools at one thread), best of five. pyarrow_read.py FILE COLUMN... prints one JSON object:
# rows, best (seconds), rowsPerSecond, version.
import json, sys, time
import pyarrow as pa, pyarrow.parquet as pq

path, columns = sys.argv[1], sys.argv[2:]
pa.set_cpu_count(1)
pa.set_io_thread_count(1)
best, rows = float("inf"), 0
for _ in range(5):
    start = time.perf_counter()
    table = pq.read_table(path, columns=columns, use_threads=False, memory_map=False)
    best = min(best, time.perf_counter() - start)
    rows = table.num_rows
    del table
print(json.dumps({"rows": rows, "best": best, "rowsPerSecond": rows / best, "version": pa.__version__}))
