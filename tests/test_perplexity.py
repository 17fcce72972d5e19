"""Perplexity against PyTorch's cross-entropy arithmetic, written out with numpy.

``torch.nn.functional.cross_entropy(logits, target, ignore_index=-100)`` takes
``log_softmax(x) = x - max(x) - log(sum(exp(x - max(x))))`` per row, the NLL
``-log_softmax(x)[target]`` per counted position, and with ``reduction="mean"``
divides the summed NLL by the number of positions whose target is not
``ignore_index``. Perplexity is ``exp`` of that mean.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorekit import parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning
from scorekit.text import Perplexity, perplexity

# the reference ---------------------------------------------------------------------


def torch_log_softmax(x: np.ndarray) -> np.ndarray:
    top = x.max(axis=-1, keepdims=True)
    return x - top - np.log(np.exp(x - top).sum(axis=-1, keepdims=True))


def torch_cross_entropy(
    logits: np.ndarray, target: np.ndarray, ignore_index: int = -100, reduction: str = "mean"
) -> Any:
    """``cross_entropy`` of (N, C) logits and (N,) targets, as PyTorch computes it."""
    counted = target != ignore_index
    safe = np.where(counted, target, 0)
    nll = -np.take_along_axis(torch_log_softmax(logits), safe[:, None], axis=1)[:, 0]
    nll = np.where(counted, nll, 0.0)
    if reduction == "none":
        return nll
    if reduction == "sum":
        return nll.sum()
    return nll.sum() / counted.sum()


def random_logits(seed: int, n: int, length: int, vocab: int, scale: float = 3.0) -> Any:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, length, vocab)) * scale
    target = rng.integers(0, vocab, (n, length))
    lengths = rng.integers(1, length + 1, n)
    target[np.arange(length)[None, :] >= lengths[:, None]] = -100
    return logits, target


# values -------------------------------------------------------------------------------


def test_worked_example() -> None:
    # tokens with probabilities 1/2, 1/4 | 1/2: NLL ln2 + ln4 + ln2 = 4 ln2 over 3 tokens
    r = perplexity([np.log([0.5, 0.25]), np.log([0.5])])
    assert r.corpus == pytest.approx(2 ** (4 / 3), rel=1e-15)
    assert r.per_sequence == pytest.approx([2**1.5, 2.0], rel=1e-15)
    assert r.mean_per_sequence == pytest.approx((2**1.5 + 2) / 2, rel=1e-15)
    assert r.cross_entropy == pytest.approx(4 * math.log(2) / 3, rel=1e-15)
    assert r.tokens == 3
    # token-weighted corpus value differs from the mean of per-sequence values
    assert r.corpus != pytest.approx(r.mean_per_sequence)


def test_uniform_distribution_has_perplexity_of_vocabulary_size() -> None:
    logits = np.zeros((2, 5, 7))
    target = np.full((2, 5), 3)
    assert perplexity(logits=logits, target=target).corpus == pytest.approx(7.0, rel=1e-14)


@pytest.mark.parametrize("seed", range(5))
def test_logits_match_torch_cross_entropy(seed: int) -> None:
    logits, target = random_logits(seed, 6, 9, 11)
    flat_logits, flat_target = logits.reshape(-1, 11), target.reshape(-1)
    r = perplexity(logits=logits, target=target)
    ce = torch_cross_entropy(flat_logits, flat_target)
    assert r.cross_entropy == pytest.approx(ce, rel=1e-13)
    assert r.corpus == pytest.approx(math.exp(ce), rel=1e-13)
    assert r.tokens == int((target != -100).sum())
    per_row = [math.exp(torch_cross_entropy(logits[i], target[i])) for i in range(6)]
    assert r.per_sequence == pytest.approx(per_row, rel=1e-13)
    assert r.mean_per_sequence == pytest.approx(np.mean(per_row), rel=1e-13)


def test_float32_logits_agree_with_float32_arithmetic() -> None:
    logits, target = random_logits(7, 4, 16, 50)
    logits32 = logits.astype(np.float32)
    ce32 = torch_cross_entropy(logits32.reshape(-1, 50), target.reshape(-1))
    r = perplexity(logits=logits32, target=target)
    assert r.cross_entropy == pytest.approx(float(ce32), rel=1e-5)


def test_other_ignore_index_and_mask() -> None:
    logits, target = random_logits(3, 4, 6, 5)
    target = np.where(target == -100, 99, target)
    r = perplexity(logits=logits, target=target, ignore_index=99)
    ce = torch_cross_entropy(logits.reshape(-1, 5), target.reshape(-1), ignore_index=99)
    assert r.corpus == pytest.approx(math.exp(ce), rel=1e-13)
    # a mask drops the same positions
    with_mask = perplexity(
        logits=logits, target=np.where(target == 99, 0, target), mask=target != 99
    )
    assert with_mask.corpus == pytest.approx(r.corpus, rel=1e-14)


def test_log_softmax_is_stable_for_huge_logits() -> None:
    logits, target = random_logits(5, 3, 8, 6, scale=1e4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        r = perplexity(logits=logits, target=target)
    ce = torch_cross_entropy(logits.reshape(-1, 6), target.reshape(-1))
    assert np.isfinite(ce)
    assert r.cross_entropy == pytest.approx(ce, rel=1e-12)


def test_negative_infinite_logits_outside_the_target_are_allowed() -> None:
    logits = np.array([[[0.0, -np.inf, 0.0]]])
    assert perplexity(logits=logits, target=[[0]]).corpus == pytest.approx(2.0)


def test_ragged_logits_equal_padded() -> None:
    logits, target = random_logits(9, 5, 7, 4)
    lengths = (target != -100).sum(axis=1)
    ragged_logits = [logits[i, : lengths[i]] for i in range(5)]
    ragged_target = [target[i, : lengths[i]] for i in range(5)]
    a = perplexity(logits=logits, target=target)
    b = perplexity(logits=ragged_logits, target=ragged_target)
    assert b.corpus == pytest.approx(a.corpus, rel=1e-14)
    assert b.per_sequence == pytest.approx(a.per_sequence, rel=1e-14)


def test_log_probs_from_logits_give_the_same_value() -> None:
    logits, target = random_logits(2, 4, 6, 9)
    lp = np.take_along_axis(
        torch_log_softmax(logits), np.where(target < 0, 0, target)[..., None], 2
    )
    mask = target != -100
    a = perplexity(lp[..., 0], mask=mask)
    b = perplexity(logits=logits, target=target)
    assert a.corpus == pytest.approx(b.corpus, rel=1e-13)
    assert a.per_sequence == pytest.approx(b.per_sequence, rel=1e-13)


@given(st.integers(0, 2**32 - 1), st.integers(1, 12))
def test_padded_with_mask_equals_ragged(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 9, n)
    padded = np.log(rng.random((n, 8)) + 1e-9)
    mask = np.arange(8)[None, :] < lengths[:, None]
    padded_junk = np.where(mask, padded, np.nan)  # padding may hold anything
    ragged = [padded[i, : lengths[i]] for i in range(n)]
    a = perplexity(padded_junk, mask=mask.astype(int))
    b = perplexity(ragged)
    c = perplexity(ragged, mask=[np.ones(k, dtype=bool) for k in lengths])
    assert a.corpus == pytest.approx(b.corpus, rel=1e-13) == c.corpus
    assert a.per_sequence == pytest.approx(b.per_sequence, rel=1e-13)
    total = -padded[mask].sum()
    assert b.corpus == pytest.approx(math.exp(total / lengths.sum()), rel=1e-12)


def test_base_two() -> None:
    probs = [np.array([0.5, 0.25]), np.array([0.5])]
    r2 = perplexity([np.log2(p) for p in probs], base=2)
    re = perplexity([np.log(p) for p in probs])
    assert r2.corpus == pytest.approx(re.corpus, rel=1e-14)
    assert r2.cross_entropy == pytest.approx(4 / 3, rel=1e-14)  # bits per token
    logits, target = random_logits(1, 3, 5, 4)
    from_logits = perplexity(logits=logits, target=target, base=2)
    natural = perplexity(logits=logits, target=target)
    assert from_logits.corpus == pytest.approx(natural.corpus, rel=1e-13)
    assert from_logits.cross_entropy == pytest.approx(natural.cross_entropy / math.log(2))
    assert parse_metric("perplexity:2").score([np.log2(p) for p in probs]) == pytest.approx(
        re.corpus
    )


def test_state_merges_to_the_in_memory_value() -> None:
    rng = np.random.default_rng(0)
    seqs = [np.log(rng.random(rng.integers(0, 6)) + 1e-6) for _ in range(40)]
    metric = Perplexity()
    parts = [metric.summarize(seqs[i : i + 10]) for i in range(0, 40, 10)]
    state = parts[0].merge(parts[1]).merge(parts[2]).merge(parts[3])
    assert state.tokens == sum(len(s) for s in seqs)
    assert metric.compute(state) == pytest.approx(metric.score(seqs), rel=1e-13)
    with pytest.raises(StateMismatchError):
        state.merge(Perplexity(base=2).summarize(seqs))


def test_zero_length_sequences_are_defined() -> None:
    seqs = [np.log([0.5]), np.zeros(0), np.log([0.25, 0.25])]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(UndefinedMetricWarning, match="1 sequences have no tokens"):
            r = perplexity(seqs)
    assert np.isnan(r.per_sequence[1])
    assert r.per_sequence[[0, 2]] == pytest.approx([2.0, 4.0])
    assert r.mean_per_sequence == pytest.approx(3.0)
    assert r.corpus == pytest.approx(math.exp((math.log(2) + 2 * math.log(4)) / 3))
    # the metric (corpus value) needs no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert Perplexity().score(seqs) == pytest.approx(r.corpus)


# bad input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "log_probs",
    [[], [np.zeros(0), np.zeros(0)], np.zeros((0, 4)), np.zeros((2, 0))],
    ids=["no sequences", "empty sequences", "no rows", "no positions"],
)
def test_no_tokens(log_probs: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(InputError, match="empty input; got 0 tokens"):
            perplexity(log_probs)


def test_all_positions_ignored() -> None:
    with pytest.raises(InputError, match="empty input"):
        perplexity(logits=np.zeros((1, 2, 3)), target=[[-100, -100]])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_log_probs(bad: float) -> None:
    with pytest.raises(InputError, match="log-probabilities are not finite"):
        perplexity([np.array([-0.1, bad])])


def test_positive_log_probs() -> None:
    with pytest.raises(InputError, match=r"above 0.*not negative log-likelihoods"):
        perplexity([np.array([0.7, 2.3])])


def test_non_finite_logits() -> None:
    with pytest.raises(InputError, match="logits are nan or"):
        perplexity(logits=np.array([[[0.0, np.nan]]]), target=[[0]])
    with pytest.raises(InputError, match="target token has probability 0"):
        perplexity(logits=np.array([[[0.0, -np.inf]]]), target=[[1]])


def test_mask_of_the_wrong_shape() -> None:
    with pytest.raises(InputError, match=r"mask has the wrong shape; got \(2, 2\)"):
        perplexity(np.zeros((2, 3)), mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(InputError, match="mask has the wrong shape"):
        perplexity([np.zeros(2), np.zeros(3)], mask=[np.ones(2, dtype=bool)])
    with pytest.raises(InputError, match=r"mask has the wrong shape; got \(2,\)"):
        perplexity([np.zeros(3)], mask=[np.ones(2, dtype=bool)])
    with pytest.raises(InputError, match="mask must be boolean or 0/1"):
        perplexity(np.zeros((1, 2)), mask=[[1, 2]])


def test_wrong_dimensions_and_types() -> None:
    with pytest.raises(InputError, match="log_probs has the wrong number of dimensions; got 1-D"):
        perplexity(np.log([0.5, 0.5]))
    with pytest.raises(InputError, match=r"log_probs\[1\] has the wrong number of dimensions"):
        perplexity([np.log([0.5]), np.zeros((2, 2))])
    with pytest.raises(InputError, match="log_probs is missing"):
        perplexity(None)
    with pytest.raises(InputError, match=r"log_probs\[0\] contains None"):
        perplexity([[-0.5, None]])
    with pytest.raises(InputError, match="must be numeric"):
        perplexity([["a", "b"]])


def test_logits_and_target_problems() -> None:
    logits = np.zeros((2, 3, 4))
    with pytest.raises(InputError, match="target id out of range; got 4"):
        perplexity(logits=logits, target=np.full((2, 3), 4))
    with pytest.raises(InputError, match="target id out of range; got -1"):
        perplexity(logits=logits, target=np.full((2, 3), -1))
    with pytest.raises(InputError, match="differ in shape"):
        perplexity(logits=logits, target=np.zeros((2, 2), dtype=int))
    with pytest.raises(InputError, match="target must hold integer ids"):
        perplexity(logits=logits, target=np.zeros((2, 3)))
    with pytest.raises(InputError, match="target is missing"):
        perplexity(logits=logits)
    with pytest.raises(InputError, match="both log_probs and logits given"):
        perplexity(np.zeros((2, 3)), logits=logits, target=np.zeros((2, 3), dtype=int))
    with pytest.raises(InputError, match="differ in length"):
        perplexity(logits=[np.zeros((2, 4))], target=[np.zeros(3, dtype=int)])
    with pytest.raises(InputError, match="differ in vocabulary size"):
        perplexity(
            logits=[np.zeros((1, 4)), np.zeros((1, 5))],
            target=[np.zeros(1, dtype=int), np.zeros(1, dtype=int)],
        )


def test_bad_configuration() -> None:
    with pytest.raises(ConfigError, match="unknown base; got 10"):
        Perplexity(base=10)
    with pytest.raises(ConfigError, match="ignore_index must be an integer"):
        Perplexity(ignore_index=0.5)  # type: ignore[arg-type]
