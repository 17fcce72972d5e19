"""Merging state files: :func:`merge_states`, checking that the files belong together."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy as np

from scorekit.classification import ScoreHistogram, ScoreRanges, recut
from scorekit.core import Metric, State, equal_values, merges_alike, narrowed
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    StateMismatchError,
    message,
    raw,
)
from scorekit.io import local_path, require_regular
from scorekit.statefiles._binary import head_digest
from scorekit.statefiles._format import BINARY_MAGIC, HEADER, StateFile
from scorekit.statefiles._parts import PartError, PartFile, Reordered
from scorekit.statefiles._read import malformed, read_states

__all__ = ["merge_states"]

_BLOCK = 1 << 20


class _First(NamedTuple):
    """What merging keeps of the first file: its metrics, header, path and state settings.

    The settings are the fields of each state that merging requires to agree
    (merge rule ``same``): small values, so the first file's states need not
    stay in memory once merged.
    """

    metrics: dict[str, Any]
    meta: dict[str, Any]
    path: str
    settings: dict[str, dict[str, Any]]


def _first_of(file: StateFile) -> _First:
    settings = {
        key: {name: getattr(state, name) for name in _setting_names(state)}
        for key, state in file.states.items()
    }
    return _First(dict(file.metrics), dict(file.meta), file.path, settings)


def _setting_names(state: Any) -> list[str]:
    return [f.name for f in dataclasses.fields(state) if f.metadata.get("merge", "same") == "same"]


def _check_same_metrics(first: _First, file: StateFile) -> None:
    for key in first.metrics:
        if key not in file.metrics:
            raise StateMismatchError(
                message(
                    file.path,
                    f"metric {key!r} is missing",
                    raw(f"the metrics {list(file.metrics)}"),
                    f"the same metrics in every file, as in {first.path}: {list(first.metrics)}",
                )
            )
    for key in file.metrics:
        if key not in first.metrics:
            raise StateMismatchError(
                message(
                    file.path,
                    f"metric {key!r} is not in {first.path}",
                    raw(f"the metrics {list(file.metrics)}"),
                    f"the same metrics in every file, as in {first.path}: {list(first.metrics)}",
                )
            )


def _check_same_run(first: _First, file: StateFile, allow: bool) -> None:
    """Refuse files of load tests of different settings (``options["run"]``), unless ``allow``."""
    a = (first.meta.get("options") or {}).get("run")
    b = (file.meta.get("options") or {}).get("run")
    if allow or a == b or not isinstance(a, dict) or not isinstance(b, dict):
        return
    key = next(k for k in sorted({*a, *b}) if a.get(k) != b.get(k))
    raise StateMismatchError(
        message(
            "scorekit merge",
            f"the files come from load tests of different settings: {key!r} differs",
            raw(f"{b.get(key)!r} in {file.path}"),
            f"{a.get(key)!r} as in {first.path} (pass --allow-different-runs, "
            "allow_different_runs=True, to merge them)",
        )
    )


def _without_run(options: Any) -> Any:
    if isinstance(options, dict):
        return {k: v for k, v in options.items() if k != "run"}
    return options


def _check_same_header(first: _First, file: StateFile, allow_different_runs: bool) -> None:
    _check_same_run(first, file, allow_different_runs)
    for name in HEADER:
        a, b = first.meta.get(name), file.meta.get(name)
        if name == "options":
            a, b = _without_run(a), _without_run(b)
        if a != b:
            raise StateMismatchError(
                message(
                    "scorekit merge",
                    f"the files differ in {name!r}",
                    raw(f"{b!r} in {file.path}"),
                    f"{a!r} as in {first.path}",
                )
            )


def _check_same_config(key: str, first: _First, file: StateFile) -> None:
    """Compare the configurations but the options the states make up for (cut points each
    shard chose, those of a wrapped metric too: :meth:`Metric.shard_config`)."""
    a, b = first.metrics[key].shard_config(), file.metrics[key].shard_config()
    for name in dict.fromkeys([*a, *b]):
        if name not in a or name not in b or not equal_values(a[name], b[name]):
            raise StateMismatchError(
                message(
                    key,
                    f"the files configure {name!r} differently",
                    raw(f"{b.get(name)!r} in {file.path}"),
                    f"{a.get(name)!r} as in {first.path}",
                )
            )


def _check_same_settings(key: str, first: _First, file: StateFile) -> None:
    """Compare the state fields that must agree (merge rule ``same``), naming both files.

    A setting may differ where the two configurations make it differ, their
    shard options apart (a bootstrap state keeps its metric's options, the
    cut points each shard chose among them): it is the setting of each
    file's metric's empty state, and the states are made alike as they merge.
    """
    a, b = first.settings[key], file.states[key]
    empties: list[Any] = []
    for name in a:
        va, vb = a[name], getattr(b, name)
        if equal_values(va, vb):
            continue
        if not empties:
            empties = [first.metrics[key].empty(), file.metrics[key].empty()]
        made_a, made_b = (getattr(empty, name) for empty in empties)
        if equal_values(va, made_a) and equal_values(vb, made_b):
            continue
        raise StateMismatchError(
            message(
                key,
                f"the states differ in their setting {name!r}",
                raw(f"{vb!r} in {file.path}"),
                f"{va!r} as in {first.path}",
            )
        )


def _add_tallies(total: dict[str, dict[str, int]], file: StateFile) -> None:
    """Add the tallies of ``file`` to ``total``."""
    tallies = file.meta.get("tallies") or {}
    if not isinstance(tallies, dict) or not all(
        isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values())
        for counts in tallies.values()
    ):
        raise malformed(Path(file.path), "tallies are not counts", tallies, "{name: {key: n}}")
    for name, counts in tallies.items():
        into = total.setdefault(name, {})
        for key, count in counts.items():
            into[key] = into.get(key, 0) + count


def _digest(path: str | os.PathLike[str]) -> str:
    """The SHA-256 of a file's bytes, read a block at a time."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while block := handle.read(_BLOCK):
                digest.update(block)
    except OSError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), "a state file")) from None
    return digest.hexdigest()


