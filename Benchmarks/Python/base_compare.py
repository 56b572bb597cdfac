"""Our rows against a build of another commit (the previous main), in one run.

`compare --base REV` builds webimage-bench from REV in a worktree of its own
(.build-bench/base-src, built in .build-bench/base-build, so a second run with the
same REV builds nothing), then runs the chosen sections in pairs, each pair once per
side, the order swapped every pair (ABBA) so a slow drift of the machine falls on both
sides alike. Both sides run this driver with `--no-peers`; only the binary differs.

Per row it prints each side's median (a time, a rate, or a peak size for a memory row),
the median and range of the per-pair ratio tip ÷ base (for a rate base ÷ tip; above 1:
the tip is slower or bigger), and each side's cores busy. A row whose per-pair median is more than 3 %
above 1 is marked SLOWER.
"""

import re
import statistics
import subprocess
from pathlib import Path

import chart
import report

# A time as the table prints it, per sample or per operation.
_NUMBER = r"([\d.,]+(?:e[+-]?\d+)?)"
_TIME = re.compile(r"^" + _NUMBER + r"\s*(ns|µs|us|ms|s)(/op)?\b")
_SIZE = re.compile(r"^" + _NUMBER + r"\s*(KB|MB|GB|KiB|MiB|GiB)\b")
# A rate: "58.1 req/s", "324 images/s", "9.79 M/s", "4.8 M rows/s".
_RATE = re.compile(r"^" + _NUMBER + r"\s*(k|M|G)?\s*([A-Za-z]*)/s\b")
_RATIO = re.compile(r"^([\d.]+)×")
_CORES = re.compile(r"([\d.]+) of (\d+) cores busy")
_SCALE = {"ns": 1e-9, "µs": 1e-6, "us": 1e-6, "ms": 1e-3, "s": 1.0,
          "KB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30,
          None: 1.0, "k": 1e3, "M": 1e6, "G": 1e9}

# The per-pair median past which a row counts as slower (issue #48: "no other row
# more than 3 % slower").
SLOWER = 1.03


def parse_value(cell):
    """(seconds, bytes or items per second; cores busy or None; "time", "size" or
    "rate UNIT") of an "ours" cell, or None when the cell holds none of them (a row not
    measured, a latency percentile, a quality figure)."""
    cell = cell.strip()
    cores = _CORES.search(cell)
    busy = float(cores.group(1)) if cores else None
    for pattern, kind in ((_TIME, "time"), (_SIZE, "size")):
        match = pattern.match(cell)
        if match:
            return float(match.group(1).replace(",", "")) * _SCALE[match.group(2)], busy, kind
    match = _RATE.match(cell)
    if match:
        return float(match.group(1).replace(",", "")) * _SCALE[match.group(2)], busy, "rate " + match.group(3)
    return None


def slowdown(tip, base, kind):
    """tip ÷ base as a cost: above 1 the tip is slower (or bigger). For a rate, that is
    base ÷ tip."""
    return base / tip if kind.startswith("rate") else tip / base


