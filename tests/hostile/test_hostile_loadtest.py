"""The load generator against a loopback server that misbehaves, and hostile prompt and out files.

The server (tests/openai_server.py) runs in this process; ``scorekit loadtest`` runs
as a child process under the time and memory limits of hostile.py.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT
from hostile import assert_clean_error, scorekit, write
from openai_server import OpenAIServer

SLOW = "ttft=0.02 interval=0.1"
"""A prompt answered with a token every 0.1 s: ten tokens take a second."""


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    srv = OpenAIServer(ttft=0.0, interval=0.0).start()
    yield srv
    srv.stop()


def _prompts(tmp_path: Path, *prompts: str) -> Path:
    return write(tmp_path / "prompts.jsonl", [json.dumps({"prompt": p}) for p in prompts])


def _loadtest(server: OpenAIServer, prompts: Path, *args: str | Path) -> list[str | Path]:
    return ["loadtest", "--url", server.url, "--model", "m", "--prompts", prompts, *args]


def _records(path: Path) -> list[dict]:
    """The request records of a records file, after its metadata record."""
    meta, *records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert meta["record"] == "metadata"
    return records


def _start(command: list[str | Path]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "scorekit", *map(str, command)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, NO_COLOR="1"),
    )


def _when_lines(path: Path, count: int, child: subprocess.Popen[str]) -> None:
    """Wait until ``path`` holds ``count`` records after its metadata record (or the child
    ended, or 30 s passed)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and child.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= count + 1:
            return
        time.sleep(0.02)
    raise AssertionError(f"{path} never held {count} records")


def _finish(child: subprocess.Popen[str]) -> tuple[str, str]:
    try:
        return child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()


# records written as requests end, and kept on SIGTERM or a kill ---------------------------


def test_sigterm_mid_run_writes_records_and_exits_143(tmp_path: Path, server: OpenAIServer):
    """[lost] SIGTERM in the middle of a run: every record written, sorted, status 143."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, SLOW)
    options = ["--concurrency", "3", "--num-requests", "60", "--max-tokens", "4", "--out", out]
    child = _start(_loadtest(server, prompts, *options))
    # records reach the file while the run goes on, before any signal
    _when_lines(out, 3, child)
    assert child.poll() is None
    child.send_signal(signal.SIGTERM)
    stdout, stderr = _finish(child)
    assert child.returncode == 143, stderr
    records = _records(out)
    assert 3 <= len(records) < 60
    assert [r["id"] for r in records] == list(range(len(records)))
    assert records[0]["warmup"] is True  # the pre-flight request, sent by default
    measured = records[1:]
    cancelled = [r for r in measured if r["error"] == "cancelled"]
    assert 1 <= len(cancelled) <= 3  # those in flight (one may have just ended)
    assert all(r["success"] for r in records if r not in cancelled)
    told = f"scorekit: terminated; {len(measured)} requests recorded, and 1 warm-up request"
    assert told in stderr
    assert stdout.startswith(f"requests                        {len(measured)} (")
    assert "Traceback" not in stderr


def test_kill_mid_run_keeps_the_records_of_ended_requests(tmp_path: Path, server: OpenAIServer):
    """[lost] SIGKILL in the middle of a run loses only the requests in flight."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, SLOW)
    options = ["--concurrency", "2", "--num-requests", "40", "--max-tokens", "3", "--out", out]
    child = _start(_loadtest(server, prompts, *options))
    _when_lines(out, 4, child)
    assert child.poll() is None  # the records came before the end of the run
    child.kill()
    _finish(child)
    records = _records(out)  # every line is a whole record
    assert len(records) >= 4
    assert all(r["success"] for r in records)
    assert len({r["id"] for r in records}) == len(records)