def _refuse_duplicates(paths: Sequence[str | os.PathLike[str]], allow_duplicates: bool) -> None:
    """Refuse a file given twice (same device and inode: a repeat, a hard or symbolic link),
    and unless ``allow_duplicates``, two files of byte-identical content (a copied shard)."""
    seen: dict[tuple[int, int], str] = {}
    sizes: dict[int, list[str]] = {}
    for p in paths:
        status = require_regular(Path(p), "a state file")
        key = (status.st_dev, status.st_ino)
        if key in seen:
            raise StateMismatchError(
                message(
                    "scorekit merge",
                    "the same state file is given twice",
                    raw(f"{p} and {seen[key]}"),
                    "each shard's file once (its data would count twice)",
                )
            )
        seen[key] = str(p)
        sizes.setdefault(status.st_size, []).append(str(p))
    if allow_duplicates:
        return
    for group in sizes.values():
        if len(group) < 2:
            continue
        digests: dict[str, str] = {}
        for p in group:
            digest = _digest(p)
            if digest in digests:
                raise StateMismatchError(
                    message(
                        "scorekit merge",
                        "two state files have identical content",
                        raw(f"{p} and {digests[digest]}"),
                        "each shard's file once (a copy would count its data twice); "
                        "pass --allow-duplicates (allow_duplicates=True) if the shards "
                        "really are equal",
                    )
                )
            digests[digest] = p


