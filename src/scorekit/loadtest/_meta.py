"""What describes a run: its metadata record, the settings runs must share to merge,
the pre-flight failure, and the failure limit of ``--max-failures``."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from scorekit._version import __version__
from scorekit.errors import ConfigError, ScorekitError, message
from scorekit.loadtest._wire import printable, redact_body, redact_url

__all__ = [
    "PreflightError",
    "describe_run",
    "failures_over",
    "parse_max_failures",
    "run_metadata",
    "run_settings",
]

SETTINGS: tuple[str, ...] = ("url", "model", "endpoint", "flags", "dataset", "tokenizer")
"""The parts of the metadata that runs merged together must share (the dataset by hash)."""

_UNMEASURED_FLAGS = ("warmup",)
"""Flags that shape no measured request (warm-up requests are in no figure)."""


class PreflightError(ScorekitError):
    """The first warm-up request of a run failed: the load was not sent."""


def _plain(value: Any) -> Any:
    """A flag's value as one JSON scalar: lists and objects as JSON text, inf as ``"inf"``."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, Mapping):
        value = dict(value)
    elif isinstance(value, Iterable):
        value = [_plain(v) for v in value]
    return json.dumps(value, sort_keys=True, default=str)


def run_metadata(
    *,
    url: str,
    model: str,
    endpoint: str,
    flags: Mapping[str, Any],
    dataset: Mapping[str, Any],
    seed: int,
    tokenizer: str | None,
    steps: list[dict[str, Any]] | None = None,
    start_time: float | None = None,
) -> dict[str, Any]:
    """The metadata record a load test's records file starts with.

    ``"record": "metadata"`` marks it (the serving metrics leave it out). Flags with
    a list or object value are kept as JSON text, so the record reads as one row of a
    table; in an object (``extra_body``) the string values of secret-looking keys are
    hidden (:func:`redact_body`).

    Examples
    --------
    >>> meta = run_metadata(url="http://h/v1", model="m", endpoint="chat",
    ...                     flags={"rate": [1.0, float("inf")]},
    ...                     dataset={"name": "random", "sha256": "ab"}, seed=0,
    ...                     tokenizer=None, start_time=0.0)
    >>> meta["record"], meta["flags"], meta["start_time"]
    ('metadata', {'rate': '[1.0, "inf"]'}, '1970-01-01T00:00:00Z')
    >>> run_metadata(url="http://h/v1", model="m", endpoint="chat",
    ...              flags={"extra_body": {"api_key": "sk-1", "top_p": 0.9}},
    ...              dataset={}, seed=0, tokenizer=None)["flags"]
    {'extra_body': '{"api_key": "***", "top_p": 0.9}'}
    """
    when = time.time() if start_time is None else start_time
    record: dict[str, Any] = {
        "record": "metadata",
        "scorekit": __version__,
        "url": url,
        "model": model,
        "endpoint": endpoint,
        "flags": {
            str(k): _plain(redact_body(v) if isinstance(v, Mapping) else v)
            for k, v in flags.items()
        },
        "dataset": dict(dataset),
        "seed": seed,
        "start_time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(when)),
        "tokenizer": tokenizer,
        "token_counts": "the server's usage, else the tokenizer"
        if tokenizer
        else "the server's usage, else characters / 4 and chunks",
    }
    if steps is not None:
        record["steps"] = steps
    return record


