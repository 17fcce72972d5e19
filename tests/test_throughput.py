"""Serving throughput and latency: hand-computed records, every input form, merged states."""

from __future__ import annotations

import itertools
import json
import math
import pickle
import warnings
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorekit import throughput as T
from scorekit.core import State, available, parse_metric
from scorekit.errors import ConfigError, InputError, StateMismatchError, UndefinedMetricWarning

# Five requests; times are binary fractions, so the arithmetic below is exact.
#   A: 5 tokens, first token after 0.25 s, then one every 0.25 s
#   B: 3 tokens, a 0.75 s stall before the last
#   C: 1 token (no TPOT, no ITL gap)
#   D: failed (timeout), ends last: it sets the wall time but adds no tokens
#   E: succeeded, but no first-token time and no token times recorded
A = {
    "prompt_tokens": 100, "output_tokens": 5, "start": 0.0, "first_token": 0.25, "end": 1.25,
    "token_times": [0.25, 0.5, 0.75, 1.0, 1.25],
}  # fmt: skip
B = {
    "prompt_tokens": 50, "output_tokens": 3, "start": 0.5, "first_token": 1.0, "end": 2.0,
    "token_times": [1.0, 1.25, 2.0],
}  # fmt: skip
C = {
    "prompt_tokens": 30, "output_tokens": 1, "start": 1.0, "first_token": 1.75, "end": 1.75,
    "token_times": [1.75],
}  # fmt: skip
D = {
    "prompt_tokens": 20, "output_tokens": 0, "start": 1.5, "end": 4.0, "success": False,
    "error": "timeout",
}  # fmt: skip
E = {"prompt_tokens": 40, "output_tokens": 4, "start": 2.0, "end": 3.0, "model": "ignored"}
RECORDS = [A, B, C, D, E]

# wall time = max end - min start = 4.0 - 0.0 (D, failed, ends last)
# successful: A, B, C, E; output 5 + 3 + 1 + 4 = 13; prompt 100 + 50 + 30 + 40 = 220
THROUGHPUTS = {
    "output_throughput": 13 / 4,
    "prompt_throughput": 220 / 4,
    "total_token_throughput": 233 / 4,
    "request_throughput": 4 / 4,
    "goodput": 4 / 4,  # no objectives: every successful request counts
}
# TTFT: A 0.25, B 0.5, C 0.75 (E unknown)
# TPOT: A (1.25 - 0.25) / 4 = 0.25, B (2.0 - 1.0) / 2 = 0.5 (C one token, E no first token)
# ITL: A 0.25 x 4, B 0.25 and 0.75
# E2E: A 1.25, B 1.5, C 0.75, E 1.0
# percentiles: linear between ranks, p = v[floor(h)] + (h - floor(h)) * (v[ceil(h)] - v[floor(h)])
# with h = q / 100 * (n - 1) over the sorted values v
LATENCY_VALUES = {
    "ttft": [0.25, 0.5, 0.75],
    "tpot": [0.25, 0.5],
    "itl": [0.25, 0.25, 0.25, 0.25, 0.25, 0.75],
    "e2e_latency": [0.75, 1.0, 1.25, 1.5],
}
LATENCIES = {
    # ttft: h(p90) = 1.8 -> 0.5 + 0.8 * 0.25; h(p99) = 1.98 -> 0.5 + 0.98 * 0.25
    "ttft": {
        "mean": 0.5,
        "median": 0.5,
        "p90": 0.7,
        "p99": 0.745,
        "max": 0.75,
        "min": 0.25,
        "std": math.sqrt(1 / 24),
    },
    # tpot: h(p50) = 0.5 -> 0.375; h(p90) = 0.9 -> 0.25 + 0.9 * 0.25
    "tpot": {
        "mean": 0.375,
        "median": 0.375,
        "p90": 0.475,
        "p99": 0.4975,
        "max": 0.5,
        "min": 0.25,
        "std": 0.125,
    },
    # itl: mean 2.0 / 6; h(p90) = 4.5 -> 0.25 + 0.5 * 0.5; h(p99) = 4.95 -> 0.25 + 0.95 * 0.5
    "itl": {
        "mean": 2.0 / 6,
        "median": 0.25,
        "p90": 0.5,
        "p99": 0.725,
        "max": 0.75,
        "min": 0.25,
        "std": math.sqrt(5) / 12,
    },
    # e2e: mean 4.5 / 4; h(p50) = 1.5 -> 1.125; h(p90) = 2.7 -> 1.25 + 0.7 * 0.25
    "e2e_latency": {
        "mean": 1.125,
        "median": 1.125,
        "p90": 1.425,
        "p99": 1.4925,
        "max": 1.5,
        "min": 0.75,
        "std": math.sqrt(5) / 8,
    },
}

