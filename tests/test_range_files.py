"""Range files: one score range of a merge of state files, and the whole assembled from them.

``merge_states(paths, part=I)`` (``scorekit merge --part I``) merges range
``I`` of the states split by score ranges of every file (the files cut alike
first); the range file holds it with the merged shell and the other metrics'
merged states. ``merge_states`` of the ``N`` range files of one merge, in any
order, gives the states and values of the plain merge of the shard files, bit
for bit; range files that are missing, repeated, of other merges or mixed with
shard files are refused, naming the file and the range.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import warnings
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import average_precision_score, roc_auc_score

import scorekit.statefiles._parts as parts_module
from scorekit import parse_metric
from scorekit.classification import average_precision, roc_auc
from scorekit.cli import main
from scorekit.core import State, equal_values
from scorekit.errors import ConfigError, InputError, StateMismatchError
from scorekit.statefiles import load_states, merge_states, save_states

AUC, AP = "roc_auc:ranges={n},cuts=sample", "average_precision:ranges={n},cuts=sample"


def _bits(value: Any) -> bytes:
    return np.float64(value).tobytes()


def _rows(rng: np.random.Generator, n: int, style: int, shift: float) -> tuple[Any, Any, Any]:
    y = rng.integers(0, 2, n)
    if style == 0:
        s: Any = rng.normal(shift + y, 1.0).astype(np.float32)  # logits, float32
    elif style == 1:
        s = np.round(rng.normal(shift + y, 1.0), 1)  # many ties, across shards too
    else:
        s = rng.random(n)
    w = None if style != 2 or rng.random() < 0.5 else rng.random(n) * 10.0 ** rng.integers(-3, 3, n)
    return y, s, w


def _shards(
    folder: Path,
    rng: np.random.Generator,
    specs: list[str],
    count: int,
    fmt: str = "binary",
    sizes: tuple[int, int] = (1, 400),
) -> tuple[list[Path], tuple[Any, Any, Any]]:
    """Shard files of ``specs`` (each metric cut at its own shard's sample), and all rows."""
    style = int(rng.integers(0, 3))
    weighted = style == 2 and rng.random() < 0.5
    ys, ss, ws, paths = [], [], [], []
    for i in range(count):
        y, s, w = _rows(rng, int(rng.integers(*sizes)), style, float(rng.normal(0, 2)))
        if weighted and w is None:
            w = rng.random(y.size)
        if not weighted:
            w = None
        entry = {
            k: (parse_metric(k), parse_metric(k).summarize(y, s, sample_weight=w)) for k in specs
        }
        form = fmt if fmt != "mixed" else ("json" if i % 2 else "binary")
        paths.append(
            save_states(
                folder / f"shard{i}.st", entry, rows=len(y), command="eval", state_format=form
            )
        )
        ys.append(y)
        ss.append(s.astype(np.float64))
        ws.append(w)
    w_all = None if not weighted else np.concatenate(ws)
    return paths, (np.concatenate(ys), np.concatenate(ss), w_all)


def _range_files(
    folder: Path, paths: list[Path], fmt: str = "binary", order: list[int] | None = None
) -> list[Path]:
    """The range files of the merge of ``paths``, each written by a merge of its own."""
    metrics, states, header = merge_states(paths, part=0)
    count = header["range"]["count"]
    out = []
    for i in order if order is not None else range(count):
        metrics, states, header = merge_states(paths, part=i)
        assert header["range"]["index"] == i and header["range"]["count"] == count
        entry = {k: (metrics[k], states[k]) for k in metrics}
        out.append(
            save_states(
                folder / f"range{i}.st",
                entry,
                rows=header["rows"],
                command=header["command"],
                state_format=fmt,
                part=header["range"],
            )
        )
    return out


def _same_states(a: dict[str, State], b: dict[str, State]) -> None:
    assert sorted(a) == sorted(b)
    for key in a:
        assert a[key].equals(b[key]), key
        assert type(a[key]) is type(b[key])
        for f in dataclasses.fields(a[key]):
            assert equal_values(getattr(a[key], f.name), getattr(b[key], f.name)), (key, f.name)


def _same_parts(a: State, b: State) -> None:
    """The same ranges, in the same types, bit for bit."""
    for x, y in zip(a.parts, b.parts, strict=True):
        assert x.equals(y)
        for f in dataclasses.fields(x):
            value = getattr(x, f.name)
            if isinstance(value, np.ndarray):
                other = getattr(y, f.name)
                assert value.dtype == other.dtype and value.tobytes() == other.tobytes()


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    count=st.integers(2, 4),
    ranges=st.integers(1, 6),
    shard_format=st.sampled_from(["binary", "json", "mixed"]),
    range_format=st.sampled_from(["binary", "json"]),
)
def test_range_files_assemble_to_the_plain_merge_bit_for_bit(
    tmp_path_factory: Any, seed: int, count: int, ranges: int, shard_format: str, range_format: str
) -> None:
    folder = tmp_path_factory.mktemp("shards")
    rng = np.random.default_rng(seed)
    specs = [AUC.format(n=ranges), AP.format(n=ranges), "accuracy"]
    paths, (y, s, w) = _shards(folder, rng, specs[:2], count, shard_format)
    # accuracy beside them: merged whole into every range file
    acc = parse_metric("accuracy")
    for p in paths:
        file = load_states(p)
        entry = {k: (file.metrics[k], file.states[k]) for k in specs[:2]}
        entry["accuracy"] = (acc, acc.summarize([1, 0, 1], [1, int(seed % 2), 0]))
        save_states(p, entry, rows=file.meta["rows"], command="eval", state_format="json")
    metrics, plain, header = merge_states(paths)
    order = list(rng.permutation(_count(paths)))
    files = _range_files(folder, paths, range_format, order)
    got_metrics, assembled, got_header = merge_states(files)
    assert got_metrics == metrics
    _same_states(assembled, plain)
    for key in specs[:2]:
        _same_parts(assembled[key], plain[key])
        assert not isinstance(assembled[key].parts, tuple)  # each range read when asked for
    assert got_header["rows"] == header["rows"] == y.size
    assert got_header["range_files"] == len(files)
    for key, whole, sk in (
        (specs[0], roc_auc, roc_auc_score),
        (specs[1], average_precision, average_precision_score),
    ):
        metric = metrics[key]
        value = metric.compute(assembled[key])
        assert _bits(value) == _bits(metric.compute(plain[key])), key
        if len(set(y.tolist())) == 2:
            if w is None:
                assert _bits(value) == _bits(whole(y, s)), key
            assert value == pytest.approx(sk(y, s, sample_weight=w), rel=1e-12, abs=1e-15)


