"""Reading state files: :func:`load_states`, with errors that name the file, line and column."""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scorekit._version import __version__
from scorekit.core import (
    STATE_FORMAT,
    Grouped,
    GroupStates,
    Metric,
    State,
    equal_values,
    get,
)
from scorekit.errors import ConfigError, InputError, ScorekitError, StateMismatchError, message, raw
from scorekit.io import local_path, read_limited, require_regular
from scorekit.statefiles._binary import Blocks, part_fields, read_binary
from scorekit.statefiles._format import (
    BINARY_MAGIC,
    FILE_FORMAT,
    MAGIC,
    RANGE_FILE_FORMAT,
    StateFile,
    rebuild,
)
from scorekit.statefiles._parts import FileParts
from scorekit.stats import Bootstrap, Replicates

__all__ = ["RANGE_FIELDS", "check_range", "load_states", "malformed", "read_states"]


def _read_text(path: Path) -> str:
    data = read_limited(path, "a state file")
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


def _parse(
    path: Path, lazy: bool = False
) -> tuple[dict[str, Any], Blocks | None, list[str] | None]:
    """The document of a state file: JSON text, or the header and blocks of a binary file.

    With ``lazy``, the parts of the parted states of a binary file are left
    unread for the returned :class:`Blocks`; the fingerprints of the entries'
    states come with a binary file (see :func:`read_binary`).
    """
    if _is_binary(path):
        ranged = [False]

        def parse(where: Path, text: str) -> dict[str, Any]:
            data = _parse_text(where, text)
            ranged[0] = "range" in data
            return data

        # a range file holds one range of each state: read whole, its other ranges checked empty
        def parted(entry: dict[str, Any]) -> bool:
            return not ranged[0] and _parted(entry)

        return read_binary(path, parse, parted if lazy else None)
    return _parse_text(path, _read_text(path)), None, None


def _parted(entry: dict[str, Any]) -> bool:
    """Whether a plain metric entry holds a state of independent parts, in one field of parts."""
    if entry.get("bootstrap") is not None or entry.get("by") is not None:
        return False
    name, config, state = entry.get("metric"), entry.get("config"), entry.get("state")
    if not isinstance(name, str) or not isinstance(config, dict) or len(part_fields(state)) != 1:
        return False
    try:
        metric = rebuild(get(name).cls, config)
        return bool(type(metric.empty()).parted)
    except (ScorekitError, TypeError, ValueError, KeyError, AttributeError):
        # the entry is read in full, and its errors are reported as it is
        return False


def _is_binary(path: Path) -> bool:
    require_regular(path, "a state file")
    try:
        with path.open("rb") as handle:
            return handle.read(len(BINARY_MAGIC)) == BINARY_MAGIC
    except OSError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), "a state file")) from None


def _parse_text(path: Path, text: str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except RecursionError:
        raise InputError(
            message(
                str(path),
                "not a scorekit state file (JSON nested too deeply)",
                None,
                "a JSON state file written by save_states or --save-state",
            )
        ) from None
    except ValueError as exc:
        if not isinstance(exc, json.JSONDecodeError):
            raise InputError(
                message(
                    str(path),
                    "not a scorekit state file (a number too long to read)",
                    raw(str(exc).split(";")[0]),
                    "a JSON state file written by save_states or --save-state",
                )
            ) from None
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
    if not isinstance(data, dict) or MAGIC not in data:
        hint = ""
        if isinstance(data, dict) and "scorekit_state" in data:
            hint = " (it holds one bare state without its metric)"
        raise InputError(
            message(
                str(path),
                "not a scorekit state file" + hint,
                raw(f"a JSON {type(data).__name__} without {MAGIC!r}"),
                "a file written by save_states or --save-state",
            )
        )
    return data


def _check_versions(path: Path, data: Mapping[str, Any]) -> None:
    version = data.get(MAGIC)
    ranged = "range" in data
    if version != FILE_FORMAT and not (version == RANGE_FILE_FORMAT and ranged):
        raise StateMismatchError(
            message(
                str(path),
                "state file of another format version",
                raw(f"version {version!r} (written by scorekit {data.get('scorekit', '?')})"),
                f"version {FILE_FORMAT}, the one scorekit {__version__} reads "
                f"(version {RANGE_FILE_FORMAT} for range files)",
            )
        )
    if ranged and version != RANGE_FILE_FORMAT:
        raise malformed(
            path,
            f"a range field in a file of version {version!r}",
            data["range"],
            f"range files of version {RANGE_FILE_FORMAT}",
        )
    if ranged:
        check_range(path, data["range"])
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


def malformed(path: Path, problem: str, got: Any, expected: str) -> InputError:
    return InputError(message(str(path), f"malformed state file: {problem}", got, expected))


RANGE_FIELDS = ("index", "count", "inputs")
"""The fields of a range file's ``range``: its range, the number of ranges, the merge's inputs."""


def check_range(path: Path, found: Any) -> dict[str, Any]:
    """The ``range`` field of a range file, checked: ``{"index": I, "count": N, "inputs": ID}``.

    ``I`` is the range the file holds, of ``N`` ranges (``0 <= I < N``), and
    ``ID`` the digest of the files merged into it (every range file of one
    merge has the same).

    Examples
    --------
    >>> check_range(Path("r3.st"), {"index": 3, "count": 64, "inputs": "ab12"})["count"]
    64
    >>> check_range(Path("r3.st"), {"index": 64, "count": 64, "inputs": "ab12"})
    Traceback (most recent call last):
    ...
    scorekit.errors.InputError: r3.st: malformed state file: a range index past the ranges; \
got 64, expected an index from 0 to 63.
    """
    shape = "{" + ", ".join(f"{name!r}: ..." for name in RANGE_FIELDS) + "}"
    if not isinstance(found, dict) or set(found) != set(RANGE_FIELDS):
        raise malformed(path, "a wrong range field", found, shape)
    index, count, inputs = (found[name] for name in RANGE_FIELDS)
    whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (index, count))
    if not whole or not isinstance(inputs, str) or count < 1 or index < 0:
        raise malformed(
            path, "a wrong range field", found, f"{shape} of integers >= 0 and a digest"
        )
    if index >= count:
        raise malformed(
            path, "a range index past the ranges", index, f"an index from 0 to {count - 1}"
        )
    return dict(found)


