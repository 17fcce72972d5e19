"""State files: the states of several metrics in one portable, versioned JSON file.

A shard of the data evaluated on one machine is saved with :func:`save_states`
(``scorekit eval ... --save-state FILE``); the files of all shards are merged
with :func:`merge_files` (``scorekit merge FILE...``) into the result of the
whole data. The format is JSON (gzip-compressed when the file name ends in
``.gz``), never pickle, so a state file from an untrusted source cannot run
code: it is read as numbers, strings and lists only.

Layout (format version 1)::

    {"scorekit_states": 1,          the version of this file layout
     "state_format": 1,             State.to_dict's format (scorekit._core.STATE_FORMAT)
     "scorekit": "0.1.0",           the scorekit that wrote the file (informative)
     "command": "eval",             what produced the states
     "input": "binary",             the input kind (eval's task, ranking, text, ...)
     "columns": {...},              role -> the columns read (or files, for text)
     "options": {...},              settings beyond the metrics' own (eval's pos_label)
     "rows": 1234,                  rows (items, queries' rows) summarized
     "tallies": {...},              named counts beside the states, added up by merging
     "metrics": [
       {"key": "f1:macro", "metric": "f1", "config": {...}, "state": {...}},
       ...
     ]}

Each metric entry holds the metric string as given (``key``), the registered
name, the metric's full configuration (its dataclass fields, encoded as
:meth:`State.to_dict` encodes values) and ``state.to_dict()``; one entry is
written per line, so an error in a file names a line that points at a metric.

Compatibility: files merge when their ``scorekit_states`` and ``state_format``
versions are the ones this scorekit reads; the scorekit package version that
wrote them may differ (it is recorded, not compared), because the state format
version is what changes when a state's meaning or layout changes.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import uuid
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from scorekit._core import STATE_FORMAT, Metric, State, _decode, _encode, _equal, get
from scorekit._version import __version__
from scorekit.errors import (
    ConfigError,
    InputError,
    ScorekitError,
    StateMismatchError,
    message,
    raw,
)

__all__ = [
    "FILE_FORMAT",
    "StateFile",
    "load_states",
    "merge_files",
    "merge_with_header",
    "save_states",
]

FILE_FORMAT = 1
"""Version of the state-file layout written by :func:`save_states`."""

_MAGIC = "scorekit_states"
_HEADER = ("command", "input", "columns", "options")
"""Header fields that must agree between the files of one merge."""


class StateFile(NamedTuple):
    """The content of one state file; unpacks as ``metrics, states, meta``.

    Attributes
    ----------
    metrics : dict of str to Metric
        The configured metrics, by metric string, in file order.
    states : dict of str to State
        Their states.
    meta : dict
        The header (``scorekit_states``, ``state_format``, ``scorekit``,
        ``command``, ``input``, ``columns``, ``rows``) and ``path``, the file
        it was read from.
    """

    metrics: dict[str, Metric[Any]]
    states: dict[str, State]
    meta: dict[str, Any]

    @property
    def path(self) -> str:
        """The file the states were read from."""
        return str(self.meta["path"])


# writing ----------------------------------------------------------------------------------


def _config(key: str, metric: Metric[Any]) -> dict[str, Any]:
    """The metric's dataclass fields, encoded; checked to rebuild the same metric."""
    if not dataclasses.is_dataclass(metric):
        raise ConfigError(
            message(key, "cannot be saved", type(metric).__name__, "a dataclass metric")
        )
    try:
        info = get(metric.name)
    except ConfigError:
        info = None
    if info is None or info.cls is not type(metric):
        raise ConfigError(
            message(
                key,
                "cannot be saved: its class is not the registered one",
                type(metric).__qualname__,
                f"the class registered as {metric.name!r}",
            )
        )
    config: dict[str, Any] = {}
    for f in dataclasses.fields(metric):
        if not f.init:
            continue
        value = getattr(metric, f.name)
        if callable(value):
            raise ConfigError(
                message(
                    key,
                    f"cannot be saved: option {f.name!r} is a function",
                    raw(getattr(value, "__qualname__", repr(value))),
                    "built-in option values (strings, numbers)",
                )
            )
        encoded = _encode(value)
        try:
            json.dumps(encoded, allow_nan=True)
        except (TypeError, ValueError):
            raise ConfigError(
                message(
                    key,
                    f"cannot be saved: option {f.name!r} has no JSON form",
                    value,
                    "strings, numbers, booleans, None, tuples or arrays",
                )
            ) from None
        config[f.name] = encoded
    rebuilt = _rebuild(info.cls, json.loads(json.dumps(config, allow_nan=True)))
    for f in dataclasses.fields(metric):
        if f.init and not _equal(getattr(rebuilt, f.name), getattr(metric, f.name)):
            raise ConfigError(
                message(
                    key,
                    f"cannot be saved: option {f.name!r} does not survive a round trip",
                    getattr(metric, f.name),
                    "values that JSON keeps exactly",
                )
            )
    return config


