"""The metric core: registry, metric names, state merging and serialisation, import cost."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import scorekit
from scorekit.classification import F1, ConfusionCounts
from scorekit.core import State, available, get, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, message


def test_import_is_light():
    code = (
        "import sys, scorekit; "
        "bad = [m for m in ('pyarrow', 'pandas', 'sklearn', 'scipy', 'dask', 'numba', "
        "'matplotlib', 'jinja2') "
        "if m in sys.modules]; print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_registry_lists_every_family_with_metadata():
    names = {info.name for info in available()}
    assert {"accuracy", "f1", "precision", "recall", "confusion_matrix", "mcc"} <= names
    info = get("matthews_corrcoef")
    assert info.name == "mcc" and info.higher_is_better is True and info.bounds == (-1.0, 1.0)


def test_parse_metric_grammar():
    m = parse_metric("f1:weighted")
    assert isinstance(m, F1) and m.average == "weighted"
    assert parse_metric(m) is m
    assert parse_metric("fbeta:macro", beta=2.0).beta == 2.0
    assert parse_metric("cohen_kappa:quadratic").weights == "quadratic"
    with pytest.raises(ConfigError, match=r"close: .*\bf1\b"):
        parse_metric("f2")
    with pytest.raises(ConfigError, match="invalid option"):
        parse_metric("accuracy", bogus=1)
    with pytest.raises(ConfigError, match="metric must be a name"):
        parse_metric(3)  # type: ignore[arg-type]


def test_parse_metric_options_after_the_colon():
    m = parse_metric("f1:macro,zero_division=1")
    assert (m.average, m.zero_division) == ("macro", 1)
    edges = parse_metric("roc_auc:bins=64").edges
    assert edges is not None and len(edges) == 65 and (edges[0], edges[-1]) == (0.0, 1.0)
    medae = parse_metric("medae:relative_accuracy=0.01")
    assert medae.relative_accuracy == 0.01 and medae.multioutput == "uniform_average"
    assert parse_metric("fbeta:beta=0.5,average=micro").beta == 0.5
    assert parse_metric("roc_auc:max_fpr=none").max_fpr is None
    # values: integers, floats, booleans, none, else words
    assert parse_metric("r2:force_finite=false").force_finite is False
    # free-text variants keep the whole text
    assert parse_metric("goodput:ttft=200ms,tpot=50ms").slo == "ttft=200ms,tpot=50ms"
    with pytest.raises(ConfigError, match="unknown option; got 'bogus', expected one of"):
        parse_metric("f1:macro,bogus=1")
    with pytest.raises(ConfigError, match="average given twice"):
        parse_metric("f1:macro,micro")
    with pytest.raises(ConfigError, match="option 'beta' given twice"):
        parse_metric("fbeta:beta=1,beta=2")
    with pytest.raises(ConfigError, match="takes no :variant"):
        parse_metric("accuracy:macro")
    # a bracketed list is one value, of the items' own types
    assert parse_metric("roc_auc:cuts=[0.25, 0.5],max_fpr=1").cuts == (0.25, 0.5)
    assert parse_metric("roc_auc:edges=[0,0.5,1]").edges == (0.0, 0.5, 1.0)
    assert parse_metric("roc_curve:pos_label=1,cuts=[]").cuts == ()
    with pytest.raises(ConfigError, match=r"unbalanced brackets in an option; got 'cuts=\[0.2'"):
        parse_metric("roc_auc:cuts=[0.2")
    with pytest.raises(ConfigError, match="unbalanced brackets"):
        parse_metric("roc_auc:cuts=0.2],ranges=2")
    with pytest.raises(ConfigError, match="unknown average; got 'nope'"):
        parse_metric("f1:nope")


def test_message_form():
    assert message("f1", "bad", 3, "an int") == "f1: bad; got 3, expected an int."
    assert message("f1", "bad") == "f1: bad."


def test_state_json_is_exact_and_checked():
    m = F1(average="macro")
    state = m.summarize(["a", "b", "b"], ["a", "a", "b"], sample_weight=[0.1, 0.2, 1 / 3])
    again = State.from_json(state.to_json())
    assert again.equals(state)
    assert again.matrix.dtype == np.float64 and again.labels.tolist() == ["a", "b"]
    data = state.to_dict()
    with pytest.raises(StateMismatchError, match="unsupported state format"):
        State.from_dict({**data, "format": 99})
    with pytest.raises(InputError, match="unknown state kind"):
        State.from_dict({**data, "scorekit_state": "Nope"})
    with pytest.raises(InputError, match="state fields do not match"):
        State.from_dict({**data, "fields": {"labels": data["fields"]["labels"]}})
    with pytest.raises(InputError, match="invalid JSON"):
        State.from_json('{"scorekit_state": ')
    with pytest.raises(InputError, match="not a scorekit state"):
        State.from_dict([1, 2])  # type: ignore[arg-type]


def test_same_rule_refuses_different_settings():
    from dataclasses import dataclass

    from scorekit.core import state_field

    @dataclass(frozen=True, eq=False)
    class Toy(State):
        k: int = state_field("same")
        total: int = state_field("sum")
        low: float = state_field("min")
        items: tuple[int, ...] = state_field("concat")

    a = Toy(k=5, total=2, low=0.5, items=(1,))
    b = Toy(k=5, total=3, low=0.25, items=(2,))
    merged = a.merge(b)
    assert (merged.total, merged.low, merged.items) == (5, 0.25, (1, 2))
    with pytest.raises(StateMismatchError, match="different 'k'; got 6, expected 5"):
        a.merge(Toy(k=6, total=0, low=1.0, items=()))
    with pytest.raises(ConfigError, match="unknown merge rule"):
        state_field("mean")


def test_empty_state_is_identity_for_both_tasks():
    m = F1(average="micro")
    single = m.summarize([0, 1, 1], [0, 1, 0])
    multi = m.summarize([[0, 1], [1, 1]], [[0, 1], [1, 0]])
    for s in (single, multi):
        assert ConfusionCounts.empty().merge(s).equals(s)
        assert s.merge(ConfusionCounts.empty()).equals(s)


def test_lazy_submodules():
    assert scorekit.classification.accuracy([1], [1]) == 1.0
    with pytest.raises(AttributeError):
        scorekit.nonexistent  # noqa: B018


def test_integers_too_large_for_64_bits_are_an_input_error() -> None:
    from scorekit.classification import accuracy
    from scorekit.errors import InputError
    from scorekit.regression import mse

    with pytest.raises(InputError, match=r"mse: y_true has an integer too large for 64 bits"):
        mse([2**70, 1], [1, 1])
    with pytest.raises(InputError, match=r"accuracy: y_true has an integer too large"):
        accuracy([2**70, 1], [1, 1])
