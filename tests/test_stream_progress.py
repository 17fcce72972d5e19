"""The progress line of scorekit.evaluate: what it shows, how often, and when."""

from __future__ import annotations

import io
from pathlib import Path

import pyarrow as pa
import pytest

from scorekit import evaluate
from scorekit.io._progress import Progress, wanted
from tables import write


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _lines(out: io.StringIO) -> list[str]:
    return [part.rstrip() for part in out.getvalue().split("\r") if part]


def test_rows_bytes_rate_and_time_left() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(total_bytes=4_000_000, total_rows=None, stream=out, clock=clock)
    clock.now += 2
    bar.update(rows=50_000, bytes_read=1_000_000)
    assert _lines(out) == ["50,000 rows  1.0 MB/4.0 MB   25%  25.0k rows/s  500.0 kB/s  ETA 0:06"]
    clock.now += 6
    bar.update(rows=150_000, bytes_read=4_000_000)
    bar.close()
    assert _lines(out)[-1] == "200,000 rows  4.0 MB/4.0 MB  100%  25.0k rows/s  500.0 kB/s  in 0:08"
    assert out.getvalue().endswith("\n") and out.getvalue().count("\n") == 1


def test_rows_only_when_the_size_is_unknown() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(stream=out, clock=clock)
    clock.now += 4
    bar.update(rows=1000)
    assert _lines(out) == ["1,000 rows  250 rows/s"]


def test_redrawn_at_most_ten_times_a_second() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(total_rows=1000, stream=out, clock=clock)
    for _ in range(100):
        clock.now += 0.01
        bar.update(rows=10)
    assert len(_lines(out)) == 10
    bar.close()
    assert _lines(out)[-1].startswith("1,000/1,000 rows  100%")


def test_a_shorter_line_clears_the_longer_one() -> None:
    clock, out = Clock(), io.StringIO()
    bar = Progress(stream=out, clock=clock)
    clock.now += 1
    bar.update(rows=123_456_789)
    clock.now += 1000
    bar.update(rows=1)
    first, second = out.getvalue().split("\r")[1:]
    assert len(second) >= len(first)


def test_disabled_bar_counts_but_draws_nothing() -> None:
    out = io.StringIO()
    bar = Progress(enabled=False, stream=out)
    bar.update(rows=5, bytes_read=10)
    bar.close()
    assert (bar.rows, bar.bytes, out.getvalue()) == (5, 10, "")


def test_shown_on_terminals_unless_forced() -> None:
    assert wanted(None, Terminal()) is True
    assert wanted(None, io.StringIO()) is False
    assert wanted(False, Terminal()) is False
    assert wanted(True, io.StringIO()) is True


def test_evaluate_draws_on_stderr_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(pa.table({"y_true": [1, 0] * 500, "y_pred": [1, 1] * 500}), tmp_path / "a.csv")
    evaluate(path, ["accuracy"], chunk_size=100, progress=True)
    err = capsys.readouterr().err
    final = err.split("\r")[-1]
    size = path.stat().st_size
    assert final.startswith(f"1,000 rows  {size / 1000:.1f} kB/{size / 1000:.1f} kB  100%")
    assert final.endswith("\n")
    evaluate(path, ["accuracy"], chunk_size=100, progress=False)
    evaluate(path, ["accuracy"], chunk_size=100)  # stderr is not a terminal here
    assert capsys.readouterr().err == ""
