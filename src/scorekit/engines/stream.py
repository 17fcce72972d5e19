"""The streaming engine: every metric over tables and files of any size, in chunks.

:func:`evaluate` reads its source in chunks of ``chunk_size`` rows (an in-memory
table is sliced the same way), turns each chunk into the arguments of every
metric's ``summarize`` (:func:`scorekit.engines._columns.summarize_table`), and
merges the chunk states (:func:`fold`). Values are computed once, from the merged
states. Memory is bounded by the chunk size plus the states: for metrics with
fixed-size states (confusion counts, regression sums, BLEU statistics,
perplexity) it does not grow with the data; metrics whose exact state grows
(``scorekit list`` marks them) keep what their state keeps.

Ranking metrics need the rows of one query in one state: their input must be
grouped by query (sorted, typically). The rows of the last query of a chunk are
carried into the next chunk, and a query that appears again after other queries
is an :class:`~scorekit.errors.InputError` naming the file and line.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from scorekit.core import Metric, State, parse_metric
from scorekit.engines._columns import optional_columns, resolve, wanted_columns
from scorekit.engines._fold import (
    DEFAULT_CHUNK_SIZE,
    ENGINES,
    RANKING,
    MergeTree,
    Notes,
    check_cluster,
    load_qrels,
    positive_int,
    summarize_chunk,
)
from scorekit.errors import ConfigError, message, raw

__all__ = ["ENGINES", "EvaluationResult", "configure", "evaluate", "fold", "read_chunks"]

T = TypeVar("T")

_RESTARTS = 64


@dataclass(frozen=True)
class EvaluationResult:
    """What :func:`evaluate` computed: values, the merged states behind them, and the rows read.

    Attributes
    ----------
    values : dict
        Metric key (the metric string as given, or the name of a Metric object)
        -> value.
    states : dict
        Metric key -> merged state; ``values[k] == metrics[k].compute(states[k])``.
        States can be saved, and merged with the states of other shards.
    metrics : dict
        Metric key -> the configured :class:`~scorekit.Metric`.
    rows : int
        The rows read.

    Examples
    --------
    >>> import scorekit
    >>> result = scorekit.evaluate({"y_true": [1, 0, 1], "y_pred": [1, 1, 1]}, ["accuracy"])
    >>> result.values, result.rows
    ({'accuracy': 0.666...}, 3)
    >>> result.states["accuracy"]
    ConfusionCounts(...)
    """

    values: dict[str, Any]
    states: dict[str, State] = dataclasses.field(repr=False)
    metrics: dict[str, Metric[Any]] = dataclasses.field(repr=False)
    rows: int = 0

    def __getitem__(self, key: str) -> Any:
        """The value of one metric: ``result["f1"]``."""
        return self.values[key]


# metrics -------------------------------------------------------------------------------


def _fields(metric: Metric[Any]) -> set[str]:
    if dataclasses.is_dataclass(metric):
        return {f.name for f in dataclasses.fields(metric)}
    return set(inspect.signature(type(metric)).parameters)


def _same_metric(a: Metric[Any], b: Metric[Any]) -> bool:
    return type(a) is type(b) and repr(a) == repr(b)


def configure(
    metrics: str | Metric[Any] | Sequence[str | Metric[Any]], options: Mapping[str, Any]
) -> dict[str, Metric[Any]]:
    """Build the metrics to evaluate, keyed as :class:`EvaluationResult` keys them.

    Each option goes to the metric strings whose metric takes it (``pos_label``,
    ``k``, ``bins``...); an option no metric takes is an error. Metric objects are
    used as they are.

    Examples
    --------
    >>> configure(["f1:macro", "accuracy"], {})
    {'f1:macro': F1(average='macro', ...), 'accuracy': Accuracy(...)}
    >>> configure(["precision"], {"pos_label": "cat"})["precision"].pos_label
    'cat'
    """
    specs: Sequence[str | Metric[Any]] = (
        [metrics] if isinstance(metrics, str | Metric) else list(metrics)
    )
    out: dict[str, Metric[Any]] = {}
    used: set[str] = set()
    for spec in specs:
        if isinstance(spec, Metric):
            key, metric = spec.name, spec
        elif isinstance(spec, str):
            key, metric = spec, parse_metric(spec)
            usable = {k: v for k, v in options.items() if k in _fields(metric)}
            if usable:
                metric = parse_metric(spec, **usable)
                used.update(usable)
        else:
            raise ConfigError(
                message(
                    "evaluate",
                    "metrics must be names or Metric objects",
                    raw(type(spec).__name__),
                    "a string like 'f1:macro' or a Metric",
                )
            )
        if key in out:
            if _same_metric(out[key], metric):
                continue
            raise ConfigError(
                message(
                    "evaluate",
                    "two different metrics under one name",
                    key,
                    "distinct metrics; give one of them as a string, e.g. 'f1:macro'",
                )
            )
        out[key] = metric
    if not out:
        raise ConfigError(message("evaluate", "no metric to compute", None, "at least one metric"))
    unused = sorted(set(options) - used)
    if unused:
        raise ConfigError(
            message(
                "evaluate",
                "an option that none of the metrics takes",
                unused[0],
                "an option of " + ", ".join(repr(k) for k in out),
            )
        )
    return out


# folding ----------------------------------------------------------------------------------


def _summarize(
    metrics: Sequence[Metric[Any]], table: Any, mapping: Any, qrels: Any, log: Notes
) -> list[State]:
    states, notes = summarize_chunk(metrics, table, mapping, qrels)
    log.update(notes)
    return states


def fold(
    metrics: Sequence[Metric[Any]],
    chunks: Iterable[Any],
    mapping: Mapping[str, tuple[str, ...]],
    qrels: Any = None,
) -> tuple[list[State], int]:
    """Merge the states of every chunk: one merged state per metric, and the rows read.

    Parameters
    ----------
    metrics
        Configured metrics.
    chunks
        pyarrow tables (any number of rows each), in input order.
    mapping
        Role -> columns, from :func:`scorekit.engines._columns.resolve`.
    qrels
        The judgments of ranking metrics (a :class:`~scorekit.ranking.Qrels`,
        dict or TREC path), loaded once.

    Returns
    -------
    states, rows
        One merged state per metric, in the order of ``metrics``; the rows folded.

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
    from scorekit.engines._grouping import QueryGroups

    metrics = list(metrics)
    ranked = [i for i, m in enumerate(metrics) if m.inputs == RANKING]
    plain = [i for i, m in enumerate(metrics) if m.inputs != RANKING]
    qrels = load_qrels(metrics, qrels)
    plain_tree = MergeTree([metrics[i] for i in plain])
    ranked_tree = MergeTree([metrics[i] for i in ranked])
    groups = QueryGroups(mapping) if ranked else None
    log = Notes()
    rows = 0
    for chunk in chunks:
        rows += chunk.num_rows
        if plain and chunk.num_rows:
            plain_tree.add(_summarize(plain_tree.metrics, chunk, mapping, None, log))
        if groups is not None:
            ready = groups.push(chunk)
            if ready is not None:
                ranked_tree.add(_summarize(ranked_tree.metrics, ready, groups.mapping, qrels, log))
    if groups is not None:
        last = groups.flush()
        if last is not None:
            ranked_tree.add(_summarize(ranked_tree.metrics, last, groups.mapping, qrels, log))
    out: list[Any] = [None] * len(metrics)
    for i, state in zip(plain, plain_tree.result(), strict=True):
        out[i] = state
    for i, state in zip(ranked, ranked_tree.result(), strict=True):
        out[i] = state
    log.emit(stacklevel=3)
    return out, rows


