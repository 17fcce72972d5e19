"""Merging state files into values: :func:`merge_files` and :func:`merge_with_header`."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from scorekit.api._ci import CI, value_of
from scorekit.core import EvaluationResult
from scorekit.statefiles import merge_states

__all__ = ["merge_files", "merge_with_header"]


def merge_files(
    paths: Sequence[str | os.PathLike[str]], *, allow_duplicates: bool = False
) -> EvaluationResult:
    """Merge the state files of several shards into the result of all the data.

    Every file must hold the same metrics with the same configurations,
    produced by the same command on the same input kind and columns, in a
    state-file and state format this scorekit reads; files written by other
    scorekit versions of the same formats merge.

    The files are read one at a time (see
    :func:`~scorekit.statefiles.merge_states`): most states are merged into
    the running states before the next file is read; exact ROC AUC and AP
    histograms are merged together once all files are read; states split by
    score ranges (``roc_auc:ranges=N``) merge one range of every file at a
    time, so their memory is that of one range. The states are those of
    merging the files' states pairwise in order, bit for bit.

    Parameters
    ----------
    paths : sequence of str or Path
        The state files, one per shard (at least one): JSON, gzip JSON or
        binary (told apart by their content), in any mix. The size limit
        applies to each file (see :func:`~scorekit.statefiles.load_states`).
    allow_duplicates : bool, default False
        Merge files of identical content (shards whose data happen to give equal
        states). A file given twice, through any path or link, is always refused.

    Returns
    -------
    EvaluationResult
        ``values``, ``states`` and ``metrics`` by metric string (in the order
        of the first file) and ``rows``, the sum over the files.

    Raises
    ------
    StateMismatchError
        Files with different metrics (naming the metric and the file),
        configurations, state settings, commands, input kinds or columns
        (naming the field, both values and both files), or versions; a file
        given twice (same device and inode), or two files of identical content
        unless ``allow_duplicates``.
    InputError
        A missing, truncated or corrupt file, or one that is not a state file,
        naming the path.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> from scorekit.api import save_states
    >>> acc = parse_metric("accuracy")
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = save_states(tmp / "a.json", {"accuracy": (acc, acc.summarize([1, 0], [1, 1]))})
    >>> _ = save_states(tmp / "b.json", {"accuracy": (acc, acc.summarize([1, 1], [1, 1]))})
    >>> merge_files([tmp / "a.json", tmp / "b.json"]).values
    {'accuracy': 0.75}
    """
    return merge_with_header(paths, allow_duplicates=allow_duplicates)[0]


def merge_with_header(
    paths: Sequence[str | os.PathLike[str]],
    *,
    allow_duplicates: bool = False,
    allow_different_runs: bool = False,
) -> tuple[EvaluationResult, dict[str, Any]]:
    """:func:`merge_files`, and the header of the merged files (``rows`` their sum).

    State files of ``scorekit throughput`` on load-test records keep the run's
    settings (``options["run"]``); files of different settings are refused unless
    ``allow_different_runs``. Files of ``--ci`` keep the intervals' confidence
    and method (``options["ci"]``): the values of their bootstraps are then
    :class:`~scorekit.stats.Interval` s.
    """
    metrics, states, header = merge_states(
        paths, allow_duplicates=allow_duplicates, allow_different_runs=allow_different_runs
    )
    ci = _intervals_asked(header)
    values = {key: value_of(ci, metric, states[key]) for key, metric in metrics.items()}
    result = EvaluationResult(values=values, states=states, metrics=metrics, rows=header["rows"])
    return result, header


def _intervals_asked(header: Mapping[str, Any]) -> CI | None:
    """The :class:`CI` a state file's ``options["ci"]`` records, if any."""
    asked = (header.get("options") or {}).get("ci")
    if not isinstance(asked, Mapping):
        return None
    return CI(confidence=asked.get("confidence", 0.95), method=asked.get("method", "percentile"))
