"""Files and clusters for the file-level functions: chunks of a file, and states on Dask."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any, TypeVar

from scorekit.core import Metric
from scorekit.errors import UndefinedMetricWarning

__all__ = ["dask_run"]

T = TypeVar("T")


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

    ``source`` is a path (glob, directory) of table files, an in-memory table or
    a :class:`scorekit.io.Source`;
    ``scheduler`` the address of a running cluster, or ``workers`` the worker
    processes of a local one.
    """
    from scorekit.engines import resolve
    from scorekit.engines.dask import dask_states
    from scorekit.io import open_source

    present = open_source(source).columns()
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
