"""scorekit.compat.pytrec_eval against pytrec_eval: trec_eval's test files and Hypothesis runs."""

from __future__ import annotations

import math
import warnings
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from scorekit.compat import pytrec_eval as compat
from scorekit.errors import ConfigError, InputError

TESTDATA = DATA / "trec_eval"
ALL = sorted(compat.supported_measures)


@cache
def _read(name: str, run: bool) -> dict[str, dict[str, Any]]:
    """A TREC qrels or run file as pytrec_eval's dicts (fields after the sixth ignored)."""
    out: dict[str, dict[str, Any]] = {}
    for line in Path(TESTDATA / name).read_text().splitlines():
        fields = line.split()
        if run:
            out.setdefault(fields[0], {})[fields[2]] = float(fields[4])
        else:
            out.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return out


def _assert_same(got: dict[str, dict[str, float]], want: dict[str, dict[str, float]]) -> None:
    assert got.keys() == want.keys()
    for q, values in want.items():
        assert got[q].keys() == values.keys(), q
        for measure, value in values.items():
            if measure == "runid":
                # pytrec_eval leaves the run's tag uninitialised (0.0 or a denormal)
                assert got[q][measure] == 0.0
                continue
            if math.isnan(value):
                # with no document retrieved, pytrec_eval's interpolated precision divides 0 by
                # 0; scorekit gives 0, as trec_eval -c prints for a query the run lacks
                assert measure.startswith(("iprec_at_recall_", "11pt_avg")), (q, measure)
                assert got[q][measure] == 0.0
                continue
            assert got[q][measure] == pytest.approx(value, rel=1e-12, abs=1e-15), (q, measure)


@pytest.mark.parametrize(
    ("qrels", "run", "options"),
    [
        ("qrels.test", "results.test", {}),
        ("qrels.test", "results.trunc", {}),
        ("qrels.rel_level", "results.test", {"relevance_level": 2}),
        ("qrels.test", "results.test", {"judged_docs_only_flag": True}),
    ],
)
def test_trec_eval_files(qrels: str, run: str, options: dict[str, Any]) -> None:
    judgments, ranking = _read(qrels, False), _read(run, True)
    measures = [*ALL, "ndcg_cut.3,7", "P_2", "iprec_at_recall.0.25,0.33", "Rprec_mult.0.5,3"]
    got = compat.RelevanceEvaluator(judgments, measures, **options).evaluate(ranking)
    want = reference.RelevanceEvaluator(judgments, measures, **options).evaluate(ranking)
    _assert_same(got, want)
    for measure in ("map", "gm_map", "P_2", "num_ret", "gm_bpref", "iprec_at_recall_0.25"):
        values = [v[measure] for v in got.values()]
        expected = reference.compute_aggregated_measure(measure, values)
        assert compat.compute_aggregated_measure(measure, values) == pytest.approx(expected)


_ids = st.sampled_from([f"d{i}" for i in range(8)])
_qrels = st.dictionaries(
    st.sampled_from(["q1", "q2", "q3"]),
    st.dictionaries(_ids, st.integers(0, 3), max_size=6),
    max_size=3,
)
# pytrec_eval can crash on a query with an empty run (a segmentation fault with Rprec and
# bpref asked together): empty query runs are tested measure by measure below
_run = st.dictionaries(
    st.sampled_from(["q1", "q2", "q4"]),
    st.dictionaries(_ids, st.sampled_from([0.0, 0.5, 1.0, 2.5, -1.0]), min_size=1, max_size=8),
    max_size=3,
)
_measures = st.lists(
    st.sampled_from([*ALL, "P.1,3", "ndcg_cut_2", "recall.4", "success_1", "map_cut.2"]),
    min_size=1,
    max_size=5,
)


@settings(max_examples=40, deadline=None)
@given(_qrels, _run, _measures, st.integers(1, 2), st.booleans())
def test_hypothesis_runs(
    qrels: dict[str, dict[str, int]],
    run: dict[str, dict[str, float]],
    measures: list[str],
    level: int,
    judged_only: bool,
) -> None:
    options: dict[str, Any] = {"relevance_level": level, "judged_docs_only_flag": judged_only}
    got = compat.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    want = reference.RelevanceEvaluator(qrels, measures, **options).evaluate(run)
    for gm, base in (("gm_map", "map"), ("gm_bpref", "bpref")):
        if gm in measures:
            # asked without map (bpref), pytrec_eval's gm_map (gm_bpref) of a query with only
            # negative grades can be 0.0; with map beside it, it is log(max(AP, 1e-5))
            with_base = [*measures, base]
            beside = reference.RelevanceEvaluator(qrels, with_base, **options).evaluate(run)
            for q, values in want.items():
                values[gm] = beside[q][gm]
    _assert_same(got, want)


# a query with an empty run retrieves nothing: num_q is 1, num_rel its relevant documents (which
# pytrec_eval gives only when another query was evaluated before it), the rest 0
_EMPTY_RUN = {"num_q": 1.0, "num_rel": None, "runid": 0.0}


