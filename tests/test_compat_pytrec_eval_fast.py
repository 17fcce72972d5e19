"""The scores of a run read and checked in one pass: the pytrec_eval module against pytrec_eval
on random dicts, the types it refuses as pytrec_eval refuses them, and the conversion that
reads them (:func:`~scorekit.ranking._columns.numbers`) against numpy's."""

from __future__ import annotations

import collections
import math
import warnings
from decimal import Decimal
from fractions import Fraction
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
import pytrec_eval as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import ranking
from scorekit.compat import pytrec_eval as compat
from scorekit.errors import InputError
from scorekit.ranking import Qrels
from scorekit.ranking._columns import NUMBER_TYPES, first_non_number, numbers
from scorekit.ranking._listed import judge_dicts

# (pytrec_eval can crash with bpref or Rprec on a query with no judgment or no document)
MEASURES = ["ndcg_cut.10", "map", "recip_rank", "P.5", "recall.10", "num_rel_ret", "ndcg"]

# pytrec_eval reads ids as C strings: no NUL in them (nor any control character)
_id = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=4)
# scores tie often; none is tiny (pytrec_eval ranks 1e-95 with 0.0)
_score = st.one_of(
    st.sampled_from([0.0, 0.5, 1.0, -1.0, 2.5, -3.0]),
    st.floats(-1e6, 1e6).filter(lambda x: x == 0 or abs(x) > 1e-6),
    st.integers(-5, 5),
)


@st.composite
def _dicts(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]]:
    """Unicode ids; int grades; float, int and tied scores; empty rankings and judgments;
    queries only in the run or only in the qrels."""
    queries = draw(st.lists(_id, min_size=1, max_size=6, unique=True))
    docs = draw(st.lists(_id, min_size=1, max_size=12, unique=True))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, Any]] = {}
    for q in queries:
        where = draw(st.sampled_from(["both", "both", "both", "run", "qrels"]))
        if where != "run":
            judged = draw(st.lists(st.sampled_from(docs), max_size=len(docs), unique=True))
            qrels[q] = {d: draw(st.integers(-1, 3)) for d in judged}
        if where != "qrels":
            ranked = draw(st.lists(st.sampled_from(docs), unique=True))
            run[q] = {d: draw(_score) for d in ranked}
    return qrels, run


def _assert_same(got: dict[str, dict[str, float]], want: dict[str, dict[str, float]]) -> None:
    assert got.keys() == want.keys()
    for q, values in want.items():
        assert got[q].keys() == values.keys(), q
        for measure, value in values.items():
            assert got[q][measure] == pytest.approx(value, rel=1e-12, abs=1e-15), (q, measure)


@settings(max_examples=40, deadline=None)
@given(_dicts(), st.lists(st.sampled_from(MEASURES), min_size=1, max_size=3, unique=True))
def test_random_dicts_against_pytrec_eval(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]], measures: list[str]
) -> None:
    qrels, run = data
    got = compat.RelevanceEvaluator(qrels, measures).evaluate(run)
    want = reference.RelevanceEvaluator(qrels, measures).evaluate(run)
    _assert_same(got, want)


@settings(max_examples=20, deadline=None)
@given(_dicts(), st.sampled_from([np.float64, np.float32, np.int64, np.int16, np.uint32, bool]))
def test_numpy_and_bool_scores_are_the_numbers_they_hold(
    data: tuple[dict[str, dict[str, int]], dict[str, dict[str, Any]]], kind: Any
) -> None:
    """pytrec_eval refuses numpy integers and floats; the module reads them as the Python
    numbers of the same values (and bools as pytrec_eval reads them, 0 and 1)."""
    qrels, run = data
    whole = kind not in (np.float64, np.float32, bool)
    typed = {
        q: {d: kind(int(s) % 1000) if whole else kind(s) for d, s in docs.items()}
        for q, docs in run.items()
    }
    plain = {q: {d: float(s) for d, s in docs.items()} for q, docs in typed.items()}
    got = compat.RelevanceEvaluator(qrels, MEASURES).evaluate(typed)
    want = reference.RelevanceEvaluator(qrels, MEASURES).evaluate(plain)
    _assert_same(got, want)


class _Half(float):
    """A float subclass: pytrec_eval takes it as a float."""


_REFUSED = [
    "0.5",
    Decimal("0.5"),
    Fraction(1, 2),
    np.bool_(True),
    None,
    1 + 0j,
    b"1",
    np.array(0.5),
    np.datetime64("2020-01-01"),
]
"""Scores pytrec_eval refuses (a TypeError), and so does the module."""


