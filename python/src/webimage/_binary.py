"""Where the `webimage` binary is: the package's own (`webimage/bin/webimage`, put there by
`make wheel`), or the one `WEBIMAGE_BINARY` names (the repository's tests run the debug build
this way). Resolved where the code runs: on a Spark executor or a Ray worker, the copy
installed there."""

import os
from pathlib import Path


def binary_path() -> str:
    """The path of the `webimage` executable to run here."""
    override = os.environ.get("WEBIMAGE_BINARY")
    if override:
        return override
    path = Path(__file__).resolve().parent / "bin" / "webimage"
    if not path.is_file():
        raise FileNotFoundError(
            f"the webimage binary is missing at {path}: install the wheel built by `make wheel`, "
            "or set WEBIMAGE_BINARY to a built `webimage`"
        )
    return str(path)
