"""``scorekit merge``: the values of the whole from the state files of its shards."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit.cli._output import _write_values
from scorekit.errors import ConfigError, choices, message


def _cmd_merge(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import _scale
    from scorekit.api import merge_with_header, save_states

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, header = merge_with_header(args.states)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    command = str(header.get("command"))
    if command == "throughput":
        return _merged_throughput(args, result, header, out, err)
    shown, notes = _scale.display_values(command, result.values, result.metrics, result.states)
    if args.save_state:
        entries = {key: (result.metrics[key], result.states[key]) for key in result.states}
        save_states(
            args.save_state,
            entries,
            command=command,
            input=header.get("input"),
            columns=header.get("columns"),
            options=header.get("options"),
            rows=result.rows,
            tallies=header.get("tallies"),
        )
    _write_values(shown, args.format, out)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    err.write(f"scorekit: merged {len(args.states)} state files, {result.rows:,} rows\n")
    return 0


def _merged_throughput(
    args: argparse.Namespace, result: Any, header: dict[str, Any], out: TextIO, err: TextIO
) -> int:
    import warnings

    from scorekit import throughput
    from scorekit.api import save_states
    from scorekit.throughput._report import FORMATS

    if args.format not in FORMATS:
        raise ConfigError(
            message(
                "scorekit merge",
                "throughput states print as a report",
                args.format,
                choices(FORMATS),
            )
        )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = throughput.report_from_states(result.states)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    if args.save_state:
        save_states(
            args.save_state,
            {key: (result.metrics[key], result.states[key]) for key in result.states},
            command="throughput",
            input=header.get("input"),
            rows=result.rows,
            tallies=header.get("tallies"),
        )
    out.write(throughput.format_report(report, args.format))
    err.write(f"scorekit: merged {len(args.states)} state files, {result.rows:,} rows\n")
    return 0
