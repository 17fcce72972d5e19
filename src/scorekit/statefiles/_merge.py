"""Merging state files: :func:`merge_states`, checking that the files belong together."""

from __future__ import annotations

import dataclasses
import hashlib
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from scorekit.core import equal_values
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    StateMismatchError,
    message,
    raw,
)
from scorekit.io import local_path, require_regular
from scorekit.statefiles._format import HEADER, StateFile
from scorekit.statefiles._read import load_states, malformed

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


def _check_same_values(
    key: str, first: _First, file: StateFile, a: Any, b: Any, names: Iterable[str], problem: str
) -> None:
    """Raise when ``a`` (of ``first``) and ``b`` (of ``file``) differ in an attribute ``names``.

    ``a`` is an object or a mapping of the attributes; ``problem`` is the
    message's problem with ``{!r}`` where the attribute is named.
    """
    for name in names:
        va = a[name] if isinstance(a, dict) else getattr(a, name)
        vb = getattr(b, name)
        if not equal_values(va, vb):
            raise StateMismatchError(
                message(
                    key,
                    problem.format(name),
                    raw(f"{vb!r} in {file.path}"),
                    f"{va!r} as in {first.path}",
                )
            )


def _check_same_config(key: str, first: _First, file: StateFile) -> None:
    a, b = first.metrics[key], file.metrics[key]
    names = [f.name for f in dataclasses.fields(a) if f.init]
    _check_same_values(key, first, file, a, b, names, "the files configure {!r} differently")


def _check_same_settings(key: str, first: _First, file: StateFile) -> None:
    """Compare the state fields that must agree (merge rule ``same``), naming both files."""
    a, b = first.settings[key], file.states[key]
    _check_same_values(key, first, file, a, b, list(a), "the states differ in their setting {!r}")


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

    The files are read one at a time, in order: each is checked against the
    first, merged into the running states and dropped before the next is
    read, so memory holds the merged states and one file's states, whatever
    the number of files. The states are those of merging the files' states
    pairwise in order. The size limit applies to each file (see
    :func:`~scorekit.statefiles.load_states`).

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
    """
    if not paths:
        raise ConfigError(message("scorekit merge", "no state file given", None, "one or more"))
    paths = [local_path(p) for p in paths]
    _refuse_duplicates(paths, allow_duplicates)
    file = load_states(paths[0])
    first = _first_of(file)
    states = dict(file.states)
    rows = 0
    tallies: dict[str, dict[str, int]] = {}
    for number, path in enumerate(paths):
        if number:
            # one file at a time: read it, merge it into the running states, drop it
            file = load_states(path)
            _check_same_metrics(first, file)
            _check_same_header(first, file, allow_different_runs)
            for key in first.metrics:
                _check_same_config(key, first, file)
                _check_same_settings(key, first, file)
                try:
                    states[key] = first.metrics[key].merge(states[key], file.states[key])
                except ScorekitError as exc:
                    raise StateMismatchError(
                        f"{key}: the state in {file.path} does not merge with the states "
                        f"before it (from {first.path}): {exc}"
                    ) from None
        rows += int(file.meta.get("rows", 0))
        _add_tallies(tallies, file)
        del file
    header = {k: v for k, v in first.meta.items() if k != "path"}
    header["rows"] = rows
    header["tallies"] = tallies
    return dict(first.metrics), states, header
