"""``scorekit rank``: a TREC run against its qrels, like trec_eval (``--format trec``) or
ir_measures (``--format ir_measures``)."""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any, TextIO

from scorekit import api
from scorekit.cli._flags import (
    add_ci_flags,
    add_compare_flags,
    add_scale_flags,
    by_flag,
    check_scale_flags,
    ci_settings,
    engine_options,
    format_flag,
    metric_flag,
    number_above,
    paired_settings,
    positive_int,
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
    write_values,
)
from scorekit.core import option_choices
from scorekit.errors import ConfigError, message, raw
from scorekit.ranking import (
    MAP,
    NDCG,
    TREC_NICKNAMES,
    foreign_name,
    read_run_tag,
    relstrings,
    trec_measures,
)

NAME = "rank"
RANK_DEFAULTS = ("map", "ndcg@10", "mrr", "p@10", "recall@100", "bpref")
"""The metrics ``scorekit rank`` reports when none are named."""


def add_parser(sub: Any) -> argparse.ArgumentParser:
    """The ``rank`` command's parser."""
    rk: argparse.ArgumentParser = sub.add_parser(
        NAME,
        help="evaluate a TREC run against its qrels (ranking metrics, like trec_eval)",
        description=(
            "Evaluate a run (qid Q0 docid rank score tag) against qrels (qid iter docid "
            "relevance) with ranking metrics, as trec_eval does: ties in score are broken by "
            "descending doc id and the rank column is ignored. The files may be gzip-compressed."
        ),
    )
    rk.add_argument("qrels", metavar="QRELS", help="the qrels file")
    rk.add_argument(
        "run",
        metavar="RUN",
        nargs="+",
        help="the run file; several runs are compared with the first (see --test)",
    )
    metric_flag(
        rk,
        "metrics such as ndcg@10, map, mrr@10, p@5, trec_eval's names (P.5,10, "
        "iprec_at_recall) or measure sets (official, all_trec, set) "
        f"(default: {' '.join(RANK_DEFAULTS)})",
        short=True,
    )
    rk.add_argument("-q", "--per-query", action="store_true", help="also show every query's values")
    rk.add_argument(
        "--missing",
        choices=option_choices(MAP, "missing"),
        default="skip",
        help="qrels queries absent from the run: skip them, or count them as 0 (trec_eval -c)",
    )
    rk.add_argument(
        "-c",
        "--complete",
        dest="missing",
        action="store_const",
        const="zero",
        help="count the qrels queries absent from the run as 0: --missing zero (trec_eval -c)",
    )
    rk.add_argument(
        "-l",
        "--relevance-level",
        type=number_above(0),
        metavar="L",
        help="the smallest grade that counts as relevant (default 1, trec_eval -l)",
    )
    rk.add_argument(
        "--gain",
        choices=option_choices(NDCG, "gain"),
        default="linear",
        help="gain of a grade g: g or 2^g-1",
    )
    rk.add_argument(
        "-J",
        "--judged-only",
        action="store_true",
        help="drop unjudged documents from the run before evaluating (trec_eval -J)",
    )
    rk.add_argument(
        "-M",
        "--max-docs",
        type=positive_int,
        metavar="N",
        help="evaluate the first N documents of each query only (trec_eval -M)",
    )
    rk.add_argument(
        "-N",
        "--num-docs",
        type=positive_int,
        metavar="N",
        help="the number of documents in the collection, for utility (trec_eval -N)",
    )
    format_flag(rk, "table", "json", "csv", "trec", "ir_measures")
    by_flag(
        rk,
        "also evaluate each group of queries sharing the values of these columns of the "
        "--query-attributes file: the mean overall and per group, the run rows of each group, "
        "and the difference and ratio of the group means",
    )
    rk.add_argument(
        "--query-attributes",
        metavar="FILE",
        help="a CSV, TSV, Parquet or JSON Lines file with a query column and the --by columns, "
        "one row per query",
    )
    add_scale_flags(rk, unit="run rows")
    add_ci_flags(rk, unit="query", key=False)
    add_compare_flags(rk, systems="the runs")
    report_flag(rk)
    return rk


_COUNTS = ("num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret")
"""trec_eval's counts, printed as integers."""
_RELSTRING = re.compile(r"^relstring(?:[._](?P<length>\d+))?$")


@dataclass(frozen=True)
class _Labels:
    """trec_eval's labels asked for (``--format trec``): the run's tag, and ``relstring``.

    ``relstring`` (or ``relstring.N``) prints each query's string of grades
    in the per-query lines, before the values of the metric ``before`` (at
    the end of the query's lines when None).
    """

    runid: str | None = None
    relstring: str | None = None
    length: int = 10
    before: str | None = None
    strings: dict[str, str] = field(default_factory=dict)


