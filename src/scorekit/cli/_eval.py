"""``scorekit eval`` (metrics of a file of labels, scores or values) and ``scorekit features``."""

from __future__ import annotations

import argparse
import csv
import json
from typing import Any, TextIO

from scorekit._evaluate import Evaluation, evaluate_table
from scorekit._features import FeatureRanking, rank_file
from scorekit.cli._output import _number, _plain, _save_state, _write_values
from scorekit.errors import ConfigError, message


def _report_notes(result: Evaluation, err: TextIO) -> None:
    for text in result.warnings:
        err.write(f"scorekit: warning: {text}\n")
    for text in result.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")


def _cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from scorekit import _scale

    _scale.check_scale_flags(args, "eval")
    result = evaluate_table(
        args.data,
        task=args.task,
        true=args.true,
        pred=args.pred,
        score=args.score,
        weight=args.weight,
        metrics=args.metric,
        pos_label=args.pos_label,
        chunk_size=_scale.chunk_size(args) if _scale.scaled(args) else None,
        progress=_scale.progress(args),
        engine=args if args.engine == "dask" else None,
    )
    _report_notes(result, err)
    if not result.values:
        raise ConfigError(
            message("scorekit eval", "no metric could be computed", None, "see the notes above")
        )
    if args.save_state:
        _save_state(args.save_state, "eval", args.task, result)
    _write_values(result.values, args.format, out)
    return 0


def _threshold_text(split: Any) -> str:
    if split.kind == "categorical":
        return "multiway"
    if split.threshold is None:
        return "none (one value)"
    return f"<= {split.threshold:.6g}"


def _write_ranking(ranking: FeatureRanking, splits: list[Any], fmt: str, out: TextIO) -> None:
    criterion = ranking.criterion
    if fmt == "json":
        rows = [
            {
                "rank": i,
                "feature": s.feature,
                "kind": s.kind,
                criterion: _plain(s.score),
                "threshold": s.threshold,
            }
            for i, s in enumerate(splits, start=1)
        ]
        doc = {"target": ranking.target, "criterion": criterion, "rows": ranking.rows}
        out.write(json.dumps({**doc, "features": rows}, indent=2) + "\n")
        return
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["rank", "feature", "kind", criterion, "threshold"])
        for i, s in enumerate(splits, start=1):
            threshold = "" if s.threshold is None else repr(s.threshold)
            writer.writerow([i, s.feature, s.kind, repr(s.score), threshold])
        return
    header = ["rank", "feature", "kind", criterion, "split"]
    table = [
        [str(i), str(s.feature), s.kind, _number(s.score), _threshold_text(s)]
        for i, s in enumerate(splits, start=1)
    ]
    widths = [max([len(h), *(len(line[c]) for line in table)]) for c, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *table]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")


def _cmd_features(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    ranking = rank_file(
        args.data,
        target=args.target,
        features=args.features,
        exclude=args.exclude or (),
        categorical=args.categorical or (),
        criterion=args.criterion,
        weight=args.weight,
        base=args.base,
    )
    for text in ranking.warnings:
        err.write(f"scorekit: warning: {text}\n")
    splits = ranking.splits[: args.top] if args.top else ranking.splits
    _write_ranking(ranking, splits, args.format, out)
    return 0
