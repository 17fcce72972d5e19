"""What the load generator prints and records must not mislead: token counts that were
estimated, the pre-flight request, the time left, a second Ctrl-C, and the failure reason
of a compressed stream.

The servers run in this process (tests/openai_server.py, and a raw socket server here
for answers OpenAIServer never gives); ``scorekit loadtest`` runs as a child process
under the time and memory limits of hostile.py, or from the Python API where the case
is about one function.
"""

from __future__ import annotations

import gzip
import html
import io
import json
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from raw_server import RawServer
from test_hostile_loadtest import SLOW, _finish, _loadtest, _prompts, _records, _start, _when_lines

from hostile import scorekit, write
from openai_server import OpenAIServer
from scorekit.loadtest import Step
from scorekit.loadtest._runner import Runner


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    srv = OpenAIServer(ttft=0.0, interval=0.0).start()
    yield srv
    srv.stop()


# token counts that were estimated ------------------------------------------------------------

ESTIMATE = "an estimate (prompt characters / 4, output text chunks)"


def test_estimated_token_counts_are_flagged_in_the_report(tmp_path: Path, server: OpenAIServer):
    """[silent] Token counts estimated (no usage from the server, no tokenizer) are flagged
    next to the token figures, with what counted the rest: in the table, in JSON, and in
    ``scorekit throughput`` of the records file."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, "ttft=0 a b c", "mode=no_usage hello there")
    options = ["--num-requests", "4", "--max-tokens", "3", "--out", out]
    proc = scorekit(*_loadtest(server, prompts, *options))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[2].startswith("prompt tokens ") and lines[2].endswith(
        " (estimated for 2 of 4 requests)"
    )
    assert lines[3].startswith("output tokens                   12 (estimated for 2 of 4 ")
    assert lines[4] == f"  counted by                    the server's usage for 2; {ESTIMATE} for 2"
    records = _records(out)
    assert [r["token_counter"] for r in records if not r.get("warmup")] == [
        "usage",
        "estimate",
        "usage",
        "estimate",
    ]
    as_json = scorekit(*_loadtest(server, prompts, *options[:4], "--format", "json"))
    counts = json.loads(as_json.stdout)["token_counts"]
    assert counts == {
        "requests": 4,
        "estimated": 2,
        "counted_by": {"usage": 2, "estimate": 2},
        "tokenizer": None,
    }
    shown = scorekit("throughput", out)
    assert shown.returncode == 0, shown.stderr
    assert "output tokens                   12 (estimated for 2 of 4 requests)" in shown.stdout


def test_estimated_token_counts_of_a_sweep(tmp_path: Path, server: OpenAIServer):
    """[silent] A sweep's table says under it how many requests had estimated counts."""
    prompts = _prompts(tmp_path, "mode=no_usage hello there")
    options = ["--num-requests", "2", "--concurrency", "1,2", "--pause", "0"]
    proc = scorekit(*_loadtest(server, prompts, *options))
    assert proc.returncode == 0, proc.stderr
    assert f"token counts: estimated for 4 of 4 requests, counted by {ESTIMATE} for 4\n" in (
        proc.stdout
    )


def test_counts_from_the_server_or_a_tokenizer_are_named(tmp_path: Path, server: OpenAIServer):
    """[silent] No estimate: the report says so, and names the tokenizer that counted."""
    prompts = _prompts(tmp_path, "ttft=0 a b c")
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "2", "--max-tokens", "3"))
    assert "output tokens                   6 (estimated for 0 of 2 requests)" in proc.stdout
    assert "  counted by                    the server's usage for 2\n" in proc.stdout
    tokenizers = pytest.importorskip("tokenizers")
    vocab = {"[UNK]": 0, "hello": 1, "there": 2}
    model = tokenizers.Tokenizer(tokenizers.models.WordLevel(vocab, unk_token="[UNK]"))
    model.pre_tokenizer = tokenizers.pre_tokenizers.Whitespace()
    path = tmp_path / "tokenizer.json"
    model.save(str(path))
    prompts = _prompts(tmp_path, "mode=no_usage hello there")
    options = ["--num-requests", "2", "--max-tokens", "3", "--tokenizer", path]
    proc = scorekit(*_loadtest(server, prompts, *options))
    assert proc.returncode == 0, proc.stderr
    # five tokens a prompt: mode, =, no_usage, hello, there
    assert "prompt tokens                   10 (estimated for 0 of 2 requests)" in proc.stdout
    assert f"  counted by                    the tokenizer {path} for 2\n" in proc.stdout


