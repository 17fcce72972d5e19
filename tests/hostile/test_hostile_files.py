"""Hostile data files: broken CSV quoting, NUL bytes, deep JSON, huge numbers, SQuAD files."""

from __future__ import annotations

import gzip
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

import scorekit
import scorekit.io
import scorekit.qa
import scorekit.text
from hostile import assert_clean_error, write
from hostile import scorekit as run_scorekit
from scorekit.errors import InputError

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
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, f"q.{suffix}, line 52, column 5", "quoted field not closed")
    assert proc.stdout == ""


@pytest.mark.parametrize("chunked", CHUNKED)
def test_unterminated_quote_unread_column(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] An open quote in a column no metric reads still loses rows: an error."""
    rows = [f"{r},note" for r in _labels(300)]
    rows[20] = 'cat,dog,"note'
    path = write(tmp_path / "q.csv", ["y,p,text", *rows])
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "q.csv, line 22, column 9", "quoted field not closed")


@pytest.mark.parametrize("chunked", CHUNKED)
def test_unterminated_quote_on_last_line(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] An open quote on the last line reads its line end into the label: an error."""
    rows = _labels(30)
    rows[-1] = 'cat,"dog'
    path = _table(tmp_path / "q.csv", rows)
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "q.csv, line 31, column 5", "quoted field not closed")


