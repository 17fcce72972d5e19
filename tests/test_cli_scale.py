"""The scale flags of the commands: --chunk-size, --engine, --save-state, and ``scorekit merge``.

Chunked and sharded runs must print the numbers of the whole file: exactly for
metrics of integer counts, to 1e-12 for float sums (whose order of additions
changes with the chunks).
"""

from __future__ import annotations

import gzip
import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.json as pajson
import pyarrow.parquet as pq
import pytest

from conftest import ROOT
from scorekit.api import load_states
from scorekit.cli import main

DATA = ROOT / "examples" / "data"
ENTRIES = json.loads((DATA / "manifest.json").read_text())
EVAL = {e["task"]: e for e in ENTRIES if e.get("command", "eval") == "eval"}

# metrics whose states are integer counts: chunked values equal bit for bit
EXACT = {
    "accuracy",
    "precision",
    "recall",
    "f1",
    "mcc",
    "balanced_accuracy",
    "f1:macro",
    "f1:weighted",
    "f1:samples",
    "f1:micro",
    "cohen_kappa",
    "subset_accuracy",
    "hamming_loss",
    "roc_auc",
    "average_precision",
    "coverage_error",
    "one_error",
    "max_error",
    "medae",
    "bleu",
}


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _json(capsys: Any, *argv: Any) -> dict[str, Any]:
    code, out, err = _run(capsys, *argv, "--format", "json")
    assert code == 0, err
    values: dict[str, Any] = json.loads(out)
    return values


def _error(capsys: Any, *argv: Any) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, out
    assert out == "" and "Traceback" not in err
    return err


def _same(got: dict[str, Any], expected: dict[str, Any]) -> None:
    assert list(got) == list(expected)
    for name, value in expected.items():
        if name in EXACT or isinstance(value, str):
            assert got[name] == value, name
        else:
            assert np.allclose(got[name], value, rtol=1e-12, atol=0), name


def _close(a: Any, b: Any) -> bool:
    if isinstance(b, dict):
        return isinstance(a, dict) and list(a) == list(b) and all(_close(a[k], b[k]) for k in b)
    if isinstance(b, float) and isinstance(a, float):
        return bool(np.isclose(a, b, rtol=1e-12, atol=0, equal_nan=True))
    return bool(a == b)


def _eval_args(path: Path | str, task: str) -> list[str]:
    entry = EVAL[task]
    args = ["eval", str(path), "--task", task, "--true", *entry["true"], "--pred", *entry["pred"]]
    if entry.get("score"):
        args += ["--score", *entry["score"]]
    return args


# chunked eval ----------------------------------------------------------------------------------


@pytest.mark.parametrize("task", sorted(EVAL))
def test_chunked_eval_equals_the_whole_file_on_every_bundled_example(
    capsys: Any, task: str
) -> None:
    args = _eval_args(DATA / EVAL[task]["file"], task)
    whole = _json(capsys, *args)
    assert len(whole) >= 5
    for size in (13, 100_000):
        _same(_json(capsys, *args, "--chunk-size", size, "--quiet"), whole)
    _same(_json(capsys, *args, "--engine", "stream"), whole)


def test_chunked_eval_reports_the_same_notes(capsys: Any) -> None:
    args = ["eval", DATA / "regression.csv", "--task", "regression", "--true", "price", "days"]
    args += ["--pred", "pred_price", "pred_days"]
    code, out, err = _run(capsys, *args)
    assert code == 0 and "skipped default metric: max_error" in err
    assert _run(capsys, *args, "--chunk-size", "13") == (0, out, err)


def _large(tmp_path: Path, n: int = 200_000) -> tuple[Path, dict[str, np.ndarray]]:
    rng = np.random.default_rng(42)
    label = rng.integers(0, 2, n)
    score = np.clip(label * 0.3 + rng.random(n) * 0.7, 0, 1).round(4)
    pred = (score > 0.5).astype(np.int64)
    weight = rng.integers(1, 4, n).astype(np.float64)
    cols = {"label": label, "pred": pred, "score": score, "w": weight}
    path = tmp_path / "large.csv"
    pacsv.write_csv(pa.table(cols), path)
    return path, cols


