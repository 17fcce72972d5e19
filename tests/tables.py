"""Batches of :mod:`strategies` as tables, and tables as files, for the engine tests.

:func:`to_table` turns the positional arguments of a metric (``make_batch``) into
a pyarrow table plus the ``columns`` and keyword arguments that make
:func:`scorekit.evaluate` read the same arguments back from it; :func:`write`
stores a table as CSV, TSV, Parquet or JSON Lines the way users' files look.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from scorekit.core import Metric
from scorekit.engines._columns import column_roles


def positional_roles(metric: Metric[Any]) -> list[str]:
    """The table roles of a metric's positional arguments, in order."""
    return [r for r in column_roles(metric) if r != "sample_weight"]


def to_table(
    kind: str,
    args: tuple[Any, ...],
    *,
    metric: Metric[Any] | None = None,
    weights: Any = None,
    matrix: str = "columns",
) -> tuple[pa.Table, dict[str, Any] | None, dict[str, Any]]:
    """A table holding ``args`` and how to read them back: ``(table, columns, kwargs)``.

    Matrices (multi-label indicators, per-class scores, several outputs) become
    several columns (``matrix="columns"``) or one list column (``"list"``);
    ragged log-probabilities and lists of references become list columns. A
    ranking batch becomes its run as ``query``/``doc``/``score`` rows sorted by
    query, with the qrels passed as ``qrels=`` in ``kwargs``. Request records are
    the table itself. Columns get names other than the roles, so ``columns``
    is exercised; ``weights`` become a ``weight`` column mapped to
    ``sample_weight``.
    """
    if kind == "qrels_run":
        return _ranking(args)
    if kind == "requests":
        return _requests(args[0]), None, {}
    if kind == "log_probs":
        return _log_probs(args), {"log_probs": "lp"}, {}
    roles = positional_roles(metric) if metric is not None else _default_roles(kind, len(args))
    data: dict[str, Any] = {}
    columns: dict[str, Any] = {}
    for role, value in zip(roles, args, strict=True):
        name = f"{role}_col"
        array = value if isinstance(value, list) else np.asarray(value)
        if isinstance(array, np.ndarray) and array.ndim == 2:
            if matrix == "list":
                flat = pa.array(np.ascontiguousarray(array).reshape(-1))
                data[name] = pa.FixedSizeListArray.from_arrays(flat, array.shape[1])
                columns[role] = name
            else:
                names = [f"{role}_{j}" for j in range(array.shape[1])]
                for j, col in enumerate(names):
                    data[col] = pa.array(array[:, j])
                columns[role] = names
            continue
        data[name] = pa.array(list(value)) if isinstance(value, list) else pa.array(array)
        columns[role] = name
    if weights is not None and metric is not None and "sample_weight" in column_roles(metric):
        data["weight"] = pa.array(np.asarray(weights, dtype=np.float64))
        columns["sample_weight"] = "weight"
    return pa.table(data), columns, {}


def _default_roles(kind: str, count: int) -> list[str]:
    from scorekit.core import input_kind

    return list(input_kind(kind).roles)[:count]


def _ranking(args: tuple[Any, ...]) -> tuple[pa.Table, dict[str, Any] | None, dict[str, Any]]:
    qrels, run = args
    query: list[str] = []
    doc: list[str] = []
    score: list[float] = []
    for q in sorted(run):
        for d, s in run[q].items():
            query.append(q)
            doc.append(d)
            score.append(float(s))
    table = pa.table(
        {
            "qid": pa.array(query, pa.string()),
            "docno": pa.array(doc, pa.string()),
            "sim": pa.array(score, pa.float64()),
        }
    )
    return table, {"query": "qid", "doc": "docno", "score": "sim"}, {"qrels": qrels}


def _log_probs(args: tuple[Any, ...]) -> pa.Table:
    if len(args) == 2:
        values, mask = (np.asarray(a) for a in args)
        rows = [values[i][np.asarray(mask[i], dtype=bool)].tolist() for i in range(len(values))]
    else:
        rows = [np.asarray(v, dtype=np.float64).tolist() for v in args[0]]
    return pa.table({"lp": pa.array(rows, pa.list_(pa.float64()))})


def _requests(records: Any) -> pa.Table:
    if isinstance(records, pa.Table):
        return records
    if hasattr(records, "to_dict") and hasattr(records, "columns"):
        return pa.Table.from_pandas(records, preserve_index=False)
    rows = [dataclasses.asdict(r) if dataclasses.is_dataclass(r) else dict(r) for r in records]
    return pa.Table.from_pylist(rows)


def has_lists(table: pa.Table) -> bool:
    """Whether a column holds lists (such tables cannot be CSV files)."""
    return any(
        pa.types.is_list(f.type) or pa.types.is_fixed_size_list(f.type) for f in table.schema
    )


def csv_safe(table: pa.Table) -> bool:
    """Whether every value survives a CSV file as scorekit reads it.

    Lists do not fit in a cell; an empty string reads back as a missing value
    (an empty cell is missing) and a line break inside a value breaks the
    one-record-per-line reading.
    """
    if has_lists(table):
        return False
    for column in table.columns:
        if pa.types.is_string(column.type):
            for value in column.to_pylist():
                if value is None or value == "" or "\n" in value or "\r" in value:
                    return False
    return True


def write(table: pa.Table, path: Path, **options: Any) -> Path:
    """Write ``table`` in the format the name of ``path`` says (``.gz`` compresses text)."""
    name = path.name
    if name.endswith((".parquet", ".pq")):
        pq.write_table(table, path, **options)
        return path
    if ".csv" in name or ".tsv" in name:
        sink = pa.BufferOutputStream()
        delimiter = "\t" if ".tsv" in name else ","
        pacsv.write_csv(table, sink, pacsv.WriteOptions(delimiter=delimiter))
        data = sink.getvalue().to_pybytes()
    else:
        rows = table.to_pylist()
        data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    path.write_bytes(gzip.compress(data) if name.endswith(".gz") else data)
    return path


def binary_scores(seed: int, n: int, *, distinct: int, weights: str, float32: bool) -> pa.Table:
    """Binary labels and scores of ``distinct + 1`` values in [0, 1], for score ranges.

    Few distinct scores tie within and across chunks, partitions and ranges, some on
    the cut points. ``weights``: ``"none"``; ``"dyadic"`` (eighths, zeros too: their
    sums are exact in any order); ``"any"`` (sums that round, so the merge order
    shows in the last bits).
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    score = rng.integers(0, distinct + 1, n) / distinct
    score = score.astype(np.float32) if float32 else score
    columns: dict[str, Any] = {"y_true": y, "y_score": score}
    if weights == "dyadic":
        columns["sample_weight"] = rng.integers(0, 9, n) / 8
    elif weights == "any":
        columns["sample_weight"] = rng.random(n) * 3 + 1e-3
    return pa.table(columns)
