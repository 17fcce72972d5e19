"""Hostile numbers and call shapes: overflow, wrong inputs, huge size options, bad records."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest

import scorekit
from hostile import assert_clean_error, write
from hostile import scorekit as hostile_scorekit
from scorekit import classification as C
from scorekit import information as I
from scorekit import regression as R
from scorekit.errors import ConfigError, InputError


@pytest.mark.parametrize(
    ("args", "kwargs", "got"),
    [
        (([1, 0],), {}, "got 1 positional input,"),
        (([1, 0], [1, 0], [1, 1], [2]), {}, "got 4 positional inputs,"),
        (([1, 0], [1, 0]), {"weights": [1, 1]}, "keyword 'weights'"),
    ],
)
def test_score_with_wrong_inputs(args: tuple, kwargs: dict, got: str) -> None:
    """[crash] Metric.score with too few, too many or unknown inputs names the inputs it takes."""
    metric = scorekit.parse_metric("accuracy")
    with pytest.raises(InputError, match="accuracy: wrong inputs") as info:
        metric.score(*args, **kwargs)
    assert got in str(info.value)
    assert "(y_true, y_pred, sample_weight=None)" in str(info.value)
    with pytest.raises(InputError, match="accuracy: wrong inputs"):
        metric.update(metric.empty(), *args, **kwargs)


# overflow of weighted sums -------------------------------------------------------------

HUGE = [1e308, 6e307, 1e308, 1e308, 6e307]
SMALL = [1.0, 0.6, 1.0, 1.0, 0.6]
Y_TRUE = [0, 1, 1, 0, 1]
Y_PRED = [0, 1, 0, 1, 1]


@pytest.mark.parametrize(
    "name", ["accuracy", "mcc", "balanced_accuracy", "cohen_kappa", "f1:macro", "f1:micro"]
)
def test_huge_sample_weights_on_counts(name: str) -> None:
    """[silent] Sample weights near 1e308 give the value of scaled-down weights, not nan."""
    metric = scorekit.parse_metric(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = metric.score(Y_TRUE, Y_PRED, sample_weight=HUGE)
    assert value == pytest.approx(metric.score(Y_TRUE, Y_PRED, sample_weight=SMALL), abs=1e-12)


def test_huge_sample_weights_on_classification_functions() -> None:
    """[silent] Per-class values, normalized matrices and tiny weights survive scaling."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p, r, f, support = C.precision_recall_fscore_support(
            [0, 1, 1], [0, 1, 0], sample_weight=[1e308, 5e307, 5e307], average=None
        )
        matrix = C.confusion_matrix(Y_TRUE, Y_PRED, sample_weight=HUGE, normalize="true")
        tiny = C.mcc(Y_TRUE, Y_PRED, sample_weight=[1e-200] * 5)
    assert (p.tolist(), r.tolist()) == ([2 / 3, 1.0], [1.0, 0.5])
    assert f.tolist() == pytest.approx([0.8, 2 / 3])
    assert support.tolist() == [1e308, 1e308]
    assert matrix.ravel().tolist() == pytest.approx([0.5, 0.5, 1 / 2.2, 1.2 / 2.2])
    assert tiny == pytest.approx(C.mcc(Y_TRUE, Y_PRED))


