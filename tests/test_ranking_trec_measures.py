"""trec_eval's counts, set measures, interpolated precision and gain measures against pytrec_eval.

Each measure of ``scorekit.ranking`` that trec_eval has and pytrec_eval computes is compared
per query and over all queries on random runs (Hypothesis); the gain parameters pytrec_eval
cannot pass are checked against trec_eval's loops written out; merged states, replicates and
bad settings are checked too.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
import pytrec_eval as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.errors import ConfigError
from scorekit.ranking._gains import trec_gain_order
from scorekit.ranking._trec_measures import _cumsum_by, _suffix_max_by

# pytrec_eval's name -> scorekit's metric string (pytrec_eval embeds trec_eval 9.0, which rounds
# a recall level times R up from x.1: rounding='trec_eval_9')
V9 = ",rounding=trec_eval_9"
MEASURES = {
    "num_q": "num_q",
    "num_ret": "num_ret",
    "num_rel": "num_rel",
    "num_rel_ret": "num_rel_ret",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret",
    "iprec_at_recall_0.00": "iprec_at_recall:recall=0.0" + V9,
    "iprec_at_recall_0.30": "iprec_at_recall:recall=0.3" + V9,
    "iprec_at_recall_0.50": "iprec_at_recall:recall=0.5" + V9,
    "iprec_at_recall_1.00": "iprec_at_recall:recall=1.0" + V9,
    "11pt_avg": "eleven_pt_avg:rounding=trec_eval_9",
    "Rprec_mult_0.20": "rprec_mult:mult=0.2",
    "Rprec_mult_1.40": "rprec_mult:mult=1.4",
    "Rprec_mult_2.00": "rprec_mult:mult=2.0",
    "relative_P_1": "relative_p@1",
    "relative_P_3": "relative_p@3",
    "set_P": "set_p",
    "set_recall": "set_recall",
    "set_F": "set_f",
    "set_map": "set_map",
    "set_relative_P": "set_relative_p",
    "gm_bpref": "gm_bpref",
    "utility": "utility",
    "binG": "bin_g",
    "G": "g",
    "ndcg_rel": "ndcg_rel",
    "Rndcg": "rndcg",
}
PYTREC = ["num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"]
PYTREC += ["iprec_at_recall.0,0.3,0.5,1", "11pt_avg", "Rprec_mult.0.2,1.4,2", "relative_P.1,3"]
PYTREC += ["set_P", "set_recall", "set_F", "set_map", "set_relative_P", "gm_bpref", "utility"]
PYTREC += ["binG", "G", "ndcg_rel", "Rndcg", "bpref"]

_docs = st.sampled_from([f"d{i}" for i in range(9)])
# pytrec_eval can crash on a query whose grades are all negative: each has a grade >= 0
_qrels = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q4"]),
    st.dictionaries(_docs, st.integers(-1, 3), min_size=1, max_size=7).filter(
        lambda grades: max(grades.values()) >= 0
    ),
    min_size=1,
    max_size=4,
)
# pytrec_eval can crash on a query with an empty run: every query retrieves a document
_run = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3", "q5"]),
    st.dictionaries(_docs, st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]), min_size=1, max_size=9),
    min_size=1,
    max_size=4,
)


def _scorekit(
    qrels: dict[str, dict[str, int]], run: dict[str, dict[str, float]], **options: Any
) -> ranking.RankingResult:
    return ranking.evaluate(
        qrels, run, list(MEASURES.values()), per_query=True, warn=False, **options
    )


@settings(max_examples=40, deadline=None)
@given(_qrels, _run, st.integers(1, 2), st.booleans())
def test_against_pytrec_eval(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    level: int,
    judged_only: bool,
) -> None:
    shared = set(qrels) & set(run)
    if not shared:
        return
    evaluator = reference.RelevanceEvaluator(qrels, PYTREC, level, judged_only)
    want = evaluator.evaluate(run)
    got = _scorekit(qrels, run, relevance_level=level, judged_only=judged_only)
    assert got.per_query is not None
    assert set(got.per_query) == set(want) == shared
    for q, values in want.items():
        for name, spec in MEASURES.items():
            value = values[name]
            mine = got.per_query[q][spec]
            if name == "gm_bpref":
                # pytrec_eval's per-query gm_bpref is the log of bpref (floored at 1e-5)
                mine = math.log(max(mine, 1e-5))
                if value == 0.0 and values["bpref"] == 0.0:
                    # with no judged document retrieved (-J), pytrec_eval skips the log
                    continue
            if math.isnan(value):
                # pytrec_eval divides 0 by 0 when -J leaves nothing retrieved
                assert name.startswith(("iprec_at_recall", "11pt_avg")) and mine == 0.0
                continue
            assert mine == pytest.approx(value, rel=1e-12, abs=1e-15), (q, name)
    for name, spec in MEASURES.items():
        values = [want[q][name] for q in sorted(want)]
        if name == "gm_bpref":
            values = [math.log(max(got.per_query[q][spec], 1e-5)) for q in sorted(want)]
        values = [0.0 if math.isnan(v) else v for v in values]
        expected = reference.compute_aggregated_measure(name, values)
        assert got[spec] == pytest.approx(expected, rel=1e-12, abs=1e-15), name


def test_trec_eval_10_rounds_recall_levels_to_the_nearest() -> None:
    """R = 2: level 0.6 is 1.2 relevant documents, 1 for trec_eval 10 and 2 for trec_eval 9."""
    qrels = {"q": {"a": 1, "b": 0, "c": 2}}
    run = {"q": {"a": 1.0, "b": 2.0, "z": 0.5}}
    nearest = ranking.IPrecAtRecall(recall=0.6).score(qrels, run)
    old = ranking.IPrecAtRecall(recall=0.6, rounding="trec_eval_9").score(qrels, run)
    assert (nearest, old) == (0.5, 0.0)
    want = reference.RelevanceEvaluator(qrels, ["iprec_at_recall.0.6"]).evaluate(run)
    assert want["q"]["iprec_at_recall_0.60"] == old


# trec_eval's loops, for gains pytrec_eval cannot pass -----------------------------------------


def _table(gains: dict[int, float] | None, grades: list[int]) -> list[tuple[int, float, int]]:
    """trec_eval's sorted gain table: (grade, gain, judged documents of the grade)."""
    top = max([g for g in grades if g >= 0], default=-1)
    order = trec_gain_order(tuple((float(g), v) for g, v in (gains or {}).items()), top)
    return [(g, v, sum(x == g for x in grades)) for g, v in order]


