"""Information measures and split criteria against scipy, scikit-learn and hand computation."""

from __future__ import annotations

import itertools
import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.spatial.distance import jensenshannon
from scipy.stats import entropy as scipy_entropy
from sklearn.metrics import mutual_info_score
from sklearn.tree import DecisionTreeClassifier

from scorekit import information as inf
from scorekit.core import parse_metric
from scorekit.errors import (
    ConfigError,
    InputError,
    StateMismatchError,
    UndefinedMetricWarning,
)
from scorekit.information import CRITERIA
from scorekit.information._kernels import value_counts

# the play-tennis table (Quinlan 1986, Mitchell 1997 table 3.2) ----------------------------

TENNIS = {
    "outlook": ["sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast",
                "sunny", "sunny", "rain", "sunny", "overcast", "overcast", "rain"],
    "temperature": ["hot", "hot", "hot", "mild", "cool", "cool", "cool",
                    "mild", "cool", "mild", "mild", "mild", "hot", "mild"],
    "humidity": ["high", "high", "high", "high", "normal", "normal", "normal",
                 "high", "normal", "normal", "normal", "high", "normal", "high"],
    "wind": ["weak", "strong", "weak", "weak", "weak", "strong", "strong",
             "weak", "weak", "weak", "strong", "strong", "weak", "strong"],
}  # fmt: skip
PLAY = ["no", "no", "yes", "yes", "yes", "no", "yes", "no", "yes", "yes", "yes", "yes", "yes", "no"]


def _h(counts: list[float]) -> float:
    return float(scipy_entropy(counts, base=2))


def test_play_tennis_information_gain_by_hand() -> None:
    assert inf.information_gain(TENNIS["outlook"], PLAY) == pytest.approx(0.2467, abs=5e-5)
    # H(play) = H(9/14, 5/14); outlook: sunny 2 yes/3 no, overcast 4/0, rain 3/2
    by_hand = _h([9, 5]) - (5 / 14 * _h([2, 3]) + 4 / 14 * _h([4, 0]) + 5 / 14 * _h([3, 2]))
    assert inf.information_gain(TENNIS["outlook"], PLAY) == pytest.approx(by_hand, rel=1e-12)
    assert inf.information_gain(TENNIS["humidity"], PLAY) == pytest.approx(0.1518, abs=5e-5)
    assert inf.information_gain(TENNIS["wind"], PLAY) == pytest.approx(0.0481, abs=5e-5)
    assert inf.information_gain(TENNIS["temperature"], PLAY) == pytest.approx(0.0292, abs=5e-5)
    assert inf.entropy(PLAY, kind="labels") == pytest.approx(0.9403, abs=5e-5)


def test_play_tennis_gain_ratio_and_split_information() -> None:
    si = inf.split_information(TENNIS["outlook"], PLAY)
    assert si == pytest.approx(_h([5, 4, 5]), rel=1e-12)
    assert inf.gain_ratio(TENNIS["outlook"], PLAY) == pytest.approx(
        inf.information_gain(TENNIS["outlook"], PLAY) / si, rel=1e-12
    )
    assert inf.gain_ratio(TENNIS["outlook"], PLAY) == pytest.approx(0.1564, abs=5e-5)
    gini = 1 - (9 / 14) ** 2 - (5 / 14) ** 2
    child = 5 / 14 * (1 - 0.4**2 - 0.6**2) * 2
    assert inf.gini_gain(TENNIS["outlook"], PLAY) == pytest.approx(gini - child, rel=1e-12)


@pytest.mark.parametrize("container", ["dict", "pandas", "pyarrow", "numpy"])
def test_play_tennis_best_split_over_tables(container: str) -> None:
    table: Any
    if container == "dict":
        table = TENNIS
    elif container == "pandas":
        table = pd.DataFrame(TENNIS)
    elif container == "pyarrow":
        table = pa.table(TENNIS)
    else:
        table = np.column_stack([TENNIS[c] for c in TENNIS])
    names = list(TENNIS) if container != "numpy" else list(range(4))
    best = inf.best_split(table, PLAY)
    assert best.feature == names[0] and best.kind == "categorical" and best.threshold is None
    assert best.score == pytest.approx(0.2467, abs=5e-5)
    ranked = inf.rank_features(table, PLAY)
    assert [s.feature for s in ranked] == [names[0], names[2], names[3], names[1]]
    for s in ranked:
        col = TENNIS[list(TENNIS)[names.index(s.feature)]]
        assert s.score == inf.information_gain(col, PLAY)
    ratios = inf.rank_features(table, PLAY, criterion="gain_ratio")
    assert ratios[0].feature == names[0]