def merge_states(
    paths: Sequence[str | os.PathLike[str]],
    *,
    allow_duplicates: bool = False,
    allow_different_runs: bool = False,
    part: int | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The metrics and merged states of several state files, and their header.

    Every file must hold the same metrics with the same configurations,
    produced by the same command on the same input kind and columns, in a
    state-file and state format this scorekit reads; files written by other
    scorekit versions of the same formats merge. The header is the first
    file's, with ``rows`` and ``tallies`` summed over the files.

    A file given twice (through any path or link) is refused, and two files of
    identical content unless ``allow_duplicates`` (shards whose data happen to
    give equal states). State files of ``scorekit throughput`` on load-test
    records keep the run's settings (``options["run"]``); files of different
    settings are refused unless ``allow_different_runs``.

    The files are read one at a time, in order, and each is checked against
    the first. Most states are merged into the running states before the
    next file is read. The states of metrics that merge many states at once
    (exact ``roc_auc`` and ``average_precision`` histograms) are kept and
    merged together once all files are read: one sort of their sorted runs
    instead of a merge per file, holding every file's histogram and their
    merge. States split by score ranges (``roc_auc:ranges=N``) of binary
    files are merged range by range (files of other cut points, such as
    shards of separate runs with ``cuts=sample``, cut alike first):
    each range of every file is read, merged and written to a temporary file
    before the next, and the merged state
    reads its ranges from there when the metric asks for them, so memory
    holds one range of every file, never a whole histogram. Grouped and
    bootstrapped states of score ranges (``--by``, ``--ci``) are kept until
    all files are read: the ranges of every group, replicate and file are
    then cut at the same common cut points, so merged groups agree, and
    merged. The metrics returned are the first file's, configured with the
    common cut points where the files' states were cut alike (their other
    options agree in every file). Two metrics
    whose states are equal in every binary file are merged once and share
    the merged state. The states are those of merging the files' states
    pairwise in order, bit for bit. The size limit applies to each file (see
    :func:`~scorekit.statefiles.load_states`).

    Range by range: with ``part=I``, the states split by score ranges hold
    range ``I`` of their merge only (the files cut alike first, so range
    ``I`` holds the same scores whichever process merges it), beside their
    merged shell (cut points and sample count, the whole's); the other
    states are merged whole. The header's ``range``, ``{"index": I,
    "count": N, "inputs": ID}``, says which range of how many, and of which
    files (``ID``, a digest of the files in order); ``save_states(...,
    part=header["range"])`` writes the range file. Merging the ``N`` range
    files of one such merge, in any order, assembles the states of the
    whole merge, bit for bit: each file must hold another range, every
    range must be there, and the shells, the other states, ``rows`` and the
    inputs must be the same in every file (the header then counts the
    files in ``range_files``). Grouped or bootstrapped states of
    score ranges (``--by``, ``--ci``) are not split: ``part`` refuses them.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> from scorekit.statefiles import save_states
    >>> acc = parse_metric("accuracy")
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = save_states(tmp / "a.json", {"accuracy": (acc, acc.summarize([1, 0], [1, 1]))})
    >>> _ = save_states(tmp / "b.json", {"accuracy": (acc, acc.summarize([1, 1], [1, 1]))})
    >>> metrics, states, header = merge_states([tmp / "a.json", tmp / "b.json"])
    >>> acc.compute(states["accuracy"]), header["rows"]
    (0.75, 0)

    Range 1 of ``roc_auc:ranges=2`` of the two files, then the whole from
    the range files:

    >>> auc = parse_metric("roc_auc:ranges=2")
    >>> for name, y, s in (("c", [0, 1], [0.2, 0.7]), ("d", [1, 0], [0.9, 0.4])):
    ...     _ = save_states(tmp / f"{name}.json", {"auc": (auc, auc.summarize(y, s))})
    >>> shards = [tmp / "c.json", tmp / "d.json"]
    >>> for i in range(2):
    ...     metrics, states, header = merge_states(shards, part=i)
    ...     _ = save_states(tmp / f"r{i}.json", {"auc": (auc, states["auc"])},
    ...                     part=header["range"])
    >>> header["range"]["index"], header["range"]["count"]
    (1, 2)
    >>> [p.score.tolist() for p in states["auc"].parts]
    [[], [0.7, 0.9]]
    >>> metrics, states, header = merge_states([tmp / "r1.json", tmp / "r0.json"])
    >>> auc.compute(states["auc"]) == auc.compute(merge_states(shards)[1]["auc"])
    True
    """
    paths = [local_path(p) for p in paths]
    _refuse_duplicates(paths, allow_duplicates)
    if part is not None and (
        isinstance(part, bool) or not isinstance(part, int | np.integer) or part < 0
    ):
        raise ConfigError(message("part", "not a range index", part, "an integer >= 0"))
    first: _First | None = None
    states: dict[str, Any] = {}
    # the states merged together at the end, with the file each came from, and the
    # metrics of which a gathered histogram had float64 scores (held narrowed or not)
    gathered: dict[str, list[tuple[str, State]]] = {}
    wide: set[str] = set()
    equal: dict[str, str] = {}
    rows = 0
    tallies: dict[str, dict[str, int]] = {}
    for number, path in enumerate(paths):
        # one file at a time: read it, check it, merge or gather its states, drop it
        file, prints = read_states(Path(path), lazy=True)
        ranged = file.meta.get("range")
        if ranged is not None and first is None and part is None:
            read = [(file, prints)]
            del file, prints  # the assembly lets the first file go as it goes on
            return _assemble(paths, read, allow_different_runs)
        if ranged is not None:
            raise _range_file_here(file, first, part)
        narrow: dict[int, Any] = {}
        if first is None:
            first = _first_of(file)
            equal = _equal_states(file, prints)
            if part is not None:
                _refuse_unsplit(first.metrics, file.states)
        else:
            _check_same_metrics(first, file)
            _check_same_header(first, file, allow_different_runs)
            here = _equal_states(file, prints)
            equal = {key: twin for key, twin in equal.items() if here.get(key) == twin}
        state: Any = None
        for key, metric in first.metrics.items():
            state = file.states[key]
            if number:
                _check_same_config(key, first, file)
                _check_same_settings(key, first, file)
            if _gathers(metric, state):
                if _wide_scores(state):
                    wide.add(key)
                gathered.setdefault(key, []).append((file.path, _held(state, narrow)))
            elif not number:
                states[key] = state
            else:
                states[key] = _merge_pair(key, metric, states[key], file.path, state, first)
        rows += int(file.meta.get("rows", 0))
        _add_tallies(tallies, file)
        del file, state, narrow
    if first is None:
        raise ConfigError(message("scorekit merge", "no state file given", None, "one or more"))
    # the metrics of states cut at common cut points have them, and their shard options
    metrics = dict(first.metrics)
    configured: dict[str, dict[str, Any]] = {}
    for key, metric in first.metrics.items():
        if key not in gathered:
            continue
        twin = equal.get(key, key)
        if twin != key and twin in gathered and merges_alike(metric, first.metrics[twin]):
            # the same states in every file, merged the same way: the same merged state
            states[key] = states[twin]
            if twin in configured:
                metrics[key] = metric.with_shard_options(**configured[twin])
        else:
            try:
                merged_metric, merged = _merge_gathered(key, metric, gathered[key], first, part)
            except _PastTheParts as exc:
                raise _past(int(part or 0), exc.count, [key]) from None
            states[key] = _widened(merged, key in wide)
            if merged_metric is not metric:
                metrics[key] = merged_metric
                configured[key] = {"cuts": _cuts_of(merged_metric)}
        gathered[key] = []
    header = {k: v for k, v in first.meta.items() if k != "path"}
    header["rows"] = rows
    header["tallies"] = tallies
    if part is not None:
        header["range"] = {
            "index": int(part),
            "count": _range_count(first.metrics, states, int(part)),
            "inputs": _inputs_digest(paths),
        }
    return metrics, states, header


def _cuts_of(metric: Any) -> Any:
    """The cut points of a metric of score ranges, or of the one its states hold."""
    while _within(metric) is not None:
        metric = _within(metric)
    return metric.cuts


def _equal_states(file: StateFile, prints: dict[str, str]) -> dict[str, str]:
    """Each metric whose state equals that of an earlier metric of the file: the earlier one."""
    earlier: dict[tuple[type, str], str] = {}
    equal: dict[str, str] = {}
    for key, state in file.states.items():
        found = prints.get(key)
        if not found:
            continue
        twin = earlier.setdefault((type(state), found), key)
        if twin != key:
            equal[key] = twin
    return equal


def _gathers(metric: Metric[Any], state: State) -> bool:
    """Whether the states of a metric are merged together once all files are read.

    States of independent parts (score ranges) merge part by part, one part
    of every file at a time; the states of metrics that merge many states at
    once better than pairwise (exact score histograms, one sort of their runs
    instead of a merge per file) are merged by ``merge_many``; grouped and
    bootstrapped states of score ranges are cut at the cut points common to
    every file first (:func:`_cut_alike`).
    """
    if type(state).parted or getattr(metric, "defers_merges", False):
        return True
    return _cut_within(metric)


def _held(state: State, narrow: dict[int, Any]) -> State:
    """A gathered exact histogram with its scores and integer counts in their smallest exact types.

    While it waits for the merge, a histogram of float32 scores and counts of
    a few samples takes the bytes its file takes (6 a row, not 17); the merge
    gives int64 counts again, and float64 scores where a state read had
    float64 scores (:func:`_wide_scores`, recorded before the narrowing).
    ``narrow`` holds the arrays narrowed so far (by ``id``), so arrays two
    states share stay shared.
    """
    if not isinstance(state, ScoreHistogram) or not state.task:
        return state

    def small(array: Any) -> Any:
        if array.size == 0 or not all(array.strides):  # a view of one value: no memory
            return array
        if id(array) not in narrow:
            narrow[id(array)] = (array, narrowed(array))
        return narrow[id(array)][1]

    counts = state.counts if state.counts.dtype.kind == "f" else small(state.counts)
    return dataclasses.replace(state, score=small(state.score), counts=counts)


def _wide_scores(state: State) -> bool:
    """Whether a state is a histogram of float64 scores (merged with it, scores are float64)."""
    return (
        isinstance(state, ScoreHistogram) and bool(state.task) and state.score.dtype == np.float64
    )


def _widened(state: State, wide: bool) -> State:
    """A merged histogram in the types of merging the states read: int64 counts, and
    float64 scores where a state had float64 scores (``wide``), else float32 ones."""
    if not isinstance(state, ScoreHistogram):
        return state
    changes: dict[str, Any] = {}
    if wide and state.score.dtype != np.float64:
        changes["score"] = state.score.astype(np.float64)
    if state.counts.dtype.kind in "biu" and state.counts.dtype != np.int64:
        changes["counts"] = state.counts.astype(np.int64)
    return dataclasses.replace(state, **changes) if changes else state


def _merge_pair(
    key: str, metric: Metric[Any], merged: State, path: str, state: State, first: _First
) -> State:
    try:
        out: State = metric.merge(merged, state)
        return out
    except PartError:
        raise  # a part of a file read as it merges: the error names the file
    except ScorekitError as exc:
        raise StateMismatchError(
            f"{key}: the state in {path} does not merge with the states "
            f"before it (from {first.path}): {exc}"
        ) from None


def _merge_gathered(
    key: str,
    metric: Metric[Any],
    found: list[tuple[str, State]],
    first: _First,
    part: int | None = None,
) -> tuple[Metric[Any], State]:
    """The states of one metric from every file, merged in file order, and their metric.

    The result is that of merging them pairwise in order, bit for bit; an
    error names the first file whose state does not merge with those before.
    With ``part``, parted states hold their merged part ``part`` only. States
    of score ranges cut at other points in some files are cut alike first
    (:func:`_cut_alike`); the metric is then configured with the common cut
    points.
    """
    metric, states = _cut_alike(key, metric, [state for _, state in found])
    try:
        if all(type(state).parted for state in states):
            return metric, _merge_by_parts(states, part)
        merged: State = metric.merge_many(states)
        return metric, merged
    except (PartError, _PastTheParts):
        raise
    except ScorekitError as exc:
        # find the file at fault, merging pairwise
        merged = states[0]
        for (path, _), state in zip(found[1:], states[1:], strict=True):
            merged = _merge_pair(key, metric, merged, path, state, first)
        files = ", ".join(str(path) for path, _ in found)
        raise StateMismatchError(f"{key}: the states in {files} do not merge: {exc}") from None


def _within(metric: Any) -> Any:
    """The metric a wrapper's states hold states of (``--by``, ``--ci``, both), or None."""
    return metric.inner if callable(getattr(metric, "inner_states", None)) else None