def test_huge_sample_weights_on_information() -> None:
    """[silent] Gini impurity, entropy and information gain of weights near 1e308."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gini = I.gini_impurity([0, 1], kind="labels", sample_weight=[1e308, 1e308])
        gain = I.information_gain([0, 1, 2, 3], [0, 1, 0, 1], sample_weight=HUGE[:4])
        cut = I.gini_gain([0.0, 1, 2, 3], [0, 0, 1, 1], feature="numeric", sample_weight=HUGE[1:])
        mi = I.mutual_information([0, 1, 2, 3], [0, 1, 0, 1], sample_weight=HUGE[1:])
        h = I.entropy([1e308, 1e308], normalize=True)
        g = I.gini_impurity([1e308, 1e308], normalize=True)
        small = I.entropy([1e-320, 1e-320], normalize=True)
    assert (gini, cut, mi, h, g, small) == (0.5, 0.5, 1.0, 1.0, 0.5, 1.0)
    assert gain == pytest.approx(
        I.information_gain([0, 1, 2, 3], [0, 1, 0, 1], sample_weight=SMALL[:4]), abs=1e-12
    )


@pytest.mark.parametrize(
    ("name", "batch"),
    [
        ("accuracy", ([0, 1], [0, 1])),
        ("mcc", ([0, 1], [0, 1])),
        ("f1", ([0, 1], [0, 1])),
        ("gini_impurity", ([0, 1],)),
        ("entropy", ([0, 1],)),
        ("information_gain", ([0, 1], [0, 1])),
    ],
)
def test_merged_weights_beyond_float64(name: str, batch: tuple) -> None:
    """[silent] Two chunks whose weights add up past 1.8e308: an error naming the metric."""
    metric = scorekit.parse_metric(name)
    chunk = metric.summarize(*batch, sample_weight=[1e308, 1e308])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's, while the states add up
        merged = metric.merge(chunk, chunk)
    with pytest.raises(InputError, match=f"^{name}: the sum of sample weights overflows float64"):
        metric.compute(merged)


_SCORES = ([0, 1, 1], [0.2, 0.7, 0.4])
_MULTICLASS = ([0, 1, 2], [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])


@pytest.mark.parametrize(
    ("spec", "batch"),
    [
        ("roc_auc", _SCORES),
        ("average_precision", _SCORES),
        ("roc_curve", _SCORES),
        ("log_loss", _SCORES),
        ("brier", _SCORES),
        ("expected_calibration_error", _SCORES),
        ("roc_auc:multi_class=ovr", _MULTICLASS),
        ("top_k_accuracy", _MULTICLASS),
        ("jaccard", ([[0, 1], [1, 1], [1, 0]], [[0, 1], [1, 0], [1, 0]])),
        ("hamming_loss", ([[0, 1], [1, 1], [1, 0]], [[0, 1], [1, 0], [1, 0]])),
    ],
)
def test_weights_adding_up_beyond_float64(spec: str, batch: tuple) -> None:
    """[silent] Weights whose sum passes 1.8e308 are an error naming the metric, not nan or 0."""
    metric = scorekit.parse_metric(spec)
    name = spec.split(":")[0]
    with pytest.raises(InputError, match=f"^{name}: the sum of sample weights overflows float64"):
        metric.summarize(*batch, sample_weight=[1e308, 1e308, 1e308])


def test_medae_of_weights_adding_up_beyond_float64() -> None:
    """[silent] The weighted median is taken on the weights scaled by a power of two."""
    y, p = [0.0, 1.0, 2.0, 4.0], [0.5, 1.0, 3.0, 4.0]
    assert R.medae(y, p, sample_weight=[1e308] * 4) == R.medae(y, p) == 0.25
    assert R.medae(y, p, sample_weight=[1e308, 1e308, 1e308, 1]) == 0.5


def test_count_beyond_float64() -> None:
    """[silent] A weighted count (normalize=False) that is not representable is an error."""
    with pytest.raises(InputError, match="accuracy: the sum of sample weights overflows"):
        C.accuracy([0, 1], [0, 1], sample_weight=[1e308, 1e308], normalize=False)
    assert C.error_rate([0, 1], [0, 0], sample_weight=[1e308, 1e308], normalize=False) == 1e308


# empty label sets ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: C.f1([0, 1], [0, 1], labels=[], average="macro"),
        lambda: C.precision([0, 1], [0, 1], labels=[], average="weighted"),
        lambda: C.recall([0, 1], [0, 1], labels=[], average=None),
        lambda: C.fbeta([0, 1], [0, 1], beta=2, labels=[], average="micro"),
        lambda: C.confusion_matrix([0, 1], [0, 1], labels=[]),
        lambda: C.cohen_kappa([0, 1], [0, 1], labels=[]),
        lambda: C.classification_report([0, 1], [0, 1], labels=[]),
    ],
)
def test_empty_labels(call: Callable[[], object]) -> None:
    """[silent] labels=[] is a ConfigError naming the option, not a silent nan."""
    with pytest.raises(ConfigError, match=r"^\w+: labels is empty; got \[\]"):
        call()


# overflow of sums of squares -----------------------------------------------------------


def test_rmse_of_huge_errors() -> None:
    """[silent] rmse([1e200, 0], [0, 0]) is 7.07e199 (scaled like LAPACK nrm2), not inf."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert R.rmse([1e200, 0.0], [0.0, 0.0]) == pytest.approx(1e200 / math.sqrt(2), rel=1e-15)
        weighted = R.rmse([1e200, 0.0], [0.0, 0.0], sample_weight=[1e308, 1e308])
        per_output = R.rmse(
            [[1e200, 3.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 4.0]], multioutput="raw_values"
        )
    assert weighted == pytest.approx(1e200 / math.sqrt(2), rel=1e-15)
    assert per_output.tolist() == pytest.approx([1e200 / math.sqrt(2), 2.5 * math.sqrt(2)])


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: R.mse([1e200, 0.0], [0.0, 0.0]), "mse: the .* sum of its error terms overflows"),
        (lambda: R.mae([1e308, 1e308], [-1e308, 0.0]), "mae: the .* sum of its error terms"),
        (lambda: R.mse([1, 2], [0, 0], sample_weight=[1e308, 1e308]), "mse: the .* overflows"),
        (lambda: R.rmse([1e308], [-1e308]), "rmse: y_true - y_pred overflows float64"),
        (lambda: R.r2([1e200, -1e200, 0.0], [0, 0, 1]), "r2: the .* sum of squares overflows"),
        (
            lambda: R.explained_variance([1e200, -1e200, 0.0], [0, 0, 1]),
            "explained_variance: the .* sum of squares overflows",
        ),
        (lambda: R.max_error([1e308, 0.0], [-1e308, 0.0]), "max_error: y_true - y_pred overflows"),
        (lambda: R.medae([1e308, 0.0], [-1e308, 0.0]), "medae: y_true - y_pred overflows"),
    ],
)
def test_regression_sums_beyond_float64(call: Callable[[], object], match: str) -> None:
    """[silent] A mean or sum of squares beyond float64 is an error, not inf with a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(InputError, match=match):
            call()


def test_rmse_of_merged_states_beyond_float64() -> None:
    """[silent] Chunks whose summed squares overflow when merged: an error naming the metric."""
    metric = scorekit.parse_metric("rmse")
    chunk = metric.summarize([1e154], [0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's, while the states add up
        merged = metric.merge(chunk, chunk)
    with pytest.raises(InputError, match=r"rmse: the .* sum of its error terms overflows float64"):
        metric.compute(merged)


# size options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: scorekit.parse_metric("roc_auc:bins=100000000000"), "roc_auc: too many bins"),
        (lambda: C.average_precision([0, 1], [0.2, 0.8], bins=2**21), "average_precision: too"),
        (lambda: C.quantile_edges([0.1, 0.2], 10**12), "quantile_edges: too many bins"),
        (lambda: C.classification_report([0, 1], [0, 1], digits=10**9), "too many digits"),
    ],
)
def test_size_options_are_capped(call: Callable[[], object], match: str) -> None:
    """[memory] A bins or digits option that would allocate gigabytes is a ConfigError."""
    with pytest.raises(ConfigError, match=match):
        call()


def test_huge_chunk_size_in_evaluate() -> None:
    """[crash] evaluate(..., chunk_size=2**63) is a ConfigError, not an OverflowError."""
    table = {"y_true": [0, 1], "y_pred": [0, 1]}
    with pytest.raises(ConfigError, match="chunk_size is too large; got 9223372036854775808"):
        scorekit.evaluate(table, ["accuracy"], chunk_size=2**63)


def test_huge_chunk_size_on_the_command_line(tmp_path: Path) -> None:
    """[crash] scorekit eval --chunk-size 2**63: a clear error, exit status 2."""
    data = write(tmp_path / "a.csv", ["y_true,y_pred", "0,1", "1,1"])
    args = ("--task", "binary", "--true", "y_true", "--pred", "y_pred", "--metric", "accuracy")
    proc = hostile_scorekit("eval", data, *args, "--chunk-size", str(2**63))
    assert_clean_error(proc, "chunk_size is too large", "9223372036854775808")


def test_roc_auc_bins_on_the_command_line(tmp_path: Path) -> None:
    """[memory] --metric roc_auc:bins=100000000000 is refused before any allocation."""
    data = write(tmp_path / "a.csv", ["y_true,s", "0,0.1", "1,0.9"])
    args = ("--task", "binary", "--true", "y_true", "--score", "s")
    proc = hostile_scorekit("eval", data, *args, "--metric", "roc_auc:bins=100000000000")
    assert_clean_error(proc, "roc_auc: too many bins", "at most 1048576")


# request records -----------------------------------------------------------------------

RECORD = {"prompt_tokens": 5, "output_tokens": 2, "start": 0.0, "end": 1.0}


@pytest.mark.parametrize(
    ("records", "match"),
    [
        (
            [{**RECORD, "output_tokens": "3"}],
            r"output_tokens is text, not a number, at records\[0\]",
        ),
        (
            {key: [value] for key, value in {**RECORD, "prompt_tokens": "5"}.items()},
            r"prompt_tokens is text, not a number, at row 0",
        ),
        (
            [RECORD, {**RECORD, "success": True, "error": "boom"}],
            r"a successful request gives an error at records\[1\]\['error'\]",
        ),
        (RECORD, "records must be a list of records or a dict of columns; got a dict whose"),
    ],
)
def test_bad_request_records(records: object, match: str) -> None:
    """[silent] Text token counts, success with an error, one dict: errors naming the record."""
    from scorekit import throughput as T

    with pytest.raises(InputError, match=f"^output_throughput: {match}"):
        T.output_throughput(records)


def test_bad_request_records_in_a_file(tmp_path: Path) -> None:
    """[silent] scorekit throughput on JSON Lines with "3" tokens or success and error."""
    good = '{"prompt_tokens": 5, "output_tokens": 3, "start": 0.0, "end": 1.0'
    text = write(tmp_path / "text.jsonl", [good.replace(": 3,", ': "3",') + "}"])
    proc = hostile_scorekit("throughput", text)
    assert_clean_error(proc, "output_tokens is text", "text.jsonl, line 1", "'3'")
    both = write(tmp_path / "both.jsonl", [good + "}", good + ', "success": true, "error": "x"}'])
    proc = hostile_scorekit("throughput", both)
    assert_clean_error(proc, "a successful request gives an error", "both.jsonl, line 2")