def run_settings(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The settings of a run that runs merged together must share.

    The url, model, endpoint, flags, tokenizer and the dataset's name and hash; not
    the seed, the start time, the scorekit version or the dataset's path (runs from
    several machines differ in those), nor ``--warmup``: warm-up requests are left out
    of every figure, and runs of before the default pre-flight request did not record it.

    Examples
    --------
    >>> run_settings({"record": "metadata", "model": "m", "seed": 3,
    ...               "dataset": {"name": "jsonl", "path": "/a", "sha256": "ab"},
    ...               "flags": {"concurrency": 4, "warmup": 1}})
    {'model': 'm', 'flags': {'concurrency': 4}, 'dataset': {'name': 'jsonl', 'sha256': 'ab'}}
    """
    found: dict[str, Any] = {}
    for key in SETTINGS:
        if key not in metadata:
            continue
        value = metadata[key]
        if key == "dataset" and isinstance(value, Mapping):
            value = {k: value[k] for k in ("name", "sha256") if k in value}
        if key == "flags" and isinstance(value, Mapping):
            value = {k: v for k, v in value.items() if k not in _UNMEASURED_FLAGS}
        found[key] = value
    return found


def describe_run(metadata: Mapping[str, Any]) -> str:
    """One line that says what a run was: model, url, endpoint, dataset, seed, start, tokenizer.

    The url is shown with its secrets hidden (:func:`redact_url`), also from a records
    file written before they were hidden, and the line with its control characters
    escaped (:func:`printable`): a model's name holding an escape sequence is shown,
    not played on the terminal.

    Examples
    --------
    >>> describe_run({"model": "m", "url": "http://h/v1", "endpoint": "chat", "seed": 0,
    ...               "dataset": {"name": "random", "sha256": "0123456789abcdef"},
    ...               "start_time": "2026-01-01T00:00:00Z", "tokenizer": None,
    ...               "scorekit": "0.1.0"})
    'model m at http://h/v1 (chat), dataset random sha256 0123456789ab, seed 0, started 2026-01-01T00:00:00Z, token counts from the server or estimated, scorekit 0.1.0'
    """  # noqa: E501
    dataset = metadata.get("dataset") or {}
    if not isinstance(dataset, Mapping):
        dataset = {}
    url = metadata.get("url")
    shown = redact_url(url) if isinstance(url, str) else url
    parts = [f"model {metadata.get('model')} at {shown} ({metadata.get('endpoint')})"]
    name, path = dataset.get("name", "?"), dataset.get("path")
    digest = str(dataset.get("sha256") or "")[:12]
    parts.append(
        f"dataset {name} {path} sha256 {digest}" if path else f"dataset {name} sha256 {digest}"
    )
    if "seed" in metadata:
        parts.append(f"seed {metadata['seed']}")
    if "start_time" in metadata:
        parts.append(f"started {metadata['start_time']}")
    tokenizer = metadata.get("tokenizer")
    parts.append(
        f"tokenizer {tokenizer}" if tokenizer else "token counts from the server or estimated"
    )
    if "scorekit" in metadata:
        parts.append(f"scorekit {metadata['scorekit']}")
    return printable(", ".join(parts))


_LIMIT = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(%?)\s*$")


def parse_max_failures(text: str, name: str = "--max-failures") -> tuple[float, bool]:
    """``N`` (failed requests) or ``P%`` (a share of the requests): ``(value, is_share)``.

    Examples
    --------
    >>> parse_max_failures("3"), parse_max_failures("2.5%")
    ((3.0, False), (2.5, True))
    >>> parse_max_failures("-1")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: --max-failures: bad limit; got '-1', expected ...
    """
    found = _LIMIT.match(text) if isinstance(text, str) else None
    if found is None or (not found.group(2) and not float(found.group(1)).is_integer()):
        raise ConfigError(
            message(name, "bad limit", text, "a whole number of requests >= 0, or a share like 5%")
        )
    value = float(found.group(1))
    share = bool(found.group(2))
    if share and value > 100:
        raise ConfigError(message(name, "bad limit", text, "a percentage from 0% to 100%"))
    return value, share


def failures_over(
    records: Iterable[Mapping[str, Any]], limit: tuple[float, bool]
) -> tuple[int, int, bool]:
    """Failed and measured requests (warm-up left out), and whether the failures pass ``limit``.

    Examples
    --------
    >>> records = [{"success": False}, {"success": True}, {"success": False, "warmup": True}]
    >>> failures_over(records, (0, False)), failures_over(records, (50, True))
    ((1, 2, True), (1, 2, False))
    """
    measured = [r for r in records if not r.get("warmup") and r.get("record") != "metadata"]
    failed = sum(not r.get("success", True) for r in measured)
    value, share = limit
    allowed = value / 100 * len(measured) if share else value
    return failed, len(measured), failed > allowed
