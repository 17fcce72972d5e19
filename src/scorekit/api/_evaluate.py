"""Metrics over any source on any engine: :func:`evaluate` and :func:`configure`."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scorekit import engines
from scorekit.core import (
    EvaluationResult,
    Grouped,
    Metric,
    option_names,
    parse_metric,
    parse_metrics,
)
from scorekit.engines import DEFAULT_CHUNK_SIZE, positive_int
from scorekit.errors import ConfigError, message, raw

__all__ = [
    "EvaluationResult",
    "columns_read",
    "configure",
    "evaluate",
    "held_session",
    "settled",
]


def evaluate(
    source: Any,
    metrics: str | Metric[Any] | Sequence[str | Metric[Any]],
    *,
    columns: Mapping[str, str | Sequence[str]] | None = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    engine: str = "stream",
    progress: bool | None = None,
    by: str | Sequence[str] | None = None,
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
        ``engine="dask"``, also a Dask DataFrame; with ``engine="spark"``, a
        Spark DataFrame.
    metrics
        Metric strings (``"f1:macro"``, ``"ndcg@10"``) or Metric objects.
    columns
        Input -> column name(s), for inputs not in a column of their own name:
        ``{"y_true": "label", "y_score": ["p_cat", "p_dog"]}``. The inputs of
        a metric are the arguments of its ``summarize``; ranking metrics read
        ``query``, ``doc`` and ``score``. ``sample_weight`` is read only when
        mapped.
    chunk_size
        Rows per chunk; memory grows with it.
    engine
        A registered engine: ``"stream"`` (this process), ``"dask"`` (a Dask
        cluster; its options ``scheduler``, the scheduler address, and
        ``workers``, the size of the local cluster started when there is none)
        or ``"spark"`` (a Spark session; ``scheduler`` is the master URL,
        ``workers`` the cores of a local session, ``partitions`` the parts of
        the input; without them, the active session).
    progress
        Show rows and bytes read on stderr; by default when stderr is a terminal.
    by
        A column, or several, whose values form groups of rows: each value is
        then a :class:`~scorekit.core.ByGroup`, the value on all the rows and
        on each group (strings, integers or booleans; a missing value is an
        error), with the group sizes, ``difference()`` and ``ratio()``.
    **options
        Inputs given beside the table (ranking's ``qrels``: a
        :class:`~scorekit.ranking.Qrels`, a ``{query: {doc: grade}}`` dict or a
        TREC qrels path, loaded once), options of the engine, and options of the
        metrics given as strings (``pos_label``, ``k``, ``bins``...), each passed
        to the metrics that take it.

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

    Per group of rows:

    >>> table["country"] = ["fr", "fr", "de", "de", "de"]
    >>> found = scorekit.evaluate(table, "accuracy", by="country")["accuracy"]
    >>> found.overall, found.by_group, found.sizes, found.difference()
    (0.8, {'de': 0.666..., 'fr': 1.0}, {'de': 3, 'fr': 2}, 0.333...)
    """
    chunk_size = positive_int(chunk_size, "chunk_size", unit="rows")
    run = engines.engine(engine)
    engine_options = {k: options.pop(k) for k in _engine_options(run) if k in options}
    specs = [metrics] if isinstance(metrics, str | Metric) else list(metrics)
    probe = [
        parse_metric(s) if isinstance(s, str) else s for s in specs if isinstance(s, str | Metric)
    ]
    side = {k: options.pop(k) for k in engines.side_input_names(probe) if k in options}
    _check_other_engines(engine, options, probe)
    configured = configure(metrics, options)

    def first_pass(samplers: dict[str, Metric[Any]]) -> list[Any]:
        listed = list(samplers.values())
        found, _ = run(
            source,
            listed,
            columns=columns_read(listed, columns),
            side=engines.side_inputs(listed, {}),
            chunk_size=chunk_size,
            progress=progress,
            **engine_options,
        )
        return list(found)

    with held_session(engine, engine_options):
        configured = settled(configured, first_pass)
        if by is not None:
            configured = {key: Grouped(metric, by=by) for key, metric in configured.items()}
        metric_list = list(configured.values())
        side = engines.side_inputs(metric_list, side)
        states, rows = run(
            source,
            metric_list,
            columns=columns,
            side=side,
            chunk_size=chunk_size,
            progress=progress,
            **engine_options,
        )
        values = computed_values(configured, states)
    return EvaluationResult(
        values=values,
        states=dict(zip(configured, states, strict=True)),
        metrics=configured,
        rows=int(rows),
    )