def test_estimated_token_counts_are_flagged_in_the_html_report(
    tmp_path: Path, server: OpenAIServer
):
    """[silent] The HTML report (``--report``) of ``scorekit loadtest`` and of ``scorekit
    throughput`` of its records gives the note the table gives: how many requests had
    their token counts estimated, and what counted the rest."""
    out, page = tmp_path / "records.jsonl", tmp_path / "loadtest.html"
    prompts = _prompts(tmp_path, "ttft=0 a b c", "mode=no_usage hello there")
    options = ["--num-requests", "4", "--max-tokens", "3", "--out", out, "--report", page]
    proc = scorekit(*_loadtest(server, prompts, *options))
    assert proc.returncode == 0, proc.stderr
    note = (
        "Token counts (prompt and output): estimated for 2 of 4 requests; counted by the "
        f"server's usage for 2; {ESTIMATE} for 2."
    )
    assert note in html.unescape(page.read_text(encoding="utf-8"))
    again = tmp_path / "throughput.html"
    shown = scorekit("throughput", out, "--report", again)
    assert shown.returncode == 0, shown.stderr
    assert note in html.unescape(again.read_text(encoding="utf-8"))


def test_throughput_names_the_tokenizer_of_the_records_file(tmp_path: Path):
    """[silent] ``scorekit throughput`` of a records file whose metadata record names the
    tokenizer says which tokenizer counted, as the load test's own report did (its name
    shown with control characters escaped)."""
    from scorekit.loadtest import run_metadata

    rows = [{k: v for k, v in row.items() if k != "tokens_estimated"} for row in _counted_rows()]
    for name, shown in (("cl100k_base", "cl100k_base"), ("tok\x1b[2J", "tok\\x1b[2J")):
        meta = run_metadata(
            url="http://h/v1",
            model="m",
            endpoint="chat",
            flags={},
            dataset={"name": "jsonl"},
            seed=0,
            tokenizer=name,
        )
        path = write(tmp_path / "r.jsonl", [json.dumps(r) for r in [meta, *rows]])
        proc = scorekit("throughput", path)
        assert proc.returncode == 0, proc.stderr
        assert f"; the tokenizer {shown} for 1; " in proc.stdout
        assert "\x1b" not in proc.stdout
        as_json = json.loads(scorekit("throughput", path, "--format", "json").stdout)
        assert as_json["token_counts"]["tokenizer"] == shown


def test_records_without_token_counters_stay_readable(tmp_path: Path):
    """[silent] Records that do not say how tokens were counted (other programs, older
    files) give the report as before, without a claim about estimates."""
    path = write(
        tmp_path / "r.jsonl",
        ['{"prompt_tokens": 5, "output_tokens": 2, "start": 0, "end": 1, "token_times": [0.5, 1]}'],
    )
    proc = scorekit("throughput", path)
    assert proc.returncode == 0, proc.stderr
    assert "output tokens                   2\n" in proc.stdout
    assert "estimated" not in proc.stdout and "counted by" not in proc.stdout
    as_json = json.loads(scorekit("throughput", path, "--format", "json").stdout)
    assert "token_counts" not in as_json


def _counted_rows() -> list[dict[str, object]]:
    base = {
        "prompt_tokens": 4,
        "output_tokens": 2,
        "start": 0.0,
        "end": 1.0,
        "token_times": [0.5, 1.0],
    }
    return [
        {**base, "token_counter": "usage", "tokens_estimated": False, "warmup": True},
        {**base, "token_counter": "usage", "tokens_estimated": False},
        {**base, "token_counter": "estimate", "tokens_estimated": True},
        {**base, "token_counter": "estimate", "tokens_estimated": True, "error": "timeout"},
        {**base, "token_counter": "tokenizer", "tokens_estimated": False},
    ]


