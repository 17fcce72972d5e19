"""What the load generator puts on the wire and in its records: user strings that try to add
a header line, secrets in the URL, absurd workload sizes, and a tokenizer directory
without a tokenizer.

The server here (:class:`RecordingServer`) is a plain threaded TCP server on 127.0.0.1
that keeps the raw bytes of every request it reads, so that a header line added by a
user string shows as it was sent. ``scorekit loadtest`` runs as a child process under
the limits of hostile.py.
"""

from __future__ import annotations

import base64
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from raw_server import RawServer

from hostile import assert_clean_error, scorekit, write
from scorekit.errors import ConfigError
from scorekit.loadtest import redact_url, run_loadtest
from scorekit.loadtest._http import Pool, UnsafeRequest

INJECTED = "\r\nX-Injected: 1"
"""A string that, written as it is in a request's head, ends a line and adds a header."""


def _answer() -> bytes:
    events = [
        {"choices": [{"delta": {"content": "ok"}}]},
        {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}},
    ]
    body = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return (head + body).encode()


class RecordingServer(RawServer):
    """A raw server answering each request with a minimal valid event stream (one token,
    usage, ``[DONE]``) and keeping the bytes of each request."""

    def __init__(self) -> None:
        super().__init__(lambda _: _answer())

    def header_names(self) -> list[bytes]:
        """The lower-cased names of every header line received, in all requests."""
        return [
            line.partition(b":")[0].strip().lower() for head in self.heads() for line in head[1:]
        ]


@pytest.fixture
def server() -> Iterator[RecordingServer]:
    srv = RecordingServer()
    yield srv
    srv.close()


def _prompts(tmp_path: Path) -> Path:
    return write(tmp_path / "prompts.jsonl", [json.dumps({"prompt": "hi"})])


def _loadtest(url: str, prompts: Path, *args: str | Path, model: str = "m") -> list[str | Path]:
    return ["loadtest", "--url", url, "--model", model, "--prompts", prompts, "--quiet", *args]


# no user string adds a line to a request ---------------------------------------------------


def _injected_url(server: RecordingServer, part: str) -> str:
    place = f"127.0.0.1:{server.port}"
    return {
        "url host": f"http://127.0.0.1{INJECTED}:{server.port}/v1",
        "url port": f"http://{place}{INJECTED}/v1",
        "url path": f"http://{place}/v1{INJECTED}",
        "url query": f"http://{place}/v1?api-version=1{INJECTED}",
        "url userinfo": f"http://user:pw{INJECTED}@{place}/v1",
    }[part]


@pytest.mark.parametrize(
    "field", ["api key", "url host", "url port", "url path", "url query", "url userinfo"]
)
def test_header_injection_is_refused_before_any_connection(
    tmp_path: Path, server: RecordingServer, field: str
):
    """[inject] CR LF in the API key or in any part of the URL: refused, no connection made."""
    url, extra = server.url, []
    if field == "api key":
        extra = ["--api-key", "abc" + INJECTED]
        flag = "--api-key"
    else:
        url = _injected_url(server, field)
        flag = "--url"
    proc = scorekit(*_loadtest(url, _prompts(tmp_path), *extra), timeout=30)
    assert_clean_error(proc, flag, "carriage return (CR)")
    assert sum(line.startswith("scorekit:") for line in proc.stderr.splitlines()) == 1
    assert server.connections == 0
    if field == "api key":
        assert "abc" not in proc.stderr  # the key itself is never shown


def test_model_with_crlf_reaches_only_the_json_body(tmp_path: Path, server: RecordingServer):
    """[inject] CR LF in --model: sent JSON-escaped in the body, never as a line of the head."""
    out = tmp_path / "records.jsonl"
    model = "m" + INJECTED
    proc = scorekit(*_loadtest(server.url, _prompts(tmp_path), "--out", out, model=model))
    assert proc.returncode == 0, proc.stderr
    assert len(server.received) == 2  # the pre-flight request, then the measured one
    assert b"x-injected" not in server.header_names()
    for received, head in zip(server.received, server.heads(), strict=True):
        assert b"\r\nX-Injected" not in received
        body = received.split(b"\r\n\r\n", 1)[1]
        assert json.loads(body)["model"] == model
        assert head[0] == b"POST /v1/chat/completions HTTP/1.1"


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ("a\x00b", "NUL"),
        ("a\nb", "line feed (LF)"),
        ("a\tb", "tab"),
        ("a\x7fb", "DEL"),
        ("a\x0bb", "U+000B"),
        ("a\u2028b", "U+2028, not ASCII"),
        ("a\u00e9b", "U+00E9, not ASCII"),
    ],
)
def test_control_characters_in_the_api_key(server: RecordingServer, value: str, named: str):
    """[inject] NUL, LF, tab, DEL, other controls and non-ASCII in the API key (through the
    Python API, as argv holds no NUL): refused by name and place, no connection made."""
    with pytest.raises(ConfigError, match="api_key") as caught:
        run_loadtest(server.url, "m", ["hi"], api_key=value, num_requests=1, progress=False)
    assert f"{named} at character 2" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert server.connections == 0


