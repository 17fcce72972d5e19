"""Hostile state files: every state kind refuses values its data could never have produced.

Each case saves a true state of one metric, breaks one field of it in the file (a
negative or fractional count, nan or inf, a wrong shape, a forbidden dtype, an
unknown nested form, totals that do not add up) and checks that loading or
merging it is an InputError naming the file, the metric and the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hostile import assert_clean_error, scorekit
from scorekit import parse_metric
from scorekit.api import load_states, save_states
from scorekit.errors import InputError

Fields = dict[str, Any]

LABELS = ([0, 1, 1, 2, 2, 0], [0, 1, 2, 2, 2, 1])
BINARY = ([0, 1, 1, 0, 1, 0], [0.1, 0.8, 0.4, 0.3, 0.9, 0.4])
TARGETS = ([1.0, 2.0, 3.0, 4.0, -2.0], [1.5, 2.0, 2.5, 5.0, -1.0])
INDICATORS = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]])
PROBA = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]])
QRELS = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}, "q3": {"d9": 1}}
RUN = {"q1": {"d1": 0.5, "d2": 0.7}, "q2": {"d3": 0.1, "d4": 0.2}}
SENTENCES = (["the cat sat on the mat", "a dog runs"], ["the cat sat on a mat", "a dog"])
QA = ([["Paris"], ["1889", "in 1889"]], ["paris", "1890"])


def _requests() -> list[dict[str, Any]]:
    ok = {"prompt_tokens": 10, "output_tokens": 4, "start": 0.0, "first_token": 0.2, "end": 1.0}
    slow = {"prompt_tokens": 6, "output_tokens": 3, "start": 0.5, "first_token": 0.9, "end": 2.0}
    failed = {"prompt_tokens": 5, "output_tokens": 0, "start": 1.0, "end": 1.5, "error": "HTTP 503"}
    return [ok, slow, failed]


DATA: dict[str, tuple[Any, ...]] = {
    "accuracy": LABELS,
    "f1:micro": (INDICATORS, INDICATORS[::-1]),
    "roc_auc": BINARY,
    "roc_auc:bins=8": BINARY,
    "log_loss": ([0, 1, 2, 1], PROBA),
    "coverage_error": (INDICATORS, PROBA[[0, 1, 2, 3]]),
    "entropy": (LABELS[0],),
    "mutual_information": LABELS,
    "information_gain": (TARGETS[0], LABELS[0][:5]),
    "mse": TARGETS,
    "mape": TARGETS,
    "r2": TARGETS,
    "explained_variance": TARGETS,
    "medae": TARGETS,
    "medae:relative_accuracy=0.01": TARGETS,
    "max_error": TARGETS,
    "ndcg@10": (QRELS, RUN),
    "kendall_tau": ([1, 2, 3, 4], [1, 3, 2, 4]),
    "bleu": SENTENCES,
    "rouge1": SENTENCES,
    "perplexity": ([np.log([0.5, 0.25]), np.log([0.9])],),
    "exact_match": QA,
    "request_throughput": (_requests(),),
    "goodput:ttft=300ms": (_requests(),),
    "ttft": (_requests(),),
}


def _state_file(folder: Path, spec: str, name: str = "shard.json") -> Path:
    metric = parse_metric(spec)
    state = metric.summarize(*DATA[spec])
    return save_states(folder / name, {spec: (metric, state)}, rows=len(DATA[spec][0]))


def _break(path: Path, change: Callable[[Fields], None]) -> Path:
    data = json.loads(path.read_text())
    change(data["metrics"][0]["state"]["fields"])
    path.write_text(json.dumps(data))
    return path


def _item(field: str, index: tuple[int, ...], value: Any) -> Callable[[Fields], None]:
    """Set one item of an array field."""

    def change(fields: Fields) -> None:
        target = fields[field]["__ndarray__"]
        for i in index[:-1]:
            target = target[i]
        target[index[-1]] = value

    return change


def _set(field: str, value: Any) -> Callable[[Fields], None]:
    def change(fields: Fields) -> None:
        fields[field] = value

    return change


def _array(field: str, data: Any, dtype: str, shape: list[int]) -> Callable[[Fields], None]:
    return _set(field, {"__ndarray__": data, "dtype": dtype, "shape": shape})


def _add(field: str, amount: int) -> Callable[[Fields], None]:
    def change(fields: Fields) -> None:
        fields[field] += amount

    return change


def _scale(field: str, factor: float) -> Callable[[Fields], None]:
    def change(fields: Fields) -> None:
        fields[field]["__ndarray__"] = (np.asarray(fields[field]["__ndarray__"]) * factor).tolist()

    return change


def _drop_last(field: str) -> Callable[[Fields], None]:
    def change(fields: Fields) -> None:
        fields[field]["__ndarray__"] = fields[field]["__ndarray__"][:-1]
        fields[field]["shape"][0] -= 1

    return change


def _reasons(value: Any) -> Callable[[Fields], None]:
    return _set("reasons", {"__tuple__": value})


def _pair(reason: str, count: Any) -> dict[str, Any]:
    return {"__tuple__": [reason, count]}


def _assert_names(message: str, path: Path, spec: str, field: str, problem: str) -> None:
    assert str(path) in message, message
    assert f"metric {spec!r}" in message, message
    assert f"field {field!r}" in message or f"{field} is" in message, message
    assert problem in message, message


# the command line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "change", "field", "problem"),
    [
        ("accuracy", _item("matrix", (1, 1), -498), "matrix", "negative value"),
        ("roc_auc", _item("score", (0,), float("nan")), "score", "not a finite number"),
        ("request_throughput", _add("failed", 5), "failed", "more failed requests than requests"),
    ],
    ids=["negative-count", "nan-score", "failed-over-requests"],
)
def test_merge_refuses_a_corrupt_shard(
    tmp_path: Path, spec: str, change: Callable[[Fields], None], field: str, problem: str
) -> None:
    """[silent] scorekit merge of a shard with an impossible state names file, metric and field."""
    good = _state_file(tmp_path, spec, "good.json")
    bad = _break(_state_file(tmp_path, spec, "bad.json"), change)
    proc = scorekit("merge", good, bad, cwd=tmp_path)
    assert_clean_error(proc, str(bad), f"metric {spec!r}", f"field {field!r}", problem)
    assert proc.stdout == ""


def test_merge_refuses_negative_rows(tmp_path: Path) -> None:
    """[silent] A header with negative rows is refused, naming the file and rows."""
    good = _state_file(tmp_path, "accuracy", "good.json")
    bad = _state_file(tmp_path, "accuracy", "bad.json")
    data = json.loads(bad.read_text())
    data["rows"] = -500
    bad.write_text(json.dumps(data))
    proc = scorekit("merge", good, bad, cwd=tmp_path)
    assert_clean_error(proc, str(bad), "rows is negative", "-500")


# every state kind, in Python ---------------------------------------------------------------

CASES = [
    # ConfusionCounts (single-label)
    ("accuracy", _item("matrix", (0, 0), -1), "matrix", "negative value"),
    ("accuracy", _item("matrix", (0, 0), 1.5), "matrix", "an integer array holds non-integers"),
    ("accuracy", _array("matrix", [[1, 0], [0, 1]], "<i8", [2, 2]), "matrix", "shape does not"),
    ("accuracy", _array("matrix", [[1, 0], [0]], "<i8", [2, 2]), "matrix", "not a nested list"),
    ("accuracy", _array("labels", [0, 1, 2], "object", [3]), "labels", "dtype not allowed"),
    ("accuracy", _array("labels", [0, 1, 2], "<M8[ns]", [3]), "labels", "dtype not allowed"),
    ("accuracy", _array("labels", [2, 1, 0], "<i8", [3]), "labels", "values out of order"),
    ("accuracy", _array("labels", [0, 1, 2], "<i8", [4]), "labels", "does not match its shape"),
    ("accuracy", _array("labels", [0, 1, 2], "<i8", [-3]), "labels", "shape is not a list"),
    ("accuracy", _set("labels", {"__set__": [0, 1, 2]}), "labels", "unknown nested form"),
    ("accuracy", _set("multilabel", {"value": False}), "multilabel", "a JSON object where"),
    ("accuracy", _set("multilabel", 0), "multilabel", "not true or false"),
    # ConfusionCounts (multi-label): per-sample totals against the matrix
    ("f1:micro", _scale("sample_weights", 2.0), "matrix", "counts do not add up"),
    ("f1:micro", _item("sample_keys", (0, 0), 7), "sample_keys", "more outcomes than labels"),
    # ScoreHistogram
    ("roc_auc", _item("score", (1,), float("inf")), "score", "not a finite number"),
    ("roc_auc", _add("n_samples", 3), "n_samples", "does not match the counts"),
    ("roc_auc", _item("counts", (0, 0), -2), "counts", "negative value"),
    ("roc_auc", _item("key", (0,), 9), "key", "key out of range"),
    ("roc_auc", _set("task", "ternary"), "task", "unknown setting"),
    ("roc_auc", _drop_last("score"), "score", "rows of key, score and counts differ"),
    # BinnedScores
    ("roc_auc:bins=8", _drop_last("high"), "high", "not one value per bin"),
    ("roc_auc:bins=8", _item("edges", (3,), 0.0), "edges", "values out of order"),
    ("roc_auc:bins=8", _add("outside", 50), "outside", "more samples outside than samples"),
    ("roc_auc:bins=8", _add("n_samples", 1), "n_samples", "does not match the counts"),
    # ProbaSums
    ("log_loss", _item("weights", (0,), float("inf")), "weights", "not a finite number"),
    ("log_loss", _item("sums", (0, 0), -1.0), "sums", "negative value"),
    ("log_loss", _set("n_columns", 5), "sums", "shape does not match"),
    # PerSampleSums
    ("coverage_error", _set("weight", -3.0), "weight", "negative value"),
    ("coverage_error", _set("count", 2.5), "count", "not an integer"),
    # ClassCounts and Contingency
    ("entropy", _item("counts", (1,), -4), "counts", "negative value"),
    ("entropy", _drop_last("labels"), "counts", "not one count per label"),
    ("mutual_information", _drop_last("classes"), "table", "shape does not match"),
    ("information_gain", _set("feature", "ordinal"), "feature", "unknown setting"),
    # ErrorSums, R2Sums, ExplainedVarianceSums, AbsErrors, MaxAbsError, QuantileSketch
    ("mse", _item("sums", (0,), float("nan")), "sums", "not a number (nan)"),
    ("mse", _set("count", -5), "count", "negative value"),
    ("mape", _array("sums", [[1.0], [2.0], [3.0]], "<f8", [3, 1]), "sums", "wrong shape"),
    ("r2", _drop_last("m2"), "m2", "shape differs from 'mean'"),
    ("explained_variance", _item("mean", (0,), float("nan")), "mean", "not a number (nan)"),
    ("medae", _array("weights", [1.0, 2.0], "<f8", [2]), "weights", "not one weight per row"),
    ("medae", _item("errors", (0, 0), -1.0), "errors", "negative value"),
    ("max_error", _set("value", -1.0), "value", "negative value"),
    ("medae:relative_accuracy=0.01", _set("relative_accuracy", 1.5), "relative_accuracy", "(0, 1)"),
    ("medae:relative_accuracy=0.01", _add("n_samples", 2), "n_samples", "does not match"),
    ("medae:relative_accuracy=0.01", _item("count", (0,), 0.5), "count", "non-integers"),
    # QueryValues and PairedScores
    ("ndcg@10", _drop_last("values"), "values", "not one value per query"),
    ("ndcg@10", _set("missing", "sometimes"), "missing", "unknown setting"),
    ("ndcg@10", _add("undefined", 10), "undefined", "more undefined queries than queries"),
    ("ndcg@10", _array("queries", ["q2", "q1"], "<U2", [2]), "queries", "out of order"),
    ("kendall_tau", _item("x", (2,), float("-inf")), "x", "not a finite number"),
    ("kendall_tau", _drop_last("y"), "y", "shape differs from 'x'"),
    # BLEUStats, RougeSums, NLLSums, AnswerScores
    ("bleu", _item("matches", (0,), 1000), "matches", "more matched n-grams than n-grams"),
    ("bleu", _drop_last("totals"), "totals", "not one count per n-gram order"),
    ("bleu", _set("hyp_len", 1.5), "hyp_len", "not an integer"),
    ("rouge1", _scale("sums", 10.0), "sums", "a sum of scores above the number of items"),
    ("rouge1", _set("types", {"__tuple__": [1]}), "types", "not a tuple of ROUGE types"),
    ("perplexity", _set("nll", -3.0), "nll", "negative log-likelihood"),
    ("perplexity", _set("nll", float("inf")), "nll", "not a finite number"),
    ("perplexity", _set("base", "10"), "base", "unknown setting"),
    ("exact_match", _set("total", 7.0), "total", "a total above the number of questions"),
    ("exact_match", _set("count", True), "count", "not a number"),
    # RequestTotals and LatencyValues
    ("request_throughput", _set("good", 9), "good", "more good requests than successful ones"),
    ("request_throughput", _reasons([_pair("HTTP 503", 3)]), "reasons", "do not add up"),
    ("request_throughput", _reasons([_pair("HTTP 503", -1)]), "reasons", "not a tally"),
    ("request_throughput", _reasons([_pair("b", 1), _pair("a", 1)]), "reasons", "out of order"),
    ("request_throughput", _set("prompt_tokens", -498), "prompt_tokens", "negative value"),
    ("request_throughput", _set("first_start", float("nan")), "first_start", "not a number"),
    ("request_throughput", _set("last_end", -1.0), "last_end", "not a time span"),
    ("goodput:ttft=300ms", _set("slo", {"__tuple__": [{"__tuple__": ["ttft", -1]}]}), "slo", "slo"),
    ("ttft", _item("values", (0,), -0.2), "values", "negative value"),
    ("ttft", _set("quantity", "latency"), "quantity", "unknown setting"),
]


@pytest.mark.parametrize(
    ("spec", "change", "field", "problem"),
    CASES,
    ids=[f"{spec}-{field}-{i}" for i, (spec, _, field, _) in enumerate(CASES)],
)
def test_load_states_refuses_an_impossible_state(
    tmp_path: Path, spec: str, change: Callable[[Fields], None], field: str, problem: str
) -> None:
    """[silent] A state breaking an invariant of its kind: InputError naming file, metric, field."""
    path = _break(_state_file(tmp_path, spec), change)
    with pytest.raises(InputError) as info:
        load_states(path)
    _assert_names(str(info.value), path, spec, field, problem)


@pytest.mark.parametrize("spec", sorted(DATA))
def test_the_true_states_of_these_cases_load(tmp_path: Path, spec: str) -> None:
    """[silent] The untouched files of the cases above load: each case breaks only its field."""
    path = _state_file(tmp_path, spec)
    _, states, _ = load_states(path)
    assert states[spec].equals(parse_metric(spec).summarize(*DATA[spec]))


@pytest.mark.parametrize("rows", [-1, 2.5, True, "12"])
def test_load_states_refuses_rows_that_are_not_a_count(tmp_path: Path, rows: Any) -> None:
    """[silent] The header's rows must be an integer >= 0."""
    path = _state_file(tmp_path, "accuracy")
    data = json.loads(path.read_text())
    data["rows"] = rows
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="rows is") as info:
        load_states(path)
    assert str(path) in str(info.value)