def _f1(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    tp = w[(y == 1) & (p == 1)].sum()
    return float(2 * tp / (2 * tp + w[(y == 0) & (p == 1)].sum() + w[(y == 1) & (p == 0)].sum()))


def _auc(y: np.ndarray, s: np.ndarray) -> float:
    """ROC AUC as the Mann-Whitney statistic, ties counted one half."""
    _, inverse, counts = np.unique(s, return_inverse=True, return_counts=True)
    ranks = (np.cumsum(counts) - (counts - 1) / 2)[inverse]
    pos, neg = int((y == 1).sum()), int((y == 0).sum())
    return float((ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * neg))


def test_chunked_eval_of_a_generated_200k_row_file(tmp_path: Path, capsys: Any) -> None:
    path, cols = _large(tmp_path)
    base = ["eval", path, "--task", "binary", "--true", "label", "--pred", "pred"]
    base += ["--score", "score"]
    whole = _json(capsys, *base)
    y, p, s, w = cols["label"], cols["pred"], cols["score"], cols["w"]
    assert whole["accuracy"] == float(np.mean(y == p))
    assert whole["f1"] == pytest.approx(_f1(y, p, np.ones(len(y))), rel=1e-12)
    assert whole["roc_auc"] == pytest.approx(_auc(y, s), rel=1e-12)
    for size in (65_536, 9_999):
        _same(_json(capsys, *base, "--chunk-size", size), whole)
    weighted = [*base, "--weight", "w", "--metric", "f1", "roc_auc", "log_loss"]
    whole_w = _json(capsys, *weighted)
    assert whole_w["f1"] == pytest.approx(_f1(y, p, w), rel=1e-12)
    got = _json(capsys, *weighted, "--chunk-size", 30_000)
    for name, value in whole_w.items():
        assert got[name] == pytest.approx(value, rel=1e-12, abs=0), name


def test_chunked_multiclass_scores_learn_the_classes_of_the_whole_file(
    tmp_path: Path, capsys: Any
) -> None:
    # the first chunks hold only 'bird' and 'cat'; 'dog' comes last
    table = pq.read_table(DATA / "multiclass.parquet")
    order = np.argsort(np.asarray(table.column("label").to_pylist()), kind="stable")
    path = tmp_path / "sorted.parquet"
    pq.write_table(table.take(pa.array(order)), path)
    args = _eval_args(path, "multiclass")
    whole = _json(capsys, *args)
    assert "roc_auc" in whole and "log_loss" in whole
    _same(_json(capsys, *args, "--chunk-size", 50), whole)


def test_chunked_eval_reads_globs_of_files(tmp_path: Path, capsys: Any) -> None:
    table = pacsv.read_csv(DATA / "binary.csv")
    for i, start in enumerate(range(0, table.num_rows, 150)):
        pacsv.write_csv(table.slice(start, 150), tmp_path / f"part-{i}.csv")
    whole = _json(capsys, *_eval_args(DATA / "binary.csv", "binary"))
    got = _json(capsys, *_eval_args(tmp_path / "part-*.csv", "binary"), "--chunk-size", 64)
    _same(got, whole)


def test_chunked_eval_fails_as_the_whole_file_does(tmp_path: Path, capsys: Any) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("label,score\n" + "1,0.5\n" * 30 + "0,\n" + "0,0.25\n" * 5)
    args = ["eval", path, "--task", "binary", "--true", "label", "--score", "score"]
    args += ["--metric", "roc_auc"]
    err = _error(capsys, *args)
    assert f"{path}, line 32, column 'score': missing value" in err
    assert _error(capsys, *args, "--chunk-size", "8") == err
    # a text value below a block of numbers: the column is read again as text, as a
    # whole-file read types it, and every metric then sees strings and numbers
    path.write_text("label,pred\n" + "1,1\n" * 30 + "1,oops\n" + "0,0\n" * 5)
    args = ["eval", path, "--task", "binary", "--true", "label", "--pred", "pred"]
    err = _error(capsys, *args)
    assert "labels mix strings and numbers" in err
    assert _error(capsys, *args, "--chunk-size", "8") == err
    three = tmp_path / "three.csv"
    three.write_text("label,pred\n" + "0,0\n1,1\n" * 10 + "2,2\n")
    args = ["eval", three, "--task", "binary", "--true", "label", "--pred", "pred"]
    assert "--task binary needs at most two classes" in _error(capsys, *args, "--chunk-size", "4")


# flags ------------------------------------------------------------------------------------------


def test_scale_flags_that_contradict_each_other(capsys: Any) -> None:
    args = _eval_args(DATA / "binary.csv", "binary")
    assert "--scheduler is for the Dask engine" in _error(
        capsys, *args, "--scheduler", "tcp://127.0.0.1:8786"
    )
    assert "--workers is for the Dask engine" in _error(capsys, *args, "--workers", "2")
    err = _error(capsys, *args, "--engine", "dask", "--workers", "2", "--scheduler", "tcp://x:1")
    assert "exclude each other" in err
    assert "expected a whole number >= 1" in _error(capsys, *args, "--chunk-size", "0")
    assert "invalid choice" in _error(capsys, *args, "--engine", "flink")


def test_no_progress_bar_off_a_terminal_or_with_quiet(capsys: Any) -> None:
    args = _eval_args(DATA / "binary.csv", "binary")
    for extra in ([], ["--quiet"]):
        code, _, err = _run(capsys, *args, "--chunk-size", "50", *extra)
        assert code == 0 and "rows/s" not in err and "\r" not in err


# rank and text in chunks ----------------------------------------------------------------------


def test_chunked_rank_equals_the_whole_run(capsys: Any) -> None:
    args = ["rank", DATA / "qrels.txt", DATA / "run.txt", "-m", "map", "ndcg@10", "mrr@10"]
    args += ["p@5", "recall@20", "bpref", "err@20", "--missing", "zero"]
    whole = _json(capsys, *args)
    for size in (1, 29, 10_000):
        assert _json(capsys, *args, "--chunk-size", size) == whole
    out = _run(capsys, *args, "--per-query", "--format", "trec")[1]
    assert _run(capsys, *args, "--per-query", "--format", "trec", "--chunk-size", "40")[1] == out


def test_chunked_rank_sums_the_warnings_of_its_chunks(tmp_path: Path, capsys: Any) -> None:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("".join(f"q{i} 0 d1 {int(i % 3 == 0)}\n" for i in range(12)))
    run.write_text("".join(f"q{i} Q0 d{j} {j} {1 / j} t\n" for i in range(12) for j in (1, 2)))
    args = ["rank", qrels, run, "-m", "map", "--format", "json"]
    code, out, err = _run(capsys, *args)
    assert code == 0 and "8 of 12 queries have no relevant document" in err
    assert _run(capsys, *args, "--chunk-size", "4") == (0, out, err)


def test_chunked_rank_needs_a_run_grouped_by_query(tmp_path: Path, capsys: Any) -> None:
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 a 1 3 t\nq1 Q0 b 2 2 t\nq2 Q0 a 1 3 t\nq1 Q0 c 3 1 t\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a 1\nq2 0 a 1\n")
    assert _run(capsys, "rank", qrels, run)[0] == 0
    err = _error(capsys, "rank", qrels, run, "--chunk-size", "2")
    assert "not grouped by query" in err and "'q1'" in err


def test_chunked_text_equals_the_whole_files(capsys: Any) -> None:
    args = ["text", "--refs", DATA / "refs_a.txt", DATA / "refs_b.txt", "--hyps"]
    args += [DATA / "hyps.txt", "-m", "bleu", "rouge1", "rouge2", "rougeL", "rougeLsum"]
    code, out, err = _run(capsys, *args, "--format", "json")
    assert code == 0 and "bleu signature" in err
    whole = json.loads(out)
    for size in (1, 3, 1000):
        code, out, chunked_err = _run(capsys, *args, "--format", "json", "--chunk-size", str(size))
        assert code == 0 and chunked_err == err
        _same(json.loads(out), whole)


def test_chunked_text_reads_files_as_the_whole_reader_does(tmp_path: Path, capsys: Any) -> None:
    hyp, ref = tmp_path / "h.txt.gz", tmp_path / "r.txt"
    lines = ["the cat sat on the mat", "a dog ran in the park today", "it is late"]
    hyp.write_bytes(gzip.compress(("\ufeff" + "\r\n".join(lines)).encode()))
    ref.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["text", "--refs", ref, "--hyps", hyp, "-m", "bleu", "rouge1", "--format", "json"]
    whole = _json(capsys, *args)
    assert whole["bleu"] == 1.0 and whole["rouge1:fmeasure"] == 1.0
    assert _json(capsys, *args, "--chunk-size", 2) == whole
    short = tmp_path / "short.txt"
    short.write_text("\n".join(lines[:2]) + "\n")
    for extra in ([], ["--chunk-size", "1"]):
        err = _error(capsys, "text", "--refs", short, "--hyps", hyp, *extra)
        assert "differ in line count" in err and "2 lines in" in err and "3 in" in err
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"fine\nfine\n\xff bad\n")
    for extra in ([], ["--chunk-size", "1"]):
        err = _error(capsys, "text", "--refs", bad, "--hyps", hyp, *extra)
        assert "line 3" in err and "not valid UTF-8" in err and "0xff at column 1" in err