def load_states(path: str | os.PathLike[str]) -> StateFile:
    """Read a state file written by :func:`save_states`.

    Parameters
    ----------
    path : str or Path
        The state file: JSON (gzip-compressed or not) or binary, detected from
        the content. A JSON file is read whole, within ``--max-file-size``
        (``SCOREKIT_MAX_FILE_SIZE``, 1 GiB by default); a binary file's arrays
        are read block by block into the types the states hold, within
        :func:`~scorekit.statefiles.binary_memory_limit` bytes of memory.

    Returns
    -------
    StateFile
        ``metrics``, ``states`` and ``meta`` (the header), with the path.
        It unpacks as ``metrics, states, meta = load_states(path)``.

    Raises
    ------
    InputError
        A missing, truncated or corrupt file (naming the line and column of
        a JSON error, or the block of a binary file), or one that is not a
        state file; every error names the path.
    StateMismatchError
        A file of another state-file or state format version, or a metric or
        option this scorekit does not know.
    """
    return read_states(Path(local_path(path)))[0]


def read_states(where: Path, lazy: bool = False) -> tuple[StateFile, dict[str, str]]:
    """:func:`load_states`, and the fingerprint of each state that has one.

    Two states of one file with the same fingerprint are equal (binary files
    only: see :meth:`Blocks.fingerprint`). With ``lazy``, a state of
    independent parts (``roc_auc:ranges=N``) of a binary file reads each part
    from the file when the part is asked for, checked then.
    """
    data, blocks, prints = _parse(where, lazy)
    _check_versions(where, data)
    entries = data.get("metrics")
    if not isinstance(entries, list):
        raise malformed(where, "no list of metrics", type(entries).__name__, "'metrics': [...]")
    meta = {k: v for k, v in data.items() if k != "metrics"}
    meta["path"] = str(where)
    rows = meta.get("rows", 0)
    if not isinstance(rows, int) or isinstance(rows, bool):
        raise malformed(where, "rows is not an integer", rows, "an integer")
    if rows < 0:
        raise malformed(where, "rows is negative", rows, "the number of rows summarized, >= 0")
    metrics: dict[str, Metric[Any]] = {}
    states: dict[str, State] = {}
    same: dict[str, str] = {}
    for number, entry in enumerate(entries, start=1):
        key, metric, state = _load_entry(where, number, entry, data, blocks)
        if key in metrics:
            raise malformed(where, "a metric appears twice", key, "each metric once")
        metrics[key], states[key] = metric, state
        if prints is not None:
            same[key] = prints[number - 1]
    return StateFile(metrics, states, meta), same


_BOOTSTRAP_FIELDS = {"n_resamples", "seed", "key", "groups"}
"""The settings a state file keeps of a bootstrap, beside the metric it wraps."""