SERVING = [info for info in available() if info.inputs == "requests"]


def _quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        return fn(*args, **kwargs)


# hand-computed values ------------------------------------------------------------------


@pytest.mark.parametrize(("name", "expected"), THROUGHPUTS.items())
def test_throughputs_on_hand_computed_records(name: str, expected: float) -> None:
    assert parse_metric(name).score(RECORDS) == pytest.approx(expected, rel=1e-15)


def test_functions_and_failed_requests() -> None:
    assert T.output_throughput(RECORDS) == 3.25
    assert T.prompt_throughput(RECORDS) == 55.0
    assert T.total_token_throughput(RECORDS) == 58.25
    assert T.request_throughput(RECORDS) == 1.0
    assert T.failed_requests(RECORDS) == 1
    assert parse_metric("failed_requests").score(RECORDS) == 1


@pytest.mark.parametrize("name", LATENCIES)
@pytest.mark.parametrize("stat", T.STATISTICS)
def test_latencies_on_hand_computed_records(name: str, stat: str) -> None:
    expected = LATENCIES[name][stat]
    assert parse_metric(f"{name}:{stat}").score(RECORDS) == pytest.approx(expected, rel=1e-14)
    values = np.array(LATENCY_VALUES[name])
    reference = {
        "mean": values.mean(),
        "median": np.median(values),
        "p90": np.percentile(values, 90),
        "p99": np.percentile(values, 99),
        "max": values.max(),
        "min": values.min(),
        "std": values.std(),
    }[stat]
    assert expected == pytest.approx(reference, rel=1e-14)


def test_latency_functions() -> None:
    assert T.ttft(RECORDS) == 0.5
    assert T.tpot(RECORDS, statistic="max") == 0.5
    assert T.itl(RECORDS, statistic="median") == 0.25
    assert T.e2e_latency(RECORDS, statistic="p90") == pytest.approx(1.425)
    assert parse_metric("e2el:max").score(RECORDS) == 1.5
    assert parse_metric("time_to_first_token").score(RECORDS) == 0.5


@pytest.mark.parametrize(
    ("slo", "good"),
    [
        ({"ttft": "600ms"}, 2),  # A 0.25, B 0.5 pass; C 0.75 fails; E has no first token
        ({"tpot": 0.3}, 2),  # A 0.25 passes, B 0.5 fails, C one token passes, E unknown fails
        ({"itl": "500ms"}, 2),  # A max gap 0.25 passes, B 0.75 fails, C passes, E no times
        ({"e2e": "1.3s"}, 3),  # A 1.25, C 0.75, E 1.0 pass; B 1.5 fails
        ({"ttft": "600ms", "e2e": "1.3s"}, 1),  # only A
        ({"e2e": "10s"}, 4),  # every successful request; D failed never counts
    ],
)
def test_goodput_on_hand_computed_records(slo: dict[str, Any], good: int) -> None:
    assert T.goodput(RECORDS, slo) == good / 4
    assert T.Goodput(**slo).score(RECORDS) == good / 4
    text = ",".join(f"{k}={v if isinstance(v, str) else f'{v}s'}" for k, v in slo.items())
    assert parse_metric(f"goodput:{text}").score(RECORDS) == good / 4
    result = T.report(RECORDS, slo=slo)
    assert result.good_requests == good and result.goodput == good / 4


def test_goodput_objectives_are_normalised_and_checked() -> None:
    assert T.Goodput(ttft="200ms", slo="tpot=50ms").objectives == {"ttft": 0.2, "tpot": 0.05}
    assert T.Goodput(slo="e2el=2s").objectives == {"e2e": 2.0}
    with pytest.raises(ConfigError, match="ttft is given twice"):
        T.Goodput(ttft=0.2, slo="ttft=100ms")
    with pytest.raises(ConfigError, match="unknown SLO; got 'ttlt'"):
        parse_metric("goodput:ttlt=200ms")
    with pytest.raises(ConfigError, match="positive time"):
        T.Goodput(tpot=-1.0)


