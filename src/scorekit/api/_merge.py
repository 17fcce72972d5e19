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
    paths: Sequence[str | os.PathLike[str]],
    *,
    allow_duplicates: bool = False,
    part: int | None = None,
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
    merging the files' states pairwise in order, bit for bit. Shards that cut
    their ranges at their own sample points (``cuts=sample``) are cut at
    common points first, also per group (``by``) and per replicate of a keyed
    bootstrap (``--ci --key``), which are held until every file is read; the
    result's metrics carry the common cut points.

    Range by range (``part``): range ``I`` of the states split by score
    ranges can be merged by a process of its own, and the ``N`` range files
    assembled after, so that no process holds more than one range (see
    :func:`merge_with_header`). Range files given here, in any order, are
    assembled into the whole merge: the values are those of merging the
    shard files, bit for bit.

    Parameters
    ----------
    paths : sequence of str or Path
        The state files, one per shard (at least one): JSON, gzip JSON or
        binary (told apart by their content), in any mix. The size limit
        applies to each file (see :func:`~scorekit.statefiles.load_states`).
    allow_duplicates : bool, default False
        Merge files of identical content (shards whose data happen to give equal
        states). A file given twice, through any path or link, is always refused.
    part : int, optional
        Merge range ``part`` only of the states split by score ranges
        (``roc_auc:ranges=N``): their states hold that range of the merge and
        the merged shell, the other states are merged whole, and there are no
        values (one range is no value); write them with
        :func:`merge_with_header`'s header, as ``scorekit merge --part`` does.

    Returns
    -------
    EvaluationResult
        ``values``, ``states`` and ``metrics`` by metric string (in the order
        of the first file) and ``rows``, the sum over the files (for range
        files, the rows of the merge they come from).

    Raises
    ------
    StateMismatchError
        Files with different metrics (naming the metric and the file),
        configurations, state settings, commands, input kinds or columns
        (naming the field, both values and both files), or versions; a file
        given twice (same device and inode), or two files of identical content
        unless ``allow_duplicates``. Range files of different merges, a range
        missing or given twice (naming it and the files), range files among
        shard files.
    ConfigError
        ``part`` past the ranges (naming their number), for files with no
        state of score ranges, or with grouped or bootstrapped ones.
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
    return merge_with_header(paths, allow_duplicates=allow_duplicates, part=part)[0]


def merge_with_header(
    paths: Sequence[str | os.PathLike[str]],
    *,
    allow_duplicates: bool = False,
    allow_different_runs: bool = False,
    part: int | None = None,
) -> tuple[EvaluationResult, dict[str, Any]]:
    """:func:`merge_files`, and the header of the merged files (``rows`` their sum).

    State files of ``scorekit throughput`` on load-test records keep the run's
    settings (``options["run"]``); files of different settings are refused unless
    ``allow_different_runs``. Files of ``--ci`` keep the intervals' confidence
    and method (``options["ci"]``): the values of their bootstraps are then
    :class:`~scorekit.stats.Interval` s.

    With ``part=I``, the header's ``range`` (``{"index": I, "count": N,
    "inputs": ...}``) marks the states as range ``I`` of ``N`` of this merge,
    and the result has no values; ``save_states(path, result,
    part=header["range"], ...)`` writes the range file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> from scorekit.api import save_states
    >>> auc = parse_metric("roc_auc:ranges=4")
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> shards = [tmp / "a.json", tmp / "b.json"]
    >>> _ = save_states(shards[0], {"auc": (auc, auc.summarize([0, 1, 1], [0.1, 0.6, 0.9]))})
    >>> _ = save_states(shards[1], {"auc": (auc, auc.summarize([1, 0], [0.3, 0.7]))})
    >>> for i in range(4):   # each range by a process of its own
    ...     result, header = merge_with_header(shards, part=i)
    ...     _ = save_states(tmp / f"range-{i}.json", result, part=header["range"])
    >>> result.values, header["range"]["count"]
    ({}, 4)
    >>> ranges = [tmp / f"range-{i}.json" for i in (2, 0, 3, 1)]   # in any order
    >>> merge_files(ranges).values == merge_files(shards).values
    True
    """
    metrics, states, header = merge_states(
        paths,
        allow_duplicates=allow_duplicates,
        allow_different_runs=allow_different_runs,
        part=part,
    )
    if part is not None:
        result = EvaluationResult(values={}, states=states, metrics=metrics, rows=header["rows"])
        return result, header
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