def _leaves(metric: Any, state: State) -> Iterator[State]:
    """The states of the innermost wrapped metric that ``state`` holds (``state`` itself
    for a metric that wraps none)."""
    inner = _within(metric)
    if inner is None:
        yield state
        return
    for held in metric.inner_states(state):
        yield from _leaves(inner, held)


def _changed(metric: Any, state: State, change: Callable[[State], State]) -> State:
    """``state`` with ``change`` applied to each state of the innermost wrapped metric, as a
    state of ``metric`` (whose wrapped metric may have other shard options)."""
    inner = _within(metric)
    if inner is None:
        return change(state)
    changed: State = metric.with_inner_states(state, lambda held: _changed(inner, held, change))
    return changed


def _cut_within(metric: Any) -> bool:
    """Whether a wrapper's states hold states of score ranges (its innermost metric's)."""
    inner = _within(metric)
    if inner is None:
        return False
    while _within(inner) is not None:
        inner = _within(inner)
    try:
        return isinstance(inner.empty(), ScoreRanges)
    except (ScorekitError, AttributeError, TypeError):
        return False


def _cut_alike(
    key: str, metric: Metric[Any], states: list[State]
) -> tuple[Metric[Any], list[State]]:
    """The states of score ranges of every file, and of every group and replicate in them,
    cut at common cut points, and the metric configured with them.

    Shards evaluated by separate runs with ``cuts=sample`` choose their own
    cut points (each the same for every group and replicate of its run); the
    common ones are chosen from all of them (:meth:`ScoreRanges.common_cuts`),
    so merged groups agree; states of no data (an empty shard's) take them
    too. A metric whose configuration names no cut points
    (``cuts=sample`` not settled by a first pass: each batch chose its own)
    stays as it is.
    """
    found = [leaf for state in states for leaf in _leaves(metric, state)]
    ranged = [leaf for leaf in found if isinstance(leaf, ScoreRanges)]
    if len(ranged) != len(found):
        return metric, states
    cuts = ScoreRanges.common_cuts(ranged)
    if cuts is None:
        # one cut list among the states with data: theirs, for the states of no data too
        # (an empty shard's own cut points, kept in its bootstrap's options)
        full = next((leaf for leaf in ranged if leaf.has_data), None)
        if full is None:
            return metric, [_changed(metric, state, lambda leaf: leaf) for state in states]
        cuts = full.cuts
    try:
        target = metric.with_shard_options(cuts=tuple(cuts.tolist()))
    except ConfigError:
        target = metric  # cuts=sample not settled: the configuration names no cut points
    return target, [
        _changed(target, state, lambda leaf: recut(cast(ScoreRanges, leaf), cuts))
        for state in states
    ]


