"""Any percentile, min and std of the serving latencies, as numpy computes them, at every scale."""

from __future__ import annotations

import itertools
import json
import math
import re
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT
from scorekit import evaluate, parse_metric
from scorekit import throughput as T
from scorekit.cli import main
from scorekit.core import State
from scorekit.errors import ConfigError, UndefinedMetricWarning
from scorekit.explain import explain

REQUESTS = ROOT / "examples" / "data" / "requests.jsonl"
NAMES = {"ttft": "ttft", "tpot": "tpot", "itl": "itl", "e2e_latency": "e2e"}
"""Metric name -> the report's key of the latency."""


def _name(q: float) -> str:
    value = float(q)
    return f"p{int(value)}" if value.is_integer() else f"p{value!r}"


def _records(seed: int, n: int) -> list[dict[str, Any]]:
    """Request records with ties, failures, one-token outputs and missing first tokens."""
    rng = np.random.default_rng(seed)
    records: list[dict[str, Any]] = []
    for _ in range(n):
        start = float(rng.integers(0, 40)) / 4 if rng.random() < 0.5 else float(rng.random() * 10)
        output = int(rng.integers(0, 5))
        gaps = np.round(rng.gamma(2.0, 0.05, max(output, 1)), int(rng.integers(1, 4)))
        times = list(start + np.cumsum(gaps))
        record: dict[str, Any] = {
            "prompt_tokens": int(rng.integers(1, 50)),
            "output_tokens": output,
            "start": start,
            "end": times[-1] + float(rng.integers(0, 3)) / 100,
        }
        style = int(rng.integers(0, 4))
        if style == 0:
            record["first_token"] = times[0]
        elif style == 1:
            record["token_times"] = times
        elif style == 2:
            record.update(first_token=times[0], token_times=times)
        if rng.random() < 0.15:
            record.update(success=False, error="timeout")
        records.append(record)
    return records


def _reference(records: list[dict[str, Any]]) -> dict[str, np.ndarray]:
    """Each latency of the records, request by request, as vLLM's benchmark defines them."""
    out: dict[str, list[float]] = {name: [] for name in NAMES}
    for r in records:
        if not r.get("success", True):
            continue
        times = r.get("token_times")
        first = r.get("first_token", times[0] if times else None)
        if first is not None:
            out["ttft"].append(first - r["start"])
            if r["output_tokens"] >= 2:
                out["tpot"].append((r["end"] - first) / (r["output_tokens"] - 1))
        if times:
            out["itl"] += [b - a for a, b in itertools.pairwise(times)]
        out["e2e_latency"].append(r["end"] - r["start"])
    return {name: np.array(values, dtype=np.float64) for name, values in out.items()}


def _close(got: float, expected: float) -> None:
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-15), (got, expected)


