"""scorekit.compat.sklearn against scikit-learn: signatures, values, types, errors, missing names.

Every test is driven by ``NAMES`` (the functions scorekit computes) or ``MISSING``
(the ones it does not), so a function added to the module is tested without a
new test.
"""

from __future__ import annotations

import inspect
import math
import subprocess
import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as reference
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import classification as C
from scorekit.compat import sklearn as compat
from scorekit.errors import ConfigError, InputError

Batch = tuple[tuple[Any, ...], dict[str, Any]]


# ----------------------------------------------------------------- comparison


RTOL = {"d2_tweedie_score": 1e-10}
"""Wider tolerances, and why: scikit-learn's deviance of the targets around their mean
subtracts numbers of the size of the targets and loses digits when they spread little
(the state keeps them: see ``tests/test_regression_deviance.py``)."""


def _assert_same(ours: Any, theirs: Any, where: str = "", rel: float = 1e-12) -> None:
    """Equal values (``rel`` relative), equal types, shapes and dtypes."""
    if isinstance(theirs, tuple | list):
        assert type(ours) is type(theirs), (where, type(ours), type(theirs))
        assert len(ours) == len(theirs), where
        for i, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            _assert_same(a, b, f"{where}[{i}]", rel)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict), where
        assert list(ours) == list(theirs), (where, list(ours), list(theirs))
        for key, value in theirs.items():
            _assert_same(ours[key], value, f"{where}[{key!r}]", rel)
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), (where, type(ours))
        assert ours.shape == theirs.shape, (where, ours.shape, theirs.shape)
        assert ours.dtype == theirs.dtype, (where, ours.dtype, theirs.dtype)
        if theirs.dtype.kind in "fc":
            np.testing.assert_allclose(ours, theirs, rtol=rel, atol=1e-14, err_msg=where)
        else:
            np.testing.assert_array_equal(ours, theirs, err_msg=where)
    elif theirs is None or isinstance(theirs, str):
        assert ours == theirs, (where, ours, theirs)
    else:
        assert type(ours) is type(theirs), (where, type(ours), type(theirs))
        if math.isnan(theirs):
            assert math.isnan(ours), (where, ours)
        else:
            assert ours == pytest.approx(theirs, rel=rel, abs=1e-14), (where, ours, theirs)


