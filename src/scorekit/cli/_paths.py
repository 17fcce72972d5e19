"""The one rule for the files a command writes, checked before the command does any work.

Every output flag of every command (:data:`OUTPUT_FLAGS`: ``--save-state``,
``--report``, ``-o/--output``, ``--out``) names a file that is written whole
after the command has read its inputs. :func:`check_outputs`, called once by
``cli.main`` for every command, refuses at once:

- an empty path, a directory, or a path whose folder does not exist;
- an output that is one of the command's inputs: the same device and inode
  (through any path, hard or symbolic link), or a file inside an input directory;
- two outputs of the command on one file.

A character device or a pipe (``/dev/stdout``, ``/dev/null``, a FIFO) is written
in place, so it is neither an input nor another output's file.
"""

from __future__ import annotations

import argparse
import glob
import os
import stat
from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from scorekit.cli._flags import OUTPUT_FLAGS
from scorekit.errors import ConfigError, message, raw

__all__ = ["OUTPUT_FLAGS", "check_outputs"]


def _named_paths(value: Any) -> Iterator[Path]:
    """The existing files and directories an argument value names (globs expanded)."""
    items = value if isinstance(value, list | tuple) else [value]
    for item in items:
        if not isinstance(item, str | os.PathLike) or not str(item):
            continue
        text = str(item)
        if glob.has_magic(text):
            yield from (Path(p) for p in glob.glob(text, recursive=True))
        elif os.path.exists(text):
            yield Path(text)


def _inside(target: os.stat_result, path: Path) -> bool:
    """Whether the directory ``path`` holds the file of ``target`` (at any depth)."""
    for dirpath, _, files in os.walk(path):
        for name in files:
            try:
                found = os.stat(os.path.join(dirpath, name))
            except OSError:
                continue
            if (found.st_dev, found.st_ino) == (target.st_dev, target.st_ino):
                return True
    return False


def _shown(text: str) -> str:
    """A path as an error message shows it: quoted, never shortened."""
    return raw(repr(text))


def _where(command: str, flag: str) -> str:
    return f"scorekit {command} {flag}" if command else f"scorekit {flag}"


def _checked(text: str, where: str) -> tuple[os.stat_result | None, str]:
    """The status of an output path (None when it is yet to be made) and its key.

    Refuses an empty path, a directory, and a new file whose folder does not
    exist. The key is the device and inode of an existing regular file, the
    resolved path of a new one, and empty for a device or a pipe (written in
    place).
    """
    if text == "":
        raise ConfigError(message(where, "the path is empty", raw("''"), "a file path"))
    try:
        status: os.stat_result | None = os.stat(text)
    except OSError:
        status = None
    if (status is not None and stat.S_ISDIR(status.st_mode)) or text.endswith(("/", os.sep)):
        raise ConfigError(message(where, "is a directory", _shown(text), "a file path"))
    if status is not None:
        if not stat.S_ISREG(status.st_mode):
            return status, ""
        return status, f"{status.st_dev}:{status.st_ino}"
    resolved = os.path.realpath(text)
    if not os.path.isdir(os.path.dirname(resolved)):
        raise ConfigError(
            message(
                where,
                "its folder does not exist",
                _shown(text),
                "a file in an existing folder",
            )
        )
    return None, resolved


def _key(text: str) -> str:
    """The key of an output path, without checks: as :func:`_checked` gives it."""
    try:
        status = os.stat(text)
    except OSError:
        return os.path.realpath(text)
    return f"{status.st_dev}:{status.st_ino}" if stat.S_ISREG(status.st_mode) else ""


def check_outputs(args: argparse.Namespace, command: str, *, checked: Collection[str] = ()) -> None:
    """Refuse, before any work, an output path that would lose data or cannot be written.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed arguments of a command. The values named in
        :data:`OUTPUT_FLAGS` are its outputs; every other value that names an
        existing file or directory (globs expanded) is an input.
    command : str
        The command's name, for the messages.
    checked : collection of str
        The outputs (argument names) that the command's library checks by this
        rule itself when it opens them, before any work, with messages of its own
        (``loadtest --out``, by :mod:`scorekit.loadtest`): here they are only
        refused empty or on the file of another output.

    Raises
    ------
    ConfigError
        An output path is empty, a directory, or in a folder that does not
        exist; an output is one of the inputs (same device and inode, or a file
        inside an input directory); or two outputs are the same file. Character
        devices and pipes are written in place and never refused as the same file.

    Examples
    --------
    >>> import argparse
    >>> check_outputs(argparse.Namespace(report="/dev/null", save_state="/dev/null"), "eval")
    >>> try:
    ...     check_outputs(argparse.Namespace(report=""), "eval")
    ... except ConfigError as exc:
    ...     print(exc)
    scorekit eval --report: the path is empty; got '', expected a file path.
    """
    written: dict[str, tuple[str, str]] = {}
    for attr, flag in OUTPUT_FLAGS.items():
        target = getattr(args, attr, None)
        if target is None:
            continue
        text = os.fspath(target)
        where = _where(command, flag)
        if attr in checked and text:
            key = _key(text)
        else:
            status, key = _checked(text, where)
            if key and status is not None:
                _refuse_inputs(args, text, status, where)
        if not key:
            continue
        if key in written:
            other_flag, other = written[key]
            raise ConfigError(
                message(
                    where,
                    f"the same file as {other_flag}",
                    raw(f"{text!r} (and {other_flag} {other!r})"),
                    "a file of its own for each output (one would replace the other)",
                )
            )
        written[key] = (flag, text)


def _refuse_inputs(args: argparse.Namespace, text: str, status: os.stat_result, where: str) -> None:
    """Refuse the existing regular file ``text`` when it is one of the command's inputs."""
    for name, value in vars(args).items():
        if name in OUTPUT_FLAGS or callable(value):
            continue
        for path in _named_paths(value):
            try:
                found = path.stat()
            except OSError:
                continue
            same = (found.st_dev, found.st_ino) == (status.st_dev, status.st_ino)
            if same or (stat.S_ISDIR(found.st_mode) and _inside(status, path)):
                raise ConfigError(
                    message(
                        where,
                        "the output file is one of the command's inputs",
                        raw(f"{text} (the input {path})"),
                        "a new file or one that is not read (it would be replaced)",
                    )
                )
