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


# the wrapper states: per group, bootstrap, per query ---------------------------------------

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "data"
EVAL = ["--task", "binary", "--true", "label", "--pred", "pred", "--score", "score"]
QUIET = ["--quiet", "--n-resamples", "100"]


def _rows(folder: Path, name: str, ids: range) -> Path:
    """A CSV of binary labels and scores with an id and a country per row."""
    lines = ["id,country,label,pred,score"]
    for i in ids:
        label = int((i * 7) % 5 < 2)
        score = ((i * 37) % 100) / 100
        lines.append(f"{i},{('fr', 'de', 'us')[i % 3]},{label},{int(score >= 0.5)},{score}")
    path = folder / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _saved(folder: Path, name: str, *args: str, ids: range = range(100)) -> Path:
    """The state file of ``scorekit eval ARGS`` on the rows ``ids``."""
    data = _rows(folder, name.replace(".json", ".csv"), ids)
    path = folder / name
    done = scorekit("eval", *EVAL, *args, "--save-state", path, data, cwd=folder)
    assert done.returncode == 0, done.stderr
    return path


def _edit(path: Path, change: Callable[[Fields], None]) -> Path:
    """Change the state of the file's first metric (its fields) and write it back."""
    data = json.loads(path.read_text())
    change(data["metrics"][0]["state"]["fields"])
    path.write_text(json.dumps(data))
    return path


def _nested(fields: Fields, name: str) -> Fields:
    """The fields of the state held in field ``name``."""
    fields_of: Fields = fields[name]["__state__"]["fields"]
    return fields_of


def _group(fields: Fields, i: int) -> Fields:
    """The fields of group ``i``'s state."""
    fields_of: Fields = fields["states"]["__tuple__"][i]["__state__"]["fields"]
    return fields_of


def _size(i: int, value: int) -> Callable[[Fields], None]:
    def change(fields: Fields) -> None:
        fields["sizes"]["__ndarray__"][i] = value

    return change


def _drop_size(fields: Fields) -> None:
    fields["sizes"]["__ndarray__"].pop()
    fields["sizes"]["shape"] = [len(fields["sizes"]["__ndarray__"])]


def _same_keys(fields: Fields) -> None:
    column = fields["keys"]["__tuple__"][0]["__ndarray__"]
    column[1] = column[0]


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_size(0, 40), "group country='de' has another size than its state's rows; got 40"),
        (_size(1, 0), "group country='fr' has no rows; got 0"),
        (_size(2, -33), "negative value"),
        (_drop_size, "length differs from 'sizes'"),
        (_same_keys, "groups not distinct and in increasing order"),
    ],
    ids=["size-not-the-rows", "size-0", "negative-size", "one-size-short", "duplicate-group"],
)
def test_merge_refuses_group_sizes_that_lie(
    tmp_path: Path, change: Callable[[Fields], None], problem: str
) -> None:
    """[silent] Per-group sizes that are not the groups' rows: the file, metric and group named.

    A size edited to 40 printed ``rows 40`` beside the interval of group de's
    33 rows, and a size of 0 a group of no rows with a value and an interval;
    both merged. Negative sizes, sizes short of the groups and a group given
    twice stay refused.
    """
    args = ["--metric", "accuracy", "--by", "country", "--ci", *QUIET]
    good = _saved(tmp_path, "good.json", *args, ids=range(100, 160))
    bad = _edit(_saved(tmp_path, "bad.json", *args), change)
    proc = scorekit("merge", good, bad, cwd=tmp_path)
    assert_clean_error(proc, str(bad), "metric 'accuracy'", "GroupStates", problem)
    assert proc.stdout == ""


@pytest.mark.parametrize(
    "metric", ["accuracy", "roc_auc", "average_precision", "top_k_accuracy:k=1"]
)
def test_merge_refuses_group_sizes_that_lie_without_a_bootstrap(
    tmp_path: Path, metric: str
) -> None:
    """[silent] A group size edited to 40 without --ci merged where the state counts its rows."""
    args = ["--metric", metric, "--by", "country", "--quiet"]
    bad = _edit(_saved(tmp_path, "bad.json", *args), _size(0, 40))
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc, str(bad), "group country='de' has another size than its state's rows; got 40"
    )


def test_merge_refuses_groups_that_do_not_add_up_to_the_overall_rows(tmp_path: Path) -> None:
    """[silent] The overall rows of a per-group bootstrap edited from 100 to 90 merged.

    Brier's state does not count its rows: the groups' sizes find the edit. The
    confusion counts of accuracy count theirs, and find it in the overall state.
    """
    args = ["--metric", "brier", "--by", "country", "--ci", *QUIET]
    bad = _saved(tmp_path, "bad.json", *args)
    _edit(bad, lambda fields: _nested(fields, "overall").__setitem__("units", 90))
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(bad),
        "metric 'brier'",
        "the groups' rows do not add up to the rows of the overall state",
        "100 rows in the groups, expected 90",
    )
    args = ["--metric", "accuracy", "--by", "country", "--ci", *QUIET]
    bad = _saved(tmp_path, "accuracy.json", *args)
    _edit(bad, lambda fields: _nested(fields, "overall").__setitem__("units", 90))
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(bad),
        "metric 'accuracy'",
        "field 'units': differs from the rows of the ConfusionCounts state; got 90, expected 100",
    )


