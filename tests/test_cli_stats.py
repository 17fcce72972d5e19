"""``--ci`` and comparisons of systems on the commands: intervals at every scale, tests, errors."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from conftest import ROOT
from scorekit.cli import main

EXAMPLES = ROOT / "examples" / "data"
N = 120
FEW = ["--n-resamples", "200"]


def _run(capsys: Any, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _out(capsys: Any, *argv: Any) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 0, err
    return out


def _error(capsys: Any, *argv: Any) -> str:
    code, out, err = _run(capsys, *argv)
    assert code == 2, out
    assert out == ""
    assert err.startswith("scorekit: ") and "Traceback" not in err
    return err


def _csv(text: str) -> dict[str, dict[str, str]]:
    return {row["metric"]: row for row in csv.DictReader(io.StringIO(text))}


@pytest.fixture(scope="module")
def table(tmp_path_factory: Any) -> Path:
    """A binary file of two models' labels and scores, with a unique id per row."""
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    a = np.clip(0.3 * y + 0.7 * rng.random(N), 0, 1)
    b = np.clip(0.45 * y + 0.55 * rng.random(N), 0, 1)
    path = Path(tmp_path_factory.mktemp("stats")) / "preds.csv"
    lines = ["id,y,pa,pb,sa,sb"]
    lines += [
        f"row{i},{y[i]},{int(a[i] > 0.5)},{int(b[i] > 0.5)},{a[i]:.6f},{b[i]:.6f}" for i in range(N)
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _shards(table: Path, folder: Path) -> Path:
    """The rows of ``table`` in two files of a directory."""
    head, *rows = table.read_text().splitlines()
    folder.mkdir()
    half = len(rows) // 2
    (folder / "a.csv").write_text("\n".join([head, *rows[:half]]) + "\n")
    (folder / "b.csv").write_text("\n".join([head, *rows[half:]]) + "\n")
    return folder


EVAL = ["--task", "binary", "--true", "y", "--pred", "pa", "--metric", "accuracy", "f1"]


def test_eval_ci_table_json_and_csv(capsys: Any, table: Path) -> None:
    plain = json.loads(_out(capsys, "eval", table, *EVAL, "--format", "json"))
    text = _out(capsys, "eval", table, *EVAL, "--ci", *FEW)
    assert text.splitlines()[0].split() == ["metric", "value", "low", "high"]
    assert "95% percentile intervals: Poisson bootstrap, 200 resamples, seed 0, unit: row" in text
    doc = json.loads(_out(capsys, "eval", table, *EVAL, "--ci", *FEW, "--format", "json"))
    rows = _csv(_out(capsys, "eval", table, *EVAL, "--ci", *FEW, "--format", "csv"))
    for name in ("accuracy", "f1"):
        got = doc[name]
        assert set(got) == {"value", "low", "high", "confidence", "method"}
        assert got["value"] == plain[name]
        assert got["low"] < got["value"] < got["high"]
        assert (got["confidence"], got["method"]) == (0.95, "percentile")
        assert float(rows[name]["low"]) == got["low"]
        assert float(rows[name]["high"]) == got["high"]


def test_eval_ci_options_change_the_interval(capsys: Any, table: Path) -> None:
    args = ("eval", table, *EVAL, "--ci", *FEW, "--format", "json")
    base = json.loads(_out(capsys, *args))["accuracy"]
    narrow = json.loads(_out(capsys, *args, "--confidence", "0.5"))["accuracy"]
    bca = json.loads(_out(capsys, *args, "--ci-method", "bca"))["accuracy"]
    other = json.loads(_out(capsys, *args, "--seed", "3"))["accuracy"]
    assert base["low"] < narrow["low"] <= narrow["high"] < base["high"]
    assert bca["method"] == "bca" and narrow["confidence"] == 0.5
    assert (other["low"], other["high"]) != (base["low"], base["high"])


@pytest.mark.parametrize("key", [[], ["--key", "id"]])
def test_chunked_intervals_equal_the_whole_file(capsys: Any, table: Path, key: list[str]) -> None:
    args = ("eval", table, *EVAL, "--ci", *FEW, *key, "--format", "json")
    whole = json.loads(_out(capsys, *args))
    for size in ("7", "50"):
        chunked = json.loads(_out(capsys, *args, "--chunk-size", size))
        for name, got in chunked.items():
            assert got["value"] == pytest.approx(whole[name]["value"], rel=1e-12)
            assert got["low"] == pytest.approx(whole[name]["low"], rel=1e-12)
            assert got["high"] == pytest.approx(whole[name]["high"], rel=1e-12)


def test_text_ci_in_blocks_equals_the_whole_files(capsys: Any) -> None:
    args = ["text", "--refs", EXAMPLES / "refs_a.txt", "--hyps", EXAMPLES / "hyps.txt"]
    args += ["-m", "bleu", "chrf", "rougeL", "--ci", *FEW, "--format", "csv"]
    whole = _csv(_out(capsys, *args))
    blocks = _csv(_out(capsys, *args, "--chunk-size", "3"))
    assert set(whole) == {"bleu", "chrf", "rougeL"}
    for name, row in whole.items():
        for field in ("value", "low", "high"):
            assert float(blocks[name][field]) == pytest.approx(float(row[field]), rel=1e-12)


def test_shards_with_a_key_merge_to_the_whole_interval(
    capsys: Any, table: Path, tmp_path: Path
) -> None:
    folder = _shards(table, tmp_path / "shards")
    args = [*EVAL, "--ci", *FEW, "--key", "id"]
    whole = _csv(_out(capsys, "eval", table, *args, "--format", "csv"))
    for name in ("a", "b"):
        _out(capsys, "eval", folder / f"{name}.csv", *args, "--save-state", tmp_path / name)
    merged = _csv(_out(capsys, "merge", tmp_path / "a", tmp_path / "b", "--format", "csv"))
    for name, row in whole.items():
        for field in ("value", "low", "high"):
            assert float(merged[name][field]) == pytest.approx(float(row[field]), rel=1e-12)


def test_shards_keyed_by_position_do_not_merge(capsys: Any, table: Path, tmp_path: Path) -> None:
    folder = _shards(table, tmp_path / "shards")
    for name in ("a", "b"):
        _out(
            capsys,
            "eval",
            folder / f"{name}.csv",
            *EVAL,
            "--ci",
            *FEW,
            "--save-state",
            tmp_path / name,
        )
    err = _error(capsys, "merge", tmp_path / "a", tmp_path / "b")
    assert "keyed by the same row positions" in err and "--key" in err


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=False, dashboard_address=":0"
    ) as cluster:
        yield cluster.scheduler_address


