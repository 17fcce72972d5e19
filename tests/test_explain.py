"""``scorekit explain``: an entry and a computed worked example for every metric configuration."""

from __future__ import annotations

import math
import re
import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
import sklearn.metrics as skm
from scipy.stats import entropy as scipy_entropy

from scorekit.core import INPUT_KINDS, Explanation, available, get, parse_metric
from scorekit.explain import (
    EXAMPLES,
    EXPLANATIONS,
    example_args,
    example_data,
    explain,
    explanation_for,
)

NAMES = [pytest.param(info.name, id=info.name) for info in available()]
SPECS = [
    pytest.param(spec, id=spec)
    for info in available()
    for spec in [info.name, *(f"{info.name}:{v}" for v in info.variants)]
]


def _shown(out: str) -> str:
    """The value line of the worked example, without its arrow."""
    lines = [line for line in out.splitlines() if line.startswith("  -> ")]
    assert len(lines) == 1, out
    return lines[0].removeprefix("  -> ")


def _score(spec: str) -> Any:
    metric = parse_metric(spec)
    data = example_data(metric)
    assert data is not None, spec
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return metric.score(*example_args(data))


# every metric has an entry ---------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_metric_has_an_explanation(name: str) -> None:
    assert name in EXPLANATIONS, f"give the class of {name!r} an explanation class attribute"
    out = explain(name)
    assert "Description (from the docstring)" not in out
    for field in ("definition", "formula", "convention", "reference"):
        assert getattr(EXPLANATIONS[name], field).strip(), (name, field)


def test_every_explanation_names_a_registered_metric() -> None:
    registered = {info.name for info in available()}
    assert set(EXPLANATIONS) <= registered, set(EXPLANATIONS) - registered


def test_each_metric_class_carries_its_own_explanation() -> None:
    for info in available():
        entry = vars(info.cls).get("explanation")
        assert isinstance(entry, Explanation), info.name
        assert explanation_for(info) is entry is explanation_for(info.name)
    assert len(EXPLANATIONS) == len(available())


def test_an_inherited_explanation_does_not_count(monkeypatch: pytest.MonkeyPatch) -> None:
    from scorekit.regression import RMSLE

    monkeypatch.delattr(RMSLE, "explanation")
    assert explanation_for(get("rmsle")) is None
    assert "rmsle" not in EXPLANATIONS
    assert "Description (from the docstring)" in explain("rmsle")


def test_an_alias_finds_the_entry_of_its_metric() -> None:
    assert explanation_for(get("mean_squared_error")) is EXPLANATIONS["mse"]
    assert explain("r2_score").startswith("r2: ")


# worked examples --------------------------------------------------------------------------


@pytest.mark.parametrize("spec", SPECS)
def test_every_configuration_computes_its_worked_example(spec: str) -> None:
    out = explain(spec)
    assert "Worked example (computed by scorekit now)" in out
    assert "none for input kind" not in out
    assert f"parse_metric({spec!r}).score(" in out
    assert "-> error" not in out
    value = _score(spec)
    if isinstance(value, float | np.floating):
        assert _shown(out) == repr(float(value))


def test_every_input_kind_has_example_data() -> None:
    assert set(INPUT_KINDS) <= set(EXAMPLES)
    for key in EXAMPLES:
        kind, _, feature = key.partition(":")
        assert kind in INPUT_KINDS, key
        if feature:
            assert any(
                info.inputs == kind and info.variant == "feature" and feature in info.variants
                for info in available()
            ), key


@pytest.mark.parametrize("name", [info.name for info in available() if "numeric" in info.variants])
def test_numeric_features_get_numbers_and_categorical_ones_get_labels(name: str) -> None:
    numeric = example_data(parse_metric(f"{name}:numeric"))
    categorical = example_data(parse_metric(name))
    assert numeric is not None and categorical is not None
    assert np.asarray(numeric["x"]).dtype.kind in "iuf"
    assert np.asarray(categorical["x"]).dtype.kind == "U"
    assert numeric["y"] == categorical["y"]


