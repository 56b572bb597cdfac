"""A bad input from Python raises an exception naming the problem and leaves no output
folder, on every distributor (pyspark and ray check the list in the driver, before any task)."""

import os

import pytest

import webimage
from conftest import rows_for, write_list

DISTRIBUTORS = ["multiprocessing", "pyspark", "ray"]


def no_folder(path):
    return not os.path.exists(path)


@pytest.mark.parametrize("distributor", DISTRIBUTORS)
def test_missing_column(origin, tmp_path, distributor):
    path = tmp_path / "list.csv"
    path.write_text("link,caption\nhttp://127.0.0.1:9/a.jpg,a\n")
    out = str(tmp_path / "out")
    with pytest.raises(webimage.DownloadArgumentError) as error:
        webimage.download(str(path), input_format="csv", output_folder=out, distributor=distributor)
    assert "url" in str(error.value) and error.value.returncode in (2, 64)  # usage: the binary's, or its parser's EX_USAGE
    assert isinstance(error.value, ValueError)
    assert no_folder(out)


@pytest.mark.parametrize("distributor", DISTRIBUTORS)
def test_unreadable_parquet(tmp_path, distributor):
    path = tmp_path / "list.parquet"
    path.write_bytes(b"PAR1 this is not a parquet file at all")
    out = str(tmp_path / "out")
    with pytest.raises(webimage.DownloadArgumentError) as error:
        webimage.download(str(path), input_format="parquet", output_folder=out, distributor=distributor)
    assert "list.parquet" in str(error.value) or "parquet" in str(error.value).lower()
    assert no_folder(out)


def test_missing_list(tmp_path):
    out = str(tmp_path / "out")
    with pytest.raises(webimage.DownloadArgumentError) as error:
        webimage.download(str(tmp_path / "nope.txt"), output_folder=out)
    assert "nope.txt" in str(error.value)
    assert no_folder(out)


def test_unknown_option(tmp_path):
    out = str(tmp_path / "out")
    with pytest.raises(TypeError, match="no_such_option"):
        webimage.download(str(tmp_path / "list.txt"), output_folder=out, no_such_option=3)
    assert no_folder(out)


def test_unknown_distributor(origin, tmp_path):
    out = str(tmp_path / "out")
    with pytest.raises(ValueError, match="Distributor dask not supported"):
        webimage.download(write_list(rows_for(origin, 3), tmp_path, "txt"), output_folder=out, distributor="dask")
    assert no_folder(out)


@pytest.mark.parametrize("distributor", DISTRIBUTORS)
def test_bad_value_carries_the_binarys_message(origin, tmp_path, distributor):
    out = str(tmp_path / "out")
    with pytest.raises(webimage.DownloadArgumentError, match="resize_mode"):
        webimage.download(write_list(rows_for(origin, 3), tmp_path, "txt"), output_folder=out,
                          resize_mode="stretch", distributor=distributor)
    assert no_folder(out)


def test_extend_on_a_cluster_is_refused(origin, tmp_path):
    out = str(tmp_path / "out")
    with pytest.raises(ValueError, match="extend"):
        webimage.download(write_list(rows_for(origin, 3), tmp_path, "txt"), output_folder=out,
                          incremental_mode="extend", distributor="ray")
    assert no_folder(out)
