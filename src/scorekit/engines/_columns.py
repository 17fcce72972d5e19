"""Table columns -> metric inputs: the one place that knows which column feeds which argument.

Every input kind of the registry (:func:`scorekit.core.input_kind`) names the
arguments of its metrics' ``summarize`` (its *roles*: ``y_true``, ``y_pred``,
``y_score``, ``references``...) and how a table column becomes each of them
(labels, scores, a matrix of several columns, lists of strings...). The engines
read tables in chunks and call :func:`batch_arguments` on each chunk; they contain
no metric code, and a metric sees the same arrays it would get in memory.

A role reads the column of the same name unless ``columns`` maps it elsewhere:
``{"y_true": "label", "y_score": ["p_cat", "p_dog"]}``. Roles that take a matrix
(multi-label indicators, per-class scores, several references) accept a list of
columns or one list-typed column.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, cast

from scorekit.core import Grouped, Metric, State, input_kind, summarize_hooked
from scorekit.errors import ConfigError, InputError, message
from scorekit.io import Chunk

__all__ = [
    "batch_arguments",
    "column_roles",
    "optional_columns",
    "resolve",
    "summarize_table",
    "wanted_columns",
]


def column_roles(metric: Metric[Any]) -> dict[str, str]:
    """The roles a metric reads from a table, with the conversion of each.

    ``sample_weight`` is a role of every metric whose ``summarize`` takes it; it
    is read only when ``columns`` maps it.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> column_roles(parse_metric("f1"))
    {'y_true': 'labels', 'y_pred': 'labels', 'sample_weight': 'weights'}
    """
    roles = dict(_roles(metric.reads, metric.inputs))
    for role, (conversion, _) in metric.key_roles.items():
        roles[role] = conversion
    return roles


@functools.lru_cache(maxsize=512)
def _roles(cls: type[Metric[Any]], kind: str) -> dict[str, str]:
    """The roles of a metric class taking input kind ``kind`` (cached: engines ask per chunk)."""
    spec = input_kind(kind)
    if not spec.roles:
        raise ConfigError(
            message(
                cls.info.name, "cannot read its input from a table", kind, "a tabular input kind"
            )
        )
    return spec.roles_of(cls)


def _optional(metric: Metric[Any], role: str) -> bool:
    return input_kind(metric.inputs).is_optional(role)


def _names(value: Any, role: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, Sequence) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise ConfigError(
        message(
            "evaluate", f"invalid column for {role!r}", value, "a column name or a list of them"
        )
    )


def resolve(
    metrics: Sequence[Metric[Any]],
    columns: Mapping[str, str | Sequence[str]] | None,
    present: Sequence[str],
) -> dict[str, tuple[str, ...]]:
    """Map every role the metrics read to its column(s), checking that the columns exist.

    Parameters
    ----------
    metrics
        The configured metrics.
    columns
        Role -> column name (or list of names); a role not mapped reads the column
        named like the role.
    present
        The columns of the table or file.

    Returns
    -------
    dict
        Role -> tuple of column names, for every role some metric reads (optional
        roles only when mapped or present under their own name).

    Raises
    ------
    ConfigError
        A role mapped to something that is not a column name, or a role in
        ``columns`` that no metric reads.
    InputError
        A column that is not in the table, naming the role, the metric and the
        columns present.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> resolve([parse_metric("accuracy")], {"y_pred": "guess"}, ["y_true", "guess"])
    {'y_true': ('y_true',), 'y_pred': ('guess',)}
    """
    given = {role: _names(value, role) for role, value in (columns or {}).items()}
    have = set(present)
    out: dict[str, tuple[str, ...]] = {}
    used: set[str] = set()
    for metric in metrics:
        for role in column_roles(metric):
            used.add(role)
            if role in out:
                continue
            key = metric.key_roles[role][1] if role in metric.key_roles else ()
            names = given.get(role, key or (role,))
            if role not in given and _optional(metric, role) and role not in have:
                continue
            if role not in given and role == "sample_weight":
                continue
            missing = [n for n in names if n not in have]
            if missing:
                hint = "" if role in given or key else f"; map it with columns={{{role!r}: NAME}}"
                raise InputError(
                    message(
                        metric.name,
                        f"no column for its input {role!r}",
                        missing[0],
                        "one of the columns present: "
                        + (", ".join(repr(c) for c in present) or "(none)")
                        + hint,
                    )
                )
            out[role] = names
    unused = sorted(set(given) - used)
    if unused:
        raise ConfigError(
            message(
                "evaluate",
                "columns given for an input no metric reads",
                unused[0],
                "one of " + ", ".join(repr(r) for r in sorted(used)),
            )
        )
    return out


def wanted_columns(mapping: Mapping[str, tuple[str, ...]]) -> list[str]:
    """Every column the mapping reads, each once, in order of first use."""
    return list(dict.fromkeys(name for names in mapping.values() for name in names))


def optional_columns(
    metrics: Sequence[Metric[Any]],
    mapping: Mapping[str, tuple[str, ...]],
    columns: Mapping[str, Any] | None = None,
) -> set[str]:
    """The columns of ``mapping`` that no metric needs: a file without them reads them as nulls.

    A role is optional when every metric reading it can do without it (the
    optional columns of request records) and ``columns`` does not map it.

    Examples
    --------
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric("itl:max")]
    >>> mapping = resolve(metrics, None, ["prompt_tokens", "output_tokens", "start", "end",
    ...                                   "token_times"])
    >>> sorted(optional_columns(metrics, mapping))
    ['token_times']
    """
    given = set(columns or {})
    out: set[str] = set()
    needed: set[str] = set()
    for metric in metrics:
        for role in column_roles(metric):
            if role not in mapping:
                continue
            names = set(mapping[role])
            if role in given or not _optional(metric, role):
                needed |= names
            else:
                out |= names
    return out - needed


def batch_arguments(
    metric: Metric[Any], chunk: Chunk, mapping: Mapping[str, tuple[str, ...]]
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The positional and keyword arguments of ``metric.summarize`` for one chunk."""
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for role, conversion in column_roles(metric).items():
        if role not in mapping:
            continue
        value = chunk.get(conversion, mapping[role])
        if role == "sample_weight" or role in metric.key_roles:
            kwargs[role] = value
        else:
            args.append(value)
    return tuple(args), kwargs


