"""The ``scorekit`` command: evaluate files, list and explain metrics, run the demo.

::

    scorekit eval DATA --task binary|multiclass|multilabel|regression --true COL [COL ...]
                  (--pred COL [COL ...] | --score COL [COL ...]) [--weight COL]
                  [--metric NAME ...] [--format table|json|csv] [SCALE]
    scorekit features DATA --target COL [--criterion NAME] [--features COL ...]
                  [--exclude COL ...] [--categorical COL ...] [--weight COL]
                  [--base B] [--top N] [--format table|json|csv]
    scorekit rank QRELS RUN [-m NAME ...] [--per-query] [--missing skip|zero]
                  [--relevance-level L] [--gain linear|exp] [--format table|json|csv|trec]
                  [SCALE]
    scorekit text --refs FILE [--refs FILE ...] --hyps FILE [-m bleu rouge1 ...]
                  [--tokenize 13a] [--lowercase] [--stemmer] [--format table|json|csv]
                  [SCALE]
    scorekit merge STATE... [--format table|json|csv] [--save-state FILE]
    scorekit qa DATASET.json PREDICTIONS.json [--na-probs FILE] [--version 2.0|1.1]
    scorekit throughput RECORDS [--slo ttft=200ms ...] [--format table|json] [SCALE]
    scorekit list [--format table|json]
    scorekit explain NAME
    scorekit demo [--data DIR]
    scorekit --version

SCALE is ``[--chunk-size N] [--quiet] [--engine stream|dask] [--scheduler
tcp://HOST:PORT | --workers N] [--save-state FILE]``: read the input in chunks,
or run on a Dask cluster, and save the states for ``scorekit merge``.

Metrics come from the registry, so every registered metric is available by its
name (``f1:macro``, ``roc_auc``). Each metric's ``inputs`` kind decides whether
it receives ``(y_true, y_pred)`` or ``(y_true, y_score)``. User errors print
``scorekit: <message>`` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import json
import math
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from scorekit._core import MetricInfo, available
from scorekit._estimate import Estimate
from scorekit._evaluate import TASKS, Evaluation, default_metrics, evaluate_table
from scorekit._explain import bound_text, explain
from scorekit._features import FeatureRanking, rank_file
from scorekit._version import __version__
from scorekit.errors import ConfigError, InputError, ScorekitError, choices, message, raw
from scorekit.information._tables import CRITERIA
from scorekit.ranking._state import GAINS, MISSING
from scorekit.text._tokenize import TOKENIZERS as BLEU_TOKENIZERS

__all__ = ["TASKS", "Evaluation", "default_metrics", "evaluate_table", "main"]

# output -------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """JSON-ready form of a metric value: arrays become lists, NaN and inf become null.

    An :class:`~scorekit.Estimate` becomes ``{"value": ..., "error_bound": ...}``.
    """
    if isinstance(value, Estimate):
        return {"value": _plain(value.value), "error_bound": _plain(value.error_bound)}
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _number(value: Any) -> str:
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return str(int(value))
    if isinstance(value, float | np.floating):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        return str(int(v)) if v.is_integer() and abs(v) >= 10 else f"{v:.4f}"
    return str(value)


def _bound_text(value: Any) -> str:
    """An error bound at four decimals, or in scientific notation when smaller."""
    v = float(value)
    if math.isfinite(v) and 0 < abs(v) < 5e-5:
        return f"{v:.1e}"
    return _number(v)


def _cell(value: Any) -> list[str]:
    """Lines showing one value in the table: a number, or an indented array.

    An :class:`~scorekit.Estimate` shows as ``0.8312 (± 0.0004)``; per-column
    estimates as the array of values and then the array of bounds.
    """
    if isinstance(value, Estimate):
        if np.ndim(value.value) == 0:
            return [f"{_number(value.value)} (± {_bound_text(value.error_bound)})"]
        bounds = _cell(np.asarray(value.error_bound))
        return [*_cell(np.asarray(value.value)), f"± {bounds[0]}", *(f"  {b}" for b in bounds[1:])]
    if isinstance(value, np.generic | int | float):
        return [_number(value)]
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        if value.ndim == 0:
            return [_number(value.item())]
        with np.printoptions(precision=4, suppress=True, linewidth=80, threshold=60):
            return np.array2string(value).splitlines()
    if isinstance(value, tuple | list):
        lines = []
        for i, part in enumerate(value):
            sub = _cell(np.asarray(part) if isinstance(part, list) else part)
            lines += [f"[{i}] {sub[0]}", *(f"    {s}" for s in sub[1:])]
        return lines
    return str(value).splitlines() or [""]


def _write_table(values: dict[str, Any], out: TextIO) -> None:
    width = max([len("metric"), *(len(k) for k in values)])
    out.write(f"{'metric':<{width}}  value\n")
    out.write(f"{'-' * width}  {'-' * 10}\n")
    for name, value in values.items():
        lines = _cell(value)
        out.write(f"{name:<{width}}  {lines[0]}\n")
        for line in lines[1:]:
            out.write(f"{'':<{width}}  {line}\n")


def _write_values(values: dict[str, Any], fmt: str, out: TextIO) -> None:
    if fmt == "json":
        out.write(json.dumps({k: _plain(v) for k, v in values.items()}, indent=2) + "\n")
    elif fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for name, value in values.items():
            plain = _plain(value)
            cell = json.dumps(plain) if isinstance(plain, list | dict) else plain
            writer.writerow([name, "" if cell is None else cell])
    else:
        _write_table(values, out)


def _report_notes(result: Evaluation, err: TextIO) -> None:
    for text in result.warnings:
        err.write(f"scorekit: warning: {text}\n")
    for text in result.skipped:
        err.write(f"scorekit: skipped default metric: {text}\n")


# commands -----------------------------------------------------------------------


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


def _save_state(path: str, command: str, kind: str, result: Any, **header: Any) -> None:
    """Write ``--save-state``: the states behind the values a command prints."""
    from scorekit._statefile import save_states

    entries = {key: (result.metrics[key], result.states[key]) for key in result.states}
    options = dict(getattr(result, "options", {}) or {})
    columns = header.pop("columns", getattr(result, "columns", None))
    save_states(
        path,
        entries,
        command=command,
        input=kind,
        columns=columns,
        options={**options, **header},
        rows=result.rows,
    )


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


_TREC_NAMES = {
    "map": "map",
    "ap": "map",
    "mrr": "recip_rank",
    "r_precision": "Rprec",
    "bpref": "bpref",
    "ndcg": "ndcg",
}
_TREC_AT = {
    "p": "P",
    "precision": "P",
    "recall": "recall",
    "map": "map_cut",
    "ndcg": "ndcg_cut",
    "hit_rate": "success",
}


def _trec_name(spec: str) -> str:
    """trec_eval's name of a metric string where it has one (``ndcg@10`` -> ``ndcg_cut_10``)."""
    name, _, k = spec.partition("@")
    if k and name in _TREC_AT:
        return f"{_TREC_AT[name]}_{k}"
    return _TREC_NAMES.get(spec, spec)


