"""Bootstrap replicates of the text and QA metrics: segment / question / sequence weights.

A replicate in which unit ``i`` counts ``weights[b, i]`` times must equal the
metric on the batch with unit ``i`` repeated that often; replicates of all
zeros are the metric's empty state.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorekit.core import Metric, available, parse_metric
from scorekit.errors import ConfigError, InputError
from scorekit.text import BLEU, CHRF, TER, WER, score_statistics, segment_statistics
from strategies import make_batch

KINDS = ("references_predictions", "qa_answers", "log_probs")
INFOS = [info for info in available() if info.inputs in KINDS]
METRICS: list[Metric[Any]] = [info.cls() for info in INFOS]
METRICS += [BLEU(tokenize="char", smooth="floor"), CHRF(eps_smoothing=True), TER(normalized=True)]


def _repeat(args: tuple[Any, ...], index: np.ndarray) -> tuple[Any, ...]:
    out: list[Any] = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(a[index])
        else:
            out.append([a[i] for i in index.tolist()])
    return tuple(out)


def _value(metric: Metric[Any], state: Any) -> Any:
    try:
        return metric.compute(state)
    except InputError:
        return "empty"


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(
            np.allclose(a[k][:3], b[k][:3], rtol=1e-12, atol=0) for k in a
        )
    return bool(np.allclose(a, b, rtol=1e-12, atol=0, equal_nan=True))


@pytest.mark.parametrize("metric", METRICS, ids=lambda m: repr(m)[:40])
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 8),
    style=st.integers(0, 3),
    replicates=st.integers(1, 4),
)
def test_replicates_equal_repeated_units(
    metric: Metric[Any], seed: int, n: int, style: int, replicates: int
) -> None:
    args = make_batch(metric.inputs, seed, n, 2, style)
    units = metric.count_units(*args)
    assert units == n
    rng = np.random.default_rng(seed)
    weights = rng.integers(0, 3, (replicates + 1, units))
    weights[0] = 0  # a replicate that draws nothing
    states = metric.summarize_replicates(*args, weights=weights)
    assert len(states) == len(weights)
    for w, state in zip(weights, states, strict=True):
        index = np.repeat(np.arange(units), w)
        try:
            expected_state = metric.summarize(*_repeat(args, index))
        except InputError:  # an empty batch the metric refuses: the replicate is empty
            expected_state = metric.empty()
        assert _close(_value(metric, state), _value(metric, expected_state))
    assert _value(metric, states[0]) == "empty"


@pytest.mark.parametrize("metric", [BLEU(), CHRF(), WER()], ids=lambda m: m.name)
def test_integer_replicate_states_are_exact(metric: Metric[Any]) -> None:
    refs = [["the cat sat", "a cat sat"], "a dog runs", "x-y 42", ["on the mat."]]
    preds = ["the cat sat on", "a dog", "", "on a mat ."]
    weights = np.array([[2, 0, 1, 3], [0, 1, 0, 0]])
    states = metric.summarize_replicates(refs, preds, weights=weights)
    for w, state in zip(weights, states, strict=True):
        index = np.repeat(np.arange(4), w).tolist()
        repeated = metric.summarize([refs[i] for i in index], [preds[i] for i in index])
        assert state.equals(repeated)


def test_segment_statistics_sum_to_the_corpus_value() -> None:
    refs = [["the cat sat", "a cat sat"], "a dog runs", "x-y 42"]
    preds = ["the cat sat on", "a dog", "x y"]
    for name in ("bleu", "chrf", "chrf++", "ter", "wer", "mer", "wip", "rouge1", "rougeLsum"):
        metric = parse_metric(name)
        stats = segment_statistics(metric, refs, preds)
        assert stats.shape[0] == 3
        value = score_statistics(name, stats.sum(axis=0))
        assert float(value) == pytest.approx(metric.score(refs, preds), rel=1e-12)
    rouge = segment_statistics("rouge", refs, preds)
    means = score_statistics("rouge", rouge.sum(axis=0))
    assert means.shape == (4, 3)
    assert means[0, 2] == pytest.approx(parse_metric("rouge").score(refs, preds)["rouge1"][2])
    bleu_stats = segment_statistics(BLEU(), refs, preds)
    assert bleu_stats.dtype == np.int64
    assert bleu_stats.shape[1] == 10


def test_statistics_errors() -> None:
    with pytest.raises(ConfigError, match="no per-segment statistics"):
        segment_statistics("exact_match", [["a"]], ["a"])
    with pytest.raises(InputError, match="shape"):
        score_statistics(BLEU(), np.zeros((2, 3, 4)))
    with pytest.raises(InputError, match="unit weights do not match"):
        BLEU().summarize_replicates(["a"], ["a"], weights=np.ones((2, 3), dtype=int))
    with pytest.raises(InputError, match="integers >= 0"):
        BLEU().summarize_replicates(["a"], ["a"], weights=np.array([[-1]]))
    with pytest.raises(InputError, match="wrong inputs"):
        BLEU().summarize_replicates(["a"], weights=np.ones((1, 1), dtype=int))
    with pytest.raises(InputError, match="unit weights do not match"):
        METRICS[[i.name for i in INFOS].index("exact_match")].summarize_replicates(
            [["a"]], ["a"], weights=np.ones((1, 2), dtype=int)
        )
