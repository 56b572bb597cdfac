"""img2dataset's three distributors, each running the binary.

- multiprocessing: one run of the binary on this machine (its own threads and image
  workers); a run that fails or is killed is run again, up to `max_shard_retry` times, in
  `incremental` mode, which redoes only the shards without their `NNNNN_stats.json`.
- pyspark and ray: the driver counts the list's shards (`--count-shards`, which also checks
  the list before anything is written), then each shard not finished yet is one task that
  runs the binary for that shard alone (`--shard=K/S`) on its executor, with the binary
  installed there. Failed or killed tasks are run again, up to `max_shard_retry` times, as
  img2dataset's retrier does.

A shard's files are written under hidden partial names and renamed into place, its
`NNNNN_stats.json` last; a task killed mid-shard leaves no file under a shard's name that
the retry does not replace, so the finished folder has every sample once.
"""

import functools
import json
import os
import shutil
import sys
from contextlib import contextmanager
from itertools import chain, islice

from ._errors import DownloadError
from ._run import raise_for, run_binary


def run_shard(args: list, count: int, shard: int):
    """One task, on its executor: the binary for shard `shard` of `count`. Returns
    (shard, exit status, message)."""
    outcome = run_binary([*args, f"--shard={shard}/{count}"], echo=False)
    return shard, outcome.returncode, "" if outcome.ok else outcome.message()


def retrier(run, shards: list, max_shard_retry: int) -> list:
    """img2dataset's retrier: runs `shards`, then the failed ones again, up to `max_shard_retry` times."""
    failed = run(shards)
    for attempt in range(max_shard_retry):
        if not failed:
            break
        print(f"Retrying {len(failed)} shards, try {attempt + 1}")
        failed = run([shard for shard, _, _ in failed])
    return failed


def count_shards(args: list) -> int:
    """The number of shards the list makes; a bad list or argument raises here, in the driver."""
    outcome = run_binary([*args, "--count-shards"], echo=False)
    if not outcome.ok:
        raise_for(outcome, "reading the list")
    return int(json.loads(outcome.stdout.strip().splitlines()[-1])["shards"])


def finished_shards(folder: str) -> set:
    """Shards with their NNNNN_stats.json (img2dataset's test of a finished shard); local folders only."""
    if "://" in folder or not os.path.isdir(folder):
        return set()
    names = (name[: -len("_stats.json")] for name in os.listdir(folder) if name.endswith("_stats.json"))
    return {int(name) for name in names if name.isdigit()}


def remove_for_overwrite(folder: str, url_list: str):
    """incremental_mode="overwrite" on a cluster: the driver removes the folder once, before
    any task (each task then runs in incremental mode). The binary's own guard: a folder that
    holds the list, or the root, is refused."""
    if "://" in folder:
        raise ValueError("incremental_mode='overwrite' with distributor pyspark or ray needs a local or shared "
                         f"output folder; remove {folder} first and use incremental_mode='incremental'")
    if not os.path.exists(folder):
        return
    real, listed = os.path.realpath(folder), os.path.realpath(url_list)
    if real == "/" or listed == real or listed.startswith(real + "/"):
        raise ValueError(f"incremental_mode overwrite would remove {folder}, which holds the list {url_list}; "
                         "write the output elsewhere")
    shutil.rmtree(folder)


def distributed(kind: str, args: list, values: dict):
    """Runs the job's shards as Spark or Ray tasks; raises DownloadError if some still fail."""
    folder, count = values["output_folder"], count_shards(args)
    if values["incremental_mode"] == "overwrite":
        remove_for_overwrite(folder, values["url_list"])
    if "://" not in folder:
        os.makedirs(folder, exist_ok=True)
    done = finished_shards(folder)
    todo = [shard for shard in range(count) if shard not in done]
    if not todo:
        return
    task = functools.partial(run_shard, args, count)
    if kind == "pyspark":
        failed = _pyspark(task, todo, values)
    else:
        failed = _ray(args, count, todo, values["max_shard_retry"])
    if failed:
        shard, code, message = failed[0]
        raise DownloadError(
            f"{len(failed)} of {len(todo)} shards failed after {values['max_shard_retry']} retries "
            f"(run the same call again to redo them); shard {shard}: {message}", code)


def _batches(items: list, size: int):
    iterator = iter(items)
    for first in iterator:
        yield list(chain([first], islice(iterator, size - 1)))


def _pyspark(task, todo: list, values: dict) -> list:
    with _spark_session(values["processes_count"]) as spark:

        def run(shards):
            failed = []
            for batch in _batches(shards, values["subjob_size"]):
                rdd = spark.sparkContext.parallelize(batch, len(batch))
                try:
                    results = rdd.map(task).collect()
                except Exception as error:  # pylint: disable=broad-except
                    # A task that died (its Python worker killed) fails its whole Spark job;
                    # the batch runs again, and its finished shards are skipped then.
                    failed += [(shard, -1, f"the Spark job failed: {str(error).splitlines()[0]}") for shard in batch]
                    continue
                failed += [result for result in results if result[1] != 0]
            return failed

        return retrier(run, todo, values["max_shard_retry"])


@contextmanager
def _spark_session(processes_count: int):
    """The active SparkSession, or a local one with processes_count cores, as img2dataset makes it."""
    from pyspark.sql import SparkSession  # pylint: disable=import-outside-toplevel

    spark = SparkSession.getActiveSession()
    owned = spark is None
    if owned:
        print("No pyspark session found, creating a new one!")
        # The executors' Python is this one, where this package is installed.
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        spark = SparkSession.builder.master(f"local[{processes_count}]").appName("webimage").getOrCreate()
    try:
        yield spark
    finally:
        if owned:
            spark.stop()


def _ray(args: list, count: int, todo: list, max_shard_retry: int) -> list:
    import ray  # pylint: disable=import-outside-toplevel

    options = {"max_retries": 0}  # retried here, so max_shard_retry counts every kind of failure
    if os.environ.get("WEBIMAGE_BINARY"):
        options["runtime_env"] = {"env_vars": {"WEBIMAGE_BINARY": os.environ["WEBIMAGE_BINARY"]}}
    remote = ray.remote(run_shard).options(**options)

    def run(shards):
        refs = [(shard, remote.remote(args, count, shard)) for shard in shards]
        failed = []
        for shard, ref in refs:
            try:
                _, code, message = ray.get(ref)
            except Exception as error:  # pylint: disable=broad-except
                failed.append((shard, -1, f"the Ray task failed: {str(error).splitlines()[0]}"))
                continue
            if code != 0:
                failed.append((shard, code, message))
        return failed

    return retrier(run, todo, max_shard_retry)
