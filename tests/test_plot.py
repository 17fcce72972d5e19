"""The data of the figures: the points drawn are the reference curves', from inputs or states."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sklearn.calibration import calibration_curve as sk_calibration_curve
from sklearn.metrics import confusion_matrix as sk_confusion_matrix
from sklearn.metrics import precision_recall_curve, roc_curve

pytest.importorskip("matplotlib")

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

import scorekit
from scorekit import plot
from scorekit.classification import (
    Accuracy,
    ExpectedCalibrationError,
    ROCCurveMetric,
)
from scorekit.errors import InputError

DATA = Path(__file__).resolve().parent.parent / "examples" / "data"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.clip(np.round(0.3 * y + 0.7 * rng.random(n), 2), 0, 1)
    return y, s


def test_roc_points_equal_scikit_learn_from_inputs_and_from_merged_states():
    y, s = _data()
    fpr, tpr, _ = roc_curve(y, s)
    ax = plot.roc(y, s)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), fpr, rtol=1e-12)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), tpr, rtol=1e-12)
    metric = ROCCurveMetric()
    state = metric.summarize(y[:150], s[:150]).merge(metric.summarize(y[150:], s[150:]))
    ax = plot.roc(state)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), fpr, rtol=1e-12)


def test_pr_points_equal_scikit_learn():
    y, s = _data(seed=1)
    precision, recall, _ = precision_recall_curve(y, s)
    ax = plot.pr(y, s)
    np.testing.assert_allclose(ax.lines[0].get_xdata(), recall, rtol=1e-12)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), precision, rtol=1e-12)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_calibration_points_equal_scikit_learn_from_data_and_both_states(strategy):
    y, s = _data(seed=2)
    prob_true, prob_pred = sk_calibration_curve(y, s, n_bins=8, strategy=strategy)
    for source in (
        (y, s),
        (ExpectedCalibrationError().summarize(y, s),),
        (ROCCurveMetric().summarize(y, s),),
    ):
        ax = plot.calibration(*source, n_bins=8, strategy=strategy)
        curve = ax.lines[1]
        np.testing.assert_allclose(curve.get_xdata(), prob_pred, rtol=1e-12)
        np.testing.assert_allclose(curve.get_ydata(), prob_true, rtol=1e-12)
        plt.close("all")


def test_calibration_from_an_evaluation_result():
    y, s = _data(seed=3)
    result = scorekit.evaluate({"y_true": y, "y_proba": s}, ["ece"], chunk_size=50)
    ax = plot.calibration(result, n_bins=5)
    np.testing.assert_allclose(ax.lines[1].get_ydata(), sk_calibration_curve(y, s, n_bins=5)[0])


def test_confusion_matrix_cells_equal_scikit_learn():
    y = ["cat", "dog", "cat", "eel", "dog", "dog"]
    p = ["cat", "cat", "cat", "eel", "dog", "eel"]
    want = sk_confusion_matrix(y, p)
    ax = plot.confusion_matrix(Accuracy().summarize(y, p))
    np.testing.assert_array_equal(ax.images[0].get_array(), want)
    assert [t.get_text() for t in ax.texts] == [str(v) for v in want.ravel()]
    ax = plot.confusion_matrix(y, p, normalize="true")
    np.testing.assert_allclose(
        ax.images[0].get_array(), sk_confusion_matrix(y, p, normalize="true")
    )


def test_score_distribution_counts_every_sample_once():
    y, s = _data(seed=4)
    ax = plot.score_distribution(y, s, bins=10)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["0", "1"]
    assert len(ax.patches) == 2


def test_multiclass_state_draws_one_curve_per_class():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, 90)
    p = rng.dirichlet(np.ones(3), 90)
    result = scorekit.evaluate({"y_true": y, "y_score": p}, ["roc_auc:multi_class=ovr"])
    state = result.states["roc_auc:multi_class=ovr"]
    ax = plot.roc(state)
    for c in range(3):
        fpr, tpr, _ = roc_curve(y == c, p[:, c], drop_intermediate=False)
        np.testing.assert_allclose(ax.lines[c].get_xdata(), fpr, rtol=1e-12)
        np.testing.assert_allclose(ax.lines[c].get_ydata(), tpr, rtol=1e-12)


def test_regression_serving_ranking_and_compare_figures():
    t, p = np.arange(10.0), np.arange(10.0) + 0.5
    ax = plot.predicted_vs_true(t, p)
    np.testing.assert_array_equal(ax.collections[0].get_offsets()[:, 0], t)
    ax = plot.residuals(t, p)
    np.testing.assert_allclose(ax.collections[0].get_offsets()[:, 1], 0.5)
    ax = plot.latency_cdf({"e2e": [0.3, 0.1, 0.2]})
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [100, 200, 300])
    ax = plot.throughput_over_time([0, 0, 1], [1, 2, 2], bins=2)
    assert ax.get_ylabel() == "requests/s"
    ax = plot.per_query([0.1, 0.9, 0.5])
    assert sum(patch.get_height() for patch in ax.patches) == 3

    class WithInterval:
        value, low, high = 0.5, 0.4, 0.7

    ax = plot.compare({"a": {"m": WithInterval()}, "b": {"m": 0.3}})
    assert [patch.get_height() for patch in ax.patches] == [0.5, 0.3]
    assert len(ax.containers[0].lines[2]) == 1


def test_large_inputs_are_thinned_in_scatter_figures():
    t = np.linspace(0, 1, 20_000)
    ax = plot.predicted_vs_true(t, t)
    assert len(ax.collections[0].get_offsets()) == 5000


def test_bad_inputs_name_the_figure():
    with pytest.raises(InputError, match=r"scorekit\.plot\.roc"):
        plot.roc([0, 1])
    with pytest.raises(InputError, match="not probabilities"):
        plot.calibration(ROCCurveMetric().summarize([0, 1], [-3.0, 4.0]))
    with pytest.raises(InputError, match=r"scorekit\.plot\.predicted_vs_true"):
        plot.predicted_vs_true([1.0, 2.0], [1.0])


def test_residuals_of_a_quantile_sketch_read_its_quantiles():
    from scorekit.regression import MedAE

    rng = np.random.default_rng(6)
    t, p = rng.normal(size=(500, 2)), rng.normal(size=(500, 2))
    state = MedAE(relative_accuracy=0.01).summarize(t, p)
    ax = plot.residuals(state)
    assert len(ax.lines) == 2
    np.testing.assert_allclose(ax.lines[1].get_ydata(), np.linspace(0.01, 0.99, 99))
    np.testing.assert_allclose(ax.lines[1].get_xdata()[49], state.quantile(0.5)[1])
    exact = np.quantile(np.abs(t - p)[:, 0], 0.9)
    assert ax.lines[0].get_xdata()[89] == pytest.approx(exact, rel=0.03)


def test_sweep_draws_each_step_at_its_throughput_and_latency():
    from scorekit import throughput

    records = throughput.read_records(DATA / "requests.jsonl")
    halves = [records.slice(0, 100), records.slice(100)]
    steps = [(f"rate {k}", throughput.report(part)) for k, part in enumerate(halves)]
    ax = plot.sweep(steps, latency="ttft", statistics=("p99",))
    np.testing.assert_allclose(ax.lines[0].get_xdata(), [r.output_throughput for _, r in steps])
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [r.ttft.p99 * 1000 for _, r in steps])
    assert [t.get_text() for t in ax.texts] == ["rate 0", "rate 1"]
    with pytest.raises(InputError, match="unknown latency"):
        plot.sweep(steps, latency="ttfb")


def test_compare_draws_the_differences_of_stats_compare():
    from scorekit import stats

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300)
    a = np.where(rng.random(300) < 0.7, y, 1 - y)
    b = np.where(rng.random(300) < 0.8, y, 1 - y)
    c = np.where(rng.random(300) < 0.75, y, 1 - y)
    rows = stats.compare("accuracy", y, a, b, c, n_resamples=200, correction="holm")
    ax = plot.compare(rows)
    bars = ax.containers[0]
    np.testing.assert_allclose(bars.lines[0].get_xdata(), [r.difference for r in rows])
    segments = bars.lines[2][0].get_segments()
    np.testing.assert_allclose([s[0][0] for s in segments], [r.low for r in rows])
    np.testing.assert_allclose([s[1][0] for s in segments], [r.high for r in rows])
    assert [t.get_text() for t in ax.texts] == [f"p = {r.adjusted:.3g}" for r in rows]


def test_per_query_names_its_unit():
    ax = plot.per_query([0.2, 0.4], name="bleu", unit="segment")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("bleu per segment", "Segments")
