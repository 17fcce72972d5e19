"""Every command reaches its engine through the registry: a registered engine is called.

A spy engine, registered under a new name, records each call and hands the work to
the stream engine; every command that takes ``--engine`` runs through it and prints
what ``--engine stream`` prints.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT
from scorekit import engines
from scorekit.cli import main

DATA = ROOT / "examples" / "data"


class _Spy:
    """An engine that records its calls and runs the stream engine."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def run(
        self,
        source: Any,
        metrics: Any,
        *,
        columns: Any = None,
        side: Any = None,
        chunk_size: int | None = None,
        progress: bool | None = None,
    ) -> Any:
        listed = list(metrics)
        self.calls.append((type(source).__name__, len(listed)))
        return engines.engine("stream")(
            source, listed, columns=columns, side=side, chunk_size=chunk_size, progress=progress
        )


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Spy]:
    found = _Spy()
    monkeypatch.setitem(engines._ENGINES, "spy", found.run)
    yield found


def _groups(tmp_path: Path) -> str:
    lines = (DATA / "hyps.txt").read_text(encoding="utf-8").splitlines()
    path = tmp_path / "domain.txt"
    path.write_text("".join(f"{'ab'[i % 2]}\n" for i in range(len(lines))), encoding="utf-8")
    return str(path)


EVAL = ["eval", str(DATA / "binary.csv"), "--task", "binary", "--true", "label"]
RANK = ["rank", str(DATA / "qrels.txt"), str(DATA / "run.txt"), "-m", "map", "ndcg@10"]
TEXT = ["text", "--refs", str(DATA / "refs_a.txt"), "--hyps", str(DATA / "hyps.txt")]
THROUGHPUT = ["throughput", str(DATA / "requests.jsonl")]
CI = ["--ci", "--n-resamples", "30", "--seed", "2"]

CASES = {
    "eval": [*EVAL, "--pred", "pred", "--score", "score"],
    "eval --ci": [*EVAL, "--score", "score", "--metric", "roc_auc", *CI],
    "eval --by": [*EVAL, "--pred", "pred", "--by", "pred"],
    "eval --by --ci": [*EVAL, "--score", "score", "--metric", "roc_auc", "--by", "pred", *CI],
    "rank": RANK,
    "rank --per-query": [*RANK, "--per-query"],
    "rank --ci": [*RANK, *CI],
    "text": [*TEXT, "-m", "bleu", "chrf", "rougeL"],
    "text --ci": [*TEXT, "-m", "bleu", "wer", *CI],
    "text --by": [*TEXT, "-m", "bleu", "--by", "domain", "--groups", "GROUPS"],
    "throughput": THROUGHPUT,
    "throughput --by": [*THROUGHPUT, "--by", "model"],
    "throughput --ci": [*THROUGHPUT, *CI],
}


@pytest.mark.parametrize("case", list(CASES))
def test_every_command_runs_through_a_registered_engine(
    case: str, spy: _Spy, tmp_path: Path, capsys: Any
) -> None:
    argv = [_groups(tmp_path) if a == "GROUPS" else a for a in CASES[case]]
    argv += ["--format", "json", "--quiet"]
    assert main([*argv, "--engine", "stream"]) == 0, capsys.readouterr().err
    expected = capsys.readouterr().out
    assert spy.calls == []
    assert main([*argv, "--engine", "spy"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == expected
    assert spy.calls, f"{case}: the spy engine was never called"


def test_an_option_of_another_engine_is_refused_by_the_engines_own_options(
    spy: _Spy, capsys: Any
) -> None:
    argv = [*CASES["eval"], "--engine", "spy", "--workers", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--workers is for the Dask engine" in err and "--engine dask --workers" in err
    assert engines.engine_options("spy") == []
