"""Workloads of a load test: ShareGPT, JSON Lines, random and shared-prefix prompts.

A workload is a list of :class:`Conversation` (one user turn each, unless the dataset
holds several and the run is multi-turn), the name of its dataset and a SHA-256 hash
that identifies it: of the file's content (decompressed) for a file, of the prompts
themselves for the synthetic datasets. ``num_prompts`` and ``seed`` choose a
reproducible sample: the conversations shuffled by ``random.Random(seed)``, the first
``num_prompts`` kept (cycled when there are fewer).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError, InputError, choices, message, raw
from scorekit.io import parse_json, read_limited
from scorekit.loadtest._prompts import (
    NAME,
    PROMPTS_FILE,
    PROMPTS_TEXT,
    Prompt,
    check_positive,
    estimate_tokens,
    parse_prompts,
)
from scorekit.loadtest._tokens import TokenCounter

__all__ = [
    "DATASETS",
    "MAX_LENGTH",
    "MAX_PROMPTS",
    "MAX_SYNTHETIC_TOKENS",
    "Conversation",
    "Workload",
    "load_workload",
    "read_sharegpt",
    "synthetic_prompts",
]

DATASETS: tuple[str, ...] = ("sharegpt", "jsonl", "random", "prefix")
"""The datasets a load test draws its prompts from."""

MAX_PROMPTS = 10_000_000
"""The most prompts ``num_prompts`` (``--num-prompts``) may ask for."""

MAX_LENGTH = 10_000_000
"""The most tokens ``input_len``, ``output_len`` and ``prefix_len`` (``--input-len``,
``--output-len``, ``--prefix-len``) may ask for: beyond the context of any model."""

MAX_SYNTHETIC_TOKENS = 10_000_000
"""The most prompt tokens the ``random`` and ``prefix`` datasets make in all (the prompts
times their longest length), such as 10,000 prompts of 1,000 tokens: about 40 MB of text,
made in 10 to 30 seconds. Requests cycle through the prompts, so fewer prompts serve as
many requests."""

_USER = ("human", "user")
_REPLY = ("gpt", "assistant", "chatgpt", "bard", "model")
_SYLLABLES = "bcdfghjklmnpqrstvwxz"
_VOWELS = "aeiou"


@dataclass(frozen=True)
class Conversation:
    """The user turns of one conversation, each with its output budget.

    A single-turn workload holds one :class:`Prompt` per conversation. In a
    multi-turn run, turn ``k`` is sent with the history of the turns before it
    and the server's answers to them.
    """

    turns: tuple[Prompt, ...]


@dataclass(frozen=True)
class Workload:
    """The conversations of a run and what identifies them."""

    conversations: tuple[Conversation, ...]
    name: str
    """The dataset: one of :data:`DATASETS`, or ``"list"`` for prompts given in Python."""
    path: str | None
    sha256: str
    """Of the file's content, or of the prompts when there is no file."""

    @property
    def prompts(self) -> list[Prompt]:
        """The first turn of every conversation."""
        return [c.turns[0] for c in self.conversations]

    def describe(self) -> dict[str, Any]:
        """The dataset's part of a run's metadata record."""
        return {
            "name": self.name,
            "path": self.path,
            "sha256": self.sha256,
            "prompts": len(self.conversations),
        }


def _hash_prompts(conversations: Sequence[Conversation]) -> str:
    data = [
        [{"text": p.text, "messages": p.as_messages(), "max_tokens": p.max_tokens} for p in c.turns]
        for c in conversations
    ]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _sample(
    conversations: list[Conversation], num_prompts: int | None, seed: int
) -> tuple[Conversation, ...]:
    """The file order without ``num_prompts``; else a seeded shuffle, cut or cycled to it."""
    if num_prompts is None:
        return tuple(conversations)
    order = list(conversations)
    random.Random(seed).shuffle(order)
    return tuple(order[i % len(order)] for i in range(num_prompts))


