"""`download()`: img2dataset 1.47's signature and defaults, run by the binary."""

import os
import shutil
from typing import List, Optional

from . import _distributors
from ._arguments import absolute, command_line
from ._errors import DownloadArgumentError
from ._run import USAGE_STATUSES, raise_for, run_binary

DISTRIBUTORS = ("multiprocessing", "pyspark", "ray")


def download(
    url_list: str,
    image_size: int = 256,
    output_folder: str = "images",
    processes_count: int = 1,
    resize_mode: str = "border",
    resize_only_if_bigger: bool = False,
    upscale_interpolation: str = "lanczos",
    downscale_interpolation: str = "area",
    encode_quality: int = 95,
    encode_format: str = "jpg",
    skip_reencode: bool = False,
    output_format: str = "files",
    input_format: str = "txt",
    url_col: str = "url",
    caption_col: Optional[str] = None,
    bbox_col: Optional[str] = None,
    thread_count: int = 256,
    number_sample_per_shard: int = 10000,
    extract_exif: bool = True,
    save_additional_columns: Optional[List[str]] = None,
    timeout: int = 10,
    enable_wandb: bool = False,
    wandb_project: str = "img2dataset",
    oom_shard_count: int = 5,
    compute_hash: Optional[str] = "sha256",
    verify_hash: Optional[List[str]] = None,
    distributor: str = "multiprocessing",
    subjob_size: int = 1000,
    retries: int = 0,
    disable_all_reencoding: bool = False,
    min_image_size: int = 0,
    max_image_area: float = float("inf"),
    max_aspect_ratio: float = float("inf"),
    incremental_mode: str = "incremental",
    max_shard_retry: int = 1,
    user_agent_token: Optional[str] = None,
    disallowed_header_directives: Optional[List[str]] = None,
    *,
    per_host_concurrency: Optional[int] = None,
    ignore_ssl_certificate: bool = False,
    jsonl_metadata: bool = False,
):
    """Downloads the images of `url_list` into `output_folder`, as img2dataset's download().

    Runs the `webimage` binary: in this process's machine (distributor "multiprocessing"),
    or one Spark or Ray task per shard, each running the binary installed on its executor
    ("pyspark": the active SparkSession, or a local one with `processes_count` cores;
    "ray": the connected Ray cluster, or a local one). Returns None, as img2dataset does.

    After img2dataset's parameters, three of webimage's, keyword-only: `per_host_concurrency`
    (requests to one host at once; None: the binary's default, 4), `ignore_ssl_certificate`
    (img2dataset's later releases) and `jsonl_metadata` (each shard's metadata also as
    NNNNN.jsonl).

    Raises DownloadArgumentError (a ValueError) for a bad argument or a list that cannot be
    read (missing file or column, unreadable parquet), before anything is written; a
    ValueError for an unknown distributor; TypeError for an unknown parameter (Python's own);
    DownloadError when shards still fail after `max_shard_retry` retries.
    """
    values = dict(locals())
    if distributor not in DISTRIBUTORS:
        raise ValueError(f"Distributor {distributor} not supported")
    if distributor != "multiprocessing" and incremental_mode == "extend":
        raise ValueError("incremental_mode='extend' needs distributor='multiprocessing' here: shard numbers after "
                         "the folder's last are chosen by one process; use incremental or overwrite on a cluster")
    values["url_list"] = absolute(url_list)
    values["output_folder"] = absolute(output_folder)
    folder = values["output_folder"]
    existed = "://" in folder or os.path.exists(folder)
    try:
        if distributor == "multiprocessing":
            _multiprocessing(values)
        else:
            args = command_line(values, skip=("incremental_mode", "processes_count"))
            _distributors.distributed(distributor, args, values)
    except DownloadArgumentError:
        # Nothing was written; a folder the binary made before refusing is not left behind.
        if not existed and os.path.isdir(folder):
            shutil.rmtree(folder, ignore_errors=True)
        raise


def _multiprocessing(values: dict):
    outcome = run_binary(command_line(values))
    if outcome.ok:
        return
    if outcome.returncode in USAGE_STATUSES or values["incremental_mode"] == "extend":
        # extend numbers new shards after the last finished one: a second run would number them again.
        raise_for(outcome)
    again = command_line(values, skip=("incremental_mode",))
    for attempt in range(values["max_shard_retry"]):
        print(f"Retrying the unfinished shards, try {attempt + 1}")
        outcome = run_binary(again)
        if outcome.ok:
            return
        if outcome.returncode in USAGE_STATUSES:
            break
    raise_for(outcome, f"the job (with {values['max_shard_retry']} retries)")
