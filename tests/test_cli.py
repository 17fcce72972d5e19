"""The ``scorekit`` command: eval, list, explain, demo, --version and every user error."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from scorekit import errors as _errors
from scorekit.classification import (
    MCC,
    accuracy,
    balanced_accuracy,
    cohen_kappa,
    confusion_matrix,
    f1,
    mcc,
    precision,
    recall,
)
from scorekit.cli import default_metrics, main
from scorekit.cli._list import plain_summary
from scorekit.core import Metric, State, available, parse_metric, register, state_field
from scorekit.core import _registry as _core
from scorekit.errors import ScorekitError
from scorekit.explain import EXAMPLES, EXPLANATIONS, example_args, explanation_for

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "examples" / "data"
ENTRIES = json.loads((DATA / "manifest.json").read_text())
MANIFEST = {e["task"]: e for e in ENTRIES if e.get("command", "eval") == "eval"}


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys: Any, *argv: str) -> dict[str, Any]:
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    result: dict[str, Any] = json.loads(out)
    return result


def _eval_args(task: str, *, pred: bool = True, score: bool = True) -> list[str]:
    entry = MANIFEST[task]
    args = ["eval", str(DATA / entry["file"]), "--task", task, "--true", *entry["true"]]
    if pred and entry.get("pred"):
        args += ["--pred", *entry["pred"]]
    if score and entry.get("score"):
        args += ["--score", *entry["score"]]
    return args


def _frame(task: str) -> pd.DataFrame:
    path = DATA / MANIFEST[task]["file"]
    if path.suffix == ".csv":
        return pd.read_csv(path)
    if path.suffix == ".parquet":
        return pd.read_parquet(path)
    return pd.read_json(path, lines=True)


def _arrays(task: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    entry = MANIFEST[task]
    df = _frame(task)
    if task == "multilabel":
        return (
            df[entry["true"]].to_numpy(),
            df[entry["pred"]].to_numpy(),
            df[entry["score"]].to_numpy(dtype=float),
        )
    if task == "regression":
        true, pred = df[entry["true"][0]], df[entry["pred"][0]]
        return true.to_numpy(float), pred.to_numpy(float), pred.to_numpy(float)
    score = df[entry["score"]].to_numpy(dtype=float)
    return (
        df[entry["true"][0]].to_numpy(),
        df[entry["pred"][0]].to_numpy(),
        score[:, 0] if task == "binary" else score,
    )


# eval on the bundled files --------------------------------------------------------


def test_binary_defaults_match_the_library_functions(capsys: Any) -> None:
    y, p, _ = _arrays("binary")
    values = _json(capsys, *_eval_args("binary", score=False))
    expected = {
        "accuracy": accuracy(y, p),
        "precision": precision(y, p),
        "recall": recall(y, p),
        "f1": f1(y, p),
        "mcc": mcc(y, p),
    }
    assert list(values) == list(expected)
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, rel=1e-12)


def test_multiclass_defaults_with_string_labels(capsys: Any) -> None:
    y, p, _ = _arrays("multiclass")
    assert y.dtype.kind in "OU"
    values = _json(capsys, *_eval_args("multiclass", score=False))
    expected = {
        "accuracy": accuracy(y, p),
        "balanced_accuracy": balanced_accuracy(y, p),
        "f1:macro": f1(y, p, average="macro"),
        "f1:weighted": f1(y, p, average="weighted"),
        "mcc": mcc(y, p),
        "cohen_kappa": cohen_kappa(y, p),
    }
    assert list(values) == list(expected)
    for name, value in expected.items():
        assert values[name] == pytest.approx(value, rel=1e-12)


def test_multilabel_f1_averages(capsys: Any) -> None:
    y, p, _ = _arrays("multilabel")
    values = _json(capsys, *_eval_args("multilabel", score=False))
    for average in ("samples", "micro", "macro"):
        assert values[f"f1:{average}"] == pytest.approx(f1(y, p, average=average), rel=1e-12)


def test_default_metrics_name_only_registered_metrics() -> None:
    names = {info.name for info in available()}
    for task in ("binary", "multiclass", "multilabel"):
        for spec in default_metrics(task, has_pred=True, has_score=True):
            assert spec.split(":")[0] in names
    assert default_metrics("binary", has_pred=False, has_score=False) == []


def test_table_format_shows_four_decimals(capsys: Any) -> None:
    y, p, _ = _arrays("binary")
    code, out, _ = _run(capsys, *_eval_args("binary", score=False), "--metric", "accuracy")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["metric", "value"]
    assert lines[2].split() == ["accuracy", f"{accuracy(y, p):.4f}"]


def test_csv_format(capsys: Any) -> None:
    y, p, _ = _arrays("multiclass")
    code, out, _ = _run(
        capsys,
        *_eval_args("multiclass", score=False),
        "--metric",
        "accuracy",
        "confusion_matrix",
        "--format",
        "csv",
    )
    assert code == 0
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["metric", "value"]
    assert rows[1][0] == "accuracy" and float(rows[1][1]) == accuracy(y, p)
    assert rows[2][0] == "confusion_matrix"
    assert json.loads(rows[2][1]) == confusion_matrix(y, p).tolist()


def test_array_values_in_json_and_table(capsys: Any) -> None:
    y, p, _ = _arrays("multiclass")
    values = _json(capsys, *_eval_args("multiclass", score=False), "--metric", "confusion_matrix")
    assert values == {"confusion_matrix": confusion_matrix(y, p).tolist()}
    code, out, _ = _run(
        capsys, *_eval_args("multiclass", score=False), "--metric", "confusion_matrix"
    )
    assert code == 0
    shown = re.findall(r"\d+", "\n".join(out.splitlines()[2:]))
    assert [int(v) for v in shown] == confusion_matrix(y, p).ravel().tolist()
    assert len(out.splitlines()) == 2 + 3


def test_metric_flag_can_repeat_and_duplicates_collapse(capsys: Any) -> None:
    values = _json(
        capsys,
        *_eval_args("binary", score=False),
        "--metric",
        "f1",
        "--metric",
        "accuracy",
        "f1",
    )
    assert list(values) == ["f1", "accuracy"]


def test_aliases_and_variants_are_accepted(capsys: Any) -> None:
    y, p, _ = _arrays("binary")
    values = _json(
        capsys, *_eval_args("binary", score=False), "--metric", "sensitivity", "f1:micro"
    )
    assert values["sensitivity"] == recall(y, p)
    assert values["f1:micro"] == pytest.approx(f1(y, p, average="micro"), rel=1e-12)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_sample_weights(tmp_path: Path, capsys: Any) -> None:
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    w = np.round(rng.random(50) * 3, 3)
    w[:5] = 0.0
    path = tmp_path / "w.csv"
    pd.DataFrame({"y": y, "p": p, "w": w}).to_csv(path, index=False)
    values = _json(
        capsys,
        "eval",
        str(path),
        "--task",
        "binary",
        "--true",
        "y",
        "--pred",
        "p",
        "--weight",
        "w",
    )
    assert values["accuracy"] == pytest.approx(accuracy(y, p, sample_weight=w), rel=1e-12)
    assert values["f1"] == pytest.approx(f1(y, p, sample_weight=w), rel=1e-12)
    assert values["mcc"] == pytest.approx(mcc(y, p, sample_weight=w), rel=1e-12)


def test_pos_label_for_string_labels(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "s.csv", "y,p\nspam,spam\nham,spam\nspam,ham\nspam,spam\nham,ham\n")
    args = ["eval", path, "--task", "binary", "--true", "y", "--pred", "p"]
    values = _json(capsys, *args, "--pos-label", "spam", "--metric", "precision", "recall")
    y = ["spam", "ham", "spam", "spam", "ham"]
    p = ["spam", "spam", "ham", "spam", "ham"]
    assert values["precision"] == precision(y, p, pos_label="spam")
    assert values["recall"] == recall(y, p, pos_label="spam")
    code, _, err = _run(capsys, *args, "--metric", "precision")
    assert code == 2
    assert "pos_label" in err and "'spam'" in err


def test_pos_label_for_integer_labels_and_a_bad_one(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "i.csv", "y,p\n0,0\n1,0\n0,1\n0,0\n")
    args = ["eval", path, "--task", "binary", "--true", "y", "--pred", "p", "--metric", "f1"]
    values = _json(capsys, *args, "--pos-label", "0")
    assert values["f1"] == f1([0, 1, 0, 0], [0, 0, 1, 0], pos_label=0)
    code, _, err = _run(capsys, *args, "--pos-label", "zero")
    assert code == 2 and "--pos-label" in err and "'zero'" in err


def test_every_tsv_parquet_and_jsonl_input_gives_the_same_values(
    tmp_path: Path, capsys: Any
) -> None:
    df = _frame("binary")
    base = ["--task", "binary", "--true", "label", "--pred", "pred"]
    results = []
    for name in ("b.tsv", "b.parquet", "b.jsonl", "b.ndjson.gz", "b.csv.gz"):
        path = tmp_path / name
        if name.endswith(".tsv"):
            df.to_csv(path, sep="\t", index=False)
        elif name.endswith(".parquet"):
            df.to_parquet(path)
        elif ".csv" in name:
            df.to_csv(path, index=False, compression="gzip")
        else:
            df.to_json(path, orient="records", lines=True)
        results.append(_json(capsys, "eval", str(path), *base))
    assert all(r == results[0] for r in results)


# score metrics and the input-kind dispatch, with metrics defined here ------------------


@dataclass(frozen=True, eq=False)
class _MeanState(State):
    kind = "test_cli_mean"

    total: float = state_field("sum")
    count: float = state_field("sum")


def _true_class_score(
    y_true: Any, y_score: Any, labels: tuple[Any, ...] | None, weight: Any
) -> _MeanState:
    y = np.asarray(y_true)
    s = np.asarray(y_score, dtype=float)
    if s.ndim == 1:
        value = np.where(y == 1, s, 1.0 - s)
    else:
        classes = np.asarray(labels) if labels is not None else np.unique(y)
        if len(classes) != s.shape[1]:
            raise _errors.InputError("cli_test: columns do not match classes.")
        value = s[np.arange(len(y)), np.searchsorted(classes, y)]
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=float)
    return _MeanState(total=float(np.sum(w * value)), count=float(np.sum(w)))


@dataclass(frozen=True)
class _TrueClassScore(Metric[_MeanState]):
    """Mean score given to the true class (a metric for these tests)."""

    multi_class: str = "raise"
    labels: tuple[Any, ...] | None = None

    @property
    def inputs(self) -> str:
        return "binary_scores" if self.multi_class == "raise" else "multiclass_scores"

    def summarize(self, y_true: Any, y_score: Any, sample_weight: Any = None) -> _MeanState:
        return _true_class_score(y_true, y_score, self.labels, sample_weight)

    def compute(self, state: _MeanState) -> float:
        return state.total / state.count if state.count else math.nan

    def empty(self) -> _MeanState:
        return _MeanState(total=0.0, count=0.0)


@dataclass(frozen=True)
class _TrueClassProba(Metric[_MeanState]):
    """Mean probability of the true class, from a probability matrix (for these tests)."""

    def summarize(self, y_true: Any, y_proba: Any) -> _MeanState:
        return _true_class_score(y_true, y_proba, None, None)

    def compute(self, state: _MeanState) -> float:
        return state.total / state.count

    def empty(self) -> _MeanState:
        return _MeanState(total=0.0, count=0.0)


@pytest.fixture
def toy_metrics(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_core, "_REGISTRY", dict(_core._REGISTRY))
    monkeypatch.setattr(_core, "_ALIASES", dict(_core._ALIASES))
    register("cli_true_class_score", higher_is_better=True, bounds=(0, 1), inputs="binary_scores")(
        _TrueClassScore
    )
    register("cli_true_class_proba", higher_is_better=True, bounds=(0, 1), inputs="proba")(
        _TrueClassProba
    )


@pytest.mark.usefixtures("toy_metrics")
def test_score_metric_receives_the_score_column(capsys: Any) -> None:
    y, _, s = _arrays("binary")
    values = _json(capsys, *_eval_args("binary"), "--metric", "cli_true_class_score", "f1")
    assert values["cli_true_class_score"] == pytest.approx(np.mean(np.where(y == 1, s, 1 - s)))
    assert values["f1"] == f1(y, _arrays("binary")[1])


@pytest.mark.usefixtures("toy_metrics")
def test_binary_probability_becomes_two_columns_for_a_proba_metric(capsys: Any) -> None:
    y, _, s = _arrays("binary")
    values = _json(capsys, *_eval_args("binary", pred=False), "--metric", "cli_true_class_proba")
    assert values["cli_true_class_proba"] == pytest.approx(np.mean(np.where(y == 1, s, 1 - s)))


@pytest.mark.usefixtures("toy_metrics")
def test_multiclass_scores_switch_the_metric_to_one_vs_rest(capsys: Any) -> None:
    y, _, s = _arrays("multiclass")
    values = _json(
        capsys,
        *_eval_args("multiclass", pred=False),
        "--metric",
        "cli_true_class_score",
        "cli_true_class_proba",
    )
    expected = np.mean(s[np.arange(len(y)), np.searchsorted(np.unique(y), y)])
    assert values["cli_true_class_score"] == pytest.approx(expected, rel=1e-12)
    assert values["cli_true_class_proba"] == pytest.approx(expected, rel=1e-12)


@pytest.mark.usefixtures("toy_metrics")
def test_integer_classes_absent_from_the_data_use_the_column_positions(
    tmp_path: Path, capsys: Any
) -> None:
    path = _write(tmp_path, "m.csv", "y,p0,p1,p2\n0,0.7,0.2,0.1\n2,0.1,0.3,0.6\n2,0.2,0.2,0.6\n")
    args = ["eval", path, "--task", "multiclass", "--true", "y", "--score", "p0", "p1", "p2"]
    values = _json(capsys, *args, "--metric", "cli_true_class_score")
    assert values["cli_true_class_score"] == pytest.approx((0.7 + 0.6 + 0.6) / 3)


@pytest.mark.usefixtures("toy_metrics")
def test_string_classes_that_do_not_match_the_score_columns(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "m.csv", "y,p0,p1,p2\na,0.7,0.2,0.1\nc,0.1,0.3,0.6\n")
    args = ["eval", path, "--task", "multiclass", "--true", "y", "--score", "p0", "p1", "p2"]
    code, out, err = _run(capsys, *args, "--metric", "cli_true_class_score")
    assert code == 2 and out == ""
    assert "score columns do not match the classes" in err
    assert "3 --score columns for 2 classes" in err


@pytest.mark.usefixtures("toy_metrics")
def test_score_metric_with_sample_weights(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "w.csv", "y,s,w\n1,0.9,1\n0,0.4,0\n1,0.2,2\n")
    args = ["eval", path, "--task", "binary", "--true", "y", "--score", "s", "--weight", "w"]
    values = _json(capsys, *args, "--metric", "cli_true_class_score")
    assert values["cli_true_class_score"] == pytest.approx((0.9 + 2 * 0.2) / 3)
    code, _, err = _run(capsys, *args, "--metric", "cli_true_class_proba")
    assert code == 2
    assert "cli_true_class_proba: does not take sample weights" in err


@pytest.mark.usefixtures("toy_metrics")
def test_scores_needed_but_only_predictions_given(capsys: Any) -> None:
    code, out, err = _run(
        capsys, *_eval_args("binary", score=False), "--metric", "cli_true_class_score"
    )
    assert code == 2 and out == ""
    assert err.startswith("scorekit: cli_true_class_score: needs scores")
    assert "--score" in err


def test_labels_needed_but_only_scores_given(capsys: Any) -> None:
    code, _, err = _run(capsys, *_eval_args("binary", pred=False), "--metric", "accuracy")
    assert code == 2
    assert "accuracy: needs predicted labels" in err and "--pred" in err


def test_only_scores_with_defaults_skips_label_metrics(capsys: Any) -> None:
    args = _eval_args("binary", pred=False)
    expected = default_metrics("binary", has_pred=False, has_score=True)
    code, out, err = _run(capsys, *args, "--format", "json")
    if expected:
        assert code == 0, err
        assert set(json.loads(out)) <= set(expected)
    else:
        assert code == 2 and "no metric could be computed" in err


# every registered metric, through the CLI, equals a direct call -------------------------

_FILE_FOR_KIND = {
    "binary_labels": "binary",
    "binary_scores": "binary",
    "binary_proba": "binary",
    "labels": "multiclass",
    "multiclass_scores": "multiclass",
    "proba": "multiclass",
    "multilabel": "multilabel",
    "multilabel_scores": "multilabel",
    "regression": "regression",
    "regression_positive": "regression",
    "regression_multi": "regression",
}
_SCORE_KINDS = {"binary_scores", "binary_proba", "multiclass_scores", "proba", "multilabel_scores"}

SPECS = [
    pytest.param(spec, id=spec)
    for info in available()
    for spec in [info.name, *(f"{info.name}:{v}" for v in info.variants)]
]


def _plain(value: Any) -> Any:
    if isinstance(value, np.ndarray | list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    return None if isinstance(value, float) and not math.isfinite(value) else value


# entropy and the split criteria take one column or a feature and a target, not a pair of
# truth and prediction: `scorekit features` covers the criteria (tests/test_cli_regression.py)
EVAL_SPECS = [p for p in SPECS if parse_metric(p.values[0]).inputs in _FILE_FOR_KIND]


@pytest.mark.parametrize("spec", EVAL_SPECS)
def test_cli_agrees_with_a_direct_call_for_every_registered_metric(spec: str, capsys: Any) -> None:
    metric = parse_metric(spec)
    task = _FILE_FOR_KIND[metric.inputs]
    argv = _eval_args(task)
    if metric.inputs == "regression_multi":
        df = _frame(task)
        y, second = df[["price", "days"]].to_numpy(float), df[["pred_price", "pred_days"]]
        argv = [*argv[:5], "price", "days", "--pred", "pred_price", "pred_days"]
    else:
        y, p, s = _arrays(task)
        second = s if metric.inputs in _SCORE_KINDS else p
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            expected: Any = ("value", _plain(metric.score(y, second)))
        except ScorekitError as exc:
            expected = ("error", str(exc))
    code, out, err = _run(capsys, *argv, "--metric", spec, "--format", "json")
    if expected[0] == "error":
        assert code == 2
        assert expected[1] in err
        return
    assert code == 0, err
    _assert_close(json.loads(out)[spec], expected[1])


def _assert_close(got: Any, expected: Any) -> None:
    if isinstance(expected, list):
        assert isinstance(got, list) and len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            _assert_close(g, e)
    elif expected is None or got is None:
        assert got is expected
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, rel=1e-12, abs=1e-15)
    else:
        assert got == expected


# user errors: exit status 2, message on stderr, no traceback ----------------------------


def _error(capsys: Any, *argv: str) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("scorekit: ") or err.startswith("usage: ")
    assert "Traceback" not in err
    return err


def test_missing_file(tmp_path: Path, capsys: Any) -> None:
    path = str(tmp_path / "absent.csv")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p")
    assert path in err and "no such file" in err


def test_bad_extension(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "data.xlsx", "y,p\n1,1\n")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p")
    assert "unknown file type" in err and "'.xlsx'" in err and "'.parquet'" in err


def test_missing_column_with_close_match(capsys: Any) -> None:
    path = str(DATA / "binary.csv")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "lable", "--pred", "pred")
    assert path in err and "no such column" in err and "'lable'" in err
    assert "close: 'label'" in err


def test_ragged_csv_row(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "r.csv", "y,p\n1,1\n0,1\n1,0,1\n0,0\n")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p")
    assert f"{path}, line 4:" in err and "wrong number of fields" in err


@pytest.mark.usefixtures("toy_metrics")
def test_non_numeric_score(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "s.csv", "y,s\n1,0.9\n0,0.1\n1,high\n")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--score", "s")
    assert f"{path}, line 4, column 's'" in err and "not a number" in err and "'high'" in err


def test_nan_label(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "n.csv", "y,p\n1,1\nnan,0\n")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p")
    assert f"{path}, line 3, column 'y'" in err and "missing value" in err


def test_empty_prediction_cell(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "n.csv", "y,p\n1,1\n0,\n")
    err = _error(capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p")
    assert "line 3, column 'p'" in err and "missing value" in err


def test_unknown_metric_with_suggestion(capsys: Any) -> None:
    err = _error(capsys, *_eval_args("binary"), "--metric", "acuracy")
    assert "unknown metric" in err and "'acuracy'" in err and "close: accuracy" in err


def test_malformed_metric_name(capsys: Any) -> None:
    err = _error(capsys, *_eval_args("binary"), "--metric", "f1 macro")
    assert "malformed metric name" in err and "'f1 macro'" in err
    err = _error(capsys, *_eval_args("binary"), "--metric", "f1@5")
    assert "takes no @ parameter" in err


def test_unknown_variant(capsys: Any) -> None:
    err = _error(capsys, *_eval_args("binary"), "--metric", "f1:mean")
    assert "unknown average" in err and "'mean'" in err


def test_binary_metric_on_multiclass_data_names_the_problem(capsys: Any) -> None:
    err = _error(capsys, *_eval_args("multiclass"), "--metric", "f1")
    assert err.startswith("scorekit: f1:") and "multiclass" in err and "'macro'" in err


def test_binary_task_with_three_classes(capsys: Any) -> None:
    err = _error(
        capsys, "eval", str(DATA / "multiclass.parquet"), "--task", "binary",
        "--true", "label", "--pred", "pred",
    )  # fmt: skip
    assert "--task binary needs at most two classes" in err and "'bird'" in err


def test_binary_task_with_several_score_columns(capsys: Any) -> None:
    err = _error(
        capsys, "eval", str(DATA / "multiclass.parquet"), "--task", "binary",
        "--true", "label", "--score", "p_bird", "p_cat",
    )  # fmt: skip
    assert "one --score column" in err


def test_multiclass_task_with_one_score_column(capsys: Any) -> None:
    err = _error(
        capsys, "eval", str(DATA / "multiclass.parquet"), "--task", "multiclass",
        "--true", "label", "--score", "p_bird",
    )  # fmt: skip
    assert "one --score column per class" in err


def test_single_label_task_with_several_true_columns(capsys: Any) -> None:
    entry = MANIFEST["multilabel"]
    err = _error(
        capsys, "eval", str(DATA / entry["file"]), "--task", "binary",
        "--true", *entry["true"], "--pred", entry["pred"][0],
    )  # fmt: skip
    assert "takes one --true column" in err and "multilabel" in err


def test_multilabel_column_counts_must_agree(capsys: Any) -> None:
    entry = MANIFEST["multilabel"]
    err = _error(
        capsys, "eval", str(DATA / entry["file"]), "--task", "multilabel",
        "--true", *entry["true"], "--pred", *entry["pred"][:2],
    )  # fmt: skip
    assert "--pred must name one column per --true column" in err and "2 columns" in err


def test_multilabel_column_that_is_not_zero_one(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "m.csv", "a,b,pa,pb\n1,0,1,0\n0,2,0,1\n")
    err = _error(
        capsys, "eval", path, "--task", "multilabel",
        "--true", "a", "b", "--pred", "pa", "pb",
    )  # fmt: skip
    assert "line 3, column 'b'" in err and "not a 0/1 indicator" in err


def test_negative_weight(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "w.csv", "y,p,w\n1,1,1\n0,1,-1\n")
    err = _error(
        capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p", "--weight", "w"
    )
    assert "line 3, column 'w'" in err and "negative" in err


def test_no_predictions_or_scores(capsys: Any) -> None:
    err = _error(capsys, "eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label")
    assert "nothing to evaluate" in err


def test_empty_data_file(tmp_path: Path, capsys: Any) -> None:
    path = _write(tmp_path, "e.csv", "y,p\n")
    err = _error(
        capsys, "eval", path, "--task", "binary", "--true", "y", "--pred", "p",
        "--metric", "accuracy",
    )  # fmt: skip
    assert f"{path}: no data; expected a table with rows" in err


def test_usage_errors_return_two_without_raising(capsys: Any) -> None:
    for argv in (
        [],
        ["eval"],
        ["eval", "x.csv", "--task", "regression", "--true", "y", "--pred", "p"],
        ["frobnicate"],
        ["list", "--format", "xml"],
    ):
        code, _, err = _run(capsys, *argv)
        assert code == 2, argv
        assert "scorekit: " in err


def test_help_and_version(capsys: Any) -> None:
    from scorekit import __version__

    code, out, _ = _run(capsys, "--version")
    assert code == 0 and out.strip() == f"scorekit {__version__}"
    code, out, _ = _run(capsys, "eval", "--help")
    assert code == 0 and "--task" in out and "--score" in out


_IMPORTS = (
    "import contextlib, io, json, os, sys\n"
    "os.environ['SCOREKIT_NO_PLUGINS'] = '1'\n"
    "from scorekit.cli import main\n"
    "with contextlib.redirect_stdout(io.StringIO()):\n"
    "    status = main(sys.argv[1:])\n"
    "print(json.dumps([status, sorted(sys.modules)]))\n"
)
"""A child that runs ``main`` on its arguments and prints its status and the imported modules."""

_HEAVY = (
    "scorekit.api",
    "scorekit.engines.dask",
    "scorekit.report",
    "scorekit.plot",
    "matplotlib",
    "pandas",
    "dask",
)
"""What neither ``scorekit --help`` nor ``scorekit list`` imports."""

_FAMILIES = (
    "scorekit.classification",
    "scorekit.multilabel",
    "scorekit.information",
    "scorekit.regression",
    "scorekit.ranking",
    "scorekit.text",
    "scorekit.qa",
    "scorekit.throughput",
)
"""The metric families: ``list`` reads their metrics from the index (``scorekit.core._index``)."""


@pytest.mark.parametrize(
    ("argv", "cli", "absent"),
    [
        (["--help"], set(), ["scorekit.engines", "scorekit.io", *_FAMILIES]),
        (
            ["list"],
            {"scorekit.cli._list"},
            ["scorekit.stats", "scorekit.engines", "scorekit.io", *_FAMILIES],
        ),
    ],
)
def test_help_and_list_import_only_what_they_need(
    argv: list[str], cli: set[str], absent: list[str]
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS, *argv], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    status, modules = json.loads(done.stdout)
    assert status == 0
    registry = {"scorekit.cli", "scorekit.cli._commands", "scorekit.cli._flags"}
    assert {m for m in modules if m.startswith("scorekit.cli")} == registry | cli
    for name in [*_HEAVY, *absent]:
        assert not [m for m in modules if m == name or m.startswith(name + ".")], name


def test_the_help_listed_from_the_registry_is_the_commands_own() -> None:
    from scorekit.cli import _OUTPUT_OPTIONS, _commands, _flags, build_parser

    assert build_parser(["--help"]).format_help() == build_parser().format_help()
    own = {n for n, m in _commands._COMMANDS.items() if str(m).startswith("scorekit.cli._")}
    assert own <= set(_commands._HELP)
    assert set(_OUTPUT_OPTIONS) == set(_flags.OUTPUT_FLAGS)


# list --------------------------------------------------------------------------------


def test_list_table_shows_every_registered_metric(capsys: Any) -> None:
    code, out, _ = _run(capsys, "list")
    assert code == 0
    rows = {line.split()[0]: line for line in out.splitlines()[1:] if line.strip()}
    for info in available():
        name = info.name + (f"@{info.at}" if info.at else "")
        assert name in rows
        assert plain_summary(info.summary) in rows[name]
        assert info.inputs in rows[name]
        assert not any(mark in rows[name] for mark in ("``", ":class:`", ":func:`", ":math:`"))
    assert rows["error_rate"].split()[1:3] == ["zero_one_loss", "lower"]
    assert "[0, inf]" in rows["confusion_matrix"] and "—" in rows["confusion_matrix"]


def test_list_json(capsys: Any) -> None:
    code, out, _ = _run(capsys, "list", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert [r["name"] for r in rows] == [info.name for info in available()]
    by_name = {r["name"]: r for r in rows}
    assert by_name["recall"]["aliases"] == ["sensitivity", "tpr"]
    assert by_name["recall"]["direction"] == "higher"
    assert by_name["mcc"]["bounds"] == [-1.0, 1.0]
    assert by_name["confusion_matrix"]["direction"] is None
    assert by_name["confusion_matrix"]["bounds"] == [0.0, "inf"]
    assert "f1:macro" in by_name["f1"]["variants"]
    for info in available():
        assert by_name[info.name]["grows"] is info.grows
        assert by_name[info.name]["inputs"] == info.inputs


# explain -------------------------------------------------------------------------------

NAMES = [pytest.param(info.name, id=info.name) for info in available()]


@pytest.mark.parametrize("name", NAMES)
def test_every_registered_metric_has_an_entry_or_a_docstring(name: str) -> None:
    info = _core.get(name)
    doc = (info.cls.__doc__ or "").strip()
    assert explanation_for(info) is not None or len(doc.splitlines()) > 1


@pytest.mark.parametrize("name", NAMES)
def test_explain_runs_and_shows_the_computed_example(name: str, capsys: Any) -> None:
    code, out, err = _run(capsys, "explain", name)
    assert code == 0, err
    info = _core.get(name)
    assert out.startswith(f"{name}: {info.summary}")
    entry = explanation_for(info)
    if entry is not None:
        assert entry.formula in out
    metric = parse_metric(name)
    data = EXAMPLES.get(metric.inputs)
    if data is None:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = metric.score(*example_args(data))
    if isinstance(value, float | np.floating):
        assert f"-> {float(value)!r}" in out


@pytest.mark.parametrize("spec", SPECS)
def test_explain_computes_the_example_of_every_configuration(spec: str, capsys: Any) -> None:
    code, out, err = _run(capsys, "explain", spec)
    assert code == 0, err
    if parse_metric(spec).inputs in EXAMPLES:
        assert f"parse_metric({spec!r})" in out
        assert "-> error" not in out


def test_explain_entries_are_complete() -> None:
    for name, entry in EXPLANATIONS.items():
        for field in ("definition", "formula", "convention", "reference"):
            assert getattr(entry, field).strip(), (name, field)


def test_explain_a_variant_and_an_alias(capsys: Any) -> None:
    code, out, _ = _run(capsys, "explain", "f1:macro")
    assert code == 0
    data = EXAMPLES["labels"]
    expected = f1(data["y_true"], data["y_pred"], average="macro")
    assert "parse_metric('f1:macro')" in out and f"-> {expected!r}" in out
    code, out, _ = _run(capsys, "explain", "matthews_corrcoef")
    assert code == 0 and out.startswith("mcc: ")


def test_explain_unknown_name(capsys: Any) -> None:
    err = _error(capsys, "explain", "f11")
    assert err.count("scorekit:") == 1
    assert "unknown metric" in err and "close: f1" in err


def test_explain_falls_back_to_the_docstring(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    monkeypatch.delattr(MCC, "explanation")
    code, out, _ = _run(capsys, "explain", "mcc")
    assert code == 0
    assert "Description (from the docstring)" in out and "Gorodkin" in out


# demo ----------------------------------------------------------------------------------


def test_demo_reports_every_bundled_file_with_the_eval_values(capsys: Any) -> None:
    code, out, err = _run(capsys, "demo", "--no-report")
    assert code == 0, err
    for task, entry in MANIFEST.items():
        assert entry["title"] in out and entry["file"] in out
        values = _json(capsys, *_eval_args(task))
        for name, value in values.items():
            if isinstance(value, float):
                assert any(line.split() == [name, f"{value:.4f}"] for line in out.splitlines()), (
                    name
                )


def test_demo_with_a_missing_data_directory(tmp_path: Path, capsys: Any) -> None:
    err = _error(capsys, "demo", "--data", str(tmp_path))
    assert "example data not found" in err and str(tmp_path) in err


def test_bundled_files_have_the_manifest_columns() -> None:
    from scorekit.io._tables import read_table

    for entry in MANIFEST.values():
        columns = entry["true"] + entry.get("pred", []) + entry.get("score", [])
        table = read_table(DATA / entry["file"], columns=columns)
        assert 200 <= table.num_rows <= 1000


# the installed entry points --------------------------------------------------------------


BLOCKER = (
    "import sys\n"
    "from pathlib import Path\n"
    "class Block:\n"
    "    def find_spec(self, name, path=None, target=None):\n"
    "        if name.split('.')[0] in {'pandas', 'scipy', 'sklearn', 'hypothesis'}:\n"
    "            raise ImportError('blocked: ' + name)\n"
    "sys.meta_path.insert(0, Block())\n"
    "Path(__file__).with_name('installed').touch()\n"
)
"""A ``sitecustomize`` that blocks the imports of the test extras, and says it was installed."""


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[bool, Path, Any]:
    """``scorekit demo`` in a child where pandas, scipy, scikit-learn and Hypothesis cannot be
    imported, run once for the tests of the installed entry point and of the demo's needs.

    The child is the console script when it is installed (``python -c`` otherwise), with a
    ``sitecustomize`` on its path blocking the imports before the script starts.
    """
    site = tmp_path_factory.mktemp("blocker")
    (site / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH", "")) if p)
    script = Path(sys.executable).parent / "scorekit"
    command = [str(script), "demo"]
    if not script.exists():
        code = "from scorekit.cli import main\nraise SystemExit(main(['demo']))\n"
        command = [sys.executable, "-c", code]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": path},
    )
    return script.exists(), site / "installed", done


def test_console_script_runs_the_demo(demo_run: tuple[bool, Path, Any]) -> None:
    installed, _, done = demo_run
    if not installed:
        pytest.skip("the console script is not installed in this environment")
    assert done.returncode == 0, done.stderr
    assert "Binary classification" in done.stdout
    # with the report extra installed, the demo writes its HTML report and says where
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("report: ") and last.endswith("demo.html")
    written = Path(last.removeprefix("report: "))
    assert "<svg" in written.read_text(encoding="utf-8")


def test_python_dash_m_scorekit() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "scorekit", "explain", "nope"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("scorekit: ") and "Traceback" not in done.stderr


def test_demo_needs_only_numpy_and_pyarrow(demo_run: tuple[bool, Path, Any]) -> None:
    _, blocked, done = demo_run
    assert blocked.is_file(), "the imports of pandas, scipy, sklearn and hypothesis were open"
    assert done.returncode == 0, done.stderr
    assert "Multi-label classification" in done.stdout


def test_pos_label_applies_to_every_score_metric(tmp_path, capsys):
    import sklearn.metrics as skm

    path = tmp_path / "b.csv"
    path.write_text("y,p\nyes,0.9\nno,0.2\nyes,0.6\nno,0.7\nno,0.1\n", encoding="utf-8")
    args = ["eval", str(path), "--task", "binary", "--true", "y", "--score", "p"]
    assert main([*args, "--pos-label", "no", "--metric", "roc_auc", "--format", "json"]) == 0
    got = json.loads(capsys.readouterr().out)["roc_auc"]
    y = np.array(["yes", "no", "yes", "no", "no"]) == "no"
    assert got == pytest.approx(skm.roc_auc_score(y, [0.9, 0.2, 0.6, 0.7, 0.1]), rel=1e-12)


_PROCESS = (
    "import atexit, sys, threading, time\n"
    "from scorekit.cli import run\n"
    "def late():\n"
    "    time.sleep(0.2)\n"
    "    sys.stdout.write('thread joined;')\n"
    "threading.Thread(target=late).start()\n"
    "atexit.register(lambda: sys.stdout.write('handler ran;'))\n"
    "sys.argv = ['scorekit', *sys.argv[1:]]\n"
    "run()\n"
)
"""A child that starts a thread and an exit handler, then runs the ``scorekit`` process."""


@pytest.mark.parametrize(("args", "status"), [(("--version",), 0), (("eval", "missing.csv"), 2)])
def test_the_process_ends_with_the_status_of_main_after_its_threads_and_exit_handlers(
    tmp_path: Path, args: tuple[str, ...], status: int
) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", _PROCESS, *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=dict(os.environ, SCOREKIT_NO_PLUGINS="1"),
        check=False,
    )
    assert proc.returncode == status, proc.stderr
    # written without a newline to a pipe, so only the flush before the end shows them
    assert proc.stdout.endswith("thread joined;handler ran;")
    assert ("scorekit: " in proc.stderr) == (status == 2)


_ENDING = (
    "import sys\n"
    "import scorekit.cli as cli\n"
    "def main():\n"
    "    sys.stdout.write('out;')\n"
    "    return eval(sys.argv[1])\n"
    "cli.main = main\n"
    "cli.run()\n"
)
"""A child whose command writes ``out;`` and then evaluates its argument."""


@pytest.mark.parametrize(
    ("ending", "status", "message"),
    [
        ("None", 0, ""),
        ("3", 3, ""),
        ("'a reason'", 1, "a reason\n"),
        ("(_ for _ in ()).throw(KeyboardInterrupt())", 130, "scorekit: interrupted\n"),
        ("(_ for _ in ()).throw(SystemExit(4))", 4, ""),
        ("1 / 0", 1, "ZeroDivisionError: division by zero\n"),
    ],
)
def test_the_process_ends_with_a_status_however_the_command_ends(
    ending: str, status: int, message: str
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    proc = subprocess.run(
        [sys.executable, "-c", _ENDING, ending], capture_output=True, text=True, env=env
    )
    assert (proc.returncode, proc.stdout) == (status, "out;")
    assert proc.stderr.endswith(message)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_output_that_cannot_be_written_is_status_120_with_a_message() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [sys.executable, "-c", _ENDING, "0"], stdout=full, stderr=subprocess.PIPE, env=env
        )
    assert proc.returncode == 120
    assert proc.stderr.decode().startswith("scorekit: cannot write the output; got ")
