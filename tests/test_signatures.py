"""Every functional wrapper takes the options of its metric class, with the same defaults.

A wrapper is a public function of a family package that builds exactly one
registered metric class of that package (``f1(...)`` builds ``F1(...)``). Its
keyword-only parameters, apart from the data arguments (those of the class's
``summarize``, such as ``sample_weight``), must be the class's dataclass fields,
with equal defaults. The pairs are found from the registry, so a new metric and
its function are checked without an entry here.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import math
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from scorekit.core import available

# (package, function): why its signature differs from its class's fields on purpose.
KNOWN_DIFFERENCES = {
    # scikit-learn's fbeta_score requires beta; FBeta() defaults to beta=1 so that
    # the metric string "fbeta" alone is F1.
    ("scorekit.classification", "fbeta"): "beta has no default",
    # not one metric: precision, recall, F and support at once, with
    # scikit-learn's default average=None (per class)
    ("scorekit.classification", "precision_recall_fscore_support"): "four results",
    # the functions also take a probability vector (kind="distribution",
    # normalize); the classes score a column of labels
    ("scorekit.information", "entropy"): "also a distribution",
    ("scorekit.information", "gini_impurity"): "also a distribution",
    # array functions on (y_true, y_score, group) with ties and per_group, as
    # scikit-learn's; the classes score qrels and a run (relevance_level, missing)
    ("scorekit.ranking", "dcg"): "arrays, not qrels and a run",
    ("scorekit.ranking", "ndcg"): "arrays, not qrels and a run",
    ("scorekit.ranking", "map"): "arrays, not qrels and a run",
    ("scorekit.ranking", "mrr"): "arrays, not qrels and a run",
    ("scorekit.ranking", "precision_at"): "arrays, not qrels and a run",
    # not a metric: trec_eval's relstring of each query, read with NumRet's judgments
    ("scorekit.ranking", "relstrings"): "strings, not a measure",
    # per_sample adds each item's scores to the result; a metric keeps only sums
    ("scorekit.text", "rouge"): "per_sample",
    # every objective in one positional argument (text, list of texts or a
    # mapping, as --slo); the class has a field per objective and the text form
    ("scorekit.throughput", "goodput"): "objectives in one argument",
}


def _packages() -> list[str]:
    """The family packages, and the public packages inside them, that hold registered metrics."""
    found: set[str] = set()
    for info in available():
        parts = info.cls.__module__.split(".")
        for end in range(2, len(parts) + 1):
            if parts[end - 1].startswith("_"):
                break
            found.add(".".join(parts[:end]))
    found.discard("scorekit")
    return sorted(found)


def _registered_classes() -> set[type]:
    return {info.cls for info in available()}


def _built_classes(fn: Callable[..., Any], package: str, classes: set[type]) -> set[type]:
    """The registered classes of ``package`` that ``fn`` refers to by a global name."""
    found = set()
    for name in fn.__code__.co_names:
        value = fn.__globals__.get(name)
        if (
            isinstance(value, type)
            and value in classes
            and (value.__module__ == package or value.__module__.startswith(package + "."))
        ):
            found.add(value)
    return found


def _pairs() -> Iterator[tuple[str, str, Callable[..., Any], type]]:
    classes = _registered_classes()
    seen: set[Any] = set()
    for package in _packages():
        module = importlib.import_module(package)
        for name in getattr(module, "__all__", []):
            fn = getattr(module, name)
            if not inspect.isfunction(fn) or fn in seen:
                continue
            built = _built_classes(fn, package, classes)
            if len(built) == 1:
                seen.add(fn)
                yield package, name, fn, built.pop()


PAIRS = list(_pairs())


def _options(fn: Callable[..., Any], cls: type) -> dict[str, Any]:
    """The wrapper's keyword-only parameters and their defaults, without the data arguments."""
    data = set(inspect.signature(cls.summarize).parameters) - {"self"}
    return {
        p.name: p.default
        for p in inspect.signature(fn).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY and p.name not in data
    }


def _fields(cls: type) -> dict[str, Any]:
    """The class's init fields and their defaults (``inspect.Parameter.empty`` when required)."""
    out = {}
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
        else:
            out[f.name] = inspect.Parameter.empty
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal defaults, NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a is b or a == b)


def test_wrappers_are_found_in_every_family() -> None:
    families = {package.split(".")[1] for package, *_ in PAIRS}
    assert families >= {
        "classification",
        "information",
        "multilabel",
        "qa",
        "ranking",
        "regression",
        "text",
        "throughput",
    }
    assert len(PAIRS) >= 50
    names = {(package, name) for package, name, *_ in PAIRS}
    assert ("scorekit.text", "bleu") in names
    assert ("scorekit.qa", "f1") in names
    assert ("scorekit.classification", "error_rate") in names


def test_every_known_difference_is_a_wrapper_that_differs() -> None:
    found = {(package, name): (fn, cls) for package, name, fn, cls in PAIRS}
    for key in KNOWN_DIFFERENCES:
        assert key in found, f"{key} is no longer a wrapper; remove it from KNOWN_DIFFERENCES"
        fn, cls = found[key]
        options, fields = _options(fn, cls), _fields(cls)
        agree = options.keys() == fields.keys() and all(
            _same(options[k], fields[k]) for k in fields
        )
        assert not agree, f"{key} now agrees with {cls.__name__}; remove it"


@pytest.mark.parametrize(
    ("package", "name", "fn", "cls"),
    [p for p in PAIRS if (p[0], p[1]) not in KNOWN_DIFFERENCES],
    ids=[f"{p[0]}.{p[1]}" for p in PAIRS if (p[0], p[1]) not in KNOWN_DIFFERENCES],
)
def test_wrapper_takes_the_fields_of_its_class(
    package: str, name: str, fn: Callable[..., Any], cls: type
) -> None:
    options = _options(fn, cls)
    fields = _fields(cls)
    assert set(options) == set(fields), (
        f"{package}.{name} takes {sorted(options)}; {cls.__name__} has {sorted(fields)}"
    )
    differ = {k: (options[k], fields[k]) for k in fields if not _same(options[k], fields[k])}
    assert not differ, f"{package}.{name}: defaults differ from {cls.__name__}'s: {differ}"