def _walk(table: list[tuple[int, float, int]]) -> list[float]:
    """The ideal gains trec_eval's loops visit, best first, until a gain <= 0."""
    out: list[float] = []
    for _, gain, count in reversed(table):
        if count == 0:
            continue
        if gain <= 0:
            break
        out.extend([gain] * count)
    if table and table[-1][1] <= 0:
        return []
    return out


def _loops(qrels: dict[str, int], ranked: list[str], gains: dict[int, float] | None) -> Any:
    grades = [g for g in qrels.values() if g >= 0]
    table = _table(gains, grades)
    lookup = {g: v for g, v, _ in table}
    result = [lookup.get(qrels.get(d, -1), 0.0) if qrels.get(d, -1) >= 0 else 0.0 for d in ranked]
    ideal = _walk(table)
    m = len(ideal)
    # G
    sum_cost = sum_res = g_value = 0.0
    for i, gain in enumerate(result):
        sum_res += gain
        sum_cost += max(ideal[i], 1.0) if i < m else 1.0
        if gain != 0:
            g_value += gain / math.log2(2 + sum_cost - sum_res)
    g_out = g_value / sum(ideal) if sum(ideal) > 0 else 0.0
    # ndcg_rel
    dcg = [0.0]
    for i, gain in enumerate(result):
        dcg.append(dcg[-1] + (gain / math.log2(i + 2) if gain != 0 else 0.0))
    idcg = [0.0]
    for i, gain in enumerate(ideal):
        idcg.append(idcg[-1] + gain / math.log2(i + 2))
    total, found = 0.0, 0
    for i, gain in enumerate(result):
        if gain > 0:
            total += dcg[i + 1] / idcg[min(i + 1, m)] if idcg[min(i + 1, m)] > 0 else 0.0
            found += 1
    if m:
        total += (m - found) * dcg[-1] / idcg[m]
    rel_out = total / m if total > 0 and m else 0.0
    # Rndcg
    points = [
        dcg[min(r, len(result))] / idcg[r]
        for r in range(1, m + 1)
        if r == m or ideal[r] != ideal[r - 1]
    ]
    if len(result) > m + 1 and m:
        points.append(dcg[-1] / idcg[m])
    r_out = sum(points) / len(points) if points and any(g >= 1 for g in grades) else 0.0
    return g_out, rel_out, r_out


