"""Engines: where the states of metrics are computed over a source, and merged.

An engine is a module with a function ``run(source, metrics, *, columns, side,
chunk_size, progress, **options) -> (states, rows)``: it partitions the source,
summarizes each part (:func:`summarize_table`) and merges the states. Engines are
registered by name and imported only when used; each validates its own options.
They contain no metric code and know no metric family.

- ``stream``: this process, in chunks of bounded memory (:mod:`scorekit.engines.stream`).
- ``dask``: a Dask cluster (:mod:`scorekit.engines.dask`, the ``scorekit[dask]`` extra).
- ``spark``: a Spark session (:mod:`scorekit.engines.spark`, the ``scorekit[spark]`` extra).
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from scorekit.engines._columns import (
    batch_arguments,
    column_roles,
    optional_columns,
    resolve,
    summarize_table,
    wanted_columns,
)
from scorekit.engines._fold import (
    DEFAULT_CHUNK_SIZE,
    Notes,
    SizeWatch,
    positive_int,
    side_input_names,
    side_inputs,
    summarize_chunk,
)
from scorekit.engines._parts import STATES_KEPT
from scorekit.errors import ConfigError, choices, message

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "Notes",
    "SizeWatch",
    "batch_arguments",
    "column_roles",
    "engine",
    "engine_names",
    "engine_options",
    "optional_columns",
    "positive_int",
    "register_engine",
    "resolve",
    "session",
    "side_input_names",
    "side_inputs",
    "summarize_chunk",
    "summarize_table",
    "wanted_columns",
]

Run = Callable[..., tuple[list[Any], int]]

_ENGINES: dict[str, str | Run] = {
    "stream": "scorekit.engines.stream",
    "dask": "scorekit.engines.dask",
    "spark": "scorekit.engines.spark",
}


def register_engine(name: str, run: str | Run) -> None:
    """Register an engine: the name of a module with a ``run`` function, or the function itself.

    Examples
    --------
    >>> register_engine("stream", "scorekit.engines.stream")
    >>> "stream" in engine_names()
    True
    """
    _ENGINES[name] = run


def engine_names() -> list[str]:
    """The names of the registered engines."""
    return list(_ENGINES)


def engine(name: str) -> Run:
    """The ``run`` function of the engine called ``name``, importing its module on first use."""
    if not isinstance(name, str) or name not in _ENGINES:
        raise ConfigError(message("evaluate", "unknown engine", name, choices(_ENGINES)))
    target = _ENGINES[name]
    if isinstance(target, str):
        run: Run = importlib.import_module(target).run
        return run
    return target


_COMMON = ("source", "metrics", "columns", "side", "chunk_size", "progress")


@contextlib.contextmanager
def session(name: str, *, keep_states: bool = True, **options: Any) -> Iterator[None]:
    """Keep an engine's cluster or session for several runs with the same options.

    An engine module may define ``session(**options)``, a context manager
    within which its ``run`` with those options uses one cluster (Dask) or
    session (Spark) instead of starting and stopping its own; an engine
    without one (``stream``, engines registered as functions) needs nothing.
    ``options`` may be a run's: those the session does not take are left out.
    A first pass over the data (cut points from a sample) and the fold that
    follows it then share one cluster, and the values are read from the merged
    states while it runs (the Dask engine keeps merged score ranges on its
    workers, and its readers run there). With ``keep_states=False`` the states
    of the block's runs are not used after it: what they keep on a cluster that
    stops with the session is let go instead of brought here.

    Examples
    --------
    >>> with session("stream"):
    ...     pass
    """
    target = _ENGINES.get(name) if isinstance(name, str) else None
    opened = (
        getattr(importlib.import_module(target), "session", None)
        if isinstance(target, str)
        else None
    )
    if opened is None:
        yield
        return
    # the options its session takes (a run's others, such as columns, are not the session's)
    takes = inspect.signature(opened).parameters
    given = {k: v for k, v in options.items() if v is not None and k in takes}
    token = STATES_KEPT.set(bool(keep_states))
    try:
        with opened(**given):
            yield
    finally:
        STATES_KEPT.reset(token)


def engine_options(name: str) -> list[str]:
    """The options of the engine called ``name``: its ``run``'s keywords beyond the common ones.

    Each engine validates its own options; a caller uses this list to tell an
    option of one engine given with another.

    Examples
    --------
    >>> engine_options("stream")
    []
    >>> engine_options("dask")
    ['scheduler', 'workers']
    """
    params = inspect.signature(engine(name)).parameters
    return [
        key
        for key, p in params.items()
        if key not in _COMMON and p.kind is inspect.Parameter.KEYWORD_ONLY
    ]
