"""Plain-text explanations of metrics: what ``scorekit explain NAME`` prints.

Each registered metric class carries an :class:`~scorekit.core.Explanation` as
its ``explanation`` class attribute, next to its docstring: the definition, the
formula in plain text, the convention scorekit follows where the literature
differs, and the reference implementation it agrees with. :func:`explain`
renders it together with the registry metadata and a worked example that is
computed by calling the metric on the data of :data:`EXAMPLES`, so the number
shown is always what the code gives. A metric class without an explanation
falls back to its docstring.
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np

from scorekit.core import (
    INPUT_KINDS,
    Explanation,
    Metric,
    MetricInfo,
    available,
    caught,
    get,
    parse_metric,
)
from scorekit.errors import ScorekitError

__all__ = [
    "EXAMPLES",
    "EXPLANATIONS",
    "Explanation",
    "bound_text",
    "example_args",
    "example_data",
    "explain",
    "explanation_for",
]


def explanation_for(metric: MetricInfo | str) -> Explanation | None:
    """The explanation of a registered metric, or None when its class carries none.

    Parameters
    ----------
    metric : MetricInfo or str
        A registry entry, or a registered name or alias (without ``@k`` or ``:variant``).

    Returns
    -------
    Explanation or None
        The ``explanation`` attribute defined on the metric's own class (never
        one inherited from a parent class).

    Examples
    --------
    >>> explanation_for("mean_squared_error").formula
    'MSE = sum_i w_i (y_i - yhat_i)^2 / sum_i w_i   (w_i = 1 unweighted)'
    >>> explanation_for("f1") is explanation_for(get("f1"))
    True
    """
    info = get(metric) if isinstance(metric, str) else metric
    entry = vars(info.cls).get("explanation")
    return entry if isinstance(entry, Explanation) else None


class _Explanations(Mapping[str, Explanation]):
    """Registered metric name -> the explanation its class carries, read on each access."""

    def _entries(self) -> dict[str, Explanation]:
        out: dict[str, Explanation] = {}
        for info in available():
            entry = explanation_for(info)
            if entry is not None:
                out[info.name] = entry
        return out

    def __getitem__(self, name: str) -> Explanation:
        return self._entries()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries())

    def __len__(self) -> int:
        return len(self._entries())


EXPLANATIONS: Mapping[str, Explanation] = _Explanations()
"""Per registered metric name: its explanation, a read-only view of the metric classes."""


_MULTILABEL_TRUE = [[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]]
# Quinlan's play-tennis days: outlook, humidity (%) and whether tennis was played
_OUTLOOK = [
    "sunny", "sunny", "overcast", "rain", "rain", "rain", "overcast",
    "sunny", "sunny", "rain", "sunny", "overcast", "overcast", "rain",
]  # fmt: skip
_HUMIDITY = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]
_PLAY = [
    "no", "no", "yes", "yes", "yes", "no", "yes",
    "no", "yes", "yes", "yes", "yes", "yes", "no",
]  # fmt: skip
_PROBA = [
    [0.7, 0.2, 0.1],
    [0.2, 0.5, 0.3],
    [0.1, 0.3, 0.6],
    [0.3, 0.3, 0.4],
    [0.1, 0.8, 0.1],
    [0.4, 0.4, 0.2],
]

_REQUESTS: list[dict[str, object]] = [
    {"prompt_tokens": 120, "output_tokens": 4, "start": 0.0, "first_token": 0.2, "end": 0.5,
     "token_times": [0.2, 0.3, 0.4, 0.5]},
    {"prompt_tokens": 80, "output_tokens": 3, "start": 0.3, "first_token": 0.7, "end": 1.1,
     "token_times": [0.7, 0.8, 1.1]},
    {"prompt_tokens": 50, "output_tokens": 0, "start": 0.6, "end": 2.0, "success": False,
     "error": "timeout"},
]  # fmt: skip

EXAMPLES: dict[str, dict[str, Any]] = {
    "binary_labels": {"y_true": [0, 1, 1, 0, 1, 1, 0, 1], "y_pred": [0, 1, 0, 0, 1, 1, 1, 1]},
    "labels": {"y_true": [0, 1, 2, 2, 1, 0, 2, 1], "y_pred": [0, 2, 2, 2, 1, 0, 1, 1]},
    "multilabel": {
        "y_true": _MULTILABEL_TRUE,
        "y_pred": [[1, 0, 0], [0, 1, 0], [1, 1, 1], [0, 1, 1]],
    },
    "binary_scores": {
        "y_true": [0, 0, 1, 1, 0, 1, 1, 0],
        "y_score": [0.1, 0.4, 0.35, 0.8, 0.2, 0.9, 0.6, 0.6],
    },
    "binary_proba": {"y_true": [0, 0, 1, 1, 0, 1], "y_proba": [0.1, 0.4, 0.7, 0.8, 0.3, 0.6]},
    "multiclass_scores": {"y_true": [0, 1, 2, 2, 1, 0], "y_score": _PROBA},
    "proba": {"y_true": [0, 1, 2, 2, 1, 0], "y_proba": _PROBA},
    "multilabel_scores": {
        "y_true": _MULTILABEL_TRUE,
        "y_score": [[0.9, 0.2, 0.6], [0.3, 0.7, 0.4], [0.8, 0.4, 0.5], [0.1, 0.6, 0.7]],
    },
    "regression": {
        "y_true": [2.5, 0.5, 2.0, 8.0, 4.0, 6.0],
        "y_pred": [3.0, 0.0, 2.0, 7.0, 4.5, 5.0],
    },
    "regression_multi": {
        "y_true": [[0.5, 1.0], [-1.0, 1.0], [7.0, -6.0], [2.0, 3.0]],
        "y_pred": [[0.0, 2.0], [-1.0, 2.0], [8.0, -5.0], [2.5, 2.0]],
    },
    "regression_positive": {
        "y_true": [3.0, 5.0, 2.5, 1.0, 120.0],
        "y_pred": [2.5, 5.0, 4.0, 0.5, 100.0],
    },
    "target": {"y": _PLAY},
    "feature_target": {"x": _OUTLOOK, "y": _PLAY},
    "feature_target:numeric": {"x": _HUMIDITY, "y": _PLAY},
    "qrels_run": {
        "qrels": {
            "q1": {"d1": 3, "d2": 2, "d3": 3, "d4": 0, "d5": 1, "d6": 2, "d7": 3, "d8": 0},
            "q2": {"a": 1, "b": 0, "c": 1, "d": 0, "e": 1, "f": 0},
        },
        "run": {
            "q1": {"d1": 6.0, "d2": 5.0, "d3": 4.0, "d4": 3.0, "d5": 2.0, "d6": 1.0},
            "q2": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "e": 0.5, "f": 0.4},
        },
    },
    "references_predictions": {
        "references": [
            ["the cat sat on the mat", "a cat sat on the mat"],
            ["it is raining today", "today it rains"],
        ],
        "predictions": ["the cat sat on a mat", "it rains today"],
    },
    "log_probs": {"log_probs": [[-0.1, -2.3, -0.7], [-1.2, -0.05]]},
    "qa_answers": {
        "references": [["on the mat", "the mat"], ["at nine", "nine"], [""]],
        "predictions": ["on the mat", "at 9", "very cold"],
    },
    "paired_scores": {
        "x": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
        "y": [1.5, 1.0, 3.5, 3.5, 6.0, 4.0],
    },
    "requests": {"records": _REQUESTS},
}
"""A tiny dataset per input kind (keys of ``INPUT_KINDS``) for the worked examples.