def _load_entry(
    path: Path, number: int, entry: Any, data: Mapping[str, Any], blocks: Blocks | None = None
) -> tuple[str, Metric[Any], State]:
    if not isinstance(entry, dict) or not {"key", "metric", "config", "state"} <= set(entry):
        raise malformed(
            path,
            f"metric entry {number} is incomplete",
            raw(type(entry).__name__ if not isinstance(entry, dict) else f"keys {sorted(entry)}"),
            "'key', 'metric', 'config' and 'state'",
        )
    key, name, config = entry["key"], entry["metric"], entry["config"]
    if not isinstance(key, str) or not isinstance(name, str) or not isinstance(config, dict):
        raise malformed(
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
    boot = entry.get("bootstrap")
    if boot is not None and (not isinstance(boot, dict) or set(boot) != _BOOTSTRAP_FIELDS):
        raise malformed(
            path,
            f"metric entry {number} has a wrong bootstrap",
            boot,
            "{" + ", ".join(sorted(_BOOTSTRAP_FIELDS)) + "}",
        )
    by = entry.get("by")
    if by is not None and (
        not isinstance(by, list) or not by or not all(isinstance(c, str) and c for c in by)
    ):
        raise malformed(path, f"metric entry {number} has a wrong by", by, "a list of column names")
    try:
        metric = rebuild(info.cls, config)
        if boot is not None:
            metric = Bootstrap.of(metric, **boot)
        if by is not None:
            metric = Grouped(metric, by=tuple(by))
        unread = blocks is not None and _parted(entry) and _has_blocks(entry["state"])
        if unread and blocks is not None:
            state = _with_file_parts(f"{path}, metric {key!r}", metric, entry["state"], blocks)
        else:
            state = State.from_dict(entry["state"])
    except StateMismatchError as exc:
        raise StateMismatchError(f"{path}, metric {key!r}: {exc}") from None
    except ScorekitError as exc:
        raise InputError(f"{path}, metric {key!r}: {exc}") from None
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise malformed(
            path,
            f"metric {key!r} does not decode",
            raw(f"{type(exc).__name__}: {exc}"),
            "the configuration and state save_states writes",
        ) from None
    expected = (
        Replicates
        if isinstance(metric, Bootstrap)
        else GroupStates
        if isinstance(metric, Grouped)
        else type(metric.empty())
    )
    if type(state) is not expected:
        raise malformed(
            path,
            f"metric {key!r} holds a state of another kind",
            raw(state.kind),
            f"a {expected.kind} state",
        )
    _check_settings(path, key, metric, state)
    if "range" in data and type(state).parted:
        _check_one_range(path, key, metric, state, data["range"])
    return key, metric, state


def _check_one_range(
    path: Path, key: str, metric: Metric[Any], state: State, found: Mapping[str, Any]
) -> None:
    """Refuse a state of a range file that does not hold its one range (the others empty)."""
    parts = state.split_parts()[1]
    index, count = found["index"], found["count"]
    if len(parts) != count:
        raise malformed(
            path,
            f"metric {key!r} has another number of ranges than the file's range field",
            len(parts),
            f"{count} ranges",
        )
    blank = metric.empty().split_parts()[1][0]
    for i in range(count):
        if i != index and not parts[i].equals(blank):
            raise malformed(
                path,
                f"metric {key!r} holds data in range {i} of a file of range {index}",
                raw(f"range {i}"),
                f"data in range {index} only",
            )


def _has_blocks(value: Any) -> bool:
    """Whether a document still holds a ``__block__`` reference (parts left unread)."""
    if isinstance(value, dict):
        return "__block__" in value or any(_has_blocks(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_blocks(v) for v in value)
    return False


def _with_file_parts(where: str, metric: Metric[Any], doc: dict[str, Any], blocks: Blocks) -> State:
    """The state of ``doc`` with its parts read from the file one at a time, when asked for."""
    (name,) = part_fields(doc)
    stored = doc["fields"][name]["__tuple__"]
    blank = {"__state__": metric.empty().split_parts()[1][0].to_dict()}
    shell = State.from_dict(
        {**doc, "fields": {**doc["fields"], name: {"__tuple__": [blank] * len(stored)}}}
    )
    return type(shell).from_parts(shell, FileParts(where, blocks, stored, shell))


def _check_settings(path: Path, key: str, metric: Metric[Any], state: State) -> None:
    """Refuse a bootstrap or per-group state whose settings are not those of the entry.

    The bootstrap of an entry is rebuilt from its ``bootstrap`` settings and
    computes with them: a state of other resamples, seed, key or jackknife
    groups (or, per group, other group columns) would be labelled with
    settings it was not made with. Each field of the wrapper's state that
    merging requires to agree (merge rule ``same``) must equal that of the
    metric's empty state; a per-group state's overall state (its groups
    agree with it) is checked against the wrapped metric. The settings of
    plain states are compared when files merge.
    """
    if not isinstance(state, Replicates | GroupStates):
        return
    empty = metric.empty()
    for f in dataclasses.fields(state):
        if f.metadata.get("merge", "same") != "same":
            continue
        value, expected = getattr(state, f.name), getattr(empty, f.name)
        if not equal_values(value, expected):
            raise InputError(
                message(
                    f"{path}, metric {key!r}",
                    f"the state's {f.name!r} is not the one the metric entry configures",
                    value,
                    f"{expected!r}, as the entry's bootstrap and by say",
                )
            )
    if isinstance(metric, Grouped) and isinstance(state, GroupStates):
        _check_settings(path, key, metric.inner, state.overall)