def test_merge_refuses_a_group_state_that_disagrees_with_the_overall(tmp_path: Path) -> None:
    """[silent] A group's largest error raised above the overall largest merged as it was.

    max_error per country: the largest error of group de edited to 9.5 printed
    9.5 for de under 1.0 for all the rows, which no data can give.
    """
    args = ["--task", "regression", "--true", "label", "--pred", "score", "--by", "country"]
    data = _rows(tmp_path, "bad.csv", range(100))
    bad = tmp_path / "bad.json"
    metric = ["--metric", "max_error", "--save-state", bad]
    done = scorekit("eval", *args, *metric, data, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _edit(bad, lambda fields: _group(fields, 0).__setitem__("value", 9.5))
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(bad),
        "metric 'max_error'",
        "the groups' states disagree with the overall state in 'value'",
        "got 9.5 from the 3 groups",
    )


def test_merge_refuses_keyed_shards_that_share_rows(tmp_path: Path) -> None:
    """[silent] Shards of rows 0-99 and 50-149 keyed by id merged: rows 50-99 counted twice."""
    args = ["--metric", "roc_auc", "--ci", "--key", "id", *QUIET]
    a = _saved(tmp_path, "a.json", *args, ids=range(0, 100))
    b = _saved(tmp_path, "b.json", *args, ids=range(50, 150))
    proc = scorekit("merge", a, b, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(a),
        str(b),
        "two inputs, or two chunks of one, hold the same units (key 'id')",
        "got 50 of the 100",
    )
    assert proc.stdout == ""


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        (range(0, 100), range(50, 150), "got at least 50 of the 100 units"),
        # more units than the key sample holds: found with the sample of each
        (range(0, 3000), range(2000, 5000), "got at least"),
    ],
)
def test_merge_refuses_keyed_shards_of_replicate_states_that_share_rows(
    tmp_path: Path, first: range, second: range, shared: str
) -> None:
    """[silent] accuracy --ci --key of rows 0-99 and 50-149 merged: rows 50-99 counted twice.

    accuracy keeps one state per replicate, not its rows; its key sample finds
    the shared units.
    """
    args = ["--metric", "accuracy", "--ci", "--key", "id", *QUIET]
    a = _saved(tmp_path, "a.json", *args, ids=first)
    b = _saved(tmp_path, "b.json", *args, ids=second)
    proc = scorekit("merge", a, b, cwd=tmp_path)
    assert_clean_error(
        proc, str(a), str(b), "two inputs, or two chunks of one, hold the same units", shared
    )
    assert proc.stdout == ""
    c = _saved(tmp_path, "c.json", *args, ids=range(second.stop, second.stop + 100))
    done = scorekit("merge", a, c, cwd=tmp_path)
    assert done.returncode == 0, done.stderr


def test_a_key_repeated_in_another_chunk_is_refused(tmp_path: Path) -> None:
    """[silent] A key column with id 3 in the first and the last chunk counted the row twice."""
    data = _rows(tmp_path, "dup.csv", range(100))
    with data.open("a", encoding="utf-8") as out:
        out.write("3,fr,1,1,0.9\n")
    args = ["--metric", "accuracy", "--ci", "--key", "id", *QUIET]
    proc = scorekit("eval", *EVAL, *args, "--chunk-size", "10", data, cwd=tmp_path)
    assert_clean_error(proc, "bootstrap of accuracy", "hold the same units (key 'id')")