@pytest.mark.parametrize("chunked", [(), ("--chunk-size", "1000")])
def test_unterminated_quote_in_a_large_file(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] In a file of several blocks the open quote swallows its block: an error."""
    lines = ["y,p,t"] + ["cat,dog,x"] * 100_000 + ['cat,dog,"x'] + ["dog,dog,x"] * 200_000
    path = write(tmp_path / "big.csv", lines)
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
    assert_clean_error(proc, "big.csv, line 100002, column 9", "quoted field not closed")


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize(
    ("line", "where"),
    [("cat,d\x00og", "line 3, column 6"), ("1,0\x00", "line 3, column 4")],
)
def test_nul_byte(tmp_path: Path, line: str, where: str, chunked: tuple[str, ...]) -> None:
    """[silent] A NUL byte in a CSV cell is an error naming its line, not a label 'd\\x00og'."""
    path = _table(tmp_path / "n.csv", ["cat,dog", line, "dog,dog"])
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
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
    proc = run_scorekit("eval", path, *EVAL, *chunked, cwd=tmp_path)
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
    proc = run_scorekit("eval", path, *EVAL, *chunked, "--format", "csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("accuracy,0.")
    assert f"{float(proc.stdout.splitlines()[-1].split(',')[1]):.4f}" == accuracy


# JSON Lines --------------------------------------------------------------------------

DEEP = 30_000


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize("end", ["\n", ""])
def test_deep_json_line(tmp_path: Path, end: str, chunked: tuple[str, ...]) -> None:
    """[crash] A line nested 30,000 deep in a column no metric reads crashed pyarrow: an error."""
    deep = "[" * DEEP + "]" * DEEP
    path = tmp_path / "d.jsonl"
    path.write_text('{"y": 1, "p": 1}\n' * 50 + f'{{"y": 0, "p": 0, "x": {deep}}}{end}')
    proc = run_scorekit("eval", path, "--task", "binary", "--true", "y", "--pred", "p", *chunked)
    assert_clean_error(proc, "d.jsonl, line 51, column 522", "JSON nested too deeply", "500")


def test_deep_json_line_in_a_later_block(tmp_path: Path) -> None:
    """[crash] The deep line far below the first block is found before pyarrow parses it."""
    deep = "[" * DEEP + "]" * DEEP
    path = tmp_path / "d.jsonl.gz"
    body = '{"y": 1, "p": 1}\n' * 200_000 + f'{{"y": 0, "p": 0, "x": {deep}}}\n'
    path.write_bytes(gzip.compress(body.encode()))
    for chunked in CHUNKED:
        proc = run_scorekit(
            "eval", path, "--task", "binary", "--true", "y", "--pred", "p", *chunked
        )
        assert_clean_error(proc, "d.jsonl.gz, line 200001", "JSON nested too deeply")


@pytest.mark.parametrize("chunked", CHUNKED)
def test_brackets_in_json_strings(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[silent] Brackets inside strings (and escaped quotes) are not nesting: the file is read."""
    text = '\\"' + "[" * 2000
    path = write(
        tmp_path / "s.jsonl",
        ['{"y": 1, "p": 1}', f'{{"y": 0, "p": 1, "x": "{text}"}}', '{"y": 0, "p": 0}'],
    )
    proc = run_scorekit(
        "eval",
        path,
        "--task",
        "binary",
        "--true",
        "y",
        "--pred",
        "p",
        "--metric",
        "accuracy",
        "--format",
        "csv",
        *chunked,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("accuracy,0.666")


@pytest.mark.parametrize("chunked", CHUNKED)
@pytest.mark.parametrize("suffix", ["csv", "jsonl"])
def test_huge_number_in_a_data_column(
    tmp_path: Path, suffix: str, chunked: tuple[str, ...]
) -> None:
    """[crash] A 5,000-digit number in a label column is an error naming line and column."""
    big = "9" * 5000
    if suffix == "csv":
        path = write(tmp_path / "n.csv", ["y,p", "1,1", f"0,{big}"])
    else:
        path = write(tmp_path / "n.jsonl", ['{"y": 1, "p": 1}', f'{{"y": 0, "p": {big}}}'])
    proc = run_scorekit("eval", path, "--task", "binary", "--true", "y", "--pred", "p", *chunked)
    assert_clean_error(proc, f"n.{suffix}, line 3" if suffix == "csv" else "n.jsonl, line 2")
    assert "column 'p'" in proc.stderr


@pytest.mark.parametrize("chunked", CHUNKED)
def test_huge_number_where_types_clash(tmp_path: Path, chunked: tuple[str, ...]) -> None:
    """[crash] A 5,000-digit integer met while finding a bad line is an error, not a ValueError."""
    big = "9" * 5000
    path = write(tmp_path / "n.jsonl", ['{"y": 1, "p": 1}', f'{{"y": 0, "p": "a", "q": {big}}}'])
    proc = run_scorekit("eval", path, "--task", "binary", "--true", "y", "--pred", "p", *chunked)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "n.jsonl, line 2" in proc.stderr


# SQuAD files -------------------------------------------------------------------------


def _squad(tmp_path: Path) -> tuple[Path, Path]:
    dataset = tmp_path / "dev.json"
    dataset.write_text(
        '{"data": [{"paragraphs": [{"qas": [{"id": "q1", "answers": [{"text": "Paris"}]}]}]}]}'
    )
    predictions = tmp_path / "pred.json"
    predictions.write_text('{"q1": "Paris"}')
    return dataset, predictions


def test_squad_nested_deeply(tmp_path: Path) -> None:
    """[crash] A SQuAD file nested 100,000 deep was a RecursionError: an error naming the place."""
    _, predictions = _squad(tmp_path)
    dataset = tmp_path / "deep.json"
    dataset.write_text('{"data": ' + "[" * 100_000 + "]" * 100_000 + "}")
    proc = run_scorekit("qa", dataset, predictions)
    assert_clean_error(proc, "deep.json, line 1, column 509", "JSON nested too deeply")


@pytest.mark.parametrize("which", ["dataset", "predictions"])
def test_squad_long_number(tmp_path: Path, which: str) -> None:
    """[crash] A 5,000-digit integer in a SQuAD file was Python's ValueError: an error."""
    dataset, predictions = _squad(tmp_path)
    target = dataset if which == "dataset" else predictions
    target.write_text('{\n  "q1": ' + "1" * 5000 + "\n}")
    proc = run_scorekit("qa", dataset, predictions)
    assert_clean_error(proc, f"{target.name}, line 2, column 9", "number too long", "5000 digits")


def test_squad_fifo(tmp_path: Path) -> None:
    """[hang] A FIFO as the SQuAD file blocked for ever: refused before it is opened."""
    _, predictions = _squad(tmp_path)
    fifo = tmp_path / "dev.json"
    fifo.unlink()
    os.mkfifo(fifo)
    proc = run_scorekit("qa", fifo, predictions, timeout=20)
    assert_clean_error(proc, "dev.json: is a FIFO, not a regular file", "a SQuAD file")


def test_squad_device(tmp_path: Path) -> None:
    """[memory] /dev/zero as the SQuAD file read until MemoryError: refused."""
    _, predictions = _squad(tmp_path)
    proc = run_scorekit("qa", "/dev/zero", predictions, timeout=20)
    assert_clean_error(proc, "/dev/zero: is a device", "a SQuAD file")


def test_squad_over_the_size_limit(tmp_path: Path) -> None:
    """[memory] A SQuAD file larger than --max-file-size is refused, naming the limit."""
    dataset, predictions = _squad(tmp_path)
    bomb = tmp_path / "bomb.json"
    bomb.write_bytes(gzip.compress(b" " * (8 << 20)))
    proc = run_scorekit("qa", bomb, predictions, "--max-file-size", "1M")
    assert_clean_error(proc, "bomb.json: file too large", "once decompressed", "--max-file-size")
    assert run_scorekit("qa", dataset, predictions, "--max-file-size", "1M").returncode == 0


# tables given where a column is expected ---------------------------------------------


def _frame() -> Any:
    pd = pytest.importorskip("pandas")
    return pd.DataFrame({"predictions": ["the cat sat", "a dog"], "other": ["x", "y"]})


@pytest.mark.parametrize(
    ("metric", "call"),
    [
        ("bleu", lambda t: scorekit.text.bleu([["the cat sat"], ["a dog"]], t)),
        ("rouge", lambda t: scorekit.text.rouge(t, ["the cat sat", "a dog"])),
        ("qa_f1", lambda t: scorekit.qa.f1([["the cat sat"], ["a dog"]], t)),
        ("exact_match", lambda t: scorekit.qa.exact_match(t, ["the cat sat", "a dog"])),
    ],
)
@pytest.mark.parametrize("kind", ["pandas", "pyarrow"])
def test_table_as_texts(metric: str, call: Callable[[Any], Any], kind: str) -> None:
    """[silent] A DataFrame as predictions was read as its column names: an error naming it."""
    table = _frame() if kind == "pandas" else pa.Table.from_pandas(_frame())
    with pytest.raises(InputError, match=rf"^{metric}: \w+ is a table; got {kind}\.") as info:
        call(table)
    assert "one column of the table" in str(info.value)


def test_series_of_texts_still_read() -> None:
    """[silent] A pandas Series of strings (one column) is read as before."""
    frame = _frame()
    refs = [["the cat sat"], ["a dog"]]
    assert scorekit.qa.f1(refs, frame["predictions"]) == scorekit.qa.f1(
        refs, list(frame["predictions"])
    )
    assert scorekit.text.bleu(refs, frame["predictions"]).score == pytest.approx(
        scorekit.text.bleu(refs, ["the cat sat", "a dog"]).score
    )


@pytest.mark.parametrize("kind", ["pandas", "pyarrow"])
def test_duplicate_column_names(kind: str) -> None:
    """[crash] A table with a duplicated column name was a raw pandas/pyarrow error."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([[1, 0, 1], [0, 0, 1]], columns=["y", "p", "p"])
    table = frame if kind == "pandas" else pa.table([[1, 0], [0, 0], [1, 1]], names=["y", "p", "p"])
    with pytest.raises(InputError, match="column name more than once; got 'p'"):
        scorekit.evaluate(table, "accuracy", columns={"y_true": "y", "y_pred": "p"})
    with pytest.raises(InputError, match="got 'p'"):
        scorekit.io.as_table(table)
    result = scorekit.evaluate(table, "accuracy", columns={"y_true": "y", "y_pred": "y"})
    assert result.values["accuracy"] == 1.0
