"""``scorekit text``: BLEU, chrF, TER, error rates and ROUGE of line-aligned text files."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from scorekit import api
from scorekit.cli._flags import (
    add_ci_flags,
    add_compare_flags,
    add_scale_flags,
    check_scale_flags,
    ci_settings,
    engine_options,
    format_flag,
    metric_flag,
    paired_settings,
    refuse_with_by,
    refuse_with_comparison,
    report_flag,
    write_comparison_report,
    write_report,
)
from scorekit.cli._output import (
    Saved,
    ci_header,
    number,
    plain,
    save_state,
    write_ci_values,
    write_comparisons,
)
from scorekit.core import ByGroup, Metric, State, option_choices
from scorekit.errors import ConfigError, message, raw
from scorekit.stats import Interval, format_paired
from scorekit.text import BLEU

NAME = "text"

PERCENT_METRICS = ("bleu", "chrf", "chrf++", "ter")
"""The metrics ``--percent`` shows on sacrebleu's 0-100 scale."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``text`` command's parser."""
    tx: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="BLEU, chrF, TER, WER and ROUGE of line-aligned hypothesis and reference files",
        description=(
            "Score a file of hypotheses (one sentence a line, UTF-8) against one or more "
            "reference files of the same length, like sacrebleu. Scores are fractions in [0, 1] "
            "(--percent: BLEU, chrF and TER on sacrebleu's 0-100 scale); BLEU's signature goes "
            "to stderr. ROUGE prints precision, recall and F-measure."
        ),
    )
    tx.add_argument(
        "--refs", required=True, nargs="+", action="extend", metavar="FILE", help="references"
    )
    tx.add_argument(
        "--hyps",
        required=True,
        nargs="+",
        metavar="FILE",
        help="hypotheses; several files are systems compared with the first (see --test)",
    )
    metric_flag(
        tx,
        "bleu, chrf, chrf++, ter, wer, cer, mer, wil, wip, rouge1..rouge9, rougeL, rougeLsum, "
        "rougeW, rougeS<d>, rougeSU<d>; options after a colon (chrf:beta=1) "
        f"(default: {' '.join(api.TEXT_DEFAULTS)})",
        short=True,
    )
    options = tx.add_argument_group(
        "metric options",
        "defaults for every requested metric that has the option, named bare or with options; "
        "an option written in a metric's name wins (rougeL:stemmer=false), and a flag that no "
        "requested metric takes is an error",
    )
    options.add_argument(
        "--tokenize",
        choices=option_choices(BLEU, "tokenize"),
        default=None,
        help="BLEU tokenizer (default: 13a)",
    )
    options.add_argument(
        "--lowercase", action="store_true", default=None, help="case-insensitive BLEU and chrF"
    )
    options.add_argument(
        "--stemmer", action="store_true", default=None, help="Porter stemming for ROUGE"
    )
    options.add_argument(
        "--tokenizer",
        "--rouge-tokenizer",
        dest="rouge_tokenizer",
        choices=tuple(api.ROUGE_TOKENIZERS),
        default=None,
        help="ROUGE tokenizer: default keeps a-z and 0-9 as rouge-score does; unicode keeps "
        "the letters and digits of every script; whitespace splits at whitespace",
    )
    tx.add_argument(
        "--percent",
        action="store_true",
        help="BLEU, chrF and TER on sacrebleu's 0-100 scale, labelled (%%)",
    )
    tx.add_argument(
        "--sentence-level",
        action="store_true",
        help="one line of scores per segment, written as the lines are read (as sacrebleu "
        "--sentence-level); --chunk-size sets the lines read at a time",
    )
    format_flag(tx, "table", "json", "csv")
    tx.add_argument(
        "--by",
        metavar="NAME",
        help="the name of the grouping of --groups (e.g. domain): each score is also given per "
        "group of lines, with the lines of each group and the difference and ratio of the "
        "group scores",
    )
    tx.add_argument(
        "--groups",
        metavar="FILE",
        help="one group label per line, line-aligned with --hyps (used with --by)",
    )
    add_scale_flags(tx, unit="lines")
    add_ci_flags(tx, unit="segment", key=False)
    add_compare_flags(tx, systems="the --hyps files")
    sacre = tx.add_argument_group("comparing systems").add_mutually_exclusive_group()
    sacre.add_argument(
        "--paired-bs",
        action="store_true",
        help="sacrebleu's paired bootstrap resampling test of the --hyps files (BLEU, chrF, "
        "TER): its numbers for its seed 12345 and 1000 resamples (--seed, --n-resamples), "
        "printed as its table",
    )
    sacre.add_argument(
        "--paired-ar",
        action="store_true",
        help="sacrebleu's paired approximate randomization test: 10000 trials (--n-resamples), "
        "seed 12345 (--seed), printed as its table",
    )
    report_flag(tx)
    return tx


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Score the files with :func:`scorekit.api.evaluate_text` and print the values."""
    check_scale_flags(args, NAME)
    args.several = len(args.hyps) > 1
    if args.paired_bs or args.paired_ar:
        return _sacrebleu(args, out, err)
    paired = paired_settings(args, NAME)
    if paired is not None:
        return _compare(args, paired, out, err)
    ci = ci_settings(args, NAME)
    if args.by or args.groups:
        refuse_with_by(
            args,
            "scorekit text",
            sentence_level=args.sentence_level,
            percent=args.percent,
            report=args.report,
        )
    if args.sentence_level:
        if ci is not None:
            raise ConfigError(
                message(
                    "scorekit text --sentence-level",
                    "--ci is for corpus scores",
                    raw("--ci"),
                    "--sentence-level without --ci",
                )
            )
        return _sentence_level(args, out, err)
    result = api.evaluate_text(
        args.hyps[0],
        args.refs,
        args.metric,
        **_metric_options(args),
        ci=ci,
        by=args.by,
        groups=args.groups,
        **engine_options(args),
    )
    if ci is not None or args.by:
        shown: dict[str, Any] = dict(result.values)
        notes: list[str] = []
    else:
        shown, notes = displayed(
            result.values, result.metrics, result.states, details=args.format == "json"
        )
    if args.percent:
        shown = {_label(k): v for k, v in _percent(shown).items()}
    if args.save_state:
        saved = Saved(result.metrics, result.states, result.rows)
        save_state(
            args.save_state,
            NAME,
            "references_predictions",
            saved,
            columns=None,
            **ci_header(ci),
        )
    write_ci_values(shown, args.format, out, err, ci, result.metrics)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    texts = None
    if getattr(args, "report", None):
        from scorekit.text import read_parallel

        hypotheses, references = read_parallel(args.hyps[0], args.refs)
        texts = (references, hypotheses)
    write_report(
        args,
        result,
        err,
        title="scorekit text",
        inputs=[*args.hyps, *args.refs],
        texts=texts,
        percent=[k for k in result.values if args.percent and _scaled(k)],
    )
    return 0