@pytest.mark.parametrize("form", ["list", "columns", "arrow", "pandas"])
def test_token_counts_of_any_form_of_records(form: str):
    """[silent] The report counts the successful measured requests by how their tokens
    were counted, whatever form the records take (warm-up and failed requests left out,
    as from the token figures)."""
    import pyarrow as pa

    from scorekit.throughput import format_report, report

    rows = _counted_rows()
    records: object = rows
    columns = {
        key: [row.get(key) for row in rows] for key in dict.fromkeys(k for r in rows for k in r)
    }
    if form == "columns":
        records = columns
    elif form == "arrow":
        records = pa.table(columns)
    elif form == "pandas":
        records = pytest.importorskip("pandas").DataFrame(columns)
    result = report(records)
    assert result.token_counts == {"usage": 1, "tokenizer": 1, "estimate": 1}
    assert result.estimated_requests == 1
    text = format_report(result)
    assert "prompt tokens                   12 (estimated for 1 of 3 requests)" in text


# what the records file and the terminal are given ------------------------------------------


def test_secret_keys_of_extra_body_are_hidden_in_the_metadata(tmp_path: Path, server: OpenAIServer):
    """[lost] Secret-looking keys of ``--extra-body`` (the words of ``redact_url``, in
    nested objects too) had their values written in the records file's metadata; they are
    hidden there, and sent to the server as given. Counts and switches stay."""
    out = tmp_path / "records.jsonl"
    extra = {
        "api_key": "sk-live-123",
        "top_p": 0.9,
        "skip_special_tokens": True,
        "vendor": {"Auth-Token": "tok-456", "region": "eu", "keys": ["k-789"]},
    }
    prompts = _prompts(tmp_path, "ttft=0")
    options = ["--num-requests", "1", "--extra-body", json.dumps(extra), "--out", out]
    proc = scorekit(*_loadtest(server, prompts, *options))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text(encoding="utf-8")
    assert not any(secret in text for secret in ("sk-live-123", "tok-456", "k-789"))
    meta = json.loads(text.splitlines()[0])
    assert json.loads(meta["flags"]["extra_body"]) == {
        "api_key": "***",
        "top_p": 0.9,
        "skip_special_tokens": True,
        "vendor": {"Auth-Token": "***", "region": "eu", "keys": ["***"]},
    }
    assert all(request["body"]["api_key"] == "sk-live-123" for request in server.requests)
    assert all(request["body"]["vendor"] == extra["vendor"] for request in server.requests)


def test_control_characters_of_the_model_are_shown_escaped(tmp_path: Path, server: OpenAIServer):
    """[silent] A model name holding an escape sequence was printed as it is (the terminal
    played it) by ``scorekit throughput`` of the records and in the report's title; it is
    shown escaped there, and sent and recorded as given."""
    model = "m\x1b[31m\r"
    out, page = tmp_path / "records.jsonl", tmp_path / "r.html"
    prompts = _prompts(tmp_path, "ttft=0")
    command = ["loadtest", "--url", server.url, "--model", model, "--prompts", prompts]
    proc = scorekit(*command, "--num-requests", "1", "--out", out, "--report", page)
    assert proc.returncode == 0, proc.stderr
    assert [request["body"]["model"] for request in server.requests] == [model, model]
    assert json.loads(out.read_text(encoding="utf-8").splitlines()[0])["model"] == model
    title = html.unescape(page.read_text(encoding="utf-8"))
    assert "\x1b" not in title and "scorekit loadtest: m\\x1b[31m\\r at " in title
    shown = scorekit("throughput", out)
    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\r" not in shown.stdout
    assert shown.stdout.startswith("load test: model m\\x1b[31m\\r at http://")


# the pre-flight request ----------------------------------------------------------------------