class _Fed:
    """A metric as an input kind's summarize hook sees it, told what the hook cannot know.

    A positional metric gets the position of the chunk's first row, a keyed
    one the chunk's key column.
    """

    def __init__(self, metric: Metric[Any], extra: dict[str, Any]) -> None:
        self.metric = metric
        self.extra = extra

    def __getattr__(self, name: str) -> Any:
        return getattr(self.metric, name)

    def summarize(self, *batch: Any, **kwargs: Any) -> State:
        state: State = self.metric.summarize(*batch, **self.extra, **kwargs)
        return state


def _fed(metric: Metric[Any], chunk: Chunk, mapping: Any, first_row: int) -> Any:
    """What a hook summarizes for ``metric``: the metric it wraps, or it, told its rows."""
    if metric.wraps is not None:
        return metric.wraps
    extra: dict[str, Any] = {}
    if metric.positional:
        extra["first_row"] = first_row
    if metric.key_column and metric.key_role in mapping:
        extra[metric.key_role] = chunk.get("labels", mapping[metric.key_role])
    return _Fed(metric, extra) if extra else metric


def summarize_table(
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Mapping[str, tuple[str, ...]],
    side: Mapping[str, Any] | None = None,
    first_row: int = 0,
) -> list[State]:
    """The state of every metric on one pyarrow table, each column converted once.

    This is the whole per-chunk (or per-partition) work of an engine. Metrics
    whose input kind summarizes a chunk for all its metrics at once (a ranking
    run joined with its qrels once) are summarized together; a metric that
    wraps another (a bootstrap) is summarized as the metric it wraps, and its
    state made from that one. Metrics that are ``positional`` are told the
    position of the table's first row in the data (``first_row``). A
    per-group metric (:class:`~scorekit.core.Grouped`) of such a kind runs the
    hook on the table and on the rows of each group.

    Examples
    --------
    >>> import pyarrow as pa
    >>> from scorekit import parse_metric
    >>> metrics = [parse_metric("accuracy"), parse_metric("mse")]
    >>> table = pa.table({"y_true": [1, 0, 1], "y_pred": [1, 1, 1]})
    >>> mapping = resolve(metrics, None, table.column_names)
    >>> [m.compute(s) for m, s in zip(metrics, summarize_table(metrics, table, mapping))]
    [0.666..., 0.333...]
    """
    chunk = Chunk(table)
    side = side or {}
    states: list[Any] = [None] * len(metrics)
    groups: dict[str, tuple[Any, list[int]]] = {}
    grouped: dict[str, tuple[Any, list[int]]] = {}
    for i, metric in enumerate(metrics):
        hook = input_kind(metric.inputs).summarize
        if hook is not None and isinstance(metric, Grouped):
            key = f"{metric.inputs} by {metric.by!r}"
            grouped.setdefault(key, (hook, []))[1].append(i)
        elif hook is None:
            args, kwargs = batch_arguments(metric, chunk, mapping)
            if metric.positional:
                kwargs["first_row"] = first_row
            states[i] = metric.summarize(*args, **kwargs)
        else:
            groups.setdefault(metric.inputs, (hook, []))[1].append(i)
    for hook, index in grouped.values():
        found = summarize_hooked(
            [cast(Grouped, metrics[i]) for i in index], hook, chunk, mapping, side
        )
        for i, state in zip(index, found, strict=True):
            states[i] = state
    for hook, index in groups.values():
        given = [metrics[i] for i in index]
        fed = [_fed(m, chunk, mapping, first_row) for m in given]
        part = hook(fed, chunk, mapping, side)
        for i, metric, state in zip(index, given, part, strict=True):
            states[i] = state if metric.wraps is None else metric.wrap(state)
    return states
