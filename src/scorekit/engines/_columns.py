"""Table columns -> metric inputs: the one place that knows which column feeds which argument.

Every input kind of the registry (:data:`scorekit.core.INPUT_KINDS`) names the
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
import inspect
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit import _io
from scorekit.core import Metric
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = [
    "KIND_ROLES",
    "REQUEST_COLUMNS",
    "Chunk",
    "batch_arguments",
    "column_roles",
    "optional_columns",
    "resolve",
    "summarize_counted",
    "summarize_table",
    "wanted_columns",
]

_LABELS = "labels"
_LABEL_MATRIX = "label_matrix"
_SCORES = "scores"
_SCORE_MATRIX = "score_matrix"
_WEIGHTS = "weights"
_TEXTS = "texts"
_REFERENCES = "references"
_SEQUENCES = "sequences"
_STRINGS = "strings"

KIND_ROLES: dict[str, dict[str, str]] = {
    "binary_labels": {"y_true": _LABELS, "y_pred": _LABELS},
    "labels": {"y_true": _LABELS, "y_pred": _LABELS, "x": _LABELS, "y": _LABELS},
    "multilabel": {"y_true": _LABEL_MATRIX, "y_pred": _LABEL_MATRIX},
    "binary_scores": {"y_true": _LABELS, "y_score": _SCORES},
    "multiclass_scores": {"y_true": _LABELS, "y_score": _SCORE_MATRIX},
    "multilabel_scores": {"y_true": _LABEL_MATRIX, "y_score": _SCORE_MATRIX},
    "binary_proba": {"y_true": _LABELS, "y_proba": _SCORES},
    "proba": {"y_true": _LABELS, "y_proba": _SCORE_MATRIX},
    "target": {"y": _LABELS},
    "feature_target": {"x": _LABELS, "y": _LABELS},
    "regression": {"y_true": _SCORES, "y_pred": _SCORES},
    "regression_positive": {"y_true": _SCORES, "y_pred": _SCORES},
    "regression_multi": {"y_true": _SCORE_MATRIX, "y_pred": _SCORE_MATRIX},
    "paired_scores": {"x": _SCORES, "y": _SCORES},
    "references_predictions": {"references": _REFERENCES, "predictions": _TEXTS},
    "qa_answers": {"references": _REFERENCES, "predictions": _TEXTS},
    "log_probs": {"log_probs": _SEQUENCES},
    "qrels_run": {"query": _STRINGS, "doc": _STRINGS, "score": _SCORES},
}
"""For each input kind, its table roles and how a column becomes each of them."""

REQUEST_COLUMNS = (
    "prompt_tokens",
    "output_tokens",
    "start",
    "first_token",
    "end",
    "token_times",
    "success",
    "error",
)
"""The columns of request records (input kind ``requests``); the required ones are checked
by the throughput metrics themselves."""

_REQUIRED_REQUEST_COLUMNS = ("prompt_tokens", "output_tokens", "start", "end")

_MATRIX = (_LABEL_MATRIX, _SCORE_MATRIX, _REFERENCES)


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
    return dict(_roles(type(metric), metric.inputs))


@functools.lru_cache(maxsize=512)
def _roles(cls: type[Metric[Any]], kind: str) -> dict[str, str]:
    """The roles of a metric class taking input kind ``kind`` (cached: engines ask per chunk)."""
    if kind == "requests":
        return dict.fromkeys(REQUEST_COLUMNS, "records")
    table = KIND_ROLES.get(kind)
    if table is None:
        raise ConfigError(
            message(
                cls.info.name, "cannot read its input from a table", kind, "a tabular input kind"
            )
        )
    if kind == "qrels_run":
        return dict(table)
    params = inspect.signature(cls.summarize).parameters
    roles = {name: table[name] for name in params if name in table}
    if "sample_weight" in params:
        roles["sample_weight"] = _WEIGHTS
    return roles


def _optional(metric: Metric[Any], role: str) -> bool:
    if metric.inputs == "requests":
        return role not in _REQUIRED_REQUEST_COLUMNS
    return role == "sample_weight"


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
            names = given.get(role, (role,))
            if role not in given and _optional(metric, role) and role not in have:
                continue
            if role not in given and role == "sample_weight":
                continue
            missing = [n for n in names if n not in have]
            if missing:
                hint = "" if role in given else f"; map it with columns={{{role!r}: NAME}}"
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


class Chunk:
    """One chunk of a table with its converted columns, each converted once for all metrics."""

    def __init__(self, table: Any) -> None:
        self.table = table
        self._cache: dict[tuple[str, tuple[str, ...]], Any] = {}

    @property
    def num_rows(self) -> int:
        """The rows in the chunk."""
        return int(self.table.num_rows)

    def get(self, conversion: str, names: tuple[str, ...]) -> Any:
        """The column(s) ``names`` converted as ``conversion``."""
        key = (conversion, names)
        if key not in self._cache:
            self._cache[key] = _convert(self.table, conversion, names)
        return self._cache[key]


def batch_arguments(
    metric: Metric[Any],
    chunk: Chunk,
    mapping: Mapping[str, tuple[str, ...]],
    *,
    qrels: Any = None,
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """The positional and keyword arguments of ``metric.summarize`` for one chunk.

    Ranking metrics (input kind ``qrels_run``) take their run from the chunk's
    ``query``, ``doc`` and ``score`` columns and their judgments from ``qrels``.
    """
    if metric.inputs == "requests":
        return (_records(chunk.table, mapping),), {}
    roles = column_roles(metric)
    if metric.inputs == "qrels_run":
        return _ranking_arguments(metric, chunk, mapping, qrels)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    for role, conversion in roles.items():
        if role not in mapping:
            continue
        value = chunk.get(conversion, mapping[role])
        if role == "sample_weight":
            kwargs[role] = value
        else:
            args.append(value)
    return tuple(args), kwargs


def _ranking_arguments(
    metric: Metric[Any], chunk: Chunk, mapping: Mapping[str, tuple[str, ...]], qrels: Any
) -> tuple[tuple[Any, ...], dict[str, Any]]:
    if qrels is None:
        raise ConfigError(
            message(
                metric.name, "needs relevance judgments", None, "qrels=... (a Qrels, dict or path)"
            )
        )
    return (qrels, _run(chunk, mapping)), {}


def _run(chunk: Chunk, mapping: Mapping[str, tuple[str, ...]]) -> Any:
    """The run of a chunk, built once for all ranking metrics.

    Its source is ``table``: a duplicate document is named by its query and doc
    id, which stay right whatever chunk of a file the rows come from.
    """
    from scorekit.ranking import Run

    key = ("run", (*mapping["query"], *mapping["doc"], *mapping["score"]))
    if key not in chunk._cache:
        query = chunk.get(_STRINGS, mapping["query"])
        doc = chunk.get(_STRINGS, mapping["doc"])
        score = chunk.get(_SCORES, mapping["score"])
        chunk._cache[key] = Run(query, doc, score)
    return chunk._cache[key]


def _records(table: Any, mapping: Mapping[str, tuple[str, ...]]) -> Any:
    names = {mapping[role][0]: role for role in mapping}
    keep = [name for name in table.column_names if name in names]
    renamed = table.select(keep).rename_columns([names[n] for n in keep])
    return renamed.replace_schema_metadata(table.schema.metadata)


# conversions -----------------------------------------------------------------------------


def _convert(table: Any, conversion: str, names: tuple[str, ...]) -> Any:
    if conversion == _LABELS:
        return _io.label_array(table, _single(table, conversion, names))
    if conversion == _SCORES:
        return _io.score_array(table, _single(table, conversion, names))
    if conversion == _WEIGHTS:
        return _io.weight_array(table, _single(table, conversion, names))
    if conversion == _STRINGS:
        return _strings(table, _single(table, conversion, names))
    if conversion == _TEXTS:
        return _texts(table, _single(table, conversion, names))
    if conversion == _SEQUENCES:
        return _sequences(table, _single(table, conversion, names))
    if conversion == _REFERENCES:
        return _references(table, names)
    if conversion in (_LABEL_MATRIX, _SCORE_MATRIX):
        return _matrix(table, conversion, names)
    raise ConfigError(message("evaluate", "unknown column conversion", conversion, "a known one"))


def _single(table: Any, conversion: str, names: tuple[str, ...]) -> str:
    if len(names) != 1:
        raise ConfigError(
            message(
                _io._source(table),
                f"one column needed for {conversion}",
                list(names),
                "a single column name",
            )
        )
    return names[0]


def _is_list(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind)
    )


def _is_text(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or _io._is_string_view(kind)
    )


def _strings(table: Any, name: str) -> Any:
    import pyarrow as pa

    col = _io._column(table, name)
    _io._check_present(table, name, col)
    if not _is_text(col.type):
        col = col.cast(pa.string())
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _type_error(table: Any, name: str, col: Any, what: str, expected: str) -> InputError:
    """The error of a column of the wrong type: ``column 'name' must hold <what>``."""
    return InputError(
        message(
            _io._source(table), f"column {name!r} must hold {what}", raw(str(col.type)), expected
        )
    )


def _texts(table: Any, name: str) -> list[str]:
    col = _io._column(table, name)
    if not _is_text(col.type):
        raise _type_error(table, name, col, "text", "a column of strings")
    _io._check_present(table, name, col)
    values: list[str] = col.to_pylist()
    return values


def _references(table: Any, names: tuple[str, ...]) -> list[Any]:
    if len(names) == 1:
        col = _io._column(table, names[0])
        if _is_text(col.type):
            return _texts(table, names[0])
        if _is_list(col.type) and _is_text(col.type.value_type):
            _io._check_present(table, names[0], col)
            lists: list[Any] = col.to_pylist()
            for row, item in enumerate(lists):
                if not item or any(v is None for v in item):
                    raise InputError(
                        message(
                            _io._where(table, names[0], row),
                            "empty or null reference",
                            item,
                            "a non-empty list of strings",
                        )
                    )
            return lists
        raise _type_error(
            table, names[0], col, "text or lists of text", "strings or lists of strings"
        )
    columns = []
    for name in names:
        col = _io._column(table, name)
        if not _is_text(col.type) and col.null_count != len(col):
            raise _type_error(table, name, col, "text", "a column of strings")
        columns.append(col.to_pylist())
    out: list[Any] = []
    for row, cells in enumerate(zip(*columns, strict=True)):
        refs = [c for c in cells if c is not None]
        if not refs:
            raise InputError(
                message(
                    _io._where(table, names[0], row),
                    "no reference in any reference column",
                    raw("all empty"),
                    "at least one reference per row",
                )
            )
        out.append(refs)
    return out


def _sequences(table: Any, name: str) -> list[NDArray[np.float64]]:
    import pyarrow as pa

    col = _io._column(table, name)
    if not _is_list(col.type):
        raise _type_error(
            table, name, col, "lists of numbers", "one list of log-probabilities per row"
        )
    _io._check_present(table, name, col)
    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    if pa.types.is_fixed_size_list(arr.type):
        width = arr.type.list_size
        offsets = np.arange(len(arr) + 1, dtype=np.int64) * width
    else:
        offsets = np.asarray(arr.offsets.to_numpy(), dtype=np.int64)
        offsets = offsets - offsets[0]
    flat = arr.flatten()
    values = np.asarray(flat.cast(pa.float64()).to_numpy(zero_copy_only=False), dtype=np.float64)
    return [values[offsets[i] : offsets[i + 1]] for i in range(len(arr))]


def _matrix(table: Any, conversion: str, names: tuple[str, ...]) -> NDArray[Any]:
    import pyarrow as pa

    if len(names) == 1:
        col = _io._column(table, names[0])
        if _is_list(col.type):
            _io._check_present(table, names[0], col)
            arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
            sizes = np.asarray(arr.value_lengths().to_numpy(zero_copy_only=False))
            if len(sizes) and (sizes != sizes[0]).any():
                row = int(np.flatnonzero(sizes != sizes[0])[0])
                raise InputError(
                    message(
                        _io._where(table, names[0], row),
                        "rows of different lengths",
                        int(sizes[row]),
                        f"{int(sizes[0])} values in every row, as in the first",
                    )
                )
            width = int(sizes[0]) if len(sizes) else 0
            flat = np.asarray(arr.flatten().to_numpy(zero_copy_only=False))
            wide = pa.table(
                {f"{names[0]}[{j}]": pa.array(flat[j::width]) for j in range(width)}
            ).replace_schema_metadata(table.schema.metadata)
            columns = list(wide.column_names)
            if conversion == _LABEL_MATRIX:
                return _io.label_matrix(wide, columns)
            return _io.score_matrix(wide, columns)
    if conversion == _LABEL_MATRIX:
        return _io.label_matrix(table, list(names))
    return _io.score_matrix(table, list(names))


def summarize_table(
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Mapping[str, tuple[str, ...]],
    *,
    qrels: Any = None,
) -> list[Any]:
    """The state of every metric on one pyarrow table, each column converted once.

    This is the whole per-chunk (or per-partition) work of an engine.

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
    return summarize_counted(metrics, table, mapping, qrels=qrels)[0]


