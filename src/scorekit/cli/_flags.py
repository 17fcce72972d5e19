"""The flags several commands share, their argparse types, and what the scale flags ask for.

:mod:`scorekit.engines` is imported by the functions that need it, so the
``scorekit`` parser (:class:`Parser`) is built without it.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from scorekit.errors import ConfigError, message, raw

if TYPE_CHECKING:
    from scorekit.engines import DEFAULT_CHUNK_SIZE

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "OUTPUT_FLAGS",
    "Parser",
    "add_ci_flags",
    "add_compare_flags",
    "add_scale_flags",
    "check_scale_flags",
    "chunk_size",
    "ci_settings",
    "data_arg",
    "engine_options",
    "format_flag",
    "max_file_size_flag",
    "metric_flag",
    "number_above",
    "paired_settings",
    "positive_int",
    "progress",
    "refuse_with_comparison",
    "report_flag",
    "restore_environment",
    "scaled",
    "slo_flag",
    "state_format_flag",
    "write_comparison_report",
    "write_report",
    "write_warnings",
]


OUTPUT_FLAGS = {
    "save_state": "--save-state",
    "report": "--report",
    "output": "-o/--output",
    "out": "--out",
}
"""The options that name a file a command writes, by argument name, with their flag.

Every command's outputs are checked by one rule before it runs
(:func:`scorekit.cli._paths.check_outputs`): an option of one of these names is
an output wherever it appears, and names nothing else.
"""


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_CHUNK_SIZE":
        from scorekit.engines import DEFAULT_CHUNK_SIZE

        return DEFAULT_CHUNK_SIZE
    raise AttributeError(f"module 'scorekit.cli._flags' has no attribute {name!r}")


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors read ``scorekit: ...`` like the others."""

    def error(self, text: str) -> Any:
        """Print the usage and ``scorekit: <text>`` on stderr, and exit with status 2."""
        self.print_usage(sys.stderr)
        sys.stderr.write(f"scorekit: {text}\n")
        raise SystemExit(2)


def whole_number_from(low: int) -> Callable[[str], int]:
    """An argparse type: a whole number >= ``low``.

    Examples
    --------
    >>> whole_number_from(0)("0")
    0
    >>> whole_number_from(1)("0")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number >= 1, got '0'
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected a whole number >= {low}, got {text!r}")
        return value

    return parse


positive_int = whole_number_from(1)


def number_above(bound: float, *, or_equal: bool = False) -> Callable[[str], float]:
    """An argparse type: a finite number greater than ``bound`` (or equal to it).

    Examples
    --------
    >>> number_above(0)("2.5")
    2.5
    >>> number_above(0, or_equal=True)("0")
    0.0
    """
    relation = ">=" if or_equal else ">"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and (value >= bound if or_equal else value > bound)):
            raise argparse.ArgumentTypeError(
                f"expected a finite number {relation} {bound:g}, got {text!r}"
            )
        return value

    return parse


def data_arg(parser: argparse.ArgumentParser) -> None:
    """The positional data file of the commands that read a table."""
    parser.add_argument("data", metavar="DATA", help="the file (.csv, .tsv, .parquet, .jsonl, ...)")


def metric_flag(parser: argparse.ArgumentParser, help: str, *, short: bool = False) -> None:
    """``--metric NAME [NAME ...]`` (also ``-m`` when ``short``), repeatable."""
    flags = ("-m", "--metric") if short else ("--metric",)
    parser.add_argument(*flags, nargs="+", action="extend", metavar="NAME", help=help)


def by_flag(parser: argparse.ArgumentParser, help: str | None = None, metavar: str = "COL") -> None:
    """``--by COL [COL ...]``: each group of rows too (:class:`~scorekit.core.ByGroup`)."""
    parser.add_argument(
        "--by",
        nargs="+",
        metavar=metavar,
        help=help
        or "also evaluate each group of rows sharing the values of these columns (strings, "
        "integers or booleans; an empty cell is an error): the value overall and per group, "
        "the rows of each group, and the difference and ratio of the group values",
    )


def refuse_with_by(args: argparse.Namespace, command: str, **given: Any) -> None:
    """``--by`` with a flag it does not combine with (``ci=args.ci``...) is an error."""
    by = args.by if isinstance(args.by, str) else " ".join(args.by or ())
    for name, value in given.items():
        if value:
            flag = "--" + name.replace("_", "-")
            raise ConfigError(
                message(
                    command,
                    f"--by and {flag} are not taken together",
                    raw(f"--by {by}"),
                    f"one of --by and {flag}",
                )
            )


def slo_flag(parser: argparse.ArgumentParser, help: str) -> None:
    """``--slo KEY=TIME [KEY=TIME ...]``: the goodput objectives, repeatable."""
    parser.add_argument("--slo", nargs="+", action="extend", metavar="KEY=TIME", help=help)


_BEFORE: dict[str, str | None] = {}
"""The values the environment variables a flag sets for the run had before it."""


def _set_for_run(name: str, value: str) -> None:
    """Set the environment variable ``name`` until :func:`restore_environment`."""
    _BEFORE.setdefault(name, os.environ.get(name))
    os.environ[name] = value


def restore_environment() -> None:
    """Give back the values the run's flags replaced (``cli.main`` calls it as it returns)."""
    for name, value in _BEFORE.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    _BEFORE.clear()