def _merge_by_parts(states: list[State], part: int | None = None) -> State:
    """Parted states merged part by part: the parts of index ``i`` of every state at a time.

    The shells merge as whole states; each merged part is written to a
    temporary file (:class:`PartFile`) and read again when asked for, so the
    merge holds one part of each state and their merge, never the whole.
    A kind with an ``aligned`` class method (score ranges) first gives its
    states one layout of parts: ranges of other cut points are cut at common
    ones. With ``part``, only the parts of that index are read and merged:
    the merged state holds that part, its other parts empty (those of the
    shell).
    """
    # states cut at other points (shards of separate cuts=sample runs) are cut alike
    aligned = getattr(type(states[0]), "aligned", None)
    if callable(aligned):
        states = list(aligned(states))
    split = [state.split_parts() for state in states]
    shell = split[0][0]
    for other, _ in split[1:]:
        shell = shell.merge(other)
    blank = shell.split_parts()[1]
    count = len(blank)
    if part is not None:
        if part >= count:
            raise _PastTheParts(count)
        alone = _merge_in_order([p[part] for _, p in split if len(p) == count])
        return type(shell).from_parts(
            shell, tuple(alone if i == part else blank[i] for i in range(count))
        )
    merged = PartFile()
    for i in range(count):
        parts = [part[i] for _, part in split if len(part) == count]
        merged.append(_merge_in_order(parts))
        del parts
    return type(shell).from_parts(shell, merged)


