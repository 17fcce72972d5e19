"""Prompts for the load generator: the JSON Lines prompts file, token estimates."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError, InputError, message, raw
from scorekit.io import read_text
from scorekit.loadtest._json import MAX_DEPTH, NESTED_TOO_DEEPLY, depth_over, loads
from scorekit.throughput import COLUMNS, MARKS

__all__ = ["EXTRA_KEYS", "RECORD_KEYS", "Prompt", "estimate_tokens", "read_prompts"]


def _in_time_order(columns: tuple[str, ...]) -> tuple[str, ...]:
    """The request columns with the first token's time between the start and the end."""
    rest = [c for c in columns if c != "first_token"]
    at = rest.index("end")
    return (*rest[:at], "first_token", *rest[at:])


RECORD_KEYS: tuple[str, ...] = (
    "id",
    *_in_time_order(tuple(c for c in COLUMNS if c not in MARKS)),
    "tokens_estimated",
    "token_counter",
)
"""The keys of every request record, in the order they are written."""

EXTRA_KEYS: tuple[str, ...] = ("warmup", "step", "conversation", "turn")
"""Keys a request record has when they apply (warm-up, sweep, multi-turn), written last."""

NAME = "loadtest"
PROMPTS_FILE = "a prompts file"
PROMPTS_TEXT = "a UTF-8 JSON Lines file"
_CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class Prompt:
    """One request's input: a completion ``prompt`` or chat ``messages``.

    Examples
    --------
    >>> Prompt(text="Once upon a time").as_messages()
    [{'role': 'user', 'content': 'Once upon a time'}]
    >>> Prompt(text="Once upon a time", max_tokens=8).estimated_tokens()
    4
    """

    text: str | None = None
    """The prompt of a completion request (a chat request sends it as one user message)."""
    messages: tuple[Mapping[str, Any], ...] | None = None
    """The messages of a chat request."""
    max_tokens: int | None = None
    """This prompt's limit on generated tokens (else the run's ``max_tokens``)."""

    def as_messages(self) -> list[dict[str, Any]]:
        """The chat messages of this prompt."""
        if self.messages is not None:
            return [dict(m) for m in self.messages]
        return [{"role": "user", "content": self.text}]

    def estimated_tokens(self) -> int:
        """The prompt's characters divided by 4, rounded up (see :func:`estimate_tokens`)."""
        return estimate_tokens(self.content())

    def content(self) -> str:
        """The prompt's text: the completion prompt, or every message's text content joined."""
        if self.messages is None:
            return self.text or ""
        return "".join(_message_text(m) for m in self.messages)


def check_positive(name: str, value: Any, integer: bool = True) -> None:
    """Refuse a ``value`` of ``name`` that is not a whole number >= 1 (``integer``) or a
    finite number > 0: a :class:`~scorekit.errors.ConfigError` naming the load test."""
    kind = "a whole number >= 1" if integer else "a finite number > 0"
    if integer:
        ok = isinstance(value, int) and not isinstance(value, bool) and value >= 1
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        ok = ok and math.isfinite(value) and value > 0
    if not ok:
        raise ConfigError(message(NAME, f"bad {name}", value, kind))


def estimate_tokens(text: str) -> int:
    """Approximate token count of ``text``: its characters divided by 4, rounded up.

    Used for the prompt when the server reports no usage; English text averages
    about four characters a token in the common byte-pair vocabularies.

    Examples
    --------
    >>> estimate_tokens("Hello, world")
    3
    >>> estimate_tokens("")
    0
    """
    return -(-len(text) // _CHARS_PER_TOKEN)


def _message_text(msg: Mapping[str, Any]) -> str:
    content = msg.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        )
    return ""


# prompts file ------------------------------------------------------------------------------