def test_dask_with_a_key_equals_in_memory(
    capsys: Any, table: Path, tmp_path: Path, scheduler: str
) -> None:
    folder = _shards(table, tmp_path / "shards")
    args = [*EVAL, "--ci", *FEW, "--format", "csv"]
    whole = _csv(_out(capsys, "eval", table, *args, "--key", "id"))
    dask = ["--engine", "dask", "--scheduler", scheduler]
    on_dask = _csv(_out(capsys, "eval", folder, *args, "--key", "id", *dask))
    for name, row in whole.items():
        for field in ("value", "low", "high"):
            assert float(on_dask[name][field]) == pytest.approx(float(row[field]), rel=1e-12)
    err = _error(capsys, "eval", folder, *args, *dask)
    assert "its partitions do not know the positions of their rows" in err and "--key" in err


def test_rank_qa_and_throughput_give_intervals(capsys: Any) -> None:
    rank = _csv(
        _out(
            capsys,
            "rank",
            EXAMPLES / "qrels.txt",
            EXAMPLES / "run.txt",
            "-m",
            "ndcg@10",
            "--ci",
            *FEW,
            "--format",
            "csv",
        )
    )
    squad = _csv(
        _out(
            capsys,
            "qa",
            EXAMPLES / "squad_dev.json",
            EXAMPLES / "squad_preds.json",
            "--ci",
            *FEW,
            "--format",
            "csv",
        )
    )
    served = json.loads(
        _out(capsys, "throughput", EXAMPLES / "requests.jsonl", "--ci", *FEW, "--format", "json")
    )
    for row in (rank["ndcg@10"], squad["f1"]):
        assert float(row["low"]) <= float(row["value"]) <= float(row["high"])
    assert squad["total"]["low"] == ""
    latency = served["intervals"]["e2e_latency"]
    assert latency["low"] < latency["value"] < latency["high"]


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--ci", "--n-resamples", "0"], "--n-resamples: invalid number of resamples; got 0"),
        (["--ci", "--confidence", "1.5"], "--confidence: invalid confidence; got 1.5"),
        (["--ci", "--key", "nope"], "no such column; got 'nope'"),
        (["--ci", "--key", "y"], "key column has duplicates"),
        (["--confidence", "0.9"], "--confidence sets the confidence intervals"),
    ],
)
def test_interval_errors(capsys: Any, table: Path, flags: list[str], expected: str) -> None:
    assert expected in _error(capsys, "eval", table, *EVAL, *flags)


