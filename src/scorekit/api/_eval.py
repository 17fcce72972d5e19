"""``scorekit eval`` as one call: a task's metrics over the columns of a file."""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from scorekit import io
from scorekit.api._ci import CI
from scorekit.api._classes import order_score_columns
from scorekit.api._task import _check_binary, _Plan, _plan
from scorekit.api._task_engine import engine_eval
from scorekit.core import EvaluationResult
from scorekit.engines import DEFAULT_CHUNK_SIZE
from scorekit.engines.stream import read_chunks
from scorekit.errors import ConfigError, message, raw

__all__ = ["evaluate_table"]


def evaluate_table(
    path: str,
    *,
    task: str,
    true: Sequence[str],
    pred: Sequence[str] | None = None,
    score: Sequence[str] | None = None,
    weight: str | None = None,
    metrics: Sequence[str] | None = None,
    pos_label: str | None = None,
    chunk_size: int | None = None,
    progress: bool | None = False,
    engine: str | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    classes: Sequence[str] | None = None,
    ci: CI | None = None,
    by: Sequence[str] | None = None,
    threshold: float | None = None,
) -> EvaluationResult:
    """Evaluate the columns of a file with the named metrics (or the task's defaults).

    Named metrics must all apply: any problem raises. Default metrics that do not
    apply to the data (scores that are not probabilities for ``log_loss``, say)
    are skipped and reported in ``skipped``.

    With ``chunk_size``, the file (or glob, or directory) is read ``chunk_size``
    rows at a time by the stream engine and the states of the chunks are merged:
    the values are those of the whole file (exactly for integer statistics, to
    round-off for float sums). Multiclass scores then take a first pass over the
    ``--true`` column to learn the classes of the score columns. ``progress``
    shows a progress bar on stderr (``None``: when it is a terminal).
    ``engine`` names a registered engine that folds the metrics instead
    (``"stream"``: in chunks in this process; ``"dask"``: on a Dask cluster,
    ``scheduler`` the address of a running one, ``workers`` the processes of a
    local one); a binary task then takes a first pass over the ``--true``
    column to check it has at most two classes.

    Multiclass score columns are matched to the classes of ``true`` by their
    names (``p_cat`` holds the scores of ``cat``; ``p0`` those of ``0``), in any
    order; ``classes`` names the class of each score column in turn where the
    names do not say it. Columns whose names name no class are taken in the
    sorted order of the classes, with a warning.

    With ``ci`` (a :class:`CI`) every value is an :class:`~scorekit.stats.Interval`
    from a Poisson bootstrap of the metric over the rows: the same interval in
    memory and in chunks of any size; on Dask with several partitions, and for
    shards read separately, the rows need a key column (``CI(key=COL)``).

    With ``by`` (one or more columns) every value is a
    :class:`~scorekit.core.ByGroup`: the value on all the rows and on each
    group of rows sharing the values of those columns, with the group sizes;
    the same in memory, in chunks and on Dask. With ``by`` and ``ci`` (in
    memory and in chunks) each of those values is an interval: a group's
    rows keep the replicate weights of their positions in the data (or of
    their keys), so a group's interval resamples that group's rows only and
    is the same however the file is chunked.

    With ``threshold`` (``--task binary`` with ``score`` and no ``pred``) a row
    whose score is at least ``threshold`` is predicted positive, and the label
    metrics (accuracy, F1, ...) are computed from those predictions.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "preds.csv")
    >>> with open(path, "w") as f:
    ...     _ = f.write("y,p\\n1,1\\n0,1\\n1,1\\n0,0\\n")
    >>> result = evaluate_table(path, task="binary", true=["y"], pred=["p"], metrics=["accuracy"])
    >>> result.values
    {'accuracy': 0.75}
    >>> ci = CI(n_resamples=200, seed=1)
    >>> found = evaluate_table(path, task="binary", true=["y"], pred=["p"], ci=ci, metrics=["f1"])
    >>> found.values["f1"].value, found.values["f1"].method
    (0.8, 'percentile')
    """
    plan = _plan(
        path, task, true, pred, score, weight, pos_label, ci.key if ci else None, by, threshold
    )
    matching = task == "multiclass" and bool(score)
    if classes is not None and not matching:
        raise ConfigError(
            message(
                "scorekit eval",
                "--classes names multiclass score columns",
                raw(task),
                "--task multiclass with --score",
            )
        )
    whole = chunk_size is None and engine is None
    source: Any = path
    size = chunk_size or DEFAULT_CHUNK_SIZE
    if whole:
        source = io.read_table(path, columns=plan.needed())
        size = max(source.num_rows, 1)
    learned: np.ndarray | None = None
    if matching or task == "binary":
        learned = read_chunks(
            source, [true[0]], size, progress=False, use=lambda chunks: _classes(plan, chunks)
        )
        _check_binary(plan, learned)
    if matching and learned is not None:
        plan, notes = order_score_columns(plan, learned, classes)
        for note in notes:
            warnings.warn(note, UserWarning, stacklevel=2)
    return engine_eval(
        plan,
        source,
        metrics,
        learned,
        engine=engine or "stream",
        chunk_size=size if whole else chunk_size,
        progress=False if whole else progress,
        scheduler=scheduler,
        workers=workers,
        ci=ci,
    )


def _classes(plan: _Plan, chunks: Iterable[Any]) -> NDArray[Any]:
    """The sorted classes of ``--true`` over all chunks."""
    found: NDArray[Any] | None = None
    for table in chunks:
        labels = np.unique(io.label_array(table, plan.true[0]))
        found = labels if found is None else np.union1d(found, labels)
    return found if found is not None else np.empty(0)
