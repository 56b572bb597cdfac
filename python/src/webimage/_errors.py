"""The exceptions `download()` raises, each carrying the binary's own message."""


class WebImageError(Exception):
    """A run of the binary that did not succeed: `message` is what it said on stderr,
    `returncode` its exit status (negative: killed by that signal)."""

    def __init__(self, message: str, returncode: int = 1):
        super().__init__(message)
        self.message = message
        self.returncode = returncode


class DownloadArgumentError(WebImageError, ValueError):
    """A bad argument or an unusable list (the binary's exit status 2): nothing was
    downloaded and no output folder was made. A `ValueError`, as img2dataset raises."""


class DownloadError(WebImageError, RuntimeError):
    """A job that failed: some shards could not be written after `max_shard_retry` retries
    (they have no `NNNNN_stats.json`; running the same call again redoes only them)."""
