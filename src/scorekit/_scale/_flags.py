"""The scale flags of the commands and what they ask for."""

from __future__ import annotations

import argparse

from scorekit.engines import DEFAULT_CHUNK_SIZE, engine_names
from scorekit.errors import ConfigError, message, raw

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "add_scale_flags",
    "check_scale_flags",
    "chunk_size",
    "progress",
    "scaled",
]


def add_scale_flags(parser: argparse.ArgumentParser, *, unit: str = "rows") -> None:
    """Add ``--chunk-size``, ``--quiet``, ``--engine``, ``--scheduler``, ``--workers`` and
    ``--save-state`` to a command's parser, in one argument group."""
    # the command line's parser calls this: its number type is loaded by then
    from scorekit.cli._parser import _positive_int

    group = parser.add_argument_group("scale")
    group.add_argument(
        "--chunk-size",
        type=_positive_int,
        metavar="N",
        help=f"read and evaluate {unit} N at a time, merging the states (memory bounded by N)",
    )
    group.add_argument(
        "--quiet", action="store_true", help="no progress bar (shown on a terminal when chunked)"
    )
    group.add_argument(
        "--engine",
        choices=engine_names(),
        help="stream: read in chunks on this machine; dask: summarize partitions on a Dask "
        f"cluster (default: read the whole input at once; with --chunk-size, stream; chunks of "
        f"{DEFAULT_CHUNK_SIZE:,} {unit} otherwise)",
    )
    group.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="the Dask scheduler to run on (--engine dask; default: a local cluster)",
    )
    group.add_argument(
        "--workers",
        type=_positive_int,
        metavar="N",
        help="worker processes of the local Dask cluster (--engine dask)",
    )
    group.add_argument(
        "--save-state",
        metavar="FILE",
        help="also write the metrics' states to FILE (JSON, gzip if it ends in .gz) for "
        "`scorekit merge`",
    )


def check_scale_flags(args: argparse.Namespace, command: str) -> None:
    """Reject scale flags that contradict each other, before any file is read."""
    engine = getattr(args, "engine", None)
    for flag in ("scheduler", "workers"):
        if getattr(args, flag, None) is not None and engine != "dask":
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"--{flag} is for the Dask engine",
                    raw(f"--{flag} without --engine dask"),
                    f"--engine dask --{flag} ...",
                )
            )
    if getattr(args, "scheduler", None) is not None and getattr(args, "workers", None) is not None:
        raise ConfigError(
            message(
                f"scorekit {command}",
                "--scheduler and --workers exclude each other",
                raw("both"),
                "--scheduler to use a running cluster, or --workers for a local one",
            )
        )


def scaled(args: argparse.Namespace) -> bool:
    """Whether a scale flag asks for chunked or distributed evaluation."""
    return args.chunk_size is not None or args.engine is not None


def chunk_size(args: argparse.Namespace) -> int:
    """The chunk size asked for, or the default one."""
    return int(args.chunk_size or DEFAULT_CHUNK_SIZE)


def progress(args: argparse.Namespace) -> bool | None:
    """``False`` with ``--quiet``, else ``None`` (a progress bar when stderr is a terminal)."""
    return False if args.quiet else None