def _merge_in_order(states: list[State]) -> State:
    """States merged in order: by the kind's ``merge_all`` when it has one, else pairwise."""
    kind = type(states[0])
    merge_all = getattr(kind, "merge_all", None)
    if callable(merge_all) and len(states) > 1 and all(type(s) is kind for s in states):
        merged: State = merge_all(states)
        return merged
    return functools.reduce(lambda a, b: a.merge(b), states)


class _PastTheParts(ConfigError):
    """A part index past the parts of a merged state (``count``, the number of parts)."""

    def __init__(self, count: int) -> None:
        super().__init__(f"{count} parts")
        self.count = count


def _splits(metric: Any) -> bool:
    """Whether a metric, or the metric a wrapper (``--by``, ``--ci``) holds, has parted states."""
    while metric is not None:
        try:
            if type(metric.empty()).parted:
                return True
        except (ScorekitError, AttributeError, TypeError):
            return False
        metric = getattr(metric, "inner", None)
    return False


def _refuse_unsplit(metrics: dict[str, Any], states: dict[str, Any]) -> None:
    """Refuse ``part`` for files with no state of score ranges, or with wrapped ones."""
    for key, metric in metrics.items():
        if _splits(metric) and not type(states[key]).parted:
            raise ConfigError(
                message(
                    key,
                    "its states are per group or per resample and cannot be merged range by range",
                    raw(f"a {type(states[key]).kind} state"),
                    "states of score ranges not grouped (--by) or bootstrapped (--ci); "
                    "merge these files whole, without --part",
                )
            )
    if not any(type(state).parted for state in states.values()):
        raise ConfigError(
            message(
                "scorekit merge --part",
                "no metric of the files is split by score ranges",
                raw(f"the metrics {list(metrics)}"),
                "a metric with ranges=N, such as 'roc_auc:ranges=64'",
            )
        )