def test_a_failing_server_stops_the_run_at_the_preflight(tmp_path: Path, server: OpenAIServer):
    """[silent] By default one pre-flight request goes first: a server that fails it stops
    the run with its answer (status and message), before any measured request."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, "mode=http500", "ttft=0")
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "20", "--out", out))
    assert proc.returncode == 2, proc.stderr
    assert (
        f"scorekit: loadtest: the pre-flight request to {server.url}/chat/completions failed; "
        "got http 500: model crashed, expected an answer" in proc.stderr
    )
    assert len(server.requests) == 1
    (warm,) = _records(out)
    assert warm["warmup"] is True and warm["error"] == "http 500: model crashed"


def test_the_preflight_is_not_measured_and_warmup_0_sends_none(
    tmp_path: Path, server: OpenAIServer
):
    """[silent] The pre-flight request is left out of the figures; --warmup 0 sends none."""
    prompts = _prompts(tmp_path, "ttft=0")
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "3", "--max-tokens", "2"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("requests                        3 (3 succeeded, 0 failed)")
    assert len(server.requests) == 4
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "3", "--warmup", "0"))
    assert proc.returncode == 0, proc.stderr
    assert len(server.requests) == 4 + 3


# the time left on the progress line ----------------------------------------------------------


def _runner(**options: object) -> Runner:
    settings: dict[str, object] = {
        "endpoint": "chat",
        "steps": [Step(concurrency=1)],
        "max_tokens": 4,
        "duration": None,
        "num_requests": None,
        "timeout": 10.0,
        "seed": 0,
        "progress": True,
        "api_key": None,
        "transport": None,
        "stream": io.StringIO(),
        "max_event_size": 1 << 20,
    }
    settings.update(options)
    return Runner("http://127.0.0.1:1/v1", "m", [], **settings)  # type: ignore[arg-type]


def test_progress_line_gives_the_time_left_of_the_requests():
    """[silent] The progress line tells how long the requests still to finish will take, at the
    rate the finished ones took, after the elapsed time, in the same line."""
    runner = _runner(num_requests=50)
    runner.step0 = time.perf_counter() - 10.0  # 10 s into the step
    assert runner.progress_line().endswith(", ETA ?")  # no rate before a request ends
    runner.done = {i: {"token_times": [], "success": True} for i in range(20)}
    line = runner.progress_line()
    # 20 requests in 10 s: the 30 left take 15 s more
    assert line.startswith("loadtest [########------------] 20/50 done, 0 failed, 0 running, ")
    assert line.endswith(" s, ETA 15 s")


def test_progress_line_gives_the_time_left_of_the_duration():
    """[silent] With --duration the time left is what remains of it (or less, when
    --num-requests ends the run first); long waits are given in minutes or hours."""
    runner = _runner(duration=300.0)
    runner.step0 = time.perf_counter() - 60.0
    assert runner.progress_line().endswith("/300 s, ETA 4 min 00 s")
    both = _runner(duration=300.0, num_requests=20)
    both.step0 = time.perf_counter() - 60.0
    both.done = {i: {"token_times": [], "success": True} for i in range(10)}
    assert both.progress_line().endswith(", ETA 1 min 00 s")
    slow = _runner(num_requests=10_000)
    slow.step0 = time.perf_counter() - 10.0
    slow.done = {0: {"token_times": [], "success": True}}
    assert slow.progress_line().endswith(", ETA 27 h 46 min")


# a second Ctrl-C -----------------------------------------------------------------------------


def test_a_second_ctrl_c_exits_at_once_with_one_line(tmp_path: Path, server: OpenAIServer):
    """[crash] Two SIGINTs: the first stops the run (requests in flight recorded as
    cancelled), the second ends the process at once with status 130, one line, no
    traceback."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, SLOW, "mode=stall_tokens")
    options = ["--concurrency", "2", "--num-requests", "40", "--max-tokens", "3", "--out", out]
    options += ["--timeout", "60", "--warmup", "0"]
    child = _start(_loadtest(server, prompts, *options))
    _when_lines(out, 2, child)
    child.send_signal(signal.SIGINT)
    time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    stdout, stderr = _finish(child)
    detail = f"stdout:\n{stdout}\nstderr:\n{stderr}"
    assert child.returncode == 130, detail
    assert "Traceback" not in stderr, detail
    assert "KeyboardInterrupt" not in stderr, detail
    lines = stderr.splitlines()
    assert all(line.startswith("scorekit: ") for line in lines), detail
    records = _records(out)
    assert sum(r["success"] for r in records) >= 2


