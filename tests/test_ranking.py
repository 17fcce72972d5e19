"""Ranking metrics: agreement with pytrec_eval, worked examples, bad input, merging, evaluate.

trec_eval's own test files are checked in ``test_ranking_trec.py``.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from hypothesis import example, given
from hypothesis import strategies as st

from scorekit import parse_metric, ranking
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.ranking import QueryValues

# agreement with pytrec_eval ------------------------------------------------------------------

# Ids whose byte order (trec_eval breaks ties by strcmp, larger docno first) differs from
# their "natural" order: d10 < d2 < d9, upper case before lower case, é after z.
DOCS = ["d1", "d10", "d2", "d9", "D3", "a", "b10", "b2", "z", "é", "é1"]
QUERIES = ["q1", "q10", "q2", "Q3", "é"]
# trec_eval stores scores as C floats: draw scores that float32 holds exactly, with many ties.
SCORES = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, 2.0, -1.0]), st.floats(-4, 4, width=32, allow_subnormal=False)
)

PYTREC_MEASURES = {
    "map",
    "map_cut.1,3,10",
    "P.1,3,20",
    "recall.2,5,20",
    "ndcg",
    "ndcg_cut.1,4,20",
    "recip_rank",
    "Rprec",
    "bpref",
    "success.1,3,20",
}
TREC_TO_SCOREKIT = {
    "map": "map",
    "map_cut_1": "map@1",
    "map_cut_3": "map@3",
    "map_cut_10": "map@10",
    "P_1": "p@1",
    "P_3": "p@3",
    "P_20": "p@20",
    "recall_2": "recall@2",
    "recall_5": "recall@5",
    "recall_20": "recall@20",
    "ndcg": "ndcg",
    "ndcg_cut_1": "ndcg@1",
    "ndcg_cut_4": "ndcg@4",
    "ndcg_cut_20": "ndcg@20",
    "recip_rank": "mrr",
    "Rprec": "r_precision",
    "bpref": "bpref",
    "success_1": "hit_rate@1",
    "success_3": "hit_rate@3",
    "success_20": "hit_rate@20",
}


@st.composite
def qrels_and_runs(
    draw: st.DrawFn,
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """Graded qrels (-1..3) and a run with ties, unjudged and unretrieved documents.

    Some queries are only in the qrels, some only in the run. pytrec_eval quirks
    kept out: every qrels query has a judgment >= 0 (trec_eval reads stale
    memory for a query whose grades are all negative, and an empty one is
    dropped), and every run query retrieves a document.
    """
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in draw(st.lists(st.sampled_from(QUERIES), min_size=1, unique=True)):
        role = draw(st.sampled_from(["both", "both", "both", "qrels only", "run only"]))
        if role != "run only":
            judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(-1, 3), min_size=1))
            if max(judged.values()) < 0:
                judged[next(iter(judged))] = draw(st.integers(0, 3))
            qrels[q] = judged
        if role != "qrels only":
            run[q] = draw(st.dictionaries(st.sampled_from(DOCS), SCORES, min_size=1))
    return qrels, run


def _compare_with_pytrec_eval(qrels: dict[str, Any], run: dict[str, Any], level: int) -> None:
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, PYTREC_MEASURES, relevance_level=level
    ).evaluate(run)
    names = list(TREC_TO_SCOREKIT.values())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        if not reference:
            with pytest.raises(InputError, match="no query to evaluate"):
                ranking.evaluate(qrels, run, names, relevance_level=level)
            return
        result = ranking.evaluate(qrels, run, names, per_query=True, relevance_level=level)
    assert result.per_query is not None
    assert sorted(result.per_query) == sorted(reference)
    for query, values in reference.items():
        assert set(values) == set(TREC_TO_SCOREKIT)
        for measure, expected in values.items():
            got = result.per_query[query][TREC_TO_SCOREKIT[measure]]
            assert abs(got - expected) <= 1e-12, (query, measure, level, got, expected)
    for name in names:
        mean = np.mean([v[name] for v in result.per_query.values()])
        assert abs(result[name] - mean) <= 1e-12


@given(qrels_and_runs())
@example(  # ties at every score, broken by docno descending in byte order
    ({"q1": {"d1": 1, "d10": 0, "d2": 2, "d9": 0, "é": 1, "z": 3}},
     {"q1": {"d1": 1.0, "d10": 1.0, "d2": 1.0, "d9": 1.0, "é": 1.0, "z": 1.0, "a": 1.0}}),
)  # fmt: skip
@example(  # no relevant document at level 2, unjudged (-1) retrieved, judged unretrieved
    ({"q1": {"a": 1, "b2": -1, "z": 0, "d9": 1}, "q2": {"d1": 2, "D3": 3}},
     {"q1": {"b2": 2.0, "a": 1.0, "D3": 0.5}, "q2": {"D3": 0.0, "d2": 0.25}, "q10": {"a": 1.0}}),
)  # fmt: skip
@example(({"q1": {"a": 1}}, {"q2": {"a": 1.0}}))  # no query in common
def test_per_query_values_match_pytrec_eval(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]],
) -> None:
    qrels, run = data
    for level in (1, 2):
        _compare_with_pytrec_eval(qrels, run, level)


# worked examples -----------------------------------------------------------------------------

GRADED_QRELS = {"q": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 0}}
GRADED_RUN = {"q": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 3.0, "d5": 2.0, "d6": 1.0}}


def _dcg(gains: list[float]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_graded_worked_example_linear_gain() -> None:
    """METRICS.md: [3, 2, 3, 0, 1, 2] with two more judged (3 and 0): DCG@6 6.861, NDCG@6 0.818."""
    dcg = ranking.DCG(k=6).score(GRADED_QRELS, GRADED_RUN)
    ndcg = ranking.NDCG(k=6).score(GRADED_QRELS, GRADED_RUN)
    assert round(dcg, 3) == 6.861
    assert round(dcg / ndcg, 3) == 8.384  # IDCG@6: ideal 3, 3, 3, 2, 2, 1
    assert round(ndcg, 3) == 0.818
    assert dcg == pytest.approx(_dcg([3, 2, 3, 0, 1, 2]), rel=1e-14)
    assert ndcg == pytest.approx(_dcg([3, 2, 3, 0, 1, 2]) / _dcg([3, 3, 3, 2, 2, 1]), rel=1e-14)
    assert ranking.CG(k=6).score(GRADED_QRELS, GRADED_RUN) == 11.0
    assert ranking.CG(k=2).score(GRADED_QRELS, GRADED_RUN) == 5.0


def test_graded_worked_example_exponential_gain() -> None:
    exp = [2.0**g - 1 for g in (3, 2, 3, 0, 1, 2)]
    ideal = [2.0**g - 1 for g in (3, 3, 3, 2, 2, 1)]
    assert ranking.DCG(k=6, gain="exp").score(GRADED_QRELS, GRADED_RUN) == pytest.approx(
        _dcg(exp), rel=1e-14
    )
    ndcg = ranking.NDCG(k=6, gain="exp").score(GRADED_QRELS, GRADED_RUN)
    assert ndcg == pytest.approx(_dcg(exp) / _dcg(ideal), rel=1e-14)
    # at k = 3 the ideal is 7, 7, 7 and the run 7, 3, 7
    assert ranking.NDCG(k=3, gain="exp").score(GRADED_QRELS, GRADED_RUN) == pytest.approx(
        (7 + 3 / math.log2(3) + 7 / 2) / (7 + 7 / math.log2(3) + 7 / 2), rel=1e-14
    )
    assert ranking.CG(k=3, gain="exp").score(GRADED_QRELS, GRADED_RUN) == 17.0
    assert ranking.evaluate(GRADED_QRELS, GRADED_RUN, ["ndcg@6"], gain="exp")["ndcg@6"] == ndcg


BINARY_QRELS = {"q": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0}}
BINARY_RUN = {"q": {"a": 6.0, "b": 5.0, "c": 4.0, "d": 3.0, "e": 2.0, "f": 1.0}}


def test_binary_worked_example_average_precision() -> None:
    """METRICS.md: [1, 0, 1, 0, 1, 0] with 3 relevant: AP = (1 + 2/3 + 3/5) / 3 = 0.7556."""
    ap = ranking.MAP().score(BINARY_QRELS, BINARY_RUN)
    assert round(ap, 4) == 0.7556
    assert ap == pytest.approx((1 + 2 / 3 + 3 / 5) / 3, rel=1e-15)
    assert ranking.evaluate(BINARY_QRELS, BINARY_RUN, ["ap"])["ap"] == ap
    assert ranking.MAP(k=3).score(BINARY_QRELS, BINARY_RUN) == pytest.approx((1 + 2 / 3) / 3)
    # a fourth relevant document never retrieved halves nothing but the denominator grows
    more = {"q": {**BINARY_QRELS["q"], "x": 1}}
    assert ranking.MAP().score(more, BINARY_RUN) == pytest.approx((1 + 2 / 3 + 3 / 5) / 4)


def test_precision_recall_f_hit_rate_mrr_by_hand() -> None:
    qrels = {"q": {"a": 1, "b": 0, "c": 1, "x": 1, "y": 2}}
    run = {"q": {"n": 5.0, "b": 4.0, "a": 3.0, "u": 2.0, "c": 1.0}}  # relevant at ranks 3, 5
    assert ranking.Precision(k=3).score(qrels, run) == pytest.approx(1 / 3)
    assert ranking.Precision(k=10).score(qrels, run) == pytest.approx(2 / 10)  # k, not 5
    assert ranking.Recall(k=3).score(qrels, run) == pytest.approx(1 / 4)
    assert ranking.Recall(k=5).score(qrels, run) == pytest.approx(2 / 4)
    for beta in (0.5, 1.0, 2.0):
        p, r = 2 / 5, 2 / 4
        f = (1 + beta**2) * p * r / (beta**2 * p + r)
        assert ranking.FAtK(k=5, beta=beta).score(qrels, run) == pytest.approx(f, rel=1e-14)
        got = ranking.evaluate(qrels, run, ["f@5"], beta=beta)["f@5"]
        assert got == pytest.approx(f, rel=1e-14)
    assert ranking.FAtK(k=2).score(qrels, run) == 0.0
    assert ranking.HitRate(k=2).score(qrels, run) == 0.0
    assert ranking.HitRate(k=3).score(qrels, run) == 1.0
    assert ranking.MRR().score(qrels, run) == pytest.approx(1 / 3)
    assert ranking.MRR(k=2).score(qrels, run) == 0.0
    assert ranking.MRR(k=3).score(qrels, run) == pytest.approx(1 / 3)
    assert ranking.evaluate(qrels, run, ["mrr@2", "mrr@3"]) == {"mrr@2": 0.0, "mrr@3": 1 / 3}
    # relevance level 2: only y is relevant and it is not retrieved
    level2 = ranking.evaluate(qrels, run, ["p@5", "mrr", "hit_rate@5"], relevance_level=2)
    assert dict(level2) == {"p@5": 0.0, "mrr": 0.0, "hit_rate@5": 0.0}


ERR_QRELS = {"q": {"a": 3, "b": 0, "d": 1, "e": 2}}
ERR_RUN = {"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "e": 1.0}}  # grades 3, 0, -, 1, 2


def test_err_by_hand() -> None:
    """Chapelle et al. 2009: R = (2^g - 1) / 2^g_max, ERR = sum_r R_r / r prod_{i<r} (1 - R_i)."""
    r1, r4, r5 = 7 / 8, 1 / 8, 3 / 8  # g_max = 3, the largest grade in the qrels
    err5 = r1 + (1 - r1) * r4 / 4 + (1 - r1) * (1 - r4) * r5 / 5
    assert ranking.ERR(k=5).score(ERR_QRELS, ERR_RUN) == pytest.approx(err5, rel=1e-14)
    assert ranking.ERR().score(ERR_QRELS, ERR_RUN) == pytest.approx(err5, rel=1e-14)
    assert ranking.ERR(k=3).score(ERR_QRELS, ERR_RUN) == pytest.approx(r1, rel=1e-14)
    # an unretrieved grade-4 judgment raises the default g_max to 4
    more = {"q": {**ERR_QRELS["q"], "z": 4}}
    s1, s4, s5 = 7 / 16, 1 / 16, 3 / 16
    err4 = s1 + (1 - s1) * s4 / 4 + (1 - s1) * (1 - s4) * s5 / 5
    assert ranking.ERR(k=5).score(more, ERR_RUN) == pytest.approx(err4, rel=1e-14)
    assert ranking.ERR(k=5, max_grade=3).score(more, ERR_RUN) == pytest.approx(err5, rel=1e-14)
    assert ranking.ERR(k=5, max_grade=4).score(ERR_QRELS, ERR_RUN) == pytest.approx(err4)


def test_err_in_evaluate_defaults_max_grade_from_the_qrels() -> None:
    """evaluate used g_max = 1 (every relevant document stops the user) unless max_grade was set."""
    r1, r4, r5 = 7 / 8, 1 / 8, 3 / 8
    err5 = r1 + (1 - r1) * r4 / 4 + (1 - r1) * (1 - r4) * r5 / 5
    result = ranking.evaluate(ERR_QRELS, ERR_RUN, ["err@5", "err"])
    assert result["err@5"] == pytest.approx(err5, rel=1e-14)
    assert result["err"] == pytest.approx(err5, rel=1e-14)
    assert result["err@5"] == ranking.ERR(k=5).score(ERR_QRELS, ERR_RUN)
    with_option = ranking.evaluate(ERR_QRELS, ERR_RUN, ["err@5"], max_grade=4)
    assert with_option["err@5"] == ranking.ERR(k=5, max_grade=4).score(ERR_QRELS, ERR_RUN)


# bad input -----------------------------------------------------------------------------------

QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1}, "q2": {"d5": 1}}
RUN = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}, "q2": {"d4": 0.7, "d5": 0.6}}


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: ranking.Precision(k=0), ["invalid cutoff", "0", ">= 1"]),
        (lambda: ranking.Recall(k=-3), ["invalid cutoff", "-3"]),
        (lambda: ranking.NDCG(k=2.5), ["invalid cutoff", "2.5", "integer"]),
        (lambda: ranking.MAP(k=True), ["invalid cutoff", "True"]),
        (lambda: ranking.HitRate(k="5"), ["invalid cutoff", "'5'"]),
        (lambda: ranking.Precision(k=None), ["needs a cutoff"]),
        (lambda: ranking.MAP(missing="drop"), ["unknown missing", "'drop'", "'skip', 'zero'"]),
        (lambda: ranking.NDCG(gain="log"), ["unknown gain", "'log'", "'linear', 'exp'"]),
        (lambda: ranking.MAP(relevance_level=0), ["invalid relevance_level", "0", "> 0"]),
        (lambda: ranking.Precision(relevance_level=-1), ["invalid relevance_level", "-1"]),
        (lambda: ranking.MAP(relevance_level=math.nan), ["invalid relevance_level"]),
        (lambda: ranking.FAtK(beta=0), ["invalid beta", "0"]),
        (lambda: ranking.ERR(max_grade=-2), ["invalid max_grade", "-2"]),
    ],
)
def test_bad_configuration(make: Any, words: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        make()
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize(
    ("metrics", "options", "words"),
    [
        (["ndcg@10", "nope@3"], {}, ["unknown metric", "'nope'"]),
        (["f1"], {}, ["f1", "is not a ranking metric"]),
        ([parse_metric("f1:macro")], {}, ["f1", "is not a ranking metric"]),
        (["precision"], {}, ["precision", "is not a ranking metric"]),
        (["p@0"], {}, ["invalid cutoff", "0"]),
        (["p@x"], {}, ["must be an integer", "'x'"]),
        (["map@2.5"], {}, ["must be an integer", "'2.5'"]),
        ([], {}, ["no metric"]),
        (["map"], {"missing": "drop"}, ["unknown missing", "'drop'"]),
        (["ndcg"], {"gain": "log2"}, ["unknown gain", "'log2'"]),
        (["map"], {"relevance_level": 0}, ["invalid relevance_level"]),
        (["map"], {"level": 2}, ["unknown option", "'level'", "'relevance_level'"]),
    ],
)
def test_evaluate_bad_configuration(
    metrics: list[str], options: dict[str, Any], words: list[str]
) -> None:
    with pytest.raises(ConfigError) as info:
        ranking.evaluate(QRELS, RUN, metrics, **options)
    for word in words:
        assert word in str(info.value)


def test_evaluate_takes_one_metric_string() -> None:
    assert dict(ranking.evaluate(QRELS, RUN, "mrr")) == {"mrr": 0.75}
    assert dict(ranking.evaluate(QRELS, RUN, ranking.MRR(k=1))) == {"mrr@1": 0.5}


@pytest.mark.parametrize(
    ("qrels", "run", "words"),
    [
        (QRELS, {"q1": {"d1": "high"}}, ["score", "'high'"]),
        ({"q1": {"d1": "yes"}}, RUN, ["relevance", "'yes'"]),
        (QRELS, {"q1": {"d1": math.nan}}, ["score", "finite", "'q1'", "'d1'"]),
        (QRELS, {"q1": {"d1": 1.0, "d2": math.inf}}, ["score", "finite", "'d2'"]),
        ({"q1": {"d1": -math.inf}}, RUN, ["relevance", "finite"]),
        (QRELS, {"q1": [0.5, 0.2]}, ["'q1'", "does not map docs"]),
        ([("q1", "d1", 1)], RUN, ["qrels", "cannot read", "list"]),
    ],
)
def test_bad_dict_input(qrels: Any, run: Any, words: list[str]) -> None:
    with pytest.raises(InputError) as info:
        ranking.evaluate(qrels, run, ["map"])
    for word in words:
        assert word in str(info.value)


def test_bad_table_input() -> None:
    frame = pd.DataFrame({"query": ["q1", "q1"], "doc": ["d1", "d1"], "score": [0.5, 0.2]})
    with pytest.raises(InputError, match=r"duplicate document.*'d1'.*'q1'"):
        ranking.evaluate(QRELS, frame, ["map"])
    qrels = pd.DataFrame({"query": ["q1", "q2", "q2"], "doc": ["a", "b", "b"], "relevance": 1})
    with pytest.raises(InputError, match=r"duplicate document.*'b'.*'q2'"):
        ranking.evaluate(qrels, RUN, ["map"])
    with pytest.raises(InputError, match=r"column; got 'score'.*'query', 'doc', 'rank'"):
        ranking.evaluate(QRELS, frame.rename(columns={"score": "rank"}), ["map"])
    text = frame.assign(doc=["d1", "d2"], score=["0.5", "x"])
    with pytest.raises(InputError, match="score"):
        ranking.evaluate(QRELS, text, ["map"])


def test_run_without_a_query_of_the_qrels_is_a_clear_error() -> None:
    run = {"other": {"d1": 1.0}}
    for metric in (ranking.MAP(), ranking.NDCG(k=5), ranking.Precision(k=3), ranking.ERR()):
        with pytest.raises(InputError, match="no query to evaluate") as info:
            metric.score(QRELS, run)
        assert "2 qrels queries" in str(info.value)
    with pytest.raises(InputError, match="no query to evaluate"):
        ranking.evaluate(QRELS, run, ["map", "mrr"])
    with pytest.raises(InputError, match="no query to evaluate"):
        ranking.MAP().compute(ranking.MAP().empty())


# merging, per-query results, warnings ---------------------------------------------------------

MANY_QRELS = {
    "q1": {"a": 1, "b": 0, "c": 2},
    "q2": {"a": 0, "d": 3, "e": 1},
    "q3": {"f": 1},
    "q4": {"a": 2, "g": 0},
    "q5": {"h": 1, "i": 1},
    "q6": {"j": 0},
}
MANY_RUN = {
    "q1": {"a": 0.5, "b": 0.9, "c": 0.1, "x": 0.5},
    "q2": {"d": 0.2, "e": 0.2, "a": 0.3},
    "q3": {"y": 1.0, "f": 0.5},
    "q5": {"i": 2.0, "h": 1.0},
    "q6": {"j": 1.0},
    "q7": {"z": 1.0},
}
MERGE_METRICS = [
    ranking.MAP(),
    ranking.MAP(k=2),
    ranking.NDCG(k=3),
    ranking.NDCG(gain="exp"),
    ranking.Precision(k=2),
    ranking.Recall(k=2),
    ranking.FAtK(k=3, beta=2.0),
    ranking.MRR(),
    ranking.RPrecision(),
    ranking.BPref(),
    ranking.HitRate(k=1),
    ranking.CG(k=2),
    ranking.DCG(),
    ranking.ERR(k=3, max_grade=3),
]


def _subset(data: dict[str, Any], queries: set[str]) -> dict[str, Any]:
    return {q: v for q, v in data.items() if q in queries}


@pytest.mark.filterwarnings("ignore::scorekit.errors.UndefinedMetricWarning")
@pytest.mark.parametrize("metric", MERGE_METRICS, ids=repr)
@pytest.mark.parametrize("missing", ["skip", "zero"])
def test_merged_disjoint_states_equal_the_whole(metric: Any, missing: str) -> None:
    metric = type(metric)(**{**_options(metric), "missing": missing})
    whole = metric.summarize(MANY_QRELS, MANY_RUN)
    # chunks of the run against the whole qrels: each chunk's absent set differs
    parts = [{"q1", "q2"}, {"q3", "q7"}, {"q5", "q6"}]
    states = [metric.summarize(MANY_QRELS, _subset(MANY_RUN, p)) for p in parts]
    merged = metric.empty()
    for state in states:
        merged = metric.merge(merged, state)
    np.testing.assert_array_equal(merged.queries, whole.queries)
    np.testing.assert_array_equal(merged.values, whole.values)
    assert metric.compute(merged) == pytest.approx(metric.compute(whole), rel=1e-14, abs=0)
    assert metric.compute(merged) == pytest.approx(metric.score(MANY_QRELS, MANY_RUN), rel=1e-14)
    # chunks of both qrels and run; q4 (no run line) in one chunk only
    split = [{"q1", "q4"}, {"q2", "q3", "q5"}, {"q6", "q7"}]
    both = [metric.summarize(_subset(MANY_QRELS, p), _subset(MANY_RUN, p)) for p in split]
    merged2 = metric.merge(metric.merge(both[2], both[0]), both[1])
    assert metric.compute(merged2) == pytest.approx(metric.compute(whole), rel=1e-14, abs=0)
    queries, values = merged2.table()
    expected = ["q1", "q2", "q3", "q5", "q6"] + (["q4"] if missing == "zero" else [])
    assert sorted(queries.tolist()) == sorted(expected)
    assert np.mean(values) == pytest.approx(metric.compute(whole), rel=1e-14, abs=0)


def _options(metric: Any) -> dict[str, Any]:
    names = ("k", "beta", "gain", "max_grade")
    return {n: getattr(metric, n) for n in names if hasattr(metric, n)}


def test_missing_zero_counts_absent_queries_as_zero() -> None:
    skip = ranking.MAP().summarize(MANY_QRELS, MANY_RUN)
    zero = ranking.MAP(missing="zero").summarize(MANY_QRELS, MANY_RUN)
    assert skip.absent.tolist() == ["q4"] and zero.absent.tolist() == ["q4"]
    assert "q7" not in skip.queries  # a run query without judgments is never evaluated
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert ranking.MAP(missing="zero").compute(zero) == pytest.approx(
            ranking.MAP().compute(skip) * 5 / 6, rel=1e-14
        )
    with pytest.raises(StateMismatchError, match="missing"):
        skip.merge(zero)


def test_merging_the_same_query_twice_is_an_error() -> None:
    metric = ranking.Precision(k=2)
    a = metric.summarize(MANY_QRELS, _subset(MANY_RUN, {"q1", "q2"}))
    b = metric.summarize(MANY_QRELS, _subset(MANY_RUN, {"q2", "q3"}))
    with pytest.raises(InputError, match=r"same query is in both states; got 'q2'"):
        metric.merge(a, b)


def test_merging_states_of_different_settings_is_an_error() -> None:
    p2 = ranking.Precision(k=2).summarize(QRELS, RUN)
    p3 = ranking.Precision(k=3).summarize(QRELS, {"q3": {"d": 1.0}, **RUN})
    with pytest.raises(StateMismatchError, match="different settings"):
        p2.merge(p3)
    level2 = ranking.Precision(k=2, relevance_level=2).summarize({"q9": {"a": 2}}, {"q9": {"a": 1}})
    with pytest.raises(StateMismatchError, match="different settings"):
        p2.merge(level2)
    err_a = ranking.ERR().summarize({"q1": {"a": 3}}, {"q1": {"a": 1.0}})
    err_b = ranking.ERR().summarize({"q2": {"a": 2}}, {"q2": {"a": 1.0}})
    with pytest.raises(StateMismatchError, match="max_grade"):
        err_a.merge(err_b)
    empty = ranking.Precision(k=3).empty()
    assert empty.merge(p2).equals(p2) and p2.merge(empty).equals(p2)


def test_query_values_round_trip() -> None:
    state = ranking.NDCG(k=3).summarize(QRELS, RUN)
    again = QueryValues.from_json(state.to_json())
    assert isinstance(again, QueryValues) and again.equals(state)


def test_states_count_undefined_queries_and_compute_warns_once() -> None:
    qrels = {"a": {"x": 0}, "b": {"y": 0}, "c": {"z": 1}}
    run = {"a": {"x": 1.0}, "b": {"y": 1.0}, "c": {"z": 1.0}}
    metric = ranking.MAP()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        parts = [metric.summarize(qrels, {q: run[q]}) for q in run]  # summarize never warns
    assert [p.undefined for p in parts] == [1, 1, 0]
    merged = metric.merge(metric.merge(parts[0], parts[1]), parts[2])
    assert merged.undefined == 2 and metric.empty().undefined == 0
    with pytest.warns(UndefinedMetricWarning) as caught:
        assert metric.compute(merged) == pytest.approx(1 / 3)
    assert [str(w.message) for w in caught] == [
        "map: 2 of 3 queries have no relevant document (grade >= 1); they count as 0, "
        "as in trec_eval."
    ]
    ndcg = ranking.NDCG().summarize(qrels, run)
    assert ndcg.undefined == 2
    with pytest.warns(UndefinedMetricWarning, match=r"ndcg: 2 of 3 queries have no judged"):
        ranking.NDCG().compute(ndcg)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ranking.MRR().summarize(qrels, run).undefined == 0


def test_query_values_without_the_undefined_count_do_not_load() -> None:
    # a state written before QueryValues counted its undefined queries
    data = ranking.MAP().summarize(QRELS, RUN).to_dict()
    del data["fields"]["undefined"]
    with pytest.raises(InputError, match=r"QueryValues: state fields do not match.*'undefined'"):
        QueryValues.from_dict(data)


def test_evaluate_per_query() -> None:
    metrics = ["map", "ndcg@3", "p@2", "mrr@1", "err@2"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = ranking.evaluate(MANY_QRELS, MANY_RUN, metrics, per_query=True)
        zero = ranking.evaluate(MANY_QRELS, MANY_RUN, metrics, per_query=True, missing="zero")
        classes = [
            ranking.MAP(),
            ranking.NDCG(k=3),
            ranking.Precision(k=2),
            ranking.MRR(k=1),
            ranking.ERR(k=2),
        ]
        states = [m.summarize(MANY_QRELS, MANY_RUN) for m in classes]
    names = ["map", "ndcg@3", "p@2", "mrr@1", "err@2"]
    assert list(result) == names and len(result) == 5
    assert result.per_query is not None and zero.per_query is not None
    assert sorted(result.per_query) == ["q1", "q2", "q3", "q5", "q6"]
    assert sorted(zero.per_query) == ["q1", "q2", "q3", "q4", "q5", "q6"]
    assert zero.per_query["q4"] == dict.fromkeys(names, 0.0)
    for name, metric, state in zip(names, classes, states, strict=True):
        assert result.states[name].equals(state)
        by_query = dict(zip(state.queries.tolist(), state.values.tolist(), strict=True))
        assert {q: v[name] for q, v in result.per_query.items()} == by_query
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            assert result[name] == metric.compute(state)
        assert zero[name] == pytest.approx(result[name] * 5 / 6, rel=1e-14)
    # q1 ranks b (grade 0), then x (unjudged) and a (1) tied at 0.5: x > a, so x first
    assert result.per_query["q1"]["p@2"] == 0.0
    assert result.per_query["q2"]["mrr@1"] == 0.0  # a (grade 0) ranks first
    assert ranking.evaluate(MANY_QRELS, MANY_RUN, ["p@2"]).per_query is None


def test_evaluate_uses_metric_objects_as_configured() -> None:
    """Options apply to metric strings; a metric object keeps its own settings."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = ranking.evaluate(
            MANY_QRELS,
            MANY_RUN,
            ["p@2", ranking.Precision(k=4, relevance_level=2), ranking.MAP(missing="zero")],
            missing="skip",
            per_query=True,
        )
        assert list(result) == ["p@2", "p@4", "map"]
        assert result["p@4"] == ranking.Precision(k=4, relevance_level=2).score(
            MANY_QRELS, MANY_RUN
        )
        assert result["map"] == ranking.MAP(missing="zero").score(MANY_QRELS, MANY_RUN)
    assert result.per_query is not None
    assert result.per_query["q4"] == {"map": 0.0}
    assert result.per_query["q1"]["p@4"] == 1 / 4  # only c has grade 2; it ranks 4th


