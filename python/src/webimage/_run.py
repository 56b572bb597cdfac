"""Runs the binary once and turns its exit status into a result or an exception."""

import collections
import subprocess
import sys
import threading

from ._binary import binary_path
from ._errors import DownloadArgumentError, DownloadError

# The binary's exit statuses for a bad argument or an unusable list.
USAGE_STATUSES = (2, 64)

# Lines of stderr kept for an exception's message (the binary says what went wrong last).
_TAIL_LINES = 40


class Outcome:
    """One run: its exit status (negative: killed by that signal) and its stderr's last lines."""

    def __init__(self, returncode: int, tail: list, stdout: str):
        self.returncode = returncode
        self.tail = tail
        self.stdout = stdout

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    def message(self) -> str:
        """The binary's error lines (`webimage…: …`), else its last lines, else the status."""
        errors = [line for line in self.tail if line.startswith("webimage")]
        text = "\n".join(errors or self.tail[-5:]).strip()
        if self.returncode < 0:
            text = (text + "\n" if text else "") + f"webimage was killed by signal {-self.returncode}"
        return text or f"webimage exited with status {self.returncode}"


def run_binary(args: list, echo: bool = True) -> Outcome:
    """Runs `webimage img2dataset ARGS`. With `echo`, its stdout and stderr are copied to
    this process's (a notebook shows them); the last lines of stderr are kept either way."""
    process = subprocess.Popen(
        [binary_path(), "img2dataset", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    tail = collections.deque(maxlen=_TAIL_LINES)
    out = []

    def pump(stream, sink, keep):
        for line in stream:
            keep(line.rstrip("\n"))
            if echo:
                sink.write(line)
                sink.flush()

    # stderr may hold progress lines ending in '\r': split on both.
    reader = threading.Thread(target=pump, args=(process.stderr, sys.stderr, lambda l: tail.extend(_lines(l))), daemon=True)
    reader.start()
    pump(process.stdout, sys.stdout, out.append)
    reader.join()
    process.wait()
    return Outcome(process.returncode, list(tail), "\n".join(out))


def _lines(text: str) -> list:
    return [part for part in text.split("\r") if part.strip()]


def raise_for(outcome: Outcome, what: str = "the job"):
    """Raises the exception that matches a failed run: status 2 (64, EX_USAGE, from the
    argument parser) is a bad argument or list."""
    if outcome.returncode in USAGE_STATUSES:
        raise DownloadArgumentError(outcome.message(), outcome.returncode)
    raise DownloadError(f"{what} failed: {outcome.message()}", outcome.returncode)