def _trec_value(name: str, value: float) -> str:
    return f"{round(value)}" if name in _COUNTS else f"{value:6.4f}"


def _write_trec(result: Any, per_query: bool, out: TextIO, labels: _Labels) -> None:
    """trec_eval's layout: per query (without the geometric means), then ``all``."""
    table = result.per_query or {}
    names = {spec: foreign_name(spec, "trec") for spec in result}
    if per_query:
        for query in sorted(table):
            lines = []
            for spec, value in table[query].items():
                name = names[spec]
                if spec == labels.before and labels.relstring is not None:
                    lines.append(_relstring_line(labels, query))
                if name.startswith("gm_") or name == "num_q":
                    continue
                lines.append(f"{name:<22}\t{query}\t{_trec_value(name, value)}\n")
            if labels.relstring is not None and labels.before not in table[query]:
                lines.append(_relstring_line(labels, query))
            out.write("".join(lines))
    if labels.runid is not None:
        out.write(f"{'runid':<22}\tall\t{labels.runid}\n")
    if "num_q" not in names.values():
        num_q = len(next(iter(result.states.values())).table()[0]) if result.states else 0
        out.write(f"{'num_q':<22}\tall\t{num_q}\n")
    for spec, value in result.items():
        out.write(f"{names[spec]:<22}\tall\t{_trec_value(names[spec], value)}\n")


def _relstring_line(labels: _Labels, query: str) -> str:
    return f"{labels.relstring:<22}\t{query}\t'{labels.strings.get(query, '')}'\n"


def _metrics(args: argparse.Namespace) -> tuple[list[str], _Labels]:
    """The metrics named (trec_eval's labels left out), and the labels asked for.

    ``runid``, alone or in a measure set (``-m all_trec``), prints the run's
    tag with ``--format trec``; ``relstring`` (``relstring.N``) the first
    grades of each query with ``--format trec --per-query``, where trec_eval
    prints it: in a measure set, before the measure that follows it there.
    """
    named = list(args.metric or RANK_DEFAULTS)
    wants_tag = any(m == "runid" or "runid" in TREC_NICKNAMES.get(m, ()) for m in named)
    metrics = [m for m in named if m != "runid" and _RELSTRING.match(m) is None]
    if not metrics:
        raise ConfigError(
            message("scorekit rank", "no measure named", raw(" ".join(named)), "e.g. -m map")
        )
    tag = read_run_tag(args.run[0]) if wants_tag and args.format == "trec" else None
    name, length, before = _relstring(named)
    return metrics, _Labels(runid=tag, relstring=name, length=length, before=before)


def _relstring(named: list[str]) -> tuple[str | None, int, str | None]:
    """``relstring``'s printed name, its length and the metric it precedes, if it is asked."""
    name, length, before, asked = None, 10, None, False
    for i, item in enumerate(named):
        match = _RELSTRING.match(item)
        members = TREC_NICKNAMES.get(item, ())
        if match is not None:
            asked = True
            if match["length"] is not None:
                name, length = f"relstring_{int(match['length'])}", int(match["length"])
            if before is None and i + 1 < len(named):
                before = _first_key(named[i + 1])
        elif "relstring" in members:
            asked = True
            at = members.index("relstring")
            before = _first_key(members[at + 1]) if at + 1 < len(members) else None
    if not asked:
        return None, length, None
    return name or "relstring", length, before


def _first_key(item: str) -> str:
    """The key of the first metric ``item`` names (a trec_eval family or set: its first one)."""
    members = trec_measures(item)
    return members[0] if members else item


