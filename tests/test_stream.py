"""scorekit.evaluate over in-memory tables: sources, metrics, options, columns and results."""

from __future__ import annotations

import subprocess
import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from sklearn import metrics as skm

import scorekit
from scorekit import evaluate, parse_metric
from scorekit.core import MergeTree
from scorekit.engines import stream
from scorekit.engines._columns import resolve
from scorekit.errors import ConfigError, InputError, UndefinedMetricWarning

RNG = np.random.default_rng(7)
N = 257
Y_TRUE = RNG.integers(0, 3, N)
Y_PRED = np.where(RNG.random(N) < 0.7, Y_TRUE, RNG.integers(0, 3, N))
TARGET = RNG.normal(size=N)
ESTIMATE = TARGET + RNG.normal(size=N) * 0.3
WEIGHT = RNG.random(N) * 2


def _table() -> pa.Table:
    return pa.table(
        {
            "y_true": Y_TRUE,
            "y_pred": Y_PRED,
            "target": TARGET,
            "estimate": ESTIMATE,
            "w": WEIGHT,
        }
    )


LABEL_METRICS = ["accuracy", "f1:macro", "mcc", "cohen_kappa"]
EXPECTED = {
    "accuracy": skm.accuracy_score(Y_TRUE, Y_PRED),
    "f1:macro": skm.f1_score(Y_TRUE, Y_PRED, average="macro"),
    "mcc": skm.matthews_corrcoef(Y_TRUE, Y_PRED),
    "cohen_kappa": skm.cohen_kappa_score(Y_TRUE, Y_PRED),
}


@pytest.mark.parametrize("chunk_size", [1, 2, 10, 64, N, 10 * N])
def test_chunked_table_matches_scikit_learn(chunk_size: int) -> None:
    result = evaluate(_table(), LABEL_METRICS, chunk_size=chunk_size, progress=False)
    assert result.rows == N
    assert list(result.values) == LABEL_METRICS
    for key, value in EXPECTED.items():
        assert result.values[key] == pytest.approx(value, rel=1e-12), key
    # integer counts: the state of every chunking is the state of the whole
    assert result.states["accuracy"].equals(parse_metric("accuracy").summarize(Y_TRUE, Y_PRED))


def test_every_in_memory_source_gives_the_same_values() -> None:
    table = _table()
    sources: list[Any] = [
        table,
        table.to_batches()[0],
        table.to_pandas(),
        {name: table.column(name).to_numpy() for name in table.column_names},
        {name: table.column(name).to_pylist() for name in table.column_names},
    ]
    results = [evaluate(s, LABEL_METRICS, chunk_size=50).values for s in sources]
    assert all(r == results[0] for r in results)
    assert results[0]["accuracy"] == pytest.approx(EXPECTED["accuracy"])


def test_pandas_categorical_and_string_labels() -> None:
    frame = pd.DataFrame(
        {
            "y_true": pd.Categorical(["cat", "dog", "dog", "bird", "cat"]),
            "y_pred": ["cat", "dog", "cat", "bird", "dog"],
        }
    )
    result = evaluate(frame, ["accuracy", "f1:micro"], chunk_size=2)
    assert result.values == {"accuracy": 0.6, "f1:micro": 0.6}


def test_only_the_columns_read_are_converted() -> None:
    frame = pd.DataFrame({"y_true": [1, 0], "y_pred": [1, 1], "mixed": [1, "one"]})
    with pytest.raises(pa.ArrowException):
        pa.Table.from_pandas(frame)
    assert evaluate(frame, ["accuracy"]).values == {"accuracy": 0.5}
    columns = {"y_true": [1, 0], "y_pred": [1, 1], "mixed": [1, "one"]}
    assert evaluate(columns, ["accuracy"]).values == {"accuracy": 0.5}


def test_regression_with_columns_and_weights() -> None:
    columns = {"y_true": "target", "y_pred": "estimate", "sample_weight": "w"}
    result = evaluate(_table(), ["mse", "mae", "r2"], columns=columns, chunk_size=30)
    assert result.values["mse"] == pytest.approx(
        skm.mean_squared_error(TARGET, ESTIMATE, sample_weight=WEIGHT), rel=1e-12
    )
    assert result.values["mae"] == pytest.approx(
        skm.mean_absolute_error(TARGET, ESTIMATE, sample_weight=WEIGHT), rel=1e-12
    )
    assert result.values["r2"] == pytest.approx(
        skm.r2_score(TARGET, ESTIMATE, sample_weight=WEIGHT), rel=1e-12
    )


