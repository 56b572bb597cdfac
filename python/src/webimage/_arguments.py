"""`download()`'s keyword values as the binary's command line (`webimage img2dataset
--name=value …`, Python Fire's spelling, which the binary reads).

Only values that differ from img2dataset's defaults are passed: the binary then applies the
same defaults, and a parameter given at its default value means what the default means (the
binary treats an interpolation it was given differently from its own default choice).
Values are written as Python literals (strings quoted), so a column named `None` or `123`
stays text.
"""

import math
import os

# download()'s parameters in img2dataset 1.47's order, with its defaults.
DEFAULTS = {
    "url_list": None,
    "image_size": 256,
    "output_folder": "images",
    "processes_count": 1,
    "resize_mode": "border",
    "resize_only_if_bigger": False,
    "upscale_interpolation": "lanczos",
    "downscale_interpolation": "area",
    "encode_quality": 95,
    "encode_format": "jpg",
    "skip_reencode": False,
    "output_format": "files",
    "input_format": "txt",
    "url_col": "url",
    "caption_col": None,
    "bbox_col": None,
    "thread_count": 256,
    "number_sample_per_shard": 10000,
    "extract_exif": True,
    "save_additional_columns": None,
    "timeout": 10,
    "enable_wandb": False,
    "wandb_project": "img2dataset",
    "oom_shard_count": 5,
    "compute_hash": "sha256",
    "verify_hash": None,
    "distributor": "multiprocessing",
    "subjob_size": 1000,
    "retries": 0,
    "disable_all_reencoding": False,
    "min_image_size": 0,
    "max_image_area": float("inf"),
    "max_aspect_ratio": float("inf"),
    "incremental_mode": "incremental",
    "max_shard_retry": 1,
    "user_agent_token": None,
    "disallowed_header_directives": None,
    # webimage's own, keyword-only in download().
    "per_host_concurrency": None,
    "ignore_ssl_certificate": False,
    "jsonl_metadata": False,
}

# Chosen by the Python side (how the job is spread and retried), not passed to the binary.
DRIVER_ONLY = {"distributor", "subjob_size", "max_shard_retry"}

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def literal(value) -> str:
    """`value` as a Python literal the binary's Fire reader reads back as the same value."""
    if value is None:
        return "None"
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value) and value > 0:
            return "inf"
        return repr(value)
    if isinstance(value, (str, os.PathLike)):
        text = os.fspath(value)
        return '"' + "".join(_ESCAPES.get(c, c) for c in text) + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(literal(item) for item in value) + "]"
    raise TypeError(f"cannot pass a {type(value).__name__} to the webimage binary: {value!r}")


def absolute(path):
    """img2dataset's make_path_absolute: a local path made absolute (executors and Ray
    workers do not share the caller's working folder); URLs such as s3://… as given."""
    text = os.fspath(path)
    if "://" in text and not text.startswith("file://"):
        return text
    if text.startswith("file://"):
        text = text[len("file://"):]
    return os.path.abspath(text)


def command_line(values: dict, skip=()) -> list:
    """`--name=value` for each value that differs from img2dataset's default, in its order."""
    args = []
    for name, default in DEFAULTS.items():
        if name in DRIVER_ONLY or name in skip:
            continue
        value = values[name]
        if name != "url_list" and _same(value, default):
            continue
        args.append(f"--{name}={literal(value)}")
    return args


def _same(value, default) -> bool:
    if type(value) is bool or type(default) is bool:
        return type(value) is type(default) and value == default
    return value == default