def _compare(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Call both; both raise a ValueError, or both return the same thing."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = getattr(reference, name)(*args, **kwargs)
        except ValueError:
            with pytest.raises(ValueError):
                getattr(compat, name)(*args, **kwargs)
            return
        ours = getattr(compat, name)(*args, **kwargs)
    _assert_same(ours, theirs, f"{name}(**{sorted(kwargs)})", RTOL.get(name, 1e-12))


# ------------------------------------------------------------------- batches

_STRINGS = np.array(["ant", "bee", "cat"])


def _weights(rng: np.random.Generator, n: int) -> Any:
    return [None, rng.random(n) * 2, rng.integers(1, 4, n)][rng.integers(0, 3)]


def _pick(rng: np.random.Generator, values: list[Any]) -> Any:
    return values[rng.integers(0, len(values))]


def _labels(rng: np.random.Generator, n: int) -> tuple[Any, Any, str]:
    """y_true, y_pred of a kind chosen at random, and the kind."""
    kind = _pick(rng, ["binary", "multiclass", "strings", "one_class", "multilabel"])
    if kind == "binary":
        return rng.integers(0, 2, n), rng.integers(0, 2, n), kind
    if kind == "multiclass":
        return rng.integers(0, 3, n), rng.integers(0, 3, n), kind
    if kind == "strings":
        return _STRINGS[rng.integers(0, 3, n)], _STRINGS[rng.integers(0, 3, n)], kind
    if kind == "one_class":
        return np.zeros(n, dtype=np.int64), rng.integers(0, 2, n), kind
    return rng.integers(0, 2, (n, 3)), rng.integers(0, 2, (n, 3)), kind


_AVERAGES = ["binary", "micro", "macro", "weighted", "samples", None]
_ZERO_DIVISION = ["warn", 0, 1, np.nan]


def _prf_options(rng: np.random.Generator, kind: str) -> dict[str, Any]:
    labels = {
        "binary": [None, [1, 0], [0]],
        "multiclass": [None, [2, 0], [0, 1, 2, 3]],
        "strings": [None, ["cat", "ant"]],
        "one_class": [None, [0, 1]],
        "multilabel": [None, [2, 0]],
    }[kind]
    pos_label = ["cat", "ant"] if kind == "strings" else [1, 0]
    return {
        "labels": _pick(rng, labels),
        "pos_label": _pick(rng, pos_label),
        "average": _pick(rng, _AVERAGES),
        "zero_division": _pick(rng, _ZERO_DIVISION),
    }


def _prf(rng: np.random.Generator, n: int) -> Batch:
    t, p, kind = _labels(rng, n)
    return (t, p), {**_prf_options(rng, kind), "sample_weight": _weights(rng, n)}


def _prfs(rng: np.random.Generator, n: int) -> Batch:
    args, kwargs = _prf(rng, n)
    kwargs["beta"] = _pick(rng, [1.0, 0.5, 2.0])
    return args, kwargs


def _fbeta(rng: np.random.Generator, n: int) -> Batch:
    args, kwargs = _prfs(rng, n)
    kwargs.pop("warn_for", None)
    return args, kwargs


def _jaccard(rng: np.random.Generator, n: int) -> Batch:
    """scikit-learn's jaccard_score refuses zero_division=nan (scorekit takes it)."""
    args, kwargs = _prf(rng, n)
    if not isinstance(kwargs["zero_division"], str) and math.isnan(kwargs["zero_division"]):
        kwargs["zero_division"] = "warn"
    return args, kwargs


def _plain(*options: str) -> Callable[[np.random.Generator, int], Batch]:
    def make(rng: np.random.Generator, n: int) -> Batch:
        t, p, kind = _labels(rng, n)
        if kind == "multilabel" and "labels" in options:
            t, p = t[:, 0], p[:, 0]
        kwargs: dict[str, Any] = {"sample_weight": _weights(rng, n)}
        if "normalize" in options:
            kwargs["normalize"] = _pick(rng, [True, False])
        if "adjusted" in options:
            kwargs["adjusted"] = _pick(rng, [True, False])
        if "labels" in options:
            kwargs["labels"] = _pick(rng, [None, list(np.unique(np.concatenate([t, p])))[::-1]])
        if "weights" in options:
            kwargs["weights"] = _pick(rng, [None, "linear", "quadratic"])
        if "cm_normalize" in options:
            kwargs["normalize"] = _pick(rng, [None, "true", "pred", "all"])
        if "samplewise" in options:
            kwargs["samplewise"] = _pick(rng, [False, True])
            if kind == "multilabel":
                kwargs["labels"] = _pick(rng, [None, [2, 0]])
        return (t, p), kwargs

    return make


def _binary_scores(rng: np.random.Generator, n: int) -> tuple[Any, Any]:
    t = rng.integers(0, 2, n) if rng.random() < 0.9 else np.ones(n, dtype=np.int64)
    s = rng.integers(0, 4, n) / 4 if rng.random() < 0.5 else rng.random(n)
    return t, s


def _proba(rng: np.random.Generator, n: int, k: int) -> Any:
    raw = rng.random((n, k)) + 1e-3
    return raw / raw.sum(axis=1, keepdims=True)


def _curve(rng: np.random.Generator, n: int) -> Batch:
    t, s = _binary_scores(rng, n)
    kwargs = {"sample_weight": _weights(rng, n), "drop_intermediate": _pick(rng, [True, False])}
    if rng.random() < 0.3:
        t = np.where(t == 1, "yes", "no")
        kwargs["pos_label"] = "yes"
    return (t, s), kwargs


def _roc_auc(rng: np.random.Generator, n: int) -> Batch:
    kind = _pick(rng, ["binary", "multiclass", "multilabel"])
    kwargs: dict[str, Any] = {"sample_weight": _weights(rng, n)}
    if kind == "binary":
        t, s = _binary_scores(rng, n)
        kwargs["max_fpr"] = _pick(rng, [None, 0.5, 1.0])
    elif kind == "multiclass":
        t, s = rng.integers(0, 3, n), _proba(rng, n, 3)
        kwargs["multi_class"] = _pick(rng, ["ovr", "ovo"])
        kwargs["average"] = _pick(rng, ["macro", "weighted"])
        if kwargs["multi_class"] == "ovo":
            kwargs["sample_weight"] = None
    else:
        t, s = rng.integers(0, 2, (n, 3)), rng.integers(0, 3, (n, 3)) / 3
        kwargs["average"] = _pick(rng, ["micro", "macro", "weighted", "samples", None])
    return (t, s), kwargs


def _average_precision(rng: np.random.Generator, n: int) -> Batch:
    kind = _pick(rng, ["binary", "multiclass", "multilabel"])
    kwargs: dict[str, Any] = {"sample_weight": _weights(rng, n)}
    if kind == "binary":
        t, s = _binary_scores(rng, n)
        kwargs["pos_label"] = _pick(rng, [1, 0])
    elif kind == "multiclass":
        t, s = rng.integers(0, 3, n), _proba(rng, n, 3)
        kwargs["average"] = _pick(rng, ["micro", "macro", "weighted", None])
    else:
        t, s = rng.integers(0, 2, (n, 3)), rng.integers(0, 3, (n, 3)) / 3
        kwargs["average"] = _pick(rng, ["micro", "macro", "weighted", "samples", None])
    return (t, s), kwargs


def _log_loss(rng: np.random.Generator, n: int) -> Batch:
    kwargs: dict[str, Any] = {
        "sample_weight": _weights(rng, n),
        "normalize": _pick(rng, [True, False]),
    }
    if rng.random() < 0.5:
        return (rng.integers(0, 2, n), rng.random(n)), kwargs
    t = rng.integers(0, 3, n)
    if rng.random() < 0.5:
        kwargs["labels"] = [0, 1, 2]
    return (t, _proba(rng, n, 3)), kwargs


def _brier(rng: np.random.Generator, n: int) -> Batch:
    kwargs: dict[str, Any] = {
        "sample_weight": _weights(rng, n),
        "scale_by_half": _pick(rng, ["auto", True, False]),
    }
    if rng.random() < 0.5:
        kwargs["pos_label"] = _pick(rng, [None, 1, 0])
        return (rng.integers(0, 2, n), np.round(rng.random(n), 1)), kwargs
    if rng.random() < 0.5:
        kwargs["labels"] = [0, 1, 2]
    return (rng.integers(0, 3, n), _proba(rng, n, 3)), kwargs


def _top_k(rng: np.random.Generator, n: int) -> Batch:
    k = _pick(rng, [1, 2, 3])
    kwargs = {"k": k, "normalize": _pick(rng, [True, False]), "sample_weight": _weights(rng, n)}
    if rng.random() < 0.5:
        return (rng.integers(0, 2, n), np.round(rng.random(n), 1)), kwargs
    scores = rng.integers(0, 3, (n, 4)).astype(np.float64)
    kwargs["labels"] = [0, 1, 2, 3]
    return (rng.integers(0, 4, n), scores), kwargs


def _likelihood(rng: np.random.Generator, n: int) -> Batch:
    kwargs = {
        "sample_weight": _weights(rng, n),
        "labels": _pick(rng, [None, [0, 1], [1, 0]]),
        "replace_undefined_by": _pick(rng, [np.nan, 1.0]),
    }
    return (rng.integers(0, 2, n), rng.integers(0, 2, n)), kwargs


def _report(rng: np.random.Generator, n: int) -> Batch:
    """Report batches; weights are quarters, so every order of their sums is exact."""
    t, p, kind = _labels(rng, n)
    kwargs: dict[str, Any] = {
        "sample_weight": _pick(rng, [None, rng.integers(1, 4, n), rng.integers(1, 9, n) / 4]),
        "digits": _pick(rng, [2, 3, 5]),
        "output_dict": _pick(rng, [False, True]),
        "zero_division": _pick(rng, _ZERO_DIVISION),
    }
    if kind in ("multiclass", "binary") and rng.random() < 0.5:
        kwargs["labels"] = [2, 0] if kind == "multiclass" else [1, 0]
        kwargs["target_names"] = _pick(rng, [None, ["two", "zero"]])
    return (t, p), kwargs


def _multilabel_scores(rng: np.random.Generator, n: int) -> Batch:
    t = rng.integers(0, 2, (n, 4))
    s = rng.integers(0, 3, (n, 4)) / 3 if rng.random() < 0.5 else rng.random((n, 4))
    return (t, s), {"sample_weight": _weights(rng, n)}


def _regression(rng: np.random.Generator, n: int, positive: bool = False) -> Batch:
    shape = (n,) if rng.random() < 0.5 else (n, 2)
    t, p = rng.normal(size=shape), rng.normal(size=shape)
    if rng.random() < 0.3:
        t = np.round(t)
        t[: n // 2] = 0.0
    if positive:
        t, p = np.abs(t), np.abs(p)
    multioutput = ["uniform_average", "raw_values", [0.3, 0.7]]
    kwargs = {"sample_weight": _weights(rng, n), "multioutput": _pick(rng, multioutput)}
    if len(shape) == 1 and not isinstance(kwargs["multioutput"], str):
        kwargs["multioutput"] = "uniform_average"
    return (t, p), kwargs


def _quantile(rng: np.random.Generator, n: int) -> Batch:
    args, kwargs = _regression(rng, n)
    kwargs["alpha"] = _pick(rng, [0.0, 0.1, 0.5, 0.9, 1.0])
    return args, kwargs


def _deviance(power: float | None) -> Callable[[np.random.Generator, int], Batch]:
    """1-D targets and predictions > 0 (every deviance's domain), with a power if given."""

    def batch(rng: np.random.Generator, n: int) -> Batch:
        t, p = np.abs(rng.normal(size=n)) + 0.5, np.abs(rng.normal(size=n)) + 0.5
        kwargs: dict[str, Any] = {"sample_weight": _weights(rng, n)}
        if power is None:
            kwargs["power"] = _pick(rng, [0.0, -1.0, 1.0, 1.5, 2.0, 3.0])
        return (t, p), kwargs

    return batch


def _r2(rng: np.random.Generator, n: int) -> Batch:
    """Regression batches; constant residuals or targets unweighted.

    scikit-learn's weighted means of a constant are not always that constant, so its
    variance of a constant can be a few ulps off zero (and its score 1e31 for -inf).
    """
    args, kwargs = _regression(rng, n)
    if n == 1:
        kwargs["sample_weight"] = None
    if rng.random() < 0.3:
        args = (np.ones_like(args[0]), args[1])
        kwargs["sample_weight"] = None
    kwargs["force_finite"] = _pick(rng, [True, False])
    if rng.random() < 0.3:
        kwargs["multioutput"] = "variance_weighted"
    return args, kwargs


def _max_error(rng: np.random.Generator, n: int) -> Batch:
    return (np.round(rng.normal(size=n), 1), np.round(rng.normal(size=n), 1)), {}


def _clustering(rng: np.random.Generator, n: int) -> Batch:
    return (rng.integers(0, 3, n), rng.integers(0, 4, n)), {}


def _dcg(rng: np.random.Generator, n: int) -> Batch:
    t = rng.integers(0, 4, (n, 5))
    ties = rng.random() < 0.6
    s = rng.integers(0, 3, (n, 5)) / 3 if ties else rng.random((n, 5))
    kwargs = {
        "k": _pick(rng, [None, 1, 3]),
        "sample_weight": _pick(rng, [None, rng.random(n) + 0.1]),
        "ignore_ties": False if ties else _pick(rng, [False, True]),
    }
    return (t, s), kwargs


BATCHES: dict[str, Callable[[np.random.Generator, int], Batch]] = {
    "accuracy_score": _plain("normalize"),
    "balanced_accuracy_score": _plain("adjusted"),
    "cohen_kappa_score": _plain("labels", "weights"),
    "confusion_matrix": _plain("labels", "cm_normalize"),
    "multilabel_confusion_matrix": _plain("samplewise"),
    "hamming_loss": _plain(),
    "zero_one_loss": _plain("normalize"),
    "matthews_corrcoef": _plain(),
    "f1_score": _prf,
    "precision_score": _prf,
    "recall_score": _prf,
    "jaccard_score": _jaccard,
    "fbeta_score": _fbeta,
    "precision_recall_fscore_support": _prfs,
    "class_likelihood_ratios": _likelihood,
    "classification_report": _report,
    "roc_curve": _curve,
    "det_curve": _curve,
    "precision_recall_curve": _curve,
    "roc_auc_score": _roc_auc,
    "average_precision_score": _average_precision,
    "log_loss": _log_loss,
    "brier_score_loss": _brier,
    "top_k_accuracy_score": _top_k,
    "coverage_error": _multilabel_scores,
    "label_ranking_average_precision_score": _multilabel_scores,
    "label_ranking_loss": _multilabel_scores,
    "mean_squared_error": _regression,
    "root_mean_squared_error": _regression,
    "mean_absolute_error": _regression,
    "median_absolute_error": _regression,
    "mean_absolute_percentage_error": _regression,
    "mean_squared_log_error": lambda rng, n: _regression(rng, n, positive=True),
    "root_mean_squared_log_error": lambda rng, n: _regression(rng, n, positive=True),
    "r2_score": _r2,
    "explained_variance_score": _r2,
    "max_error": _max_error,
    "mean_pinball_loss": _quantile,
    "d2_pinball_score": _quantile,
    "d2_absolute_error_score": _regression,
    "mean_tweedie_deviance": _deviance(None),
    "mean_poisson_deviance": _deviance(1.0),
    "mean_gamma_deviance": _deviance(2.0),
    "d2_tweedie_score": _deviance(None),
    "mutual_info_score": _clustering,
    "ndcg_score": _dcg,
    "dcg_score": _dcg,
}


# ---------------------------------------------------------------------- tests


def test_every_function_has_a_batch_and_the_names_are_sklearns() -> None:
    assert set(BATCHES) == set(compat.NAMES)
    assert set(compat.SKLEARN_NAMES) == set(reference.__all__)
    assert set(compat.NAMES) | set(compat.MISSING) == set(compat.SKLEARN_NAMES)
    assert not set(compat.NAMES) & set(compat.MISSING)


@pytest.mark.parametrize("name", sorted(compat.NAMES))
def test_names_point_at_the_scorekit_function_called(name: str) -> None:
    module, _, function = compat.NAMES[name].rpartition(".")
    assert callable(getattr(__import__(module, fromlist=[function]), function))
    assert compat.NAMES[name] in inspect.getdoc(getattr(compat, name))
    assert name in compat.__all__


def _params(function: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    out = []
    for p in inspect.signature(function).parameters.values():
        default = p.default
        if isinstance(default, float) and math.isnan(default):
            default = "nan"
        out.append((p.name, p.kind, default))
    return out


@pytest.mark.parametrize("name", sorted(compat.NAMES))
def test_signature_is_sklearns(name: str) -> None:
    assert _params(getattr(compat, name)) == _params(getattr(reference, name))


@pytest.mark.parametrize("name", sorted(compat.NAMES))
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25))
def test_same_results_as_sklearn(name: str, seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(3):
        args, kwargs = BATCHES[name](rng, n)
        _compare(name, args, kwargs)


# --------------------------------------------------------------- edge cases

EDGES: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("f1_score", ([1, 1, 1], [1, 1, 1]), {}),
    ("f1_score", ([0, 0, 0], [0, 0, 0]), {"zero_division": 1}),
    ("precision_score", ([0, 1, 2], [0, 0, 0]), {"average": "macro", "labels": [5]}),
    ("recall_score", ([0, 1, 2], [0, 1, 1]), {"average": "binary"}),
    ("f1_score", ([[1, 0], [0, 1]], [[1, 0], [0, 1]]), {"average": "binary"}),
    ("jaccard_score", ([0, 1, 2], [0, 1, 1]), {"average": "samples"}),
    ("jaccard_score", ([2, 2, 2], [3, 3, 3]), {"pos_label": 1}),
    ("jaccard_score", ([0, 0], [0, 0]), {"zero_division": 1}),
    ("roc_auc_score", ([1, 1, 1], [0.2, 0.4, 0.4]), {}),
    ("roc_auc_score", ([0, 1, 2], [0.2, 0.4, 0.4]), {}),
    ("roc_auc_score", ([0, 1, 1, 0], [0.5, 0.5, 0.5, 0.5]), {"max_fpr": 0.3}),
    ("average_precision_score", ([0, 0, 0], [0.1, 0.2, 0.2]), {}),
    ("roc_curve", ([0, 1, 1, 0], [0.3, 0.3, 0.3, 0.3]), {}),
    ("precision_recall_curve", ([0, 1, 1, 0], [0.3, 0.3, 0.7, 0.7]), {}),
    ("log_loss", ([0, 0, 0], [0.1, 0.2, 0.3]), {}),
    ("log_loss", ([0, 0, 0], [0.1, 0.2, 0.3]), {"labels": [0, 1]}),
    ("log_loss", ([0, 1], [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]]), {}),
    ("confusion_matrix", ([0, 1], [0, 1]), {"labels": []}),
    ("confusion_matrix", ([0, 1], [0, 1]), {"labels": [7, 8]}),
    ("cohen_kappa_score", ([1, 1], [1, 1]), {}),
    ("matthews_corrcoef", ([1, 1, 1], [1, 1, 1]), {}),
    ("balanced_accuracy_score", ([0, 0, 1], [0, 1, 1]), {"adjusted": True}),
    ("top_k_accuracy_score", ([0, 1, 2], [[0.5, 0.5, 0.0]] * 3), {"k": 1}),
    ("top_k_accuracy_score", ([0, 1, 3], [[0.5, 0.3, 0.2]] * 3), {"k": 2}),
    ("multilabel_confusion_matrix", ([0, 1, 2], [0, 1, 1]), {"samplewise": True}),
    ("multilabel_confusion_matrix", ([[1, 0], [0, 1]], [[1, 0], [0, 1]]), {"labels": [5]}),
    ("mean_squared_log_error", ([-2.0, 1.0], [1.0, 1.0]), {}),
    ("mean_absolute_percentage_error", ([0.0, 0.0], [1.0, 0.0]), {}),
    ("r2_score", ([1.0], [1.0]), {}),
    ("r2_score", ([2.0, 2.0], [2.0, 2.0]), {"force_finite": False}),
    ("max_error", ([[1.0, 2.0]], [[1.0, 2.0]]), {}),
    ("mean_squared_error", ([1.0, 2.0], [1.0]), {}),
    ("ndcg_score", ([[0, 0, 0]], [[0.1, 0.2, 0.3]]), {}),
    ("ndcg_score", ([[1]], [[0.1]]), {}),
    ("ndcg_score", ([[1, -1, 0]], [[0.1, 0.2, 0.3]]), {}),
    ("ndcg_score", ([1, 0, 2], [0.1, 0.2, 0.3]), {}),
    ("dcg_score", ([[1, 2, 2]], [[0.3, 0.3, 0.3]]), {"k": 2}),
    ("coverage_error", ([[0, 0, 0], [1, 0, 1]], [[0.1, 0.1, 0.1], [0.2, 0.2, 0.1]]), {}),
    ("label_ranking_loss", ([[0, 0, 0], [1, 1, 1]], [[0.1, 0.5, 0.1], [0.2, 0.2, 0.1]]), {}),
    ("mutual_info_score", ([0, 0, 0], [1, 1, 1]), {}),
    ("mutual_info_score", ([0, 1, 0, 1], [1, 1, 0, 0]), {}),
    ("classification_report", ([0, 1, 2], [0, 1, 1]), {"labels": [0, 1, 2, 3]}),
    ("classification_report", ([0, 1], [0, 1]), {"target_names": ["a"]}),
    ("classification_report", (["b", "a"], ["a", "a"]), {"zero_division": 0}),
    ("class_likelihood_ratios", ([0, 0, 0], [0, 0, 1]), {}),
    *[
        (name, (np.zeros((0, 3), dtype=int), np.zeros((0, 3), dtype=int)), {})
        for name in ("accuracy_score", "zero_one_loss", "classification_report")
    ],
    ("precision_recall_fscore_support", (np.zeros((0, 3)), np.zeros((0, 3))), {}),
    ("multilabel_confusion_matrix", ([], []), {}),
    ("f1_score", ([], []), {}),
    ("mean_squared_error", ([], []), {}),
    ("roc_auc_score", ([], []), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), EDGES)
