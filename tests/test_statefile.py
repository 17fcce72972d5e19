"""State files: round trips of every metric, merging shards, and every way a file can be wrong."""

from __future__ import annotations

import dataclasses
import gzip
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

import scorekit
from scorekit import parse_metric
from scorekit.api import FILE_FORMAT, load_states, merge_files, save_states
from scorekit.core import STATE_FORMAT, equal_values, iter_variants
from scorekit.errors import ConfigError, InputError, StateMismatchError


def _same_config(a: scorekit.Metric, b: scorekit.Metric) -> bool:
    return type(a) is type(b) and all(
        equal_values(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
    )


def _variants() -> list[scorekit.Metric]:
    return [m for info in scorekit.available() for m in iter_variants(info)]


def test_every_metric_configuration_and_empty_state_round_trip(tmp_path: Path) -> None:
    metrics = {f"{m.name}#{i}": m for i, m in enumerate(_variants())}
    assert len(metrics) > 100
    path = save_states(tmp_path / "all.json", {k: (m, m.empty()) for k, m in metrics.items()})
    loaded, states, meta = load_states(path)
    assert list(loaded) == list(metrics)
    for key, metric in metrics.items():
        assert _same_config(loaded[key], metric), key
        assert states[key].equals(metric.empty()), key
    assert meta["scorekit_states"] == FILE_FORMAT and meta["state_format"] == STATE_FORMAT


def test_states_with_data_round_trip_exactly_through_gzip(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    y = rng.integers(0, 3, 500)
    p = np.where(rng.random(500) < 0.7, y, rng.integers(0, 3, 500))
    s = rng.random(500)
    entries = {
        "f1:macro": parse_metric("f1:macro"),
        "roc_auc": parse_metric("roc_auc"),
        "mse": parse_metric("mse"),
        "r2": parse_metric("r2"),
    }
    data = {
        "f1:macro": (y, p),
        "roc_auc": (y == 1, s),
        "mse": (s, s * 0.9 + 0.01),
        "r2": (s, s**2),
    }
    states = {k: m.summarize(*data[k]) for k, m in entries.items()}
    path = save_states(
        tmp_path / "s.json.gz", {k: (entries[k], states[k]) for k in entries}, rows=500
    )
    assert path.read_bytes()[:2] == b"\x1f\x8b"
    metrics, loaded, meta = load_states(path)
    assert meta["rows"] == 500
    for key, metric in entries.items():
        assert loaded[key].equals(states[key])
        assert metrics[key].compute(loaded[key]) == metric.compute(states[key])


def test_file_is_json_with_a_header_and_one_metric_per_line(tmp_path: Path) -> None:
    acc = parse_metric("accuracy")
    path = save_states(
        tmp_path / "a.json",
        {"accuracy": (acc, acc.summarize([1, 0], [1, 1]))},
        command="eval",
        input="binary",
        columns={"y_true": "label", "y_pred": ["pred"]},
        rows=2,
    )
    data = json.loads(path.read_text())
    assert data["scorekit_states"] == 1
    assert data["scorekit"] == scorekit.__version__
    assert (data["command"], data["input"], data["rows"]) == ("eval", "binary", 2)
    assert data["columns"] == {"y_true": ["label"], "y_pred": ["pred"]}
    entry = data["metrics"][0]
    assert (entry["key"], entry["metric"]) == ("accuracy", "accuracy")
    assert entry["state"]["scorekit_state"] == "ConfusionCounts"
    assert path.read_text().splitlines()[1].startswith('{"key":"accuracy"')


# merging -------------------------------------------------------------------------------------


def _shards(folder: Path, specs: list[str], parts: list[tuple[np.ndarray, np.ndarray]]) -> list:
    folder.mkdir(exist_ok=True)
    paths = []
    for i, (y, p) in enumerate(parts):
        entries = {}
        for spec in specs:
            metric = parse_metric(spec)
            entries[spec] = (metric, metric.summarize(y, p))
        paths.append(save_states(folder / f"shard{i}.json", entries, rows=len(y)))
    return paths


def test_merged_shards_equal_the_whole_data(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    y = rng.integers(0, 4, 3000)
    p = np.where(rng.random(3000) < 0.6, y, rng.integers(0, 4, 3000))
    cuts = [0, 1000, 1700, 3000]
    parts = [(y[a:b], p[a:b]) for a, b in itertools.pairwise(cuts)]
    specs = ["accuracy", "f1:macro", "mcc", "cohen_kappa:quadratic"]
    result = merge_files(_shards(tmp_path, specs, parts))
    assert result.rows == 3000
    assert list(result.values) == specs
    for spec in specs:
        assert result.values[spec] == parse_metric(spec).score(y, p)


def test_merge_of_one_file_is_its_values(tmp_path: Path) -> None:
    y, p = np.array([0, 1, 1, 0]), np.array([0, 1, 0, 0])
    (path,) = _shards(tmp_path, ["recall"], [(y, p)])
    assert merge_files([path]).values == {"recall": 0.5}


def test_a_metric_missing_from_one_file_is_named_with_the_file(tmp_path: Path) -> None:
    y = np.array([0, 1, 1])
    (a,) = _shards(tmp_path / "a", ["accuracy", "f1"], [(y, y)])
    (b,) = _shards(tmp_path / "b", ["accuracy"], [(y, y)])
    with pytest.raises(StateMismatchError, match=r"metric 'f1' is missing") as info:
        merge_files([a, b])
    assert str(b) in str(info.value)
    with pytest.raises(StateMismatchError, match=r"metric 'f1' is not in") as info:
        merge_files([b, a])
    assert str(a) in str(info.value) and str(b) in str(info.value)


def test_different_configurations_name_the_field_both_values_and_both_files(
    tmp_path: Path,
) -> None:
    y = np.array([0, 1, 1, 0])
    macro, micro = parse_metric("f1:macro"), parse_metric("f1:micro")
    a = save_states(tmp_path / "a.json", {"f1": (macro, macro.summarize(y, y))})
    b = save_states(tmp_path / "b.json", {"f1": (micro, micro.summarize(y, y))})
    with pytest.raises(StateMismatchError) as info:
        merge_files([a, b])
    text = str(info.value)
    assert "'average'" in text and "'micro'" in text and "'macro'" in text
    assert str(a) in text and str(b) in text


def test_states_with_different_settings_name_the_setting_and_both_files(tmp_path: Path) -> None:
    rouge = parse_metric("rouge1")
    stemmed = dataclasses.replace(rouge, stemmer=True)
    refs, hyps = ["the cats sat"], ["the cat sat"]
    a = save_states(tmp_path / "a.json", {"rouge1": (rouge, rouge.summarize(refs, hyps))})
    # the state of a stemmed run written under the plain configuration
    b = save_states(tmp_path / "b.json", {"rouge1": (rouge, stemmed.summarize(refs, hyps))})
    with pytest.raises(StateMismatchError) as info:
        merge_files([a, b])
    text = str(info.value)
    assert "'stemmer'" in text and "True" in text and "False" in text
    assert str(a) in text and str(b) in text


def test_ranking_states_of_the_same_query_do_not_merge(tmp_path: Path) -> None:
    metric = parse_metric("ndcg@10")
    qrels = {"q1": {"d1": 1}}
    state = metric.summarize(qrels, {"q1": {"d1": 0.5, "d2": 0.1}})
    a = save_states(tmp_path / "a.json", {"ndcg@10": (metric, state)})
    b = save_states(tmp_path / "b.json", {"ndcg@10": (metric, state)})
    with pytest.raises(StateMismatchError, match="same query") as info:
        merge_files([a, b], allow_duplicates=True)
    assert str(b) in str(info.value)


def test_header_differences_are_named(tmp_path: Path) -> None:
    acc = parse_metric("accuracy")
    entry = {"accuracy": (acc, acc.summarize([1], [1]))}
    a = save_states(tmp_path / "a.json", entry, command="eval", columns={"y_true": "label"})
    b = save_states(tmp_path / "b.json", entry, command="eval", columns={"y_true": "truth"})
    c = save_states(tmp_path / "c.json", entry, command="evaluate", columns={"y_true": "label"})
    with pytest.raises(StateMismatchError, match="'columns'") as info:
        merge_files([a, b])
    assert "truth" in str(info.value) and "label" in str(info.value)
    with pytest.raises(StateMismatchError, match="'command'"):
        merge_files([a, c])


# versions ------------------------------------------------------------------------------------


def _rewrite(path: Path, **changes: object) -> Path:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))
    return path


def _two(tmp_path: Path) -> tuple[Path, Path]:
    y = np.array([0, 1, 1])
    (a,) = _shards(tmp_path / "a", ["accuracy"], [(y, y)])
    (b,) = _shards(tmp_path / "b", ["accuracy"], [(y, y)])
    return a, b


def test_a_file_of_another_format_version_names_both_versions(tmp_path: Path) -> None:
    a, b = _two(tmp_path)
    _rewrite(b, scorekit_states=2, scorekit="9.0.0")
    with pytest.raises(StateMismatchError) as info:
        merge_files([a, b])
    text = str(info.value)
    assert str(b) in text and "version 2" in text and f"version {FILE_FORMAT}" in text
    assert "9.0.0" in text


def test_a_file_of_another_state_format_names_both_formats(tmp_path: Path) -> None:
    a, b = _two(tmp_path)
    _rewrite(b, state_format=STATE_FORMAT + 1)
    with pytest.raises(StateMismatchError) as info:
        merge_files([a, b])
    text = str(info.value)
    assert f"state format {STATE_FORMAT + 1}" in text and f"state format {STATE_FORMAT}," in text


def test_files_of_another_package_version_with_the_same_formats_merge(tmp_path: Path) -> None:
    a, b = _two(tmp_path)
    _rewrite(b, scorekit="0.0.1")
    result = merge_files([a, b])
    assert result.values == {"accuracy": 1.0} and result.rows == 6


def test_an_unknown_metric_or_option_is_a_version_mismatch(tmp_path: Path) -> None:
    _, b = _two(tmp_path)
    data = json.loads(b.read_text())
    data["metrics"][0]["metric"] = "accuracy_from_the_future"
    b.write_text(json.dumps(data))
    with pytest.raises(StateMismatchError, match=r"accuracy_from_the_future.*not known"):
        load_states(b)
    data["metrics"][0]["metric"] = "accuracy"
    data["metrics"][0]["config"]["new_option"] = 1
    b.write_text(json.dumps(data))
    with pytest.raises(StateMismatchError, match="'new_option'"):
        load_states(b)


# bad files -----------------------------------------------------------------------------------


def test_a_truncated_file_names_the_file_line_and_column(tmp_path: Path) -> None:
    a, _ = _two(tmp_path)
    text = a.read_text()
    a.write_text(text[: len(text) // 2])
    with pytest.raises(InputError, match=r"line \d+, column \d+: truncated state file") as info:
        load_states(a)
    assert str(a) in str(info.value)


def test_a_truncated_gzip_file_is_an_input_error(tmp_path: Path) -> None:
    acc = parse_metric("accuracy")
    path = save_states(tmp_path / "a.json.gz", {"accuracy": (acc, acc.summarize([1], [1]))})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 12])
    with pytest.raises(InputError, match="truncated or corrupt gzip") as info:
        load_states(path)
    assert str(path) in str(info.value)


def test_files_that_are_not_state_files_say_so(tmp_path: Path) -> None:
    csv = tmp_path / "data.csv"
    csv.write_text("label,pred\n1,0\n")
    with pytest.raises(InputError, match=r"line 1, column 1: not a scorekit state file"):
        load_states(csv)
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    with pytest.raises(InputError, match="not a scorekit state file"):
        load_states(other)
    bare = tmp_path / "bare.json"
    bare.write_text(parse_metric("accuracy").empty().to_json())
    with pytest.raises(InputError, match="one bare state"):
        load_states(bare)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(InputError, match="not UTF-8"):
        load_states(binary)
    bad_gzip = tmp_path / "bad.json.gz"
    bad_gzip.write_bytes(gzip.compress(b"not json at all"))
    with pytest.raises(InputError, match="not a scorekit state file"):
        load_states(bad_gzip)


def test_invalid_json_inside_a_state_file_names_line_and_column(tmp_path: Path) -> None:
    a, _ = _two(tmp_path)
    lines = a.read_text().splitlines()
    lines[1] = lines[1].replace('"metric":', '"metric";', 1)
    a.write_text("\n".join(lines))
    with pytest.raises(InputError, match=r"line 2, column \d+: invalid JSON"):
        load_states(a)


def test_a_malformed_entry_is_an_input_error(tmp_path: Path) -> None:
    a, _ = _two(tmp_path)
    data = json.loads(a.read_text())
    data["metrics"][0]["state"]["fields"]["matrix"] = {
        "__ndarray__": [1, 2],
        "dtype": "<i8",
        "shape": [3],
    }
    a.write_text(json.dumps(data))
    with pytest.raises(
        InputError, match=r"metric 'accuracy': ConfusionCounts, field 'matrix': array data does not"
    ):
        load_states(a)
    del data["metrics"][0]["state"]
    a.write_text(json.dumps(data))
    with pytest.raises(InputError, match="incomplete"):
        load_states(a)


def test_the_same_file_twice_is_refused(tmp_path: Path) -> None:
    a, _ = _two(tmp_path)
    with pytest.raises(StateMismatchError, match="given twice"):
        merge_files([a, tmp_path / "a" / ".." / "a" / a.name])


def test_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_states(tmp_path / "nope.json")
    with pytest.raises(InputError, match="no such file"):
        merge_files([tmp_path / "nope.json"])
    with pytest.raises(ConfigError, match="no state file"):
        merge_files([])


def test_a_metric_with_a_function_option_cannot_be_saved(tmp_path: Path) -> None:
    metric = parse_metric("rouge1", tokenizer=str.split)
    with pytest.raises(ConfigError, match="'tokenizer' is a function"):
        save_states(tmp_path / "x.json", {"rouge1": (metric, metric.empty())})
    assert not (tmp_path / "x.json").exists()
