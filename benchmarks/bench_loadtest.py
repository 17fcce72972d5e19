"""The load generator against a loopback server that answers at once, beside a bare aiohttp loop.

The server (tests/openai_server.py with no delays) runs in a child process, so client
and server each have a core. Each request streams 20 text chunks (and a usage chunk).
``scorekit.loadtest.run_loadtest`` and a bare aiohttp streaming loop (the loop of vLLM's
``benchmark_serving.py``: read each ``data:`` line, parse its JSON, timestamp it) send the
same requests at the same concurrency; the rate is requests per second of the span of
the records. The reference column is the aiohttp loop, so the ratio is scorekit's rate
over aiohttp's (at least 0.8 is the goal; 1 is the same speed). The timestamping cost per
chunk (the clock read and the append) and the whole per-chunk cost of reading an event
(event-stream decoding, JSON, timestamp) are printed beside.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import sys
import time
import timeit
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from _timing import Row

N = 3000
CHUNKS = 20
CONCURRENCY = 32


def _serve(port: Any, ready: Any) -> None:
    from openai_server import OpenAIServer

    server = OpenAIServer(ttft=0.0, interval=0.0).start()
    port.value = server.port
    ready.set()
    while True:
        time.sleep(3600)


def start_server() -> tuple[multiprocessing.Process, str]:
    """The loopback server in a child process, and its URL."""
    context = multiprocessing.get_context("spawn")
    port = context.Value("i", 0)
    ready = context.Event()
    process = context.Process(target=_serve, args=(port, ready), daemon=True)
    process.start()
    if not ready.wait(30):
        raise RuntimeError("the benchmark server did not start")
    return process, f"http://127.0.0.1:{port.value}/v1"


def ours(url: str, n: int) -> tuple[float, int]:
    """Requests per second of ``run_loadtest``, and its successful requests."""
    from scorekit.loadtest import run_loadtest

    records, _ = run_loadtest(
        url,
        "m",
        ["benchmark prompt"],
        concurrency=CONCURRENCY,
        num_requests=n,
        max_tokens=CHUNKS,
        progress=False,
    )
    span = max(r["end"] for r in records) - min(r["start"] for r in records)
    good = [r for r in records if r["success"] and len(r["token_times"]) == CHUNKS]
    return n / span, len(good)


async def _aiohttp_run(url: str, n: int) -> tuple[float, int]:
    import aiohttp

    body = {
        "model": "m",
        "messages": [{"role": "user", "content": "benchmark prompt"}],
        "max_tokens": CHUNKS,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    target = url + "/chat/completions"
    counter = iter(range(n))
    spans: list[tuple[float, float]] = []
    good = 0

    async def worker(session: aiohttp.ClientSession) -> None:
        nonlocal good
        for _ in counter:
            start = time.perf_counter()
            times = []
            async with session.post(target, json=body) as response:
                async for raw in response.content:
                    line = raw.strip()
                    if not line.startswith(b"data:"):
                        continue
                    data = line[5:].strip()
                    if data == b"[DONE]":
                        break
                    chunk = json.loads(data)
                    choices = chunk.get("choices") or []
                    if choices and choices[0].get("delta", {}).get("content"):
                        times.append(time.perf_counter())
            spans.append((start, time.perf_counter()))
            good += len(times) == CHUNKS

    connector = aiohttp.TCPConnector(limit=0)
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
        await asyncio.gather(*(worker(session) for _ in range(CONCURRENCY)))
    span = max(e for _, e in spans) - min(s for s, _ in spans)
    return n / span, good


def bare_aiohttp(url: str, n: int) -> tuple[float, int]:
    """Requests per second of a bare aiohttp streaming loop, and its successful requests."""
    return asyncio.run(_aiohttp_run(url, n))


def chunk_costs(repeat: int = 200_000) -> tuple[float, float]:
    """Microseconds per chunk: the timestamp alone, and reading one whole event."""
    from scorekit.loadtest._prompts import Prompt
    from scorekit.loadtest._runner import Runner, Step
    from scorekit.loadtest._sse import SSEDecoder
    from scorekit.loadtest._stream import Attempt, read_event

    runner = Runner(
        "http://127.0.0.1:1/v1",
        "m",
        [],
        endpoint="chat",
        steps=[Step(concurrency=1)],
        max_tokens=1,
        duration=None,
        num_requests=1,
        timeout=1.0,
        seed=0,
        progress=False,
        api_key=None,
        transport=None,
        stream=sys.stderr,
        max_event_size=1 << 20,
    )
    attempt = Attempt(id=0, body={}, prompt=Prompt(text="x"))
    times = attempt.token_times
    now = runner.now
    stamp = timeit.timeit(lambda: times.append(now()), number=repeat) / repeat
    event = json.dumps(
        {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": "tok1 "}, "finish_reason": None}],
        }
    )
    raw = f"data: {event}\n\n".encode()
    decoder = SSEDecoder(1 << 20)
    attempt = Attempt(id=0, body={}, prompt=Prompt(text="x"))

    def one() -> None:
        t = now()
        for data in decoder.feed(raw):
            read_event(attempt, data, t)

    whole = timeit.timeit(one, number=repeat // 4) / (repeat // 4)
    return stamp * 1e6, whole * 1e6


def run(n: int = N) -> list[Row]:
    process, url = start_server()
    try:
        ours(url, min(n, 200))  # warm the server and the client's imports
        bare_aiohttp(url, min(n, 200))
        best_ours = best_theirs = 0.0
        ok = True
        for _ in range(3):  # interleaved, best of three each
            rate, good = ours(url, n)
            best_ours, ok = max(best_ours, rate), ok and good == n
            rate, good = bare_aiohttp(url, n)
            best_theirs, ok = max(best_theirs, rate), ok and good == n
    finally:
        process.terminate()
        process.join(10)
    stamp, whole = chunk_costs()
    print(
        f"loadtest: {best_ours:.0f} req/s streamed ({CHUNKS} chunks each, concurrency "
        f"{CONCURRENCY}), bare aiohttp {best_theirs:.0f} req/s; ratio "
        f"{best_ours / best_theirs:.2f}; timestamp {stamp:.2f} us/chunk, whole chunk read "
        f"{whole:.2f} us/chunk",
        file=sys.stderr,
    )
    # times are those of n requests at the best rates: the speed-up is scorekit's rate / aiohttp's
    return [
        Row(
            f"loadtest, {CHUNKS} streamed chunks/request (req/s: {best_ours:.0f} vs "
            f"{best_theirs:.0f}; timestamp {stamp:.2f} us/chunk)",
            f"{n:,} requests",
            n / best_ours,
            "bare aiohttp loop",
            n / best_theirs,
            "all requests whole" if ok else "NO: requests lost",
        )
    ]


if __name__ == "__main__":
    from _timing import HEADER

    print(HEADER)
    for row in run(N // (10 if "--small" in sys.argv else 1)):
        print(row.markdown())
