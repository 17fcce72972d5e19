"""The load generator's inputs, without a server: datasets, arrival times, tokenizers, limits."""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import statistics

import pytest

from scorekit.cli import main
from scorekit.errors import ConfigError, InputError
from scorekit.loadtest import (
    Prompt,
    TokenCounter,
    arrival_gaps,
    arrival_times,
    describe_run,
    estimate_tokens,
    failures_over,
    load_tokenizer,
    load_workload,
    parse_max_failures,
    read_sharegpt,
    run_metadata,
    run_settings,
    synthetic_prompts,
)

WORDS = ["hello", "world", "the", "a", "cat", "sat", *(f"tok{i}" for i in range(64))]


def write_tokenizer(path):
    """A word-level tokenizer.json built here (nothing is downloaded)."""
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, **{word: i + 1 for i, word in enumerate(WORDS)}}
    tokenizer = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    tokenizer.save(str(path))
    return path


def sharegpt_file(path, conversations):
    items = [
        {"id": f"c{i}", "conversations": [{"from": who, "value": text} for who, text in turns]}
        for i, turns in enumerate(conversations)
    ]
    path.write_text(json.dumps(items), encoding="utf-8")
    return path


CONVERSATIONS = [
    [("human", "first question"), ("gpt", "x" * 40), ("human", "second"), ("gpt", "y" * 8)],
    [("system", "be brief"), ("human", "only one"), ("gpt", "z" * 12)],
    [("human", "no reply here")],
    [("user", "as user"), ("assistant", "w" * 4)],
]


# ShareGPT ---------------------------------------------------------------------------------


def test_sharegpt_first_human_turn_and_reply_budget(tmp_path):
    path = sharegpt_file(tmp_path / "sg.json", CONVERSATIONS)
    conversations, digest = read_sharegpt(path)
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    turns = [[(p.text, p.max_tokens) for p in c.turns] for c in conversations]
    # the conversation without a reply is skipped; the budget is the reply's characters / 4
    assert turns == [[("first question", 10)], [("only one", 3)], [("as user", 1)]]
    multi, _ = read_sharegpt(path, multi_turn=True)
    assert [(p.text, p.max_tokens) for p in multi[0].turns] == [
        ("first question", 10),
        ("second", 2),
    ]


