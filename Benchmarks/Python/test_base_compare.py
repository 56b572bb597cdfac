"""compare --base's reading of two runs' tables (Python/base_compare.py)."""

import pytest

import base_compare


def page(rows):
    """A results page as compare writes it: a header, the table, a legend table after."""
    lines = ["# WebImage benchmark results", "", "| work | ours | peer | ratio | goal | result |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {work} | {ours} | — | {ratio} | — | info |" for work, ours, ratio in rows]
    lines += ["", "| work | meaning |", "|---|---|", "| not a row | x |"]
    return "\n".join(lines)


def test_values_in_every_unit_the_table_prints():
    assert base_compare.parse_value("832 ms (1.87 of 2 cores busy)") == (pytest.approx(0.832), 1.87, "time")
    assert base_compare.parse_value("1.07 s (1.86 of 2 cores busy)") == (pytest.approx(1.07), 1.86, "time")
    assert base_compare.parse_value("6.31 µs/op") == (pytest.approx(6.31e-06), None, "time")
    assert base_compare.parse_value("410 ns/op")[0] == pytest.approx(410e-9)
    assert base_compare.parse_value("1,234 ms")[0] == pytest.approx(1.234)
    assert base_compare.parse_value("1e+03 ms")[0] == pytest.approx(1.0)  # as pages before 2026-11-30 printed 999.6 ms
    assert base_compare.parse_value("312 MB") == (pytest.approx(312e6), None, "size")
    assert base_compare.parse_value("not measured: no nginx") is None


def test_rows_of_the_first_table_only():
    rows = base_compare.parse_rows(page([("a", "10 ms", "0.90×"), ("b", "2 µs/op", "—")]))
    assert rows == {"a": ("10 ms", "0.90×"), "b": ("2 µs/op", "—")}


def test_per_pair_ratios_their_median_and_the_three_percent_mark():
    # Row "a": 4 % slower in every pair; "b": 1 % faster, then 2 % slower (median 1.005);
    # "c" is measured on one side only, "d" in different kinds (a time, a size).
    pairs = []
    for tip_b, base_b in ((9.9, 10.0), (10.2, 10.0)):
        tip = base_compare.parse_rows(page([("a", "104 ms (1.80 of 2 cores busy)", "0.94×"), ("b", f"{tip_b} ms", "1.00×"),
                                            ("c", "5 ms", "—"), ("d", "5 ms", "—")]))
        base = base_compare.parse_rows(page([("a", "100 ms (1.90 of 2 cores busy)", "0.96×"), ("b", f"{base_b} ms", "1.00×"),
                                             ("c", "not measured: x", "—"), ("d", "5 MB", "—")]))
        pairs.append((tip, base))
    summary = {row["work"]: row for row in base_compare.summarize(pairs)}
    assert set(summary) == {"a", "b"}
    a, b = summary["a"], summary["b"]
    assert round(a["ratio"], 6) == 1.04 and a["slower"] and a["pairs"] == 2
    assert a["tip_busy"] == (1.80, 1.80) and a["base_busy"] == (1.90, 1.90)
    assert a["in_run"] == (0.94, 0.96)
    assert round(b["ratio"], 6) == round((0.99 + 1.02) / 2, 6) and not b["slower"]
    assert round(b["low"], 6) == 0.99 and round(b["high"], 6) == 1.02
    text = base_compare.markdown(list(summary.values()), "tip", "base", 2)
    assert "| a | 104 ms | 100 ms | 1.040 (1.04–1.04), n=2 | 0.94× / 0.96× | 1.80 / 1.90 | SLOWER |" in text
    assert "| b |" in text and text.count("SLOWER |") == 1


def test_the_table_prints_times_the_reader_reads():
    import report
    assert report.format_time(0.9996) == "1 s"  # rounded before the unit is chosen, not "1e+03 ms"
    assert report.format_time(0.99949) == "999 ms"
    assert report.format_time(1.2345e-4) == "123 µs"
    for seconds in (0.9996, 0.0123, 4.5e-7, 3.2):
        value = base_compare.parse_value(report.format_time(seconds))
        assert value is not None and value[0] == pytest.approx(seconds, rel=5e-3)


def test_rates_count_slower_when_they_fall():
    # The serve and bulk rows print rates: fewer per second on the tip is slower.
    assert base_compare.parse_value("58.1 req/s (1162 requests, 33 ms CPU each, 1.89 of 2 cores busy)") == \
        (pytest.approx(58.1), 1.89, "rate req")
    assert base_compare.parse_value("324 images/s (9955 samples)") == (pytest.approx(324), None, "rate images")
    assert base_compare.parse_value("9.79 M/s")[::2] == (pytest.approx(9.79e6), "rate ")
    assert base_compare.parse_value("4.8 M rows/s")[::2] == (pytest.approx(4.8e6), "rate rows")
    assert base_compare.parse_value("p99 0.65 ms (p50 0.29 ms)") is None
    assert base_compare.parse_value("40.04 dB") is None
    # 100 → 95 req/s in both pairs: the tip costs 100/95 = 1.0526 per request.
    pairs = [(base_compare.parse_rows(page([("r", "95 req/s (1.90 of 2 cores busy)", "—")])),
              base_compare.parse_rows(page([("r", "100 req/s (1.90 of 2 cores busy)", "—")])))] * 2
    row = base_compare.summarize(pairs)[0]
    assert round(row["ratio"], 4) == round(100 / 95, 4) and row["slower"]
    assert "| r | 95 req/s | 100 req/s | 1.053 (1.05–1.05), n=2 |" in base_compare.markdown([row], "tip", "base", 2)


def test_the_base_tool_is_built_only_for_the_sections_that_run_it(tmp_path):
    import subprocess
    repo = tmp_path / "repo"
    repo.mkdir()
    for command in (["init", "-q"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"]):
        subprocess.run(["git", "-C", str(repo)] + command, check=True)
    # A stand-in for swift that records each build's arguments.
    log = tmp_path / "builds.log"
    swift = tmp_path / "swift"
    swift.write_text(f"#!/bin/sh\necho \"$@\" >> {log}\n")
    swift.chmod(0o755)
    build = tmp_path / "build"
    bench, tool, sha = base_compare.build_base(repo, "HEAD", build, swift=str(swift), log=lambda _: None)
    assert tool is None and bench == build / "base-build" / "release" / "webimage-bench" and len(sha) == 40
    assert log.read_text().count("\n") == 1
    bench, tool, _ = base_compare.build_base(repo, "HEAD", build, swift=str(swift), log=lambda _: None, cli=True)
    builds = log.read_text().splitlines()
    assert len(builds) == 3 and "--product webimage-bench" in builds[1]
    assert tool == build / "base-build-cli" / "release" / "webimage"
    assert builds[2].split() == ["build", "-c", "release", "--product", "webimage", "--traits", "OpenTelemetry",
                                 "--package-path", str(build / "base-src"), "--scratch-path", str(build / "base-build-cli")]