# entropy and divergences against scipy --------------------------------------------------

probs = st.lists(st.floats(0, 1e3), min_size=1, max_size=12).filter(lambda v: sum(v) > 0)


@given(probs, st.sampled_from([2.0, math.e, 10.0, 3.5]))
def test_entropy_of_a_distribution_matches_scipy(raw: list[float], base: float) -> None:
    p = np.asarray(raw) / np.sum(raw)
    expected = scipy_entropy(p, base=base)
    assert inf.entropy(p, base=base, normalize=True) == pytest.approx(
        expected, rel=1e-12, abs=1e-15
    )
    assert inf.entropy(raw, base=base, normalize=True) == pytest.approx(
        scipy_entropy(raw, base=base), rel=1e-12, abs=1e-15
    )


@given(st.integers(0, 2**32 - 1), st.integers(1, 8), st.sampled_from([2.0, math.e, 10.0, 1.5]))
def test_kl_cross_entropy_js_match_scipy(seed: int, k: int, base: float) -> None:
    rng = np.random.default_rng(seed)
    p = rng.random(k) * (rng.random(k) < 0.8)
    q = rng.random(k) * (rng.random(k) < 0.8)
    if p.sum() == 0 or q.sum() == 0:
        return
    p, q = p / p.sum(), q / q.sum()
    kl = scipy_entropy(p, q, base=base)
    assert inf.kl_divergence(p, q, base=base) == pytest.approx(kl, rel=1e-12, abs=1e-14)
    h = scipy_entropy(p, base=base)
    assert inf.cross_entropy(p, q, base=base) == pytest.approx(h + kl, rel=1e-12, abs=1e-14)
    js = jensenshannon(p, q, base=base) ** 2
    assert inf.js_divergence(p, q, base=base) == pytest.approx(js, rel=1e-9, abs=1e-12)
    assert inf.js_divergence(p, q, base=base) == inf.js_divergence(q, p, base=base)


def test_kl_is_infinite_where_q_is_zero_but_p_is_not() -> None:
    assert inf.kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert inf.cross_entropy([0.5, 0.5], [1.0, 0.0]) == math.inf
    assert inf.kl_divergence([1.0, 0.0], [0.5, 0.5]) == pytest.approx(1.0)
    assert inf.js_divergence([1.0, 0.0], [0.0, 1.0]) == pytest.approx(1.0)
    assert inf.kl_divergence([0.3, 0.7], [0.3, 0.7]) == 0.0


def test_divergences_of_label_samples() -> None:
    p = ["a", "a", "b", "b"]
    q = ["a", "b", "b", "b", "c", "c", "c", "c"]
    pd_, qd = [0.5, 0.5, 0.0], [1 / 8, 3 / 8, 4 / 8]
    assert inf.kl_divergence(p, q, kind="labels") == pytest.approx(
        scipy_entropy(pd_, qd, base=2), rel=1e-12
    )
    assert inf.kl_divergence(q, p, kind="labels") == math.inf
    assert inf.js_divergence(p, q, kind="labels") == pytest.approx(
        jensenshannon(pd_, qd, base=2) ** 2, rel=1e-9
    )


@given(st.integers(0, 2**32 - 1), st.integers(1, 200), st.integers(1, 6), st.booleans())
def test_label_entropy_and_gini_match_counts(seed: int, n: int, k: int, weighted: bool) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    w = rng.integers(0, 4, n).astype(float) if weighted else None
    if w is not None and w.sum() == 0:
        w[0] = 1.0
    counts = np.bincount(y, weights=w)
    counts = counts[counts > 0]
    got = inf.entropy(y, kind="labels", sample_weight=w)
    assert got == pytest.approx(scipy_entropy(counts, base=2), rel=1e-12, abs=1e-15)
    p = counts / counts.sum()
    assert inf.gini_impurity(y, kind="labels", sample_weight=w) == pytest.approx(
        1 - np.sum(p**2), rel=1e-12, abs=1e-15
    )
    assert inf.gini_impurity(p) == pytest.approx(1 - np.sum(p**2), rel=1e-12, abs=1e-15)


