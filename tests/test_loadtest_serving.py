"""The load generator's new flags end to end against loopback servers (tests/openai_server.py):
request options, servers without usage or stream_options, chat-only servers, warm-up and
pre-flight, the open loop's concurrency cap, multi-turn history, sweeps, the metadata
record, merging, and --max-failures."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from openai_server import OpenAIServer
from scorekit import throughput
from scorekit.cli import main
from scorekit.errors import StateMismatchError
from scorekit.loadtest import (
    PreflightError,
    load_tokenizer,
    load_workload,
    run_loadtest,
)
from test_loadtest_workloads import sharegpt_file, write_tokenizer

TTFT = 0.01
INTERVAL = 0.002


@pytest.fixture
def server():
    srv = OpenAIServer(ttft=TTFT, interval=INTERVAL).start()
    yield srv
    srv.stop()


def _start(kind, **options):
    return OpenAIServer(ttft=TTFT, interval=INTERVAL, **options).start()


def _lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# request options and servers ----------------------------------------------------------------


def test_request_options_reach_the_server(server):
    run_loadtest(
        server.url,
        "m",
        ["hello"],
        max_tokens=3,
        ignore_eos=True,
        temperature=0.0,
        extra_body={"top_p": 0.5, "max_tokens": 2},
        stream_options=False,
    )
    body = server.requests[0]["body"]
    assert body["ignore_eos"] is True and body["temperature"] == 0.0 and body["top_p"] == 0.5
    assert body["max_tokens"] == 2  # extra_body replaces what scorekit sets
    assert "stream_options" not in body


def test_server_that_rejects_stream_options(tmp_path, capsys):
    srv = _start("strict", reject_stream_options=True)
    try:
        records, _ = run_loadtest(srv.url, "m", ["a b c"], num_requests=2, max_tokens=3)
        assert [r["error"] for r in records] == [
            "http 400: stream_options: extra fields not permitted"
        ] * 2
        records, _ = run_loadtest(
            srv.url, "m", ["a b c"], num_requests=2, max_tokens=3, stream_options=False
        )
        assert all(r["success"] for r in records)
        # no usage without stream_options: output counted as chunks, the prompt as characters / 4
        assert [(r["output_tokens"], r["prompt_tokens"]) for r in records] == [(3, 2), (3, 2)]
        assert {r["token_counter"] for r in records} == {"estimate"}
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"prompt": "hi"}\n', encoding="utf-8")
        args = ["loadtest", "--url", srv.url, "--model", "m", "--prompts", str(prompts)]
        assert main([*args, "--no-stream-options", "--max-tokens", "2", "--quiet"]) == 0
        assert "1 (1 succeeded, 0 failed)" in capsys.readouterr().out
    finally:
        srv.stop()


def test_tokenizer_counts_when_the_server_reports_no_usage(tmp_path):
    path = write_tokenizer(tmp_path / "tokenizer.json")
    srv = _start("no usage", usage=False)
    try:
        prompt = "hello world the cat sat"  # 5 words, 23 characters
        result = run_loadtest(srv.url, "m", [prompt], max_tokens=4, tokenizer=str(path))
        (record,) = result.records
        assert (record["prompt_tokens"], record["output_tokens"]) == (5, 4)
        assert record["token_counter"] == "tokenizer" and not record["tokens_estimated"]
        assert result.metadata["tokenizer"] == str(path)
        plain = run_loadtest(srv.url, "m", [prompt], max_tokens=4).records[0]
        assert (plain["prompt_tokens"], plain["token_counter"]) == (6, "estimate")
    finally:
        srv.stop()
    # with usage, the server's counts win over the tokenizer
    srv = _start("usage")
    try:
        counter = load_tokenizer(path)
        (record,) = run_loadtest(srv.url, "m", ["a b"], max_tokens=3, tokenizer=counter).records
        assert (record["prompt_tokens"], record["token_counter"]) == (2, "usage")
    finally:
        srv.stop()


def test_chat_only_server_fails_the_pre_flight_with_its_answer(tmp_path, capsys):
    srv = _start("chat only", chat_only=True)
    try:
        out = tmp_path / "r.jsonl"
        with pytest.raises(
            PreflightError,
            match=r"pre-flight request .* failed; got http 404: no route /v1/completions",
        ):
            run_loadtest(
                srv.url, "m", ["hi"], endpoint="completions", warmup=3, num_requests=50, out=out
            )
        assert len(srv.requests) == 1  # the load was never sent
        meta, warm = _lines(out)
        assert meta["record"] == "metadata" and warm["warmup"] is True and not warm["success"]
        # the command: the server's answer, status 2
        prompts = tmp_path / "p.jsonl"
        prompts.write_text('{"prompt": "hi"}\n', encoding="utf-8")
        args = ["loadtest", "--url", srv.url, "--model", "m", "--prompts", str(prompts)]
        args += ["--endpoint", "completions", "--quiet"]
        assert main([*args, "--warmup", "1"]) == 2
        assert "http 404: no route /v1/completions" in capsys.readouterr().err
        # the pre-flight request is sent by default
        assert main(args) == 2
        assert "http 404: no route /v1/completions" in capsys.readouterr().err
        # without warm-up every request fails: --max-failures makes that status 3
        args += ["--warmup", "0"]
        assert main([*args, "--num-requests", "3", "--max-failures", "2"]) == 3
        err = capsys.readouterr().err
        assert "scorekit: 3 of 3 requests failed, more than --max-failures 2 allows" in err
        assert main([*args, "--num-requests", "3", "--max-failures", "100%"]) == 0
        assert (
            main([*args, "--endpoint", "chat", "--num-requests", "2", "--max-failures", "0"]) == 0
        )
    finally:
        srv.stop()


# warm-up, open loop -----------------------------------------------------------------------------


def test_warmup_is_recorded_marked_and_left_out(tmp_path, server):
    out = tmp_path / "r.jsonl"
    result = run_loadtest(
        server.url,
        "m",
        ["a", "b c"],
        concurrency=2,
        warmup=3,
        num_requests=4,
        max_tokens=2,
        out=out,
    )
    marked = [r["warmup"] for r in result.records if "warmup" in r]
    assert marked == [True] * 3 and [r["id"] for r in result.records] == list(range(7))
    assert len(server.requests) == 7
    summary = throughput.report(result.records)
    assert summary.requests == 4
    measured_start = min(r["start"] for r in result.records if "warmup" not in r)
    assert summary.wall_time == pytest.approx(
        max(r["end"] for r in result.records) - measured_start
    )
    from_file = throughput.report(throughput.read_records(out))
    assert from_file.requests == 4 and from_file.wall_time == summary.wall_time


def test_max_concurrency_caps_an_open_loop(server):
    server.reset()
    records, _ = run_loadtest(
        server.url, "m", ["x"], rate=math.inf, max_concurrency=2, num_requests=6, max_tokens=5
    )
    assert len(records) == 6 and all(r["success"] for r in records)
    assert server.max_active <= 2
    server.reset()
    run_loadtest(server.url, "m", ["x"], rate=math.inf, num_requests=6, max_tokens=5)
    assert server.max_active >= 4  # without the cap, all at once


# multi-turn ---------------------------------------------------------------------------------------


def test_multi_turn_sends_the_history_with_the_servers_answers(tmp_path, server):
    path = sharegpt_file(
        tmp_path / "sg.json",
        [
            [
                ("human", "q1"),
                ("gpt", "abcdefgh"),
                ("human", "q2"),
                ("gpt", "abcd"),
                ("human", "q3"),
                ("gpt", "abcdefghijkl"),
            ],
            [("human", "r1"), ("gpt", "abcd")],
        ],
    )
    work = load_workload("sharegpt", path, multi_turn=True)
    records, _ = run_loadtest(server.url, "m", work, multi_turn=True, concurrency=2)
    turns = sorted((r["conversation"], r["turn"]) for r in records)
    assert turns == [(0, 0), (0, 1), (0, 2), (1, 0)]
    by_last = {
        tuple(m["content"] for m in r["body"]["messages"] if m["role"] == "user")[-1]: r["body"]
        for r in server.requests
    }
    assert by_last["q1"]["messages"] == [{"role": "user", "content": "q1"}]
    assert by_last["q1"]["max_tokens"] == 2
    assert by_last["q2"]["messages"] == [
        {"role": "user", "content": "q1"},
        {"role": "assistant", "content": "tok0 tok1 "},
        {"role": "user", "content": "q2"},
    ]
    assert by_last["q3"]["messages"][3] == {"role": "assistant", "content": "tok0 "}
    assert len(by_last["q3"]["messages"]) == 5 and by_last["q3"]["max_tokens"] == 3


def test_multi_turn_needs_chat(server):
    from scorekit.errors import ConfigError

    with pytest.raises(ConfigError, match="multi-turn conversations need the chat endpoint"):
        run_loadtest(server.url, "m", ["a"], endpoint="completions", multi_turn=True)


# sweeps and metadata ----------------------------------------------------------------------------


def test_rate_sweep_from_the_command_line(tmp_path, server, capsys):
    out = tmp_path / "sweep.jsonl"
    args = ["loadtest", "--url", server.url, "--model", "m", "--dataset", "random"]
    args += ["--num-prompts", "3", "--input-len", "6", "--output-len", "2", "--seed", "1"]
    args += ["--rate", "50,100,inf", "--pause", "0.05", "--warmup", "1", "--quiet"]
    assert main([*args, "--out", str(out)]) == 0
    table = capsys.readouterr().out
    lines = table.splitlines()
    assert lines[0].split()[:4] == ["step", "requests", "failed", "req/s"]
    assert [line.split()[:4] for line in lines[1:4]] == [
        ["rate", "50", "3", "0"],
        ["rate", "100", "3", "0"],
        ["rate", "inf", "3", "0"],
    ]
    meta, *records = _lines(out)
    assert meta["steps"] == [{"rate": "50"}, {"rate": "100"}, {"rate": "inf"}]
    assert meta["dataset"]["name"] == "random" and meta["flags"]["rate"] == '[50.0, 100.0, "inf"]'
    assert meta["seed"] == 1 and "api_key" not in meta["flags"]
    assert [r.get("step") for r in records] == [None, 0, 0, 0, 1, 1, 1, 2, 2, 2]
    # the same prompts in every step
    asked = [r["body"]["messages"][0]["content"] for r in server.requests[1:]]
    assert sorted(asked[0:3]) == sorted(asked[3:6]) == sorted(asked[6:9])
    assert len(set(asked)) == 3
    # scorekit throughput of the sweep's records prints the same table after the run's line
    assert main(["throughput", str(out)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"load test: model m at {server.url} (chat), dataset random")
    assert shown.split("\n\n", 1)[1] == table
    assert main(["throughput", str(out), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run"]["steps"][2] == {"rate": "inf"}
    assert [s["step"] for s in data["steps"]] == ["rate 50", "rate 100", "rate inf"]
    assert main(["throughput", str(out), "--save-state", str(tmp_path / "s.json")]) == 2
    assert "a sweep's records are reported per step" in capsys.readouterr().err


def test_concurrency_sweep_through_the_api(server):
    result = run_loadtest(
        server.url, "m", ["a", "b"], concurrency=[1, 2, 3], num_requests=3, max_tokens=2, pause=0
    )
    assert [s.describe() for s in result.steps] == [{"concurrency": n} for n in (1, 2, 3)]
    assert [r["step"] for r in result.records] == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    steps = [[r for r in result.records if r["step"] == k] for k in range(3)]
    assert all(a[-1]["end"] <= b[0]["start"] for a, b in itertools.pairwise(steps))


def test_merge_refuses_runs_of_other_settings(tmp_path, server, capsys):
    def run(name, *extra):
        out = tmp_path / f"{name}.jsonl"
        args = ["loadtest", "--url", server.url, "--model", "m", "--dataset", "random"]
        args += ["--num-prompts", "2", "--input-len", "4", "--output-len", "2", "--quiet"]
        assert main([*args, *extra, "--out", str(out)]) == 0
        state = tmp_path / f"{name}.state.json"
        assert main(["throughput", str(out), "--save-state", str(state)]) == 0
        capsys.readouterr()
        return state

    one = run("one", "--seed", "1", "--num-requests", "2")
    same = run("same", "--seed", "1", "--num-requests", "2")
    other = run("other", "--seed", "1", "--num-requests", "2", "--temperature", "0.5")
    warmed = run("warmed", "--seed", "1", "--num-requests", "2", "--warmup", "3")
    assert main(["merge", str(one), str(same)]) == 0
    captured = capsys.readouterr()
    assert "4 (4 succeeded, 0 failed)" in captured.out
    # warm-up requests are in no figure: runs with other --warmup merge
    assert main(["merge", str(one), str(warmed)]) == 0
    assert "4 (4 succeeded, 0 failed)" in capsys.readouterr().out
    assert f"scorekit: load test: model m at {server.url} (chat)" in captured.err
    assert main(["merge", str(one), str(other)]) == 2
    err = capsys.readouterr().err
    assert "the files come from load tests of different settings: 'flags' differs" in err
    assert "--allow-different-runs" in err
    assert main(["merge", str(one), str(other), "--allow-different-runs"]) == 0
    assert "4 (4 succeeded, 0 failed)" in capsys.readouterr().out
    from scorekit.api import merge_with_header

    with pytest.raises(StateMismatchError, match="'flags' differs"):
        merge_with_header([one, other])


def test_throughput_shows_the_metadata_of_a_single_run(tmp_path, server, capsys):
    out = tmp_path / "r.jsonl"
    run_loadtest(server.url, "m", ["a b"], num_requests=2, max_tokens=2, out=out, seed=7)
    assert main(["throughput", str(out)]) == 0
    shown = capsys.readouterr().out
    assert shown.startswith(f"load test: model m at {server.url} (chat), dataset list")
    assert "seed 7" in shown and "requests                        2 (2 succeeded" in shown