@pytest.mark.parametrize(
    ("tail", "named"),
    [
        ("/v1\x00", "NUL"),
        ("/v 1", "a space"),
        ("/v1\t", "tab"),
        ("/v1?q=\x7f", "DEL"),
        ("/v1\u00a0", "U+00A0"),
    ],
)
def test_control_characters_in_the_url(server: RecordingServer, tail: str, named: str):
    """[inject] NUL, a space, tab, DEL or a Unicode space in the URL: refused, no connection."""
    url = f"http://127.0.0.1:{server.port}{tail}"
    with pytest.raises(ConfigError, match=r"the url \(--url\) holds") as caught:
        run_loadtest(url, "m", ["hi"], num_requests=1, progress=False)
    assert named in str(caught.value)
    assert server.connections == 0


def test_the_client_never_writes_a_broken_head():
    """[inject] The HTTP client itself refuses a header or target that would add a line."""
    pool = Pool("http://127.0.0.1:9/v1")
    assert pool._request("/v1/x?a=1", b"{}", {"Authorization": "Bearer k"}).startswith(
        b"POST /v1/x?a=1 HTTP/1.1\r\n"
    )
    for target, headers in [
        ("/v1" + INJECTED, {}),
        ("/v 1", {}),
        ("/v1", {"Authorization": "Bearer k" + INJECTED}),
        ("/v1", {"Authorization": "Bearer k\x00"}),
        ("/v1", {"X-Injected: 1\r\nA": "b"}),
    ]:
        with pytest.raises(UnsafeRequest):
            pool._request(target, b"{}", headers)


def test_non_ascii_url_path_is_percent_encoded(tmp_path: Path, server: RecordingServer):
    """[inject] A path outside ASCII is sent percent-encoded in the request line."""
    url = f"http://127.0.0.1:{server.port}/v\u00e9"
    proc = scorekit(*_loadtest(url, _prompts(tmp_path)))
    assert proc.returncode == 0, proc.stderr
    assert server.heads()[0][0] == b"POST /v%C3%A9/chat/completions HTTP/1.1"


@pytest.mark.parametrize(
    ("url", "fragment"),
    [
        ("http://[::1/v1", "bad url (--url): Invalid IPv6 URL"),
        ("http://a..b/v1", "bad host in the url (--url)"),
        ("http://" + "a" * 64 + ".com/v1", "bad host in the url (--url)"),
        ("http://xn--/v1", "bad url (--url)"),
        ("http://h:99999/v1", "bad port in the url (--url)"),
    ],
)
def test_unusable_url_is_a_clear_error(tmp_path: Path, url: str, fragment: str):
    """[crash] A URL that cannot be parsed, or whose host no name lookup takes: a clear
    error naming --url, not a traceback."""
    proc = scorekit(*_loadtest(url, _prompts(tmp_path)), timeout=30)
    assert_clean_error(proc, fragment)


# secrets in the URL ------------------------------------------------------------------------

SECRETS = ("PW-SECRET", "Q-SECRET", "T-SECRET", "S-SECRET")


def test_secrets_in_the_url_stay_out_of_the_records(tmp_path: Path, server: RecordingServer):
    """[lost] A password and secret query values in --url: sent, but hidden in the records
    file's metadata and in every line printed."""
    out = tmp_path / "records.jsonl"
    place = f"127.0.0.1:{server.port}"
    query = "api_key=Q-SECRET&access_token=T-SECRET&sig=S-SECRET&api-version=2024"
    url = f"http://alice:PW-SECRET@{place}/v1?{query}"
    report = tmp_path / "report.html"
    proc = scorekit(*_loadtest(url, _prompts(tmp_path), "--out", out, "--report", report))
    assert proc.returncode == 0, proc.stderr
    html = report.read_text(encoding="utf-8")
    assert f"http://alice:***@{place}/v1?api_key=***" in html
    text = out.read_text(encoding="utf-8")
    meta = json.loads(text.splitlines()[0])
    assert meta["url"] == (
        f"http://alice:***@{place}/v1?api_key=***&access_token=***&sig=***&api-version=2024"
    )
    for secret in SECRETS:
        assert secret not in text
        assert secret not in proc.stdout + proc.stderr
        assert secret not in html
    # what the user asked for still reaches the server: the query after the path, and
    # the URL's user and password as Basic authorization
    heads = server.heads()
    assert len(heads) == 2  # the pre-flight request, then the measured one
    basic = base64.b64encode(b"alice:PW-SECRET")
    for head in heads:
        assert head[0] == f"POST /v1/chat/completions?{query} HTTP/1.1".encode()
        assert b"Authorization: Basic " + basic in head
    shown = scorekit("throughput", out)
    assert shown.returncode == 0, shown.stderr
    for secret in SECRETS:
        assert secret not in shown.stdout + shown.stderr