def _rebuild(cls: type[Metric[Any]], config: Mapping[str, Any]) -> Metric[Any]:
    return cls(**{name: _decode(value) for name, value in config.items()})


def _entries(result: Any) -> tuple[dict[str, Metric[Any]], dict[str, State], int | None]:
    if isinstance(result, Mapping):
        metrics: dict[str, Metric[Any]] = {}
        states: dict[str, State] = {}
        for key, pair in result.items():
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise ConfigError(
                    message("save_states", "not a (metric, state) pair", pair, "(Metric, State)")
                )
            metrics[str(key)], states[str(key)] = pair
        return metrics, states, None
    if hasattr(result, "metrics") and hasattr(result, "states"):
        return dict(result.metrics), dict(result.states), getattr(result, "rows", None)
    raise ConfigError(
        message(
            "save_states",
            "nothing to save",
            type(result).__name__,
            "an EvaluationResult or a mapping key -> (metric, state)",
        )
    )


def save_states(
    path: str | os.PathLike[str],
    result: Any,
    *,
    command: str = "evaluate",
    input: str | None = None,
    columns: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    rows: int | None = None,
    tallies: Mapping[str, Mapping[str, int]] | None = None,
) -> Path:
    """Write the states of an evaluation to a state file.

    Parameters
    ----------
    path : str or Path
        The file to write (replaced atomically); gzip-compressed when the name
        ends in ``.gz``.
    result : EvaluationResult or mapping
        An :class:`~scorekit.EvaluationResult`, or a mapping ``key -> (metric,
        state)``.
    command : str
        What produced the states (``"eval"``, ``"rank"``, ``"text"``...); files
        of different commands do not merge.
    input : str, optional
        The input kind (for ``scorekit eval`` its task).
    columns : mapping, optional
        Role -> the column(s) read; recorded, and compared when merging.
    options : mapping, optional
        Settings that shaped the states beyond the metrics' own configuration
        (``scorekit eval --pos-label``); JSON values, compared when merging.
    rows : int, optional
        Rows summarized (by default ``result.rows`` where it has one).
    tallies : mapping, optional
        Named counts kept beside the states (``scorekit throughput``'s failures
        by reason): ``{name: {key: count}}``, added up when merging.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ConfigError
        A metric whose configuration cannot be written (an option that is a
        function, or a class that is not the registered one).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> f1 = parse_metric("f1:macro")
    >>> state = f1.summarize(["cat", "dog", "dog"], ["cat", "cat", "dog"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "shard1.json"
    >>> save_states(path, {"f1:macro": (f1, state)}, command="eval", rows=3).name
    'shard1.json'
    >>> loaded = load_states(path)
    >>> loaded.metrics["f1:macro"] == f1, loaded.states["f1:macro"].equals(state)
    (True, True)
    """
    metrics, states, found_rows = _entries(result)
    if set(metrics) != set(states):
        raise ConfigError(
            message(
                "save_states", "metrics and states differ", sorted(states), str(sorted(metrics))
            )
        )
    header: dict[str, Any] = {
        _MAGIC: FILE_FORMAT,
        "state_format": STATE_FORMAT,
        "scorekit": __version__,
        "command": command,
        "input": input,
        "columns": {str(k): _columns_value(v) for k, v in (columns or {}).items()},
        "options": dict(options or {}),
        "rows": int(rows if rows is not None else (found_rows or 0)),
        "tallies": {
            str(name): {str(k): int(v) for k, v in counts.items()}
            for name, counts in (tallies or {}).items()
        },
    }
    lines = []
    for key, metric in metrics.items():
        state = states[key]
        if not isinstance(state, State):
            raise ConfigError(message(key, "not a state", type(state).__name__, "a State"))
        entry = {
            "key": key,
            "metric": metric.name,
            "config": _config(key, metric),
            "state": state.to_dict(),
        }
        lines.append(json.dumps(entry, allow_nan=True, separators=(",", ":")))
    head = json.dumps(header, allow_nan=True)
    text = head[:-1] + ', "metrics": [\n' + ",\n".join(lines) + ("\n" if lines else "") + "]}\n"
    return _write(Path(path), text)