# shards: split, --save-state, merge -------------------------------------------------------------


def _split_table(path: Path, out: Path, parts: int = 3) -> list[Path]:
    if path.suffix == ".parquet":
        table = pq.read_table(path)
    elif path.suffix == ".jsonl":
        table = pajson.read_json(path)
    else:
        table = pacsv.read_csv(path)
    cuts = np.linspace(0, table.num_rows, parts + 1).astype(int)
    cuts[1] -= 17  # shards of different sizes
    files = []
    for i in range(parts):
        part = table.slice(cuts[i], cuts[i + 1] - cuts[i])
        name = out / f"shard{i}{path.suffix}"
        if path.suffix == ".parquet":
            pq.write_table(part, name)
        elif path.suffix == ".jsonl":
            name.write_text("".join(json.dumps(r) + "\n" for r in part.to_pylist()))
        else:
            pacsv.write_csv(part, name)
        files.append(name)
    return files


@pytest.mark.parametrize("task", sorted(EVAL))
def test_eval_shards_merged_equal_the_whole_file(tmp_path: Path, capsys: Any, task: str) -> None:
    source = DATA / EVAL[task]["file"]
    whole = _json(capsys, *_eval_args(source, task))
    states = []
    for i, shard in enumerate(_split_table(source, tmp_path)):
        state = tmp_path / f"shard{i}.state.json{'.gz' if i == 1 else ''}"
        extra = ["--chunk-size", "50"] if i == 2 else []
        assert _run(capsys, *_eval_args(shard, task), "--save-state", state, *extra)[0] == 0
        states.append(state)
    code, out, err = _run(capsys, "merge", *states, "--format", "json")
    assert code == 0, err
    _same(json.loads(out), whole)
    metrics, _, meta = load_states(states[0])
    assert meta["command"] == "eval" and meta["input"] == task
    assert meta["columns"]["y_true"] == EVAL[task]["true"]
    rows = sum(load_states(s).meta["rows"] for s in states)
    assert f"{rows:,} rows" in err and list(metrics) == list(whole)


