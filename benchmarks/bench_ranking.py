"""Ranking benchmarks against pytrec_eval and ranx on an MS MARCO-sized run.

The data: ``n`` queries (7,000 by default, about the size of the MS MARCO passage
dev set) x 1,000 retrieved passages drawn from an 8.8M-passage corpus, scores
strictly decreasing within each query (so no ties, on which ranx orders
differently from trec_eval), and 1 to 4 judged passages per query with grades
0-3, at least one of them relevant, most of them retrieved near the top. The
TREC files are written once into ``benchmarks/.data/`` and reused.

Rows:

- end to end from TREC files (parse both files, then nDCG@10, MAP and MRR)
  against pytrec_eval (``parse_run`` + ``parse_qrel`` + ``RelevanceEvaluator``)
  and against ranx (``Qrels.from_file`` / ``Run.from_file`` + ``evaluate``,
  after a warm-up call that compiles its numba kernels);
- in memory, 1,000 queries x 1,000 rows = 1,000,000 rows: scorekit from pyarrow
  tables (building ``Qrels`` / ``Run`` included) and from already built objects,
  against ranx ``evaluate`` on already built ``ranx.Qrels`` / ``ranx.Run``.
- array form, learning-to-rank style: ``queries x 100`` candidates with grades 0-3 and
  random scores, 1,000,000 and 10,000,000 rows. ``ranking.ndcg(k=10, ties="average")``
  on the 2-D arrays against scikit-learn's ``ndcg_score(k=10)`` (which averages tied
  scores the same way), and, for ndcg, dcg, map, mrr and precision_at on the 1-D arrays
  with a ``group`` column, the time per row at 10,000,000 rows against the time per row
  at 1,000,000 (the "reference" is 10 x the 1,000,000-row time: 1.0x is linear);
- fusion of three runs (1,000 queries x 100 documents each) with RRF, CombMNZ
  after min-max, CombSUM after z-scores, BordaFuse and Condorcet, ``ranking.fuse``
  on built runs against ``ranx.fuse`` on built runs, after a warm-up call of each
  (Condorcet: the queries whose fused order is ranx's; ranx orders tied and
  cyclic contests by its sort's visiting order).

"same result" compares every query's value of every metric (rtol 1e-12), not
only the means. On these data ranx's nDCG@10 (linear gains, "Jarvelin"), MAP and
MRR are trec_eval's, but not in general: ranx orders tied scores by an unstable
sort (trec_eval: doc id descending), counts only grades >= 1 as gains (trec_eval:
every grade > 0), reads integer grades only, matches documents by ``hash(doc_id)``
cast to float64 (distinct ids can meet), and needs the run and qrels to hold the
same queries (trec_eval evaluates the queries of the run that have judgments).
"""

from __future__ import annotations

import warnings
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytrec_eval
from pyarrow import csv

from _timing import Row, best_of
from scorekit import ranking

N = 7_000
"""Queries in the full-size run (each with DOCS retrieved documents)."""
DOCS = 1_000
CORPUS = 8_841_823
IN_MEMORY = 1_000
"""Queries of the in-memory comparison at full size (x DOCS = 1,000,000 rows)."""
METRICS = ["ndcg@10", "map", "mrr"]
TREC_MEASURES = {"ndcg@10": "ndcg_cut_10", "map": "map", "mrr": "recip_rank"}
DATA = Path(__file__).resolve().parent / ".data"


# data --------------------------------------------------------------------------------


def _distinct_per_query(rng: np.random.Generator, query: np.ndarray, doc: np.ndarray) -> np.ndarray:
    """Redraw documents until no query holds the same document twice."""
    doc = doc.copy()
    while True:
        key = query.astype(np.int64) * CORPUS + doc
        order = np.argsort(key, kind="stable")
        again = order[1:][key[order][1:] == key[order][:-1]]
        if len(again) == 0:
            return doc
        doc[again] = rng.integers(0, CORPUS, len(again))