PERCENTILES = st.one_of(
    st.sampled_from([0.0, 0.1, 1.0, 25.0, 50.0, 95.0, 99.9, 99.99, 100.0]),
    st.floats(0.0, 100.0, allow_nan=False),
)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 40), q=PERCENTILES)
def test_every_latency_statistic_equals_numpy(seed: int, n: int, q: float) -> None:
    records = _records(seed, n)
    for name, values in _reference(records).items():
        if values.size == 0:
            continue
        _close(parse_metric(f"{name}:{_name(q)}").score(records), np.percentile(values, q))
        _close(parse_metric(f"{name}:std").score(records), np.std(values))
        assert parse_metric(f"{name}:min").score(records) == values.min()
        assert parse_metric(f"{name}:max").score(records) == values.max()


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(2, 40),
    cuts=st.lists(st.integers(0, 40), max_size=4),
    q=PERCENTILES,
)
def test_merged_states_in_any_order_equal_the_whole(
    seed: int, n: int, cuts: list[int], q: float
) -> None:
    records = _records(seed, n)
    bounds = [0, *sorted(c % (n + 1) for c in cuts), n]
    parts = [records[a:b] for a, b in itertools.pairwise(bounds)]
    rng = np.random.default_rng(seed)
    for name in NAMES:
        for statistic in (_name(q), "std", "min", "mean"):
            metric = parse_metric(f"{name}:{statistic}")
            states = [metric.summarize(part) for part in parts]
            merged: State = metric.empty()
            for i in rng.permutation(len(states)):
                again = State.from_dict(json.loads(json.dumps(states[i].to_dict())))
                merged = metric.merge(merged, again)
            with pytest.warns(UndefinedMetricWarning) if merged.values.size == 0 else nullcontext():
                got = metric.compute(merged)
                whole = metric.score(records)
            assert (math.isnan(got) and math.isnan(whole)) or got == pytest.approx(
                whole, rel=1e-12, abs=1e-15
            )


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    qs=st.lists(PERCENTILES, min_size=1, max_size=5),
    cut=st.integers(0, 40),
)
def test_report_percentiles_equal_numpy_and_the_metrics(
    seed: int, n: int, qs: list[float], cut: int
) -> None:
    records = _records(seed, n)
    reference = _reference(records)
    with (
        pytest.warns(UndefinedMetricWarning)
        if any(v.size == 0 for v in reference.values())
        else nullcontext()
    ):
        r = T.report(records, percentiles=qs)
    metrics = T.report_metrics()
    a, b = records[: cut % (n + 1)], records[cut % (n + 1) :]
    states = {k: m.merge(m.summarize(a), m.summarize(b)) for k, m in metrics.items()}
    with pytest.warns(UndefinedMetricWarning) if r.notes else nullcontext():
        merged = T.report_from_states(states, percentiles=qs)
    for name, key in NAMES.items():
        summary = getattr(r, key)
        values = reference[name]
        assert list(summary.percentiles) == list(dict.fromkeys(_name(q) for q in qs))
        assert getattr(merged, key).to_dict() == pytest.approx(summary.to_dict(), nan_ok=True)
        if values.size == 0:
            assert all(math.isnan(v) for v in summary.percentiles.values())
            continue
        for q in qs:
            _close(summary.percentiles[_name(q)], np.percentile(values, q))
            assert summary.percentiles[_name(q)] == parse_metric(f"{name}:{_name(q)}").score(
                records
            )
        _close(summary.std, np.std(values))
        assert summary.min == values.min() and summary.max == values.max()


def test_edge_cases_one_value_and_none() -> None:
    one = [{"prompt_tokens": 1, "output_tokens": 1, "start": 2.0, "end": 2.5}]
    for statistic in ("p0", "p37.5", "p100", "min", "max", "median"):
        assert T.e2e_latency(one, statistic=statistic) == 0.5
    assert T.e2e_latency(one, statistic="std") == 0.0
    values = [0.1, 0.4, 0.2, 0.3]
    records = [
        {"prompt_tokens": 1, "output_tokens": 1, "start": 0.0, "end": v, "first_token": v}
        for v in values
    ]
    assert T.ttft(records, statistic="p0") == T.ttft(records, statistic="min") == 0.1
    assert T.ttft(records, statistic="p100") == T.ttft(records, statistic="max") == 0.4
    assert T.ttft(records, statistic="p50") == T.ttft(records, statistic="median")
    assert T.ttft(records, statistic="p75") == np.percentile(values, 75) == 0.325
    assert T.ttft(records, statistic="p7.5e1") == T.ttft(records, statistic="p75.0")
    with pytest.warns(UndefinedMetricWarning, match="no successful request"):
        assert math.isnan(T.itl(one, statistic="p99.9"))


def test_chunked_and_dask_evaluation_equal_the_whole(tmp_path: Path) -> None:
    records = _records(11, 60)
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    specs = ["ttft:p95", "e2e_latency:p99.9", "itl:std", "tpot:min", "itl:p0.5", "tpot:p50"]
    reference = _reference(records)
    expected = {
        "ttft:p95": np.percentile(reference["ttft"], 95),
        "e2e_latency:p99.9": np.percentile(reference["e2e_latency"], 99.9),
        "itl:std": np.std(reference["itl"]),
        "tpot:min": reference["tpot"].min(),
        "itl:p0.5": np.percentile(reference["itl"], 0.5),
        "tpot:p50": np.median(reference["tpot"]),
    }
    chunked = evaluate(str(path), specs, chunk_size=7).values
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        dask = evaluate(str(path), specs, engine="dask", scheduler=cluster.scheduler_address)
    for spec in specs:
        _close(chunked[spec], expected[spec])
        _close(dask.values[spec], expected[spec])


