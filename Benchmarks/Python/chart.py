"""The ratio chart of a benchmark run: one bar per row against its goal, as an SVG.

    python3 Benchmarks/Python/chart.py [RESULTS.md [OUT.svg]]

`compare` calls `ratio_chart_svg` with the rows it has just measured and writes
Benchmarks/ratios.svg beside RESULTS.md; run as a script, this reads the rows of the
"## Latest run" section of a RESULTS.md (default Benchmarks/RESULTS.md) and writes the
same chart (default Benchmarks/ratios.svg), so the chart can be made again without a run.

Rows are read from their text, as the table prints them: the ratio cell ("1.12×",
"+1.96 dB", "1.71× the floor") and the goal cell ("≥ 1.4× thumbor's req/s", "time ≤ 1.0×
pyvips", "≤ 1.15× the floor", "≥ libvips − 1 dB", "≤ thumbor's peak"). A row is drawn as a
bar from 1× (0 dB) to its ratio, on a log scale for × rows and a linear one for dB rows,
with its goal as a black tick, coloured by its result (pass green, FAIL red, info grey).
Rows with no ratio (fixed ceilings, rates, counts) are listed with their value and goal.
Standard library only.
"""

import math
import re
import sys
from pathlib import Path
from xml.sax.saxutils import escape

COLOURS = {"pass": "#2e8b57", "FAIL": "#c0392b", "info": "#9aa0a6"}
NUMBER = r"([+\-−]?\d+(?:\.\d+)?)"


def _float(text):
    return float(text.replace("−", "-"))


def parse_ratio(ratio, goal):
    """(unit, value, goal value) with higher = better for both, or None when the row has
    no ratio to draw. A "≤ N×" goal on a ratio that is not a "times better" one (the decode
    floor row: our CPU ÷ the floor's) is turned round, so both read "higher is better"."""
    ratio, goal = ratio.strip(), goal.strip()
    m = re.match(NUMBER + r"\s*(×|dB)", ratio)
    if not m:
        return None
    value, unit = _float(m.group(1)), m.group(2)
    if unit == "dB":
        g = re.search(r"−\s*" + NUMBER + r"\s*dB", goal) or re.search(r"-\s*" + NUMBER + r"\s*dB", goal)
        threshold = -abs(_float(g.group(1))) if g else 0.0   # "≥ img2dataset's PSNR": 0 dB
        return ("dB", value, threshold)
    at_least = re.search(r"≥\s*" + NUMBER + r"\s*×", goal)
    at_most = re.search(r"≤\s*" + NUMBER + r"\s*×", goal)
    if value <= 0:
        return None
    if at_least:
        return ("×", value, _float(at_least.group(1)))
    if at_most and re.search(r"\b(time|wall)\s*≤", goal):
        return ("×", value, 1 / _float(at_most.group(1)))          # our time ≤ N × theirs
    if at_most:
        return ("×", 1 / value, 1 / _float(at_most.group(1)))      # ours ÷ a floor ≤ N
    if "≤" in goal or "≥" in goal:
        return ("×", value, 1.0)                                    # "≤ thumbor's peak"
    return ("×", value, None)                                       # info rows: no goal


def rows_from_markdown(text):
    """(work, ours, peer, ratio, goal, result) of every table row in `text`."""
    rows = []
    for line in text.splitlines():
        if not line.startswith("| ") or line.startswith("| work |"):
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) == 6 and not set(cells[0]) <= set("-"):
            rows.append(tuple(cells))
    return rows


def latest_section(text):
    """The "## Latest run" section of a RESULTS.md (up to the next "## " heading)."""
    start = text.find("\n## Latest run")
    if start < 0:
        return ""
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else len(text)]


def _label(work, peer, width=92):
    """The row's work and the peer's name (the peer cell before its value), shortened in
    the middle so both the subject and the distinguishing tail ("c=16", "peak memory") stay."""
    m = re.match(r"(.*?):\s*(?:not measured|[+\-−]?\d)", peer)
    peer_name = (m.group(1) if m else peer).strip()
    if len(peer_name) > 28:
        peer_name = peer_name[:27] + "…"
    tail = "" if peer_name in ("—", "") else f" — vs {peer_name}"
    room = width - len(tail)
    if len(work) > room:
        head = room * 2 // 5
        work = work[:head] + "…" + work[len(work) - (room - head - 1):]
    return work + tail