def test_secrets_in_the_url_stay_out_of_the_preflight_error(tmp_path: Path):
    """[silent] The pre-flight failure names the URL with its secrets hidden."""
    with socket.create_server(("127.0.0.1", 0)) as sock:
        port = sock.getsockname()[1]  # closed below: nothing listens there
    url = f"http://bob:PW-SECRET@127.0.0.1:{port}/v1?key=Q-SECRET&n=1"
    proc = scorekit(*_loadtest(url, _prompts(tmp_path), "--warmup", "1", "--timeout", "5"))
    assert_clean_error(
        proc, f"the pre-flight request to http://127.0.0.1:{port}/v1/chat/completions?key=***&n=1"
    )
    for secret in SECRETS:
        assert secret not in proc.stderr + proc.stdout


@pytest.mark.parametrize(
    "url",
    [
        "ftp://TOKEN-SECRET@host/v1",
        "http://u:PW-SECRET@127.0.0.1:99999/v1",
        "http://u:PW-SECRET@127.0.0.1:1/v1?token=T-SECRET\r\nX: 1",
    ],
)
def test_secrets_in_a_bad_url_stay_out_of_its_error(tmp_path: Path, url: str):
    """[silent] A refused --url is shown in its error with its secrets hidden."""
    proc = scorekit(*_loadtest(url, _prompts(tmp_path)), timeout=30)
    assert_clean_error(proc, "--url" if "99999" not in url else "port", "***")
    assert "SECRET" not in proc.stderr


# absurd workload sizes ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--input-len", "100000000"], "input_len (--input-len) too large; got 100000000"),
        (["--num-prompts", "100000000"], "num_prompts (--num-prompts) too large; got 100000000"),
        (["--output-len", "100000000"], "output_len (--output-len) too large"),
        (["--num-prompts", "1000000"], "too many prompt tokens (--num-prompts times --input-len)"),
        (["--num-prompts", "10000"], "got 10,000 prompts of up to 1,024 tokens, 10,240,000 in all"),
    ],
)
def test_absurd_random_workloads_are_refused_at_once(
    server: RecordingServer, args: list[str], fragment: str
):
    """[hang] --input-len or --num-prompts past their ceilings: a clear error, no prompt made."""
    command = ["loadtest", "--url", server.url, "--model", "m", "--dataset", "random", *args]
    proc = scorekit(*command, timeout=20)
    assert_clean_error(proc, fragment)
    assert server.connections == 0


def test_absurd_num_prompts_of_a_file_is_refused(tmp_path: Path, server: RecordingServer):
    """[hang] --num-prompts 100,000,000 over a one-line file: refused, not cycled to it."""
    proc = scorekit(*_loadtest(server.url, _prompts(tmp_path), "--num-prompts", "100000000"))
    assert_clean_error(proc, "--num-prompts", "at most 10,000,000")
    assert server.connections == 0


# a tokenizer directory without a tokenizer -------------------------------------------------


@pytest.mark.parametrize("relative", [False, True])
def test_empty_tokenizer_directory(tmp_path: Path, server: RecordingServer, relative: bool):
    """[silent] An empty --tokenizer directory is named as holding no tokenizer, whether
    given by a relative name (which could be a tiktoken encoding) or a path."""
    folder = tmp_path / "tok"
    folder.mkdir()
    name = "tok" if relative else str(folder)
    prompts = _prompts(tmp_path)
    proc = scorekit(*_loadtest(server.url, prompts, "--tokenizer", name), cwd=tmp_path)
    assert_clean_error(proc, f"scorekit: {name}: the --tokenizer directory holds no tokenizer")
    assert "tokenizer.json" in proc.stderr
    assert "tiktoken package" not in proc.stderr
    assert server.connections == 0


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://h/v1?api-version=2024-01&n=1", "http://h/v1?api-version=2024-01&n=1"),
        ("http://u:p@h/v1", "http://u:***@h/v1"),
        ("http://TOKEN@h/v1", "http://***@h/v1"),
        ("http://u:@h/v1", "http://***@h/v1"),
        ("http://h/v1?key=&n=1", "http://h/v1?key=&n=1"),
        ("http://h/v1?key=K", "http://h/v1?key=***"),
        (
            "http://h/v1?Signature=S&X-Amz-Credential=C",
            "http://h/v1?Signature=***&X-Amz-Credential=***",
        ),
        ("http://h/v1?api%5Fkey=K&PASSWORD=P", "http://h/v1?api%5Fkey=***&PASSWORD=***"),
        ("http://h/v1#access_token=T", "http://h/v1#access_token=***"),
        ("https://u:p@[::1]:8443/v1?session=S", "https://u:***@[::1]:8443/v1?session=***"),
    ],
)
def test_redact_url(url: str, shown: str):
    """[lost] The URL as recorded hides each kind of secret and keeps everything else."""
    assert redact_url(url) == shown