class _MaxFileSize(argparse.Action):
    """``--max-file-size SIZE``: the limit of :func:`scorekit.io.read_limited` for this run."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        from scorekit import io

        try:
            size = io.parse_size(str(values))
        except ConfigError as exc:
            parser.error(str(exc))
        _set_for_run(io.MAX_FILE_SIZE_VARIABLE, str(size))
        setattr(namespace, self.dest, size)


class _StateWarning(argparse.Action):
    """``--state-warning SIZE``: the size past which a growing exact state is pointed out."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        from scorekit import io

        try:
            size = io.parse_size(str(values), "--state-warning")
        except ConfigError as exc:
            parser.error(str(exc))
        _set_for_run(io.STATE_WARNING_VARIABLE, str(size))
        setattr(namespace, self.dest, size)


def max_file_size_flag(parser: argparse.ArgumentParser, what: str) -> None:
    """``--max-file-size SIZE``: how large ``what`` (read whole into memory) may be."""
    parser.add_argument(
        "--max-file-size",
        action=_MaxFileSize,
        metavar="SIZE",
        help=f"the largest {what} read, after decompression, e.g. 4G "
        "(default 1G, or SCOREKIT_MAX_FILE_SIZE)",
    )


def format_flag(parser: argparse.ArgumentParser, *choices: str) -> None:
    """``--format`` with the output formats a command prints, the first (table) the default."""
    parser.add_argument("--format", choices=choices, default="table")


def add_scale_flags(parser: argparse.ArgumentParser, *, unit: str = "rows") -> None:
    """Add ``--chunk-size``, ``--quiet``, ``--engine``, ``--scheduler``, ``--workers`` and
    ``--save-state`` to a command's parser, in one argument group."""
    from scorekit.engines import DEFAULT_CHUNK_SIZE, engine_names

    group = parser.add_argument_group("scale")
    group.add_argument(
        "--chunk-size",
        type=positive_int,
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
        "cluster; spark: summarize partitions on Spark executors (default: read the whole "
        f"input at once; with --chunk-size, stream; chunks of {DEFAULT_CHUNK_SIZE:,} {unit} "
        "otherwise)",
    )
    group.add_argument(
        "--scheduler",
        metavar="tcp://HOST:PORT",
        help="the Dask scheduler to run on (--engine dask), or the Spark master "
        "(--engine spark: spark://HOST:7077, yarn, local[4]); default: a local cluster, or for "
        "Spark the active session if there is one",
    )
    group.add_argument(
        "--workers",
        type=positive_int,
        metavar="N",
        help="worker processes of the local Dask cluster (--engine dask), or cores of the "
        "local Spark session (--engine spark)",
    )
    group.add_argument(
        "--state-warning",
        action=_StateWarning,
        metavar="SIZE",
        help="warn when an exact state that grows with the data (roc_auc, average_precision) "
        "passes SIZE, and name its bounded form (default 256M, or SCOREKIT_STATE_WARNING_SIZE)",
    )
    group.add_argument(
        "--save-state",
        metavar="FILE",
        help="also write the metrics' states to FILE (JSON, gzip if it ends in .gz; binary "
        "arrays when large, see --state-format) for `scorekit merge`",
    )
    state_format_flag(group)