def test_matrix_inputs_from_several_columns_a_list_column_or_a_2d_array() -> None:
    truth = RNG.integers(0, 2, (40, 3))
    guess = RNG.integers(0, 2, (40, 3))
    expected = skm.hamming_loss(truth, guess)
    several = {f"t{j}": truth[:, j] for j in range(3)} | {f"g{j}": guess[:, j] for j in range(3)}
    cols = {"y_true": ["t0", "t1", "t2"], "y_pred": ["g0", "g1", "g2"]}
    assert evaluate(several, ["hamming_loss"], columns=cols, chunk_size=7)["hamming_loss"] == (
        pytest.approx(expected)
    )
    lists = {"y_true": truth.tolist(), "y_pred": guess.tolist()}
    assert evaluate(lists, ["hamming_loss"], chunk_size=7)["hamming_loss"] == pytest.approx(
        expected
    )
    arrays = {"y_true": truth, "y_pred": guess}
    assert evaluate(arrays, ["hamming_loss"], chunk_size=7)["hamming_loss"] == pytest.approx(
        expected
    )


def test_text_and_log_probability_columns() -> None:
    refs = [["the cat sat", "a cat sat"], ["the dog ran"], ["hello there"]]
    hyps = ["the cat sat", "a dog ran", "hello"]
    bleu = parse_metric("bleu")
    got = evaluate({"references": refs, "predictions": hyps}, ["bleu"], chunk_size=1)
    assert got["bleu"] == pytest.approx(bleu.score(refs, hyps), rel=1e-12)
    log_probs = [np.log([0.5, 0.25]), np.log([1.0]), np.array([])]
    ppl = evaluate({"log_probs": log_probs}, ["perplexity"], chunk_size=2)["perplexity"]
    assert ppl == pytest.approx(np.exp(-np.log([0.5, 0.25, 1.0]).mean()))


def test_keys_objects_duplicates_and_single_metric() -> None:
    f1_macro = parse_metric("f1:macro")
    result = evaluate(_table(), ["accuracy", f1_macro, "accuracy"], chunk_size=100)
    assert list(result.values) == ["accuracy", "f1"]
    assert result.metrics["f1"] is f1_macro
    assert result.values["f1"] == pytest.approx(EXPECTED["f1:macro"])
    assert evaluate(_table(), "mcc").values == {"mcc": pytest.approx(EXPECTED["mcc"])}
    with pytest.raises(ConfigError, match="two different metrics under one name"):
        evaluate(_table(), [parse_metric("f1:macro"), parse_metric("f1:micro")])


def test_values_are_computed_from_the_states() -> None:
    result = evaluate(_table(), LABEL_METRICS, chunk_size=13)
    for key, metric in result.metrics.items():
        assert metric.compute(result.states[key]) == result.values[key]


def test_states_of_shards_merge_to_the_whole() -> None:
    table = _table()
    first = evaluate(table.slice(0, 100), LABEL_METRICS, chunk_size=16)
    second = evaluate(table.slice(100), LABEL_METRICS, chunk_size=16)
    for key, metric in first.metrics.items():
        merged = metric.merge(first.states[key], second.states[key])
        assert metric.compute(merged) == pytest.approx(EXPECTED[key], rel=1e-12)


def test_options_go_to_the_metrics_that_take_them() -> None:
    data = {"y_true": ["cat", "dog", "dog", "cat"], "y_pred": ["cat", "cat", "dog", "cat"]}
    result = evaluate(data, ["precision", "recall", "accuracy"], pos_label="dog")
    assert result.values == {"precision": 1.0, "recall": 0.5, "accuracy": 0.75}
    assert result.metrics["precision"].pos_label == "dog"
    with pytest.raises(ConfigError, match="none of the metrics takes; got 'beta'"):
        evaluate(data, ["accuracy"], beta=2.0)


