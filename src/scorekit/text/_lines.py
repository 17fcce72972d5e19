"""Line-aligned text files (one sentence a line, as sacrebleu reads them), with exact errors.

:func:`read_lines` and :func:`read_parallel` read whole files;
:func:`read_line_blocks` reads the same lines, with the same errors, a block of
lines at a time (``scorekit text --chunk-size``).
"""

from __future__ import annotations

import gzip
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO, cast

from scorekit.errors import InputError, message, raw
from scorekit.io import local_path

__all__ = ["iter_lines", "read_line_blocks", "read_lines", "read_parallel"]

_BOM = b"\xef\xbb\xbf"


def _check_file(path: Path) -> None:
    path = Path(local_path(path))
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))


def _open(path: Path) -> BinaryIO:
    path = Path(local_path(path))
    if path.name.endswith(".gz"):
        return cast(BinaryIO, gzip.open(path, "rb"))
    return path.open("rb")


def _not_utf8(path: Path, line: int, data: bytes, start: int, column: int) -> InputError:
    return InputError(
        message(
            f"{path}, line {line}",
            "not valid UTF-8",
            raw(f"byte 0x{data[start]:02x} at column {column}"),
            "UTF-8 text",
        )
    )


def _line_counts_differ(
    hypotheses: str | Path, reference: str | Path, n_refs: int, n_hyps: int
) -> InputError:
    return InputError(
        message(
            "scorekit text",
            "reference and hypothesis files differ in line count",
            raw(f"{n_refs} lines in {reference}, {n_hyps} in {hypotheses}"),
            "one reference line per hypothesis line",
        )
    )


def _no_references() -> InputError:
    return InputError(message("scorekit text", "no reference file", None, "--refs FILE"))


def read_lines(path: str | Path) -> list[str]:
    """The lines of a UTF-8 text file, without their line endings (``.gz`` too).

    A UTF-8 byte-order mark is dropped; ``\\r\\n`` endings are accepted. Invalid
    UTF-8 is an error naming the file, the line and the byte.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "hyps.txt"
    >>> _ = path.write_bytes(b"the cat\\r\\nsat\\n")
    >>> read_lines(path)
    ['the cat', 'sat']
    """
    path = Path(path)
    _check_file(path)
    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    if data.startswith(_BOM):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise _not_utf8(path, line, data, exc.start, column) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def iter_lines(path: str | Path) -> Iterator[str]:
    """The lines of a UTF-8 text file one at a time, as :func:`read_lines` reads them.

    The same lines and the same errors, with memory bounded by the longest
    line. A missing file is an error at the first line asked for.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "hyps.txt"
    >>> _ = path.write_bytes(b"\\xef\\xbb\\xbfthe cat\\r\\nsat")
    >>> list(iter_lines(path))
    ['the cat', 'sat']
    """
    path = Path(path)
    _check_file(path)
    with _open(path) as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1 and line.startswith(_BOM):
                line = line[3:]
            if line.endswith(b"\n"):
                line = line[:-1]
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _not_utf8(path, number, line, exc.start, exc.start + 1) from None
            yield text[:-1] if text.endswith("\r") else text


def read_parallel(
    hypotheses: str | Path, references: Sequence[str | Path]
) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and, per hypothesis, its references from line-aligned files.

    Every reference file must have as many lines as the hypothesis file; a
    mismatch names both files and both counts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "h.txt").write_text("a\\nb\\n"); _ = (d / "r.txt").write_text("A\\nB\\n")
    >>> read_parallel(d / "h.txt", [d / "r.txt"])
    (['a', 'b'], [['A'], ['B']])
    """
    hyps = read_lines(hypotheses)
    streams = [read_lines(r) for r in references]
    if not streams:
        raise _no_references()
    for path, stream in zip(references, streams, strict=True):
        if len(stream) != len(hyps):
            raise _line_counts_differ(hypotheses, path, len(stream), len(hyps))
    return hyps, [list(group) for group in zip(*streams, strict=True)] if hyps else []


def read_line_blocks(
    hypotheses: str | Path, references: Sequence[str | Path], lines: int
) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Hypotheses and their references, ``lines`` lines at a time.

    The files are read as :func:`read_parallel` reads them (UTF-8, ``.gz``,
    byte-order mark, ``\\r\\n``), with the same errors; a difference in line
    count is found when the shorter file ends, and names both files and both
    counts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "h.txt").write_text("a\\nb\\nc\\n"); _ = (d / "r.txt").write_text("A\\nB\\nC\\n")
    >>> list(read_line_blocks(d / "h.txt", [d / "r.txt"], 2))
    [(['a', 'b'], [['A'], ['B']]), (['c'], [['C']])]
    """
    if not references:
        raise _no_references()
    paths = [Path(hypotheses), *(Path(r) for r in references)]
    streams = [iter_lines(p) for p in paths]
    end = object()
    rows: Iterator[tuple[Any, ...]] = itertools.zip_longest(*streams, fillvalue=end)
    count = 0
    rest: list[tuple[Any, ...]] = []
    while True:
        block = list(itertools.islice(rows, lines))
        whole = [row for row in block if not any(v is end for v in row)]
        count += len(whole)
        if whole:
            yield [row[0] for row in whole], [list(row[1:]) for row in whole]
        if len(whole) < len(block):
            rest = block[len(whole) :]
            break
        if len(block) < lines:
            return
    # one file ended before the others: count what the others still hold
    totals = [
        count + sum(row[i] is not end for row in rest) + sum(1 for _ in s)
        for i, s in enumerate(streams)
    ]
    for path, n in zip(paths[1:], totals[1:], strict=True):
        if n != totals[0]:
            raise _line_counts_differ(hypotheses, path, n, totals[0])
