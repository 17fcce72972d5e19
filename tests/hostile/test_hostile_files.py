"""Hostile data files: broken CSV quoting, NUL bytes, deep JSON, huge numbers, SQuAD files."""

from __future__ import annotations

from pathlib import Path

import pytest

from hostile import assert_clean_error, scorekit, write

CHUNKED = [(), ("--chunk-size", "10")]
EVAL = ("--task", "multiclass", "--true", "y", "--pred", "p", "--metric", "accuracy")


def _labels(n: int) -> list[str]:
    names = ["cat", "dog"]
    return [f"{names[i % 2]},{names[(i // 3) % 2]}" for i in range(n)]


def _table(path: Path, rows: list[str], delimiter: str = ",") -> Path:
    return write(path, [line.replace(",", delimiter) for line in ["y,p", *rows]])


# CSV and TSV -------------------------------------------------------------------------


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize("suffix", ["csv", "tsv"])
def test_unterminated_quote(tmp_path: Path, suffix: str, chunked: tuple[str, ...]) -> None:
    """[silent] A quote never closed on line 52 of 301 is an error naming the line, not 51 rows."""
    rows = _labels(300)
    rows[50] = 'cat,"dog'
    path = _table(tmp_path / f"q.{suffix}", rows, "\t" if suffix == "tsv" else ",")
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, f"q.{suffix}, line 52, column 5", "quoted field not closed")
    assert proc.stdout == ""


@pytest.mark.parametrize("chunked", CHUNKED)
def test_unterminated_quote_unread_column(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] An open quote in a column no metric reads still loses rows: an error."""
    rows = [f"{r},note" for r in _labels(300)]
    rows[20] = 'cat,dog,"note'
    path = write(tmp_path / "q.csv", ["y,p,text", *rows])
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "q.csv, line 22, column 9", "quoted field not closed")


@pytest.mark.parametrize("chunked", CHUNKED)
def test_unterminated_quote_on_last_line(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] An open quote on the last line reads its line end into the label: an error."""
    rows = _labels(30)
    rows[-1] = 'cat,"dog'
    path = _table(tmp_path / "q.csv", rows)
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "q.csv, line 31, column 5", "quoted field not closed")


@pytest.mark.parametrize("chunked", [(), ("--chunk-size", "1000")])
def test_unterminated_quote_in_a_large_file(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] In a file of several blocks the open quote swallows its block: an error."""
    lines = ["y,p,t"] + ["cat,dog,x"] * 100_000 + ['cat,dog,"x'] + ["dog,dog,x"] * 200_000
    path = write(tmp_path / "big.csv", lines)
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "big.csv, line 100002, column 9", "quoted field not closed")


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize(
    ("line", "where"),
    [("cat,d\x00og", "line 3, column 6"), ("1,0\x00", "line 3, column 4")],
)
def test_nul_byte(tmp_path: Path, line: str, where: str, chunked: tuple[str, ...]) -> None:
    """[silent] A NUL byte in a CSV cell is an error naming its line, not a label 'd\\x00og'."""
    path = _table(tmp_path / "n.csv", ["cat,dog", line, "dog,dog"])
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, f"n.csv, {where}", "NUL byte")


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize(
    ("rows", "fragment"),
    [
        (["cat,dog", "cat,dog,x", "dog,dog"], "line 3: row has the wrong number of fields"),
        (["cat,dog", "cat,cat", "dog"], "line 4: row has the wrong number of fields"),
        (["cat,dog", "   ", "cat,cat"], "line 3: row has the wrong number of fields"),
    ],
)
def test_ragged_rows(
    tmp_path: Path, rows: list[str], fragment: str, chunked: tuple[str, ...]
) -> None:
    """[silent] A row with too many fields, a blank-looking row, a file ending mid-row: errors."""
    path = _table(tmp_path / "r.csv", rows)
    proc = scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, f"r.csv, {fragment}")


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize(
    ("data", "accuracy"),
    [
        (b"y,p\r\ncat,dog\ncat,cat\r\ndog,dog\rdog,cat\r\n", "0.5000"),
        (b"\n\ny,p\n\ncat,dog\n\n\ncat,cat\n\n", "0.5000"),
        (b'y,p\ncat,dog\ncat,ca"t\ndog,dog\n', "0.3333"),
        (b'y,p\n"cat","dog"\n"cat","c""at"\n"dog","dog"\n', "0.3333"),
    ],
)
def test_read_correctly(
    tmp_path: Path, data: bytes, accuracy: str, chunked: tuple[str, ...]
) -> None:
    """[silent] Mixed line ends, blank lines, quotes in fields, doubled quotes: rows all read."""
    path = tmp_path / "ok.csv"
    path.write_bytes(data)
    proc = scorekit("eval", path, *EVAL, *chunked, "--format", "csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("accuracy,0.")
    assert f"{float(proc.stdout.splitlines()[-1].split(',')[1]):.4f}" == accuracy
