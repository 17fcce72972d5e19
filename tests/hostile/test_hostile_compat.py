"""Hostile cases: a drop-in module refuses what the original refuses."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import pytrec_eval

from scorekit.compat import pytrec_eval as dropin
from scorekit.errors import InputError

QRELS_REFUSED = [
    pytest.param({"q1": {"d1": 1.5}}, "relevance", id="float relevance"),
    pytest.param({"q1": {"d1": "1"}}, "relevance", id="text relevance"),
    pytest.param({"q1": {1: 1}}, "document id", id="integer document id"),
    pytest.param({1: {"d1": 1}}, "query id", id="integer query id"),
]
RUNS_REFUSED = [
    pytest.param({"q1": {1: 1.0}}, "document id", id="integer document id"),
    pytest.param({"q1": {"d1": "0.5"}}, "score", id="text score"),
]


@pytest.mark.parametrize(("qrels", "named"), QRELS_REFUSED)
def test_qrels_pytrec_eval_refuses_are_refused(qrels: Any, named: str) -> None:
    """[silent] Float relevances and integer ids were taken where pytrec_eval refuses them."""
    with pytest.raises(TypeError):
        # the tests run pytrec_eval in a child process, which builds it when it evaluates
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate({"q1": {"d1": 1.0}})
    with pytest.raises(TypeError, match=named) as raised:
        dropin.RelevanceEvaluator(qrels, {"map"})
    assert isinstance(raised.value, InputError)


@pytest.mark.parametrize(("run", "named"), RUNS_REFUSED)
def test_runs_pytrec_eval_refuses_are_refused(run: Any, named: str) -> None:
    """[silent] A run with integer document ids or text scores was evaluated."""
    qrels = {"q1": {"d1": 1}}
    with pytest.raises(TypeError):
        pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    with pytest.raises(TypeError, match=named):
        dropin.RelevanceEvaluator(qrels, {"map"}).evaluate(run)


def test_what_pytrec_eval_takes_is_taken_with_its_values() -> None:
    """Booleans and integer scores, as pytrec_eval; numpy numbers too (documented)."""
    qrels = {"q1": {"d1": True, "d2": 0}}
    run = {"q1": {"d1": 1, "d2": 2.5}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    assert dropin.RelevanceEvaluator(qrels, {"map"}).evaluate(run) == expected
    numpy_qrels = {"q1": {"d1": np.int64(1), "d2": np.int64(0)}}
    numpy_run = {"q1": {"d1": np.float32(1.0), "d2": np.float64(2.5)}}
    assert dropin.RelevanceEvaluator(numpy_qrels, {"map"}).evaluate(numpy_run) == expected


def test_no_measure_gives_each_judged_query_with_no_value() -> None:
    """[crash] ``RelevanceEvaluator(qrels, set()).evaluate(run)`` raised; pytrec_eval gives
    ``{query: {}}`` for every judged query of the run."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}}
    for run in ({"q1": {"d1": 1.0}, "q3": {"d3": 1.0}}, {"q1": {}}, {}):
        expected = pytrec_eval.RelevanceEvaluator(qrels, set()).evaluate(run)
        assert dropin.RelevanceEvaluator(qrels, set()).evaluate(run) == expected