def test_the_arguments_are_named_as_in_summarize() -> None:
    assert list(example_data(parse_metric("entropy")) or {}) == ["y"]
    assert list(example_data(parse_metric("gini_gain")) or {}) == ["x", "y"]
    assert list(example_data(parse_metric("msle")) or {}) == ["y_true", "y_pred"]
    assert "parse_metric('information_gain').score(x, y)" in explain("information_gain")
    assert "parse_metric('entropy').score(y)" in explain("entropy")


def test_an_input_kind_without_data_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(EXAMPLES, "target")
    out = explain("gini_impurity")
    assert "none for input kind 'target'" in out
    assert "-> " not in out


def test_the_worked_example_shows_its_warnings_under_the_value_and_raises_none() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = explain("map:relevance_level=5")
        plain = explain("map")
    lines = out.splitlines()
    shown = [line for line in lines if line.startswith("  (warning: ")]
    assert shown == [
        "  (warning: map: 2 of 2 queries have no relevant document (grade >= 5); they count "
        "as 0, as in trec_eval.)"
    ]
    assert lines[lines.index(shown[0]) - 1] == "  -> 0.0"
    assert "(warning: " not in plain


def test_long_example_data_wraps_and_reads_back() -> None:
    out = explain("information_gain")
    lines = out.splitlines()
    start = lines.index("Worked example (computed by scorekit now)") + 1
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("  parse_metric("))
    block = lines[start:end]
    assert len(block) > 2 and all(len(line) <= 88 for line in block)
    text = " ".join(line.strip() for line in block)
    data = example_data(parse_metric("information_gain"))
    assert data is not None
    assert text == f"x = {data['x']} y = {data['y']}"


# the numbers agree with the references -----------------------------------------------------


def test_play_tennis_shows_the_textbook_values() -> None:
    assert re.search(r"-> 0\.2467\d*$", explain("information_gain"), re.MULTILINE)
    assert re.search(r"-> 0\.9402\d*$", explain("entropy"), re.MULTILINE)
    data = EXAMPLES["feature_target"]
    in_bits = skm.mutual_info_score(data["x"], data["y"]) / math.log(2)
    assert float(_shown(explain("information_gain"))) == pytest.approx(in_bits, rel=1e-12)
    assert float(_shown(explain("mutual_information"))) == pytest.approx(
        skm.mutual_info_score(*EXAMPLES["labels"].values()) / math.log(2), rel=1e-12
    )
    counts = list(Counter(EXAMPLES["target"]["y"]).values())
    assert float(_shown(explain("entropy"))) == pytest.approx(
        scipy_entropy(counts, base=2), rel=1e-12
    )


REGRESSION = [
    ("mse", skm.mean_squared_error, {}),
    ("rmse", skm.root_mean_squared_error, {}),
    ("mae", skm.mean_absolute_error, {}),
    ("medae", skm.median_absolute_error, {}),
    ("mape", skm.mean_absolute_percentage_error, {}),
    ("r2", skm.r2_score, {}),
    ("explained_variance", skm.explained_variance_score, {}),
    ("max_error", skm.max_error, {}),
    ("msle", skm.mean_squared_log_error, {}),
    ("rmsle", skm.root_mean_squared_log_error, {}),
    ("r2:variance_weighted", skm.r2_score, {"multioutput": "variance_weighted"}),
    (
        "explained_variance:variance_weighted",
        skm.explained_variance_score,
        {"multioutput": "variance_weighted"},
    ),
    ("mae:raw_values", skm.mean_absolute_error, {"multioutput": "raw_values"}),
]


@pytest.mark.parametrize(
    ("spec", "reference", "options"), REGRESSION, ids=[r[0] for r in REGRESSION]
)
def test_regression_examples_match_sklearn(
    spec: str, reference: Any, options: dict[str, Any]
) -> None:
    data = example_data(parse_metric(spec))
    assert data is not None
    expected = reference(data["y_true"], data["y_pred"], **options)
    out = explain(spec)
    if np.ndim(expected) == 0:
        assert float(_shown(out)) == pytest.approx(expected, rel=1e-12)
    else:
        np.testing.assert_allclose(_score(spec), expected, rtol=1e-12)
        with np.printoptions(precision=4, suppress=True):
            assert _shown(out) == np.array2string(np.asarray(expected), prefix="  -> ")