def make_data(n: int, seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Run and qrels columns for ``n`` queries x ``DOCS`` documents (deterministic)."""
    rng = np.random.default_rng(seed)
    qids = rng.choice(1_200_000, size=n, replace=False) + 1
    rows = n * DOCS
    query = np.repeat(np.arange(n), DOCS)
    doc = _distinct_per_query(rng, query, rng.integers(0, CORPUS, rows))
    steps = rng.integers(1, 50, (n, DOCS))
    score = (steps[:, ::-1].cumsum(axis=1)[:, ::-1] + rng.integers(0, 5000, (n, 1))) / 1000
    run = {
        "query": qids[query],
        "doc": doc,
        "rank": np.tile(np.arange(1, DOCS + 1), n),
        "score": score.ravel(),
    }
    judged = 1 + rng.binomial(3, 0.25, n)
    jq = np.repeat(np.arange(n), judged)
    at = np.minimum(rng.geometric(0.05, len(jq)), DOCS) - 1
    retrieved = rng.random(len(jq)) < 0.7
    jdoc = np.where(retrieved, doc[jq * DOCS + at], rng.integers(0, CORPUS, len(jq)))
    jdoc = _distinct_per_query(rng, jq, jdoc)
    first = np.concatenate([[True], jq[1:] != jq[:-1]])
    grade = np.where(first, rng.integers(1, 4, len(jq)), rng.integers(0, 4, len(jq)))
    qrels = {"query": qids[jq], "doc": jdoc, "relevance": grade}
    return run, qrels


def _text(values: np.ndarray) -> Any:
    return pc.cast(pa.array(values), pa.string())


def _write_lines(path: Path, lines: Any) -> None:
    tmp = path.with_suffix(".tmp")
    csv.write_csv(
        pa.table({"line": lines}),
        tmp,
        write_options=csv.WriteOptions(include_header=False, quoting_style="none"),
    )
    tmp.replace(path)


def trec_files(n: int) -> tuple[Path, Path]:
    """The run and qrels files for ``n`` queries, written on first use."""
    run_path = DATA / f"run_{n}x{DOCS}.txt"
    qrels_path = DATA / f"qrels_{n}.txt"
    if not (run_path.exists() and qrels_path.exists()):
        DATA.mkdir(parents=True, exist_ok=True)
        run, qrels = make_data(n)
        fields = [_text(run["query"]), "Q0", _text(run["doc"]), _text(run["rank"])]
        _write_lines(
            run_path, pc.binary_join_element_wise(*fields, _text(run["score"]), "bm25", " ")
        )
        fields = [_text(qrels["query"]), "0", _text(qrels["doc"]), _text(qrels["relevance"])]
        _write_lines(qrels_path, pc.binary_join_element_wise(*fields, " "))
    return run_path, qrels_path


# comparison --------------------------------------------------------------------------


def _ours_per_query(result: ranking.RankingResult) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for name, state in result.states.items():
        queries, values = state.table()
        out[name] = dict(zip(queries.tolist(), values.tolist(), strict=True))
    return out


def _agree(ours: dict[str, dict[str, float]], ref: dict[str, dict[str, float]]) -> str:
    """Compare every query's value of every metric; ``ref`` is ``{metric: {query: value}}``."""
    worst = 0.0
    for name in ref:
        if set(ours[name]) != set(ref[name]):
            return f"NO ({name}: different query sets)"
        queries = sorted(ours[name])
        a = np.array([ours[name][q] for q in queries])
        b = np.array([ref[name][q] for q in queries])
        if not np.allclose(a, b, rtol=1e-12, atol=0):
            worst = max(worst, float(np.max(np.abs(a - b))))
    if worst:
        return f"NO (max difference {worst:.2e})"
    return "yes (every query, rtol 1e-12)"


def _pytrec(
    qrels_path: Path, run_path: Path
) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    with open(qrels_path) as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(run_path) as fh:
        run = pytrec_eval.parse_run(fh)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"})
    per_query = evaluator.evaluate(run)
    out = {name: {q: v[m] for q, v in per_query.items()} for name, m in TREC_MEASURES.items()}
    means = {name: float(np.mean(list(v.values()))) for name, v in out.items()}
    return means, out


def _ranx_per_query(ranx_run: Any) -> dict[str, dict[str, float]]:
    return {name: {q: float(v) for q, v in ranx_run.scores[name].items()} for name in METRICS}


def _ranx_warm_up(qrels_path: Path, run_path: Path) -> None:
    """Compile ranx's numba kernels for these files' id widths on their first two queries."""
    import itertools

    import ranx

    run: dict[str, dict[str, float]] = {}
    with open(run_path) as fh:
        for line in itertools.islice(fh, 2 * DOCS):
            q, _, d, _, score, _ = line.split()
            run.setdefault(q, {})[d] = float(score)
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as fh:
        for line in fh:
            q, _, d, rel = line.split()
            if q in run:
                qrels.setdefault(q, {})[d] = int(rel)
    ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), METRICS)