def _pytrec_refuses(qrels: Any, run: Any, measures: list[str]) -> bool:
    try:
        reference.RelevanceEvaluator(qrels, measures).evaluate(run)
    except TypeError:
        return True
    return False


@pytest.mark.parametrize("bad", _REFUSED, ids=repr)
@pytest.mark.parametrize("where", ["judged", "unjudged", "alone"])
@pytest.mark.parametrize("measures", [["ndcg_cut.10"], ["map", "bpref"], ["runid"], []])
def test_refused_scores_as_pytrec_eval(bad: Any, where: str, measures: list[str]) -> None:
    """A refused score in a judged query, in a query without judgments, or in the only
    query of the run, whatever the measures: a TypeError (an InputError too) naming it."""
    qrels = {"q1": {"a": 1, "b": 0}, "q2": {"a": 2}}
    run: dict[str, dict[str, Any]] = {
        "q1": {"a": 0.5, "b": 0.25, "c": 1.0},
        "q2": {"a": 1.0, "c": 2.0},
        "q9": {"a": 1.0},
    }
    q = {"judged": "q2", "unjudged": "q9", "alone": "q1"}[where]
    if where == "alone":
        run = {"q1": run["q1"]}
    run[q] = {**run[q], "c": bad}
    if not isinstance(bad, np.ndarray | np.datetime64):
        assert _pytrec_refuses(qrels, run, measures)
    with pytest.raises(TypeError) as caught:
        compat.RelevanceEvaluator(qrels, measures).evaluate(run)
    assert isinstance(caught.value, InputError)
    assert f"the score of document 'c' of query {q!r} is not a number" in str(caught.value)


@pytest.mark.parametrize("bad", [*_REFUSED, 1.5, np.float64(2.0)], ids=repr)
def test_refused_relevances_as_pytrec_eval(bad: Any) -> None:
    qrels = {"q1": {"a": 1, "b": bad}}
    if not isinstance(bad, np.ndarray | np.datetime64 | np.floating):
        assert _pytrec_refuses(qrels, {"q1": {"a": 1.0}}, ["map"])
    with pytest.raises(TypeError, match="the relevance of document 'b' of query 'q1'"):
        compat.RelevanceEvaluator(qrels, ["map"])


@pytest.mark.parametrize("good", [True, False, 3, _Half(0.5), np.float64(0.5), 2**60])
def test_accepted_scores_as_pytrec_eval(good: Any) -> None:
    """bools, ints (beyond what a float holds exactly too) and float subclasses are read as
    pytrec_eval reads them."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}}
    run = {"q1": {"a": 0.5, "b": good, "c": -1.0}}
    measures = ["ndcg", "map", "recip_rank"]
    _assert_same(
        compat.RelevanceEvaluator(qrels, measures).evaluate(run),
        reference.RelevanceEvaluator(qrels, measures).evaluate(run),
    )


def test_a_nan_score_is_refused_as_before() -> None:
    """pytrec_eval ranks a NaN score somewhere; the module refuses it, an InputError that is
    no TypeError (its type is right)."""
    with pytest.raises(InputError, match="finite") as caught:
        compat.RelevanceEvaluator({"q": {"a": 1}}, ["map"]).evaluate({"q": {"a": math.nan}})
    assert not isinstance(caught.value, TypeError)


# the values numbers() is given: the types it takes, and others, at the edges of what
# pyarrow reads exactly (integers beyond 2**53, numpy uint64 near 2**64, long doubles)
_VALUES = st.one_of(
    st.floats(allow_nan=False),
    st.integers(-(2**70), 2**70),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.integers(0, 2**64 - 1).map(np.uint64),
    st.integers(2**64 - 2**54, 2**64 - 1).map(np.uint64),
    st.integers(-100, 100).map(np.int8),
    st.floats(width=32, allow_nan=False).map(np.float32),
    st.floats(width=16, allow_nan=False).map(np.float16),
    st.floats(-1e300, 1e300).map(np.longdouble),
    st.floats(allow_nan=False).map(_Half),
    st.sampled_from(_REFUSED),
)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(_VALUES, max_size=6), max_size=5))
def test_numbers_takes_the_number_types_alone_and_reads_them_as_numpy(
    values: list[list[Any]],
) -> None:
    inners = [{f"d{i}": v for i, v in enumerate(row)} for row in values]
    flat = [v for row in values for v in row]
    found = numbers(inners, len(flat))
    typed = all(isinstance(v, NUMBER_TYPES) for v in flat)
    pairs = {f"q{i}": inner for i, inner in enumerate(inners)}
    assert (first_non_number(pairs) is None) == typed
    if not typed:
        assert found is None
        return
    assert found is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a long double beyond a float
        want = np.fromiter(flat, dtype=np.float64, count=len(flat))
    np.testing.assert_array_equal(found, want)
    assert found.dtype == np.float64


@pytest.mark.parametrize("bad", _REFUSED, ids=repr)
def test_ranking_evaluate_strict_refuses_and_names_a_value(bad: Any) -> None:
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 0.5, "b": bad}}
    with pytest.raises(InputError, match="the score of document 'b' of query 'q1'"):
        ranking.evaluate(qrels, run, ["ndcg@10"], strict=True)
    with pytest.raises(InputError, match="the relevance of document 'a' of query 'q1'"):
        ranking.evaluate({"q1": {"a": bad}}, {"q1": {"a": 0.5}}, ["map"], strict=True)


@pytest.mark.parametrize("metrics", [["ndcg@10", "map"], ["bpref", "ndcg@10"]])
def test_ranking_evaluate_strict_gives_the_same_values(metrics: list[str]) -> None:
    """Strict or not, on the listed rows' path and the general one, with ties or not."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}
    for run in (
        {"q1": {"a": 0.5, "b": 2, "c": -1.0, "d": True}, "q2": {"a": 1.0, "b": 3.0}},
        {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}, "q2": {"b": 0.0}},
    ):
        lenient = ranking.evaluate(qrels, run, metrics, per_query=True)
        strict = ranking.evaluate(qrels, run, metrics, per_query=True, strict=True)
        assert strict.per_query == lenient.per_query
    texts = {"q1": {"a": "0.5", "b": "2", "c": "-1"}, "q2": {"a": "1"}}
    numeric = {q: {d: float(s) for d, s in docs.items()} for q, docs in texts.items()}
    assert dict(ranking.evaluate(qrels, texts, metrics)) == dict(
        ranking.evaluate(qrels, numeric, metrics)
    )