@given(st.integers(0, 2**32 - 1), st.integers(1, 300), st.integers(1, 5), st.integers(1, 5))
def test_mutual_information_matches_sklearn(seed: int, n: int, kx: int, ky: int) -> None:
    rng = np.random.default_rng(seed)
    x, y = rng.integers(0, kx, n), rng.integers(0, ky, n)
    expected = mutual_info_score(x, y)
    assert inf.mutual_information(x, y, base=math.e) == pytest.approx(expected, abs=1e-12)
    assert inf.mutual_information(x, y) == pytest.approx(expected / math.log(2), abs=1e-12)
    assert inf.information_gain(x, y, base=math.e) == pytest.approx(expected, abs=1e-12)
    # C4.5 and CART on the same multiway split, from the branch sizes and class counts
    _, branch = np.unique(x, return_counts=True)
    si = scipy_entropy(branch, base=2)
    assert inf.split_information(x, y) == pytest.approx(si, abs=1e-12)
    ratio = expected / math.log(2) / si if si > 0 else 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        assert inf.gain_ratio(x, y) == pytest.approx(ratio, abs=1e-12)

    def gini(labels: np.ndarray) -> float:
        p = np.unique(labels, return_counts=True)[1] / len(labels)
        return float(1 - np.sum(p**2))

    children = sum(np.sum(x == v) / n * gini(y[x == v]) for v in np.unique(x))
    assert inf.gini_gain(x, y) == pytest.approx(gini(y) - children, abs=1e-12)


# numeric splits against scikit-learn's trees and a brute-force search -------------------


def _brute(x: np.ndarray, y: np.ndarray, w: np.ndarray, gini: bool) -> tuple[float, float | None]:
    def imp(mask: np.ndarray) -> float:
        counts = np.array([w[mask & (y == c)].sum() for c in np.unique(y)])
        if counts.sum() == 0:
            return 0.0
        p = counts / counts.sum()
        return float(1 - np.sum(p**2)) if gini else float(scipy_entropy(p, base=2))

    everything = np.ones(len(x), dtype=bool)
    parent, total = imp(everything), w.sum()
    values = np.unique(x)
    best, where = 0.0, None
    for a, b in itertools.pairwise(values):
        t = (a + b) / 2
        left = x <= t
        gain = parent - (w[left].sum() * imp(left) + w[~left].sum() * imp(~left)) / total
        if where is None or gain > best + 1e-12:
            best, where = gain, t
    return max(best, 0.0), where


@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 80),
    st.integers(2, 4),
    st.integers(1, 12),
    st.booleans(),
    st.booleans(),
)
def test_numeric_split_matches_brute_force_and_sklearn(
    seed: int, n: int, k: int, distinct: int, weighted: bool, gini: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, distinct, n).astype(float) * 0.5
    y = rng.integers(0, k, n)
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    metric = inf.GiniGain(feature="numeric") if gini else inf.InformationGain(feature="numeric")
    split = metric.split(metric.summarize(x, y, sample_weight=w if weighted else None))
    best, where = _brute(x, y, w, gini)
    assert split.score == pytest.approx(best, rel=1e-12, abs=1e-12)
    assert split.threshold == where
    tree = DecisionTreeClassifier(max_depth=1, criterion="gini" if gini else "entropy")
    tree.fit(x.reshape(-1, 1), y, sample_weight=w)
    t = tree.tree_
    if t.node_count == 1:
        sk_gain = 0.0
    else:
        nw = t.weighted_n_node_samples
        sk_gain = t.impurity[0] - (nw[1] * t.impurity[1] + nw[2] * t.impurity[2]) / nw[0]
    assert split.score == pytest.approx(sk_gain, abs=1e-9)


