#!/usr/bin/env python3
"""Prints the Markdown table of a `make fuzz` run, read from fuzz-out/<target>/run.log.

    python3 scripts/fuzz-summary.py [fuzz-out]

One row per target that has a log: the seconds it ran, executions, executions per
second, the last coverage line's edges (`cov`) and features (`ft`), the corpus it ended
with, peak RSS, and its findings (the sanitizer's or libFuzzer's error line, with the
artifact libFuzzer wrote). Sources/WebImageFuzz/FUZZING.md keeps the table of the last
long run.
"""
import os
import re
import sys

ORDER = ["sniff", "jpeg", "png", "gif", "webp", "avif", "heif", "jxl", "incremental", "animated", "diskcache"]


def summary(target, log):
    text = open(log, errors="replace").read()
    stat = dict(re.findall(r"^stat::(\w+):\s+(\d+)", text, re.M))
    progress = re.findall(r"cov: (\d+) ft: (\d+) corp: (\d+)/(\S+)", text)
    done = re.search(r"^Done (\d+) runs in (\d+) second", text, re.M)
    errors = re.findall(r"^(?:==\d+==)?(ERROR: .*|SUMMARY: .*|ALARM: .*|.*-- out-of-memory.*|.*deadly signal.*)$", text, re.M)
    artifacts = re.findall(r"Test unit written to (\S+)", text)
    cov, ft, corp, size = progress[-1] if progress else ("?", "?", "?", "?")
    counts = re.findall(r"^#(\d+)\s", text, re.M)
    runs = stat.get("number_of_executed_units", done.group(1) if done else (counts[-1] if counts else "0"))
    seconds = done.group(2) if done else "(running or stopped)"
    findings = "none" if not errors and not artifacts else "; ".join(
        [e.strip() for e in errors[:2]] + [os.path.basename(a) for a in artifacts])
    return (f"| `{target}` | {seconds} | {int(runs):,} | {stat.get('average_exec_per_sec', '?')} | {cov} | {ft} "
            f"| {corp} ({size}) | {stat.get('peak_rss_mb', '?')} MB | {findings} |")


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "fuzz-out"
    targets = [t for t in ORDER if os.path.exists(os.path.join(root, t, "run.log"))]
    targets += sorted(t for t in os.listdir(root) if t not in ORDER and os.path.exists(os.path.join(root, t, "run.log")))
    print("| Target | Seconds | Executions | Exec/s | Edges (cov) | Features (ft) | Corpus | Peak RSS | Findings |")
    print("|---|---|---|---|---|---|---|---|---|")
    for t in targets:
        print(summary(t, os.path.join(root, t, "run.log")))


if __name__ == "__main__":
    main()