def test_report_on_hand_computed_records() -> None:
    r = T.report(RECORDS)
    assert (r.requests, r.successes, r.failures) == (5, 4, 1)
    assert r.failure_reasons == {"timeout": 1}
    assert r.wall_time == 4.0
    assert (r.prompt_tokens, r.output_tokens) == (220, 13)
    assert r.output_throughput == 3.25 and r.prompt_throughput == 55.0
    assert r.total_token_throughput == 58.25 and r.request_throughput == 1.0
    assert r.slo is None and r.goodput is None and r.good_requests is None
    for name, field in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl"), ("e2e_latency", "e2e")):
        summary = getattr(r, field)
        assert summary.count == len(LATENCY_VALUES[name])
        for stat in T.STATISTICS:
            assert getattr(summary, stat) == pytest.approx(LATENCIES[name][stat], rel=1e-14)
    assert r.notes == ()


def test_report_equals_every_metric_on_random_records() -> None:
    records = _random_records(np.random.default_rng(7), 300)
    r = T.report(records, slo=["ttft=300ms", "itl=60ms"])
    for name in ("output_throughput", "prompt_throughput", "total_token_throughput"):
        assert getattr(r, name) == parse_metric(name).score(records)
    assert r.request_throughput == parse_metric("request_throughput").score(records)
    assert r.goodput == T.Goodput(ttft=0.3, itl=0.06).score(records)
    assert r.failures == T.failed_requests(records)
    for name, field in (("ttft", "ttft"), ("tpot", "tpot"), ("itl", "itl"), ("e2e_latency", "e2e")):
        for stat in T.STATISTICS:
            assert getattr(getattr(r, field), stat) == parse_metric(f"{name}:{stat}").score(records)


# a plain per-request reference ----------------------------------------------------------


