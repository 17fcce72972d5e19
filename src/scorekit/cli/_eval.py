"""``scorekit eval``: the metrics of a file of labels, scores or values."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit import api
from scorekit.cli._flags import (
    add_ci_flags,
    add_scale_flags,
    check_scale_flags,
    ci_settings,
    data_arg,
    engine_options,
    format_flag,
    metric_flag,
    report_flag,
    write_report,
)
from scorekit.cli._output import save_state, write_ci_values
from scorekit.errors import ConfigError, message

NAME = "eval"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``eval`` command's parser."""
    ev: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="evaluate predictions in a CSV, TSV, Parquet or JSON Lines file",
        description=(
            "Evaluate labels, scores or predicted values stored in a file. Multi-label "
            "truth and predictions are several 0/1 columns; multiclass scores are one "
            "column per class, matched to the classes by name (p_cat holds the scores of "
            "cat) or given in order with --classes; multi-output "
            "regression names one --pred column per --true column."
        ),
    )
    data_arg(ev)
    ev.add_argument("--task", required=True, choices=api.TASKS)
    ev.add_argument(
        "--true", required=True, nargs="+", metavar="COL", help="true labels or target values"
    )
    ev.add_argument("--pred", nargs="+", metavar="COL", help="predicted labels or values")
    ev.add_argument("--score", nargs="+", metavar="COL", help="scores or probabilities")
    ev.add_argument(
        "--classes",
        nargs="+",
        metavar="CLASS",
        help="the class of each multiclass --score column, in order (when the column "
        "names do not name the classes)",
    )
    ev.add_argument("--weight", metavar="COL", help="sample weights")
    metric_flag(ev, "metric names such as accuracy, f1:macro, roc_auc (default: the task's set)")
    ev.add_argument("--pos-label", metavar="LABEL", help="the positive class (binary task)")
    format_flag(ev, "table", "json", "csv")
    add_scale_flags(ev, unit="rows")
    add_ci_flags(ev, unit="row")
    report_flag(ev)
    return ev


def report_notes(result: api.Evaluation, err: TextIO) -> None:
    """The warnings of an evaluation and the default metrics it skipped, on stderr."""
    for text in result.warnings:
        err.write(f"scorekit: warning: {text}\n")
    for text in result.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate the file with :func:`scorekit.api.evaluate_table` and print the values."""
    check_scale_flags(args, NAME)
    ci = ci_settings(args, NAME)
    result = api.evaluate_table(
        args.data,
        task=args.task,
        true=args.true,
        pred=args.pred,
        score=args.score,
        weight=args.weight,
        metrics=args.metric,
        pos_label=args.pos_label,
        classes=args.classes,
        ci=ci,
        **engine_options(args),
    )
    report_notes(result, err)
    if not result.values:
        raise ConfigError(
            message("scorekit eval", "no metric could be computed", None, "see the notes above")
        )
    if args.save_state:
        save_state(args.save_state, NAME, args.task, result)
    write_ci_values(result.values, args.format, out, err, ci, result.metrics)
    write_report(args, result, err, title=f"scorekit eval --task {args.task}", inputs=[args.data])
    return 0