def ratio_chart_svg(rows, title="make bench: ratio against goal, per row"):
    """The chart of `rows` (tuples or objects with work, ours, peer, ratio, goal, verdict)."""
    rows = [r if isinstance(r, tuple) else (r.work, r.ours, r.peer, r.ratio, r.goal, r.verdict) for r in rows]
    bars, others = [], []
    for work, ours, peer, ratio, goal, verdict in rows:
        parsed = parse_ratio(ratio, goal)
        verdict = verdict if verdict in COLOURS else ("FAIL" if verdict.startswith("not measured") else "info")
        (bars if parsed else others).append((work, ours, peer, ratio, goal, verdict, parsed))

    label_w, plot_w, row_h, pad = 560, 360, 17, 10
    width = label_w + plot_w + 90
    lines = []
    y = 34

    def text(x, y, s, size=11, anchor="start", weight="normal", colour="#222"):
        lines.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
                     f'font-weight="{weight}" fill="{colour}">{escape(s)}</text>')

    def panel(unit, items, heading):
        nonlocal y
        if not items:
            return
        if unit == "×":
            lo, hi = 1 / 8, 8
            to_x = lambda v: label_w + plot_w * (math.log2(min(max(v, lo), hi)) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
            ticks = [(v, f"{v:g}×") for v in (0.125, 0.25, 0.5, 1, 2, 4, 8)]
            origin = 1.0
        else:
            lo, hi = -5.0, 20.0
            to_x = lambda v: label_w + plot_w * (min(max(v, lo), hi) - lo) / (hi - lo)
            ticks = [(v, f"{v:+g} dB" if v else "0 dB") for v in (-5, 0, 5, 10, 15, 20)]
            origin = 0.0
        text(pad, y + 4, heading, 12, weight="bold")
        y += 12
        top = y
        for value, label in ticks:
            x = to_x(value)
            text(x, y + 6, label, 9, "middle", colour="#555")
        y += 12
        grid_top = y
        for work, ours, peer, ratio, goal, verdict, (_, value, threshold) in items:
            mid = y + row_h / 2
            text(pad, mid + 4, _label(work, peer), 10)
            x0, x1 = to_x(origin), to_x(value)
            lines.append(f'<rect x="{min(x0, x1):.1f}" y="{y + 3:.1f}" width="{max(abs(x1 - x0), 1.5):.1f}" '
                         f'height="{row_h - 6}" fill="{COLOURS[verdict]}"><title>{escape(work)}: {escape(ratio)} '
                         f'(goal {escape(goal)}, {verdict})</title></rect>')
            if threshold is not None:
                gx = to_x(threshold)
                lines.append(f'<line x1="{gx:.1f}" y1="{y + 1:.1f}" x2="{gx:.1f}" y2="{y + row_h - 1:.1f}" '
                             f'stroke="#000" stroke-width="2"/>')
            text(label_w + plot_w + 6, mid + 4, f"{ratio.split(' ')[0]} {verdict}", 10,
                 colour=COLOURS[verdict] if verdict != "info" else "#555")
            y += row_h
        for value, _ in ticks:
            x = to_x(value)
            colour, dash = ("#444", "") if value == origin else ("#ccc", ' stroke-dasharray="2,3"')
            lines.insert(0, f'<line x1="{x:.1f}" y1="{grid_top:.1f}" x2="{x:.1f}" y2="{y:.1f}" stroke="{colour}"{dash}/>')
        y += 14 if top else 0

    panel("×", [b for b in bars if b[6][0] == "×"],
          "Times better than the peer (log scale; bar from 1×, black tick = goal; floor row turned round)")
    panel("dB", [b for b in bars if b[6][0] == "dB"], "PSNR above the peer's (black tick = goal)")
    if others:
        text(pad, y + 4, "Rows against a fixed limit (no peer ratio)", 12, weight="bold")
        y += 10
        for work, ours, peer, ratio, goal, verdict, _ in others:
            mid = y + row_h / 2
            lines.append(f'<circle cx="{pad + 5}" cy="{mid:.1f}" r="4.5" fill="{COLOURS[verdict]}"/>')
            text(pad + 16, mid + 4, _label(f"{work}: {ours} (goal {goal})", "—", 150), 10)
            text(label_w + plot_w + 6, mid + 4, verdict, 10, colour=COLOURS[verdict] if verdict != "info" else "#555")
            y += row_h
    passed = sum(1 for r in bars + others if r[5] == "pass")
    failed = sum(1 for r in bars + others if r[5] == "FAIL")
    height = y + 12
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height:.0f}" '
            f'viewBox="0 0 {width} {height:.0f}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">\n'
            f'<rect width="100%" height="100%" fill="#fff"/>\n')
    title_line = (f'<text x="{pad}" y="20" font-size="14" font-weight="bold" fill="#222">'
                  f'{escape(title)} — {passed} pass, {failed} FAIL</text>\n')
    return head + title_line + "\n".join(lines) + "\n</svg>\n"


def main(argv):
    here = Path(__file__).resolve().parent.parent
    source = Path(argv[0]) if argv else here / "RESULTS.md"
    out = Path(argv[1]) if len(argv) > 1 else source.parent / "ratios.svg"
    section = latest_section(source.read_text())
    rows = rows_from_markdown(section)
    if not rows:
        print(f"chart: no '## Latest run' table rows in {source}", file=sys.stderr)
        return 1
    date = re.search(r"- date: ([^\n]+)", section)
    out.write_text(ratio_chart_svg(rows, "make bench, latest run" + (f" ({date.group(1)})" if date else "")
                                   + ": ratio against goal"))
    print(f"chart: {len(rows)} rows → {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
