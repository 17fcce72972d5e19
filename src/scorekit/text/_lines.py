"""Line-aligned text files (one sentence a line, as sacrebleu reads them), with exact errors."""

from __future__ import annotations

import gzip
from pathlib import Path

from scorekit.errors import InputError, message, raw

__all__ = ["read_lines", "read_parallel"]


def read_lines(path: str | Path) -> list[str]:
    """The lines of a UTF-8 text file, without their line endings (``.gz`` too).

    A UTF-8 byte-order mark is dropped; ``\\r\\n`` endings are accepted. Invalid
    UTF-8 is an error naming the file, the line and the byte.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "hyps.txt"
    >>> _ = path.write_bytes(b"the cat\\r\\nsat\\n")
    >>> read_lines(path)
    ['the cat', 'sat']
    """
    path = Path(path)
    if not path.exists():
        raise InputError(message(str(path), "no such file", None, "an existing file"))
    if path.is_dir():
        raise InputError(message(str(path), "is a directory", None, "a file"))
    data = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError(
            message(
                f"{path}, line {line}",
                "not valid UTF-8",
                raw(f"byte 0x{data[exc.start]:02x} at column {column}"),
                "UTF-8 text",
            )
        ) from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def read_parallel(
    hypotheses: str | Path, references: list[str | Path]
) -> tuple[list[str], list[list[str]]]:
    """Hypotheses and, per hypothesis, its references from line-aligned files.

    Every reference file must have as many lines as the hypothesis file; a
    mismatch names both files and both counts.
    """
    hyps = read_lines(hypotheses)
    streams = [read_lines(r) for r in references]
    if not streams:
        raise InputError(message("scorekit text", "no reference file", None, "--refs FILE"))
    for path, stream in zip(references, streams, strict=True):
        if len(stream) != len(hyps):
            raise InputError(
                message(
                    "scorekit text",
                    "reference and hypothesis files differ in line count",
                    raw(f"{len(stream)} lines in {path}, {len(hyps)} in {hypotheses}"),
                    "one reference line per hypothesis line",
                )
            )
    return hyps, [list(group) for group in zip(*streams, strict=True)] if hyps else []