class _StateFormat(argparse.Action):
    """``--state-format json|binary|auto``: how this run's state files are written."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option: Any = None) -> None:
        from scorekit.statefiles import STATE_FORMAT_VARIABLE

        _set_for_run(STATE_FORMAT_VARIABLE, str(values))
        setattr(namespace, self.dest, values)


def state_format_flag(parser: Any) -> None:
    """``--state-format``: how ``--save-state`` writes its file (``SCOREKIT_STATE_FORMAT``)."""
    from scorekit.statefiles import STATE_FORMATS

    parser.add_argument(
        "--state-format",
        action=_StateFormat,
        choices=STATE_FORMATS,
        help="the --save-state file's format: json text, binary (the arrays in npy blocks, "
        "far smaller and faster), or auto: binary when the arrays take 1 MiB or more and "
        "the name does not end in .gz (default auto, or SCOREKIT_STATE_FORMAT)",
    )


def check_scale_flags(args: argparse.Namespace, command: str) -> None:
    """Reject scale flags that contradict each other, before any file is read."""
    from scorekit.engines import engine_names, engine_options

    engine = getattr(args, "engine", None)
    taken = engine_options(engine) if engine is not None else []
    for flag in ("scheduler", "workers"):
        if getattr(args, flag, None) is not None and flag not in taken:
            takers = [name for name in engine_names() if flag in engine_options(name)] or ["?"]
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"--{flag} is for the {takers[0].capitalize()} engine",
                    raw(f"--{flag} without --engine {takers[0]}"),
                    f"--engine {takers[0]} --{flag} ...",
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
    from scorekit.engines import DEFAULT_CHUNK_SIZE

    return int(args.chunk_size or DEFAULT_CHUNK_SIZE)


def progress(args: argparse.Namespace) -> bool | None:
    """``False`` with ``--quiet``, else ``None`` (a progress bar when stderr is a terminal)."""
    return False if args.quiet else None


def engine_options(args: argparse.Namespace) -> dict[str, Any]:
    """The scale flags as the keyword arguments of the :mod:`scorekit.api` functions.

    ``chunk_size`` is given only when a scale flag asks for chunks (the default
    size with ``--engine`` alone), so that without one the input is read whole.
    """
    return {
        "chunk_size": chunk_size(args) if scaled(args) else None,
        "engine": args.engine,
        "scheduler": args.scheduler,
        "workers": args.workers,
        "progress": progress(args),
    }


def write_warnings(texts: Iterable[str], err: TextIO) -> None:
    """Each distinct warning text once on stderr, as ``scorekit: warning: <text>``."""
    for text in dict.fromkeys(texts):
        err.write(f"scorekit: warning: {text}\n")


def add_ci_flags(parser: argparse.ArgumentParser, *, unit: str = "row", key: bool = True) -> None:
    """Add ``--ci``, ``--confidence``, ``--n-resamples``, ``--seed``, ``--ci-method`` and
    ``--key`` to a command's parser, in one argument group (``key=False``: no ``--key``,
    for commands whose units are identified by the data itself)."""
    from scorekit.api import CI_METHODS

    group = parser.add_argument_group("confidence intervals")
    group.add_argument(
        "--ci",
        action="store_true",
        help=f"add a bootstrap confidence interval (low, high) to every value; the unit "
        f"resampled is the {unit} (a Poisson bootstrap: the same interval in memory, in chunks, "
        "from merged shards and on Dask)",
    )
    group.add_argument(
        "--confidence", type=float, metavar="C", help="the intervals' coverage (default 0.95)"
    )
    group.add_argument(
        "--n-resamples",
        type=int,
        metavar="N",
        help="bootstrap replicates (default 1000), or a test's resamples or trials; at most "
        "1,000,000, and at most 134,217,728 (2**27) resamples times units where the test draws "
        "a matrix of them",
    )
    group.add_argument("--seed", type=int, metavar="N", help="the replicates' seed (default 0)")
    group.add_argument(
        "--ci-method",
        choices=CI_METHODS,
        help="how the bootstrap's bounds are read (default percentile); analytic: no "
        "bootstrap, Wilson's interval for accuracy, precision and recall and DeLong's for "
        "roc_auc, read from the merged counts (unweighted data), at any scale",
    )
    if key:
        group.add_argument(
            "--key",
            metavar="COL",
            help=f"a column of unique ids of the {unit}s, so that a {unit} gets the same "
            "bootstrap weights wherever it is read (needed on Dask with several partitions and "
            "for shards merged later; default: the row position)",
        )


_CI_FLAGS = {
    "confidence": "--confidence",
    "n_resamples": "--n-resamples",
    "seed": "--seed",
    "ci_method": "--ci-method",
    "key": "--key",
}


def ci_settings(args: argparse.Namespace, command: str) -> Any:
    """The :class:`scorekit.api.CI` the interval flags ask for, or ``None`` without ``--ci``."""
    from scorekit.api import CI

    given = {k: getattr(args, k, None) for k in _CI_FLAGS}
    if getattr(args, "ci", False) and comparing(args):
        raise ConfigError(
            message(
                f"scorekit {command}",
                "--ci is for one system; a comparison shows the interval of each difference",
                raw("--ci with several systems or --test"),
                "--ci alone, or a comparison",
            )
        )
    if comparing(args):
        return None
    if not getattr(args, "ci", False):
        extra = [flag for k, flag in _CI_FLAGS.items() if given[k] is not None]
        if extra:
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"{extra[0]} sets the confidence intervals",
                    raw(f"{extra[0]} without --ci"),
                    f"--ci {extra[0]} ...",
                )
            )
        return None
    if given["ci_method"] == "analytic":
        extra = [_CI_FLAGS[k] for k in ("n_resamples", "seed", "key") if given[k] is not None]
        if extra:
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"{extra[0]} sets the bootstrap, which analytic intervals do not draw",
                    raw(f"{extra[0]} with --ci-method analytic"),
                    "--ci-method analytic alone, or a bootstrap method",
                )
            )
    settings = {
        "confidence": given["confidence"],
        "n_resamples": given["n_resamples"],
        "seed": given["seed"],
        "method": given["ci_method"],
        "key": given["key"],
    }
    # the replicates' progress line on a terminal, as the reading's (none with --quiet)
    quiet = bool(getattr(args, "quiet", False))
    return CI(
        **{k: v for k, v in settings.items() if v is not None}, progress=False if quiet else None
    )


def add_compare_flags(
    parser: argparse.ArgumentParser,
    *,
    systems: str,
    default: str = "default with several: paired_bootstrap",
) -> None:
    """Add ``--test``, ``--alternative`` and ``--correction``: compare ``systems`` against the
    first one.

    ``default`` says in the help what happens without ``--test``. A test is a name
    of :data:`scorekit.stats.TESTS` with the options of
    :data:`scorekit.stats.TEST_OPTIONS` after a colon
    (``wilcoxon:zero_method=pratt``), read by :func:`scorekit.stats.parse_test`.

    The comparison also takes ``--confidence``, ``--n-resamples`` and ``--seed``
    (:func:`add_ci_flags`).
    """
    from scorekit.stats import (
        ALTERNATIVES,
        CORRECTION_ALIASES,
        CORRECTIONS,
        ONE_SIDED,
        TEST_OPTIONS,
        TESTS,
    )

    options = "; ".join(
        f"{test} takes "
        + ", ".join(
            f"{o} ({', '.join(str(v).lower() for v in values)})" for o, values in opts.items()
        )
        + f" as {test}:{next(iter(opts))}=..."
        for test, opts in TEST_OPTIONS.items()
    )
    group = parser.add_argument_group("comparing systems")
    group.add_argument(
        "--test",
        type=_test_spec,
        metavar="TEST",
        help=f"compare {systems} against the first (the baseline) with this test "
        f"({default}): {', '.join(TESTS)}; {options}; tukey is "
        "Tukey's HSD over all the systems at once; the table shows each difference, its "
        "interval, the p-value and a mark where it is below 1 - confidence",
    )
    group.add_argument(
        "--alternative",
        choices=ALTERNATIVES,
        help="the alternative hypothesis (default two-sided): greater tests that each system "
        "is better than the baseline (its metric larger), less that it is smaller; for "
        f"--test {', '.join(ONE_SIDED)}",
    )
    group.add_argument(
        "--correction",
        choices=CORRECTIONS,
        type=lambda name: CORRECTION_ALIASES.get(name, name),
        help="adjust the p-values for the several systems compared with the baseline: "
        "bonferroni, sidak, holm, holm_sidak, hochberg control the family-wise error rate; "
        "bh (Benjamini-Hochberg), by (Benjamini-Yekutieli) and two_stage_bh (two-stage "
        "Benjamini-Hochberg at the level 1 - confidence) the false discovery rate; "
        "statsmodels' names (" + ", ".join(CORRECTION_ALIASES) + ") are accepted too",
    )


def _test_spec(text: str) -> str:
    """``--test``'s value, checked by :func:`scorekit.stats.parse_test` (an argparse error)."""
    from scorekit.stats import parse_test

    try:
        parse_test(text, "--test")
    except ConfigError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def comparing(args: argparse.Namespace) -> bool:
    """Whether the flags ask for a comparison of systems."""
    return bool(getattr(args, "test", None)) or bool(getattr(args, "several", False))