def _count(paths: list[Path]) -> int:
    return int(merge_states(paths, part=0)[2]["range"]["count"])


def test_a_range_file_holds_its_range_and_the_merged_shell(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    key = AUC.format(n=4)
    paths, (y, _, _) = _shards(tmp_path, rng, [key], 3, sizes=(200, 400))
    _, plain, header = merge_states(paths)
    for i in range(4):
        _, states, found = merge_states(paths, part=i)
        state = states[key]
        # the shell is the whole's: its cut points and sample count
        assert state.cuts.tolist() == plain[key].cuts.tolist()
        assert state.n_samples == plain[key].n_samples == y.size
        assert found["rows"] == header["rows"]
        for j, part in enumerate(state.parts):
            if j == i:
                assert part.equals(plain[key].parts[i])
            else:
                assert not part.task and part.n_samples == 0
        assert found["range"]["index"] == i and found["range"]["count"] == 4


@pytest.mark.usefixtures("quick_gc")
def test_a_range_merge_reads_its_range_of_each_file_only(tmp_path: Path, monkeypatch) -> None:
    # the same cut points in every file: range 5 of the merge is range 5 of each file
    key = "roc_auc:ranges=8"
    paths, _ = _shards(tmp_path, np.random.default_rng(2), [key], 4, sizes=(100, 300))
    read = parts_module.FileParts._read
    asked: list[int] = []
    alive: list[weakref.ref[State]] = []
    held: list[int] = []

    def counting(self: Any, index: int) -> State:
        gc.collect()
        held.append(sum(ref() is not None for ref in alive))
        asked.append(index)
        part = read(self, index)
        alive.append(weakref.ref(part))
        return part

    monkeypatch.setattr(parts_module.FileParts, "_read", counting)
    _, states, _ = merge_states(paths, part=5)
    assert asked == [5] * 4
    assert max(held) < 4
    assert states[key].parts[5].task


def test_the_assembly_holds_one_range_file_at_a_time(tmp_path: Path, monkeypatch) -> None:
    key = AUC.format(n=6)
    paths, _ = _shards(tmp_path, np.random.default_rng(3), [key], 3, sizes=(100, 300))
    files = _range_files(tmp_path, paths)
    import scorekit.statefiles._merge as merge_module

    reading = merge_module.read_states
    alive: list[weakref.ref[Any]] = []
    held: list[int] = []

    def counting(where: Path, lazy: bool = False) -> Any:
        gc.collect()
        held.append(sum(ref() is not None for ref in alive))
        file, prints = reading(where, lazy)
        alive.append(weakref.ref(file.states[key]))
        return file, prints

    monkeypatch.setattr(merge_module, "read_states", counting)
    _, states, _ = merge_states(files)
    assert len(held) == 6 and max(held) == 0  # each file's states let go before the next
    _same_states(states, merge_states(paths)[1])


def test_the_command_line_writes_and_assembles_range_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    specs = [AUC.format(n=5), AP.format(n=5)]
    paths, (y, s, _) = _shards(tmp_path, np.random.default_rng(4), specs, 3, sizes=(300, 600))
    shards = [str(p) for p in paths]
    assert main(["merge", *shards, "--format", "json"]) == 0
    plain = capsys.readouterr().out
    files = []
    for i in (4, 2, 0, 3, 1):
        out = tmp_path / f"r{i}.st"
        assert main(["merge", "--part", str(i), *shards, "--save-state", str(out)]) == 0
        captured = capsys.readouterr()
        assert captured.out == ""
        assert f"range {i} of 5 of 3 state files" in captured.err and str(out) in captured.err
        files.append(str(out))
    assert main(["merge", *files, "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert captured.out == plain
    assert "merged 5 state files (the 5 ranges of one merge)" in captured.err
    found = json.loads(plain)
    assert _bits(found[specs[0]]) == _bits(roc_auc(y, s))
    assert _bits(found[specs[1]]) == _bits(average_precision(y, s))
    # the merged states saved from range files are the plain merge's
    whole = tmp_path / "whole.st"
    assert main(["merge", *files, "--save-state", str(whole)]) == 0
    capsys.readouterr()
    _same_states(load_states(whole).states, merge_states(paths)[1])


def _error(capsys: pytest.CaptureFixture[str], *argv: Any) -> str:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    assert code == 2 and captured.out == "" and "Traceback" not in captured.err
    return captured.err


def test_command_line_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths, _ = _shards(tmp_path, np.random.default_rng(5), [AUC.format(n=3)], 2)
    shards = [str(p) for p in paths]
    err = _error(capsys, "merge", "--part", "1", *shards)
    assert "--save-state FILE" in err
    err = _error(capsys, "merge", "--part", "-1", *shards, "--save-state", tmp_path / "x.st")
    assert "--part" in err and "'-1'" in err
    err = _error(
        capsys,
        "merge",
        "--part",
        "0",
        *shards,
        "--save-state",
        tmp_path / "x.st",
        "--report",
        tmp_path / "r.html",
    )
    assert "--report" in err
    err = _error(capsys, "merge", "--part", "3", *shards, "--save-state", tmp_path / "x.st")
    assert "no range 3" in err and "3 ranges" in err and "from 0 to 2" in err
    assert not (tmp_path / "x.st").exists()


def test_a_missing_range_is_named(tmp_path: Path) -> None:
    paths, _ = _shards(tmp_path, np.random.default_rng(6), [AUC.format(n=4)], 2)
    files = _range_files(tmp_path, paths)
    with pytest.raises(StateMismatchError, match="range 2 of 4 is missing") as info:
        merge_states([files[3], files[0], files[1]])
    assert str(files[3]) in str(info.value)
    with pytest.raises(StateMismatchError, match="ranges 1, 2, 3 of 4 are missing"):
        merge_states([files[0]])


def test_a_repeated_range_names_both_files(tmp_path: Path) -> None:
    paths, _ = _shards(tmp_path, np.random.default_rng(7), [AUC.format(n=3)], 2)
    files = _range_files(tmp_path, paths)
    # range 1 again, written as JSON: another file of the same range
    _, states, header = merge_states(paths, part=1)
    again = save_states(
        tmp_path / "again.json",
        {k: (parse_metric(k), v) for k, v in states.items()},
        rows=header["rows"],
        command="eval",
        part=header["range"],
        state_format="json",
    )
    with pytest.raises(StateMismatchError, match="range 1 is given twice") as info:
        merge_states([*files, again])
    assert str(again) in str(info.value) and str(files[1]) in str(info.value)


def test_range_files_of_different_merges_are_refused(tmp_path: Path) -> None:
    rng = np.random.default_rng(8)
    key = "roc_auc:ranges=4"
    a, _ = _shards(tmp_path / "a", rng, [key], 2)
    b, _ = _shards(tmp_path / "b", rng, [key], 2)
    ra, rb = _range_files(tmp_path / "ra", a), _range_files(tmp_path / "rb", b)
    with pytest.raises(StateMismatchError, match="not of one merge") as info:
        merge_states([*ra[:2], *rb[2:]])
    assert str(rb[2]) in str(info.value)
    # the same shards in another order: another merge (float sums may round otherwise)
    rc = _range_files(tmp_path / "rc", a[::-1])
    with pytest.raises(StateMismatchError, match="another order"):
        merge_states([*ra[:2], *rc[2:]])
    # another number of ranges
    c, _ = _shards(tmp_path / "c", rng, ["roc_auc:ranges=5"], 2)
    c = [load_and_rename(p, "roc_auc:ranges=4") for p in c]
    rd = _range_files(tmp_path / "rd", c)
    with pytest.raises(StateMismatchError, match=r"not of one merge|differ"):
        merge_states([*ra[:2], *rd[2:]])


def load_and_rename(path: Path, key: str) -> Path:
    """A file whose metric entry is renamed ``key`` (another configuration, the same key)."""
    file = load_states(path)
    ((old, state),) = file.states.items()
    save_states(path, {key: (file.metrics[old], state)}, rows=file.meta["rows"])
    return path


def test_range_files_and_shard_files_do_not_mix(tmp_path: Path) -> None:
    paths, _ = _shards(tmp_path, np.random.default_rng(9), [AUC.format(n=3)], 2)
    files = _range_files(tmp_path, paths)
    with pytest.raises(
        StateMismatchError, match="a range file among state files of shards"
    ) as info:
        merge_states([paths[0], files[1]])
    assert str(files[1]) in str(info.value)
    with pytest.raises(
        StateMismatchError, match="a state file of a shard among range files"
    ) as info:
        merge_states([files[0], paths[1]])
    assert str(paths[1]) in str(info.value)
    with pytest.raises(ConfigError, match="cannot be merged range by range again"):
        merge_states([files[0]], part=0)
    with pytest.raises(ConfigError, match="cannot be merged range by range again"):
        merge_states([paths[0], files[0]], part=0)


def test_files_without_score_ranges_have_no_range(tmp_path: Path) -> None:
    paths, _ = _shards(tmp_path, np.random.default_rng(10), ["roc_auc", "accuracy"], 2)
    with pytest.raises(ConfigError, match="no metric of the files is split by score ranges"):
        merge_states(paths, part=0)
    with pytest.raises(ConfigError, match="not a range index"):
        merge_states(paths, part=-1)


def test_metrics_of_different_numbers_of_ranges_are_refused(tmp_path: Path) -> None:
    paths, _ = _shards(
        tmp_path, np.random.default_rng(11), ["roc_auc:ranges=4", "average_precision:ranges=3"], 2
    )
    with pytest.raises(ConfigError, match="different numbers of ranges"):
        merge_states(paths, part=0)


@pytest.mark.parametrize("wrap", ["by", "ci"])
def test_grouped_or_bootstrapped_ranges_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], wrap: str
) -> None:
    rng = np.random.default_rng(12)
    csv = tmp_path / "data.csv"
    y, s = rng.integers(0, 2, 200), np.round(rng.random(200), 3)
    g = rng.choice(["a", "b"], 200)
    csv.write_text("y,s,g\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(y, s, g, strict=True)))
    state = tmp_path / "shard.st"
    argv = ["eval", csv, "--task", "binary", "--true", "y", "--score", "s"]
    argv += ["--metric", "roc_auc:ranges=4", "--save-state", state, "--quiet"]
    argv += ["--by", "g"] if wrap == "by" else ["--ci", "--n-resamples", "20"]
    assert main([str(a) for a in argv]) == 0
    capsys.readouterr()
    with pytest.raises(ConfigError, match="per group or per resample") as info:
        merge_states([state], part=0)
    assert "roc_auc:ranges=4" in str(info.value)


def _rewrite(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


def test_range_files_break_no_rule_unseen(tmp_path: Path) -> None:
    paths, _ = _shards(
        tmp_path, np.random.default_rng(13), ["roc_auc:ranges=3"], 2, sizes=(50, 100)
    )
    files = _range_files(tmp_path, paths, "json")
    data = json.loads(files[0].read_text())
    assert data["scorekit_states"] == 2 and data["range"]["index"] == 0
    # a reader of version 1 only refuses a range file: here, version 2 without a range field
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({k: v for k, v in data.items() if k != "range"}))
    with pytest.raises(StateMismatchError, match="another format version"):
        load_states(bad)
    _rewrite(bad, range=data["range"], scorekit_states=1)
    with pytest.raises(InputError, match="a range field in a file of version 1"):
        load_states(bad)
    _rewrite(bad, scorekit_states=2, range={**data["range"], "index": 3})
    with pytest.raises(InputError, match="a range index past the ranges"):
        load_states(bad)
    _rewrite(bad, range={"index": 0, "count": 3})
    with pytest.raises(InputError, match="a wrong range field"):
        load_states(bad)
    # data in a range other than the file's
    _rewrite(bad, range={**data["range"], "index": 1})
    with pytest.raises(InputError, match="holds data in range 0 of a file of range 1"):
        load_states(bad)
    _rewrite(bad, range={**data["range"], "count": 4})
    with pytest.raises(InputError, match="another number of ranges"):
        load_states(bad)


def test_a_range_field_must_fit_the_states(tmp_path: Path) -> None:
    metric = parse_metric("roc_auc:ranges=3")
    state = metric.summarize([0, 1], [0.2, 0.9])
    with pytest.raises(ConfigError, match="as many ranges"):
        save_states(
            tmp_path / "a.st", {"r": (metric, state)}, part={"index": 0, "count": 2, "inputs": ""}
        )
    with pytest.raises(ConfigError, match="a range index past the ranges"):
        save_states(
            tmp_path / "a.st", {"r": (metric, state)}, part={"index": 3, "count": 3, "inputs": ""}
        )


def _save_shards(folder: Path, specs: list[str], batches: list[tuple[Any, Any]]) -> list[Path]:
    paths = []
    for i, (y, s) in enumerate(batches):
        entry = {k: (parse_metric(k), parse_metric(k).summarize(y, s)) for k in specs}
        paths.append(save_states(folder / f"edge{i}.st", entry, rows=len(y), command="eval"))
    return paths


@pytest.mark.parametrize(
    "batches",
    [
        [([], []), ([0, 1, 1], [0.2, 0.9, 0.4]), ([1, 0], [0.4, 0.1])],  # an empty shard
        [([1, 1], [0.3, 0.8]), ([1], [0.5])],  # one class: undefined, alike
        [([0, 1, 0, 1], [0.5] * 4), ([1, 0], [0.5, 0.5])],  # one score, ties across shards
        [([0, 1, 1], [-1.7e308, 1e300, 1.7e308]), ([0, 1], [-1e-300, 5e-324])],  # extremes
        [([0, 1] * 50, np.linspace(-1e6, 1e6, 100)), ([1, 0], [1e-9, -1e-9])],
    ],
    ids=["empty-shard", "one-class", "one-score", "extremes", "wide"],
)
def test_edge_cases_assemble_to_the_plain_merge(tmp_path: Path, batches: list[Any]) -> None:
    specs = [AUC.format(n=4), AP.format(n=4)]
    paths = _save_shards(tmp_path, specs, batches)
    _, plain, _ = merge_states(paths)
    files = _range_files(tmp_path, paths, "json")
    _, assembled, _ = merge_states(files[::-1])
    _same_states(assembled, plain)
    y = np.concatenate([np.asarray(b[0], dtype=np.int64) for b in batches])
    s = np.concatenate([np.asarray(b[1], dtype=np.float64) for b in batches])
    for key, whole in zip(specs, (roc_auc, average_precision), strict=True):
        metric = parse_metric(key)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got, expected = metric.compute(assembled[key]), whole(y, s)
            merged = metric.compute(plain[key])
        assert _bits(got) == _bits(merged), key
        assert _bits(got) == _bits(expected), key


def test_shards_of_no_rows_have_one_range(tmp_path: Path) -> None:
    paths = _save_shards(tmp_path, [AUC.format(n=4)], [([], [])])
    _, _, header = merge_states(paths, part=0)
    assert header["range"]["count"] == 1 and header["rows"] == 0
    with pytest.raises(ConfigError, match="no range 1"):
        merge_states(paths, part=1)
    files = _range_files(tmp_path, paths)
    _same_states(merge_states(files)[1], merge_states(paths)[1])