def test_numeric_gain_ratio_uses_the_cut_of_best_gain() -> None:
    x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    y = [0, 0, 0, 1, 1, 0]
    split = inf.InformationGain(feature="numeric").split(
        inf.InformationGain(feature="numeric").summarize(x, y)
    )
    assert split.threshold == 3.5
    si = _h([3, 3])
    assert inf.split_information(x, y, feature="numeric") == pytest.approx(si)
    assert inf.gain_ratio(x, y, feature="numeric") == pytest.approx(split.score / si, rel=1e-12)


def test_integer_weights_equal_repeated_rows() -> None:
    rng = np.random.default_rng(3)
    x, y = rng.integers(0, 5, 50), rng.integers(0, 3, 50)
    w = rng.integers(0, 4, 50)
    xr, yr = np.repeat(x, w), np.repeat(y, w)
    for fn in (inf.information_gain, inf.gain_ratio, inf.gini_gain, inf.split_information):
        for feature in ("categorical", "numeric"):
            got = fn(x, y, feature=feature, sample_weight=w)  # type: ignore[operator]
            assert got == pytest.approx(fn(xr, yr, feature=feature), rel=1e-12, abs=1e-15)  # type: ignore[operator]


def test_chunks_merge_to_the_in_memory_value_with_string_labels() -> None:
    metric = parse_metric("gain_ratio:categorical")
    x, y = TENNIS["outlook"], PLAY
    state = metric.empty()
    for lo in range(0, 14, 4):
        state = metric.update(state, x[lo : lo + 4], y[lo : lo + 4])
    assert metric.compute(state) == pytest.approx(metric.score(x, y), rel=1e-15)
    entropy = inf.Entropy()
    halves = entropy.merge(entropy.summarize(PLAY[:3]), entropy.summarize(PLAY[3:]))
    assert entropy.compute(halves) == entropy.score(PLAY)


def test_rank_features_numeric_and_categorical_columns() -> None:
    rng = np.random.default_rng(0)
    n = 500
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame(
        {
            "signal": y * 2.0 + rng.normal(size=n) * 0.1,
            "noise": rng.normal(size=n),
            "colour": np.where(rng.random(n) < 0.5, "red", "blue"),
            "flag": y.astype(bool),
        }
    )
    ranked = inf.rank_features(frame, y, criterion="gini_gain")
    assert [s.feature for s in ranked][:2] == ["signal", "flag"]
    kinds = {s.feature: s.kind for s in ranked}
    assert kinds == {"signal": "numeric", "noise": "numeric", "colour": "categorical",
                     "flag": "categorical"}  # fmt: skip
    signal = next(s for s in ranked if s.feature == "signal")
    assert signal.score == pytest.approx(inf.gini_impurity(y, kind="labels"), rel=1e-12)
    assert signal.threshold is not None and 0.0 < signal.threshold < 2.0
    as_all = inf.rank_features(frame[["noise"]], y, categorical=True)
    assert as_all[0].kind == "categorical"
    arrow = inf.rank_features(pa.Table.from_pandas(frame), y, criterion="gini_gain")
    assert [(s.feature, s.score, s.threshold) for s in arrow] == [
        (s.feature, s.score, s.threshold) for s in ranked
    ]


