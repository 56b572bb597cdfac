# Writes LAION-like url+caption parquet files (2 M rows, pyarrow's defaults: 1 Mi-row groups,
# dictionary tried first): unique URLs (the dictionary is given up for PLAIN) and captions
# from a small vocabulary; snappy, zstd and uncompressed.
import random, sys
import pyarrow as pa, pyarrow.parquet as pq

out = sys.argv[1]
random.seed(1)
n = 2_000_000
words = ["photo", "of", "a", "cat", "dog", "beautiful", "red", "house", "on", "the", "beach", "sunset",
         "vintage", "car", "woman", "man"]
urls = [f"https://images.example.com/{random.randrange(10**9)}/{i}/image_{random.randrange(10**6)}.jpg" for i in range(n)]
captions = [" ".join(random.choice(words) for _ in range(random.randrange(4, 14))) for _ in range(n)]
table = pa.table({"url": urls, "caption": captions})
for codec in ("snappy", "zstd", "none"):
    pq.write_table(table, f"{out}/laion-{codec}.parquet", compression=codec)
