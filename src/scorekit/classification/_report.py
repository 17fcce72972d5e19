"""The classification report: per-class precision, recall, F1 and support, with averages."""

from __future__ import annotations

from typing import Any

import numpy as np

from scorekit.classification._counts import summarize_counts
from scorekit.classification._labels import _labels_tuple, _require_data
from scorekit.classification._prf import Average, prf
from scorekit.classification._zero_division import ZeroDivision
from scorekit.errors import ConfigError, InputError, message, raw

__all__ = ["classification_report"]


_MAX_DIGITS = 20  # past float64's 17 significant digits; each cell is this wide


def classification_report(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    target_names: Any = None,
    sample_weight: Any = None,
    digits: int = 2,
    output_dict: bool = False,
    zero_division: ZeroDivision = "warn",
) -> str | dict[str, Any]:
    """Per-class precision, recall, F1 and support, with their averages.

    Same layout and keys as scikit-learn's ``classification_report``: one row per
    class, then ``accuracy`` (single-label, when every class is reported) or
    ``micro avg``, then ``macro avg`` and ``weighted avg`` (and ``samples avg``
    for multi-label input).

    Examples
    --------
    >>> print(classification_report(["a", "b", "b"], ["a", "b", "a"]))
                  precision    recall  f1-score   support
    <BLANKLINE>
               a       0.50      1.00      0.67         1
               b       1.00      0.50      0.67         2
    <BLANKLINE>
        accuracy                           0.67         3
       macro avg       0.75      0.75      0.67         3
    weighted avg       0.83      0.67      0.67         3
    <BLANKLINE>
    """
    name = "classification_report"
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 0:
        raise ConfigError(message(name, "digits must be an integer >= 0", digits, "e.g. 2"))
    if digits > _MAX_DIGITS:
        raise ConfigError(message(name, "too many digits", digits, f"at most {_MAX_DIGITS}"))
    chosen = _labels_tuple(name, labels)
    state = summarize_counts(name, y_true, y_pred, sample_weight, chosen)
    _require_data(name, state)
    shown = np.asarray(chosen) if chosen is not None else state.labels
    if target_names is None:
        names = [str(v) for v in shown.tolist()]
    else:
        names = [str(v) for v in target_names]
        if len(names) != len(shown):
            raise InputError(
                message(
                    name,
                    "target_names and labels differ in length",
                    raw(f"{len(names)} names for {len(shown)} labels"),
                    "one name per label",
                )
            )
    kw: dict[str, Any] = {
        "labels": chosen,
        "pos_label": 1,
        "beta": 1.0,
        "zero_division": zero_division,
    }
    p, r, f, s = prf(name, state, average=None, warn_for=("precision", "recall", "f-score"), **kw)
    s = np.asarray(s)
    report: dict[str, Any] = {}
    for i, label in enumerate(names):
        report[label] = {
            "precision": float(p[i]),
            "recall": float(r[i]),
            "f1-score": float(f[i]),
            "support": _num(s[i]),
        }
    total = _num(float(np.sum(s)))
    all_reported = chosen is None or set(chosen) >= set(state.labels.tolist())
    averages: list[Average] = ["micro", "macro", "weighted"]
    if state.multilabel:
        averages.append("samples")
    for avg in averages:
        ap, ar, af, _ = prf(
            name, state, average=avg, warn_for=("precision", "recall", "f-score"), **kw
        )
        if avg == "micro" and not state.multilabel and all_reported:
            report["accuracy"] = float(ap)
            continue
        report[f"{avg} avg"] = {
            "precision": float(ap),
            "recall": float(ar),
            "f1-score": float(af),
            "support": total,
        }
    if output_dict:
        return report
    return _format_report(report, names, digits)


def _num(value: Any) -> Any:
    value = float(value)
    return int(value) if value.is_integer() else value


def _format_report(report: dict[str, Any], names: list[str], digits: int) -> str:
    headers = ["precision", "recall", "f1-score", "support"]
    width = max([len(n) for n in names] + [len("weighted avg"), digits])
    head = " " * width + " " + "".join(f"{h:>10}" for h in headers)
    lines = [head, ""]
    row = "{:>{width}s} " + " {:>9.{digits}f}" * 3 + " {:>9}"
    for n in names:
        v = report[n]
        lines.append(
            row.format(
                n,
                v["precision"],
                v["recall"],
                v["f1-score"],
                v["support"],
                width=width,
                digits=digits,
            )
        )
    lines.append("")
    for key in report:
        if key in names:
            continue
        if key == "accuracy":
            total = sum(report[n]["support"] for n in names)
            acc_row = "{:>{width}s} " + " {:>9}" * 2 + " {:>9.{digits}f}" + " {:>9}"
            lines.append(
                acc_row.format(
                    "accuracy", "", "", report["accuracy"], total, width=width, digits=digits
                )
            )
            continue
        v = report[key]
        lines.append(
            row.format(
                key,
                v["precision"],
                v["recall"],
                v["f1-score"],
                v["support"],
                width=width,
                digits=digits,
            )
        )
    return "\n".join(lines) + "\n"