def paired_settings(args: argparse.Namespace, command: str, **defaults: Any) -> Any:
    """The :class:`scorekit.api.Paired` of ``--test`` and the shared flags over ``defaults``
    (sacrebleu's settings for ``--paired-bs``), or ``None`` when not comparing."""
    from scorekit.api import Paired

    if not comparing(args) and not defaults:
        if getattr(args, "correction", None):
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    "--correction adjusts the p-values of a comparison",
                    raw("--correction without --test"),
                    "--test NAME --correction ...",
                )
            )
        if getattr(args, "alternative", None):
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    "--alternative is the hypothesis of a comparison",
                    raw("--alternative without --test"),
                    "--test NAME --alternative ...",
                )
            )
        return None
    if getattr(args, "ci", False):
        raise ConfigError(
            message(
                f"scorekit {command}",
                "--ci is for one system; a comparison shows the interval of each difference",
                raw("--ci with several systems or --test"),
                "--ci alone, or a comparison",
            )
        )
    if getattr(args, "ci_method", None) is not None:
        raise ConfigError(
            message(
                f"scorekit {command}",
                "--ci-method is for --ci",
                raw("--ci-method with a comparison"),
                "no --ci-method (the difference's interval is the test's)",
            )
        )
    settings = {
        "test": getattr(args, "test", None),
        "correction": getattr(args, "correction", None),
        "alternative": getattr(args, "alternative", None),
        "confidence": getattr(args, "confidence", None),
        "n_resamples": getattr(args, "n_resamples", None),
        "seed": getattr(args, "seed", None),
        "key": getattr(args, "key", None),
    }
    chosen = {k: v for k, v in settings.items() if v is not None}
    if "test" in defaults and chosen.get("test", defaults["test"]) != defaults["test"]:
        raise ConfigError(
            message(
                f"scorekit {command}",
                "two tests asked for",
                raw(f"--test {chosen['test']} with sacrebleu's {defaults['test']}"),
                "one of them",
            )
        )
    return Paired(**{**defaults, **chosen})