def _write_rank(result: Any, per_query: bool, fmt: str, out: TextIO) -> None:
    table = result.per_query or {}
    if fmt == "trec":
        names = {spec: _trec_name(spec) for spec in result}
        if per_query:
            for query in sorted(table):
                for spec, value in table[query].items():
                    out.write(f"{names[spec]:<22}\t{query}\t{value:6.4f}\n")
        num_q = len(next(iter(result.states.values())).table()[0]) if result.states else 0
        out.write(f"{'num_q':<22}\tall\t{num_q}\n")
        for spec, value in result.items():
            out.write(f"{names[spec]:<22}\tall\t{value:6.4f}\n")
        return
    if not per_query:
        _write_values(dict(result), fmt, out)
        return
    specs = list(result)
    if fmt == "json":
        doc = {"mean": {k: _plain(v) for k, v in result.items()}, "per_query": table}
        out.write(json.dumps(_plain(doc), indent=2) + "\n")
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
    cells = [[str(row[0]), *(_number(v) for v in row[1:])] for row in rows]
    widths = [max([len(h), *(len(c[i]) for c in cells)]) for i, h in enumerate(header)]
    for line in [header, ["-" * w for w in widths], *cells]:
        out.write("  ".join(f"{c:<{w}}" for c, w in zip(line, widths, strict=True)).rstrip())
        out.write("\n")