def _reference_counts(
    x: np.ndarray, y: np.ndarray, k: int, w: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    values, inverse = np.unique(x, return_inverse=True)
    counts = np.zeros((k, len(values)), dtype=float if w is not None else np.int64)
    np.add.at(counts, (y, inverse.reshape(-1)), 1 if w is None else w)
    return values, counts


def _column(style: int, rng: np.random.Generator, n: int) -> np.ndarray:
    if style == 0:  # float32 values: the low bits are free for the class
        return rng.normal(size=n).astype(np.float32).astype(np.float64)
    if style == 1:  # full float64, with neighbours one ulp apart and signed zeros
        x = rng.normal(size=n)
        x[: n // 3] = np.nextafter(x[n // 3 : 2 * (n // 3)], np.inf)
        x[rng.random(n) < 0.1] = -0.0
        x[rng.random(n) < 0.1] = 0.0
        return x
    if style == 2:  # few repeated decimals
        return np.round(rng.normal(size=n), 1)
    if style == 3:  # small-range integers
        return rng.integers(-3, 4, n)
    if style == 4:  # wide-range integers (sorted, not offset-counted)
        return rng.integers(-(2**40), 2**40, n) // 7
    return np.array([f"v{i}" for i in rng.integers(0, 6, n)])


@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 300),
    st.integers(0, 5),
    st.sampled_from([2, 3, 5, 200]),
    st.booleans(),
)
def test_value_counts_agree_with_unique_on_every_path(
    seed: int, n: int, style: int, k: int, weighted: bool
) -> None:
    rng = np.random.default_rng(seed)
    x = _column(style, rng, n)
    y = rng.integers(0, k, n)
    w = rng.random(n) * (rng.random(n) < 0.8) if weighted else None
    values, counts = value_counts(x, y, k, w)
    ref_values, ref_counts = _reference_counts(x, y, k, w)
    assert values.tolist() == ref_values.tolist()
    assert counts.dtype == ref_counts.dtype
    np.testing.assert_allclose(counts, ref_counts, rtol=1e-12, atol=0)


def test_rank_features_scores_equal_the_criteria_on_each_column() -> None:
    rng = np.random.default_rng(7)
    n = 9000  # more rows than one block of the column copy
    X = np.column_stack([_column(style, rng, n) for style in range(5)] + [np.zeros(n)])
    y = (X[:, 0] + X[:, 2] > 0.3).astype(int) + (X[:, 3] > 1)
    w = rng.integers(0, 3, n).astype(float)
    metrics = {
        "information_gain": inf.InformationGain(feature="numeric"),
        "gini_gain": inf.GiniGain(feature="numeric"),
        "split_information": inf.SplitInformation(feature="numeric"),
        "gain_ratio": inf.GainRatio(feature="numeric"),
    }
    for criterion, metric in metrics.items():
        for weights in (None, w):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UndefinedMetricWarning)
                ranked = inf.rank_features(X, y, criterion=criterion, sample_weight=weights)  # type: ignore[arg-type]
                for s in ranked:
                    expected = metric.split(metric.summarize(X[:, s.feature], y, weights))
                    assert s.threshold == expected.threshold, (criterion, s)
                    assert s.score == pytest.approx(expected.score, rel=1e-12, abs=1e-15)
            assert [s.score for s in ranked] == sorted((s.score for s in ranked), reverse=True)


def test_rank_features_matches_one_depth_one_tree_per_column() -> None:
    rng = np.random.default_rng(11)
    n = 6000
    X = np.round(rng.normal(size=(n, 4)) * 10, 2).astype(np.float32)
    y = np.digitize(X[:, 0] - X[:, 1] + rng.normal(size=n) * 5, [-5.0, 5.0])
    for criterion, tree_criterion in (("gini_gain", "gini"), ("information_gain", "entropy")):
        ranked = inf.rank_features(X, y, criterion=criterion)  # type: ignore[arg-type]
        for s in ranked:
            tree = DecisionTreeClassifier(max_depth=1, criterion=tree_criterion)
            t = tree.fit(X[:, [s.feature]], y).tree_
            nw = t.weighted_n_node_samples
            gain = t.impurity[0] - (nw[1] * t.impurity[1] + nw[2] * t.impurity[2]) / nw[0]
            assert s.threshold == t.threshold[0]
            assert s.score == pytest.approx(gain, abs=1e-9)


def test_tied_thresholds_go_to_the_lowest() -> None:
    x, y = [1.0, 2.0, 3.0, 4.0], [0, 1, 1, 0]
    for criterion in ("gini_gain", "information_gain"):
        split = inf.best_split({"x": x}, y, criterion=criterion)  # type: ignore[arg-type]
        assert split.threshold == 1.5 and split.score > 0
        metric = inf.GiniGain(feature="numeric")
        assert metric.split(metric.summarize(x, y)).threshold == 1.5
    # zero-weight values still separate thresholds; the lowest of the tied cuts wins
    w = [1.0, 0.0, 0.0, 1.0]
    assert inf.best_split({"x": x}, y, criterion="gini_gain", sample_weight=w).threshold == 1.5