_gains = st.one_of(
    st.none(),
    st.dictionaries(
        st.integers(0, 3), st.sampled_from([0.0, 0.5, 1.0, 1.5, 3.0, 7.0, -1.0]), min_size=1
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(_docs, st.integers(-1, 3), min_size=1, max_size=7),
    st.lists(_docs, min_size=1, max_size=9, unique=True),
    _gains,
)
def test_gain_measures_follow_trec_eval_loops(
    grades: dict[str, int], ranked: list[str], gains: dict[int, float] | None
) -> None:
    run = {"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}}
    qrels = {"q": grades}
    text = "" if gains is None else ":gains=" + ";".join(f"{g}={v}" for g, v in gains.items())
    specs = [f"g{text}", f"ndcg_rel{text}", f"rndcg{text}"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ranking.evaluate(qrels, run, specs)
    want = _loops(grades, ranked, gains)
    for spec, value in zip(specs, want, strict=True):
        assert got[spec] == pytest.approx(value, rel=1e-12, abs=1e-15), spec


def test_rndcg_levels_of_the_documentation() -> None:
    """5 documents of grade 3, 3 of grade 2, 10 of grade 1: nDCG at 5, 8, 18 and the run's end."""
    grades = {f"a{i}": 3 for i in range(5)} | {f"b{i}": 2 for i in range(3)}
    grades |= {f"c{i}": 1 for i in range(10)} | {f"z{i}": 0 for i in range(50)}
    ranked = [f"x{i}" for i in range(60)] + sorted(grades)
    run = {"q": {d: float(len(ranked) - i) for i, d in enumerate(ranked)}}
    values = {k: ranking.NDCG(k=k).score({"q": grades}, run) for k in (5, 8, 18)}
    best = {"q": {d: float(g) for d, g in grades.items()}}
    ideal18 = ranking.DCG(k=18).score({"q": grades}, best)
    dcg_all = ranking.DCG().score({"q": grades}, run)
    expected = (values[5] + values[8] + values[18] + dcg_all / ideal18) / 4
    assert ranking.RNDCG().score({"q": grades}, run) == pytest.approx(expected, rel=1e-12)


# counts: sums, absent queries, merged chunks ------------------------------------------------


def test_counts_sum_and_absent_queries_count_as_trec_eval_c() -> None:
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 2, "y": 1, "z": 0}, "c": {"x": 0}}
    run = {"a": {"x": 2.0, "w": 1.0}, "c": {"x": 1.0}}
    specs = ["num_q", "num_ret", "num_rel", "num_rel_ret", "utility:coefficients=1;-1;-2;0.5"]
    skip = ranking.evaluate(qrels, run, specs, per_query=True, warn=False)
    zero = ranking.evaluate(
        qrels, run, specs, per_query=True, warn=False, missing="zero", num_docs=10
    )
    # a: 1 - 1 + 0.5 * (1 - 2 - 1); c: -1 + 0.5 * (0 - 1 - 0)
    assert dict(skip) == {"num_q": 2, "num_ret": 3, "num_rel": 1, "num_rel_ret": 1} | {
        "utility:coefficients=1;-1;-2;0.5": -1.25
    }
    assert zero.per_query is not None
    # query b retrieves nothing: its 2 relevant documents, utility -2 * 2 + 0.5 * (10 - 2)
    assert zero.per_query["b"] == {
        "num_q": 1.0,
        "num_ret": 0.0,
        "num_rel": 2.0,
        "num_rel_ret": 0.0,
        "utility:coefficients=1;-1;-2;0.5": 0.0,
    }
    assert zero["num_q"] == 3 and zero["num_rel"] == 3
    # a: 1 - 1 + 0 + 0.5 * (10 + 1 - 2 - 1); c: -1 + 0.5 * (10 - 1)
    assert zero.per_query["a"]["utility:coefficients=1;-1;-2;0.5"] == 4.0
    assert zero["utility:coefficients=1;-1;-2;0.5"] == pytest.approx((4.0 + 0.0 + 3.5) / 3)


@pytest.mark.parametrize("missing", ["skip", "zero"])
@pytest.mark.parametrize("spec", ["num_rel", "num_q", "utility:coefficients=1;-1;-1;0", "g"])
def test_states_of_query_chunks_merge_to_the_whole(spec: str, missing: str) -> None:
    metric = ranking.ranking_metrics([spec], {"missing": missing})[spec]
    qrels = {q: {"x": 1, "y": int(q[1]) % 2, "z": 2} for q in ("q1", "q2", "q3", "q4")}
    run = {"q1": {"x": 1.0, "w": 0.5}, "q2": {"y": 2.0}, "q3": {"z": 1.0, "x": 0.2}}
    whole = metric.summarize(qrels, run)
    parts = [metric.summarize(qrels, {q: run[q]}) for q in run]
    merged = metric.empty()
    for part in parts[::-1]:
        merged = merged.merge(part)
    assert merged.equals(whole)
    assert metric.compute(merged) == metric.compute(whole)
    assert dict(zip(*map(list, merged.table()), strict=True)) == dict(
        zip(*map(list, whole.table()), strict=True)
    )


def test_replicates_of_counts_are_sums_and_gm_bpref_geometric() -> None:
    qrels = {"a": {"x": 1, "y": 0}, "b": {"x": 1, "y": 0}}
    run = {"a": {"x": 2.0, "y": 1.0}, "b": {"y": 2.0, "x": 1.0}}
    count = ranking.NumRelRet()
    state = count.summarize(qrels, run)
    assert count.compute_replicates(state, np.array([[1, 1], [3, 0]])).tolist() == [2.0, 3.0]
    gm = ranking.GMBPref()
    state = gm.summarize(qrels, run)
    once = gm.compute_replicates(state, np.array([[1, 1], [0, 0]]))
    assert once[0] == pytest.approx(gm.compute(state), rel=1e-12)
    assert math.isnan(once[1])
    assert gm.compute(state) == pytest.approx(math.sqrt(1.0 * 1e-5), rel=1e-12)


# edge cases and settings --------------------------------------------------------------------


def test_a_query_without_relevant_documents_is_zero_without_a_warning() -> None:
    qrels = {"q": {"a": 0, "b": 0}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 0.5}}
    specs = [s for s in MEASURES.values() if not s.startswith(("num_", "utility", "gm_"))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ranking.evaluate(qrels, run, specs)
    assert set(got.values()) == {0.0}
    assert ranking.Unjudged(k=4).score(qrels, run) == 0.25


def test_ties_rank_by_descending_doc_id() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0}}
    assert ranking.BinG().score(qrels, run) == pytest.approx(1 / math.log2(3))
    assert ranking.IPrecAtRecall(recall=1.0).score(qrels, run) == 0.5


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("utility:coefficients=1;2;3", ["utility", "invalid coefficients"]),
        ("utility:coefficients=1;a;3;4", ["utility", "invalid coefficients"]),
        ("eleven_pt_avg:recalls=0.5;1.5", ["eleven_pt_avg", "invalid recall levels"]),
        ("iprec_at_recall:recall=2", ["iprec_at_recall", "recall"]),
        ("iprec_at_recall:rounding=up", ["iprec_at_recall", "rounding"]),
        ("rprec_mult:mult=0", ["rprec_mult", "mult"]),
        ("relative_p@0", ["relative_p"]),
        ("set_f:weight=-1", ["set_f", "weight"]),
        ("num_docs", ["num_docs"]),
    ],
)
def test_bad_settings_name_the_metric(spec: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as info:
        ranking.evaluate({"q": {"a": 1}}, {"q": {"a": 1.0}}, [spec])
    for word in words:
        assert word in str(info.value)


def test_gain_measures_take_no_cutoff() -> None:
    with pytest.raises(ConfigError, match="g: takes no cutoff"):
        ranking.G(k=3)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.floats(-5, 5)), max_size=40))
