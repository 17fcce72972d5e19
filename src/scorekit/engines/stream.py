"""The streaming engine: every metric over tables and files of any size, in chunks.

:func:`run` reads its source in chunks of ``chunk_size`` rows (an in-memory
table is sliced the same way), turns each chunk into the arguments of every
metric's ``summarize`` (:func:`scorekit.engines.summarize_table`), and
merges the chunk states (:func:`fold`). Values are computed once, from the merged
states. Memory is bounded by the chunk size plus the states: for metrics with
fixed-size states (confusion counts, regression sums, BLEU statistics,
perplexity) it does not grow with the data; metrics whose exact state grows
(``scorekit list`` marks them) keep what their state keeps.

An exact state made of independent parts (:attr:`~scorekit.core.State.parted`:
ROC AUC and average precision with ``ranges=N``) is merged whole while the parted
states of a fold hold less than ``SCOREKIT_SPILL_SIZE`` bytes (256 MiB by
default); past that, each chunk's parts are written unmerged to a file of a
temporary directory (under ``TMPDIR``), and at the end each part is merged on its
own and kept in a file of its own (:class:`~scorekit.engines._parts.PartedFold`),
so memory holds one chunk and one part, and the values are the same, bit for bit.
The files are removed when the state is no longer used, and those of a fold that
fails or is interrupted at once.

Metrics whose input kind groups rows (ranking's ``query``) need the rows of one
group in one state: their input must be grouped (sorted, typically). The rows of
the last group of a chunk are carried into the next chunk, and a group that
appears again after other groups is an :class:`~scorekit.errors.InputError`
naming the file and line.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from scorekit.core import MergeTree, Metric, State, input_kind, share_equal
from scorekit.engines._columns import optional_columns, resolve, wanted_columns
from scorekit.engines._fold import (
    DEFAULT_CHUNK_SIZE,
    Notes,
    SizeWatch,
    group_role,
    positive_int,
    side_inputs,
    summarize_chunk,
)
from scorekit.engines._grouping import Groups
from scorekit.engines._parts import PartedFold, spill_size
from scorekit.errors import ConfigError, message, raw
from scorekit.io import (
    Progress,
    ReadPlan,
    Source,
    Widen,
    open_source,
    progress_wanted,
    release_read_buffers,
    state_warning_size,
)

__all__ = ["fold", "read_chunks", "run"]

T = TypeVar("T")

_RESTARTS = 64


# folding ----------------------------------------------------------------------------------


def _summarize(
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Any,
    side: Any,
    log: Notes,
    first_row: int = 0,
) -> list[State]:
    states, notes = summarize_chunk(metrics, table, mapping, side, first_row)
    log.update(notes)
    return states


def fold(
    metrics: Sequence[Metric[Any]],
    chunks: Iterable[Any],
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any] | None = None,
    *,
    spill: int | None = None,
) -> tuple[list[State], int]:
    """Merge the states of every chunk: one merged state per metric, and the rows read.

    Parameters
    ----------
    metrics
        Configured metrics.
    chunks
        pyarrow tables (any number of rows each), in input order.
    mapping
        Role -> columns, from :func:`scorekit.engines.resolve`.
    side
        Inputs given beside the table (ranking's ``qrels``), prepared once by the
        metrics' input kinds.
    spill
        Bytes the states made of parts may hold in memory before their parts
        go to disk (None: :func:`~scorekit.engines._parts.spill_size`).

    Returns
    -------
    states, rows
        One merged state per metric, in the order of ``metrics``; the rows folded.

    Notes
    -----
    Metrics whose input kind groups rows (ranking's ``query``) are fed chunks
    regrouped so that a group's rows meet in one chunk. States made of parts
    (:attr:`~scorekit.core.State.parted`) are merged by one
    :class:`~scorekit.engines._parts.PartedFold`, which moves their parts to
    disk once they hold more than ``spill`` bytes, and holds, writes and merges
    once the states that metrics share (ROC AUC and average precision of one
    score column in the same ranges); they are left out of the warning about
    states that grow.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric("accuracy")]
    >>> table = pa.table({"y_true": [1, 0, 1, 1], "y_pred": [1, 1, 1, 0]})
    >>> mapping = resolve(metrics, None, table.column_names)
    >>> states, rows = fold(metrics, [table.slice(0, 3), table.slice(3)], mapping)
    >>> metrics[0].compute(states[0]), rows
    (0.5, 4)
    """
    metrics = list(metrics)
    side = side_inputs(metrics, side or {})
    plain = [i for i, m in enumerate(metrics) if group_role(m) is None]
    grouped: dict[str, list[int]] = {}
    for i, metric in enumerate(metrics):
        if group_role(metric) is not None:
            grouped.setdefault(metric.inputs, []).append(i)
    plain_metrics = [metrics[i] for i in plain]
    parted_keys = [k for k, m in enumerate(plain_metrics) if type(m.empty()).parted]
    parted = PartedFold([plain_metrics[k] for k in parted_keys]) if parted_keys else None
    whole = [k for k in range(len(plain)) if k not in parted_keys]
    plain_tree = MergeTree([plain_metrics[k] for k in whole])
    parts = [
        (index, MergeTree([metrics[i] for i in index]), Groups(input_kind(kind), mapping))
        for kind, index in grouped.items()
    ]
    log = Notes()
    watch = SizeWatch(plain_tree.metrics, state_warning_size())
    limit = spill_size() if spill is None else spill
    rows = 0
    chunk: Any = None
    try:
        for chunk in chunks:
            release_read_buffers(chunk)
            first_row = rows
            rows += chunk.num_rows
            if plain and chunk.num_rows:
                states = _summarize(plain_metrics, chunk, mapping, side, log, first_row)
                # metrics of equal states (ROC AUC and AP of one column) hold and merge one
                if parted is not None:
                    parted.add(share_equal(parted.metrics, [states[k] for k in parted_keys]))
                plain_tree.add(share_equal(plain_tree.metrics, [states[k] for k in whole]))
                del states
                watch.check(plain_tree, log)
                if parted is not None and parted.spilled is None and parted.held_bytes() > limit:
                    parted.spill()
            for _, tree, groups in parts:
                ready = groups.push(chunk)
                if ready is not None:
                    tree.add(_summarize(tree.metrics, ready, groups.mapping, side, log))
        # the buffers reading kept (the last chunk's too) go back before the states
        # merge, when the merged states are made beside those of every chunk
        chunk = None
        release_read_buffers()
        out: list[Any] = [None] * len(metrics)
        for k, state in zip(whole, plain_tree.result(), strict=True):
            out[plain[k]] = state
        if parted is not None:
            for k, state in zip(parted_keys, parted.result(), strict=True):
                out[plain[k]] = state
    finally:
        if parted is not None:
            parted.close()
    for index, tree, groups in parts:
        last = groups.flush()
        if last is not None:
            tree.add(_summarize(tree.metrics, last, groups.mapping, side, log))
        for i, state in zip(index, tree.result(), strict=True):
            out[i] = state
    log.emit(stacklevel=3)
    return out, rows


# evaluate ---------------------------------------------------------------------------------


def run(
    source: Any,
    metrics: Sequence[Metric[Any]],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    side: Mapping[str, Any] | None = None,
    chunk_size: int | None = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
    **options: Any,
) -> tuple[list[State], int]:
    """The merged state of every metric over ``source``, read in chunks in this process.

    This is the ``stream`` engine of :func:`scorekit.evaluate`; it takes no
    options of its own. ``chunk_size`` ``None`` reads chunks of
    :data:`~scorekit.engines.DEFAULT_CHUNK_SIZE` rows.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> states, rows = run({"y_true": [1, 0], "y_pred": [1, 1]}, [parse_metric("accuracy")])
    >>> states[0].matrix.tolist(), rows
    ([[0, 1], [0, 1]], 2)
    """
    if options:
        name = sorted(options)[0]
        raise ConfigError(
            message(
                "evaluate",
                f"{name} is not an option of the stream engine",
                raw(f"{name}={options[name]!r}"),
                "an option of the metrics, or an engine that takes it",
            )
        )
    chunk_size = positive_int(
        DEFAULT_CHUNK_SIZE if chunk_size is None else chunk_size, "chunk_size", unit="rows"
    )
    metric_list = list(metrics)
    side = side_inputs(metric_list, side or {})
    src = open_source(source)
    mapping = resolve(metric_list, columns, src.columns())
    return read_chunks(
        src,
        wanted_columns(mapping),
        chunk_size,
        lambda chunks: fold(metric_list, chunks, mapping, side),
        progress=progress,
        optional=optional_columns(metric_list, mapping, columns),
    )


def read_chunks(
    source: Any,
    columns: Sequence[str],
    chunk_size: int,
    use: Callable[[Iterable[Any]], T],
    *,
    progress: bool | None = None,
    optional: Collection[str] = (),
) -> T:
    """Apply ``use`` to the chunks of a source, as :func:`evaluate` reads them.

    ``source`` is anything :func:`evaluate` reads (or an opened
    :class:`~scorekit.io.Source`); ``columns`` are read, in chunks
    of at most ``chunk_size`` rows. When a value of a CSV or JSON Lines file does
    not fit the type its column has from the first rows, the column types are
    widened on a pass that only reads, and ``use`` is called again on chunks from
    the start: its result is that of reading the whole file at once. A file
    without one of the ``optional`` columns reads it as nulls; the other columns
    must be in every file.

    Examples
    --------
    >>> read_chunks({"y": [1, 2, 3]}, ["y"], 2, lambda chunks: [c.num_rows for c in chunks])
    [2, 1]
    """
    chunk_size = positive_int(chunk_size, "chunk_size", unit="rows")
    src = source if isinstance(source, Source) else open_source(source)
    wanted = list(columns)
    plan = ReadPlan(optional=set(optional))
    show = progress_wanted(progress)
    restarts = 0
    while True:
        bar = Progress(total_bytes=src.total_bytes, total_rows=src.total_rows, enabled=show)
        try:
            return use(src.chunks(wanted, chunk_size, bar, plan))
        except Widen:
            restarts += 1
            if restarts > _RESTARTS:
                raise
        finally:
            bar.close()
        _settle(src, wanted, chunk_size, plan)


def _settle(src: Any, wanted: list[str], chunk_size: int, plan: Any) -> None:
    """Read the input through, widening column types until every value fits.

    A value that does not fit its column stops the read at the first such
    column; other columns may need a wider type too, so the types are settled
    on a pass that only reads, before the metrics see any chunk again.
    """
    quiet = Progress(enabled=False)
    for attempt in range(_RESTARTS + 1):
        try:
            for _ in src.chunks(wanted, chunk_size, quiet, plan):
                pass
            return
        except Widen:
            if attempt == _RESTARTS:
                raise