def _read_hashed(
    path: str | os.PathLike[str], what: str, expected: str, max_file_size: int | None
) -> tuple[str, str]:
    """The text of a file (as :func:`scorekit.io.read_text` reads it) and the SHA-256 of
    its content."""
    data = read_limited(path, what, max_file_size)
    digest = hashlib.sha256(data).hexdigest()
    try:
        return data.decode("utf-8-sig"), digest
    except UnicodeDecodeError as exc:
        raise InputError(message(str(path), "cannot read", raw(str(exc)), expected)) from None


# ShareGPT -----------------------------------------------------------------------------


def _reply_budget(text: str, counter: TokenCounter | None) -> int:
    count = counter.count(text) if counter is not None else estimate_tokens(text)
    return max(1, count)


def read_sharegpt(
    path: str | os.PathLike[str],
    *,
    counter: TokenCounter | None = None,
    multi_turn: bool = False,
    max_file_size: int | None = None,
) -> tuple[list[Conversation], str]:
    """Read a ShareGPT file: a JSON list of ``{"conversations": [{"from", "value"}, ...]}``.

    The first human turn is the prompt and the reply after it sets its output budget
    (its tokens by ``counter``, else its characters / 4, at least 1). With
    ``multi_turn`` every human turn followed by a reply is a turn of the
    conversation. Conversations without a human turn followed by a reply are skipped.

    Returns
    -------
    (list of Conversation, str)
        The conversations in file order and the SHA-256 of the file's content.

    Raises
    ------
    InputError
        The file cannot be read, is not JSON, is not a list, or a record is not a
        conversation: the message names the file and the record (from 0).

    Examples
    --------
    >>> import json, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sharegpt.json"
    >>> _ = path.write_text(json.dumps([{"id": "a", "conversations": [
    ...     {"from": "human", "value": "Hi there"},
    ...     {"from": "gpt", "value": "Hello! How can I help?"}]}]))
    >>> conversations, digest = read_sharegpt(path)
    >>> turn = conversations[0].turns[0]
    >>> turn.text, turn.max_tokens, len(digest)
    ('Hi there', 6, 64)
    """
    text, digest = _read_hashed(path, "a ShareGPT file", "a UTF-8 JSON file", max_file_size)
    items = parse_json(text, str(path))
    expected = 'a JSON list of {"conversations": [{"from": "human", "value": ...}, ...]}'
    if not isinstance(items, list):
        raise InputError(
            message(str(path), "not a ShareGPT file", raw(type(items).__name__), expected)
        )
    found = []
    for index, item in enumerate(items):
        where = f"{path}, record {index}"
        turns = item.get("conversations") if isinstance(item, Mapping) else None
        if not isinstance(turns, list):
            got = raw(f"keys {sorted(map(str, item))}") if isinstance(item, Mapping) else item
            raise InputError(
                message(where, "not a ShareGPT conversation", got, "an object with 'conversations'")
            )
        for number, turn in enumerate(turns):
            if not (
                isinstance(turn, Mapping)
                and isinstance(turn.get("from"), str)
                and isinstance(turn.get("value"), str)
            ):
                raise InputError(
                    message(
                        f"{where}, turn {number}",
                        "bad turn",
                        turn,
                        "an object with the strings 'from' and 'value'",
                    )
                )
        prompts = []
        for first, second in itertools.pairwise(turns):
            if first["from"].lower() in _USER and second["from"].lower() in _REPLY:
                budget = _reply_budget(second["value"], counter)
                prompts.append(Prompt(text=first["value"], max_tokens=budget))
                if not multi_turn:
                    break
        if prompts:
            found.append(Conversation(tuple(prompts)))
    if not found:
        raise InputError(
            message(str(path), "no conversation with a human turn and a reply", None, expected)
        )
    return found, digest


# JSON Lines ---------------------------------------------------------------------------


def _turns_of(prompt: Prompt) -> Conversation:
    """A multi-turn conversation from a prompt's messages: its user messages, in order."""
    if prompt.messages is None:
        return Conversation((prompt,))
    system = [dict(m) for m in prompt.messages if m.get("role") == "system"]
    users = [m for m in prompt.messages if m.get("role") == "user"]
    if not users:
        return Conversation((prompt,))
    turns = [
        Prompt(messages=(*system, dict(users[0])), max_tokens=prompt.max_tokens),
        *(Prompt(messages=(dict(m),), max_tokens=prompt.max_tokens) for m in users[1:]),
    ]
    return Conversation(tuple(turns))