# a compressed stream -------------------------------------------------------------------------


def _stream_body() -> bytes:
    events = [
        {"choices": [{"delta": {"content": "ok"}}]},
        {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}},
    ]
    return ("".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n").encode()


class GzipServer(RawServer):
    """A raw server answering every request with a valid event stream compressed with
    gzip (``Content-Encoding: gzip``), whatever the request accepts."""

    def __init__(self) -> None:
        super().__init__(lambda _: _gzip_answer())

    def stop(self) -> None:
        """Stop accepting connections."""
        self.close()


def _gzip_answer() -> bytes:
    body = gzip.compress(_stream_body())
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        f"Content-Encoding: gzip\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    )
    return head.encode() + body


def test_compressed_stream_is_named_as_such(tmp_path: Path):
    """[silent] A server that compresses its event stream (although the client asks for
    identity) fails each request with that reason, not as a truncated stream."""
    gz = GzipServer()
    try:
        out = tmp_path / "records.jsonl"
        prompts = write(tmp_path / "p.jsonl", ['{"prompt": "hi"}'])
        command = ["loadtest", "--url", gz.url, "--model", "m", "--prompts", prompts]
        proc = scorekit(*command, "--num-requests", "2", "--warmup", "0", "--out", out)
    finally:
        gz.stop()
    reason = (
        "the server compressed the stream (content-encoding gzip), which the client does not accept"
    )
    assert proc.returncode == 3, proc.stderr  # every request failed
    assert [r["error"] for r in _records(out)] == [reason, reason]
    assert f"  failed                        2 x {reason}" in proc.stdout
    assert all(b"Accept-Encoding: identity" in head for head in gz.heads())


def test_compressed_stream_stops_the_preflight(tmp_path: Path):
    """[silent] With the default pre-flight request, a compressing server stops the run
    before it starts, with the reason."""
    gz = GzipServer()
    try:
        prompts = write(tmp_path / "p.jsonl", ['{"prompt": "hi"}'])
        command = ["loadtest", "--url", gz.url, "--model", "m", "--prompts", prompts]
        proc = scorekit(*command, "--num-requests", "5")
    finally:
        gz.stop()
    assert proc.returncode == 2, proc.stderr
    assert "the pre-flight request to " in proc.stderr
    assert "the server compressed the stream (content-encoding gzip)" in proc.stderr
    assert len(gz.heads()) == 1


def _escaping_error() -> bytes:
    body = b'{"error": {"message": "boom\\u001b[2J\\u001b[31m gone\\r\\nX: 1"}}'
    head = (
        "HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


def test_a_server_answer_cannot_drive_the_terminal(tmp_path: Path):
    """[inject] A server's error text with escape sequences and line breaks was printed
    as it came in the pre-flight error and in the failure reasons: it could clear the
    screen or add lines. Both show them escaped; the records keep the text as it came."""
    server = RawServer(lambda _: _escaping_error())
    try:
        out = tmp_path / "records.jsonl"
        prompts = write(tmp_path / "p.jsonl", ['{"prompt": "hi"}'])
        command = ["loadtest", "--url", server.url, "--model", "m", "--prompts", prompts]
        stopped = scorekit(*command, "--num-requests", "2")
        failed = scorekit(*command, "--num-requests", "2", "--warmup", "0", "--out", out)
    finally:
        server.close()
    assert stopped.returncode == 2, stopped.stderr
    assert "the pre-flight request to " in stopped.stderr
    for shown in (stopped.stderr, failed.stdout):
        assert "\x1b" not in shown and "\r" not in shown
        assert "boom\\x1b[2J\\x1b[31m gone" in shown and "\nX: 1" not in shown
    assert failed.returncode == 3, failed.stderr
    assert "\x1b[2J" in _records(out)[0]["error"]