def _ranx_files(qrels_path: Path, run_path: Path) -> tuple[dict[str, float], Any]:
    import ranx

    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec")
    run = ranx.Run.from_file(str(run_path), kind="trec")
    return ranx.evaluate(qrels, run, METRICS), run


def _tables(n: int) -> tuple[Any, Any]:
    run, qrels = make_data(n)
    run_table = pa.table(
        {"query": _text(run["query"]), "doc": _text(run["doc"]), "score": run["score"]}
    )
    qrels_table = pa.table(
        {
            "query": _text(qrels["query"]),
            "doc": _text(qrels["doc"]),
            "relevance": qrels["relevance"],
        }
    )
    return run_table, qrels_table


def _ranx_objects(run_table: Any, qrels_table: Any) -> tuple[Any, Any]:
    import ranx

    def nested(table: Any, value: str, cast: Any) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        columns = (table.column(c).to_pylist() for c in ("query", "doc", value))
        for q, d, v in zip(*columns, strict=True):
            out.setdefault(q, {})[d] = cast(v)
        return out

    qrels = ranx.Qrels(nested(qrels_table, "relevance", int))
    run = ranx.Run(nested(run_table, "score", float))
    return qrels, run


def run(n: int = N) -> list[Row]:
    import ranx

    rows = []
    files = f"{n:,} queries x {DOCS:,} docs, TREC files"
    run_path, qrels_path = trec_files(n)
    metrics = ", ".join(METRICS)

    def ours_files() -> ranking.RankingResult:
        return ranking.evaluate(ranking.read_qrels(qrels_path), ranking.read_run(run_path), METRICS)

    t_ours, ours = best_of(ours_files)
    ours_pq = _ours_per_query(ours)

    t_ref, (_, ref) = best_of(lambda: _pytrec(qrels_path, run_path), repeat=1)
    pt = f"pytrec_eval {version('pytrec-eval-terrier')}"
    task = f"{metrics}: parse run + qrels, evaluate"
    rows.append(Row(task, files, t_ours, pt, t_ref, _agree(ours_pq, ref)))

    _ranx_warm_up(qrels_path, run_path)
    rx = f"ranx {version('ranx')}"
    t_ref, (_, ranx_run) = best_of(lambda: _ranx_files(qrels_path, run_path), repeat=1)
    rows.append(Row(task, files, t_ours, rx, t_ref, _agree(ours_pq, _ranx_per_query(ranx_run))))

    m = max(1, n * IN_MEMORY // N)
    size = f"{m * DOCS:,} rows ({m:,} queries), in memory"
    run_table, qrels_table = _tables(m)
    ranx_qrels, ranx_run = _ranx_objects(run_table, qrels_table)
    t_ref, _ = best_of(lambda: ranx.evaluate(ranx_qrels, ranx_run, METRICS))
    ranx_pq = _ranx_per_query(ranx_run)

    def from_tables() -> ranking.RankingResult:
        qrels = ranking.Qrels.from_table(qrels_table)
        run = ranking.Run.from_table(run_table)
        return ranking.evaluate(qrels, run, METRICS)

    t_ours, ours = best_of(from_tables)
    task = f"{metrics} from pyarrow tables (building Qrels/Run included)"
    rows.append(Row(task, size, t_ours, rx, t_ref, _agree(_ours_per_query(ours), ranx_pq)))

    qrels_obj = ranking.Qrels.from_table(qrels_table)
    run_obj = ranking.Run.from_table(run_table)
    run_obj.ranked()  # as ranx sorts a Run when building it
    t_ours, ours = best_of(lambda: ranking.evaluate(qrels_obj, run_obj, METRICS))
    task = f"{metrics} on built, ranked Qrels/Run (ranx: built Qrels/Run)"
    rows.append(Row(task, size, t_ours, rx, t_ref, _agree(_ours_per_query(ours), ranx_pq)))
    rows += _dict_rows(pt, rx)
    rows += _fusion_rows(rx)
    rows += array_rows(n)
    return rows


ARRAY_QUERIES = (10_000, 100_000)
"""Queries of the array-form rows at full size (x ARRAY_CANDIDATES = 1,000,000 and 10,000,000)."""
ARRAY_CANDIDATES = 100


def _array_data(queries: int, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    grades = rng.integers(0, 4, (queries, ARRAY_CANDIDATES)).astype(np.float64)
    return grades, rng.random((queries, ARRAY_CANDIDATES))


def array_rows(n: int = N) -> list[Row]:
    """The array-form metrics: nDCG against scikit-learn, and time per row at two sizes."""
    import sklearn
    from sklearn.metrics import ndcg_score

    sizes = [max(10, q * n // N) for q in ARRAY_QUERIES]
    sk = f"scikit-learn {sklearn.__version__}"
    rows = []
    for queries in sizes:
        grades, scores = _array_data(queries)
        size = f"{queries * ARRAY_CANDIDATES:,} rows ({queries:,} queries x 100), 2-D"
        t_ours, got = best_of(lambda g=grades, s=scores: ranking.ndcg(g, s, k=10, ties="average"))
        repeat = 1 if queries > 20_000 else 3
        t_ref, want = best_of(lambda g=grades, s=scores: ndcg_score(g, s, k=10), repeat=repeat)
        agree = "yes (rtol 1e-12)" if np.isclose(got, want, rtol=1e-12, atol=0) else "NO"
        task = 'ndcg(k=10, ties="average") on 2-D arrays'
        rows.append(Row(task, size, t_ours, sk, t_ref, agree))
    small, large = sizes
    data = {}
    for queries in sizes:
        grades, scores = _array_data(queries)
        group = np.repeat(np.arange(queries), ARRAY_CANDIDATES)
        data[queries] = (grades.ravel(), scores.ravel(), group)
    functions = [
        ("ndcg(k=10)", ranking.ndcg),
        ("dcg(k=10)", ranking.dcg),
        ("map", ranking.map),
        ("mrr", ranking.mrr),
        ("precision_at(k=10)", ranking.precision_at),
    ]
    scale = large // small
    for name, function in functions:
        k = {"k": 10} if "k=10" in name else {}
        times = {}
        for queries in sizes:
            grades, scores, group = data[queries]
            times[queries], _ = best_of(
                lambda g=grades, s=scores, q=group, f=function, k=k: f(g, s, group=q, **k)
            )
        rows.append(
            Row(
                f"{name} on 1-D arrays with group: time per row, {large * 100:,} rows "
                f"against {small * 100:,}",
                f"{large * 100:,} rows ({large:,} queries x 100)",
                times[large],
                f"scorekit at {small * 100:,} rows x {scale}",
                times[small] * scale,
                "1.0x is linear",
            )
        )
    return rows


def _fusion_runs(queries: int, docs: int, runs: int = 3) -> list[dict[str, dict[str, float]]]:
    """Runs of the same queries over overlapping documents, distinct scores in each query."""
    rng = np.random.default_rng(1)
    out = []
    for _ in range(runs):
        run: dict[str, dict[str, float]] = {}
        for q in range(queries):
            picked = rng.choice(3 * docs, size=docs, replace=False)
            scores = rng.permutation(docs) + rng.random(docs) * 0.5
            run[f"q{q}"] = {f"d{d}": float(s) for d, s in zip(picked, scores, strict=True)}
        out.append(run)
    return out


def _fusion_rows(rx: str, queries: int = 1000, docs: int = 100) -> list[Row]:
    """ranking.fuse against ranx.fuse on built runs (3 runs, one fused score per document)."""
    import ranx

    dicts = _fusion_runs(queries, docs)
    ours_runs = [ranking.Run.from_dict(r) for r in dicts]
    for r in ours_runs:
        r.ranked()
    ranx_runs = [ranx.Run.from_dict(r) for r in dicts]
    size = f"3 runs x {queries:,} queries x {docs} docs, built runs"
    rows = []
    for method, short, norm, ranx_norm in [
        ("rrf", "rrf", None, None),
        ("combmnz", "mnz", "minmax", "min-max"),
        ("combsum", "sum", "zmuv", "zmuv"),
        ("bordafuse", "bordafuse", None, None),
        ("condorcet", "condorcet", None, None),
    ]:
        ranx.fuse(ranx_runs, norm=ranx_norm, method=short)  # compile

        def theirs(norm: Any = ranx_norm, short: str = short) -> Any:
            return ranx.fuse(ranx_runs, norm=norm, method=short)

        def ours(method: str = method, norm: Any = norm) -> ranking.Run:
            return ranking.fuse(ours_runs, method, norm=norm)

        t_ref, expected = best_of(theirs)
        t_ours, fused = best_of(ours)
        got, want = fused.to_dict(), expected.to_dict()
        same = got.keys() == want.keys() and all(
            got[q].keys() == want[q].keys()
            and np.allclose([got[q][d] for d in want[q]], list(want[q].values()), rtol=1e-12)
            for q in want
        )
        task = f"fuse {method} (norm {norm})"
        agree = "yes (every score, rtol 1e-12)" if same else "NO"
        if method == "condorcet":
            agree = _condorcet_agreement(got, want)
        rows.append(Row(task, size, t_ours, rx, t_ref, agree))
    return rows


def _condorcet_agreement(got: dict[str, Any], want: dict[str, Any]) -> str:
    """How many queries' fused orders are ranx's (ranx orders ties and cycles arbitrarily)."""
    same = sum(
        got[q].keys() == want[q].keys() and all(got[q][d] == want[q][d] for d in want[q])
        for q in want
    )
    return f"{same} of {len(want)} queries the same order (ties and cycles differ)"


def _dicts(queries: int, docs: int, judged: int, seed: int = 0) -> tuple[Any, Any]:
    """pytrec_eval-style ``{query: {doc: value}}`` dicts: unsorted scores, grades 0-2."""
    rng = np.random.default_rng(seed)
    run: dict[str, dict[str, float]] = {}
    qrels: dict[str, dict[str, int]] = {}
    for q in range(queries):
        names = [f"d{d}" for d in rng.permutation(docs)]
        scores = rng.random(docs).tolist()
        run[f"q{q}"] = dict(zip(names, scores, strict=True))
        grades = rng.integers(0, 3, judged).tolist()
        qrels[f"q{q}"] = dict(zip(names[:judged], grades, strict=True))
    return qrels, run


def _dict_rows(pt: str, rx: str, queries: int = 2000, docs: int = 300) -> list[Row]:
    """From dicts, conversion included: pytrec_eval's form, and the same dicts given to ranx."""
    import ranx

    qrels, run = _dicts(queries, docs, 100)
    size = f"{queries:,} queries x {docs} docs, dicts"
    metrics = ", ".join(METRICS)

    t_ours, ours = best_of(lambda: ranking.evaluate(qrels, run, METRICS))
    ours_pq = _ours_per_query(ours)
    evaluator = pytrec_eval.RelevanceEvaluator
    t_ref, per_query = best_of(
        lambda: evaluator(qrels, {"ndcg_cut.10", "map", "recip_rank"}).evaluate(run)
    )
    ref = {name: {q: v[m] for q, v in per_query.items()} for name, m in TREC_MEASURES.items()}
    rows = [Row(f"{metrics} from dicts", size, t_ours, pt, t_ref, _agree(ours_pq, ref))]
    rows.append(_compat_row(qrels, run, size, METRICS, pt, t_ref, ref))

    ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx.Run.from_dict(run), METRICS)  # compile

    def with_ranx() -> Any:
        ranx_run = ranx.Run.from_dict(run)
        ranx.evaluate(ranx.Qrels.from_dict(qrels), ranx_run, METRICS)
        return ranx_run

    t_ref, ranx_run = best_of(with_ranx)
    rows.append(
        Row(
            f"{metrics} from dicts",
            size,
            t_ours,
            rx,
            t_ref,
            _agree(ours_pq, _ranx_per_query(ranx_run)),
        )
    )
    return rows + _many_queries_rows(pt)


def _compat_row(
    qrels: Any,
    run: Any,
    size: str,
    metrics: list[str],
    pt: str,
    t_ref: float,
    ref: dict[str, dict[str, float]],
) -> Row:
    """``scorekit.compat.pytrec_eval`` on the dicts pytrec_eval was timed on (``t_ref``)."""
    from scorekit.compat import pytrec_eval as compat

    measures = {TREC_MEASURES[m].replace("_cut_", "_cut.") for m in metrics}
    t_ours, found = best_of(lambda: compat.RelevanceEvaluator(qrels, measures).evaluate(run))
    ours = {m: {q: v[TREC_MEASURES[m]] for q, v in found.items()} for m in metrics}
    task = f"{', '.join(metrics)} from dicts, compat.pytrec_eval"
    return Row(task, size, t_ours, pt, t_ref, _agree(ours, ref))


def _many_queries_rows(pt: str, queries: int = 20_000, docs: int = 100) -> list[Row]:
    """Many short rankings as dicts, nDCG@10 alone: ``ranking.evaluate`` and the compat
    module against pytrec_eval."""
    qrels, run = _dicts(queries, docs, docs // 3)
    size = f"{queries:,} queries x {docs} docs, dicts"
    t_ours, ours = best_of(lambda: ranking.evaluate(qrels, run, ["ndcg@10"]))
    evaluator = pytrec_eval.RelevanceEvaluator
    t_ref, per_query = best_of(lambda: evaluator(qrels, {"ndcg_cut.10"}).evaluate(run))
    ref = {"ndcg@10": {q: v["ndcg_cut_10"] for q, v in per_query.items()}}
    agree = _agree(_ours_per_query(ours), ref)
    return [
        Row("ndcg@10 from dicts", size, t_ours, pt, t_ref, agree),
        _compat_row(qrels, run, size, ["ndcg@10"], pt, t_ref, ref),
    ]


if __name__ == "__main__":
    import sys

    warnings.simplefilter("ignore")
    if "--dicts" in sys.argv[1:]:
        # the rows of runs given as dicts alone
        found = _dict_rows(
            f"pytrec_eval {version('pytrec-eval-terrier')}", f"ranx {version('ranx')}"
        )
    else:
        found = run()
    for row in found:
        print(row.markdown())
