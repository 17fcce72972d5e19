"""``scorekit text``: BLEU and ROUGE of line-aligned hypothesis and reference files."""

from __future__ import annotations

import argparse
import warnings
from typing import Any, TextIO

from scorekit import api
from scorekit.cli._flags import (
    add_scale_flags,
    check_scale_flags,
    engine_options,
    format_flag,
    metric_flag,
    report_flag,
    write_report,
    write_warnings,
)
from scorekit.cli._output import Saved, display_values, save_state, write_values
from scorekit.text import TOKENIZERS

NAME = "text"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``text`` command's parser."""
    tx: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="BLEU and ROUGE of line-aligned hypothesis and reference files",
        description=(
            "Score a file of hypotheses (one sentence a line, UTF-8) against one or more "
            "reference files of the same length, like sacrebleu. BLEU is a fraction in [0, 1]; "
            "its signature goes to stderr. ROUGE prints precision, recall and F-measure."
        ),
    )
    tx.add_argument(
        "--refs", required=True, nargs="+", action="extend", metavar="FILE", help="references"
    )
    tx.add_argument("--hyps", required=True, metavar="FILE", help="hypotheses")
    metric_flag(
        tx,
        f"bleu, rouge1..rouge9, rougeL, rougeLsum (default: {' '.join(api.TEXT_DEFAULTS)})",
        short=True,
    )
    tx.add_argument("--tokenize", choices=TOKENIZERS, default="13a", help="BLEU tokenizer")
    tx.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU")
    tx.add_argument("--stemmer", action="store_true", help="Porter stemming for ROUGE")
    tx.add_argument(
        "--rouge-tokenizer",
        choices=("default", "unicode"),
        default="default",
        help="ROUGE tokenizer: default keeps a-z and 0-9 as rouge-score does; unicode keeps "
        "the letters and digits of every script",
    )
    format_flag(tx, "table", "json", "csv")
    add_scale_flags(tx, unit="lines")
    report_flag(tx)
    return tx


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Score the files with :func:`scorekit.api.evaluate_text` and print the values."""
    check_scale_flags(args, NAME)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = api.evaluate_text(
            args.hyps,
            args.refs,
            args.metric,
            tokenize=args.tokenize,
            lowercase=args.lowercase,
            stemmer=args.stemmer,
            rouge_tokenizer=args.rouge_tokenizer,
            **engine_options(args),
        )
    write_warnings((str(w.message) for w in caught), err)
    shown, notes = display_values(NAME, result.values, result.metrics, result.states)
    if args.save_state:
        saved = Saved(result.metrics, result.states, result.rows)
        save_state(args.save_state, NAME, "references_predictions", saved, columns=None)
    write_values(shown, args.format, out)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    write_report(args, result, err, title="scorekit text", inputs=[args.hyps, *args.refs])
    return 0