def _sacrebleu(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """``--paired-bs`` / ``--paired-ar``: sacrebleu's tests, numbers and table."""
    flag = "--paired-bs" if args.paired_bs else "--paired-ar"
    scorekits = (
        ("--test", args.test),
        ("--alternative", getattr(args, "alternative", None)),
        ("--correction", args.correction),
    )
    for name, given in scorekits:
        if given:
            raise ConfigError(
                message(
                    f"scorekit text {flag}",
                    f"{name} is for scorekit's comparisons; {flag} is sacrebleu's test",
                    raw(f"{name} {given}"),
                    f"{flag} without {name}",
                )
            )
    for name, value in (("--ci", args.ci), ("--confidence", args.confidence)):
        if value:
            raise ConfigError(
                message(
                    f"scorekit text {flag}",
                    f"{name} does not apply: sacrebleu's intervals are 95%",
                    raw(name),
                    f"{flag} without {name}",
                )
            )
    refuse_with_comparison(args, NAME, "save_state", "report", "sentence_level", "percent", "by")
    found = api.paired_text(
        args.hyps,
        args.refs,
        args.metric,
        test="bs" if args.paired_bs else "ar",
        n_samples=args.n_resamples,
        seed=args.seed,
        **_metric_options(args),
    )
    if args.format == "table":
        out.write(format_paired(found) + "\n")
        return 0
    fields = ("system", "score", "mean", "ci", "low", "high", "p_value")
    if args.format == "json":
        doc = {
            "test": found.test,
            "n_samples": found.n_samples,
            "seed": found.seed,
            "results": {
                metric: [{f: getattr(r, f) for f in fields} for r in rows]
                for metric, rows in found.results.items()
            },
            "signatures": found.signatures,
        }
        out.write(json.dumps(plain(doc), indent=2) + "\n")
        return 0
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["metric", *fields])
    for metric, rows in found.results.items():
        for r in rows:
            writer.writerow(
                [metric, *("" if getattr(r, f) is None else getattr(r, f) for f in fields)]
            )
    return 0


def _compare(args: argparse.Namespace, paired: api.Paired, out: TextIO, err: TextIO) -> int:
    """Several ``--hyps`` files compared with the first on every metric."""
    refuse_with_comparison(args, NAME, "save_state", "sentence_level", "percent", "by")
    found = api.compare_text(
        args.hyps,
        args.refs,
        args.metric,
        **_metric_options(args),
        paired=paired,
    )
    write_comparisons(found, args.format, out)
    inputs = [*args.refs, *args.hyps]
    title = f"scorekit text --test {paired.test}"
    write_comparison_report(args, found, err, title=title, inputs=inputs)
    return 0


def _metric_options(args: argparse.Namespace) -> dict[str, Any]:
    """The flags that are defaults of the metrics' options (``None``: not given)."""
    return {
        "tokenize": args.tokenize,
        "lowercase": args.lowercase,
        "stemmer": args.stemmer,
        "rouge_tokenizer": args.rouge_tokenizer,
    }