def summarize_counted(
    metrics: Sequence[Metric[Any]],
    table: Any,
    mapping: Mapping[str, tuple[str, ...]],
    *,
    qrels: Any = None,
) -> tuple[list[Any], int]:
    """:func:`summarize_table`, and the number of queries the ranking metrics judged.

    The count (0 without ranking metrics) is the ``N`` of the ranking metrics'
    ``K of N queries`` warnings, added up over chunks by the engines.
    """
    chunk = Chunk(table)
    ranking = [m for m in metrics if m.inputs == "qrels_run"]
    judged: Any = None
    if ranking and qrels is not None:
        from scorekit.ranking import as_qrels
        from scorekit.ranking._ranked import judge
        from scorekit.ranking._state import RankingMetric

        qrels = as_qrels(qrels)
    states = []
    for metric in metrics:
        args, kwargs = batch_arguments(metric, chunk, mapping, qrels=qrels)
        if metric.inputs == "qrels_run" and isinstance(metric, RankingMetric):
            # the run is joined with the qrels once, for every ranking metric
            if judged is None:
                judged = judge(qrels, args[1])
            states.append(metric.for_qrels(qrels).from_judged(judged))
        else:
            states.append(metric.summarize(*args, **kwargs))
    return states, (0 if judged is None else int(judged.n_queries))