def test_judge_dicts_reads_given_scores_without_writing_them() -> None:
    """Scores read by the caller that are not writable are sorted in a copy."""
    qrels = Qrels.from_dict({"q1": {"a": 1, "b": 2}, "q2": {"c": 1}})
    run = {"q1": {"a": 0.5, "b": 0.25}, "q2": {"c": 2.0, "d": 3.0}}
    scores = np.array([0.5, 0.25, 2.0, 3.0])
    scores.flags.writeable = False
    given_scores = judge_dicts(run, qrels, scores=scores)
    read = judge_dicts(run, qrels)
    assert given_scores is not None and read is not None
    assert given_scores.rank.tolist() == read.rank.tolist() == [1, 2, 2]
    assert scores.tolist() == [0.5, 0.25, 2.0, 3.0]


class _Short(dict):  # type: ignore[type-arg]
    """A dict that says it holds one value more than it does."""

    def __len__(self) -> int:
        return super().__len__() + 1


def test_numbers_of_mappings_that_hold_fewer_values_than_said() -> None:
    assert numbers([_Short(a=1.0)], 2) is None
    assert numbers([{"a": 1.0}], 1) is not None


@pytest.mark.parametrize(
    "kind",
    [collections.OrderedDict, lambda d: collections.defaultdict(float, d), MappingProxyType],
)
def test_other_mappings_as_a_run(kind: Any) -> None:
    """A run of other mappings than dicts: the values of dicts, and refused scores named."""
    qrels = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"a": 1}}
    run = {"q1": {"a": 0.5, "b": 2.0, "c": -1.0}, "q2": {"a": 1.0, "b": 3.0}}
    other = {q: kind(docs) for q, docs in run.items()}
    _assert_same(
        compat.RelevanceEvaluator(qrels, MEASURES).evaluate(other),
        reference.RelevanceEvaluator(qrels, MEASURES).evaluate(run),
    )
    bad = {**other, "q2": kind({"a": 1.0, "b": Decimal(3)})}
    with pytest.raises(TypeError, match="the score of document 'b' of query 'q2'"):
        compat.RelevanceEvaluator(qrels, MEASURES).evaluate(bad)


def test_a_refused_score_among_tied_ones_is_named() -> None:
    """Ties send the run to the general path; the refused score is named all the same."""
    qrels = {"q1": {"a": 1, "b": 0}}
    run = {"q1": {"a": 1.0, "b": 1.0, "c": Fraction(1, 3)}}
    with pytest.raises(TypeError, match="the score of document 'c' of query 'q1'"):
        compat.RelevanceEvaluator(qrels, ["map", "bpref"]).evaluate(run)
    with pytest.raises(InputError, match="the score of document 'c' of query 'q1'"):
        ranking.evaluate(qrels, run, ["map", "bpref"], strict=True)
