"""img2dataset's `download()` run by the `webimage` binary.

`from webimage import download` replaces `from img2dataset import download`: the same
parameters, defaults and output folder (shards, per-shard parquet metadata and
`NNNNN_stats.json`), on the multiprocessing, pyspark and ray distributors.
"""

from ._binary import binary_path
from ._download import download
from ._errors import DownloadArgumentError, DownloadError, WebImageError

__version__ = "0.4.0"

__all__ = ["download", "binary_path", "WebImageError", "DownloadArgumentError", "DownloadError", "__version__"]