def test_rank_features_columns_of_every_container_agree() -> None:
    rng = np.random.default_rng(5)
    n = 5000
    X = np.column_stack([rng.normal(size=n), rng.integers(0, 5, n).astype(float)])
    y = rng.integers(0, 3, n)
    expected = [(s.feature, s.score, s.threshold) for s in inf.rank_features(X, y)]
    fortran = inf.rank_features(np.asfortranarray(X), y)
    assert [(s.feature, s.score, s.threshold) for s in fortran] == expected
    frame = pd.DataFrame(X)
    assert [(s.feature, s.score, s.threshold) for s in inf.rank_features(frame, y)] == expected
    twice = pd.DataFrame(X, columns=["a", "a"])  # repeated names are still two columns
    assert [s.score for s in inf.rank_features(twice, y)] == [e[1] for e in expected]


def test_string_columns_of_frames_and_tables_score_as_label_arrays(monkeypatch: Any) -> None:
    rng = np.random.default_rng(3)
    words = np.array(["élan", "b", "a", "ab", "Z", "zz"])
    s, y = words[rng.integers(0, 6, 3000)], rng.integers(0, 3, 3000)
    order = ["zz", "a", "unused", "Z", "élan", "ab", "b"]
    frame = pd.DataFrame({"obj": pd.Series(s, dtype=object), "str": pd.Series(s, dtype="string")})
    frame["cat"] = pd.Categorical(s, categories=order)
    table = pa.table({"chunks": pa.chunked_array([s[:700], s[700:]]), "dict": pa.array(s)})
    table = table.append_column("large", pa.array(s, pa.large_string()))
    table = table.set_column(1, "dict", pa.array(s).dictionary_encode())
    expected = {c: inf.rank_features({"s": s}, y, criterion=c)[0].score for c in CRITERIA}
    # strings of a frame or table are coded by pandas or pyarrow, not converted one by one
    monkeypatch.setattr("scorekit.information._rank.as_array", None)
    for container in (frame, table):
        for criterion, score in expected.items():
            ranked = inf.rank_features(container, y, criterion=criterion)  # type: ignore[arg-type]
            assert [(r.score, r.kind) for r in ranked] == [(score, "categorical")] * 3


@pytest.mark.parametrize(
    ("column", "pattern"),
    [
        (pd.Series(["a", None, "b"], dtype=object), "column 'c' contains None"),
        (pd.Series(["a", None, "b"], dtype="string"), "column 'c' mixes value types"),
        (pd.Series(["a", 1, "b"], dtype=object), "column 'c' mixes value types"),
        (pa.chunked_array([["a", None, "b"]]), "column 'c' contains None"),
    ],
)
def test_missing_strings_in_frames_and_tables(column: Any, pattern: str) -> None:
    X = pd.DataFrame({"c": column}) if isinstance(column, pd.Series) else pa.table({"c": column})
    with pytest.raises(InputError, match=pattern):
        inf.rank_features(X, [0, 1, 0])


def test_inputs_are_not_mutated() -> None:
    x = np.array([3.0, 1.0, 2.0, 1.0])
    y = np.array([1, 0, 1, 0])
    w = np.array([1.0, 2.0, 0.0, 1.0])
    frame = pd.DataFrame({"x": x.copy()})
    inf.information_gain(x, y, feature="numeric", sample_weight=w)
    inf.rank_features(frame, y, sample_weight=w)
    assert x.tolist() == [3.0, 1.0, 2.0, 1.0] and w.tolist() == [1.0, 2.0, 0.0, 1.0]
    assert frame["x"].tolist() == [3.0, 1.0, 2.0, 1.0]


# edge cases and bad input --------------------------------------------------------------


