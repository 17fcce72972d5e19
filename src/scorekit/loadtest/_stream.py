"""One streamed request: its state, and the reading of OpenAI stream chunks into it."""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from scorekit.loadtest._json import NESTED_TOO_DEEPLY, loads
from scorekit.loadtest._prompts import Prompt

__all__ = ["GO_ON", "Attempt", "http_error", "read_event", "short"]

_TEXT_FIELDS = ("content", "reasoning_content", "reasoning")
_SHORT = 200


@dataclass
class Attempt:
    """The state of one request while it runs."""

    id: int
    body: dict[str, Any]
    prompt: Prompt
    start: float = math.nan
    first_token: float | None = None
    token_times: list[float] = field(default_factory=list)
    usage: Mapping[str, Any] | None = None
    end: float | None = None
    """When ``data: [DONE]`` arrived (None before)."""
    texts: list[str] | None = None
    """The text of every chunk, kept when a tokenizer counts it or a conversation goes on."""
    counter: Any = None
    """The run's :class:`~scorekit.loadtest._tokens.TokenCounter`, if any."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys added to the record (``warmup``, ``step``, ``conversation``, ``turn``)."""

    def record(self, end: float, error: str | None) -> dict[str, Any]:
        chunks = len(self.token_times)
        usage = self.usage or {}
        prompt_tokens = _count(usage.get("prompt_tokens"))
        output_tokens = _count(usage.get("completion_tokens"))
        counted = {"usage"}
        if prompt_tokens is None:
            if self.counter is not None:
                prompt_tokens = self.counter.count(self.prompt.content())
                counted.add("tokenizer")
            else:
                prompt_tokens = self.prompt.estimated_tokens()
                counted.add("estimate")
        if output_tokens is None:
            if self.counter is not None and self.texts is not None:
                output_tokens = self.counter.count("".join(self.texts))
                counted.add("tokenizer")
            else:
                output_tokens = chunks
                counted.add("estimate")
        counter = next(c for c in ("estimate", "tokenizer", "usage") if c in counted)
        return {
            "id": self.id,
            "prompt_tokens": prompt_tokens,
            "output_tokens": output_tokens,
            "start": self.start,
            "first_token": self.first_token,
            "end": end,
            "token_times": list(self.token_times),
            "success": error is None,
            "error": error,
            "tokens_estimated": counter == "estimate",
            "token_counter": counter,
            **self.extra,
        }


def _count(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        return None
    return value


def short(text: str) -> str:
    """``text`` on one line, cut to 200 characters (for failure reasons)."""
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 3] + "..."


def _error_text(error: Any) -> str:
    """The message of an OpenAI-style error object (or whatever the server sent)."""
    while isinstance(error, Mapping):
        inner = next(
            (
                error[key]
                for key in ("message", "detail", "error")
                if isinstance(error.get(key), str | Mapping)
            ),
            None,
        )
        if inner is None:
            break
        error = inner
    if isinstance(error, str):
        return short(error)
    try:
        return short(json.dumps(error))
    except RecursionError:
        return NESTED_TOO_DEEPLY


def http_error(status: int, body: bytes) -> str:
    """The failure reason of an HTTP error answer: its status and message.

    A JSON body gives its error message; any other body (not JSON, or JSON nested
    too deeply to read) its first characters.
    """
    text = body.decode("utf-8", errors="replace")
    with contextlib.suppress(ValueError):
        parsed = loads(text)
        if isinstance(parsed, Mapping):
            text = _error_text(parsed)
    return f"http {status}: {short(text)}" if text.strip() else f"http {status}"


def _texts(choices_: list[Any]) -> str:
    """The text a chunk carries (every choice's ``text`` or delta content); empty if none."""
    found = []
    for choice in choices_:
        if not isinstance(choice, Mapping):
            continue
        if isinstance(choice.get("text"), str):
            found.append(choice["text"])
        delta = choice.get("delta")
        if isinstance(delta, Mapping):
            for key in _TEXT_FIELDS:
                if isinstance(d := delta.get(key), str):
                    found.append(d)
    return "".join(found)


GO_ON = "go on"
"""What :func:`read_event` returns while the stream goes on."""


def read_event(attempt: Attempt, data: str, now: float) -> str | None:
    """Take one event's data; return None at the end, an error, or :data:`GO_ON`."""
    if data.strip() == "[DONE]":
        return None
    if not data.strip():  # an empty event: a keep-alive
        return GO_ON
    try:
        chunk = loads(data)
    except ValueError as exc:
        reason = short(getattr(exc, "msg", str(exc)))
        return f"malformed stream: invalid JSON ({reason}) in {short(data)!r}"
    if not isinstance(chunk, dict):
        return f"malformed stream: event is not a JSON object: {short(data)!r}"
    if chunk.get("error") is not None:
        return f"server error: {_error_text(chunk['error'])}"
    usage = chunk.get("usage")
    if isinstance(usage, Mapping):
        attempt.usage = usage
    choices_ = chunk.get("choices")
    if choices_ is None:
        return GO_ON
    if not isinstance(choices_, list):
        return f"malformed stream: 'choices' is not a list: {short(data)!r}"
    text = _texts(choices_)
    if text:
        if attempt.texts is not None:
            attempt.texts.append(text)
        attempt.token_times.append(now)
        if attempt.first_token is None:
            attempt.first_token = now
    return GO_ON