def _run(capsys: Any, *argv: Any) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_percentiles_in_memory_and_chunked(capsys: Any) -> None:
    flags = ["--percentiles", "50, 90,95,99.9", "--format", "json"]
    code, out, _ = _run(capsys, "throughput", REQUESTS, *flags)
    assert code == 0
    whole = json.loads(out)
    records = [json.loads(line) for line in REQUESTS.read_text().splitlines() if line.strip()]
    reference = _reference(records)
    for name, key in NAMES.items():
        for q in (50, 90, 95, 99.9):
            _close(whole[key][_name(q)], np.percentile(reference[name], q))
        _close(whole[key]["std"], np.std(reference[name]))
        assert whole[key]["min"] == reference[name].min()
    code, out, _ = _run(capsys, "throughput", REQUESTS, *flags, "--chunk-size", "13")
    assert code == 0 and json.loads(out) == whole
    code, out, _ = _run(capsys, "throughput", REQUESTS, "--percentiles", "95,99.9")
    header = next(line for line in out.splitlines() if line.startswith("latency (ms)"))
    assert header.split()[2:] == ["count", "mean", "std", "min", "p95", "p99.9", "max"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("101", "percentile outside [0, 100]; got '101'"),
        ("-1", "percentile outside [0, 100]; got '-1'"),
        ("50,nan", "percentile outside [0, 100]; got 'nan'"),
        ("p95", "not a percentile; got 'p95'"),
        ("50,,90", "not a percentile; got ''"),
    ],
)
def test_cli_bad_percentiles(capsys: Any, value: str, problem: str) -> None:
    code, out, err = _run(capsys, "throughput", REQUESTS, "--percentiles", value)
    assert code == 2 and out == ""
    assert err.startswith("scorekit: --percentiles: ") and problem in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("ttft:p101", "ttft: percentile outside [0, 100]; got 'p101'"),
        ("e2e_latency:p-0.5", "e2e_latency: percentile outside [0, 100]; got 'p-0.5'"),
        ("itl:p100.001", "itl: percentile outside [0, 100]; got 'p100.001'"),
        ("tpot:p9x", "tpot: malformed percentile; got 'p9x'"),
        ("ttft:p", "ttft: malformed percentile; got 'p'"),
        ("ttft:pnan", "ttft: malformed percentile; got 'pnan'"),
        ("ttft:pinf", "ttft: malformed percentile; got 'pinf'"),
        ("ttft:p 95", "ttft: malformed percentile; got 'p 95'"),
        ("ttft:p1_0", "ttft: malformed percentile; got 'p1_0'"),
        ("itl:stdev", "itl: unknown statistic; got 'stdev'"),
        ("ttft:95", "ttft: unknown statistic; got '95'"),
    ],
)
def test_bad_statistics_name_the_metric(spec: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(problem)):
        parse_metric(spec)


def test_bad_statistics_in_the_api() -> None:
    with pytest.raises(ConfigError, match="tpot: percentile outside"):
        T.TPOT(statistic="p150")
    with pytest.raises(ConfigError, match=re.escape("ttft: malformed percentile; got 'p9.9.9'")):
        T.ttft([], statistic="p9.9.9")
    with pytest.raises(ConfigError, match=r"'mean', 'median', .* or pN"):
        T.ITL(statistic="average")
    bad: list[Any] = [[101], [-0.1], [math.nan], [True], ["95"], "95", [], 95]
    for qs in bad:
        with pytest.raises(ConfigError, match=r"^report: percentiles: "):
            T.report([], percentiles=qs)


def test_explain_and_the_grammar_know_the_forms(capsys: Any) -> None:
    text = explain("e2e_latency:p99.9")
    assert "e2e_latency:pN" in text and "e2e_latency:std" in text and "e2e_latency:min" in text
    assert "parse_metric('e2e_latency:p99.9').score(records)" in text
    assert "any percentile N in [0, 100]" in " ".join(text.split())
    metric = parse_metric("time_to_first_token:p95")
    assert metric == T.TTFT(statistic="p95") and metric.info.variant_form == "pN"
    code, out, _ = _run(capsys, "explain", "itl:p99.9")
    assert code == 0 and "itl:pN" in out