A key ``"<input kind>:<feature>"`` holds the data of configurations whose
``feature`` setting needs other values than the input kind's default (numbers
for ``feature='numeric'``); see :func:`example_data`. The information examples
are Quinlan's 14 play-tennis days: outlook, humidity and whether tennis was played;
the requests are three served requests, one of them failed.
"""


def example_data(metric: Metric[Any]) -> dict[str, Any] | None:
    """The worked-example data of one configuration, or None for an input kind without any.

    Looked up by ``"<input kind>:<feature>"`` when the metric has a ``feature``
    setting with data of its own, else by the input kind.

    Examples
    --------
    >>> example_data(parse_metric("information_gain:numeric"))["x"][:3]
    [85, 90, 86]
    >>> example_data(parse_metric("information_gain"))["x"][:2]
    ['sunny', 'sunny']
    """
    feature = getattr(metric, "feature", None)
    if isinstance(feature, str) and f"{metric.inputs}:{feature}" in EXAMPLES:
        return EXAMPLES[f"{metric.inputs}:{feature}"]
    return EXAMPLES.get(metric.inputs)


def example_args(data: dict[str, Any]) -> list[Any]:
    """The positional arguments of a worked example.

    Rectangular numeric lists become arrays; mappings, text and ragged lists stay as given.

    Examples
    --------
    >>> example_args({"y_true": [0, 1], "y_pred": [1, 1]})
    [array([0, 1]), array([1, 1])]
    >>> example_args({"log_probs": [[-0.1, -2.3], [-1.2]]})
    [[[-0.1, -2.3], [-1.2]]]
    """
    out: list[Any] = []
    for value in data.values():
        if isinstance(value, dict):
            out.append(value)
            continue
        try:
            arr = np.asarray(value)
        except ValueError:
            out.append(value)
            continue
        out.append(value if arr.dtype.kind in "OU" else arr)
    return out


def _block(title: str, text: str, *, wrap: bool = True) -> list[str]:
    if not wrap:
        return [title, f"  {text}", ""]
    body = textwrap.fill(
        text, width=88, initial_indent="  ", subsequent_indent="  ", break_on_hyphens=False
    )
    return [title, body, ""]


def _show(value: Any) -> str:
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=4, suppress=True):
            return np.array2string(value, prefix="  -> ")
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if isinstance(value, np.generic):
        return repr(value.item())
    return repr(value)


def _assignment(name: str, values: Any) -> list[str]:
    """``name = values`` wrapped at 88 columns, continued lines aligned inside the bracket."""
    head = f"  {name} = "
    return textwrap.wrap(
        str(values),
        width=88,
        initial_indent=head,
        subsequent_indent=" " * (len(head) + 1),
        break_long_words=False,
        break_on_hyphens=False,
    )


def _worked_example(spec: str, metric: Metric[Any]) -> list[str]:
    data = example_data(metric)
    if data is None:
        return ["Worked example", f"  none for input kind {metric.inputs!r}.", ""]
    lines = ["Worked example (computed by scorekit now)"]
    for name, values in data.items():
        lines += _assignment(name, values)
    args = example_args(data)
    call = f"parse_metric({spec!r}).score({', '.join(data)})"
    lines.append(f"  {call}")
    # the example's warnings belong to the explanation, printed under its value; any metric,
    # a plug-in's too, reports an undefined value only by warning from its compute
    try:
        value, found = caught(lambda: metric.score(*args))
    except ScorekitError as exc:
        return [*lines, f"  -> error: {exc}", ""]
    lines.append(f"  -> {_show(value)}")
    for w in dict.fromkeys(str(c.message) for c in found):
        lines.append(f"  (warning: {w})")
    return [*lines, ""]


def _direction(info: MetricInfo) -> str:
    if info.higher_is_better is None:
        return "not a score"
    return "higher is better" if info.higher_is_better else "lower is better"


def explain(spec: str) -> str:
    """The explanation of a metric name (``f1``, ``f1:macro``, an alias) as plain text.

    Raises the registry's :class:`~scorekit.errors.ConfigError`, with close
    matches, for an unknown name.

    Examples
    --------
    >>> print(explain("accuracy"))
    accuracy: Accuracy: the fraction of samples whose prediction is correct.
    ...
    Worked example (computed by scorekit now)
      y_true = [0, 1, 2, 2, 1, 0, 2, 1]
      y_pred = [0, 2, 2, 2, 1, 0, 1, 1]
      parse_metric('accuracy').score(y_true, y_pred)
      -> 0.75
    """
    metric = parse_metric(spec)
    info = metric.info
    lines = [f"{info.name}: {info.summary}", ""]
    entry = explanation_for(info)
    if entry is not None:
        lines += _block("Definition", entry.definition)
        lines += _block("Formula", entry.formula, wrap=False)
        lines += _block("Convention", entry.convention)
        lines += _block("Agrees with", entry.reference)
    else:
        doc = inspect.cleandoc(info.cls.__doc__ or "")
        body = doc.split("\n", 1)[1].strip() if "\n" in doc else ""
        if body:
            lines += ["Description (from the docstring)"]
            lines += [f"  {line}".rstrip() for line in body.splitlines()]
            lines.append("")
    bounds = ", ".join(bound_text(b) for b in info.bounds)
    lines.append("Usage")
    lines.append(f"  direction: {_direction(info)}; bounds: [{bounds}]")
    lines.append(
        f"  input: {metric.inputs} ({INPUT_KINDS.get(metric.inputs, 'see the docstring')})"
    )
    if info.aliases:
        lines.append(f"  aliases: {', '.join(info.aliases)}")
    forms = [f"{info.name}:{v}" for v in info.variants]
    if info.variant_form is not None:
        forms.append(f"{info.name}:{info.variant_form}")
    if info.at:
        forms.insert(0, f"{info.name}@{info.at}")
    if forms:
        lines.append(f"  forms: {', '.join(forms)}")
    lines.append(f"  exact state grows with the data: {'yes' if info.grows else 'no'}")
    lines.append("")
    lines += _worked_example(spec.strip(), metric)
    return "\n".join(lines).rstrip()


def bound_text(x: float) -> str:
    """A bound as text: ``0``, ``-1``, ``0.5``, ``inf``.

    Examples
    --------
    >>> [bound_text(x) for x in (0.0, -1.0, 0.5, float("inf"))]
    ['0', '-1', '0.5', 'inf']
    """
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    return str(int(x)) if float(x).is_integer() else str(x)