def test_merge_prints_the_table_csv_and_a_merged_state(tmp_path: Path, capsys: Any) -> None:
    source = DATA / "binary.csv"
    args = [*_eval_args(source, "binary"), "--metric", "accuracy", "f1"]
    states = []
    for i, shard in enumerate(_split_table(source, tmp_path)):
        states.append(tmp_path / f"s{i}.json")
        assert _run(capsys, *[*args[:1], shard, *args[2:]], "--save-state", states[-1])[0] == 0
    table = _run(capsys, *args)[1]
    assert _run(capsys, "merge", *states)[1] == table
    out = _run(capsys, "merge", *states, "--format", "csv")[1]
    assert out.splitlines()[0] == "metric,value" and out.splitlines()[1].startswith("accuracy,")
    both = tmp_path / "first-two.json"
    assert _run(capsys, "merge", states[0], states[1], "--save-state", both)[0] == 0
    assert _run(capsys, "merge", both, states[2])[1] == table


def _split_lines(paths: list[Path], out: Path, cuts: list[int]) -> list[list[Path]]:
    shards = []
    texts = [p.read_text(encoding="utf-8").splitlines(keepends=True) for p in paths]
    for i, (a, b) in enumerate(itertools.pairwise(cuts)):
        files = []
        for path, lines in zip(paths, texts, strict=True):
            name = out / f"{i}-{path.name}"
            name.write_text("".join(lines[a:b]), encoding="utf-8")
            files.append(name)
        shards.append(files)
    return shards