def _trec(folder: Path, runs: dict[str, dict[str, list[float]]]) -> tuple[Path, list[Path]]:
    """A qrels file (doc d0..d9 of each query, relevant when even) and run files."""
    queries = sorted(next(iter(runs.values())))
    qrels = folder / "qrels"
    qrels.write_text("".join(f"{q} 0 d{d} {int(d % 2 == 0)}\n" for q in queries for d in range(10)))
    paths = []
    for name, scores in runs.items():
        path = folder / name
        lines = [
            f"{q} Q0 d{d} {r + 1} {s:.6f} {name}\n"
            for q, values in scores.items()
            for r, (d, s) in enumerate(sorted(enumerate(values), key=lambda p: -p[1]))
        ]
        path.write_text("".join(lines))
        paths.append(path)
    return qrels, paths


def _systems(seed: int, queries: int = 12) -> dict[str, dict[str, list[float]]]:
    rng = np.random.default_rng(seed)
    out = {}
    for name, skill in (("base", 0.2), ("better", 0.6), ("other", 0.0)):
        out[name] = {
            f"q{q:02d}": [float(skill * (d % 2 == 0) + rng.random()) for d in range(10)]
            for q in range(queries)
        }
    return out


def test_compare_runs_agrees_with_scipy_ttest_rel(capsys: Any, tmp_path: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    stats = pytest.importorskip("scipy.stats")
    runs = _systems(3)
    qrels, paths = _trec(tmp_path, runs)
    doc = json.loads(
        _out(
            capsys,
            "rank",
            qrels,
            *paths,
            "-m",
            "ndcg@10",
            "--test",
            "t",
            "--correction",
            "holm",
            "--format",
            "json",
        )
    )
    judged = {q: {f"d{d}": int(d % 2 == 0) for d in range(10)} for q in next(iter(runs.values()))}
    evaluator = pytrec_eval.RelevanceEvaluator(judged, {"ndcg_cut.10"})
    per_query = {
        name: [
            v["ndcg_cut_10"]
            for _, v in sorted(
                evaluator.evaluate(
                    {q: {f"d{d}": s for d, s in enumerate(values)} for q, values in run.items()}
                ).items()
            )
        ]
        for name, run in runs.items()
    }
    pvalues = []
    for found, name in zip(doc["comparisons"], ("better", "other"), strict=True):
        expected = stats.ttest_rel(per_query[name], per_query["base"])
        assert found["system"] == name and found["baseline"] == "base"
        assert found["value"] == pytest.approx(np.mean(per_query[name]), rel=1e-12)
        assert found["difference"] == pytest.approx(
            np.mean(per_query[name]) - np.mean(per_query["base"]), rel=1e-9
        )
        assert found["pvalue"] == pytest.approx(expected.pvalue, rel=1e-9)
        pvalues.append(expected.pvalue)
    # Holm: the smaller p-value times 2, the larger at least that, both at most 1
    low, high = sorted(pvalues)
    adjusted = sorted(c["adjusted"] for c in doc["comparisons"])
    assert adjusted == pytest.approx([min(1, 2 * low), min(1, max(2 * low, high))], rel=1e-12)
    table = _out(capsys, "rank", qrels, *paths, "-m", "ndcg@10", "--test", "t")
    assert "(baseline)" in table and "paired t-test" in table


def test_compare_columns_and_significance_mark(capsys: Any, table: Path) -> None:
    args = ["--task", "binary", "--true", "y"]
    text = _out(capsys, "eval", table, *args, "--score", "sa", "sb", "--test", "delong")
    assert "roc_auc" in text and "DeLong's test" in text
    rows = _csv(
        _out(
            capsys,
            "eval",
            table,
            *args,
            "--pred",
            "pa",
            "pb",
            "--test",
            "paired_bootstrap",
            "--key",
            "id",
            *FEW,
            "--metric",
            "accuracy",
            "--format",
            "csv",
        )
    )
    row = rows["accuracy"]
    assert row["system"] == "pb" and row["baseline"] == "pa"
    assert float(row["low"]) <= float(row["difference"]) <= float(row["high"])
    assert row["significant"] == str(float(row["pvalue"]) < 0.05)


def test_compare_text_files(capsys: Any, tmp_path: Path) -> None:
    refs = EXAMPLES / "refs_a.txt"
    worse = tmp_path / "worse.txt"
    worse.write_text((EXAMPLES / "hyps.txt").read_text().replace("the", "a"))
    args = ["text", "--refs", refs, "--hyps", EXAMPLES / "hyps.txt", worse, "-m", "bleu"]
    doc = json.loads(_out(capsys, *args, *FEW, "--format", "json"))
    (found,) = doc["comparisons"]
    assert (doc["test"], doc["seed"], doc["n_resamples"]) == ("paired_bootstrap", 0, 200)
    assert found["system"] == "worse.txt" and found["difference"] < 0
    assert found["low"] <= found["difference"] <= found["high"]
    sacre = json.loads(_out(capsys, *args, "--paired-bs", "--format", "json"))
    assert (sacre["test"], sacre["seed"], sacre["n_samples"]) == ("bs", 12345, 1000)
    base, other = sacre["results"]["BLEU"]
    assert base["score"] == pytest.approx(100 * found["baseline_value"], rel=1e-12)
    assert other["score"] == pytest.approx(100 * found["value"], rel=1e-12)


def test_comparison_errors(capsys: Any, table: Path, tmp_path: Path) -> None:
    short = tmp_path / "short.txt"
    short.write_text("one line\n")
    err = _error(
        capsys, "text", "--refs", EXAMPLES / "refs_a.txt", "--hyps", EXAMPLES / "hyps.txt", short
    )
    assert "short.txt" in err
    runs = _systems(1)
    fewer = {
        name: dict(list(run.items())[:-1]) if name == "better" else run
        for name, run in runs.items()
    }
    qrels, paths = _trec(tmp_path, runs)
    (tmp_path / "fewer").mkdir()
    _, fewer_paths = _trec(tmp_path / "fewer", fewer)
    err = _error(capsys, "rank", qrels, paths[0], fewer_paths[1], "--test", "t")
    assert "is evaluated on other" in err and "'q11'" in err
    err = _error(capsys, "rank", qrels, paths[0], "--test", "t")
    assert "at least one other run" in err
    err = _error(capsys, "eval", table, *EVAL[:4], "--pred", "pa", "pb", "--test", "delong")
    assert "roc_auc: needs scores" in err
    err = _error(capsys, "eval", table, *EVAL, "--ci", "--test", "t")
    assert "--ci is for one system" in err


def test_paired_bs_prints_sacrebleus_table(capsys: Any, tmp_path: Path, monkeypatch: Any) -> None:
    pytest.importorskip("sacrebleu")
    import subprocess
    import sys

    monkeypatch.chdir(tmp_path)
    for name in ("refs_a.txt", "refs_b.txt", "hyps.txt"):
        (tmp_path / name).write_text((EXAMPLES / name).read_text())
    (tmp_path / "other.txt").write_text((EXAMPLES / "hyps.txt").read_text().replace("the", "a"))
    files = ["refs_a.txt", "refs_b.txt", "-i", "hyps.txt", "other.txt"]
    expected = subprocess.run(
        [
            sys.executable,
            "-m",
            "sacrebleu",
            *files,
            "--paired-bs",
            "-m",
            "bleu",
            "chrf",
            "-f",
            "text",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    got = _out(
        capsys,
        "text",
        "--refs",
        "refs_a.txt",
        "refs_b.txt",
        "--hyps",
        "hyps.txt",
        "other.txt",
        "--paired-bs",
        "-m",
        "bleu",
        "chrf",
    )
    grid = [line for line in expected.splitlines() if line.startswith(("│", "╒", "╞", "├", "╘"))]
    shown = [line for line in got.splitlines() if line.startswith(("│", "╒", "╞", "├", "╘"))]
    assert grid and shown == grid
    err = _error(
        capsys,
        "text",
        "--refs",
        "refs_a.txt",
        "--hyps",
        "hyps.txt",
        "other.txt",
        "--paired-bs",
        "--test",
        "t",
    )
    assert "--test is for scorekit's comparisons" in err


def test_few_resamples_warn(capsys: Any, table: Path) -> None:
    code, out, err = _run(capsys, "eval", table, *EVAL, "--ci", "--n-resamples", "20")
    assert code == 0 and "low" in out
    assert "scorekit: warning: --n-resamples 20: few resamples" in err


def test_throughput_on_dask_with_a_key_equals_in_memory(capsys: Any, scheduler: str) -> None:
    args = ["throughput", EXAMPLES / "requests.jsonl", "--ci", *FEW, "--key", "id"]
    whole = json.loads(_out(capsys, *args, "--format", "json"))["intervals"]
    dask = json.loads(
        _out(capsys, *args, "--format", "json", "--engine", "dask", "--scheduler", scheduler)
    )["intervals"]
    assert whole.keys() == dask.keys()
    for name, row in whole.items():
        for field in ("value", "low", "high"):
            assert dask[name][field] == pytest.approx(row[field], rel=1e-12, nan_ok=True)
    err = _error(
        capsys,
        "throughput",
        EXAMPLES / "requests.jsonl",
        "--ci",
        *FEW,
        "--engine",
        "dask",
        "--scheduler",
        scheduler,
    )
    assert "--key" in err