@pytest.mark.parametrize("grades", [{"d0": 0}, {"d0": 1, "d1": 2}, {"d0": -1}])
def test_a_query_with_an_empty_run(grades: dict[str, int]) -> None:
    qrels, run = {"q2": {"d0": 1}, "q1": grades}, {"q2": {"d0": 1.0}, "q1": {}}
    got = compat.RelevanceEvaluator(qrels, ALL).evaluate(run)
    assert got["q1"]["gm_map"] == got["q1"]["gm_bpref"] == math.log(1e-5)
    assert got["q1"]["num_rel"] == sum(g >= 1 for g in grades.values())
    assert got["q1"]["num_q"] == 1.0
    for measure in ALL:
        if measure not in ("gm_map", "gm_bpref"):
            want = reference.RelevanceEvaluator(qrels, [measure]).evaluate(run)
            _assert_same({q: {k: got[q][k] for k in want[q]} for q in got}, want)
            zero = {k for k in want["q1"] if k not in _EMPTY_RUN}
            assert {got["q1"][k] for k in zero} <= {0.0}


def test_a_query_without_a_relevant_document_gives_0_without_a_warning() -> None:
    qrels = {"q1": {"d0": 0, "d1": 0}, "q2": {"d0": 1}}
    run = {"q1": {"d0": 1.0, "d1": 0.5}, "q2": {"d0": 1.0}}
    measures = ["map", "ndcg", "recall_5", "Rprec", "bpref", "P_1"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
    _assert_same(got, reference.RelevanceEvaluator(qrels, measures).evaluate(run))
    assert got["q1"] == dict.fromkeys(["map", "ndcg", "recall_5", "Rprec", "bpref", "P_1"], 0.0)


def test_names_map_to_scorekit_metrics() -> None:
    assert compat.NAMES["P_k"] == "p@k"
    assert compat.NAMES["recip_rank"] == "mrr"
    assert compat.NAMES["set_F"] == "set_f"
    assert compat.NAMES["iprec_at_recall_x"].startswith("iprec_at_recall:recall=x")
    families = {"P", "recall", "map_cut", "ndcg_cut", "success", "relative_P"}
    real = {"iprec_at_recall", "Rprec_mult"}
    assert set(compat.NAMES) == {
        name + "_k" if name in families else name + "_x" if name in real else name
        for name in compat.supported_measures - {"runid", "relstring"}
    }
    assert set(compat.supported_measures) == set(reference.supported_measures)
    for name in ("official", "set", "all_trec"):
        assert compat.supported_nicknames[name] == set(reference.supported_nicknames[name])


def test_family_expands_to_default_cutoffs() -> None:
    evaluator = compat.RelevanceEvaluator({"q": {"d": 1}}, {"success", "P"})
    row = evaluator.evaluate({"q": {"d": 1.0}})["q"]
    assert sorted(row) == sorted(
        ["success_1", "success_5", "success_10"]
        + [f"P_{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)]
    )
    assert row["P_5"] == 0.2
    assert math.isclose(compute := row["success_1"], 1.0), compute


@pytest.mark.parametrize(
    "measure", ["prefs_simp", "qrels_jg", "G.1=3", "P_x", "P_0", "P.2.5", "utility.x", 3]
)
def test_measures_scorekit_lacks_are_named(measure: Any) -> None:
    with pytest.raises(ConfigError, match="pytrec_eval: ") as info:
        compat.RelevanceEvaluator({"q": {"d": 1}}, [measure])
    assert repr(measure) in str(info.value)


def test_bad_inputs() -> None:
    with pytest.raises(InputError, match="query_relevance is not a mapping"):
        compat.RelevanceEvaluator([("q", "d", 1)], ["map"])  # type: ignore[arg-type]
    evaluator = compat.RelevanceEvaluator({"q": {"d": 1}}, ["map"])
    with pytest.raises(InputError, match="the run is not a mapping"):
        evaluator.evaluate([("q", "d", 1.0)])  # type: ignore[arg-type]
    assert evaluator.evaluate({}) == {}
    with pytest.raises(InputError, match="compute_aggregated_measure: no values"):
        compat.compute_aggregated_measure("map", [])


_BAD = {
    "doc id": "a document id of query {q!r} in the {what} is not a string",
    "value": "the {value} of document {d!r} of query {q!r} is not",
    "query id": "a query id of the {what} is not a string",
}
"""The message for each kind of wrong type, where the wrong id or value is."""


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(1, 6), min_size=1, max_size=40),
    st.sampled_from(sorted(_BAD)),
    st.booleans(),
    st.data(),
)
def test_a_wrong_type_anywhere_is_refused_and_named(
    sizes: list[int], kind: str, in_run: bool, data: st.DataObject
) -> None:
    """One id or value of a wrong type, in any query at any place, among many right ones."""
    qrels = {f"q{i}": {f"d{j}": j % 3 for j in range(n)} for i, n in enumerate(sizes)}
    run = {f"q{i}": {f"d{j}": 1.0 / (j + 1) for j in range(n)} for i, n in enumerate(sizes)}
    target, what, value = (run, "run", "score") if in_run else (qrels, "qrels", "relevance")
    at = data.draw(st.integers(0, len(sizes) - 1))
    q = f"q{at}"
    d = f"d{data.draw(st.integers(0, sizes[at] - 1))}"
    if kind == "doc id":
        target[q] = {**target[q], 7: target[q][d]}
    elif kind == "value":
        target[q][d] = "1" if in_run else 1.0
    else:
        target[3] = target.pop(q)
    text = _BAD[kind].format(q=q, d=d, what=what, value=value)
    with pytest.raises(TypeError) as caught:
        compat.RelevanceEvaluator(qrels, ["map"]).evaluate(run)
    assert isinstance(caught.value, InputError)
    assert text in str(caught.value)
