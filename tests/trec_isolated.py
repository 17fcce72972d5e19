"""pytrec_eval's evaluators, each evaluation run in a forked child process.

trec_eval (inside pytrec_eval) can leave a process in a state where a later,
ordinary evaluation never returns: seen in the tests with runs of graded
judgments that include negative grades, each input evaluating at once on its
own. Evaluating in a child that exits afterwards keeps the test process clean,
and a child that does not answer within :data:`TIMEOUT` seconds is an error
rather than a test run that hangs.

The children are forked from a small server process (this file run as a
script) that has imported pytrec_eval and never evaluates anything itself:
forking the test process, which grows to hundreds of megabytes, cost more than
most evaluations. Messages on the server's pipes are a tag byte, a length and a
body: ``E`` a request (the pickled class name, arguments and run), then ``P`` the
child's pid, ``R`` its pickled answer and ``X`` its exit status.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

TIMEOUT = 120.0

_HEADER = struct.Struct("<cQ")


def _send(fd: int, tag: bytes, body: bytes) -> None:
    data = _HEADER.pack(tag, len(body)) + body
    while data:
        data = data[os.write(fd, data) :]


def _read_exactly(fd: int, size: int, deadline: float | None = None) -> bytes:
    """``size`` bytes from ``fd``; EOFError at its end, TimeoutError past ``deadline``."""
    chunks, left = [], size
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _receive(fd: int, deadline: float | None = None) -> tuple[bytes, bytes]:
    tag, size = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return tag, _read_exactly(fd, size, deadline)


def _serve() -> None:
    """The server: for each request on stdin, a child evaluates; its answer is passed on."""
    import pytrec_eval

    requests, answers = sys.stdin.fileno(), sys.stdout.fileno()
    while True:
        try:
            _, body = _receive(requests)
        except EOFError:
            return
        name, args, kwargs, run = pickle.loads(body)
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: evaluate, send the result (or the error), leave
            os.close(read)
            try:
                try:
                    payload = (True, getattr(pytrec_eval, name)(*args, **kwargs).evaluate(run))
                except Exception as exc:  # the test process raises it again
                    payload = (False, exc)
                with os.fdopen(write, "wb") as out:
                    pickle.dump(payload, out)
            finally:
                os._exit(0)
        os.close(write)
        _send(answers, b"P", str(pid).encode())
        with os.fdopen(read, "rb") as inp:
            answer = inp.read()
        if answer:
            _send(answers, b"R", answer)
        _, status = os.waitpid(pid, 0)
        _send(answers, b"X", str(os.waitstatus_to_exitcode(status)).encode())


class _Server:
    """The server process, started with the first evaluation of a test process."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__))], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin.fileno()
        self.answers = self.process.stdout.fileno()
        self.child: int | None = None

    def close(self) -> None:
        if self.child is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.child, signal.SIGKILL)
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def evaluate(self, name: str, args: Any, kwargs: Any, run: Any) -> tuple[bool, Any]:
        _send(self.requests, b"E", pickle.dumps((name, args, kwargs, run)))
        deadline = time.monotonic() + TIMEOUT
        answer = None
        while True:
            tag, body = _receive(self.answers, deadline)
            if tag == b"P":
                self.child = int(body)
            elif tag == b"R":
                answer = body
            else:
                break
        status, self.child = int(body), None
        if answer is None:
            raise RuntimeError(f"pytrec_eval's child process ended with status {status}")
        ok, value = pickle.loads(answer)
        return ok, value


_server: _Server | None = None
_lock = threading.Lock()


def _evaluate_in_child(name: str, args: tuple[Any, ...], kwargs: dict[str, Any], run: Any) -> Any:
    """``pytrec_eval.<name>(*args, **kwargs).evaluate(run)`` in a child of the server."""
    global _server
    with _lock:
        if _server is None:
            _server = _Server()
            atexit.register(_server.close)
        try:
            ok, value = _server.evaluate(name, args, kwargs, run)
        except (TimeoutError, EOFError):
            # the child that does not answer goes with its server; the next evaluation
            # starts another server
            server, _server = _server, None
            atexit.unregister(server.close)
            server.close()
            raise RuntimeError(f"pytrec_eval did not return within {TIMEOUT:g} s") from None
    if not ok:
        raise value
    return value


def isolating(real: type, name: str) -> type:
    """A stand-in for ``pytrec_eval.<name>`` whose ``evaluate`` runs in a child process."""

    class Isolated:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self._args, self._kwargs = args, kwargs

        def evaluate(self, run: Any) -> Any:
            return _evaluate_in_child(name, self._args, self._kwargs, run)

    Isolated.__name__ = Isolated.__qualname__ = real.__name__
    return Isolated


def isolate(module: Any) -> None:
    """Replace the evaluator classes of the pytrec_eval module by isolating stand-ins."""
    for name in ("RelevanceEvaluator", "_RelevanceEvaluator"):
        real = getattr(module, name, None)
        if isinstance(real, type):
            setattr(module, name, isolating(real, name))


if __name__ == "__main__":
    _serve()
