"""``scorekit merge``: the values of the whole from the state files of its shards."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit.api import CI, merge_with_header, save_states
from scorekit.cli._commands import command_module
from scorekit.cli._flags import (
    format_flag,
    max_file_size_flag,
    report_flag,
    state_format_flag,
    write_report,
)
from scorekit.cli._output import write_values
from scorekit.core import ByGroup, Grouped
from scorekit.errors import ConfigError, message, raw
from scorekit.stats import Bootstrap, Interval

NAME = "merge"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``merge`` command's parser."""
    mg: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="merge the state files of shards (--save-state) and print the values of the whole",
        description=(
            "Merge state files written by --save-state on shards of the data (on one machine "
            "or many) and print the metrics of all the data, as the command that wrote them "
            "prints them. The files must hold the same metrics with the same settings, from "
            "the same command and columns, in a state format this scorekit reads."
        ),
    )
    mg.add_argument(
        "states",
        nargs="+",
        metavar="STATE",
        help="state files (JSON, gzip JSON or binary), read one at a time; a binary file is "
        "limited by the memory its arrays take once read (8G, or --max-file-size); exact "
        "roc_auc:ranges=N states merge one range at a time, in bounded memory",
    )
    format_flag(mg, "table", "json", "csv")
    report_flag(mg)
    max_file_size_flag(mg, "state file")
    mg.add_argument(
        "--save-state",
        metavar="FILE",
        help="also write the merged states to FILE (with --part, the range file: required)",
    )
    mg.add_argument(
        "--part",
        type=_range_index,
        metavar="I",
        help="merge range I (from 0) only of the states split by score ranges "
        "(roc_auc:ranges=N) and write it, with the merged shell and the other metrics' "
        "merged states, to the --save-state FILE: each range by a process of its own, "
        "in the memory of one range; `scorekit merge` of the N range files, in any order, "
        "prints the values of the whole",
    )
    state_format_flag(mg)
    mg.add_argument(
        "--allow-duplicates",
        action="store_true",
        help="merge files of identical content (refused by default: a copied shard would "
        "count twice); the same file through two paths or links is always refused",
    )
    mg.add_argument(
        "--allow-different-runs",
        action="store_true",
        help="merge throughput states of load tests of different settings (url, model, "
        "endpoint, flags, dataset, tokenizer; refused by default)",
    )
    return mg


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Merge the files with :func:`scorekit.api.merge_with_header` and print the values."""
    if args.part is not None:
        return _merge_part(args, err)
    result, header = merge_with_header(
        args.states,
        allow_duplicates=args.allow_duplicates,
        allow_different_runs=args.allow_different_runs,
    )
    command = str(header.get("command"))
    # a command shows the merged states of its own runs as it shows its results
    module = command_module(command)
    show = getattr(module, "show_merged", None)
    status = None if show is None else show(args, result, header, out, err)
    if status is not None:
        return int(status)
    display = getattr(module, "displayed", None)
    shown, notes = (
        (dict(result.values), [])
        if display is None
        else display(result.values, result.metrics, result.states, details=args.format == "json")
    )
    if args.save_state:
        entries = {key: (result.metrics[key], result.states[key]) for key in result.states}
        _save_merged(args.save_state, entries, header, command, result.rows)
    asked = (header.get("options") or {}).get("ci")
    if isinstance(asked, dict) and any(
        isinstance(v.overall if isinstance(v, ByGroup) else v, Interval) for v in shown.values()
    ):
        found = [m.inner if isinstance(m, Grouped) else m for m in result.metrics.values()]
        boots = [m for m in found if isinstance(m, Bootstrap)]
        note = _interval_note(asked, boots)
        write_values(shown, args.format, out, note if args.format == "table" else "")
        if args.format != "table":
            err.write(f"scorekit: {note}\n")
    else:
        write_values(shown, args.format, out)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    ranges = header.get("range_files")
    assembled = f" (the {ranges} ranges of one merge)" if ranges else ""
    err.write(
        f"scorekit: merged {merged_files(len(args.states))}{assembled}, {result.rows:,} rows\n"
    )
    write_report(args, result, err, title=f"scorekit merge ({command})", inputs=args.states)
    return 0


def _range_index(text: str) -> int:
    """``--part I``: a range index, an integer >= 0."""
    try:
        index = int(text)
    except ValueError:
        index = -1
    if index < 0:
        raise argparse.ArgumentTypeError(
            f"not a range index; got {text!r}, expected an integer >= 0, such as 0"
        )
    return index


def _save_merged(
    path: str,
    entries: Any,
    header: dict[str, Any],
    command: str,
    rows: int,
    part: dict[str, Any] | None = None,
) -> None:
    """Write merged states with the input files' header (a range file with ``part``)."""
    save_states(
        path,
        entries,
        command=command,
        input=header.get("input"),
        columns=header.get("columns"),
        options=header.get("options"),
        rows=rows,
        tallies=header.get("tallies"),
        part=part,
    )


def _merge_part(args: argparse.Namespace, err: TextIO) -> int:
    """``merge --part I``: range ``I`` of the merge, written to the ``--save-state`` file."""
    if not args.save_state:
        raise ConfigError(
            message(
                "scorekit merge --part",
                "a range file needs a path",
                None,
                "--save-state FILE, where the range file is written",
            )
        )
    if args.report:
        raise ConfigError(
            message(
                "scorekit merge --part",
                "one range has no values to report",
                raw(f"--report {args.report}"),
                "--report on the merge of the range files",
            )
        )
    result, header = merge_with_header(
        args.states,
        allow_duplicates=args.allow_duplicates,
        allow_different_runs=args.allow_different_runs,
        part=args.part,
    )
    found = header["range"]
    _save_merged(
        args.save_state, result, header, str(header.get("command")), result.rows, part=found
    )
    err.write(
        f"scorekit: merged range {found['index']} of {found['count']} of "
        f"{merged_files(len(args.states))}, {result.rows:,} rows, into {args.save_state}\n"
    )
    return 0


def _interval_note(asked: dict[str, Any], boots: list[Any]) -> str:
    """How the merged intervals were made, from the bootstraps' settings (analytic
    intervals draw none)."""
    if not boots:
        confidence = float(asked.get("confidence", 0.95))
        return CI(confidence=confidence, method=str(asked.get("method"))).describe([])
    first = boots[0]
    units = ", ".join(dict.fromkeys(b.unit for b in boots))
    keyed = f"key {first.key}" if first.key else "by id" if first.wraps else "by position"
    return (
        f"{100 * float(asked.get('confidence', 0.95)):g}% {asked.get('method', 'percentile')} "
        f"intervals: Poisson bootstrap, {first.n_resamples} resamples, seed {first.seed}, "
        f"unit: {units} ({keyed})"
    )


def merged_files(count: int) -> str:
    """``1 state file``, ``2 state files``."""
    return f"{count} state file{'' if count == 1 else 's'}"