@pytest.mark.parametrize("name", ["confusion_matrix", "mse", "accuracy"])
def test_empty_input_behaves_like_the_in_memory_metric(name: str) -> None:
    empty = {"y_true": pa.array([], pa.int64()), "y_pred": pa.array([], pa.int64())}
    with pytest.raises(InputError) as streamed:
        evaluate(empty, [name])
    with pytest.raises(InputError) as direct:
        parse_metric(name).score(np.array([], np.int64), np.array([], np.int64))
    assert str(streamed.value) == str(direct.value)
    assert "empty input" in str(streamed.value)


def test_missing_and_badly_mapped_columns() -> None:
    with pytest.raises(InputError) as info:
        evaluate({"label": [1], "y_pred": [1]}, ["accuracy"])
    text = str(info.value)
    assert "accuracy: no column for its input 'y_true'; got 'y_true'" in text
    assert "'label', 'y_pred'" in text and "columns={'y_true': NAME}" in text
    with pytest.raises(ConfigError, match="columns given for an input no metric reads"):
        evaluate(_table(), ["accuracy"], columns={"y_score": "target"})
    with pytest.raises(ConfigError, match="invalid column for 'y_true'"):
        evaluate(_table(), ["accuracy"], columns={"y_true": 3})


def test_bad_values_name_the_row_across_chunks() -> None:
    data = {"y_true": [0.5, 1.0, 2.0, None, 1.0], "y_pred": [0.5, 1.0, 2.0, 1.0, 1.0]}
    with pytest.raises(InputError) as info:
        evaluate(data, ["mse"], chunk_size=2)
    assert str(info.value) == (
        "table, row 4, column 'y_true': missing value; got an empty cell or null, expected a value."
    )
    with pytest.raises(InputError, match="column 'y_true' must be numeric; got list"):
        evaluate({"y_true": [[1.0]], "y_pred": [1.0]}, ["mse"])


def test_bad_sources_and_settings() -> None:
    with pytest.raises(InputError, match="cannot read the source; got int"):
        evaluate(42, ["accuracy"])
    with pytest.raises(InputError, match="column 'y_pred' has a different length"):
        evaluate({"y_true": [1, 2], "y_pred": [1], "unused": []}, ["accuracy"])
    with pytest.raises(InputError, match="column names must be strings; got 1"):
        evaluate({"y_true": [1], 1: [1]}, ["accuracy"])
    with pytest.raises(ConfigError, match="invalid chunk_size; got 0"):
        evaluate(_table(), ["accuracy"], chunk_size=0)
    with pytest.raises(ConfigError, match="unknown engine; got 'flink'"):
        evaluate(_table(), ["accuracy"], engine="flink")
    with pytest.raises(ConfigError, match="workers is an option of the Dask engine"):
        evaluate(_table(), ["accuracy"], workers=2)
    # only the option the chosen engine does not take is named
    with pytest.raises(
        ConfigError, match=r"^evaluate: partitions is an option of the Spark engine"
    ):
        evaluate(_table(), ["accuracy"], engine="dask", workers=1, partitions=2)
    with pytest.raises(ConfigError, match="no metric to compute"):
        evaluate(_table(), [])
    with pytest.raises(ConfigError, match="unknown metric"):
        evaluate(_table(), ["acuracy"])
    with pytest.raises(ConfigError, match="metrics must be names or Metric objects"):
        evaluate(_table(), [3])


def test_fold_is_reusable_on_any_chunks() -> None:
    metrics = [parse_metric(m) for m in LABEL_METRICS]
    table = _table()
    mapping = resolve(metrics, None, table.column_names)
    pieces = [table.slice(0, 3), table.slice(3, 0), table.slice(3, 200), table.slice(203)]
    states, rows = stream.fold(metrics, pieces, mapping)
    assert rows == N
    for metric, state, key in zip(metrics, states, LABEL_METRICS, strict=True):
        assert metric.compute(state) == pytest.approx(EXPECTED[key], rel=1e-12)
    empty, none = stream.fold(metrics, [], mapping)
    assert none == 0 and all(s.equals(m.empty()) for s, m in zip(empty, metrics, strict=True))