def test_running_sums_and_maxima_within_groups(pairs: list[tuple[int, float]]) -> None:
    pairs.sort(key=lambda p: p[0])
    group = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs])
    sums, maxima = _cumsum_by(values, group), _suffix_max_by(values, group)
    for i, g in enumerate(group.tolist()):
        same = [values[j] for j in range(len(group)) if group[j] == g]
        at = i - int(np.flatnonzero(group == g)[0])
        assert sums[i] == math.fsum(same[: at + 1]) or sums[i] == pytest.approx(
            sum(same[: at + 1]), abs=1e-12
        )
        assert maxima[i] == max(same[at:])


def test_streamed_chunks_equal_the_whole_run(tmp_path: Any) -> None:
    """Every all_trec measure of a run read in chunks, a qrels query absent (-c), as read whole."""
    from conftest import DATA
    from scorekit import api

    data = DATA / "trec_eval"
    lines = (data / "results.test").read_text().splitlines()
    path = tmp_path / "run.txt"
    path.write_text("\n".join(line for line in lines if not line.startswith("302 ")) + "\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = api.evaluate_run(
            str(data / "qrels.test"), str(path), ["all_trec"], per_query=True, missing="zero"
        )
        chunks = api.evaluate_run(
            str(data / "qrels.test"),
            str(path),
            ["all_trec"],
            per_query=True,
            missing="zero",
            chunk_size=64,
        )
    assert dict(chunks.values) == dict(whole.values)
    assert chunks.per_query == whole.per_query
    assert whole.per_query is not None and whole.per_query["302"]["num_rel"] == 77.0
    assert whole.values["num_q"] == 3.0


def test_relstrings_write_each_kind_of_judgment() -> None:
    qrels = {"q": {"a": 2, "b": -1, "c": 12, "d": 0}, "r": {"a": 1}, "s": {"z": 1}}
    run = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}, "r": {"b": 1.0, "a": 0.5}}
    assert ranking.relstrings(qrels, run) == {"q": "2-.>0", "r": "-1"}
    assert ranking.relstrings(qrels, run, 2) == {"q": "2-", "r": "-1"}
    assert ranking.relstrings(qrels, run, 0) == {"q": "", "r": ""}
    assert ranking.relstrings(qrels, run, judged_only=True) == {"q": "2>0", "r": "1"}
    assert ranking.relstrings(qrels, run, max_docs=1) == {"q": "2", "r": "-"}
    with pytest.raises(ConfigError, match="relstring: invalid length"):
        ranking.relstrings(qrels, run, -1)