def test_sharegpt_budget_with_a_tokenizer_and_gzip(tmp_path):
    counter = load_tokenizer(write_tokenizer(tmp_path / "tokenizer.json"))
    path = tmp_path / "sg.json.gz"
    items = [
        {"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "a b c"}]}
    ]
    path.write_bytes(gzip.compress(json.dumps(items).encode()))
    conversations, _ = read_sharegpt(path, counter=counter)
    assert conversations[0].turns[0].max_tokens == 3  # three words, not 5 characters / 4


def test_sharegpt_sample_is_reproducible(tmp_path):
    many = [[("human", f"q{i}"), ("gpt", "answer")] for i in range(30)]
    path = sharegpt_file(tmp_path / "sg.json", many)
    first = load_workload("sharegpt", path, num_prompts=10, seed=3)
    again = load_workload("sharegpt", path, num_prompts=10, seed=3)
    other = load_workload("sharegpt", path, num_prompts=10, seed=4)
    texts = [p.text for p in first.prompts]
    assert texts == [p.text for p in again.prompts]
    assert texts != [p.text for p in other.prompts]
    assert len(set(texts)) == 10 and set(texts) <= {f"q{i}" for i in range(30)}
    assert first.sha256 == other.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    # more prompts than the file holds: the shuffled file cycles
    cycled = load_workload("sharegpt", path, num_prompts=45, seed=3)
    assert [p.text for p in cycled.prompts[30:]] == [p.text for p in cycled.prompts[:15]]
    assert load_workload("sharegpt", path).prompts[0].text == "q0"  # file order by default


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('{"conversations": []}', "not a ShareGPT file; got dict"),
        (
            '[{"conversations": [{"from": "human", "value": "a"}]}, {"text": "b"}]',
            "record 1: not a",
        ),
        ('[{"conversations": "hello"}]', "record 0: not a ShareGPT conversation"),
        ('[{"conversations": [{"from": "human", "value": 3}]}]', "record 0, turn 0: bad turn"),
        ('[{"conversations": [{"from": "human", "value": "a"}]}]', "no conversation with a human"),
        ("[1, 2", "invalid JSON"),
    ],
)
def test_bad_sharegpt_files_name_path_and_record(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as info:
        read_sharegpt(path)
    assert str(info.value).startswith(str(path)) and problem in str(info.value)


# JSON Lines, random, prefix -----------------------------------------------------------------


def test_jsonl_dataset_and_its_turns(tmp_path):
    path = tmp_path / "p.jsonl"
    chat = {
        "messages": [
            {"role": "system", "content": "sys"},
            {"role": "user", "content": "one"},
            {"role": "assistant", "content": "ignored"},
            {"role": "user", "content": "two"},
        ]
    }
    path.write_text(json.dumps({"prompt": "hi"}) + "\n" + json.dumps(chat) + "\n")
    work = load_workload("jsonl", path)
    assert work.name == "jsonl" and work.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert [len(c.turns) for c in work.conversations] == [1, 1]
    multi = load_workload("jsonl", path, multi_turn=True)
    turns = multi.conversations[1].turns
    assert [t.as_messages() for t in turns] == [
        [{"role": "system", "content": "sys"}, {"role": "user", "content": "one"}],
        [{"role": "user", "content": "two"}],
    ]
    assert work.describe() == {
        "name": "jsonl",
        "path": str(path),
        "sha256": work.sha256,
        "prompts": 2,
    }


def test_random_lengths_follow_the_range_ratio():
    prompts = synthetic_prompts(
        "random", num_prompts=300, input_len=40, output_len=20, range_ratio=0.5, seed=2
    )
    inputs = [estimate_tokens(p.text) for p in prompts]
    outputs = [p.max_tokens for p in prompts]
    assert min(inputs) >= 20 and max(inputs) <= 60 and min(outputs) >= 10 and max(outputs) <= 30
    assert statistics.mean(inputs) == pytest.approx(40, rel=0.1)
    assert len(set(inputs)) > 20  # drawn, not fixed
    fixed = synthetic_prompts("random", num_prompts=5, input_len=7, output_len=3, seed=2)
    assert {estimate_tokens(p.text) for p in fixed} == {7} and {p.max_tokens for p in fixed} == {3}
    assert len({p.text for p in fixed}) == 5


def test_random_prompts_from_a_tokenizer_vocabulary(tmp_path):
    counter = load_tokenizer(write_tokenizer(tmp_path / "tokenizer.json"))
    work = load_workload(
        "random", num_prompts=20, input_len=12, output_len=4, seed=5, counter=counter
    )
    # decoded ids tokenize back to about as many tokens ("[UNK]" splits in three here)
    counts = [counter.count(p.text) for p in work.prompts]
    assert statistics.median(counts) == 12 and all(12 <= c <= 18 for c in counts)
    words = {w for p in work.prompts for w in p.text.split()}
    assert words <= {*WORDS, "[UNK]"} and len(words) > 10


def test_prefix_prompts_share_their_prefix():
    work = load_workload("prefix", num_prompts=4, input_len=5, output_len=2, prefix_len=30, seed=1)
    texts = [p.text for p in work.prompts]
    prefix = texts[0][: 30 * 4]
    assert all(t.startswith(prefix) for t in texts)
    assert len({t[len(prefix) :] for t in texts}) == 4
    assert {estimate_tokens(t) for t in texts} == {35}
    again = load_workload("prefix", num_prompts=4, input_len=5, output_len=2, prefix_len=30, seed=1)
    assert again.sha256 == work.sha256
    other = load_workload("prefix", num_prompts=4, input_len=5, output_len=2, prefix_len=30, seed=2)
    assert other.sha256 != work.sha256


@pytest.mark.parametrize(
    ("dataset", "path", "options", "problem"),
    [
        ("alpaca", None, {}, "unknown dataset; got 'alpaca', expected one of"),
        ("sharegpt", None, {}, "the sharegpt dataset needs a file"),
        ("random", "x.json", {}, "the random dataset reads no file"),
        ("random", None, {"range_ratio": 1.0}, "bad range_ratio"),
        ("random", None, {"input_len": 0}, "bad input_len"),
        ("random", None, {"num_prompts": 0}, "bad num_prompts"),
        ("prefix", None, {"prefix_len": -3}, "bad prefix_len"),
    ],
)
def test_bad_dataset_options(dataset, path, options, problem):
    with pytest.raises(ConfigError, match=problem):
        load_workload(dataset, path, **options)


# arrivals -------------------------------------------------------------------------------------


def test_poisson_arrival_rate_over_many_seeded_draws():
    rates = []
    for seed in range(200):
        times = arrival_times(101, 8.0, seed=seed)
        rates.append(100 / times[-1])
    # the mean of n exponential gaps has relative spread 1/sqrt(n): 200 runs of 100 gaps
    gaps = [g for seed in range(200) for g in _gaps(8.0, 1.0, seed, 100)]
    assert statistics.mean(gaps) == pytest.approx(1 / 8, rel=0.02)
    assert statistics.median(rates) == pytest.approx(8.0, rel=0.05)


def _gaps(rate, burstiness, seed, n):
    draws = arrival_gaps(rate, burstiness, seed)
    return [next(draws) for _ in range(n)]


@pytest.mark.parametrize("burstiness", [0.25, 1.0, 4.0])
def test_gamma_arrivals_mean_and_coefficient_of_variation(burstiness):
    gaps = [g for seed in range(20) for g in _gaps(5.0, burstiness, seed, 1000)]
    mean = statistics.mean(gaps)
    cv = statistics.pstdev(gaps) / mean
    assert mean == pytest.approx(0.2, rel=0.04)
    assert cv == pytest.approx(1 / math.sqrt(burstiness), rel=0.06)


def test_arrivals_are_seeded_and_infinite_rate_is_at_once():
    assert _gaps(3.0, 0.5, 7, 20) == _gaps(3.0, 0.5, 7, 20)
    assert _gaps(3.0, 0.5, 7, 20) != _gaps(3.0, 0.5, 8, 20)
    assert arrival_times(4, math.inf) == [0.0, 0.0, 0.0, 0.0]
    assert arrival_times(3, 1.0, seed=9)[0] == 0.0


# tokenizers -------------------------------------------------------------------------------------


def test_tokenizer_from_a_file_or_its_folder(tmp_path):
    path = write_tokenizer(tmp_path / "tokenizer.json")
    for given in (path, tmp_path, str(path)):
        counter = load_tokenizer(given)
        assert isinstance(counter, TokenCounter) and counter.kind == "tokenizers"
        assert counter.count("hello world tok3 unknownword") == 4
        assert counter.count("") == 0
    assert load_tokenizer(path).name == str(path)


def test_bad_tokenizers(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(ConfigError, match="not a tokenizer file"):
        load_tokenizer(bad)
    with pytest.raises(ConfigError, match="no tokenizer file or tiktoken encoding"):
        load_tokenizer(tmp_path / "missing" / "tokenizer.json")
    pytest.importorskip("tiktoken")
    with pytest.raises(ConfigError, match="no tokenizer file or tiktoken encoding"):
        load_tokenizer("no-such-encoding")


def test_tiktoken_encoding_counts():
    pytest.importorskip("tiktoken")
    try:
        counter = load_tokenizer("cl100k_base")
    except ConfigError as exc:
        pytest.skip(f"tiktoken cannot load cl100k_base offline here: {exc}")
    assert counter.kind == "tiktoken" and counter.count("hello world") == 2


def test_missing_tokenizers_package_says_how_to_install(tmp_path, monkeypatch):
    import sys

    path = write_tokenizer(tmp_path / "tokenizer.json")
    monkeypatch.setitem(sys.modules, "tokenizers", None)
    with pytest.raises(ConfigError, match=r"needs the tokenizers package.*scorekit\[serve\]"):
        load_tokenizer(path)


# failures limit and metadata -------------------------------------------------------------------


def test_max_failures_limits():
    records = [{"success": False}] * 2 + [{"success": True}] * 8
    warm = [{"success": False, "warmup": True}] * 5
    assert failures_over(records + warm, parse_max_failures("2")) == (2, 10, False)
    assert failures_over(records, parse_max_failures("1")) == (2, 10, True)
    assert failures_over(records, parse_max_failures("20%")) == (2, 10, False)
    assert failures_over(records, parse_max_failures("19.5%")) == (2, 10, True)
    for bad in ("x", "1.5", "-2", "101%", ""):
        with pytest.raises(ConfigError, match="--max-failures: bad limit"):
            parse_max_failures(bad)


def test_metadata_record_and_the_settings_that_must_agree():
    meta = run_metadata(
        url="http://h/v1",
        model="m",
        endpoint="chat",
        flags={"rate": [1.0, math.inf], "extra_body": {"a": 1}, "warmup": 2},
        dataset={"name": "sharegpt", "path": "/data/sg.json", "sha256": "ab" * 32, "prompts": 9},
        seed=4,
        tokenizer="cl100k_base",
        steps=[{"rate": 1.0}, {"rate": "inf"}],
        start_time=86400.0,
    )
    assert meta["record"] == "metadata" and meta["start_time"] == "1970-01-02T00:00:00Z"
    assert meta["flags"] == {"rate": '[1.0, "inf"]', "extra_body": '{"a": 1}', "warmup": 2}
    json.dumps(meta, allow_nan=False)  # plain JSON, no inf
    settings = run_settings(meta)
    assert set(settings) == {"url", "model", "endpoint", "flags", "dataset", "tokenizer"}
    assert settings["dataset"] == {"name": "sharegpt", "sha256": "ab" * 32}
    line = describe_run(meta)
    assert "model m at http://h/v1 (chat)" in line and "seed 4" in line
    assert "tokenizer cl100k_base" in line and "sharegpt /data/sg.json" in line


def test_prompt_content_of_messages():
    prompt = Prompt(messages=({"role": "user", "content": [{"type": "text", "text": "ab"}]},))
    assert prompt.content() == "ab" and prompt.estimated_tokens() == 1


# command-line errors --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (["--rate", "1,x,inf"], "bad value 'x' in '1,x,inf'"),
        (["--rate", "1,0"], "bad value '0' in '1,0': expected a finite number > 0"),
        (["--concurrency", "1,4,0"], "bad value '0' in '1,4,0'"),
        (["--rate", "2", "--burstiness", "0"], "--burstiness: expected a finite number > 0"),
        (["--rate", "2", "--burstiness", "-1"], "--burstiness: expected a finite number > 0"),
        (["--extra-body", "[1]"], "--extra-body: expected a JSON object"),
        (["--extra-body", "{"], "--extra-body: expected a JSON object"),
        (["--temperature", "-1"], "--temperature: expected a finite number >= 0"),
        (["--warmup", "-1"], "--warmup: expected a whole number >= 0"),
        (["--max-failures", "lots"], "--max-failures: bad limit; got 'lots'"),
        (["--tokenizer", "/no/such/tokenizer.json"], "no tokenizer file or tiktoken encoding"),
        (["--max-concurrency", "4"], "max_concurrency shapes an open loop; expected a rate"),
        (["--concurrency", "2", "--burstiness", "0.5"], "burstiness shapes an open loop"),
    ],
)
def test_cli_bad_load_options(tmp_path, capsys, extra, expected):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hi"}\n', encoding="utf-8")
    args = ["loadtest", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--prompts", str(prompts)]
    assert main([*args, *extra]) == 2
    assert expected in capsys.readouterr().err


@pytest.mark.parametrize(
    ("dataset", "expected"),
    [
        (["sharegpt"], "the sharegpt dataset needs a file"),
        (["random", "x.json"], "the random dataset reads no file"),
        (["jsonl", "a", "b"], "--dataset: too many values"),
        (["squad"], "unknown dataset; got 'squad'"),
    ],
)
def test_cli_bad_datasets(capsys, dataset, expected):
    args = ["loadtest", "--url", "http://127.0.0.1:9/v1", "--model", "m", "--dataset", *dataset]
    assert main(args) == 2
    assert expected in capsys.readouterr().err


def test_cli_bad_sharegpt_file(tmp_path, capsys):
    path = tmp_path / "sg.json"
    path.write_text('[{"conversations": [{"from": "human", "value": "a"}]}, 5]', encoding="utf-8")
    args = ["loadtest", "--url", "http://127.0.0.1:9/v1", "--model", "m"]
    assert main([*args, "--dataset", "sharegpt", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"scorekit: {path}, record 1: not a ShareGPT conversation; got 5")