# evaluate ---------------------------------------------------------------------------------


def evaluate(
    source: Any,
    metrics: str | Metric[Any] | Sequence[str | Metric[Any]],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    qrels: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    engine: str = "stream",
    scheduler: str | None = None,
    workers: int | None = None,
    progress: bool | None = None,
    **options: Any,
) -> EvaluationResult:
    """Evaluate metrics over a table or files of any size, reading them in chunks.

    Parameters
    ----------
    source
        A pyarrow Table or RecordBatch, a pandas DataFrame, a dict of columns
        (1-D arrays or lists; a 2-D array is a matrix column), or the path of a
        CSV, TSV, Parquet or JSON Lines file (``.gz`` for the text formats), a
        glob of such files, or a directory (every such file in it, by name).
        Ranking metrics also read TREC run files (``.run``, ``.txt``). With
        ``engine="dask"``, also a Dask DataFrame.
    metrics
        Metric strings (``"f1:macro"``, ``"ndcg@10"``) or Metric objects.
    columns
        Input -> column name(s), for inputs not in a column of their own name:
        ``{"y_true": "label", "y_score": ["p_cat", "p_dog"]}``. The inputs of
        a metric are the arguments of its ``summarize``; ranking metrics read
        ``query``, ``doc`` and ``score``. ``sample_weight`` is read only when
        mapped.
    qrels
        Relevance judgments for ranking metrics: a :class:`~scorekit.ranking.Qrels`,
        a ``{query: {doc: grade}}`` dict or a TREC qrels path, loaded once.
    chunk_size
        Rows per chunk; memory grows with it.
    engine
        ``"stream"`` (this process) or ``"dask"`` (a Dask cluster).
    scheduler, workers
        For ``engine="dask"``: the scheduler address, or the size of the local
        cluster started when there is none.
    progress
        Show rows and bytes read on stderr; by default when stderr is a terminal.
    **options
        Options of the metrics given as strings (``pos_label``, ``k``, ``bins``...),
        each passed to the metrics that take it.

    Returns
    -------
    EvaluationResult
        Values, merged states, metrics and the rows read.

    Raises
    ------
    InputError
        A missing file or column, a value of the wrong type (naming the file,
        line and column), a corrupt file, ranking input not grouped by query.
    ConfigError
        An unknown metric, option or engine.

    Notes
    -----
    Files are read with pyarrow, only the columns the metrics need. The column
    types of CSV and JSON Lines files are those of reading the whole file: the
    first rows fix them, and a later value that does not fit (a ``1.5`` below
    integers) makes the engine read the input again with the wider type.
    Ranking input must be grouped by query (the rows of a query together); a
    query is carried over chunk and file boundaries.

    Examples
    --------
    >>> import scorekit
    >>> table = {"y_true": [0, 1, 1, 0, 1], "y_pred": [0, 1, 0, 0, 1]}
    >>> result = scorekit.evaluate(table, ["accuracy", "f1"], chunk_size=2)
    >>> result.values
    {'accuracy': 0.8, 'f1': 0.8}

    Over a file, and ranking metrics with their judgments:

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run.csv"
    >>> _ = path.write_text("query,doc,score\\nq1,d1,0.9\\nq1,d2,0.4\\nq2,d3,0.7\\n")
    >>> qrels = {"q1": {"d2": 1}, "q2": {"d3": 1}}
    >>> scorekit.evaluate(path, ["mrr", "p@1"], qrels=qrels).values
    {'mrr': 0.75, 'p@1': 0.5}
    """
    from scorekit.engines import _sources

    chunk_size = positive_int(chunk_size, "chunk_size", unit="rows")
    check_cluster(engine, scheduler, workers)
    configured = configure(metrics, options)
    metric_list = list(configured.values())
    qrels = load_qrels(metric_list, qrels)
    if engine == "dask":
        states, rows = _dask(source, metric_list, columns, qrels, scheduler, workers, chunk_size)
    else:
        src = _sources.open_source(source)
        mapping = resolve(metric_list, columns, src.columns())
        states, rows = read_chunks(
            src,
            wanted_columns(mapping),
            chunk_size,
            lambda chunks: fold(metric_list, chunks, mapping, qrels),
            progress=progress,
            optional=optional_columns(metric_list, mapping, columns),
        )
    values = {
        key: metric.compute(state)
        for (key, metric), state in zip(configured.items(), states, strict=True)
    }
    return EvaluationResult(
        values=values,
        states=dict(zip(configured, states, strict=True)),
        metrics=configured,
        rows=rows,
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
    :class:`~scorekit.engines._sources.Source`); ``columns`` are read, in chunks
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
    from scorekit.engines import _progress, _sources
    from scorekit.engines._blocks import Widen

    src = source if isinstance(source, _sources.Source) else _sources.open_source(source)
    wanted = list(columns)
    plan = _sources.ReadPlan(optional=set(optional))
    show = _progress.wanted(progress)
    restarts = 0
    while True:
        bar = _progress.Progress(
            total_bytes=src.total_bytes, total_rows=src.total_rows, enabled=show
        )
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
    from scorekit.engines._blocks import Widen
    from scorekit.engines._progress import Progress

    quiet = Progress(enabled=False)
    for attempt in range(_RESTARTS + 1):
        try:
            for _ in src.chunks(wanted, chunk_size, quiet, plan):
                pass
            return
        except Widen:
            if attempt == _RESTARTS:
                raise


def _dask(
    source: Any,
    metrics: list[Metric[Any]],
    columns: Mapping[str, str | Sequence[str]] | None,
    qrels: Any,
    scheduler: str | None,
    workers: int | None,
    chunk_size: int,
) -> tuple[list[State], int]:
    import importlib

    from scorekit.engines import _sources

    module = importlib.import_module("scorekit.engines.dask")
    if isinstance(source, str) or hasattr(source, "__fspath__"):
        present = _sources.open_source(source).columns()
    elif (type(source).__module__ or "").startswith(("dask", "pandas")):
        present = [str(c) for c in source.columns]
    elif isinstance(source, Mapping):
        present = [str(c) for c in source]
    else:
        present = list(_sources.as_table(source).column_names)
    mapping = resolve(metrics, columns, present)
    states, rows = module.dask_states(
        source,
        metrics,
        mapping,
        qrels=qrels,
        scheduler=scheduler,
        workers=workers,
        partition_hint=chunk_size,
    )
    return list(states), int(rows)