def _write_rank(
    result: Any, per_query: bool, fmt: str, out: TextIO, labels: _Labels | None = None
) -> None:
    table = result.per_query or {}
    if fmt == "ir_measures":
        names = {spec: foreign_name(spec, "ir_measures") for spec in result}
        if per_query:
            for query in sorted(table):
                for spec, value in table[query].items():
                    out.write(f"{query}\t{names[spec]}\t{value:.4f}\n")
        lead = "all\t" if per_query else ""
        for spec, value in result.items():
            out.write(f"{lead}{names[spec]}\t{value:.4f}\n")
        return
    if fmt == "trec":
        _write_trec(result, per_query, out, labels or _Labels())
        return
    if not per_query:
        write_values(dict(result), fmt, out)
        return
    specs = list(result)
    if fmt == "json":
        doc = {"mean": {k: plain(v) for k, v in result.items()}, "per_query": table}
        out.write(json.dumps(plain(doc), indent=2) + "\n")
        return
    rows = [[q, *(table[q][s] for s in specs)] for q in sorted(table)]
    rows.append(["all", *(result[s] for s in specs)])
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["query", *specs])
        for row in rows:
            writer.writerow([row[0], *(repr(float(v)) for v in row[1:])])
        return
    header = ["query", *specs]
    cells = [[str(row[0]), *(number(v) for v in row[1:])] for row in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *cells]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Evaluate the run with :func:`scorekit.api.evaluate_run` and print the values."""
    check_scale_flags(args, NAME)
    args.several = len(args.run) > 1
    options: dict[str, Any] = {"missing": args.missing, "gain": args.gain}
    if args.relevance_level is not None:
        options["relevance_level"] = args.relevance_level
    if args.judged_only:
        options["judged_only"] = True
    if args.max_docs is not None:
        options["max_docs"] = args.max_docs
    if args.num_docs is not None:
        options["num_docs"] = args.num_docs
    metrics, labels = _metrics(args)
    paired = paired_settings(args, NAME)
    if paired is not None:
        refuse_with_comparison(args, NAME, "per_query", "save_state", "by")
        if args.format in ("trec", "ir_measures"):
            raise ConfigError(
                message(
                    "scorekit rank",
                    "a comparison of runs prints as a table, JSON or CSV",
                    raw(f"--format {args.format}"),
                    "--format table, json or csv",
                )
            )
        found = api.compare_runs(args.qrels, args.run, metrics, paired=paired, **options)
        write_comparisons(found, args.format, out)
        inputs = [args.qrels, *args.run]
        title = f"scorekit rank --test {paired.test}"
        write_comparison_report(args, found, err, title=title, inputs=inputs)
        return 0
    if args.by or args.query_attributes:
        return _by_group(args, metrics, options, out, err)
    ci = ci_settings(args, NAME)
    if ci is not None and (args.per_query or args.format in ("trec", "ir_measures")):
        flag = "--per-query" if args.per_query else f"--format {args.format}"
        raise ConfigError(
            message(
                "scorekit rank --ci",
                "intervals are for the means over the queries",
                raw(flag),
                f"--ci without {flag}",
            )
        )
    evaluation = api.evaluate_run(
        args.qrels,
        args.run[0],
        metrics,
        per_query=args.per_query or args.format == "trec" or bool(args.report),
        ci=ci,
        **engine_options(args),
        **options,
    )
    if args.save_state:
        saved = Saved(evaluation.metrics, evaluation.states, evaluation.rows)
        save_state(args.save_state, NAME, "qrels_run", saved, columns=None, **ci_header(ci))
    if ci is not None:
        write_ci_values(evaluation.values, args.format, out, err, ci, evaluation.metrics)
    else:
        if labels.relstring is not None and args.per_query and args.format == "trec":
            strings = relstrings(
                args.qrels,
                args.run[0],
                labels.length,
                judged_only=args.judged_only,
                max_docs=args.max_docs,
            )
            labels = dataclasses.replace(labels, strings=strings)
        _write_rank(evaluation, args.per_query, args.format, out, labels)
    write_report(args, evaluation, err, title="scorekit rank", inputs=[args.qrels, *args.run])
    return 0


def _by_group(
    args: argparse.Namespace,
    metrics: list[str],
    options: dict[str, Any],
    out: TextIO,
    err: TextIO,
) -> int:
    """``--by COL --query-attributes FILE``: the means overall and per group of queries."""
    if not (args.by and args.query_attributes):
        given = "--by" if args.by else "--query-attributes"
        raise ConfigError(
            message(
                "scorekit rank",
                "--by and --query-attributes go together",
                raw(f"{given} alone"),
                "--by COL ... --query-attributes FILE",
            )
        )
    title = "scorekit rank"
    refuse_with_by(args, title, per_query=args.per_query, report=args.report)
    ci = ci_settings(args, NAME)
    if ci is not None and args.save_state:
        raise ConfigError(
            message(
                title,
                "--by with --ci saves no bootstrap states",
                raw("--save-state"),
                "--by and --ci, or --by and --save-state",
            )
        )
    if args.several or args.format in ("trec", "ir_measures"):
        got = "several runs" if args.several else f"--format {args.format}"
        raise ConfigError(
            message(title, "--by evaluates one run as a table, JSON or CSV", raw(got), "one run")
        )
    result = api.evaluate_run(
        args.qrels,
        args.run[0],
        metrics,
        by=args.by,
        attributes=args.query_attributes,
        ci=ci,
        **engine_options(args),
        **options,
    )
    if ci is not None:
        err.write(f"scorekit: {ci.describe(['query'])}, overall and in each group\n")
    if args.save_state:
        save_state(args.save_state, NAME, "qrels_run", result, columns=None)
    write_values(dict(result.values), args.format, out)
    return 0