# synthetic ----------------------------------------------------------------------------


def _words(rng: random.Random, count: int) -> str:
    """``count`` pronounceable three-letter words: about one token each (4 characters)."""
    return "".join(
        rng.choice(_SYLLABLES) + rng.choice(_VOWELS) + rng.choice(_SYLLABLES) + " "
        for _ in range(count)
    )


def _text(rng: random.Random, count: int, counter: TokenCounter | None) -> str:
    if counter is None:
        return _words(rng, count)
    return counter.random_text(rng, count)


def _length(rng: random.Random, mean: int, ratio: float) -> int:
    low = max(1, int(mean * (1 - ratio)))
    high = max(low, int(mean * (1 + ratio)))
    return rng.randint(low, high)


def synthetic_prompts(
    kind: str,
    *,
    num_prompts: int,
    input_len: int,
    output_len: int,
    range_ratio: float = 0.0,
    prefix_len: int = 0,
    seed: int = 0,
    counter: TokenCounter | None = None,
) -> list[Prompt]:
    """Random prompts (``kind="random"``), or a shared prefix plus random suffixes (``"prefix"``).

    Input and output lengths are drawn uniformly from ``[len * (1 - range_ratio),
    len * (1 + range_ratio)]`` (whole numbers, at least 1). The text is random token
    ids of ``counter``'s vocabulary, decoded; without one, three-letter words (four
    characters, one token by the characters / 4 estimate). ``"prefix"`` starts every
    prompt with the same ``prefix_len`` tokens, for prefix caching.

    Ceilings, checked before any prompt is made: ``num_prompts`` at most
    :data:`MAX_PROMPTS` (10 million); ``input_len``, ``output_len`` and ``prefix_len``
    at most :data:`MAX_LENGTH` (10 million tokens, beyond the context of any model);
    ``num_prompts`` times the longest prompt (``input_len * (1 + range_ratio)``, plus
    ``prefix_len`` for ``"prefix"``) at most :data:`MAX_SYNTHETIC_TOKENS` (10 million
    tokens). Past one, a :class:`~scorekit.errors.ConfigError` names the setting and
    its flag.

    Examples
    --------
    >>> prompts = synthetic_prompts("prefix", num_prompts=2, input_len=3, output_len=5,
    ...                             prefix_len=2, seed=1)
    >>> [p.max_tokens for p in prompts], [estimate_tokens(p.text) for p in prompts]
    ([5, 5], [5, 5])
    >>> prompts[0].text[:8] == prompts[1].text[:8]
    True
    """
    _check_count("num_prompts", num_prompts, MAX_PROMPTS)
    _check_count("input_len", input_len, MAX_LENGTH)
    _check_count("output_len", output_len, MAX_LENGTH)
    if kind == "prefix":
        _check_count("prefix_len", prefix_len, MAX_LENGTH)
    longest = int(input_len * (1 + range_ratio)) + (prefix_len if kind == "prefix" else 0)
    if num_prompts * longest > MAX_SYNTHETIC_TOKENS:
        lengths = "--prefix-len plus --input-len" if kind == "prefix" else "--input-len"
        raise ConfigError(
            message(
                NAME,
                f"the {kind} dataset would make too many prompt tokens "
                f"(--num-prompts times {lengths})",
                raw(
                    f"{num_prompts:,} prompts of up to {longest:,} tokens, "
                    f"{num_prompts * longest:,} in all"
                ),
                f"at most {MAX_SYNTHETIC_TOKENS:,} tokens in all (requests cycle through "
                "the prompts: fewer prompts serve as many requests)",
            )
        )
    rng = random.Random(seed)
    prefix = _text(rng, prefix_len, counter) if kind == "prefix" and prefix_len else ""
    prompts = []
    for _ in range(num_prompts):
        size = _length(rng, input_len, range_ratio)
        budget = _length(rng, output_len, range_ratio)
        prompts.append(Prompt(text=prefix + _text(rng, size, counter), max_tokens=budget))
    return prompts


# one entry point ----------------------------------------------------------------------