def _range_count(metrics: dict[str, Any], states: dict[str, Any], part: int) -> int:
    """The number of ranges of the merged states of score ranges: one number for all."""
    counts = {
        key: len(state.split_parts()[1])
        for key, state in states.items()
        if type(state).parted and state.has_data
    }
    if not counts:
        counts = {key: len(s.split_parts()[1]) for key, s in states.items() if type(s).parted}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{key}: {n}" for key, n in counts.items())
        raise ConfigError(
            message(
                "scorekit merge --part",
                "the metrics have different numbers of ranges",
                raw(shown),
                "one number of ranges for every metric split by score ranges "
                "(the same ranges=N); merge them whole, without --part",
            )
        )
    count = next(iter(counts.values()))
    if part >= count:
        raise _past(part, count, list(counts))
    return count


def _past(part: int, count: int, keys: list[str]) -> ConfigError:
    return ConfigError(
        message(
            f"scorekit merge --part {part}",
            f"there is no range {part}: the merged states of {', '.join(keys)} "
            f"have {count} range{'' if count == 1 else 's'}",
            part,
            f"a range from 0 to {count - 1}",
        )
    )


def _inputs_digest(paths: Sequence[str | os.PathLike[str]]) -> str:
    """A digest of the files of a merge, in order: each binary file by its header (which holds
    the checksum of every block), each JSON file by its bytes."""
    digest = hashlib.sha256()
    for p in paths:
        path = Path(p)
        if _is_binary_file(path):
            digest.update(b"binary " + head_digest(path).encode("ascii") + b"\n")
        else:
            digest.update(b"json " + _digest(path).encode("ascii") + b"\n")
    return digest.hexdigest()


def _is_binary_file(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            return handle.read(len(BINARY_MAGIC)) == BINARY_MAGIC
    except OSError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), "a state file")) from None


def _describe(found: dict[str, Any]) -> str:
    return f"range {found['index']} of {found['count']}"


def _range_file_here(file: StateFile, first: _First | None, part: int | None) -> ScorekitError:
    """The error for a range file where shard files are merged (or ranges taken)."""
    found = file.meta["range"]
    if part is not None:
        return ConfigError(
            message(
                file.path,
                "a range file cannot be merged range by range again",
                raw(f"a file of {_describe(found)} (written by merge --part)"),
                "the shard files the range files were merged from",
            )
        )
    where = first.path if first is not None else file.path
    return StateMismatchError(
        message(
            file.path,
            "a range file among state files of shards",
            raw(f"a file of {_describe(found)} (written by merge --part)"),
            f"state files of shards, as {where}, or only the range files of one merge",
        )
    )


