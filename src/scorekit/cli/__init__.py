"""The ``scorekit`` command: evaluate files, list and explain metrics, run the demo.

::

    scorekit eval DATA --task binary|multiclass|multilabel|regression --true COL [COL ...]
                  (--pred COL [COL ...] | --score COL [COL ...]) [--weight COL]
                  [--metric NAME ...] [--format table|json|csv] [SCALE] [CI | TEST]
    scorekit features DATA --target COL [--criterion NAME] [--features COL ...]
                  [--exclude COL ...] [--categorical COL ...] [--weight COL]
                  [--base B] [--top N] [--format table|json|csv]
    scorekit rank QRELS RUN [RUN ...] [-m NAME ...] [--per-query] [--missing skip|zero]
                  [--relevance-level L] [--gain linear|exp] [--format table|json|csv|trec]
                  [SCALE] [CI | TEST]
    scorekit text --refs FILE [--refs FILE ...] --hyps FILE [FILE ...] [-m bleu rouge1 ...]
                  [--tokenize 13a] [--lowercase] [--stemmer] [--format table|json|csv]
                  [SCALE] [CI | TEST | --paired-bs | --paired-ar]
    scorekit merge STATE... [--format table|json|csv] [--save-state FILE]
    scorekit qa DATASET.json PREDICTIONS.json [--na-probs FILE] [--version 2.0|1.1] [CI]
    scorekit throughput RECORDS [--slo ttft=200ms ...] [--format table|json] [SCALE] [CI]
    scorekit loadtest --url URL --model NAME --prompts FILE.jsonl
                  [--concurrency N | --rate R] [--num-requests N] [--duration S]
                  [--max-tokens N] [--endpoint chat|completions] [--timeout S] [--seed N]
                  [--slo ttft=200ms ...] [--out FILE] [--format table|json]
                  [--api-key KEY] [--quiet]
    scorekit list [--format table|json]
    scorekit explain NAME
    scorekit demo [--data DIR]
    scorekit --version

SCALE is ``[--chunk-size N] [--quiet] [--engine stream|dask|spark] [--scheduler
tcp://HOST:PORT or a Spark master | --workers N] [--save-state FILE]``: read the
input in chunks, or run on a Dask cluster or Spark, and save the states for
``scorekit merge``.

CI is ``--ci [--confidence C] [--n-resamples N] [--seed N] [--ci-method
percentile|basic|bca] [--key COL]``: a bootstrap interval of every value. TEST is
``--test NAME [--correction METHOD]`` (with ``--confidence``,
``--n-resamples``, ``--seed``): the systems (columns, runs, hypothesis files)
compared with the first, the p-values adjusted by one of
:data:`scorekit.stats.CORRECTIONS`.

Metrics come from the registry, so every registered metric is available by its
name (``f1:macro``, ``roc_auc``). Each metric's ``inputs`` kind decides whether
it receives ``(y_true, y_pred)`` or ``(y_true, y_score)``. User errors print
``scorekit: <message>`` on stderr and exit with status 2.

The command lives in this package: one module per command (``NAME``,
``add_parser`` and ``run``, which translates the flags into one call of
:mod:`scorekit.api` or of a family's public function), registered in
:mod:`._commands` (:func:`register_command`) with its one-line help, so that
``scorekit --help`` imports no command's module and a run only the module of
the command it names; the flags several commands share are in :mod:`._flags`,
:mod:`._output` prints values and writes state files, and :mod:`._paths` checks
every file a command writes before it runs.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import importlib
import io
import os
import sys
import threading
import traceback
import warnings
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from scorekit.cli._commands import (
    build_parser,
    command_module,
    command_names,
    register_command,
)
from scorekit.cli._flags import OUTPUT_FLAGS, restore_environment, write_warnings
from scorekit.core import load_plugins
from scorekit.errors import PluginWarning, ScorekitError

if TYPE_CHECKING:
    from scorekit.api import TASKS, EvaluationResult, default_metrics, evaluate_table

__all__ = [
    "TASKS",
    "EvaluationResult",
    "build_parser",
    "command_names",
    "default_metrics",
    "evaluate_table",
    "main",
    "register_command",
    "run",
]

_API_NAMES = ("TASKS", "EvaluationResult", "default_metrics", "evaluate_table")
"""The names of :mod:`scorekit.api` this package also gives, imported on first use."""


def __getattr__(name: str) -> Any:
    if name in _API_NAMES:
        value = getattr(importlib.import_module("scorekit.api"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'scorekit.cli' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_API_NAMES))


@contextlib.contextmanager
def _captured_exit() -> Iterator[list[int]]:
    code: list[int] = []
    try:
        yield code
    except SystemExit as exc:
        code.append(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2))


_OUTPUT_OPTIONS = tuple(OUTPUT_FLAGS)
"""The options that name a file a command writes (``_flags.OUTPUT_FLAGS``)."""


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse, before the command runs, an output path it must not write (``_paths``).

    Only a command given an output path imports :mod:`._paths` for the check. A
    command module's ``CHECKED_OUTPUTS`` names the outputs its library checks by
    the same rule itself (:func:`._paths.check_outputs`).
    """
    if all(getattr(args, name, None) is None for name in _OUTPUT_OPTIONS):
        return
    from scorekit.cli._paths import check_outputs

    command = str(getattr(args, "command", "") or "")
    module = command_module(command) if command in command_names() else None
    check_outputs(args, command, checked=getattr(module, "CHECKED_OUTPUTS", ()))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``scorekit`` command; return the exit status (0 ok, 2 user error).

    The installed plug-ins (entry-point group ``scorekit.plugins``) are loaded
    first, so their commands, metrics, formats and engines are known. The
    limits a flag sets for the run (``--max-file-size``, ``--state-warning``)
    are the run's: the environment is as before when ``main`` returns.
    """
    try:
        return _main(argv)
    finally:
        restore_environment()


def _main(argv: Sequence[str] | None) -> int:
    out, err = sys.stdout, sys.stderr
    buffer, notes = io.StringIO(), io.StringIO()
    failure: str | None = None
    status = 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # as Python's default filters: objects of earlier work collected meanwhile are not
        # the command's to report
        warnings.simplefilter("ignore", ResourceWarning)
        load_plugins()
        # a plug-in that fails to load is a line on stderr, not a traceback
        for item in [w for w in caught if issubclass(w.category, PluginWarning)]:
            err.write(f"{item.message}\n")
            caught.remove(item)
        arguments = sys.argv[1:] if argv is None else list(argv)
        parser = build_parser(arguments)
        with _captured_exit() as code:
            args = parser.parse_args(arguments)
        if code:
            write_warnings((str(w.message) for w in caught), err)
            return code[0]
        args.raised = caught
        try:
            _check_outputs(args)
            status = args.handler(args, buffer, notes)
        except ScorekitError as exc:
            text = str(exc).removeprefix("scorekit:").removeprefix("scorekit ").lstrip()
            # "scorekit eval: ..." is shown as "scorekit: eval: ..."
            failure = f"scorekit: {text}"
    # every warning of the command, once each, then what the command wrote on stderr
    write_warnings((str(w.message) for w in caught), err)
    err.write(notes.getvalue())
    if failure is not None:
        err.write(failure + "\n")
        return 2
    out.write(buffer.getvalue())
    return status


def run() -> NoReturn:
    """Run the ``scorekit`` command as its own process and end it with :func:`main`'s status.

    The ``scorekit`` executable and ``python -m scorekit`` call this. The process
    ends without the interpreter's own shutdown: pyarrow reads files ahead in
    threads of its own which call back into Python, and Python ends a thread that
    does so while it shuts down in the middle of pyarrow's code, which aborts the
    process (``terminate called without an active exception``) after the command
    has printed its result. What that shutdown does that a command relies on is
    done first, in its order: the threads that are not daemons are joined, the
    exit handlers run (temporary files are removed, clusters closed), and the
    standard streams are flushed. So it is however the command ends: Ctrl-C is
    ``scorekit: interrupted`` and status 130, an unexpected error its traceback
    and status 1, output that cannot be written (a full disk) a message and
    status 120, as Python's own shutdown gives; a reader that has gone
    (``scorekit ... | head``) is not an error.
    """
    try:
        status = _status(main())
    except SystemExit as exc:
        status = _status(exc.code)
    except KeyboardInterrupt:
        sys.stderr.write("scorekit: interrupted\n")
        status = 130
    except BaseException:
        traceback.print_exc()
        status = 1
    _end(status)


def _status(code: object) -> int:
    """An exit status as ``SystemExit`` takes one: None is 0, another non-int is printed, 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    sys.stderr.write(f"{code}\n")
    return 1


def _end(status: int) -> NoReturn:
    # Python's own first step of its shutdown: every non-daemon thread is joined
    # (an idle pool of ``concurrent.futures`` is told to end first)
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    except (OSError, ValueError) as exc:
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"scorekit: cannot write the output; got {exc}\n")
        status = 120
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.flush()
    os._exit(status)