def _columns_value(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _write(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` atomically (a reader never sees half a file)."""
    data = text.encode("utf-8")
    if path.name.lower().endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("xb") as out:
            out.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(
            message(str(path), "cannot write the state file", raw(str(exc)), "a writable path")
        ) from None
    return path


# reading ----------------------------------------------------------------------------------


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            message(str(path), "no such file", None, "an existing state file")
        ) from None
    except IsADirectoryError:
        raise InputError(message(str(path), "is a directory", None, "a state file")) from None
    except OSError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), "a state file")) from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as exc:
            raise InputError(
                message(
                    str(path),
                    "truncated or corrupt gzip data",
                    raw(str(exc) or type(exc).__name__),
                    "a complete state file",
                )
            ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            message(
                f"{path}, line {line}, column {column}",
                "not a scorekit state file (not UTF-8 text)",
                raw(f"byte 0x{data[exc.start]:02x}"),
                "a JSON state file written by save_states or --save-state",
            )
        ) from None


def _parse(path: Path) -> dict[str, Any]:
    text = _read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        # a state file ends with its closing brace: one that stops short was cut off
        ended = text.rstrip().endswith("}")
        problem = "invalid JSON" if ended else "truncated state file"
        if not text.lstrip().startswith("{"):
            problem = "not a scorekit state file (not JSON)"
        raise InputError(
            message(
                f"{path}, line {exc.lineno}, column {exc.colno}",
                problem,
                raw(exc.msg),
                "a complete JSON state file written by save_states or --save-state",
            )
        ) from None
    if not isinstance(data, dict) or _MAGIC not in data:
        hint = ""
        if isinstance(data, dict) and "scorekit_state" in data:
            hint = " (it holds one bare state without its metric)"
        raise InputError(
            message(
                str(path),
                "not a scorekit state file" + hint,
                raw(f"a JSON {type(data).__name__} without {_MAGIC!r}"),
                "a file written by save_states or --save-state",
            )
        )
    return data


def _check_versions(path: Path, data: Mapping[str, Any]) -> None:
    version = data.get(_MAGIC)
    if version != FILE_FORMAT:
        raise StateMismatchError(
            message(
                str(path),
                "state file of another format version",
                raw(f"version {version!r} (written by scorekit {data.get('scorekit', '?')})"),
                f"version {FILE_FORMAT}, the one scorekit {__version__} reads",
            )
        )
    state_format = data.get("state_format")
    if state_format != STATE_FORMAT:
        raise StateMismatchError(
            message(
                str(path),
                "states of another state format",
                raw(
                    f"state format {state_format!r} "
                    f"(written by scorekit {data.get('scorekit', '?')})"
                ),
                f"state format {STATE_FORMAT}, the one scorekit {__version__} reads",
            )
        )


def _malformed(path: Path, problem: str, got: Any, expected: str) -> InputError:
    return InputError(message(str(path), f"malformed state file: {problem}", got, expected))


def load_states(path: str | os.PathLike[str]) -> StateFile:
    """Read a state file written by :func:`save_states`.

    Parameters
    ----------
    path : str or Path
        The state file (gzip-compressed or not; detected from the content).

    Returns
    -------
    StateFile
        ``metrics``, ``states`` and ``meta`` (the header), with the path.
        It unpacks as ``metrics, states, meta = load_states(path)``.

    Raises
    ------
    InputError
        A missing, truncated or corrupt file (naming the line and column of
        a JSON error), or one that is not a state file.
    StateMismatchError
        A file of another state-file or state format version, or a metric or
        option this scorekit does not know.
    """
    where = Path(path)
    data = _parse(where)
    _check_versions(where, data)
    entries = data.get("metrics")
    if not isinstance(entries, list):
        raise _malformed(where, "no list of metrics", type(entries).__name__, "'metrics': [...]")
    meta = {k: v for k, v in data.items() if k != "metrics"}
    meta["path"] = str(where)
    if not isinstance(meta.get("rows", 0), int):
        raise _malformed(where, "rows is not an integer", meta.get("rows"), "an integer")
    metrics: dict[str, Metric[Any]] = {}
    states: dict[str, State] = {}
    for number, entry in enumerate(entries, start=1):
        key, metric, state = _load_entry(where, number, entry, data)
        if key in metrics:
            raise _malformed(where, "a metric appears twice", key, "each metric once")
        metrics[key], states[key] = metric, state
    return StateFile(metrics, states, meta)


def _load_entry(
    path: Path, number: int, entry: Any, data: Mapping[str, Any]
) -> tuple[str, Metric[Any], State]:
    if not isinstance(entry, dict) or not {"key", "metric", "config", "state"} <= set(entry):
        raise _malformed(
            path,
            f"metric entry {number} is incomplete",
            raw(type(entry).__name__ if not isinstance(entry, dict) else f"keys {sorted(entry)}"),
            "'key', 'metric', 'config' and 'state'",
        )
    key, name, config = entry["key"], entry["metric"], entry["config"]
    if not isinstance(key, str) or not isinstance(name, str) or not isinstance(config, dict):
        raise _malformed(
            path, f"metric entry {number} has a wrong type", entry.get("key"), "strings and a dict"
        )
    written = f"scorekit {data.get('scorekit', '?')}"
    try:
        info = get(name)
    except ConfigError:
        raise StateMismatchError(
            message(
                f"{path}, metric {key!r}",
                f"metric {name!r} is not known to scorekit {__version__}",
                raw(f"a file written by {written}"),
                "a metric registered in this version",
            )
        ) from None
    known = {f.name for f in dataclasses.fields(info.cls) if f.init}  # type: ignore[arg-type]
    unknown = sorted(set(config) - known)
    if unknown:
        raise StateMismatchError(
            message(
                f"{path}, metric {key!r}",
                f"option {unknown[0]!r} is not an option of {name} in scorekit {__version__}",
                raw(f"a file written by {written}"),
                "the options of " + (", ".join(sorted(known)) or "none"),
            )
        )
    try:
        metric = _rebuild(info.cls, config)
        state = State.from_dict(entry["state"])
    except StateMismatchError as exc:
        raise StateMismatchError(f"{path}, metric {key!r}: {exc}") from None
    except ScorekitError as exc:
        raise InputError(f"{path}, metric {key!r}: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise _malformed(
            path,
            f"metric {key!r} does not decode",
            raw(f"{type(exc).__name__}: {exc}"),
            "the configuration and state save_states writes",
        ) from None
    expected = type(metric.empty())
    if type(state) is not expected:
        raise _malformed(
            path,
            f"metric {key!r} holds a state of another kind",
            raw(state.kind),
            f"a {expected.kind} state",
        )
    return key, metric, state


# merging ----------------------------------------------------------------------------------


def _check_same_metrics(first: StateFile, file: StateFile) -> None:
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


def _check_same_header(first: StateFile, file: StateFile) -> None:
    for name in _HEADER:
        a, b = first.meta.get(name), file.meta.get(name)
        if a != b:
            raise StateMismatchError(
                message(
                    "scorekit merge",
                    f"the files differ in {name!r}",
                    raw(f"{b!r} in {file.path}"),
                    f"{a!r} as in {first.path}",
                )
            )


def _check_same_config(key: str, first: StateFile, file: StateFile) -> None:
    a, b = first.metrics[key], file.metrics[key]
    for f in dataclasses.fields(a):  # type: ignore[arg-type]
        if not f.init:
            continue
        va, vb = getattr(a, f.name), getattr(b, f.name)
        if not _equal(va, vb):
            raise StateMismatchError(
                message(
                    key,
                    f"the files configure {f.name!r} differently",
                    raw(f"{vb!r} in {file.path}"),
                    f"{va!r} as in {first.path}",
                )
            )


def _check_same_settings(key: str, first: StateFile, file: StateFile) -> None:
    """Compare the state fields that must agree (merge rule ``same``), naming both files."""
    a, b = first.states[key], file.states[key]
    for f in dataclasses.fields(a):
        if f.metadata.get("merge", "same") != "same":
            continue
        va, vb = getattr(a, f.name), getattr(b, f.name)
        if not _equal(va, vb):
            raise StateMismatchError(
                message(
                    key,
                    f"the states differ in their setting {f.name!r}",
                    raw(f"{vb!r} in {file.path}"),
                    f"{va!r} as in {first.path}",
                )
            )


def merge_files(paths: Sequence[str | os.PathLike[str]]) -> Any:
    """Merge the state files of several shards into the result of all the data.

    Every file must hold the same metrics with the same configurations,
    produced by the same command on the same input kind and columns, in a
    state-file and state format this scorekit reads; files written by other
    scorekit versions of the same formats merge.

    Parameters
    ----------
    paths : sequence of str or Path
        The state files, one per shard (at least one).

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
        (naming the field, both values and both files), or versions.
    InputError
        A missing, truncated or corrupt file, or one that is not a state file.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> acc = parse_metric("accuracy")
    >>> tmp = pathlib.Path(tempfile.mkdtemp())
    >>> _ = save_states(tmp / "a.json", {"accuracy": (acc, acc.summarize([1, 0], [1, 1]))})
    >>> _ = save_states(tmp / "b.json", {"accuracy": (acc, acc.summarize([1, 1], [1, 1]))})
    >>> merge_files([tmp / "a.json", tmp / "b.json"]).values
    {'accuracy': 0.75}
    """
    return merge_with_header(paths)[0]


def _add_tallies(files: Sequence[StateFile]) -> dict[str, dict[str, int]]:
    total: dict[str, dict[str, int]] = {}
    for file in files:
        tallies = file.meta.get("tallies") or {}
        if not isinstance(tallies, dict) or not all(
            isinstance(counts, dict) and all(isinstance(v, int) for v in counts.values())
            for counts in tallies.values()
        ):
            raise _malformed(Path(file.path), "tallies are not counts", tallies, "{name: {key: n}}")
        for name, counts in tallies.items():
            into = total.setdefault(name, {})
            for key, count in counts.items():
                into[key] = into.get(key, 0) + count
    return total


def merge_with_header(paths: Sequence[str | os.PathLike[str]]) -> tuple[Any, dict[str, Any]]:
    """:func:`merge_files`, and the header of the merged files (``rows`` their sum)."""
    from scorekit.engines.stream import EvaluationResult

    if not paths:
        raise ConfigError(message("scorekit merge", "no state file given", None, "one or more"))
    seen: dict[Path, str] = {}
    for p in paths:
        where = Path(p).resolve()
        if where in seen:
            raise StateMismatchError(
                message(
                    "scorekit merge",
                    "the same state file is given twice",
                    raw(f"{p} and {seen[where]}"),
                    "each shard's file once (its data would count twice)",
                )
            )
        seen[where] = str(p)
    files = [load_states(p) for p in paths]
    first = files[0]
    states = dict(first.states)
    for file in files[1:]:
        _check_same_metrics(first, file)
        _check_same_header(first, file)
        for key in first.metrics:
            _check_same_config(key, first, file)
            _check_same_settings(key, first, file)
            try:
                states[key] = first.metrics[key].merge(states[key], file.states[key])
            except ScorekitError as exc:
                raise StateMismatchError(
                    f"{key}: the state in {file.path} does not merge with the states before it "
                    f"(from {first.path}): {exc}"
                ) from None
    metrics = dict(first.metrics)
    values = {key: metric.compute(states[key]) for key, metric in metrics.items()}
    rows = sum(int(f.meta.get("rows", 0)) for f in files)
    header = {k: v for k, v in first.meta.items() if k != "path"}
    header["rows"] = rows
    header["tallies"] = _add_tallies(files)
    result = EvaluationResult(values=values, states=states, metrics=metrics, rows=rows)
    return result, header