def _prompt_from(item: Any, where: str) -> Prompt:
    """Validate one prompt (a string or an object) and build its :class:`Prompt`."""
    if isinstance(item, str):
        return Prompt(text=item)
    if not isinstance(item, Mapping):
        raise InputError(
            message(where, "prompt is not a string or an object", item, "a JSON object")
        )
    if depth_over(item):
        raise InputError(
            message(
                where,
                f"prompt {NESTED_TOO_DEEPLY}",
                None,
                f"at most {MAX_DEPTH} levels of arrays and objects",
            )
        )
    expected = "'prompt' (a string) or 'messages' (a list of {role, content} objects)"
    text, messages = item.get("prompt"), item.get("messages")
    if (text is None) == (messages is None):
        got = raw("both") if text is not None else raw(f"keys {sorted(map(str, item))}")
        raise InputError(message(where, "need exactly one of 'prompt' and 'messages'", got))
    if text is not None and not isinstance(text, str):
        raise InputError(message(f"{where}, column 'prompt'", "not a string", text, "a string"))
    if messages is not None:
        if not isinstance(messages, list) or not messages:
            raise InputError(
                message(f"{where}, column 'messages'", "not a non-empty list", messages, expected)
            )
        for msg in messages:
            ok = isinstance(msg, Mapping) and isinstance(msg.get("role"), str)
            if not ok or "content" not in msg:
                raise InputError(
                    message(
                        f"{where}, column 'messages'",
                        "bad message",
                        msg,
                        "an object with a string 'role' and a 'content'",
                    )
                )
    limit = item.get("max_tokens")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise InputError(
            message(f"{where}, column 'max_tokens'", "not a whole number >= 1", limit, "1, 2, ...")
        )
    return Prompt(
        text=text,
        messages=None if messages is None else tuple(messages),
        max_tokens=limit,
    )


def read_prompts(path: str | os.PathLike[str], *, max_file_size: int | None = None) -> list[Prompt]:
    """Read a JSON Lines file of prompts.

    Each non-blank line is an object with either ``"prompt"`` (a string, for the
    completions endpoint; sent as one user message to the chat endpoint) or
    ``"messages"`` (a list of ``{"role": ..., "content": ...}`` objects, for the chat
    endpoint), and optionally ``"max_tokens"`` (a whole number >= 1). Gzip content
    is decompressed.

    Parameters
    ----------
    path : str or Path
        The file; it must be a regular file (not a FIFO or a device).
    max_file_size : int, optional
        The most bytes read, and decompressed
        (default :func:`scorekit.io.max_file_size`, 1 GiB).

    Raises
    ------
    InputError
        A missing or empty file, a directory, FIFO or device, a file larger than
        ``max_file_size`` (compressed or not), or a bad line: the message names the
        file, the line and, for invalid JSON, the character column, for a bad value
        the key. A line nested more than 100 levels deep, or holding an integer of
        more than :func:`sys.get_int_max_str_digits` digits, is invalid JSON.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prompts.jsonl"
    >>> _ = path.write_text('{"prompt": "Hi"}\\n\\n{"messages": '
    ...                     '[{"role": "user", "content": "Hello"}], "max_tokens": 16}\\n')
    >>> [(p.text, p.max_tokens) for p in read_prompts(path)]
    [('Hi', None), (None, 16)]
    """
    source = Path(path)
    return parse_prompts(read_text(source, PROMPTS_FILE, PROMPTS_TEXT, max_file_size), source)


def parse_prompts(text: str, source: Path) -> list[Prompt]:
    """The prompts of the text of a JSON Lines file (see :func:`read_prompts`)."""
    prompts = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}, line {number}"
        try:
            item = loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                message(
                    where,
                    "invalid JSON",
                    raw(f"{exc.msg} at column {exc.colno}"),
                    "one JSON object",
                )
            ) from None
        except ValueError as exc:
            raise InputError(
                message(where, "invalid JSON", raw(str(exc)), "one JSON object")
            ) from None
        if not isinstance(item, dict):
            raise InputError(
                message(where, "line is not a JSON object", item, "one JSON object per line")
            )
        prompts.append(_prompt_from(item, where))
    if not prompts:
        raise InputError(message(str(source), "no prompts", None, "one JSON object per line"))
    return prompts


def prompt_list(prompts: Any, max_file_size: int | None = None) -> list[Prompt]:
    """The prompts of a run: read from a file path, or checked one by one from a list."""
    if isinstance(prompts, str | os.PathLike):
        return read_prompts(prompts, max_file_size=max_file_size)
    if isinstance(prompts, Mapping) or not isinstance(prompts, Sequence):
        raise ConfigError(message(NAME, "bad prompts", prompts, "a file path or a list of prompts"))
    found = [
        p if isinstance(p, Prompt) else _prompt_from(p, f"{NAME}: prompt {i}")
        for i, p in enumerate(prompts)
    ]
    if not found:
        raise ConfigError(message(NAME, "no prompts", None, "at least one prompt"))
    return found