def _check_count(name: str, value: Any, ceiling: int) -> None:
    """Refuse a ``value`` of ``name`` that is not a whole number from 1 to ``ceiling``."""
    check_positive(name, value)
    if value > ceiling:
        flag = "--" + name.replace("_", "-")
        raise ConfigError(
            message(NAME, f"{name} ({flag}) too large", value, f"at most {ceiling:,}")
        )


def load_workload(
    dataset: str,
    path: str | os.PathLike[str] | None = None,
    *,
    num_prompts: int | None = None,
    seed: int = 0,
    input_len: int = 1024,
    output_len: int = 128,
    range_ratio: float = 0.0,
    prefix_len: int = 256,
    counter: TokenCounter | None = None,
    multi_turn: bool = False,
    max_file_size: int | None = None,
) -> Workload:
    """The conversations of a run from one of :data:`DATASETS`.

    ``sharegpt`` and ``jsonl`` read ``path`` (see :func:`read_sharegpt` and
    :func:`~scorekit.loadtest.read_prompts`; with ``multi_turn`` the user messages of
    a ``messages`` line are its turns); ``random`` and ``prefix`` make
    ``num_prompts`` prompts (default 1000) with :func:`synthetic_prompts`.

    Ceilings, checked before any prompt is made: ``num_prompts`` at most
    :data:`MAX_PROMPTS` (10 million); for ``random`` and ``prefix``, the lengths and
    the prompt tokens in all as :func:`synthetic_prompts` says (10 million tokens a
    prompt, 10 million in all).

    Raises
    ------
    ConfigError
        An unknown dataset, a missing or needless path, or a number out of range or
        above its ceiling: the message names the setting and its flag.

    Examples
    --------
    >>> work = load_workload("random", num_prompts=3, input_len=8, output_len=4, seed=7)
    >>> work.name, len(work.conversations), work.prompts[0].max_tokens
    ('random', 3, 4)
    >>> work.sha256 == load_workload("random", num_prompts=3, input_len=8, output_len=4,
    ...                              seed=7).sha256
    True
    """
    if dataset not in DATASETS:
        raise ConfigError(message(NAME, "unknown dataset", dataset, choices(DATASETS)))
    if num_prompts is not None:
        _check_count("num_prompts", num_prompts, MAX_PROMPTS)
    files = ("sharegpt", "jsonl")
    if dataset in files and path is None:
        raise ConfigError(message(NAME, f"the {dataset} dataset needs a file", None, "a path"))
    if dataset not in files and path is not None:
        raise ConfigError(
            message(NAME, f"the {dataset} dataset reads no file", str(path), "no path")
        )
    if dataset == "sharegpt" and path is not None:
        found, digest = read_sharegpt(
            path, counter=counter, multi_turn=multi_turn, max_file_size=max_file_size
        )
        return Workload(_sample(found, num_prompts, seed), dataset, str(path), digest)
    if dataset == "jsonl" and path is not None:
        source = Path(path)
        text, digest = _read_hashed(source, PROMPTS_FILE, PROMPTS_TEXT, max_file_size)
        prompts = parse_prompts(text, source)
        found = [_turns_of(p) if multi_turn else Conversation((p,)) for p in prompts]
        return Workload(_sample(found, num_prompts, seed), dataset, str(source), digest)
    ok = isinstance(range_ratio, int | float) and not isinstance(range_ratio, bool)
    if not ok or not 0 <= range_ratio < 1:
        raise ConfigError(message(NAME, "bad range_ratio", range_ratio, "a number in [0, 1)"))
    count = 1000 if num_prompts is None else num_prompts
    made = synthetic_prompts(
        dataset,
        num_prompts=count,
        input_len=input_len,
        output_len=output_len,
        range_ratio=float(range_ratio),
        prefix_len=prefix_len,
        seed=seed,
        counter=counter,
    )
    conversations = tuple(Conversation((p,)) for p in made)
    return Workload(conversations, dataset, None, _hash_prompts(conversations))


def workload_of(prompts: list[Prompt], multi_turn: bool) -> Workload:
    """The workload of prompts given in Python (or read from a prompts file already)."""
    found = tuple(_turns_of(p) if multi_turn else Conversation((p,)) for p in prompts)
    return Workload(found, "list", None, _hash_prompts(found))
