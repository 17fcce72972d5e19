"""Every option of ``scorekit eval`` gives on the Dask engine what it gives on the stream engine.

Each case runs ``scorekit.cli.main`` twice in this process on the same random table
(split over several files, so that Dask has several partitions): once with
``--engine dask --scheduler`` (a local cluster of worker processes, started once for
the module) and once with ``--chunk-size`` on the stream engine. The JSON outputs
must be equal, floats to 1e-12 relative.
"""

from __future__ import annotations

import json
import math
import traceback
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from scorekit.cli import main

BINARY = ["--task", "binary", "--true", "label"]
MULTICLASS = ["--task", "multiclass", "--true", "animal"]

CASES: dict[str, list[str]] = {
    "threshold": [*BINARY, "--score", "score", "--threshold", "0.3"],
    "best-threshold": [*BINARY, "--score", "score", "--best-threshold", "f1"],
    "pos-label": [*BINARY, "--pred", "pred", "--score", "score", "--pos-label", "0"],
    "threshold-weight": [*BINARY, "--score", "score", "--threshold", "0.6", "--weight", "weight"],
    "threshold-by": [*BINARY, "--score", "score", "--threshold", "0.5", "--by", "region"],
    "threshold-ci-key": [
        *BINARY,
        "--score",
        "score",
        "--threshold",
        "0.5",
        "--ci",
        "--key",
        "id",
        "--n-resamples",
        "50",
        "--seed",
        "3",
    ],
    "by-ci-key": [
        *BINARY,
        "--pred",
        "pred",
        "--by",
        "region",
        "--ci",
        "--key",
        "id",
        "--n-resamples",
        "30",
    ],
    "classes": [
        *MULTICLASS,
        "--score",
        "s1",
        "s2",
        "s3",
        "--classes",
        "dog",
        "bird",
        "cat",
        "--weight",
        "weight",
    ],
    "classes-named": [*MULTICLASS, "--score", "p_dog", "p_bird", "p_cat"],
    "multiclass-pred": [*MULTICLASS, "--pred", "guess", "--by", "region"],
}


def _table(seed: int, rows: int) -> pa.Table:
    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, rows)
    score = np.clip(label * 0.3 + rng.random(rows) * 0.7, 0, 1).round(3)
    animals = np.array(["bird", "cat", "dog"])
    animal = animals[rng.integers(0, 3, rows)]
    probs = rng.dirichlet(np.ones(3), rows)
    return pa.table(
        {
            "id": np.arange(rows) + 1000 * seed,
            "region": np.array(["east", "north", "south"])[rng.integers(0, 3, rows)],
            "label": label,
            "pred": np.where(rng.random(rows) < 0.8, label, 1 - label),
            "score": score,
            "weight": rng.random(rows) * 3 + 0.1,
            "animal": animal,
            "guess": np.where(rng.random(rows) < 0.6, animal, animals[rng.integers(0, 3, rows)]),
            # columns in the order of --classes dog bird cat
            "s1": probs[:, 2],
            "s2": probs[:, 0],
            "s3": probs[:, 1],
            "p_dog": probs[:, 2],
            "p_bird": probs[:, 0],
            "p_cat": probs[:, 1],
        }
    )


@pytest.fixture(scope="module")
def scheduler(dask_cluster: Any) -> str:
    return str(dask_cluster.scheduler_address)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same rows as one directory of Parquet files and one of CSV files."""
    root = tmp_path_factory.mktemp("eval_options")
    table = _table(7, 240)
    out: dict[str, Path] = {}
    for fmt in ("parquet", "csv"):
        folder = root / fmt
        folder.mkdir()
        for i, start in enumerate(range(0, table.num_rows, 70)):
            part = table.slice(start, 70)
            if fmt == "parquet":
                pq.write_table(part, folder / f"part{i}.parquet", row_group_size=25)
            else:
                pacsv.write_csv(part, folder / f"part{i}.csv")
        out[fmt] = folder
    return out


def _run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any, str]:
    try:
        status = main(argv)
    except BaseException:
        capsys.readouterr()
        pytest.fail(f"crashed: scorekit {' '.join(argv)}\n{traceback.format_exc()}")
    out, err = capsys.readouterr()
    assert "Traceback" not in err, err
    return status, json.loads(out) if status == 0 else None, err


def _same(actual: Any, expected: Any, where: str = "") -> None:
    """Equal JSON values, floats to 1e-12 relative (NaN equal to NaN)."""
    number = (int, float)
    if isinstance(actual, number) and isinstance(expected, number):
        if isinstance(expected, float) and math.isnan(expected):
            assert math.isnan(actual), f"{where}: {actual} != {expected}"
        else:
            assert math.isclose(actual, expected, rel_tol=1e-12, abs_tol=1e-15), (
                f"{where}: {actual} != {expected}"
            )
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} != {expected!r}"
        assert actual.keys() == expected.keys(), f"{where}: {list(actual)} != {list(expected)}"
        for key, value in expected.items():
            _same(actual[key], value, f"{where}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), where
        for i, (a, e) in enumerate(zip(actual, expected, strict=True)):
            _same(a, e, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


@pytest.mark.parametrize(
    ("case", "fmt"), [*((c, "parquet") for c in sorted(CASES)), ("threshold", "csv")]
)
def test_dask_gives_the_stream_values(
    case: str,
    fmt: str,
    inputs: dict[str, Path],
    scheduler: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    head = ["eval", str(inputs[fmt]), *CASES[case], "--format", "json", "--quiet"]
    status, stream, err = _run(capsys, [*head, "--chunk-size", "33"])
    assert status == 0, err
    status, dask, err = _run(capsys, [*head, "--engine", "dask", "--scheduler", scheduler])
    assert status == 0, err
    _same(dask, stream)
    assert dask, "the output holds values"


def test_threshold_changes_the_label_metrics(
    inputs: dict[str, Path], scheduler: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The threshold reaches the workers: two thresholds give two accuracies there too."""
    found = []
    for threshold in ("0.2", "0.8"):
        argv = ["eval", str(inputs["parquet"]), *BINARY, "--score", "score", "--threshold"]
        argv += [threshold, "--metric", "accuracy", "--format", "json", "--quiet"]
        status, out, err = _run(capsys, [*argv, "--engine", "dask", "--scheduler", scheduler])
        assert status == 0, err
        found.append(out)
    assert found[0] != found[1]