def parse_rows(markdown):
    """The first table of a results page: {work: (ours cell, ratio cell)}, in order. Its
    cells are split as the chart splits them (``chart.rows_from_markdown``)."""
    start = markdown.find("| work |")
    if start < 0:
        return {}
    lines = []
    for line in markdown[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if lines:
                break
            continue
        lines.append(line)
    rows = {}
    for work, ours, _peer, ratio, _goal, _result in chart.rows_from_markdown("\n".join(lines)):
        rows.setdefault(work, (ours, ratio))
    return rows


def summarize(pairs):
    """`pairs`: [(tip rows, base rows)] as parse_rows gives them. Returns one dict per row
    both sides measured in at least one pair: work, tip and base medians, the per-pair
    ratios' median, low and high, each side's cores busy (min, max), and whether the
    row is slower (median ratio above SLOWER)."""
    order, data = [], {}
    for tip, base in pairs:
        for work, (tip_cell, tip_ratio) in tip.items():
            if work not in base:
                continue
            base_cell, base_ratio = base[work]
            tip_value, base_value = parse_value(tip_cell), parse_value(base_cell)
            if tip_value is None or base_value is None or base_value[0] <= 0 or tip_value[0] <= 0 \
                    or tip_value[2] != base_value[2]:
                continue
            if work not in data:
                order.append(work)
                data[work] = {"tip": [], "base": [], "ratio": [], "tip_busy": [], "base_busy": [], "kind": tip_value[2],
                              "tip_in_run": [], "base_in_run": []}
            entry = data[work]
            for cell, key in ((tip_ratio, "tip_in_run"), (base_ratio, "base_in_run")):
                match = _RATIO.match(cell)
                if match:
                    entry[key].append(float(match.group(1)))
            entry["tip"].append(tip_value[0])
            entry["base"].append(base_value[0])
            entry["ratio"].append(slowdown(tip_value[0], base_value[0], tip_value[2]))
            if tip_value[1] is not None:
                entry["tip_busy"].append(tip_value[1])
            if base_value[1] is not None:
                entry["base_busy"].append(base_value[1])
    result = []
    for work in order:
        entry = data[work]
        ratio = statistics.median(entry["ratio"])
        result.append({
            "work": work, "pairs": len(entry["ratio"]), "kind": entry["kind"],
            "tip": statistics.median(entry["tip"]), "base": statistics.median(entry["base"]),
            "ratio": ratio, "low": min(entry["ratio"]), "high": max(entry["ratio"]),
            "tip_busy": (min(entry["tip_busy"]), max(entry["tip_busy"])) if entry["tip_busy"] else None,
            "base_busy": (min(entry["base_busy"]), max(entry["base_busy"])) if entry["base_busy"] else None,
            "slower": ratio > SLOWER,
            "in_run": (statistics.median(entry["tip_in_run"]), statistics.median(entry["base_in_run"]))
            if entry["tip_in_run"] and entry["base_in_run"] else None,
        })
    return result


def _format_value(value, kind):
    if kind.startswith("rate"):
        unit = kind[len("rate "):]
        scaled = f"{value / 1e6:.3g} M" if value >= 1e6 else f"{value:.4g}"
        return f"{scaled} {unit}/s" if unit else f"{scaled}/s"
    return f"{value / 1e6:.1f} MB" if kind == "size" else report.format_time(value)


def _format_busy(busy):
    if busy is None:
        return "—"
    low, high = busy
    return f"{low:.2f}" if abs(high - low) < 0.005 else f"{low:.2f}–{high:.2f}"


def markdown(summary, tip_label, base_label, pairs):
    lines = [f"Tip ({tip_label}) against a build of {base_label}: {pairs} pairs, ABBA, both sides "
             "`--no-peers`. Ratio = tip time ÷ base time per pair (a rate's: base ÷ tip; above 1: the tip is slower); "
             f"a median above {SLOWER:.2f} is marked SLOWER.", "",
             "| work | tip (median) | base (median) | tip ÷ base, per pair: median (range) | the row's own ratio, tip / base (medians) | cores busy tip / base | result |",
             "|---|---|---|---|---|---|---|"]
    for row in summary:
        in_run = "—" if row["in_run"] is None else f"{row['in_run'][0]:.2f}× / {row['in_run'][1]:.2f}×"
        lines.append(
            f"| {row['work']} | {_format_value(row['tip'], row['kind'])} | {_format_value(row['base'], row['kind'])} "
            f"| {row['ratio']:.3f} ({row['low']:.2f}–{row['high']:.2f}), n={row['pairs']} | {in_run} "
            f"| {_format_busy(row['tip_busy'])} / {_format_busy(row['base_busy'])} "
            f"| {'SLOWER' if row['slower'] else 'ok'} |")
    return "\n".join(lines) + "\n"


def build_base(root, rev, build_dir, swift="swift", log=print, cli=False):
    """webimage-bench built from `rev` (a worktree at build_dir/base-src, built in
    build_dir/base-build) and, with `cli`, the webimage tool as `make bench` builds it
    (OpenTelemetry compiled in; built in build_dir/base-build-cli), for the sections that
    run the tool (serve, bulk, rss, quality, engine). Returns (bench path, tool path or
    None, full commit id)."""
    sha = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify", rev + "^{commit}"],
                         check=True, capture_output=True, text=True).stdout.strip()
    source = Path(build_dir) / "base-src"
    scratch = Path(build_dir) / "base-build"
    if (source / ".git").exists():
        subprocess.run(["git", "-C", str(source), "checkout", "--quiet", "--detach", "--force", sha], check=True)
    else:
        subprocess.run(["git", "-C", str(root), "worktree", "prune"], check=True)
        subprocess.run(["git", "-C", str(root), "worktree", "add", "--force", "--detach", str(source), sha],
                       check=True, capture_output=True)
    # The plan is made again each time, as the Makefile's build does (a stale plan can
    # leave a target that a commit added out of the link).
    (scratch / "release.yaml").unlink(missing_ok=True)
    log(f"building webimage-bench at {sha[:12]} in {scratch} …")
    subprocess.run([swift, "build", "-c", "release", "--product", "webimage-bench",
                    "--package-path", str(source / "Benchmarks"), "--scratch-path", str(scratch)], check=True)
    tool = None
    if cli:
        tool_scratch = Path(build_dir) / "base-build-cli"
        (tool_scratch / "release.yaml").unlink(missing_ok=True)
        log(f"building the webimage tool at {sha[:12]} in {tool_scratch} …")
        subprocess.run([swift, "build", "-c", "release", "--product", "webimage", "--traits", "OpenTelemetry",
                        "--package-path", str(source), "--scratch-path", str(tool_scratch)], check=True)
        tool = tool_scratch / "release" / "webimage"
    return scratch / "release" / "webimage-bench", tool, sha
