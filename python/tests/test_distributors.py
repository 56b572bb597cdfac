"""distributor="pyspark" (pyspark 4, local[2]) and "ray" (ray.init(num_cpus=2)) for real:
the same samples as "multiprocessing" for the same list, and a binary killed mid-shard is
retried (max_shard_retry) into a folder with every sample exactly once."""

import os
from pathlib import Path

import pytest

import webimage
from conftest import check_output, kill_mid_shard, read_images, read_metadata, rows_for, write_list

ROWS, PER_SHARD, SIZE = 30, 10, 32
MISSING = {3, 21}


@pytest.fixture(scope="module")
def ray_cluster():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def reference(origin, tmp_path_factory):
    """The list (parquet, with captions) and what multiprocessing writes for it."""
    folder = tmp_path_factory.mktemp("reference")
    rows = rows_for(origin, ROWS, missing=MISSING)
    url_list = write_list(rows, folder, "parquet")
    webimage.download(url_list, input_format="parquet", caption_col="caption", output_folder=str(folder / "out"),
                      output_format="webdataset", image_size=SIZE, number_sample_per_shard=PER_SHARD)
    return rows, url_list, read_images(str(folder / "out"), "webdataset"), read_metadata(str(folder / "out"))


def run(url_list, out, **kwargs):
    webimage.download(url_list, input_format="parquet", caption_col="caption", output_folder=str(out),
                      output_format="webdataset", image_size=SIZE, number_sample_per_shard=PER_SHARD, **kwargs)


def same_as_reference(origin, reference, out):
    rows, _, images, meta = reference
    check_output(origin, str(out), rows, "webdataset", PER_SHARD, SIZE)
    assert read_images(str(out), "webdataset") == images  # keys, captions, image bytes, json
    assert read_metadata(str(out)) == meta  # parquet rows


def test_pyspark_makes_a_local_session_and_writes_the_same_samples(origin, reference, tmp_path):
    from pyspark.sql import SparkSession

    assert SparkSession.getActiveSession() is None
    run(reference[1], tmp_path / "out", distributor="pyspark", processes_count=2)
    same_as_reference(origin, reference, tmp_path / "out")
    assert SparkSession.getActiveSession() is None  # the session it made, it stopped


def test_pyspark_uses_the_active_session_and_retries_a_killed_shard(origin, reference, tmp_path):
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", __import__("sys").executable)
    spark = SparkSession.builder.master("local[2]").appName("callers-session").getOrCreate()
    try:
        rows = rows_for(origin, ROWS, missing=MISSING, trap={15})
        url_list = write_list(rows, tmp_path, "parquet")
        origin.reset_trap()
        out = str(tmp_path / "out")
        seen, watcher = kill_mid_shard(origin, out, ".00001.tar.partial", extra="--shard=1/3")
        run(url_list, out, distributor="pyspark", max_shard_retry=1)
        watcher.join(10)
        assert seen.get("partial_existed") and len(seen["killed"]) == 1, seen
        assert origin.hits[f"/trap/15.jpg"] == 2  # the killed try, then the retry
        check_output(origin, out, rows, "webdataset", PER_SHARD, SIZE)
        # It ran on the caller's session, and left it running.
        assert SparkSession.getActiveSession() is spark
        assert spark.sparkContext.statusTracker().getJobIdsForGroup(None) != []
    finally:
        spark.stop()


def test_ray_writes_the_same_samples(origin, reference, ray_cluster, tmp_path):
    run(reference[1], tmp_path / "out", distributor="ray")
    same_as_reference(origin, reference, tmp_path / "out")


def test_ray_retries_a_killed_shard(origin, ray_cluster, tmp_path):
    rows = rows_for(origin, ROWS, missing=MISSING, trap={25})
    url_list = write_list(rows, tmp_path, "parquet")
    origin.reset_trap()
    out = str(tmp_path / "out")
    seen, watcher = kill_mid_shard(origin, out, ".00002.tar.partial", extra="--shard=2/3")
    run(url_list, out, distributor="ray")
    watcher.join(10)
    assert seen.get("partial_existed") and len(seen["killed"]) == 1, seen
    assert origin.hits[f"/trap/25.jpg"] == 2
    check_output(origin, out, rows, "webdataset", PER_SHARD, SIZE)


def test_multiprocessing_retries_a_killed_run(origin, tmp_path):
    rows = rows_for(origin, ROWS, missing=MISSING, trap={12})
    url_list = write_list(rows, tmp_path, "parquet")
    origin.reset_trap()
    out = str(tmp_path / "out")
    seen, watcher = kill_mid_shard(origin, out, ".00001.tar.partial")
    run(url_list, out)
    watcher.join(10)
    assert seen.get("partial_existed") and len(seen["killed"]) == 1, seen
    assert origin.hits[f"/trap/12.jpg"] == 2
    check_output(origin, out, rows, "webdataset", PER_SHARD, SIZE)


def test_no_retry_left_raises_with_the_binarys_message(origin, tmp_path):
    rows = rows_for(origin, ROWS, trap={5})
    url_list = write_list(rows, tmp_path, "parquet")
    origin.reset_trap()
    out = str(tmp_path / "out")
    seen, watcher = kill_mid_shard(origin, out, ".00000.tar.partial")
    with pytest.raises(webimage.DownloadError, match="killed by signal 9"):
        run(url_list, out, max_shard_retry=0)
    watcher.join(10)
    assert not Path(out, "00000_stats.json").exists()