def test_rank_shards_merged_equal_the_whole_run(tmp_path: Path, capsys: Any) -> None:
    args = ["-m", "map", "ndcg@10", "mrr", "p@5", "recall@20", "bpref", "--format", "json"]
    whole = _json(capsys, "rank", DATA / "qrels.txt", DATA / "run.txt", *args[:-2])
    lines = (DATA / "run.txt").read_text().splitlines(keepends=True)
    queries = [line.split()[0] for line in lines]
    # cut between queries: a query's rows stay in one shard
    starts = [i for i in range(1, len(lines)) if queries[i] != queries[i - 1]]
    cuts = [0, starts[2], starts[7], len(lines)]
    states = []
    for i, (run,) in enumerate(_split_lines([DATA / "run.txt"], tmp_path, cuts)):
        states.append(tmp_path / f"rank{i}.json")
        extra = ["--chunk-size", "25"] if i == 1 else []
        code, _, err = _run(
            capsys, "rank", DATA / "qrels.txt", run, *args[:-2], "--save-state", states[-1], *extra
        )
        assert code == 0, err
    assert _json(capsys, "merge", *states) == whole


def test_text_shards_merged_equal_the_whole_files(tmp_path: Path, capsys: Any) -> None:
    files = [DATA / "hyps.txt", DATA / "refs_a.txt", DATA / "refs_b.txt"]
    base = ["-m", "bleu", "rouge1", "rougeL", "--tokenize", "intl", "--stemmer"]
    code, out, err = _run(
        capsys, "text", "--refs", *files[1:], "--hyps", files[0], *base, "--format", "json"
    )
    whole = json.loads(out)
    states = []
    for i, (hyp, *refs) in enumerate(_split_lines(files, tmp_path, [0, 2, 3, 8])):
        states.append(tmp_path / f"text{i}.json")
        code, _, e = _run(
            capsys, "text", "--refs", *refs, "--hyps", hyp, *base, "--save-state", states[-1]
        )
        assert code == 0, e
    code, merged, merged_err = _run(capsys, "merge", *states, "--format", "json")
    assert code == 0
    _same(json.loads(merged), whole)
    assert err.strip() in merged_err  # the BLEU signature


def test_chunked_throughput_report_equals_the_whole_file(capsys: Any) -> None:
    args = ["throughput", DATA / "requests.jsonl", "--slo", "ttft=500ms", "tpot=30ms"]
    for fmt in ("json", "table"):
        code, whole, err = _run(capsys, *args, "--format", fmt)
        assert code == 0
        for size in (1, 45):
            assert _run(capsys, *args, "--format", fmt, "--chunk-size", str(size)) == (
                0,
                whole,
                err,
            )