def _base(key: str) -> str:
    """The metric name of a key (``chrf:beta=1`` -> ``chrf``, ``bleu:bp`` -> ``bleu``)."""
    return key.split(":", 1)[0]


def _scaled(key: str) -> bool:
    if _base(key) not in PERCENT_METRICS:
        return False
    if ":" not in key:
        return True
    last = key.rsplit(":", 1)[1]
    return last == "precisions" or "=" in last


def _label(key: str) -> str:
    return f"{key} (%)" if _scaled(key) else key


def _percent(shown: dict[str, Any]) -> dict[str, Any]:
    """The values of BLEU, chrF and TER (and BLEU's precisions) times 100."""
    out: dict[str, Any] = {}
    for key, value in shown.items():
        if _scaled(key) and isinstance(value, list | tuple):
            out[key] = [100 * v for v in value]
        elif _scaled(key) and isinstance(value, int | float):
            out[key] = 100 * value
        elif _scaled(key) and isinstance(value, Interval):
            out[key] = dataclasses.replace(
                value, value=100 * value.value, low=100 * value.low, high=100 * value.high
            )
        else:
            out[key] = value
    return out


def _sentence_level(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write one line of scores per segment, block by block."""
    for flag, given in (("--engine", args.engine), ("--save-state", args.save_state)):
        if given:
            raise ConfigError(
                message(
                    "scorekit text --sentence-level",
                    f"{flag} scores the corpus, not each line",
                    raw(f"{flag} {given}"),
                    f"--sentence-level without {flag}",
                )
            )
    blocks = api.text_segments(
        args.hyps[0],
        args.refs,
        args.metric,
        **_metric_options(args),
        lines=args.chunk_size or 1000,
    )
    _write_rows(blocks, args.format, args.percent, out)
    return 0


def _write_rows(
    blocks: Iterable[list[dict[str, float]]], fmt: str, percent: bool, out: TextIO
) -> None:
    """Rows of ``line`` and the scores: a table, CSV or JSON Lines, flushed per block."""
    line = 0
    header: list[str] | None = None
    writer = csv.writer(out, lineterminator="\n")
    widths: list[int] = []
    for block in blocks:
        for row in block:
            line += 1
            if percent:
                row = _percent(row)
            names = list(row)
            if header is None:
                header = ["line", *(_label(n) if percent else n for n in names)]
                widths = [max(len(h), 8) for h in header]
                if fmt == "csv":
                    writer.writerow(header)
                elif fmt == "table":
                    out.write("  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)))
                    out.write("\n")
            if fmt == "json":
                item = {
                    "line": line,
                    **dict(zip(header[1:], map(plain, row.values()), strict=True)),
                }
                out.write(json.dumps(item) + "\n")
            elif fmt == "csv":
                writer.writerow([line, *(repr(float(v)) for v in row.values())])
            else:
                cells = [str(line), *(number(v) for v in row.values())]
                out.write("  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)))
                out.write("\n")
        out.flush()


_DETAILS = {
    "bleu": ("precisions", "counts", "totals", "bp", "ratio", "hyp_len", "ref_len", "signature"),
    "chrf": ("signature",),
    "chrf++": ("signature",),
    "ter": ("num_edits", "ref_length", "signature"),
}
"""The statistics ``scorekit text --format json`` shows after BLEU, chrF and TER."""


def displayed(
    values: dict[str, Any],
    metrics: dict[str, Metric[Any]],
    states: dict[str, State],
    *,
    details: bool = False,
) -> tuple[dict[str, Any], list[str]]:
    """The values ``scorekit text`` (and ``merge`` of its states) prints, and its notes for stderr.

    ROUGE shows as precision, recall and F-measure rows and BLEU's signature as
    a note; with ``details`` (JSON output) BLEU's n-gram precisions, counts,
    brevity penalty, lengths and signature follow its value (chrF's and TER's
    signatures too).
    """
    shown: dict[str, Any] = {}
    notes: list[str] = []
    for key, value in values.items():
        if isinstance(value, dict):
            for name, score in value.items():
                shown[f"{name}:precision"] = score.precision
                shown[f"{name}:recall"] = score.recall
                shown[f"{name}:fmeasure"] = score.fmeasure
        else:
            shown[key] = value
            boot = isinstance(value, Interval | ByGroup)
            fields = _DETAILS.get(getattr(metrics[key], "name", ""), ()) if details else ()
            fields = () if boot else fields
            if fields:
                result = metrics[key].result(states[key])  # type: ignore[attr-defined]
                for field in fields:
                    shown[f"{key}:{field}"] = plain(getattr(result, field))
            signature: Callable[[State], str] | None = (
                None if boot else getattr(metrics[key], "signature", None)
            )
            if signature is not None:
                notes.append(f"{key} signature: {signature(states[key])}")
    return shown, notes
