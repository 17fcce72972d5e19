"""``scorekit text`` at scale: line-aligned files in blocks of lines, or on Dask."""

from __future__ import annotations

import argparse
import gzip
import itertools
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from scorekit._core import Metric, State
from scorekit._scale._engines import dask_run
from scorekit._scale._flags import chunk_size, progress
from scorekit.errors import InputError, message, raw

__all__ = ["read_line_blocks", "text_states"]


# text: blocks of lines ------------------------------------------------------------------------


def _open_lines(path: Path) -> Any:
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))
    if path.name.endswith(".gz"):
        return gzip.open(path, "rb")
    return path.open("rb")


def _decoded(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file, as :func:`scorekit.text._lines.read_lines` reads them."""
    with _open_lines(path) as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                line = line[3:]
            if line.endswith(b"\n"):
                line = line[:-1]
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InputError(
                    message(
                        f"{path}, line {number}",
                        "not valid UTF-8",
                        raw(f"byte 0x{line[exc.start]:02x} at column {exc.start + 1}"),
                        "UTF-8 text",
                    )
                ) from None
            yield text[:-1] if text.endswith("\r") else text


def read_line_blocks(
    hypotheses: str | Path, references: Sequence[str | Path], lines: int
) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Hypotheses and their references, ``lines`` lines at a time.

    The files are read as :func:`scorekit.text._lines.read_parallel` reads them
    (UTF-8, ``.gz``, byte-order mark, ``\\r\\n``), with the same errors; a
    difference in line count is found when the shorter file ends, and names
    both files and both counts.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "h.txt").write_text("a\\nb\\nc\\n"); _ = (d / "r.txt").write_text("A\\nB\\nC\\n")
    >>> [h for h, _ in read_line_blocks(d / "h.txt", [d / "r.txt"], 2)]
    [['a', 'b'], ['c']]
    """
    if not references:
        raise InputError(message("scorekit text", "no reference file", None, "--refs FILE"))
    paths = [Path(hypotheses), *(Path(r) for r in references)]
    streams = [_decoded(p) for p in paths]
    end = object()
    rows: Iterator[tuple[Any, ...]] = itertools.zip_longest(*streams, fillvalue=end)
    count = 0
    last: tuple[Any, ...] = ()
    while True:
        block = list(itertools.islice(rows, lines))
        whole = [row for row in block if not any(v is end for v in row)]
        count += len(whole)
        if whole:
            yield [row[0] for row in whole], [list(row[1:]) for row in whole]
        if len(whole) < len(block):
            last = block[len(whole)]
            break
        if len(block) < lines:
            return
    # one file ended before the others: count what the others still hold
    totals = [
        count + (v is not end) + sum(1 for _ in s) for v, s in zip(last, streams, strict=True)
    ]
    for path, n in zip(paths[1:], totals[1:], strict=True):
        if n != totals[0]:
            raise InputError(
                message(
                    "scorekit text",
                    "reference and hypothesis files differ in line count",
                    raw(f"{n} lines in {path}, {totals[0]} in {hypotheses}"),
                    "one reference line per hypothesis line",
                )
            )


def text_states(
    args: argparse.Namespace, metrics: dict[str, Metric[Any]]
) -> tuple[dict[str, State], int]:
    """States of text metrics over ``--hyps`` and ``--refs``, in blocks of lines or on Dask.

    The stream engine's way for text: the files are read ``--chunk-size`` lines
    at a time and each block's states are merged into the total. With
    ``--engine dask`` the files are read here and their lines sent to the
    cluster as a table (a column of hypotheses and one per reference file).
    """
    from scorekit.engines import _progress

    if args.engine == "dask":
        import pyarrow as pa

        from scorekit.text._lines import read_parallel

        hyps, refs = read_parallel(args.hyps, args.refs)
        names = [f"reference_{i}" for i in range(len(args.refs))]
        columns = {name: [r[i] for r in refs] for i, name in enumerate(names)}
        table = pa.table({"predictions": pa.array(hyps, pa.string()), **columns})
        mapping = {"references": names, "predictions": "predictions"}
        states, rows, _ = dask_run(table, metrics, mapping, args)
        return states, rows
    states = {key: metric.empty() for key, metric in metrics.items()}
    rows = 0
    bar = _progress.Progress(enabled=_progress.wanted(progress(args)))
    try:
        for hyps, refs in read_line_blocks(args.hyps, args.refs, chunk_size(args)):
            for key, metric in metrics.items():
                part = metric.summarize(refs, hyps)
                states[key] = part if rows == 0 else metric.merge(states[key], part)
            rows += len(hyps)
            bar.update(rows=len(hyps))
    finally:
        bar.close()
    return states, rows