def computed_values(metrics: Mapping[str, Metric[Any]], states: Sequence[Any]) -> dict[str, Any]:
    """Each metric's value from its state, keyed as the metrics are.

    Examples
    --------
    >>> metric = parse_metric("accuracy")
    >>> computed_values({"acc": metric}, [metric.summarize([1, 0], [1, 1])])
    {'acc': 0.5}
    """
    return {
        key: metric.compute(state)
        for (key, metric), state in zip(metrics.items(), states, strict=True)
    }


def held_session(
    engine: str, options: Mapping[str, Any], *, keep_states: bool = True
) -> contextlib.AbstractContextManager[None]:
    """The engine's session, kept for a first pass, the fold after it and the values read
    from the merged states (:func:`scorekit.engines.session`); ``keep_states=False`` when
    the states are not used after the block."""
    return engines.session(engine, keep_states=keep_states, **options)


def columns_read(
    metrics: Sequence[Metric[Any]], columns: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    """The entries of ``columns`` for the inputs ``metrics`` read (a first pass's samplers
    read fewer than the metrics they serve: no group or unit keys)."""
    if not columns:
        return None if columns is None else dict(columns)
    roles = {role for m in metrics for role in engines.column_roles(m)}
    return {k: v for k, v in columns.items() if k in roles}


def settled(
    metrics: Mapping[str, Metric[Any]],
    fold: Callable[[dict[str, Metric[Any]]], Sequence[Any]],
) -> dict[str, Metric[Any]]:
    """The metrics with the settings chosen from the data, after one first pass if any asks.

    ``fold(samplers)`` folds metrics keyed as ``metrics`` over the source and
    returns their merged states in order; it is called once, with the
    :attr:`~scorekit.core.Metric.sampler` of every metric that has one, and
    each such metric becomes its :meth:`~scorekit.core.Metric.sampled` form.
    Without a sampler the metrics are returned as they are and nothing is read.

    Examples
    --------
    >>> table = {"y_true": [0, 1, 1, 0], "y_score": [-2.0, 3.5, 0.5, 1.0]}
    >>> metric = parse_metric("roc_auc:ranges=2,cuts=sample")
    >>> def fold(samplers):
    ...     return [m.summarize(table["y_true"], table["y_score"]) for m in samplers.values()]
    >>> settled({"auc": metric}, fold)["auc"].cuts
    (1.0,)
    """
    samplers: dict[str, Metric[Any]] = {}
    for key, metric in metrics.items():
        sampler = metric.sampler
        if sampler is not None:
            samplers[key] = sampler
    if not samplers:
        return dict(metrics)
    states = dict(zip(samplers, fold(samplers), strict=True))
    return {key: m.sampled(states[key]) if key in states else m for key, m in metrics.items()}


def _check_other_engines(
    engine: str, options: Mapping[str, Any], metrics: Sequence[Metric[Any]]
) -> None:
    """An option of another engine, given with ``engine``, is an error naming that engine."""
    fields = {name for m in metrics for name in _fields(m)}
    try:
        own = set(_engine_options(engines.engine(engine)))
    except ConfigError:
        own = set()
    for name in engines.engine_names():
        if name == engine:
            continue
        try:
            taken = _engine_options(engines.engine(name))
        except ConfigError:
            continue
        given = [k for k in options if k in taken and k not in fields and k not in own]
        if given:
            verb = "is an option" if len(given) == 1 else "are options"
            raise ConfigError(
                message(
                    "evaluate",
                    f"{' and '.join(given)} {verb} of the {name.capitalize()} engine",
                    raw(f"engine={engine!r}"),
                    f"engine={name!r}",
                )
            )


def _engine_options(run: Any) -> list[str]:
    """The keyword options an engine's ``run`` takes beyond the common ones."""
    params = inspect.signature(run).parameters
    common = {"source", "metrics", "columns", "side", "chunk_size", "progress"}
    return [
        name
        for name, p in params.items()
        if name not in common and p.kind is inspect.Parameter.KEYWORD_ONLY
    ]


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
            key, (metric,) = spec, parse_metrics([spec], options, strict=False)
            used.update(k for k in options if k in option_names(metric))
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
