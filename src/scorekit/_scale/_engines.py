"""The engines behind the scale flags: chunks of files, Dask, and the warnings of chunks."""

from __future__ import annotations

import argparse
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from scorekit._core import Metric
from scorekit.errors import UndefinedMetricWarning

__all__ = ["dask_run", "fold_file", "sum_counts"]

T = TypeVar("T")


# warnings -----------------------------------------------------------------------------------

_COUNT = re.compile(r"\b(\d+) of (\d+)\b")


def sum_counts(texts: Sequence[str]) -> list[str]:
    """Distinct warnings, with the ``K of N`` counts of repeats summed.

    Chunks warn about their own part (``3 of 40 queries have no relevant
    document``); messages that differ only in such counts are one message
    about the whole data, with the counts added up.

    Examples
    --------
    >>> sum_counts(["map: 1 of 4 queries are empty.", "map: 2 of 5 queries are empty.", "x"])
    ['map: 3 of 9 queries are empty.', 'x']
    """
    totals: dict[str, list[int]] = {}
    order: list[str] = []
    for text in texts:
        shape = _COUNT.sub("{}", text)
        counts = [int(n) for pair in _COUNT.findall(text) for n in pair]
        if shape not in totals:
            totals[shape] = counts
            order.append(shape)
        elif len(totals[shape]) == len(counts):
            totals[shape] = [a + b for a, b in zip(totals[shape], counts, strict=True)]
    return [_fill(shape, totals[shape]) for shape in order]


def _fill(shape: str, counts: list[int]) -> str:
    parts = shape.split("{}")
    text = parts[0]
    for i, rest in enumerate(parts[1:]):
        text += f"{counts[2 * i]} of {counts[2 * i + 1]}" + rest
    return text


# engines ------------------------------------------------------------------------------------


def fold_file(
    source: str,
    wanted: Sequence[str],
    size: int,
    show: bool | None,
    fold: Callable[[Iterable[Any]], T],
) -> T:
    """Apply ``fold`` to the chunks of a file (or glob, or directory) read by the stream engine.

    The engine fixes the type of a column from its first block and, when a later
    value does not fit, settles the column types and calls ``fold`` again from
    the start (see :func:`scorekit.engines.stream.read_chunks`), so the result is
    that of the whole file.
    """
    from scorekit.engines.stream import read_chunks

    return read_chunks(source, wanted, size, fold, progress=show)


def dask_run(
    source: Any,
    metrics: Mapping[str, Metric[Any]],
    columns: dict[str, Any] | None,
    args: argparse.Namespace,
    *,
    qrels: Any = None,
) -> tuple[dict[str, Any], int, list[str]]:
    """The states of ``metrics`` over ``source`` computed on a Dask cluster, with warnings.

    ``source`` is a path (glob, directory) of table files or an in-memory table.
    """
    from scorekit.engines import _sources
    from scorekit.engines._columns import resolve
    from scorekit.engines.dask import dask_states

    if isinstance(source, str):
        present = _sources.open_source(source).columns()
    else:
        present = list(source.column_names)
    listed = list(metrics.values())
    mapping = resolve(listed, columns, present)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows = dask_states(
            source,
            listed,
            mapping,
            qrels=qrels,
            scheduler=args.scheduler,
            workers=args.workers,
        )
    # the metrics warn on the workers; what reaches here is Dask's and pandas' own noise,
    # except for scorekit's warnings about undefined values
    texts = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    return dict(zip(metrics, states, strict=True)), int(rows), list(dict.fromkeys(texts))