def test_edge_cases_match_sklearn(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    _compare(name, args, kwargs)


def test_classification_report_text_is_sklearns() -> None:
    rng = np.random.default_rng(7)
    t, p = _STRINGS[rng.integers(0, 3, 200)], _STRINGS[rng.integers(0, 3, 200)]
    w = rng.integers(1, 9, 200) / 4
    for kwargs in ({}, {"digits": 4, "sample_weight": w}, {"labels": ["cat", "bee"]}):
        text = compat.classification_report(t, p, **kwargs)
        assert text == reference.classification_report(t, p, **kwargs)
        report = compat.classification_report(t, p, output_dict=True, **kwargs)
        _assert_same(report, reference.classification_report(t, p, output_dict=True, **kwargs))


def test_support_is_an_integer_array_without_weights() -> None:
    *_, support = compat.precision_recall_fscore_support([0, 1, 1], [0, 1, 0])
    assert support.dtype == np.int64
    *_, support = compat.precision_recall_fscore_support([0, 1, 1], [0, 1, 0], average="macro")
    assert support is None


def test_warn_for_keeps_the_warnings_of_the_measures_named() -> None:
    args = ([0, 1, 1], [0, 0, 0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compat.precision_recall_fscore_support(*args, warn_for=("recall",))
    assert caught == []
    with pytest.warns(UserWarning, match="precision is ill-defined"):
        compat.precision_recall_fscore_support(*args, warn_for=("precision",))
    with pytest.raises(ConfigError, match="precision_recall_fscore_support: unknown warn_for"):
        compat.precision_recall_fscore_support(*args, warn_for=("accuracy",))


def _saturated_proba(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    """Probabilities with many exact 0s and 1s: 1-D for k == 1, else rows of k classes."""
    if k == 1:
        return rng.choice([0.0, 1.0, 1e-9, 1 - 1e-9, rng.random()], n)
    rows = rng.dirichlet(np.ones(k), n)
    rows[rng.random((n, k)) < 0.4] = 0.0
    one_hot = np.eye(k)[rng.integers(0, k, n)]
    rows = np.where((rows.sum(axis=1) == 0)[:, None] | (rng.random((n, 1)) < 0.4), one_hot, rows)
    return rows / rows.sum(axis=1, keepdims=True)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 40),
    st.sampled_from([1, 2, 3, 5]),
    st.sampled_from([np.float16, np.float32, np.float64]),
    st.booleans(),
)
def test_log_loss_clips_at_the_input_dtype_epsilon_as_sklearn(
    seed: int, n: int, k: int, dtype: Any, weighted: bool
) -> None:
    rng = np.random.default_rng(seed)
    if dtype is np.float16:
        # rows of several float16 values rarely sum to 1 within scorekit's tolerance
        k = 1
    proba = _saturated_proba(rng, n, k).astype(dtype)
    t = rng.integers(0, max(k, 2), n)
    kwargs = {
        "labels": list(range(max(k, 2))),
        "sample_weight": _weights(rng, n) if weighted else None,
    }
    expected = reference.log_loss(t, proba, **kwargs)
    got = compat.log_loss(t, proba, **kwargs)
    # scikit-learn takes the logarithms in the input's dtype, scorekit in float64
    rel = {np.float16: 4e-3, np.float32: 1e-5, np.float64: 1e-12}[dtype]
    assert got == pytest.approx(expected, rel=rel)


def test_log_loss_of_float32_zeros_and_ones_is_sklearn_s() -> None:
    t = [0, 1, 1, 0]
    p32 = np.array([0, 0.2, 0.9, 1], dtype=np.float32)
    p64 = p32.astype(np.float64)
    # scikit-learn 1.9: float32 clipped at float32's epsilon, float64 at float64's.
    assert reference.log_loss(t, p32) == pytest.approx(4.41430, abs=1e-5)
    assert reference.log_loss(t, p64) == pytest.approx(9.43961, abs=1e-5)
    assert compat.log_loss(t, p32) == pytest.approx(reference.log_loss(t, p32), rel=1e-6)
    assert compat.log_loss(t, p64) == pytest.approx(reference.log_loss(t, p64), rel=1e-12)
    columns = np.stack([1 - p32, p32], axis=1)
    assert compat.log_loss(t, columns) == pytest.approx(reference.log_loss(t, columns), rel=1e-6)
    pd = pytest.importorskip("pandas")
    assert compat.log_loss(t, pd.Series(p32)) == compat.log_loss(t, p32)
    assert compat.log_loss(t, pd.DataFrame(columns)) == compat.log_loss(t, columns)
    # a list of float32 values is float64 to scikit-learn
    assert compat.log_loss(t, list(p32)) == pytest.approx(reference.log_loss(t, list(p32)))
    # the scorekit function keeps its float64 clip
    assert C.log_loss(t, p32) == pytest.approx(reference.log_loss(t, p64), rel=1e-12)
    with pytest.raises(InputError, match="values <= 1"):
        compat.log_loss(t, np.array([0, 0.2, 1.5, 1], dtype=np.float32))


def test_log_loss_of_float16_zeros_and_ones_is_sklearn_s() -> None:
    t = [0, 1, 1, 0]
    p16 = np.array([0, 0.2, 0.9, 1], dtype=np.float16)
    # scikit-learn 1.9 clips float16 at float16's epsilon (about 9.8e-4)
    expected = reference.log_loss(t, p16)
    assert expected == pytest.approx(2.1621, abs=2e-3)
    assert compat.log_loss(t, p16) == pytest.approx(expected, rel=2e-3)
    columns = np.stack([1 - p16, p16], axis=1)
    assert compat.log_loss(t, columns) == pytest.approx(reference.log_loss(t, columns), rel=2e-3)
    # the scorekit function keeps its float64 clip
    assert C.log_loss(t, p16) == pytest.approx(reference.log_loss(t, p16.astype(float)), rel=1e-12)


def test_log_loss_takes_the_deprecated_y_pred() -> None:
    t, proba = [0, 1, 1], [0.2, 0.7, 0.6]
    with pytest.warns(FutureWarning, match="y_proba"):
        value = compat.log_loss(t, y_pred=proba)
    assert value == pytest.approx(reference.log_loss(t, proba), rel=1e-12)
    with pytest.raises(ConfigError, match="log_loss: both y_pred and y_proba"):
        compat.log_loss(t, proba, y_pred=proba)
    with pytest.raises(ConfigError, match="log_loss: missing y_proba"):
        compat.log_loss(t)


@pytest.mark.parametrize(
    ("call", "pattern"),
    [
        (lambda: compat.dcg_score([[1, 0]], [[0.1, 0.2]], log_base=10), "dcg_score: .*log_base"),
        (lambda: compat.dcg_score([[1, -1]], [[0.1, 0.2]]), "dcg_score: negative relevance"),
        (
            lambda: compat.mutual_info_score([0, 1], [0, 1], contingency=np.eye(2)),
            "mutual_info_score: contingency",
        ),
        (
            lambda: compat.jaccard_score([[1, 0]], [[1, 1]], average="binary"),
            "jaccard_score: average='binary'",
        ),
        (
            lambda: compat.jaccard_score([0, 1, 2], [0, 1, 2], average="samples"),
            "jaccard_score: average='samples'",
        ),
        (
            lambda: compat.multilabel_confusion_matrix([0, 1], [0, 1], samplewise=True),
            "multilabel_confusion_matrix: samplewise",
        ),
        (
            lambda: compat.multilabel_confusion_matrix([[1, 0]], [[1, 1]], labels=[3]),
            "multilabel_confusion_matrix: multi-label labels",
        ),
        (lambda: compat.ndcg_score([[1]], [[0.1]]), "ndcg_score: ranking needs more than one"),
    ],
)
def test_values_scorekit_cannot_take_raise_a_named_error(
    call: Callable[[], Any], pattern: str
) -> None:
    with pytest.raises((ConfigError, InputError), match=pattern):
        call()


@pytest.mark.parametrize("name", compat.MISSING)
def test_missing_functions_raise_naming_them(name: str) -> None:
    with pytest.raises(compat.MissingFunctionError, match=rf"sklearn\.metrics\.{name} is not"):
        getattr(compat, name)
    with pytest.raises(ImportError, match=rf"sklearn\.metrics\.{name} is not"):
        exec(f"from scorekit.compat.sklearn import {name}", {})
    assert name not in dir(compat)


def test_unknown_names_are_attribute_errors() -> None:
    assert not hasattr(compat, "no_such_score")
    with pytest.raises(ImportError, match="cannot import name"):
        exec("from scorekit.compat.sklearn import no_such_score", {})


def test_neither_scorekit_nor_the_drop_in_module_imports_sklearn() -> None:
    code = (
        "import sys, scorekit; assert 'scorekit.compat' not in sys.modules; "
        "import scorekit.compat.sklearn as m; m.f1_score([0, 1], [0, 1]); "
        "print('sklearn' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
