"""TREC run files as a format of :mod:`scorekit.io`, read in batches of ``query, doc, score``.

A run (``qid Q0 docid rank score tag``) whose fields are separated by single
spaces or tabs is read with pyarrow's streaming CSV reader; other runs (several
spaces, empty fields) are read whole with :func:`scorekit.ranking.read_run`'s
parser, which names the line of a bad field.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from scorekit import io
from scorekit.ranking._trec import _RUN_FIELDS, _has_empty, read_run_file

__all__ = ["run_batches"]


def run_batches(path: Path, chunk_size: int) -> Iterator[tuple[Any, int]]:
    import pyarrow as pa
    from pyarrow import csv

    sample = io.head(path)
    if not sample.strip():
        raise io.empty_file_error(path, "lines of run")
    first = sample.removeprefix(io.BOM).split(b"\n", 1)[0]
    delimiter = "\t" if b"\t" in first else " "
    block = io.block_size(sample, chunk_size)
    types = {"query": pa.string(), "doc": pa.string(), "score": pa.float64()}
    done = 0
    fast = True
    while fast:
        handle, stream = io.open_file(path)
        try:
            reader = csv.open_csv(
                stream,
                read_options=csv.ReadOptions(column_names=list(_RUN_FIELDS), block_size=block),
                parse_options=csv.ParseOptions(delimiter=delimiter, quote_char=False),
                convert_options=csv.ConvertOptions(
                    column_types=types,
                    include_columns=["query", "doc", "score"],
                    null_values=[],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
            seen = 0
            while True:
                try:
                    batch = reader.read_next_batch()
                except StopIteration:
                    return
                table = pa.Table.from_batches([batch])
                score = np.asarray(table.column("score").to_numpy(), dtype=np.float64)
                if (
                    _has_empty(table.column("query"))
                    or _has_empty(table.column("doc"))
                    or not np.isfinite(score).all()
                ):
                    fast = False
                    break
                part = io.skip(table, seen, done)
                seen += table.num_rows
                if part is not None:
                    done = seen
                    yield part, handle.tell()
        except (pa.ArrowException, OSError) as exc:
            if io.straddles(exc) and block < (1 << 31):
                block *= 4
                continue
            fast = False
        finally:
            handle.close()
    columns = read_run_file(path)
    table = pa.table({"query": columns.query, "doc": columns.doc, "score": columns.values})
    yield table.slice(done), path.stat().st_size


io.register_format(
    io.Format(
        name="trec",
        extensions=(".run", ".txt"),
        columns=lambda path: ["query", "doc", "score"],
        batches=lambda path, wanted, size, types: run_batches(path, size),
        compressible=True,
        in_directories=(".run",),
    )
)
