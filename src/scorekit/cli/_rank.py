"""``scorekit rank``: a TREC run against its qrels, like trec_eval (``--format trec``)."""

from __future__ import annotations

import argparse
import csv
import json
from typing import Any, TextIO

from scorekit.cli._output import _number, _plain, _save_state, _Saved, _write_values

_RANK_DEFAULTS = ("map", "ndcg@10", "mrr", "p@10", "recall@100", "bpref")


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