def test_throughput_shards_merged_equal_the_whole_file(tmp_path: Path, capsys: Any) -> None:
    args = ["--slo", "ttft=500ms", "--format", "json"]
    whole = _json(capsys, "throughput", DATA / "requests.jsonl", *args[:-2])
    assert whole["failure_reasons"] and whole["goodput"] > 0
    lines = (DATA / "requests.jsonl").read_text().splitlines(keepends=True)
    states = []
    for i, (a, b) in enumerate(itertools.pairwise([0, 70, 71, len(lines)])):
        shard = tmp_path / f"requests-{i}.jsonl"
        shard.write_text("".join(lines[a:b]))
        states.append(tmp_path / f"requests-{i}.json")
        code, _, err = _run(capsys, "throughput", shard, *args, "--save-state", states[-1])
        assert code == 0, err
    assert _json(capsys, "merge", *states) == whole
    assert "print as a report" in _error(capsys, "merge", *states, "--format", "csv")
    other = tmp_path / "other.json"
    code, _, _ = _run(
        capsys, "throughput", DATA / "requests.jsonl", "--slo", "ttft=1s", "--save-state", other
    )
    assert code == 0
    err = _error(capsys, "merge", states[0], other)
    assert "'ttft'" in err and str(other) in err


# bad state files through the command ------------------------------------------------------------


@pytest.fixture
def shards(tmp_path: Path, capsys: Any) -> list[Path]:
    states = []
    for i, shard in enumerate(_split_table(DATA / "binary.csv", tmp_path)):
        states.append(tmp_path / f"b{i}.json")
        args = _eval_args(shard, "binary")
        assert _run(capsys, *args, "--metric", "accuracy", "f1", "--save-state", states[-1])[0] == 0
    return states


def test_merge_refuses_a_state_file_of_another_version(shards: list[Path], capsys: Any) -> None:
    data = json.loads(shards[1].read_text())
    data["scorekit_states"] = 7
    shards[1].write_text(json.dumps(data))
    err = _error(capsys, "merge", *shards)
    assert str(shards[1]) in err and "version 7" in err and "version 1" in err


def test_merge_refuses_another_metric_or_configuration(
    shards: list[Path], tmp_path: Path, capsys: Any
) -> None:
    other = tmp_path / "other.json"
    shard = tmp_path / "shard0.csv"
    args = _eval_args(shard, "binary")
    assert _run(capsys, *args, "--metric", "accuracy", "mcc", "--save-state", other)[0] == 0
    err = _error(capsys, "merge", shards[0], other)
    assert "'f1'" in err and str(other) in err
    positive = tmp_path / "positive.json"
    code, _, _ = _run(
        capsys, *args, "--metric", "accuracy", "f1", "--pos-label", "0", "--save-state", positive
    )
    assert code == 0
    err = _error(capsys, "merge", shards[0], positive)
    assert "pos_label" in err and str(positive) in err and str(shards[0]) in err


def test_merge_refuses_states_of_another_command(
    shards: list[Path], tmp_path: Path, capsys: Any
) -> None:
    text = tmp_path / "text.json"
    code, _, _ = _run(
        capsys,
        "text",
        "--refs",
        DATA / "refs_a.txt",
        "--hyps",
        DATA / "hyps.txt",
        "--save-state",
        text,
    )
    assert code == 0
    err = _error(capsys, "merge", shards[0], text)
    assert "metric 'accuracy' is missing" in err and str(text) in err


