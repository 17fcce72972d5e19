"""Files and clusters for the file-level functions: chunks of a file, and states on Dask."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from scorekit.core import Metric
from scorekit.errors import UndefinedMetricWarning

__all__ = ["dask_run", "fold_file"]

T = TypeVar("T")


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
    *,
    qrels: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
) -> tuple[dict[str, Any], int, list[str]]:
    """The states of ``metrics`` over ``source`` computed on a Dask cluster, with warnings.

    ``source`` is a path (glob, directory) of table files or an in-memory table;
    ``scheduler`` the address of a running cluster, or ``workers`` the worker
    processes of a local one.
    """
    from scorekit.engines import resolve
    from scorekit.engines.dask import dask_states
    from scorekit.io import open_source

    if isinstance(source, str):
        present = open_source(source).columns()
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
            side={"qrels": qrels} if qrels is not None else None,
            scheduler=scheduler,
            workers=workers,
        )
    # the metrics warn on the workers; what reaches here is Dask's and pandas' own noise,
    # except for scorekit's warnings about undefined values
    texts = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    return dict(zip(metrics, states, strict=True)), int(rows), list(dict.fromkeys(texts))
