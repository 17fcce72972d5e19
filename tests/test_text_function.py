"""text.from_function: a metric from a per-item scoring function, its state and its errors."""

from __future__ import annotations

import math
import pickle
from typing import Any

import numpy as np
import pytest

import scorekit
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.text import from_function


def token_f1(reference: Any, prediction: str) -> float:
    """A small pure-Python scorer: the best token F1 against the references."""
    refs = [reference] if isinstance(reference, str) else reference
    best = 0.0
    for ref in refs:
        r, p = ref.split(), prediction.split()
        common = sum(min(r.count(t), p.count(t)) for t in set(p))
        if common:
            precision, recall = common / len(p), common / len(r)
            best = max(best, 2 * precision * recall / (precision + recall))
    return best


REFS = ["the cat sat", ["a dog", "one dog barks"], "x y z", "", "w"]
PREDS = ["the cat", "one dog", "z y x", "nothing", "w"]


def test_mean_of_the_function_and_its_state() -> None:
    metric = from_function(token_f1, "token_f1", bounds=(0, 1))
    expected = [token_f1(r, p) for r, p in zip(REFS, PREDS, strict=True)]
    assert metric.score(REFS, PREDS) == pytest.approx(sum(expected) / len(expected), rel=1e-15)
    assert metric.segment_values(REFS, PREDS).tolist() == expected
    merged = metric.merge(
        metric.summarize(REFS[:2], PREDS[:2]), metric.summarize(REFS[2:], PREDS[2:])
    )
    assert metric.compute(merged) == pytest.approx(metric.score(REFS, PREDS), rel=1e-15)
    assert metric.compute(metric.merge(metric.empty(), merged)) == metric.compute(merged)
    other = from_function(token_f1, "other")
    with pytest.raises(StateMismatchError):
        metric.merge(merged, other.summarize(REFS, PREDS))
    assert (metric.name, metric.info.higher_is_better, metric.info.bounds) == (
        "token_f1",
        True,
        (0.0, 1.0),
    )
    restored = type(merged).from_dict(merged.to_dict())
    assert restored.equals(merged)
    assert pickle.loads(pickle.dumps(merged)).equals(merged)


def test_evaluate_in_chunks_equals_in_memory() -> None:
    metric = from_function(token_f1, "token_f1", bounds=(0, 1))
    table = {"references": [r if isinstance(r, str) else r[0] for r in REFS], "predictions": PREDS}
    whole = metric.score(table["references"], PREDS)
    got = scorekit.evaluate(table, [metric, "chrf"], chunk_size=2).values
    assert got["token_f1"] == pytest.approx(whole, rel=1e-15)


@pytest.mark.parametrize(
    ("fn", "problem"),
    [
        (lambda r, p: 1 / 0 if p == "z y x" else 0.5, "raised ZeroDivisionError on item 2"),
        (lambda r, p: math.nan if p == "nothing" else 0.5, "returned nan on item 3"),
        (lambda r, p: np.inf if p == "w" else 0.5, "returned inf on item 4"),
        (lambda r, p: "high", "non-number on item 0"),
        (lambda r, p: None, "non-number on item 0"),
        (lambda r, p: 2.0, "outside its bounds on item 0"),
    ],
)
def test_a_bad_item_is_named(fn: Any, problem: str) -> None:
    metric = from_function(fn, "judge", bounds=(0, 1))
    with pytest.raises(InputError, match=problem) as info:
        metric.score(REFS, PREDS)
    assert str(info.value).startswith("judge: ")


def test_bad_inputs_and_settings() -> None:
    metric = from_function(token_f1, "token_f1")
    with pytest.raises(InputError, match="None"):
        metric.score(["a", None], ["a", "b"])
    with pytest.raises(InputError, match="empty input"):
        metric.score([], [])
    with pytest.raises(ConfigError, match="not callable"):
        from_function("token_f1", "x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="invalid name"):
        from_function(token_f1, "")
    with pytest.raises(ConfigError, match="invalid bounds"):
        from_function(token_f1, "x", bounds=(1, 0))
    with pytest.raises(ConfigError, match="higher_is_better"):
        from_function(token_f1, "x", higher_is_better="yes")  # type: ignore[arg-type]
