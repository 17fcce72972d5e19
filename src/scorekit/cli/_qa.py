"""``scorekit qa``: SQuAD exact match and F1, like the official evaluation scripts."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from scorekit.cli._flags import (
    add_ci_flags,
    by_flag,
    ci_settings,
    format_flag,
    max_file_size_flag,
    refuse_with_by,
    report_flag,
    write_report,
)
from scorekit.cli._output import write_ci_values, write_values
from scorekit.core import option_choices
from scorekit.errors import ConfigError, message, raw
from scorekit.qa import ExactMatch

NAME = "qa"


class _Question:
    unit = "question"


_QUESTIONS = {"exact": _Question(), "f1": _Question()}
"""What the intervals of ``exact`` and ``f1`` resample, for the line that describes them."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``qa`` command's parser."""
    qa_parser: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="SQuAD exact match and F1, like the official evaluation scripts",
        description=(
            "Evaluate SQuAD predictions (a JSON object: question id -> answer) against the "
            "official dataset JSON. Scores are fractions (the official scripts print them "
            "times 100)."
        ),
    )
    qa_parser.add_argument("dataset", metavar="DATASET.json")
    qa_parser.add_argument("predictions", metavar="PREDICTIONS.json")
    qa_parser.add_argument("--na-probs", metavar="FILE", help="no-answer probabilities (v2.0)")
    qa_parser.add_argument(
        "--na-prob-thresh", type=float, default=1.0, help="no-answer threshold (v2.0)"
    )
    qa_parser.add_argument(
        "--version", choices=option_choices(ExactMatch, "version"), default="2.0"
    )
    max_file_size_flag(qa_parser, "JSON file")
    format_flag(qa_parser, "table", "json", "csv")
    by_flag(
        qa_parser,
        "also score each group of questions sharing these attributes: title (the article's "
        "title) or columns of --question-attributes; exact and f1 overall and per group, the "
        "questions of each group, and the difference and ratio of the group scores",
        metavar="ATTR",
    )
    qa_parser.add_argument(
        "--question-attributes",
        metavar="FILE",
        help="a CSV, TSV, Parquet or JSON Lines file with an id column (the question id) and "
        "the --by columns, one row per question",
    )
    add_ci_flags(qa_parser, unit="question", key=False)
    report_flag(qa_parser)
    return qa_parser


def _read_json(path: str, what: str) -> Any:
    from scorekit import io

    return io.read_json(path, what)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Read the JSON files, score them with :func:`scorekit.api.evaluate_squad` and print them."""
    from scorekit import api

    ci = ci_settings(args, NAME)
    dataset = _read_json(args.dataset, "a SQuAD file")
    predictions = _read_json(args.predictions, "a SQuAD predictions file")
    na_probs = (
        _read_json(args.na_probs, "a no-answer probabilities file") if args.na_probs else None
    )
    if args.by or args.question_attributes:
        return _by_group(args, ci, dataset, predictions, na_probs, out, err)
    result = api.evaluate_squad(
        dataset,
        predictions,
        version=args.version,
        na_probs=na_probs,
        na_prob_thresh=args.na_prob_thresh,
        ci=ci,
    )
    write_ci_values(dict(result), args.format, out, err, ci, _QUESTIONS)
    inputs = [args.dataset, args.predictions]
    squad = {
        "dataset": dataset,
        "predictions": predictions,
        "version": args.version,
        "na_probs": na_probs,
        "na_prob_thresh": args.na_prob_thresh,
    }
    write_report(args, dict(result), err, title="scorekit qa (SQuAD)", inputs=inputs, squad=squad)
    return 0


def _by_group(
    args: argparse.Namespace,
    ci: Any,
    dataset: Any,
    predictions: Any,
    na_probs: Any,
    out: TextIO,
    err: TextIO,
) -> int:
    """``--by``: exact and f1 overall and per group of questions."""
    from scorekit import api

    if not args.by:
        raise ConfigError(
            message(
                "scorekit qa",
                "--question-attributes needs --by",
                raw("--question-attributes alone"),
                "--by COL ... --question-attributes FILE",
            )
        )
    refuse_with_by(args, "scorekit qa", report=args.report)
    result = api.evaluate_squad(
        dataset,
        predictions,
        by=args.by,
        attributes=args.question_attributes,
        version=args.version,
        na_probs=na_probs,
        na_prob_thresh=args.na_prob_thresh,
        ci=ci,
    )
    if ci is not None:
        err.write(f"scorekit: {ci.describe(['question'])}, overall and in each group\n")
    write_values(dict(result), args.format, out)
    return 0