def test_ranking_metrics_and_per_query_values_are_what_evaluate_uses() -> None:
    names = ["ndcg@3", "ap", "p@2"]
    metrics = ranking.ranking_metrics(names, {"missing": "zero"})
    assert list(metrics) == names and {m.missing for m in metrics.values()} == {"zero"}
    assert ranking.ranking_metrics("map") == {"map": ranking.MAP()}
    with pytest.raises(ConfigError, match="unknown option"):
        ranking.ranking_metrics(names, {"depth": 3})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = ranking.evaluate(MANY_QRELS, MANY_RUN, names, per_query=True, missing="zero")
    states = {key: m.summarize(MANY_QRELS, MANY_RUN) for key, m in metrics.items()}
    assert ranking.per_query_values(states) == result.per_query
    assert ranking.GAINS == ("linear", "exp") and ranking.MISSING == ("skip", "zero")


def test_evaluate_rejects_two_different_metrics_of_one_name() -> None:
    level2 = ranking.Precision(k=2, relevance_level=2)
    with pytest.raises(ConfigError, match=r"p@2.*named twice"):
        ranking.evaluate(QRELS, RUN, ["p@2", level2])
    with pytest.raises(ConfigError, match=r"p@2.*named twice"):
        ranking.evaluate(QRELS, RUN, [ranking.Precision(k=2), level2])
    same = ranking.evaluate(QRELS, RUN, ["p@2", ranking.Precision(k=2), "p@2"])
    assert dict(same) == {"p@2": 0.5}