_COMPARE_EXCLUDES = {
    "per_query": "--per-query",
    "by": "--by",
    "save_state": "--save-state",
    "report": "--report",
    "chunk_size": "--chunk-size",
    "engine": "--engine",
    "sentence_level": "--sentence-level",
    "percent": "--percent",
}


def refuse_with_comparison(args: argparse.Namespace, command: str, *names: str) -> None:
    """A comparison reads its systems into memory: the scale flags and ``names`` are errors."""
    for name in ("chunk_size", "engine", *names):
        value = getattr(args, name, None)
        if value:
            flag = _COMPARE_EXCLUDES[name]
            raise ConfigError(
                message(
                    f"scorekit {command}",
                    f"{flag} does not apply to a comparison of systems (read in memory)",
                    raw(flag),
                    f"the comparison without {flag}",
                )
            )


def report_flag(parser: argparse.ArgumentParser) -> None:
    """``--report FILE.html``: also write the self-contained HTML report of the result."""
    parser.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write a self-contained HTML report (figures and tables) to FILE.html "
        "(needs: pip install 'scorekit[report]')",
    )


def raised(args: argparse.Namespace) -> list[str]:
    """The distinct texts of the warnings raised so far in the command (kept by ``cli.main``)."""
    return list(dict.fromkeys(str(w.message) for w in getattr(args, "raised", ())))


def write_report(
    args: argparse.Namespace, result: Any, err: TextIO, *, title: str, **options: Any
) -> None:
    """Write the report ``--report`` asks for (see :func:`scorekit.report.report`), if any."""
    path = getattr(args, "report", None)
    if not path:
        return
    from scorekit.report import report

    inputs = [str(v) for v in options.pop("inputs", ()) if v]
    notes = [*options.pop("notes", ()), *raised(args)]
    written = report(result, path, title=title, inputs=inputs, notes=notes, **options)
    err.write(f"scorekit: report written to {written}\n")


def write_comparison_report(
    args: argparse.Namespace, found: Any, err: TextIO, *, title: str, inputs: Sequence[Any]
) -> None:
    """Write the comparison report ``--report`` asks for (:func:`scorekit.report.comparison`).

    ``found`` is what a comparison of :mod:`scorekit.api` returns: its rows and
    the settings of the test (shown as a note, with the warnings raised).
    """
    path = getattr(args, "report", None)
    if not path:
        return
    from scorekit.cli._output import RESAMPLED_TESTS
    from scorekit.report import comparison

    paired = found.settings
    how = f"Test: {paired.test}"
    if paired.alternative != "two-sided":
        how += f", one-sided (alternative: {paired.alternative})"
    if paired.test in RESAMPLED_TESTS:
        how += f" ({paired.n_resamples} resamples, seed {paired.seed})"
    how += f"; correction for several systems: {paired.correction or 'none'}."
    written = comparison(
        [dataclasses.replace(row, metric=key) for key, row in found.comparisons],
        path,
        title=title,
        inputs=[str(v) for v in inputs if v],
        notes=[how, *raised(args), *(f"skipped: {s}" for s in found.skipped)],
    )
    err.write(f"scorekit: report written to {written}\n")
