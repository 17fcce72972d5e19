"""``--by`` on ``throughput``, ``rank``, ``text`` and ``qa``: per-group values equal the
command on each group's data alone, in memory, in chunks and through state files."""

from __future__ import annotations

import csv
import io
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import scorekit
from scorekit import api
from scorekit.cli import main
from scorekit.core import ByGroup
from scorekit.errors import UndefinedMetricWarning


def _run(capsys: Any, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


# throughput ---------------------------------------------------------------------------------


def _records(n: int = 40, seed: int = 0) -> list[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        start = float(i) * 0.5
        first = start + float(rng.random())
        out.append(
            {
                "prompt_tokens": int(rng.integers(1, 50)),
                "output_tokens": 3,
                "start": start,
                "end": first + 1.0,
                "first_token": first,
                "token_times": [first, first + 0.25, first + 1.0],
                "model": str(rng.choice(["m1", "m2", "m3"])),
            }
        )
    return out


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def test_throughput_groups_equal_each_group_alone(tmp_path: Path) -> None:
    records = _records()
    path = _write_jsonl(tmp_path / "r.jsonl", records)
    whole = api.evaluate_records(str(path), by="model", slo={"ttft": 0.5}, percentiles=[50, 95])
    chunked = api.evaluate_records(
        str(path), by=["model"], slo={"ttft": 0.5}, percentiles=[50, 95], chunk_size=7
    )
    assert "itl:p95" in whole.values and "goodput" in whole.values
    for key, found in whole.values.items():
        assert isinstance(found, ByGroup)
        assert chunked.values[key] == found
        options = {"ttft": 0.5} if key == "goodput" else {}
        assert found.overall == scorekit.evaluate(records_table(records), key, **options)[key]
        for group in ("m1", "m2", "m3"):
            alone = [r for r in records if r["model"] == group]
            expected = scorekit.evaluate(records_table(alone), key, **options)[key]
            assert found.by_group[group] == expected
            assert found.sizes[group] == len(alone)


def records_table(records: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {k: [r[k] for r in records] for k in records[0] if k != "model"}


def test_throughput_cli_formats_state_files_and_bad_input(capsys: Any, tmp_path: Path) -> None:
    records = _records(30, seed=1)
    path = _write_jsonl(tmp_path / "r.jsonl", records)
    code, out, _ = _run(capsys, "throughput", str(path), "--by", "model", "--format", "csv")
    assert code == 0
    rows = _csv_rows(out)
    overall = [r for r in rows if r["metric"] == "e2e_latency" and r["statistic"] == "overall"]
    assert overall[0]["rows"] == "30"
    groups = {
        r["model"]: r for r in rows if r["metric"] == "e2e_latency" and r["statistic"] == "group"
    }
    alone = [r for r in records if r["model"] == "m2"]
    assert (
        float(groups["m2"]["value"])
        == scorekit.evaluate(records_table(alone), "e2e_latency")["e2e_latency"]
    )
    code, out, _ = _run(capsys, "throughput", str(path), "--by", "model", "--format", "json")
    document = json.loads(out)
    assert set(document["ttft"]) >= {"overall", "groups", "difference", "ratio"}
    shards = []
    for i, part in enumerate((records[:12], records[12:])):
        shard = _write_jsonl(tmp_path / f"s{i}.jsonl", part)
        state = tmp_path / f"s{i}.json"
        assert (
            _run(capsys, "throughput", str(shard), "--by", "model", "--save-state", str(state))[0]
            == 0
        )
        shards.append(str(state))
    code, merged, _ = _run(capsys, "merge", *shards, "--format", "json")
    assert code == 0
    whole = api.evaluate_records(str(path), by="model")
    for key in ("ttft", "e2e_latency:p90", "tpot", "output_throughput"):
        expected = whole.values[key].as_dict()["groups"]
        for got, want in zip(json.loads(merged)[key]["groups"], expected, strict=True):
            assert got["model"] == want["model"] and got["rows"] == want["rows"]
            assert got["value"] == pytest.approx(want["value"], rel=1e-12)
    code, _, err = _run(capsys, "throughput", str(path), "--by", "region")
    assert code == 2 and "'region'" in err
    nulls = _write_jsonl(tmp_path / "n.jsonl", [{**r, "model": None} for r in records])
    code, _, err = _run(capsys, "throughput", str(nulls), "--by", "model")
    assert code == 2 and "group column 'model' is all null" in err
    code, _, err = _run(capsys, "throughput", str(path), "--by", "model", "--ci")
    assert code == 2 and "--by and --ci are not taken together" in err


def test_throughput_undefined_group_warns_with_its_name(tmp_path: Path) -> None:
    records = _records(12, seed=2)
    failed = [
        {**r, "success": r["model"] != "m1", "error": "" if r["model"] != "m1" else "timeout"}
        for r in records
    ]
    path = _write_jsonl(tmp_path / "r.jsonl", failed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = api.evaluate_records(str(path), by="model").values["ttft"]
    assert math.isnan(found.by_group["m1"])
    texts = [str(w.message) for w in caught if issubclass(w.category, UndefinedMetricWarning)]
    assert any(t.startswith("group model='m1': ttft") for t in texts)


# rank ---------------------------------------------------------------------------------------


def _ranking_files(tmp_path: Path, n_queries: int = 12, seed: int = 0) -> tuple[Path, ...]:
    rng = np.random.default_rng(seed)
    qrels, run, topics = [], [], ["query,kind,lang"]
    for q in range(n_queries):
        query = f"q{q:02d}"
        for d in range(6):
            grade = int(rng.integers(0, 3))
            qrels.append(f"{query} 0 d{d} {grade}")
        for rank, d in enumerate(rng.permutation(8)):
            run.append(f"{query} Q0 d{d} {rank + 1} {float(rng.random()):.4f} sys")
        topics.append(f"{query},{rng.choice(['short', 'long'])},{rng.choice(['en', 'de'])}")
    paths = (tmp_path / "qrels", tmp_path / "run", tmp_path / "topics.csv")
    for path, lines in zip(paths, (qrels, run, topics), strict=True):
        path.write_text("\n".join(lines) + "\n")
    return paths


def _sub_run(run: Path, queries: set[str], out: Path) -> Path:
    lines = [line for line in run.read_text().splitlines() if line.split()[0] in queries]
    out.write_text("\n".join(lines) + "\n")
    return out


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(seed=st.integers(0, 1000), size=st.integers(1, 40))
def test_rank_groups_equal_each_group_alone(tmp_path: Path, seed: int, size: int) -> None:
    qrels, run, topics = _ranking_files(tmp_path, seed=seed)
    metrics = ["map", "ndcg@5", "mrr", "p@3"]
    whole = api.evaluate_run(qrels, str(run), metrics, by=["kind"], attributes=str(topics))
    chunked = api.evaluate_run(
        qrels, str(run), metrics, by=["kind"], attributes=str(topics), chunk_size=size
    )
    kinds = api.query_groups(str(topics), ["kind"])
    plain = api.evaluate_run(qrels, str(run), metrics)
    for key in metrics:
        found = whole.values[key]
        assert chunked.values[key] == found
        assert found.overall == plain[key]
        for group, value in found.by_group.items():
            queries = {q for q, k in kinds.items() if k == (group,)}
            sub = _sub_run(run, queries, tmp_path / "sub.run")
            assert value == api.evaluate_run(qrels, str(sub), [key])[key]


def test_rank_cli_formats_state_files_and_bad_input(capsys: Any, tmp_path: Path) -> None:
    qrels, run, topics = _ranking_files(tmp_path, seed=3)
    base = ["rank", str(qrels), str(run), "-m", "map", "ndcg@10"]
    code, out, _ = _run(
        capsys, *base, "--by", "kind", "lang", "--query-attributes", str(topics), "--format", "csv"
    )
    assert code == 0
    rows = _csv_rows(out)
    assert {r["statistic"] for r in rows} == {"overall", "group", "difference", "ratio"}
    assert (
        sum(int(r["rows"]) for r in rows if r["metric"] == "map" and r["statistic"] == "group")
        == 96
    )
    state = tmp_path / "rank.json"
    args = (*base, "--by", "kind", "--query-attributes", str(topics), "--chunk-size", "5")
    assert _run(capsys, *args, "--save-state", str(state), "--format", "json")[0] == 0
    code, merged, _ = _run(capsys, "merge", str(state), "--format", "json")
    _, direct, _ = _run(capsys, *args, "--format", "json")
    assert json.loads(merged) == json.loads(direct)
    code, _, err = _run(capsys, *base, "--by", "topic", "--query-attributes", str(topics))
    assert code == 2 and "no such column; got 'topic'" in err
    code, _, err = _run(capsys, *base, "--by", "kind")
    assert code == 2 and "--by and --query-attributes go together" in err
    nulls = tmp_path / "nulls.csv"
    nulls.write_text("query,kind\n" + "".join(f"q{q:02d},\n" for q in range(12)))
    code, _, err = _run(capsys, *base, "--by", "kind", "--query-attributes", str(nulls))
    assert code == 2 and "group column 'kind' is all null" in err
    few = tmp_path / "few.csv"
    few.write_text("query,kind\nq00,a\nq01,b\n")
    code, _, err = _run(capsys, *base, "--by", "kind", "--query-attributes", str(few))
    assert code == 2 and "a query of the run has no attributes; got 'q02'" in err
    twice = tmp_path / "twice.csv"
    twice.write_text("query,kind\n" + "".join(f"q{q:02d},a\n" for q in range(12)) + "q00,b\n")
    code, _, err = _run(capsys, *base, "--by", "kind", "--query-attributes", str(twice))
    assert code == 2 and "a query on two rows; got 'q00'" in err
    code, _, err = _run(
        capsys, *base, "--by", "kind", "--query-attributes", str(topics), "--missing", "zero"
    )
    assert code == 2 and "--missing zero" in err


def test_rank_undefined_group_warns_with_its_name(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d1 0\n")
    run = tmp_path / "run"
    run.write_text("q1 Q0 d1 1 2.0 x\nq2 Q0 d1 1 2.0 x\n")
    topics = tmp_path / "topics.csv"
    topics.write_text("query,kind\nq1,easy\nq2,hard\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = api.evaluate_run(qrels, str(run), ["map"], by=["kind"], attributes=str(topics))
    assert found.values["map"].by_group == {"easy": 1.0, "hard": 0.0}
    texts = [str(w.message) for w in caught]
    assert any(t.startswith("group kind='hard': map: 1 of 1 queries") for t in texts)


# text ---------------------------------------------------------------------------------------

_HYPS = [
    "the cat sat on a mat",
    "a dog walked home",
    "hello",
    "good day to you",
    "it rains today",
    "the market fell sharply",
    "stocks rose",
]
_REFS = [
    "the cat sat on the mat",
    "a dog ran home",
    "hello world",
    "good day to you all",
    "it rains",
    "the market fell",
    "stocks rose again today",
]
_DOMAINS = ["news", "chat", "chat", "news", "weather", "news", "finance"]


def _lines(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


def test_text_groups_equal_each_group_alone(tmp_path: Path) -> None:
    hyp, ref = _lines(tmp_path / "h.txt", _HYPS), _lines(tmp_path / "r.txt", _REFS)
    groups = _lines(tmp_path / "g.txt", _DOMAINS)
    metrics = ["bleu", "chrf", "ter", "wer", "rouge1", "rougeL"]
    whole = api.evaluate_text(hyp, [ref], metrics, by="domain", groups=groups)
    chunked = api.evaluate_text(hyp, [ref], metrics, by="domain", groups=groups, chunk_size=2)
    plain = api.evaluate_text(hyp, [ref], metrics, ci=None)
    for key in metrics:
        found = whole.values[key]
        assert chunked.values[key].sizes == found.sizes
        for group, value in found.by_group.items():
            assert chunked.values[key].by_group[group] == pytest.approx(value, rel=1e-12)
            rows = [i for i, d in enumerate(_DOMAINS) if d == group]
            sub_h = _lines(tmp_path / "sh.txt", [_HYPS[i] for i in rows])
            sub_r = _lines(tmp_path / "sr.txt", [_REFS[i] for i in rows])
            alone = api.evaluate_text(sub_h, [sub_r], [key]).values
            expected = alone[key] if key in alone else alone["rouge"][key].fmeasure
            assert value == pytest.approx(expected, rel=1e-12)
        if key in plain.values:
            assert found.overall == pytest.approx(plain.values[key], rel=1e-12)


def test_text_cli_and_bad_input(capsys: Any, tmp_path: Path) -> None:
    hyp, ref = _lines(tmp_path / "h.txt", _HYPS), _lines(tmp_path / "r.txt", _REFS)
    groups = _lines(tmp_path / "g.txt", _DOMAINS)
    base = ["text", "--hyps", hyp, "--refs", ref, "-m", "bleu", "wer"]
    code, out, _ = _run(capsys, *base, "--by", "domain", "--groups", groups, "--format", "csv")
    assert code == 0
    rows = _csv_rows(out)
    assert [r["rows"] for r in rows if r["metric"] == "wer" and r["statistic"] == "group"] == [
        "2", "1", "3", "1"
    ]  # fmt: skip
    state = tmp_path / "t.json"
    args = (*base, "--by", "domain", "--groups", groups, "--chunk-size", "3", "--format", "json")
    assert _run(capsys, *args, "--save-state", str(state))[0] == 0
    _, direct, _ = _run(capsys, *args)
    _, merged, _ = _run(capsys, "merge", str(state), "--format", "json")
    assert json.loads(merged) == json.loads(direct)
    code, _, err = _run(capsys, *base, "--by", "domain")
    assert code == 2 and "--by and --groups go together" in err
    holes = _lines(tmp_path / "holes.txt", ["a", "b", "", "c", "d", "e", "f"])
    code, _, err = _run(capsys, *base, "--by", "d", "--groups", holes, "--chunk-size", "2")
    assert code == 2 and "holes.txt, line 3: missing group label" in err
    short = _lines(tmp_path / "short.txt", ["a", "b"])
    code, _, err = _run(capsys, *base, "--by", "d", "--groups", short)
    assert code == 2 and "short.txt" in err and "line count" in err
    code, _, err = _run(capsys, *base, "--by", "d", "--groups", groups, "--ci", "--engine", "dask")
    assert code == 2 and "its partitions do not know the positions of their rows" in err
    two = ["text", "--hyps", hyp, hyp, "--refs", ref, "--by", "d", "--groups", groups]
    for test in (["--test", "paired_bootstrap"], ["--paired-bs"]):
        code, _, err = _run(capsys, *two, *test)
        assert code == 2 and "--by does not apply to a comparison of systems" in err


def test_text_intervals_per_group(capsys: Any, tmp_path: Path) -> None:
    """A line keeps the bootstrap weights of its line number in its group: the same interval
    in memory, in chunks and through a state file."""
    hyp, ref = _lines(tmp_path / "h.txt", _HYPS), _lines(tmp_path / "r.txt", _REFS)
    groups = _lines(tmp_path / "g.txt", _DOMAINS)
    ci = api.CI(n_resamples=100, seed=3)
    whole = api.evaluate_text(hyp, [ref], ["chrf"], ci=ci, by="d", groups=groups)
    chunked = api.evaluate_text(hyp, [ref], ["chrf"], ci=ci, by="d", groups=groups, chunk_size=2)
    found = whole.values["chrf"]
    assert found == chunked.values["chrf"]
    assert found.sizes == {"chat": 2, "finance": 1, "news": 3, "weather": 1}
    news = [i for i, d in enumerate(_DOMAINS) if d == "news"]
    boot = scorekit.stats.Bootstrap.of("chrf", n_resamples=100, seed=3)
    alone = boot.summarize(
        [[_REFS[i]] for i in news], [_HYPS[i] for i in news], first_row=0, positions=news
    )
    assert found.by_group["news"] == ci.interval(boot, alone)
    plain = api.evaluate_text(hyp, [ref], ["chrf"], by="d", groups=groups)
    assert found.by_group["news"].value == plain.values["chrf"].by_group["news"]
    args = ["text", "--hyps", hyp, "--refs", ref, "-m", "chrf", "--by", "d", "--groups", groups]
    args += ["--ci", "--n-resamples", "100", "--seed", "3", "--format", "json"]
    state = tmp_path / "t.json"
    code, direct, _ = _run(capsys, *args, "--save-state", str(state))
    assert code == 0
    groups_shown = {g["d"]: g["value"] for g in json.loads(direct)["chrf"]["groups"]}
    assert groups_shown["news"]["low"] == found.by_group["news"].low
    _, merged, _ = _run(capsys, "merge", str(state), "--format", "json")
    assert json.loads(merged) == json.loads(direct)


# qa -----------------------------------------------------------------------------------------


def _squad(
    n_articles: int = 3, per: int = 4, seed: int = 0
) -> tuple[dict[str, Any], dict[str, str]]:
    rng = np.random.default_rng(seed)
    words = ["paris", "the seine", "rome", "tiber river", "blue", "four", "green"]
    data, predictions = [], {}
    for a in range(n_articles):
        qas = []
        for q in range(per):
            qid = f"a{a}q{q}"
            answers = [] if rng.random() < 0.2 else [{"text": str(rng.choice(words))}]
            qas.append({"id": qid, "question": "?", "answers": answers})
            predictions[qid] = "" if rng.random() < 0.2 else str(rng.choice(words))
        data.append({"title": f"T{a}", "paragraphs": [{"context": "c", "qas": qas}]})
    return {"version": "v2.0", "data": data}, predictions


def test_qa_groups_equal_each_group_alone(tmp_path: Path) -> None:
    dataset, predictions = _squad()
    found = api.evaluate_squad(dataset, predictions, by=["title"])
    whole = api.evaluate_squad(dataset, predictions)
    for key in ("exact", "f1"):
        assert found[key].overall == pytest.approx(whole[key], rel=1e-12)
        for article in dataset["data"]:
            alone = api.evaluate_squad({"data": [article]}, predictions)
            assert found[key].by_group[article["title"]] == pytest.approx(alone[key], rel=1e-12)
    attributes = tmp_path / "q.csv"
    kinds = {qid: "odd" if int(qid[-1]) % 2 else "even" for qid in predictions}
    attributes.write_text("id,kind\n" + "".join(f"{q},{k}\n" for q, k in kinds.items()))
    both = api.evaluate_squad(
        dataset, predictions, by=["title", "kind"], attributes=str(attributes)
    )
    assert set(both["exact"].by_group) == {(f"T{a}", k) for a in range(3) for k in ("even", "odd")}
    assert sum(both["f1"].sizes.values()) == 12


def test_qa_cli_and_bad_input(capsys: Any, tmp_path: Path) -> None:
    dataset, predictions = _squad(seed=4)
    data = tmp_path / "d.json"
    data.write_text(json.dumps(dataset))
    preds = tmp_path / "p.json"
    preds.write_text(json.dumps(predictions))
    code, out, _ = _run(capsys, "qa", str(data), str(preds), "--by", "title", "--format", "json")
    assert code == 0
    assert [g["title"] for g in json.loads(out)["exact"]["groups"]] == ["T0", "T1", "T2"]
    code, _, err = _run(capsys, "qa", str(data), str(preds), "--by", "kind")
    assert code == 2 and "needs a file of attributes" in err
    attributes = tmp_path / "q.csv"
    attributes.write_text("id,kind\na0q0,x\n")
    code, _, err = _run(
        capsys,
        "qa",
        str(data),
        str(preds),
        "--by",
        "kind",
        "--question-attributes",
        str(attributes),
    )
    assert code == 2 and "a question of the dataset has no attributes" in err
    nulls = tmp_path / "n.csv"
    nulls.write_text("id,kind\n" + "".join(f"{q},\n" for q in predictions))
    code, _, err = _run(
        capsys, "qa", str(data), str(preds), "--by", "kind", "--question-attributes", str(nulls)
    )
    assert code == 2 and "group column 'kind' is all null" in err
    untitled = tmp_path / "u.json"
    untitled.write_text(json.dumps({"data": [{**dataset["data"][0], "title": ""}]}))
    code, _, err = _run(capsys, "qa", str(untitled), str(preds), "--by", "title")
    assert code == 2 and "no title to group by" in err
    broken = tmp_path / "b.json"
    broken.write_text(
        json.dumps({"data": [{"title": "T", "paragraphs": [{"qas": [{"id": "x"}]}]}]})
    )
    code, _, err = _run(capsys, "qa", str(broken), str(preds), "--by", "title")
    assert code == 2 and "not in the SQuAD format" in err


# intervals per group ------------------------------------------------------------------------


def test_rank_and_qa_intervals_per_group_equal_each_group_alone(tmp_path: Path) -> None:
    ci = api.CI(n_resamples=100, seed=7)
    qrels, run, topics = _ranking_files(tmp_path, seed=9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        whole = api.evaluate_run(
            qrels, str(run), ["map"], by=["kind"], attributes=str(topics), ci=ci
        )
        chunked = api.evaluate_run(
            qrels, str(run), ["map"], by=["kind"], attributes=str(topics), ci=ci, chunk_size=7
        )
        found = whole.values["map"]
        assert chunked.values["map"] == found
        assert found.overall == api.evaluate_run(qrels, str(run), ["map"], ci=ci)["map"]
        kinds = api.query_groups(str(topics), ["kind"])
        for group, interval in found.by_group.items():
            sub = _sub_run(run, {q for q, k in kinds.items() if k == (group,)}, tmp_path / "s.run")
            assert interval == api.evaluate_run(qrels, str(sub), ["map"], ci=ci)["map"]
        dataset, predictions = _squad(seed=5)
        scores = api.evaluate_squad(dataset, predictions, by=["title"], ci=ci)
        for article in dataset["data"]:
            alone = api.evaluate_squad({"data": [article]}, predictions, ci=ci)
            assert scores["f1"].by_group[article["title"]] == alone["f1"]
    assert found.difference() == max(i.value for i in found.by_group.values()) - min(
        i.value for i in found.by_group.values()
    )


def test_interval_columns_in_the_group_table(capsys: Any, tmp_path: Path) -> None:
    qrels, run, topics = _ranking_files(tmp_path, seed=2)
    argv = ["rank", str(qrels), str(run), "-m", "ndcg@5", "--by", "kind"]
    argv += ["--query-attributes", str(topics), "--ci", "--n-resamples", "50", "--format", "csv"]
    code, out, err = _run(capsys, *argv)
    assert code == 0 and "overall and in each group" in err
    rows = _csv_rows(out)
    assert list(rows[0]) == ["metric", "statistic", "kind", "value", "low", "high", "rows"]
    for row in rows:
        if row["statistic"] in ("overall", "group"):
            assert float(row["low"]) <= float(row["value"]) <= float(row["high"])
    code, _, err = _run(capsys, *argv, "--save-state", str(tmp_path / "s.json"))
    assert code == 2 and "saves no bootstrap states" in err