def test_merges_form_a_balanced_tree_in_order() -> None:
    # concat states keep the order of the data: earlier chunks stay on the left
    calls: list[tuple[int, int]] = []

    class Span:
        def __init__(self, lo: int, hi: int) -> None:
            self.lo, self.hi = lo, hi

    class Spans:
        def merge(self, a: Span, b: Span) -> Span:
            assert a.hi == b.lo
            calls.append((a.hi - a.lo, b.hi - b.lo))
            return Span(a.lo, b.hi)

    tree = MergeTree([Spans()])  # type: ignore[list-item]
    for i in range(11):
        tree.add([Span(i, i + 1)])  # type: ignore[list-item]
    (whole,) = tree.result()
    assert (whole.lo, whole.hi) == (0, 11)  # type: ignore[attr-defined]
    assert len(calls) == 10
    assert max(a for a, _ in calls) == 8  # log-depth: no chain of 10 sequential merges


def test_gathered_states_are_merged_once_their_bytes_pass_the_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorekit.core import _fold, state_nbytes

    metric = parse_metric("roc_auc:bins=4096")
    rng = np.random.default_rng(3)
    batches = [(rng.integers(0, 2, 300), rng.random(300)) for _ in range(40)]
    states = [metric.summarize(t, s) for t, s in batches]
    size = state_nbytes(states[0])
    merges: list[int] = []
    merge_many = type(metric).merge_many

    def counted(self: Any, gathered: Any) -> Any:
        merges.append(len(gathered))
        return merge_many(self, gathered)

    monkeypatch.setattr(type(metric), "merge_many", counted)
    # three states' bytes: gathered lists are merged at 4 states, not at FAN_IN
    monkeypatch.setattr(_fold, "GATHER_BYTES", 3 * size + 1)
    tree = MergeTree([metric])
    for state in states:
        tree.add([state])
        held = sum(state_nbytes(s) for s in tree.partial_states()[0])
        assert held <= 12 * size
    (merged,) = tree.result()
    assert max(merges) <= 4 and len(merges) > 1
    assert metric.compute(merged) == metric.compute(metric.merge_many(states))
    whole = metric.score(
        np.concatenate([t for t, _ in batches]), np.concatenate([s for _, s in batches])
    )
    assert metric.compute(merged) == whole


def test_warnings_from_chunks_are_the_in_memory_ones() -> None:
    data = {"y_true": [0.0] * 6, "y_pred": [0.0] * 6}

    def undefined(call: Any) -> list[str]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call()
        return [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]

    expected = undefined(lambda: parse_metric("r2").score(data["y_true"], data["y_pred"]))
    assert expected
    for size in (1, 4, 6):
        assert undefined(lambda s=size: evaluate(data, ["r2"], chunk_size=s)) == expected, size


def test_an_engine_gets_the_columns_side_inputs_and_its_own_options(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from scorekit import engines

    seen: dict[str, Any] = {}

    def run(
        source: Any,
        metrics: Any,
        *,
        columns: Any = None,
        side: Any = None,
        chunk_size: int = 1,
        progress: Any = None,
        scheduler: str | None = None,
        workers: int | None = None,
    ) -> Any:
        seen.update(source=source, columns=columns, side=side, chunk_size=chunk_size)
        seen.update(scheduler=scheduler, workers=workers)
        return stream.run(source, metrics, columns=columns, side=side, chunk_size=chunk_size)

    monkeypatch.setitem(engines._ENGINES, "recording", run)
    frame = _table().to_pandas()
    result = evaluate(
        frame,
        ["accuracy"],
        columns={"y_pred": "y_pred"},
        engine="recording",
        scheduler="tcp://127.0.0.1:1",
        chunk_size=1000,
    )
    assert result.values["accuracy"] == pytest.approx(EXPECTED["accuracy"])
    assert seen["columns"] == {"y_pred": "y_pred"} and seen["side"] == {}
    assert seen["scheduler"] == "tcp://127.0.0.1:1" and seen["workers"] is None
    assert seen["chunk_size"] == 1000
    assert seen["source"] is frame


def test_import_scorekit_stays_free_of_pyarrow() -> None:
    code = (
        "import sys, scorekit; scorekit.evaluate; "
        "print(sorted(m for m in ('pyarrow', 'pandas', 'dask') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert scorekit.EvaluationResult is scorekit.core.EvaluationResult
    assert "evaluate" in dir(scorekit)