def _assemble(
    paths: Sequence[str | os.PathLike[str]],
    read: list[tuple[StateFile, dict[str, str]]],
    allow_different_runs: bool,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The states of a merge assembled from its range files (``merge --part``), in any order.

    Each file is read whole (it holds one range of each state of score
    ranges) and checked against the first: the same metrics, header, shells
    (cut points and sample counts), other states, rows, tallies, number of
    ranges and inputs. Its range of each state goes to a temporary file
    (:class:`PartFile`) before the next file is read; the assembled states
    read their ranges from there, in the order of the ranges. ``read`` holds
    the first file, read already, and is emptied.
    """
    file, prints = read.pop()
    first = _first_of(file)
    spec = file.meta["range"]
    held: dict[str, State] = {}  # the shells of parted states, the other states whole
    kept: dict[str, PartFile] = {}
    where: dict[int, str] = {}  # the file of each range
    places: dict[int, int] = {}  # the place of each range in the temporary files
    equal = _equal_states(file, prints)
    for number, path in enumerate(paths):
        if number:
            file, prints = read_states(Path(path), lazy=True)
            found = file.meta.get("range")
            if found is None:
                raise StateMismatchError(
                    message(
                        file.path,
                        "a state file of a shard among range files",
                        raw("a file of no range"),
                        f"the range files of one merge only, as {first.path} ({_describe(spec)})",
                    )
                )
            _check_same_metrics(first, file)
            _check_same_header(first, file, allow_different_runs)
            here = _equal_states(file, prints)
            equal = {key: twin for key, twin in equal.items() if here.get(key) == twin}
            _check_one_merge(first, file, spec)
        index = int(file.meta["range"]["index"])
        if index in where:
            raise StateMismatchError(
                message(
                    file.path,
                    f"range {index} is given twice",
                    raw(f"range {index} in {file.path} and in {where[index]}"),
                    f"each range from 0 to {spec['count'] - 1} once",
                )
            )
        where[index] = file.path
        places[index] = number
        for key in first.metrics:
            state = file.states[key]
            if number:
                _check_same_config(key, first, file)
                _check_same_settings(key, first, file)
            if type(state).parted:
                shell, parts = state.split_parts()
                if not number:
                    held[key], kept[key] = shell, PartFile()
                elif not shell.equals(held[key]):
                    raise _not_one_merge(first, file, f"the shell of {key!r}", held[key], shell)
                kept[key].append(parts[index])
            elif not number:
                held[key] = state
            elif not state.equals(held[key]):
                raise _not_one_merge(first, file, f"the state of {key!r}", held[key], state)
        del file, state
    missing = [i for i in range(spec["count"]) if i not in where]
    if missing:
        shown = ", ".join(str(i) for i in missing[:10]) + (", ..." if len(missing) > 10 else "")
        raise StateMismatchError(
            message(
                "scorekit merge",
                f"range{'' if len(missing) == 1 else 's'} {shown} of {spec['count']} "
                f"{'is' if len(missing) == 1 else 'are'} missing",
                raw(f"{len(where)} range files, as {first.path}"),
                f"the {spec['count']} range files of one merge, ranges 0 to {spec['count'] - 1}",
            )
        )
    order = [places[i] for i in range(spec["count"])]
    states: dict[str, Any] = {}
    for key, metric in first.metrics.items():
        shell = held[key]
        if key not in kept:
            states[key] = shell
            continue
        twin = equal.get(key, key)
        if twin != key and twin in states and merges_alike(metric, first.metrics[twin]):
            states[key] = states[twin]  # the same states in every file: one assembled state
        else:
            states[key] = type(shell).from_parts(shell, Reordered(kept[key], order))
        del kept[key]
    header = {k: v for k, v in first.meta.items() if k not in ("path", "range")}
    header["range_files"] = spec["count"]
    return dict(first.metrics), states, header


def _check_one_merge(first: _First, file: StateFile, spec: dict[str, Any]) -> None:
    """Refuse a range file of another merge than the first: other ranges, inputs, rows, tallies."""
    found = file.meta["range"]
    if found["count"] != spec["count"]:
        raise _not_one_merge(
            first, file, "the number of ranges", spec["count"], found["count"], plain=True
        )
    if found["inputs"] != spec["inputs"]:
        raise StateMismatchError(
            message(
                "scorekit merge",
                "the range files are not of one merge: they were merged from other files "
                "(or the same files in another order)",
                raw(f"{file.path}"),
                f"range files merged from the files of {first.path}, in the same order",
            )
        )
    for name in ("rows", "tallies"):
        a, b = first.meta.get(name), file.meta.get(name)
        if a != b:
            raise _not_one_merge(first, file, repr(name), a, b, plain=True)


def _not_one_merge(
    first: _First, file: StateFile, what: str, a: Any, b: Any, plain: bool = False
) -> StateMismatchError:
    shown: Callable[[Any], str] = repr if plain else _shown
    return StateMismatchError(
        message(
            "scorekit merge",
            f"the range files are not of one merge: {what} differs",
            raw(f"{shown(b)} in {file.path}"),
            f"{shown(a)} as in {first.path}",
        )
    )


def _shown(state: Any) -> str:
    """A short account of a state: its settings and counts, never its arrays in full."""
    fields = []
    for f in dataclasses.fields(state):
        value = getattr(state, f.name)
        if isinstance(value, np.ndarray):
            text = repr(value.tolist()) if value.size <= 8 else f"{value.size} values"
        elif isinstance(value, tuple | list) or not isinstance(value, int | float | str):
            continue
        else:
            text = repr(value)
        fields.append(f"{f.name}={text}")
    return f"a state with {', '.join(fields)}" if fields else "another state"