def test_a_key_sample_edited_or_missing(tmp_path: Path) -> None:
    """[silent] An edited key sample is refused; a file written before it merges as before."""
    args = ["--metric", "accuracy", "--ci", "--key", "id", *QUIET]

    def drop_one(fields: Fields) -> None:
        fields["key_sample"]["__ndarray__"].pop()
        fields["key_sample"]["shape"] = [99]

    bad = _edit(_saved(tmp_path, "bad.json", *args), drop_one)
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(bad),
        "field 'key_sample'",
        "another number of keys than of units",
        "99 keys for 100 units",
    )
    unordered = _edit(
        _saved(tmp_path, "unordered.json", *args),
        lambda fields: fields["key_sample"]["__ndarray__"].reverse(),
    )
    proc = scorekit("merge", unordered, cwd=tmp_path)
    assert_clean_error(proc, str(unordered), "keys not ascending and distinct")
    old = _edit(_saved(tmp_path, "old.json", *args), lambda fields: fields.pop("key_sample"))
    new = _saved(tmp_path, "new.json", *args, ids=range(100, 200))
    done = scorekit("merge", old, new, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "accuracy" in done.stdout


def test_merge_refuses_a_keyed_unit_kept_twice(tmp_path: Path) -> None:
    """[silent] A bootstrap state of rows whose key of row 1 was edited to row 0's merged."""

    def twice(fields: Fields) -> None:
        keys = _nested(fields, "state")["keys"]["__ndarray__"]
        keys[1] = keys[0]

    bad = _edit(_saved(tmp_path, "bad.json", "--metric", "roc_auc", "--ci", "--key", "id"), twice)
    proc = scorekit("merge", bad, cwd=tmp_path)
    assert_clean_error(
        proc, str(bad), "metric 'roc_auc'", "a unit is kept twice", "1 units counted twice"
    )


def _no_replicates(fields: Fields) -> None:
    fields["replicates"] = {"__tuple__": []}


def test_merge_of_a_state_without_its_replicates_is_a_clear_error(tmp_path: Path) -> None:
    """[crash] A bootstrap state whose replicates were emptied, merged with a shard: zip() error."""
    args = ["--metric", "accuracy", "--ci", *QUIET]
    good = _saved(tmp_path, "good.json", *args, ids=range(100, 150))
    bad = _edit(_saved(tmp_path, "bad.json", *args), _no_replicates)
    proc = scorekit("merge", good, bad, cwd=tmp_path)
    assert_clean_error(
        proc, str(bad), "metric 'accuracy'", "wrong number of replicates; got 0, expected 100"
    )


def test_a_state_without_its_replicates_gives_no_empty_interval(tmp_path: Path) -> None:
    """[silent] Alone, a bootstrap state whose replicates were emptied printed low and high nan."""
    bad = _edit(
        _saved(tmp_path, "bad.json", "--metric", "accuracy", "--ci", *QUIET), _no_replicates
    )
    proc = scorekit("merge", bad, "--format", "json", cwd=tmp_path)
    assert_clean_error(proc, str(bad), "wrong number of replicates; got 0, expected 100")
    assert proc.stdout == ""


def _entry_resamples(path: Path, n: int) -> None:
    data = json.loads(path.read_text())
    data["metrics"][0]["bootstrap"]["n_resamples"] = n
    path.write_text(json.dumps(data))


def test_merge_refuses_replicate_counts_that_disagree_with_n_resamples(tmp_path: Path) -> None:
    """[silent] Replicate counts against n_resamples: each is the file's contradiction, named.

    The entry's bootstrap edited to 100 resamples over a state of 200 printed
    "100 resamples" for an interval of 200; a state's n_resamples edited to
    150 over its 100 replicate states, and a bca state's 100 jackknife states
    cut to 60, are refused as well.
    """
    roc = _saved(tmp_path, "roc.json", "--metric", "roc_auc", "--ci", "--n-resamples", "200")
    _entry_resamples(roc, 100)
    proc = scorekit("merge", roc, cwd=tmp_path)
    assert_clean_error(
        proc, str(roc), "metric 'roc_auc'", "the state's 'n_resamples'", "got 200, expected 100"
    )

    acc = _edit(
        _saved(tmp_path, "acc.json", "--metric", "accuracy", "--ci", *QUIET),
        _set("n_resamples", 150),
    )
    _entry_resamples(acc, 150)
    proc = scorekit("merge", acc, cwd=tmp_path)
    assert_clean_error(proc, str(acc), "wrong number of replicates; got 100, expected 150")

    def cut(fields: Fields) -> None:
        fields["leave_out"]["__tuple__"] = fields["leave_out"]["__tuple__"][:60]

    bca = ["--metric", "accuracy", "--ci", "--ci-method", "bca", *QUIET]
    jack = _edit(_saved(tmp_path, "jack.json", *bca), cut)
    proc = scorekit("merge", jack, cwd=tmp_path)
    assert_clean_error(proc, str(jack), "wrong number of jackknife states; got 60, expected 100")


def test_merge_refuses_a_ranking_value_out_of_its_bounds(tmp_path: Path) -> None:
    """[silent] One query's AP edited to 5 gave MAP 0.9495 with an interval up to 1.71."""
    path = tmp_path / "run.json"
    done = scorekit(
        "rank",
        EXAMPLES / "qrels.txt",
        EXAMPLES / "run.txt",
        "-m",
        "map",
        "--ci",
        "--n-resamples",
        "200",
        "--save-state",
        path,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr

    def five(fields: Fields) -> None:
        _nested(fields, "state")["values"]["__ndarray__"][3] = 5.0

    _edit(path, five)
    proc = scorekit("merge", path, cwd=tmp_path)
    assert_clean_error(
        proc,
        str(path),
        "metric 'map'",
        "QueryValues, field 'values': a query's map outside the measure's bounds",
        "got 5.0 for query '404', expected values in [0, 1]",
    )
    assert proc.stdout == ""


@pytest.mark.parametrize("spec", ["ndcg@10", "map", "p@5", "mrr"])
def test_load_states_refuses_a_query_value_out_of_bounds(tmp_path: Path, spec: str) -> None:
    """[silent] A per-query value of a bounded measure below 0 or above 1 does not load."""
    metric = parse_metric(spec)
    path = save_states(tmp_path / "s.json", {spec: (metric, metric.summarize(QRELS, RUN))})
    for value in (-0.25, 1.5):
        _break(path, _item("values", (0,), value))
        with pytest.raises(InputError, match="outside the measure's bounds") as info:
            load_states(path)
        _assert_names(str(info.value), path, spec, "values", repr(value))