def test_merge_reports_truncated_corrupt_and_missing_files(
    shards: list[Path], tmp_path: Path, capsys: Any
) -> None:
    text = shards[2].read_text()
    shards[2].write_text(text[: len(text) - 40])
    err = _error(capsys, "merge", *shards)
    assert str(shards[2]) in err and "truncated state file" in err and "line 3, column" in err
    csv = DATA / "binary.csv"
    assert "not a scorekit state file" in _error(capsys, "merge", shards[0], csv)
    missing = tmp_path / "missing.json"
    err = _error(capsys, "merge", shards[0], missing)
    assert "no such file" in err and str(missing) in err
    assert "the same state file is given twice" in _error(capsys, "merge", shards[0], shards[0])


def test_save_state_writes_nothing_when_the_evaluation_fails(tmp_path: Path, capsys: Any) -> None:
    state = tmp_path / "never.json"
    args = _eval_args(DATA / "binary.csv", "binary")
    _error(capsys, *args, "--metric", "no_such_metric", "--save-state", state)
    assert not state.exists()


# Dask -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scheduler() -> Any:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


REQUEST_REASONS = {
    "HTTP 503: server overloaded": 3,
    "stream interrupted": 1,
    "timeout after 10 s": 1,
}


def test_dask_and_streamed_throughput_shards_merge_to_the_whole_files_reasons(
    scheduler: str, capsys: Any, tmp_path: Path
) -> None:
    records = DATA / "requests.jsonl"
    whole = _json(capsys, "throughput", records)
    assert whole["failure_reasons"] == REQUEST_REASONS  # counted in the file by hand
    dask = _json(capsys, "throughput", records, "--engine", "dask", "--scheduler", scheduler)
    assert dask["failure_reasons"] == REQUEST_REASONS
    lines = records.read_text().splitlines(keepends=True)
    states = []
    for i, (a, b) in enumerate(itertools.pairwise([0, 100, len(lines)])):
        shard = tmp_path / f"requests-{i}.jsonl"
        shard.write_text("".join(lines[a:b]))
        states.append(tmp_path / f"requests-{i}.json")
        engine = ["--engine", "dask", "--scheduler", scheduler] if i == 0 else ["--chunk-size", "7"]
        code, _, err = _run(capsys, "throughput", shard, *engine, "--save-state", states[-1])
        assert code == 0, err
    merged = _json(capsys, "merge", *states)
    assert list(merged["failure_reasons"].items()) == list(whole["failure_reasons"].items())
    assert merged["failures"] == sum(REQUEST_REASONS.values()) == 5
    code, table, _ = _run(capsys, "merge", *states)
    assert code == 0
    assert "200 (195 succeeded, 5 failed)" in table
    shown = [line.split(None, 1)[1] for line in table.splitlines() if line.startswith("  failed")]
    expected = ["3 x HTTP 503: server overloaded", "1 x stream interrupted"]
    assert shown == [*expected, "1 x timeout after 10 s"]


def test_dask_engine_equals_the_whole_file(scheduler: str, capsys: Any, tmp_path: Path) -> None:
    for task in ("binary", "multiclass", "regression"):
        args = _eval_args(DATA / EVAL[task]["file"], task)
        state = tmp_path / f"{task}.json"
        got = _json(
            capsys, *args, "--engine", "dask", "--scheduler", scheduler, "--save-state", state
        )
        _same(got, _json(capsys, *args))
        assert load_states(state).meta["rows"] > 0
    records = ["throughput", DATA / "requests.jsonl", "--format", "json"]
    got = json.loads(_run(capsys, *records, "--engine", "dask", "--scheduler", scheduler)[1])
    whole = json.loads(_run(capsys, *records)[1])
    # the reasons travel in the workers' states: the same tally, in the same order
    assert list(got.pop("failure_reasons").items()) == list(whole.pop("failure_reasons").items())
    # Dask's JSON Lines reader parses the floats itself: equal to 1e-12
    assert _close(got, whole)
    text = ["text", "--refs", DATA / "refs_a.txt", DATA / "refs_b.txt", "--hyps"]
    text += [DATA / "hyps.txt"]
    _same(_json(capsys, *text, "--engine", "dask", "--scheduler", scheduler), _json(capsys, *text))
