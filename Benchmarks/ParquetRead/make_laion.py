# Writes LAION-like url+caption parquet files (pyarrow's defaults: 1 Mi-row groups, dictionary
# tried first): unique URLs (the dictionary is given up for PLAIN) and captions from a small
# vocabulary. make_laion.py OUT [ROWS [CODEC...]]: 2 M rows, snappy, zstd and uncompressed unless told.
import random, sys
import pyarrow as pa, pyarrow.parquet as pq

out = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 2_000_000
codecs = sys.argv[3:] or ["snappy", "zstd", "none"]
random.seed(1)
words = ["photo", "of", "a", "cat", "dog", "beautiful", "red", "house", "on", "the", "beach", "sunset",
         "vintage", "car", "woman", "man"]
urls = [f"https://images.example.com/{random.randrange(10**9)}/{i}/image_{random.randrange(10**6)}.jpg" for i in range(n)]
captions = [" ".join(random.choice(words) for _ in range(random.randrange(4, 14))) for _ in range(n)]
table = pa.table({"url": urls, "caption": captions})
for codec in codecs:
    pq.write_table(table, f"{out}/laion-{codec}.parquet", compression=codec)
