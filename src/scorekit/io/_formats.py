"""The format registry: which reader reads a file, chosen by the end of its name.

A :class:`Format` says how to list a file's columns and how to read the wanted
columns in batches of bounded memory (and, optionally, the whole file at once).
CSV, TSV, Parquet and JSON Lines are registered here; a family registers its own
formats with :func:`register_format` when it is imported (ranking: TREC runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scorekit.errors import ConfigError, InputError, choices, message, raw

__all__ = [
    "Format",
    "directory_extensions",
    "format_named",
    "format_of",
    "formats",
    "listed_in_directories",
    "register_format",
]

Batches = Callable[[Path, list[str], int, dict[str, Any]], Iterator[tuple[Any, int]]]


@dataclass(frozen=True)
class Format:
    """A file format scorekit reads.

    Attributes
    ----------
    name : str
        The format's name (``"csv"``, ``"trec"``...).
    extensions : tuple of str
        File name endings (lower case, with the dot) read with this format.
    columns : callable
        ``columns(path) -> list of column names`` (of the first block for
        formats without a header of their own).
    batches : callable
        ``batches(path, wanted, chunk_size, types) -> iterator of (batch, bytes read)``:
        pyarrow record batches or tables holding the ``wanted`` columns, about
        ``chunk_size`` rows each. ``types`` is this format's dict of settled
        column types, kept across reads of one input (see
        :class:`~scorekit.io.ReadPlan`).
    compressible : bool
        Whether ``NAME.gz`` is read too (gzip).
    in_directories : tuple of str
        The endings listed when a directory is read (the default: every
        extension); a format whose endings are too common (``.txt``) lists fewer.
    read : callable, optional
        ``read(path, wanted) -> pyarrow.Table``: the whole file at once, when the
        format has a faster way than joining its batches.
    """

    name: str
    extensions: tuple[str, ...]
    columns: Callable[[Path], list[str]]
    batches: Batches
    compressible: bool = False
    in_directories: tuple[str, ...] | None = None
    read: Callable[[Path, list[str] | None], Any] | None = None

    def endings(self) -> tuple[str, ...]:
        """Every file ending of the format, ``.gz`` ones included."""
        gz = tuple(ext + ".gz" for ext in self.extensions) if self.compressible else ()
        return self.extensions + gz

    def listed(self) -> tuple[str, ...]:
        """The file endings a directory listing includes."""
        base = self.extensions if self.in_directories is None else self.in_directories
        gz = tuple(ext + ".gz" for ext in base) if self.compressible else ()
        return base + gz


_FORMATS: dict[str, Format] = {}


def register_format(fmt: Format) -> Format:
    """Add a format to the registry (a later format with the same name replaces it).

    Examples
    --------
    >>> from scorekit import io
    >>> "parquet" in [f.name for f in io.formats()]
    True
    """
    if not isinstance(fmt, Format):
        raise ConfigError(
            message("register_format", "not a Format", raw(type(fmt).__name__), "a Format")
        )
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> list[Format]:
    """The registered formats, in order of registration."""
    return list(_FORMATS.values())


def format_named(name: str) -> Format:
    """The registered format called ``name``."""
    try:
        return _FORMATS[name]
    except KeyError:
        raise ConfigError(
            message("scorekit", "unknown file format", name, choices(_FORMATS))
        ) from None


def format_of(path: Path) -> str:
    """The name of the format that reads ``path``, from the end of its name.

    The longest matching ending wins, so ``run.bm25.txt.gz`` is a TREC run when
    that format is registered.

    Examples
    --------
    >>> from pathlib import Path
    >>> format_of(Path("part-0.parquet")), format_of(Path("preds.csv.gz"))
    ('parquet', 'csv')
    """
    name = path.name.lower()
    best: tuple[int, str] | None = None
    for fmt in _FORMATS.values():
        for ending in fmt.endings():
            if name.endswith(ending) and (best is None or len(ending) > best[0]):
                best = (len(ending), fmt.name)
    if best is None:
        raise InputError(
            message(
                str(path),
                "unknown file type",
                raw(f"extension {''.join(path.suffixes) or '(none)'!r}"),
                choices(tuple(e for f in _FORMATS.values() for e in f.endings())),
            )
        )
    return best[1]


def directory_extensions() -> tuple[str, ...]:
    """The file endings read from a directory (plain ones first, then the gzipped ones)."""
    listed = [e for f in _FORMATS.values() for e in f.listed()]
    return tuple(
        [e for e in listed if not e.endswith(".gz")] + [e for e in listed if e.endswith(".gz")]
    )


def listed_in_directories(path: Path) -> bool:
    """Whether a directory listing includes ``path``."""
    return path.name.lower().endswith(directory_extensions())