def test_constant_feature_gives_zero_gain_and_warns_for_gain_ratio() -> None:
    x, y = ["a"] * 5, [0, 1, 0, 1, 1]
    assert inf.information_gain(x, y) == 0.0
    assert inf.split_information(x, y) == 0.0
    assert inf.gini_gain(x, y) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="split information is 0"):
        assert inf.gain_ratio(x, y) == 0.0
    with pytest.warns(UndefinedMetricWarning, match="split information is 0"):
        assert inf.gain_ratio([2.0] * 5, y, feature="numeric") == 0.0
    frame = {"const": [1.0] * 5, "good": [0.0, 1.0, 0.0, 1.0, 1.0]}
    with pytest.warns(UndefinedMetricWarning, match="column 'const'"):
        ranked = inf.rank_features(frame, y, criterion="gain_ratio")
    assert [(s.feature, s.score) for s in ranked] == [("good", 1.0), ("const", 0.0)]


def test_single_class_target() -> None:
    assert inf.information_gain(["a", "b", "c"], [1, 1, 1]) == 0.0
    assert inf.entropy([1, 1, 1], kind="labels") == 0.0
    with pytest.raises(InputError, match="y has a single class"):
        inf.rank_features({"a": [1, 2, 3]}, [1, 1, 1])
    with pytest.raises(InputError, match="y has a single class"):
        inf.best_split(np.zeros((3, 2)), ["k", "k", "k"])


@pytest.mark.parametrize(
    ("call", "error", "pattern"),
    [
        (lambda: inf.information_gain([1, 2, 3], [0, 1]), InputError, "inputs differ in length"),
        (lambda: inf.mutual_information([1, 2], [0, 1, 1]), InputError, "differ in length"),
        (
            lambda: inf.rank_features({"a": [1, 2, 3]}, [0, 1]),
            InputError,
            "X and y differ in length",
        ),
        (
            lambda: inf.information_gain([1.0, np.nan, 2.0], [0, 1, 0], feature="numeric"),
            InputError,
            "x contains nan",
        ),
        (
            lambda: inf.information_gain([1.0, np.nan], [0, 1]),
            InputError,
            "non-finite label",
        ),
        (lambda: inf.information_gain([1, 2], [0.0, np.nan]), InputError, "y contains a non-fin"),
        (
            lambda: inf.rank_features({"a": [1.0, np.inf]}, [0, 1]),
            InputError,
            "column 'a' contains inf",
        ),
        (
            lambda: inf.information_gain(["a", "b"], [0, 1], feature="numeric"),
            InputError,
            "numeric feature x must hold numbers",
        ),
        (lambda: inf.entropy([0.5, 0.6]), InputError, "p does not sum to 1; got sum 1.1"),
        (lambda: inf.kl_divergence([0.5, 0.5], [0.2, 0.2]), InputError, "q does not sum to 1"),
        (lambda: inf.entropy([0.5, -0.5, 1.0]), InputError, "negative probability"),
        (lambda: inf.entropy([0.0, 0.0], normalize=True), InputError, "p sums to 0"),
        (lambda: inf.entropy([]), InputError, "p is empty"),
        (lambda: inf.entropy([0.5, np.nan]), InputError, "p contains nan"),
        (lambda: inf.js_divergence([1.0], [0.5, 0.5]), InputError, "p and q differ in length"),
        (lambda: inf.entropy([], kind="labels"), InputError, "empty input"),
        (lambda: inf.information_gain([], []), InputError, "empty input"),
        (lambda: inf.kl_divergence([], [1], kind="labels"), InputError, "p is empty"),
        (lambda: inf.entropy([1.0], kind="counts"), ConfigError, "unknown input kind"),  # type: ignore[arg-type]
        (lambda: inf.entropy([1.0], base=1), ConfigError, "invalid logarithm base"),
        (lambda: inf.Entropy(base=-2.0), ConfigError, "invalid logarithm base"),
        (
            lambda: inf.kl_divergence([0.5, 0.5], [0.25, 0.75], base=0.5),
            ConfigError,
            "invalid logarithm base; got 0.5, expected a finite number > 1",
        ),
        (
            lambda: inf.information_gain([1], [1], feature="ordinal"),  # type: ignore[arg-type]
            ConfigError,
            "unknown feature kind",
        ),
        (
            lambda: inf.rank_features({"a": [1, 2]}, [0, 1], criterion="gini"),  # type: ignore[arg-type]
            ConfigError,
            "unknown criterion; got 'gini', expected one of 'information_gain'",
        ),
        (
            lambda: inf.rank_features({"a": [1, 2]}, [0, 1], categorical=["b"]),
            ConfigError,
            "categorical names unknown columns",
        ),
        (
            lambda: inf.rank_features({"a": [1, 2]}, [0, 1], categorical="a"),
            ConfigError,
            "categorical must list columns",
        ),
        (lambda: inf.rank_features([1, 2, 3], [0, 1, 0]), InputError, "X must be a table"),
        (
            lambda: inf.rank_features({"a": 5}, [0, 1]),
            InputError,
            "column 'a' is not a column; got 5, expected one value per sample",
        ),
        (lambda: inf.best_split(np.zeros((2, 0)), [0, 1]), InputError, "X has no columns"),
        (
            lambda: inf.rank_features({"a": [1.0, 2.0]}, [0, 1], sample_weight=[0, 0]),
            InputError,
            "every sample weight is 0",
        ),
        (
            lambda: inf.rank_features({"a": [1.0, np.nan]}, [0, 1], categorical=True),
            InputError,
            "column 'a' contains a non-finite label",
        ),
        (
            lambda: inf.entropy([0.5, 0.5], sample_weight=[1, 1]),
            ConfigError,
            "sample_weight applies to labels only",
        ),
        (
            lambda: inf.gini_gain([1, 2], [0, 1], sample_weight=[1.0, -1.0]),
            InputError,
            "sample_weight is negative",
        ),
        (
            lambda: inf.gini_gain([1, 2], [0, 1], sample_weight=[1.0]),
            InputError,
            "sample_weight differs in length",
        ),
        (
            lambda: inf.information_gain(["a", 1], [0, 1]),
            InputError,
            "x mixes value types",
        ),
    ],
)
def test_bad_input(call: Any, error: type[Exception], pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        call()


def test_distribution_not_summing_to_one_is_accepted_with_normalize() -> None:
    assert inf.entropy([1, 1, 2], normalize=True) == pytest.approx(1.5)
    assert inf.kl_divergence([1, 1], [1, 3], normalize=True) == pytest.approx(
        scipy_entropy([1, 1], [1, 3], base=2)
    )


def test_all_zero_weights_give_nan_with_a_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="all sample weights are 0"):
        assert math.isnan(inf.entropy([0, 1], kind="labels", sample_weight=[0, 0]))
    with pytest.warns(UndefinedMetricWarning, match="all sample weights are 0"):
        assert math.isnan(inf.information_gain([0, 1], [0, 1], sample_weight=[0, 0]))