def _cmd_rank(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import _scale, ranking
    from scorekit.ranking._evaluate import RankingResult, _metrics, _per_query

    _scale.check_scale_flags(args, "rank")
    options: dict[str, Any] = {"missing": args.missing, "gain": args.gain}
    if args.relevance_level is not None:
        options["relevance_level"] = args.relevance_level
    metrics = args.metric or list(_RANK_DEFAULTS)
    per_query = args.per_query or args.format == "trec"
    rows = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if _scale.scaled(args):
            chosen = _metrics(metrics, options)
            if args.engine == "dask":
                qrels = ranking.as_qrels(args.qrels)
                table = _scale.run_table(args.run)
                states, rows, texts = _scale.dask_run(table, chosen, None, args, qrels=qrels)
            else:
                size, show = _scale.chunk_size(args), _scale.progress(args)
                states, rows, texts = _scale.rank_stream(
                    args.qrels, args.run, chosen, size=size, show=show
                )
            means = {key: metric.compute(states[key]) for key, metric in chosen.items()}
            result = RankingResult(means, states, _per_query(states) if per_query else None)
        else:
            run: Any = args.run
            if args.save_state:
                run = ranking.read_run(args.run)
                rows = len(run)
            result = ranking.evaluate(args.qrels, run, metrics, per_query=per_query, **options)
            chosen, texts = (_metrics(metrics, options) if args.save_state else {}), []
    for text in dict.fromkeys([*texts, *(str(w.message) for w in caught)]):
        err.write(f"scorekit: warning: {text}\n")
    if args.save_state:
        saved = _Saved(chosen, dict(result.states), rows)
        _save_state(args.save_state, "rank", "qrels_run", saved, columns=None)
    _write_rank(result, args.per_query, args.format, out)
    return 0


class _Saved:
    """The metrics, states and rows a command saves with ``--save-state``."""

    def __init__(self, metrics: dict[str, Any], states: dict[str, Any], rows: int) -> None:
        self.metrics, self.states, self.rows = metrics, states, rows


_RANK_DEFAULTS = ("map", "ndcg@10", "mrr", "p@10", "recall@100", "bpref")

_TEXT_DEFAULTS = ("bleu", "rouge1", "rouge2", "rougeL")
_ROUGE_TYPE = re.compile(r"^rouge([1-9]|L|Lsum)$")


def _cmd_text(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from scorekit import _scale
    from scorekit.text import BLEU, ROUGE
    from scorekit.text._lines import read_parallel

    _scale.check_scale_flags(args, "text")
    scaled = _scale.scaled(args)
    hyps, refs = ([], []) if scaled else read_parallel(args.hyps, args.refs)
    names = list(dict.fromkeys(args.metric or _TEXT_DEFAULTS))
    unknown = [m for m in names if m != "bleu" and not _ROUGE_TYPE.match(m)]
    if unknown:
        raise ConfigError(
            message(
                "scorekit text",
                "unknown metric",
                unknown[0],
                "bleu, rouge1 ... rouge9, rougeL or rougeLsum",
            )
        )
    metrics: dict[str, Any] = {}
    if "bleu" in names:
        metrics["bleu"] = BLEU(tokenize=args.tokenize, lowercase=args.lowercase)
    types = [m for m in names if m != "bleu"]
    if types:
        metrics["rouge"] = ROUGE(types=types, stemmer=args.stemmer)
    if scaled:
        states, rows = _scale.text_states(args, metrics)
    else:
        states = {key: metric.summarize(refs, hyps) for key, metric in metrics.items()}
        rows = len(hyps)
    values = {key: metric.compute(states[key]) for key, metric in metrics.items()}
    shown, notes = _scale.display_values("text", values, metrics, states)
    if args.save_state:
        saved = _Saved(metrics, states, rows)
        _save_state(args.save_state, "text", "references_predictions", saved, columns=None)
    _write_values(shown, args.format, out)
    for note in notes:
        err.write(f"scorekit: {note}\n")
    return 0


def _cmd_merge(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import _scale
    from scorekit._statefile import merge_with_header, save_states

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

    from scorekit import _scale, throughput
    from scorekit._statefile import save_states
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
    reasons = (header.get("tallies") or {}).get("failure_reasons")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = _scale.throughput_report(result.states, result.metrics, reasons)
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


def _read_json(path: str) -> Any:
    try:
        raw_text = Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(message(path, "no such file", None, "an existing file")) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(message(path, "cannot read", raw(str(exc)), "a UTF-8 JSON file")) from None
    try:
        return json.loads(raw_text)
    except json.JSONDecodeError as exc:
        raise InputError(
            message(
                f"{path}, line {exc.lineno}, column {exc.colno}",
                "invalid JSON",
                raw(exc.msg),
                "a JSON document",
            )
        ) from None


def _cmd_qa(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import qa

    dataset = _read_json(args.dataset)
    predictions = _read_json(args.predictions)
    na_probs = _read_json(args.na_probs) if args.na_probs else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = qa.squad(
            dataset,
            predictions,
            version=args.version,
            na_probs=na_probs,
            na_prob_thresh=args.na_prob_thresh,
        )
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    _write_values(dict(result), args.format, out)
    return 0


def _cmd_throughput(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import warnings

    from scorekit import throughput

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    if _scale_requested(args, "throughput"):
        return _throughput_scaled(args, slo, out, err)
    records = throughput.read_records(args.records)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = throughput.report(records, slo=slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    out.write(throughput.format_report(result, args.format))
    return 0


def _scale_requested(args: argparse.Namespace, command: str) -> bool:
    from scorekit import _scale

    _scale.check_scale_flags(args, command)
    return _scale.scaled(args) or bool(args.save_state)


def _throughput_scaled(
    args: argparse.Namespace, slo: dict[str, float] | None, out: TextIO, err: TextIO
) -> int:
    """``scorekit throughput`` with scale flags: the report from merged metric states."""
    import warnings

    from scorekit import _scale, throughput
    from scorekit._statefile import save_states

    metrics = _scale.throughput_metrics(slo)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        states, rows, reasons = _scale.throughput_states(args, metrics)
        result = _scale.throughput_report(states, metrics, reasons, slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    if args.save_state:
        save_states(
            args.save_state,
            {key: (metric, states[key]) for key, metric in metrics.items()},
            command="throughput",
            input="requests",
            rows=rows,
            tallies=None if reasons is None else {"failure_reasons": reasons},
        )
    out.write(throughput.format_report(result, args.format))
    return 0


def _demo_throughput(entry: dict[str, Any], directory: Path, out: TextIO) -> None:
    from scorekit import throughput

    slo = [str(s) for s in entry.get("slo") or []]
    result = throughput.report(throughput.read_records(directory / str(entry["file"])), slo=slo)
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {result.requests} requests)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    shown = ["scorekit throughput", str(entry["file"]), *(["--slo", *slo] if slo else [])]
    out.write("$ " + " ".join(shown) + "\n\n")
    out.write(throughput.format_report(result, "table"))


def _cmd_loadtest(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    import os
    import warnings

    from scorekit import throughput
    from scorekit.throughput import loadtest

    slo = throughput.parse_slo(args.slo, name="--slo") if args.slo else None
    if args.out and not Path(args.out).resolve().parent.is_dir():
        raise InputError(message(args.out, "no such directory", None, "a path to write to"))
    result = loadtest.run_loadtest(
        args.url,
        args.model,
        args.prompts,
        endpoint=args.endpoint,
        concurrency=args.concurrency,
        rate=args.rate,
        max_tokens=args.max_tokens,
        duration=args.duration,
        num_requests=args.num_requests,
        timeout=args.timeout,
        seed=args.seed,
        progress=False if args.quiet else None,
        api_key=args.api_key or os.environ.get("OPENAI_API_KEY") or None,
    )
    if args.out:
        loadtest.write_records(result.records, args.out)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        summary = throughput.report(result.records, slo=slo)
    for text in dict.fromkeys(str(w.message) for w in caught):
        err.write(f"scorekit: warning: {text}\n")
    if result.interrupted:
        err.write(f"scorekit: interrupted; {len(result.records)} requests recorded\n")
    out.write(throughput.format_report(summary, args.format))
    return 130 if result.interrupted else 0


def _direction(info: MetricInfo) -> str:
    if info.higher_is_better is None:
        return "—"
    return "higher" if info.higher_is_better else "lower"


def _listing() -> list[dict[str, Any]]:
    rows = []
    for info in available():
        rows.append(
            {
                "name": info.name,
                "aliases": [*info.aliases, *(f"{a}@{info.at}" for a in info.at_aliases)],
                "direction": _direction(info),
                "bounds": [info.bounds[0], info.bounds[1]],
                "inputs": info.inputs,
                "grows": info.grows,
                "bounded": info.bounded,
                "variants": [f"{info.name}:{v}" for v in info.variants],
                "at": info.at,
                "summary": info.summary,
            }
        )
    return rows


def _cmd_list(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    rows = _listing()
    if args.format == "json":
        for row in rows:
            row["bounds"] = [_plainbound_text(b) for b in row["bounds"]]
            if row["direction"] == "—":
                row["direction"] = None
        out.write(json.dumps(rows, indent=2) + "\n")
        return 0
    header = ["name", "aliases", "direction", "bounds", "inputs", "grows", "summary"]
    table = [
        [
            r["name"] + (f"@{r['at']}" if r["at"] else ""),
            ", ".join(r["aliases"]) or "—",
            r["direction"],
            f"[{bound_text(r['bounds'][0])}, {bound_text(r['bounds'][1])}]",
            r["inputs"],
            _grows_text(r["grows"], r["bounded"]),
            r["summary"],
        ]
        for r in rows
    ]
    widths = [max([len(h), *(len(line[i]) for line in table)]) for i, h in enumerate(header[:-1])]
    for line in [header, *table]:
        cells = [f"{c:<{w}}" for c, w in zip(line[:-1], widths, strict=True)]
        out.write("  ".join([*cells, line[-1]]).rstrip() + "\n")
    out.write(f"\n{len(rows)} metrics; `scorekit explain NAME` describes one.\n")
    return 0


def _grows_text(grows: bool, bounded: str | None) -> str:
    """``no``, ``yes``, or ``yes (bins=N)`` naming the option that bounds the memory."""
    if not grows:
        return "no"
    return f"yes ({bounded})" if bounded else "yes"


def _plainbound_text(x: float) -> float | str:
    return bound_text(x) if math.isinf(x) else x


def _cmd_explain(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    out.write(explain(args.name) + "\n")
    return 0


_DEMO_HINT = "the directory with manifest.json made by examples/make_data.py"


def _demo_dir(given: str | None) -> Path:
    if given is not None:
        candidates = [Path(given)]
    else:
        here = Path(__file__).resolve().parent
        candidates = [here / "_demo_data", here.parents[1] / "examples" / "data"]
    for directory in candidates:
        if (directory / "manifest.json").is_file():
            return directory
    raise InputError(
        message(
            "scorekit demo",
            "example data not found",
            raw(", ".join(str(c) for c in candidates)),
            _DEMO_HINT + " (pass it with --data)",
        )
    )


def _demo_entries(directory: Path) -> list[dict[str, Any]]:
    manifest = directory / "manifest.json"
    try:
        entries = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InputError(
            message(str(manifest), "cannot read the demo manifest", raw(str(exc)), "valid JSON")
        ) from None
    if not isinstance(entries, list):
        raise InputError(message(str(manifest), "not a list of files", None, "a JSON list"))
    return [e for e in entries if isinstance(e, dict)]


def _demo_features(entry: dict[str, Any], path: Path, out: TextIO) -> None:
    criterion = str(entry.get("criterion", "information_gain"))
    ranking = rank_file(str(path), target=str(entry["target"]), criterion=criterion)
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {ranking.rows} rows)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    command = ["scorekit features", str(entry["file"]), "--target", str(entry["target"])]
    out.write("$ " + " ".join([*command, "--criterion", criterion]) + "\n\n")
    _write_ranking(ranking, ranking.splits, "table", out)
    for text in ranking.warnings:
        out.write(f"note: {text}\n")


def _demo_rank(entry: dict[str, Any], directory: Path, out: TextIO) -> None:
    from scorekit import ranking

    metrics = list(entry.get("metrics") or _RANK_DEFAULTS)
    qrels = directory / str(entry["qrels"])
    run = ranking.read_run(directory / str(entry["file"]))
    result = ranking.evaluate(qrels, run, metrics)
    queries = len(run.queries())
    title = f"{entry.get('title', entry['file'])} ({entry['file']}, {len(run)} rows)"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    command = ["scorekit rank", str(entry["qrels"]), str(entry["file"]), "-m", *metrics]
    out.write("$ " + " ".join(command) + "\n\n")
    _write_table(dict(result), out)
    out.write(f"({queries} queries)\n")


def _demo_text_or_qa(entry: dict[str, Any], directory: Path, out: TextIO) -> None:
    parser = build_parser()
    if entry["command"] == "text":
        refs = [str(directory / r) for r in entry["refs"]]
        argv = ["text", "--refs", *refs, "--hyps", str(directory / entry["file"])]
        argv += ["-m", *entry["metrics"]]
        shown = ["scorekit text --refs", *entry["refs"], "--hyps", entry["file"]]
        shown += ["-m", *entry["metrics"]]
    else:
        argv = ["qa", str(directory / entry["dataset"]), str(directory / entry["file"])]
        argv += ["--na-probs", str(directory / entry["na_probs"])]
        shown = ["scorekit qa", entry["dataset"], entry["file"], "--na-probs", entry["na_probs"]]
    title = f"{entry.get('title', entry['file'])} ({entry['file']})"
    out.write(f"\n{title}\n{'=' * len(title)}\n")
    out.write("$ " + " ".join(shown) + "\n\n")
    args = parser.parse_args(argv)
    args.handler(args, out, io.StringIO())


def _cmd_demo(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    directory = _demo_dir(args.data)
    entries = _demo_entries(directory)
    out.write(f"scorekit {__version__} demo: the files in {directory}\n")
    for entry in entries:
        path = directory / str(entry["file"])
        if entry.get("command") == "features":
            _demo_features(entry, path, out)
            continue
        if entry.get("command") == "rank":
            _demo_rank(entry, directory, out)
            continue
        if entry.get("command") in ("text", "qa"):
            _demo_text_or_qa(entry, directory, out)
            continue
        if entry.get("command") == "throughput":
            _demo_throughput(entry, directory, out)
            continue
        result = evaluate_table(
            str(path),
            task=str(entry["task"]),
            true=list(entry["true"]),
            pred=entry.get("pred"),
            score=entry.get("score"),
        )
        title = f"{entry.get('title', entry['file'])} ({entry['file']}, {result.rows} rows)"
        out.write(f"\n{title}\n{'=' * len(title)}\n")
        command = ["scorekit eval", str(entry["file"]), "--task", str(entry["task"])]
        for flag in ("true", "pred", "score"):
            if entry.get(flag):
                command += [f"--{flag}", *entry[flag]]
        out.write("$ " + " ".join(command) + "\n\n")
        _write_table(result.values, out)
        for text in result.warnings:
            out.write(f"note: {text}\n")
        for text in result.skipped:
            out.write(f"skipped: {text}\n")
    out.write("\nScores in [0, 1] are fractions (0.85 means 85%).\n")
    return 0


# argument parsing ---------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors read ``scorekit: ...`` like the others."""

    def error(self, text: str) -> Any:
        self.print_usage(sys.stderr)
        sys.stderr.write(f"scorekit: {text}\n")
        raise SystemExit(2)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _number_above(bound: float) -> Callable[[str], float]:
    """An argparse type: a finite number greater than ``bound``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > bound):
            raise argparse.ArgumentTypeError(f"expected a finite number > {bound:g}, got {text!r}")
        return value

    return parse


def _scale_flags(parser: argparse.ArgumentParser, unit: str) -> None:
    from scorekit._scale import add_scale_flags

    add_scale_flags(parser, unit=unit)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``scorekit`` command."""
    parser = _Parser(
        prog="scorekit",
        description="Evaluation metrics for machine learning, from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"scorekit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    ev = sub.add_parser(
        "eval",
        help="evaluate predictions in a CSV, TSV, Parquet or JSON Lines file",
        description=(
            "Evaluate labels, scores or predicted values stored in a file. Multi-label "
            "truth and predictions are several 0/1 columns; multiclass scores are one "
            "column per class, in the sorted order of the classes; multi-output "
            "regression names one --pred column per --true column."
        ),
    )
    ev.add_argument("data", metavar="DATA", help="the file (.csv, .tsv, .parquet, .jsonl, ...)")
    ev.add_argument("--task", required=True, choices=TASKS)
    ev.add_argument(
        "--true", required=True, nargs="+", metavar="COL", help="true labels or target values"
    )
    ev.add_argument("--pred", nargs="+", metavar="COL", help="predicted labels or values")
    ev.add_argument("--score", nargs="+", metavar="COL", help="scores or probabilities")
    ev.add_argument("--weight", metavar="COL", help="sample weights")
    ev.add_argument(
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help="metric names such as accuracy, f1:macro, roc_auc (default: the task's set)",
    )
    ev.add_argument("--pos-label", metavar="LABEL", help="the positive class (binary task)")
    ev.add_argument("--format", choices=("table", "json", "csv"), default="table")
    _scale_flags(ev, "rows")
    ev.set_defaults(handler=_cmd_eval)

    ft = sub.add_parser(
        "features",
        help="rank the columns of a file as decision-tree splits of a target",
        description=(
            "Score every feature column as a split of the target column, as ID3 (information "
            "gain), C4.5 (gain ratio) or CART (Gini gain) would at the root, best first. "
            "Numeric columns split in two at the best threshold; text and boolean columns "
            "(and those named by --categorical) split multiway."
        ),
    )
    ft.add_argument("data", metavar="DATA", help="the file (.csv, .tsv, .parquet, .jsonl, ...)")
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
        "--base", type=_number_above(1), default=2.0, help="logarithm base (default 2: bits)"
    )
    ft.add_argument("--top", type=_positive_int, metavar="N", help="show the best N only")
    ft.add_argument("--format", choices=("table", "json", "csv"), default="table")
    ft.set_defaults(handler=_cmd_features)

    rk = sub.add_parser(
        "rank",
        help="evaluate a TREC run against its qrels (ranking metrics, like trec_eval)",
        description=(
            "Evaluate a run (qid Q0 docid rank score tag) against qrels (qid iter docid "
            "relevance) with ranking metrics, as trec_eval does: ties in score are broken by "
            "descending doc id and the rank column is ignored. The files may be gzip-compressed."
        ),
    )
    rk.add_argument("qrels", metavar="QRELS", help="the qrels file")
    rk.add_argument("run", metavar="RUN", help="the run file")
    rk.add_argument(
        "-m",
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=f"metrics such as ndcg@10, map, mrr@10, p@5 (default: {' '.join(_RANK_DEFAULTS)})",
    )
    rk.add_argument("--per-query", action="store_true", help="also show every query's values")
    rk.add_argument(
        "--missing",
        choices=MISSING,
        default="skip",
        help="qrels queries absent from the run: skip them, or count them as 0 (trec_eval -c)",
    )
    rk.add_argument(
        "-l",
        "--relevance-level",
        type=_number_above(0),
        metavar="L",
        help="the smallest grade that counts as relevant (default 1, trec_eval -l)",
    )
    rk.add_argument("--gain", choices=GAINS, default="linear", help="gain of a grade g: g or 2^g-1")
    rk.add_argument("--format", choices=("table", "json", "csv", "trec"), default="table")
    _scale_flags(rk, "run rows")
    rk.set_defaults(handler=_cmd_rank)

    tx = sub.add_parser(
        "text",
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
    tx.add_argument(
        "-m",
        "--metric",
        nargs="+",
        action="extend",
        metavar="NAME",
        help=f"bleu, rouge1..rouge9, rougeL, rougeLsum (default: {' '.join(_TEXT_DEFAULTS)})",
    )
    tx.add_argument("--tokenize", choices=BLEU_TOKENIZERS, default="13a", help="BLEU tokenizer")
    tx.add_argument("--lowercase", action="store_true", help="case-insensitive BLEU")
    tx.add_argument("--stemmer", action="store_true", help="Porter stemming for ROUGE")
    tx.add_argument("--format", choices=("table", "json", "csv"), default="table")
    _scale_flags(tx, "lines")
    tx.set_defaults(handler=_cmd_text)

    qa_parser = sub.add_parser(
        "qa",
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
    qa_parser.add_argument("--version", choices=("2.0", "1.1"), default="2.0")
    qa_parser.add_argument("--format", choices=("table", "json", "csv"), default="table")
    qa_parser.set_defaults(handler=_cmd_qa)

    tp = sub.add_parser(
        "throughput",
        help="LLM serving throughput, latency and goodput of request records",
        description=(
            "Report the throughputs (output, prompt and total tokens, requests per second of "
            "wall time), failed requests by reason, goodput under SLOs, and TTFT, TPOT, ITL "
            "and end-to-end latency (mean, median, p90, p99, max; milliseconds in the table, "
            "seconds in JSON) of one record per request: prompt_tokens, output_tokens, start, "
            "end, and optional first_token, token_times, success, error."
        ),
    )
    tp.add_argument("records", metavar="RECORDS", help="the records (.jsonl, .csv, .parquet)")
    tp.add_argument(
        "--slo",
        nargs="+",
        action="extend",
        metavar="KEY=TIME",
        help="objectives for goodput: ttft, tpot, itl or e2e with a unit (s, ms, us), "
        "e.g. --slo ttft=200ms tpot=50ms",
    )
    tp.add_argument("--format", choices=("table", "json"), default="table")
    _scale_flags(tp, "records")
    tp.set_defaults(handler=_cmd_throughput)

    mg = sub.add_parser(
        "merge",
        help="merge the state files of shards (--save-state) and print the values of the whole",
        description=(
            "Merge state files written by --save-state on shards of the data (on one machine "
            "or many) and print the metrics of all the data, as the command that wrote them "
            "prints them. The files must hold the same metrics with the same settings, from "
            "the same command and columns, in a state format this scorekit reads."
        ),
    )
    mg.add_argument("states", nargs="+", metavar="STATE", help="state files (.json, .json.gz)")
    mg.add_argument("--format", choices=("table", "json", "csv"), default="table")
    mg.add_argument("--save-state", metavar="FILE", help="also write the merged states to FILE")
    mg.set_defaults(handler=_cmd_merge)

    lt = sub.add_parser(
        "loadtest",
        help="load-test an OpenAI-compatible LLM server and report its throughput and latency",
        description=(
            "Send streamed chat or completion requests to an OpenAI-compatible server (vLLM, "
            "TGI, llama.cpp, Ollama, ...), time every streamed chunk, and print the report of "
            "'scorekit throughput'. --concurrency N keeps N requests in flight (closed loop, "
            "the default with N = 1); --rate R starts requests at Poisson arrival times, R a "
            "second (open loop). The run stops after --num-requests or --duration, whichever "
            "comes first (default: one request per prompt); requests in flight then run to "
            "their end. Failed requests (timeout, HTTP error, broken stream) are counted with "
            "their reason. Ctrl-C cancels the requests in flight, writes and reports what was "
            "collected, and exits with status 130. Needs httpx: pip install 'scorekit[serve]'."
        ),
    )
    lt.add_argument("--url", required=True, help="the API base, e.g. http://127.0.0.1:8000/v1")
    lt.add_argument("--model", required=True, metavar="NAME", help="the model to ask for")
    lt.add_argument(
        "--prompts",
        required=True,
        metavar="FILE.jsonl",
        help='one {"prompt": ...} or {"messages": [...]} a line, optionally "max_tokens"',
    )
    loop = lt.add_mutually_exclusive_group()
    loop.add_argument(
        "--concurrency", type=_positive_int, metavar="N", help="closed loop: N requests in flight"
    )
    loop.add_argument(
        "--rate",
        type=_number_above(0),
        metavar="R",
        help="open loop: Poisson arrivals, R per second",
    )
    lt.add_argument(
        "--max-tokens",
        type=_positive_int,
        default=128,
        metavar="N",
        help="tokens to generate when the prompt line sets none (default 128)",
    )
    lt.add_argument(
        "--duration", type=_number_above(0), metavar="S", help="start no request after S seconds"
    )
    lt.add_argument(
        "--num-requests", type=_positive_int, metavar="N", help="start N requests in all"
    )
    lt.add_argument("--endpoint", choices=("chat", "completions"), default="chat")
    lt.add_argument(
        "--timeout",
        type=_number_above(0),
        default=300.0,
        metavar="S",
        help="longest request, and longest wait for a byte of its stream (default 300)",
    )
    lt.add_argument("--seed", type=int, default=0, help="seed of the Poisson arrivals (default 0)")
    lt.add_argument("--out", metavar="FILE", help="write one record per request (JSON Lines)")
    lt.add_argument(
        "--slo",
        nargs="+",
        action="extend",
        metavar="KEY=TIME",
        help="objectives for goodput, e.g. --slo ttft=200ms tpot=50ms",
    )
    lt.add_argument("--format", choices=("table", "json"), default="table")
    lt.add_argument("--api-key", metavar="KEY", help="bearer token (default: $OPENAI_API_KEY)")
    lt.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    lt.set_defaults(handler=_cmd_loadtest)

    ls = sub.add_parser("list", help="list the registered metrics")
    ls.add_argument("--format", choices=("table", "json"), default="table")
    ls.set_defaults(handler=_cmd_list)

    ex = sub.add_parser("explain", help="definition, formula and a worked example of a metric")
    ex.add_argument("name", metavar="NAME")
    ex.set_defaults(handler=_cmd_explain)

    demo = sub.add_parser("demo", help="evaluate the bundled example files")
    demo.add_argument("--data", metavar="DIR", help=_DEMO_HINT)
    demo.set_defaults(handler=_cmd_demo)
    return parser


@contextlib.contextmanager
def _captured_exit() -> Iterator[list[int]]:
    code: list[int] = []
    try:
        yield code
    except SystemExit as exc:
        code.append(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``scorekit`` command; return the exit status (0 ok, 2 user error)."""
    parser = build_parser()
    with _captured_exit() as code:
        args = parser.parse_args(None if argv is None else list(argv))
    if code:
        return code[0]
    out, err = sys.stdout, sys.stderr
    buffer = io.StringIO()
    try:
        status: int = args.handler(args, buffer, err)
    except ScorekitError as exc:
        text = str(exc)
        err.write(text if text.startswith("scorekit:") else f"scorekit: {text}")
        err.write("\n")
        return 2
    out.write(buffer.getvalue())
    return status
