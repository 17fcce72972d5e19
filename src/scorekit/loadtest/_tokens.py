"""Token counts with a real tokenizer: a Hugging Face ``tokenizer.json`` or a tiktoken encoding.

Both packages are optional (the ``serve`` extra) and imported only when a tokenizer
is asked for.
"""

from __future__ import annotations

import os
import random
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError, message, raw
from scorekit.loadtest._prompts import NAME

__all__ = ["TokenCounter", "load_tokenizer"]


class TokenCounter:
    """Counts the tokens of a text, and makes random text from the vocabulary.

    Parameters
    ----------
    name : str
        What the run's metadata calls the tokenizer (the path or the encoding's name).
    kind : {"tokenizers", "tiktoken"}
        The package that tokenizes.
    backend : object
        A ``tokenizers.Tokenizer`` or a ``tiktoken.Encoding``.
    """

    def __init__(self, name: str, kind: str, backend: Any) -> None:
        self.name = name
        self.kind = kind
        self.backend = backend
        if kind == "tokenizers":
            self.vocab_size = int(backend.get_vocab_size(with_added_tokens=False))
        else:
            self.vocab_size = int(getattr(backend, "eot_token", backend.n_vocab))

    def __repr__(self) -> str:
        return f"TokenCounter({self.name!r}, {self.kind!r})"

    def count(self, text: str) -> int:
        """The tokens of ``text``, special tokens not added."""
        if not text:
            return 0
        if self.kind == "tokenizers":
            return len(self.backend.encode(text, add_special_tokens=False).ids)
        return len(self.backend.encode_ordinary(text))

    def random_text(self, rng: random.Random, count: int) -> str:
        """The text of ``count`` token ids drawn uniformly from the vocabulary."""
        ids = [rng.randrange(self.vocab_size) for _ in range(count)]
        if self.kind == "tokenizers":
            return str(self.backend.decode(ids, skip_special_tokens=True))
        data = self.backend.decode_bytes(ids)
        return bytes(data).decode("utf-8", errors="replace")


def _import(module: str) -> Any:
    try:
        return __import__(module)
    except ImportError:
        raise ConfigError(
            message(
                NAME,
                f"--tokenizer needs the {module} package, which is not installed",
                None,
                "the serve extra: pip install 'scorekit[serve]'",
            )
        ) from None


def load_tokenizer(name_or_path: str | os.PathLike[str]) -> TokenCounter:
    """A token counter: a local ``tokenizer.json`` (or a folder holding one), else a tiktoken name.

    A path that exists is read with the ``tokenizers`` package
    (``Tokenizer.from_file``); anything else is a tiktoken encoding (``cl100k_base``,
    ``o200k_base``) or model name (``gpt-4o``). tiktoken downloads its encoding files
    the first time and caches them.

    Raises
    ------
    ConfigError
        The package is missing, the file is not a tokenizer, a directory holds no
        ``tokenizer.json``, or tiktoken knows no such encoding or cannot fetch it; the
        message names the tokenizer (the path of a file or directory).

    Examples
    --------
    >>> load_tokenizer("/no/such/tokenizer.json")
    Traceback (most recent call last):
    ...
    scorekit.errors.ConfigError: loadtest: no tokenizer file or tiktoken encoding ...
    """
    text = os.fspath(name_or_path)
    path = Path(text)
    if path.is_dir():
        path = path / "tokenizer.json"
        if not path.is_file():
            raise ConfigError(
                message(
                    text,
                    "the --tokenizer directory holds no tokenizer",
                    raw(f"no file {path}"),
                    "a folder holding tokenizer.json, a tokenizer.json, or a tiktoken encoding",
                )
            )
    if path.is_file():
        tokenizers = _import("tokenizers")
        try:
            backend = tokenizers.Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception for a bad file
            raise ConfigError(
                message(str(path), "not a tokenizer file", raw(str(exc)), "a tokenizer.json")
            ) from None
        return TokenCounter(str(path), "tokenizers", backend)
    if os.sep in text or text.endswith(".json"):
        raise ConfigError(
            message(
                NAME,
                "no tokenizer file or tiktoken encoding of that name",
                text,
                "a tokenizer.json, a folder holding one, or a tiktoken encoding",
            )
        )
    tiktoken = _import("tiktoken")
    try:
        backend = tiktoken.get_encoding(text)
    except ValueError:
        try:
            backend = tiktoken.encoding_for_model(text)
        except KeyError:
            raise ConfigError(
                message(
                    NAME,
                    "no tokenizer file or tiktoken encoding of that name",
                    text,
                    "a tokenizer.json, a folder holding one, or a tiktoken encoding "
                    "such as cl100k_base",
                )
            ) from None
        except Exception as exc:
            raise _unloadable(text, exc) from None
    except Exception as exc:  # a download that failed: requests' or urllib's errors
        raise _unloadable(text, exc) from None
    return TokenCounter(text, "tiktoken", backend)


def _unloadable(name: str, exc: Exception) -> ConfigError:
    return ConfigError(
        message(
            NAME,
            f"cannot load the tiktoken encoding {name!r}",
            raw(str(exc).splitlines()[0] if str(exc) else type(exc).__name__),
            "an encoding tiktoken has cached, or a network to fetch it",
        )
    )