def test_states_of_different_feature_kinds_do_not_merge() -> None:
    cat = inf.InformationGain().summarize([1, 2], [0, 1])
    num = inf.InformationGain(feature="numeric").summarize([1, 2], [0, 1])
    with pytest.raises(StateMismatchError, match="different 'feature'"):
        cat.merge(num)


def test_string_and_number_classes_do_not_merge() -> None:
    metric = inf.Entropy()
    with pytest.raises(InputError, match="labels mix strings and numbers"):
        metric.merge(metric.summarize(["a"]), metric.summarize([1]))


def test_huge_and_tiny_weights_and_values() -> None:
    x = np.array([1e300, -1e300, 1e-300, 0.0])
    y = np.array([1, 0, 1, 0])
    split = inf.InformationGain(feature="numeric").split(
        inf.InformationGain(feature="numeric").summarize(x, y)
    )
    assert split.score == pytest.approx(1.0) and split.threshold == pytest.approx(5e-301)
    extreme = inf.InformationGain(feature="numeric")
    far = extreme.split(extreme.summarize([-1.7e308, 1.7e308], [0, 1]))
    assert far.threshold == 0.0 and far.score == 1.0
    near = extreme.split(extreme.summarize([1.0, np.nextafter(1.0, 2.0)], [0, 1]))
    assert near.threshold == 1.0
    w = np.array([1e200, 1e200, 1e-200, 1e-200])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = inf.information_gain([0, 1, 0, 1], [0, 1, 1, 0], sample_weight=w)
    assert got == pytest.approx(1.0, abs=1e-12)
