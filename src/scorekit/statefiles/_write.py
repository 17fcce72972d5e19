"""Writing state files: :func:`save_states`."""

from __future__ import annotations

import dataclasses
import gzip
import json
import os
import stat
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from scorekit._version import __version__
from scorekit.core import STATE_FORMAT, Grouped, Metric, State, encode_value, equal_values, get
from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.statefiles._binary import BlockWriter, array_bytes, encode_state
from scorekit.statefiles._format import (
    AUTO_BINARY_BYTES,
    FILE_FORMAT,
    MAGIC,
    RANGE_FILE_FORMAT,
    chosen_format,
    rebuild,
)
from scorekit.statefiles._read import check_range
from scorekit.stats import Bootstrap

__all__ = ["save_states"]


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
        encoded = encode_value(value)
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
    rebuilt = rebuild(info.cls, json.loads(json.dumps(config, allow_nan=True)))
    for f in dataclasses.fields(metric):
        if f.init and not equal_values(getattr(rebuilt, f.name), getattr(metric, f.name)):
            raise ConfigError(
                message(
                    key,
                    f"cannot be saved: option {f.name!r} does not survive a round trip",
                    getattr(metric, f.name),
                    "values that JSON keeps exactly",
                )
            )
    return config


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
    state_format: str | None = None,
    part: Mapping[str, Any] | None = None,
) -> Path:
    """Write the states of an evaluation to a state file.

    Parameters
    ----------
    path : str or Path
        The file to write (replaced atomically); gzip-compressed when the name
        ends in ``.gz``.
    result : EvaluationResult or mapping
        An :class:`~scorekit.EvaluationResult`, or a mapping ``key -> (metric,
        state)``. A :class:`~scorekit.stats.Bootstrap` is written as the metric
        it wraps plus its settings (``"bootstrap"``: resamples, seed, key column,
        jackknife groups), and rebuilt from them.
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

    state_format : {"auto", "json", "binary"}, optional
        ``json``: one readable JSON document. ``binary``: the states' numeric
        arrays in npy blocks, each in its smallest exact type (float64 scores
        that are float32 values as float32, counts in the smallest integer
        type holding them), the rest in the same JSON header; read back into
        the types the states hold. ``auto``: binary when the arrays take 1 MiB
        or more (:data:`~scorekit.statefiles.AUTO_BINARY_BYTES`) and the name
        does not end in ``.gz``, JSON otherwise. By default
        ``SCOREKIT_STATE_FORMAT`` (``--state-format``), else ``auto``.
    part : mapping, optional
        Write a range file: the states split by score ranges hold one range
        each, the one ``part`` names, ``{"index": I, "count": N, "inputs":
        ID}`` (the header's ``range`` of :func:`~scorekit.statefiles.merge_states`
        with ``part=I``). The file is of layout version
        :data:`~scorekit.statefiles.RANGE_FILE_FORMAT`; ``scorekit merge`` of
        the ``N`` range files of one merge assembles the merged states.

    Returns
    -------
    Path
        The path written.

    Raises
    ------
    ConfigError
        A metric whose configuration cannot be written (an option that is a
        function, or a class that is not the registered one); an unknown
        ``state_format``, or ``binary`` for a name ending in ``.gz``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from scorekit import parse_metric
    >>> from scorekit.statefiles import load_states
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
        MAGIC: FILE_FORMAT,
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
    if part is not None:
        header[MAGIC] = RANGE_FILE_FORMAT
        header["range"] = _range_field(path, part, states)
    fmt = _format_for(Path(path), state_format, states)
    entries: list[dict[str, Any]] = []
    for key, metric in metrics.items():
        state = states[key]
        if not isinstance(state, State):
            raise ConfigError(message(key, "not a state", type(state).__name__, "a State"))
        entry: dict[str, Any] = {"key": key, "metric": metric.name, "config": None}
        inner = metric.inner if isinstance(metric, Grouped) else metric
        if isinstance(inner, Bootstrap):
            entry["config"] = _config(key, inner.inner)
            entry["bootstrap"] = {
                "n_resamples": inner.n_resamples,
                "seed": inner.seed,
                "key": inner.key,
                "groups": inner.groups,
            }
        else:
            entry["config"] = _config(key, inner)
        if isinstance(metric, Grouped):
            entry["by"] = list(metric.by)
        entries.append(entry)
    head = json.dumps(header, allow_nan=True)[:-1] + ', "metrics": [\n'

    def entry_lines(encode: Any) -> str:
        lines = []
        for entry in entries:
            entry["state"] = encode(states[entry["key"]])
            lines.append(json.dumps(entry, allow_nan=True, separators=(",", ":")))
            entry["state"] = None
        return ",\n".join(lines) + ("\n" if lines else "") + "]"

    if fmt == "json":
        # each kind's own to_dict: one that reads its parts on access writes them in full
        text = head + entry_lines(lambda state: state.to_dict()) + "}\n"
        data = text.encode("utf-8")
        if Path(path).name.lower().endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        return _write(Path(path), lambda out: out.write(data))

    def fill(out: IO[bytes]) -> None:
        blocks = BlockWriter(out)
        text = head + entry_lines(lambda state: encode_state(state, blocks.put))
        text += ',\n"blocks": ' + json.dumps(blocks.blocks, separators=(",", ":")) + "}\n"
        blocks.finish(text.encode("utf-8"))

    return _write(Path(path), fill)


def _range_field(
    path: str | os.PathLike[str], part: Mapping[str, Any], states: Mapping[str, State]
) -> dict[str, Any]:
    """The ``range`` field of a range file, checked against the states it is written with."""
    try:
        found = check_range(Path(path), dict(part))
    except InputError as exc:
        raise ConfigError(str(exc).replace("malformed state file: ", "")) from None
    for key, state in states.items():
        if isinstance(state, State) and type(state).parted:
            count = len(state.split_parts()[1])
            if count != found["count"]:
                raise ConfigError(
                    message(
                        key,
                        "a range file's states must have as many ranges as its range field",
                        raw(f"{count} ranges"),
                        f"{found['count']} ranges",
                    )
                )
    return found


def _format_for(path: Path, state_format: str | None, states: Mapping[str, State]) -> str:
    """``json`` or ``binary``: the format asked for, or for ``auto`` the one the arrays call for."""
    fmt = chosen_format(state_format)
    compressed = path.name.lower().endswith(".gz")
    if fmt == "binary" and compressed:
        raise ConfigError(
            message(
                str(path),
                "a binary state file is not gzip-compressed",
                raw("a name ending in .gz"),
                "a name without .gz, or the json format",
            )
        )
    if fmt != "auto":
        return fmt
    if compressed:
        return "json"
    size = sum(array_bytes(s) for s in states.values() if isinstance(s, State))
    return "binary" if size >= AUTO_BINARY_BYTES else "json"


def _columns_value(value: Any) -> Any:
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _write(path: Path, fill: Callable[[IO[bytes]], Any]) -> Path:
    """Write to ``path`` with ``fill(handle)``: atomically onto a regular file or a new path.

    A reader never sees half a regular file. A symbolic link is followed (the
    file it names is replaced, the link stays); anything else that exists (a
    device such as ``/dev/null``, a pipe) is written in place, never replaced
    by a regular file; a directory is refused.
    """
    try:
        status = path.stat()  # what the path names, through any link (/dev/stdout: a pipe)
    except OSError:
        status = None
    if status is not None and stat.S_ISDIR(status.st_mode):
        raise InputError(message(str(path), "is a directory", None, "a state file path"))
    if status is not None and not stat.S_ISREG(status.st_mode):
        try:
            with path.open("wb") as out:
                fill(out)
        except OSError as exc:
            raise InputError(
                message(str(path), "cannot write the state file", raw(str(exc)), "a writable path")
            ) from None
        return path
    target = path.resolve() if path.is_symlink() else path
    tmp = target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("xb") as out:
            fill(out)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(
            message(str(path), "cannot write the state file", raw(str(exc)), "a writable path")
        ) from None
    except BaseException:
        # a binary file is written as its states are encoded: leave no partial file behind
        tmp.unlink(missing_ok=True)
        raise
    return path
