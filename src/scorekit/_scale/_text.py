"""``scorekit text`` at scale: line-aligned files in blocks of lines, or on Dask."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from typing import Any

from scorekit._scale._engines import dask_run
from scorekit._scale._flags import chunk_size, progress
from scorekit.core import Metric, State
from scorekit.text._lines import read_line_blocks

__all__ = ["read_line_blocks", "text_states"]

_PREDICTIONS = "predictions"
_REFERENCES = "references"


def _tables(blocks: Iterable[tuple[list[str], list[list[str]]]], bar: Any) -> Iterator[Any]:
    """Each block of lines as a table: a hypothesis and its list of references per row."""
    import pyarrow as pa

    for hyps, refs in blocks:
        bar.update(rows=len(hyps))
        yield pa.table(
            {
                _PREDICTIONS: pa.array(hyps, pa.string()),
                _REFERENCES: pa.array(refs, pa.list_(pa.string())),
            }
        )


def text_states(
    args: argparse.Namespace, metrics: dict[str, Metric[Any]]
) -> tuple[dict[str, State], int]:
    """States of text metrics over ``--hyps`` and ``--refs``, in blocks of lines or on Dask.

    The files are read ``--chunk-size`` lines at a time
    (:func:`scorekit.text._lines.read_line_blocks`) and the blocks folded by the
    stream engine (:func:`scorekit.engines.stream.fold`). With ``--engine dask``
    the files are read here and their lines sent to the cluster as a table (a
    column of hypotheses and one per reference file).
    """
    from scorekit import io
    from scorekit.engines import resolve
    from scorekit.engines.stream import fold

    if args.engine == "dask":
        import pyarrow as pa

        from scorekit.text._lines import read_parallel

        hyps, refs = read_parallel(args.hyps, args.refs)
        names = [f"reference_{i}" for i in range(len(args.refs))]
        columns = {name: [r[i] for r in refs] for i, name in enumerate(names)}
        table = pa.table({_PREDICTIONS: pa.array(hyps, pa.string()), **columns})
        mapping = {_REFERENCES: names, _PREDICTIONS: _PREDICTIONS}
        states, rows, _ = dask_run(table, metrics, mapping, args)
        return states, rows
    listed = list(metrics.values())
    roles = resolve(listed, None, [_PREDICTIONS, _REFERENCES])
    bar = io.Progress(enabled=io.progress_wanted(progress(args)))
    try:
        blocks = read_line_blocks(args.hyps, args.refs, chunk_size(args))
        merged, rows = fold(listed, _tables(blocks, bar), roles)
    finally:
        bar.close()
    return dict(zip(metrics, merged, strict=True)), rows