def test_no_relevant_document_warns() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0, "d": -1}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0, "d": 0.5}}
    for metric in (ranking.MAP(), ranking.Recall(k=5), ranking.RPrecision(), ranking.BPref()):
        with pytest.warns(UndefinedMetricWarning, match=r"1 of 2 queries have no relevant"):
            assert metric.score(qrels, run) == 0.5
    with pytest.warns(UndefinedMetricWarning, match=r"1 of 2 queries.*IDCG = 0"):
        assert ranking.NDCG(k=5).score(qrels, run) == 0.5
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = ranking.evaluate(qrels, run, ["map", "map@5", "ndcg", "p@1"], relevance_level=2)
    assert dict(result) == {"map": 0.0, "map@5": 0.0, "ndcg": 0.5, "p@1": 0.0}
    texts = [str(w.message) for w in caught if w.category is UndefinedMetricWarning]
    assert len(texts) == 2  # map and map@5 share one message, given once; ndcg's
    assert "2 of 2 queries have no relevant document (grade >= 2)" in texts[0]
    assert "IDCG = 0" in texts[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for metric in (ranking.Precision(k=1), ranking.MRR(), ranking.HitRate(k=1)):
            metric.score(qrels, run)
        ranking.MAP().score({"q1": {"a": 1}}, {"q1": {"a": 1.0}})


def test_evaluate_warns_each_text_once_at_the_calling_line_or_not_at_all() -> None:
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"c": 0, "d": -1}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0, "d": 0.5}}
    names = ["map", "map@5", "gm_map", "ndcg@5", "ndcg@10", "p@1"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loud = ranking.evaluate(qrels, run, names, per_query=True)
    # map and map@5 share one text, ndcg@5 and ndcg@10 another
    assert [str(w.message).split(":")[0] for w in caught] == ["map", "gm_map", "ndcg"]
    assert "IDCG = 0" in str(caught[2].message)
    assert {w.category for w in caught} == {UndefinedMetricWarning}
    assert {w.filename for w in caught} == {__file__}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = ranking.evaluate(qrels, run, names, per_query=True, warn=False)
    assert dict(quiet) == dict(loud) and quiet.per_query == loud.per_query
    # the states keep their count of undefined queries: computing one warns
    assert [s.undefined for s in quiet.states.values()] == [1, 1, 1, 1, 1, 0]
    with pytest.warns(UndefinedMetricWarning, match="map: 1 of 2 queries"):
        assert ranking.MAP().compute(quiet.states["map"]) == loud["map"]
    with pytest.raises(InputError, match="no query to evaluate"):
        ranking.evaluate(qrels, {"q9": {"a": 1.0}}, ["map"], warn=False)


def test_all_negative_grades_count_as_unjudged() -> None:
    """A query judged only with negative grades has nothing relevant or judged non-relevant."""
    qrels = {"q1": {"a": -1, "b": -2}, "q2": {"c": 1}}
    run = {"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        result = ranking.evaluate(
            qrels, run, ["map", "ndcg", "bpref", "p@1", "cg@2"], per_query=True
        )
    assert result.per_query is not None
    assert result.per_query["q1"] == {
        "map": 0.0,
        "ndcg": 0.0,
        "bpref": 0.0,
        "p@1": 0.0,
        "cg@2": 0.0,
    }
    assert result.per_query["q2"] == {
        "map": 1.0,
        "ndcg": 1.0,
        "bpref": 1.0,
        "p@1": 1.0,
        "cg@2": 1.0,
    }
