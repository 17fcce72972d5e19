"""``scorekit features``: the columns of a file ranked as decision-tree splits of a target."""

from __future__ import annotations

import argparse
import csv
import json
from typing import Any, TextIO

from scorekit import api
from scorekit.cli._flags import data_arg, format_flag, number_above, positive_int
from scorekit.cli._output import number, plain
from scorekit.information import CRITERIA

NAME = "features"


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``features`` command's parser."""
    ft: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="rank the columns of a file as decision-tree splits of a target",
        description=(
            "Score every feature column as a split of the target column, as ID3 (information "
            "gain), C4.5 (gain ratio) or CART (Gini gain) would at the root, best first. "
            "Numeric columns split in two at the best threshold; text and boolean columns "
            "(and those named by --categorical) split multiway."
        ),
    )
    data_arg(ft)
    ft.add_argument("--target", required=True, metavar="COL", help="the class label column")
    ft.add_argument("--criterion", choices=CRITERIA, default="information_gain")
    ft.add_argument(
        "--features", nargs="+", metavar="COL", help="the columns to rank (default: all others)"
    )
    ft.add_argument("--exclude", nargs="+", metavar="COL", help="columns not to rank (ids, ...)")
    ft.add_argument(
        "--categorical", nargs="+", metavar="COL", help="numeric columns to split multiway"
    )
    ft.add_argument("--weight", metavar="COL", help="sample weights")
    ft.add_argument(
        "--base", type=number_above(1), default=2.0, help="logarithm base (default 2: bits)"
    )
    ft.add_argument("--top", type=positive_int, metavar="N", help="show the best N only")
    format_flag(ft, "table", "json", "csv")
    return ft


def _threshold_text(split: Any) -> str:
    if split.kind == "categorical":
        return "multiway"
    if split.threshold is None:
        return "none (one value)"
    return f"<= {split.threshold:.6g}"


def write_ranking(ranking: api.FeatureRanking, splits: list[Any], fmt: str, out: TextIO) -> None:
    """The ranked splits as JSON, CSV or a table."""
    criterion = ranking.criterion
    if fmt == "json":
        rows = [
            {
                "rank": i,
                "feature": s.feature,
                "kind": s.kind,
                criterion: plain(s.score),
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
        [str(i), str(s.feature), s.kind, number(s.score), _threshold_text(s)]
        for i, s in enumerate(splits, start=1)
    ]
    widths = [max([len(h), *(len(line[c]) for line in table)]) for c, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *table]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Rank the columns with :func:`scorekit.api.rank_file` and print the splits."""
    ranking = api.rank_file(
        args.data,
        target=args.target,
        features=args.features,
        exclude=args.exclude or (),
        categorical=args.categorical or (),
        criterion=args.criterion,
        weight=args.weight,
        base=args.base,
    )
    splits = ranking.splits[: args.top] if args.top else ranking.splits
    write_ranking(ranking, splits, args.format, out)
    return 0