def test_a_second_sigterm_ends_at_once_with_the_records_so_far(
    tmp_path: Path, server: OpenAIServer
):
    """[lost] Two SIGTERMs: the process ends and the records of ended requests stay."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, SLOW, "mode=stall_tokens")
    options = ["--concurrency", "2", "--num-requests", "40", "--max-tokens", "3", "--out", out]
    options += ["--timeout", "60"]
    child = _start(_loadtest(server, prompts, *options))
    _when_lines(out, 2, child)
    child.send_signal(signal.SIGTERM)
    child.send_signal(signal.SIGTERM)
    _finish(child)
    assert child.returncode in (143, -signal.SIGTERM)
    records = _records(out)  # every line is a whole record
    assert sum(r["success"] for r in records) >= 2


# --out checked before anything is sent ----------------------------------------------------


def test_out_is_a_directory(tmp_path: Path, server: OpenAIServer):
    """[lost] An --out that is a directory is refused before any request is sent."""
    proc = scorekit(*_loadtest(server, _prompts(tmp_path, "hi"), "--out", tmp_path))
    assert_clean_error(proc, f"scorekit: {tmp_path}: is a directory")
    assert server.requests == []


@pytest.mark.parametrize("parent", ["missing", "a_file"])
def test_out_in_a_missing_directory(tmp_path: Path, server: OpenAIServer, parent: str):
    """[lost] An --out under a missing directory (or under a file) is refused at once."""
    (tmp_path / "a_file").write_text("x")
    out = tmp_path / parent / "records.jsonl"
    proc = scorekit(*_loadtest(server, _prompts(tmp_path, "hi"), "--out", out))
    assert_clean_error(proc, f"scorekit: {out}: ")
    assert "no such directory" in proc.stderr or "cannot write" in proc.stderr
    assert server.requests == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only files and directories")
def test_out_not_writable(tmp_path: Path, server: OpenAIServer):
    """[lost] An --out that cannot be written is refused before any request is sent."""
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    out = locked / "records.jsonl"
    try:
        proc = scorekit(*_loadtest(server, _prompts(tmp_path, "hi"), "--out", out))
    finally:
        locked.chmod(0o700)
    assert_clean_error(proc, f"scorekit: {out}: cannot write")
    assert server.requests == []


@pytest.mark.parametrize("how", ["same path", "hard link", "symbolic link"])
def test_out_onto_the_prompts_file(tmp_path: Path, server: OpenAIServer, how: str):
    """[lost] --out naming the prompts file (by any name) is refused; the prompts stay."""
    prompts = _prompts(tmp_path, "hi")
    before = prompts.read_bytes()
    out = prompts
    if how == "hard link":
        out = tmp_path / "linked.jsonl"
        os.link(prompts, out)
    elif how == "symbolic link":
        out = tmp_path / "symlinked.jsonl"
        out.symlink_to(prompts)
    proc = scorekit(*_loadtest(server, prompts, "--out", out))
    assert_clean_error(proc, f"scorekit: {out}: the same file as the prompts file {prompts}")
    assert prompts.read_bytes() == before
    assert server.requests == []


def test_out_to_a_device_is_written_in_place(tmp_path: Path, server: OpenAIServer):
    """[lost] --out onto a character device writes into it and never replaces it."""
    if os.geteuid() != 0:
        pytest.skip("making a device file needs root")
    device = tmp_path / "null"
    os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a second /dev/null
    prompts = _prompts(tmp_path, "ttft=0 interval=0")
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "3", "--out", device))
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISCHR(device.stat().st_mode)
    assert set(os.listdir(tmp_path)) == {"null", "prompts.jsonl"}


def test_out_to_a_fifo_streams_records(tmp_path: Path, server: OpenAIServer):
    """[lost] --out onto a FIFO with a reader: the records go through it, the FIFO stays."""
    fifo = tmp_path / "records.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as handle:
            received.append(handle.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    prompts = _prompts(tmp_path, "ttft=0 interval=0")
    proc = scorekit(*_loadtest(server, prompts, "--num-requests", "3", "--out", fifo))
    reader.join(10)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    meta, *lines = received[0].decode().splitlines()
    assert json.loads(meta)["record"] == "metadata"
    # the pre-flight request (id 0, a warm-up) and the three measured requests
    assert sorted(json.loads(line)["id"] for line in lines) == [0, 1, 2, 3]
    assert [json.loads(line).get("warmup", False) for line in lines].count(True) == 1


def test_out_to_a_fifo_without_reader(tmp_path: Path, server: OpenAIServer):
    """[hang] --out onto a FIFO that nobody reads is an error, not a wait for ever."""
    fifo = tmp_path / "records.fifo"
    os.mkfifo(fifo)
    proc = scorekit(*_loadtest(server, _prompts(tmp_path, "hi"), "--out", fifo), timeout=30)
    assert_clean_error(proc, f"scorekit: {fifo}: is a FIFO or socket that no process reads")
    assert server.requests == []


# a server that answers with hostile data --------------------------------------------------


def _run_against(server: OpenAIServer, tmp_path: Path, hostile: str, *args: str) -> list[dict]:
    """Run two requests, the first answered in the ``hostile`` way; return the records."""
    out = tmp_path / "records.jsonl"
    prompts = _prompts(tmp_path, hostile, "ttft=0 interval=0")
    proc = scorekit(
        *_loadtest(server, prompts, "--concurrency", "2", "--max-tokens", "4"),
        "--warmup",
        "0",
        "--out",
        out,
        "--timeout",
        "20",
        *args,
        timeout=40,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    records = _records(out)
    assert [r["id"] for r in records] == [0, 1]
    assert records[1]["success"] and records[1]["output_tokens"] == 4
    return records


def test_deeply_nested_http_error_body(tmp_path: Path, server: OpenAIServer):
    """[crash] An HTTP 500 whose JSON body nests 100,000 deep is a failed request."""
    first, _ = _run_against(server, tmp_path, "mode=deep500 size=100000")
    assert first["success"] is False
    assert first["error"] == "http 500: " + "[" * 197 + "..."


def test_deeply_nested_stream_event(tmp_path: Path, server: OpenAIServer):
    """[crash] One stream event whose JSON nests 100,000 deep is a failed request."""
    first, _ = _run_against(server, tmp_path, "mode=deep_event size=100000")
    assert first["success"] is False
    assert first["error"].startswith("malformed stream: invalid JSON (nested too deeply) in ")
    assert len(first["token_times"]) == 2  # the tokens before it are kept


def test_huge_number_in_stream_event(tmp_path: Path, server: OpenAIServer):
    """[crash] A stream event with a 5,000-digit number is a failed request."""
    first, _ = _run_against(server, tmp_path, "mode=digits_event size=5000")
    assert first["error"].startswith(
        "malformed stream: invalid JSON (a number of more than 4300 digits) in "
    )


def test_event_too_large(tmp_path: Path, server: OpenAIServer):
    """[hang] One event longer than --max-event-size fails its request as too large."""
    first, _ = _run_against(
        server, tmp_path, "mode=big_event size=3000000", "--max-event-size", "1M"
    )
    assert first["success"] is False
    assert first["error"] == "event too large: an event passed --max-event-size (1048576 bytes)"


def test_large_event_under_the_limit(tmp_path: Path, server: OpenAIServer):
    """[hang] An event of 3 MB under a 4 MB limit is read whole: one more token."""
    first, _ = _run_against(
        server, tmp_path, "mode=big_event size=3000000", "--max-event-size", "4M"
    )
    assert first["success"] is True
    assert len(first["token_times"]) == 5


def test_stream_ends_inside_an_event(tmp_path: Path, server: OpenAIServer):
    """[silent] A stream cut in the middle of an event is a truncated stream."""
    first, _ = _run_against(server, tmp_path, "mode=big_cut size=200000")
    assert first["error"] == "truncated stream"


def test_bad_max_event_size(tmp_path: Path, server: OpenAIServer):
    """[crash] A --max-event-size that is not a size is a clear error."""
    proc = scorekit(*_loadtest(server, _prompts(tmp_path, "hi"), "--max-event-size", "big"))
    assert_clean_error(proc, "scorekit: --max-event-size: not a size")
    assert server.requests == []


# hostile prompts files --------------------------------------------------------------------


def _refused(server: OpenAIServer, prompts: Path | str, *fragments: str, args=()) -> None:
    proc = scorekit(*_loadtest(server, Path(prompts), *args), timeout=30)
    assert_clean_error(proc, *fragments)
    assert server.requests == []


def test_prompts_from_dev_zero(server: OpenAIServer):
    """[hang] /dev/zero as the prompts file is refused, not read for ever."""
    _refused(server, "/dev/zero", "scorekit: /dev/zero: is a device, not a regular file")


def test_prompts_from_a_fifo(tmp_path: Path, server: OpenAIServer):
    """[hang] A FIFO as the prompts file is refused, not waited on."""
    fifo = tmp_path / "prompts.fifo"
    os.mkfifo(fifo)
    _refused(server, fifo, f"scorekit: {fifo}: is a FIFO, not a regular file")


def test_prompts_gzip_bomb(tmp_path: Path, server: OpenAIServer):
    """[memory] A gzip bomb as the prompts file stops at the size limit."""
    bomb = tmp_path / "prompts.jsonl.gz"
    line = json.dumps({"prompt": "x" * 1000}).encode() + b"\n"
    bomb.write_bytes(gzip.compress(line * 20_000))  # 20 MB once decompressed
    _refused(
        server,
        bomb,
        f"scorekit: {bomb}: file too large (more than 1048576 bytes once decompressed)",
        args=("--max-file-size", "1M"),
    )


def test_prompts_nested_100000_deep(tmp_path: Path, server: OpenAIServer):
    """[crash] A prompt line nested 100,000 deep is invalid JSON at its line."""
    path = write(
        tmp_path / "p.jsonl",
        ['{"prompt": "a"}', '{"prompt": "b", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"],
    )
    _refused(server, path, f"scorekit: {path}, line 2: invalid JSON; got nested too deeply")


def test_prompts_nested_under_pythons_limit(tmp_path: Path, server: OpenAIServer):
    """[crash] A prompt nested 900 deep (readable, but not sendable) is refused at its line."""
    content = "[" * 900 + "]" * 900
    line = json.dumps({"messages": [{"role": "u", "content": "CONTENT"}]})
    path = write(tmp_path / "p.jsonl", [line.replace('"CONTENT"', content)])
    _refused(server, path, f"scorekit: {path}, line 1: prompt nested too deeply")


def test_prompts_with_a_5000_digit_number(tmp_path: Path, server: OpenAIServer):
    """[crash] A 5,000-digit max_tokens is invalid JSON at its line, not a ValueError."""
    path = write(tmp_path / "p.jsonl", ['{"prompt": "a", "max_tokens": ' + "9" * 5000 + "}"])
    _refused(
        server,
        path,
        f"scorekit: {path}, line 1: invalid JSON; got a number of more than 4300 digits",
    )
