"""webimage.download called as img2dataset's tests call theirs: every input format, every
output format, expected values from img2dataset's documented semantics (conftest)."""

import inspect
import os
import subprocess
import sys

import pytest

import webimage
from conftest import check_output, key_of, read_metadata, rows_for, write_list

# img2dataset 1.47's download(): its parameters in order, with their defaults.
IMG2DATASET_1_47 = [
    ("url_list", inspect.Parameter.empty), ("image_size", 256), ("output_folder", "images"), ("processes_count", 1),
    ("resize_mode", "border"), ("resize_only_if_bigger", False), ("upscale_interpolation", "lanczos"),
    ("downscale_interpolation", "area"), ("encode_quality", 95), ("encode_format", "jpg"), ("skip_reencode", False),
    ("output_format", "files"), ("input_format", "txt"), ("url_col", "url"), ("caption_col", None),
    ("bbox_col", None), ("thread_count", 256), ("number_sample_per_shard", 10000), ("extract_exif", True),
    ("save_additional_columns", None), ("timeout", 10), ("enable_wandb", False), ("wandb_project", "img2dataset"),
    ("oom_shard_count", 5), ("compute_hash", "sha256"), ("verify_hash", None), ("distributor", "multiprocessing"),
    ("subjob_size", 1000), ("retries", 0), ("disable_all_reencoding", False), ("min_image_size", 0),
    ("max_image_area", float("inf")), ("max_aspect_ratio", float("inf")), ("incremental_mode", "incremental"),
    ("max_shard_retry", 1), ("user_agent_token", None), ("disallowed_header_directives", None),
]

ROWS, PER_SHARD, SIZE = 23, 10, 32
MISSING = {4, 17}


def test_signature_is_img2dataset_1_47():
    """img2dataset's parameters first, in its order, with its defaults, positional or keyword;
    then webimage's own, keyword-only (so no call written for img2dataset changes meaning)."""
    params = list(inspect.signature(webimage.download).parameters.values())
    ours = params[: len(IMG2DATASET_1_47)]
    assert [(p.name, p.default) for p in ours] == IMG2DATASET_1_47
    assert all(p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for p in ours)
    extra = params[len(IMG2DATASET_1_47):]
    assert [(p.name, p.kind) for p in extra] == [
        ("per_host_concurrency", inspect.Parameter.KEYWORD_ONLY),
        ("ignore_ssl_certificate", inspect.Parameter.KEYWORD_ONLY),
        ("jsonl_metadata", inspect.Parameter.KEYWORD_ONLY),
    ]


@pytest.mark.parametrize("input_format", ["txt", "csv", "tsv", "json", "jsonl", "parquet"])
def test_every_input_format(origin, tmp_path, input_format):
    rows = rows_for(origin, ROWS, missing=MISSING)
    captions = input_format != "txt"
    result = webimage.download(
        url_list=write_list(rows, tmp_path, input_format), input_format=input_format, output_folder=str(tmp_path / "out"),
        output_format="webdataset", caption_col="caption" if captions else None, image_size=SIZE,
        number_sample_per_shard=PER_SHARD, thread_count=8,
    )
    assert result is None  # img2dataset's download() returns None
    check_output(origin, str(tmp_path / "out"), rows, "webdataset", PER_SHARD, SIZE, captions)


@pytest.mark.parametrize("output_format", ["files", "webdataset", "parquet", "tfrecord"])
def test_every_output_format(origin, tmp_path, output_format):
    rows = rows_for(origin, ROWS, missing=MISSING)
    webimage.download(
        write_list(rows, tmp_path, "parquet"), input_format="parquet", output_folder=str(tmp_path / "out"),
        output_format=output_format, caption_col="caption", image_size=SIZE, number_sample_per_shard=PER_SHARD,
    )
    check_output(origin, str(tmp_path / "out"), rows, output_format, PER_SHARD, SIZE)


def test_relative_paths_and_options_reach_the_binary(origin, tmp_path, monkeypatch):
    """Relative paths are the caller's (made absolute, as img2dataset does); a non-default
    option changes the output: oom_shard_count 3 names shards 000, 001; save_additional_columns
    keeps a column; compute_hash None drops the hash column."""
    monkeypatch.chdir(tmp_path)
    rows = [dict(row, extra=f"x{i}") for i, row in enumerate(rows_for(origin, 12))]
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.Table.from_pylist(rows), "list.parquet")
    webimage.download("list.parquet", input_format="parquet", output_folder="out", output_format="parquet",
                      number_sample_per_shard=10, oom_shard_count=3, save_additional_columns=["extra"],
                      compute_hash=None, image_size=SIZE)
    assert sorted(os.listdir("out")) == ["000.parquet", "000_stats.json", "001.parquet", "001_stats.json"]
    meta = read_metadata("out")
    assert {row["key"]: row["extra"] for row in meta.values()} == {
        key_of(i, 10, 3): f"x{i}" for i in range(12)}
    assert all("sha256" not in row for row in meta.values())


def test_incremental_mode_skips_finished_shards(origin, tmp_path):
    rows = rows_for(origin, ROWS)
    args = dict(url_list=write_list(rows, tmp_path, "csv"), input_format="csv", output_folder=str(tmp_path / "out"),
                output_format="webdataset", number_sample_per_shard=PER_SHARD, image_size=SIZE)
    webimage.download(**args)
    os.remove(tmp_path / "out" / "00001_stats.json")
    before = sum(origin.hits[f"/img/{i}.jpg"] for i in range(ROWS))
    webimage.download(**args)
    after = sum(origin.hits[f"/img/{i}.jpg"] for i in range(ROWS))
    assert after - before == PER_SHARD  # only shard 1 (rows 10..19) again
    check_output(origin, str(tmp_path / "out"), rows, "webdataset", PER_SHARD, SIZE, captions=False)


def test_python_dash_m_is_the_binarys_command_line(origin, tmp_path):
    rows = rows_for(origin, 5)
    run = subprocess.run([sys.executable, "-m", "webimage", "img2dataset", f"--url_list={write_list(rows, tmp_path, 'txt')}",
                          f"--output_folder={tmp_path / 'out'}", "--output_format=webdataset", "--image_size=32"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    check_output(origin, str(tmp_path / "out"), rows, "webdataset", 10000, SIZE, captions=False)
    bad = subprocess.run([sys.executable, "-m", "webimage", "img2dataset", "--url_list=x", "--no_such_option=1"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "no_such_option" in bad.stderr


@pytest.mark.parametrize("limit", [1, 3])
def test_webimages_keyword_options_reach_the_binary(origin, tmp_path, limit):
    """per_host_concurrency bounds the requests the origin sees at once; jsonl_metadata adds
    NNNNN.jsonl with one line per row."""
    rows = [{"url": f"{origin.base}/slow/{i}.jpg", "caption": str(i)} for i in range(12)]
    origin.reset_peak()
    webimage.download(write_list(rows, tmp_path, "jsonl"), input_format="jsonl", output_folder=str(tmp_path / "out"),
                      output_format="webdataset", image_size=SIZE, thread_count=16,
                      per_host_concurrency=limit, jsonl_metadata=True)
    assert origin.peak == limit
    lines = (tmp_path / "out" / "00000.jsonl").read_text().splitlines()
    assert len(lines) == 12


def test_package_version_is_the_binarys():
    run = subprocess.run([webimage.binary_path(), "--version"], capture_output=True, text=True, timeout=60)
    assert run.stdout.strip() == webimage.__version__