def _random_records(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    records = []
    for i in range(n):
        start = float(rng.uniform(0, 60))
        output = int(rng.integers(0, 40))
        first = start + float(rng.uniform(0.01, 0.8))
        times = list(first + np.cumsum(np.r_[0.0, rng.gamma(4.0, 0.01, max(output - 1, 0))]))
        end = (times[-1] if output else first) + float(rng.uniform(0, 0.01))
        failed = rng.random() < 0.1
        records.append(
            {
                "id": i,
                "prompt_tokens": int(rng.integers(1, 900)),
                "output_tokens": output,
                "start": start,
                "first_token": None if output == 0 or rng.random() < 0.05 else first,
                "end": end,
                "token_times": [float(t) for t in times[:output]] if rng.random() < 0.9 else None,
                "success": not failed,
                "error": "HTTP 500" if failed else None,
            }
        )
    return records


def _reference(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The definitions restated request by request."""
    ok = [r for r in records if r["success"]]
    wall = max(r["end"] for r in records) - min(r["start"] for r in records)
    firsts = [r["first_token"] if r["first_token"] is not None else
              (r["token_times"][0] if r["token_times"] else None) for r in ok]  # fmt: skip
    ttft = [f - r["start"] for r, f in zip(ok, firsts, strict=True) if f is not None]
    tpot = [
        (r["end"] - f) / (r["output_tokens"] - 1)
        for r, f in zip(ok, firsts, strict=True)
        if f is not None and r["output_tokens"] >= 2
    ]
    itl = [b - a for r in ok if r["token_times"] for a, b in itertools_pairs(r["token_times"])]
    return {
        "output_throughput": sum(r["output_tokens"] for r in ok) / wall,
        "prompt_throughput": sum(r["prompt_tokens"] for r in ok) / wall,
        "request_throughput": len(ok) / wall,
        "ttft": ttft,
        "tpot": tpot,
        "itl": itl,
        "e2e_latency": [r["end"] - r["start"] for r in ok],
    }


def itertools_pairs(values: list[float]) -> list[tuple[float, float]]:
    return list(itertools.pairwise(values))


def test_random_records_agree_with_a_per_request_reference() -> None:
    records = _random_records(np.random.default_rng(11), 400)
    ref = _reference(records)
    wall = max(r["end"] for r in records) - min(r["start"] for r in records)
    # goodput under itl=80ms: at most one token passes; else the largest gap must be <= 80 ms
    good = sum(
        r["output_tokens"] <= 1
        or (len(r["token_times"] or []) >= 2 and max(np.diff(r["token_times"])) <= 0.08)
        for r in records
        if r["success"]
    )
    assert 50 < good < len(records) - 50
    assert T.goodput(records, {"itl": 0.08}) == pytest.approx(good / wall, rel=1e-13)
    for name in ("output_throughput", "prompt_throughput", "request_throughput"):
        assert parse_metric(name).score(records) == pytest.approx(ref[name], rel=1e-13)
    for name in ("ttft", "tpot", "itl", "e2e_latency"):
        values = np.array(ref[name])
        assert len(values) > 50
        got = {s: parse_metric(f"{name}:{s}").score(records) for s in T.STATISTICS}
        assert got["mean"] == pytest.approx(values.mean(), rel=1e-12)
        assert got["median"] == pytest.approx(np.median(values), rel=1e-12)
        assert got["p90"] == pytest.approx(np.percentile(values, 90), rel=1e-12)
        assert got["p99"] == pytest.approx(np.percentile(values, 99), rel=1e-12)
        assert got["max"] == values.max()


# every input form ----------------------------------------------------------------------


def _forms(records: list[dict[str, Any]]) -> dict[str, Any]:
    keys = list(dict.fromkeys(k for r in records for k in r))
    columns = {k: [r.get(k) for r in records] for k in keys}
    table = pa.Table.from_pydict(columns)
    fields = ("prompt_tokens", "output_tokens", "start", "end", "first_token", "token_times",
              "success", "error")  # fmt: skip
    return {
        "dicts": records,
        "requests": [T.Request(**{k: r[k] for k in fields if k in r}) for r in records],
        "columns": columns,
        "numpy columns": {
            k: np.array(v, dtype=object) if k in ("token_times", "error", "first_token")
            else np.array(v) for k, v in columns.items() if k != "success"
        } | {"success": np.array([r.get("success") is not False for r in records])},
        "dataframe": pd.DataFrame(records),
        "table": table,
        "record batch": table.to_batches()[0],
        "chunked table": pa.concat_tables([table.slice(0, 2), table.slice(2)]),
    }  # fmt: skip


@pytest.mark.parametrize("form", list(_forms(RECORDS)))
def test_every_input_form_gives_the_same_state(form: str) -> None:
    data = _forms(RECORDS)[form]
    for info in SERVING:
        metric = info.cls()
        assert metric.summarize(data).equals(metric.summarize(RECORDS)), (form, info.name)
    assert T.report(data) == T.report(RECORDS)


def test_timestamps_are_seconds_since_the_epoch() -> None:
    base = pd.Timestamp("2025-01-01 12:00:00")
    frame = pd.DataFrame(
        {
            "prompt_tokens": [10, 20],
            "output_tokens": [3, 5],
            "start": [base, base + pd.Timedelta(seconds=1)],
            "end": [base + pd.Timedelta(seconds=2), base + pd.Timedelta(seconds=5)],
        }
    )
    assert T.output_throughput(frame) == 8 / 5
    assert T.e2e_latency(frame) == 3.0


def test_first_token_falls_back_to_the_first_token_time() -> None:
    record = {"prompt_tokens": 1, "output_tokens": 3, "start": 1.0, "end": 2.0}
    assert T.ttft([{**record, "token_times": [1.5, 1.75, 2.0]}]) == 0.5
    assert T.ttft([{**record, "first_token": 1.25, "token_times": [1.5, 1.75, 2.0]}]) == 0.25
    with pytest.warns(UndefinedMetricWarning, match="no successful request has a time to first"):
        assert math.isnan(T.ttft([record]))


@pytest.mark.parametrize(
    ("extra", "failed"),
    [
        ({}, 0),
        ({"error": "boom"}, 1),  # no success flag, but a reason: failed
        ({"error": ""}, 0),
        ({"success": None, "error": "boom"}, 1),
        ({"success": False}, 1),
    ],
)
def test_success_flag_and_error(extra: dict[str, Any], failed: int) -> None:
    record = {"prompt_tokens": 1, "output_tokens": 1, "start": 0.0, "end": 1.0, **extra}
    assert T.failed_requests([record]) == failed


def test_success_true_with_an_error_is_refused() -> None:
    record = {"prompt_tokens": 1, "output_tokens": 1, "start": 0.0, "end": 1.0}
    bad = {**record, "success": True, "error": "retried"}
    with pytest.raises(InputError, match=r"successful request gives an error at records\[1\]"):
        T.failed_requests([record, bad])


@pytest.mark.parametrize(("flag", "failed"), [("true", 0), ("FALSE", 1), ("1", 0), ("0", 1)])
def test_success_as_text_or_integer(flag: str, failed: int) -> None:
    columns = {"prompt_tokens": [1], "output_tokens": [1], "start": [0.0], "end": [1.0]}
    assert T.failed_requests({**columns, "success": [flag]}) == failed
    assert T.failed_requests({**columns, "success": [int(flag in ("1", "true"))]}) == failed


# undefined values -------------------------------------------------------------------------


def test_all_requests_failed() -> None:
    records = [D, {**D, "start": 0.0, "end": 1.0, "error": "HTTP 503"}]
    for name in ("output_throughput", "prompt_throughput", "request_throughput", "goodput"):
        assert parse_metric(name).score(records) == 0.0  # nothing served in 4 s
    assert T.failed_requests(records) == 2
    for name in ("ttft", "tpot", "itl", "e2e_latency"):
        with pytest.warns(UndefinedMetricWarning, match=f"{name}: no successful request"):
            assert math.isnan(parse_metric(name).score(records))
    with pytest.warns(UndefinedMetricWarning, match="all 2 requests failed"):
        r = T.report(records, slo={"ttft": 1})
    assert r.failure_reasons == {"HTTP 503": 1, "timeout": 1}
    assert r.output_throughput == 0.0 and r.goodput == 0.0 and math.isnan(r.ttft.p99)
    assert r.notes == ("all 2 requests failed",)


@pytest.mark.parametrize("empty", [[], {}, pd.DataFrame(), pa.table({"start": pa.array([], "f8")})])
def test_no_requests(empty: Any) -> None:
    for info in SERVING:
        metric = info.cls()
        state = metric.summarize(empty)
        assert state.equals(metric.empty())
        if info.name == "failed_requests":
            assert metric.compute(state) == 0
            continue
        with pytest.warns(UndefinedMetricWarning, match=f"{info.name}: "):
            assert math.isnan(metric.compute(state))
    with pytest.warns(UndefinedMetricWarning, match="no requests"):
        r = T.report(empty)
    assert r.requests == 0 and math.isnan(r.wall_time) and math.isnan(r.output_throughput)
    assert r.ttft.count == 0 and math.isnan(r.ttft.mean)


def test_zero_wall_time() -> None:
    records = [{"prompt_tokens": 5, "output_tokens": 0, "start": 3.0, "end": 3.0}]
    with pytest.warns(UndefinedMetricWarning, match="wall time is 0"):
        assert math.isnan(T.prompt_throughput(records))
    assert T.e2e_latency(records) == 0.0


def test_report_warns_each_note_once_at_the_calling_line() -> None:
    records = [{"prompt_tokens": 5, "output_tokens": 0, "start": 3.0, "end": 3.0}]
    metrics = T.report_metrics()
    states = {key: metric.summarize(records) for key, metric in metrics.items()}
    for make in (lambda: T.report(records), lambda: T.report_from_states(states)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = make()
        assert len(r.notes) > 1 and r.notes[0].startswith("the wall time is 0")
        assert [str(w.message) for w in caught] == [f"throughput: {n}." for n in r.notes]
        assert {w.category for w in caught} == {UndefinedMetricWarning}
        assert {w.filename for w in caught} == {__file__}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert T.report(RECORDS).notes == ()
    assert caught == []


# merged states ------------------------------------------------------------------------------


def _configs() -> list[Any]:
    configs = [info.cls() for info in SERVING]
    configs += [parse_metric(f"{i.name}:{v}") for i in SERVING if i.variant for v in i.variants]
    configs += [T.Goodput(ttft=0.3, tpot=0.02), T.Goodput(slo="itl=40ms,e2e=2s")]
    return configs


@pytest.mark.parametrize("metric", _configs(), ids=repr)
def test_merged_states_equal_the_in_memory_value(metric: Any) -> None:
    records = _random_records(np.random.default_rng(3), 240)
    whole = _quiet(metric.score, records)
    parts = [metric.summarize(records[a:b]) for a, b in ((0, 70), (70, 71), (71, 71), (71, 240))]
    travelled = [State.from_json(p.to_json()) for p in parts]
    assert all(t.equals(p) for t, p in zip(travelled, parts, strict=True))
    pickled = [pickle.loads(pickle.dumps(p)) for p in parts]
    for states in (parts, travelled, pickled, parts[::-1]):
        merged = metric.empty()
        for state in states:
            merged = metric.merge(merged, state)
        assert _quiet(metric.compute, merged) == whole  # exactly, also for means and percentiles
    state = metric.summarize(records)
    again = State.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again.equals(state)


def test_throughput_states_have_a_fixed_size() -> None:
    # the size grows with the distinct failure reasons only ("HTTP 500" here), not the requests
    fewer = T.OutputThroughput().summarize(_random_records(np.random.default_rng(2), 40))
    large = T.OutputThroughput().summarize(_random_records(np.random.default_rng(1), 500))
    assert [r for r, _ in fewer.reasons] == [r for r, _ in large.reasons] == ["HTTP 500"]
    assert len(fewer.to_json()) == pytest.approx(len(large.to_json()), abs=40)
    assert large.reasons == (("HTTP 500", large.failed),)
    small = T.OutputThroughput().summarize(RECORDS)
    merged = small.merge(large)
    assert merged.first_start == 0.0 and merged.last_end == max(4.0, large.last_end)
    assert merged.requests == 505 and merged.output_tokens == 13 + large.output_tokens
    # the latencies keep every value, peak concurrency every request's start and end
    keeps = {info.name for info in SERVING if info.variant == "statistic"} | {"peak_concurrency"}
    assert all(info.grows == (info.name in keeps) for info in SERVING)


def test_states_of_other_settings_do_not_merge() -> None:
    a = T.Goodput(ttft=0.2).summarize(RECORDS)
    b = T.Goodput(ttft=0.3).summarize(RECORDS)
    with pytest.raises(StateMismatchError, match="different 'slo'"):
        a.merge(b)
    with pytest.raises(StateMismatchError, match="other objectives"):
        T.Goodput(ttft=0.3).compute(a)
    with pytest.raises(StateMismatchError, match="different 'quantity'"):
        T.TTFT().summarize(RECORDS).merge(T.TPOT().summarize(RECORDS))
    with pytest.raises(StateMismatchError, match="state of another latency"):
        T.TTFT().compute(T.ITL().summarize(RECORDS))


def test_unknown_statistic() -> None:
    with pytest.raises(ConfigError, match="unknown statistic; got 'average'"):
        T.TTFT(statistic="average")
    with pytest.raises(ConfigError, match="unknown statistic"):
        parse_metric("tpot:average")


# SLOs and output ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (["ttft=200ms", "tpot=50ms"], {"ttft": 0.2, "tpot": 0.05}),
        ("tpot=50ms, ttft=0.2s", {"ttft": 0.2, "tpot": 0.05}),
        ("itl=250us e2e=3s", {"itl": 0.00025, "e2e": 3.0}),
        ({"E2EL": "1.5s", "ttft": 2}, {"ttft": 2.0, "e2e": 1.5}),
        (None, {}),
        ([], {}),
    ],
)
def test_parse_slo(spec: Any, expected: dict[str, float]) -> None:
    assert T.parse_slo(spec) == expected


@pytest.mark.parametrize(
    ("spec", "pattern"),
    [
        (["ttft=200"], "ttft needs a time unit; got '200'"),
        (["ttft=200min"], "ttft needs a time unit; got '200min'"),
        (
            ["latency=2s"],
            "unknown SLO; got 'latency', expected one of 'ttft', 'tpot', 'itl', 'e2e'",
        ),
        (["ttft=1s", "ttft=2s"], "ttft is given twice"),
        (["ttft=0ms"], "ttft must be a positive time"),
        (["ttft=-5ms"], "cannot read the time of ttft; got '-5ms'"),
        (["ttft"], "malformed SLO; got 'ttft'"),
        ({"ttft": True}, "ttft must be a time"),
        ([200], "an SLO must be text"),
    ],
)
def test_parse_slo_errors(spec: Any, pattern: str) -> None:
    with pytest.raises(ConfigError, match=pattern.replace("(", r"\(")):
        T.parse_slo(spec)


def test_format_report() -> None:
    r = T.report(RECORDS, slo={"ttft": 0.6})
    doc = json.loads(T.format_report(r, "json"))
    assert doc["output_throughput"] == 3.25 and doc["goodput"] == 0.5
    assert doc["slo"] == {"ttft": 0.6} and doc["failure_reasons"] == {"timeout": 1}
    assert doc["itl"]["count"] == 6 and doc["tpot"]["p90"] == pytest.approx(0.475)
    assert doc["units"]["time"] == "s"
    table = T.format_report(r)
    lines = table.splitlines()
    assert lines[0].split() == ["requests", "5", "(4", "succeeded,", "1", "failed)"]
    assert "  failed                        1 x timeout" in lines
    assert any(line.split() == ["goodput", "(req/s)", "0.50"] for line in lines)
    assert "2 of 4 (ttft <= 600 ms)" in table
    row = next(line for line in lines if line.startswith("tpot "))
    assert row.split() == [
        "tpot",
        "2",
        "375.00",
        "125.00",
        "250.00",
        "375.00",
        "475.00",
        "497.50",
        "500.00",
    ]
    with pytest.raises(ConfigError, match="unknown format; got 'csv'"):
        T.format_report(r, "csv")
    with pytest.warns(UndefinedMetricWarning):
        empty = T.report([])
    assert json.loads(T.format_report(empty, "json"))["ttft"]["mean"] is None
    rows = [line.split() for line in T.format_report(empty).splitlines()]
    assert ["ttft", "0", *["nan"] * 7] in rows


# failure reasons in the state ------------------------------------------------------------------

_REASON_TEXTS = ["HTTP 503", "timeout", "HTTP 429", "stream interrupted", "", None]


def _failing(rng: np.random.Generator, n: int) -> list[dict[str, Any]]:
    records = _random_records(rng, n)
    for record in records:
        if rng.random() < 0.4:
            record["success"] = False
            record["error"] = _REASON_TEXTS[int(rng.integers(len(_REASON_TEXTS)))]
    return records


def _tally(records: list[dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for r in records:
        if r.get("success", True) is False:
            reason = r.get("error") or "(no reason given)"
            counts[reason] = counts.get(reason, 0) + 1
    return counts


def test_reason_tallies_merge_by_union_and_add() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from scorekit.throughput._state import add_reasons

    tallies = st.dictionaries(st.sampled_from(["a", "b", "HTTP 503", "z", "é"]), st.integers(1, 9))

    def as_state(counts: dict[str, int]) -> T.RequestTotals:
        n = sum(counts.values())
        return T.RequestTotals(
            requests=n,
            failed=n,
            first_start=0.0,
            last_end=1.0,
            reasons=tuple(sorted(counts.items())),
        )

    @settings(max_examples=60, deadline=None)
    @given(tallies, tallies, tallies)
    def laws(x: dict[str, int], y: dict[str, int], z: dict[str, int]) -> None:
        a, b, c = as_state(x), as_state(y), as_state(z)
        assert a.merge(b).equals(b.merge(a))
        assert a.merge(b).merge(c).equals(a.merge(b.merge(c)))
        assert a.merge(T.RequestTotals()).equals(a) and T.RequestTotals().merge(a).equals(a)
        expected = {k: x.get(k, 0) + y.get(k, 0) for k in sorted({*x, *y})}
        assert a.merge(b).reasons == tuple(expected.items())
        assert add_reasons(a.reasons, b.reasons) == tuple(expected.items())
        assert State.from_json(a.merge(b).to_json()).equals(a.merge(b))

    laws()


@pytest.mark.parametrize("metric", [T.FailedRequests(), T.Goodput(ttft=0.3)], ids=repr)
def test_reasons_of_merged_chunks_equal_those_of_all_records(metric: Any) -> None:
    records = _failing(np.random.default_rng(11), 300)
    expected = _tally(records)
    assert len(expected) >= 4  # several reasons, the missing one included
    whole = metric.summarize(records)
    assert dict(whole.reasons) == expected and sum(expected.values()) == whole.failed
    bounds = [0, 1, 1, 90, 91, 250, 300]
    parts = [metric.summarize(records[a:b]) for a, b in itertools.pairwise(bounds)]
    for order in (parts, parts[::-1]):
        merged = metric.empty()
        for part in order:
            merged = metric.merge(merged, State.from_dict(json.loads(json.dumps(part.to_dict()))))
        assert merged.reasons == whole.reasons
    by_count = sorted(expected.items(), key=lambda kv: (-kv[1], kv[0]))
    assert list(_quiet(T.report, records).failure_reasons.items()) == by_count


def test_report_from_states_equals_report_of_the_records() -> None:
    records = _failing(np.random.default_rng(5), 120)
    metrics = T.report_metrics({"ttft": 0.3})
    assert metrics["requests"] == T.Goodput(ttft=0.3) and metrics["ttft"] == T.TTFT()
    halves = [records[:50], records[50:]]
    states = [{k: m.summarize(h) for k, m in metrics.items()} for h in halves]
    merged = {k: m.merge(states[0][k], states[1][k]) for k, m in metrics.items()}
    got = _quiet(T.report_from_states, merged)
    assert got == _quiet(T.report, records, slo=["ttft=300ms"])
    assert _quiet(T.report_from_states, merged, {"ttft": 0.3}) == got
    assert got.slo == {"ttft": 0.3} and got.failure_reasons
    with pytest.raises(StateMismatchError, match="other objectives"):
        T.report_from_states(merged, ["ttft=200ms"])
    with pytest.raises(InputError, match="states are missing; got itl, e2e"):
        T.report_from_states({k: merged[k] for k in ("requests", "ttft", "tpot")})
    swapped = {**merged, "tpot": merged["ttft"]}
    with pytest.raises(StateMismatchError, match="'tpot' is not its latency's state; got 'ttft'"):
        T.report_from_states(swapped)
    with pytest.raises(StateMismatchError, match="not a request-totals state"):
        T.report_from_states({**merged, "requests": merged["e2e"]})


@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(1, 5), st.integers(0, 9), st.booleans()),
        min_size=1,
        max_size=30,
    ),
    st.integers(1, 4),
)
@settings(max_examples=200, deadline=None)
def test_peak_concurrency_counts_the_requests_in_flight(
    spans: list[tuple[int, int, int, bool]], parts: int
) -> None:
    # integer times make ties (one request ending as another starts) common
    records = [
        {
            "prompt_tokens": 1,
            "output_tokens": out,
            "start": float(s),
            "end": float(s + d),
            "success": ok,
            **({} if ok else {"error": "timeout"}),
        }
        for s, d, out, ok in spans
    ]
    # the most requests with start <= t < end, over every start t (where the count can rise)
    expected = max(sum(1 for s, d, _, _ in spans if s <= t < s + d) for t, _, _, _ in spans)
    metric = T.PeakConcurrency()
    assert metric.score(records) == T.peak_concurrency(records) == expected
    cuts = np.array_split(np.arange(len(records)), parts)
    states = [metric.summarize([records[i] for i in cut]) for cut in cuts if cut.size]
    merged = states[0]
    for state in states[1:]:
        merged = metric.merge(merged, state)
    assert metric.compute(merged) == expected
    delivered = [out if ok else 0 for _, _, out, ok in spans]
    assert sorted(merged.output.tolist()) == sorted(float(x) for x in delivered)


def test_peak_concurrency_of_no_request_is_nan_with_a_warning() -> None:
    with pytest.warns(UndefinedMetricWarning, match="peak_concurrency: no request"):
        assert math.isnan(T.PeakConcurrency().compute(T.PeakConcurrency().empty()))


def test_report_from_states_keeps_the_times_of_the_requests() -> None:
    metrics = T.report_metrics()
    states = {key: metric.summarize(RECORDS) for key, metric in metrics.items()}
    times = states["flight"]
    assert isinstance(times, T.RequestTimes)
    assert times.start.size == len(RECORDS)
    assert T.PeakConcurrency().compute(times) == T.peak_concurrency(RECORDS)
