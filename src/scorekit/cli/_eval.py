"""``scorekit eval``: the metrics of a file of labels, scores or values."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit import api
from scorekit.classification import OBJECTIVES
from scorekit.cli._flags import (
    add_ci_flags,
    add_compare_flags,
    add_scale_flags,
    by_flag,
    check_scale_flags,
    ci_settings,
    data_arg,
    engine_options,
    format_flag,
    metric_flag,
    paired_settings,
    refuse_with_comparison,
    report_flag,
    write_comparison_report,
    write_report,
)
from scorekit.cli._output import ci_header, save_state, write_ci_values, write_comparisons
from scorekit.errors import ConfigError, message, raw

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
    ev.add_argument(
        "--threshold",
        type=float,
        metavar="T",
        help="binary --score values >= T are predicted positive, for the label metrics",
    )
    ev.add_argument(
        "--best-threshold",
        choices=OBJECTIVES,
        metavar="OBJECTIVE",
        help="also report the score threshold that optimises f1, youden or cost, with the "
        "metrics there (binary --score)",
    )
    format_flag(ev, "table", "json", "csv")
    by_flag(ev)
    add_scale_flags(ev, unit="rows")
    add_ci_flags(ev, unit="row")
    add_compare_flags(
        ev,
        systems="the --pred (or binary --score) columns",
        default="needed to compare several columns",
    )
    report_flag(ev)
    return ev


def report_notes(result: api.EvaluationResult, err: TextIO) -> None:
    """The default metrics an evaluation skipped, on stderr."""
    for text in result.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate the file with :func:`scorekit.api.evaluate_table` and print the values."""
    check_scale_flags(args, NAME)
    paired = paired_settings(args, NAME)
    if paired is not None:
        return _compare(args, paired, out, err)
    ci = ci_settings(args, NAME)
    if args.by and args.report:
        raise ConfigError(
            message(
                "scorekit eval",
                "--report does not show values per group",
                raw("--by " + " ".join(args.by)),
                "--by without --report",
            )
        )
    result = api.evaluate_table(
        args.data,
        task=args.task,
        true=args.true,
        pred=args.pred,
        score=args.score,
        weight=args.weight,
        metrics=_with_best_threshold(args),
        pos_label=args.pos_label,
        classes=args.classes,
        ci=ci,
        by=args.by,
        threshold=args.threshold,
        keep_states=bool(args.save_state or args.report),
        **engine_options(args),
    )
    report_notes(result, err)
    if not result.values:
        raise ConfigError(
            message("scorekit eval", "no metric could be computed", None, "see the notes above")
        )
    if args.save_state:
        save_state(args.save_state, NAME, args.task, result, **ci_header(ci))
    write_ci_values(result.values, args.format, out, err, ci, result.metrics)
    write_report(
        args,
        result,
        err,
        title=f"scorekit eval --task {args.task}",
        inputs=[args.data],
        states=_pair_sample(args, result),
    )
    return 0


def _pair_sample(args: argparse.Namespace, result: api.EvaluationResult) -> dict[str, Any] | None:
    """For a regression ``--report``: the sample of (true, predicted) pairs its figures need.

    The result's own ``prediction_sample`` state when a metric kept one, else
    that metric evaluated over the data (another pass over it).
    """
    if not args.report or args.task != "regression":
        return None
    from scorekit.regression import PairSample

    if any(isinstance(s, PairSample) for s in result.states.values()):
        return None
    found = api.evaluate_table(
        args.data,
        task=args.task,
        true=args.true,
        pred=args.pred,
        weight=args.weight,
        metrics=["prediction_sample"],
        **engine_options(args),
    )
    return dict(found.states)


def _with_best_threshold(args: argparse.Namespace) -> list[str] | None:
    """The metrics asked for, with ``best_threshold`` when ``--best-threshold`` names one."""
    if args.best_threshold is None:
        return args.metric  # type: ignore[no-any-return]
    names = (
        list(args.metric)
        if args.metric
        else api.default_metrics(
            args.task,
            has_pred=args.pred is not None or args.threshold is not None,
            has_score=args.score is not None,
        )
    )
    return [*names, f"best_threshold:{args.best_threshold}"]


def _compare(args: argparse.Namespace, paired: api.Paired, out: TextIO, err: TextIO) -> int:
    """``--test``: the --pred (or --score) columns compared, the first the baseline."""
    refuse_with_comparison(args, NAME, "save_state", "by")
    if (args.pred is None) == (args.score is None) or len(args.true) != 1:
        raise ConfigError(
            message(
                "scorekit eval --test",
                "compares the columns of one flag against one --true column",
                None,
                "--true COL and either --pred A B ... or --score A B ...",
            )
        )
    found = api.compare_table(
        args.data,
        task=args.task,
        true=args.true[0],
        systems=args.score or args.pred,
        scores=args.score is not None,
        metrics=args.metric,
        weight=args.weight,
        pos_label=args.pos_label,
        paired=paired,
    )
    for text in found.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")
    write_comparisons(found, args.format, out)
    title = f"scorekit eval --task {args.task} --test {paired.test}"
    write_comparison_report(args, found, err, title=title, inputs=[args.data])
    return 0
